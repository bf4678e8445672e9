//! A shell call simulated against a session's policy, and the effective
//! policy, as the shared reports.

use crate::contract::report::{
    DecidingRule, EffectivePolicyReport, EffectiveRule, FileStatus, RulePlace, SCHEMA_VERSION,
    SimulationReport,
};
use crate::contract::{CallRequest, Simulator};
use crate::formats::codex::engine::decide::{Engine, Input, Outcome, Step};
use crate::formats::codex::engine::policy::Policy;
use crate::formats::codex::model::rules::Decision;
use crate::text::LineIndex;
use serde_json::{Map, Value, json};

pub fn runtime() -> String {
    format!("codex {}", crate::formats::codex::VERSION)
}

/// The call's input as Codex gets it: a command line (`command` or
/// `cmd`, a string) or an argv (`command`, a list of strings).
pub fn input_of(call: &CallRequest) -> Result<Input, String> {
    let v = call
        .input
        .get("command")
        .or_else(|| call.input.get("cmd"))
        .ok_or("a shell call needs `command`: a command line or an argv list")?;
    match v {
        Value::String(s) => Ok(Input::Line(s.clone())),
        Value::Array(items) => {
            let argv: Option<Vec<String>> = items
                .iter()
                .map(|i| i.as_str().map(str::to_string))
                .collect();
            match argv {
                Some(a) if !a.is_empty() => Ok(Input::Argv(a)),
                _ => Err("`command` as a list must be a non-empty list of strings".into()),
            }
        }
        _ => Err("`command` must be a command line or an argv list".into()),
    }
}

/// The tools a call to Codex can name: the shell.
pub const TOOLS: &[&str] = &["shell", "exec_command", "local_shell"];

pub struct CodexSimulator {
    pub policy: Policy,
}

fn place(policy: &Policy, file: usize, at: usize) -> RulePlace {
    let f = &policy.rules_files[file];
    let index = LineIndex::new(&f.text);
    let (line, column) = crate::text::line_col_1(&index, &f.text, at.min(f.text.len()));
    RulePlace {
        file: Some(f.path.display().to_string()),
        line: Some(line),
        column: Some(column),
    }
}

