//! permission-lsp against what the real OpenCode CLI (1.18.33) did with the
//! recorded sessions of `tests/fixtures/opencode/cases.json`: every agent's
//! merged rule list equals `opencode debug agent NAME` rule for rule, and
//! every call gets the decision the running server gave it (recorded by
//! `tests/fixtures/opencode/record.py` into `observed.json`).

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::contract::prelude::*;
use permission_lsp::formats::opencode::OpenCode;
use permission_lsp::formats::opencode::engine::policy::Policy;
use permission_lsp::formats::opencode::ide::simulation::OpenCodeSimulator;
use permission_lsp::formats::opencode::model::config;
use permission_lsp::formats::{CallRequest, Simulator};
use permission_lsp::workspace::{self, Overrides};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/opencode")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

struct Session {
    root: PathBuf,
    home: PathBuf,
    tmp: PathBuf,
    vars: Vec<(String, String)>,
}

impl Session {
    fn sub(&self, s: &str) -> String {
        s.replace("{TMP}", &self.tmp.display().to_string())
            .replace("{HOME}", &self.home.display().to_string())
            .replace("{ROOT}", &self.root.display().to_string())
    }

    fn policy(&self, project: &str) -> Policy {
        let mut options = AnalysisOptions::for_profile(OpenCode.default_profile());
        options.home = self.home.display().to_string();
        options.runtime_args = self.vars.clone();
        options
            .runtime_args
            .push(("TMPDIR".into(), self.tmp.display().to_string()));
        let ctx = workspace::resolve(
            &options,
            None,
            None,
            &Overrides {
                cwd: Some(self.root.join(project)),
                ..Default::default()
            },
            None,
        );
        Policy::load(&ctx)
    }
}

/// Builds a group's files under a fresh temporary folder.
fn materialise(group: &Value, n: usize) -> Session {
    let root = std::env::temp_dir().join(format!(
        "permission-lsp-opencode-{}-{n}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&root);
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let s = Session {
        tmp: root.join("tmpdir"),
        root: root.clone(),
        home: home.clone(),
        vars: group["env"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                    .collect()
            })
            .unwrap_or_default(),
    };
    let write = |base: &Path, rel: &str, text: &str| {
        let p = base.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, s.sub(text)).unwrap();
    };
    for (rel, text) in group["home"].as_object().into_iter().flatten() {
        write(&home, rel, text.as_str().unwrap());
    }
    for (rel, text) in group["outside"].as_object().into_iter().flatten() {
        write(&root, rel, text.as_str().unwrap());
    }
    for (name, proj) in group["projects"].as_object().unwrap() {
        let d = root.join(name);
        std::fs::create_dir_all(&d).unwrap();
        if proj["git"].as_bool().unwrap_or(true) {
            std::fs::create_dir_all(d.join(".git")).unwrap();
        }
        for (rel, text) in proj["files"].as_object().into_iter().flatten() {
            write(&d, rel, text.as_str().unwrap());
        }
    }
    s
}

/// Each recorded session with what the CLI did in it.
fn recorded_groups() -> Vec<(Value, Value)> {
    let cases = fixture("cases.json");
    let observed = fixture("observed.json");
    cases["groups"]
        .as_array()
        .unwrap()
        .iter()
        .cloned()
        .zip(observed["groups"].as_array().unwrap().iter().cloned())
        .collect()
}

