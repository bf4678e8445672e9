//! What Gemini CLI 0.61.0 reads: its tool names, decisions and approval
//! modes, one policy TOML file (`toml`), one settings file (`settings`),
//! and JavaScript regexes run the way the CLI runs them (`jsregex`).

pub mod jsregex;
pub mod settings;
pub mod toml_policy;

/// A rule's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    Allow,
    Deny,
    Ask,
}

impl Decision {
    pub fn parse(s: &str) -> Option<Decision> {
        match s {
            "allow" => Some(Decision::Allow),
            "deny" => Some(Decision::Deny),
            "ask_user" => Some(Decision::Ask),
            _ => None,
        }
    }

    /// The word the policy files use.
    pub fn name(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
            Decision::Ask => "ask_user",
        }
    }

    /// The verdict word of a simulation.
    pub fn verdict(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
            Decision::Ask => "ask",
        }
    }
}

/// An approval mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    Default,
    AutoEdit,
    Yolo,
    Plan,
}

impl Mode {
    /// The name in a policy file's `modes` list.
    pub fn rule_name(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AutoEdit => "autoEdit",
            Mode::Yolo => "yolo",
            Mode::Plan => "plan",
        }
    }

    /// The name `--approval-mode` takes.
    pub fn flag_name(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AutoEdit => "auto_edit",
            Mode::Yolo => "yolo",
            Mode::Plan => "plan",
        }
    }

    pub fn from_rule_name(s: &str) -> Option<Mode> {
        [Mode::Default, Mode::AutoEdit, Mode::Yolo, Mode::Plan]
            .into_iter()
            .find(|m| m.rule_name() == s)
    }

    pub fn from_flag(s: &str) -> Option<Mode> {
        [Mode::Default, Mode::AutoEdit, Mode::Yolo, Mode::Plan]
            .into_iter()
            .find(|m| m.flag_name() == s)
    }
}

/// The shell tool and the other name the policy engine reads as it.
pub const SHELL_TOOL: &str = "run_shell_command";
pub const SHELL_TOOL_NAMES: &[&str] = &["run_shell_command", "ShellTool"];

/// Every built-in tool name of 0.61.0 (`ALL_BUILTIN_TOOL_NAMES`): rule
/// tool names are measured against these.
pub const BUILTIN_TOOLS: &[&str] = &[
    "glob",
    "write_todos",
    "write_file",
    "google_web_search",
    "web_fetch",
    "replace",
    "run_shell_command",
    "grep_search",
    "read_many_files",
    "read_file",
    "list_directory",
    "activate_skill",
    "ask_user",
    "tracker_create_task",
    "tracker_update_task",
    "tracker_get_task",
    "tracker_list_tasks",
    "tracker_add_dependency",
    "tracker_visualize",
    "get_internal_docs",
    "enter_plan_mode",
    "exit_plan_mode",
    "update_topic",
    "complete_task",
    "invoke_agent",
    "read_mcp_resource",
    "list_mcp_resources",
];

/// Old names the engine still matches as the new one.
pub const LEGACY_ALIASES: &[(&str, &str)] = &[("search_file_content", "grep_search")];

/// The tools a session of this simulation decides (the ones a default
/// session registers).
pub const SIMULATED_TOOLS: &[&str] = &[
    "run_shell_command",
    "read_file",
    "write_file",
    "replace",
    "glob",
    "list_directory",
    "grep_search",
    "web_fetch",
    "google_web_search",
    "write_todos",
];

/// The names a rule or a call may use for `name` (`getToolAliases`).
pub fn aliases(name: &str) -> Vec<String> {
    let mut out = vec![name.to_string()];
    let canonical = LEGACY_ALIASES
        .iter()
        .find(|(old, _)| *old == name)
        .map(|(_, new)| *new)
        .unwrap_or(name);
    if !out.iter().any(|n| n == canonical) {
        out.push(canonical.to_string());
    }
    for (old, new) in LEGACY_ALIASES {
        if *new == canonical && !out.iter().any(|n| n == old) {
            out.push(old.to_string());
        }
    }
    out
}

/// `mcp_<server>_<tool>` split (the server has no `_`).
pub fn parse_mcp(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("mcp_")?;
    let i = rest.find('_')?;
    let (server, tool) = (&rest[..i], &rest[i + 1..]);
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

/// `formatMcpToolName`.
pub fn format_mcp(server: &str, tool: Option<&str>) -> String {
    match (server, tool) {
        ("*", None | Some("*")) => "mcp_*".into(),
        ("*", Some(t)) => format!("mcp_*_{t}"),
        (s, None | Some("*")) => format!("mcp_{s}_*"),
        (s, Some(t)) => format!("mcp_{s}_{t}"),
    }
}

fn slug(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
}

/// `isValidToolName(name, { allowWildcards: true })`.
pub fn is_valid_tool_name(name: &str) -> bool {
    if BUILTIN_TOOLS.contains(&name)
        || LEGACY_ALIASES.iter().any(|(o, _)| *o == name)
        || name.starts_with("discovered_tool_")
        || name == "*"
    {
        return true;
    }
    if let Some(rest) = name.strip_prefix("mcp_") {
        if name == "mcp_*" {
            return true;
        }
        if rest.starts_with('_') {
            return false;
        }
        return match parse_mcp(name) {
            Some((server, tool)) => {
                slug(server) && (tool == "*" || (!tool.chars().all(|c| c == '_') && slug(tool)))
            }
            None => false,
        };
    }
    false
}

/// Levenshtein distance (as `fast-levenshtein`: over UTF-16 units; the
/// names here are ASCII).
pub fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<u16> = a.encode_utf16().collect();
    let b: Vec<u16> = b.encode_utf16().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The built-in names nearest `name` (distance at most 3), for the CLI's
/// "Unrecognized tool name" warning and a did-you-mean.
pub fn suggestion(name: &str) -> Option<&'static str> {
    BUILTIN_TOOLS
        .iter()
        .map(|n| (levenshtein(name, n), *n))
        .filter(|(d, _)| *d <= 3)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// JavaScript's `String.prototype.trim` whitespace.
pub fn js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

pub use crate::syntax::frontmatter::js_trim;
