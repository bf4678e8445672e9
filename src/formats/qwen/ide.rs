//! The editor's and the CLI's answers for Qwen Code: the simulation report,
//! the effective policy, hover on a rule, completion of tool names, the
//! outline.

use super::engine::decide::{self, Verdict};
use super::engine::policy::{List, Policy};
use super::model;
use crate::contract::report::{
    DecidingRule, EffectivePolicyReport, EffectiveRule, FileStatus, RulePlace, SCHEMA_VERSION,
    SimulationReport,
};
use crate::contract::{Analysis, CallRequest, Simulator};
use crate::ide::items::{HoverInfo, Item, ItemKind};
use crate::ide::symbols::{Symbol, SymbolKind};
use crate::syntax::{Node, Value};
use serde_json::{Map, json};
use std::ops::Range;

pub fn runtime() -> String {
    format!("qwen-code {}", super::VERSION)
}

fn place(policy: &Policy, file: usize, at: usize) -> RulePlace {
    place_with(policy, file, at, &mut Vec::new())
}

/// [`place`] with each file's line index built once in `lines` (a
/// session's every rule: linear, not a line count per rule).
fn place_with(
    policy: &Policy,
    file: usize,
    at: usize,
    lines: &mut Vec<Option<crate::text::LineIndex>>,
) -> RulePlace {
    let f = &policy.files[file];
    if lines.len() <= file {
        lines.resize_with(file + 1, || None);
    }
    let index = lines[file].get_or_insert_with(|| crate::text::LineIndex::new(&f.text));
    let (line, column) = crate::text::line_col_1(index, &f.text, at.min(f.text.len()));
    RulePlace {
        file: Some(f.path.display().to_string()),
        line: Some(line),
        column: Some(column),
    }
}

/// The allow rules the `auto` mode sets aside, for people.
fn set_aside(p: &Policy) -> Option<String> {
    let names: Vec<String> = p
        .stripped
        .iter()
        .filter(|r| !r.rule.invalid)
        .map(|r| format!("`{}`", r.rule.raw))
        .collect();
    (!names.is_empty()).then(|| {
        format!(
            "approval mode auto sets aside the allow rules {} (the classifier decides their calls)",
            names.join(", ")
        )
    })
}

fn issues(p: &Policy) -> Vec<String> {
    let mut v = p.notes.clone();
    if let Some(f) = &p.fatal {
        v.insert(0, f.clone());
    }
    v
}

pub struct QwenSimulator {
    pub policy: Policy,
}

impl Simulator for QwenSimulator {
    fn simulate(&self, call: &CallRequest) -> SimulationReport {
        simulate(&self.policy, call)
    }
}

/// One call decided, as the shared report.
pub fn simulate(p: &Policy, call: &CallRequest) -> SimulationReport {
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
        config_issues: issues(p),
        details: Map::new(),
    };
    if let Some(f) = &p.fatal {
        report.reason = Some(format!("no session starts: {f}"));
        report
            .explanation
            .push(report.reason.clone().unwrap_or_default());
        report.details.insert("sessionStarts".into(), json!(false));
        return report;
    }
    let o = decide::decide(p, &call.tool, &call.input);
    report.decision = match o.verdict {
        Verdict::Allow => "allow",
        Verdict::Ask => "ask",
        Verdict::Deny | Verdict::Hidden | Verdict::Invalid(_) => "deny",
    }
    .into();
    report.tool_hidden = o.verdict == Verdict::Hidden;
    report
        .details
        .insert("verdict".into(), json!(o.verdict.name()));
    report.reason = Some(match &o.verdict {
        Verdict::Invalid(m) => format!("{}: \"{m}\" (the call does not run)", o.reason),
        _ => o.reason.clone(),
    });
    report.agent_message = o.message.clone();
    if let Some(i) = o.rule {
        let r = &p.rules[i];
        report.rule = Some(DecidingRule {
            surface: model::canonical(&r.rule.tool).to_string(),
            pattern: r.rule.raw.clone(),
            layer: json!(r.key),
            scope: p.files[r.file].scope.name().into(),
            place: place(p, r.file, r.range.start),
        });
        report.explanation.push(format!(
            "rule: `{}` in {} of the {} settings",
            r.rule.raw,
            r.key,
            p.files[r.file].scope.name()
        ));
    }
    report.explanation.push(format!(
        "why: {}",
        report.reason.clone().unwrap_or_default()
    ));
    report.explanation.push(format!(
        "approval mode: {} ({})",
        p.mode.name(),
        p.mode_source
    ));
    if let Some(n) = set_aside(p) {
        report.explanation.push(n);
    }
    if o.verdict == Verdict::Ask {
        report.explanation.push(
            "headless (`qwen -p` without --acp or stream-json): a call that asks is refused (read from Qwen's source, not observed on the CLI)".into(),
        );
    }
    if let Some(m) = &o.message {
        report.explanation.push(format!("agent sees: {m}"));
    }
    if !o.incomplete.is_empty() {
        report.explanation.push(format!(
            "INCOMPLETE: not simulated as Qwen Code decides: {} — the CLI's answer may differ",
            o.incomplete.join(", ")
        ));
        report
            .details
            .insert("incomplete".into(), json!(o.incomplete));
    }
    report
}

