//! The CLI against careless and hostile input: devices, FIFOs, deep trees,
//! odd characters, refused agent names, and the batch's per-line scopes.
//! Every command runs under a watchdog: a hang is a failure, not a stuck CI.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs the binary with `args` and `stdin`; kills it after 20 s.
fn run_in(dir: &Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_string();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(stdin.as_bytes());
    });
    // Output is read while the command runs: a report larger than the pipe
    // buffer must not block it.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut b);
        b
    });
    let err_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut b);
        b
    });
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`permission-lsp {}` hung", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = feeder.join();
    let status = child.wait().expect("wait");
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out_reader.join().unwrap()).into_owned(),
        String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
    )
}

fn run(args: &[&str]) -> (i32, String, String) {
    run_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, "")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-hostile-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const GLOBAL: &str = ".pi/agent/extensions/pi-permission-system/config.json";

#[test]
fn patterns_ending_in_a_multibyte_character_are_checked() {
    let dir = scratch("multibyte");
    for (i, key) in ["git é", "git \\ud800", "git \u{200d}", "npm ü*"]
        .iter()
        .enumerate()
    {
        let path = dir.join(format!("home{i}")).join(GLOBAL);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            format!(r#"{{"permission":{{"bash":{{"{key}":"allow"}}}}}}"#),
        )
        .unwrap();
        let (code, out, err) = run(&["check", path.to_str().unwrap()]);
        assert!(code == 0 || code == 1, "{key}: exit {code}\n{out}\n{err}");
        assert!(out.contains("Checked 1 file"), "{key}: {out}");
    }
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn devices_and_fifos_are_errors_never_hangs() {
    let dir = scratch("fifo");
    let fifo = dir.join("config.json");
    mkfifo(&fifo);
    let fifo = fifo.to_str().unwrap();
    for args in [
        &["check", "/dev/zero"][..],
        &["check", fifo],
        &["simulate", "--config", fifo, "--tool", "bash"],
        &["simulate", "--config", "/dev/zero", "--tool", "bash"],
        &["simulate", "--config", "/tmp", "--tool", "bash"],
        &[
            "simulate",
            "--config",
            "/nonexistent/x.json",
            "--tool",
            "bash",
        ],
        &["simulate", "--runtime", "pi", "--batch", "/dev/zero"],
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains("not a regular file")
                || err.contains("No such file")
                || out.contains("not a regular file"),
            "{args:?}: {out}{err}"
        );
    }
    // A FIFO without a writer is an empty batch.
    let (code, out, err) = run(&["simulate", "--runtime", "pi", "--batch", fifo]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out, "");
}

