//! Differential test against the real Claude Code CLI (2.1.332): seeded
//! random settings across the user, project and local files (rules from a
//! vocabulary of the shapes people write, modes, trust) and random calls
//! (Bash, Read, Write, WebFetch) are run by the CLI (one process per
//! configuration, through `tests/differential/claude/`; some sessions with
//! an MCP server and MCP rules, `--permission-mode`, `--allowedTools` or
//! `--disallowedTools`) and decided by
//! permission-lsp; every call must get the CLI's verdict. Each disagreement
//! is shrunk (rules and calls dropped while it persists) and printed as a
//! case the oracle can run again.
//!
//! The CLI is installed by `tests/differential/claude/setup.sh DIR`; the
//! test looks for it in `$CLAUDE_ORACLE_DIR`, else
//! `target/tmp/claude-oracle`. Without it (or without `unshare -n`) the test
//! is skipped with a message, unless `CLAUDE_DIFFERENTIAL_REQUIRED=1` (CI)
//! makes that a failure. `CLAUDE_DIFFERENTIAL_CASES` (default 30, ten calls
//! each) and `CLAUDE_DIFFERENTIAL_SEED` choose the run.

use crate::harness;

use harness::{Call, Case, Verdict};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/rng.rs"]
mod rng;

#[path = "claude/corpus_gen.rs"]
mod corpus_gen;

use rng::Rng;

const BASH_RULES: &[&str] = &[
    "Bash(npm run test:*)",
    "Bash(npm run test *)",
    "Bash(npm run test*)",
    "Bash(npm run build)",
    "Bash(npm run build:*)",
    "Bash(npm:*)",
    "Bash(git:*)",
    "Bash(git push:*)",
    "Bash(git status)",
    "Bash(git commit:*)",
    "Bash(echo *)",
    "Bash(rm:*)",
    "Bash(rm -rf:*)",
    "Bash(ls:*)",
    "Bash(cat:*)",
    "Bash(curl:*)",
    "Bash",
    "Bash(*)",
    "Bash(rm -rf *)",
    "Bash(sudo:*)",
    "Bash(env:*)",
    "Bash(xargs:*)",
    "Bash(bash:*)",
    "Bash(sh:*)",
    "Bash(find:*)",
    "Bash(exec:*)",
    "Bash(nice:*)",
];

/// Commands the wrappers below are put around.
const TARGETS: &[&str] = &[
    "rm -rf build",
    "rm -fr build",
    "rm -r -f build",
    "rm x",
    "rmdir d",
    "git push",
    "git status",
    "npm run test",
    "ls",
    "cat .env",
    "curl http://example.com",
    "find . -name x",
    // Only below `build/`: an allowed call runs for real in the oracle's
    // project, whose settings the transcript replay reads afterwards.
    "find build -delete",
    "find build -exec rm {} ;",
];

/// Wrappers and indirections: `{}` is the target (the differential test
/// composes them, once or twice).
const WRAPPERS: &[&str] = &[
    "sudo {}",
    "sudo -u root {}",
    "env {}",
    "env FOO=1 {}",
    "FOO=1 {}",
    "nice {}",
    "nice -n 5 {}",
    "timeout 5 {}",
    "command {}",
    "exec {}",
    "time {}",
    "nohup {}",
    "stdbuf -o0 {}",
    "xargs {}",
    "xargs -0 {}",
    "builtin {}",
    "echo x | xargs {}",
    "bash -c '{}'",
    "sh -c \"{}\"",
    "sh -c '{}'",
    "eval '{}'",
    "({})",
    "{} &",
    "{} | tail -5",
    "{} 2>&1",
    "cd sub && {}",
    "echo a && {}",
];

/// A target behind one or two wrappers, or an absolute program path.
fn composed_command(rng: &mut Rng) -> String {
    let mut c = rng.pick(TARGETS).to_string();
    if rng.chance(15) {
        // `/usr/bin/rm …`, `/bin/git …`.
        let dir = rng.pick(&["/usr/bin/", "/bin/"]);
        c = format!("{dir}{c}");
    }
    for _ in 0..1 + rng.below(2) {
        if rng.chance(20) {
            break;
        }
        c = rng.pick(WRAPPERS).replace("{}", &c);
    }
    c
}