#[test]
fn merged_rule_lists_equal_debug_agent() {
    let mut compared = 0;
    let mut failures = Vec::new();
    for (n, (group, rec)) in recorded_groups().iter().enumerate() {
        let s = materialise(group, n);
        for (key, expected) in rec["rules"].as_object().unwrap() {
            let (project, agent) = key.split_once('/').unwrap();
            let policy = s.policy(project);
            if let Some(e) = expected.get("error").and_then(|e| e.as_str())
                && e.contains(&format!("Agent {agent} not found"))
            {
                // The agent file is skipped (its frontmatter does not parse).
                if policy.has_agent(agent) {
                    failures.push(format!("{key}: the CLI has no such agent, we do"));
                }
                compared += 1;
                continue;
            }
            if expected.get("error").is_some() {
                if policy.refused.is_none() {
                    failures.push(format!("{key}: the CLI refuses to start, we accept"));
                }
                compared += 1;
                continue;
            }
            let ours: Vec<Vec<String>> = policy
                .rules(agent)
                .iter()
                .map(|r| {
                    vec![
                        r.permission.clone(),
                        r.pattern.clone(),
                        config::action_str(r.action).to_string(),
                    ]
                })
                .collect();
            let theirs: Vec<Vec<String>> = expected
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    r.as_array()
                        .unwrap()
                        .iter()
                        .map(|x| s.sub(x.as_str().unwrap()))
                        .collect()
                })
                .collect();
            if ours != theirs {
                failures.push(format!(
                    "{}:{key}\n  CLI:  {theirs:?}\n  ours: {ours:?}",
                    rec["id"]
                ));
            }
            compared += 1;
        }
        let _ = std::fs::remove_dir_all(&s.root);
    }
    assert!(compared > 20, "only {compared} rule lists");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn decisions_equal_the_server() {
    let mut compared = 0;
    let mut failures = Vec::new();
    for (n, (group, rec)) in recorded_groups().iter().enumerate() {
        let s = materialise(group, 100 + n);
        for c in group["calls"].as_array().unwrap() {
            let id = c["id"].as_str().unwrap();
            let Some(seen) = rec["decisions"].get(id) else {
                failures.push(format!("{id}: not recorded"));
                continue;
            };
            let verdict = seen["verdict"].as_str().unwrap();
            let sim = OpenCodeSimulator::for_policy(
                s.policy(c["project"].as_str().unwrap()),
                c["agent"].as_str(),
            );
            let input: Value = serde_json::from_str(&s.sub(&c["input"].to_string())).unwrap();
            let report = sim.simulate(&CallRequest {
                tool: c["tool"].as_str().unwrap().into(),
                input,
            });
            let ours = if report.tool_hidden {
                "hidden"
            } else {
                report.decision.as_str()
            };
            let theirs = match verdict {
                "allow-then-error" => "allow",
                // No tool part at all: every tool is hidden.
                "no-tool" => "hidden",
                "error" | "driver-error"
                    if rec["rules"].as_object().unwrap().iter().any(|(k, v)| {
                        k.starts_with(c["project"].as_str().unwrap()) && v.get("error").is_some()
                    }) =>
                {
                    "deny"
                }
                v => v,
            };
            if ours != theirs {
                failures.push(format!(
                    "{id} ({} {} as {}): CLI {verdict}, ours {ours} — {:?}",
                    c["tool"], c["input"], c["agent"], report.explanation
                ));
            }
            compared += 1;
        }
        let _ = std::fs::remove_dir_all(&s.root);
    }
    assert!(compared > 50, "only {compared} calls");
    assert!(
        failures.is_empty(),
        "{} of {compared} disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every real config of the corpus (`tests/fixtures/corpus/opencode/`) as a
/// project's config: read without a panic; refused exactly when the CLI
/// refused it (`observed-corpus.json`), with a finding that says so; and
/// for the accepted ones the build agent's rule list equals the CLI's.
#[test]
fn corpus_files_are_read_as_the_cli_read_them() {
    let observed = fixture("observed-corpus.json");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus/opencode");
    let root =
        std::env::temp_dir().join(format!("permission-lsp-oc-corpus-{}", std::process::id()));
    let home = root.join("home");
    let mut failures = Vec::new();
    let mut compared = 0;
    for (name, seen) in observed.as_object().unwrap() {
        if seen.get("timeout").is_some() {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let project = root.join("c").join(name.replace('.', "_"));
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let target = if name.ends_with(".jsonc") {
            "opencode.jsonc"
        } else {
            "opencode.json"
        };
        std::fs::write(project.join(target), &text).unwrap();
        let s = Session {
            root: root.clone(),
            home: home.clone(),
            tmp: root.join("tmpdir"),
            vars: Vec::new(),
        };
        let policy = s.policy(&format!("c/{}", name.replace('.', "_")));
        let refused = seen["refused"].as_bool().unwrap();
        // The findings the editor shows on the file itself, with the
        // session around it.
        let mut options = AnalysisOptions::for_profile(OpenCode.default_profile());
        options.home = home.display().to_string();
        let doc = project.join(target);
        let ctx = workspace::resolve(
            &options,
            Some(&project),
            Some(&doc),
            &Overrides::default(),
            None,
        );
        let analysis = OpenCode.analyse(permission_lsp::formats::Role::Config, &text, &ctx);
        let no_build = seen["error"]
            .as_str()
            .is_some_and(|e| e.contains("Agent build not found"));
        if no_build {
            if policy.has_agent("build") || policy.refused.is_some() {
                failures.push(format!(
                    "{name}: the CLI has no build agent; ours does (or refuses)"
                ));
            }
            compared += 1;
            continue;
        }
        let reported = !analysis.accepted;
        if refused != policy.refused.is_some() || refused != reported {
            failures.push(format!(
                "{name}: CLI refused={refused}, ours refused={} (reported {reported}) — {:?}",
                policy.refused.is_some(),
                policy.refused.map(
                    |i| permission_lsp::formats::opencode::engine::policy::refusal(
                        &policy.files[i]
                    )
                )
            ));
        } else if !refused {
            let ours: Vec<Vec<String>> = policy
                .rules("build")
                .iter()
                .map(|r| {
                    vec![
                        r.permission.clone(),
                        r.pattern.clone(),
                        config::action_str(r.action).into(),
                    ]
                })
                .collect();
            let theirs: Vec<Vec<String>> = seen["rules"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    r.as_array()
                        .unwrap()
                        .iter()
                        .map(|x| {
                            x.as_str()
                                .unwrap()
                                .replace("{TMP}", &s.tmp.display().to_string())
                                .replace("{HOME}", &home.display().to_string())
                                .replace("{ROOT}", &root.display().to_string())
                        })
                        .collect()
                })
                .collect();
            if ours != theirs {
                failures.push(format!("{name}:\n  CLI:  {theirs:?}\n  ours: {ours:?}"));
            }
        }
        compared += 1;
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(compared >= 40, "only {compared} corpus files");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
