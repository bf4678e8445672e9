//! The editor's and the CLI's answers for Gemini CLI: the simulation
//! report, the rules in effective-priority order, hover on a rule,
//! completion in policy files, the outline.

use super::engine::decide::{self, Verdict};
use super::engine::policy::{Origin, Policy};
use super::model;
use super::model::toml_policy::RuleSpec;
use crate::contract::report::{
    DecidingRule, EffectivePolicyReport, EffectiveRule, FileStatus, RulePlace, SCHEMA_VERSION,
    SimulationReport,
};
use crate::contract::{CallRequest, Simulator};
use crate::ide::items::{HoverInfo, Item, ItemKind};
use crate::ide::symbols::{Symbol, SymbolKind};
use serde_json::{Map, json};
use std::ops::Range;

pub fn runtime() -> String {
    format!("gemini-cli {}", super::VERSION)
}

fn place_in(
    text: &str,
    path: &std::path::Path,
    at: usize,
    index: &crate::text::LineIndex,
) -> RulePlace {
    let (line, column) = crate::text::line_col_1(index, text, at.min(text.len()));
    RulePlace {
        file: Some(path.display().to_string()),
        line: Some(line),
        column: Some(column),
    }
}

/// Where an engine rule is written.
pub fn place(p: &Policy, i: usize) -> RulePlace {
    place_with(p, i, &mut Places::default())
}

/// Each file's line index and rule starts, built once for a session's
/// every rule (linear, not a line count and a search per rule).
#[derive(Default)]
struct Places {
    docs:
        rustc_hash::FxHashMap<usize, (crate::text::LineIndex, rustc_hash::FxHashMap<usize, usize>)>,
    settings: rustc_hash::FxHashMap<usize, crate::text::LineIndex>,
}

fn place_with(p: &Policy, i: usize, places: &mut Places) -> RulePlace {
    match &p.rules[i].origin {
        Origin::File { doc, rule, .. } => {
            let d = &p.policies[*doc];
            let (index, starts) = places.docs.entry(*doc).or_insert_with(|| {
                let mut starts = rustc_hash::FxHashMap::default();
                for r in &d.read.rules {
                    starts.entry(r.index).or_insert(r.range.start);
                }
                (crate::text::LineIndex::new(&d.text), starts)
            });
            let at = starts.get(rule).copied().unwrap_or(0);
            place_in(&d.text, &d.path, at, index)
        }
        Origin::Settings {
            place: Some((f, r)),
            ..
        } => {
            let s = &p.settings[*f];
            let index = places
                .settings
                .entry(*f)
                .or_insert_with(|| crate::text::LineIndex::new(&s.text));
            place_in(&s.text, &s.path, r.start, index)
        }
        Origin::Builtin { file, .. } => RulePlace {
            file: Some(format!("(Gemini CLI's bundled policies/{file})")),
            line: None,
            column: None,
        },
        Origin::Settings { .. } => RulePlace {
            file: None,
            line: None,
            column: None,
        },
    }
}

/// How a rule without a command pattern reads in the effective policy.
pub const EVERY_CALL: &str = "(every call)";

/// How a `commandPrefix` rule reads in the effective policy.
fn prefix_display(prefix: &str) -> String {
    format!("commandPrefix \"{prefix}\"")
}

/// The `commandPrefix` of a rule as [`pattern_of`] writes it.
pub fn prefix_of_display(pattern: &str) -> Option<&str> {
    pattern.strip_prefix("commandPrefix \"")?.strip_suffix('"')
}

fn pattern_of(p: &Policy, i: usize) -> String {
    let r = &p.rules[i];
    match &r.origin {
        Origin::File { doc, expanded, .. } => {
            let e = &p.policies[*doc].read.expanded[*expanded];
            match (&e.prefix, &r.pattern) {
                (Some(pre), _) => prefix_display(pre),
                (None, Some(re)) => format!("/{}/", re.source),
                _ => EVERY_CALL.into(),
            }
        }
        Origin::Settings { entry, .. } if !entry.is_empty() => entry.clone(),
        _ => match &r.pattern {
            Some(re) => format!("/{}/", re.source),
            None => EVERY_CALL.into(),
        },
    }
}

