//! Edits of block-style (indentation-structured) collections: a YAML
//! frontmatter's `key: value` lines and `- item` lines. A member there is
//! whole lines — its key line and every more-indented line after it — and
//! there are no commas: moving or removing one moves or removes its lines.
//! A JSON edit (a comma, a brace) in such a collection breaks the file, so
//! the code actions use these whenever the collection is not written
//! between `{}`/`[]`.
//!
//! Comments stay: a removed member's comment lines, and a comment after
//! its key line, are kept in place as comment lines of their own.

use crate::core::diagnostic::TextEdit;
use std::ops::Range;

/// Whether a collection node spanning `range` is written in block style
/// (not between `{}` or `[]`): its text starts with neither bracket.
pub fn is_block(text: &str, range: &Range<usize>) -> bool {
    !matches!(
        text.get(range.start..).and_then(|t| t.chars().next()),
        Some('{' | '[')
    )
}

/// The whole lines of an item spanning `span` (its key or dash line
/// through the line where it ends, newline included) when only
/// indentation — and, in a sequence, the `- ` dash — comes before it on
/// its first line.
pub fn item_lines(text: &str, span: &Range<usize>) -> Option<Range<usize>> {
    let ls = text.get(..span.start)?.rfind('\n').map_or(0, |n| n + 1);
    let before = text[ls..span.start].trim_start_matches(' ');
    if !(before.is_empty() || before.trim_end() == "-" && before.starts_with('-')) {
        return None;
    }
    let end = span.end.max(span.start);
    let le = match text.get(end..)?.find('\n') {
        Some(n) => end + n + 1,
        None => text.len(),
    };
    Some(ls..le)
}