const PATH_RULES: &[&str] = &[
    "Read(./.env)",
    "Read(.env)",
    "Read(/docs/private.md)",
    "Read(src/**)",
    "Read(**/*.ts)",
    "Read(~/secret.txt)",
    "Read(~/outside.txt)",
    "Read(//etc/**)",
    "Read(/etc/**)",
    "Read($HOME/secret.txt)",
    "Read",
    "Edit(src/**)",
    "Edit(/docs/**)",
    "Edit(~/notes.txt)",
    "Edit",
    "WebFetch(domain:example.com)",
    "WebFetch(domain:evil.test)",
    "WebFetch",
];

const MCP_RULES: &[&str] = &[
    "mcp__srv__echo",
    "mcp__srv__danger",
    "mcp__srv",
    "mcp__srv__*",
    "mcp__other",
];

const COMMANDS: &[&str] = &[
    "npm run test",
    "npm run test --watch",
    "npm run test:unit",
    "npm run testing",
    "npm run build",
    "npm run build && echo done",
    "npm run build; rm -rf dist",
    "git status",
    "git status | grep x",
    "git push origin main",
    "git -C sub push",
    "cd sub && git push",
    "GIT_DIR=x git push",
    "git commit -m x",
    "echo hi",
    "echo $(whoami)",
    "ls -la",
    "ls /etc",
    "cat .env",
    "cat sub/.env",
    "cat docs/private.md",
    "cat src/x.ts",
    "rm -rf dist",
    "rm -rf /tmp/permission-lsp-nothing",
    "curl http://example.com",
    "X=1 npm run build",
    "NODE_ENV=production npm run build",
    "timeout 5 git push",
    "ls > out.txt",
    "mkdir build",
];

fn random_call(rng: &mut Rng, n: usize, mcp: bool) -> Call {
    if mcp && rng.chance(30) {
        return Call {
            tool: rng
                .pick(&["mcp__srv__echo", "mcp__srv__danger", "mcp__srv__other"])
                .into(),
            input: json!({ "x": "1" }),
            verdict: None,
        };
    }
    let (tool, input) = match rng.below(10) {
        0..=2 => (
            "Bash",
            json!({ "command": rng.pick(COMMANDS), "description": "d" }),
        ),
        3..=5 => (
            "Bash",
            json!({ "command": composed_command(rng), "description": "d" }),
        ),
        6 | 7 => (
            "Read",
            json!({ "file_path": rng.pick(&[
                "{PROJ}/a.txt",
                "{PROJ}/.env",
                "{PROJ}/sub/.env",
                "{PROJ}/docs/private.md",
                "{PROJ}/src/x.ts",
                "{HOME}/outside.txt",
                "{HOME}/secret.txt",
                "/etc/hostname",
            ]) }),
        ),
        8 => {
            let dir = rng.pick(&["{PROJ}/src", "{PROJ}/docs", "{PROJ}", "{HOME}"]);
            (
                "Write",
                json!({ "file_path": format!("{dir}/new_{n}.txt"), "content": "x" }),
            )
        }
        _ => (
            "WebFetch",
            json!({ "url": rng.pick(&[
                "https://example.com/x",
                "https://docs.example.com/x",
                "https://evil.test/x",
            ]), "prompt": "p" }),
        ),
    };
    Call {
        tool: tool.into(),
        input,
        verdict: None,
    }
}

fn random_settings(rng: &mut Rng, mode_ok: bool, mcp: bool) -> Option<Value> {
    if rng.chance(30) {
        return None;
    }
    let mut p = serde_json::Map::new();
    for list in ["allow", "ask", "deny"] {
        let n = match list {
            "allow" => rng.below(4),
            _ => rng.below(3),
        };
        let rules: Vec<&str> = (0..n)
            .map(|_| {
                if mcp && rng.chance(30) {
                    rng.pick(MCP_RULES)
                } else if rng.chance(60) {
                    rng.pick(BASH_RULES)
                } else {
                    rng.pick(PATH_RULES)
                }
            })
            .collect();
        if !rules.is_empty() {
            p.insert(list.into(), json!(rules));
        }
    }
    if rng.chance(10) {
        // The home directory as a working directory: reads there run
        // without asking.
        p.insert("additionalDirectories".into(), json!(["{HOME}"]));
    }
    if mode_ok && rng.chance(15) {
        p.insert(
            "defaultMode".into(),
            json!(rng.pick(&["acceptEdits", "dontAsk", "default"])),
        );
    }
    Some(json!({ "permissions": p }))
}

