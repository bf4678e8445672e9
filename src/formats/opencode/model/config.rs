//! One OpenCode file read as OpenCode 1.18.33 reads it: `opencode.json(c)`
//! (JSON with comments and trailing commas) or an agent's markdown
//! frontmatter, checked against the permission part of the config schema,
//! and turned into the ordered data the runtime merges: the `permission`
//! map in JavaScript property order (array-index keys first, a repeated key
//! at its first position with its last value), the legacy `tools` switches,
//! and the agents each file defines.

use crate::core::precedence::Action;
use crate::syntax::js_order::js_entries;
use crate::syntax::{Member, Node, SyntaxErrorKind, Value};
use std::ops::Range;

/// Keys whose value is one action or a map of patterns to actions.
pub const RULE_KEYS: &[&str] = &[
    "read",
    "edit",
    "glob",
    "grep",
    "list",
    "bash",
    "task",
    "external_directory",
    "lsp",
    "skill",
];
/// Keys whose value must be one action.
pub const ACTION_ONLY_KEYS: &[&str] = &[
    "todowrite",
    "question",
    "webfetch",
    "websearch",
    "doom_loop",
];

/// Every permission name a built-in tool asks for.
pub const PERMISSIONS: &[&str] = &[
    "read",
    "edit",
    "glob",
    "grep",
    "list",
    "bash",
    "task",
    "external_directory",
    "lsp",
    "skill",
    "todowrite",
    "question",
    "webfetch",
    "websearch",
    "codesearch",
    "doom_loop",
    "plan_enter",
    "plan_exit",
];

/// Why the CLI refuses the file (it does not start).
#[derive(Debug, Clone, PartialEq)]
pub enum Fatal {
    /// `Config file at … is not valid JSON(C)`.
    Json {
        range: Range<usize>,
        message: String,
    },
    /// `Configuration is invalid at …` with its issues.
    Invalid,
}

/// One schema issue: the CLI's `↳ message path` line.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    pub range: Range<usize>,
    /// The CLI's message (`Expected PermissionActionConfig, got "never"`).
    pub message: String,
    /// The dotted path (`permission.bash`).
    pub path: String,
    /// The issue is a V2 `permissions` block.
    pub v2: bool,
}

impl Issue {
    /// The line the CLI prints.
    pub fn line(&self) -> String {
        if self.path.is_empty() {
            return self.message.clone();
        }
        format!("↳ {} {}", self.message, self.path)
    }
}

/// A pattern rule inside a permission's map.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternEntry {
    pub pattern: String,
    pub key_range: Range<usize>,
    pub action: Action,
    /// The key occurs more than once in its map (the last value counts).
    pub repeated: bool,
}

/// A permission's value.
#[derive(Debug, Clone, PartialEq)]
pub enum PermValue {
    /// `"bash": "ask"` — one rule with pattern `*`.
    Action(Action, Range<usize>),
    /// `"bash": {"git *": "allow"}`.
    Map(Vec<PatternEntry>),
}

/// One key of a `permission` object.
#[derive(Debug, Clone, PartialEq)]
pub struct PermEntry {
    pub key: String,
    pub key_range: Range<usize>,
    pub value: PermValue,
    pub repeated: bool,
}

/// A `permission` object in property order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PermMap {
    pub entries: Vec<PermEntry>,
}

/// A legacy `tools` switch (`"bash": false` → bash `*` deny).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSwitch {
    pub tool: String,
    pub key_range: Range<usize>,
    pub enabled: bool,
}

/// An agent a file defines (`agent.<name>`, `mode.<name>`, or an agent
/// markdown file).
#[derive(Debug, Clone, PartialEq)]
pub struct AgentBlock {
    pub name: String,
    pub name_range: Range<usize>,
    /// `tools` switches and `permission` combined as the runtime's agent
    /// schema combines them (the permission's keys replace the switches').
    pub permission: PermMap,
    pub disable: bool,
    pub mode: Option<String>,
}

