//! pi-permission-system beyond 20.7.3: what the real 26.3.1 (upstream
//! sources, the reference runtime `pi-26.3.1`) decided for configurations
//! whose answer changed after 20.7.3
//! (`tests/fixtures/runtime/pi-26.3.1-observed.json`, recorded with its
//! `simulate.mts`), decided again by the engine with the 26.3.1 profile;
//! and the same configurations as 20.7.3 decides them.

use crate::common;

use common::oracle::HOME;
use permission_lsp::formats::pi::engine::gates::Call;
use permission_lsp::formats::pi::engine::paths::RealFs;
use permission_lsp::formats::pi::engine::policy::load_policy;
use permission_lsp::formats::pi::model::State;
use permission_lsp::formats::pi::model::versions::Version;
use serde_json::Value;

fn observed() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/runtime/pi-26.3.1-observed.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn decide(case: &Value, version: Version) -> (Vec<String>, Vec<String>) {
    let mut inputs = common::policy_inputs(case, HOME);
    inputs.version = version;
    let loaded = load_policy(&inputs);
    let decisions = case["observed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let sim = loaded.policy.simulate(
                &Call {
                    tool: c["tool"].as_str().unwrap().into(),
                    input: c["input"].clone(),
                    agent: None,
                    cwd: "/workspace/project".into(),
                },
                &RealFs,
            );
            match sim.decision {
                State::Allow => "allow",
                State::Ask => "ask",
                State::Deny => "deny",
            }
            .to_string()
        })
        .collect();
    (decisions, loaded.issues)
}

/// A recorded case decided on 26.3.1 and on 20.7.3.
fn on_both(id: &str) -> (Vec<String>, Vec<String>) {
    let cases = observed();
    let case = cases.iter().find(|c| c["id"] == id).unwrap();
    (
        decide(case, Version(26, 3, 1)).0,
        decide(case, Version(20, 7, 3)).0,
    )
}

