//! `permission-lsp simulate`: one call, or a JSONL batch, against the policy
//! found where the runtime looks (or the files given). Each batch line may
//! name its own `agent` and `cwd`; the policy is resolved again for it.

use crate::analysis::report::SimulationReport;
use crate::formats::{CallRequest, Format as RuntimeFormat};
use crate::workspace::Context;
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

/// A single call from the command line, or `None` for batch mode.
pub struct SingleCall {
    pub tool: String,
    pub input: Value,
}

pub fn run(
    runtime: &dyn RuntimeFormat,
    ctx: &Context<'_>,
    format: Format,
    single: Option<SingleCall>,
    batch: Option<PathBuf>,
    out: &mut dyn Write,
) -> Result<i32, String> {
    if let Some(call) = single {
        let report = runtime.simulate(
            ctx,
            &CallRequest {
                tool: call.tool,
                input: call.input,
            },
        )?;
        if format == Format::Human {
            for issue in config_issues(&report) {
                let _ = writeln!(out, "warning: the runtime reports: {issue}");
            }
        }
        emit(format, &report, out);
        return Ok(0);
    }
    let path = batch.unwrap_or_else(|| PathBuf::from("-"));
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        Box::new(std::io::BufReader::new(
            std::fs::File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?,
        ))
    };
    let mut warned = false;
    for (n, line) in reader.split(b'\n').enumerate() {
        let line = line.map_err(|e| format!("reading the batch: {e}"))?;
        // One undecodable line is answered with an error; the rest go on.
        let Ok(line) = std::str::from_utf8(&line) else {
            let _ = writeln!(out, "{}", json!({ "line": n + 1, "error": "not UTF-8" }));
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                let _ = writeln!(
                    out,
                    "{}",
                    json!({ "line": n + 1, "error": format!("not JSON: {e}") })
                );
                continue;
            }
        };
        let Some(tool) = v["tool"].as_str() else {
            let _ = writeln!(
                out,
                "{}",
                json!({ "line": n + 1, "error": "missing \"tool\"" })
            );
            continue;
        };
        // A line's own agent and working directory resolve the policy again.
        let line_ctx;
        let ctx = if v["agent"].is_string() || v["cwd"].is_string() {
            let mut options = ctx.options.clone();
            if let Some(a) = v["agent"].as_str() {
                options.agent = Some(a.to_string());
            }
            line_ctx = Context {
                options,
                cwd: v["cwd"]
                    .as_str()
                    .map_or_else(|| ctx.cwd.clone(), PathBuf::from),
                cwd_explicit: ctx.cwd_explicit || v["cwd"].is_string(),
                agent_explicit: ctx.agent_explicit || v["agent"].is_string(),
                document: ctx.document.clone(),
                global_config: ctx.global_config.clone(),
                open: ctx.open,
            };
            &line_ctx
        } else {
            ctx
        };
        let call = CallRequest {
            tool: tool.to_string(),
            input: v.get("input").cloned().unwrap_or(json!({})),
        };
        match runtime.simulate(ctx, &call) {
            Ok(report) => {
                if format == Format::Human && !warned {
                    warned = true;
                    for issue in config_issues(&report) {
                        let _ = writeln!(out, "warning: the runtime reports: {issue}");
                    }
                }
                emit(format, &report, out);
            }
            Err(e) => {
                let _ = writeln!(out, "{}", json!({ "line": n + 1, "error": e }));
            }
        }
    }
    Ok(0)
}

/// The issues the runtime reports for the scope files.
fn config_issues(report: &SimulationReport) -> &[String] {
    &report.config_issues
}

fn emit(format: Format, report: &SimulationReport, out: &mut dyn Write) {
    match format {
        Format::Json => {
            let _ = writeln!(out, "{}", serde_json::to_string(report).unwrap_or_default());
        }
        Format::Human => {
            let what = match report.input.get("command").and_then(Value::as_str) {
                Some(c) => format!("{} `{c}`", report.tool),
                None => format!("{} {}", report.tool, report.input),
            };
            let _ = writeln!(out, "{:<5} {what}", report.decision);
            for line in &report.explanation {
                let _ = writeln!(out, "  {line}");
            }
        }
    }
}
