//! Reading and validating config files agrees with the runtime word for word.
//!
//! Fixtures: `fixtures/runtime/config-load-observed.jsonl` was produced by
//! running the real `@gotgenes/pi-permission-system` 20.7.3 loader
//! (`loadUnifiedConfig`) on each text; `fixtures/conformance/` is copied from
//! the project's shared conformance data (vectors from the runtime's own
//! tests, and drift cases observed by running it).

use permission_lsp::formats::pi::model::read::read_config;
use serde_json::Value;

fn jsonl(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("jsonl"))
        .collect()
}

#[test]
fn issue_texts_match_the_runtime_loader() {
    let mut failures = Vec::new();
    let cases = jsonl("runtime/config-load-observed.jsonl");
    for case in &cases {
        let text = case["text"].as_str().unwrap();
        let want: Vec<String> = serde_json::from_value(case["issues"].clone()).unwrap();
        let got = read_config(
            text,
            permission_lsp::formats::pi::model::versions::DEFAULT_TARGET,
        )
        .runtime_issues("<path>");
        if got != want {
            failures.push(format!("{text:?}\n  want {want:?}\n  got  {got:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn config_load_vectors() {
    let mut n = 0;
    for v in jsonl("conformance/pi-vectors.jsonl") {
        if v["level"] != "config-load" {
            continue;
        }
        n += 1;
        let text = serde_json::to_string(&v["config"]).unwrap();
        let want = v["expected"]["valid"].as_bool().unwrap();
        let file = read_config(
            &text,
            permission_lsp::formats::pi::model::versions::DEFAULT_TARGET,
        );
        assert_eq!(file.accepted(), want, "{} {text}", v["source"]);
    }
    assert!(n >= 12);
}

/// Strips the loader's "Failed to read config at '<path>': " prefix.
fn bare(issue: &str) -> &str {
    match issue.strip_prefix("Failed to read config at '") {
        Some(rest) => rest.split_once("': ").map_or(issue, |(_, m)| m),
        None => issue,
    }
}

#[test]
fn drift_case_config_issues() {
    let mut checked = 0;
    for case in jsonl("conformance/pi-drift-cases.jsonl") {
        let Some(want) = case["observed"]["configIssues"].as_array() else {
            continue;
        };
        let mut got = Vec::new();
        for scope in ["global", "project"] {
            let text = match &case[scope] {
                Value::Null => continue,
                Value::String(s) => s.clone(),
                other => serde_json::to_string_pretty(other).unwrap(),
            };
            got.extend(
                read_config(
                    &text,
                    permission_lsp::formats::pi::model::versions::DEFAULT_TARGET,
                )
                .runtime_issues("<path>"),
            );
        }
        let got: Vec<&str> = got.iter().map(|s| bare(s)).collect();
        let want: Vec<&str> = want.iter().map(|s| bare(s.as_str().unwrap())).collect();
        assert_eq!(got, want, "{}", case["id"]);
        checked += 1;
    }
    assert!(checked >= 40, "checked {checked}");
}