impl Simulator for CodexSimulator {
    fn simulate(&self, call: &CallRequest) -> SimulationReport {
        let p = &self.policy;
        let mut report = SimulationReport {
            schema_version: SCHEMA_VERSION,
            runtime: runtime(),
            tool: call.tool.clone(),
            input: call.input.clone(),
            decision: "deny".into(),
            rule: None,
            reason: None,
            agent_message: None,
            tool_hidden: false,
            explanation: Vec::new(),
            config_issues: config_issues(p),
            details: Map::new(),
        };
        if !TOOLS.contains(&call.tool.as_str()) {
            report.decision = "deny".into();
            report.tool_hidden = true;
            report.reason = Some(format!(
                "Codex has no tool `{}`: the model runs commands with `shell` (`exec_command`)",
                call.tool
            ));
            report
                .explanation
                .push(report.reason.clone().unwrap_or_default());
            return report;
        }
        if let Some((path, r)) = p.refusals().first() {
            report.decision = "deny".into();
            report.reason = Some(format!(
                "no session starts: Codex refuses {} ({})",
                crate::contract::tilde(path, &p.env.home),
                r.message
            ));
            report
                .explanation
                .push(report.reason.clone().unwrap_or_default());
            report
                .details
                .insert("sessionStarts".into(), Value::Bool(false));
            return report;
        }
        let input = match input_of(call) {
            Ok(i) => i,
            Err(e) => {
                report.reason = Some(e.clone());
                report.explanation.push(e);
                return report;
            }
        };
        let refs = p.rule_refs();
        let engine = Engine::new(&refs, &p.hosts, p.approval);
        let v = engine.decide(&input);
        report.decision = match v.outcome {
            Outcome::Allow { .. } => "allow",
            Outcome::Ask => "ask",
            Outcome::Deny => "deny",
        }
        .into();
        report.reason = v.reason.clone();
        report.agent_message = match v.outcome {
            Outcome::Deny => v.reason.clone(),
            _ => None,
        };
        // The deciding rule: the first match with the strictest decision.
        let deciding = v.steps.iter().find_map(|s| match s {
            Step::Rules(m) => m
                .iter()
                .find(|(i, _)| refs[*i].decision == v.decision)
                .map(|(i, _)| *i),
            Step::Heuristic { .. } => None,
        });
        if let Some(i) = deciding {
            let l = &p.rules[i];
            report.rule = Some(DecidingRule {
                surface: "shell".into(),
                pattern: l.rule.display(),
                layer: Value::String(
                    p.rules_files[l.file]
                        .path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                ),
                scope: p.rules_files[l.file].scope.name().into(),
                place: place(p, l.file, l.rule.call.start),
            });
        }
        let mut ex = Vec::new();
        ex.push(format!(
            "approval policy: {} (from {}), sandbox: {}",
            p.approval.describe(),
            p.approval_source(),
            p.sandbox
        ));
        if let Some((f, e)) = p.drop_error() {
            if e.kind == crate::formats::codex::model::rules::ErrorKind::Bounds {
                ex.push(format!(
                    "INCOMPLETE: {} was {} — this answer assumes Codex fails on it too and applies no custom rule; if Codex finishes it, its rules apply",
                    crate::contract::tilde(&f.path, &p.env.home),
                    e.message
                ));
                report
                    .details
                    .insert("incomplete".into(), Value::Bool(true));
            } else {
                ex.push(format!(
                    "no custom rule applies: {} does not load ({}); Codex warns \"Error parsing rules; custom rules not applied.\"",
                    crate::contract::tilde(&f.path, &p.env.home),
                    e.message
                ));
            }
        }
        if v.split {
            ex.push(format!(
                "Codex runs `{}` and matches each of its {} command{}:",
                crate::formats::codex::model::rules::render_example(&v.argv),
                v.commands.len(),
                if v.commands.len() == 1 { "" } else { "s" }
            ));
        } else if crate::formats::codex::engine::decide::shell_script(&v.argv).is_some() {
            ex.push(format!(
                "Codex does not split this script (not plain words: a redirection, variable, substitution, assignment, subshell, control flow or quoting of the command name): the whole `{}` is one command no rule matches",
                crate::formats::codex::model::rules::render_example(&v.argv)
            ));
        }
        let mut commands = Vec::new();
        for (c, s) in v.commands.iter().zip(&v.steps) {
            let shown = crate::formats::codex::model::rules::render_example(c);
            match s {
                Step::Rules(m) => {
                    let names: Vec<String> = m
                        .iter()
                        .map(|(i, _)| {
                            let l = &p.rules[*i];
                            let pl = place(p, l.file, l.rule.call.start);
                            format!(
                                "`{}` {} ({}:{})",
                                l.rule.display(),
                                l.rule.decision.as_str(),
                                crate::contract::tilde(&p.rules_files[l.file].path, &p.env.home),
                                pl.line.unwrap_or(0)
                            )
                        })
                        .collect();
                    ex.push(format!("  `{shown}`: {}", names.join(", ")));
                    commands.push(json!({"argv": c, "rules": m.iter().map(|(i, _)| p.rules[*i].rule.display()).collect::<Vec<_>>()}));
                }
                Step::Heuristic {
                    decision,
                    dangerous,
                } => {
                    ex.push(format!(
                        "  `{shown}`: no rule matches; Codex {} ({})",
                        match decision {
                            Decision::Allow => "runs it in the sandbox",
                            Decision::Prompt => "asks",
                            Decision::Forbidden => "rejects it",
                        },
                        if *dangerous {
                            "a forced rm is dangerous"
                        } else if p.approval
                            == crate::formats::codex::model::config::Approval::Untrusted
                        {
                            "untrusted: only what a rule allows runs without asking"
                        } else {
                            "not dangerous"
                        }
                    ));
                    commands.push(
                        json!({"argv": c, "heuristic": decision.as_str(), "dangerous": dangerous}),
                    );
                }
            }
        }
        match v.outcome {
            Outcome::Allow { sandboxed: true } => ex.push(format!(
                "it runs inside the sandbox ({}): no rule allows every command",
                p.sandbox
            )),
            Outcome::Allow { sandboxed: false } => {
                ex.push("it runs outside the sandbox: a rule allows every command".into())
            }
            _ => {}
        }
        if let Some(r) = &v.reason {
            ex.push(format!("Codex says: {r}"));
        }
        report.explanation = ex;
        report
            .details
            .insert("commands".into(), Value::Array(commands));
        report.details.insert("split".into(), Value::Bool(v.split));
        report.details.insert(
            "sandboxed".into(),
            Value::Bool(matches!(v.outcome, Outcome::Allow { sandboxed: true })),
        );
        report
    }
}

