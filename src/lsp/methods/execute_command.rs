//! `workspace/executeCommand`:
//!
//! - `permission-lsp.simulate` `{ uri, tool, input, agent?, cwd?, home? }`
//! - `permission-lsp.simulateCommandLine` `{ uri, commandLine, agent?, cwd?, home? }`
//!
//! - `permission-lsp.effectivePolicy` `{ uri, agent?, home? }`
//!
//! All evaluate against the open, unsaved buffers (other scope files are
//! read from disk). The simulations answer with the same JSON as
//! `permission-lsp simulate --format json`, the effective policy with the
//! same JSON as `permission-lsp explain --format json`.

use crate::engine::gates::Call;
use crate::engine::paths::RealFs;
use crate::engine::policy::load_policy;
use crate::ide::simulation::to_json;
use crate::lsp::server::Server;
use crate::workspace::{load_inputs, locations_for_document};
use serde_json::Value;
use std::path::{Path, PathBuf};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{ExecuteCommandParams, Uri};

pub const SIMULATE: &str = "permission-lsp.simulate";
pub const SIMULATE_COMMAND_LINE: &str = "permission-lsp.simulateCommandLine";
pub const EFFECTIVE_POLICY: &str = "permission-lsp.effectivePolicy";
pub const COMMANDS: [&str; 3] = [SIMULATE, SIMULATE_COMMAND_LINE, EFFECTIVE_POLICY];

fn invalid(msg: impl Into<String>) -> Error {
    Error::invalid_params(msg.into())
}

pub fn handle(server: &Server, params: ExecuteCommandParams) -> Result<Option<Value>> {
    let args = params.arguments.into_iter().next().unwrap_or(Value::Null);
    let (tool, input) = match params.command.as_str() {
        SIMULATE => {
            let tool = args["tool"]
                .as_str()
                .ok_or_else(|| invalid("`tool` (a string) is required"))?;
            (
                tool.to_string(),
                args.get("input")
                    .cloned()
                    .unwrap_or_else(|| serde_json::json!({})),
            )
        }
        SIMULATE_COMMAND_LINE => {
            let line = args["commandLine"].as_str().ok_or_else(|| {
                invalid("`commandLine` is required, e.g. \"git push\" or \"read src/.env\"")
            })?;
            crate::ide::sample_call::parse_command_line(line)
                .ok_or_else(|| invalid("the command line is empty"))?
        }
        EFFECTIVE_POLICY => (String::new(), Value::Null),
        other => return Err(invalid(format!("unknown command `{other}`"))),
    };
    let uri: Uri = args["uri"]
        .as_str()
        .and_then(|u| u.parse().ok())
        .ok_or_else(|| invalid("`uri` of an open document is required"))?;
    let doc_path = uri
        .to_file_path()
        .map(|p| p.into_owned())
        .ok_or_else(|| invalid("`uri` must be a file URI"))?;
    let settings = server.session.settings();
    let home = args["home"]
        .as_str()
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("/"));
    let fallback_cwd = args["cwd"]
        .as_str()
        .map(PathBuf::from)
        .or(settings.workspace_root.clone())
        .or_else(|| doc_path.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("/"));
    let agent = args["agent"].as_str().map(String::from);
    let mut loc = locations_for_document(&doc_path, &fallback_cwd, &home, agent);
    if let Some(cwd) = args["cwd"].as_str() {
        loc.cwd = PathBuf::from(cwd);
    }
    let session = &server.session;
    let inputs = load_inputs(&loc, &|p: &Path| session.open_text_by_path(p)).map_err(invalid)?;
    let loaded = load_policy(&inputs);
    if params.command == EFFECTIVE_POLICY {
        return Ok(Some(crate::ide::effective::effective_policy(
            &inputs,
            &loaded,
            loc.agent.as_deref(),
        )));
    }
    let call = Call {
        tool,
        input,
        agent: loc.agent.clone(),
        cwd: loc.cwd.display().to_string(),
    };
    let sim = loaded.policy.simulate(&call, &RealFs);
    Ok(Some(to_json(&call, &sim, &loaded, &inputs)))
}
