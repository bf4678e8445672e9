//! The findings for one OpenCode document: what makes the CLI refuse to
//! start (with its own text), keys it accepts in silence, and — with the
//! other files of the session merged as the CLI merges them — rules that can
//! never decide, path rules that never match, bash rules that match only a
//! bare command, maps that drop a lower file's catch-all, and tools hidden
//! by a final `*` deny.

mod precedence;

use super::codes::Code;
use super::engine::policy::{Layer, Policy, Rule, SourceFile};
use super::model::config::{self, Fatal, PermMap, PermValue, Read};
use crate::contract::Role;
use crate::core::diagnostic::{Diagnostic, Fix, Related, Severity};
use crate::core::precedence::Action;
use crate::syntax::js_order::js_entries;
use crate::syntax::{Member, Node};
use std::ops::Range;

/// Top-level keys of `opencode.json` (1.18.33's schema).
pub const TOP_KEYS: &[&str] = &[
    "$schema",
    "theme",
    "keybinds",
    "logLevel",
    "tui",
    "server",
    "command",
    "skills",
    "watcher",
    "snapshot",
    "plugin",
    "share",
    "autoshare",
    "autoupdate",
    "disabled_providers",
    "enabled_providers",
    "model",
    "small_model",
    "default_agent",
    "username",
    "mode",
    "agent",
    "provider",
    "mcp",
    "formatter",
    "lsp",
    "instructions",
    "layout",
    "permission",
    "tools",
    "enterprise",
    "compaction",
    "experimental",
    "attachment",
    "references",
];
/// The keys whose misspelling loses rules.
const RULE_BEARING: &[&str] = &["permission", "tools", "agent", "mode", "default_agent"];
/// Fields of an agent.
pub const AGENT_KEYS: &[&str] = &[
    "name",
    "model",
    "variant",
    "prompt",
    "description",
    "temperature",
    "top_p",
    "mode",
    "hidden",
    "color",
    "steps",
    "maxSteps",
    "options",
    "permission",
    "disable",
    "tools",
];

/// A document read on its own.
pub struct Own {
    pub read: Read,
    pub yaml_error: Option<super::model::yaml::YamlError>,
}

/// Reads a document of either role.
pub fn read(role: Role, text: &str, name: &str) -> Own {
    match role {
        Role::Config | Role::Rules => Own {
            read: config::read_config(text),
            yaml_error: None,
        },
        Role::Agent => match config::read_agent(text, name) {
            Ok(read) => Own {
                read,
                yaml_error: None,
            },
            Err(e) => Own {
                read: if e.without_frontmatter {
                    config::agent_without_frontmatter(name)
                } else {
                    Read::default()
                },
                yaml_error: Some(e),
            },
        },
    }
}

