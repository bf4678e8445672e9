//! pi's refactorings at a position: a string `"deny"` pattern value into a
//! deny object with a reason, and back; every string deny of a map at once.

use crate::core::diagnostic::TextEdit;
use crate::ide::code_actions::{Action, ActionKind, replace};
use crate::ide::locate::locate;
use crate::syntax::{Node, Value};

/// Quick fixes for the diagnostics at `at`, then the rewrites there.
pub fn code_actions(
    text: &str,
    root: Option<&Node>,
    diagnostics: &[crate::core::diagnostic::Diagnostic],
    at: std::ops::Range<usize>,
) -> Vec<Action> {
    let mut out = crate::ide::code_actions::code_actions(text, root, diagnostics, at.clone());
    if let Some(root) = root {
        out.extend(rewrites(text, root, at.start));
    }
    out
}

/// Rewrites available at a position: a string `"deny"` pattern value into a
/// deny object with a reason, and back.
pub fn rewrites(text: &str, root: &Node, offset: usize) -> Vec<Action> {
    let mut out = Vec::new();
    let Some(at) = locate(root, offset) else {
        return out;
    };
    // Every string "deny" of the enclosing surface map at once.
    if at.path.len() >= 2
        && at.path[0] == "permission"
        && let Some(map) = enclosing_pattern_value(root, &at.path[..2])
        && let Some(members) = map.value.as_object()
    {
        let edits: Vec<TextEdit> = members
            .iter()
            .filter(|m| m.value.value.as_str() == Some("deny"))
            .map(|m| {
                replace(
                    m.value.range.clone(),
                    "{ \"action\": \"deny\", \"reason\": \"\" }",
                )
            })
            .collect();
        if edits.len() > 1 {
            out.push(Action {
                title: format!(
                    "Add a deny reason to all {} string denies in \"{}\"",
                    edits.len(),
                    at.path[1]
                ),
                kind: ActionKind::Source,
                edits,
                fixes: None,
                preferred: false,
            });
        }
    }
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
