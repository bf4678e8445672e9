//! `permission-lsp simulate`: one call, or a JSONL batch, against the policy
//! found where the runtime looks (or the files given). Each batch line may
//! name its own `agent` and `cwd`; the policy is resolved again for it.

use crate::analysis::report::SimulationReport;
use crate::formats::{CallRequest, Format as RuntimeFormat, Simulator};
use crate::workspace::{Context, Overrides};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

/// Distinct (agent, cwd) policies kept at once in a batch.
const MAX_POLICIES: usize = 64;

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
            warn_config_issues(&report, out);
        }
        emit(format, &report, out);
        return Ok(0);
    }
    let path = batch.unwrap_or_else(|| PathBuf::from("-"));
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        // A file or a pipe (`--batch <(…)`); never a device, and a FIFO
        // without a writer is an empty batch, not a hang.
        let (file, _) =
            crate::fsio::open(&path, true).map_err(|e| format!("{}: {e}", path.display()))?;
        Box::new(std::io::BufReader::new(file))
    };
    let mut warned = false;
    // The policy is loaded once per distinct (agent, cwd) of the lines.
    let mut simulators: HashMap<(Option<String>, Option<String>), Box<dyn Simulator>> =
        HashMap::new();
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
        let key = (
            v["agent"].as_str().map(String::from),
            v["cwd"].as_str().map(String::from),
        );
        if !simulators.contains_key(&key) {
            if simulators.len() >= MAX_POLICIES {
                simulators.clear();
            }
            let line_ctx = ctx.with(&Overrides {
                agent: key.0.clone(),
                cwd: key.1.as_ref().map(PathBuf::from),
                ..Default::default()
            });
            match runtime.simulator(&line_ctx) {
                Ok(s) => {
                    simulators.insert(key.clone(), s);
                }
                Err(e) => {
                    let _ = writeln!(out, "{}", json!({ "line": n + 1, "error": e }));
                    continue;
                }
            }
        }
        let call = CallRequest {
            tool: tool.to_string(),
            input: v.get("input").cloned().unwrap_or(json!({})),
        };
        if let Some(simulator) = simulators.get(&key) {
            let report = simulator.simulate(&call);
            if format == Format::Human && !warned {
                warned = true;
                warn_config_issues(&report, out);
            }
            emit(format, &report, out);
        }
    }
    Ok(0)
}

/// One call answered by each agent whose configs are here: one agent
/// prints as a single call does; several print a section each (human), or
/// `{"schemaVersion", "answers": [report, …]}` (JSON).
pub fn run_side_by_side(
    calls: Vec<(&'static dyn RuntimeFormat, &Context<'_>, SingleCall)>,
    format: Format,
    out: &mut dyn Write,
) -> Result<i32, String> {
    let several = calls.len() > 1;
    let mut reports = Vec::new();
    for (runtime, ctx, call) in calls {
        let report = runtime
            .simulate(
                ctx,
                &CallRequest {
                    tool: call.tool,
                    input: call.input,
                },
            )
            .map_err(|e| format!("{}: {e}", runtime.display_name()))?;
        reports.push(report);
    }
    if !several {
        let report = &reports[0];
        if format == Format::Human {
            warn_config_issues(report, out);
        }
        emit(format, report, out);
        return Ok(0);
    }
    match format {
        Format::Json => {
            let v = json!({
                "schemaVersion": crate::analysis::report::SCHEMA_VERSION,
                "answers": reports,
            });
            let _ = writeln!(out, "{v}");
        }
        Format::Human => {
            for (i, report) in reports.iter().enumerate() {
                if i > 0 {
                    let _ = writeln!(out);
                }
                let _ = writeln!(out, "{}:", report.runtime);
                warn_config_issues(report, out);
                emit(format, report, out);
            }
        }
    }
    Ok(0)
}

/// The issues the runtime reports for the scope files.
fn warn_config_issues(report: &SimulationReport, out: &mut dyn Write) {
    for issue in &report.config_issues {
        let _ = writeln!(out, "warning: the runtime reports: {issue}");
    }
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
            // Clipped for people: a 40 KB tool name or command line is not
            // echoed whole (`--format json` keeps every value).
            let head = format!("{:<5} {what}", report.decision);
            let _ = writeln!(out, "{}", crate::text::clip_line(&head));
            for line in &report.explanation {
                let _ = writeln!(out, "  {}", crate::text::clip_line(line));
            }
        }
    }
}

/// `simulate --target-version all`: one call answered by every version,
/// and where the answer changes.
pub fn emit_versions(
    format: Format,
    tool: &str,
    input: &Value,
    answers: &[(String, String, SimulationReport)],
    out: &mut dyn Write,
) {
    let mut changes = Vec::new();
    for w in answers.windows(2) {
        if w[0].2.decision != w[1].2.decision || w[0].2.tool_hidden != w[1].2.tool_hidden {
            let shown = |r: &SimulationReport| {
                if r.tool_hidden {
                    format!("{} (tool hidden)", r.decision)
                } else {
                    r.decision.clone()
                }
            };
            changes.push(json!({
                "from": w[0].0, "to": w[1].0,
                "before": shown(&w[0].2), "after": shown(&w[1].2),
            }));
        }
    }
    if format == Format::Json {
        let v = json!({
            "schemaVersion": crate::analysis::report::SCHEMA_VERSION,
            "tool": tool,
            "input": input,
            "versions": answers.iter().map(|(v, basis, r)| json!({
                "version": v,
                "basis": basis,
                "decision": r.decision,
                "tool_hidden": r.tool_hidden,
                "rule": r.rule,
                "reason": r.reason,
                "config_issues": r.config_issues,
            })).collect::<Vec<_>>(),
            "changes": changes,
        });
        let _ = writeln!(out, "{v}");
        return;
    }
    let _ = writeln!(out, "{tool} {input}");
    for (v, basis, r) in answers {
        let why = r
            .rule
            .as_ref()
            .map(|x| format!("by `{}` `{}`", x.surface, x.pattern))
            .or_else(|| r.reason.clone())
            .unwrap_or_default();
        let _ = writeln!(out, "  {v:<8} {:<5} {why}   ({basis})", r.decision);
    }
    for c in &changes {
        let _ = writeln!(
            out,
            "  changes between {} and {}: {} -> {}",
            c["from"].as_str().unwrap_or(""),
            c["to"].as_str().unwrap_or(""),
            c["before"].as_str().unwrap_or(""),
            c["after"].as_str().unwrap_or("")
        );
    }
}
