//! The reports of `simulate` and the effective policy for OpenCode.

use crate::contract::Context;
use crate::contract::report::{
    DecidingRule, EffectivePolicyReport, EffectiveRule, FileStatus, RulePlace, SCHEMA_VERSION,
    SimulationReport,
};
use crate::contract::{CallRequest, Simulator};
use crate::formats::opencode::VERSION;
use crate::formats::opencode::engine::decide::{self, Decision};
use crate::formats::opencode::engine::policy::{Layer, Policy, Rule};
use crate::formats::opencode::model::config::action_str;
use serde_json::{Map, Value, json};

/// A session's merged config, with the agent's rule list, ready to decide
/// calls.
pub struct OpenCodeSimulator {
    pub policy: Policy,
    pub agent: String,
    pub rules: Vec<Rule>,
    /// The agent asked for does not exist.
    pub unknown_agent: bool,
    /// When no agent was asked for: the other agents the session's files
    /// give rules of their own, with the file of each (the answer is the
    /// default agent's, which a user who wrote one may not expect).
    pub others: Vec<(String, std::path::PathBuf)>,
}

impl OpenCodeSimulator {
    pub fn load(ctx: &Context<'_>) -> OpenCodeSimulator {
        let policy = Policy::load(ctx);
        Self::for_policy(policy, ctx.options.agent.as_deref())
    }

    pub fn for_policy(policy: Policy, agent: Option<&str>) -> OpenCodeSimulator {
        let asked = agent.is_some();
        let agent = policy.agent_name(agent);
        let unknown_agent = !policy.has_agent(&agent);
        let rules = policy.rules(&agent);
        let mut others: Vec<(String, std::path::PathBuf)> = Vec::new();
        if !asked {
            for f in &policy.files {
                for b in &f.read.agents {
                    if b.name != agent
                        && !b.permission.entries.is_empty()
                        && policy.has_agent(&b.name)
                        && !others.iter().any(|(n, _)| *n == b.name)
                    {
                        others.push((b.name.clone(), f.path.clone()));
                    }
                }
            }
        }
        OpenCodeSimulator {
            policy,
            agent,
            rules,
            unknown_agent,
            others,
        }
    }

    /// Which agent answers, when the session's files give others rules of
    /// their own: "agent `build` (the default) — …" (`simulate`, `explain`).
    pub fn other_agents_line(&self) -> Option<String> {
        const SHOWN: usize = 3;
        let (first, _) = self.others.first()?;
        let mut named: Vec<String> = self
            .others
            .iter()
            .take(SHOWN)
            .map(|(n, path)| {
                let file = path
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                format!("`{}` ({file})", crate::text::clip_line(n))
            })
            .collect();
        if self.others.len() > SHOWN {
            named.push(format!("{} more", self.others.len() - SHOWN));
        }
        let (agents, own, which) = if self.others.len() == 1 {
            ("agent", "its own", "it")
        } else {
            ("agents", "their own", "that one")
        };
        Some(format!(
            "agent `{}` (the default) — this session's files also give {agents} {} rules of {own}: `--agent {}` answers for {which}",
            self.agent,
            named.join(", "),
            crate::text::clip_line(first),
        ))
    }

    pub fn decide(&self, tool: &str, input: &Value) -> Decision {
        decide::decide(&self.policy, &self.rules, tool, input)
    }
}

fn runtime() -> String {
    format!("opencode {VERSION}")
}

fn scope(r: &Rule) -> String {
    match r.origin.layer {
        Layer::Default | Layer::BuiltinAgent | Layer::Trailer => "built-in".into(),
        l if r.agent_rule => format!("agent ({})", l.name()),
        l => l.name().to_string(),
    }
}

fn place(policy: &Policy, r: &Rule) -> RulePlace {
    match policy.file(&r.origin) {
        Some(f) if !r.origin.range.is_empty() => {
            let (line, column) = f.line_col(r.origin.range.start);
            RulePlace {
                file: Some(f.path.display().to_string()),
                line: Some(line),
                column: Some(column),
            }
        }
        Some(f) => RulePlace {
            file: Some(f.path.display().to_string()),
            line: None,
            column: None,
        },
        None => RulePlace {
            file: None,
            line: None,
            column: None,
        },
    }
}

fn layer_name(r: &Rule) -> &'static str {
    match r.origin.layer {
        Layer::Default => "default",
        Layer::BuiltinAgent => "built-in agent",
        Layer::Trailer => "tool output",
        _ if r.agent_rule => "agent",
        _ => "config",
    }
}

/// `bash "git push *" deny (project opencode.json:3:7)`.
pub fn rule_line(policy: &Policy, r: &Rule) -> String {
    let p = place(policy, r);
    let at = match (&p.file, p.line, p.column) {
        (Some(f), Some(l), Some(c)) => format!("{f}:{l}:{c}"),
        (Some(f), _, _) => f.clone(),
        _ => match r.origin.layer {
            Layer::Default => "OpenCode's defaults".into(),
            Layer::BuiltinAgent => "the built-in agent's extras".into(),
            Layer::Trailer => "the tool-output allow every agent gets".into(),
            l => l.name().into(),
        },
    };
    format!(
        "`{}` `{}` {} ({at})",
        r.permission,
        r.pattern,
        action_str(r.action)
    )
}

