//! One Claude Code settings file, checked as Claude Code 2.1.332 loads it:
//! strict JSON (a byte order mark is accepted), `permissions` validated as
//! the CLI validates it (a wrong type drops the whole file), each rule read
//! by [`super::model::rules`], and the rules that can never decide because a
//! stronger list always wins (deny > ask > allow).

use super::codes::Code;
use super::model::rules::{self, Flaw, List, Reading, Skip};
use super::model::shape::{self, Shape};
use crate::contract::Analysis;
use crate::core::diagnostic::{Diagnostic, Fix, Related, TextEdit};
use crate::syntax::json::{Member, Node, SyntaxErrorKind, Value};
use crate::syntax::strip::Stripped;

pub mod spellings;

/// The keys of `permissions` the CLI reads.
pub const PERMISSIONS_KEYS: &[&str] = &[
    "allow",
    "deny",
    "ask",
    "defaultMode",
    "disableBypassPermissionsMode",
    "disableAutoMode",
    "additionalDirectories",
    "blockReadsOutsideWorkingDirectories",
    "blockWritesOutsideWorkingDirectories",
    "denyInsteadOfPrompting",
    "blockReadsExemptPaths",
    "workingDirectoriesAsGiven",
    "workingDirectoriesExclude",
];

/// The modes `permissions.defaultMode` accepts (the CLI's list).
pub const MODES: &[&str] = &[
    "acceptEdits",
    "auto",
    "bypassPermissions",
    "default",
    "dontAsk",
    "plan",
];

/// Top-level settings whose value of another JSON type makes the CLI drop
/// the whole file silently (each observed: probe4). Others were seen to be
/// tolerated (`hooks`, `effortLevel`, `theme`) and are not checked.
const TOP_LEVEL_TYPES: &[(&str, &str)] = &[
    ("model", "string"),
    ("env", "object"),
    ("statusLine", "object"),
    ("enabledPlugins", "object"),
    ("includeCoAuthoredBy", "boolean"),
    ("cleanupPeriodDays", "number"),
    ("apiKeyHelper", "string"),
    ("outputStyle", "string"),
    ("alwaysThinkingEnabled", "boolean"),
    ("sandbox", "object"),
    ("enableAllProjectMcpServers", "boolean"),
];

/// Keys whose value must be an array of strings (a wrong type drops the
/// file; observed for the three lists and `additionalDirectories`).
const ARRAY_KEYS: &[&str] = &["allow", "deny", "ask", "additionalDirectories"];

