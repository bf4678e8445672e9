//! Inline suppression comments, which the runtime's comment stripper
//! removes like any other comment:
//!
//! - `// permission-lsp-ignore PL210 PL211` on its own line: the next line;
//! - the same comment after code: that line;
//! - `// permission-lsp-ignore-file PL203`: the whole file.
//!
//! Codes are written as codes or names; none means every code. An unknown
//! code is reported back, so a typo does not silently suppress nothing.

use super::diagnostic::{Diagnostic, DiagnosticCode};
use crate::syntax::strip::Comment;
use crate::text::LineIndex;

const MARKER: &str = "permission-lsp-ignore";

#[derive(Debug)]
struct Suppression {
    /// `None`: the whole file.
    line: Option<usize>,
    /// Empty: every code.
    codes: Vec<DiagnosticCode>,
}

/// Removes the diagnostics the comments suppress; returns the problems of
/// the comments themselves (unknown codes), with their ranges.
pub fn apply_suppressions(
    text: &str,
    comments: &[Comment],
    diagnostics: &mut Vec<Diagnostic>,
    lookup: &dyn Fn(&str) -> Option<DiagnosticCode>,
) -> Vec<(std::ops::Range<usize>, String)> {
    let mut problems = Vec::new();
    if !comments.iter().any(|c| {
        text.get(c.range.clone())
            .is_some_and(|t| t.contains(MARKER))
    }) {
        return problems;
    }
    let lines = LineIndex::new(text);
    let mut sups = Vec::new();
    for c in comments {
        let Some(body) = text.get(c.range.clone()) else {
            continue;
        };
        let Some(at) = body.find(MARKER) else {
            continue;
        };
        let rest = &body[at + MARKER.len()..];
        let (whole_file, rest) = match rest.strip_prefix("-file") {
            Some(r) => (true, r),
            None => (false, rest),
        };
        if !(rest.is_empty() || rest.starts_with(char::is_whitespace) || rest.starts_with("*/")) {
            continue;
        }
        let mut codes = Vec::new();
        for word in rest
            .trim_end_matches("*/")
            .split(|ch: char| ch.is_whitespace() || ch == ',')
        {
            if word.is_empty() {
                continue;
            }
            match lookup(word) {
                Some(code) => codes.push(code),
                None => problems.push((
                    c.range.clone(),
                    format!("unknown diagnostic code `{word}` in a permission-lsp-ignore comment"),
                )),
            }
        }
        let line = lines.line_of(c.range.start);
        let line_start = lines.line_range(text, line).start;
        let trailing = !text[line_start..c.range.start].trim().is_empty();
        let target = if whole_file {
            None
        } else if trailing {
            Some(line)
        } else {
            Some(line + 1)
        };
        sups.push(Suppression {
            line: target,
            codes,
        });
    }
    diagnostics.retain(|d| {
        let line = lines.line_of(d.range.start);
        !sups.iter().any(|s| {
            s.line.is_none_or(|l| l == line) && (s.codes.is_empty() || s.codes.contains(&d.code))
        })
    });
    problems
}
