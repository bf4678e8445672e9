//! Differential test against pi-permission-system 26.3.1, the newest
//! version whose real sources run here (the reference runtime `pi-26.3.1`,
//! upstream's own code through tsx; installed by
//! `tests/differential/pi26/setup.sh DIR`, run by the 20.7.3 oracle's
//! `tests/differential/run.sh`): the differential generator's
//! random configs and calls, decided by the runtime and by the engine with
//! the 26.3.1 profile; decisions and the gates each call passes must agree.
//!
//! The oracle is looked for in `$PI26_ORACLE_DIR`, else
//! `target/tmp/pi26-oracle`. Without it the test is skipped with a message,
//! unless `PI26_DIFFERENTIAL_REQUIRED=1` (CI, when the reference runtime is
//! there) makes that a failure. `PI26_DIFFERENTIAL_CALLS` (default 2,000)
//! and `PI26_DIFFERENTIAL_SEED` choose the run.

use crate::common;
use crate::generate;

use common::oracle::{HOME, run_oracle};
use permission_lsp::formats::pi::engine::gates::Call;
use permission_lsp::formats::pi::engine::paths::RealFs;
use permission_lsp::formats::pi::engine::policy::load_policy;
use permission_lsp::formats::pi::model::versions::Version;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn oracle_dir() -> Result<PathBuf, String> {
    let dir = std::env::var_os("PI26_ORACLE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tmp/pi26-oracle"));
    if dir.join(".installed").exists() {
        Ok(dir)
    } else {
        Err(format!(
            "the 26.3.1 oracle is not installed in {} (tests/differential/pi26/setup.sh DIR)",
            dir.display()
        ))
    }
}

/// Where the engine (26.3.1 profile) and the runtime differ for a case.
fn differences(case: &Value, observed: &Value) -> Vec<String> {
    if let Some(e) = observed.get("error") {
        return vec![format!("the runtime threw: {e}")];
    }
    let mut inputs = common::policy_inputs(case, HOME);
    inputs.version = Version(26, 3, 1);
    let loaded = load_policy(&inputs);
    let mut diffs = Vec::new();
    for (i, (call, result)) in case["calls"]
        .as_array()
        .unwrap()
        .iter()
        .zip(observed["results"].as_array().unwrap())
        .enumerate()
    {
        let sim = loaded.policy.simulate(
            &Call {
                tool: call["tool"].as_str().unwrap().into(),
                input: call["input"].clone(),
                agent: case["agent"].as_str().map(String::from),
                cwd: case["cwd"].as_str().unwrap_or("/workspace/project").into(),
            },
            &RealFs,
        );
        if result["decision"] != sim.decision.as_str() {
            diffs.push(format!(
                "call {i} {call}: decision runtime {} engine {}",
                result["decision"],
                sim.decision.as_str()
            ));
            continue;
        }
        let theirs: Vec<String> = result["gates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| {
                format!(
                    "{}={}",
                    g["gate"].as_str().unwrap_or(""),
                    g["state"].as_str().unwrap_or("")
                )
            })
            .collect();
        let ours: Vec<String> = sim
            .gates
            .iter()
            .map(|g| format!("{}={}", g.gate, g.state.as_str()))
            .collect();
        if theirs != ours {
            diffs.push(format!(
                "call {i} {call}: gates runtime {theirs:?} engine {ours:?}"
            ));
            continue;
        }
        // Each gate's rule, executed unit and agent-facing text.
        for (o, g) in result["gates"].as_array().unwrap().iter().zip(&sim.gates) {
            let actual = common::gate_json(g);
            for (k, exp) in o.as_object().unwrap() {
                let got = actual.get(k).cloned().unwrap_or(Value::Null);
                if got != *exp {
                    diffs.push(format!(
                        "call {i} {call}: gate {}: {k}: runtime {exp} engine {got}",
                        g.gate
                    ));
                }
            }
        }
    }
    diffs
}

#[test]
fn pi_26_3_1_decides_as_the_engine_says() {
    let dir = match oracle_dir() {
        Ok(d) => d,
        Err(why) if std::env::var("PI26_DIFFERENTIAL_REQUIRED").is_ok_and(|v| v == "1") => {
            panic!("the 26.3.1 differential test must run here: {why}")
        }
        Err(why) => {
            eprintln!("26.3.1 differential test skipped: {why}");
            return;
        }
    };
    let calls: usize = std::env::var("PI26_DIFFERENTIAL_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let seed: u64 = std::env::var("PI26_DIFFERENTIAL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(9777);
    let mut rng = generate::Rng::new(seed);
    let cases: Vec<Value> = (0..calls.div_ceil(10))
        .map(|id| generate::case(&mut rng, id, 10))
        .collect();
    let observed = run_oracle(&dir, &cases);
    assert_eq!(observed.len(), cases.len());
    let mut failures = Vec::new();
    for (case, obs) in cases.iter().zip(&observed) {
        let d = differences(case, obs);
        if !d.is_empty() {
            failures.push(format!("{case}\n  {}", d.join("\n  ")));
        }
    }
    eprintln!(
        "26.3.1 differential: {calls} calls in {} cases (seed {seed}): {} cases disagree",
        cases.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases disagree with 26.3.1 (seed {seed}):\n\n{}",
        failures.len(),
        cases.len(),
        failures
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}
