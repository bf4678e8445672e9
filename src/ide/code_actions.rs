//! Code actions as plain text edits. Each changes only what it must: the
//! rest of the file — comments, order, formatting — stays as it was, and the
//! result is what the runtime accepts (tested by re-reading it).

pub use crate::core::diagnostic::TextEdit;
use crate::core::diagnostic::{Diagnostic, Fix};
use crate::ide::block_edits;
use crate::syntax::{Node, Value};
use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    QuickFix,
    RefactorRewrite,
    /// Acts on a whole map or file.
    Source,
    /// Every safe fix of the file (`source.fixAll`).
    FixAll,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    pub title: String,
    pub kind: ActionKind,
    pub edits: Vec<TextEdit>,
    /// The diagnostic this action fixes, if any.
    pub fixes: Option<Diagnostic>,
    pub preferred: bool,
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Actions for the range `at` of a config text, given its diagnostics.
pub fn code_actions(
    text: &str,
    root: Option<&Node>,
    diagnostics: &[Diagnostic],
    at: Range<usize>,
) -> Vec<Action> {
    let mut out = Vec::new();
    for d in diagnostics
        .iter()
        .filter(|d| d.range.start <= at.end && at.start <= d.range.end)
    {
        out.extend(d.fixes.iter().filter_map(|f| fix(text, root, d, f)));
    }
    out
}

pub fn action(title: impl Into<String>, edits: Vec<TextEdit>, d: &Diagnostic) -> Action {
    Action {
        title: title.into(),
        kind: ActionKind::QuickFix,
        edits,
        fixes: Some(d.clone()),
        preferred: true,
    }
}

pub fn replace(range: Range<usize>, new_text: impl Into<String>) -> TextEdit {
    TextEdit {
        range,
        new_text: new_text.into(),
    }
}

/// The action for one typed fix of a diagnostic.
fn fix(text: &str, root: Option<&Node>, d: &Diagnostic, f: &Fix) -> Option<Action> {
    match f {
        Fix::Edit { title, edits } => {
            // Never edit outside the text (a stale fix).
            edits
                .iter()
                .all(|e| text.get(e.range.clone()).is_some())
                .then(|| action(title.clone(), edits.clone(), d))
        }
        Fix::RenameKey { to } => rename_key(root?, d, to),
        Fix::RemoveMember => {
            let (holder, i) = member_with_key_at(root?, d.range.start)?;
            let members = holder.value.as_object()?;
            Some(action(
                format!("Remove the rule \"{}\"", members[i].key),
                removal_edits(text, holder, i)?,
                d,
            ))
        }
        Fix::RemoveDuplicate => {
            // Keep the runtime's meaning: the last value at the first position.
            let (holder, i) = member_with_key_at(root?, d.range.start)?;
            let members = holder.value.as_object()?;
            let key = &members[i].key;
            let first = members.iter().position(|m| &m.key == key)?;
            if first == i {
                return None;
            }
            let last = members.iter().rposition(|m| &m.key == key)?;
            let last_value = text.get(members[last].value.range.clone())?;
            let first_value = text.get(members[first].value.range.clone())?;
            if block_edits::is_block(text, &holder.range)
                && (last_value.contains('\n') || first_value.contains('\n'))
            {
                // A value of several lines does not move between keys
                // without re-indenting it.
                return None;
            }
            let mut edits = Vec::new();
            if last == i {
                edits.push(replace(members[first].value.range.clone(), last_value));
            }
            edits.extend(removal_edits(text, holder, i)?);
            Some(action(
                "Remove this duplicate (the value in force moves to the first occurrence)",
                edits,
                d,
            ))
        }
        Fix::SetValue { title, value } => {
            let (holder, i) = member_with_key_at(root?, d.range.start)?;
            let m = &holder.value.as_object()?[i];
            m.value.value.as_str().is_some().then(|| {
                action(
                    title.clone(),
                    vec![replace(m.value.range.clone(), value.clone())],
                    d,
                )
            })
        }
        Fix::ReplaceEnclosingObject { title, value } => {
            let obj = enclosing_object(root?, d.range.start)?;
            Some(action(
                title.clone(),
                vec![replace(obj.range.clone(), value.clone())],
                d,
            ))
        }
        Fix::MoveAfter { after, overriders } => move_after(text, root?, d, after, overriders),
        Fix::RemoveArrayItem { title } => {
            let (array, i) = array_item_at(root?, &d.range)?;
            Some(action(title.clone(), removal_edits(text, array, i)?, d))
        }
    }
}

