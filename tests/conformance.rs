//! Every conformance vector (transcribed from the runtime's own tests) and
//! every drift case (observed by running the runtime) replayed against the
//! engine. Fixtures copied from the project's shared conformance data
//! (20.7.3), and the same re-observed on the 26.3.1 sources
//! (`*-26.3.1.jsonl`, written by `tests/differential/pi26/record_*.py`),
//! replayed with the 26.3.1 profile.

use crate::common;

use permission_lsp::formats::pi::engine::bash::{command_units, executed_unit, parse};
use permission_lsp::formats::pi::engine::check::{CheckResult, CheckSource, CommandContext};
use permission_lsp::formats::pi::engine::gates::{Call, Simulation};
use permission_lsp::formats::pi::engine::messages::{
    Disclosure, Subject, deny_message, user_denied_message,
};
use permission_lsp::formats::pi::engine::paths::{NoFs, PathContext};
use permission_lsp::formats::pi::engine::policy::load_policy;
use permission_lsp::formats::pi::engine::rules::{Layer, PathFlavor, Rule, RuleOrigin};
use permission_lsp::formats::pi::engine::wildcard::{MatchOptions, Wildcard};
use permission_lsp::formats::pi::model::State;
use permission_lsp::formats::pi::model::read::read_config;
use serde_json::{Value, json};

const HOME: &str = "/home/tester";

use permission_lsp::formats::pi::model::versions::Version;

const V20: Version = Version(20, 7, 3);
const V26: Version = Version(26, 3, 1);

fn inputs(
    v: &Value,
    version: Version,
) -> permission_lsp::formats::pi::engine::policy::PolicyInputs {
    let mut i = common::policy_inputs(v, HOME);
    i.version = version;
    i
}

