//! `permission-lsp suggest LOG…`: rules from the approvals in the
//! runtimes' logs, each placed where it takes effect and checked by
//! deciding the approved and the refused calls again with it.

use crate::formats::Format as RuntimeFormat;
use crate::history::replay::{Change, Replayer};
use crate::history::suggest::Collector;
use serde_json::json;
use std::cell::RefCell;
use std::io::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

/// Runs the suggestion; the exit status is 0 (2 when a named log cannot
/// be read, or `--apply` could not write a file). With `apply`, each
/// suggestion is written into the file it names (keeping every other byte)
/// and checked again from the file, one after the other.
#[allow(clippy::too_many_arguments)]
pub fn run(
    logs: crate::cli::replay::Logs<'_>,
    only: Option<&'static dyn RuntimeFormat>,
    context_for: &crate::cli::replay::ContextFor<'_>,
    min: u64,
    apply: bool,
    format: Format,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let collector = RefCell::new(Collector::default());
    let mut failed = false;
    let list = crate::cli::replay::log_list(logs, context_for, err);
    {
        let loader = crate::cli::replay::loader(context_for);
        let mut replayer = Replayer::new(Box::new(loader));
        replayer.only = only;
        replayer.project = list.project.clone();
        replayer.observer = Some(Box::new(|f, call| collector.borrow_mut().add(f, call)));
        for (label, path) in &list.paths {
            let file = match crate::cli::replay::open_log(path) {
                Ok(f) => f,
                Err(e) => {
                    let _ = writeln!(err, "error: {label}: {e}");
                    failed |= list.named;
                    continue;
                }
            };
            let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
            let mut sink = |_: &Change| {};
            replayer.replay(label, &mut reader, &mut sink);
            if list.named
                && let Some(f) = replayer.summary.files.last()
                && f.kind.is_none()
                && let Some(e) = &f.error
            {
                let _ = writeln!(err, "error: {label}: {e}");
                failed = true;
            }
        }
    }
    let mut placed = Vec::new();
    let mut applied = Vec::new();
    for (s, approved, denied) in collector.borrow().suggestions(min) {
        let Some(f) = crate::formats::by_id(s.format) else {
            continue;
        };
        let Ok(ctx) = context_for(f) else { continue };
        let Some(p) = crate::history::suggest::place(f, &ctx, s, &approved, &denied) else {
            continue;
        };
        if apply && let (Some(file), Some(text)) = (&p.file, &p.new_text) {
            match write_file(std::path::Path::new(file), text) {
                Ok(()) => {
                    // Checked again from the file as written.
                    let now = crate::history::replay::policy_for(
                        &ctx,
                        f,
                        &crate::history::Session::default(),
                    )
                    .map(|sim| {
                        approved
                            .iter()
                            .filter(|c| sim.simulate(c).decision == "allow")
                            .count()
                    })
                    .unwrap_or(0);
                    applied.push((shown_path(&ctx)(file), now, approved.len()));
                }
                Err(e) => {
                    let _ = writeln!(err, "error: {file}: not written: {e}");
                    failed = true;
                }
            }
        }
        placed.push((p, shown_path(&ctx)));
    }
    match format {
        Format::Json => {
            let suggestions: Vec<_> = placed.iter().map(|(p, _)| p).collect();
            let _ = writeln!(
                out,
                "{}",
                json!({
                    "schemaVersion": crate::analysis::report::SCHEMA_VERSION,
                    "suggestions": suggestions,
                    "applied": applied.iter().map(|(f, n, of)| json!({"file": f, "allowedNow": n, "approvedCalls": of})).collect::<Vec<_>>(),
                })
            );
        }
        Format::Human => {
            for (p, shown) in &placed {
                human(p, shown, out);
            }
            for (file, n, of) in &applied {
                let _ = writeln!(
                    out,
                    "applied: {file} written; checked again, it allows {n} of the {of} approved call{}",
                    if *of == 1 { "" } else { "s" }
                );
            }
            let _ = writeln!(
                out,
                "{} suggestion{}",
                placed.len(),
                if placed.len() == 1 { "" } else { "s" }
            );
        }
    }
    if failed { 2 } else { 0 }
}

/// How a path is shown from a context: relative to its folder, `~/…` in
/// the home.
type Shown = Box<dyn Fn(&str) -> String>;

fn shown_path(ctx: &crate::workspace::Context<'_>) -> Shown {
    let cwd = ctx.cwd.clone();
    let home = ctx.options.home.clone();
    Box::new(move |p: &str| crate::cli::discover::shown(std::path::Path::new(p), &cwd, &home))
}

/// Writes `text` to `path` (its folder made when missing) through a
/// temporary file renamed over it, so a failure leaves the file as it was.
fn write_file(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!(
        "{}.permission-lsp-{}",
        path.extension().and_then(|e| e.to_str()).unwrap_or(""),
        std::process::id()
    ));
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::write(&tmp, text)?;
        let _ = std::fs::set_permissions(&tmp, meta.permissions());
    } else {
        std::fs::write(&tmp, text)?;
    }
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

fn human(p: &crate::history::suggest::Placed, shown: &Shown, out: &mut dyn Write) {
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
    let refused = format!(
        "none of {} refused call{} matches",
        s.denied_checked,
        if s.denied_checked == 1 { "" } else { "s" }
    );
    if let Some(f) = &p.file
        && !p.edits.is_empty()
    {
        let f = shown(f);
        if p.ordered {
            let at = match (p.after_line, p.in_line) {
                (Some(l), _) => format!("insert after line {l}"),
                (None, Some(l)) => format!("insert in line {l}"),
                _ => "insert".into(),
            };
            let _ = writeln!(
                out,
                "  {at} of {f} (where it overrides the rule that asks now); {refused}"
            );
        } else {
            let _ = writeln!(
                out,
                "  add to `{}` in {f}{} ({} has no rule order: an allow applies wherever it is written, unless a deny or ask rule matches); {refused}",
                p.list,
                if p.creates { " (a new file)" } else { "" },
                crate::formats::by_id(s.format).map_or(s.format, |f| f.display_name())
            );
        }
    }
    if let Some(n) = &p.note {
        let _ = writeln!(out, "  note: {n}");
    }
}