fn issues(p: &Policy) -> Vec<String> {
    let mut v = p.notes.clone();
    if let Some(f) = &p.fatal {
        v.insert(0, f.clone());
    }
    v
}

pub struct GeminiSimulator {
    pub policy: Policy,
}

impl Simulator for GeminiSimulator {
    fn simulate(&self, call: &CallRequest) -> SimulationReport {
        simulate(&self.policy, call)
    }
}

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
    // Headless, the CLI cannot ask: a call the policy asks about is
    // refused ("requires user confirmation, which is not supported in
    // non-interactive mode").
    report.decision = match o.verdict {
        Verdict::Allow => "allow",
        Verdict::Ask if p.interactive => "ask",
        _ => "deny",
    }
    .into();
    report.tool_hidden = o.verdict == Verdict::Hidden;
    report
        .details
        .insert("verdict".into(), json!(o.verdict.name()));
    report.reason = Some(o.reason.clone());
    if let Some(i) = o.rule {
        let r = &p.rules[i];
        report.rule = Some(DecidingRule {
            surface: r.tool_name.clone(),
            pattern: pattern_of(p, i),
            layer: json!(r.source),
            scope: r.source.clone(),
            place: place(p, i),
        });
        report.explanation.push(format!(
            "rule: {} `{}` ({}) at effective priority {}",
            r.source,
            r.decision.name(),
            pattern_of(p, i),
            decide::fmt_priority(r.priority)
        ));
        if o.verdict == Verdict::Deny
            && let Some(m) = &r.deny_message
        {
            report.agent_message = Some(m.clone());
        }
    }
    report.explanation.push(format!("why: {}", o.reason));
    if o.verdict == Verdict::Ask && !p.interactive {
        report.explanation.push("headless: the policy asks, and Gemini CLI refuses the call (\"requires user confirmation, which is not supported in non-interactive mode\")".into());
    }
    report.explanation.push(format!(
        "approval mode: {} ({})",
        p.mode.flag_name(),
        p.mode_source
    ));
    report.explanation.push(if p.interactive {
        "session: interactive (TUI or ACP): a call no rule decides asks; headless (`gemini -p`, --headless here) denies it".into()
    } else {
        "session: headless (`gemini -p`): a call no rule decides is denied, and a tool that would ask is not registered".into()
    });
    for n in &o.notes {
        report.explanation.push(format!("note: {n}"));
    }
    if !o.incomplete.is_empty() {
        report.explanation.push(format!(
            "INCOMPLETE: not simulated as Gemini CLI decides: {} — the CLI's answer may differ",
            o.incomplete.join("; ")
        ));
        report
            .details
            .insert("incomplete".into(), json!(o.incomplete));
    }
    report
}

