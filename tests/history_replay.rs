//! Replay of past decisions from the runtimes' own logs.
//!
//! The logs under `tests/fixtures/history/` were written by the real
//! runtimes: pi-permission-system 20.7.3's review log (`pi/record.py`, the
//! cases of `pi/cases.json`) and Claude Code 2.1.332's stream-json output
//! (`claude/record.py`, the cases of `tests/fixtures/claude/oracle/observed-cases.json`).
//! With the config unchanged, every record must replay to the decision the
//! runtime recorded; with an edited one, exactly the calls the edit touches
//! change.

#[path = "claude/harness.rs"]
mod harness;

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::contract::prelude::*;
use permission_lsp::formats::{self};
use permission_lsp::history::replay::{Change, Replayer, Summary};
use permission_lsp::workspace::{Context, Overrides, resolve};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/history")
}

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "permission-lsp-replay-{}-{tag}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Replays `log` (text) with the policies of `ctx`; the changes and the
/// summary.
fn replay(ctx: &Context<'_>, log: &str) -> (Vec<Change>, Summary) {
    let mut replayer = Replayer::new(Box::new(|f: &'static dyn Format, s: &_| {
        permission_lsp::history::replay::policy_for(ctx, f, s)
    }));
    let mut changes = Vec::new();
    let mut sink = |c: &Change| changes.push(c.clone());
    replayer.replay("log", &mut log.as_bytes(), &mut sink);
    (changes, replayer.summary)
}

/// pi: the global (and project) config of a case written where 20.7.3
/// reads them; the context and the log with its paths.
fn pi_case(case: &Value, root: &Path) -> (Context<'static>, String) {
    let agent = root.join("agent");
    let cwd = root.join("cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    write(
        &agent.join("extensions/pi-permission-system/config.json"),
        &case["global"].to_string(),
    );
    if let Some(p) = case.get("project") {
        write(
            &cwd.join(".pi/extensions/pi-permission-system/config.json"),
            &p.to_string(),
        );
    }
    let pi = formats::by_id("pi").unwrap();
    let mut options = AnalysisOptions::for_profile(pi.profile("20.7.3").unwrap());
    options.home = root.join("home").display().to_string();
    options
        .runtime_args
        .push(("agent-dir".into(), agent.display().to_string()));
    let ctx = resolve(&options, None, None, &Overrides::default(), None);
    let id = case["id"].as_str().unwrap();
    let log = std::fs::read_to_string(fixtures().join(format!("pi/recorded/{id}.jsonl")))
        .unwrap()
        .replace("{AGENT}", &agent.display().to_string())
        .replace("{CWD}", &cwd.display().to_string());
    (ctx, log)
}

#[test]
fn pi_review_logs_replay_to_the_recorded_decisions() {
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("pi/cases.json")).unwrap())
            .unwrap();
    let observed: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("pi/recorded/observed.json")).unwrap(),
    )
    .unwrap();
    let mut calls = 0;
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let root = temp(&format!("pi-{id}"));
        let (ctx, log) = pi_case(case, &root);
        let (changes, summary) = replay(&ctx, &log);
        // The driver calls every tool; a real session has no tool the
        // config hides (a deny catch-all), so a call to one can only
        // replay as denied.
        let active: Vec<&str> = observed[id]["active_tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        let (hidden, changed): (Vec<&Change>, Vec<&Change>) = changes
            .iter()
            .partition(|c| !active.contains(&c.tool.as_str()));
        assert!(
            changed.is_empty(),
            "{id}: unchanged config, changed decisions: {changed:#?}"
        );
        assert!(hidden.iter().all(|c| c.now == "deny"), "{hidden:#?}");
        assert_eq!(summary.unrebuildable, 0, "{id}: {:?}", summary.skipped);
        assert!(summary.unknown_events.is_empty(), "{id}");
        // Every call the runtime did not simply allow left a record.
        let not_allowed = observed[id]["calls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["decision"] != "allow")
            .count() as u64;
        assert!(
            summary.calls >= not_allowed,
            "{id}: {} records for {not_allowed} calls that were not allowed",
            summary.calls
        );
        calls += summary.calls;
        let _ = std::fs::remove_dir_all(&root);
    }
    assert!(calls >= 80, "only {calls} recorded calls replayed");
}

#[test]
fn an_edited_pi_config_changes_exactly_the_calls_it_touches() {
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("pi/cases.json")).unwrap())
            .unwrap();
    let mut case = cases.iter().find(|c| c["id"] == "case00").unwrap().clone();
    let root = temp("pi-edit");
    let (ctx, log) = pi_case(&case, &root);
    // The same calls, decided against a config where every bash rule allows.
    let bash = case["global"]["permission"]["bash"]
        .as_object_mut()
        .unwrap();
    for v in bash.values_mut() {
        *v = json!("allow");
    }
    let (_, _) = pi_case(&case, &root);
    let (changes, summary) = replay(&ctx, &log);
    assert!(summary.changed > 0);
    assert_eq!(summary.changed as usize, changes.len());
    for c in &changes {
        assert_eq!(c.tool, "bash", "{c:?}");
        assert_eq!(c.now, "allow", "{c:?}");
        let rule = c.rule.as_ref().expect("the deciding rule");
        assert_eq!(rule.surface, "bash");
        assert!(rule.place.file.as_deref().unwrap().ends_with("config.json"));
    }
    assert_eq!(
        summary.newly_allowed,
        summary.changed,
        "{}",
        summary.headline()
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// The fixture cases of the Claude Code oracle that have a transcript.
fn claude_cases() -> Vec<harness::Case> {
    let v: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/claude/oracle/observed-cases.json"),
        )
        .unwrap(),
    )
    .unwrap();
    v.iter()
        .map(harness::Case::from_fixture)
        .filter(|c| {
            fixtures()
                .join(format!("claude/recorded/{}.jsonl", c.id))
                .exists()
        })
        .collect()
}

