//! Code actions as plain text edits. Each changes only what it must: the
//! rest of the file — comments, order, formatting — stays as it was, and the
//! result is what the runtime accepts (tested by re-reading it).

use crate::analysis::{Code, Diagnostic};
use crate::ide::locate::locate;
use crate::syntax::{Member, Node, Value};
use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    pub range: Range<usize>,
    pub new_text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    QuickFix,
    RefactorRewrite,
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
        if let Some(a) = fix(text, root, d) {
            out.push(a);
        }
    }
    if let Some(root) = root {
        out.extend(rewrites(text, root, at.start));
    }
    out
}

fn action(title: impl Into<String>, edits: Vec<TextEdit>, d: &Diagnostic) -> Action {
    Action {
        title: title.into(),
        kind: ActionKind::QuickFix,
        edits,
        fixes: Some(d.clone()),
        preferred: true,
    }
}

fn replace(range: Range<usize>, new_text: impl Into<String>) -> TextEdit {
    TextEdit {
        range,
        new_text: new_text.into(),
    }
}

fn fix(text: &str, root: Option<&Node>, d: &Diagnostic) -> Option<Action> {
    let span = text.get(d.range.clone())?;
    match d.code {
        Code::TrailingComma if span == "," => Some(action(
            "Remove the trailing comma",
            vec![replace(d.range.clone(), "")],
            d,
        )),
        Code::ByteOrderMark => Some(action(
            "Remove the byte order mark",
            vec![replace(0..3, "")],
            d,
        )),
        Code::InvalidState => {
            let inner: String = serde_json::from_str::<String>(span).ok()?;
            let fixed = ["allow", "deny", "ask"]
                .into_iter()
                .find(|s| s.eq_ignore_ascii_case(inner.trim()))?;
            Some(action(
                format!("Change to \"{fixed}\""),
                vec![replace(d.range.clone(), quote(fixed))],
                d,
            ))
        }
        Code::ObjectFormForState => {
            // The diagnostic is on the action value; replace the whole object.
            let obj = enclosing_object(root?, d.range.start)?;
            let action_value: String = serde_json::from_str(span).ok()?;
            Some(action(
                format!("Write \"{action_value}\" as a plain string"),
                vec![replace(obj.range.clone(), quote(&action_value))],
                d,
            ))
        }
        Code::ReasonNotString => Some(action(
            "Make the reason a string",
            vec![replace(d.range.clone(), quote(span.trim_matches('"')))],
            d,
        )),
        Code::SurfaceDenyObject => Some(action(
            "Move the deny object under the pattern \"*\"",
            vec![
                replace(d.range.start..d.range.start, "{ \"*\": "),
                replace(d.range.end..d.range.end, " }"),
            ],
            d,
        )),
        Code::UnknownKey => {
            let hint = d
                .message
                .split("(did you mean `")
                .nth(1)?
                .split('`')
                .next()?;
            Some(action(
                format!("Rename to \"{hint}\""),
                vec![replace(d.range.clone(), quote(hint))],
                d,
            ))
        }
        Code::DuplicateKey => {
            // Keep the runtime's meaning: the last value at the first position.
            let (members, i) = member_with_key_at(root?, d.range.start)?;
            let key = &members[i].key;
            let first = members.iter().position(|m| &m.key == key)?;
            if first == i {
                return None;
            }
            let last_value = text.get(
                members
                    .iter()
                    .rposition(|m| &m.key == key)
                    .map(|l| members[l].value.range.clone())?,
            )?;
            let mut edits = Vec::new();
            if members.iter().rposition(|m| &m.key == key) == Some(i) {
                edits.push(replace(members[first].value.range.clone(), last_value));
            }
            edits.push(replace(member_removal_range(text, members, i), ""));
            Some(action(
                "Remove this duplicate (the value in force moves to the first occurrence)",
                edits,
                d,
            ))
        }
        _ => None,
    }
}

/// Rewrites available at a position: a string `"deny"` pattern value into a
/// deny object with a reason, and back.
fn rewrites(text: &str, root: &Node, offset: usize) -> Vec<Action> {
    let mut out = Vec::new();
    let Some(at) = locate(root, offset) else {
        return out;
    };
    // Only pattern values: permission.<surface>.<pattern>.
    let in_pattern = at.path.len() >= 3 && at.path[0] == "permission";
    if !in_pattern {
        return out;
    }
    let value_node = if at.path.len() == 3 {
        Some(at.node)
    } else {
        enclosing_pattern_value(root, &at.path[..3])
    };
    let Some(v) = value_node else { return out };
    match &v.value {
        Value::String(s) if s == "deny" => out.push(Action {
            title: "Add a deny reason".into(),
            kind: ActionKind::RefactorRewrite,
            edits: vec![replace(
                v.range.clone(),
                "{ \"action\": \"deny\", \"reason\": \"\" }",
            )],
            fixes: None,
            preferred: false,
        }),
        Value::Object(members) => {
            let reason = members.iter().find(|m| m.key == "reason");
            let is_deny = members
                .iter()
                .any(|m| m.key == "action" && m.value.value.as_str() == Some("deny"));
            let plain = members
                .iter()
                .all(|m| m.key == "action" || m.key == "reason");
            let empty_reason =
                reason.is_none_or(|r| r.value.value.as_str().is_some_and(str::is_empty));
            if is_deny && plain && empty_reason {
                out.push(Action {
                    title: "Write as the plain string \"deny\"".into(),
                    kind: ActionKind::RefactorRewrite,
                    edits: vec![replace(v.range.clone(), "\"deny\"")],
                    fixes: None,
                    preferred: false,
                });
            }
        }
        _ => {}
    }
    let _ = text;
    out
}

fn enclosing_pattern_value<'a>(root: &'a Node, path: &[String]) -> Option<&'a Node> {
    let mut node = root;
    for key in path {
        node = &node
            .value
            .as_object()?
            .iter()
            .rev()
            .find(|m| &m.key == key)?
            .value;
    }
    Some(node)
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

/// The members of the object holding the key at `offset`, and its index.
fn member_with_key_at(root: &Node, offset: usize) -> Option<(&[Member], usize)> {
    let mut node = root;
    loop {
        let members = node.value.as_object()?;
        if let Some(i) = members.iter().position(|m| m.key_range.contains(&offset)) {
            return Some((members, i));
        }
        node = &members
            .iter()
            .find(|m| m.value.range.start <= offset && offset < m.value.range.end)?
            .value;
    }
}

/// The text to delete to remove member `i` with its separating comma.
fn member_removal_range(text: &str, members: &[Member], i: usize) -> Range<usize> {
    let m = &members[i];
    if let Some(next) = members.get(i + 1) {
        m.key_range.start..next.key_range.start
    } else if i > 0 {
        // From the end of the previous value (drops the comma before this one).
        let prev_end = members[i - 1].value.range.end;
        let _ = text;
        prev_end..m.value.range.end
    } else {
        m.key_range.start..m.value.range.end
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
