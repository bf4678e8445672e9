//! Hover text from the schema's descriptions and the runtime's semantics.

use crate::formats::pi::model::versions::{self, Availability, Version};
use crate::ide::locate::locate;
use crate::syntax::Node;

pub use crate::ide::items::HoverInfo;

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
            "Patterns over derived MCP targets (`server_tool`, `server:tool`, `server`, …). Up to 32.x the first target with a rule of its own decides, so under a catch-all only `server_tool` patterns do; from 33.0 the last rule matching any target decides (documented)."
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
    crate::formats::pi::model::schema::schema_json()["properties"][key]["description"].as_str()
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
        (["permission", surface], true)
            if crate::formats::pi::engine::rules::is_directional_surface(surface) =>
        {
            let (base, direction) = surface.rsplit_once('_').unwrap_or((surface, ""));
            if target >= versions::DIRECTIONAL_SINCE {
                format!(
                    "**surface `{surface}`** (pi-permission-system ≥ {}; documented, not verified)\n\nThe `{direction}` direction of `{base}`: `{base}`'s entries apply first and these after them, so a matching rule here has the last word. {}",
                    versions::DIRECTIONAL_SINCE,
                    if direction == "read" {
                        "Consulted by `read`, `grep`, `find`, `ls`, input redirects and the arguments of pure-reader commands (`cat`, `grep`, `head`, …); `edit`, MCP and extension tools and any bash token whose direction is not proven consult both directions."
                    } else {
                        "Consulted by `write` and output redirects (`>`, `>>`); `edit`, MCP and extension tools and any bash token whose direction is not proven consult both directions."
                    }
                )
            } else {
                format!(
                    "**surface `{surface}`**\n\nA directional surface only from pi-permission-system {}; {target} reads it as a tool of that name, so these rules never apply.",
                    versions::DIRECTIONAL_SINCE
                )
            }
        }
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
        range: Some(at.range),
        markdown,
    })
}

