//! Claude Code settings read exactly as the real CLI (2.1.332) read them:
//! every case the reference oracle recorded (`tests/fixtures/claude/oracle/`)
//! is replayed through the Claude Code format's analysis. For each settings
//! file: the rules permission-lsp says the CLI loads are the rules the CLI
//! loaded; every rule the CLI skipped, every setting it rejected and every
//! warning it printed is one of our findings with the CLI's own text; and
//! no finding claims a CLI message the CLI did not print.

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::formats::claude::model::rules::{self, List, Reading};
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

/// The CLI lists rules with `\\`, `\(` and `\)` escaped; the same reading
/// on both sides compares what the rules mean.
fn unescape(rule: &str) -> String {
    let mut out = String::with_capacity(rule.len());
    let mut chars = rule.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&n) = chars.peek()
            && matches!(n, '\\' | '(' | ')')
        {
            out.push(n);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

/// The CLI lists `Task(…)` as `Agent(…)` and `KillShell` as `TaskStop`
/// (the old names of those tools), and escapes parentheses inside the
/// content.
fn normal(rule: &str) -> String {
    // The debug log redacts what looks like a secret after `key:`.
    let r = unescape(rule).replace(":[REDACTED]", ":*");
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
            .map(|r| {
                // The CLI lists a deny or ask `Tool(*)` as `Tool`.
                match r.strip_suffix("(*)") {
                    Some(tool) if list != List::Allow || !matches!(tool, "Read" | "Edit") => {
                        tool.to_string()
                    }
                    _ => normal(r),
                }
            })
            .collect();
        if !set.is_empty() {
            out.push((list.key().to_string(), set));
        }
    }
    out
}

#[test]
fn every_observed_case_is_read_as_the_cli_read_it() {
    let cases = observed();
    assert!(cases.len() >= 27);
    let (checked_messages, never_matched) = read_as_the_cli(&cases);
    assert!(checked_messages >= 25, "{checked_messages}");
    assert!(never_matched >= 3, "{never_matched}");
}

/// Every real settings file of the corpus (`tests/fixtures/claude/corpus/`,
/// with the keys that run commands or set the environment removed) as the
/// CLI read it (`observed-corpus.json`): the rules it loaded, skipped and
/// warned about are exactly ours.
#[test]
fn every_corpus_file_is_read_as_the_cli_read_it() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/claude/oracle/observed-corpus.json"
    );
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(cases.len(), 80);
    let (checked_messages, _) = read_as_the_cli(&cases);
    assert!(checked_messages >= 40, "{checked_messages}");
}

/// Replays cases; returns how many CLI messages were checked and how many
/// never-matching rules were confirmed by a recorded call.
fn read_as_the_cli(cases: &[Value]) -> (usize, usize) {
    let claude = formats::by_id("claude").expect("the Claude Code format");
    let options = AnalysisOptions::for_profile(claude.default_profile());
    let no_calls = Value::Array(Vec::new());
    let mut checked_messages = 0;
    let mut never_matched = 0;
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let calls = case.get("calls").unwrap_or(&no_calls);
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
            let (_, analysis) =
                claude.analyse_file(Role::Config, text.as_bytes().to_vec(), &options, None);
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
        // 3. A bypass we name for a deny rule was not denied by the CLI.
        for (_source, settings) in case["settings"].as_object().unwrap() {
            let text = text_of(settings);
            let (_, a) =
                claude.analyse_file(Role::Config, text.as_bytes().to_vec(), &options, None);
            for d in a.diagnostics.iter().filter(|d| d.code.as_str() == "CC018") {
                let call = d.message.split('`').nth(1).unwrap();
                // Cases without calls (the corpus) cannot tell.
                let Some(verdict) = calls
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["input"]["command"] == call)
                else {
                    // Recorded for every corpus file in
                    // `observed-spellings.json` (`claude_simulate`).
                    continue;
                };
                assert_ne!(verdict["verdict"], "DENY", "{id}: {call}");
                checked_messages += 1;
            }
        }
        // 4. A rule we say never matches did not decide the call we name
        // (`:*` in the middle: the call in the message; spaces around the
        // tool name: the rule's own command). Only `npm …` calls tell: the
        // CLI asks about them by default, while read-only commands such as
        // `git status` are allowed with or without a rule.
        let no_settings = serde_json::Map::new();
        let with_calls = if calls.as_array().unwrap().is_empty() {
            &no_settings
        } else {
            case["settings"].as_object().unwrap()
        };
        for (source, settings) in with_calls {
            let text = text_of(settings);
            let (_, a) =
                claude.analyse_file(Role::Config, text.as_bytes().to_vec(), &options, None);
            for d in &a.diagnostics {
                let rule: String = match serde_json::from_str(&text[d.range.clone()]) {
                    Ok(r) => r,
                    Err(_) => continue,
                };
                let call = match d.code.as_str() {
                    "CC009" => d.message.rsplit('`').nth(1).unwrap().to_string(),
                    "CC007" => rules::split(&rule).unwrap().content.unwrap().to_string(),
                    _ => continue,
                };
                let list = ["allow", "ask", "deny"]
                    .into_iter()
                    .find(|l| {
                        settings["permissions"][*l]
                            .as_array()
                            .is_some_and(|a| a.iter().any(|r| r == rule.as_str()))
                    })
                    .unwrap();
                let decided = match list {
                    "allow" => "ALLOW",
                    "deny" => "DENY",
                    _ => continue,
                };
                if !call.starts_with("npm ") {
                    continue;
                }
                if let Some(c) = calls
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["input"]["command"] == call.as_str())
                {
                    assert_ne!(
                        c["verdict"], decided,
                        "{id} {source}: {rule} decided `{call}`"
                    );
                    never_matched += 1;
                }
            }
        }
        // 5. Every warning is ours, and every CLI text we claim was printed.
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
    (checked_messages, never_matched)
}