/// Checks one settings file.
pub fn analyse(text: &str) -> Analysis {
    let mut out = Vec::new();
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let base = text.len() - body.len();
    if body.trim().is_empty() {
        out.push(Diagnostic::new(
            Code::EmptyFile,
            0..text.len(),
            "this settings file is empty: Claude Code reads no settings and no rules from it"
                .into(),
        ));
        return Analysis {
            root: None,
            diagnostics: out,
            accepted: false,
            outline: Vec::new(),
        };
    }
    let parsed = crate::syntax::json::parse(&Stripped::verbatim(body, base));
    let root = parsed.root;
    if !parsed.errors.is_empty() {
        // The deny rules lost, counted in the file read as a lenient
        // reader would (comments stripped, errors recovered).
        let lenient = crate::syntax::json::parse(&crate::syntax::strip::strip_json_comments(body));
        let lost = lenient
            .root
            .as_ref()
            .or(root.as_ref())
            .map_or(0, |r| count_rules(r, List::Deny));
        let consequence = if lost > 0 {
            format!(
                "Claude Code silently ignores this whole file — its {lost} deny rule{} with it",
                if lost == 1 { "" } else { "s" }
            )
        } else {
            "Claude Code silently ignores this whole file".to_string()
        };
        for e in &parsed.errors {
            let here = &text[e.range.start..];
            let what = if here.starts_with("//") || here.starts_with("/*") {
                "comments are not JSON".to_string()
            } else {
                e.message.clone()
            };
            let mut d = Diagnostic::new(
                Code::InvalidJson,
                e.range.clone(),
                format!("{what}: {consequence} (`claude doctor`: \"Invalid or malformed JSON\")"),
            );
            if e.kind == SyntaxErrorKind::TrailingComma {
                d = d.with_fix(Fix::Edit {
                    title: "Remove the trailing comma".into(),
                    edits: vec![TextEdit::replace(e.range.clone(), "")],
                });
            }
            out.push(d);
        }
        return Analysis {
            root,
            diagnostics: out,
            accepted: false,
            outline: Vec::new(),
        };
    }
    let Some(root) = root else {
        return Analysis::default();
    };
    let mut accepted = true;
    if root.value.as_object().is_none() {
        out.push(Diagnostic::new(
            Code::SettingsRejected,
            root.range.clone(),
            format!(
                "settings must be a JSON object, not {}: Claude Code reads no settings and no rules from this file",
                root.value.type_name()
            ),
        ));
        accepted = false;
    }
    if let Some(members) = root.value.as_object() {
        duplicate_keys(members, &mut out);
        let has_permissions = members.iter().any(|m| m.key == "permissions");
        for m in members {
            if m.key != "permissions" && looks_like_permissions(&m.key) {
                let mut d = Diagnostic::new(
                    Code::PermissionsKeyTypo,
                    m.key_range.clone(),
                    format!(
                        "`{}` is not a settings key: Claude Code ignores it, so none of the rules under it apply — did you mean `permissions`?",
                        m.key
                    ),
                );
                // Renaming next to a real `permissions` would replace it.
                if !has_permissions {
                    d = d.with_fix(Fix::RenameKey {
                        to: "permissions".into(),
                    });
                }
                out.push(d);
            }
        }
        for (key, ty) in TOP_LEVEL_TYPES {
            if let Some(m) = members.iter().rev().find(|m| m.key == *key)
                && m.value.value.type_name() != *ty
            {
                out.push(Diagnostic::new(
                    Code::TopLevelType,
                    m.value.range.clone(),
                    format!(
                        "`{key}` must be a {ty}, not a {}: Claude Code ignores this whole file without a word — every allow, ask and deny rule in it",
                        m.value.value.type_name()
                    ),
                ));
                accepted = false;
            }
        }
        // JSON.parse keeps the last of repeated keys.
        if let Some(p) = members.iter().rev().find(|m| m.key == "permissions") {
            accepted &= permissions(p, &mut out);
        }
    }
    Analysis {
        root: Some(root),
        diagnostics: out,
        accepted,
        outline: Vec::new(),
    }
}

/// `Permissions`, `permission`, `permisions`: a near miss of the key.
fn looks_like_permissions(key: &str) -> bool {
    rules::closest(key, &["permissions"]).is_some()
}

fn count_rules(root: &Node, list: List) -> usize {
    permissions_of(root).map_or(0, |p| list_items(p, list).len())
}

/// The `permissions` object in force (JSON.parse keeps the last key).
pub fn permissions_of(root: &Node) -> Option<&[crate::syntax::Member]> {
    root.value
        .as_object()?
        .iter()
        .rev()
        .find(|m| m.key == "permissions")?
        .value
        .value
        .as_object()
}

/// The items of a rule list (none when it is not an array).
pub fn list_items(p: &[crate::syntax::Member], list: List) -> &[Node] {
    match p
        .iter()
        .rev()
        .find(|m| m.key == list.key())
        .map(|m| &m.value.value)
    {
        Some(Value::Array(items)) => items,
        _ => &[],
    }
}

