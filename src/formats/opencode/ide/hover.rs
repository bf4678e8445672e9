//! Hover on an OpenCode config or agent file: what a rule decides in the
//! agent's merged list (its position, the later rules that can override
//! it, an example call decided with every file), what a permission key is.

use super::simulation;
use crate::contract::{Analysis, Context, Role};
use crate::formats::opencode::VERSION;
use crate::formats::opencode::engine::decide;
use crate::formats::opencode::engine::policy::{self, Policy};
use crate::formats::opencode::lints;
use crate::formats::opencode::model::config;
use crate::ide::items::HoverInfo;

pub fn hover(
    role: Role,
    text: &str,
    analysis: &Analysis,
    offset: usize,
    ctx: &Context<'_>,
) -> Option<HoverInfo> {
    let root = analysis.root.as_ref()?;
    let at = crate::ide::locate::locate(root, offset)?;
    let (policy, doc) = crate::formats::opencode::session(role, text, Some(ctx));
    if let Some((range, permission, pattern)) = lints::rule_at(&policy, doc, offset) {
        return Some(HoverInfo {
            range: Some(range),
            markdown: rule_hover(&policy, doc, &permission, &pattern, ctx),
        });
    }
    let key = at.path.last()?;
    if at.on_key && at.path.len() >= 2 && at.path[at.path.len() - 2] == "permission" {
        return Some(HoverInfo {
            range: Some(at.range.clone()),
            markdown: permission_hover(key),
        });
    }
    None
}

pub fn short_permission(p: &str) -> &'static str {
    match p {
        "read" => "reading a file (path relative to the worktree)",
        "edit" => "edit, write and apply_patch (path relative to the worktree)",
        "glob" => "file search (the glob pattern)",
        "grep" => "content search (the regex)",
        "list" => "listing a folder",
        "bash" => "shell commands (each command's text)",
        "task" => "starting a subagent (its name)",
        "external_directory" => "any path outside the project (`<folder>/*`)",
        "lsp" => "language-server queries",
        "skill" => "loading a skill (its name)",
        "todowrite" => "the todo list (one action)",
        "question" => "asking the user a question (one action)",
        "webfetch" => "fetching a URL (one action)",
        "websearch" => "web search (one action)",
        "codesearch" => "code search (the query)",
        "doom_loop" => "the same call repeated three times (one action)",
        _ => "",
    }
}

fn permission_hover(key: &str) -> String {
    let what = short_permission(key);
    if what.is_empty() {
        if key.contains(['*', '?']) {
            return format!(
                "**`{key}`** — a wildcard over permission names: its rules apply to every permission it matches (`*`: every tool). Placed after other keys it overrides them (last match wins)."
            );
        }
        return format!(
            "**`{key}`** — no built-in tool asks for this permission; an MCP or custom tool with exactly this id does (its calls check `*`)."
        );
    }
    format!(
        "**`{key}`** — {what}.\n\nA string is one rule with pattern `*`; a map is one rule per pattern, in order. The last matching rule in the merged list decides (none: ask)."
    )
}

fn rule_hover(
    policy: &Policy,
    doc: usize,
    permission: &str,
    pattern: &str,
    ctx: &Context<'_>,
) -> String {
    let agent = policy.agent_name(ctx.options.agent.as_deref());
    let rules = policy.rules(&agent);
    let mut md =
        format!("**`{permission}` `{pattern}`** — OpenCode {VERSION}, agent `{agent}`\n\n");
    let home = policy.env.home.display().to_string();
    let expanded = policy::expand_home(pattern, &home);
    let Some(i) = rules.iter().position(|r| {
        r.origin.file == Some(doc) && r.permission == permission && r.pattern == expanded
    }) else {
        md.push_str("This rule is not in the agent's merged list (another agent's, or a value a later file replaces).");
        return md;
    };
    let r = &rules[i];
    md.push_str(&format!(
        "Rule {} of {} in the merged list: it {} `{permission}` calls whose pattern matches `{}`.\n\n",
        i + 1,
        rules.len(),
        match r.action {
            crate::core::precedence::Action::Allow => "allows",
            crate::core::precedence::Action::Ask => "asks about",
            crate::core::precedence::Action::Deny => "denies",
        },
        r.pattern
    ));
    if matches!(permission, "read" | "edit") {
        md.push_str("Paths are matched relative to the worktree (`src/a.ts`).\n\n");
    }
    let later: Vec<String> = rules[i + 1..]
        .iter()
        .filter(|l| {
            l.action != r.action
                && crate::core::pattern_algebra::overlaps(r.pattern_glob(), l.pattern_glob())
                    != Some(false)
                && (l.applies_to(permission) || r.applies_to(&l.permission))
        })
        .take(5)
        .map(|l| format!("- {}", simulation::rule_line(policy, l)))
        .collect();
    if later.is_empty() {
        md.push_str("No later rule with another action overlaps it.");
    } else {
        md.push_str("Later rules with another action that can override it:\n");
        md.push_str(&later.join("\n"));
    }
    // What it decides for an example it matches, with every file.
    let example = r.pattern_glob().example();
    let perm = if r.permission.contains(['*', '?']) {
        "bash".to_string()
    } else {
        r.permission.clone()
    };
    let c = decide::evaluate(&rules, &perm, &example);
    let by = match c.rule {
        Some(j) if j == i => "this rule".to_string(),
        Some(j) => simulation::rule_line(policy, &rules[j]),
        None => "no rule (ask)".into(),
    };
    md.push_str(&format!(
        "\n\n**Example:** `{perm}` `{example}` → **{}** by {by}",
        config::action_str(c.action)
    ));
    md
}