/// What a file contributes.
#[derive(Debug, Clone, Default)]
pub struct Read {
    pub root: Option<Node>,
    pub fatal: Option<Fatal>,
    pub issues: Vec<Issue>,
    /// Trailing commas (accepted by OpenCode's JSONC reader).
    pub trailing_commas: usize,
    pub permission: Option<PermMap>,
    pub tools: Vec<ToolSwitch>,
    pub agents: Vec<AgentBlock>,
    /// The file's `default_agent`.
    pub default_agent: Option<String>,
    /// `references` (or `reference`): name and local `path`, if any.
    pub references: Vec<(String, Option<String>)>,
    /// The file has `references` (and `reference` is then not read).
    pub has_references: bool,
    /// The `{env:…}` and `{file:…}` references OpenCode replaced before
    /// reading the file (read with a resolver only).
    pub substituted: Vec<super::refs::Use>,
}

impl Read {
    /// The CLI accepts the file.
    pub fn accepted(&self) -> bool {
        self.fatal.is_none()
    }
}

/// The biggest config file read (bigger ones are reported, not read).
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

pub fn action(s: &str) -> Option<Action> {
    Action::parse(s)
}

pub fn action_str(a: Action) -> &'static str {
    a.as_str()
}

/// Reads an `opencode.json` / `opencode.jsonc` text.
pub fn read_config(text: &str) -> Read {
    read_config_with(text, None)
}

/// Reads a config with no session around it: its references resolve to
/// nothing, and each is said to read as empty.
pub fn read_config_alone(text: &str) -> Read {
    let var = |_: &str| None;
    let read = |_: &std::path::Path| Err(super::refs::Unreadable::NotRead);
    let resolver = super::refs::Resolver {
        dir: std::path::Path::new("/"),
        home: std::path::Path::new("/"),
        var: &var,
        read: &read,
    };
    read_config_with(text, Some(&resolver))
}

/// Reads a config as OpenCode does, its `{env:…}`/`{file:…}` references
/// replaced first when a resolver says how (else they stay as written).
/// Every range is in `text` as written.
pub fn read_config_with(text: &str, refs: Option<&super::refs::Resolver<'_>>) -> Read {
    let mut out = Read::default();
    // A byte order mark is whitespace to OpenCode's JSONC scanner.
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let base = text.len() - body.len();
    let substituted = refs
        .filter(|_| super::refs::has_refs(body))
        .map(|r| super::refs::substitute(body, r));
    let body = substituted.as_ref().map_or(body, |s| s.text.as_str());
    let stripped = crate::syntax::strip::strip_json_comments(body);
    let mut parsed = crate::syntax::json::parse(&stripped);
    let back = |r: &Range<usize>| match &substituted {
        Some(s) => s.map.range(r),
        None => r.clone(),
    };
    let shift = |r: Range<usize>| {
        let r = back(&r);
        r.start + base..r.end + base
    };
    if let Some(s) = &substituted {
        if let Some(root) = parsed.root.as_mut() {
            root.map_ranges(|r| s.map.range(r));
        }
        out.substituted = s
            .uses
            .iter()
            .map(|u| super::refs::Use {
                range: u.range.start + base..u.range.end + base,
                ..u.clone()
            })
            .collect();
        if let Some((range, message)) = &s.error {
            out.issues.push(Issue {
                range: range.start + base..range.end + base,
                message: message.clone(),
                path: String::new(),
                v2: false,
            });
            out.fatal = Some(Fatal::Invalid);
        }
    }
    for e in &parsed.errors {
        if e.kind == SyntaxErrorKind::TrailingComma {
            out.trailing_commas += 1;
        } else if out.fatal.is_none() {
            out.fatal = Some(Fatal::Json {
                range: shift(e.range.clone()),
                message: e.message.clone(),
            });
        }
    }
    if base > 0
        && let Some(root) = parsed.root.as_mut()
    {
        root.map_ranges(|r| r.start + base..r.end + base);
    }
    out.root = parsed.root;
    if out.fatal.is_some() {
        return out;
    }
    // Taken out while its members are read into `out` (not copied: a
    // large file's tree is tens of megabytes), and put back.
    let Some(root) = out.root.take() else {
        return out;
    };
    match root.value.as_object() {
        Some(members) => read_members(members, "", &mut out),
        None => {
            out.issues.push(Issue {
                range: root.range.clone(),
                message: format!("Expected object, got {}", js_show(&root)),
                path: String::new(),
                v2: false,
            });
        }
    }
    out.root = Some(root);
    if !out.issues.is_empty() {
        out.fatal = Some(Fatal::Invalid);
    }
    out
}

