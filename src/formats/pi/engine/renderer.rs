//! The agent-facing texts from 26.0 on: one renderer over a payload of
//! facts (the surface, the tool, the agent, the flagged operand, the rule)
//! that identifies the call without echoing its command — read from the
//! 26.3.1 sources (`presentation/agent-renderer.ts` and the payload
//! builders) and checked against them by the drift cases and the 26.3.1
//! differential test. 20.7.3's sentences are in `messages`.

use super::check::{CheckResult, CommandContext, ToolKind, tool_kind};
use super::messages::{Disclosure, Subject, TAG};

/// Which release's texts a policy renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Texts {
    /// 20.7.3's sentences (`Current agent is not permitted to …`).
    #[default]
    Sentences,
    /// 26.0's renderer (`Denied by policy: 'bash' (rule 'rm *').`).
    Renderer,
}

/// The longest flagged operand the agent is shown (`fieldMaxWidth` of the
/// default render budget), in UTF-16 code units as the runtime counts.
const FIELD_MAX_WIDTH: usize = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bash,
    Mcp,
    Tool,
    Path,
    ExternalDirectory,
    BashExternalDirectory,
    Skill,
    SkillRead,
}

/// The facts the renderer reads (`PromptPayload`, the parts it uses).
struct Payload<'a> {
    kind: Kind,
    surface: &'a str,
    tool_name: Option<&'a str>,
    invoked: Option<&'a str>,
    value: &'a str,
    matched: Option<&'a str>,
    context: Option<CommandContext>,
    agent: Option<&'a str>,
    resolves_to: Option<&'a str>,
    cwd: Option<&'a str>,
    external: &'a [Disclosure],
    read_path: Option<&'a str>,
}