impl Simulator for OpenCodeSimulator {
    fn simulate(&self, call: &CallRequest) -> SimulationReport {
        let policy = &self.policy;
        let mut config_issues: Vec<String> = policy
            .files
            .iter()
            .filter_map(crate::formats::opencode::engine::policy::refusal)
            .collect();
        let mut incomplete = Vec::new();
        for f in &policy.files {
            for u in f
                .read
                .substituted
                .iter()
                .filter(|u| u.is_file && u.value.is_none())
            {
                incomplete.push(format!(
                    "{}: `{}` names a file outside the project and OpenCode's folders, which this checker does not read; what it holds (and whether OpenCode starts) is not known",
                    f.path.display(),
                    u.text
                ));
            }
            if let Some(e) = &f.yaml_error {
                if crate::formats::opencode::model::yaml::is_limit(e) {
                    // Not a YAML error OpenCode sees: this reader stops.
                    incomplete.push(format!(
                        "{}: the frontmatter nests deeper than this checker reads; whether OpenCode applies this agent's rules is not known",
                        f.path.display()
                    ));
                    continue;
                }
                config_issues.push(if e.without_frontmatter {
                    format!(
                        "{}: the frontmatter is not valid YAML ({}); OpenCode loads this agent without it (no rules of its own)",
                        f.path.display(),
                        e.message
                    )
                } else {
                    format!(
                        "{}: the frontmatter is not valid YAML ({}); OpenCode skips this agent",
                        f.path.display(),
                        e.message
                    )
                });
            }
        }
        let mut details = Map::new();
        if !incomplete.is_empty() {
            config_issues.extend(incomplete.iter().map(|m| format!("INCOMPLETE: {m}")));
            details.insert("incomplete".into(), serde_json::json!(incomplete));
        }
        details.insert("agent".into(), Value::String(self.agent.clone()));
        if policy.refused.is_some() || self.unknown_agent {
            let reason = if self.unknown_agent {
                format!("there is no agent `{}`", self.agent)
            } else {
                "OpenCode refuses to start: a config file is invalid".to_string()
            };
            return SimulationReport {
                schema_version: SCHEMA_VERSION,
                runtime: runtime(),
                tool: call.tool.clone(),
                input: call.input.clone(),
                decision: "deny".into(),
                rule: None,
                reason: Some(reason.clone()),
                agent_message: None,
                tool_hidden: false,
                explanation: vec![reason],
                config_issues,
                details,
            };
        }
        let d = self.decide(&call.tool, &call.input);
        let mut explanation = Vec::new();
        let (rule, reason) = if d.hidden {
            let r = &self.rules[d.hidden_by.unwrap_or(0)];
            explanation.push(format!(
                "`{}` is hidden from agent `{}`: the last rule for `{}` is {}",
                call.tool,
                self.agent,
                decide::permission_of(&call.tool),
                rule_line(policy, r)
            ));
            (
                Some(r),
                format!(
                    "the tool is not offered to the model (its last rule is a `*` deny): \"Model tried to call unavailable tool '{}'\"",
                    call.tool
                ),
            )
        } else if let Some(note) = &d.note {
            explanation.push(format!("the tool fails before asking: {note}"));
            (None, note.clone())
        } else {
            for g in &d.gates {
                for c in &g.checks {
                    let by = match c.rule {
                        Some(i) => rule_line(policy, &self.rules[i]),
                        None => "no rule matches: ask".into(),
                    };
                    explanation.push(format!(
                        "{} `{}` → {} by {by}",
                        g.permission,
                        c.pattern,
                        action_str(c.action)
                    ));
                }
            }
            for g in &d.unreached {
                explanation.push(format!(
                    "(not reached until the ask above is approved: {} {} → {})",
                    g.permission,
                    g.checks
                        .iter()
                        .map(|c| format!("`{}`", c.pattern))
                        .collect::<Vec<_>>()
                        .join(", "),
                    action_str(g.action)
                ));
            }
            let decisive = d.decisive();
            let rule = decisive.and_then(|c| c.rule).map(|i| &self.rules[i]);
            let reason = match (decisive, rule) {
                (Some(c), Some(r)) => format!(
                    "{} `{}`: the last matching rule is {}",
                    d.gates.last().map_or("", |g| g.permission.as_str()),
                    c.pattern,
                    rule_line(policy, r)
                ),
                (Some(c), None) => format!(
                    "{} `{}`: no rule matches, OpenCode asks",
                    d.gates.last().map_or("", |g| g.permission.as_str()),
                    c.pattern
                ),
                _ => "no permission is checked".into(),
            };
            (rule, reason)
        };
        details.insert(
            "checks".into(),
            Value::Array(
                d.gates
                    .iter()
                    .map(|g| gate_json(policy, &self.rules, g, true))
                    .chain(
                        d.unreached
                            .iter()
                            .map(|g| gate_json(policy, &self.rules, g, false)),
                    )
                    .collect(),
            ),
        );
        explanation.extend(self.other_agents_line());
        let agent_message = if d.action == Action::Deny && !d.hidden && d.note.is_none() {
            Some("The user has specified a rule which prevents you from using this specific tool call. Here are some of the relevant rules …".into())
        } else {
            None
        };
        SimulationReport {
            schema_version: SCHEMA_VERSION,
            runtime: runtime(),
            tool: call.tool.clone(),
            input: call.input.clone(),
            decision: action_str(d.action).into(),
            rule: rule.map(|r| DecidingRule {
                surface: r.permission.clone(),
                pattern: r.pattern.clone(),
                layer: Value::String(layer_name(r).into()),
                scope: scope(r),
                place: place(policy, r),
            }),
            reason: Some(reason),
            agent_message,
            tool_hidden: d.hidden,
            explanation,
            config_issues,
            details,
        }
    }
}

