//! One permission check (`PermissionManager.check`): normalise the tool input
//! into a surface and candidate values, evaluate, and describe the result.

use super::js::js_trim;
use super::mcp::mcp_targets;
use super::rules::{Layer, Rule, RuleOrigin, RuleSet, RuleSource, is_path_surface};
use crate::formats::pi::model::State;
use serde_json::Value;

/// What kind of tool a name is (`classifyToolKind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    Bash,
    Mcp,
    Skill,
    /// read, write, edit, find, grep, ls.
    Path,
    Extension,
}

pub fn tool_kind(name: &str) -> ToolKind {
    match js_trim(name) {
        "bash" => ToolKind::Bash,
        "mcp" => ToolKind::Mcp,
        "skill" => ToolKind::Skill,
        "read" | "write" | "edit" | "find" | "grep" | "ls" => ToolKind::Path,
        _ => ToolKind::Extension,
    }
}

/// Where a check's answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckSource {
    Session,
    Special,
    Mcp,
    Default,
    Skill,
    Bash,
    Tool,
}

/// The nesting of a bash unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandContext {
    CommandSubstitution,
    ProcessSubstitution,
    Subshell,
}

impl CommandContext {
    pub fn label(self) -> &'static str {
        match self {
            CommandContext::CommandSubstitution => "command substitution",
            CommandContext::ProcessSubstitution => "process substitution",
            CommandContext::Subshell => "subshell",
        }
    }
}

/// `PermissionCheckResult`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CheckResult {
    pub tool_name: String,
    pub state: State,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_pattern: Option<String>,
    pub source: CheckSource,
    pub origin: RuleOrigin,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command_context: Option<CommandContext>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The deciding rule (absent for synthetic results such as wrapper floors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<DecidingRule>,
    /// What a wrapper unit runs (`executedUnit`, display only; 26.3.1).
    #[serde(rename = "executedUnit", skip_serializing_if = "Option::is_none")]
    pub executed_unit: Option<String>,
}

/// The rule that decided, with provenance.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DecidingRule {
    pub surface: String,
    pub pattern: String,
    pub layer: Layer,
    pub origin: RuleOrigin,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<RuleSource>,
}

impl DecidingRule {
    fn of(rule: &Rule) -> DecidingRule {
        DecidingRule {
            surface: rule.surface.clone(),
            pattern: rule.pattern.clone(),
            layer: rule.layer,
            origin: rule.origin,
            source: rule.source.clone(),
        }
    }
}

/// `stripBashCommentLines`: lines whose first non-space is `#` dropped, trimmed.
pub fn strip_bash_comment_lines(command: &str) -> String {
    let kept: Vec<&str> = command
        .split('\n')
        .filter(|line| !crate::syntax::frontmatter::js_trim_start(line).starts_with('#'))
        .collect();
    js_trim(&kept.join("\n")).to_string()
}

/// A check of `tool` with `input` (the manager's "tool" intent).
pub fn check_tool(
    rules: &RuleSet,
    tool: &str,
    input: &Value,
    mcp_servers: &[String],
) -> CheckResult {
    check_tool_as(rules, tool, input, mcp_servers, false)
}

/// [`check_tool`] as a version reads MCP calls: with `mcp_last_match`
/// (33.0 on, documented) a prefix-named tool derives the longest configured
/// server first and the last rule matching any target decides, where
/// before the first target with a rule of its own did.
pub fn check_tool_as(
    rules: &RuleSet,
    tool: &str,
    input: &Value,
    mcp_servers: &[String],
    mcp_last_match: bool,
) -> CheckResult {
    let tool_name = js_trim(tool).to_string();
    let record = input.as_object();
    let get = |k: &str| record.and_then(|r| r.get(k));
    let (surface, values, command, target) = match tool_kind(&tool_name) {
        ToolKind::Skill => {
            let v = match get("name") {
                Some(Value::String(s)) => s.clone(),
                _ => "*".into(),
            };
            ("skill".to_string(), vec![v], None, None)
        }
        ToolKind::Bash => {
            let command = match get("command") {
                Some(Value::String(s)) => s.clone(),
                _ => String::new(),
            };
            let stripped = strip_bash_comment_lines(&command);
            let value = if stripped.is_empty() {
                command.clone()
            } else {
                stripped
            };
            ("bash".to_string(), vec![value], Some(command), None)
        }
        ToolKind::Mcp => {
            let mut targets = mcp_targets(input, mcp_servers, mcp_last_match);
            targets.push("mcp".into());
            let first = targets[0].clone();
            ("mcp".to_string(), targets, None, Some(first))
        }
        ToolKind::Path | ToolKind::Extension => {
            (tool_name.clone(), vec!["*".to_string()], None, None)
        }
    };
    let any_value = mcp_last_match && surface == "mcp";
    build_result(
        rules,
        &surface,
        &values,
        (&tool_name, tool),
        (command, target),
        any_value,
    )
}