/// Reads an agent markdown file (`.opencode/agents/NAME.md`): its
/// frontmatter is the agent's config; without one the agent has no rules of
/// its own. When the YAML does not parse, OpenCode tries again with the
/// frontmatter sanitized ([`super::yaml::sanitize`]); when that changes
/// nothing it loads the agent without its frontmatter (the error says
/// `without_frontmatter`, and the read has the agent with no rules); when
/// the sanitized text does not parse either, the agent is skipped (`Err`).
pub fn read_agent(text: &str, name: &str) -> Result<Read, super::yaml::YamlError> {
    let Some((block, at)) = super::yaml::frontmatter(text) else {
        return Ok(agent_without_frontmatter(name));
    };
    let root = match super::yaml::parse(block, at) {
        Ok(root) => root,
        Err(e) if super::yaml::is_limit(&e) => return Err(e),
        Err(e) => {
            let (sanitized, changed) = super::yaml::sanitize(text);
            // (JavaScript joins the lines again with `\n`: a frontmatter
            // with `\r\n` is another text even when no line changed.)
            if changed.is_empty() && !block.contains('\r') {
                return Err(super::yaml::YamlError {
                    without_frontmatter: true,
                    ..e
                });
            }
            let Some((block2, at2)) = super::yaml::frontmatter(&sanitized) else {
                return Err(e);
            };
            let Ok(mut root) = super::yaml::parse(block2, at2) else {
                return Err(e);
            };
            root.map_ranges(|r| changed.range(r));
            root
        }
    };
    if !matches!(root.value, Value::Object(_)) {
        // Data that is not a mapping sets no field of the agent.
        let mut out = agent_without_frontmatter(name);
        out.root = Some(root);
        return Ok(out);
    }
    let mut out = Read::default();
    let agent = agent_block(name, 0..0, &root, "", &mut out.issues);
    if let Some(m) = root.value.as_object()
        && m.iter().any(|m| m.key == "permissions")
    {
        out.issues.push(v2_issue(
            m.iter().find(|m| m.key == "permissions").unwrap(),
            "permissions",
        ));
    }
    out.agents.push(agent);
    out.root = Some(root);
    if !out.issues.is_empty() {
        out.fatal = Some(Fatal::Invalid);
    }
    Ok(out)
}

/// An agent file OpenCode loads without its frontmatter: the agent, with
/// no rules of its own.
pub fn agent_without_frontmatter(name: &str) -> Read {
    let mut out = Read::default();
    out.agents.push(AgentBlock {
        name: name.to_string(),
        name_range: 0..0,
        permission: PermMap::default(),
        disable: false,
        mode: None,
    });
    out
}

fn v2_issue(m: &Member, path: &str) -> Issue {
    Issue {
        range: m.key_range.clone(),
        message: "V2 permissions are not supported by OpenCode V1. Use V1 \"permission\" rules or run opencode2.".into(),
        path: path.to_string(),
        v2: true,
    }
}