/// The recorded cases about modes and trust (`observed-scopes.json`),
/// replayed through the analysis of each settings file next to the others:
/// a file whose `defaultMode` the CLI ignored (the call was not decided by
/// that mode) carries the mode-ignored finding, and only such a file; in an
/// untrusted project exactly the allow rules whose calls the CLI did not
/// allow carry the untrusted finding, as many as the CLI said it ignored.
#[test]
fn modes_and_trust_as_the_cli_applied_them() {
    let claude = formats::by_id("claude").expect("the Claude Code format");
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/claude/oracle/observed-scopes.json"
    );
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert!(cases.len() >= 6);
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let dir = std::env::temp_dir().join(format!("plsp-cc-{}-{id}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (home, project) = (dir.join("home"), dir.join("proj"));
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        let trusted = case["trusted"].as_bool().unwrap();
        let state = serde_json::json!({"projects": {project.display().to_string(): {"hasTrustDialogAccepted": trusted}}});
        std::fs::write(home.join(".claude.json"), state.to_string()).unwrap();
        let file = |source: &str| match source {
            "user" => home.join(".claude/settings.json"),
            "project" => project.join(".claude/settings.json"),
            _ => project.join(".claude/settings.local.json"),
        };
        for (source, settings) in case["settings"].as_object().unwrap() {
            std::fs::write(file(source), text_of(settings)).unwrap();
        }
        let mut options = AnalysisOptions::for_profile(claude.default_profile());
        options.home = home.display().to_string();
        let verdict = |cmd: &str| {
            case["calls"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["input"]["command"] == cmd)
                .map(|c| c["verdict"].as_str().unwrap().to_string())
        };
        let mut untrusted_findings = 0;
        for (source, settings) in case["settings"].as_object().unwrap() {
            let doc = file(source);
            let text = text_of(settings);
            let ctx = permission_lsp::workspace::resolve(
                &options,
                Some(&project),
                Some(&doc),
                &Default::default(),
                None,
            );
            let a = claude.analyse(Role::Config, &text, &ctx);
            let codes: Vec<&str> = a.diagnostics.iter().map(|d| d.code.as_str()).collect();
            // The mode: bypassPermissions took effect iff the call was allowed.
            if settings["permissions"]["defaultMode"] == "bypassPermissions" {
                let honoured = verdict("npm run build").as_deref() == Some("ALLOW");
                assert_eq!(
                    codes.contains(&"CC016"),
                    !honoured,
                    "{id} {source}: {codes:?}"
                );
            } else {
                assert!(!codes.contains(&"CC016"), "{id} {source}: {codes:?}");
            }
            // Trust: an allow rule flagged iff its call was not allowed.
            for d in a.diagnostics.iter().filter(|d| d.code.as_str() == "CC017") {
                let rule: String = serde_json::from_str(&text[d.range.clone()]).unwrap();
                let cmd = rule.trim_start_matches("Bash(").trim_end_matches(')');
                assert_ne!(verdict(cmd).as_deref(), Some("ALLOW"), "{id}: {rule}");
                untrusted_findings += 1;
            }
        }
        let stderr = case["stderr"].as_str().unwrap();
        let said = stderr
            .strip_prefix("Ignoring ")
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(0);
        assert_eq!(untrusted_findings, said, "{id}: {stderr}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