/// The findings of the document alone (no other file needed).
pub fn own_findings(
    role: Role,
    text: &str,
    read: &Read,
    yaml_error: Option<&super::model::yaml::YamlError>,
    out: &mut Vec<Diagnostic>,
) {
    if let Some(e) = yaml_error {
        let message = if super::model::yaml::is_limit(e) {
            format!(
                "This frontmatter is beyond what this checker reads ({}): whether OpenCode applies this agent's rules is not known.",
                e.message
            )
        } else if e.without_frontmatter {
            format!(
                "OpenCode reads none of this frontmatter: it is not valid YAML ({}). The agent is still loaded — with no rules of its own, no description, and the whole file as its prompt.",
                e.message
            )
        } else {
            format!(
                "OpenCode skips this agent without a word: its frontmatter is not valid YAML ({}).",
                e.message
            )
        };
        out.push(Diagnostic::new(
            Code::AgentFileSkipped,
            e.range.clone(),
            message,
        ));
        return;
    }
    let r = read;
    for u in r.substituted.iter().filter(|u| u.value.is_none()) {
        let message = if u.is_file {
            format!(
                "`{}` names a file outside the project and OpenCode's folders: it is not read here (OpenCode replaces the reference by the file's content), so this value reads as empty. Move the file into the project or the config folder to have it checked.",
                u.text
            )
        } else {
            let name = u
                .text
                .strip_prefix("{env:")
                .and_then(|t| t.strip_suffix('}'))
                .unwrap_or(&u.text);
            format!(
                "`{name}` is not set for this check: OpenCode replaces `{}` by its value before reading the file, by nothing when unset — as it is read here. Give the value the agent starts with (`--runtime-env {name}=…`; in the editor, `permissionLsp.opencode.env`).",
                u.text
            )
        };
        let mut d = Diagnostic::new(Code::UnresolvedReference, u.range.clone(), message);
        if u.is_file {
            // What the file holds is not known: the reading is incomplete.
            d.severity = crate::core::diagnostic::Severity::Warning;
        }
        out.push(d);
    }
    // A schema issue about a value read from a file that was not read is
    // not known to be one.
    let unknown = |range: &Range<usize>| {
        r.substituted.iter().any(|u| {
            u.is_file && u.value.is_none() && u.range.start < range.end && range.start < u.range.end
        })
    };
    match &r.fatal {
        Some(Fatal::Json { range, message }) => {
            let mut d = Diagnostic::new(
                Code::InvalidJsonc,
                range.clone(),
                format!("OpenCode refuses to start: this file is not valid JSON(C) ({message})."),
            );
            d.runtime_issue = Some(format!(
                "Config file at <file> is not valid JSON(C): {message}"
            ));
            out.push(d);
            return;
        }
        Some(Fatal::Invalid) => {
            for i in r.issues.iter().filter(|i| !unknown(&i.range)) {
                let code = if i.v2 {
                    Code::V2Permissions
                } else {
                    Code::ConfigInvalid
                };
                let what = if i.v2 {
                    "OpenCode 1.x refuses to start: V2 `permissions` rules are not read by V1; write them as `permission` (a map of permission → action or patterns)."
                        .to_string()
                } else {
                    format!(
                        "OpenCode refuses to start: {}{}{}.",
                        i.message,
                        if i.path.is_empty() {
                            String::new()
                        } else {
                            format!(" at `{}`", i.path)
                        },
                        hint_for(&i.message)
                    )
                };
                let mut d = Diagnostic::new(code, i.range.clone(), what);
                d.runtime_issue = Some(i.line());
                out.push(d);
            }
        }
        None => {}
    }
    let Some(root) = &r.root else { return };
    duplicates(root, out);
    if role == Role::Config {
        unknown_keys(root, out);
    } else if let Some(fields) = root.value.as_object() {
        agent_fields(fields, out);
    }
    if r.fatal.is_some() {
        return;
    }
    if let Some(tools) = root
        .value
        .as_object()
        .and_then(|m| m.iter().rev().find(|m| m.key == "tools"))
    {
        out.push(Diagnostic::new(
            Code::LegacyTools,
            tools.key_range.clone(),
            "`tools` is deprecated: each `false` becomes a `*` deny (and `true` a `*` allow) under the permission of the same name, placed before `permission`'s own keys (`write`/`patch` are `edit`). Say it in `permission` instead.".into(),
        ));
    }
    let perms = all_perm_maps(r);
    for (pm, agent) in &perms {
        for e in &pm.entries {
            permission_key(e, pm, out);
            if let PermValue::Map(list) = &e.value {
                for p in list {
                    let at = out.len();
                    pattern_findings(&e.key, p, out);
                    // An agent file's own `permission` is at its root.
                    let holder = if role == Role::Config { *agent } else { None };
                    if let Some(fix) = external_rewrite(text, root, holder, &e.key, p) {
                        for d in &mut out[at..] {
                            if d.code.as_str() == Code::PathRuleNeverMatches.as_str() {
                                d.add_fix(fix.clone());
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The quick fix of a `~`/absolute folder rule under `read` or `edit`:
/// the same pattern and action under `external_directory` (created before
/// the `read`/`edit` key when there is none), the rule removed. Offered for
/// folder patterns (`…/*`, `…/**`) only: for one file the folder check
/// would cover its neighbours too.
fn external_rewrite(
    text: &str,
    root: &Node,
    agent: Option<&str>,
    key: &str,
    p: &config::PatternEntry,
) -> Option<Fix> {
    let pat = p.pattern.as_str();
    if !matches!(key, "read" | "edit")
        || !(pat.starts_with('~') || pat.starts_with("$HOME") || pat.starts_with('/'))
        || !(pat.ends_with("/*") || pat.ends_with("/**"))
    {
        return None;
    }
    let field = |n: &'_ Node, k: &str| -> Option<Node> {
        n.value
            .as_object()?
            .iter()
            .rev()
            .find(|m| m.key == k)
            .map(|m| m.value.clone())
    };
    let perm = match agent {
        None => field(root, "permission")?,
        Some(a) => {
            let agents = field(root, "agent").or_else(|| field(root, "mode"))?;
            field(&field(&agents, a)?, "permission")?
        }
    };
    let members = perm.value.as_object()?;
    let holder = members.iter().rev().find(|m| m.key == key)?;
    let patterns = holder.value.value.as_object()?;
    let j = patterns.iter().position(|m| m.key_range == p.key_range)?;
    // The style of the permission map, where a new key would go.
    let block = crate::ide::block_edits::is_block(text, &perm.range);
    let entry = format!(
        "{}: {}",
        serde_json::Value::String(pat.to_string()),
        serde_json::Value::String(config::action_str(p.action).into())
    );
    let mut edits = crate::ide::code_actions::removal_edits(text, &holder.value, j)?;
    match members.iter().rev().find(|m| m.key == "external_directory") {
        Some(ext) => {
            let obj = ext.value.value.as_object()?;
            // Last match wins: the moved rule goes after every rule that
            // decides a path of its folder, so that it decides them (a
            // rule for a narrower path keeps its place after it).
            let example = pat.replace("**", "x").replace(['*', '?'], "x");
            let after = obj
                .iter()
                .rposition(|m| super::engine::wildcard::matches(&example, &m.key));
            let insert =
                crate::ide::code_actions::insertion_edits(text, &ext.value, after, &entry)?;
            edits.extend(insert);
        }
        None if block => {
            let span = holder.key_range.start..holder.value.range.end;
            edits.extend(crate::ide::block_edits::insert_before(
                text,
                &span,
                &format!("external_directory: {{ {entry} }}"),
            )?);
        }
        None => {
            let at = holder.key_range.start;
            edits.push(crate::core::diagnostic::TextEdit::replace(
                at..at,
                format!("\"external_directory\": {{ {entry} }}, "),
            ));
        }
    }
    // Edits must not overlap (a removal's lines and an insertion at their
    // edge are both fine; anything else is no fix).
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    if edits.windows(2).any(|w| w[0].range.end > w[1].range.start) {
        return None;
    }
    Some(Fix::Edit {
        title: format!(
            "Move to `external_directory` (`{pat}` then applies to every tool in that folder)"
        ),
        edits,
    })
}

fn hint_for(message: &str) -> &'static str {
    if message.contains("| undefined, got {") {
        " (this permission takes one action: \"allow\", \"ask\" or \"deny\", not a map)"
    } else if message.starts_with("Expected PermissionActionConfig") {
        " (an action is \"allow\", \"ask\" or \"deny\")"
    } else {
        ""
    }
}

/// Every permission map of the file: top level and each agent's.
pub(super) fn all_perm_maps(r: &Read) -> Vec<(&PermMap, Option<&str>)> {
    let mut out = Vec::new();
    if let Some(p) = &r.permission {
        out.push((p, None));
    }
    for a in &r.agents {
        out.push((&a.permission, Some(a.name.as_str())));
    }
    out
}

fn duplicates(node: &Node, out: &mut Vec<Diagnostic>) {
    let mut stack = vec![(node, 0usize)];
    while let Some((n, depth)) = stack.pop() {
        if depth > 16 {
            continue;
        }
        let Some(members) = n.value.as_object() else {
            continue;
        };
        for e in js_entries(members) {
            if e.occurrences > 1 {
                for m in members
                    .iter()
                    .filter(|m| m.key == e.first.key && !std::ptr::eq(*m, e.first))
                {
                    let last = std::ptr::eq(m, e.member);
                    let mut d = Diagnostic::new(
                        Code::DuplicateKey,
                        m.key_range.clone(),
                        if last {
                            format!(
                                "`{}` is repeated: OpenCode keeps this value, but at the first key's position (that is where it sits in the rule order).",
                                m.key
                            )
                        } else {
                            format!(
                                "`{}` is repeated: a later value replaces this one, at the first key's position.",
                                m.key
                            )
                        },
                    )
                    .with_fix(Fix::RemoveDuplicate);
                    d.add_related(Related {
                        range: e.first.key_range.clone(),
                        message: "the position that counts".into(),
                    });
                    out.push(d);
                }
            }
            stack.push((&e.member.value, depth + 1));
        }
    }
}

fn close_to(word: &str, candidates: &[&'static str]) -> Option<&'static str> {
    let lower = word.to_lowercase();
    candidates
        .iter()
        .copied()
        .find(|c| *c == lower)
        .or_else(|| {
            candidates
                .iter()
                .copied()
                .filter(|c| c.len() > 3)
                .map(|c| (crate::text::edit_distance(&lower, c), c))
                .filter(|(d, c)| *d <= if c.len() > 6 { 2 } else { 1 })
                .min_by_key(|(d, _)| *d)
                .map(|(_, c)| c)
        })
}

fn unknown_keys(root: &Node, out: &mut Vec<Diagnostic>) {
    let Some(members) = root.value.as_object() else {
        return;
    };
    for m in members {
        if TOP_KEYS.contains(&m.key.as_str()) || m.key == "permissions" {
            if matches!(m.key.as_str(), "agent" | "mode")
                && let Some(agents) = m.value.value.as_object()
            {
                for a in agents {
                    if let Some(fields) = a.value.value.as_object() {
                        agent_fields(fields, out);
                    }
                }
            }
            continue;
        }
        if let Some(to) = close_to(&m.key, RULE_BEARING) {
            out.push(rename(
                Diagnostic::new(
                    Code::UnknownKey,
                    m.key_range.clone(),
                    format!(
                        "OpenCode does not know `{}` and ignores it without a word; did you mean `{to}`?",
                        m.key
                    ),
                ),
                to,
                members,
            ));
        }
    }
}

fn agent_fields(fields: &[Member], out: &mut Vec<Diagnostic>) {
    for f in fields {
        if AGENT_KEYS.contains(&f.key.as_str()) || f.key == "permissions" {
            continue;
        }
        if let Some(to) = close_to(&f.key, &["permission", "tools", "disable", "mode"]) {
            out.push(rename(
                Diagnostic::new(
                    Code::UnknownKey,
                    f.key_range.clone(),
                    format!(
                        "OpenCode does not know the agent field `{}` and ignores it without a word; did you mean `{to}`?",
                        f.key
                    ),
                ),
                to,
                fields,
            ));
        }
    }
}

/// The rename fix, unless the object already has the new key (renaming
/// would repeat it: the message says what to merge instead).
fn rename(mut d: Diagnostic, to: &str, siblings: &[Member]) -> Diagnostic {
    if siblings.iter().any(|m| m.key == to) {
        d.message
            .push_str(&format!(" (`{to}` is already there: merge the two)"));
    } else {
        d.add_fix(Fix::RenameKey { to: to.into() });
    }
    d
}

/// A permission key that no tool asks for.
fn permission_key(e: &config::PermEntry, siblings: &PermMap, out: &mut Vec<Diagnostic>) {
    let k = e.key.as_str();
    if config::PERMISSIONS.contains(&k) || k.contains(['*', '?']) || e.key_range.is_empty() {
        return;
    }
    let to = match k {
        "write" | "patch" | "multiedit" | "apply_patch" => Some("edit"),
        "todoread" => None,
        _ => close_to(k, config::PERMISSIONS),
    };
    if let Some(to) = to {
        let why = if to == "edit" && k != "edit" && k.to_lowercase() != "edit" {
            format!(
                "`{k}` is no permission: `write`, `edit` and `apply_patch` all ask for `edit`, so these rules never apply"
            )
        } else {
            format!("no tool asks for `{k}` (names are case-sensitive), so these rules never apply")
        };
        let mut d = Diagnostic::new(
            Code::UnknownKey,
            e.key_range.clone(),
            format!("{why}; did you mean `{to}`?"),
        );
        if siblings.entries.iter().any(|x| x.key == to) {
            d.message
                .push_str(&format!(" (`{to}` is already there: merge the two)"));
        } else {
            d.add_fix(Fix::RenameKey { to: to.into() });
        }
        out.push(d);
    }
}

fn pattern_findings(permission: &str, p: &config::PatternEntry, out: &mut Vec<Diagnostic>) {
    let pat = p.pattern.as_str();
    if matches!(permission, "read" | "edit")
        && (pat.starts_with('~') || pat.starts_with("$HOME") || pat.starts_with('/'))
    {
        out.push(Diagnostic::new(
            Code::PathRuleNeverMatches,
            p.key_range.clone(),
            format!(
                "`{pat}` never matches: `{permission}` checks the path relative to the worktree (`src/a.ts`; outside it `../…`), never an absolute or home path. For files outside the project, write the rule under `external_directory` (its patterns are absolute folders, `~/…/*`); a deny here fails open."
            ),
        ));
    }
    if permission == "bash" && !pat.contains(['*', '?']) && !pat.is_empty() {
        let mut d = Diagnostic::new(
            Code::BareCommand,
            p.key_range.clone(),
            format!(
                "`{pat}` matches only the exact command `{pat}`, not `{pat} <arguments>`; `{pat} *` matches both."
            ),
        );
        d.add_fix(Fix::RenameKey {
            to: format!("{pat} *"),
        });
        out.push(d);
    }
    if p.action == Action::Ask {
        out.push(Diagnostic::new(
            Code::AsksHeadless,
            p.key_range.clone(),
            format!(
                "`{permission}` `{pat}` asks: in a headless run (`opencode run`) nobody answers and the call is rejected."
            ),
        ));
    }
}

/// Findings that need the other files of the session.
pub fn session_findings(policy: &Policy, doc: usize, out: &mut Vec<Diagnostic>) {
    let f = &policy.files[doc];
    if let Some(r) = policy.refused.filter(|r| *r != doc) {
        let other = &policy.files[r];
        let at = f
            .read
            .root
            .as_ref()
            .and_then(|n| n.value.as_object())
            .and_then(|m| m.iter().find(|m| m.key == "permission"))
            .map(|m| m.key_range.clone())
            .unwrap_or(0..0);
        let mut d = Diagnostic::new(
            Code::FileRefused,
            at,
            format!(
                "OpenCode refuses to start in this session because of {} ({}); none of these rules apply.",
                other.path.display(),
                other.layer.name()
            ),
        );
        d.runtime_issue = super::engine::policy::refusal(other);
        out.push(d);
        return;
    }
    if !f.read.accepted() || f.yaml_error.is_some() {
        return;
    }
    map_drops_catch_all(policy, doc, out);
    // Top-level rules: judged in the default agent's list, against later
    // top-level rules only (they follow it in every agent).
    let agents = session_agents(policy, doc);
    // One agent's list at a time (each is the whole merged list), read
    // once for both analyses.
    let mut seen = precedence::Seen::new();
    let mut hidden = Vec::new();
    for (ai, agent) in agents.iter().enumerate() {
        let rules = policy.rules(agent);
        precedence::precedence(policy, doc, agent, ai == 0, &rules, &mut seen, out);
        hidden_tools(policy, &rules, doc, agent, &mut hidden);
    }
    hidden_findings(hidden, out);
}

/// [`session_findings`] with `before` (the document's own findings) and
/// the levels applied, handed to `sink` in document order a batch at a
/// time, with the document's text: when one list alone has rules of the
/// document to judge (a file of top-level rules, or one agent's), its
/// findings — one per rule of a long list — are never all held. Otherwise
/// they are gathered and handed on at once.
pub fn session_findings_in_order(
    policy: &mut Policy,
    doc: usize,
    mut before: Vec<Diagnostic>,
    levels: &crate::core::levels::LintLevels,
    sink: &mut dyn FnMut(&str, Vec<Diagnostic>),
) {
    let f = &policy.files[doc];
    let refused = policy.refused.is_some_and(|r| r != doc);
    if refused || !f.read.accepted() || f.yaml_error.is_some() {
        session_findings(policy, doc, &mut before);
        sink(&f.text, levels.apply(before));
        return;
    }
    // Only a refusal reads the document's tree (where it says so): freed
    // before the rules are judged (a fifth of a large file's memory).
    policy.files[doc].read.root = None;
    // Which lists judge the document's rules: each agent's list is made
    // once, and kept only for the one list that does.
    let judged = {
        let policy = &*policy;
        judged_list(policy, doc)
    };
    let Judged::One {
        agents,
        judging,
        hidden,
    } = judged
    else {
        session_findings(policy, doc, &mut before);
        sink(&policy.files[doc].text, levels.apply(before));
        return;
    };
    map_drops_catch_all(policy, doc, &mut before);
    // The lists are made: the merged maps they were made from, and the
    // document's own maps (read by the findings above), are freed before
    // the rules are judged — the judging reads the lists, the files' texts
    // and the other files' maps (a third of a large file's memory).
    policy.top = Default::default();
    for a in &mut policy.agents {
        a.own = Default::default();
    }
    let f = &mut policy.files[doc].read;
    f.permission = None;
    for b in &mut f.agents {
        b.permission = Default::default();
    }
    let policy = &*policy;
    let f = &policy.files[doc];
    let sink = &mut |ds| sink(&f.text, ds);
    let mut after = Vec::new();
    hidden_findings(hidden, &mut after);
    let mut out = crate::core::diagnostic::InOrder::new(before, after, levels, sink);
    if let Some((ai, rules)) = &judging {
        let agent = &agents[*ai];
        if let Some(pass) = precedence::passes(policy, doc, agent, *ai == 0, rules)
            .into_iter()
            .next()
        {
            precedence::precedence_in_order(policy, doc, &pass, &mut out);
        }
    }
    out.finish();
}

/// Which of a session's lists judge the document's rules.
enum Judged {
    /// At most one: the session's agents, that list's agent and rules, and
    /// the tools every list hides.
    One {
        agents: Vec<String>,
        judging: Option<(usize, Vec<Rule>)>,
        hidden: Vec<Hidden>,
    },
    /// Several.
    Several,
}

/// The agents whose lists judge the document's rules: the default one
/// first, then each agent the document gives a block that the session has.
fn session_agents(policy: &Policy, doc: usize) -> Vec<String> {
    let mut agents: Vec<String> = vec![policy.agent_name(None)];
    for b in &policy.files[doc].read.agents {
        if policy.has_agent(&b.name) && !agents.contains(&b.name) {
            agents.push(b.name.clone());
        }
    }
    agents
}

fn judged_list(policy: &Policy, doc: usize) -> Judged {
    let agents = session_agents(policy, doc);
    let mut hidden = Vec::new();
    let mut judging: Option<(usize, Vec<Rule>)> = None;
    for (ai, agent) in agents.iter().enumerate() {
        let rules = policy.rules(agent);
        hidden_tools(policy, &rules, doc, agent, &mut hidden);
        let lists = precedence::passes(policy, doc, agent, ai == 0, &rules).len();
        if lists == 0 {
            continue;
        }
        if lists > 1 || judging.is_some() {
            // Several lists: findings of later ones may come anywhere.
            return Judged::Several;
        }
        judging = Some((ai, rules));
    }
    Judged::One {
        agents,
        judging,
        hidden,
    }
}

pub(super) fn verb(a: Action) -> &'static str {
    match a {
        Action::Allow => "allows",
        Action::Ask => "asks about",
        Action::Deny => "denies",
    }
}

pub(super) fn past(a: Action) -> &'static str {
    match a {
        Action::Allow => "allowed",
        Action::Ask => "asked about",
        Action::Deny => "denied",
    }
}

/// A call a rule matches, for messages (`bash "git push"`).
pub fn example_call(permission: &str, pattern_example: &str) -> String {
    let p = if permission == "*" || permission.contains(['*', '?']) {
        "any tool".to_string()
    } else {
        format!("`{permission}`")
    };
    if pattern_example.is_empty() {
        format!("{p} with an empty value")
    } else {
        format!("{p} `{pattern_example}`")
    }
}

/// "the later `bash` `*` deny in the global config (line 3)".
pub fn describe(policy: &Policy, r: &Rule, agent: &str) -> String {
    let what = format!(
        "`{}` `{}` {}",
        r.permission,
        r.pattern,
        config::action_str(r.action)
    );
    match r.origin.layer {
        Layer::Default => format!("OpenCode's default {what}"),
        Layer::BuiltinAgent => format!("the `{agent}` agent's built-in {what}"),
        Layer::Trailer => format!("the final {what} every agent gets"),
        _ => {
            let file = policy.file(&r.origin);
            let place = match file {
                Some(f) => {
                    let (line, _) = f.line_col(r.origin.range.start);
                    // The file's name: a message never carries a
                    // machine's folders (the related place has the path).
                    let name = f
                        .path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| f.path.display().to_string());
                    format!("{name} line {line}")
                }
                None => r.origin.layer.name().to_string(),
            };
            if r.agent_rule {
                format!("the later {what} of agent `{agent}` ({place})")
            } else {
                format!("the later {what} ({place})")
            }
        }
    }
}

fn map_drops_catch_all(policy: &Policy, doc: usize, out: &mut Vec<Diagnostic>) {
    let f = &policy.files[doc];
    let Some(pm) = &f.read.permission else { return };
    // Each key set to one action in a file merged before this one: the
    // last such file, its first such entry (gathered once, when a map
    // needs it).
    let mut earlier: Option<rustc_hash::FxHashMap<&str, (&SourceFile, Action)>> = None;
    for e in &pm.entries {
        let PermValue::Map(list) = &e.value else {
            continue;
        };
        if list.iter().any(|p| p.pattern == "*") {
            continue;
        }
        let earlier = earlier.get_or_insert_with(|| {
            let mut m = rustc_hash::FxHashMap::default();
            for g in policy.files[..doc].iter().rev() {
                if !g.read.accepted() || g.yaml_error.is_some() {
                    continue;
                }
                let Some(p) = &g.read.permission else {
                    continue;
                };
                let mut own = rustc_hash::FxHashSet::default();
                for x in &p.entries {
                    if let PermValue::Action(a, _) = &x.value
                        && own.insert(x.key.as_str())
                    {
                        m.entry(x.key.as_str()).or_insert((g, *a));
                    }
                }
            }
            m
        });
        if let Some(&(g, a)) = earlier.get(e.key.as_str()) {
            out.push(Diagnostic::new(
                Code::MapDropsCatchAll,
                e.key_range.clone(),
                format!(
                    "`{}` is `\"{}\"` in {}; this map replaces that value, so its `*` rule is gone: `{}` calls no pattern here matches are no longer {} — the rules before decide them (OpenCode's default is `*` allow). Add `\"*\": \"{}\"` first in this map to keep it.",
                    e.key,
                    config::action_str(a),
                    g.path.display(),
                    e.key,
                    past(a),
                    config::action_str(a)
                ),
            ));
        }
    }
}

/// A tool hidden by a `*` deny of the document: the rule's range, the tool,
/// the agent, and how many earlier allow/ask rules of the document it
/// silences.
struct Hidden {
    range: Range<usize>,
    tool: String,
    agents: Vec<String>,
    others: usize,
}

fn hidden_tools(policy: &Policy, rules: &[Rule], doc: usize, agent: &str, out: &mut Vec<Hidden>) {
    let f: &SourceFile = &policy.files[doc];
    let mut names: Vec<&str> = Vec::new();
    let mut named: rustc_hash::FxHashSet<&str> = Default::default();
    for (pm, a) in all_perm_maps(&f.read) {
        if a.is_some_and(|a| a != agent) {
            continue;
        }
        for e in &pm.entries {
            if !e.key.contains(['*', '?']) && named.insert(&e.key) {
                names.push(&e.key);
            }
        }
    }
    let index = super::engine::policy::ByPermission::new(rules);
    let mut at: rustc_hash::FxHashMap<(Range<usize>, String), usize> = out
        .iter()
        .enumerate()
        .map(|(k, h)| ((h.range.clone(), h.tool.clone()), k))
        .collect();
    for name in names {
        let Some(i) = super::engine::decide::hidden_by_indexed(rules, &index, name) else {
            continue;
        };
        let r = &rules[i];
        if r.origin.file != Some(doc) || r.origin.range.is_empty() {
            continue;
        }
        let others = index
            .applying(name, |j| &rules[j])
            .into_iter()
            .take_while(|&j| j < i)
            .filter(|&j| rules[j].origin.file == Some(doc) && rules[j].action != Action::Deny)
            .count();
        match at.get(&(r.origin.range.clone(), name.to_string())) {
            Some(&k) => out[k].agents.push(agent.to_string()),
            None => {
                at.insert((r.origin.range.clone(), name.to_string()), out.len());
                out.push(Hidden {
                    range: r.origin.range.clone(),
                    tool: name.to_string(),
                    agents: vec![agent.to_string()],
                    others,
                })
            }
        }
    }
}

fn hidden_findings(hidden: Vec<Hidden>, out: &mut Vec<Diagnostic>) {
    for h in hidden {
        let name = &h.tool;
        let agents = h
            .agents
            .iter()
            .map(|a| format!("`{a}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut d = Diagnostic::new(
            Code::ToolHidden,
            h.range,
            format!(
                "The last rule for `{name}` is this `*` deny, so OpenCode removes the `{name}` tool from {} {agents}{}: the model cannot call it at all.",
                if h.agents.len() == 1 {
                    "agent"
                } else {
                    "agents"
                },
                if h.others > 0 {
                    format!(
                        ", and {} earlier allow/ask rule{} for it never appl{}",
                        h.others,
                        if h.others == 1 { "" } else { "s" },
                        if h.others == 1 { "ies" } else { "y" }
                    )
                } else {
                    String::new()
                }
            ),
        );
        d.severity = if h.others > 0 {
            Severity::Warning
        } else {
            Severity::Info
        };
        out.push(d);
    }
}

/// Used by hover: the ranges of a document's rules.
pub fn rule_at(
    policy: &Policy,
    doc: usize,
    offset: usize,
) -> Option<(Range<usize>, String, String)> {
    let f = &policy.files[doc];
    for (pm, _) in all_perm_maps(&f.read) {
        for e in &pm.entries {
            match &e.value {
                PermValue::Action(_, r) if e.key_range.contains(&offset) || r.contains(&offset) => {
                    return Some((e.key_range.clone(), e.key.clone(), "*".into()));
                }
                PermValue::Map(list) => {
                    for p in list {
                        if p.key_range.contains(&offset) {
                            return Some((p.key_range.clone(), e.key.clone(), p.pattern.clone()));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    None
}
