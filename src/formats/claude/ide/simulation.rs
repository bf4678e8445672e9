//! The typed reports of the simulate and effective-policy commands for
//! Claude Code settings.

use crate::contract::Context;
use crate::contract::report::{
    DecidingRule, EffectivePolicyReport, EffectiveRule, FileStatus, RulePlace, SCHEMA_VERSION,
    SimulationReport,
};
use crate::contract::{CallRequest, Simulator};
use crate::formats::claude::VERSION;
use crate::formats::claude::engine::decide::{Outcome, Why};
use crate::formats::claude::engine::policy::{Loaded, Mode, Origin, Policy, Session};
use serde_json::{Map, Value, json};

/// The merged settings of a session, ready to decide calls.
pub struct ClaudeSimulator {
    pub policy: Policy,
}

impl ClaudeSimulator {
    pub fn load(ctx: &Context<'_>) -> ClaudeSimulator {
        let session = Session::from_options(&ctx.options.runtime_args);
        ClaudeSimulator {
            policy: Policy::load(ctx, &session),
        }
    }
}

fn place(r: &Loaded) -> RulePlace {
    RulePlace {
        file: r.file.as_ref().map(|f| f.display().to_string()),
        line: r.file.as_ref().map(|_| r.line),
        column: r.file.as_ref().map(|_| r.column),
    }
}

fn where_written(r: &Loaded) -> String {
    match &r.file {
        Some(f) => format!("{}:{}:{}", f.display(), r.line, r.column),
        None => "the command line".into(),
    }
}

/// The sentence for why a call got its decision.
pub fn reason(policy: &Policy, why: &Why) -> String {
    match why {
        Why::Rule(i) | Why::ToolRemoved(i) => {
            let r = &policy.rules[*i];
            let what = match why {
                Why::ToolRemoved(_) => " (the tool is removed from the session)",
                _ => "",
            };
            format!(
                "{} rule `{}` in the {} settings{what}",
                r.list.key(),
                r.text,
                r.origin.scope()
            )
        }
        Why::ReadOnly => "a read-only command Claude Code runs without asking".into(),
        Why::Mode(Mode::Default) | Why::Mode(Mode::Plan) | Why::Mode(Mode::DontAsk) => {
            "inside the working directories, where reading needs no rule".into()
        }
        Why::Mode(Mode::AcceptEdits) => {
            "acceptEdits mode: edits inside the working directories run without asking".into()
        }
        Why::Mode(m) => format!("{} mode", m.name()),
        Why::OutsideWorkingDirectories(p) => format!(
            "{} is outside the working directories (the project and additionalDirectories)",
            p.display()
        ),
        Why::Shell(what) => format!("{what}: Claude Code asks"),
        Why::Safety(what, crate::formats::claude::engine::decide::Lifted::ByBypass) => {
            format!("{what}: Claude Code asks, whatever allows it (bypass mode aside)")
        }
        Why::Safety(what, crate::formats::claude::engine::decide::Lifted::Never) => {
            format!("{what}: Claude Code asks, whatever allows it, even in bypass mode")
        }
        Why::DontAsk(inner) => format!(
            "dontAsk mode refuses what would ask ({})",
            reason(policy, inner)
        ),
        Why::Classifier(m) => format!(
            "{} mode: Claude Code's model-based classifier decides this call (not a rule); without it, it asks",
            m.name()
        ),
        Why::NoRule => "no rule allows it: Claude Code asks".into(),
        Why::Unavailable => "Claude Code 2.1.332 offers no such tool in a session (\"No such tool available\"; Glob and Grep are done with `find` and `grep` through Bash)".into(),
        Why::NoPermission => "a tool Claude Code runs without asking (no rule needed)".into(),
    }
}

