//! `permission-lsp explain` on fixtures with all four scopes: the printed
//! rule order is the runtime's. For every rule, a call that its pattern
//! matches is decided by the reference runtime; the rule that decides it
//! there must be the last matching rule of the explained list.

use crate::common;

use common::oracle::{oracle_or_skip, run_oracle};
use permission_lsp::core::pattern_algebra::Pattern;
use serde_json::{Value, json};
use std::process::Command;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/scopes");

fn explain(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .arg("explain")
        .args(args)
        .env_remove("PI_CODING_AGENT_DIR")
        .output()
        .expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(format!("{FIXTURES}/{rel}")).unwrap()
}

const GLOBAL: &str = "home/.pi/agent/extensions/pi-permission-system/config.json";
const PROJECT: &str = "project/.pi/extensions/pi-permission-system/config.json";

fn explained(agent: Option<&str>) -> Value {
    let home = format!("{FIXTURES}/home");
    let project = format!("{FIXTURES}/project");
    let mut args = vec!["--home", &home, "--project", &project, "--format", "json"];
    if let Some(a) = agent {
        args.extend(["--agent", a]);
    }
    let (code, out) = explain(&args);
    assert_eq!(code, 0, "{out}");
    serde_json::from_str(&out).expect("json")
}

#[test]
fn human_output_lists_files_rules_and_knobs() {
    let home = format!("{FIXTURES}/home");
    let project = format!("{FIXTURES}/project");
    let (code, out) = explain(&["--home", &home, "--project", &project, "--agent", "dev"]);
    assert_eq!(code, 0);
    let out = out.replace(FIXTURES, "<fixtures>");
    insta::assert_snapshot!(out);
}

