//! `permission-lsp explain`: the effective policy — every scope file merged
//! the way the runtime merges them, the rule list in evaluation order with
//! where each rule comes from, the knobs in force, each file's issues.

use crate::engine::policy::load_policy;
use crate::ide::effective::effective_policy;
use crate::workspace::{Locations, load_inputs};
use serde_json::{Value, json};
use std::io::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

/// Prints the effective policy; returns the exit code (2 when the scope
/// files cannot be located, e.g. an agent name with `/`).
pub fn run(loc: &Locations, format: Format, out: &mut dyn Write) -> i32 {
    let inputs = match load_inputs(loc, &|_| None) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("permission-lsp: {e}");
            return 2;
        }
    };
    let loaded = load_policy(&inputs);
    let v = effective_policy(&inputs, &loaded, loc.agent.as_deref());
    let _ = match format {
        Format::Json => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&v).unwrap_or_default()
        ),
        Format::Human => write!(out, "{}", render_human(&v)),
    };
    0
}

/// The effective policy (the JSON of `--format json`) for a terminal.
fn render_human(v: &Value) -> String {
    let mut out = String::new();
    let agent = v["agent"]
        .as_str()
        .map_or("none".to_string(), |a| format!("`{a}`"));
    out.push_str(&format!("Effective policy (agent: {agent})\n\nFiles, in merge order (later scopes override earlier ones key by key):\n"));
    for f in v["files"].as_array().into_iter().flatten() {
        let scope = f["scope"].as_str().unwrap_or("");
        match (f["present"].as_bool(), f["path"].as_str()) {
            (Some(true), Some(path)) => {
                let state = if f["accepted"] == json!(false) {
                    "REJECTED by the runtime: contributes nothing"
                } else if f["permission"] == json!(false) {
                    "no permission block"
                } else {
                    "read"
                };
                out.push_str(&format!("  {scope:<14} {path}  ({state})\n"));
                for i in f["issues"].as_array().into_iter().flatten() {
                    out.push_str(&format!("      {}\n", i.as_str().unwrap_or("")));
                }
            }
            _ => out.push_str(&format!("  {scope:<14} (none)\n")),
        }
    }
    out.push_str("\nRules in evaluation order (the last matching rule wins):\n");
    for r in v["rules"].as_array().into_iter().flatten() {
        let place = match (r["file"].as_str(), r["line"].as_u64(), r["column"].as_u64()) {
            (Some(f), Some(l), Some(c)) => format!("{f}:{l}:{c}"),
            _ => String::new(),
        };
        let reason = r["reason"]
            .as_str()
            .map_or(String::new(), |s| format!(" “{s}”"));
        out.push_str(&format!(
            "  {:>4}  {:<10} {:<20} {:<5}{reason}  [{}] {place}\n",
            r["index"],
            r["surface"].as_str().unwrap_or(""),
            r["pattern"].as_str().unwrap_or(""),
            r["action"].as_str().unwrap_or(""),
            match r["layer"].as_str() {
                Some("config") => r["scope"].as_str().unwrap_or(""),
                other => other.unwrap_or(""),
            }
        ));
    }
    let k = &v["knobs"];
    out.push_str(&format!(
        "\nKnobs in force: yoloMode = {}; shellTools = {}; MCP servers (mcp.json) = {}\n",
        k["yoloMode"], k["shellTools"], k["mcpServers"]
    ));
    if v["permissiveBashWarning"] == json!(true) {
        out.push_str("Startup warning: `*: allow` without a bash policy — every unmatched bash command runs.\n");
    }
    out
}
