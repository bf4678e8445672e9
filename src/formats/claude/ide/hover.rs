//! Hover on a Claude Code settings file: what a rule matches and which
//! list wins, with what it decides over every settings file the CLI reads
//! (the unsaved buffer included); what each `permissions` key does.

use super::simulation;
use crate::contract::{Analysis, Context};
use crate::core::decision::Decision;
use crate::formats::claude::VERSION;
use crate::formats::claude::engine::policy::Policy;
use crate::formats::claude::model::rules::{self, List, Reading};
use crate::formats::claude::model::spellings;
use crate::formats::claude::scopes;
use crate::ide::items::HoverInfo;
use serde_json::json;

pub fn hover(
    text: &str,
    analysis: &Analysis,
    offset: usize,
    ctx: &Context<'_>,
) -> Option<HoverInfo> {
    let root = analysis.root.as_ref()?;
    let at = crate::ide::locate::locate(root, offset)?;
    match at.path.as_slice() {
        [p, l, _] if p == "permissions" => {
            let list = List::from_key(l)?;
            let rule = at.node.value.as_str()?;
            let mut markdown = rule_hover(rule, list);
            // What it decides with every settings file (the unsaved
            // buffer included), when the file is one the CLI reads.
            if analysis.accepted
                && ctx
                    .document
                    .as_deref()
                    .is_some_and(|d| scopes::source_of(d, scopes::home(ctx).as_deref()).is_some())
            {
                let sim = simulation::ClaudeSimulator::load(ctx);
                if let Some(line) = simulation::decides(&sim.policy, rule, list) {
                    markdown.push_str("\n\n");
                    markdown.push_str(&line);
                }
                markdown.push_str(&reach(&sim.policy, rule, list));
                markdown.push_str(&hooks(&sim.policy, rule));
            } else if analysis.accepted {
                let cwd = std::path::Path::new("/project");
                let policy = Policy::single(
                    text,
                    root,
                    &cwd.join(".claude/settings.json"),
                    cwd,
                    std::path::Path::new("/home/user"),
                );
                markdown.push_str(&reach(&policy, rule, list));
            }
            Some(HoverInfo {
                range: Some(at.range.clone()),
                markdown,
            })
        }
        [p, k] if p == "permissions" && at.on_key => Some(HoverInfo {
            range: Some(at.range.clone()),
            markdown: key_hover(k)?,
        }),
        _ => None,
    }
}

pub fn key_hover(key: &str) -> Option<String> {
    let text = match key {
        "allow" => {
            "Rules Claude Code runs without asking. Deny and ask rules win over them, in any settings file."
        }
        "deny" => {
            "Rules Claude Code refuses without asking. They win over ask and allow rules in every settings file; a bare tool name removes the tool."
        }
        "ask" => {
            "Rules Claude Code always asks about, even when an allow rule matches. Deny rules win over them."
        }
        "defaultMode" => {
            "The permission mode a session starts in: `default`, `acceptEdits`, `plan`, `dontAsk`, `auto` or `bypassPermissions` (the last is ignored in project settings)."
        }
        "additionalDirectories" => {
            "More working directories: reads there are allowed like in the project."
        }
        "disableBypassPermissionsMode" => "`\"disable\"` forbids bypassPermissions mode.",
        "disableAutoMode" => "`\"disable\"` forbids auto mode.",
        _ => return None,
    };
    Some(format!("**permissions.{key}**\n\n{text}"))
}

/// What a Bash rule reaches beyond its own text, each call decided by
/// the session: for a deny rule, the wrapped forms the CLI also blocks
/// and the spellings it does not; for an allow rule, the risky calls it
/// lets through.
fn reach(policy: &Policy, rule: &str, list: List) -> String {
    let Reading::Loaded(r, None) = rules::read(rule, list) else {
        return String::new();
    };
    if r.tool != "Bash" {
        return String::new();
    }
    let decide = |c: &str| policy.decide("Bash", &json!({ "command": c }));
    let mut md = String::new();
    match list {
        List::Deny => {
            let Some(command) = r.content.and_then(spellings::example_command) else {
                return md;
            };
            let blocked: Vec<String> = spellings::wrapped(&command)
                .into_iter()
                .filter(|c| decide(c).decision == Decision::Deny)
                .map(|c| format!("`{c}`"))
                .collect();
            if !blocked.is_empty() {
                md.push_str(&format!(
                    "\n\n**Also blocks** {} (Claude Code strips these wrappers and program paths before matching deny rules).",
                    blocked.join(", ")
                ));
            }
            let through =
                crate::formats::claude::lints::spellings::through(policy, r.content.unwrap_or(""));
            if !through.is_empty() {
                let items: Vec<String> = through
                    .iter()
                    .take(5)
                    .map(|t| {
                        format!(
                            "`{}` → **{}**{}",
                            t.spelling.command,
                            t.decision.as_str(),
                            if t.why.is_empty() {
                                String::new()
                            } else {
                                format!(" ({})", t.why)
                            }
                        )
                    })
                    .collect();
                md.push_str(&format!("\n\n**Does not block** {}.", items.join(", ")));
            }
        }
        List::Allow => {
            let content = r.content;
            let risky: Vec<String> = spellings::RISKY
                .iter()
                .filter(|(c, _)| match content {
                    None => true,
                    Some(content) => {
                        crate::formats::claude::engine::decide::bash_rule_matches(content, c)
                    }
                })
                .filter(|(c, _)| decide(c).decision == Decision::Allow)
                .take(6)
                .map(|(c, what)| format!("`{c}` ({what})"))
                .collect();
            if !risky.is_empty() {
                md.push_str(&format!(
                    "\n\n**Lets through, without asking:** {}.",
                    risky.join(", ")
                ));
            }
        }
        List::Ask => {}
    }
    md
}

/// The hooks that run for the rule's tool, in every file of the session.
fn hooks(policy: &Policy, rule: &str) -> String {
    let tool = rules::split(rule).map_or(rule, |r| r.tool);
    let lines: Vec<String> = policy
        .hooks_for(tool)
        .iter()
        .map(|h| format!("- {}", h.sentence()))
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    format!("\n\n**Hooks for `{tool}`:**\n{}", lines.join("\n"))
}

fn rule_hover(rule: &str, list: List) -> String {
    let mut md = format!(
        "**{} rule** `{rule}` — Claude Code {VERSION}\n\n",
        list.key()
    );
    match rules::read(rule, list) {
        Reading::Skipped(skip) => {
            md.push_str(&format!(
                "Skipped when the file loads: {}",
                rules::skip_reason(&skip, rule)
            ));
        }
        Reading::Loaded(r, flaw) => {
            let what = match (r.tool, r.content) {
                ("Bash", c) => format!("Bash commands: {}", rules::bash_meaning(c)),
                (t, None) => format!("every call of `{t}`"),
                ("WebFetch", Some(c)) => format!(
                    "fetches from exactly the host `{}` (not its subdomains)",
                    c.trim_start_matches("domain:")
                ),
                (t, Some(c)) => format!("`{t}` calls matching `{c}`"),
            };
            md.push_str(&format!("Matches {what}.\n\n"));
            md.push_str(match list {
                List::Deny => "Deny wins over ask and allow rules in every settings file.",
                List::Ask => "Asks even when an allow rule matches; a deny rule wins over it.",
                List::Allow => "Runs without asking unless a deny or ask rule in any settings file also matches.",
            });
            if let Some(f) = flaw
                && let Some(w) = rules::flaw_warning(&f, rule, list)
            {
                md.push_str(&format!("\n\nClaude Code warns: {w}"));
            }
        }
    }
    md
}
