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

/// Which logs to replay: files named on the command line, or the logs
/// the runtimes wrote for this project's sessions.
pub enum Logs<'a> {
    Named(&'a [PathBuf]),
    /// Found where each runtime writes them: newest first, written since
    /// `since`, at most `limit`.
    Found {
        formats: Vec<&'static dyn RuntimeFormat>,
        project: PathBuf,
        /// The home, for showing paths as `~/…`.
        home: PathBuf,
        since: Option<std::time::SystemTime>,
        limit: Option<usize>,
    },
}

/// A log to read as JSON lines: stdin for `-`, a runtime's log that is
/// not JSON lines (OpenCode's database) as its format streams it, else the
/// file (a FIFO read as a stream).
pub fn open_log(path: &std::path::Path) -> Result<Box<dyn std::io::Read + Send>, String> {
    if path.as_os_str() == "-" {
        return Ok(Box::new(std::io::stdin()));
    }
    if let Some(streamed) = crate::formats::all()
        .iter()
        .find_map(|f| f.log_stream(path))
    {
        return streamed;
    }
    crate::fsio::open(path, true)
        .map(|(f, _)| Box::new(f) as Box<dyn std::io::Read + Send>)
        .map_err(|e| e.to_string())
}

/// `--since`: a date (`2026-11-30`, midnight UTC) or a time back from
/// `now` (`7d`, `12h`, `30m`, `2w`).
pub fn parse_since(s: &str, now: std::time::SystemTime) -> Result<std::time::SystemTime, String> {
    let bad = || {
        format!("--since {s}: a date (2026-11-30) or a time back (7d, 12h, 30m, 2w) is expected")
    };
    let s = s.trim();
    if let Some((num, unit)) = s
        .find(|c: char| !c.is_ascii_digit())
        .filter(|&i| i > 0 && i + 1 == s.len())
        .map(|i| s.split_at(i))
    {
        let n: u64 = num.parse().map_err(|_| bad())?;
        let secs = match unit {
            "m" => 60,
            "h" => 3600,
            "d" => 86_400,
            "w" => 7 * 86_400,
            _ => return Err(bad()),
        };
        let back = std::time::Duration::from_secs(n.checked_mul(secs).ok_or_else(bad)?);
        return Ok(now.checked_sub(back).unwrap_or(std::time::UNIX_EPOCH));
    }
    let parts: Vec<&str> = s.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return Err(bad());
    };
    let (Ok(y), Ok(m), Ok(d)) = (y.parse::<i64>(), m.parse::<u32>(), d.parse::<u32>()) else {
        return Err(bad());
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1970..=9999).contains(&y)
        || !(1..=12).contains(&m)
        || d == 0
        || d > days_in[m as usize - 1]
    {
        return Err(bad());
    }
    // Days from 1970-01-01 to the date (the civil calendar).
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m as i64 + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Ok(std::time::UNIX_EPOCH + std::time::Duration::from_secs(days as u64 * 86_400))
}

/// A log found for the project, with its runtime.
struct FoundLog {
    path: PathBuf,
    modified: std::time::SystemTime,
}

/// Each runtime's name, how many logs were found, and where it looked.
type Places = Vec<(&'static str, usize, Vec<String>)>;

/// The logs of this project's sessions, newest first, and where each
/// runtime keeps them.
fn find_logs(
    formats: &[&'static dyn RuntimeFormat],
    context_for: &ContextFor<'_>,
    since: Option<std::time::SystemTime>,
    limit: Option<usize>,
) -> (Vec<FoundLog>, Places) {
    let mut all = Vec::new();
    let mut places = Vec::new();
    for f in formats {
        let Ok(ctx) = context_for(*f) else {
            continue;
        };
        let found = f.session_logs(&ctx);
        if found.looked_in.is_empty() {
            continue;
        }
        let n = found.files.len();
        places.push((f.display_name(), n, found.looked_in));
        all.extend(
            found
                .files
                .into_iter()
                .map(|(path, modified)| FoundLog { path, modified }),
        );
    }
    all.retain(|l| since.is_none_or(|s| l.modified >= s));
    all.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.path.cmp(&b.path))
    });
    all.dedup_by(|a, b| a.path == b.path);
    if let Some(n) = limit {
        all.truncate(n);
    }
    (all, places)
}

/// The logs to read, each with how it is shown.
pub struct LogList {
    pub paths: Vec<(String, PathBuf)>,
    /// Named on the command line (a bad one is an input error).
    pub named: bool,
    /// Found for this project: only its sessions' calls count.
    pub project: Option<PathBuf>,
}

