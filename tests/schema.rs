//! The shipped JSON Schema accepts exactly what the runtime accepts: every
//! drift case, every config-load vector, every observed loader case and
//! every corpus file gets the same verdict from the schema (via the
//! `jsonschema` crate) and from the runtime.

use crate::common;

use permission_lsp::formats::pi::model::read::read_config;
use permission_lsp::formats::pi::model::schema::{schema_accepts, schema_errors};
use serde_json::Value;

/// The schema's verdict on a text: rejected when it is not strict JSON.
fn schema_verdict(text: &str) -> Option<bool> {
    let file = read_config(
        text,
        permission_lsp::formats::pi::model::versions::DEFAULT_TARGET,
    );
    if !file.parsed.errors.is_empty() {
        return Some(false);
    }
    schema_accepts(file.parsed.root.as_ref()?)
}

fn check(label: &str, text: &str, runtime_accepts: bool, failures: &mut Vec<String>) {
    match schema_verdict(text) {
        Some(v) if v == runtime_accepts => {}
        Some(v) => failures.push(format!(
            "{label}: schema says {v}, runtime {runtime_accepts}: {text}"
        )),
        // Numbers outside f64 (1e400) cannot be handed to the validator.
        None => assert!(!runtime_accepts, "{label}: unrepresentable but accepted"),
    }
}

#[test]
fn schema_agrees_with_the_runtime() {
    let mut failures = Vec::new();
    let mut n = 0;
    for case in common::jsonl("conformance/pi-drift-cases.jsonl") {
        for scope in ["global", "project"] {
            let text = match &case[scope] {
                Value::Null => continue,
                Value::String(s) => s.clone(),
                other => serde_json::to_string(other).unwrap(),
            };
            // The runtime's verdict: no issue reported for this scope.
            let accepted = read_config(
                &text,
                permission_lsp::formats::pi::model::versions::DEFAULT_TARGET,
            )
            .accepted();
            check(case["id"].as_str().unwrap(), &text, accepted, &mut failures);
            n += 1;
        }
    }
    for v in common::jsonl("conformance/pi-vectors.jsonl") {
        if v["level"] == "config-load" {
            let text = serde_json::to_string(&v["config"]).unwrap();
            check(
                v["source"].as_str().unwrap(),
                &text,
                v["expected"]["valid"].as_bool().unwrap(),
                &mut failures,
            );
            n += 1;
        }
    }
    for case in common::jsonl("runtime/config-load-observed.jsonl") {
        let text = case["text"].as_str().unwrap();
        let accepted = case["issues"].as_array().unwrap().is_empty();
        check("observed", text, accepted, &mut failures);
        n += 1;
    }
    for case in common::jsonl("runtime/corpus-load-observed.jsonl") {
        let name = case["file"].as_str().unwrap();
        let text = common::fixture(&format!("corpus/pi/{name}"));
        check(
            name,
            &text,
            case["issues"].as_array().unwrap().is_empty(),
            &mut failures,
        );
        n += 1;
    }
    assert!(n > 250, "{n}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn schema_errors_point_at_keys_and_values() {
    let text = r#"{"debugLog": 1, "bogus": true, "permission": {"bash": "Allow"}}"#;
    let file = read_config(
        text,
        permission_lsp::formats::pi::model::versions::DEFAULT_TARGET,
    );
    let errors = schema_errors(file.parsed.root.as_ref().unwrap());
    let spans: Vec<&str> = errors.iter().map(|e| &text[e.range.clone()]).collect();
    assert!(spans.contains(&"1"), "{spans:?}");
    assert!(spans.contains(&"\"bogus\""), "{spans:?}");
    assert!(spans.contains(&"\"Allow\""), "{spans:?}");
}
