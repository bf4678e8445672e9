//! Completion in a Claude Code settings file: tool names (and every MCP
//! server the project's configs define) inside a rule, the `permissions`
//! keys, the permission modes.

use super::hover::key_hover;
use crate::contract::Context;
use crate::formats::claude::engine::policy;
use crate::formats::claude::lints;
use crate::formats::claude::model::rules::{self, List};
use crate::formats::claude::scopes;
use crate::ide::items::{Item, ItemKind};
use std::ops::Range;

pub fn completions(text: &str, offset: usize, ctx: &Context<'_>) -> Vec<Item> {
    let root = lints::analyse(text).root;
    let Some(root) = root else {
        return Vec::new();
    };
    let Some(at) = crate::ide::locate::locate(&root, offset) else {
        return Vec::new();
    };
    let quoted = |r: &Range<usize>| r.start + 1..r.end.saturating_sub(1).max(r.start + 1);
    match at.path.as_slice() {
        [p, l, _] if p == "permissions" && List::from_key(l).is_some() => {
            if at.node.value.as_str().is_none() {
                return Vec::new();
            }
            let mut items: Vec<Item> = rules::TOOLS
                .iter()
                .filter(|t| **t != "Task")
                .map(|t| Item {
                    label: t.to_string(),
                    kind: ItemKind::Surface,
                    detail: Some("Claude Code tool".into()),
                    insert: t.to_string(),
                    snippet: false,
                    range: quoted(&at.range),
                })
                .collect();
            // Every tool of each MCP server the project's configs define.
            let home = scopes::home(ctx);
            let project = policy::project_dir(ctx, home.as_deref());
            for server in scopes::mcp_servers(&project, home.as_deref(), ctx) {
                items.push(Item {
                    label: format!("mcp__{server}"),
                    kind: ItemKind::Surface,
                    detail: Some(format!("every tool of the MCP server `{server}`")),
                    insert: format!("mcp__{server}"),
                    snippet: false,
                    range: quoted(&at.range),
                });
            }
            items
        }
        [p, _] if p == "permissions" && at.on_key => lints::PERMISSIONS_KEYS
            .iter()
            .map(|k| Item {
                label: k.to_string(),
                kind: ItemKind::Key,
                detail: key_hover(k).map(|h| h.lines().next().unwrap_or("").to_string()),
                insert: k.to_string(),
                snippet: false,
                range: quoted(&at.range),
            })
            .collect(),
        [p, m] if p == "permissions" && m == "defaultMode" && !at.on_key => lints::MODES
            .iter()
            .map(|k| Item {
                label: k.to_string(),
                kind: ItemKind::Value,
                detail: None,
                insert: k.to_string(),
                snippet: false,
                range: quoted(&at.range),
            })
            .collect(),
        _ => Vec::new(),
    }
}