/// Every rule of the session in the permission manager's order.
pub fn effective(p: &Policy) -> EffectivePolicyReport {
    let files = p
        .files
        .iter()
        .map(|f| FileStatus {
            scope: f.scope.name().into(),
            path: Some(f.path.display().to_string()),
            present: true,
            accepted: Some(f.applies),
            permission: None,
            issues: f.read.error.as_ref().map(|(_, m)| vec![m.clone()]),
        })
        .collect();
    let mut lines = Vec::new();
    let rules = p
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| EffectiveRule {
            index: i,
            surface: model::canonical(&r.rule.tool).to_string(),
            pattern: r.rule.raw.clone(),
            action: r.list.name().into(),
            reason: r
                .rule
                .invalid
                .then(|| "unbalanced parentheses: skipped".to_string()),
            layer: json!(r.key),
            scope: p.files[r.file].scope.name().into(),
            place: place_with(p, r.file, r.range.start, &mut lines),
        })
        .collect();
    let mut notes = issues(p);
    notes.push(format!(
        "approval mode: {} ({})",
        p.mode.name(),
        p.mode_source
    ));
    if let Some(n) = set_aside(p) {
        notes.push(n);
    }
    if p.folder_trust {
        notes.push(format!(
            "folder trust is on; this folder is {}",
            if p.untrusted {
                "not trusted"
            } else {
                "trusted"
            }
        ));
    }
    EffectivePolicyReport {
        schema_version: SCHEMA_VERSION,
        runtime: runtime(),
        agent: None,
        files,
        rules,
        precedence: "deny > ask > allow over every file; a compound command part by part (the strictest part wins); a shell command's reads, writes and URLs also against Read / Edit / WebFetch rules; then the approval mode".into(),
        notes,
        details: Map::new(),
    }
}

/// The rule string at `offset`, with its list key.
fn rule_at(root: &Node, offset: usize) -> Option<(&Node, String)> {
    let top = root.value.as_object()?;
    let mut lists: Vec<(&Node, String)> = Vec::new();
    for m in top {
        match (m.key.as_str(), &m.value.value) {
            ("permissions", Value::Object(ps)) => {
                for p in ps {
                    lists.push((&p.value, format!("permissions.{}", p.key)));
                }
            }
            ("tools", Value::Object(ts)) => {
                for t in ts {
                    lists.push((&t.value, format!("tools.{}", t.key)));
                }
            }
            (k @ ("excludeTools" | "allowedTools" | "coreTools"), _) => {
                lists.push((&m.value, k.to_string()))
            }
            _ => {}
        }
    }
    for (node, key) in lists {
        if let Value::Array(items) = &node.value {
            for i in items {
                if i.range.start <= offset && offset < i.range.end && i.value.as_str().is_some() {
                    return Some((i, key));
                }
            }
        }
    }
    None
}