#[test]
fn every_recorded_case_decides_as_26_3_1() {
    let cases = observed();
    assert!(cases.len() >= 6);
    for case in &cases {
        let want: Vec<&str> = case["observed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["decision"].as_str().unwrap())
            .collect();
        let (got, _) = decide(case, Version(26, 3, 1));
        assert_eq!(got, want, "{}", case["id"]);
    }
}

/// From 25.2.1 yolo grants every gate that asks, the wrapper floors
/// included (`sudo ls`); 20.7.3 still asks for them.
#[test]
fn yolo_grants_wrapper_asks_from_25_2_1() {
    let (new, old) = on_both("yolo-grants-wrapper-asks");
    assert_eq!(new[0], "allow");
    assert_eq!(old[0], "ask", "sudo ls on 20.7.3");
    assert_eq!(old[3], "deny");
}

#[test]
fn a_rejected_project_file_fails_closed_from_21_0() {
    let cases: Vec<Value> = observed()
        .into_iter()
        .filter(|c| {
            let id = c["id"].as_str().unwrap();
            id.contains("project") || id.contains("global") || id.contains("fail-closed")
        })
        .collect();
    assert!(cases.len() >= 4);
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        assert_eq!(case["version"], "26.3.1");
        let want: Vec<&str> = case["observed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["decision"].as_str().unwrap())
            .collect();
        let (got, issues) = decide(case, Version(26, 3, 1));
        assert_eq!(got, want, "{id}: decisions on 26.3.1");
        // The fail-closed notice, in the runtime's words (the file errors'
        // wording changed in 26.0 and is not reproduced yet).
        let notice = |v: &[String]| v.iter().any(|i| i.contains("failing closed"));
        let runtime: Vec<String> = case["policyIssues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_str().unwrap().to_string())
            .collect();
        assert_eq!(notice(&issues), notice(&runtime), "{id}: {issues:?}");
        if notice(&runtime) {
            let text = runtime
                .iter()
                .find(|i| i.contains("failing closed"))
                .unwrap();
            assert!(issues.contains(text), "{id}: {issues:?}");
        }
        // 20.7.3 only drops the rejected file: no clamp, no notice.
        let (_, old) = decide(case, Version(20, 7, 3));
        assert!(!notice(&old), "{id}");
    }
    // On 20.7.3 the first case's `ls` is allowed (the global allow stands).
    let (old, _) = decide(&cases[0], Version(20, 7, 3));
    assert_eq!(old[0], "allow");
}

/// From 23.0 the value of `--opt=value` reaches the path gates, from 25.0
/// a leading `$HOME` / `${HOME}` is the home directory; 20.7.3 reads
/// neither.
#[test]
fn option_values_and_home_reach_the_path_gates() {
    let (new, old) = on_both("option-values-and-home-reach-external-directory");
    assert_eq!(&new[..3], ["ask", "ask", "ask"]);
    assert_eq!(&old[..3], ["allow", "allow", "allow"]);
    // Between the two changes: option values yes, `$HOME` not yet.
    let cases = observed();
    let case = cases
        .iter()
        .find(|c| c["id"] == "option-values-and-home-reach-external-directory")
        .unwrap();
    let (mid, _) = decide(case, Version(24, 0, 0));
    assert_eq!(&mid[..3], ["ask", "allow", "allow"]);
}

/// From 22.0 an untrusted project's config (rules and knobs such as
/// `yoloMode`) is withheld; 20.7.3 applies it.
#[test]
fn an_untrusted_project_is_withheld_from_22_0() {
    let (new, old) = on_both("untrusted-project-is-withheld");
    assert_eq!(new, ["allow", "allow", "ask"]);
    assert_eq!(old[0], "deny", "the project's deny applies on 20.7.3");
}

/// pi's trust store as pi reads it: no project inputs → trusted; the
/// nearest entry of `trust.json`; `defaultProjectTrust`; else undecided.
#[test]
fn project_trust_is_read_from_pis_trust_store() {
    use permission_lsp::formats::pi::scopes::project_trust;
    let dir = std::env::temp_dir().join(format!("pl-trust-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let agent = dir.join("agent");
    let parent = dir.join("work");
    let project = parent.join("proj");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    // No `.pi` and no `.agents/skills`: nothing to trust.
    assert_eq!(project_trust(&agent, &project), Some(true));
    std::fs::create_dir_all(project.join(".pi")).unwrap();
    assert_eq!(project_trust(&agent, &project), None);
    std::fs::write(
        agent.join("settings.json"),
        r#"{"defaultProjectTrust": "never"}"#,
    )
    .unwrap();
    assert_eq!(project_trust(&agent, &project), Some(false));
    // The nearest recorded decision wins over the default.
    std::fs::write(
        agent.join("trust.json"),
        serde_json::json!({ parent.display().to_string(): true }).to_string(),
    )
    .unwrap();
    assert_eq!(project_trust(&agent, &project), Some(true));
    std::fs::write(
        agent.join("trust.json"),
        serde_json::json!({ parent.display().to_string(): true, project.display().to_string(): false }).to_string(),
    )
    .unwrap();
    assert_eq!(project_trust(&agent, &project), Some(false));
    let _ = std::fs::remove_dir_all(&dir);
}

/// From 25.2.2 the commands of substitutions in redirect destinations and
/// interpolating here-documents are gated; 20.7.3 never sees them.
#[test]
fn commands_in_redirects_and_heredocs_are_gated_from_25_2_2() {
    let (new, old) = on_both("redirect-and-heredoc-commands-are-gated");
    assert_eq!(new, ["deny", "deny", "allow", "allow", "deny"]);
    assert_eq!(old[0], "allow", "`echo hi > $(rm -rf dist)` on 20.7.3");
}

/// From 23.0 a bare bash token (`id_rsa`) reaches the path rules only when
/// it names an existing entry (observed on 26.3.1 by the differential test,
/// seed 3; the runtime's ADR 0009); up to 22.x a `path` deny/ask rule that
/// names it promotes it whether or not it exists.
#[test]
fn bare_tokens_reach_path_rules_by_existence_from_23() {
    let dir = std::env::temp_dir().join(format!("permission-lsp-bare-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("credentials"), "k").unwrap();
    let cwd = dir.display().to_string();
    let case = serde_json::json!({
        "global": {"permission": {"*": "allow", "path": {"id_rsa": "ask", "*credentials": "ask"}}},
        "cwd": cwd,
    });
    let gates = |cmd: &str, version: Version| {
        let mut inputs = common::policy_inputs(&case, HOME);
        inputs.version = version;
        let loaded = load_policy(&inputs);
        let sim = loaded.policy.simulate(
            &Call {
                tool: "bash".into(),
                input: serde_json::json!({ "command": cmd }),
                agent: None,
                cwd: cwd.clone(),
            },
            &RealFs,
        );
        common::gate_names(&sim.gates)
    };
    // Named by a rule, absent: promoted by 20.7.3, not by 26.3.1.
    assert!(
        gates("cat id_rsa", Version(20, 7, 3))
            .iter()
            .any(|g| g.starts_with("path"))
    );
    assert!(
        !gates("cat id_rsa", Version(26, 3, 1))
            .iter()
            .any(|g| g.starts_with("path"))
    );
    // Present: a path candidate on 26.3.1.
    assert!(
        gates("cat credentials", Version(26, 3, 1))
            .iter()
            .any(|g| g.starts_with("path"))
    );
    assert!(
        !gates("cat nothere", Version(26, 3, 1))
            .iter()
            .any(|g| g.starts_with("path"))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// One bash call per command.
fn bash_calls(cmds: &[&str]) -> Vec<(&'static str, Value)> {
    cmds.iter()
        .map(|c| ("bash", serde_json::json!({ "command": c })))
        .collect()
}

/// What `version` does with `calls` (tool, input) for a conformance-style
/// `case`, with nothing on disk.
fn simulations(
    case: &Value,
    version: Version,
    calls: &[(&str, Value)],
) -> Vec<permission_lsp::formats::pi::engine::gates::Simulation> {
    let mut inputs = common::policy_inputs(case, HOME);
    inputs.version = version;
    let loaded = load_policy(&inputs);
    calls
        .iter()
        .map(|(tool, input)| {
            loaded.policy.simulate(
                &Call {
                    tool: (*tool).into(),
                    input: input.clone(),
                    agent: None,
                    cwd: "/workspace/project".into(),
                },
                &permission_lsp::formats::pi::engine::paths::NoFs,
            )
        })
        .collect()
}

/// Decisions of `calls` under the global `config` for `version`.
fn decisions(config: Value, version: Version, calls: &[(&str, Value)]) -> Vec<String> {
    simulations(&serde_json::json!({ "global": config }), version, calls)
        .iter()
        .map(|sim| sim.decision.as_str().to_string())
        .collect()
}

/// 27.1's directional path surfaces (documented, not verified): the bare
/// surface's entries come first, a directional entry has the last word;
/// read tools consult `_read`, `write` consults `_write`, `edit` and
/// unproven bash tokens consult both; a pure reader's arguments read and a
/// `>` target writes (and, from 34.0, is gated before it exists). Up to
/// 26.3.1 the directional keys are tool names whose rules never apply.
#[test]
fn directional_path_surfaces_from_27_1() {
    use serde_json::json;
    let config = json!({"permission": {
        "*": "allow",
        "path": {"*": "allow"},
        "path_write": {"*.lock": "deny"},
        "external_directory": "ask",
        "external_directory_read": {"/opt/data/*": "allow"}
    }});
    let calls = [
        ("read", json!({"path": "package.lock"})),
        ("write", json!({"path": "package.lock"})),
        ("edit", json!({"path": "package.lock"})),
        ("bash", json!({"command": "cat package.lock"})),
        ("bash", json!({"command": "echo x > package.lock"})),
        ("bash", json!({"command": "cp a.txt dir/package.lock"})),
        ("read", json!({"path": "/opt/data/x"})),
        ("write", json!({"path": "/opt/data/x"})),
        ("bash", json!({"command": "cat /opt/data/x"})),
        ("bash", json!({"command": "cp /opt/data/x ."})),
    ];
    assert_eq!(
        decisions(config.clone(), Version(40, 1, 4), &calls),
        [
            "allow", "deny", "deny", "allow", "deny", "deny", "allow", "ask", "allow", "ask"
        ]
    );
    // 27.1 before 34.0: a redirect target that does not exist (and has no
    // path shape) is not a path candidate yet.
    assert_eq!(
        decisions(config.clone(), Version(27, 1, 0), &calls)[4],
        "allow"
    );
    assert_eq!(
        decisions(config, Version(26, 3, 1), &calls),
        [
            "allow", "allow", "allow", "allow", "allow", "allow", "ask", "ask", "ask", "ask"
        ]
    );
}

/// 32.0.1 (documented, not verified): a deny on a later gate refuses
/// before an earlier gate's ask — the agent reads the deny, naming its
/// rule. Before, a session without a UI stops at the first ask.
#[test]
fn deny_preempts_ask_from_32_0_1() {
    let case = serde_json::json!({"global": {"permission": {
        "*": "allow",
        "external_directory": "ask",
        "bash": {"*": "allow", "find / *": "deny"}
    }}});
    let message = |version: Version| {
        let calls = [("bash", serde_json::json!({"command": "find / -name x"}))];
        let sim = simulations(&case, version, &calls).remove(0);
        assert_eq!(sim.decision, State::Deny);
        sim.agent_message.unwrap()
    };
    assert!(
        message(Version(26, 3, 1)).contains("requires approval"),
        "{}",
        message(Version(26, 3, 1))
    );
    assert_eq!(
        message(Version(32, 0, 1)),
        "[pi-permission-system] Denied by policy: 'bash' (rule 'find / *')."
    );
}

/// 27.1's keys: a directional surface makes `auto` read the file as 27.1;
/// another `path_…` key rejects the file from 27.1 on (documented).
#[test]
fn directional_keys_raise_auto_and_typos_reject_from_27_1() {
    use permission_lsp::core::profile::RuntimeProfile;
    use permission_lsp::formats::pi::model::read::{read_config, read_config_as};
    use permission_lsp::formats::pi::model::versions::Assumed;
    let auto = RuntimeProfile {
        format: permission_lsp::formats::pi::codes::FORMAT,
        version: Version(20, 7, 3),
        auto: true,
    };
    let file = read_config_as(r#"{"permission": {"path_read": {"*": "ask"}}}"#, auto, None);
    assert_eq!(file.version, Version(27, 1, 0));
    assert_eq!(file.assumed, Assumed::NeededBy("permission.path_read"));
    assert!(file.accepted());
    let typo = r#"{"permission": {"path_writes": {"*": "ask"}}}"#;
    let file = read_config(typo, Version(40, 1, 4));
    assert!(!file.accepted());
    assert_eq!(
        file.runtime_issues("config.json"),
        [
            "Invalid config value at 'permission.path_writes': Unknown directional surface key 'path_writes'"
        ]
    );
    assert!(read_config(typo, Version(26, 3, 1)).accepted());
}

/// 33.0 (documented, not verified): the last rule matching any of an MCP
/// call's targets decides, and a prefix-named tool derives the longest
/// configured server; before, the first target with a rule of its own
/// decided (observed on 20.7.3 and 26.3.1, PL219).
#[test]
fn mcp_last_match_from_33_0() {
    use serde_json::json;
    let config =
        json!({"permission": {"mcp": {"*": "ask", "github": "deny", "myServer:*": "allow"}}});
    let calls = [
        ("mcp", json!({"tool": "github:search_code"})),
        ("mcp", json!({"tool": "search_code", "server": "myServer"})),
    ];
    assert_eq!(
        decisions(config.clone(), Version(26, 3, 1), &calls),
        ["ask", "ask"]
    );
    assert_eq!(
        decisions(config.clone(), Version(33, 0, 0), &calls),
        ["deny", "allow"]
    );
    // `github_search_code` names its server by prefix only from 33.0.
    let case = json!({"global": config, "mcpServerNames": ["github", "git"]});
    let prefix = |version: Version| {
        let calls = [("mcp", json!({"tool": "github_search_code"}))];
        simulations(&case, version, &calls)[0]
            .decision
            .as_str()
            .to_string()
    };
    assert_eq!(prefix(Version(26, 3, 1)), "ask");
    assert_eq!(prefix(Version(40, 1, 4)), "deny");
}

/// Wrapper transparency (documented, not verified): from 27.1 an
/// indirection wrapper running a pure reader is decided by that reader's
/// own rules instead of the floor, unless the statement writes through a
/// redirect or the wrapper hands its command line to a shell; from 39.1
/// `time`, `timeout`, `nice`, `stdbuf` and `setsid` are decided as the
/// command they run. An explicit deny or ask on the wrapper still decides.
#[test]
fn wrapper_transparency_from_27_1_and_39_1() {
    use serde_json::json;
    let config = json!({"permission": {"*": "allow", "bash": {"*": "allow", "wc *": "deny", "xargs rm *": "deny", "nohup *": "ask"}}});
    let cmds = [
        "xargs grep -l foo",
        "xargs wc -l",
        "xargs rm -rf",
        "xargs grep foo > out.txt",
        "xargs grep foo 2>&1",
        "timeout 10 make",
        "sudo -n true",
        "watch cat x",
        "nohup cat x",
        "xargs sort -o /tmp/x",
    ];
    let calls = bash_calls(&cmds);
    assert_eq!(
        decisions(config.clone(), Version(26, 3, 1), &calls),
        [
            "ask", "ask", "deny", "ask", "ask", "ask", "ask", "ask", "ask", "ask"
        ]
    );
    assert_eq!(
        decisions(config.clone(), Version(27, 1, 0), &calls),
        [
            "allow", "deny", "deny", "ask", "allow", "ask", "allow", "ask", "ask", "ask"
        ]
    );
    assert_eq!(
        decisions(config, Version(40, 1, 4), &calls),
        [
            "allow", "deny", "deny", "ask", "allow", "allow", "allow", "ask", "ask", "ask"
        ]
    );
}

/// 40.0's absolute spelling (documented, not verified): each command is
/// also matched with its path arguments made absolute against the
/// directory a literal `cd` moved to; the last rule matching either text
/// wins. The documented examples.
#[test]
fn absolute_spelling_from_40_0() {
    use serde_json::json;
    let config = json!({"permission": {"*": "allow", "bash": {
        "*": "allow",
        "rm *": "ask",
        "rm /tmp/agent-builds/*": "allow",
        "rm /etc/*": "deny",
        "git push origin /workspace/project/feature/*": "deny"
    }}});
    let cmds = [
        "cd /tmp && rm agent-builds/x",
        "cd /etc && rm ./passwd",
        "cd \"$DIR\" && rm agent-builds/x",
        "cd /tmp && rm agent-builds/*",
        "rm \"../../tmp/agent-builds/a b\"",
        "git push origin feature/x",
    ];
    let calls = bash_calls(&cmds);
    assert_eq!(
        decisions(config.clone(), Version(39, 1, 0), &calls),
        ["ask", "ask", "ask", "ask", "ask", "allow"]
    );
    assert_eq!(
        decisions(config, Version(40, 0, 0), &calls),
        ["allow", "deny", "ask", "ask", "allow", "deny"]
    );
    // An absolute allow written before the broader ask still loses to it.
    let earlier = json!({"permission": {"bash": {"*": "allow", "rm /tmp/agent-builds/*": "allow", "rm *": "ask"}}});
    assert_eq!(
        decisions(
            earlier,
            Version(40, 1, 4),
            &[("bash", json!({"command": "cd /tmp && rm agent-builds/x"}))]
        ),
        ["ask"]
    );
}