/// A Claude Code session recorded with the CLI under `claude/<name>/`:
/// its case materialised in a fresh folder (root, project, home) and its
/// transcript with the folders put back in.
fn recorded_claude_session(name: &str) -> (harness::Case, PathBuf, PathBuf, PathBuf, String) {
    let dir = fixtures().join("claude").join(name);
    let case = harness::Case::from_fixture(
        &serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap(),
    );
    let root = temp(&format!("cc-{name}"));
    let (proj, home) = case.materialise(&root);
    let log = std::fs::read_to_string(dir.join("transcript.jsonl"))
        .unwrap()
        .replace("{PROJ}", &proj.display().to_string())
        .replace("{HOME}", &home.display().to_string());
    (case, root, proj, home, log)
}

fn claude_ctx(case: &harness::Case, proj: &Path, home: &Path) -> Context<'static> {
    case.context(proj, home)
}

#[test]
fn claude_code_transcripts_replay_to_the_recorded_decisions() {
    let cases = claude_cases();
    assert!(cases.len() >= 25, "{} recorded cases", cases.len());
    let mut calls = 0;
    let mut decided = 0;
    for case in &cases {
        let root = temp(&format!("cc-{}", case.id));
        let (proj, home) = case.materialise(&root);
        let log =
            std::fs::read_to_string(fixtures().join(format!("claude/recorded/{}.jsonl", case.id)))
                .unwrap()
                .replace("{PROJ}", &proj.display().to_string())
                .replace("{HOME}", &home.display().to_string());
        let ctx = claude_ctx(case, &proj, &home);
        let (changes, summary) = replay(&ctx, &log);
        assert!(
            changes.is_empty(),
            "{}: unchanged settings, changed decisions: {changes:#?}",
            case.id
        );
        assert_eq!(
            summary.unrebuildable, 0,
            "{}: {:?}",
            case.id, summary.skipped
        );
        calls += case.calls.len() as u64;
        decided += summary.calls;
        let _ = std::fs::remove_dir_all(&root);
    }
    // Every call the CLI was given has its decision in the transcript.
    assert_eq!(decided, calls);
}