fn read_members(members: &[Member], prefix: &str, out: &mut Read) {
    // V2 blocks are refused before anything else is read.
    for m in members {
        if m.key == "permissions" {
            out.issues
                .push(v2_issue(m, &format!("{prefix}permissions")));
        }
        if matches!(m.key.as_str(), "agent" | "agents" | "mode")
            && let Some(agents) = m.value.value.as_object()
        {
            for a in agents {
                if let Some(fields) = a.value.value.as_object()
                    && let Some(p) = fields.iter().find(|f| f.key == "permissions")
                {
                    out.issues
                        .push(v2_issue(p, &format!("{}.{}.permissions", m.key, a.key)));
                }
            }
        }
    }
    if !out.issues.is_empty() {
        return;
    }
    for e in js_entries(members) {
        let m = e.member;
        match m.key.as_str() {
            "permission" => {
                out.permission = Some(perm_config(&m.value, "permission", &mut out.issues))
            }
            "tools" => out.tools = tool_switches(&m.value, "tools", &mut out.issues),
            "default_agent" => out.default_agent = m.value.value.as_str().map(str::to_string),
            "references" | "reference" => {
                if m.key == "reference" && out.has_references {
                    continue;
                }
                if m.key == "references" {
                    out.has_references = true;
                    out.references.clear();
                }
                for r in m
                    .value
                    .value
                    .as_object()
                    .map(js_entries)
                    .unwrap_or_default()
                {
                    let path = r
                        .member
                        .value
                        .value
                        .as_object()
                        .and_then(|f| f.iter().rev().find(|f| f.key == "path"))
                        .and_then(|f| f.value.value.as_str())
                        .map(str::to_string);
                    out.references.push((r.member.key.clone(), path));
                }
            }
            "agent" | "mode" => {
                let Some(agents) = m.value.value.as_object() else {
                    if !matches!(m.value.value, Value::Null) {
                        out.issues.push(Issue {
                            range: m.value.range.clone(),
                            message: format!("Expected object, got {}", js_show(&m.value)),
                            path: m.key.clone(),
                            v2: false,
                        });
                    }
                    continue;
                };
                for a in js_entries(agents) {
                    let path = format!("{}.{}.", m.key, a.member.key);
                    let mut block = agent_block(
                        &a.member.key,
                        a.member.key_range.clone(),
                        &a.member.value,
                        &path,
                        &mut out.issues,
                    );
                    if m.key == "mode" {
                        block.mode = Some("primary".into());
                    }
                    out.agents.push(block);
                }
            }
            _ => {}
        }
    }
}

fn agent_block(
    name: &str,
    name_range: Range<usize>,
    node: &Node,
    prefix: &str,
    issues: &mut Vec<Issue>,
) -> AgentBlock {
    let mut block = AgentBlock {
        name: name.to_string(),
        name_range,
        permission: PermMap::default(),
        disable: false,
        mode: None,
    };
    let Some(fields) = node.value.as_object() else {
        if !matches!(node.value, Value::Null) {
            issues.push(Issue {
                range: node.range.clone(),
                message: format!("Expected AgentConfig, got {}", js_show(node)),
                path: prefix.trim_end_matches('.').to_string(),
                v2: false,
            });
        }
        return block;
    };
    let mut switches = Vec::new();
    let mut perm: Option<PermMap> = None;
    for e in js_entries(fields) {
        let m = e.member;
        match m.key.as_str() {
            "tools" => switches = tool_switches(&m.value, &format!("{prefix}tools"), issues),
            "permission" => {
                perm = Some(perm_config(
                    &m.value,
                    &format!("{prefix}permission"),
                    issues,
                ))
            }
            "disable" => block.disable = matches!(m.value.value, Value::Bool(true)),
            "name" => {
                if let Some(n) = m.value.value.as_str() {
                    block.name = n.to_string();
                }
            }
            "mode" => block.mode = m.value.value.as_str().map(str::to_string),
            _ => {}
        }
    }
    // The agent schema's transform: switches first, then
    // `Object.assign(switches, permission)` — a permission key replaces the
    // switch of the same name whole.
    let mut entries: Vec<PermEntry> = switches_to_entries(&switches);
    if let Some(p) = perm {
        for pe in p.entries {
            if let Some(at) = entries.iter().position(|x| x.key == pe.key) {
                entries[at] = pe;
            } else {
                entries.push(pe);
            }
        }
    }
    crate::syntax::js_order::sort_index_keys_first(&mut entries, |e| e.key.as_str());
    block.permission = PermMap { entries };
    block
}

/// `tools: {write: false}` as permission entries (`write`, `edit` and
/// `patch` are `edit`).
pub fn switches_to_entries(switches: &[ToolSwitch]) -> Vec<PermEntry> {
    let mut entries: Vec<PermEntry> = Vec::new();
    for s in switches {
        let key = if matches!(s.tool.as_str(), "write" | "edit" | "patch") {
            "edit"
        } else {
            s.tool.as_str()
        };
        let value = PermValue::Action(
            if s.enabled {
                Action::Allow
            } else {
                Action::Deny
            },
            s.key_range.clone(),
        );
        match entries.iter_mut().find(|e| e.key == key) {
            Some(e) => e.value = value,
            None => entries.push(PermEntry {
                key: key.to_string(),
                key_range: s.key_range.clone(),
                value,
                repeated: false,
            }),
        }
    }
    crate::syntax::js_order::sort_index_keys_first(&mut entries, |e| e.key.as_str());
    entries
}

