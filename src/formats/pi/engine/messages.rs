//! The agent-facing texts of spec §5, byte for byte.

use super::check::{CheckResult, ToolKind, tool_kind};

pub const TAG: &str = "[pi-permission-system]";

fn subject(agent: Option<&str>) -> String {
    match agent {
        Some(a) => format!("Agent '{a}'"),
        None => "Current agent".into(),
    }
}

fn resolves_to(resolved: Option<&str>) -> String {
    resolved
        .map(|r| format!(" (resolves to '{r}')"))
        .unwrap_or_default()
}

fn reason_suffix(reason: Option<&str>) -> String {
    match reason {
        Some(r) if !r.is_empty() => format!(" Reason: {r}."),
        _ => String::new(),
    }
}

fn is_mcp_check(check: &CheckResult) -> bool {
    check.source == super::check::CheckSource::Mcp || tool_kind(&check.tool_name) == ToolKind::Mcp
}

/// `(matched 'p', inside subshell)`, or empty.
pub fn match_qualifier(check: &CheckResult) -> String {
    let mut parts = Vec::new();
    if let Some(p) = check.matched_pattern.as_deref().filter(|p| !p.is_empty()) {
        parts.push(format!("matched '{p}'"));
    }
    if let Some(c) = check.command_context {
        parts.push(format!("inside {}", c.label()));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("({})", parts.join(", "))
    }
}

/// An external path and its canonical form when it differs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Disclosure {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
}

/// What a gate reports about, for its texts (`DenialContext`).
#[derive(Debug, Clone, PartialEq)]
pub enum Subject {
    Tool {
        check: CheckResult,
    },
    Path {
        tool: String,
        path: String,
    },
    ExternalDirectory {
        tool: String,
        path: String,
        resolved: Option<String>,
        cwd: String,
    },
    BashExternalDirectory {
        command: String,
        paths: Vec<Disclosure>,
        cwd: String,
    },
    BashPath {
        command: String,
        path: String,
    },
    SkillRead {
        skill: String,
        read_path: String,
    },
    SkillInput {
        skill: String,
    },
}

pub fn deny_message(s: &Subject, agent: Option<&str>) -> String {
    let body = match s {
        Subject::Tool { check } => {
            let mut parts = Vec::new();
            if let Some(a) = agent {
                parts.push(format!("Agent '{a}'"));
            }
            match (&check.target, is_mcp_check(check)) {
                (Some(t), true) if !t.is_empty() => {
                    parts.push(format!("is not permitted to run MCP target '{t}'"))
                }
                _ => parts.push(format!("is not permitted to run '{}'", check.tool_name)),
            }
            if let Some(c) = check.command.as_deref().filter(|c| !c.is_empty()) {
                parts.push(format!("command '{c}'"));
            }
            let q = match_qualifier(check);
            if !q.is_empty() {
                parts.push(q);
            }
            format!(
                "{}.{}",
                parts.join(" "),
                reason_suffix(check.reason.as_deref())
            )
        }
        Subject::Path { tool, path } => {
            format!(
                "{} is not permitted to access path '{path}' via tool '{tool}'.",
                subject(agent)
            )
        }
        Subject::ExternalDirectory {
            tool,
            path,
            resolved,
            cwd,
        } => format!(
            "{} is not permitted to run tool '{tool}' for path '{path}'{} outside working directory '{cwd}'.",
            subject(agent),
            resolves_to(resolved.as_deref())
        ),
        Subject::BashExternalDirectory {
            command,
            paths,
            cwd,
        } => format!(
            "{} is not permitted to run bash command '{command}' which references path(s) outside working directory '{cwd}': {}.",
            subject(agent),
            path_list(paths)
        ),
        Subject::BashPath { path, .. } => {
            format!(
                "{} is not permitted to access path '{path}' via tool 'bash'.",
                subject(agent)
            )
        }
        Subject::SkillRead { skill, read_path } => {
            format!(
                "{} is not permitted to access skill '{skill}' via '{read_path}'.",
                subject(agent)
            )
        }
        Subject::SkillInput { skill } => format!(
            "{} is not permitted to access skill '{skill}'.",
            subject(agent)
        ),
    };
    format!("{TAG} {body}")
}

/// What the agent receives when the user declines the prompt.
pub fn user_denied_message(s: &Subject, user_reason: Option<&str>) -> String {
    let r = reason_suffix(user_reason);
    let body = match s {
        Subject::Tool { check } => {
            let command = check.command.as_deref().filter(|c| !c.is_empty());
            match (&check.target, is_mcp_check(check)) {
                (Some(t), true) if !t.is_empty() => format!("User denied MCP target '{t}'.{r}"),
                _ if tool_kind(&check.tool_name) == ToolKind::Bash && command.is_some() => {
                    format!(
                        "User denied bash command '{}'.{r}",
                        command.unwrap_or_default()
                    )
                }
                _ => format!("User denied tool '{}'.{r}", check.tool_name),
            }
        }
        Subject::Path { path, .. } => format!("User denied access to path '{path}'.{r}"),
        Subject::ExternalDirectory {
            tool,
            path,
            resolved,
            ..
        } => format!(
            "User denied external directory access for tool '{tool}' path '{path}'{}.{r}",
            resolves_to(resolved.as_deref())
        ),
        Subject::BashExternalDirectory { command, .. } => {
            format!("User denied external directory access for bash command '{command}'.{r}")
        }
        Subject::BashPath { command, path } => {
            format!("User denied path access for bash command '{command}' (path '{path}').{r}")
        }
        Subject::SkillRead { skill, .. } | Subject::SkillInput { skill } => {
            format!("User denied access to skill '{skill}'.{r}")
        }
    };
    format!("{TAG} {body}")
}