/// Checks `permissions`; false when a wrong type makes the CLI drop the
/// file.
fn permissions(p: &Member, out: &mut Vec<Diagnostic>) -> bool {
    let Some(members) = p.value.value.as_object() else {
        out.push(rejected(
            p.value.range.clone(),
            format!(
                "permissions: Expected object, but received {}",
                p.value.value.type_name()
            ),
        ));
        return false;
    };
    duplicate_keys(members, out);
    let mut accepted = true;
    let last = |key: &str| members.iter().rev().find(|m| m.key == key);
    for m in members {
        if !PERMISSIONS_KEYS.contains(&m.key.as_str()) {
            let mut d = Diagnostic::new(
                Code::UnknownPermissionsKey,
                m.key_range.clone(),
                format!("Claude Code ignores `permissions.{}` without a word", m.key),
            );
            if let Some(s) = rules::closest(&m.key, PERMISSIONS_KEYS)
                && last(s).is_none()
            {
                d.message.push_str(&format!(": did you mean `{s}`?"));
                d = d.with_fix(Fix::RenameKey { to: s.into() });
            }
            out.push(d);
        }
    }
    for key in ARRAY_KEYS {
        if let Some(m) = last(key)
            && !matches!(m.value.value, Value::Array(_))
        {
            out.push(rejected(
                m.value.range.clone(),
                format!(
                    "permissions.{key}: Expected array, but received {}",
                    m.value.value.type_name()
                ),
            ));
            accepted = false;
        }
    }
    // `manual` is accepted too: an alias of `default` that the CLI's
    // message does not list (probe r5).
    if let Some(m) = last("defaultMode")
        && !m
            .value
            .value
            .as_str()
            .is_some_and(|s| MODES.contains(&s) || s == "manual")
    {
        let list: Vec<String> = MODES.iter().map(|s| format!("\"{s}\"")).collect();
        out.push(rejected(
            m.value.range.clone(),
            format!(
                "permissions.defaultMode: Invalid value. Expected one of: {}",
                list.join(", ")
            ),
        ));
        accepted = false;
    }
    let mut loaded: Vec<(List, &str, &Node)> = Vec::new();
    for list in [List::Allow, List::Ask, List::Deny] {
        let Some(Member {
            value:
                Node {
                    value: Value::Array(items),
                    ..
                },
            ..
        }) = last(list.key())
        else {
            continue;
        };
        let mut seen: rustc_hash::FxHashMap<&str, &Node> = Default::default();
        for item in items {
            let Some(rule) = item.value.as_str() else {
                let mut d = Diagnostic::new(
                    Code::NonStringRule,
                    item.range.clone(),
                    format!(
                        "a rule must be a string: Claude Code removes this {} from the {} list",
                        item.value.type_name(),
                        list.key()
                    ),
                );
                d.runtime_issue = Some(format!(
                    "permissions.{0}: Non-string value in {0} array was removed",
                    list.key()
                ));
                out.push(d);
                continue;
            };
            if let Some(first) = seen.get(rule) {
                let mut d = Diagnostic::new(
                    Code::DuplicateRule,
                    item.range.clone(),
                    format!("`{rule}` is already in the {} list", list.key()),
                );
                d.add_related(Related {
                    range: first.range.clone(),
                    message: "the first one".into(),
                });
                out.push(d.with_fix(Fix::RemoveArrayItem {
                    title: format!("Remove this copy of `{rule}`"),
                }));
                continue;
            }
            seen.insert(rule, item);
            if rule_diagnostics(rule, list, item, out) {
                loaded.push((list, rule, item));
            }
        }
    }
    never_decides(&loaded, out);
    accepted
}

fn rejected(range: std::ops::Range<usize>, cli: String) -> Diagnostic {
    let mut d = Diagnostic::new(
        Code::SettingsRejected,
        range,
        format!(
            "Claude Code ignores this whole file — every allow, ask and deny rule in it: \"{cli}\""
        ),
    );
    d.runtime_issue = Some(cli);
    d
}