/// The logs `logs` names, or those found for the project (saying where,
/// or where none was found, on `err`).
pub fn log_list(logs: Logs<'_>, context_for: &ContextFor<'_>, err: &mut dyn Write) -> LogList {
    match logs {
        Logs::Named(p) => LogList {
            paths: p
                .iter()
                .map(|p| (p.display().to_string(), p.clone()))
                .collect(),
            named: true,
            project: None,
        },
        Logs::Found {
            formats,
            project,
            home,
            since,
            limit,
        } => {
            let (found, places) = find_logs(&formats, context_for, since, limit);
            let tilde = |p: &str| crate::contract::tilde(std::path::Path::new(p), &home);
            if found.is_empty() {
                let _ = writeln!(
                    err,
                    "no session logs of {} found; looked in:",
                    tilde(&project.display().to_string())
                );
                for (name, _, looked) in &places {
                    for l in looked {
                        let _ = writeln!(err, "  {name}: {}", tilde(l));
                    }
                }
            } else {
                let counts: Vec<String> = places
                    .iter()
                    .filter(|(_, n, _)| *n > 0)
                    .map(|(name, n, _)| format!("{name} {n}"))
                    .collect();
                let _ = writeln!(
                    err,
                    "replaying {} log{} of {} ({}), newest first",
                    found.len(),
                    if found.len() == 1 { "" } else { "s" },
                    tilde(&project.display().to_string()),
                    counts.join(", ")
                );
            }
            let paths = found
                .into_iter()
                .map(|l| (tilde(&l.path.display().to_string()), l.path))
                .collect();
            LogList {
                paths,
                named: false,
                project: Some(project),
            }
        }
    }
}

/// Runs the replay; the exit status is 1 when any decision changes, 2 when
/// a named log cannot be read or is no decision log.
pub fn run(
    logs: Logs<'_>,
    only: Option<&'static dyn RuntimeFormat>,
    context_for: &ContextFor<'_>,
    format: Format,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let loader = loader(context_for);
    let mut replayer = Replayer::new(Box::new(loader));
    replayer.only = only;
    let list = log_list(logs, context_for, err);
    replayer.project = list.project;
    let (paths, named) = (list.paths, list.named);
    if format == Format::Json {
        let _ = write!(
            out,
            "{{\"schemaVersion\":{},\"changes\":[",
            crate::analysis::report::SCHEMA_VERSION
        );
    }
    let mut first = true;
    let mut failed = false;
    for (label, path) in &paths {
        let file = match open_log(path) {
            Ok(f) => f,
            Err(e) => {
                let _ = writeln!(err, "error: {label}: {e}");
                failed |= named;
                continue;
            }
        };
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
        replayer.replay(label, &mut reader, &mut sink);
        if named
            && let Some(f) = replayer.summary.files.last()
            && f.kind.is_none()
            && let Some(e) = &f.error
        {
            // Not a decision log (or one not read): an input error.
            let _ = writeln!(err, "error: {label}: {e}");
            failed = true;
        }
    }
    let summary = &replayer.summary;
    for w in &summary.warnings {
        let _ = writeln!(err, "warning: {w}");
    }
    match format {
        Format::Json => {
            let s = serde_json::to_string(summary).unwrap_or_else(|_| "{}".into());
            let rest = s.strip_prefix('{').unwrap_or("}");
            let _ = writeln!(out, "],{}", if rest == "}" { "\"calls\":0}" } else { rest });
        }
        Format::Human => human_summary(summary, out),
    }
    if failed {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn since_takes_a_date_or_a_time_back() {
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let at = |s| parse_since(s, now).map(|t| t.duration_since(UNIX_EPOCH).unwrap().as_secs());
        assert_eq!(at("1970-01-01"), Ok(0));
        assert_eq!(at("2026-11-30"), Ok(1_795_996_800));
        assert_eq!(at("2024-02-29"), Ok(1_709_164_800));
        assert_eq!(at("7d"), Ok(1_800_000_000 - 7 * 86_400));
        assert_eq!(at("12h"), Ok(1_800_000_000 - 12 * 3600));
        for bad in [
            "",
            "d",
            "7x",
            "2023-02-29",
            "2026-13-01",
            "yesterday",
            "1-2",
            "99999999999999999999w",
        ] {
            assert!(at(bad).is_err(), "{bad}");
        }
    }
}