impl<'a> Payload<'a> {
    fn of(
        gate: &'a str,
        subject: &'a Subject,
        check: &'a CheckResult,
        agent: Option<&'a str>,
        tool: &'a str,
    ) -> Payload<'a> {
        let mut p = Payload {
            kind: Kind::Path,
            surface: gate,
            tool_name: Some(tool),
            invoked: None,
            value: "",
            matched: check.matched_pattern.as_deref(),
            context: None,
            agent,
            resolves_to: None,
            cwd: None,
            external: &[],
            read_path: None,
        };
        match subject {
            Subject::Tool { check } => {
                let bash = tool_kind(&check.tool_name) == ToolKind::Bash;
                let mcp = check.source == super::check::CheckSource::Mcp
                    || tool_kind(&check.tool_name) == ToolKind::Mcp;
                let mcp = mcp && check.target.is_some();
                p.kind = if bash {
                    Kind::Bash
                } else if mcp {
                    Kind::Mcp
                } else {
                    Kind::Tool
                };
                p.tool_name = Some(&check.tool_name);
                p.invoked = (tool != check.tool_name).then_some(tool);
                p.value = if bash {
                    check.command.as_deref().unwrap_or("")
                } else if mcp {
                    check.target.as_deref().unwrap_or("")
                } else {
                    &check.tool_name
                };
                p.context = check.command_context;
            }
            Subject::Path { path, .. } | Subject::BashPath { path, .. } => {
                p.surface = "path";
                p.value = path;
            }
            Subject::ExternalDirectory {
                path,
                resolved,
                cwd,
                ..
            } => {
                p.kind = Kind::ExternalDirectory;
                p.surface = "external_directory";
                p.value = path;
                p.resolves_to = resolved.as_deref();
                p.cwd = Some(cwd);
            }
            Subject::BashExternalDirectory {
                command,
                paths,
                cwd,
            } => {
                p.kind = Kind::BashExternalDirectory;
                p.surface = "external_directory";
                p.value = command;
                p.cwd = Some(cwd);
                p.external = paths;
            }
            Subject::SkillInput { skill } | Subject::SkillRead { skill, .. } => {
                p.kind = Kind::Skill;
                p.surface = "skill";
                p.tool_name = None;
                p.value = skill;
                p.matched = None;
                if let Subject::SkillRead { read_path, .. } = subject {
                    p.kind = Kind::SkillRead;
                    p.read_path = Some(read_path);
                }
            }
        }
        p
    }

    /// Surface, call word, invoked name, tool, agent, flagged operand, rule.
    fn identification(&self, call_word: &str) -> String {
        let tool = match self.tool_name {
            Some(t) if t != self.surface => format!("for tool '{t}'"),
            _ => String::new(),
        };
        [
            format!("'{}'", self.surface),
            call_word.to_string(),
            self.invoked
                .map(|i| format!("(invoked as '{i}')"))
                .unwrap_or_default(),
            tool,
            self.agent
                .filter(|a| !a.is_empty())
                .map(|a| format!("for agent '{a}'"))
                .unwrap_or_default(),
            self.flagged(),
            self.rule(),
        ]
        .into_iter()
        .filter(|c| !c.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
    }

    /// Which of the call's operands the rule fired on; never a command.
    fn flagged(&self) -> String {
        let (label, elements): (&str, Vec<&str>) = match self.kind {
            Kind::Bash => return String::new(),
            Kind::BashExternalDirectory => (
                "path",
                self.external.iter().map(|d| d.path.as_str()).collect(),
            ),
            kind => {
                let label = match kind {
                    Kind::Mcp => "target",
                    Kind::Tool => "tool",
                    Kind::Skill | Kind::SkillRead => "skill",
                    _ => "path",
                };
                let v = if self.value.is_empty() {
                    vec![]
                } else {
                    vec![self.value]
                };
                (label, v)
            }
        };
        let elements: Vec<&str> = elements
            .into_iter()
            .filter(|e| Some(*e) != self.tool_name)
            .collect();
        if elements.is_empty() {
            return String::new();
        }
        let noun = if elements.len() == 1 {
            label.to_string()
        } else {
            format!("{label}s")
        };
        let list = elements
            .iter()
            .map(|e| format!("'{}'{}", cap(e), self.alias(e)))
            .collect::<Vec<_>>()
            .join(", ");
        format!("for {noun} {list}")
    }

    fn alias(&self, element: &str) -> String {
        self.resolves_to
            .or_else(|| {
                self.external
                    .iter()
                    .find(|d| d.path == element)
                    .and_then(|d| d.resolved.as_deref())
            })
            .filter(|r| !r.is_empty())
            .map(|r| format!(" (resolves to '{r}')"))
            .unwrap_or_default()
    }

    fn rule(&self) -> String {
        let mut parts = Vec::new();
        if let Some(p) = self.matched {
            parts.push(format!("rule '{p}'"));
        }
        if let Some(c) = self.context {
            parts.push(format!("inside {}", c.label()));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("({})", parts.join(", "))
        }
    }

    fn boundary(&self) -> String {
        self.cwd
            .filter(|c| !c.is_empty())
            .map(|c| format!(": outside working directory '{c}'"))
            .unwrap_or_default()
    }

    fn provenance(&self) -> String {
        self.read_path
            .filter(|r| !r.is_empty())
            .map(|r| format!(", reached via '{r}'"))
            .unwrap_or_default()
    }
}

/// Shortens an operand to the budget, counting as JavaScript does.
fn cap(text: &str) -> String {
    let mut units = 0;
    for (i, c) in text.char_indices() {
        units += c.len_utf16();
        if units > FIELD_MAX_WIDTH {
            return format!("{}\u{2026}", &text[..i]);
        }
    }
    text.to_string()
}

fn reason_clause(reason: Option<&str>) -> String {
    match reason {
        Some(r) if !r.is_empty() => format!(" Reason: {r}."),
        _ => String::new(),
    }
}

/// A gate's deny as the agent reads it (`renderPolicyDenial`).
pub fn policy_denial(
    gate: &str,
    subject: &Subject,
    check: &CheckResult,
    agent: Option<&str>,
    tool: &str,
) -> String {
    let p = Payload::of(gate, subject, check, agent, tool);
    format!(
        "{TAG} Denied by policy: {}{}{}.{}",
        p.identification(""),
        p.boundary(),
        p.provenance(),
        reason_clause(check.reason.as_deref())
    )
}

