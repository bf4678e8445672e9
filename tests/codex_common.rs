//! Codex sessions as the oracle's driver lays them out (a scratch `home`
//! with `.codex/config.toml` and `.codex/rules/`, a project with its own
//! `.codex/`), decided by permission-lsp: shared by the recorded replay and
//! the differential test.

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::contract::prelude::*;
use permission_lsp::formats::CallRequest;
use permission_lsp::formats::codex::Codex;
use permission_lsp::workspace::{self, Overrides};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Writes `case` under `root/<id>` as the driver does; returns (home, codex home, project).
pub fn setup(root: &Path, case: &Value) -> (PathBuf, PathBuf, PathBuf) {
    let dir = root.join(case["id"].as_str().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    let home = dir.join("home");
    let chome = home.join(".codex");
    let proj = dir.join("proj");
    std::fs::create_dir_all(&chome).unwrap();
    std::fs::create_dir_all(&proj).unwrap();
    let sub = |t: &str| {
        t.replace("{PROJ}", &proj.display().to_string())
            .replace("{HOME}", &home.display().to_string())
    };
    let mut cfg = sub(case["config"].as_str().unwrap_or(""));
    let trust = case.get("trust").cloned().unwrap_or(Value::Bool(true));
    if trust != Value::Bool(false) {
        let level = if trust == json!("untrusted") {
            "untrusted"
        } else {
            "trusted"
        };
        if !cfg.is_empty() && !cfg.ends_with('\n') {
            cfg.push('\n');
        }
        cfg.push_str(&format!(
            "\n[projects.\"{}\"]\ntrust_level = \"{level}\"\n",
            proj.display()
        ));
    }
    write(&chome.join("config.toml"), &cfg);
    for (key, base) in [
        ("rules", chome.join("rules")),
        ("project_rules", proj.join(".codex/rules")),
    ] {
        if let Some(m) = case.get(key).and_then(Value::as_object) {
            for (name, text) in m {
                write(&base.join(name), &sub(text.as_str().unwrap()));
            }
        }
    }
    if let Some(t) = case.get("project_config").and_then(Value::as_str) {
        write(&proj.join(".codex/config.toml"), &sub(t));
    }
    (home, chome, proj)
}

/// What permission-lsp says of a case: every call's verdict (allow, ask,
/// deny), or the refusal that keeps the session from starting; and whether
/// the rules were dropped.
pub struct Answer {
    pub verdicts: Result<Vec<String>, String>,
    pub rules_not_applied: bool,
    /// The keys reported as ignored in the session's config files.
    pub ignored: usize,
}

pub fn decide(root: &Path, case: &Value, calls: &[String]) -> Answer {
    let (home, chome, proj) = setup(root, case);
    let mut options = AnalysisOptions {
        home: home.display().to_string(),
        ..AnalysisOptions::default()
    };
    options.profile = Codex.default_profile();
    options
        .runtime_args
        .push(("CODEX_HOME".into(), chome.display().to_string()));
    if let Some(a) = case.get("approval_policy").and_then(Value::as_str) {
        options
            .runtime_args
            .push(("ask-for-approval".into(), a.into()));
    }
    if let Some(s) = case.get("sandbox").and_then(Value::as_str) {
        options.runtime_args.push(("sandbox".into(), s.into()));
    }
    // The managed requirements (the oracle saw them as /etc/codex).
    if let Some(t) = case.get("requirements").and_then(Value::as_str) {
        let path = home.parent().unwrap().join("etc-codex/requirements.toml");
        write(&path, t);
        options
            .runtime_args
            .push(("requirements".into(), path.display().to_string()));
    }
    let ctx = workspace::resolve(
        &options,
        None,
        None,
        &Overrides {
            cwd: Some(proj.clone()),
            ..Default::default()
        },
        None,
    );
    let sim = Codex.simulator(&ctx).unwrap();
    let policy = permission_lsp::formats::codex::engine::policy::Policy::load(&ctx);
    let rules_not_applied = policy.dropped_by.is_some();
    let ignored = policy.configs.iter().map(|c| c.read.ignored.len()).sum();
    if let Some((_, r)) = policy.refusals().first() {
        return Answer {
            verdicts: Err(r.message.clone()),
            rules_not_applied,
            ignored,
        };
    }
    let verdicts = calls
        .iter()
        .map(|c| {
            sim.simulate(&CallRequest {
                tool: "shell".into(),
                input: json!({ "command": c }),
            })
            .decision
        })
        .collect();
    Answer {
        verdicts: Ok(verdicts),
        rules_not_applied,
        ignored,
    }
}

/// A scratch folder outside any git repository (trust is keyed on the git root).
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("permission-lsp-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