/// Where a `#` comment starts on a YAML line, if it has one: a `#` at the
/// line start or after a space, outside quotes.
pub fn comment_start(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(b'"') if c == b'\\' => i += 1,
            Some(q) if c == q => {
                if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                    i += 1;
                } else {
                    quote = None;
                }
            }
            Some(_) => {}
            None => match c {
                b'#' if i == 0 || b[i - 1] == b' ' || b[i - 1] == b'\t' => return Some(i),
                b'"' | b'\'' if i == 0 || matches!(b[i - 1], b' ' | b':' | b'-' | b'[' | b'{') => {
                    quote = Some(c)
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// The comment lines to keep when the `lines` of an item go: each
/// comment of the removed lines as a line of its own, at its line's
/// indentation.
fn kept_comments(text: &str, lines: &Range<usize>) -> String {
    let mut out = String::new();
    for line in text[lines.clone()].split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let indent = body.len() - body.trim_start_matches(' ').len();
        if let Some(c) = comment_start(&body[indent..]) {
            let newline = &line[body.len()..];
            out.push_str(&body[..indent]);
            out.push_str(body[indent + c..].trim_end());
            out.push_str(if newline.is_empty() { "\n" } else { newline });
        }
    }
    out
}

/// Removes the item spanning `span` with its lines, keeping its comments.
pub fn removal(text: &str, span: &Range<usize>) -> Option<Vec<TextEdit>> {
    let lines = item_lines(text, span)?;
    let keep = kept_comments(text, &lines);
    Some(vec![TextEdit::replace(lines, keep)])
}

/// Removes the only item of a collection, leaving it empty (`empty`: `{}`
/// or `[]`) rather than null — a key with nothing under it is null in
/// YAML, which a runtime expecting a map or list refuses.
pub fn removal_of_only(text: &str, span: &Range<usize>, empty: &str) -> Option<Vec<TextEdit>> {
    let lines = item_lines(text, span)?;
    let mut keep = kept_comments(text, &lines);
    let indent = &text[lines.start..lines.start + indent_of(text, lines.start)];
    keep.push_str(indent);
    keep.push_str(empty);
    keep.push('\n');
    Some(vec![TextEdit::replace(lines, keep)])
}

/// Moves the item spanning `item` (with its lines and their comments) to
/// right after the item spanning `after`, a later sibling at the same
/// indentation.
pub fn move_after(text: &str, item: &Range<usize>, after: &Range<usize>) -> Option<Vec<TextEdit>> {
    let from = item_lines(text, item)?;
    let to = item_lines(text, after)?;
    if to.start < from.end || indent_of(text, from.start) != indent_of(text, to.start) {
        return None;
    }
    let mut moved = text[from.clone()].to_string();
    let mut at_end = String::new();
    if !text[..to.end].ends_with('\n') {
        at_end.push('\n');
        if moved.ends_with('\n') {
            moved.pop();
            if moved.ends_with('\r') {
                moved.pop();
            }
        }
    } else if !moved.ends_with('\n') {
        moved.push('\n');
    }
    Some(vec![
        TextEdit::replace(from, String::new()),
        TextEdit::replace(to.end..to.end, format!("{at_end}{moved}")),
    ])
}

/// Inserts `item` (one line's text, without indentation or newline) as a
/// sibling after the item spanning `after`, at its indentation.
pub fn insert_after(text: &str, after: &Range<usize>, item: &str) -> Option<Vec<TextEdit>> {
    let to = item_lines(text, after)?;
    let indent = &text[to.start..to.start + indent_of(text, to.start)];
    let dash = if text[to.start + indent.len()..].starts_with('-') {
        "- "
    } else {
        ""
    };
    let lead = if text[..to.end].ends_with('\n') {
        ""
    } else {
        "\n"
    };
    Some(vec![TextEdit::replace(
        to.end..to.end,
        format!("{lead}{indent}{dash}{item}\n"),
    )])
}

/// Inserts `item` (one line, as above) as a sibling before the item
/// spanning `before`, at its indentation.
pub fn insert_before(text: &str, before: &Range<usize>, item: &str) -> Option<Vec<TextEdit>> {
    let to = item_lines(text, before)?;
    let indent = &text[to.start..to.start + indent_of(text, to.start)];
    Some(vec![TextEdit::replace(
        to.start..to.start,
        format!("{indent}{item}\n"),
    )])
}

fn indent_of(text: &str, line_start: usize) -> usize {
    text[line_start..].len() - text[line_start..].trim_start_matches(' ').len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::code_actions::apply;

    const DOC: &str = "permission:\n  bash:\n    \"git *\": allow # keep this\n    # about the catch-all\n    \"*\": deny\n    \"git push *\": deny\n";

    fn span(text: &str, needle: &str) -> Range<usize> {
        let s = text.find(needle).unwrap();
        s..s + needle.len()
    }

    #[test]
    fn a_member_moves_with_its_comment_and_no_comma() {
        let edits = move_after(
            DOC,
            &span(DOC, "\"git *\": allow"),
            &span(DOC, "\"*\": deny"),
        )
        .unwrap();
        assert_eq!(
            apply(DOC, &edits),
            "permission:\n  bash:\n    # about the catch-all\n    \"*\": deny\n    \"git *\": allow # keep this\n    \"git push *\": deny\n"
        );
    }

    #[test]
    fn removal_keeps_comments_as_lines() {
        let edits = removal(DOC, &span(DOC, "\"git *\": allow")).unwrap();
        assert_eq!(
            apply(DOC, &edits),
            "permission:\n  bash:\n    # keep this\n    # about the catch-all\n    \"*\": deny\n    \"git push *\": deny\n"
        );
        let nested = span(
            DOC,
            "bash:\n    \"git *\": allow # keep this\n    # about the catch-all\n    \"*\": deny\n    \"git push *\": deny",
        );
        let edits = removal(DOC, &nested).unwrap();
        assert_eq!(
            apply(DOC, &edits),
            "permission:\n    # keep this\n    # about the catch-all\n"
        );
    }

    #[test]
    fn the_only_member_leaves_an_empty_map() {
        let t = "read:\n  \"~/a/*\": deny # why\nedit: ask\n";
        let e = removal_of_only(t, &span(t, "\"~/a/*\": deny"), "{}").unwrap();
        assert_eq!(apply(t, &e), "read:\n  # why\n  {}\nedit: ask\n");
    }

    #[test]
    fn inserts_keep_indentation_and_dashes() {
        let t = "tools:\n  - read\n  - bash";
        let e = insert_after(t, &span(t, "read"), "grep").unwrap();
        assert_eq!(apply(t, &e), "tools:\n  - read\n  - grep\n  - bash");
        let e = insert_after(t, &span(t, "bash"), "grep").unwrap();
        assert_eq!(apply(t, &e), "tools:\n  - read\n  - bash\n  - grep\n");
        let e = insert_before(DOC, &span(DOC, "\"*\": deny"), "\"ls\": allow").unwrap();
        assert!(apply(DOC, &e).contains("    \"ls\": allow\n    \"*\": deny"));
    }

    #[test]
    fn flow_items_are_not_block_items() {
        let t = "bash: { \"a\": allow, \"b\": deny }\n";
        assert!(item_lines(t, &span(t, "\"b\": deny")).is_none());
        assert!(!is_block(t, &(6..t.len() - 1)));
        assert!(is_block(DOC, &(0..DOC.len())));
    }

    #[test]
    fn comments_are_found_outside_quotes() {
        assert_eq!(comment_start("\"a # b\": allow # c"), Some(15));
        assert_eq!(comment_start("'it''s # x': deny"), None);
        assert_eq!(comment_start("a#b: allow"), None);
        assert_eq!(comment_start("# whole"), Some(0));
    }
}
