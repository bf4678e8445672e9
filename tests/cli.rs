//! The `check` command as a user runs it.

use std::process::Command;

/// A home without configs, so that no developer's own files change an
/// answer.
fn empty_home() -> std::path::PathBuf {
    let home = std::env::temp_dir().join(format!("pl-cli-home-{}", std::process::id()));
    std::fs::create_dir_all(&home).unwrap();
    home
}

fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("HOME", empty_home())
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("PI_CODING_AGENT_DIR")
        .output()
        .expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn check_examples_reports_and_fails() {
    let (code, out) = run(&["check", "examples"]);
    assert_eq!(code, 1);
    assert!(!out.contains("\x1b["), "NO_COLOR is respected");
    // Every agent's bundled configs.
    for code in ["PL002", "CC014", "OC005", "CX001", "QW006", "GM008"] {
        assert!(out.contains(code), "{code}: {out}");
    }
    insta::assert_snapshot!(out.replace(env!("CARGO_MANIFEST_DIR"), "<repo>"));
}

#[test]
fn a_clean_config_passes() {
    let (code, out) = run(&["check", "examples/project"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.trim(), "Checked 1 file: no problems found.");
}

#[test]
fn json_format() {
    let (code, out) = run(&[
        "check",
        "--format",
        "json",
        "examples/broken/trailing-comma.json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["errors"], 2);
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "PL002");
    assert_eq!(d["start"]["line"], 6);
    assert_eq!(d["start"]["column"], 25);
    assert!(d["runtime_issue"].as_str().unwrap().starts_with(
        "Failed to read config at 'examples/broken/trailing-comma.json': Expected double-quoted property name"
    ));
}

#[test]
fn levels_and_target_version() {
    let (code, _) = run(&[
        "check",
        "--level",
        "PL010=off",
        "--level",
        "integer-key-order=off",
        "examples/broken/duplicate-and-integer-keys.json",
    ]);
    assert_eq!(code, 0);
    let (_, out) = run(&[
        "check",
        "--target-version",
        "21.0.0",
        "--format",
        "json",
        "examples/broken/invalid-values.json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let codes: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(
        !codes.contains(&"PL111"),
        "authorizerChain is accepted from 20.9.0: {codes:?}"
    );
    let (code, _) = run(&["check", "--level", "PL999=off", "examples"]);
    assert_eq!(code, 2);
}

#[test]
fn missing_paths_are_io_errors() {
    let (code, out) = run(&["check", "does/not/exist.json"]);
    assert_eq!(code, 2);
    assert!(out.contains("does/not/exist.json"), "{out}");
}

fn simulate(args: &[&str], stdin: Option<&str>) -> (i32, String) {
    use std::io::Write;
    let home = empty_home();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_permission-lsp"));
    cmd.arg("simulate")
        .args(["--cwd", "examples/project", "--home"])
        .arg(&home)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("PI_CODING_AGENT_DIR")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    if let Some(s) = stdin {
        child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn simulate_one_call_human() {
    let (code, out) = simulate(
        &[
            "--tool",
            "bash",
            "--input",
            r#"{"command":"git status && npm install"}"#,
        ],
        None,
    );
    assert_eq!(code, 0);
    insta::assert_snapshot!(out.replace(env!("CARGO_MANIFEST_DIR"), "<repo>"));
}

#[test]
fn simulate_json_shape() {
    let (_, out) = simulate(
        &[
            "--tool",
            "read",
            "--input",
            r#"{"path":"src/.env"}"#,
            "--format",
            "json",
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["rule"]["pattern"], "*.env");
    assert_eq!(v["rule"]["scope"], "project");
    assert_eq!(v["rule"]["line"], 15);
    assert_eq!(
        v["agent_message"],
        "[pi-permission-system] Current agent is not permitted to access path 'src/.env' via tool 'read'."
    );
}

#[test]
fn simulate_batch_from_stdin() {
    let batch = "{\"tool\":\"bash\",\"input\":{\"command\":\"git log -3\"}}\nnot json\n{\"tool\":\"write\",\"input\":{\"path\":\"a.txt\"}}\n{\"input\":{}}\n";
    let (code, out) = simulate(&["--batch", "-", "--format", "json"], Some(batch));
    assert_eq!(code, 0);
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["decision"], "allow");
    assert!(lines[1]["error"].as_str().unwrap().starts_with("not JSON"));
    assert_eq!(lines[2]["decision"], "ask");
    assert_eq!(lines[3]["error"], "missing \"tool\"");
}

#[test]
fn simulate_rejects_bad_arguments() {
    let (code, _) = simulate(&["--tool", "bash", "--input", "{nope"], None);
    assert_eq!(code, 2);
    let (code, _) = simulate(&["--tool", "bash", "--agent", "../evil"], None);
    assert_eq!(code, 2);
}

#[test]
fn sarif_format() {
    let (code, out) = run(&["check", "--format", "sarif", "examples"]);
    assert_eq!(code, 1);
    let log: serde_json::Value = serde_json::from_str(&out).expect("SARIF is JSON");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    // Every code of every format.
    assert_eq!(
        rules.len(),
        permission_lsp::formats::all()
            .iter()
            .map(|f| f.codes().len())
            .sum::<usize>()
    );
    let results = run["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for r in results {
        let idx = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], r["ruleId"]);
        assert!(["error", "warning", "note"].contains(&r["level"].as_str().unwrap()));
        let loc = &r["locations"][0]["physicalLocation"];
        assert!(
            loc["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .starts_with("examples/")
        );
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
    }
    let trailing = results
        .iter()
        .find(|r| r["ruleId"] == "PL002")
        .expect("the trailing comma is reported");
    assert_eq!(
        trailing["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "examples/broken/trailing-comma.json"
    );
}

#[test]
fn github_format() {
    let (code, out) = run(&[
        "check",
        "--format",
        "github",
        "examples/broken/trailing-comma.json",
    ]);
    assert_eq!(code, 1);
    let first = out.lines().next().unwrap();
    assert!(
        first.starts_with("::error file=examples/broken/trailing-comma.json,line="),
        "{first}"
    );
    assert!(first.contains(",title=PL002 trailing-comma::"), "{first}");
    // Workflow-command data is escaped: no raw newline inside one annotation.
    assert!(out.lines().all(|l| l.starts_with("::")));
}

#[test]
fn check_with_scopes_reads_the_files_together() {
    let (code, out) = run(&[
        "check",
        "--scopes",
        "--home",
        "tests/fixtures/scopes/home",
        "tests/fixtures/scopes",
    ]);
    assert_eq!(code, 0, "{out}");
    // D19 across files, D18, and the agent files are checked too.
    assert!(
        out.contains(
            "warning[PL210]: `git *` (allow) never takes effect: `*` (ask, in the global config"
        ),
        "{out}"
    );
    assert!(
        out.contains("warning[PL225]: this empty map replaces `\"read\": \"ask\"`"),
        "{out}"
    );
    assert!(out.contains("Checked 4 files"), "{out}");
    // With --no-scopes the project file alone has no precedence problem.
    let (_, alone) = run(&["check", "--no-scopes", "tests/fixtures/scopes/project"]);
    assert!(
        !alone.contains("PL210") && !alone.contains("PL225"),
        "{alone}"
    );
}

/// One set of flags: a project directory or file named on the command line
/// that does not exist is an error with exit status 2, in every command.
#[test]
fn missing_named_paths_are_errors_everywhere() {
    for args in [
        &["simulate", "--cwd", "/nonexistent/dir", "--tool", "bash"][..],
        &[
            "simulate",
            "--project",
            "/nonexistent/dir",
            "--tool",
            "bash",
        ][..],
        &[
            "simulate",
            "--config",
            "/nonexistent/x.json",
            "--tool",
            "bash",
        ][..],
        &["explain", "--project", "/nonexistent/dir"][..],
        &["explain", "--config", "/nonexistent/x.json"][..],
        &["simulate", "--batch", "/nonexistent/calls.jsonl"][..],
        &["check", "--runtime", "no-such-format", "examples"][..],
        &["explain", "--target-version", "x.y"][..],
    ] {
        let (code, _) = run(args);
        assert_eq!(code, 2, "{args:?}");
    }
    // `--target-version` is accepted by all three.
    let (code, _) = run(&[
        "explain",
        "--target-version",
        "20.9.0",
        "--project",
        "examples/project",
    ]);
    assert_eq!(code, 0);
    let (code, _) = run(&[
        "simulate",
        "--target-version",
        "20.9.0",
        "--project",
        "examples/project",
        "--tool",
        "bash",
        "--input",
        "{\"command\":\"ls\"}",
    ]);
    assert_eq!(code, 0);
}

/// `auto` takes the version pi installed, where pi records it: a file with
/// a key newer than the installed version is rejected as that version
/// rejects it; a pinned package in pi's settings counts too.
#[test]
fn auto_takes_the_installed_version() {
    let dir = std::env::temp_dir().join(format!("pl-installed-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let home = dir.join("home");
    let agent = home.join(".pi/agent");
    let cfg = dir.join("proj/.pi/extensions/pi-permission-system/config.json");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        &cfg,
        r#"{"forwardingTimeoutMs": 5000, "permission": {"*": "ask"}}"#,
    )
    .unwrap();
    let check = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
            .args(["check", "--home"])
            .arg(&home)
            .arg(&cfg)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // Nothing installed: the lowest version that accepts the key.
    assert!(check().contains("PL112"), "{}", check());
    // Installed 20.7.3: the key rejects the file.
    let pkg = agent.join("npm/node_modules/@gotgenes/pi-permission-system");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(pkg.join("package.json"), r#"{"version": "20.7.3"}"#).unwrap();
    let out = check();
    assert!(
        out.contains("error[PL111]") && out.contains("the target is 20.7.3"),
        "{out}"
    );
    // A pinned package in pi's settings: 25.1.0 accepts it.
    std::fs::remove_dir_all(agent.join("npm")).unwrap();
    std::fs::write(
        agent.join("settings.json"),
        r#"{"packages": ["npm:@gotgenes/pi-permission-system@25.1.0"]}"#,
    )
    .unwrap();
    let out = check();
    assert!(!out.contains("PL111") && !out.contains("PL112"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `simulate --runtime opencode`: the top-level decision, the deciding
/// rule with its place, a hidden tool as `deny` with `tool_hidden`, agents.
#[test]
fn simulate_opencode_calls() {
    let dir = std::env::temp_dir().join(format!("permission-lsp-cli-oc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let project = dir.join("project");
    let home = dir.join("home");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        project.join("opencode.json"),
        r#"{ "permission": { "bash": { "*": "ask", "git *": "allow", "git push *": "deny" }, "webfetch": "deny" },
  "agent": { "review": { "permission": { "bash": { "git *": "allow", "*": "deny" } } } } }"#,
    )
    .unwrap();
    let sim = |agent: Option<&str>, tool: &str, input: &str| {
        let (p, h) = (project.display().to_string(), home.display().to_string());
        let mut args = vec![
            "simulate",
            "--runtime",
            "opencode",
            "--cwd",
            &p,
            "--home",
            &h,
            "--tool",
            tool,
            "--input",
            input,
            "--format",
            "json",
        ];
        if let Some(a) = agent {
            args.extend(["--agent", a]);
        }
        let (code, out) = run(&args);
        assert_eq!(code, 0, "{out}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let v = sim(
        None,
        "bash",
        r#"{"command":"git status && git push origin main"}"#,
    );
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["rule"]["pattern"], "git push *");
    assert_eq!(v["rule"]["line"], 1);
    assert_eq!(v["tool_hidden"], false);
    let v = sim(None, "bash", r#"{"command":"git status"}"#);
    assert_eq!(v["decision"], "allow");
    // Answered for the default agent: the agent with rules of its own is
    // named, with how to ask for it; asked for by name, it is not.
    let line = "agent `build` (the default) — this session's files also give agent `review` (opencode.json) rules of its own: `--agent review` answers for it";
    assert!(
        v["explanation"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l == line),
        "{v:#}"
    );
    let v = sim(Some("build"), "bash", r#"{"command":"git status"}"#);
    assert!(
        !v["explanation"].to_string().contains("(the default)"),
        "{v:#}"
    );
    let v = sim(None, "bash", r#"{"command":"make"}"#);
    assert_eq!(v["decision"], "ask");
    let v = sim(Some("review"), "bash", r#"{"command":"git status"}"#);
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["tool_hidden"], true);
    let v = sim(None, "webfetch", r#"{"url":"https://example.com"}"#);
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["tool_hidden"], true);
    let v = sim(
        Some("plan"),
        "edit",
        r#"{"filePath":"src/a.rs","oldString":"a","newString":"b"}"#,
    );
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["rule"]["layer"], "built-in agent");
    let (code, out) = run(&[
        "simulate",
        "--runtime",
        "opencode",
        "--cwd",
        &project.display().to_string(),
        "--agent",
        "nobody",
        "--tool",
        "bash",
        "--input",
        r#"{"command":"ls"}"#,
    ]);
    assert_ne!(code, 0, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A temporary pi workspace: `home/` with the global config written as
/// `global_config`, and an empty `proj/`. Returns the folder and the
/// project and home paths as arguments.
fn pi_workspace(name: &str, global_config: &str) -> (std::path::PathBuf, String, String) {
    let dir =
        std::env::temp_dir().join(format!("permission-lsp-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let global = dir.join("home/.pi/agent/extensions/pi-permission-system");
    std::fs::create_dir_all(&global).unwrap();
    std::fs::create_dir_all(dir.join("proj")).unwrap();
    std::fs::write(global.join("config.json"), global_config).unwrap();
    let (p, h) = (
        dir.join("proj").display().to_string(),
        dir.join("home").display().to_string(),
    );
    (dir, p, h)
}

/// `simulate --target-version all`: every known pi-permission-system
/// version side by side, and where the answer changes (a rejected project
/// file fails closed from 21.0).
#[test]
fn simulate_every_version_side_by_side() {
    let (dir, p, h) = pi_workspace("tva", r#"{"permission":{"*":"allow"}}"#);
    let project = dir.join("proj/.pi/extensions/pi-permission-system");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("config.json"),
        r#"{"permission":{"bash":{"rm *":"deny"}},"bogusKey":1}"#,
    )
    .unwrap();
    let (code, out) = run(&[
        "simulate",
        "--cwd",
        &p,
        "--home",
        &h,
        "--target-version",
        "all",
        "--tool",
        "bash",
        "--input",
        r#"{"command":"ls"}"#,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let versions = v["versions"].as_array().unwrap();
    assert_eq!(versions[0]["version"], "20.7.3");
    assert_eq!(versions[0]["decision"], "allow");
    assert!(
        versions
            .iter()
            .any(|x| x["version"] == "26.3.1" && x["decision"] == "ask")
    );
    assert!(
        versions.last().unwrap()["basis"]
            .as_str()
            .unwrap()
            .contains("documented, not verified")
    );
    assert_eq!(v["changes"][0]["from"], "20.7.3");
    assert_eq!(v["changes"][0]["to"], "21.0.0");
    assert_eq!(v["changes"][0]["after"], "ask");
    let (code, _) = run(&["simulate", "--target-version", "all", "--batch", "-"]);
    assert_eq!(code, 2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// From 30.1 (documented, not verified) a tool stays visible while any of
/// its rules does not deny: `bash: {"*": "deny", "git status": "allow"}`
/// hides bash up to 26.3.1 and not on 30.1 and later, and the answers for
/// those versions say how they are known.
#[test]
fn tool_hiding_changes_in_30_1_and_documented_answers_say_so() {
    let (dir, p, h) = pi_workspace(
        "hide",
        r#"{"permission":{"*":"ask","bash":{"*":"deny","git status":"allow"}}}"#,
    );
    let global = dir.join("home/.pi/agent/extensions/pi-permission-system");
    let args = |v: &'static str, format: &'static str| {
        vec![
            "simulate".to_string(),
            "--cwd".into(),
            p.clone(),
            "--home".into(),
            h.clone(),
            "--target-version".into(),
            v.into(),
            "--tool".into(),
            "bash".into(),
            "--input".into(),
            r#"{"command":"rm -rf x"}"#.into(),
            "--format".into(),
            format.into(),
        ]
    };
    let go = |v, f| {
        let a = args(v, f);
        run(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let (_, out) = go("all", "json");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let hidden = |ver: &str| {
        v["versions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["version"] == ver)
            .unwrap()["tool_hidden"]
            .as_bool()
            .unwrap()
    };
    assert!(hidden("20.7.3") && hidden("26.3.1"));
    assert!(!hidden("30.1.0") && !hidden("40.1.4"));
    assert_eq!(v["changes"][0]["before"], "deny (tool hidden)");
    assert_eq!(
        (
            v["changes"][0]["from"].as_str(),
            v["changes"][0]["to"].as_str()
        ),
        (Some("27.1.0"), Some("30.1.0"))
    );
    // One documented version alone: its basis is in the explanation.
    let (_, out) = go("40.1.4", "human");
    assert!(
        out.contains(
            "basis: pi-permission-system 40.1.4: decisions as 26.3.1 plus the documented changes"
        ),
        "{out}"
    );
    assert!(out.contains("documented, not verified"), "{out}");
    assert!(
        out.contains("tool hiding only when every rule of the tool denies (30.1)"),
        "{out}"
    );
    let (_, out) = go("26.3.1", "human");
    assert!(!out.contains("basis:"), "{out}");
    // The finding about the hidden tool follows the version.
    let file = global.join("config.json").display().to_string();
    let (_, out) = run(&["check", &file, "--target-version", "26.3.1"]);
    assert!(out.contains("PL209"), "{out}");
    let (_, out) = run(&["check", &file, "--target-version", "40.1.4"]);
    assert!(!out.contains("PL209"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// From 21.0 an agent file that exists but cannot be read fails closed
/// (checked on the 26.3.1 sources: an `agents/ops.md` that is a directory
/// turns `read` from allow into ask, with "Invalid agent configuration
/// detected — failing closed: …"); 20.7.3 ignores it.
#[test]
fn an_unreadable_agent_file_fails_closed_from_21_0() {
    let (dir, p, h) = pi_workspace("agent", r#"{"permission":{"*":"allow"}}"#);
    std::fs::create_dir_all(dir.join("home/.pi/agent/agents/ops.md")).unwrap();
    let decide = |version: &str| {
        let (_, out) = run(&[
            "simulate",
            "--cwd",
            &p,
            "--home",
            &h,
            "--agent",
            "ops",
            "--target-version",
            version,
            "--tool",
            "read",
            "--input",
            r#"{"path":"a.txt"}"#,
            "--format",
            "json",
        ]);
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    assert_eq!(decide("20.7.3")["decision"], "allow");
    let v = decide("26.3.1");
    assert_eq!(v["decision"], "ask", "{v}");
    assert!(
        v.to_string()
            .contains("Invalid agent configuration detected"),
        "{v}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// 39.0 (documented, not verified): the infrastructure read bypass covers
/// only pi's harness entries under its agent directory, never this
/// package's logs, and a targeted `external_directory` deny outranks it
/// (a catch-all `*` deny does not). Up to 26.3.1 the whole agent directory
/// is bypassed.
#[test]
fn infrastructure_reads_narrowed_from_39_0() {
    let (dir, p, h) = pi_workspace(
        "infra",
        r#"{"permission":{"*":"allow","external_directory":{"*":"deny","~/.pi/agent/skills/secret/*":"deny"}}}"#,
    );
    let decide = |version: &str, path: &str| {
        let input = serde_json::json!({ "path": format!("{h}/.pi/agent/{path}") }).to_string();
        let (_, out) = run(&[
            "simulate",
            "--cwd",
            &p,
            "--home",
            &h,
            "--target-version",
            version,
            "--tool",
            "read",
            "--input",
            &input,
            "--format",
            "json",
        ]);
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["decision"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let paths = [
        "auth.json",
        "skills/web/SKILL.md",
        "skills/secret/a.md",
        "extensions/pi-permission-system/logs/review.jsonl",
    ];
    let on = |v: &str| paths.iter().map(|p| decide(v, p)).collect::<Vec<_>>();
    assert_eq!(on("26.3.1"), ["allow", "allow", "allow", "allow"]);
    assert_eq!(on("40.1.4"), ["deny", "allow", "deny", "deny"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scratch folder with a git repository (`project`) and an empty home.
fn user_project(name: &str) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("pl-found-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (project, home) = (dir.join("project"), dir.join("home"));
    std::fs::create_dir_all(project.join("sub")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    git_in(&project, &["init", "-q"]);
    (dir, project, home)
}

fn git_in(dir: &std::path::Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(ok.status.success(), "git {args:?}: {ok:?}");
}

fn write_file(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Runs in `dir` with `HOME` set to `home`: (exit status, stdout, stderr).
fn run_as_user(
    dir: &std::path::Path,
    home: &std::path::Path,
    args: &[&str],
) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("XDG_CONFIG_HOME")
        .output()
        .expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A Claude Code user's first commands, with no flags: each answers for
/// Claude Code, says so, and reads the user's file too.
#[test]
fn a_claude_code_project_gets_claude_code_answers_without_flags() {
    let (dir, project, home) = user_project("claude");
    let settings = project.join(".claude/settings.json");
    write_file(
        &settings,
        "{\n  \"permissions\": {\n    \"allow\": [\"Bash(rm -rf build)\"],\n    \"deny\": [\"Bash(git push:*)\"]\n  }\n}\n",
    );
    write_file(
        &home.join(".claude/settings.json"),
        "{\"permissions\": {\"allow\": [\"Bash(git:*)\"], \"deny\": [\"Bash(rm:*)\"]}}\n",
    );
    let (code, out, err) = run_as_user(
        &project,
        &home,
        &[
            "simulate",
            "--tool",
            "Bash",
            "--input",
            r#"{"command":"rm -rf build"}"#,
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\ndeny  Bash `rm -rf build`"), "{out}");
    assert!(out.contains("Bash(rm:*)"), "{out}");
    assert!(
        err.contains(
            "answering for Claude Code (found ~/.claude/settings.json, .claude/settings.json)"
        ),
        "{err}"
    );
    // `--command` is the shell tool's call.
    let (code, out2, _) = run_as_user(&project, &home, &["simulate", "--command", "rm -rf build"]);
    assert_eq!((code, &out2), (0, &out));
    // explain: Claude Code's merged policy with both files.
    let (code, out, _) = run_as_user(&project, &home, &["explain"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("Effective policy of Claude Code 2.1.332"),
        "{out}"
    );
    assert!(
        out.contains("Bash(rm:*)") && out.contains("Bash(git push:*)"),
        "{out}"
    );
    // check with no argument: the user's file and the project's, read
    // together (the project's allow never decides next to the user's deny).
    let (code, out, _) = run_as_user(&project, &home, &["check", "--format", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["files"], 2, "{out}");
    let on = |v: &serde_json::Value, code: &str, file: &str| {
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == code && d["path"].as_str().unwrap().ends_with(file))
    };
    assert!(on(&v, "CC014", ".claude/settings.json"), "{out}");
    // The same from a subdirectory: the project is found.
    let (_, from_sub, _) = run_as_user(&project.join("sub"), &home, &["check", "--format", "json"]);
    let w: serde_json::Value = serde_json::from_str(&from_sub).unwrap();
    assert_eq!(w["files"], 2, "{from_sub}");
    assert!(on(&w, "CC014", "../.claude/settings.json"), "{from_sub}");
    assert_eq!(
        w["diagnostics"].as_array().unwrap().len(),
        v["diagnostics"].as_array().unwrap().len()
    );
    // --no-scopes: each file alone.
    let (_, alone, _) = run_as_user(
        &project,
        &home,
        &["check", "--no-scopes", "--format", "json"],
    );
    let a: serde_json::Value = serde_json::from_str(&alone).unwrap();
    assert!(!on(&a, "CC014", ".claude/settings.json"), "{alone}");
    // diff after deleting the deny: `git push` newly allowed through the
    // user's `Bash(git:*)`.
    git_in(&project, &["add", "-A"]);
    git_in(&project, &["commit", "-qm", "base"]);
    write_file(
        &settings,
        "{\n  \"permissions\": {\n    \"allow\": [\"Bash(rm -rf build)\"]\n  }\n}\n",
    );
    let (code, out, err) = run_as_user(&project, &home, &["diff"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("newly allowed: Bash `git push"), "{out}");
    assert!(out.contains("Claude Code"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An OpenCode user's first commands answer for OpenCode; with a Claude
/// Code file as well, every command answers for both, side by side.
#[test]
fn several_agents_answer_side_by_side_and_none_says_where_it_looked() {
    let (dir, project, home) = user_project("several");
    let (code, out, err) = run_as_user(&project, &home, &["simulate", "--command", "git push"]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("no permission configs found"), "{err}");
    for place in [
        "~/.claude/settings.json",
        ".claude/settings.local.json",
        "~/.config/opencode",
        "~/.pi/agent/extensions/pi-permission-system/config.json",
    ] {
        assert!(err.contains(place), "{place}: {err}");
    }
    let (code, out, _) = run_as_user(&project, &home, &["check"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("No permission configs found (looked in:"),
        "{out}"
    );
    assert!(!out.contains("no problems found"), "{out}");

    write_file(
        &project.join("opencode.json"),
        r#"{"permission": {"bash": {"*": "ask", "git push *": "deny"}}}"#,
    );
    let (code, out, err) = run_as_user(
        &project,
        &home,
        &["simulate", "--command", "git push origin"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("deny  bash `git push origin`"), "{out}");
    assert!(
        err.contains("answering for OpenCode (found opencode.json)"),
        "{err}"
    );

    write_file(
        &project.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(git push:*)"]}}"#,
    );
    let (code, out, _) = run_as_user(
        &project,
        &home,
        &[
            "simulate",
            "--command",
            "git push origin",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let answers = v["answers"].as_array().unwrap();
    assert_eq!(answers.len(), 2, "{out}");
    assert_eq!(answers[0]["tool"], "Bash");
    assert_eq!(answers[1]["tool"], "bash");
    assert_eq!(answers[1]["decision"], "deny");
    let (_, human, _) = run_as_user(
        &project,
        &home,
        &["simulate", "--command", "git push origin"],
    );
    assert!(
        human.contains("Claude Code 2.1.332:") && human.contains("opencode 1.18.33:"),
        "{human}"
    );
    let (code, out, _) = run_as_user(&project, &home, &["explain", "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["formats"].as_array().unwrap().len(), 2, "{out}");
    // A batch is one agent's: several here is an error that names them.
    let (code, _, err) = run_as_user(&project, &home, &["simulate", "--batch", "/dev/null"]);
    assert_eq!(code, 2);
    assert!(err.contains("claude, opencode"), "{err}");
    // --runtime pins one.
    let (code, out, err) = run_as_user(
        &project,
        &home,
        &["simulate", "--runtime", "opencode", "--command", "ls"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("ask   bash `ls`") && !err.contains("answering"),
        "{out}{err}"
    );
    // From a subdirectory, OpenCode still finds the project (it walks up
    // to the git root); Claude Code reads `.claude/settings.json` from the
    // directory it starts in only.
    let (code, out, err) = run_as_user(
        &project.join("sub"),
        &home,
        &["simulate", "--command", "git push origin"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        err.contains("answering for OpenCode (found ../opencode.json)"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file whose path says nothing is read by its content; one that is no
/// permission config is an error; `rule CODE` prints the code's page.
#[test]
fn named_files_are_read_by_content_and_rule_prints_pages() {
    let (dir, project, home) = user_project("content");
    let template = project.join("templates/strict.json");
    write_file(
        &template,
        r#"{"permissions": {"allow": ["Bash(ls)", "Bash(ls)"], "deny": ["Read(./.env)"]}}"#,
    );
    let (code, out, _) = run_as_user(&project, &home, &["check", "templates/strict.json"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("CC013") && !out.contains("PL100"), "{out}");
    write_file(
        &project.join("package.json"),
        r#"{"name": "x", "version": "1.0.0"}"#,
    );
    let (code, out, _) = run_as_user(&project, &home, &["check", "package.json"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("package.json: not a permission config of a known format"),
        "{out}"
    );
    // An OpenCode agent file named by its relative path.
    write_file(
        &project.join(".opencode/agents/deployer.md"),
        "---\ndescription: d\npermission:\n  bash:\n    \"*\": deny\n---\nx\n",
    );
    let (code, out, _) = run_as_user(
        &project,
        &home,
        &["check", "--format", "json", ".opencode/agents/deployer.md"],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| !d["code"].as_str().unwrap().starts_with("PL")),
        "{code} {out}"
    );
    // The pages come with the binary.
    let (code, out, _) = run_as_user(&project, &home, &["rule", "CC014"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("# CC014 `rule-never-decides`"), "{out}");
    let (code, out, _) = run_as_user(&project, &home, &["rule", "trailing-comma"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("# PL002"), "{out}");
    let (code, _, err) = run_as_user(&project, &home, &["rule", "XX123"]);
    assert_eq!(code, 2);
    assert!(err.contains("XX123"), "{err}");
    let (code, out, _) = run_as_user(&project, &home, &["rule"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("Claude Code:") && out.contains("OC001"),
        "{out}"
    );
    // Diagnostics point at the command, not at a repository path.
    let (_, out, _) = run_as_user(&project, &home, &["check", "templates/strict.json"]);
    assert!(
        out.contains("help: for more, run `permission-lsp rule CC013`"),
        "{out}"
    );
    // A home or working directory that does not exist is named.
    let (code, _, err) = run_as_user(&project, &home, &["check", "--home", "/nonexistent/home"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/home"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `diff` compares a real corpus settings file with many Bash rules
/// completely (an added rule already covered: no difference, exit 0), and
/// never passes silently: when a tool's comparison runs out of budget (a
/// rule set whose automaton explodes) and nothing newly allowed was found,
/// the summary names the tool and the exit status is 3.
#[test]
fn an_incomplete_diff_exits_3_and_says_which_tool() {
    let (dir, project, home) = user_project("incomplete");
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claude/corpus/012090120901209__ahk-mcp__.claude__settings.json");
    let text = std::fs::read_to_string(corpus).unwrap();
    write_file(&project.join(".claude/settings.json"), &text);
    // Trusted, so that the project's allow rules count.
    write_file(
        &home.join(".claude.json"),
        &serde_json::json!({"projects": {project.display().to_string(): {"hasTrustDialogAccepted": true}}})
            .to_string(),
    );
    git_in(&project, &["add", "-A"]);
    git_in(&project, &["commit", "-qm", "base"]);
    // An edit that adds a rule already covered.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["permissions"]["allow"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!("Bash(git status)"));
    write_file(&project.join(".claude/settings.json"), &v.to_string());
    let (code, out, err) = run_as_user(&project, &home, &["diff"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(": 0 differences") && !out.contains("INCOMPLETE"),
        "{out}"
    );
    // Rules whose automata multiply: every mix of their progress is a
    // state, past any budget.
    let explosive: Vec<String> = (0..40u32)
        .map(|i| {
            format!(
                "Bash(*{}{}*{}{}*)",
                char::from(b'a' + (i % 26) as u8),
                i,
                char::from(b'a' + (i * 7 % 26) as u8),
                i
            )
        })
        .collect();
    write_file(
        &project.join(".claude/settings.json"),
        &serde_json::json!({"permissions": {"ask": explosive}}).to_string(),
    );
    git_in(&project, &["add", "-A"]);
    git_in(&project, &["commit", "-qm", "explosive"]);
    let mut more = explosive.clone();
    more.push("Bash(git status)".into());
    write_file(
        &project.join(".claude/settings.json"),
        &serde_json::json!({"permissions": {"ask": more}}).to_string(),
    );
    // (A small budget, so that the test does not wait for the default one
    // to run out.)
    let (code, out, err) = run_as_user(&project, &home, &["diff", "--budget", "2000000"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        out.contains("INCOMPLETE: `Bash` not compared completely"),
        "{out}"
    );
    let (code, json, _) = run_as_user(
        &project,
        &home,
        &["diff", "--budget", "2000000", "--format", "json"],
    );
    assert_eq!(code, 3);
    let j: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(j["incomplete"], serde_json::json!(["Bash"]), "{json}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tool name the agent does not have is an error with a did-you-mean
/// (exit 2), never an answer; with several agents here, the others answer.
#[test]
fn a_tool_the_agent_lacks_is_refused_with_a_did_you_mean() {
    let (dir, project, home) = user_project("tools");
    write_file(
        &project.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(rm:*)"]}}"#,
    );
    let (code, out, err) = run_as_user(
        &project,
        &home,
        &[
            "simulate",
            "--tool",
            "bash",
            "--input",
            r#"{"command":"rm x"}"#,
        ],
    );
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains(
            "`bash` is not a Claude Code tool (did you mean `Bash`? tool names are case-sensitive)"
        ),
        "{err}"
    );
    let (code, _, err) = run_as_user(&project, &home, &["simulate", "--tool", "Reed"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `Read`?"), "{err}");
    // MCP tools are the servers' own.
    let (code, _, _) = run_as_user(&project, &home, &["simulate", "--tool", "mcp__srv__x"]);
    assert_eq!(code, 0);
    // With OpenCode here too, `bash` is OpenCode's tool: it answers, and
    // Claude Code's refusal is said.
    write_file(
        &project.join("opencode.json"),
        r#"{"permission": {"bash": "ask"}}"#,
    );
    let (code, out, err) = run_as_user(
        &project,
        &home,
        &[
            "simulate",
            "--tool",
            "bash",
            "--input",
            r#"{"command":"rm x"}"#,
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("ask   bash `rm x`"), "{out}");
    assert!(err.contains("`bash` is not a Claude Code tool"), "{err}");
    // An unknown --permission-mode is refused with the valid list.
    let (code, _, err) = run_as_user(
        &project,
        &home,
        &[
            "simulate",
            "--runtime",
            "claude",
            "--permission-mode",
            "yolo",
            "--command",
            "ls",
        ],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("default, acceptEdits, plan, dontAsk, bypassPermissions"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Trust is never silent: without `~/.claude.json` (every CI runner) the
/// CLI ignores the project's allow rules, and `check` says so on the allow
/// list; `simulate` says it in its answer; `--trusted` assumes the project
/// is trusted.
#[test]
fn an_untrusted_project_is_said_and_trusted_assumes_it() {
    let (dir, project, home) = user_project("trust");
    write_file(
        &project.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(npm run build)"]}}"#,
    );
    let (code, out, _) = run_as_user(&project, &home, &["check"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("warning[CC017]: Claude Code has not run here (no ~/.claude.json), so this project is not trusted yet: it ignores the 1 allow rule of the project settings"),
        "{out}"
    );
    let (_, out, _) = run_as_user(&project, &home, &["check", "--trusted"]);
    assert!(!out.contains("CC017"), "{out}");
    let (_, out, _) = run_as_user(&project, &home, &["simulate", "--command", "npm run build"]);
    assert!(out.contains("this workspace has not been trusted"), "{out}");
    assert!(out.contains("\nask   Bash `npm run build`"), "{out}");
    let (_, out, _) = run_as_user(
        &project,
        &home,
        &["simulate", "--trusted", "--command", "npm run build"],
    );
    assert!(out.starts_with("allow Bash `npm run build`"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `check --fix`: the safe fixes of every file applied in place, one at a
/// time and read again after each (of two rules that make each other
/// redundant one stays), every other byte kept, then what is left
/// reported; a file with nothing safe to fix is not written.
#[test]
fn check_fix_applies_the_safe_fixes_in_place() {
    let dir = std::env::temp_dir().join(format!("permission-lsp-cli-fix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("proj/.claude")).unwrap();
    let local = dir.join("proj/.claude/settings.local.json");
    std::fs::write(
        &local,
        "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm:*)\",\n      \"Bash(npm *)\",\n      \"Bash(npm run test:*)\",\n      \"Bash(git status)\",\n      \"Bash(git status)\",\n      \"bash(ls)\"\n    ]\n  }\n}\n",
    )
    .unwrap();
    let project = dir.join("proj/.claude/settings.json");
    let untouched = "{\"permissions\": {\"deny\": [\"Read(./.env)\"]}}";
    std::fs::write(&project, untouched).unwrap();
    let before = std::fs::metadata(&project).unwrap().modified().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .args(["check", "--fix", "--trusted", "--runtime", "claude"])
        .current_dir(dir.join("proj"))
        .env("HOME", empty_home())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("fixed 3 problems in .claude/settings.local.json"),
        "{stdout}"
    );
    let fixed = std::fs::read_to_string(&local).unwrap();
    // One of `Bash(npm:*)` and `Bash(npm *)` stays; the skipped `bash(ls)`
    // is not a safe fix (it would start allowing `ls`) and is reported.
    assert_eq!(
        fixed,
        "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm:*)\",\n      \"Bash(git status)\",\n      \"bash(ls)\"\n    ]\n  }\n}\n"
    );
    assert!(stdout.contains("error[CC005]"), "{stdout}");
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_eq!(std::fs::read_to_string(&project).unwrap(), untouched);
    assert_eq!(
        std::fs::metadata(&project).unwrap().modified().unwrap(),
        before
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file of over a megabyte is analysed in its turn and its findings
/// written as they are made (never all held): every finding is reported
/// once, in the file's order, in every output format — SARIF without a
/// copy of the file per finding.
#[test]
fn a_large_file_is_reported_whole_and_in_order() {
    let dir = std::env::temp_dir().join(format!("pl-cli-large-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (home, project) = (dir.join("home"), dir.join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let n = 40_000;
    let mut text = String::from("{\n  \"permission\": {\n    \"bash\": {\n");
    for i in 0..n {
        let action = if i % 2 == 0 { "deny" } else { "allow" };
        text.push_str(&format!("      \"cmd{i} *\": \"{action}\",\n"));
    }
    text.push_str("      \"*\": \"ask\"\n    }\n  }\n}\n");
    assert!(text.len() > 1 << 20);
    std::fs::write(project.join("opencode.json"), &text).unwrap();

    let (code, out, _) = run_as_user(
        &project,
        &home,
        &["check", "--format", "json", "opencode.json"],
    );
    assert_eq!(code, 0, "{}", &out[..out.len().min(2000)]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["warnings"], n);
    let found: Vec<&serde_json::Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "OC005")
        .collect();
    assert_eq!(found.len(), n);
    for (i, d) in found.iter().enumerate() {
        assert_eq!(d["start"]["line"], i + 4, "{d}");
    }
    let others = report["diagnostics"].as_array().unwrap().len() - n;

    let (_, out, _) = run_as_user(&project, &home, &["check", "opencode.json"]);
    assert_eq!(out.matches("warning[OC005]").count(), n);
    let other = if others > 0 {
        format!(", {others} other")
    } else {
        String::new()
    };
    assert!(
        out.ends_with(&format!("Checked 1 file: 0 errors, {n} warnings{other}.\n")),
        "{}",
        &out[out.len() - 200..]
    );
    let first = out.find("`bash` `cmd0` is asked about").unwrap();
    let last = out
        .find(&format!("`bash` `cmd{}` is asked about", n - 1))
        .unwrap();
    assert!(first < last);

    let (_, out, _) = run_as_user(
        &project,
        &home,
        &["check", "--format", "sarif", "opencode.json"],
    );
    let log: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), n + others);
    let last = results.iter().rfind(|r| r["ruleId"] == "OC005").unwrap();
    assert_eq!(
        last["locations"][0]["physicalLocation"]["region"]["startLine"],
        n + 3
    );
    let _ = std::fs::remove_dir_all(&dir);
}