/// What the rule list says about the rule at `offset` (a pattern key or
/// value, or a string surface): its effect, whom it overrides and who
/// overrides it, each with an example; or, on a surface key, which tools
/// it applies to and what decides when nothing in it matches.
pub fn precedence(
    cfg: &crate::formats::pi::model::PiConfig,
    offset: usize,
    home: &str,
) -> Option<String> {
    use crate::core::pattern_algebra::{Overlap, Pattern, overlap};
    use crate::formats::pi::engine::wildcard::{MatchOptions, Wildcard};
    use crate::formats::pi::lints::rule_lints::ordered_rules;
    let surfaces = cfg.permission.as_ref()?;
    let rules = ordered_rules(surfaces);
    let default = cfg
        .universal_default()
        .unwrap_or(crate::formats::pi::model::State::Ask);
    // On a surface key: the tools it applies to, and the fallback.
    if let Some(s) = surfaces
        .iter()
        .find(|s| s.key_range.contains(&offset) && s.key != "*")
    {
        let wc = Wildcard::compile(&s.key, home, MatchOptions::default());
        let hits: Vec<&str> = crate::formats::pi::model::config::KNOWN_SURFACES
            .iter()
            .copied()
            .filter(|t| *t != "*" && wc.is_match(t))
            .collect();
        let applies = if !s.key.contains(['*', '?']) {
            format!("Applies to `{}` exactly.", s.key)
        } else if hits.is_empty() {
            format!(
                "A wildcard: applies to every tool whose name matches `{}` (none of pi's own).",
                s.key
            )
        } else {
            format!(
                "A wildcard: applies to every tool whose name matches — here {}.",
                hits.iter()
                    .map(|t| format!("`{t}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let others: Vec<String> = surfaces
            .iter()
            .filter(|o| {
                o.key != s.key
                    && o.key != "*"
                    && Wildcard::compile(&o.key, home, MatchOptions::default()).is_match(&s.key)
            })
            .map(|o| format!("`{}`", o.key))
            .collect();
        let mut md = format!(
            "{applies}\n\nFor a call, the last matching rule wins among this surface's rules"
        );
        if !others.is_empty() {
            md.push_str(&format!(
                " and those of {} (in file order)",
                others.join(", ")
            ));
        }
        md.push_str(&format!(
            "; when none matches, the universal `*` decides: **{default}**."
        ));
        return Some(md);
    }
    let k = rules
        .iter()
        .position(|r| r.key_range.contains(&offset) || r.value_range.contains(&offset))?;
    let me = &rules[k];
    if me.surface.contains(['*', '?']) {
        return None;
    }
    let group: Vec<usize> = (0..rules.len())
        .filter(|&j| {
            Wildcard::compile(&rules[j].surface, home, MatchOptions::default())
                .is_match(&me.surface)
        })
        .collect();
    let pats: Vec<Pattern> = group
        .iter()
        .map(|&j| crate::formats::pi::engine::wildcard::algebra_pattern(&rules[j].pattern, home))
        .collect();
    let pos = group.iter().position(|&j| j == k)?;
    let decider = |w: &str| {
        group
            .iter()
            .zip(&pats)
            .rev()
            .find(|(_, p)| p.is_match(w))
            .map(|(j, _)| *j)
    };
    let mut overrides = Vec::new();
    let mut overridden = Vec::new();
    let mut decides = None;
    let own = pats[pos].example();
    if decider(&own) == Some(k) {
        decides = Some(own);
    }
    for (n, &j) in group.iter().enumerate() {
        if j == k || overrides.len() + overridden.len() >= 8 {
            continue;
        }
        if let Overlap::Overlap(w) = overlap(&pats[pos], &pats[n]) {
            let d = decider(&w);
            let r = &rules[j];
            if n < pos && d == Some(k) {
                overrides.push(format!("- `{}` ({}) — e.g. `{w}`", r.pattern, r.action));
                decides.get_or_insert(w);
            } else if n > pos && d.is_some_and(|d| d != k) {
                overridden.push(format!(
                    "- `{}` ({}) — e.g. `{w}` → {}",
                    r.pattern,
                    r.action,
                    rules[d.unwrap()].action
                ));
            }
        }
    }
    let mut md = format!("**`{}` → {}**", me.pattern, me.action);
    if let Some(reason) = &me.reason {
        md.push_str(&format!(" — reason shown to the agent: “{reason}.”"));
    }
    match &decides {
        Some(w) => md.push_str(&format!("\n\nDecides e.g. `{w}`.")),
        None => md.push_str("\n\nNo example found where it decides (see the diagnostics: it may never take effect)."),
    }
    if !overrides.is_empty() {
        md.push_str(&format!(
            "\n\nOverrides the earlier:\n{}",
            overrides.join("\n")
        ));
    }
    if !overridden.is_empty() {
        md.push_str(&format!(
            "\n\nOverridden by the later:\n{}",
            overridden.join("\n")
        ));
    }
    if me.surface == "bash" && me.action == crate::formats::pi::model::State::Allow {
        let cmd = me.pattern.replace(['*', '?'], "x");
        if let Ok(tree) = crate::formats::pi::engine::bash::parse(&cmd)
            && let Some(w) = crate::formats::pi::engine::bash::command_units(&tree, &cmd)
                .first()
                .and_then(|u| u.wrapper)
        {
            md.push_str(&format!("\n\nClamped: `{cmd}` is a wrapper ({}), so the runtime asks even when this allow matches.", w.sentinel()));
        }
    }
    md.push_str("\n\nScope: this file.");
    Some(md)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hover_at(text: &str, needle: &str, target: Version) -> String {
        let stripped = crate::syntax::strip::strip_json_comments(text);
        let root = crate::syntax::json::parse(&stripped).root.expect("parses");
        let offset = text.find(needle).expect("needle") + 1;
        hover(&root, offset, target).expect("a hover").markdown
    }

    /// A directional surface says how it combines with its bare surface
    /// from 27.1 (documented), and that earlier versions ignore it.
    #[test]
    fn directional_surfaces_explain_themselves_per_version() {
        let text = r#"{"permission": {"path": {"*": "allow"}, "path_write": {"*.lock": "deny"}}}"#;
        let new = hover_at(text, "\"path_write\"", Version(40, 1, 4));
        assert!(new.contains("documented, not verified"), "{new}");
        assert!(new.contains("`path`'s entries apply first"), "{new}");
        assert!(new.contains("Consulted by `write`"), "{new}");
        let old = hover_at(text, "\"path_write\"", Version(26, 3, 1));
        assert!(old.contains("26.3.1 reads it as a tool"), "{old}");
    }
}