fn session_rules(v: &Value) -> Vec<Rule> {
    v["sessionRules"]
        .as_array()
        .map(|rs| {
            rs.iter()
                .map(|r| {
                    let action = State::parse(r["action"].as_str().unwrap_or("allow")).unwrap();
                    Rule::new(
                        r["surface"].as_str().unwrap(),
                        r["pattern"].as_str().unwrap(),
                        action,
                        None,
                        Layer::Session,
                        RuleOrigin::Session,
                        None,
                        HOME,
                        PathFlavor::Posix,
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn sub_home(v: &Value) -> Value {
    serde_json::from_str(&v.to_string().replace("${HOME}", HOME)).unwrap()
}

/// The check as the runtime's result object names its fields.
fn check_json(c: &CheckResult) -> Value {
    let mut o = json!({
        "state": c.state.as_str(),
        "source": serde_json::to_value(c.source).unwrap(),
        "origin": c.origin.as_str(),
    });
    for (k, val) in [
        ("matchedPattern", &c.matched_pattern),
        ("reason", &c.reason),
        ("command", &c.command),
        ("target", &c.target),
    ] {
        if let Some(x) = val {
            o[k] = json!(x);
        }
    }
    o
}

fn compare(expected: &Value, actual: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    for (k, exp) in expected.as_object().unwrap() {
        let got = actual.get(k).cloned().unwrap_or(Value::Null);
        if got != *exp {
            diffs.push(format!("{k}: expected {exp} got {got}"));
        }
    }
    diffs
}

#[test]
fn conformance_vectors() {
    let counts = vectors("conformance/pi-vectors.jsonl", V20);
    assert_eq!(counts.values().sum::<usize>(), 163, "{counts:?}");
}

/// The same vectors as the 26.3.1 sources answer them (wrapper units name
/// what they run; the message module is gone, so its vectors are too).
#[test]
fn conformance_vectors_on_26_3_1() {
    let counts = vectors("conformance/pi-vectors-26.3.1.jsonl", V26);
    assert_eq!(counts.values().sum::<usize>(), 150, "{counts:?}");
    assert!(!counts.contains_key("message"));
}

fn vectors(file: &str, version: Version) -> std::collections::BTreeMap<String, usize> {
    let mut failures = Vec::new();
    let mut counts = std::collections::BTreeMap::new();
    for raw in common::jsonl(file) {
        let v = sub_home(&raw);
        let level = v["level"].as_str().unwrap().to_string();
        let actual: Value = match level.as_str() {
            "manager-tool" | "manager-path" => {
                let mut loaded = load_policy(&inputs(&v, version));
                loaded.policy.session_rules = session_rules(&v);
                let p = &loaded.policy;
                let tool = v["tool"].as_str().unwrap();
                let check = if level == "manager-tool" {
                    p.check_tool(tool, &v["input"])
                } else {
                    let values: Vec<String> = match v["input"]["values"].as_array() {
                        Some(a) => a.iter().map(|x| x.as_str().unwrap().to_string()).collect(),
                        None => PathContext::policy_values(
                            v["input"]["path"].as_str().unwrap(),
                            v["cwd"].as_str(),
                            HOME,
                        ),
                    };
                    p.check_path_values(tool, &values)
                };
                check_json(&check)
            }
            "decompose" => {
                let cmd = v["input"]["command"].as_str().unwrap();
                let tree = parse(cmd).unwrap();
                let units: Vec<Value> = command_units(&tree, cmd)
                    .into_iter()
                    .map(|u| {
                        let mut o = json!({ "text": u.text });
                        if let Some(c) = u.context {
                            o["context"] = serde_json::to_value(c).unwrap();
                        }
                        if let Some(w) = u.wrapper {
                            o["wrapperKind"] = serde_json::to_value(w).unwrap();
                            if version >= V26
                                && let Some(e) = executed_unit(&u.text)
                            {
                                o["executedUnit"] = json!(e);
                            }
                        }
                        o
                    })
                    .collect();
                json!({ "units": units })
            }
            "wildcard" => {
                let w = Wildcard::compile(
                    v["input"]["pattern"].as_str().unwrap(),
                    HOME,
                    MatchOptions::default(),
                );
                json!({ "match": w.is_match(v["input"]["value"].as_str().unwrap()) })
            }
            "message" => json!({ "message": message(&v["input"]) }),
            "config-load" => continue, // tests/config_load.rs
            "e2e" => {
                let loaded = load_policy(&inputs(&v, version));
                let call = Call {
                    tool: v["tool"].as_str().unwrap().into(),
                    input: v["input"].clone(),
                    agent: None,
                    cwd: "/workspace/project".into(),
                };
                let sim = loaded.policy.simulate(&call, &NoFs);
                json!({ "blocked": sim.decision != State::Allow })
            }
            other => panic!("unknown level {other}"),
        };
        *counts.entry(level.clone()).or_insert(0) += 1;
        let diffs = compare(&v["expected"], &actual);
        if !diffs.is_empty() {
            failures.push(format!(
                "{} {} {} {}\n   {}",
                v["source"],
                level,
                v["tool"],
                v["input"],
                diffs.join("\n   ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{file}: {} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    counts
}

fn message(input: &Value) -> String {
    let ctx = &input["context"];
    let agent = ctx["agentName"].as_str();
    let s = |k: &str| ctx[k].as_str().unwrap_or_default().to_string();
    let subject = match ctx["kind"].as_str().unwrap() {
        "tool" => {
            let c = &ctx["check"];
            let st = |k: &str| c[k].as_str().map(String::from);
            Subject::Tool {
                check: CheckResult {
                    tool_name: st("toolName").unwrap_or_default(),
                    state: State::parse(c["state"].as_str().unwrap()).unwrap(),
                    reason: st("reason"),
                    matched_pattern: st("matchedPattern"),
                    source: serde_json::from_value::<CheckSource>(c["source"].clone())
                        .unwrap_or(CheckSource::Tool),
                    origin: RuleOrigin::Builtin,
                    command: st("command"),
                    command_context: serde_json::from_value::<CommandContext>(
                        c["commandContext"].clone(),
                    )
                    .ok(),
                    target: st("target"),
                    rule: None,
                    executed_unit: None,
                },
            }
        }
        "path" => Subject::Path {
            tool: s("toolName"),
            path: s("pathValue"),
        },
        "external_directory" => Subject::ExternalDirectory {
            tool: s("toolName"),
            path: s("pathValue"),
            resolved: ctx["resolvedPath"].as_str().map(String::from),
            cwd: s("cwd"),
        },
        "bash_external_directory" => Subject::BashExternalDirectory {
            command: s("command"),
            paths: ctx["externalPaths"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| Disclosure {
                    path: p["path"].as_str().unwrap().into(),
                    resolved: p["resolvedPath"].as_str().map(String::from),
                })
                .collect(),
            cwd: s("cwd"),
        },
        "bash_path" => Subject::BashPath {
            command: s("command"),
            path: s("pathValue"),
        },
        "skill_read" => Subject::SkillRead {
            skill: s("skillName"),
            read_path: s("readPath"),
        },
        "skill_input" => Subject::SkillInput {
            skill: s("skillName"),
        },
        other => panic!("{other}"),
    };
    match input["formatter"].as_str().unwrap() {
        "formatDenyReason" => deny_message(&subject, agent),
        "formatUserDeniedReason" => user_denied_message(&subject, input["denialReason"].as_str()),
        other => panic!("{other}"),
    }
}

/// Compares a simulation with an observed pipeline result: the decision,
/// the gates in order, and every field the observation recorded.
pub fn compare_simulation(observed: &Value, sim: &Simulation) -> Vec<String> {
    let mut diffs = Vec::new();
    if observed["decision"] != sim.decision.as_str() {
        diffs.push(format!(
            "decision: expected {} got {}",
            observed["decision"],
            sim.decision.as_str()
        ));
    }
    let Some(gates) = observed["gates"].as_array() else {
        return diffs;
    };
    if gates.len() != sim.gates.len() {
        diffs.push(format!(
            "gates: expected {} got {}: {:?}",
            gates.len(),
            sim.gates.len(),
            common::gate_names(&sim.gates)
        ));
        return diffs;
    }
    for (o, g) in gates.iter().zip(&sim.gates) {
        let actual = common::gate_json(g);
        for d in compare(o, &actual) {
            diffs.push(format!("gate {}: {d}", g.gate));
        }
    }
    diffs
}

#[test]
fn drift_cases_pipeline_and_e2e() {
    drift_cases("conformance/pi-drift-cases.jsonl", V20);
}

/// The drift catalogue as the 26.3.1 sources ran it: decisions, gates,
/// rules, executed units and the 26.0 agent-facing texts of every call, and
/// the config issues word for word.
#[test]
fn drift_cases_on_26_3_1() {
    drift_cases("conformance/pi-drift-cases-26.3.1.jsonl", V26);
    let mut checked = 0;
    for case in common::jsonl("conformance/pi-drift-cases-26.3.1.jsonl") {
        let loaded = load_policy(&inputs(&case, V26));
        let mut got = Vec::new();
        for (scope, name) in [("global", "global.json"), ("project", "project.json")] {
            let text = match &case[scope] {
                Value::Null => continue,
                Value::String(s) => s.clone(),
                other => serde_json::to_string_pretty(other).unwrap(),
            };
            got.extend(read_config(&text, V26).runtime_issues(name));
        }
        got.extend(loaded.startup_warnings());
        let observed = &case["observed"];
        assert_eq!(
            json!(got),
            observed["configIssues"],
            "{}: config issues",
            case["id"]
        );
        assert_eq!(
            json!(loaded.issues),
            observed["policyIssues"],
            "{}: policy issues",
            case["id"]
        );
        checked += 1;
    }
    assert_eq!(checked, 45);
}

fn drift_cases(file: &str, version: Version) {
    let mut failures = Vec::new();
    let mut n = 0;
    for case in common::jsonl(file) {
        let loaded = load_policy(&inputs(&case, version));
        let cwd = case["cwd"].as_str().unwrap_or("/workspace/project");
        let results = case["observed"]["results"].as_array().unwrap();
        for (call, observed) in case["calls"].as_array().unwrap().iter().zip(results) {
            let sim = loaded.policy.simulate(
                &Call {
                    tool: call["tool"].as_str().unwrap().into(),
                    input: call["input"].clone(),
                    agent: case["agent"].as_str().map(String::from),
                    cwd: cwd.into(),
                },
                &NoFs,
            );
            n += 1;
            let diffs = if case["mode"] == "e2e" {
                let mut d = Vec::new();
                if observed["decision"] != sim.decision.as_str() {
                    d.push(format!(
                        "decision: expected {} got {}",
                        observed["decision"],
                        sim.decision.as_str()
                    ));
                }
                d
            } else {
                compare_simulation(observed, &sim)
            };
            if !diffs.is_empty() {
                failures.push(format!(
                    "{} {} {}\n   {}",
                    case["id"],
                    call["tool"],
                    call["input"],
                    diffs.join("\n   ")
                ));
            }
        }
        if let Some(w) = case["observed"]["permissiveBashWarning"].as_str() {
            assert!(
                loaded.permissive_bash_warning,
                "{}: warning expected",
                case["id"]
            );
            assert_eq!(
                w,
                permission_lsp::formats::pi::engine::messages::PERMISSIVE_BASH_WARNING
            );
        } else if case["observed"].get("permissiveBashWarning").is_some() {
            assert!(
                !loaded.permissive_bash_warning,
                "{}: no warning expected",
                case["id"]
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} calls differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
