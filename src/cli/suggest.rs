//! `permission-lsp suggest LOG…`: rules from the approvals in the
//! runtimes' logs, each placed where it takes effect and checked by
//! deciding the approved and the refused calls again with it.

use crate::formats::{CallRequest, Format as RuntimeFormat};
use crate::history::replay::{Change, Replayer};
use crate::history::suggest::{Collector, Suggestion, insertion_edits};
use crate::history::{Decision, Session};
use crate::workspace::Context;
use serde_json::json;
use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

/// A suggestion placed in a file and checked.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Placed {
    #[serde(flatten)]
    pub suggestion: Suggestion,
    /// The file it goes in, and the 1-based line it is inserted after.
    pub file: Option<String>,
    pub after_line: Option<usize>,
    /// The file's text with the rule inserted.
    #[serde(skip)]
    pub new_text: Option<String>,
    /// The edits that insert it, in the text read (an open buffer's, else
    /// the file's).
    #[serde(skip)]
    pub edits: Vec<crate::ide::code_actions::TextEdit>,
    /// Approved calls the rule now allows (of those rebuilt).
    pub allowed_now: usize,
    pub checked_calls: usize,
    /// Why the rule would not take effect where it is placed, if so.
    pub note: Option<String>,
}

/// The byte offset of a 1-based line and character column.
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let start = if line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(line - 2).map(|(i, _)| i + 1)?
    };
    let rest = &text[start..];
    Some(
        start
            + rest
                .char_indices()
                .nth(column.saturating_sub(1))
                .map_or(rest.len(), |(i, _)| i),
    )
}

/// Places a suggestion in the file whose rule decides its calls now, and
/// checks it there.
pub fn place(
    format: &'static dyn RuntimeFormat,
    ctx: &Context<'_>,
    suggestion: Suggestion,
    approved: &[CallRequest],
    denied: &[String],
) -> Option<Placed> {
    let mut placed = Placed {
        suggestion,
        file: None,
        after_line: None,
        new_text: None,
        edits: Vec::new(),
        allowed_now: 0,
        checked_calls: approved.len(),
        note: None,
    };
    let before = crate::cli::replay::policy_for(ctx, format, &Session::default()).ok()?;
    // Nothing to suggest when the config allows these calls already.
    if approved
        .iter()
        .all(|c| before.simulate(c).decision == Decision::Allow.as_str())
    {
        return None;
    }
    let deciding = approved.iter().map(|c| before.simulate(c)).find_map(|r| {
        r.rule.and_then(|rule| {
            Some((
                rule.place.file?,
                rule.place.line?,
                rule.place.column.unwrap_or(1),
            ))
        })
    });
    let rule = format.suggested_rule(
        &placed.suggestion.surface,
        &placed.suggestion.pattern,
        "allow",
    )?;
    // The file whose rule decides the calls now (inserted right after that
    // rule); else, when the runtime's default decides them, the project's
    // file (at the end of its list).
    let target = deciding
        .filter(|(f, _, _)| Path::new(f).is_file())
        .map(|(f, l, c)| (f, Some((l, c))))
        .or_else(|| {
            let policy = format.effective_policy(ctx).ok()?;
            let files: Vec<_> = policy
                .files
                .iter()
                .filter(|f| f.present && f.accepted != Some(false))
                .collect();
            files
                .iter()
                .find(|f| f.scope == "project")
                .or_else(|| files.first())
                .and_then(|f| f.path.clone())
                .map(|p| (p, None))
        });
    let Some((file, place)) = target else {
        placed.note = Some("no config file to put it in: add the rule by hand".into());
        return Some(placed);
    };
    // The open buffer's text (the editor's unsaved one), else the file's.
    let text = (ctx.open)(Path::new(&file))
        .or_else(|| crate::workspace::read_text(Path::new(&file), 64 << 20))?;
    let after = place.and_then(|(line, column)| offset_of(&text, line, column));
    let Some(edits) = insertion_edits(&text, &rule, after) else {
        placed.note = Some(format!(
            "`{}` is not an object or list in {file}: add the rule by hand",
            rule.path.join(".")
        ));
        placed.file = Some(file);
        return Some(placed);
    };
    let new_text = crate::ide::code_actions::apply(&text, &edits);
    placed.edits = edits;
    let path = PathBuf::from(&file);
    let lookup = |p: &Path| {
        if p == path {
            Some(new_text.clone())
        } else {
            (ctx.open)(p)
        }
    };
    let mut with = ctx.with(&Default::default());
    with.open = &lookup;
    let after = crate::cli::replay::policy_for(&with, format, &Session::default()).ok()?;
    placed.allowed_now = approved
        .iter()
        .filter(|c| after.simulate(c).decision == Decision::Allow.as_str())
        .count();
    // Never a rule that allows what the history refused.
    for v in denied {
        if let Some(call) = format.probe_call(&placed.suggestion.surface, v)
            && after.simulate(&call).decision == Decision::Allow.as_str()
            && before.simulate(&call).decision != Decision::Allow.as_str()
        {
            return None;
        }
    }
    if placed.allowed_now < approved.len() {
        placed.note = Some(format!(
            "placed in {file}, it allows {} of the {} approved calls: a rule the format ranks higher still decides the others",
            placed.allowed_now,
            approved.len()
        ));
    }
    placed.after_line = Some(
        text[..placed.edits.first().map_or(0, |e| e.range.start)]
            .matches('\n')
            .count(),
    );
    placed.file = Some(file);
    placed.new_text = Some(new_text);
    Some(placed)
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
        if let Some(p) = place(f, &ctx, s, &approved, &denied) {
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
                if let (Some(f), Some(l)) = (&p.file, p.after_line) {
                    let _ = writeln!(
                        out,
                        "  insert after line {l} of {f} (where it overrides the rule that asks now); none of {} refused call{} matches",
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
