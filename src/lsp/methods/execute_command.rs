//! `workspace/executeCommand`:
//!
//! - `permission-lsp.simulate` `{ uri, tool, input, agent?, cwd?, home? }`
//! - `permission-lsp.simulateCommandLine` `{ uri, commandLine, agent?, cwd?, home? }`
//! - `permission-lsp.effectivePolicy` `{ uri, agent?, cwd?, home? }`
//!
//! All evaluate against the open, unsaved buffers (other scope files are
//! read from disk), with the same settings as the diagnostics (one
//! resolver). The simulations answer with the typed report of
//! `permission-lsp simulate --format json`, the effective policy with the
//! one of `permission-lsp explain --format json` and, in `text`, the policy
//! as `explain` prints it (the editor opens it as a document).

use crate::formats::CallRequest;
use crate::lsp::diagnostics::context;
use crate::lsp::server::Server;
use crate::workspace::Overrides;
use serde_json::Value;
use std::path::PathBuf;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{ExecuteCommandParams, Uri};

pub const SIMULATE: &str = "permission-lsp.simulate";
pub const SIMULATE_COMMAND_LINE: &str = "permission-lsp.simulateCommandLine";
pub const EFFECTIVE_POLICY: &str = "permission-lsp.effectivePolicy";
/// The replay of the configured logs against the document (the changed
/// calls and the summary).
pub const REPLAY: &str = "permission-lsp.replay";
/// The document compared with its text at git's HEAD.
pub const DIFF: &str = "permission-lsp.diff";
pub const COMMANDS: [&str; 5] = [
    SIMULATE,
    SIMULATE_COMMAND_LINE,
    EFFECTIVE_POLICY,
    REPLAY,
    DIFF,
];

fn invalid(msg: impl Into<String>) -> Error {
    Error::invalid_params(msg.into())
}

/// A simulated call larger than this is refused: every request is bounded
/// (the runtime resolves each path token on disk; a call of a megabyte is
/// no real tool call).
pub const MAX_CALL_BYTES: usize = 1024 * 1024;

pub fn handle(server: &Server, params: ExecuteCommandParams) -> Result<Option<Value>> {
    let args = params.arguments.into_iter().next().unwrap_or(Value::Null);
    if !COMMANDS.contains(&params.command.as_str()) {
        return Err(invalid(format!("unknown command `{}`", params.command)));
    }
    let size = serde_json::to_string(&args).map_or(0, |s| s.len());
    if size > MAX_CALL_BYTES {
        return Err(invalid(format!(
            "the call is too large to simulate: {size} bytes (limit {MAX_CALL_BYTES})"
        )));
    }
    let uri: Uri = args["uri"]
        .as_str()
        .and_then(|u| u.parse().ok())
        .ok_or_else(|| invalid("`uri` of an open document is required"))?;
    if uri.to_file_path().is_none() {
        return Err(invalid("`uri` must be a file URI"));
    }
    let session = &server.session;
    let settings = session.settings();
    // The document's format; a document that is none (or not open) is read
    // as the default format's config.
    let format = session
        .snapshot(&uri)
        .and_then(|s| s.kind)
        .map_or_else(crate::formats::default_format, |k| k.format);
    if params.command == REPLAY || params.command == DIFF {
        let snapshot = session
            .snapshot(&uri)
            .ok_or_else(|| invalid("the document is not open"))?;
        let value =
            if params.command == REPLAY {
                let view = crate::lsp::history::view(session, &snapshot, &settings).ok_or_else(|| {
                invalid("no decision logs: set permissionLsp.history.logs to the runtime's logs")
            })?;
                serde_json::json!({
                    "schemaVersion": crate::analysis::report::SCHEMA_VERSION,
                    "headline": view.summary.headline(),
                    "summary": view.summary,
                    "logs": view.files,
                    "changes": view.changes,
                })
            } else {
                let c = crate::lsp::history::head_diff(session, &snapshot, &settings)
                    .ok_or_else(|| invalid("the document has no version at git's HEAD"))?;
                serde_json::json!({
                    "schemaVersion": crate::analysis::report::SCHEMA_VERSION,
                    "runtime": c.runtime,
                    "base": c.base,
                    "files": c.files,
                    "differences": c.report.differences,
                    "newly_allowed": c.report.newly_allowed,
                    "newly_asked": c.report.newly_asked,
                    "newly_denied": c.report.newly_denied,
                    "incomplete": c.report.incomplete,
                    "incomplete_reasons": c.report.incomplete_reasons,
                })
            };
        return Ok(Some(value));
    }
    let call = match params.command.as_str() {
        SIMULATE => {
            let tool = args["tool"]
                .as_str()
                .ok_or_else(|| invalid("`tool` (a string) is required"))?;
            Some(CallRequest {
                tool: tool.to_string(),
                input: args
                    .get("input")
                    .cloned()
                    .unwrap_or_else(|| serde_json::json!({})),
            })
        }
        SIMULATE_COMMAND_LINE => {
            let line = args["commandLine"].as_str().ok_or_else(|| {
                invalid("`commandLine` is required, e.g. \"git push\" or \"read src/.env\"")
            })?;
            Some(
                format
                    .parse_command_line(line)
                    .ok_or_else(|| invalid("the command line is empty"))?,
            )
        }
        _ => None,
    };
    let overrides = Overrides {
        home: args["home"].as_str().map(String::from),
        agent: args["agent"].as_str().map(String::from),
        runtime_args: Vec::new(),
        cwd: args["cwd"].as_str().map(PathBuf::from),
        global_config: None,
    };
    let open = |p: &std::path::Path| session.open_text_by_path(p);
    let ctx = context(&settings, &uri, &overrides, &open);
    let value = match call {
        Some(call) => format
            .simulate(&ctx, &call)
            .and_then(|r| serde_json::to_value(r).map_err(|e| e.to_string())),
        // With the policy as `explain` prints it, for a readable document.
        None => format.effective_policy(&ctx).and_then(|r| {
            let mut v = serde_json::to_value(&r).map_err(|e| e.to_string())?;
            v["text"] = Value::String(r.to_text());
            Ok(v)
        }),
    }
    .map_err(invalid)?;
    Ok(Some(value))
}
