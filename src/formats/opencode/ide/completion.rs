//! Completion in an OpenCode config: permission names, and the three
//! actions wherever a value is one.

use super::hover::short_permission;
use crate::contract::Role;
use crate::formats::opencode::lints;
use crate::formats::opencode::model::config;
use crate::ide::items::{Item, ItemKind};
use std::ops::Range;

pub fn completions(role: Role, text: &str, offset: usize) -> Vec<Item> {
    let own = lints::read(role, text, "");
    let Some(root) = own.read.root else {
        return Vec::new();
    };
    let Some(at) = crate::ide::locate::locate(&root, offset) else {
        return Vec::new();
    };
    let quoted = |r: &Range<usize>| r.start + 1..r.end.saturating_sub(1).max(r.start + 1);
    let n = at.path.len();
    let under_permission = n >= 2 && at.path[n - 2] == "permission";
    let in_map = n >= 3 && at.path[n - 3] == "permission";
    if under_permission && at.on_key {
        return config::PERMISSIONS
            .iter()
            .filter(|p| !p.starts_with("plan_"))
            .map(|p| Item {
                label: p.to_string(),
                kind: ItemKind::Surface,
                detail: Some(short_permission(p).into()),
                insert: p.to_string(),
                snippet: false,
                range: quoted(&at.range),
            })
            .collect();
    }
    if (under_permission || in_map || (n >= 1 && at.path[n - 1] == "permission"))
        && !at.on_key
        && at.node.value.as_str().is_some()
    {
        return ["allow", "ask", "deny"]
            .iter()
            .map(|a| Item {
                label: a.to_string(),
                kind: ItemKind::Value,
                detail: None,
                insert: a.to_string(),
                snippet: false,
                range: quoted(&at.range),
            })
            .collect();
    }
    Vec::new()
}