/// Findings for one rule; true when the CLI loads it.
fn rule_diagnostics(rule: &str, list: List, node: &Node, out: &mut Vec<Diagnostic>) -> bool {
    let range = node.range.clone();
    let lost = match list {
        List::Deny => "this deny protects nothing",
        List::Ask => "these calls are not asked about",
        List::Allow => "these calls are not allowed by it",
    };
    match rules::read(rule, list) {
        Reading::Skipped(skip) => {
            let reason = rules::skip_reason(&skip, rule);
            let mut d = Diagnostic::new(
                Code::RuleSkipped,
                range.clone(),
                format!("Claude Code skips this rule ({lost}): {reason}"),
            );
            d.runtime_issue = Some(format!(
                "permissions.{}: Invalid permission rule \"{rule}\" was skipped: {reason}",
                list.key()
            ));
            for (title, fixed) in skip_fixes(&skip, rule, list) {
                d = d.with_fix(replace_rule(&range, title, &fixed));
            }
            out.push(d);
            false
        }
        Reading::Loaded(r, Some(flaw)) => {
            super::model::rule_text::findings(rule, &r, list, node, out);
            let (code, message) = match &flaw {
                Flaw::UnknownTool { suggestion } => (
                    Code::UnknownTool,
                    format!(
                        "`{}` is not a Claude Code tool: this rule never matches ({lost}){}",
                        r.tool,
                        suggestion.map_or(String::new(), |s| format!(" — did you mean `{s}`?"))
                    ),
                ),
                Flaw::SpacedToolName => (
                    Code::SpacedToolName,
                    format!(
                        "the tool name `{}` has spaces around it: Claude Code loads the rule without a warning, and it matches nothing ({lost})",
                        r.tool
                    ),
                ),
                Flaw::StarWithColonStar => (
                    Code::StarWithColonStar,
                    "the `*` before `:*` is literal: this rule matches only commands with a `*` at that place".to_string(),
                ),
                Flaw::WildcardBeforeRest => (
                    Code::WildcardBeforeRest,
                    format!(
                        "the `*` comes before the rest of the command: it also matches options inserted there (e.g. `{}`), which this allow rule then approves without a prompt",
                        wildcard_example(r.content.unwrap_or(""))
                    ),
                ),
                Flaw::WriteWithPath => (
                    Code::WriteRuleIgnored,
                    format!(
                        "file permission checks read only `Edit(path)` rules: this `Write({})` rule never decides a file write ({lost}); `Edit(…)` covers Write, Edit and NotebookEdit",
                        r.content.unwrap_or("")
                    ),
                ),
                Flaw::ReadStar => (
                    Code::ReadStarAddsNothing,
                    "`Read(*)` adds nothing: reading inside the working directories already runs without asking, and `*` does not reach outside them (`Read` alone allows every path)".to_string(),
                ),
                Flaw::EditStar => (
                    Code::EditStarWorkingDirectories,
                    "`Edit(*)` allows edits only inside the working directories (older Claude Code versions read it as `Edit`, every path)".to_string(),
                ),
                Flaw::ColonStarInside => {
                    let c = r.content.unwrap_or("");
                    let (before, after) = c.split_once(":*").unwrap_or((c, ""));
                    let example = format!("{} x{}", before.trim_end(), after.trim_end());
                    (
                        Code::ColonStarInside,
                        format!(
                            "`:*` means \"any arguments\" only at the very end of a Bash rule; here it is followed by `{after}`, so the rule does not match calls such as `{example}` ({lost})"
                        ),
                    )
                }
            };
            let mut d = Diagnostic::new(code, range.clone(), message);
            d.runtime_issue = rules::flaw_warning(&flaw, rule, list);
            let fixed = match &flaw {
                Flaw::UnknownTool {
                    suggestion: Some(s),
                } => Some((format!("Use `{s}`"), rebuild(s, r.content))),
                Flaw::SpacedToolName => Some((
                    format!("Use `{}`", r.tool.trim()),
                    rebuild(r.tool.trim(), r.content),
                )),
                Flaw::WriteWithPath => {
                    let fixed = rebuild("Edit", r.content);
                    Some((format!("Use `{fixed}`"), fixed))
                }
                _ => None,
            };
            if flaw == Flaw::ReadStar {
                d = d.with_fix(Fix::RemoveArrayItem {
                    title: "Remove `Read(*)` (it allows nothing new)".into(),
                });
            }
            if let Some((title, fixed)) = fixed {
                d = d.with_fix(replace_rule(&range, title, &fixed));
            }
            out.push(d);
            true
        }
        Reading::Loaded(r, None) => {
            super::model::rule_text::findings(rule, &r, list, node, out);
            true
        }
    }
}

/// A command the wildcard of a CC020 rule lets through with an inserted
/// option: its `*` replaced by an option and the value it stood for.
fn wildcard_example(content: &str) -> String {
    content
        .replacen('*', "--dangerous-option x", 1)
        .replace('*', "x")
}

fn rebuild(tool: &str, content: Option<&str>) -> String {
    match content {
        Some(c) => format!("{tool}({c})"),
        None => tool.to_string(),
    }
}

