//! `permission-lsp simulate`: one call, or a JSONL batch, against the policy
//! found where the runtime looks (or the files given).

use crate::engine::gates::{Call, Simulation};
use crate::engine::paths::RealFs;
use crate::engine::policy::{LoadedPolicy, PolicyInputs, load_policy};
use crate::ide::simulation::{deciding_gate, locate, to_json};
use crate::workspace::{Locations, load_inputs};
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

pub struct Options {
    pub locations: Locations,
    pub format: Format,
}

/// A single call from the command line, or `None` for batch mode.
pub struct SingleCall {
    pub tool: String,
    pub input: Value,
}

pub fn run(
    opts: &Options,
    single: Option<SingleCall>,
    batch: Option<PathBuf>,
    out: &mut dyn Write,
) -> Result<i32, String> {
    let inputs = load_inputs(&opts.locations, &|_| None)?;
    let loaded = load_policy(&inputs);
    let cwd = opts.locations.cwd.display().to_string();
    let agent = opts.locations.agent.clone();
    if opts.format == Format::Human {
        for issue in &loaded.issues {
            let _ = writeln!(out, "warning: the runtime reports: {issue}");
        }
    }
    if let Some(call) = single {
        let c = Call {
            tool: call.tool,
            input: call.input,
            agent,
            cwd,
        };
        let sim = loaded.policy.simulate(&c, &RealFs);
        emit(opts.format, &c, &sim, &loaded, &inputs, out);
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
    for (n, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| format!("reading the batch: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = match serde_json::from_str(&line) {
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
        let c = Call {
            tool: tool.to_string(),
            input: v.get("input").cloned().unwrap_or(json!({})),
            agent: v["agent"]
                .as_str()
                .map(String::from)
                .or_else(|| agent.clone()),
            cwd: v["cwd"]
                .as_str()
                .map(String::from)
                .unwrap_or_else(|| cwd.clone()),
        };
        let sim = loaded.policy.simulate(&c, &RealFs);
        emit(opts.format, &c, &sim, &loaded, &inputs, out);
    }
    Ok(0)
}

fn emit(
    format: Format,
    call: &Call,
    sim: &Simulation,
    loaded: &LoadedPolicy,
    inputs: &PolicyInputs,
    out: &mut dyn Write,
) {
    match format {
        Format::Json => {
            let _ = writeln!(out, "{}", to_json(call, sim, loaded, inputs));
        }
        Format::Human => {
            let what = match call.input.get("command").and_then(Value::as_str) {
                Some(c) => format!("{} `{c}`", call.tool),
                None => format!("{} {}", call.tool, call.input),
            };
            let _ = writeln!(out, "{:<5} {what}", sim.decision.as_str());
            if let Some(g) = deciding_gate(sim) {
                let c = g.check.as_ref();
                let rule = c.and_then(|c| c.rule.as_ref());
                let pattern = c
                    .and_then(|c| c.matched_pattern.clone())
                    .or_else(|| rule.map(|r| format!("{} (default)", r.pattern)))
                    .unwrap_or_default();
                let mut line = format!("  decided by: {} gate, pattern `{pattern}`", g.gate);
                if let Some(r) = rule {
                    line.push_str(&format!(" on `{}`, {}", r.surface, r.origin.as_str()));
                    if let Some((f, l, col)) = r.source.as_ref().and_then(|s| locate(s, inputs)) {
                        line.push_str(&format!(" ({f}:{l}:{col})"));
                    }
                }
                let _ = writeln!(out, "{line}");
                if let Some(cmd) = c
                    .and_then(|c| c.command.as_ref())
                    .filter(|_| !sim.units.is_empty())
                {
                    let ctx = c
                        .and_then(|c| c.command_context)
                        .map(|x| format!(" inside {}", x.label()))
                        .unwrap_or_default();
                    let _ = writeln!(out, "  unit: `{cmd}`{ctx}");
                }
            }
            if let Some(r) = &sim.reason {
                let _ = writeln!(out, "  reason: {r}");
            }
            if let Some(m) = &sim.agent_message {
                let _ = writeln!(out, "  agent sees: {m}");
            }
            if sim.tool_hidden {
                let _ = writeln!(
                    out,
                    "  note: the tool's catch-all is deny, so the runtime hides `{}` from the agent",
                    call.tool
                );
            }
            let gates: Vec<String> = sim
                .gates
                .iter()
                .map(|g| format!("{}={}", g.gate, g.state.as_str()))
                .collect();
            let _ = writeln!(out, "  gates: {}", gates.join(", "));
        }
    }
}
