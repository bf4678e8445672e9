//! Differential test: random configs and tool calls, decided by the real
//! runtime (`@gotgenes/pi-permission-system` 20.7.3 from npm, installed by
//! `differential/setup.sh`) and by the engine; every disagreement is
//! reported with the smallest failing variant found.
//!
//! `cargo test --test pi differential::` runs a bounded batch (2,000 calls).
//! Longer: `DIFFERENTIAL_CALLS=50000 DIFFERENTIAL_SEED=7 cargo test --release --test pi differential:: -- --nocapture`.
//! Without npm or the registry the test is skipped with a message, unless
//! `DIFFERENTIAL_REQUIRED=1` (CI) makes that a failure.

use crate::common;
use crate::generate;

use common::oracle::{HOME, oracle_dir, run_oracle};
use permission_lsp::formats::pi::engine::check::{ToolKind, tool_kind};
use permission_lsp::formats::pi::engine::gates::{Call, Simulation};
use permission_lsp::formats::pi::engine::paths::RealFs;
use permission_lsp::formats::pi::engine::policy::load_policy;
use serde_json::{Value, json};

const CALLS_PER_CASE: usize = 10;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Differences between the runtime's answer for a case and the engine's.
fn differences(case: &Value, observed: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    if let Some(e) = observed.get("error") {
        diffs.push(format!("the runtime threw: {e}"));
        return diffs;
    }
    let loaded = load_policy(&common::policy_inputs(case, HOME));
    let issues: Vec<String> = loaded.issues.clone();
    if json!(issues) != observed["configIssues"] {
        diffs.push(format!(
            "configIssues: runtime {} engine {:?}",
            observed["configIssues"], issues
        ));
    }
    if observed["permissiveBashWarning"].is_string() != loaded.permissive_bash_warning {
        diffs.push("permissiveBashWarning differs".into());
    }
    let calls = case["calls"].as_array().unwrap();
    for (i, (call, result)) in calls
        .iter()
        .zip(observed["results"].as_array().unwrap())
        .enumerate()
    {
        let sim = loaded.policy.simulate(
            &Call {
                tool: call["tool"].as_str().unwrap().into(),
                input: call["input"].clone(),
                agent: case["agent"].as_str().map(String::from),
                cwd: case["cwd"].as_str().unwrap().into(),
            },
            &RealFs,
        );
        for d in compare(result, &sim, call["tool"].as_str().unwrap()) {
            diffs.push(format!("call {i} {call}: {d}"));
        }
        if observed["toolHidden"][i].as_bool() != Some(sim.tool_hidden) {
            diffs.push(format!(
                "call {i} {call}: toolHidden runtime {} engine {}",
                observed["toolHidden"][i], sim.tool_hidden
            ));
        }
    }
    diffs
}

fn compare(observed: &Value, sim: &Simulation, tool: &str) -> Vec<String> {
    let mut diffs = Vec::new();
    if let Some(e) = observed.get("error") {
        diffs.push(format!("the runtime threw (fail-closed block): {e}"));
    }
    if observed["decision"] != sim.decision.as_str() {
        diffs.push(format!(
            "decision: runtime {} engine {}",
            observed["decision"],
            sim.decision.as_str()
        ));
    }
    let gates = observed["gates"].as_array().unwrap();
    if gates.len() != sim.gates.len() {
        diffs.push(format!(
            "gates: runtime {:?} engine {:?}",
            gates
                .iter()
                .map(|g| format!(
                    "{}={}",
                    g["gate"].as_str().unwrap_or(""),
                    g["state"].as_str().unwrap_or("")
                ))
                .collect::<Vec<_>>(),
            common::gate_names(&sim.gates)
        ));
        return diffs;
    }
    for (o, g) in gates.iter().zip(&sim.gates) {
        // The tool gate's prompt for non-bash tools carries an input preview
        // that the engine does not render (see README, known differences).
        let tool_gate_preview =
            g.gate == tool && tool_kind(tool) != ToolKind::Bash && g.gate != "bash";
        let mut actual = common::gate_json(g);
        if tool_gate_preview {
            actual["promptMessage"] = o["promptMessage"].clone();
        }
        for (k, exp) in o.as_object().unwrap() {
            let got = actual.get(k).cloned().unwrap_or(Value::Null);
            if got != *exp {
                diffs.push(format!("gate {}: {k}: runtime {exp} engine {got}", g.gate));
            }
        }
    }
    diffs
}