/// Renames the key at the diagnostic to `to`, unless the map has that key.
fn rename_key(root: &Node, d: &Diagnostic, to: &str) -> Option<Action> {
    let (holder, _) = member_with_key_at(root, d.range.start)?;
    let members = holder.value.as_object()?;
    if to.is_empty() || members.iter().any(|m| m.key == to) {
        return None;
    }
    Some(action(
        format!("Rename to \"{to}\""),
        vec![replace(d.range.clone(), quote(to))],
        d,
    ))
}

/// Moves an overridden member right after the last member of the same
/// object that overrides it (`after`). Only the calls the moved rule
/// matches can change (each now gets its action); every other decision
/// stays.
fn move_after(
    text: &str,
    root: &Node,
    d: &Diagnostic,
    after: &Range<usize>,
    overriders: &[Range<usize>],
) -> Option<Action> {
    let (holder, i) = member_with_key_at(root, d.range.start)?;
    let members = holder.value.as_object()?;
    let p = members.iter().position(|m| m.key_range == *after)?;
    if p <= i || members.iter().filter(|m| m.key == members[i].key).count() > 1 {
        return None;
    }
    // Every overriding rule must be in this object for the move to help.
    if !overriders
        .iter()
        .all(|r| members.iter().any(|m| m.key_range == *r))
    {
        return None;
    }
    let moved = text.get(members[i].key_range.start..members[i].value.range.end)?;
    let target = &members[p];
    let target_span = target.key_range.start..target.value.range.end;
    let mut edits = if block_edits::is_block(text, &holder.range) {
        block_edits::move_after(
            text,
            &(members[i].key_range.start..members[i].value.range.end),
            &target_span,
        )?
    } else {
        let mut edits = span_removal_edits(text, &item_spans(holder)?, i);
        edits.extend(insert_after_span(text, target_span, moved));
        edits
    };
    edits.sort_by_key(|e| e.range.start);
    Some(action(
        format!("Move after \"{}\" so this rule takes effect", target.key),
        edits,
        d,
    ))
}

/// The edits inserting `item` (a member or array element, as text) right
/// after the element spanning `after` in its comma-separated list: on a
/// line of its own with the same indent when the element has its own line,
/// else inline; the commas as needed, every comment kept.
pub fn insert_after_span(text: &str, after: Range<usize>, item: &str) -> Vec<TextEdit> {
    let value_end = after.end;
    let comma = comma_after(text, value_end);
    let after_comma = comma.map_or(value_end, |c| c + 1);
    let own_line = line_start_if_blank(text, after.start).is_some()
        && line_end_if_blank(text, after_comma).is_some();
    if let (true, Some(ls), Some(le)) = (
        own_line,
        line_start_if_blank(text, after.start),
        line_end_if_blank(text, after_comma),
    ) {
        let indent = &text[ls..after.start];
        let newline = if text[..le].ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let at_eof = le == text.len() && !text.ends_with('\n');
        let lead = if at_eof { newline } else { "" };
        return match comma {
            Some(_) => vec![replace(le..le, format!("{lead}{indent}{item},{newline}"))],
            None => vec![
                replace(value_end..value_end, ","),
                replace(le..le, format!("{lead}{indent}{item}{newline}")),
            ],
        };
    }
    match comma {
        Some(c) => vec![replace(c + 1..c + 1, format!(" {item},"))],
        None => vec![replace(value_end..value_end, format!(", {item}"))],
    }
}

/// The object that directly holds the value at `offset`.
fn enclosing_object(root: &Node, offset: usize) -> Option<&Node> {
    let mut node = root;
    loop {
        let members = node.value.as_object()?;
        let m = members
            .iter()
            .find(|m| m.value.range.start <= offset && offset < m.value.range.end)?;
        if !matches!(m.value.value, Value::Object(_) | Value::Array(_)) {
            return Some(node);
        }
        node = &m.value;
    }
}

/// The object holding the key at `offset`, and the member's index.
fn member_with_key_at(root: &Node, offset: usize) -> Option<(&Node, usize)> {
    let mut node = root;
    loop {
        let members = node.value.as_object()?;
        if let Some(i) = members.iter().position(|m| m.key_range.contains(&offset)) {
            return Some((node, i));
        }
        node = &members
            .iter()
            .find(|m| m.value.range.start <= offset && offset < m.value.range.end)?
            .value;
    }
}