fn random_case(rng: &mut Rng, i: usize) -> Case {
    let files = [
        ("a.txt", "A\n"),
        (".env", "SECRET=1\n"),
        ("sub/.env", "SECRET=2\n"),
        ("docs/private.md", "p\n"),
        ("src/x.ts", "x\n"),
    ];
    let mcp = rng.chance(25);
    // The CLI's own flags in some sessions.
    let mut args = Vec::new();
    if rng.chance(20) {
        args.push("--permission-mode".to_string());
        args.push(
            rng.pick(&["acceptEdits", "dontAsk", "bypassPermissions", "default"])
                .to_string(),
        );
    }
    if rng.chance(15) {
        args.push(
            rng.pick(&["--allowedTools", "--disallowedTools"])
                .to_string(),
        );
        args.push(rng.pick(BASH_RULES).to_string());
    }
    Case {
        id: format!("d{i:03}"),
        user: random_settings(rng, true, mcp),
        project: random_settings(rng, true, mcp),
        local: random_settings(rng, true, mcp),
        files: files
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        home_files: vec![
            ("outside.txt".into(), "o\n".into()),
            ("secret.txt".into(), "s\n".into()),
        ],
        trust: !rng.chance(15),
        git: false,
        start: None,
        env: Vec::new(),
        args,
        mcp,
        calls: (0..10).map(|n| random_call(rng, n, mcp)).collect(),
        warmup: Some(harness::warmup()),
        replay_failures: Vec::new(),
    }
}

fn oracle_dir() -> Result<PathBuf, String> {
    let dir = std::env::var_os("CLAUDE_ORACLE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/target/tmp/claude-oracle"
            ))
        });
    if !dir.join(".installed").exists() {
        return Err(format!(
            "the Claude Code CLI is not installed in {} (run tests/differential/claude/setup.sh DIR)",
            dir.display()
        ));
    }
    // The driver must be this checkout's (a warm-up call, say, changes
    // what the CLI decides).
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/claude");
    for f in ["oracle.py", "mock_anthropic.py"] {
        if std::fs::read(here.join(f)).ok() != std::fs::read(dir.join(f)).ok() {
            return Err(format!(
                "{} has an older {f} (run tests/differential/claude/setup.sh again)",
                dir.display()
            ));
        }
    }
    let ns = Command::new("unshare").args(["-n", "true"]).status();
    if !ns.is_ok_and(|s| s.success()) {
        return Err("`unshare -n` is not available: the CLI must run without a network".into());
    }
    Ok(dir)
}

/// Runs cases through the CLI; each case comes back with its verdicts.
fn run_oracle(dir: &Path, cases: &[Case], tag: &str) -> Vec<Case> {
    let work = std::env::temp_dir().join(format!(
        "permission-lsp-claude-diff-{}-{tag}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let file = work.join("cases.json");
    let list: Vec<Value> = cases.iter().map(Case::to_oracle).collect();
    std::fs::write(&file, serde_json::to_string(&list).unwrap()).unwrap();
    let out = Command::new(dir.join("run_oracle.sh"))
        .arg(&file)
        .arg(work.join("runs"))
        .output()
        .expect("run_oracle.sh runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut got = Vec::new();
    for line in stdout.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let Some(case) = cases
            .iter()
            .find(|c| c.id == v["id"].as_str().unwrap_or(""))
        else {
            continue;
        };
        let mut case = case.clone();
        let verdicts: Vec<Option<Verdict>> = v["calls"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|c| c["verdict"].as_str().and_then(Verdict::parse))
                    .collect()
            })
            .unwrap_or_default();
        if verdicts.len() != case.calls.len() {
            continue;
        }
        for (c, v) in case.calls.iter_mut().zip(verdicts) {
            c.verdict = v;
        }
        if tag.starts_with("main") {
            replay_transcript(&work.join("runs").join(&case.id), &mut case);
        }
        got.push(case);
    }
    if std::env::var_os("CLAUDE_DIFFERENTIAL_KEEP").is_some() {
        eprintln!("kept the CLI's runs in {}", work.display());
    } else {
        let _ = std::fs::remove_dir_all(&work);
    }
    got
}