use crate::core::precedence::Action;

fn gate_json(policy: &Policy, rules: &[Rule], g: &decide::Gate, reached: bool) -> Value {
    json!({
        "permission": g.permission,
        "decision": action_str(g.action),
        "reached": reached,
        "patterns": g.checks.iter().map(|c| json!({
            "pattern": c.pattern,
            "decision": action_str(c.action),
            "rule": c.rule.map(|i| rule_line(policy, &rules[i])),
        })).collect::<Vec<_>>(),
    })
}

/// The merged rule list of the session's agent.
pub fn effective(sim: &OpenCodeSimulator) -> EffectivePolicyReport {
    let policy = &sim.policy;
    let files = policy
        .files
        .iter()
        .map(|f| FileStatus {
            scope: f.layer.name().into(),
            path: Some(f.path.display().to_string()),
            present: true,
            accepted: Some(f.read.accepted() && f.yaml_error.is_none()),
            permission: Some(
                f.read.permission.is_some()
                    || f.read
                        .agents
                        .iter()
                        .any(|a| !a.permission.entries.is_empty()),
            ),
            issues: crate::formats::opencode::engine::policy::refusal(f).map(|s| vec![s]),
        })
        .collect();
    let rules = sim
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| EffectiveRule {
            index: i,
            surface: r.permission.clone(),
            pattern: r.pattern.clone(),
            action: action_str(r.action).into(),
            reason: None,
            layer: Value::String(layer_name(r).into()),
            scope: scope(r),
            place: place(policy, r),
        })
        .collect();
    let mut details = Map::new();
    details.insert(
        "agents".into(),
        Value::Array(
            policy
                .agent_names()
                .into_iter()
                .map(Value::String)
                .collect(),
        ),
    );
    details.insert(
        "worktree".into(),
        Value::String(policy.env.worktree.display().to_string()),
    );
    let mut notes: Vec<String> = sim.other_agents_line().into_iter().collect();
    if let Some(r) = policy.refused {
        notes.push(
            crate::formats::opencode::engine::policy::refusal(&policy.files[r]).unwrap_or_default(),
        );
    }
    EffectivePolicyReport {
        schema_version: SCHEMA_VERSION,
        runtime: runtime(),
        agent: Some(sim.agent.clone()),
        files,
        rules,
        precedence: "the last rule whose permission and pattern both match decides (none: ask); a call checks each of its patterns — any deny denies, else any ask asks".into(),
        notes,
        details,
    }
}

/// A command line typed by a person: `read PATH`, `edit PATH`,
/// `webfetch URL`, `task AGENT`, `glob PATTERN`, `grep REGEX`, else a bash
/// command.
pub fn parse_command_line(line: &str) -> Option<CallRequest> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let (head, rest) = line.split_once(' ').unwrap_or((line, ""));
    let rest = rest.trim();
    let (tool, input) = match head {
        "read" | "Read" if !rest.is_empty() => ("read", json!({ "filePath": rest })),
        "edit" | "Edit" if !rest.is_empty() => (
            "edit",
            json!({ "filePath": rest, "oldString": "a", "newString": "b" }),
        ),
        "write" | "Write" if !rest.is_empty() => {
            ("write", json!({ "filePath": rest, "content": "" }))
        }
        "webfetch" | "WebFetch" | "fetch" if !rest.is_empty() => {
            ("webfetch", json!({ "url": rest }))
        }
        "task" if !rest.is_empty() => (
            "task",
            json!({ "subagent_type": rest, "description": "x", "prompt": "x" }),
        ),
        "glob" if !rest.is_empty() => ("glob", json!({ "pattern": rest })),
        "grep" if !rest.is_empty() && !rest.contains(' ') => ("grep", json!({ "pattern": rest })),
        _ => ("bash", json!({ "command": line, "description": "x" })),
    };
    Some(CallRequest {
        tool: tool.into(),
        input,
    })
}
