//! One Qwen Code `settings.json` as the CLI reads it (JSON with comments;
//! the v1 flat keys migrated to their v2 places), and a permission rule's
//! text read as Qwen's rule parser reads it.

use crate::syntax::json::{Member, Node, Value};
use std::ops::Range;

/// A string of a settings list, where it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub text: String,
    pub range: Range<usize>,
}

/// What the permission logic takes from one settings file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettingsFile {
    /// The text is JSON (comments allowed): Qwen reads it.
    pub parsed: bool,
    /// The first syntax error, in the parser's words, and where.
    pub error: Option<(Range<usize>, String)>,
    pub allow: Vec<Entry>,
    pub ask: Vec<Entry>,
    pub deny: Vec<Entry>,
    /// `tools.allowed` (or v1 `allowedTools`): allow rules.
    pub tools_allowed: Option<Vec<Entry>>,
    /// `tools.exclude` (or v1 `excludeTools`): deny rules.
    pub tools_exclude: Vec<Entry>,
    /// `tools.core` (or v1 `coreTools`): only these tools are registered.
    pub tools_core: Option<Vec<Entry>>,
    /// `tools.disabled`: tools not registered.
    pub tools_disabled: Vec<Entry>,
    /// `tools.approvalMode` (or v1 `approvalMode`).
    pub approval_mode: Option<Entry>,
    /// `security.folderTrust.enabled` (or v1 `folderTrust`).
    pub folder_trust: Option<bool>,
    /// `tools.listDirectory.enabled`, `tools.todoWrite.enabled`: the
    /// opt-in tools registered.
    pub list_directory: Option<bool>,
    pub todo_write: Option<bool>,
    /// A `webSearch` or memory setting is present (they register
    /// `web_search` and `save_memory` in ways not read here).
    pub opt_in_other: bool,
    /// MCP servers with `trust: true`.
    pub trusted_servers: Vec<String>,
    /// Every list entry that is not a string (Qwen's rule parser would
    /// fail on it), with the list's path.
    pub non_strings: Vec<(String, Range<usize>)>,
    /// Whether a v1 flat key was found (Qwen migrates the file).
    pub v1_keys: Vec<(String, Range<usize>)>,
}

fn member<'a>(members: &'a [Member], key: &str) -> Option<&'a Member> {
    // JSON.parse keeps the last of duplicate keys.
    members.iter().rev().find(|m| m.key == key)
}

fn strings(node: &Node, path: &str, non: &mut Vec<(String, Range<usize>)>) -> Vec<Entry> {
    match &node.value {
        Value::Array(items) => items
            .iter()
            .filter_map(|i| match &i.value {
                Value::String(s) => Some(Entry {
                    text: s.clone(),
                    range: i.range.clone(),
                }),
                _ => {
                    non.push((path.to_string(), i.range.clone()));
                    None
                }
            })
            .collect(),
        // A lone string is read as a one-item list when merged.
        Value::String(s) => vec![Entry {
            text: s.clone(),
            range: node.range.clone(),
        }],
        _ => {
            non.push((path.to_string(), node.range.clone()));
            Vec::new()
        }
    }
}

/// The v1 keys Qwen moves, and where they go (the ones the permission
/// logic reads).
const V1_MOVES: &[(&str, &str)] = &[
    ("allowedTools", "tools.allowed"),
    ("excludeTools", "tools.exclude"),
    ("coreTools", "tools.core"),
    ("approvalMode", "tools.approvalMode"),
    ("folderTrust", "security.folderTrust.enabled"),
];

