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
        // Every key Codex reported ignoring is reported here, and no other.
        if obs["error"].is_null() && ours.ignored as u64 != obs["unrecognized"].as_u64().unwrap() {
            failures.push(format!(
                "{id}: ignored keys: ours {} the CLI {}",
                ours.ignored, obs["unrecognized"]
            ));
        }
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

/// Codex's own rollout files, written by the real CLI in the recorded
/// sessions (`tests/fixtures/codex/rollouts/<case>.jsonl`: the records of
/// the shell calls and their outcomes, the session's folder as `{ROOT}`),
/// replayed against the same sessions rebuilt: every call replays to the
/// decision Codex recorded.
#[test]
fn rollout_files_replay_to_what_codex_recorded() {
    use permission_lsp::analysis::AnalysisOptions;
    use permission_lsp::contract::prelude::*;
    use permission_lsp::formats::codex::Codex;
    use permission_lsp::history::replay::{Change, Replayer};
    let cases: Vec<Value> =
        serde_json::from_str(include_str!("fixtures/codex/observed-facts.json")).unwrap();
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex/rollouts");
    let root = scratch("codex-rollouts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{} rollouts", files.len());
    let mut calls = 0u64;
    let mut failures = Vec::new();
    for f in &files {
        let id = f.file_stem().unwrap().to_string_lossy().into_owned();
        let case = cases
            .iter()
            .find(|c| c["id"] == id.as_str())
            .unwrap_or_else(|| panic!("no recorded case {id}"));
        let (home, chome, _) = crate::codex_common::setup(&root, case);
        let case_dir = home.parent().unwrap().to_path_buf();
        let log = std::fs::read_to_string(f)
            .unwrap()
            .replace("{ROOT}", &case_dir.display().to_string());
        let mut options = AnalysisOptions::for_profile(Codex.default_profile());
        options.home = home.display().to_string();
        options
            .runtime_args
            .push(("CODEX_HOME".into(), chome.display().to_string()));
        let ctx =
            permission_lsp::workspace::resolve(&options, None, None, &Default::default(), None);
        let mut replayer = Replayer::new(Box::new(|fmt: &'static dyn Format, s: &_| {
            permission_lsp::history::replay::policy_for(&ctx, fmt, s)
        }));
        let mut changes: Vec<Change> = Vec::new();
        let mut sink = |c: &Change| changes.push(c.clone());
        replayer.replay(&id, &mut log.as_bytes(), &mut sink);
        calls += replayer.summary.calls;
        if replayer.summary.unrebuildable > 0 {
            failures.push(format!(
                "{id}: {} records not rebuilt: {:?}",
                replayer.summary.unrebuildable, replayer.summary.skipped
            ));
        }
        // A command that failed in the sandbox and was then asked about
        // (granular sandbox_approval) is recorded as what it did.
        let after_failure: Vec<&str> = case["observed"]["calls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c.get("after_sandbox_failure").is_some())
            .map(|c| c["cmd"].as_str().unwrap())
            .collect();
        for c in changes {
            let cmd = c.input["command"].as_str().unwrap_or_default().to_string();
            if after_failure.contains(&cmd.as_str()) {
                continue;
            }
            failures.push(format!(
                "{id}:{}: `{cmd}` recorded {:?}, now {:?}",
                c.line, c.recorded, c.now
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(calls >= 60, "{calls} calls");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `replay` with no file finds Codex's rollouts of this project under
/// `$CODEX_HOME/sessions/YYYY/MM/DD/` (a rollout of another project beside
/// them is left out by its recorded folder) and replays them as Codex
/// recorded; a config that no longer forbids `git push` shows each of
/// its recorded rejections as a change, with exit 1.
#[test]
fn replay_finds_this_projects_rollouts_by_itself() {
    let cases: Vec<Value> =
        serde_json::from_str(include_str!("fixtures/codex/observed-facts.json")).unwrap();
    let case = cases.iter().find(|c| c["id"] == "strictest-wins").unwrap();
    let root = scratch("codex-rollouts-found");
    let (home, chome, proj) = crate::codex_common::setup(&root, case);
    let case_dir = home.parent().unwrap().to_path_buf();
    let log = include_str!("fixtures/codex/rollouts/strictest-wins.jsonl")
        .replace("{ROOT}", &case_dir.display().to_string());
    let day = chome.join("sessions/2026/12/02");
    std::fs::create_dir_all(&day).unwrap();
    std::fs::write(day.join("rollout-2026-12-02T23-36-37-a.jsonl"), &log).unwrap();
    std::fs::write(
        day.join("rollout-2026-12-02T23-40-00-b.jsonl"),
        log.replace(&case_dir.display().to_string(), "/elsewhere"),
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (p, h) = (proj.to_str().unwrap(), home.to_str().unwrap());
    let (code, out, err) = run(&["replay", "--runtime", "codex", "--cwd", p, "--home", h]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("replaying 1 log of") && err.contains("(Codex CLI 1)"),
        "{err}"
    );
    assert!(
        out.contains("Codex rollout file:") && out.contains("none changes"),
        "{out}"
    );
    let denied = out
        .lines()
        .find(|l| l.contains(" calls;"))
        .unwrap_or_default()
        .to_string();
    // Every rule file emptied: the recorded rejections change.
    for f in std::fs::read_dir(chome.join("rules")).unwrap() {
        std::fs::write(f.unwrap().path(), "").unwrap();
    }
    let (code, out, err) = run(&["replay", "--runtime", "codex", "--cwd", p, "--home", h]);
    assert_eq!(code, 1, "{denied}\n{out}{err}");
    assert!(out.contains("deny -> "), "{out}");
    let _ = std::fs::remove_dir_all(&root);
}