/// An ask nobody can answer (`renderUnavailableDenial`, no reason given).
pub fn unavailable_denial(
    gate: &str,
    subject: &Subject,
    check: &CheckResult,
    agent: Option<&str>,
    tool: &str,
) -> String {
    let p = Payload::of(gate, subject, check, agent, tool);
    format!(
        "{TAG} This {} requires approval, but no interactive UI is available.",
        p.identification("call")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::pi::engine::check::CheckSource;
    use crate::formats::pi::engine::rules::RuleOrigin;
    use crate::formats::pi::model::State;

    fn check(tool: &str, state: State, pattern: Option<&str>) -> CheckResult {
        CheckResult {
            tool_name: tool.into(),
            state,
            reason: None,
            matched_pattern: pattern.map(String::from),
            source: CheckSource::Tool,
            origin: RuleOrigin::Global,
            command: None,
            command_context: None,
            target: None,
            rule: None,
            executed_unit: None,
        }
    }

    /// One text per kind of payload, in the shapes of the 26.3.1 sources;
    /// the drift cases and the 26.3.1 differential test hold them to what
    /// the runtime renders.
    #[test]
    fn texts_as_26_3_1_renders_them() {
        let mut bash = check("bash", State::Deny, Some("rm *"));
        bash.source = CheckSource::Bash;
        bash.command = Some("rm -rf x".into());
        bash.reason = Some("no deletes".into());
        let s = Subject::Tool {
            check: bash.clone(),
        };
        assert_eq!(
            policy_denial("bash", &s, &bash, None, "bash"),
            "[pi-permission-system] Denied by policy: 'bash' (rule 'rm *'). Reason: no deletes."
        );
        bash.command_context = Some(CommandContext::Subshell);
        let s = Subject::Tool {
            check: bash.clone(),
        };
        assert_eq!(
            unavailable_denial("bash", &s, &bash, Some("ops"), "bash"),
            "[pi-permission-system] This 'bash' call for agent 'ops' (rule 'rm *', inside subshell) requires approval, but no interactive UI is available."
        );
        let ext = check("read", State::Ask, Some("*"));
        let s = Subject::ExternalDirectory {
            tool: "read".into(),
            path: "/etc/hosts".into(),
            resolved: None,
            cwd: "/workspace/project".into(),
        };
        assert_eq!(
            policy_denial("external_directory", &s, &ext, None, "read"),
            "[pi-permission-system] Denied by policy: 'external_directory' for tool 'read' for path '/etc/hosts' (rule '*'): outside working directory '/workspace/project'."
        );
        let s = Subject::BashExternalDirectory {
            command: "cat /etc/a /etc/b".into(),
            paths: vec![
                Disclosure {
                    path: "/etc/a".into(),
                    resolved: None,
                },
                Disclosure {
                    path: "/etc/b".into(),
                    resolved: Some("/private/etc/b".into()),
                },
            ],
            cwd: "/w".into(),
        };
        assert_eq!(
            unavailable_denial("external_directory", &s, &ext, None, "bash"),
            "[pi-permission-system] This 'external_directory' call for tool 'bash' for paths '/etc/a', '/etc/b' (resolves to '/private/etc/b') (rule '*') requires approval, but no interactive UI is available."
        );
        let tool = check("write", State::Deny, Some("*"));
        let s = Subject::Tool {
            check: tool.clone(),
        };
        assert_eq!(
            policy_denial("write", &s, &tool, None, "write"),
            "[pi-permission-system] Denied by policy: 'write' (rule '*')."
        );
        let s = Subject::SkillRead {
            skill: "deploy".into(),
            read_path: "/s/deploy/SKILL.md".into(),
        };
        assert_eq!(
            policy_denial("skill", &s, &tool, None, "read"),
            "[pi-permission-system] Denied by policy: 'skill' for skill 'deploy', reached via '/s/deploy/SKILL.md'."
        );
    }

    #[test]
    fn long_operands_are_capped_at_400_utf16_units() {
        let long = "é".repeat(401);
        assert_eq!(cap(&long).chars().count(), 401);
        assert!(cap(&long).ends_with('\u{2026}'));
        let astral = "😀".repeat(201);
        assert_eq!(cap(&astral), format!("{}\u{2026}", "😀".repeat(200)));
        assert_eq!(cap("short"), "short");
    }
}