#[test]
fn configs_deep_in_a_tree_are_found() {
    let dir = scratch("deep");
    let mut deep = dir.clone();
    for _ in 0..48 {
        deep.push("d");
    }
    let cfg = deep.join(".pi/extensions/pi-permission-system/config.json");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(&cfg, r#"{"permission":{"bash":"allow",}}"#).unwrap();
    let (code, out, _) = run(&["check", dir.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("PL002") && out.contains("Checked 1 file"),
        "{out}"
    );
}

#[test]
fn a_batch_line_with_bad_bytes_is_answered_and_the_rest_goes_on() {
    let dir = scratch("batch-utf8");
    let batch = dir.join("calls.jsonl");
    let mut bytes = br#"{"tool":"bash","input":{"command":"ls"}}"#.to_vec();
    bytes.extend(b"\n{\"tool\":\"bash\",\"input\":{\"command\":\"\xff\"}}\n");
    bytes.extend(br#"{"tool":"bash","input":{"command":"pwd"}}"#);
    std::fs::write(&batch, bytes).unwrap();
    let (code, out, err) = run(&[
        "simulate",
        "--runtime",
        "pi",
        "--batch",
        batch.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[1]["line"], 2);
    assert!(lines[1]["error"].is_string());
    assert_eq!(lines[2]["input"]["command"], "pwd");
}

/// A line's `agent` and `cwd` load that agent's and that project's files,
/// exactly as `--agent` and `--cwd` do.
#[test]
fn batch_lines_use_their_own_agent_and_cwd() {
    let dir = scratch("batch-agent");
    let project = dir.join("project");
    let agent = project.join(".pi/agents/dev.md");
    std::fs::create_dir_all(agent.parent().unwrap()).unwrap();
    std::fs::write(
        &agent,
        "---\nname: dev\npermission:\n  bash:\n    \"rm *\": deny\n---\nDev.\n",
    )
    .unwrap();
    let other = dir.join("other");
    let cfg = other.join(".pi/extensions/pi-permission-system/config.json");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(&cfg, r#"{"permission":{"bash":{"rm *":"allow"}}}"#).unwrap();
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let batch = format!(
        "{}\n{}\n{}\n",
        r#"{"tool":"bash","input":{"command":"rm -rf x"},"agent":"dev"}"#,
        r#"{"tool":"bash","input":{"command":"rm -rf x"}}"#,
        serde_json::json!({"tool": "bash", "input": {"command": "rm -rf x"}, "cwd": other}),
    );
    let (code, out, err) = run_in(
        &dir,
        &[
            "simulate", "--cwd", "project", "--home", "home", "--batch", "-", "--format", "json",
        ],
        &batch,
    );
    assert_eq!(code, 0, "{err}");
    let decisions: Vec<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["decision"].to_string())
        .collect();
    assert_eq!(decisions, [r#""deny""#, r#""ask""#, r#""allow""#], "{out}");
    let (_, single, _) = run_in(
        &dir,
        &[
            "simulate",
            "--cwd",
            "project",
            "--home",
            "home",
            "--agent",
            "dev",
            "--tool",
            "bash",
            "--input",
            r#"{"command":"rm -rf x"}"#,
            "--format",
            "json",
        ],
        "",
    );
    assert!(single.contains(r#""decision":"deny""#), "{single}");
}

/// PL208 follows the runtime's own check on the merged global and project
/// policy: a global `bash` catch-all covers a project `"*": "allow"`.
#[test]
fn permissive_bash_is_judged_on_the_merged_policy() {
    let (code, out, _) = run(&[
        "check",
        "--scopes",
        "--home",
        "tests/fixtures/permissive-bash/home",
        "tests/fixtures/permissive-bash/project",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("PL208"), "{out}");
    let (_, sim, _) = run(&[
        "simulate",
        "--home",
        "tests/fixtures/permissive-bash/home",
        "--cwd",
        "tests/fixtures/permissive-bash/project",
        "--tool",
        "bash",
        "--input",
        r#"{"command":"curl x"}"#,
        "--format",
        "json",
    ]);
    assert!(sim.contains(r#""decision":"ask""#), "{sim}");
    // Alone, the project file is permissive, and says so.
    let (_, alone, _) = run(&["check", "tests/fixtures/permissive-bash/project"]);
    assert!(alone.contains("PL208"), "{alone}");
}

/// A refused agent name keeps every other scope's findings and says why
/// the agent's files are missing.
#[test]
fn a_refused_agent_name_is_reported_and_the_other_scopes_stay() {
    for agent in ["..", "a/b", "/abs/dev"] {
        let (code, out, _) = run(&[
            "check",
            "--scopes",
            "--home",
            "tests/fixtures/scopes/home",
            "--agent",
            agent,
            "tests/fixtures/scopes/project/.pi/extensions",
        ]);
        assert_eq!(code, 0, "{agent}: {out}");
        assert!(out.contains("warning[PL227]"), "{agent}: {out}");
        assert!(
            out.contains("warning[PL210]"),
            "{agent}: cross-scope finding kept: {out}"
        );
        assert!(out.contains("warning[PL225]"), "{agent}: {out}");
    }
}

/// A minified Claude Code settings file with tens of thousands of rules and
/// keys on one line: every finding is printed (each with its source line
/// cut to a window), none of the checks compares every rule with every
/// other.
#[test]
fn a_minified_settings_file_with_many_rules() {
    let dir = scratch("minified-claude");
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    let rules: Vec<String> = (0..30_000).map(|i| format!("\"Bash(cmd{i}:*)\"")).collect();
    let keys: Vec<String> = (0..20_000).map(|i| format!("\"k{i}\": {i}")).collect();
    let text = format!(
        "{{\"permissions\": {{\"allow\": [{}], \"ask\": [{}]}}, {}}}",
        rules.join(","),
        rules[..20_000].join(","),
        keys.join(",")
    );
    std::fs::write(dir.join(".claude/settings.json"), text).unwrap();
    let (code, out, _) = run_in(&dir, &["check", "."], "");
    assert_eq!(code, 0, "warnings only");
    assert!(
        // 20,000 asks inside allows, and the untrusted project's allow list.
        out.contains("Checked 1 file: 0 errors, 20001 warnings."),
        "{}",
        &out[out.len().saturating_sub(300)..]
    );
}

/// Names people cannot read whole: a 40 KB tool name and an agent named
/// `""` are shown clipped and as the empty string, in findings and in
/// errors (they were echoed whole, and as "agent ``").
#[test]
fn huge_and_empty_names_are_shown_readably() {
    let dir = scratch("names");
    let long = "x".repeat(40_000);
    let config = serde_json::json!({
        "permission": { long.clone(): "deny" },
        "agent": { "": { "permission": { "bash": { "git *": "allow", "*": "deny" } } } }
    });
    std::fs::write(dir.join("opencode.json"), config.to_string()).unwrap();
    let home = dir.display().to_string();
    let (_, out, _) = run_in(
        &dir,
        &[
            "check",
            "opencode.json",
            "--format",
            "json",
            "--home",
            &home,
        ],
        "",
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let messages: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert!(
        messages.iter().any(|m| m.contains("agent `\"\"`")),
        "{messages:?}"
    );
    for m in &messages {
        assert!(
            m.len() < 2_000 && !m.contains("``"),
            "{}",
            &m[..m.len().min(300)]
        );
    }
    for runtime in ["codex", "qwen", "gemini", "claude"] {
        let (code, _, err) = run_in(
            &dir,
            &[
                "simulate",
                "--runtime",
                runtime,
                "--tool",
                &long,
                "--input",
                "{}",
            ],
            "",
        );
        assert_eq!(code, 2, "{runtime}");
        assert!(err.len() < 2_000, "{runtime}: {} bytes", err.len());
    }
}

/// Runs the binary in `dir` with `home` as its home, killed after 60 s:
/// `None` when it had to be (a hang).
#[cfg(unix)]
fn run_bounded(dir: &Path, home: &Path, args: &[&str]) -> Option<(i32, String)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            let out = child.wait_with_output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            return Some((out.status.code().unwrap_or(-1), text));
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// FIFOs, device links and symlink loops in every place an agent's files
/// are found — project and home, every format — are reported or skipped,
/// never read into a hang: `check` with no flags and every runtime's
/// `simulate` finish.
#[cfg(unix)]
#[test]
fn fifos_and_links_in_every_discovered_place_never_hang() {
    let dir = scratch("every-place");
    let (project, home) = (dir.join("project"), dir.join("home"));
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let fifo_at = |rel: &str, base: &Path| {
        let p = base.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        mkfifo(&p);
    };
    let link_at = |rel: &str, base: &Path, to: &str| {
        let p = base.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(to, &p).unwrap();
    };
    for rel in [
        ".claude/settings.json",
        "opencode.json",
        ".opencode/agents/x.md",
        ".pi/extensions/pi-permission-system/config.json",
        ".pi/agents/y.md",
        ".qwen/settings.json",
        ".gemini/settings.json",
    ] {
        fifo_at(rel, &project);
    }
    link_at(".claude/settings.local.json", &project, "/dev/zero");
    link_at(".opencode/agents/loop", &project, ".");
    link_at(".opencode/agents/z.md", &project, "/dev/zero");
    for rel in [
        ".claude/settings.json",
        ".config/opencode/opencode.json",
        ".config/opencode/agents/a.md",
        ".codex/config.toml",
        ".codex/rules/default.rules",
        ".gemini/policies/p.toml",
        ".gemini/settings.json",
        ".qwen/settings.json",
        ".pi/agent/extensions/pi-permission-system/config.json",
    ] {
        fifo_at(rel, &home);
    }
    link_at(".codex/rules/zero.rules", &home, "/dev/zero");
    link_at(".gemini/policies/loop", &home, "..");
    let home_s = home.display().to_string();
    let (code, out) = run_bounded(&project, &home, &["check", "--home", &home_s])
        .expect("check hung on a FIFO or a link");
    // Each is said and passed over: nothing is read from it, and the
    // answer is not a clean one.
    assert_eq!(code, 2, "{out}");
    assert!(!out.contains("~//"), "{out}");
    for said in [
        "~/.claude/settings.json: a FIFO, not a regular file: not read",
        "~/.qwen/settings.json: a FIFO, not a regular file: not read",
        ".claude/settings.local.json: a device, not a regular file: not read",
        "opencode.json: a FIFO, not a regular file: not read",
        ".opencode/agents/z.md: a device, not a regular file: not read",
    ] {
        assert!(out.contains(said), "{said}\n{out}");
        assert_eq!(out.matches(said).count(), 1, "said once: {said}\n{out}");
    }
    for runtime in ["pi", "claude", "opencode", "codex", "qwen", "gemini"] {
        let (code, out) = run_bounded(
            &project,
            &home,
            &[
                "simulate",
                "--runtime",
                runtime,
                "--home",
                &home_s,
                "--command",
                "ls",
            ],
        )
        .unwrap_or_else(|| panic!("simulate --runtime {runtime} hung"));
        assert!((0..=2).contains(&code), "{runtime}: {code}: {out}");
    }
}

/// A long pipeline with a syntax error after it costs the bash grammar the
/// square of its length (8,000 commands: 3.4 s and 700 MB per parse): every
/// runtime that parses commands with it answers at once, from a command
/// it did not parse, and says so.
#[test]
fn a_long_pipeline_with_a_syntax_error_is_answered_as_incomplete() {
    let dir = scratch("long-pipeline");
    let shapes = [
        format!("{}a )", "a|".repeat(8_000)),
        format!("a ) {}", "| a".repeat(8_000)),
        format!("{}a \"", "{ a; } | ".repeat(8_000)),
    ];
    for runtime in ["opencode", "codex", "gemini", "qwen", "pi"] {
        let tool = permission_lsp::formats::by_id(runtime)
            .expect("a format")
            .shell_tool();
        let batch: String = shapes
            .iter()
            .map(|c| {
                format!(
                    "{}\n",
                    serde_json::json!({ "tool": tool, "input": { "command": c } })
                )
            })
            .collect();
        let (code, out, err) = run_in(
            &dir,
            &[
                "simulate",
                "--runtime",
                runtime,
                "--batch",
                "-",
                "--format",
                "json",
            ],
            &batch,
        );
        assert_eq!(code, 0, "{runtime}: {err}");
        let lines: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect();
        assert_eq!(lines.len(), shapes.len(), "{runtime}: {out:.300}");
        for l in &lines {
            let incomplete = l["incomplete"]
                .as_array()
                .unwrap_or_else(|| panic!("{runtime}: no `incomplete` in {:.300}", l.to_string()));
            assert!(
                incomplete
                    .iter()
                    .any(|s| s.as_str().is_some_and(|s| s.contains("was not parsed"))),
                "{runtime}: {incomplete:?}"
            );
            assert!(
                l["decision"].is_string(),
                "{runtime}: {:.300}",
                l.to_string()
            );
        }
    }
}