#[test]
fn an_edited_claude_code_setting_shows_what_it_newly_allows() {
    let case = claude_cases()
        .into_iter()
        .find(|c| c.id == "t02_deny_beats_allow")
        .unwrap();
    let root = temp("cc-edit");
    let (proj, home) = case.materialise(&root);
    let log =
        std::fs::read_to_string(fixtures().join("claude/recorded/t02_deny_beats_allow.jsonl"))
            .unwrap()
            .replace("{PROJ}", &proj.display().to_string())
            .replace("{HOME}", &home.display().to_string());
    // No settings at all: what was denied is asked now, nothing is allowed
    // by a rule.
    for f in [".claude/settings.json", ".claude/settings.local.json"] {
        let _ = std::fs::remove_file(proj.join(f));
    }
    let _ = std::fs::remove_file(home.join(".claude/settings.json"));
    let ctx = claude_ctx(&case, &proj, &home);
    let (changes, summary) = replay(&ctx, &log);
    assert!(!changes.is_empty());
    assert!(changes.iter().all(|c| c.recorded != c.now), "{changes:#?}");
    assert!(changes.iter().any(|c| c.recorded == "deny"), "{changes:#?}");
    assert_eq!(
        summary.newly_allowed + summary.newly_asked + summary.newly_denied,
        summary.changed
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn malformed_records_are_counted_and_shown_never_dropped() {
    let root = temp("malformed");
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("pi/cases.json")).unwrap())
            .unwrap();
    let (ctx, log) = pi_case(&cases[0], &root);
    let mut lines: Vec<String> = log.lines().map(String::from).collect();
    let good = lines.len();
    // A truncated record, an unknown event, a record without a call, a
    // line that is not UTF-8 (as text: U+FFFD is still JSON-invalid here),
    // a huge line and blank lines.
    let cut = lines[1][..lines[1].len() / 2].to_string();
    lines.insert(2, cut);
    lines.push(r#"{"extension":"pi-permission-system","event":"permission_request.teleported","toolName":"bash"}"#.into());
    lines.push(r#"{"extension":"pi-permission-system","event":"permission_request.blocked","resolution":"policy_denied"}"#.into());
    lines.push(String::new());
    lines.push(format!("{{\"x\":\"{}\"}}", "a".repeat(17 << 20)));
    lines.push("   ".into());
    let mut text = lines.join("\n").into_bytes();
    text.extend_from_slice(b"\n\xff\xfe{}\n");
    let mut replayer = Replayer::new(Box::new(|f: &'static dyn Format, s: &_| {
        permission_lsp::history::replay::policy_for(&ctx, f, s)
    }));
    let mut sink = |_: &Change| {};
    replayer.replay("log", &mut text.as_slice(), &mut sink);
    let s = &replayer.summary;
    assert_eq!(s.unrebuildable, 4, "{:?}", s.skipped);
    let whys: Vec<&str> = s.skipped.iter().map(|k| k.why.as_str()).collect();
    assert!(whys.iter().any(|w| w.starts_with("not JSON")), "{whys:?}");
    assert!(
        whys.iter().any(|w| w.contains("longer than the cap")),
        "{whys:?}"
    );
    assert!(whys.contains(&"not UTF-8"), "{whys:?}");
    assert!(whys.iter().any(|w| w.contains("toolName")), "{whys:?}");
    assert_eq!(s.unknown_events["permission_request.teleported"], 1);
    assert!(s.calls as usize <= good);
    assert_eq!(s.changed, 0);

    // A file that is no decision log says so.
    let mut replayer = Replayer::new(Box::new(|f: &'static dyn Format, s: &_| {
        permission_lsp::history::replay::policy_for(&ctx, f, s)
    }));
    replayer.replay("notes", &mut &b"{\"hello\":1}\nplain text\n"[..], &mut sink);
    let f = &replayer.summary.files[0];
    assert!(
        f.error.as_deref().unwrap().contains("not a decision log"),
        "{f:?}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_replay_command_reports_changes_and_exits_1_on_any() {
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("pi/cases.json")).unwrap())
            .unwrap();
    let mut case = cases.iter().find(|c| c["id"] == "case00").unwrap().clone();
    let root = temp("cli");
    let (_, log) = pi_case(&case, &root);
    let log_path = root.join("review.jsonl");
    std::fs::write(&log_path, &log).unwrap();
    let config = root.join("agent/extensions/pi-permission-system/config.json");
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let args = |format: &'static str| {
        vec![
            "replay".to_string(),
            log_path.display().to_string(),
            "--config".into(),
            config.display().to_string(),
            "--home".into(),
            home.display().to_string(),
            "--target-version".into(),
            "20.7.3".into(),
            "--format".into(),
            format.into(),
        ]
    };
    let run = |format| {
        let a = args(format);
        cli(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    // Unchanged: every call decided as recorded.
    let (code, out, err) = run("human");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("pi-permission-system review log"), "{out}");
    assert!(out.trim_end().ends_with("none changes"), "{out}");

    // The bash catch-all (last, so it wins over every bash rule) asked;
    // now it allows.
    case["global"]["permission"]["bash"]["*"] = json!("allow");
    std::fs::write(&config, case["global"].to_string()).unwrap();
    let (code, out, _) = run("human");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(": ask -> allow  bash `rm -rf dist`  now by `bash` `*`"),
        "{out}"
    );
    assert!(out.contains("7 change: 7 newly allowed"), "{out}");
    let (code, out, _) = run("json");
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(v["changed"], 7);
    assert_eq!(v["calls"], 11);
    assert_eq!(v["changes"].as_array().unwrap().len(), 7);
    assert_eq!(v["changes"][0]["recorded"], "ask");
    assert_eq!(v["changes"][0]["now"], "allow");
    assert_eq!(v["changes"][0]["rule"]["pattern"], "*");
    assert_eq!(v["files"][0]["format"], "pi");

    // Another format's logs only: said per file, nothing replayed.
    let log_arg = log_path.display().to_string();
    let (code, out, _) = cli(&[
        "replay",
        &log_arg,
        "--runtime",
        "claude-code",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{out}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["calls"], 0);
    assert!(
        v["files"][0]["error"]
            .as_str()
            .unwrap()
            .contains("not replayed")
    );

    // A log that cannot be read: exit status 2.
    let (code, _, err) = cli(&["replay", "/nonexistent/permission-lsp/log.jsonl"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("/nonexistent/permission-lsp/log.jsonl"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn suggested_rules_cover_repeated_approvals_and_take_effect_where_inserted() {
    let root = temp("suggest");
    let proj = root.join("proj");
    let config = proj.join(".pi/extensions/pi-permission-system/config.json");
    let original = "{\n  \"permission\": {\n    \"bash\": {\n      \"*\": \"ask\",\n      \"npm run test --bail *\": \"deny\"\n    }\n  }\n}\n";
    write(&config, original);
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    // A review log as the runtime writes it: asks and their answers.
    let mut lines = vec![
        json!({"extension": "pi-permission-system", "event": "config.resolved",
        "projectConfigPath": config.display().to_string()}),
    ];
    let mut id = 0;
    let mut ask = |cmd: &str, resolution: &str| {
        id += 1;
        for (event, r) in [
            ("waiting", Value::Null),
            (
                if resolution == "denied" {
                    "denied"
                } else {
                    "approved"
                },
                json!(resolution),
            ),
        ] {
            lines.push(json!({"extension": "pi-permission-system", "event": format!("permission_request.{event}"),
                "requestId": format!("r{id}"), "toolCallId": format!("c{id}"), "toolName": "bash",
                "command": cmd, "source": "tool_call", "agentName": null, "resolution": r}));
        }
    };
    for _ in 0..5 {
        for cmd in [
            "npm run test",
            "npm run test -- --watch",
            "npm run test src/a.test.ts",
        ] {
            ask(cmd, "approved");
        }
    }
    ask("npm run build", "denied");
    ask("npm run lint", "approved");
    let log = root.join("review.jsonl");
    std::fs::write(
        &log,
        lines
            .iter()
            .map(|l| l.to_string() + "\n")
            .collect::<String>(),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .args([
            "suggest",
            &log.display().to_string(),
            "--target-version",
            "20.7.3",
            "--home",
        ])
        .arg(&home)
        .args(["--format", "json"])
        .current_dir(&proj)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = v["suggestions"].as_array().unwrap();
    assert_eq!(s.len(), 1, "{v:#}");
    assert_eq!(s[0]["pattern"], "npm run test *");
    assert_eq!(s[0]["approvals"], 15);
    assert_eq!(s[0]["distinct"], 3);
    assert_eq!(s[0]["after_line"], 4, "after the rule that asks now");
    assert_eq!(s[0]["allowed_now"], 3);
    assert_eq!(s[0]["checked_calls"], 3);

    // The same edit in the library: inserted after `*`, before the deny
    // it must not override; the approved calls are allowed, the refused one
    // and the config's own deny are not.
    let pi = formats::by_id("pi").unwrap();
    let mut options = AnalysisOptions::for_profile(pi.profile("20.7.3").unwrap());
    options.home = home.display().to_string();
    let ctx = resolve(
        &options,
        None,
        None,
        &Overrides {
            cwd: Some(proj.clone()),
            ..Default::default()
        },
        None,
    );
    let mut collector = permission_lsp::history::suggest::Collector::default();
    let seen = std::cell::RefCell::new(Vec::new());
    let mut replayer = Replayer::new(Box::new(|f: &'static dyn Format, s: &_| {
        permission_lsp::history::replay::policy_for(&ctx, f, s)
    }));
    replayer.observer = Some(Box::new(|f, c| seen.borrow_mut().push((f, c.clone()))));
    replayer.replay(
        "log",
        &mut std::fs::read(&log).unwrap().as_slice(),
        &mut |_: &Change| {},
    );
    drop(replayer);
    for (f, c) in seen.into_inner() {
        collector.add(f, &c);
    }
    let (s, approved, denied) = collector.suggestions(2).remove(0);
    let placed = permission_lsp::history::suggest::place(pi, &ctx, s, &approved, &denied).unwrap();
    let text = placed.new_text.unwrap();
    assert_eq!(
        text,
        "{\n  \"permission\": {\n    \"bash\": {\n      \"*\": \"ask\",\n      \"npm run test *\": \"allow\",\n      \"npm run test --bail *\": \"deny\"\n    }\n  }\n}\n"
    );
    std::fs::write(&config, &text).unwrap();
    let sim = pi.simulator(&ctx).unwrap();
    let decide = |cmd: &str| {
        sim.simulate(&formats::CallRequest {
            tool: "bash".into(),
            input: json!({ "command": cmd }),
        })
        .decision
    };
    assert_eq!(decide("npm run test -- --watch"), "allow");
    assert_eq!(decide("npm run test --bail x"), "deny");
    assert_eq!(decide("npm run build"), "ask");
    let _ = std::fs::remove_dir_all(&root);
}

/// A Claude Code session where the user approved `npm run test …` four
/// times and `make deploy` once, and a deny rule refused `npm run build`
/// (recorded with the CLI: `claude/approvals/`): replayed as recorded, and
/// the rule suggested from it is `Bash(npm run test *)`, placed in the
/// project's local settings, allowing the approved calls and not the
/// refused one.
#[test]
fn claude_code_approvals_suggest_a_rule_that_takes_effect() {
    let (case, root, proj, home, log) = recorded_claude_session("approvals");
    let ctx = claude_ctx(&case, &proj, &home);
    let cc = formats::by_id("claude-code").unwrap();
    let seen = std::cell::RefCell::new(Vec::new());
    let mut replayer = Replayer::new(Box::new(|f: &'static dyn Format, s: &_| {
        permission_lsp::history::replay::policy_for(&ctx, f, s)
    }));
    replayer.observer = Some(Box::new(|f, c| seen.borrow_mut().push((f, c.clone()))));
    let mut changes = Vec::new();
    replayer.replay("log", &mut log.as_bytes(), &mut |c: &Change| {
        changes.push(c.clone())
    });
    assert!(changes.is_empty(), "{changes:#?}");
    assert_eq!(replayer.summary.calls, 7);
    drop(replayer);
    let mut collector = permission_lsp::history::suggest::Collector::default();
    for (f, c) in seen.into_inner() {
        collector.add(f, &c);
    }
    let suggestions = collector.suggestions(2);
    assert_eq!(
        suggestions.len(),
        1,
        "{:?}",
        suggestions.iter().map(|s| &s.0).collect::<Vec<_>>()
    );
    let (s, approved, denied) = suggestions.into_iter().next().unwrap();
    assert_eq!(
        (s.pattern.as_str(), s.approvals, s.distinct),
        ("npm run test *", 4, 3)
    );
    assert_eq!(s.rule, "\"Bash(npm run test *)\" in `permissions.allow`");
    let placed = permission_lsp::history::suggest::place(cc, &ctx, s, &approved, &denied).unwrap();
    // No rule order in Claude Code: the allow goes where the CLI's own
    // "always allow" writes, the project's local settings (a new file).
    let local = proj.join(".claude/settings.local.json");
    assert_eq!(placed.file.as_deref(), Some(local.to_str().unwrap()));
    assert!(!placed.ordered && placed.creates, "{placed:?}");
    assert_eq!(placed.list, "permissions.allow");
    assert_eq!(placed.allowed_now, 3, "{placed:?}");
    let text = placed.new_text.unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["permissions"]["allow"], json!(["Bash(npm run test *)"]));
    std::fs::write(&local, &text).unwrap();
    let sim = cc.simulator(&ctx).unwrap();
    let decide = |cmd: &str| {
        sim.simulate(&formats::CallRequest {
            tool: "Bash".into(),
            input: json!({ "command": cmd, "description": "d" }),
        })
        .decision
    };
    assert_eq!(decide("npm run test -- --watch"), "allow");
    assert_eq!(decide("npm run build"), "deny");
    assert_eq!(decide("make deploy"), "ask");
    let _ = std::fs::remove_dir_all(&root);
}

/// Plain `claude -p` (no permission prompt tool): an ask nobody can answer
/// is refused, recorded as a config rejection of kind `user-rejected`
/// without a reason type (`claude/headless/`, recorded with the CLI). It
/// replays as an ask the runtime could not put to anyone; the deny rule's
/// refusal as a deny.
#[test]
fn a_headless_claude_code_session_replays_its_unanswerable_ask_as_an_ask() {
    let (case, root, proj, home, log) = recorded_claude_session("headless");
    let ctx = claude_ctx(&case, &proj, &home);
    let seen = std::cell::RefCell::new(Vec::new());
    let mut replayer = Replayer::new(Box::new(|f: &'static dyn Format, s: &_| {
        permission_lsp::history::replay::policy_for(&ctx, f, s)
    }));
    replayer.observer = Some(Box::new(|_, c| seen.borrow_mut().push(c.clone())));
    let mut changes = Vec::new();
    replayer.replay("log", &mut log.as_bytes(), &mut |c: &Change| {
        changes.push(c.clone())
    });
    assert!(changes.is_empty(), "{changes:#?}");
    drop(replayer);
    let got: Vec<(String, &str, Option<&str>)> = seen
        .borrow()
        .iter()
        .map(|c| {
            (
                c.input["command"].as_str().unwrap().to_string(),
                c.recorded.as_str(),
                c.answer.map(|a| a.as_str()),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("git status".to_string(), "allow", None),
            ("npm install".to_string(), "ask", Some("unavailable")),
            ("rm x".to_string(), "deny", None),
        ]
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// The approvals session's suggestion placed with other project settings
/// (`settings`, the text of the local settings, where Claude Code's
/// suggestions go; the shared project file is left out).
fn approvals_placed(tag: &str, settings: &str) -> permission_lsp::history::suggest::Placed {
    let dir = fixtures().join("claude").join("approvals");
    let fixture: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    let case = harness::Case::from_fixture(&fixture);
    let root = temp(tag);
    let (proj, home) = case.materialise(&root);
    std::fs::remove_file(proj.join(".claude/settings.json")).unwrap();
    std::fs::write(proj.join(".claude/settings.local.json"), settings).unwrap();
    let log = std::fs::read_to_string(dir.join("transcript.jsonl"))
        .unwrap()
        .replace("{PROJ}", &proj.display().to_string())
        .replace("{HOME}", &home.display().to_string());
    let ctx = claude_ctx(&case, &proj, &home);
    let cc = formats::by_id("claude-code").unwrap();
    let seen = std::cell::RefCell::new(Vec::new());
    let mut replayer = Replayer::new(Box::new(|f: &'static dyn Format, s: &_| {
        permission_lsp::history::replay::policy_for(&ctx, f, s)
    }));
    replayer.observer = Some(Box::new(|f, c| seen.borrow_mut().push((f, c.clone()))));
    replayer.replay("log", &mut log.as_bytes(), &mut |_: &Change| {});
    drop(replayer);
    let mut collector = permission_lsp::history::suggest::Collector::default();
    for (f, c) in seen.into_inner() {
        collector.add(f, &c);
    }
    let (s, approved, denied) = collector.suggestions(2).into_iter().next().unwrap();
    assert_eq!(s.pattern, "npm run test *");
    let placed = permission_lsp::history::suggest::place(cc, &ctx, s, &approved, &denied).unwrap();
    let _ = std::fs::remove_dir_all(&root);
    placed
}

/// The same approvals under a deny rule that covers them (an allow was
/// suggested under a deny that always beats it): Claude Code's deny wins
/// over every allow, so no rule is offered for insertion — the note names
/// the deny that decides.
#[test]
fn no_allow_is_suggested_under_a_deny_that_beats_it() {
    let placed = approvals_placed(
        "cc-approvals-under-deny",
        r#"{"permissions": {"allow": ["Bash(git status)"], "deny": ["Bash(npm run:*)"]}}"#,
    );
    assert_eq!(placed.allowed_now, 0);
    assert!(placed.edits.is_empty() && placed.file.is_none() && placed.new_text.is_none());
    let note = placed.note.unwrap();
    assert!(
        note.starts_with("not added") && note.contains("npm run:*") && note.contains("deny"),
        "{note}"
    );
}

/// A settings file on one line: the rule goes into line 1 (it said
/// "insert after line 0").
#[test]
fn a_suggestion_in_a_one_line_file_names_its_line() {
    let placed = approvals_placed(
        "cc-approvals-one-line",
        r#"{"permissions": {"allow": ["Bash(git status)"], "deny": ["Bash(npm run build:*)"]}}"#,
    );
    assert_eq!((placed.after_line, placed.in_line), (None, Some(1)));
    assert_eq!(placed.allowed_now, 3);
    let placed = approvals_placed(
        "cc-approvals-lines",
        "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(git status)\"\n    ]\n  }\n}\n",
    );
    assert_eq!((placed.after_line, placed.in_line), (Some(4), None));
}

/// A Claude Code session recorded as the CLI writes it
/// (`claude/sessions/<name>/`, recorded by `claude/record_sessions.py`):
/// its case materialised in a fresh folder, and its session files put
/// where the CLI keeps them, under the home's `.claude/projects/<the
/// project's folder name>/`. Returns the case, the root, the project, the
/// home and the session files.
fn claude_session_files(
    name: &str,
    tag: &str,
) -> (harness::Case, PathBuf, PathBuf, PathBuf, Vec<PathBuf>) {
    let dir = fixtures().join("claude/sessions").join(name);
    let case = harness::Case::from_fixture(
        &serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap(),
    );
    let root = temp(&format!("cs-{name}-{tag}"));
    let (proj, home) = case.materialise(&root);
    let (folder, _) =
        permission_lsp::formats::claude::history::project_folder_name(proj.to_str().unwrap());
    let target = home.join(".claude/projects").join(folder);
    let mut files = Vec::new();
    let mut stack = vec![dir.join("files")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p.strip_prefix(dir.join("files")).unwrap();
            let text = std::fs::read_to_string(&p)
                .unwrap()
                .replace("{PROJ}", &proj.display().to_string())
                .replace("{HOME}", &home.display().to_string());
            write(&target.join(rel), &text);
            if rel.extension().is_some_and(|x| x == "jsonl") {
                files.push(target.join(rel));
            }
        }
    }
    files.sort();
    (case, root, proj, home, files)
}

/// What each recorded call became, as the reader rebuilt it
/// (`tool outcome[/answer]`), and the summary, with the session's own
/// settings.
fn replay_session_files(
    ctx: &Context<'_>,
    files: &[PathBuf],
) -> (Vec<String>, Vec<Change>, Summary) {
    let seen = std::cell::RefCell::new(Vec::new());
    let mut replayer = Replayer::new(Box::new(|f: &'static dyn Format, s: &_| {
        permission_lsp::history::replay::policy_for(ctx, f, s)
    }));
    replayer.observer = Some(Box::new(|_, c: &permission_lsp::history::PastCall| {
        let what = c
            .input
            .get("command")
            .and_then(Value::as_str)
            .map(String::from)
            .unwrap_or_else(|| c.tool.clone());
        seen.borrow_mut().push(format!(
            "{what} {}{}",
            c.outcome_label(),
            c.answer
                .map(|a| format!("/{}", a.as_str()))
                .unwrap_or_default()
        ));
    }));
    let mut changes = Vec::new();
    let mut sink = |c: &Change| changes.push(c.clone());
    for f in files {
        // As `replay` opens a log (OpenCode's database is streamed).
        let log = permission_lsp::cli::replay::open_log(f).unwrap();
        let mut reader = std::io::BufReader::new(log);
        replayer.replay(&f.display().to_string(), &mut reader, &mut sink);
    }
    let summary = replayer.summary.clone();
    drop(replayer);
    (seen.into_inner(), changes, summary)
}

/// Session files written by the real CLI (2.1.332) replay unchanged under
/// the settings that produced them: every call of the main conversation
/// and of a subagent (its own file, `isSidechain`), across a resumed
/// session and a compaction (the same file, appended to), with each
/// outcome the CLI stamped — allowed by a rule or the mode, denied by a
/// rule, asked and approved, asked and refused at the prompt, asked with
/// nobody to answer (plain `-p`), the tool removed by a deny — and an edit
/// refused for its input before any permission check, which is no
/// decision. Every non-conversation record is read past.
#[test]
fn claude_code_session_files_replay_as_recorded() {
    let expect: &[(&str, &[&str], u64)] = &[
        (
            "approvals",
            &[
                // The subagent's own file (its folder sorts first), then
                // the main conversation.
                "git status allow",
                "rm y deny",
                "git status allow",
                "rm -rf x deny",
                "git push ask/approved",
                "Edit ask/approved",
                "Read allow",
                "echo a && rm x deny",
                "Agent allow",
                "ToolSearch allow",
                "git push origin main ask/denied",
                "git status allow",
                "rm z deny",
                "echo after allow",
            ],
            1,
        ),
        (
            "refusals",
            &[
                "git push ask/denied",
                "Write ask/denied",
                "WebFetch deny",
                "npm test ask/denied",
                "Skill allow",
            ],
            0,
        ),
        (
            "headless",
            &[
                "git push ask/unavailable",
                "Write allow",
                "npm test ask/unavailable",
            ],
            0,
        ),
    ];
    for (name, outcomes, before) in expect {
        let (case, root, proj, home, files) = claude_session_files(name, "asis");
        let ctx = claude_ctx(&case, &proj, &home);
        let (seen, changes, summary) = replay_session_files(&ctx, &files);
        assert_eq!(&seen, outcomes, "{name}");
        assert!(changes.is_empty(), "{name}: {changes:#?}");
        assert_eq!(summary.unrebuildable, 0, "{name}: {:?}", summary.skipped);
        assert_eq!(summary.before_decision, *before, "{name}");
        assert!(summary.unknown_events.is_empty(), "{name}");
        assert!(
            summary.warnings.is_empty(),
            "{name}: {:?}",
            summary.warnings
        );
        assert!(
            summary
                .files
                .iter()
                .all(|f| f.kind == Some("Claude Code session file")),
            "{name}: {:?}",
            summary.files
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}

/// `replay` with no file finds the project's session files under the home
/// (the folder name encodes the project's path), subagents' too; an edit
/// that turns a deny into an ask shows every call it changes with exit 1,
/// a compound command credited to the rule that decides it (`echo a && rm
/// x` to `Bash(rm:*)`, not to `Bash(echo:*)`); `--limit` and `--since`
/// choose among the logs; a file that is no decision log is exit 2.
#[test]
fn replay_finds_the_projects_claude_code_sessions_by_itself() {
    let (_, root, proj, home, _) = claude_session_files("approvals", "cli");
    let (p, h) = (proj.to_str().unwrap(), home.to_str().unwrap());
    let (code, out, err) = cli(&["replay", "--cwd", p, "--home", h]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("replaying 2 logs of"), "{err}");
    assert!(err.contains("(Claude Code 2), newest first"), "{err}");
    assert!(out.contains("14 calls; none changes"), "{out}");
    assert!(out.contains("~/.claude/projects/"), "{out}");

    // The deny becomes an ask.
    let settings = proj.join(".claude/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["permissions"]["deny"] = json!(["WebFetch"]);
    v["permissions"]["ask"]
        .as_array_mut()
        .unwrap()
        .push(json!("Bash(rm:*)"));
    std::fs::write(&settings, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let (code, out, err) = cli(&["replay", "--cwd", p, "--home", h]);
    assert_eq!(code, 1, "{out}{err}");
    let changed: Vec<&str> = out.lines().filter(|l| l.contains(" -> ")).collect();
    assert_eq!(changed.len(), 4, "{out}");
    assert!(changed.iter().all(|l| l.contains("deny -> ask")), "{out}");
    let compound = changed
        .iter()
        .find(|l| l.contains("`echo a && rm x`"))
        .expect("the compound command");
    assert!(
        compound.contains("now by `Bash` `Bash(rm:*)`"),
        "{compound}"
    );
    assert!(out.contains("4 change: 4 newly asked"), "{out}");

    // The newest log alone; none written since a day to come.
    let (_, out, err) = cli(&["replay", "--cwd", p, "--home", h, "--limit", "1"]);
    assert!(err.contains("replaying 1 log of"), "{err}");
    assert_eq!(
        out.lines().filter(|l| l.contains("session file:")).count(),
        1
    );
    let (code, _, err) = cli(&["replay", "--cwd", p, "--home", h, "--since", "9999-01-01"]);
    assert_eq!(code, 0);
    assert!(err.contains("no session logs of"), "{err}");
    assert!(err.contains("Claude Code: ~/.claude/projects/"), "{err}");
    let (code, _, err) = cli(&["replay", "--cwd", p, "--home", h, "--since", "soon"]);
    assert_eq!(code, 2, "{err}");

    // A named file that is no decision log: one error line, exit 2.
    let (code, _, err) = cli(&[
        "replay",
        "--cwd",
        p,
        "--home",
        h,
        settings.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: ") && err.contains("not a decision log"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// A session recorded in a folder that is not here is decided in the
/// replay's folder instead, and the replay says so.
#[test]
fn a_recorded_folder_missing_here_is_a_warning() {
    let (case, root, proj, home, files) = claude_session_files("refusals", "moved");
    let moved = root.join("gone");
    let texts: Vec<PathBuf> = files
        .iter()
        .map(|f| {
            let t = std::fs::read_to_string(f)
                .unwrap()
                .replace(proj.to_str().unwrap(), moved.to_str().unwrap());
            std::fs::write(f, t).unwrap();
            f.clone()
        })
        .collect();
    let ctx = claude_ctx(&case, &proj, &home);
    let (_, changes, summary) = replay_session_files(&ctx, &texts);
    assert!(changes.is_empty(), "{changes:#?}");
    assert_eq!(summary.warnings.len(), 1, "{:?}", summary.warnings);
    assert!(
        summary.warnings[0].contains("is not here")
            && summary.warnings[0].contains(moved.to_str().unwrap()),
        "{:?}",
        summary.warnings
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// A damaged session file: a line cut short, binary junk, a line longer
/// than the cap (a session file embeds whole system prompts) — each is
/// skipped and counted, and every intact call still replays as recorded.
#[test]
fn a_damaged_session_file_loses_only_its_damaged_lines() {
    let (case, root, proj, home, files) = claude_session_files("refusals", "damaged");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The api-request-shape record (no call in it) is cut short.
    let cut = lines
        .iter()
        .position(|l| l.contains("\"api-request-shape\""))
        .expect("an api-request-shape record");
    let mut damaged = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i == cut {
            damaged.push_str(&l[..l.len() / 2]);
        } else {
            damaged.push_str(l);
        }
        damaged.push('\n');
        if i == 2 {
            damaged.push_str("\u{0}\u{1}\u{2}binary junk\n");
            damaged.push_str(&format!(
                "{{\"type\":\"x\",\"pad\":\"{}\"}}\n",
                "a".repeat(17 << 20)
            ));
        }
    }
    let mut bytes = damaged.into_bytes();
    bytes.extend_from_slice(b"\xff\xfe not utf-8\n");
    std::fs::write(&files[0], &bytes).unwrap();
    let ctx = claude_ctx(&case, &proj, &home);
    let (seen, changes, summary) = replay_session_files(&ctx, &files);
    assert_eq!(seen.len(), 5, "{seen:?}");
    assert!(changes.is_empty(), "{changes:#?}");
    assert_eq!(summary.unrebuildable, 4, "{:?}", summary.skipped);
    let _ = std::fs::remove_dir_all(&root);
}

/// `suggest` with no file mines the project's session files; `--apply`
/// writes the rule into the file it names — keeping every other byte —
/// and checks it again from there; an untrusted project is named as the
/// reason an allow would not take effect.
#[test]
fn suggest_applies_its_rule_and_names_trust_as_the_cause() {
    let (_, root, proj, home, _) = claude_session_files("approvals", "suggest");
    let (p, h) = (proj.to_str().unwrap(), home.to_str().unwrap());
    // Without the ask rule on `git push`, the approved push is a suggestion.
    let settings = proj.join(".claude/settings.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    v["permissions"].as_object_mut().unwrap().remove("ask");
    std::fs::write(&settings, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let local = proj.join(".claude/settings.local.json");
    let before = "{\n    \"model\": \"x\" ,\"permissions\": {\"allow\": [\"Bash(ls)\"]}\n}\n";
    std::fs::write(&local, before).unwrap();

    // Not trusted: the allow would be ignored, and the note says why.
    let state = home.join(".claude.json");
    let trust = std::fs::read_to_string(&state).unwrap();
    std::fs::remove_file(&state).unwrap();
    let (code, out, err) = cli(&["suggest", "--cwd", p, "--home", h, "--min", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("\"Bash(git push)\" in `permissions.allow`"),
        "{out}"
    );
    assert!(
        out.contains("not added:") && out.contains("not trusted"),
        "{out}"
    );
    std::fs::write(&state, trust).unwrap();

    let (code, out, err) = cli(&["suggest", "--cwd", p, "--home", h, "--min", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("add to `permissions.allow` in .claude/settings.local.json (Claude Code has no rule order"),
        "{out}"
    );
    let (code, out, err) = cli(&["suggest", "--cwd", p, "--home", h, "--min", "1", "--apply"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("applied: .claude/settings.local.json written; checked again, it allows 1 of the 1 approved call"),
        "{out}"
    );
    let after = std::fs::read_to_string(&local).unwrap();
    assert_eq!(
        after,
        "{\n    \"model\": \"x\" ,\"permissions\": {\"allow\": [\"Bash(ls)\", \"Bash(git push)\"]}\n}\n"
    );
    // Applied: nothing left to suggest, and the replay still matches.
    let (_, out, _) = cli(&["suggest", "--cwd", p, "--home", h, "--min", "1"]);
    assert!(out.contains("0 suggestions"), "{out}");
    let _ = std::fs::remove_dir_all(&root);
}

/// OpenCode's session database as the real CLI wrote it
/// (`opencode/opencode.db`, recorded by `opencode/record.py`), put where
/// OpenCode keeps it under a fresh home (its folders written back in), and
/// the project it ran in: the case, the root, the project and the home.
fn opencode_sessions(tag: &str) -> (Value, PathBuf, PathBuf, PathBuf) {
    let dir = fixtures().join("opencode");
    let case: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();
    let root = temp(&format!("oc-{tag}"));
    let (proj, home) = (root.join("proj"), root.join("home"));
    std::fs::create_dir_all(proj.join(".git")).unwrap();
    write(
        &proj.join("opencode.json"),
        &serde_json::to_string_pretty(&case["config"]).unwrap(),
    );
    for (rel, text) in case["files"].as_object().unwrap() {
        write(&proj.join(rel), text.as_str().unwrap());
    }
    let db = home.join(".local/share/opencode/opencode.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::copy(dir.join("opencode.db"), &db).unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    for (table, col) in [
        ("session", "directory"),
        ("message", "data"),
        ("part", "data"),
        ("project", "worktree"),
    ] {
        conn.execute(
            &format!(
                "UPDATE {table} SET {col} = replace(replace({col}, '{{PROJ}}', ?1), '{{HOME}}', ?2)"
            ),
            [proj.to_str().unwrap(), home.to_str().unwrap()],
        )
        .unwrap();
    }
    drop(conn);
    (case, root, proj, home)
}

/// Every tool call of the sessions OpenCode 1.18.33 kept in its database
/// replays unchanged under the config that produced them, each with what
/// the database tells of it: a rule's deny, a refusal at the prompt, or a
/// call that ran (allowed, or asked and approved once or always: OpenCode
/// keeps no record of the ask, so the replay claims neither) — across the
/// build and plan agents.
#[test]
fn opencode_sessions_replay_as_recorded() {
    let (case, root, proj, home) = opencode_sessions("asis");
    let oc = formats::by_id("opencode").unwrap();
    let mut options = AnalysisOptions::for_profile(oc.default_profile());
    options.home = home.display().to_string();
    let ctx = resolve(&options, Some(&proj), None, &Overrides::default(), None);
    let db = home.join(".local/share/opencode/opencode.db");
    let (seen, changes, summary) = replay_session_files(&ctx, &[db]);
    // What the oracle saw, as the database tells it.
    let expected: Vec<String> = case["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let what = c["args"]["command"]
                .as_str()
                .map(String::from)
                .unwrap_or_else(|| c["tool"].as_str().unwrap().to_string());
            let outcome = match (c["verdict"].as_str().unwrap(), c["reply"].as_str().unwrap()) {
                ("allow", _) => "ran",
                ("ask", "reject") => "ask/denied",
                ("ask", _) => "ran",
                ("deny", _) => "deny",
                (v, r) => panic!("{v} {r}"),
            };
            format!("{what} {outcome}")
        })
        .collect();
    assert_eq!(seen, expected);
    assert!(changes.is_empty(), "{changes:#?}");
    assert_eq!(summary.unrebuildable, 0, "{:?}", summary.skipped);
    assert_eq!(summary.files[0].kind, Some("OpenCode session database"));

    // Found by itself; an edited config shows what it changes.
    let (p, h) = (proj.to_str().unwrap(), home.to_str().unwrap());
    let (code, out, err) = cli(&["replay", "--cwd", p, "--home", h]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("(OpenCode 1)"), "{err}");
    assert!(out.contains("9 calls; none changes"), "{out}");
    let config = proj.join("opencode.json");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("\"*\": \"ask\"", "\"*\": \"deny\"")
        .replace("\"rm *\": \"deny\"", "\"rm *\": \"ask\"");
    std::fs::write(&config, text).unwrap();
    let (code, out, err) = cli(&["replay", "--cwd", p, "--home", h]);
    assert_eq!(code, 1, "{out}{err}");
    for line in [
        "deny -> ask  bash `rm -rf x`  now by `bash` `rm *`",
        "ask -> deny  bash `git push`  now by `bash` `*`",
        "ran -> deny  bash `echo approved`",
        "ran -> deny  bash `echo always`",
        "ran -> deny  bash `echo plan`",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    assert!(
        out.contains("5 change: 1 newly asked, 4 newly denied"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// The pi-toolkits approval log (`approval-log/audit-NNNNNN.jsonl`, its
/// documented fields; the package's writer could not be run): found under
/// the agent directory with no file named, replayed against the
/// pi-permission-system config — every call it rebuilds says "documented,
/// not verified" — and mined by `suggest`; an unknown event is counted,
/// never an error.
#[test]
fn the_pi_toolkits_approval_log_is_read_and_says_it_is_unverified() {
    let root = temp("pi-toolkits");
    let (agent, cwd, home) = (root.join("agent"), root.join("proj"), root.join("home"));
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    write(
        &agent.join("extensions/pi-permission-system/config.json"),
        r#"{"permission": {"bash": {"*": "ask", "rm *": "deny"}}}"#,
    );
    let c = cwd.display().to_string();
    let line = |ts: u64, event: &str, cmd: &str, answer: Option<&str>| {
        let mut v = json!({"ts": ts, "event": event, "tool": "bash", "input": {"command": cmd},
                           "roots": [c], "modes": ["ask"], "units": [cmd],
                           "verdict": {"layer": "rules", "grantScope": "session", "grantRoot": c}});
        if let Some(a) = answer {
            v["answer"] = json!({ "choice": a });
        }
        v.to_string()
    };
    let first = [
        line(1, "ask", "npm run test", Some("allow-once")),
        line(2, "ask", "npm run test -- --watch", Some("allow-session")),
        line(3, "block", "rm -rf build", None),
    ]
    .join("\n");
    let second = [
        line(4, "session", "npm run test src", None),
        json!({"ts": 5, "event": "rotated", "tool": "bash"}).to_string(),
        line(6, "ask", "git push", Some("deny")),
    ]
    .join("\n");
    write(&agent.join("approval-log/audit-000001.jsonl"), &first);
    write(&agent.join("approval-log/audit-000002.jsonl"), &second);
    let args = |cmd: &str| {
        vec![
            cmd.to_string(),
            "--runtime".into(),
            "pi".into(),
            "--cwd".into(),
            c.clone(),
            "--home".into(),
            home.display().to_string(),
            "--agent-dir".into(),
            agent.display().to_string(),
        ]
    };
    let a = args("replay");
    let (code, out, err) = cli(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("replaying 2 logs of"), "{err}");
    assert!(
        out.contains("pi-toolkits approval log (documented, not verified): 3 records, 3 calls"),
        "{out}"
    );
    assert!(out.contains("5 calls; none changes"), "{out}");
    assert!(out.contains("unknown event `rotated`"), "{out}");
    // Without the deny, the blocked call changes, and says where it came from.
    write(
        &agent.join("extensions/pi-permission-system/config.json"),
        r#"{"permission": {"bash": {"*": "ask"}}}"#,
    );
    let (code, out, _) = cli(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("deny -> ask  bash `rm -rf build`")
            && out.contains("pi-toolkits approval log: documented, not verified"),
        "{out}"
    );
    // The approvals suggest a rule.
    let s = args("suggest");
    let (code, out, err) = cli(&s.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\"npm run test *\": \"allow\""), "{out}");
    let _ = std::fs::remove_dir_all(&root);
}
