//! Every case recorded on the real Codex CLI 0.169.0
//! (`tests/fixtures/codex/observed-facts.json`: the facts of the
//! reference runtime's `cases/facts.json` and further probes, recorded
//! with `tests/fixtures/codex/record.py`) decided by permission-lsp: each
//! call's verdict, each configuration Codex refuses, each session whose
//! rules Codex drops.

use crate::codex_common::{decide, scratch};
use serde_json::Value;

#[test]
fn every_recorded_case_gets_the_cli_verdict() {
    let cases: Vec<Value> =
        serde_json::from_str(include_str!("fixtures/codex/observed-facts.json")).unwrap();
    assert!(cases.len() >= 75, "{} cases", cases.len());
    let root = scratch("codex-replay");
    let mut failures = Vec::new();
    let mut calls_seen = 0;
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let obs = &case["observed"];
        let calls: Vec<String> = obs["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["cmd"].as_str().unwrap().to_string())
            .collect();
        let ours = decide(&root, case, &calls);
        if obs["error"].is_null()
            && ours.rules_not_applied != obs["rules_not_applied"].as_bool().unwrap()
        {
            failures.push(format!(
                "{id}: rules dropped: ours {} CLI {}",
                ours.rules_not_applied, obs["rules_not_applied"]
            ));
        }
        match (&ours.verdicts, obs["error"].as_str()) {
            (Err(e), None) => failures.push(format!("{id}: we refuse ({e}), the CLI starts")),
            (Ok(_), Some(e)) => failures.push(format!("{id}: the CLI refuses ({e}), we start")),
            (Err(ours), Some(cli)) => {
                // The CLI names the file it refuses; the reasons compare
                // without it.
                let cli = &cli
                    .replace(" (set by /etc/codex/requirements.toml)", "")
                    .replace(" /etc/codex/requirements.toml:", ":");
                let key = ours.split(';').next().unwrap_or(ours);
                if !cli.contains(key) {
                    failures.push(format!("{id}: refusal `{ours}` vs the CLI's `{cli}`"));
                }
            }
            (Ok(v), None) => {
                for (c, ours) in obs["calls"].as_array().unwrap().iter().zip(v) {
                    if c.get("after_sandbox_failure").is_some() {
                        continue;
                    }
                    calls_seen += 1;
                    let cli = c["verdict"].as_str().unwrap();
                    if cli != ours {
                        failures.push(format!(
                            "{id}: {:?}: ours {ours}, the CLI {cli}",
                            c["cmd"].as_str().unwrap()
                        ));
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(calls_seen >= 190, "{calls_seen} calls");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