/// The text to delete to remove member `i` with its separating comma.
/// Skips spaces, tabs and comments (not newlines) from `at`.
fn skip_inline_trivia(text: &str, mut at: usize) -> usize {
    let b = text.as_bytes();
    loop {
        while at < b.len() && (b[at] == b' ' || b[at] == b'\t') {
            at += 1;
        }
        if text[at..].starts_with("/*") {
            match text[at + 2..].find("*/") {
                Some(e) if !text[at..at + 2 + e].contains('\n') => at += e + 4,
                _ => return at,
            }
        } else {
            return at;
        }
    }
}

/// The start of the line holding `at`, when only spaces come before it.
fn line_start_if_blank(text: &str, at: usize) -> Option<usize> {
    let ls = text[..at].rfind('\n').map_or(0, |n| n + 1);
    text[ls..at].trim().is_empty().then_some(ls)
}

/// The end of the line after `at` (past its newline) when only spaces and
/// comments remain on it.
fn line_end_if_blank(text: &str, at: usize) -> Option<usize> {
    let at = skip_inline_trivia(text, at);
    let rest = &text[at..];
    if rest.starts_with("\r\n") {
        Some(at + 2)
    } else if rest.starts_with('\n') {
        Some(at + 1)
    } else if rest.is_empty() {
        Some(at)
    } else {
        None
    }
}

/// The comma after `after` (skipping spaces and comments), if any.
fn comma_after(text: &str, after: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut at = after;
    loop {
        while at < b.len() && b[at].is_ascii_whitespace() {
            at += 1;
        }
        if text[at..].starts_with("//") {
            at += text[at..].find('\n').unwrap_or(text.len() - at);
        } else if text[at..].starts_with("/*") {
            at += 2 + text[at + 2..].find("*/")? + 2;
        } else {
            return (b.get(at) == Some(&b',')).then_some(at);
        }
    }
}

/// The spans of a collection's items (an object's members, key to value;
/// an array's elements).
fn item_spans(holder: &Node) -> Option<Vec<Range<usize>>> {
    match &holder.value {
        Value::Object(members) => Some(
            members
                .iter()
                .map(|m| m.key_range.start..m.value.range.end)
                .collect(),
        ),
        Value::Array(items) => Some(items.iter().map(|n| n.range.clone()).collect()),
        _ => None,
    }
}

/// Edits that remove item `i` of the collection `holder` (object or
/// array), in its own style: with its comma between brackets, with its
/// lines in a block collection (an emptied one left as `{}` or `[]`).
pub fn removal_edits(text: &str, holder: &Node, i: usize) -> Option<Vec<TextEdit>> {
    let spans = item_spans(holder)?;
    let span = spans.get(i)?;
    if !block_edits::is_block(text, &holder.range) {
        return Some(span_removal_edits(text, &spans, i));
    }
    if spans.len() > 1 {
        return block_edits::removal(text, span);
    }
    let empty = if matches!(holder.value, Value::Array(_)) {
        "[]"
    } else {
        "{}"
    };
    block_edits::removal_of_only(text, span, empty)
}

/// Edits that insert `item` (a member or element, one line of text) into
/// the collection `holder` right after item `after`, or first (`None`), in
/// its own style.
pub fn insertion_edits(
    text: &str,
    holder: &Node,
    after: Option<usize>,
    item: &str,
) -> Option<Vec<TextEdit>> {
    let spans = item_spans(holder)?;
    if block_edits::is_block(text, &holder.range) {
        // (An empty block collection is not written in block style.)
        return match after {
            Some(a) => block_edits::insert_after(text, spans.get(a)?, item),
            None => block_edits::insert_before(text, spans.first()?, item),
        };
    }
    let open = holder.range.start + 1;
    Some(match (after, spans.is_empty()) {
        (Some(a), false) => insert_after_span(text, spans.get(a)?.clone(), item),
        (_, true) => vec![replace(open..open, format!(" {item} "))],
        (None, false) => vec![replace(open..open, format!(" {item},"))],
    })
}

