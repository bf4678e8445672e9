//! `permission-lsp suggest LOG…`: rules from the approvals in the
//! runtimes' logs, each placed where it takes effect and checked by
//! deciding the approved and the refused calls again with it.

use crate::formats::Format as RuntimeFormat;
use crate::history::replay::{Change, Replayer};
use crate::history::suggest::Collector;
use serde_json::json;
use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

/// Runs the suggestion; the exit status is 0 (2 when no log can be read).
pub fn run(
    logs: &[PathBuf],
    only: Option<&'static dyn RuntimeFormat>,
    context_for: &crate::cli::replay::ContextFor<'_>,
    min: u64,
    format: Format,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let collector = RefCell::new(Collector::default());
    let mut read_any = false;
    {
        let loader = crate::cli::replay::loader(context_for);
        let mut replayer = Replayer::new(Box::new(loader));
        replayer.only = only;
        replayer.observer = Some(Box::new(|f, call| collector.borrow_mut().add(f, call)));
        for path in logs {
            let file = match crate::fsio::open(path, true) {
                Ok((f, _)) => f,
                Err(e) => {
                    let _ = writeln!(err, "error: {}: {e}", path.display());
                    continue;
                }
            };
            read_any = true;
            let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
            let mut sink = |_: &Change| {};
            replayer.replay(&path.display().to_string(), &mut reader, &mut sink);
        }
    }
    let mut placed = Vec::new();
    for (s, approved, denied) in collector.borrow().suggestions(min) {
        let Some(f) = crate::formats::by_id(s.format) else {
            continue;
        };
        let Ok(ctx) = context_for(f) else { continue };
        if let Some(p) = crate::history::suggest::place(f, &ctx, s, &approved, &denied) {
            placed.push(p);
        }
    }
    match format {
        Format::Json => {
            let _ = writeln!(
                out,
                "{}",
                json!({
                    "schemaVersion": crate::analysis::report::SCHEMA_VERSION,
                    "suggestions": placed,
                })
            );
        }
        Format::Human => {
            for p in &placed {
                let s = &p.suggestion;
                let _ = writeln!(
                    out,
                    "{}: {} — approved {} time{} ({} distinct: {}{})",
                    s.format,
                    s.rule,
                    s.approvals,
                    if s.approvals == 1 { "" } else { "s" },
                    s.distinct,
                    s.examples
                        .iter()
                        .map(|e| format!("`{e}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    if s.distinct > s.examples.len() {
                        ", …"
                    } else {
                        ""
                    }
                );
                let at = match (p.after_line, p.in_line) {
                    (Some(l), _) => Some(format!("insert after line {l}")),
                    (None, Some(l)) => Some(format!("insert in line {l}")),
                    _ => None,
                };
                if let (Some(f), Some(at)) = (&p.file, at) {
                    let _ = writeln!(
                        out,
                        "  {at} of {f} (where it overrides the rule that asks now); none of {} refused call{} matches",
                        s.denied_checked,
                        if s.denied_checked == 1 { "" } else { "s" }
                    );
                }
                if let Some(n) = &p.note {
                    let _ = writeln!(out, "  note: {n}");
                }
            }
            let _ = writeln!(
                out,
                "{} suggestion{}",
                placed.len(),
                if placed.len() == 1 { "" } else { "s" }
            );
        }
    }
    if read_any { 0 } else { 2 }
}