/// A check of one bash command string (what `check_tool("bash", {command})` does).
pub fn check_bash_command(rules: &RuleSet, command: &str) -> CheckResult {
    let stripped = strip_bash_comment_lines(command);
    let value = if stripped.is_empty() {
        command.to_string()
    } else {
        stripped
    };
    build_result(
        rules,
        "bash",
        &[value],
        ("bash", "bash"),
        (Some(command.to_string()), None),
        false,
    )
}

/// A bash command unit matched as typed and in its absolute spelling (40.0,
/// documented): the last rule matching either text decides.
pub fn check_bash_spellings(rules: &RuleSet, command: &str, spelled: &str) -> CheckResult {
    let typed = strip_bash_comment_lines(command);
    let typed = if typed.is_empty() {
        command.to_string()
    } else {
        typed
    };
    build_result(
        rules,
        "bash",
        &[typed, spelled.to_string()],
        ("bash", "bash"),
        (Some(command.to_string()), None),
        true,
    )
}

/// A check of path values on a surface (the manager's "path-values" intent).
pub fn check_path_values(rules: &RuleSet, surface: &str, values: &[String]) -> CheckResult {
    let values: Vec<String> = if values.is_empty() {
        vec!["*".into()]
    } else {
        values.to_vec()
    };
    build_result(
        rules,
        surface,
        &values,
        (surface, surface),
        (None, None),
        false,
    )
}

/// `names`: the normalized tool and the tool as called; `shown`: the
/// command and target the result carries; `any_value`: the last rule
/// matching any value decides (else the first value with a rule of its own).
fn build_result(
    rules: &RuleSet,
    surface: &str,
    values: &[String],
    (normalized_tool, tool_name): (&str, &str),
    (command, target): (Option<String>, Option<String>),
    any_value: bool,
) -> CheckResult {
    let verdict = if any_value || is_path_surface(surface) {
        rules.evaluate_any_value(surface, values)
    } else {
        rules.evaluate_first(surface, values)
    };
    let Some((rule, value)) = verdict else {
        // Unreachable with the default rule in place; the runtime answers ask.
        return CheckResult {
            tool_name: tool_name.to_string(),
            state: State::Ask,
            reason: None,
            matched_pattern: None,
            source: CheckSource::Default,
            origin: RuleOrigin::Builtin,
            command,
            command_context: None,
            target,
            rule: None,
            executed_unit: None,
        };
    };
    let target = if tool_kind(surface) == ToolKind::Mcp {
        Some(value)
    } else {
        target
    };
    CheckResult {
        tool_name: tool_name.to_string(),
        state: rule.action,
        reason: rule.reason.clone(),
        matched_pattern: matches!(rule.layer, Layer::Config | Layer::Session)
            .then(|| rule.pattern.clone()),
        source: derive_source(rule, normalized_tool),
        origin: rule.origin,
        command,
        command_context: None,
        target,
        rule: Some(DecidingRule::of(rule)),
        executed_unit: None,
    }
}

fn derive_source(rule: &Rule, tool: &str) -> CheckSource {
    if rule.layer == Layer::Session {
        return CheckSource::Session;
    }
    if tool == "external_directory" || tool == "path" || super::rules::is_directional_surface(tool)
    {
        return CheckSource::Special;
    }
    let default = rule.layer == Layer::Default;
    match tool_kind(tool) {
        ToolKind::Mcp if default => CheckSource::Default,
        ToolKind::Mcp => CheckSource::Mcp,
        ToolKind::Skill => CheckSource::Skill,
        ToolKind::Bash => CheckSource::Bash,
        ToolKind::Path => CheckSource::Tool,
        ToolKind::Extension if default => CheckSource::Default,
        ToolKind::Extension => CheckSource::Tool,
    }
}