/// The edits removing element `i` of a comma-separated list (object members
/// or array items, each given by its span) with its separating comma,
/// keeping every comment.
fn span_removal_edits(text: &str, spans: &[Range<usize>], i: usize) -> Vec<TextEdit> {
    let m = &spans[i];
    let own_comma = comma_after(text, m.end);
    let mut end = own_comma.map_or(m.end, |c| c + 1);
    let mut start = m.start;
    if let Some(ls) = line_start_if_blank(text, start)
        && let Some(le) = line_end_if_blank(text, end)
        && text[end..le].trim().is_empty()
    {
        // The element has its own line: remove the line. A comment after it
        // on the line keeps the line (and stays).
        start = ls;
        end = le;
    }
    if start == m.start {
        // Inline: the spaces after the comma go too.
        end = skip_inline_trivia(text, end)
            .min(end + text[end..].len() - text[end..].trim_start_matches([' ', '\t']).len());
    }
    if own_comma.is_none() && i > 0 {
        // The last element: the comma before it goes too — with everything
        // between, unless a comment is there.
        let prev_end = spans[i - 1].end;
        let between = &text[prev_end..m.start];
        if !between.contains("//") && !between.contains("/*") {
            return vec![replace(prev_end..m.end, "")];
        }
        let mut edits = vec![replace(start..end, "")];
        if let Some(c) = comma_after(text, prev_end) {
            edits.insert(0, replace(c..c + 1, ""));
        }
        return edits;
    }
    vec![replace(start..end, "")]
}

/// The array holding an item whose range is `range`, and the item's index.
fn array_item_at<'a>(root: &'a Node, range: &Range<usize>) -> Option<(&'a Node, usize)> {
    let mut node = root;
    loop {
        match &node.value {
            crate::syntax::Value::Array(items) => {
                if let Some(i) = items.iter().position(|n| n.range == *range) {
                    return Some((node, i));
                }
                node = items
                    .iter()
                    .find(|n| n.range.start <= range.start && range.end <= n.range.end)?;
            }
            crate::syntax::Value::Object(members) => {
                node = &members
                    .iter()
                    .find(|m| m.value.range.start <= range.start && range.end <= m.value.range.end)?
                    .value;
            }
            _ => return None,
        }
    }
}

/// Applies edits (non-overlapping) to a text.
pub fn apply(text: &str, edits: &[TextEdit]) -> String {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    let mut out = text.to_string();
    for e in sorted {
        out.replace_range(e.range.clone(), &e.new_text);
    }
    out
}

/// What applying every safe fix did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FixedAll {
    pub text: String,
    /// Each fix applied: its code and title.
    pub applied: Vec<(&'static str, String)>,
    /// Rounds were left (a fix kept reappearing): the text may still hold
    /// safe fixes.
    pub stopped_early: bool,
}

/// A format's reading of a text: its tree and findings.
pub type Reading<'a> = dyn FnMut(&str) -> (Option<Node>, Vec<Diagnostic>) + 'a;

/// Applies the safe fixes of a text one at a time, reading the text again
/// after each (`analyse`: the format's reading of a text): removing one of
/// two rules that make each other redundant leaves the other, and no edit
/// ever meets a stale range. At most `max` fixes.
pub fn fix_all(text: &str, analyse: &mut Reading<'_>, max: usize) -> FixedAll {
    let mut out = FixedAll {
        text: text.to_string(),
        ..FixedAll::default()
    };
    for _ in 0..max {
        let (root, diagnostics) = analyse(&out.text);
        let next = diagnostics
            .iter()
            .filter(|d| d.code.0.safe_fix)
            .find_map(|d| {
                d.fixes
                    .first()
                    .and_then(|f| fix(&out.text, root.as_ref(), d, f))
                    .map(|a| (d.code.as_str(), a))
            });
        let Some((code, action)) = next else {
            return out;
        };
        let changed = apply(&out.text, &action.edits);
        if changed == out.text {
            return out;
        }
        out.text = changed;
        out.applied.push((code, action.title));
    }
    out.stopped_early = true;
    out
}

/// The edit that turns `old` into `new`: one replacement of the part that
/// differs (the rest keeps its place in the editor).
pub fn minimal_edit(old: &str, new: &str) -> Option<TextEdit> {
    if old == new {
        return None;
    }
    let mut start = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(start) || !new.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = 0;
    let max = old.len().min(new.len()) - start;
    while end < max && old.as_bytes()[old.len() - 1 - end] == new.as_bytes()[new.len() - 1 - end] {
        end += 1;
    }
    while !old.is_char_boundary(old.len() - end) || !new.is_char_boundary(new.len() - end) {
        end -= 1;
    }
    Some(TextEdit {
        range: start..old.len() - end,
        new_text: new[start..new.len() - end].to_string(),
    })
}
