//! Claude Code settings read exactly as the real CLI (2.1.332) read them:
//! every case the reference oracle recorded (`tests/fixtures/claude/oracle/`)
//! is replayed through the Claude Code format's analysis. For each settings
//! file: the rules permission-lsp says the CLI loads are the rules the CLI
//! loaded; every rule the CLI skipped, every setting it rejected and every
//! warning it printed is one of our findings with the CLI's own text; and
//! no finding claims a CLI message the CLI did not print.

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::formats::claude::rules::{self, List, Reading};
use permission_lsp::formats::{self, Role};
use serde_json::Value;
use std::collections::BTreeSet;

fn observed() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/claude/oracle/observed.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap(),
    }
}

/// The CLI lists `Task(…)` as `Agent(…)` and `KillShell` as `TaskStop`
/// (the old names of those tools), and escapes parentheses inside the
/// content.
fn normal(rule: &str) -> String {
    let r = rule.replace("\\)", ")").replace("\\(", "(");
    if let Some(rest) = r.strip_prefix("Task(") {
        return format!("Agent({rest}");
    }
    if r == "KillShell" {
        return "TaskStop".into();
    }
    r
}

/// The rules of a file we say the CLI loads, per list.
fn loaded_by_us(text: &str, accepted: bool) -> Vec<(String, BTreeSet<String>)> {
    if !accepted {
        return Vec::new();
    }
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Ok(Value::Object(root)) = serde_json::from_str::<Value>(body) else {
        return Vec::new();
    };
    let Some(Value::Object(p)) = root.get("permissions") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for list in [List::Allow, List::Ask, List::Deny] {
        let Some(Value::Array(items)) = p.get(list.key()) else {
            continue;
        };
        let set: BTreeSet<String> = items
            .iter()
            .filter_map(Value::as_str)
            .filter(|r| matches!(rules::read(r, list), Reading::Loaded(..)))
            .map(normal)
            .collect();
        if !set.is_empty() {
            out.push((list.key().to_string(), set));
        }
    }
    out
}

#[test]
fn every_observed_case_is_read_as_the_cli_read_it() {
    let claude = formats::by_id("claude").expect("the Claude Code format");
    let options = AnalysisOptions::for_profile(claude.default_profile());
    let cases = observed();
    assert!(cases.len() >= 27);
    let mut checked_messages = 0;
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let mut our_issues: Vec<(String, String)> = Vec::new();
        for (source, key) in [
            ("user", "userSettings"),
            ("project", "projectSettings"),
            ("local", "localSettings"),
        ] {
            let Some(settings) = case["settings"].get(source) else {
                continue;
            };
            let text = text_of(settings);
            let (_, analysis) = claude.analyse_file(Role::Config, text.as_bytes(), &options, None);
            // 1. The rules loaded.
            let ours = loaded_by_us(&text, analysis.accepted);
            let theirs: Vec<(String, BTreeSet<String>)> = case["rules_loaded"]
                .get(key)
                .and_then(Value::as_object)
                .map(|lists| {
                    let mut v: Vec<(String, BTreeSet<String>)> = lists
                        .iter()
                        .map(|(l, rs)| {
                            (
                                l.clone(),
                                rs.as_array()
                                    .unwrap()
                                    .iter()
                                    .map(|r| normal(r.as_str().unwrap()))
                                    .collect(),
                            )
                        })
                        .collect();
                    v.sort_by_key(|(l, _)| ["allow", "ask", "deny"].iter().position(|x| x == l));
                    v
                })
                .unwrap_or_default();
            assert_eq!(ours, theirs, "{id}: rules loaded from {source}\n{text}");
            for d in &analysis.diagnostics {
                if let Some(issue) = &d.runtime_issue {
                    our_issues.push((source.to_string(), issue.clone()));
                }
            }
            // 2. What the CLI said about this file is among our findings.
            for inv in case["rules_invalid"].as_array().unwrap() {
                if inv["source"].as_str() != Some(source) {
                    continue;
                }
                let message = inv["message"].as_str().unwrap();
                assert!(
                    analysis
                        .diagnostics
                        .iter()
                        .any(|d| d.runtime_issue.as_deref() == Some(message)),
                    "{id}: the CLI said about {source}: {message}\nours: {:#?}",
                    analysis.diagnostics
                );
                checked_messages += 1;
            }
        }
        // 3. Every warning is ours, and every CLI text we claim was printed.
        let warnings: Vec<&str> = case["rule_warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        for w in &warnings {
            assert!(
                our_issues.iter().any(|(_, i)| w.ends_with(i.as_str())),
                "{id}: the CLI warned: {w}\nours: {our_issues:#?}"
            );
            checked_messages += 1;
        }
        for (source, issue) in &our_issues {
            let printed = case["rules_invalid"]
                .as_array()
                .unwrap()
                .iter()
                .any(|i| i["source"].as_str() == Some(source) && i["message"] == *issue)
                || warnings.iter().any(|w| w.ends_with(issue.as_str()));
            assert!(
                printed,
                "{id}: we claim the CLI says, about {source}: {issue}"
            );
        }
    }
    assert!(checked_messages >= 25, "{checked_messages}");
}
