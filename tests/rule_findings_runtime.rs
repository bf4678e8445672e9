//! Every rule the analysis calls dead (PL210, PL211) or redundant (PL212)
//! in the corpus and in the findings' own examples is checked against the
//! reference runtime: for calls the rule matches, the runtime decides
//! exactly the same with the rule and without it. Every tool the analysis
//! calls hidden (PL209) is hidden by the runtime too.
//!
//! Needs the runtime from npm (see `differential.rs`); skipped without it
//! unless `DIFFERENTIAL_REQUIRED=1`.

use crate::common;

use common::oracle::{HOME, oracle_or_skip, run_oracle};
use permission_lsp::formats::pi::lints::rule_lints::ordered_rules;
use permission_lsp::formats::pi::lints::rule_order::{
    Finding, analyze_rule_order, is_extension_surface,
};
use permission_lsp::formats::pi::model::State;
use permission_lsp::formats::pi::model::read::read_config;
use serde_json::{Value, json};

/// Values a pattern matches: its wildcards filled in a few ways.
fn samples(pattern: &str, example: &str) -> Vec<String> {
    let mut out = vec![example.to_string()];
    for (star, any) in [
        ("", "q"),
        ("x", "q"),
        ("a/b c", "Z"),
        (" --flag value", "1"),
    ] {
        let s = pattern.replace('*', star).replace('?', any);
        let s = s
            .strip_prefix("~/")
            .map_or(s.clone(), |r| format!("{HOME}/{r}"));
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

fn call(surface: &str, value: &str) -> Option<Value> {
    Some(match surface {
        "bash" => json!({ "tool": "bash", "input": { "command": value } }),
        "read" | "write" | "edit" | "grep" | "find" | "ls" => {
            json!({ "tool": surface, "input": { "path": value, "pattern": "x", "content": "x", "oldText": "a", "newText": "b" } })
        }
        "path" | "external_directory" => json!({ "tool": "read", "input": { "path": value } }),
        "skill" => json!({ "tool": "skill", "input": { "name": value } }),
        "mcp" => json!({ "tool": "mcp", "input": { "tool": value } }),
        _ => return None,
    })
}

/// The config as JSON without one rule (or without the surface, for a
/// string surface).
fn without(config: &Value, surface: &str, pattern: &str) -> Value {
    let mut c = config.clone();
    let perm = c["permission"].as_object_mut().unwrap();
    match perm.get_mut(surface) {
        Some(Value::Object(map)) => {
            map.shift_remove(pattern);
        }
        _ => {
            perm.shift_remove(surface);
        }
    }
    c
}

fn inputs() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let dir = format!("{}/tests/fixtures/corpus/pi", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for p in files {
        if p.extension().is_some_and(|e| e == "json") {
            let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            out.push((p.file_name().unwrap().to_string_lossy().into_owned(), text));
        }
    }
    for (n, text) in [
        r#"{"permission":{"bash":{"git push *":"deny","git *":"allow","git status":"allow","*":"ask","npm *":"allow","npm test":"allow"}}}"#,
        r#"{"permission":{"*":"deny","bash":{"rm -rf /":"deny","rm *":"ask","ls":"allow"},"read":{"*":"deny","src/*":"allow"}}}"#,
        r#"{"permission":{"mcp":{"exa_*":"allow","*":"ask","mcp_status":"allow"},"skill":{"web-*":"allow","web-design":"allow","*":"deny"}}}"#,
    ]
    .iter()
    .enumerate()
    {
        out.push((format!("example-{n}"), text.to_string()));
    }
    out
}

#[test]
fn dead_redundant_and_hidden_rules_agree_with_the_runtime() {
    let Some(dir) = oracle_or_skip("rule findings against the runtime") else {
        return;
    };
    let mut cases = Vec::new();
    let mut expect_hidden = Vec::new();
    let mut checked = 0;
    for (name, text) in inputs() {
        let file = read_config(
            &text,
            permission_lsp::formats::pi::model::versions::DEFAULT_TARGET,
        );
        let Some(cfg) = file.config() else { continue };
        let Some(surfaces) = &cfg.permission else {
            continue;
        };
        let rules = ordered_rules(surfaces);
        let default = cfg.universal_default().unwrap_or(State::Ask);
        let stripped = permission_lsp::syntax::strip::strip_json_comments(&text);
        let Ok(json) = serde_json::from_str::<Value>(&stripped.text) else {
            continue;
        };
        for f in analyze_rule_order(&rules, default, HOME) {
            let (rule, example) = match &f {
                Finding::Overridden { rule, example, .. }
                | Finding::Shadowed { rule, example, .. }
                | Finding::Redundant { rule, example, .. } => (*rule, example.clone()),
                Finding::ToolHidden { tool, .. } => {
                    if let Some(c) = call(tool, "x") {
                        expect_hidden.push(format!("{name}/{tool}"));
                        cases.push(json!({ "id": format!("{name}/{tool}/hidden"), "global": text, "cwd": "/work/p", "calls": [c] }));
                    }
                    continue;
                }
                // (About this checker's budget: nothing to confirm.)
                Finding::Unexamined { .. } => continue,
            };
            let r = &rules[rule];
            if is_extension_surface(&r.surface) {
                continue;
            }
            let calls: Vec<Value> = samples(&r.pattern, &example)
                .iter()
                .filter_map(|v| call(&r.surface, v))
                .collect();
            let id = format!("{name}/{}/{}", r.surface, r.pattern);
            let reduced = serde_json::to_string(&without(&json, &r.surface, &r.pattern)).unwrap();
            let original = serde_json::to_string(&json).unwrap();
            cases.push(json!({ "id": format!("{id}/with"), "global": original, "cwd": "/work/p", "calls": calls }));
            cases.push(json!({ "id": format!("{id}/without"), "global": reduced, "cwd": "/work/p", "calls": calls }));
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} findings to confirm");
    let results = run_oracle(&dir, &cases);
    let by_id: std::collections::HashMap<String, &Value> = results
        .iter()
        .map(|r| (r["id"].as_str().unwrap().to_string(), r))
        .collect();
    let mut failures = Vec::new();
    for c in &cases {
        let id = c["id"].as_str().unwrap();
        if let Some(base) = id.strip_suffix("/with") {
            let with = by_id[id];
            let without = by_id[&format!("{base}/without")];
            assert!(with.get("error").is_none(), "{id}: {}", with["error"]);
            let strip = |v: &Value| -> Vec<Value> {
                v["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| {
                        let gates: Vec<Value> = r["gates"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|g| json!([g["gate"], g["state"], g["reason"]]))
                            .collect();
                        json!([r["decision"], gates])
                    })
                    .collect()
            };
            if strip(with) != strip(without) {
                failures.push(format!(
                    "{base}: removing it changed {:?} into {:?}",
                    strip(with),
                    strip(without)
                ));
            }
        } else if id.ends_with("/hidden") {
            let r = by_id[id];
            if r["toolHidden"][0] != json!(true) {
                failures.push(format!("{id}: the runtime does not hide the tool"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} findings refuted:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!(
        "{checked} dead/redundant rules and {} hidden tools confirmed by the runtime",
        expect_hidden.len()
    );
}

/// Every quick fix offered for a finding in the corpus (and in the
/// findings' examples) yields a file the reference runtime loads without
/// an issue, when the original loaded without one.
#[test]
fn quick_fix_results_are_accepted_by_the_runtime() {
    use permission_lsp::analysis::AnalysisOptions;
    use permission_lsp::formats::pi::ide::rewrites::code_actions;
    use permission_lsp::formats::pi::lints::analyze_config_text;
    use permission_lsp::ide::code_actions::apply;
    let Some(dir) = oracle_or_skip("quick fixes against the runtime") else {
        return;
    };
    let mut cases = Vec::new();
    // The runtime here is 20.7.3: read as it reads.
    let options = AnalysisOptions {
        home: HOME.into(),
        ..AnalysisOptions::for_profile(pinned_20_7_3())
    };
    let mut extra: Vec<(String, String)> = inputs();
    for (n, t) in [
        "{\n  \"permission\": {\n    \"bash\": {\n      // the exception\n      \"git push *\": \"deny\", // keep pushes out\n      \"git *\": \"allow\",\n      \"npm *\": \"ask\"\n    }\n  }\n}\n",
        "{ \"permission\": { \"mcp\": { \"*\": \"ask\", \"myServer:*\": \"allow\", \"dangerousServer\": \"deny\" } } }\n",
        "{ \"permission\": { \"bash\": { \"npm*\": \"allow\", \"git status \": \"allow\", \"*\": \"deny\" }, \"write\": { \"src/**/*.ts\": \"allow\" }, \"Bash\": \"ask\" } }\n",
    ]
    .iter()
    .enumerate()
    {
        extra.push((format!("fix-{n}"), t.to_string()));
    }
    for (name, text) in extra {
        let a = analyze_config_text(&text, &options);
        if !a.file.accepted() {
            continue;
        }
        let root = a.file.parsed.root.as_ref();
        for (k, d) in a.diagnostics.iter().enumerate() {
            for action in code_actions(&text, root, &a.diagnostics, d.range.clone()) {
                if action.fixes.as_ref().is_none_or(|f| f != d) {
                    continue;
                }
                let fixed = apply(&text, &action.edits);
                cases.push(json!({ "id": format!("{name}/{k}/{}", action.title), "global": fixed, "cwd": "/work/p", "calls": [] }));
            }
        }
    }
    assert!(cases.len() >= 50, "only {} fixes", cases.len());
    let mut failures = Vec::new();
    for r in run_oracle(&dir, &cases) {
        let issues = r["configIssues"].as_array().map_or(0, Vec::len);
        if r.get("error").is_some() || issues > 0 {
            failures.push(format!("{}: {}", r["id"], r["configIssues"]));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixed files rejected:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} quick-fix results loaded by the runtime without an issue",
        cases.len()
    );
}

fn pinned_20_7_3() -> permission_lsp::core::profile::RuntimeProfile {
    use permission_lsp::contract::prelude::*;
    permission_lsp::formats::pi::Pi.profile("20.7.3").unwrap()
}