/// Reads one settings file's text.
pub fn read(text: &str) -> SettingsFile {
    let stripped = crate::syntax::strip::strip_json_comments(text);
    let out = crate::syntax::json::parse(&stripped);
    let mut f = SettingsFile::default();
    if let Some(e) = out.errors.first() {
        f.error = Some((e.range.clone(), e.message.clone()));
        return f;
    }
    let Some(root) = out.root else {
        f.error = Some((0..0, "the file is empty".into()));
        return f;
    };
    f.parsed = true;
    let Some(top) = root.value.as_object() else {
        return f;
    };
    let mut non = Vec::new();
    if let Some(p) = member(top, "permissions").and_then(|m| m.value.value.as_object()) {
        for (key, list) in [
            ("allow", &mut f.allow),
            ("ask", &mut f.ask),
            ("deny", &mut f.deny),
        ] {
            if let Some(m) = member(p, key) {
                *list = strings(&m.value, &format!("permissions.{key}"), &mut non);
            }
        }
    }
    let tools = member(top, "tools").and_then(|m| m.value.value.as_object());
    let tool_key = |k: &str| tools.and_then(|t| member(t, k)).map(|m| &m.value);
    let v1 = |k: &str| member(top, k).map(|m| &m.value);
    for (from, _) in V1_MOVES {
        if let Some(m) = member(top, from) {
            f.v1_keys.push((from.to_string(), m.key_range.clone()));
        }
    }
    // A v1 key is migrated only where the v2 key is not already set.
    let pick = |v2: &str, v1k: &str| tool_key(v2).or_else(|| v1(v1k));
    if let Some(n) = pick("allowed", "allowedTools") {
        f.tools_allowed = Some(strings(n, "tools.allowed", &mut non));
    }
    if let Some(n) = pick("exclude", "excludeTools") {
        f.tools_exclude = strings(n, "tools.exclude", &mut non);
    }
    if let Some(n) = pick("core", "coreTools") {
        f.tools_core = Some(strings(n, "tools.core", &mut non));
    }
    let enabled = |k: &str| {
        tool_key(k)
            .and_then(|n| n.value.as_object())
            .and_then(|o| member(o, "enabled"))
            .and_then(|m| match m.value.value {
                Value::Bool(b) => Some(b),
                _ => None,
            })
    };
    f.list_directory = enabled("listDirectory");
    f.todo_write = enabled("todoWrite");
    f.opt_in_other = top.iter().any(|m| {
        let k = m.key.to_lowercase();
        k.contains("websearch") || k.contains("memory")
    }) || tools.is_some_and(|t| {
        t.iter().any(|m| {
            let k = m.key.to_lowercase();
            k.contains("websearch") || k.contains("memory")
        })
    });
    if let Some(n) = tool_key("disabled") {
        f.tools_disabled = strings(n, "tools.disabled", &mut non);
    }
    if let Some(n) = pick("approvalMode", "approvalMode")
        && let Value::String(s) = &n.value
    {
        f.approval_mode = Some(Entry {
            text: s.clone(),
            range: n.range.clone(),
        });
    }
    let trust = member(top, "security")
        .and_then(|m| m.value.value.as_object())
        .and_then(|s| member(s, "folderTrust"))
        .and_then(|m| m.value.value.as_object())
        .and_then(|t| member(t, "enabled"))
        .map(|m| &m.value)
        .or_else(|| v1("folderTrust"));
    if let Some(Node {
        value: Value::Bool(b),
        ..
    }) = trust
    {
        f.folder_trust = Some(*b);
    }
    if let Some(servers) = member(top, "mcpServers").and_then(|m| m.value.value.as_object()) {
        for s in servers {
            let trusted = s
                .value
                .value
                .as_object()
                .and_then(|o| member(o, "trust"))
                .is_some_and(|t| t.value.value == Value::Bool(true));
            if trusted {
                f.trusted_servers.push(s.key.clone());
            }
        }
    }
    f.non_strings = non;
    f
}

/// The approval modes Qwen accepts in `tools.approvalMode`, by spelling.
pub fn approval_mode(s: &str) -> Option<Mode> {
    match s {
        "default" => Some(Mode::Default),
        "plan" => Some(Mode::Plan),
        "auto-edit" | "auto_edit" | "autoedit" | "autoEdit" => Some(Mode::AutoEdit),
        "yolo" => Some(Mode::Yolo),
        "auto" => Some(Mode::Auto),
        _ => None,
    }
}

/// An approval mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Default,
    Plan,
    AutoEdit,
    Yolo,
    /// The classifier mode: every undecided call goes to an LLM.
    Auto,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::Plan => "plan",
            Mode::AutoEdit => "auto-edit",
            Mode::Yolo => "yolo",
            Mode::Auto => "auto",
        }
    }
}