fn why_kind(why: &Why) -> &'static str {
    match why {
        Why::Rule(_) => "rule",
        Why::ToolRemoved(_) => "toolRemoved",
        Why::ReadOnly => "readOnly",
        Why::Mode(_) => "mode",
        Why::OutsideWorkingDirectories(_) => "workingDirectory",
        Why::Shell(_) => "shell",
        Why::Safety(..) => "safetyCheck",
        Why::DontAsk(_) => "dontAsk",
        Why::Classifier(_) => "classifier",
        Why::NoRule => "default",
        Why::Unavailable => "unavailable",
        Why::NoPermission => "noPermission",
    }
}

fn deciding_rule(why: &Why) -> Option<usize> {
    match why {
        Why::Rule(i) | Why::ToolRemoved(i) => Some(*i),
        Why::DontAsk(inner) => deciding_rule(inner),
        _ => None,
    }
}

/// The report for one decided call.
pub fn report(policy: &Policy, call: &CallRequest, o: &Outcome) -> SimulationReport {
    let rule_index = deciding_rule(&o.why);
    let rule = rule_index.map(|i| {
        let r = &policy.rules[i];
        DecidingRule {
            surface: r.tool.clone(),
            pattern: r.text.clone(),
            layer: Value::String(r.origin.layer().into()),
            scope: r.origin.scope().into(),
            place: place(r),
        }
    });
    let why = reason(policy, &o.why);
    let mut explanation = vec![format!("why: {why}")];
    if let Some(i) = rule_index {
        explanation.push(format!("rule at {}", where_written(&policy.rules[i])));
    }
    for (text, d) in &o.parts {
        explanation.push(format!("  {:<5} `{text}`", d.as_str()));
    }
    let mode_from = match policy.mode_origin {
        Some(Origin::CommandLine) => " (--permission-mode)".to_string(),
        Some(o) => format!(" (from the {} settings)", o.scope()),
        None => String::new(),
    };
    explanation.push(format!("mode: {}{mode_from}", policy.mode.name()));
    if matches!(o.why, Why::Classifier(_)) {
        explanation.push(
            "documented, not verified: the classifier needs the model; the simulation answers what the rules alone decide"
                .into(),
        );
    }
    // A line that sets a variable: the session's first Bash command is
    // decided otherwise (the CLI learns the shell's variables when it first
    // runs one).
    if call.tool == "Bash"
        && let Some(first) = policy.as_first_command(&call.input)
    {
        explanation.push(format!(
            "as the session's first Bash command: {} — {} (`--first-command` decides so)",
            first.decision.as_str(),
            reason(policy, &first.why)
        ));
    }
    // Hooks run around the decision; what they do is not simulated.
    let hooks = policy.hooks_for(&call.tool);
    for h in &hooks {
        if h.event == "PreToolUse" || o.decision == crate::core::decision::Decision::Ask {
            explanation.push(h.sentence());
        }
    }
    let mut details = Map::new();
    if !hooks.is_empty() {
        details.insert(
            "hooks".into(),
            Value::Array(
                hooks
                    .iter()
                    .map(|h| {
                        json!({
                            "event": h.event,
                            "matcher": h.matcher,
                            "command": h.command,
                            "scope": h.origin.scope(),
                            "file": h.file.display().to_string(),
                            "line": h.line,
                        })
                    })
                    .collect(),
            ),
        );
    }
    details.insert("why".into(), json!(why_kind(&o.why)));
    details.insert("mode".into(), json!(policy.mode.name()));
    details.insert("trusted".into(), json!(policy.trusted));
    if !o.parts.is_empty() {
        details.insert(
            "subcommands".into(),
            Value::Array(
                o.parts
                    .iter()
                    .map(|(t, d)| json!({ "command": t, "decision": d.as_str() }))
                    .collect(),
            ),
        );
    }
    SimulationReport {
        schema_version: SCHEMA_VERSION,
        runtime: format!("Claude Code {VERSION}"),
        tool: call.tool.clone(),
        input: call.input.clone(),
        decision: o.decision.as_str().into(),
        rule,
        reason: Some(why),
        agent_message: None,
        tool_hidden: matches!(o.why, Why::ToolRemoved(_) | Why::Unavailable),
        explanation,
        config_issues: policy.issues(),
        details,
    }
}