/// Hover on a rule: what it is to Qwen and what it decides.
pub fn hover(analysis: &Analysis, offset: usize, policy: &Policy) -> Option<HoverInfo> {
    let root = analysis.root.as_ref()?;
    let (node, key) = rule_at(root, offset)?;
    let raw = node.value.as_str()?;
    let rule = model::parse_rule(raw);
    let mut md = format!("**`{}`** in `{key}`\n\n", rule.raw);
    if rule.invalid {
        md.push_str("Unbalanced parentheses: Qwen Code skips this rule.\n");
    } else {
        let kind = match rule.kind {
            Some(model::Kind::Command) => {
                "a command pattern (without `*` a word prefix; ` *` also the bare command)"
            }
            Some(model::Kind::Path) => {
                "a path glob (`//` absolute, `~/` home, `/` project root, otherwise the working directory)"
            }
            Some(model::Kind::Domain) => "a domain (and every subdomain)",
            Some(model::Kind::Literal) => "a literal value",
            None => "the whole tool",
        };
        md.push_str(&format!("Tool: `{}` — {kind}.\n", rule.tool));
        if let Some(s) = &rule.specifier
            && rule.kind == Some(model::Kind::Command)
        {
            let ex = super::lints::example_command(s);
            let v = decide::decide(policy, "run_shell_command", &json!({ "command": ex }));
            md.push_str(&format!(
                "\n`{ex}` → **{}** ({})\n",
                v.verdict.name(),
                v.reason
            ));
        }
        let list = match key.as_str() {
            "permissions.deny" | "tools.exclude" | "excludeTools" => List::Deny,
            "permissions.ask" => List::Ask,
            _ => List::Allow,
        };
        md.push_str(&format!(
            "\nAcross every settings file: deny > ask > allow; this rule is in the **{}** list.\n",
            list.name()
        ));
    }
    Some(HoverInfo {
        range: Some(node.range.clone()),
        markdown: md,
    })
}

/// Tool names inside a rule string.
pub fn completions(text: &str, analysis: &Analysis, offset: usize) -> Vec<Item> {
    let Some(root) = analysis.root.as_ref() else {
        return Vec::new();
    };
    let Some((node, _)) = rule_at(root, offset.saturating_sub(1)).or_else(|| rule_at(root, offset))
    else {
        return Vec::new();
    };
    let start = node.range.start + 1;
    let typed = text.get(start..offset).unwrap_or("");
    if typed.contains('(') {
        return Vec::new();
    }
    [
        "Bash",
        "Read",
        "Edit",
        "Write",
        "WebFetch",
        "Glob",
        "Grep",
        "WebSearch",
        "Agent",
        "Skill",
        "run_shell_command",
        "read_file",
        "write_file",
        "edit",
        "glob",
        "grep_search",
        "web_fetch",
    ]
    .iter()
    .filter(|n| n.starts_with(typed))
    .map(|n| Item {
        label: n.to_string(),
        kind: ItemKind::Value,
        detail: Some(format!("Qwen Code tool `{}`", model::canonical(n))),
        insert: n.to_string(),
        snippet: false,
        range: start..offset,
    })
    .collect()
}

/// The outline: the permission lists and their rules.
pub fn symbols(analysis: &Analysis) -> Vec<Symbol> {
    let Some(members) = analysis.root.as_ref().and_then(|r| r.value.as_object()) else {
        return Vec::new();
    };
    members
        .iter()
        .map(|m| {
            let children = match &m.value.value {
                Value::Object(ps) if m.key == "permissions" || m.key == "tools" => ps
                    .iter()
                    .map(|p| Symbol {
                        name: p.key.clone(),
                        detail: match &p.value.value {
                            Value::Array(a) => Some(format!(
                                "{} rule{}",
                                a.len(),
                                if a.len() == 1 { "" } else { "s" }
                            )),
                            Value::String(s) => Some(s.clone()),
                            _ => None,
                        },
                        kind: SymbolKind::Surface,
                        range: p.key_range.start..p.value.range.end,
                        selection: p.key_range.clone(),
                        children: match &p.value.value {
                            Value::Array(items) => items
                                .iter()
                                .filter_map(|i| {
                                    i.value.as_str().map(|s| Symbol {
                                        name: s.to_string(),
                                        detail: Some(p.key.clone()),
                                        kind: SymbolKind::Rule,
                                        range: i.range.clone(),
                                        selection: i.range.clone(),
                                        children: Vec::new(),
                                    })
                                })
                                .collect(),
                            _ => Vec::new(),
                        },
                    })
                    .collect(),
                _ => Vec::new(),
            };
            Symbol {
                name: m.key.clone(),
                detail: None,
                kind: SymbolKind::Key,
                range: m.key_range.start..m.value.range.end,
                selection: m.key_range.clone(),
                children,
            }
        })
        .collect()
}

pub fn lens_anchor(analysis: &Analysis) -> Option<Range<usize>> {
    let root = analysis.root.as_ref()?;
    let members = root.value.as_object()?;
    Some(
        members
            .iter()
            .rev()
            .find(|m| m.key == "permissions")
            .map(|m| m.key_range.clone())
            .unwrap_or(root.range.start..root.range.start),
    )
}
