//! `permission-lsp explain`: the effective policy — every scope file merged
//! the way the runtime merges them, the rule list in evaluation order with
//! where each rule comes from, each file's issues, and what else the format
//! reports.

use crate::analysis::report::EffectivePolicyReport;
use crate::formats::Format as RuntimeFormat;
use crate::workspace::Context;
use std::io::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

/// Prints the effective policy; returns the exit code (2 when the scope
/// files cannot be located, e.g. an agent name with `/`).
pub fn run(
    format_of: &dyn RuntimeFormat,
    ctx: &Context<'_>,
    format: Format,
    out: &mut dyn Write,
) -> i32 {
    let report = match format_of.effective_policy(ctx) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("permission-lsp: {e}");
            return 2;
        }
    };
    let _ = match format {
        // Streamed: the text of a 100,000-rule policy is never held whole.
        Format::Json => serde_json::to_writer_pretty(&mut *out, &report)
            .map_err(std::io::Error::other)
            .and_then(|()| writeln!(out)),
        Format::Human => write!(out, "{}", render_human(&report)),
    };
    0
}

/// The effective policy of each agent, side by side: one agent prints as
/// [`run`] does; several print one after the other (human), or as
/// `{"schemaVersion", "formats": [report, …]}` (JSON).
pub fn run_all(
    answers: &[(&'static dyn RuntimeFormat, &Context<'_>)],
    format: Format,
    out: &mut dyn Write,
) -> i32 {
    if let [(f, ctx)] = answers {
        return run(*f, ctx, format, out);
    }
    let mut reports = Vec::new();
    for (f, ctx) in answers {
        match f.effective_policy(ctx) {
            Ok(r) => reports.push(r),
            Err(e) => {
                eprintln!("permission-lsp: {}: {e}", f.display_name());
                return 2;
            }
        }
    }
    let _ = match format {
        Format::Json => serde_json::to_writer_pretty(
            &mut *out,
            &serde_json::json!({
                "schemaVersion": crate::analysis::report::SCHEMA_VERSION,
                "formats": reports,
            }),
        )
        .map_err(std::io::Error::other)
        .and_then(|()| writeln!(out)),
        Format::Human => {
            let mut all = String::new();
            for (i, r) in reports.iter().enumerate() {
                if i > 0 {
                    all.push('\n');
                }
                all.push_str(&render_human(r));
            }
            write!(out, "{all}")
        }
    };
    0
}

/// The effective policy for a terminal.
fn render_human(v: &EffectivePolicyReport) -> String {
    v.to_text()
}