/// Rewrites of a skipped rule that keep what it evidently means. A fix
/// never widens an allow to a whole tool.
fn skip_fixes(skip: &Skip, rule: &str, list: List) -> Vec<(String, String)> {
    let split = rules::split(rule);
    match skip {
        Skip::LowerCaseTool {
            canonical: Some(tool),
        } => {
            let content = split.and_then(|r| r.content);
            vec![(format!("Use `{tool}`"), rebuild(tool, content))]
        }
        Skip::WebFetchWithoutDomain => {
            let host = split.and_then(|r| r.content).unwrap_or("");
            vec![("Use `domain:`".into(), format!("WebFetch(domain:{host})"))]
        }
        // `mcp__srv__echo(*)` is every call of the tool; other content
        // narrows nothing the CLI reads, so only a deny or ask is widened
        // to the tool.
        Skip::McpParentheses => match split {
            Some(r) if r.content == Some("*") || list != List::Allow => vec![(
                format!("Use `{}` (every call of the tool)", r.tool),
                r.tool.to_string(),
            )],
            _ => Vec::new(),
        },
        Skip::EmptyParentheses | Skip::EmptyPrefix if list != List::Allow => {
            let tool = split.map_or(rule, |r| r.tool);
            vec![(
                format!("Use `{tool}` (every call of the tool)"),
                tool.to_string(),
            )]
        }
        Skip::Malformed => {
            // `Bash(npm run test)*`: the star belongs inside.
            if let Some(open) = rule.find('(')
                && let Some(close) = rule.rfind(')')
                && close > open
                && rule[close + 1..].trim() == "*"
            {
                let (tool, inner) = (&rule[..open], &rule[open + 1..close]);
                return vec![
                    (
                        format!("Use `{tool}({inner}:*)` (the command, alone or with arguments)"),
                        format!("{tool}({inner}:*)"),
                    ),
                    (
                        format!("Use `{tool}({inner}*)` (every command starting with it)"),
                        format!("{tool}({inner}*)"),
                    ),
                ];
            }
            if rule.find('(').is_some() && !rule.trim_end().ends_with(')') && !rule.contains(')') {
                return vec![(
                    "Close the parenthesis".into(),
                    format!("{})", rule.trim_end()),
                )];
            }
            if rule.ends_with(char::is_whitespace) && rule.trim_end().ends_with(')') {
                return vec![(
                    "Remove the trailing space".into(),
                    rule.trim_end().to_string(),
                )];
            }
            Vec::new()
        }
        _ => Vec::new(),
    }
}

pub(super) fn replace_rule(range: &std::ops::Range<usize>, title: String, rule: &str) -> Fix {
    Fix::Edit {
        title,
        edits: vec![TextEdit::replace(
            range.clone(),
            serde_json::to_string(rule).unwrap_or_default(),
        )],
    }
}

