//! Terminal and machine output for diagnostics.

use crate::analysis::{Diagnostic, Severity};
use crate::text::LineIndex;
use std::fmt::Write as _;

/// ANSI styling, off when `NO_COLOR` is set or the output is not a terminal.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
}

impl Style {
    fn paint(self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn severity(self, sev: Severity) -> String {
        let code = match sev {
            Severity::Error => "1;31",
            Severity::Warning => "1;33",
            Severity::Info => "1;36",
            Severity::Hint => "1;32",
        };
        self.paint(code, sev.as_str())
    }
}

pub use crate::ide::simulation::line_col_1;

/// One diagnostic, rustc style: header, location, source line and caret.
pub fn human(path: &str, text: &str, index: &LineIndex, d: &Diagnostic, style: Style) -> String {
    let mut out = String::new();
    let (line, col) = line_col_1(index, text, d.range.start);
    let _ = writeln!(
        out,
        "{}{} {}",
        style.severity(d.severity),
        style.paint("1", &format!("[{}]:", d.code.as_str())),
        style.paint("1", &d.message)
    );
    let gutter = line.to_string().len();
    let pad = " ".repeat(gutter);
    let _ = writeln!(
        out,
        "{pad}{} {path}:{line}:{col}",
        style.paint("1;34", "-->")
    );
    let lr = index.line_range(text, line - 1);
    let src = &text[lr.clone()];
    // Keep very long lines readable: show at most 200 characters around the caret.
    let caret_from = d.range.start.clamp(lr.start, lr.end) - lr.start;
    let caret_to = d.range.end.clamp(lr.start, lr.end) - lr.start;
    let (shown, skip_chars) = window(src, caret_from, 200);
    let visible: String = shown
        .chars()
        .map(|c| {
            if c == '\t' || c.is_control() || c == '\u{feff}' {
                ' '
            } else {
                c
            }
        })
        .collect();
    let lead = src[..caret_from].chars().count() - skip_chars;
    let width = src[caret_from..caret_to.max(caret_from)]
        .chars()
        .count()
        .max(1);
    let bar = style.paint("1;34", "|");
    let _ = writeln!(out, "{pad} {bar}");
    let _ = writeln!(
        out,
        "{} {bar} {}",
        style.paint("1;34", &line.to_string()),
        visible
    );
    let caret_color = if d.severity == Severity::Error {
        "1;31"
    } else {
        "1;33"
    };
    let _ = writeln!(
        out,
        "{pad} {bar} {}{}",
        " ".repeat(lead),
        style.paint(caret_color, &"^".repeat(width.min(200)))
    );
    if let Some(r) = &d.runtime_issue {
        let _ = writeln!(
            out,
            "{pad} = runtime: {}",
            printable(&r.replace("<path>", path))
        );
    }
    for rel in &d.related {
        let (l, c) = line_col_1(index, text, rel.range.start);
        let _ = writeln!(out, "{pad} = note: {path}:{l}:{c}: {}", rel.message);
    }
    let _ = writeln!(out, "{pad} = help: see docs/lints/{}.md", d.code.as_str());
    out
}

/// Control and invisible characters shown as escapes, so a message quoting
/// the source stays on one line.
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            '\r' => "\\r".to_string(),
            '\t' => "\\t".to_string(),
            '\u{feff}' => "\\u{feff}".to_string(),
            c if c.is_control() => format!("\\u{{{:x}}}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

/// At most `max` characters of `line` around byte `at`; returns the slice and
/// how many characters were skipped at the start.
fn window(line: &str, at: usize, max: usize) -> (&str, usize) {
    let total = line.chars().count();
    if total <= max {
        return (line, 0);
    }
    let at_char = line[..at].chars().count();
    let skip = at_char.saturating_sub(max / 2).min(total - max);
    let start = line.char_indices().nth(skip).map_or(line.len(), |(i, _)| i);
    let end = line
        .char_indices()
        .nth(skip + max)
        .map_or(line.len(), |(i, _)| i);
    (&line[start..end], skip)
}

/// The JSON form of one diagnostic (`check --format json`).
pub fn json(path: &str, text: &str, index: &LineIndex, d: &Diagnostic) -> serde_json::Value {
    let pos = |o: usize| {
        let (line, column) = line_col_1(index, text, o);
        serde_json::json!({ "line": line, "column": column, "offset": o })
    };
    serde_json::json!({
        "path": path,
        "code": d.code.as_str(),
        "name": d.code.name(),
        "severity": d.severity.as_str(),
        "message": d.message,
        "start": pos(d.range.start),
        "end": pos(d.range.end),
        "runtime_issue": d.runtime_issue.as_ref().map(|r| r.replace("<path>", path)),
        "related": d.related.iter().map(|r| serde_json::json!({
            "message": r.message, "start": pos(r.range.start), "end": pos(r.range.end)
        })).collect::<Vec<_>>(),
    })
}