fn tool_switches(node: &Node, path: &str, issues: &mut Vec<Issue>) -> Vec<ToolSwitch> {
    let Some(members) = node.value.as_object() else {
        if !matches!(node.value, Value::Null) {
            issues.push(Issue {
                range: node.range.clone(),
                message: format!("Expected object, got {}", js_show(node)),
                path: path.to_string(),
                v2: false,
            });
        }
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in js_entries(members) {
        let m = e.member;
        match m.value.value {
            Value::Bool(b) => out.push(ToolSwitch {
                tool: m.key.clone(),
                key_range: m.key_range.clone(),
                enabled: b,
            }),
            _ => issues.push(Issue {
                range: m.value.range.clone(),
                message: format!("Expected boolean, got {}", js_show(&m.value)),
                path: format!("{path}.{}", m.key),
                v2: false,
            }),
        }
    }
    out
}

/// A `permission` value: one action (every permission) or a map.
fn perm_config(node: &Node, path: &str, issues: &mut Vec<Issue>) -> PermMap {
    match &node.value {
        Value::String(s) => match action(s) {
            Some(a) => PermMap {
                entries: vec![PermEntry {
                    key: "*".into(),
                    key_range: node.range.clone(),
                    value: PermValue::Action(a, node.range.clone()),
                    repeated: false,
                }],
            },
            None => {
                issues.push(Issue {
                    range: node.range.clone(),
                    message: format!("Expected PermissionActionConfig, got {}", js_show(node)),
                    path: path.to_string(),
                    v2: false,
                });
                PermMap::default()
            }
        },
        Value::Object(members) => {
            let mut entries = Vec::new();
            for e in js_entries(members) {
                let m = e.member;
                let key_path = format!("{path}.{}", m.key);
                let action_only = ACTION_ONLY_KEYS.contains(&m.key.as_str());
                let value = match &m.value.value {
                    Value::String(s) => match action(s) {
                        Some(a) => Some(PermValue::Action(a, m.value.range.clone())),
                        None => {
                            issues.push(Issue {
                                range: m.value.range.clone(),
                                message: format!(
                                    "Expected PermissionActionConfig{}, got {}",
                                    if action_only { " | undefined" } else { "" },
                                    js_show(&m.value)
                                ),
                                path: key_path,
                                v2: false,
                            });
                            None
                        }
                    },
                    Value::Object(patterns) if !action_only => {
                        let mut list = Vec::new();
                        for pe in js_entries(patterns) {
                            match pe.member.value.value.as_str().and_then(action) {
                                Some(a) => list.push(PatternEntry {
                                    pattern: pe.member.key.clone(),
                                    key_range: pe.member.key_range.clone(),
                                    action: a,
                                    repeated: pe.occurrences > 1,
                                }),
                                None => issues.push(Issue {
                                    range: pe.member.value.range.clone(),
                                    message: format!(
                                        "Expected PermissionActionConfig, got {}",
                                        js_show(&pe.member.value)
                                    ),
                                    path: format!("{key_path}.{}", pe.member.key),
                                    v2: false,
                                }),
                            }
                        }
                        Some(PermValue::Map(list))
                    }
                    _ => {
                        let known = RULE_KEYS.contains(&m.key.as_str()) || action_only;
                        issues.push(Issue {
                            range: m.value.range.clone(),
                            message: format!(
                                "Expected {}{}, got {}",
                                if action_only {
                                    "PermissionActionConfig"
                                } else {
                                    "PermissionRuleConfig"
                                },
                                if known { " | undefined" } else { "" },
                                js_show(&m.value)
                            ),
                            path: key_path,
                            v2: false,
                        });
                        None
                    }
                };
                if let Some(value) = value {
                    entries.push(PermEntry {
                        key: m.key.clone(),
                        key_range: e.first.key_range.clone(),
                        value,
                        repeated: e.occurrences > 1,
                    });
                }
            }
            PermMap { entries }
        }
        Value::Null => PermMap::default(),
        _ => {
            issues.push(Issue {
                range: node.range.clone(),
                message: format!(
                    "Expected PermissionActionConfig | PermissionConfig, got {}",
                    js_show(node)
                ),
                path: path.to_string(),
                v2: false,
            });
            PermMap::default()
        }
    }
}

/// A value as the CLI prints it in an issue (`JSON.stringify`).
pub fn js_show(n: &Node) -> String {
    fn go(n: &Node, out: &mut String, depth: usize) {
        if depth > 8 {
            out.push('…');
            return;
        }
        match &n.value {
            Value::Null | Value::Invalid => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(x) => out.push_str(
                &serde_json::Number::from_f64(*x).map_or("null".into(), |n| n.to_string()),
            ),
            Value::String(s) => out.push_str(&serde_json::Value::String(s.clone()).to_string()),
            Value::Array(items) => {
                out.push('[');
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    go(it, out, depth + 1);
                }
                out.push(']');
            }
            Value::Object(ms) => {
                out.push('{');
                for (i, e) in js_entries(ms).iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&serde_json::Value::String(e.member.key.clone()).to_string());
                    out.push(':');
                    go(&e.member.value, out, depth + 1);
                }
                out.push('}');
            }
        }
    }
    let mut s = String::new();
    go(n, &mut s, 0);
    if s.len() > 200 {
        let mut cut = 200;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(p: &PermMap) -> Vec<&str> {
        p.entries.iter().map(|e| e.key.as_str()).collect()
    }

    #[test]
    fn property_order_is_javascripts() {
        let r = read_config(
            r#"{"permission":{"foo":"deny","*":"ask","bash":{"z":"allow","10":"deny","a":"ask"},"read":"ask","2024":"allow",},}"#,
        );
        assert!(r.accepted(), "{:?}", r.fatal);
        assert_eq!(r.trailing_commas, 2);
        let p = r.permission.unwrap();
        assert_eq!(keys(&p), ["2024", "foo", "*", "bash", "read"]);
        let PermValue::Map(bash) = &p.entries[3].value else {
            panic!()
        };
        let pats: Vec<_> = bash.iter().map(|e| e.pattern.as_str()).collect();
        assert_eq!(pats, ["10", "z", "a"]);
    }

    #[test]
    fn the_clis_issues() {
        let r = read_config(r#"{ "permission": { "bash": "never" } }"#);
        assert_eq!(r.fatal, Some(Fatal::Invalid));
        assert_eq!(
            r.issues[0].line(),
            "↳ Expected PermissionActionConfig, got \"never\" permission.bash"
        );
        let r = read_config(r#"{ "permission": { "webfetch": { "*": "deny" } } }"#);
        assert_eq!(
            r.issues[0].line(),
            "↳ Expected PermissionActionConfig | undefined, got {\"*\":\"deny\"} permission.webfetch"
        );
        let r = read_config(r#"{ "permission": { "bash": { "git *": "yes" } } }"#);
        assert_eq!(
            r.issues[0].line(),
            "↳ Expected PermissionActionConfig, got \"yes\" permission.bash.git *"
        );
        let r = read_config(r#"{ "permissions": [] }"#);
        assert!(r.issues[0].v2);
        let r = read_config(r#"{ "permission": { "bash": "deny" "#);
        assert!(matches!(r.fatal, Some(Fatal::Json { .. })));
        let r = read_config("// c\n{ /* x */ \"permission\": \"allow\" }");
        assert!(r.accepted());
        assert_eq!(keys(r.permission.as_ref().unwrap()), ["*"]);
    }

    #[test]
    fn agent_tools_then_permission() {
        let r = read_config(
            r#"{"agent":{"build":{"tools":{"edit":false,"bash":false},"permission":{"edit":{"*.md":"allow"}}}}}"#,
        );
        let a = &r.agents[0];
        assert_eq!(keys(&a.permission), ["edit", "bash"]);
        assert!(matches!(a.permission.entries[0].value, PermValue::Map(_)));
    }
}