/// Deny beats ask beats allow. An allow or ask rule never decides when a
/// rule of a stronger list matches every call it matches: the same rule,
/// the bare name of its tool (every call of it), or a Bash rule whose
/// commands contain its commands (`Bash(npm:*)` over `Bash(npm run
/// test:*)`, exact: `shape.rs`). An allow rule that another allow rule
/// contains is redundant.
fn never_decides(loaded: &[(List, &str, &Node)], out: &mut Vec<Diagnostic>) {
    // The first place of each rule text in each list (linear, for files
    // with any number of rules).
    let mut first: [rustc_hash::FxHashMap<&str, (usize, &Node)>; 3] = Default::default();
    let mut shapes: Vec<Option<Shape<'_>>> = Vec::with_capacity(loaded.len());
    // Bash rules naming one command exactly (`shape::exact_literal`).
    let mut exact: Vec<bool> = Vec::with_capacity(loaded.len());
    let mut index: [shape::Index<'_>; 3] = Default::default();
    for (i, &(l, r, node)) in loaded.iter().enumerate() {
        first[l as usize].entry(r).or_insert((i, node));
        let (sh, ex) = match rules::read(r, l) {
            Reading::Loaded(rule, flaw) if rule.tool == "Bash" => (
                Some(shape::shape(rule.content, flaw.as_ref())),
                shape::exact_literal(rule.content).is_some(),
            ),
            _ => (None, false),
        };
        if let Some(sh) = sh {
            index[l as usize].insert(i, sh);
        }
        shapes.push(sh);
        exact.push(ex);
    }
    for (ai, &(list, rule, node)) in loaded.iter().enumerate() {
        let tool = rules::split(rule).map_or(rule, |r| r.tool);
        let exact_ask = list == List::Ask && exact[ai];
        let by_shape = |l: List| -> Option<(usize, &str, &Node)> {
            let a = shapes[ai]?;
            if exact_ask && l == List::Deny {
                // An exact ask goes before deny wildcards and prefixes.
                return None;
            }
            index[l as usize]
                .covering(&a)
                .into_iter()
                .find(|&b| b != ai)
                .map(|b| (b, loaded[b].1, loaded[b].2))
        };
        let stronger = [List::Ask, List::Deny]
            .into_iter()
            .filter(|l| *l > list)
            .find_map(|l| {
                let by_rule = first[l as usize].get(rule).map(|&(i, n)| (i, rule, n));
                let by_tool = (!tool.contains('*'))
                    .then(|| first[l as usize].get(tool).map(|&(i, n)| (i, tool, n)))
                    .flatten();
                [by_rule, by_tool, by_shape(l)]
                    .into_iter()
                    .flatten()
                    .min_by_key(|(i, _, _)| *i)
                    .map(|(_, r, n)| (l, r, n))
            });
        let example = shapes[ai]
            .as_ref()
            .and_then(shape::example)
            .map(|e| format!(" (e.g. `{e}`)"))
            .unwrap_or_default();
        if let Some((l, r, by)) = stronger {
            let mut d = Diagnostic::new(
                Code::RuleNeverDecides,
                node.range.clone(),
                format!(
                    "this {} rule never decides: `{r}` in {} matches every call it matches{example}, and {} wins",
                    list.key(),
                    l.key(),
                    l.key()
                ),
            );
            d.add_related(Related {
                range: by.range.clone(),
                message: format!("the {} rule that wins", l.key()).into(),
            });
            out.push(d);
            continue;
        }
        // An allow inside a broader allow (an equal one counts once: the
        // later of the two is reported).
        if list == List::Allow
            && let Some(a) = shapes[ai]
            && let Some(b) = index[List::Allow as usize]
                .covering(&a)
                .into_iter()
                .find(|&b| {
                    b != ai
                        && loaded[b].1 != rule
                        && (b < ai || !shapes[b].is_some_and(|sb| shape::covers(&a, &sb)))
                })
        {
            let mut d = Diagnostic::new(
                Code::RedundantRule,
                node.range.clone(),
                format!(
                    "`{}` already allows every command this rule allows{example}: this rule changes nothing",
                    loaded[b].1
                ),
            )
            .with_fix(Fix::RemoveArrayItem {
                title: format!("Remove `{rule}` (`{}` covers it)", loaded[b].1),
            });
            d.add_related(Related {
                range: loaded[b].2.range.clone(),
                message: "the broader allow rule".into(),
            });
            out.push(d);
        }
    }
}

/// Repeated keys in one object: JSON.parse keeps the last.
fn duplicate_keys(members: &[Member], out: &mut Vec<Diagnostic>) {
    // The nearest later member with the same key, found from the end.
    let mut next: Vec<Option<usize>> = vec![None; members.len()];
    let mut last_seen: rustc_hash::FxHashMap<&str, usize> = Default::default();
    for (i, m) in members.iter().enumerate().rev() {
        next[i] = last_seen.insert(m.key.as_str(), i);
    }
    for (m, later) in members.iter().zip(next) {
        let Some(later) = later.map(|j| &members[j]) else {
            continue;
        };
        let mut d = Diagnostic::new(
            Code::DuplicateKey,
            m.key_range.clone(),
            format!(
                "`{}` appears again later: Claude Code keeps only the last one and ignores this value",
                m.key
            ),
        );
        d.add_related(Related {
            range: later.key_range.clone(),
            message: "the value Claude Code uses".into(),
        });
        out.push(d);
    }
}