/// Smaller variants of a failing case: one call at a time, fewer scopes.
fn shrink_candidates(case: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let calls = case["calls"].as_array().cloned().unwrap_or_default();
    for call in &calls {
        let mut single = case.clone();
        single["calls"] = json!([call]);
        for drop in [
            &[][..],
            &["project"][..],
            &["agents", "projectAgents", "agent"][..],
            &[
                "project",
                "agents",
                "projectAgents",
                "agent",
                "mcpServerNames",
            ][..],
        ] {
            let mut c = single.clone();
            for k in drop {
                c.as_object_mut().unwrap().remove(*k);
            }
            out.push(c);
        }
    }
    out
}

fn size(case: &Value) -> usize {
    case.to_string().len()
}

#[test]
fn engine_agrees_with_the_runtime() {
    let calls = env_usize("DIFFERENTIAL_CALLS", 2000);
    let seed = env_usize("DIFFERENTIAL_SEED", 20_260_729) as u64;
    let dir = match oracle_dir() {
        Ok(d) => d,
        Err(why) if std::env::var("DIFFERENTIAL_REQUIRED").is_ok_and(|v| v == "1") => {
            panic!("{why}")
        }
        Err(why) => {
            eprintln!("differential test skipped: {why}");
            return;
        }
    };
    let mut rng = generate::Rng::new(seed);
    let cases: Vec<Value> = (0..calls.div_ceil(CALLS_PER_CASE))
        .map(|id| generate::case(&mut rng, id, CALLS_PER_CASE))
        .collect();
    let observed = run_oracle(&dir, &cases);
    assert_eq!(observed.len(), cases.len());
    let failing: Vec<(&Value, Vec<String>)> = cases
        .iter()
        .zip(&observed)
        .map(|(c, o)| (c, differences(c, o)))
        .filter(|(_, d)| !d.is_empty())
        .collect();
    if failing.is_empty() {
        // What was covered, so a silent generator cannot pass unnoticed.
        let mut tally = std::collections::BTreeMap::new();
        for o in &observed {
            *tally
                .entry(
                    if o["configIssues"].as_array().is_some_and(|a| a.is_empty()) {
                        "files accepted"
                    } else {
                        "files rejected"
                    },
                )
                .or_insert(0) += 1;
            for r in o["results"].as_array().into_iter().flatten() {
                *tally
                    .entry(match r["decision"].as_str() {
                        Some("deny") => "deny",
                        Some("ask") => "ask",
                        _ => "allow",
                    })
                    .or_insert(0) += 1;
                for g in r["gates"].as_array().into_iter().flatten() {
                    *tally
                        .entry(match g["gate"].as_str() {
                            Some("path") => "gate path",
                            Some("external_directory") => "gate external_directory",
                            Some(s) if s.starts_with("permission_request") => "gate bypass",
                            _ => "gate tool",
                        })
                        .or_insert(0) += 1;
                }
            }
        }
        eprintln!(
            "differential: {calls} calls in {} cases (seed {seed}): 0 disagreements; {tally:?}",
            cases.len()
        );
        for key in [
            "deny",
            "ask",
            "allow",
            "gate path",
            "gate external_directory",
            "files rejected",
        ] {
            assert!(
                tally.get(key).copied().unwrap_or(0) > 0,
                "the generator produced no `{key}`"
            );
        }
        return;
    }
    // Shrink: run every smaller variant in one batch and keep the smallest
    // that still disagrees.
    let candidates: Vec<Vec<Value>> = failing.iter().map(|(c, _)| shrink_candidates(c)).collect();
    let flat: Vec<Value> = candidates.iter().flatten().cloned().collect();
    let flat_observed = run_oracle(&dir, &flat);
    let mut report = Vec::new();
    let mut k = 0;
    for ((case, diffs), cands) in failing.iter().zip(&candidates) {
        let mut best: Option<(&Value, Vec<String>)> = None;
        for cand in cands {
            let d = differences(cand, &flat_observed[k]);
            k += 1;
            if !d.is_empty() && best.as_ref().is_none_or(|(b, _)| size(cand) < size(b)) {
                best = Some((cand, d));
            }
        }
        let (min, d) = best.unwrap_or((case, diffs.clone()));
        report.push(format!(
            "reproduce with this case (tests/differential/run.sh DIR case.jsonl):\n{min}\n  {}",
            d.join("\n  ")
        ));
    }
    panic!(
        "{} of {} cases disagree (seed {seed}, {calls} calls):\n\n{}",
        failing.len(),
        cases.len(),
        report.join("\n\n")
    );
}

/// Disagreements found by earlier runs, with the runtime's recorded answer
/// (`fixtures/runtime/differential-regressions.jsonl`): replayed without npm.
#[test]
fn recorded_regressions() {
    for entry in common::jsonl("runtime/differential-regressions.jsonl") {
        let d = differences(&entry["case"], &entry["observed"]);
        assert!(d.is_empty(), "{}: {}", entry["note"], d.join("\n"));
    }
}
