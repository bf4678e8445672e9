//! Every case recorded on the real Gemini CLI 0.61.0
//! (`tests/fixtures/gemini/observed.json`: the oracle's `probes.json`,
//! `extra.json` and `sample.json` cases, copied from the reference
//! runtime, with the verdicts and policy-file messages the CLI gave,
//! recorded with `tests/fixtures/gemini/record.py`) decided by
//! permission-lsp: each call's verdict, each configuration the CLI does
//! not start with, each message about a policy file.

use crate::gemini_common::{decide, policy_messages, scratch};
use serde_json::Value;

fn cases() -> Vec<Value> {
    serde_json::from_str(include_str!("fixtures/gemini/observed.json")).unwrap()
}

#[test]
fn every_recorded_call_gets_the_cli_verdict() {
    let cases = cases();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let root = scratch("gemini-replay");
    let mut failures = Vec::new();
    let (mut seen, mut skipped) = (0, 0);
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let obs = &case["observed"];
        match (decide(&root, case), obs["error"].as_str()) {
            (Err(e), None) => failures.push(format!("{id}: we refuse ({e}), the CLI starts")),
            (Ok(_), Some(e)) => failures.push(format!("{id}: the CLI refuses ({e}), we start")),
            (Err(_), Some(_)) => seen += 1,
            (Ok(ours), None) => {
                for ((cli, (ours, incomplete)), call) in obs["calls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .zip(&ours)
                    .zip(case["calls"].as_array().unwrap())
                {
                    if *incomplete {
                        skipped += 1;
                        eprintln!("not simulated: {id}: {}", call["args"]);
                        continue;
                    }
                    seen += 1;
                    if cli.as_str().unwrap() != ours {
                        failures.push(format!(
                            "{id}: {} {}: ours {ours}, the CLI {cli}",
                            call["name"], call["args"]
                        ));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(seen >= 230, "{seen} calls");
    assert!(skipped <= 3, "{skipped} calls not simulated");
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Each message the CLI prints about a user policy file (the file
/// dropped, a rule dropped, a rule reported, a tool name warned about)
/// is one of ours, with the same schema fields; and we report nothing
/// the CLI does not.
#[test]
fn every_policy_file_message_is_the_clis() {
    let root = scratch("gemini-replay-messages");
    let mut failures = Vec::new();
    for case in cases() {
        let id = case["id"].as_str().unwrap();
        let ours = policy_messages(&root, &case);
        let cli: Vec<&Value> = case["observed"]["policy_errors"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["tier"] == "user")
            .collect();
        for e in &cli {
            let (file, sev, head) = (
                e["file"].as_str().unwrap(),
                e["severity"].as_str().unwrap(),
                e["head"].as_str().unwrap(),
            );
            let fields: Vec<&str> = e["fields"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let found = ours.iter().any(|(f, s, m)| {
                f == file
                    && s == sev
                    && m.starts_with(head)
                    && fields.iter().all(|x| m.contains(&format!("Field \"{x}\"")))
            });
            if !found {
                failures.push(format!(
                    "{id}: the CLI says [{sev}] {file}: {head} {fields:?}; ours: {ours:?}"
                ));
            }
        }
        for (f, s, m) in &ours {
            if !cli.iter().any(|e| {
                e["file"] == f.as_str()
                    && e["severity"] == s.as_str()
                    && m.starts_with(e["head"].as_str().unwrap())
            }) {
                failures.push(format!("{id}: we say [{s}] {f}: {m}; the CLI does not"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
