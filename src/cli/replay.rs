//! `permission-lsp replay LOG…`: every past call in the runtimes' logs
//! decided again with the current config; the calls whose decision changes
//! are printed as they are found (the logs are streamed).

use crate::formats::{Format as RuntimeFormat, Simulator};
use crate::history::Session;
use crate::history::replay::{Change, Replayer, Summary};
use crate::workspace::Context;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
}

/// The context for a format's logs (the scope options, with that format's
/// profile unless one was named).
pub type ContextFor<'a> =
    dyn Fn(&'static dyn RuntimeFormat) -> Result<Context<'static>, String> + 'a;

/// The policy loader of a replay: each format's context made once (from
/// `context_for`), each recorded session's policy loaded in it.
pub fn loader<'a>(
    context_for: &'a ContextFor<'a>,
) -> impl FnMut(&'static dyn RuntimeFormat, &Session) -> Result<Box<dyn Simulator>, String> + 'a {
    let mut contexts: Vec<(&'static str, Result<Context<'static>, String>)> = Vec::new();
    move |f, s| {
        let i = match contexts.iter().position(|(id, _)| *id == f.id()) {
            Some(i) => i,
            None => {
                contexts.push((f.id(), context_for(f)));
                contexts.len() - 1
            }
        };
        match &contexts[i].1 {
            Ok(ctx) => crate::history::replay::policy_for(ctx, f, s),
            Err(e) => Err(e.clone()),
        }
    }
}

/// Runs the replay; the exit status is 1 when any decision changes, 2 when
/// no log could be read.
pub fn run(
    logs: &[PathBuf],
    only: Option<&'static dyn RuntimeFormat>,
    context_for: &ContextFor<'_>,
    format: Format,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let loader = loader(context_for);
    let mut replayer = Replayer::new(Box::new(loader));
    replayer.only = only;
    if format == Format::Json {
        let _ = write!(
            out,
            "{{\"schemaVersion\":{},\"changes\":[",
            crate::analysis::report::SCHEMA_VERSION
        );
    }
    let mut first = true;
    let mut read_any = false;
    for path in logs {
        let label = path.display().to_string();
        let opened: Result<Box<dyn std::io::Read + Send>, String> = if path.as_os_str() == "-" {
            Ok(Box::new(std::io::stdin()))
        } else {
            crate::fsio::open(path, true)
                .map(|(f, _)| Box::new(f) as Box<dyn std::io::Read + Send>)
                .map_err(|e| e.to_string())
        };
        let file = match opened {
            Ok(f) => f,
            Err(e) => {
                let _ = writeln!(err, "error: {label}: {e}");
                continue;
            }
        };
        read_any = true;
        let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
        let mut sink = |c: &Change| {
            match format {
                Format::Json => {
                    let _ = write!(
                        out,
                        "{}{}",
                        if first { "" } else { "," },
                        serde_json::to_string(c).unwrap_or_default()
                    );
                }
                Format::Human => {
                    let _ = writeln!(out, "{}", human_change(c));
                }
            }
            first = false;
        };
        replayer.replay(&label, &mut reader, &mut sink);
    }
    let summary = &replayer.summary;
    match format {
        Format::Json => {
            let s = serde_json::to_string(summary).unwrap_or_else(|_| "{}".into());
            let rest = s.strip_prefix('{').unwrap_or("}");
            let _ = writeln!(out, "],{}", if rest == "}" { "\"calls\":0}" } else { rest });
        }
        Format::Human => human_summary(summary, out),
    }
    if !read_any {
        return 2;
    }
    i32::from(summary.changed > 0)
}

/// `log.jsonl:12: deny -> allow  bash `rm -rf build`  now by `rm *` (config.json:4:5)`.
pub fn human_change(c: &Change) -> String {
    let what = match c.input.get("command").and_then(|v| v.as_str()) {
        Some(cmd) => format!("{} `{cmd}`", c.tool),
        None => format!("{} {}", c.tool, c.input),
    };
    let mut s = format!("{}:{}: {} -> {}  {what}", c.file, c.line, c.recorded, c.now);
    match &c.rule {
        Some(r) => {
            s.push_str(&format!("  now by `{}` `{}`", r.surface, r.pattern));
            if let (Some(f), Some(l)) = (&r.place.file, r.place.line) {
                s.push_str(&format!(" ({f}:{l}"));
                if let Some(col) = r.place.column {
                    s.push_str(&format!(":{col}"));
                }
                s.push(')');
            }
        }
        None => s.push_str("  now by no rule (the runtime's default)"),
    }
    if let Some(a) = c.answer {
        s.push_str(&format!("; the user's answer then: {a}"));
    }
    if let Some(n) = c.note {
        s.push_str(&format!("; {n}"));
    }
    s
}

fn human_summary(s: &Summary, out: &mut dyn Write) {
    for f in &s.files {
        let what = match (f.kind, &f.error) {
            (_, Some(e)) => e.clone(),
            (Some(k), None) => format!(
                "{k}: {} record{}, {} call{}",
                crate::history::replay::thousands(f.records),
                if f.records == 1 { "" } else { "s" },
                crate::history::replay::thousands(f.calls),
                if f.calls == 1 { "" } else { "s" }
            ),
            (None, None) => "not read".into(),
        };
        let _ = writeln!(out, "{}: {what}", f.file);
    }
    for k in &s.skipped {
        let _ = writeln!(out, "not replayable: {}:{}: {}", k.file, k.line, k.why);
    }
    if s.unrebuildable as usize > s.skipped.len() {
        let _ = writeln!(
            out,
            "not replayable: {} more",
            s.unrebuildable as usize - s.skipped.len()
        );
    }
    for (event, n) in &s.unknown_events {
        let _ = writeln!(out, "unknown event `{event}`: {n} record(s), not replayed");
    }
    let _ = writeln!(out, "{}", s.headline());
}