/// Every rule of the session, highest effective priority first.
pub fn effective(p: &Policy) -> EffectivePolicyReport {
    let mut files: Vec<FileStatus> = p
        .settings
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
    for d in &p.policies {
        let mut iss: Vec<String> = d.read.problems.iter().map(|x| x.message.clone()).collect();
        if let Some(w) = &d.not_loaded {
            iss.insert(0, w.clone());
        }
        files.push(FileStatus {
            scope: match &d.not_loaded {
                None => format!("{} policies", d.tier.name()),
                Some(_) => format!("{} policies (not loaded)", d.tier.name()),
            },
            path: Some(d.path.display().to_string()),
            present: true,
            accepted: Some(d.not_loaded.is_none() && d.read.dropped().is_none()),
            permission: None,
            issues: (!iss.is_empty()).then_some(iss),
        });
    }
    let mut places = Places::default();
    let rules = p
        .rules
        .iter()
        .enumerate()
        // The bundled rules of other modes and the other kind of session
        // are left out.
        .filter(|(_, r)| {
            !matches!(r.origin, Origin::Builtin { .. })
                || (r.modes.as_ref().is_none_or(|m| m.contains(&p.mode))
                    && r.interactive.is_none_or(|i| i == p.interactive))
        })
        .map(|(i, r)| EffectiveRule {
            index: i,
            surface: r.tool_name.clone(),
            pattern: pattern_of(p, i),
            action: r.decision.verdict().into(),
            reason: {
                let mut why = Vec::new();
                if let Some(m) = &r.modes {
                    why.push(format!(
                        "modes {}",
                        m.iter()
                            .map(|m| m.rule_name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                if let Some(x) = r.interactive {
                    why.push(if x {
                        "interactive only".into()
                    } else {
                        "headless only".to_string()
                    });
                }
                if p.skipped(r) {
                    why.push("skipped: security.disableAlwaysAllow".into());
                }
                (!why.is_empty()).then(|| why.join("; "))
            },
            layer: json!(decide::fmt_priority(r.priority)),
            scope: r.source.clone(),
            place: place_with(p, i, &mut places),
        })
        .collect();
    let mut notes = issues(p);
    notes.push(format!(
        "approval mode: {} ({})",
        p.mode.flag_name(),
        p.mode_source
    ));
    notes.push(format!(
        "folder trust is {}; this folder is {}",
        if p.folder_trust { "on" } else { "off" },
        if p.trusted { "trusted" } else { "not trusted" }
    ));
    EffectivePolicyReport {
        schema_version: SCHEMA_VERSION,
        runtime: runtime(),
        agent: None,
        files,
        rules,
        precedence: "the highest effective priority (tier + priority/1000: admin 5, user 4, workspace 3, extension 2, default 1) decides; ties go to the rule read first; a compound command part by part (any deny denies, any ask asks); a redirection turns allow into ask; build files always ask".into(),
        notes,
        details: Map::new(),
    }
}

/// The rule whose table holds `offset`.
pub fn rule_at(rules: &[RuleSpec], offset: usize) -> Option<&RuleSpec> {
    rules
        .iter()
        .rfind(|r| r.range.start <= offset && offset <= r.range.end)
}

/// Hover on a rule of a policy file.
pub fn hover(
    p: &Policy,
    doc: Option<usize>,
    rules: &[RuleSpec],
    offset: usize,
) -> Option<HoverInfo> {
    let r = rule_at(rules, offset)?;
    let tier = doc
        .map(|d| p.policies[d].tier)
        .unwrap_or(super::engine::policy::Tier::User);
    let eff = tier as i64 as f64 + r.priority.value as f64 / 1000.0;
    let names: Vec<&str> = r.tool_names.iter().map(|t| t.value.as_str()).collect();
    let mut md = format!(
        "**rule #{}**: `{}` for `{}`\n\nEffective priority **{}** ({} tier {} + {}/1000).",
        r.index + 1,
        r.decision.value.name(),
        names.join("`, `"),
        decide::fmt_priority(eff),
        tier.name(),
        tier as i64,
        r.priority.value
    );
    if let Some(d) = doc
        && let Some(why) = &p.policies[d].not_loaded
    {
        md.push_str(&format!("\n\n**Not loaded**: {why}"));
    }
    if let Some(t) = names.first()
        && let Some((tool, args)) = super::lints::witness(r, t)
    {
        let o = decide::decide(p, &tool, &args);
        let by = o
            .rule
            .map(|i| {
                format!(
                    "{} at {}",
                    p.rules[i].source,
                    decide::fmt_priority(p.rules[i].priority)
                )
            })
            .unwrap_or_else(|| o.reason.clone());
        md.push_str(&format!(
            "\n\n`{}` {} → **{}** ({by})",
            tool,
            args,
            o.verdict.name()
        ));
    }
    Some(HoverInfo {
        range: Some(r.range.clone()),
        markdown: md,
    })
}

const KEYS: &[(&str, &str)] = &[
    ("toolName", "a tool name, a list, `*`, or `mcp_<server>_*`"),
    ("decision", "`allow`, `deny` or `ask_user`"),
    (
        "priority",
        "0–999 within the tier (effective: tier + priority/1000)",
    ),
    (
        "commandPrefix",
        "shell only: the command starts with this word sequence",
    ),
    (
        "commandRegex",
        "shell only: a JavaScript regex after `\"command\":\"`",
    ),
    ("argsPattern", "a JavaScript regex over the arguments' JSON"),
    ("mcpName", "the MCP server"),
    ("modes", "`default`, `autoEdit`, `yolo`, `plan`"),
    (
        "interactive",
        "true: interactive sessions only; false: headless only",
    ),
    ("allowRedirection", "an allow that stays allow with `>`/`<`"),
    ("denyMessage", "the text the model sees on deny"),
    (
        "toolAnnotations",
        "MCP tool annotations to match (`{ readOnlyHint = true }`)",
    ),
];

/// Completion in a policy file: keys at a line's start, decisions, modes
/// and tool names inside their strings.
pub fn completions(text: &str, offset: usize) -> Vec<Item> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line = &text[line_start..offset];
    let item = |label: &str, detail: &str, range: Range<usize>| Item {
        label: label.to_string(),
        kind: ItemKind::Value,
        detail: Some(detail.to_string()),
        insert: label.to_string(),
        snippet: false,
        range,
    };
    if !line.contains('=') {
        let typed = line.trim_start();
        let start = offset - typed.len();
        return KEYS
            .iter()
            .filter(|(k, _)| k.starts_with(typed))
            .map(|(k, d)| item(k, d, start..offset))
            .collect();
    }
    let key = line.split('=').next().unwrap_or("").trim();
    let Some(q) = line.rfind('"') else {
        return Vec::new();
    };
    if line[..q].matches('"').count() % 2 == 1 {
        return Vec::new();
    }
    let typed = &line[q + 1..];
    let start = offset - typed.len();
    let values: Vec<(&str, &str)> = match key {
        "decision" => vec![
            ("allow", "run without asking"),
            ("deny", "refuse"),
            ("ask_user", "ask"),
        ],
        "modes" => vec![
            ("default", "approval mode"),
            ("autoEdit", "--approval-mode auto_edit"),
            ("yolo", "approval mode"),
            ("plan", "approval mode"),
        ],
        "toolName" => model::SIMULATED_TOOLS
            .iter()
            .map(|t| (*t, "Gemini CLI tool"))
            .chain([("*", "every tool"), ("mcp_*", "every MCP tool")])
            .collect(),
        _ => Vec::new(),
    };
    values
        .into_iter()
        .filter(|(v, _)| v.starts_with(typed))
        .map(|(v, d)| item(v, d, start..offset))
        .collect()
}

/// The outline: one entry per rule.
pub fn symbols(rules: &[RuleSpec]) -> Vec<Symbol> {
    rules
        .iter()
        .map(|r| {
            let names: Vec<&str> = r.tool_names.iter().map(|t| t.value.as_str()).collect();
            let what = match &r.command_prefix {
                Some(p) => format!(
                    "{} {}",
                    names.join(", "),
                    p.iter()
                        .map(|x| x.value.as_str())
                        .collect::<Vec<_>>()
                        .join(" | ")
                ),
                None => names.join(", "),
            };
            let sel = r.range.start..(r.range.start + 8).min(r.range.end);
            Symbol {
                name: format!("rule #{}: {what}", r.index + 1),
                detail: Some(format!("{} {}", r.decision.value.name(), r.priority.value)),
                kind: SymbolKind::Rule,
                range: r.range.clone(),
                selection: sel,
                children: Vec::new(),
            }
        })
        .collect()
}
