//! `permission-lsp explain`: the effective policy — every scope file merged
//! the way the runtime merges them, the rule list in evaluation order with
//! where each rule comes from, the knobs in force, each file's issues.

use crate::engine::policy::load_policy;
use crate::ide::effective::{effective_policy, render_human};
use crate::workspace::{Locations, load_inputs};
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