/// What a rule's parenthesised part is matched as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Command,
    Path,
    Domain,
    Literal,
}

/// A permission rule as Qwen's parser reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// The text, trimmed.
    pub raw: String,
    /// The canonical tool name (`run_shell_command`, `read_file`, …).
    pub tool: String,
    pub specifier: Option<String>,
    pub kind: Option<Kind>,
    /// `key:value` matchers of a literal rule (`Agent(model:x)`).
    pub params: Vec<(String, String)>,
    /// Unbalanced parentheses: the rule is skipped.
    pub invalid: bool,
}

/// Tool names and their aliases, to the canonical name.
pub const ALIASES: &[(&str, &str)] = &[
    ("exec", "exec"),
    ("Exec", "exec"),
    ("ExecTool", "exec"),
    ("run_shell_command", "run_shell_command"),
    ("Shell", "run_shell_command"),
    ("ShellTool", "run_shell_command"),
    ("Bash", "run_shell_command"),
    ("edit", "edit"),
    ("Edit", "edit"),
    ("EditTool", "edit"),
    ("replace", "edit"),
    ("notebook_edit", "notebook_edit"),
    ("NotebookEdit", "notebook_edit"),
    ("NotebookEditTool", "notebook_edit"),
    ("write_file", "write_file"),
    ("WriteFile", "write_file"),
    ("WriteFileTool", "write_file"),
    ("Write", "write_file"),
    ("read_file", "read_file"),
    ("ReadFile", "read_file"),
    ("ReadFileTool", "read_file"),
    ("Read", "read_file"),
    ("zoom_image", "zoom_image"),
    ("ZoomImage", "zoom_image"),
    ("ZoomImageTool", "zoom_image"),
    ("grep_search", "grep_search"),
    ("Grep", "grep_search"),
    ("GrepTool", "grep_search"),
    ("search_file_content", "grep_search"),
    ("SearchFiles", "grep_search"),
    ("glob", "glob"),
    ("Glob", "glob"),
    ("GlobTool", "glob"),
    ("FindFiles", "glob"),
    ("list_directory", "list_directory"),
    ("ListFiles", "list_directory"),
    ("ListFilesTool", "list_directory"),
    ("ReadFolder", "list_directory"),
    ("todo_write", "todo_write"),
    ("TodoList", "todo_write"),
    ("TodoWrite", "todo_write"),
    ("TodoWriteTool", "todo_write"),
    ("web_fetch", "web_fetch"),
    ("WebFetch", "web_fetch"),
    ("WebFetchTool", "web_fetch"),
    ("web_search", "web_search"),
    ("WebSearch", "web_search"),
    ("WebSearchTool", "web_search"),
    ("read_mcp_resource", "read_mcp_resource"),
    ("ReadMcpResource", "read_mcp_resource"),
    ("agent", "agent"),
    ("Agent", "agent"),
    ("AgentTool", "agent"),
    ("task", "agent"),
    ("Task", "agent"),
    ("TaskTool", "agent"),
    ("skill", "skill"),
    ("Skill", "skill"),
    ("SkillTool", "skill"),
    ("exit_plan_mode", "exit_plan_mode"),
    ("ExitPlanMode", "exit_plan_mode"),
    ("enter_plan_mode", "enter_plan_mode"),
    ("EnterPlanMode", "enter_plan_mode"),
    ("lsp", "lsp"),
    ("Lsp", "lsp"),
    ("monitor", "monitor"),
    ("Monitor", "monitor"),
    ("save_memory", "save_memory"),
    ("SaveMemory", "save_memory"),
    ("ask_user_question", "ask_user_question"),
    ("AskUserQuestion", "ask_user_question"),
];

/// The canonical name of a tool name or alias (unknown names as they are).
pub fn canonical(name: &str) -> &str {
    ALIASES
        .iter()
        .find(|(a, _)| *a == name)
        .map(|(_, c)| *c)
        .unwrap_or(name)
}

/// Is `name` a tool name or alias Qwen knows?
pub fn known_tool(name: &str) -> bool {
    name.starts_with("mcp__") || ALIASES.iter().any(|(a, _)| *a == name)
}