impl Simulator for ClaudeSimulator {
    fn simulate(&self, call: &CallRequest) -> SimulationReport {
        let o = self.policy.decide(&call.tool, &call.input);
        report(&self.policy, call, &o)
    }
}

/// Every rule of every file, in the order the CLI weighs them: deny, then
/// ask, then allow (within a list, the first matching rule is named).
pub fn effective(policy: &Policy) -> EffectivePolicyReport {
    let mut rules: Vec<&Loaded> = policy.rules.iter().collect();
    rules.sort_by_key(|r| std::cmp::Reverse(r.list));
    let files = policy
        .files
        .iter()
        .map(|f| FileStatus {
            scope: Origin::File(f.source).scope().into(),
            path: Some(f.path.display().to_string()),
            present: f.present,
            accepted: f.present.then_some(f.accepted),
            permission: None,
            issues: f.issue.clone().map(|i| vec![i]),
        })
        .collect();
    let mut notes = vec![format!(
        "mode: {}{}",
        policy.mode.name(),
        policy
            .mode_origin
            .map(|o| format!(" (from the {} settings)", o.scope()))
            .unwrap_or_default()
    )];
    notes.push(format!(
        "working directories: {}",
        policy
            .working_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    notes.push(format!(
        "project {}",
        if policy.trusted {
            "trusted (~/.claude.json)"
        } else {
            "not trusted: its allow rules are ignored"
        }
    ));
    notes.extend(policy.issues());
    if !policy.hooks_disabled {
        for h in &policy.hooks {
            notes.push(format!(
                "hook: {} `{}` for {} ({} settings, {}:{}:{}) runs {}; not simulated",
                h.event,
                h.command,
                match h.matcher.as_deref().map(str::trim) {
                    None | Some("") | Some("*") => "every tool".to_string(),
                    Some(m) => format!("`{m}`"),
                },
                h.origin.scope(),
                h.file.display(),
                h.line,
                h.column,
                if h.event == "PreToolUse" {
                    "before each matching call is decided and may change the decision"
                } else {
                    "when Claude Code asks, and may answer for you"
                }
            ));
        }
    }
    let mut details = Map::new();
    details.insert("mode".into(), json!(policy.mode.name()));
    details.insert("trusted".into(), json!(policy.trusted));
    EffectivePolicyReport {
        schema_version: SCHEMA_VERSION,
        runtime: format!("Claude Code {VERSION}"),
        agent: None,
        files,
        rules: rules
            .iter()
            .enumerate()
            .map(|(index, r)| EffectiveRule {
                index,
                surface: r.tool.clone(),
                pattern: r.text.clone(),
                action: r.list.key().into(),
                reason: None,
                layer: Value::String(r.origin.layer().into()),
                scope: r.origin.scope().into(),
                place: place(r),
            })
            .collect(),
        precedence: "a deny rule in any file wins, then an ask rule, then the tool's own checks (read-only commands, working directories, mode), then an allow rule; anything else asks".into(),
        notes,
        details,
    }
}

/// A command line typed by a person: `Read PATH`, `Edit PATH`,
/// `WebFetch URL`, `mcp__srv__tool`, else a Bash command.
pub fn parse_command_line(line: &str) -> Option<crate::contract::CallRequest> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let (head, rest) = line.split_once(' ').unwrap_or((line, ""));
    let rest = rest.trim();
    let (tool, input) = match head {
        "Read" | "read" if !rest.is_empty() => ("Read", json!({ "file_path": rest })),
        "Edit" | "edit" if !rest.is_empty() => (
            "Edit",
            json!({ "file_path": rest, "old_string": "", "new_string": "" }),
        ),
        "Write" | "write" if !rest.is_empty() => {
            ("Write", json!({ "file_path": rest, "content": "" }))
        }
        "WebFetch" | "webfetch" | "fetch" if !rest.is_empty() => {
            ("WebFetch", json!({ "url": rest, "prompt": "" }))
        }
        t if t.starts_with("mcp__") => (t, json!({})),
        _ => ("Bash", json!({ "command": line })),
    };
    Some(crate::contract::CallRequest {
        tool: tool.into(),
        input,
    })
}

/// A call that a rule matches, to show what it decides.
pub fn example_call(
    policy: &Policy,
    rule: &str,
    list: crate::formats::claude::model::rules::List,
) -> Option<CallRequest> {
    use crate::formats::claude::model::rules::{self, Reading};
    use crate::formats::claude::model::shape::{self, Shape};
    let Reading::Loaded(r, flaw) = rules::read(rule, list) else {
        return None;
    };
    let input = match (r.tool, r.content) {
        ("Bash", c) => {
            let command = match shape::shape(c, flaw.as_ref()) {
                Shape::Never => return None,
                Shape::Any => "make build".to_string(),
                Shape::Exact(c) | Shape::Prefix(c) | Shape::Glued(c) => c.to_string(),
                Shape::Other(c, _) => c.replace('*', "x"),
            };
            json!({ "command": command })
        }
        ("Read" | "Edit" | "Write", Some(c)) => {
            let p = crate::formats::claude::engine::paths::anchor(
                c,
                &policy.cwd,
                &policy.cwd,
                &policy.home,
            );
            let rel = p
                .pattern
                .trim_start_matches('/')
                .replace("**", "x")
                .replace(['*', '?'], "x");
            json!({ "file_path": p.root.join(rel).display().to_string() })
        }
        ("Read" | "Edit" | "Write", None) => {
            json!({ "file_path": policy.home.join("notes.txt").display().to_string() })
        }
        ("WebFetch", c) => {
            let host = c
                .and_then(|c| c.strip_prefix("domain:"))
                .map(|d| {
                    d.strip_prefix("*.")
                        .map_or(d.to_string(), |b| format!("www.{b}"))
                })
                .unwrap_or_else(|| "example.com".into());
            json!({ "url": format!("https://{host}/"), "prompt": "" })
        }
        _ => json!({}),
    };
    let tool = match r.tool {
        t if t.starts_with("mcp__") && t.matches("__").count() == 1 => format!("{t}__tool"),
        t => t.trim_end_matches("__*").to_string(),
    };
    Some(CallRequest { tool, input })
}

/// The hover's line on what a rule decides, over every settings file: an
/// example call and the rule (here or elsewhere) that decides it.
pub fn decides(
    policy: &Policy,
    rule: &str,
    list: crate::formats::claude::model::rules::List,
) -> Option<String> {
    let call = example_call(policy, rule, list)?;
    let o = policy.decide(&call.tool, &call.input);
    let what = match call.input.get("command").and_then(Value::as_str) {
        Some(c) => format!("`{c}`"),
        None => match call
            .input
            .get("file_path")
            .or_else(|| call.input.get("url"))
            .and_then(Value::as_str)
        {
            Some(p) => format!("{} `{p}`", call.tool),
            None => format!("`{}`", call.tool),
        },
    };
    let by = match deciding_rule(&o.why) {
        Some(i) if policy.rules[i].text == rule && policy.rules[i].list == list => {
            "by this rule".to_string()
        }
        Some(i) => {
            let r = &policy.rules[i];
            format!(
                "by `{}` ({}, {} settings, {})",
                r.text,
                r.list.key(),
                r.origin.scope(),
                where_written(r)
            )
        }
        None => format!("— {}", reason(policy, &o.why)),
    };
    Some(format!(
        "**Example:** {what} → **{}** {by}",
        o.decision.as_str()
    ))
}
