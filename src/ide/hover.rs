//! Hover text from the schema's descriptions and the runtime's semantics.

use super::locate::locate;
use crate::model::pi::versions::{self, Availability, Version};
use crate::syntax::Node;
use std::ops::Range;

#[derive(Debug, Clone, PartialEq)]
pub struct HoverInfo {
    pub range: Range<usize>,
    /// Markdown.
    pub markdown: String,
}

/// What surfaces mean to the runtime (spec §2.2).
pub fn surface_description(key: &str) -> Option<&'static str> {
    Some(match key {
        "*" => {
            "Universal fallback: as a state it feeds the default rule for every tool (absent → `ask`). A pattern map under `*` is ignored."
        }
        "path" => {
            "Cross-cutting gate over every file path a call touches. Only `deny`/`ask` with an explicit pattern match ever fire; `allow` here grants nothing."
        }
        "external_directory" => {
            "Gate for paths that resolve outside the session's working directory; evaluated even when only the default rule matches."
        }
        "bash" => {
            "Command patterns, matched against each simple command of a bash call separately (chains, pipes and substitutions are split). Most restrictive unit wins."
        }
        "mcp" => {
            "Patterns over derived MCP targets (`server_tool`, `server:tool`, `server`, …). With a catch-all, only the first candidate decides."
        }
        "skill" => {
            "Skill names (`input.name` of the `skill` tool, `/skill:<name>`, reads of a skill's files)."
        }
        "read" | "write" | "edit" | "grep" | "find" | "ls" => {
            "A path-bearing tool: patterns match the tool's `input.path` (absolute, cwd-relative, as typed, canonical)."
        }
        "task" => {
            "An extension tool: the value matched is always `*`, so only patterns matching the literal `*` can fire."
        }
        _ => return None,
    })
}

fn state_description(s: &str) -> Option<&'static str> {
    Some(match s {
        "allow" => "`allow`: the call runs without a prompt.",
        "ask" => {
            "`ask`: the user is prompted; with no interactive UI the call is blocked. `yoloMode` turns rule asks into allows."
        }
        "deny" => "`deny`: the call is blocked and the agent receives the denial message.",
        _ => return None,
    })
}

/// A top-level key's description in the shipped schema.
fn schema_description(key: &str) -> Option<&'static str> {
    crate::model::pi::schema::schema_json()["properties"][key]["description"].as_str()
}

pub fn hover(root: &Node, offset: usize, target: Version) -> Option<HoverInfo> {
    let at = locate(root, offset)?;
    let path: Vec<&str> = at.path.iter().map(String::as_str).collect();
    let markdown = match (path.as_slice(), at.on_key) {
        ([key], true) => match versions::key_spec(key) {
            Some(spec) => {
                let description = schema_description(key).unwrap_or(spec.description);
                let mut md = format!("**`{key}`**\n\n{description}");
                match spec.availability {
                    Availability::Since(v) if v > target => {
                        md.push_str(&format!("\n\nNeeds pi-permission-system ≥ {v}; the target {target} rejects the whole file."));
                    }
                    Availability::Since(v) if v > Version(0, 0, 0) => {
                        md.push_str(&format!("\n\nSince pi-permission-system {v}."));
                    }
                    Availability::Fork(who) => md = format!("**`{key}`**\n\nRead only by {who}."),
                    _ => {}
                }
                if let Some(v) = spec.ignored_since
                    && target >= v
                {
                    md.push_str(&format!("\n\nAccepted but ignored since {v}."));
                }
                md
            }
            None => format!(
                "**`{key}`** is not a pi-permission-system key: the runtime rejects the whole file."
            ),
        },
        (["permission", surface], true) => {
            let desc = surface_description(surface).unwrap_or(
                "A tool name. Surface keys are wildcard patterns: `my_*` applies to every tool starting with `my_`.",
            );
            format!("**surface `{surface}`**\n\n{desc}")
        }
        (["permission", _, pattern], true) => format!(
            "**pattern `{pattern}`**\n\nWildcard: `*` matches any run of characters (including `/` and newlines), `?` exactly one; a trailing ` *` also matches the bare command. The last matching rule wins."
        ),
        (["permission", ..], false) => match at.node.value.as_str().and_then(state_description) {
            Some(d) => d.to_string(),
            None => return None,
        },
        _ => return None,
    };
    Some(HoverInfo {
        range: at.range,
        markdown,
    })
}