/// The case's stream-json transcript, replayed by `permission-lsp replay`'s
/// engine against the same settings: every call the CLI decided must
/// replay to its recorded decision, except those where permission-lsp and
/// the CLI disagree anyway. Failures are added to the case as calls with
/// the tool `replay:` + the tool.
fn replay_transcript(dir: &Path, case: &mut Case) {
    use permission_lsp::formats;
    use permission_lsp::history::replay::{Change, Replayer};
    let Ok(log) = std::fs::read(dir.join("transcript.jsonl")) else {
        return;
    };
    let (proj, home) = (dir.join("proj"), dir.join("home"));
    let ctx = case.context(&proj, &home);
    let mut replayer = Replayer::new(Box::new(|f: &'static dyn formats::Format, s: &_| {
        permission_lsp::history::replay::policy_for(&ctx, f, s)
    }));
    let mut changes = Vec::new();
    let mut sink = |c: &Change| changes.push(c.clone());
    replayer.replay("transcript", &mut log.as_slice(), &mut sink);
    let disagreeing: Vec<(String, Value)> = disagreements(case)
        .into_iter()
        .map(|(c, _, _)| (c.tool, harness::subst(&c.input, &proj, &home)))
        .collect();
    REPLAYED.with(|r| r.set(r.get() + replayer.summary.calls as usize));
    for c in changes {
        if !disagreeing.contains(&(c.tool.clone(), c.input.clone())) {
            case.replay_failures.push(format!(
                "{}: {} {} recorded {} ({:?}), replayed {}",
                case.id, c.tool, c.input, c.recorded, c.answer, c.now
            ));
        }
    }
    // A session the CLI did not finish (a call that hung) leaves the
    // calls after it without a verdict and without a decision in the
    // transcript: nothing to compare there.
    let unfinished = case.calls.iter().any(|c| c.verdict.is_none());
    for k in &replayer.summary.skipped {
        if unfinished && k.why.starts_with("no decision was recorded") {
            continue;
        }
        case.replay_failures.push(format!(
            "{}: line {} not replayable: {}",
            case.id, k.line, k.why
        ));
    }
}