pub fn no_ui_message(s: &Subject) -> String {
    let body = match s {
        Subject::Tool { check } => {
            let command = check.command.as_deref().filter(|c| !c.is_empty());
            if tool_kind(&check.tool_name) == ToolKind::Bash && command.is_some() {
                format!(
                    "Running bash command '{}' requires approval, but no interactive UI is available.",
                    command.unwrap_or_default()
                )
            } else if is_mcp_check(check) && check.target.as_deref().is_some_and(|t| !t.is_empty())
            {
                "Using tool 'mcp' requires approval, but no interactive UI is available."
                    .to_string()
            } else {
                format!(
                    "Using tool '{}' requires approval, but no interactive UI is available.",
                    check.tool_name
                )
            }
        }
        Subject::Path { path, .. } => {
            format!("Accessing '{path}' requires approval, but no interactive UI is available.")
        }
        Subject::ExternalDirectory { path, resolved, .. } => format!(
            "Accessing '{path}'{} outside the working directory requires approval, but no interactive UI is available.",
            resolves_to(resolved.as_deref())
        ),
        Subject::BashExternalDirectory { command, .. } => format!(
            "Bash command '{command}' references path(s) outside the working directory and requires approval, but no interactive UI is available."
        ),
        Subject::BashPath { command, path } => format!(
            "Bash command '{command}' accesses path '{path}' which requires approval, but no interactive UI is available."
        ),
        Subject::SkillRead { skill, .. } | Subject::SkillInput { skill } => {
            format!(
                "Accessing skill '{skill}' requires approval, but no interactive UI is available."
            )
        }
    };
    format!("{TAG} {body}")
}

fn path_list(paths: &[Disclosure]) -> String {
    paths
        .iter()
        .map(|d| format!("{}{}", d.path, resolves_to(d.resolved.as_deref())))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The prompt the user sees (tool prompts without the input preview).
pub fn prompt(s: &Subject, agent: Option<&str>, tool: &str, full_command: Option<&str>) -> String {
    let subj = subject(agent);
    match s {
        Subject::Tool { check } => {
            if tool_kind(&check.tool_name) == ToolKind::Bash {
                let sub = check.command.clone().unwrap_or_default();
                let q = match_qualifier(check);
                let qi = if q.is_empty() {
                    String::new()
                } else {
                    format!(" {q}")
                };
                let full = match full_command {
                    Some(f) if !f.is_empty() && f != sub => format!(" (full command: '{f}')"),
                    _ => String::new(),
                };
                return format!(
                    "{subj} requested bash command '{sub}'{qi}{full}. Allow this command?"
                );
            }
            let pattern = check
                .matched_pattern
                .as_deref()
                .filter(|p| !p.is_empty())
                .map(|p| format!(" (matched '{p}')"))
                .unwrap_or_default();
            match (&check.target, is_mcp_check(check)) {
                (Some(t), true) if !t.is_empty() => {
                    format!("{subj} requested MCP target '{t}'{pattern}. Allow this call?")
                }
                _ => format!(
                    "{subj} requested tool '{}'{pattern}. Allow this call?",
                    check.tool_name
                ),
            }
        }
        Subject::Path { path, .. } | Subject::BashPath { path, .. } => {
            format!("{subj} requested tool '{tool}' for path '{path}'. Allow this path access?")
        }
        Subject::ExternalDirectory {
            tool,
            path,
            resolved,
            cwd,
        } => format!(
            "{subj} requested tool '{tool}' for path '{path}'{} outside working directory '{cwd}'. Allow this external directory access?",
            resolves_to(resolved.as_deref())
        ),
        Subject::BashExternalDirectory {
            command,
            paths,
            cwd,
        } => format!(
            "{subj} requested bash command '{command}' which references path(s) outside working directory '{cwd}': {}. Allow this external directory access?",
            path_list(paths)
        ),
        Subject::SkillRead { skill, .. } | Subject::SkillInput { skill } => {
            format!("{subj} requested skill '{skill}'. Allow loading this skill?")
        }
    }
}

/// The startup warning for a permissive `*` without a bash policy.
pub const PERMISSIVE_BASH_WARNING: &str = "Permission config sets a permissive top-level '*': 'allow' with no 'bash' '*' policy, so bash commands silently inherit 'allow'. Set an explicit 'bash' policy (e.g. \"bash\": { \"*\": \"ask\" }) to gate bash commands.";