#[test]
fn a_rejected_scope_file_is_shown_with_its_issue() {
    let dir = std::env::temp_dir().join(format!("pl-explain-{}", std::process::id()));
    let cfg = dir.join("project/.pi/extensions/pi-permission-system");
    std::fs::create_dir_all(&cfg).unwrap();
    std::fs::write(
        cfg.join("config.json"),
        "{\"permission\": {\"*\": \"deny\",}}",
    )
    .unwrap();
    let home = format!("{FIXTURES}/home");
    let project = dir.join("project").display().to_string();
    let (code, out) = explain(&["--home", &home, "--project", &project, "--format", "json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["files"][1]["accepted"], false);
    assert!(
        v["files"][1]["issues"][0]
            .as_str()
            .unwrap()
            .contains("Expected double-quoted property name")
    );
    // D37: the global rules decide alone; its `*: allow` is the default.
    assert_eq!(v["default"]["action"], "allow");
    std::fs::remove_dir_all(&dir).ok();
    let (code, _) = explain(&["--agent", "../x"]);
    assert_eq!(code, 2, "an agent name with a path is refused");
}

fn call_for(surface: &str, value: &str) -> Option<Value> {
    Some(match surface {
        "bash" => json!({ "tool": "bash", "input": { "command": value } }),
        "read" | "write" | "edit" => {
            json!({ "tool": surface, "input": { "path": value, "content": "x" } })
        }
        "skill" => json!({ "tool": "skill", "input": { "name": value } }),
        _ => return None,
    })
}

#[test]
fn the_explained_order_is_the_runtimes() {
    let Some(dir) = oracle_or_skip("explain against the runtime") else {
        return;
    };
    let mut cases = Vec::new();
    let mut expected = Vec::new();
    for agent in [None, Some("dev")] {
        let v = explained(agent);
        let rules: Vec<&Value> = v["rules"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["layer"] == "config")
            .collect();
        let mut calls = Vec::new();
        for r in &rules {
            let surface = r["surface"].as_str().unwrap();
            let value = Pattern::from_expanded(r["pattern"].as_str().unwrap()).example();
            let value = if value.is_empty() {
                "x".to_string()
            } else {
                value
            };
            let Some(call) = call_for(surface, &value) else {
                continue;
            };
            // The explained answer: the last rule of the list that matches.
            let decider = rules
                .iter()
                .rev()
                .find(|x| {
                    x["surface"] == surface
                        && Pattern::from_expanded(x["pattern"].as_str().unwrap()).is_match(&value)
                })
                .unwrap();
            expected.push((
                agent,
                surface.to_string(),
                value.clone(),
                decider["pattern"].clone(),
                decider["action"].clone(),
            ));
            calls.push(call);
        }
        let mut case = json!({
            "id": format!("{agent:?}"),
            "global": read(GLOBAL),
            "project": read(PROJECT),
            "agents": { "dev": read("home/.pi/agent/agents/dev.md") },
            "projectAgents": { "dev": read("project/.pi/agents/dev.md") },
            "cwd": "/work/p",
            "calls": calls,
        });
        if let Some(a) = agent {
            case["agent"] = json!(a);
        }
        cases.push(case);
    }
    let results = run_oracle(&dir, &cases);
    let mut n = 0;
    let mut failures = Vec::new();
    for r in &results {
        assert!(r.get("error").is_none(), "{}", r["error"]);
        for res in r["results"].as_array().unwrap() {
            let (agent, surface, value, pattern, action) = &expected[n];
            n += 1;
            let gate = res["gates"]
                .as_array()
                .unwrap()
                .iter()
                .rev()
                .find(|g| g["gate"] == surface.as_str())
                .cloned()
                .unwrap_or(json!(null));
            if gate["matchedPattern"] != *pattern || gate["state"] != *action {
                failures.push(format!(
                    "{agent:?} {surface} `{value}`: explained {pattern} → {action}, runtime {gate}"
                ));
            }
        }
    }
    assert_eq!(n, expected.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// D18 and D37 as findings in the project file, from the other scopes.
#[test]
fn cross_scope_findings_in_the_project_file() {
    use permission_lsp::formats::pi::effective::cross_scope_diagnostics;
    use permission_lsp::formats::pi::engine::policy::load_policy;
    use permission_lsp::formats::pi::scopes::{Locations, load_inputs};
    let loc = Locations::from_env(
        format!("{FIXTURES}/project").into(),
        Some(format!("{FIXTURES}/home").into()),
        None,
        permission_lsp::formats::pi::model::versions::DEFAULT_TARGET,
    );
    let project_path = format!("{FIXTURES}/{PROJECT}");
    let inputs = load_inputs(&loc, &|_| None).unwrap();
    let loaded = load_policy(&inputs);
    let doc = inputs.project.as_ref().unwrap().path.to_string();
    assert_eq!(
        std::path::Path::new(&doc),
        std::path::Path::new(&project_path)
    );
    let text = read(PROJECT);
    let d = cross_scope_diagnostics(&inputs, &loaded, &doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code.as_str(), "PL225");
    assert_eq!(&text[d[0].range.clone()], "\"read\"");
    assert!(
        d[0].message
            .contains("replaces `\"read\": \"ask\"` of the global config"),
        "{}",
        d[0].message
    );
    assert!(
        d[0].message
            .contains("the universal `*` (allow) decides every `read` call"),
        "{}",
        d[0].message
    );

    // The same project file with a trailing comma: ignored, and the global
    // rules decide alone (their `rm -rf *` deny is itself overridden by the
    // later `*` ask — PL210 in the global file).
    let broken = text.replacen("\"npm *\": \"allow\"", "\"npm *\": \"allow\",", 1);
    let open =
        |p: &std::path::Path| (p == std::path::Path::new(&project_path)).then(|| broken.clone());
    let inputs = load_inputs(&loc, &open).unwrap();
    let loaded = load_policy(&inputs);
    let d = cross_scope_diagnostics(&inputs, &loaded, &doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code.as_str(), "PL226");
    assert_eq!(
        d[0].message,
        "the runtime ignores this file, so the other scope files decide alone: `rm -rf /` → ask (by `*`), reading `.env` → ask (by `*`)"
    );
}

/// D19b: the migration guide's recipe — an agent repeats the global deny
/// after its own `*: allow` — does not work: the key keeps the global
/// position. The agent file gets the finding, checked with the runtime's
/// decision in `dead_redundant_and_hidden_rules_agree_with_the_runtime`'s
/// spirit: `rm -rf x` is allowed.
#[test]
fn the_migration_recipe_is_reported_in_the_agent_file() {
    use permission_lsp::analysis::AnalysisOptions;
    use permission_lsp::formats::pi::scopes::analyse_scope_file;
    let dir = std::env::temp_dir().join(format!("pl-d19b-{}", std::process::id()));
    let agent_dir = dir.join("home/.pi/agent");
    std::fs::create_dir_all(agent_dir.join("extensions/pi-permission-system")).unwrap();
    std::fs::create_dir_all(agent_dir.join("agents")).unwrap();
    std::fs::write(
        agent_dir.join("extensions/pi-permission-system/config.json"),
        "{\"permission\": {\"*\": \"ask\", \"bash\": {\"rm -rf *\": \"deny\"}}}",
    )
    .unwrap();
    let md = "---\npermission:\n  bash:\n    \"*\": allow\n    \"rm -rf *\": deny\n---\n";
    let path = agent_dir.join("agents/coder.md");
    std::fs::write(&path, md).unwrap();
    let options = AnalysisOptions {
        home: dir.join("home").display().to_string(),
        runtime_args: vec![("agent-dir".into(), agent_dir.display().to_string())],
        ..AnalysisOptions::default()
    };
    let ctx = permission_lsp::workspace::resolve(
        &options,
        Some(&dir),
        Some(&path),
        &Default::default(),
        None,
    );
    let d = analyse_scope_file(true, md, &ctx).diagnostics;
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code.as_str(), "PL210");
    assert_eq!(&md[d[0].range.clone()], "\"rm -rf *\"");
    assert!(
        d[0].message
            .contains("keeps the position it has in a lower scope"),
        "{}",
        d[0].message
    );
    // The runtime agrees (drift case D19b): `rm -rf x` is allowed.
    let case = common::jsonl("conformance/pi-drift-cases.jsonl")
        .into_iter()
        .find(|c| c["id"] == "D19b")
        .unwrap();
    assert_eq!(
        case["observed"]["results"][0]["decision"], "allow",
        "{case}"
    );
}