/// What Codex reports about the files it read.
pub fn config_issues(p: &Policy) -> Vec<String> {
    let mut out = Vec::new();
    if let Some((f, e)) = p.drop_error() {
        out.push(format!(
            "Error parsing rules; custom rules not applied. ({}: {})",
            crate::contract::tilde(&f.path, &p.env.home),
            e.message
        ));
    }
    if !p.untrusted_files.is_empty() {
        out.push(format!(
            "Project-local config, hooks, and exec policies are disabled in {} until the project is trusted ({} file{} not read)",
            crate::contract::tilde(&p.env.root, &p.env.home),
            p.untrusted_files.len(),
            if p.untrusted_files.len() == 1 { "" } else { "s" }
        ));
    }
    for (path, r) in p.refusals() {
        out.push(format!(
            "{}: {}",
            crate::contract::tilde(path, &p.env.home),
            r.message
        ));
    }
    for (setting, configured, required) in &p.constrained {
        out.push(format!(
            "Configured value for `{setting}` is disallowed by requirements; falling back to required value {required} (configured: {configured})"
        ));
    }
    for c in &p.configs {
        if !c.read.ignored.is_empty() {
            out.push(format!(
                "Codex is ignoring {} unrecognized configuration setting{} in {}: {}",
                c.read.ignored.len(),
                if c.read.ignored.len() == 1 { "" } else { "s" },
                crate::contract::tilde(&c.path, &p.env.home),
                c.read
                    .ignored
                    .iter()
                    .map(|i| format!("`{}`", i.key))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    out
}

/// A Codex decision as the shared one: `prompt` asks, `forbidden` denies.
pub fn shared_decision(d: Decision) -> &'static str {
    match d {
        Decision::Allow => "allow",
        Decision::Prompt => "ask",
        Decision::Forbidden => "deny",
    }
}

/// The tokens of a rule as `PrefixRule::display` writes it (`git
/// [push|fetch]`, `"two words"`), each a list of alternatives.
pub fn tokens_of_display(s: &str) -> Option<Vec<Vec<String>>> {
    let mut out = Vec::new();
    let mut rest = s.trim();
    let word = |r: &str| -> Option<(String, usize)> {
        if let Some(q) = r.strip_prefix('"') {
            let end = q.find('"')?;
            Some((q[..end].to_string(), end + 2))
        } else {
            let end = r.find([' ', '|', ']']).unwrap_or(r.len());
            Some((r[..end].to_string(), end))
        }
    };
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('[') {
            let mut alts = Vec::new();
            let mut r = inner;
            loop {
                let (w, n) = word(r)?;
                alts.push(w);
                r = &r[n..];
                if let Some(x) = r.strip_prefix('|') {
                    r = x;
                } else {
                    r = r.strip_prefix(']')?;
                    break;
                }
            }
            out.push(alts);
            rest = r.trim_start();
        } else {
            let (w, n) = word(rest)?;
            out.push(vec![w]);
            rest = rest[n..].trim_start();
        }
    }
    (!out.is_empty()).then_some(out)
}

pub fn effective(p: &Policy) -> EffectivePolicyReport {
    let mut files: Vec<FileStatus> = p
        .configs
        .iter()
        .map(|c| FileStatus {
            scope: c.scope.name().into(),
            path: Some(c.path.display().to_string()),
            present: true,
            accepted: Some(c.read.accepted()),
            permission: None,
            issues: (!c.read.refusals.is_empty())
                .then(|| c.read.refusals.iter().map(|r| r.message.clone()).collect()),
        })
        .collect();
    for (i, f) in p.rules_files.iter().enumerate() {
        let managed = f.scope == crate::formats::codex::engine::policy::Scope::Managed;
        let skipped = !managed && p.dropped_by.is_some_and(|d| i > d);
        files.push(FileStatus {
            scope: f.scope.name().into(),
            path: Some(f.path.display().to_string()),
            present: true,
            accepted: Some(managed || p.dropped_by.is_none()),
            permission: None,
            issues: match (&f.read.error, skipped) {
                (Some(e), _) => Some(vec![format!(
                    "{} — every custom rule is dropped",
                    e.message
                )]),
                (None, true) => Some(vec!["not read: an earlier file failed".into()]),
                _ => None,
            },
        });
    }
    for path in &p.untrusted_files {
        files.push(FileStatus {
            scope: "project".into(),
            path: Some(path.display().to_string()),
            present: true,
            accepted: Some(false),
            permission: None,
            issues: Some(vec!["not read: the project is not trusted".into()]),
        });
    }
    // The order that matters: the strictest decision first.
    let mut order: Vec<usize> = (0..p.rules.len()).collect();
    order.sort_by_key(|i| std::cmp::Reverse(p.rules[*i].rule.decision));
    let rules = order
        .iter()
        .enumerate()
        .map(|(n, i)| {
            let l = &p.rules[*i];
            EffectiveRule {
                index: n,
                surface: "shell".into(),
                pattern: l.rule.display(),
                // The shared decision (prompt asks, forbidden denies);
                // the layer keeps Codex's own word.
                action: shared_decision(l.rule.decision).into(),
                reason: l.rule.justification.clone(),
                layer: Value::String(l.rule.decision.as_str().into()),
                scope: p.rules_files[l.file].scope.name().into(),
                place: place(p, l.file, l.rule.call.start),
            }
        })
        .collect();
    let mut notes = vec![format!(
        "approval policy: {} (from {}); sandbox: {}; project {}: {}",
        p.approval.describe(),
        p.approval_source(),
        p.sandbox,
        crate::contract::tilde(&p.env.root, &p.env.home),
        match (p.trust, p.project_read) {
            (Some(true), _) => "trusted",
            (Some(false), _) => "untrusted (its .codex files are not read)",
            (None, true) => "no trust entry, read as trusted (the sandbox is not read-only)",
            (None, false) =>
                "no trust entry (its .codex files are not read: the sandbox is read-only)",
        }
    )];
    notes.extend(config_issues(p));
    notes.push(
        "a command no rule matches: a forced rm asks (rejected under `never`); anything else runs in the sandbox (asks under `untrusted`)".into(),
    );
    let mut details = Map::new();
    details.insert(
        "approvalPolicy".into(),
        Value::String(p.approval.describe()),
    );
    details.insert("sandbox".into(), Value::String(p.sandbox.clone()));
    details.insert(
        "projectRoot".into(),
        Value::String(p.env.root.display().to_string()),
    );
    details.insert(
        "hostExecutables".into(),
        json!(
            p.hosts
                .iter()
                .map(|(n, ps)| json!({"name": n, "paths": ps}))
                .collect::<Vec<_>>()
        ),
    );
    EffectivePolicyReport {
        schema_version: SCHEMA_VERSION,
        runtime: runtime(),
        agent: None,
        files,
        rules,
        precedence: "every matching rule of every loaded file counts; the strictest decision wins (forbidden > prompt > allow), across the commands of a split script too".into(),
        notes,
        details,
    }
}

#[cfg(test)]
mod tests {
    use super::tokens_of_display;

    #[test]
    fn display_reads_back_into_tokens() {
        assert_eq!(
            tokens_of_display("git [push|fetch] \"a b\"").unwrap(),
            vec![
                vec!["git".to_string()],
                vec!["push".to_string(), "fetch".to_string()],
                vec!["a b".to_string()]
            ]
        );
        assert_eq!(
            tokens_of_display("[\"x y\"|z] w").unwrap(),
            vec![
                vec!["x y".to_string(), "z".to_string()],
                vec!["w".to_string()]
            ]
        );
        assert!(tokens_of_display("[a|b").is_none());
    }
}