thread_local! {
    /// Calls replayed from transcripts by this test's thread.
    static REPLAYED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The calls of a case where permission-lsp and the CLI differ.
fn disagreements(case: &Case) -> Vec<(Call, Verdict, String)> {
    case.decide_all()
        .into_iter()
        .filter_map(|(call, got)| match call.verdict {
            Some(v) if v != got.verdict => Some((call, got.verdict, got.reason)),
            _ => None,
        })
        .collect()
}

/// Drops rules (and every other call) while the call still disagrees.
fn shrink(dir: &Path, case: &Case, call: &Call) -> Case {
    let mut best = Case {
        calls: vec![Call {
            verdict: None,
            ..call.clone()
        }],
        ..case.clone()
    };
    // Chunks of each list dropped at once, halving the chunk size when no
    // candidate keeps the disagreement (at most eight runs of the CLI).
    let mut chunk = usize::MAX;
    for round in 0..8 {
        let mut candidates = Vec::new();
        let mut longest = 0;
        for scope in 0..3 {
            let settings = [&best.user, &best.project, &best.local][scope];
            let Some(s) = settings else { continue };
            for list in ["allow", "ask", "deny"] {
                let n = s["permissions"][list].as_array().map_or(0, Vec::len);
                longest = longest.max(n);
                let size = chunk.min(n.div_ceil(2)).max(1);
                let mut at = 0;
                while at < n {
                    let mut c = best.clone();
                    let slot = [&mut c.user, &mut c.project, &mut c.local][scope]
                        .as_mut()
                        .unwrap();
                    let items = slot["permissions"][list].as_array_mut().unwrap();
                    items.drain(at..(at + size).min(n));
                    c.id = format!("s{round}_{}", candidates.len());
                    candidates.push(c);
                    at += size;
                }
            }
        }
        if candidates.is_empty() {
            break;
        }
        static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let ran = run_oracle(dir, &candidates, &format!("shrink{round}-{n}"));
        match ran.into_iter().find(|c| !disagreements(c).is_empty()) {
            Some(smaller) => best = smaller,
            None if chunk == 1 || longest <= 1 => break,
            None => chunk = (longest.div_ceil(2) / 2).max(1).min(chunk / 2).max(1),
        }
    }
    best
}

/// The oracle's folder, or why the test cannot run here (a failure when
/// `CLAUDE_DIFFERENTIAL_REQUIRED=1`).
fn oracle_or_skip(what: &str) -> Option<PathBuf> {
    match oracle_dir() {
        Ok(d) => Some(d),
        Err(why) if std::env::var("CLAUDE_DIFFERENTIAL_REQUIRED").is_ok_and(|v| v == "1") => {
            panic!("the Claude Code {what} must run here: {why}")
        }
        Err(why) => {
            eprintln!("Claude Code {what} skipped: {why}");
            None
        }
    }
}

fn env_number<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn claude_code_decides_as_permission_lsp_says() {
    let Some(dir) = oracle_or_skip("differential test") else {
        return;
    };
    let n: usize = env_number("CLAUDE_DIFFERENTIAL_CASES", 30);
    let seed: u64 = env_number("CLAUDE_DIFFERENTIAL_SEED", 0x5eed_c1a0_de00_0001);
    let mut rng = Rng::seeded(seed);
    let cases: Vec<Case> = (0..n).map(|i| random_case(&mut rng, i)).collect();
    run_and_compare(&dir, &cases, seed, "random configurations", 9);
}

/// The rule sets of real settings files with calls aimed at each rule's
/// boundary (`corpus_gen`): `CLAUDE_CORPUS_DIFFERENTIAL_CASES` sessions
/// (default 12) of `CLAUDE_CORPUS_DIFFERENTIAL_CALLS` calls (default 25),
/// `CLAUDE_CORPUS_DIFFERENTIAL_SEED`.
#[test]
fn claude_code_decides_real_rule_sets_as_permission_lsp_says() {
    let Some(dir) = oracle_or_skip("corpus differential test") else {
        return;
    };
    let n: usize = env_number("CLAUDE_CORPUS_DIFFERENTIAL_CASES", 12);
    let per: usize = env_number("CLAUDE_CORPUS_DIFFERENTIAL_CALLS", 25);
    let seed: u64 = env_number("CLAUDE_CORPUS_DIFFERENTIAL_SEED", 0x5eed_c0de_0000_0001);
    let sets = corpus_gen::rule_sets();
    assert!(sets.len() >= 50, "only {} corpus rule sets", sets.len());
    let mut rng = Rng::seeded(seed);
    let mut cases: Vec<Case> = (0..n)
        .map(|i| {
            let set = &sets[rng.below(sets.len())];
            eprintln!("c{i:03}: {}", set.name);
            corpus_gen::corpus_case(set, format!("c{i:03}"), &mut rng, per)
        })
        .filter(|c| !c.calls.is_empty())
        .collect();
    // Every program a call can start is an echo-only stub, first on PATH.
    let stubs = std::env::temp_dir().join(format!(
        "permission-lsp-claude-stubs-{}",
        std::process::id()
    ));
    corpus_gen::write_stubs(&stubs, &corpus_gen::programs(&cases));
    let path = format!(
        "{}:{}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        stubs.display(),
        dir.join("stubs").display()
    );
    for c in &mut cases {
        c.env.push(("PATH".into(), path.clone()));
    }
    let min = per * 8 / 10;
    run_and_compare(&dir, &cases, seed, "real rule sets", min.max(1));
    let _ = std::fs::remove_dir_all(&stubs);
}

/// Runs the cases through the CLI, decides every call with
/// permission-lsp, replays the transcripts, and fails with the
/// disagreements (the first three shrunk) when any call differs.
fn run_and_compare(dir: &Path, cases: &[Case], seed: u64, what: &str, min_per_case: usize) {
    let n = cases.len();
    // Each test its own run folder (the tests of this binary run at once).
    let tag = format!("main-{}", what.replace(' ', "-"));
    let ran = run_oracle(dir, cases, &tag);
    assert!(
        ran.len() * 10 >= n * 9,
        "the CLI answered only {} of {} configurations",
        ran.len(),
        n
    );
    let mut calls = 0;
    let mut failures = Vec::new();
    for case in &ran {
        calls += case.calls.iter().filter(|c| c.verdict.is_some()).count();
        for (call, ours, why) in disagreements(case) {
            failures.push((case.clone(), call, ours, why));
        }
    }
    eprintln!(
        "Claude Code differential ({what}): seed {seed}, {} configurations, {calls} calls with a verdict, {} disagreements",
        ran.len(),
        failures.len()
    );
    assert!(
        calls >= n * min_per_case,
        "only {calls} calls got a verdict"
    );
    // The transcripts of the same sessions, replayed.
    let replayed = REPLAYED.with(|r| r.get());
    let replay_failures: Vec<&String> = ran.iter().flat_map(|c| &c.replay_failures).collect();
    eprintln!(
        "Claude Code transcripts: {replayed} calls replayed, {} not as recorded",
        replay_failures.len()
    );
    assert!(
        replay_failures.is_empty(),
        "replayed transcripts differ from what the CLI recorded:\n{replay_failures:#?}"
    );
    assert!(
        replayed * 10 >= calls * 9,
        "only {replayed} of {calls} calls replayed"
    );
    // The CLI is asked again, alone, about each disagreement: an answer it
    // does not give twice the same way (seen under load: a read outside
    // the project denied once, allowed when asked again) is its own
    // nondeterminism, reported but not held against the simulation.
    let confirmations = env_number("CLAUDE_DIFFERENTIAL_CONFIRM", 2);
    if confirmations > 0 && !failures.is_empty() {
        let mut again = Vec::new();
        for (k, (case, call, _, _)) in failures.iter().enumerate() {
            for r in 0..confirmations {
                again.push(Case {
                    id: format!("confirm{k}_{r}"),
                    calls: vec![Call {
                        verdict: None,
                        ..call.clone()
                    }],
                    ..case.clone()
                });
            }
        }
        let answers = run_oracle(dir, &again, &format!("confirm-{}", what.replace(' ', "-")));
        failures = failures
            .into_iter()
            .enumerate()
            .filter(|(k, (case, call, ours, _))| {
                let seen: Vec<_> = answers
                    .iter()
                    .filter(|a| a.id.starts_with(&format!("confirm{k}_")))
                    .filter_map(|a| a.calls.first().and_then(|c| c.verdict))
                    .collect();
                let unstable = seen.iter().any(|v| Some(*v) != call.verdict);
                if unstable {
                    eprintln!(
                        "the CLI answered {}: {} {} first {:?}, then {seen:?} (permission-lsp {ours:?}): not counted",
                        case.id, call.tool, call.input, call.verdict
                    );
                }
                !unstable
            })
            .map(|(_, f)| f)
            .collect();
    }
    if failures.is_empty() {
        return;
    }
    let mut report = String::new();
    for (case, call, ours, why) in &failures {
        report.push_str(&format!(
            "\n{}: CLI {:?}, permission-lsp {ours:?} ({why}) for {} {}",
            case.id,
            call.verdict.unwrap(),
            call.tool,
            call.input
        ));
    }
    report.push('\n');
    // `CLAUDE_DIFFERENTIAL_SHRINK` disagreements are shrunk (default 3; 0
    // for long runs that only collect them).
    let shrink_n: usize = env_number("CLAUDE_DIFFERENTIAL_SHRINK", 3);
    for (case, call, ours, why) in failures.iter().take(shrink_n) {
        let small = shrink(dir, case, call);
        let cli = small.calls.first().and_then(|c| c.verdict).or(call.verdict);
        report.push_str(&format!(
            "\nshrunk: CLI {cli:?} (permission-lsp {ours:?}: {why}) for {} {}\n  case: {}\n",
            call.tool,
            call.input,
            serde_json::to_string(&small.to_oracle()).unwrap()
        ));
    }
    panic!(
        "{} of {calls} calls decided otherwise than the CLI (seed {seed}):{report}",
        failures.len()
    );
}