pub const READ_TOOLS: &[&str] = &[
    "read_file",
    "zoom_image",
    "grep_search",
    "glob",
    "list_directory",
];
pub const EDIT_TOOLS: &[&str] = &["edit", "write_file", "notebook_edit"];

fn kind_of(tool: &str) -> Kind {
    if tool == "run_shell_command" || tool == "monitor" {
        Kind::Command
    } else if READ_TOOLS.contains(&tool) || EDIT_TOOLS.contains(&tool) {
        Kind::Path
    } else if tool == "web_fetch" {
        Kind::Domain
    } else {
        Kind::Literal
    }
}

fn is_param_key(k: &str) -> bool {
    let mut c = k.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// JavaScript's `String.prototype.trim`.
pub use crate::syntax::frontmatter::js_trim;

/// Reads a rule's text as Qwen's `parseRule` does.
pub fn parse_rule(raw: &str) -> Rule {
    let trimmed = js_trim(raw).to_string();
    let Some(open) = trimmed.find('(') else {
        return Rule {
            tool: canonical(&trimmed).to_string(),
            raw: trimmed,
            specifier: None,
            kind: None,
            params: Vec::new(),
            invalid: false,
        };
    };
    let tool = canonical(js_trim(&trimmed[..open])).to_string();
    if !trimmed.ends_with(')') {
        return Rule {
            raw: trimmed,
            tool,
            specifier: None,
            kind: None,
            params: Vec::new(),
            invalid: true,
        };
    }
    let inner = &trimmed[open + 1..trimmed.len() - 1];
    let kind = (!inner.is_empty()).then(|| kind_of(&tool));
    let spec = if kind == Some(Kind::Command) && inner.contains(":*") {
        inner.replace(":*", " *")
    } else {
        inner.to_string()
    };
    let mut params = Vec::new();
    let mut plain_specifier = None;
    if kind == Some(Kind::Literal) && !tool.starts_with("mcp__") && spec.contains(':') {
        let mut plain = Vec::new();
        for part in spec.split(',').map(js_trim) {
            if let Some(c) = part.find(':').filter(|&c| c > 0) {
                let key = js_trim(&part[..c]);
                if !key.is_empty() && is_param_key(key) {
                    params.push((key.to_string(), js_trim(&part[c + 1..]).to_string()));
                    continue;
                }
            }
            plain.push(part);
        }
        if !params.is_empty() {
            let joined = plain.join(",");
            let j = js_trim(&joined);
            plain_specifier = Some((!j.is_empty()).then(|| j.to_string()));
        }
    }
    let specifier = match plain_specifier {
        _ if spec.is_empty() => None,
        Some(plain) => plain,
        None => Some(spec),
    };
    Rule {
        raw: trimmed,
        tool,
        specifier,
        kind,
        params,
        invalid: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_read_as_qwen_reads_them() {
        let r = parse_rule(" Bash(npm run test:*) ");
        assert_eq!(r.tool, "run_shell_command");
        assert_eq!(r.specifier.as_deref(), Some("npm run test *"));
        assert!(parse_rule("Bash(npm run build").invalid);
        let r = parse_rule("Bash()");
        assert_eq!((r.specifier, r.kind), (None, None));
        assert_eq!(parse_rule("bash(npm test)").tool, "bash");
        let r = parse_rule("Agent(model:qwen, x)");
        assert_eq!(r.params, vec![("model".into(), "qwen".into())]);
        assert_eq!(r.specifier.as_deref(), Some("x"));
        assert_eq!(parse_rule("Read(//etc/**)").kind, Some(Kind::Path));
    }

    #[test]
    fn settings_keep_v1_keys_and_comments() {
        let f =
            read("{\n // c\n \"excludeTools\": [\"write_file\"], \"approvalMode\": \"auto-edit\"}");
        assert!(f.parsed);
        assert_eq!(f.tools_exclude[0].text, "write_file");
        assert_eq!(f.approval_mode.unwrap().text, "auto-edit");
        assert!(!read("{\"a\": [1,],}").parsed);
    }
}
