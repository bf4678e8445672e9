//! Differential test against the real Codex CLI 0.169.0, on both of its
//! layers (`tests/differential/codex/`):
//!
//! - the full runtime (`codex app-server` with a scripted model): seeded
//!   random sessions — user and project `.rules` files written with the
//!   shapes people use (alternatives, absolute programs, host executables,
//!   justifications, `match`/`not_match` examples that pass or fail, loops,
//!   variables, functions, f-strings, unknown decisions), a `config.toml`
//!   (approval policies, granular ones, sandboxes, refused values), the
//!   project trusted or not — and random harmless command lines composed of
//!   compound scripts, quoting, redirections, env prefixes, nested shells,
//!   wrappers, absolute and relative executables, heredocs and forced `rm`s.
//!   Every call must get the server's verdict; a disagreement is shrunk
//!   (rules dropped, then the config, while it persists; each round one
//!   server run) and printed with its session;
//! - the rule evaluator alone (`codex execpolicy check`): random rules
//!   files and argvs, and every corpus file (`tests/fixtures/codex/corpus/`)
//!   with commands aimed at its rules: whether the file loads, and the
//!   strictest matching decision, must be the CLI's.
//!
//! The CLI is installed by `tests/differential/codex/setup.sh DIR`; the test
//! looks for it in `$CODEX_ORACLE_DIR`, else `target/tmp/codex-oracle`.
//! Without it (or without `unshare -n`) the test is skipped with a message,
//! unless `CODEX_DIFFERENTIAL_REQUIRED=1` (CI) makes that a failure.
//! `CODEX_DIFFERENTIAL_SEED`, `CODEX_DIFFERENTIAL_SESSIONS` (default 24),
//! `CODEX_DIFFERENTIAL_CHECKS` (evaluator calls, default 150) and
//! `CODEX_DIFFERENTIAL_CORPUS_CALLS` (default 150) choose the run.

use crate::codex_common::{decide, scratch};
use permission_lsp::formats::codex::model::matching::matching;
use permission_lsp::formats::codex::model::rules::{self, Decision, PrefixRule};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

struct Oracle {
    dir: PathBuf,
}

impl Oracle {
    fn find() -> Result<Oracle, String> {
        let dir = std::env::var("CODEX_ORACLE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|_| {
                Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tmp/codex-oracle")
            });
        if !dir.join("node_modules/.bin/codex").exists() {
            return Err(format!(
                "no Codex CLI in {} (run tests/differential/codex/setup.sh there)",
                dir.display()
            ));
        }
        let ok = Command::new("unshare")
            .args(["-n", "true"])
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err("`unshare -n` is not available (root is needed)".into());
        }
        Ok(Oracle { dir })
    }

    /// The full runtime on `cases`: one result per case, by id.
    fn run(&self, cases: &[Value], scratch: &Path) -> Vec<Value> {
        let file = scratch.join("cases.json");
        std::fs::write(&file, serde_json::to_string(cases).unwrap()).unwrap();
        let out = Command::new(self.dir.join("oracle.sh"))
            .arg(&file)
            .env("CODEX_SCRATCH", scratch.join("oracle"))
            .output()
            .expect("oracle.sh");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// The rule evaluator on one argv: `Err` when the files do not load,
    /// else the strictest matching decision (`None`: no rule matches).
    fn check(
        &self,
        files: &[PathBuf],
        argv: &[String],
        home: &Path,
    ) -> Result<Option<String>, String> {
        let mut cmd = Command::new("unshare");
        cmd.arg("-n").arg(self.dir.join("node_modules/.bin/codex"));
        cmd.args(["execpolicy", "check", "--resolve-host-executables"]);
        for f in files {
            cmd.arg("--rules").arg(f);
        }
        cmd.arg("--").args(argv);
        cmd.env("HOME", home).env("CODEX_HOME", home.join(".codex"));
        let out = cmd.output().expect("codex execpolicy check");
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let v: Value =
            serde_json::from_slice(&out.stdout).map_err(|e| format!("unreadable output: {e}"))?;
        Ok(v.get("decision")
            .and_then(Value::as_str)
            .map(str::to_string))
    }
}

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn seed() -> u64 {
    std::env::var("CODEX_DIFFERENTIAL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
}

fn required() -> bool {
    std::env::var("CODEX_DIFFERENTIAL_REQUIRED").is_ok_and(|v| v == "1")
}

fn oracle_or_skip() -> Option<Oracle> {
    match Oracle::find() {
        Ok(o) => Some(o),
        Err(why) if !required() => {
            eprintln!("skipped: {why}");
            None
        }
        Err(why) => panic!("the Codex differential test cannot run: {why}"),
    }
}

/// Patterns people write (tokens; a list is alternatives).
const PATTERNS: &[&str] = &[
    r#"["git"]"#,
    r#"["git", "push"]"#,
    r#"["git", ["push", "fetch"]]"#,
    r#"[["git", "hg"], "push"]"#,
    r#"["git", "status"]"#,
    r#"["git", "log"]"#,
    r#"["npm", "publish"]"#,
    r#"["npm", ["run", "exec"], "deploy"]"#,
    r#"["npm"]"#,
    r#"["rm"]"#,
    r#"["rm", "-rf"]"#,
    r#"["cat"]"#,
    r#"["curl"]"#,
    r#"["ls"]"#,
    r#"["echo"]"#,
    r#"["echo", "hi"]"#,
    r#"["/usr/bin/git", "push"]"#,
    r#"["docker", "rm"]"#,
    r#"["make", "deploy"]"#,
    r#"["gh", "pr", "create"]"#,
    r#"["sudo"]"#,
    r#"["env"]"#,
    r#"["bash", "-lc"]"#,
    r#"["git push"]"#,
    r#"["python3"]"#,
];

/// Commands (harmless: the stubs stand in for the programs that act).
const COMMANDS: &[&str] = &[
    "git push origin main",
    "git push",
    "git status",
    "git fetch",
    "git log",
    "hg push",
    "npm publish",
    "npm run deploy",
    "npm exec deploy x",
    "npm ci",
    "rm zz",
    "rm -rf zz",
    "rm -f zz",
    "rm -r zz",
    "cat a.txt",
    "curl -s example.invalid",
    "ls -la",
    "echo hi",
    "echo hello",
    "/usr/bin/git push",
    "./git push",
    "docker rm x",
    "make deploy",
    "gh pr create",
    "python3 --version",
];

fn random_rule(rng: &mut Rng) -> String {
    let pattern = rng.pick(PATTERNS);
    let decision = match rng.below(20) {
        0 => Some("deny"),
        1 => Some("ask"),
        2..=4 => None,
        5..=9 => Some("allow"),
        10..=14 => Some("prompt"),
        _ => Some("forbidden"),
    };
    let mut args = vec![format!("pattern={pattern}")];
    if let Some(d) = decision {
        args.push(format!("decision=\"{d}\""));
    }
    if rng.chance(15) {
        args.push("justification=\"use the wrapper\"".into());
    }
    if rng.chance(15) {
        // A witness of the pattern, or a command it may not match.
        let words: Vec<String> = serde_json::from_str::<Vec<Value>>(pattern)
            .unwrap()
            .iter()
            .map(|t| match t {
                Value::String(s) => s.clone(),
                Value::Array(a) => a[0].as_str().unwrap().to_string(),
                _ => unreachable!(),
            })
            .collect();
        let ex = if rng.chance(70) {
            format!("{} x", words.join(" "))
        } else {
            rng.pick(COMMANDS).to_string()
        };
        args.push(format!("match=[{:?}]", ex));
    }
    if rng.chance(10) {
        args.push(format!("not_match=[{:?}]", rng.pick(COMMANDS)));
    }
    format!("prefix_rule({})", args.join(", "))
}

fn random_rules_file(rng: &mut Rng) -> String {
    let mut lines: Vec<String> = (0..1 + rng.below(4)).map(|_| random_rule(rng)).collect();
    match rng.below(12) {
        0 => lines.push(
            "for t in [\"curl\", \"wget\"]:\n    prefix_rule(pattern=[t], decision=\"forbidden\")"
                .into(),
        ),
        1 => lines.push("BAD = [\"make\", \"deploy\"]\nprefix_rule(pattern=BAD, decision=\"prompt\")".into()),
        2 => lines.push(
            "def deny(cmd):\n    prefix_rule(pattern=cmd, decision=\"forbidden\")\ndeny([\"docker\", \"rm\"])"
                .into(),
        ),
        3 => lines.push("sub = \"push\"\nprefix_rule(pattern=[\"git\", f\"{sub}\"], decision=\"prompt\")".into()),
        4 => lines.push("host_executable(name=\"git\", paths=[\"/opt/homebrew/bin/git\"])".into()),
        5 => lines.push("host_executable(name=\"git\", paths=[\"/usr/bin/git\"])".into()),
        6 => lines.push("prefix_rule(pattern=[\"git\", \"push\"], decision=\"forbidden\"".into()),
        _ => {}
    }
    lines.join("\n") + "\n"
}

fn random_config(rng: &mut Rng) -> String {
    let mut cfg = String::new();
    match rng.below(14) {
        0..=3 => {}
        4..=6 => cfg.push_str("approval_policy = \"on-request\"\n"),
        7..=8 => cfg.push_str("approval_policy = \"never\"\n"),
        9 => cfg.push_str("approval_policy = \"on-failure\"\n"),
        10 => cfg.push_str(&format!(
            "approval_policy = {{ granular = {{ sandbox_approval = {}, rules = {}, mcp_elicitations = true }} }}\n",
            rng.chance(50),
            rng.chance(50)
        )),
        11 => cfg.push_str("approval_policy = \"untrusted\"\n"),
        12 => cfg.push_str("approval_policy = { granular = { rules = true, sandbox_approval = true } }\n"),
        _ => cfg.push_str("ask_for_approval = \"never\"\n"),
    }
    match rng.below(8) {
        0 => cfg.push_str("sandbox_mode = \"read-only\"\n"),
        1 => cfg.push_str("sandbox_mode = \"danger-full-access\"\n"),
        2 => cfg.push_str("sandbox_mode = \"workspace-write\"\n"),
        3 if rng.chance(30) => cfg.push_str("sandbox_mode = \"full-access\"\n"),
        _ => {}
    }
    cfg
}

/// A command line as models write them.
fn random_call(rng: &mut Rng) -> String {
    let a = rng.pick(COMMANDS).to_string();
    compose(rng, a)
}

/// `a` as models wrap and combine commands.
fn compose(rng: &mut Rng, a: String) -> String {
    let b = rng.pick(COMMANDS).to_string();
    match rng.below(30) {
        0..=7 => a,
        8 => format!("{a} && {b}"),
        9 => format!("{a} || true"),
        10 => format!("{a}; {b}"),
        11 => format!("{a} | cat"),
        12 => format!("{a}\n{b}"),
        13 => format!("{a} > /dev/null"),
        14 => format!("{a} 2>&1"),
        15 => format!("FOO=1 {a}"),
        16 => format!("bash -lc '{a}'"),
        17 => format!("zsh -c '{a}'"),
        18 => format!("env {a}"),
        19 => format!("sudo {a}"),
        20 => format!("({a})"),
        21 => format!("echo $HOME && {a}"),
        22 => {
            let mut w: Vec<&str> = a.split(' ').collect();
            if w.len() > 1 {
                let q = format!("'{}'", w[1]);
                w[1] = Box::leak(q.into_boxed_str());
            }
            w.join(" ")
        }
        23 => {
            let mut w: Vec<String> = a.split(' ').map(str::to_string).collect();
            w[0] = format!("\"{}\"", w[0]);
            w.join(" ")
        }
        24 => "cat <<EOF\nhi\nEOF".into(),
        25 => format!("if true; then {a}; fi"),
        26 => format!("{a} $(echo x)"),
        27 => "rm -rf zz > /dev/null".into(),
        28 => format!("time {a}"),
        _ => format!("{a}  "),
    }
}

/// The corpus files the rules evaluator loads, with their rules.
fn corpus() -> Vec<(String, Vec<PrefixRule>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rules"))
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).ok()?;
            let r = rules::read(&text, &mut Vec::new());
            (r.loaded() && !r.rules.is_empty()).then_some((text, r.rules))
        })
        .collect()
}

/// A program name the driver can stand in for with an echo-only stub.
fn stubbable(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && !matches!(
            name,
            "bash" | "sh" | "zsh" | "env" | "cat" | "echo" | "true" | "ls"
        )
}

fn random_case(rng: &mut Rng, id: String, corpus: &[(String, Vec<PrefixRule>)]) -> Value {
    let mut case = json!({ "id": id, "config": random_config(rng) });
    let mut rules = serde_json::Map::new();
    for i in 0..1 + rng.below(2) {
        rules.insert(format!("u{i}.rules"), json!(random_rules_file(rng)));
    }
    // A real rule set, with calls aimed at its rules (their programs
    // replaced by echo-only stubs: allowed calls really run).
    let mut aimed = Vec::new();
    let mut stubs: Vec<String> = Vec::new();
    if !corpus.is_empty() && rng.chance(35) {
        let (text, file_rules) = &corpus[rng.below(corpus.len())];
        rules.insert("u0.rules".into(), json!(text));
        for _ in 0..3 {
            let r = &file_rules[rng.below(file_rules.len())];
            if !stubbable(&r.first) {
                continue;
            }
            let mut words = vec![r.first.clone()];
            words.extend(r.rest.iter().map(|t| t[rng.below(t.len())].clone()));
            if words.iter().any(|w| {
                w.is_empty()
                    || w.contains([
                        '\'', '"', '$', '`', '\\', '\n', ';', '&', '|', '<', '>', '(', ')', '*',
                        '?', '[', '#', '~', '{', '!',
                    ])
            }) {
                continue;
            }
            if rng.chance(50) {
                words.push("x".into());
            }
            if rng.chance(30) && words.len() > 1 {
                words.pop();
                words.pop();
                if words.is_empty() {
                    words.push(r.first.clone());
                }
            }
            stubs.push(r.first.clone());
            aimed.push(compose(rng, words.join(" ")));
        }
    }
    case["rules"] = Value::Object(rules);
    if rng.chance(40) {
        case["project_rules"] = json!({ "p.rules": random_rules_file(rng) });
    }
    if rng.chance(15) {
        case["project_config"] = json!(random_config(rng));
    }
    match rng.below(10) {
        0 => case["trust"] = json!(false),
        1 => case["trust"] = json!("untrusted"),
        _ => {}
    }
    if rng.chance(8) {
        case["approval_policy"] = json!(rng.pick(&["untrusted", "never", "on-request"]));
    }
    let mut calls: Vec<String> = (0..6 - aimed.len().min(4))
        .map(|_| random_call(rng))
        .collect();
    calls.extend(aimed);
    // Every program a call names that the driver does not stub already.
    for c in &calls {
        for w in c.split([' ', '\n', '(', ')', '\'', '"']) {
            if stubbable(w) && corpus.iter().any(|(_, rs)| rs.iter().any(|r| r.first == w)) {
                stubs.push(w.to_string());
            }
        }
    }
    stubs.sort();
    stubs.dedup();
    if !stubs.is_empty() {
        case["stubs"] = json!(stubs);
    }
    case["calls"] = json!(calls);
    case
}

/// The disagreements of one case: (call index or `None` for the session,
/// what we say, what the CLI says).
fn compare(case: &Value, cli: &Value, root: &Path) -> Vec<(Option<usize>, String, String)> {
    let calls: Vec<String> = case["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    let ours = decide(root, case, &calls);
    let warnings = cli["warnings"].to_string();
    let mut out = Vec::new();
    let cli_dropped = warnings.contains("custom rules not applied");
    match (&ours.verdicts, cli.get("error")) {
        (Err(e), None) => out.push((None, format!("refused: {e}"), "starts".into())),
        (Ok(_), Some(e)) => out.push((None, "starts".into(), format!("refused: {e}"))),
        (Err(_), Some(_)) => {}
        (Ok(v), None) => {
            if ours.rules_not_applied != cli_dropped {
                out.push((
                    None,
                    format!("rules dropped: {}", ours.rules_not_applied),
                    format!("rules dropped: {cli_dropped}"),
                ));
            }
            for (i, (c, ours)) in cli["calls"].as_array().unwrap().iter().zip(v).enumerate() {
                if c.get("after_sandbox_failure").is_some() {
                    continue;
                }
                let theirs = c["verdict"].as_str().unwrap_or("?");
                if theirs != ours {
                    out.push((Some(i), ours.clone(), theirs.to_string()));
                }
            }
        }
    }
    out
}

/// Smaller sessions that may keep a disagreement: each rule line dropped,
/// the config emptied, the project files dropped.
fn shrink_candidates(case: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for key in ["rules", "project_rules"] {
        let Some(files) = case.get(key).and_then(Value::as_object) else {
            continue;
        };
        for (name, text) in files {
            let text = text.as_str().unwrap();
            let stmts: Vec<&str> = text.split("\nprefix_rule").collect();
            if stmts.len() > 1 {
                for i in 0..stmts.len() {
                    let kept: Vec<String> = stmts
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| *j != i)
                        .map(|(j, s)| {
                            if j == 0 {
                                s.to_string()
                            } else {
                                format!("prefix_rule{s}")
                            }
                        })
                        .collect();
                    let mut c = case.clone();
                    c[key][name] = json!(kept.join("\n"));
                    out.push(c);
                }
            }
            if files.len() > 1 {
                let mut c = case.clone();
                c[key].as_object_mut().unwrap().remove(name);
                out.push(c);
            }
        }
    }
    if case.get("project_rules").is_some() {
        let mut c = case.clone();
        c.as_object_mut().unwrap().remove("project_rules");
        out.push(c);
    }
    if case["config"].as_str().is_some_and(|s| !s.is_empty()) {
        let mut c = case.clone();
        c["config"] = json!("");
        out.push(c);
    }
    out
}

#[test]
fn random_sessions_agree_with_the_cli() {
    let Some(oracle) = oracle_or_skip() else {
        return;
    };
    let seed = seed();
    let n = env_num("CODEX_DIFFERENTIAL_SESSIONS", 24);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let root = scratch(&format!("codex-diff-{seed}"));
    let corpus = corpus();
    let cases: Vec<Value> = (0..n)
        .map(|i| random_case(&mut rng, format!("s{seed}-{i}"), &corpus))
        .collect();
    let results = oracle.run(&cases, &root);
    assert_eq!(
        results.len(),
        cases.len(),
        "the oracle answered {} of {} cases",
        results.len(),
        cases.len()
    );
    let mut failures = Vec::new();
    let mut calls = 0;
    for (case, cli) in cases.iter().zip(&results) {
        calls += case["calls"].as_array().unwrap().len();
        let diffs = compare(case, cli, &root);
        if diffs.is_empty() {
            continue;
        }
        // Shrink: keep a smaller session while it still disagrees.
        let mut smallest = case.clone();
        for _round in 0..env_num("CODEX_DIFFERENTIAL_SHRINK_ROUNDS", 6) {
            let mut cands = shrink_candidates(&smallest);
            for (k, c) in cands.iter_mut().enumerate() {
                c["id"] = json!(format!("{}-k{k}", case["id"].as_str().unwrap()));
            }
            if cands.is_empty() {
                break;
            }
            let answers = oracle.run(&cands, &root);
            match cands
                .iter()
                .zip(&answers)
                .find(|(c, a)| !compare(c, a, &root).is_empty())
            {
                Some((c, _)) => smallest = c.clone(),
                None => break,
            }
        }
        failures.push(format!(
            "{}: {:?}\n  smallest session: {}",
            case["id"],
            diffs
                .iter()
                .map(|(i, o, t)| format!(
                    "{}: ours {o}, the CLI {t}",
                    i.map(|i| format!("{:?}", case["calls"][i].as_str().unwrap()))
                        .unwrap_or_else(|| "session".into())
                ))
                .collect::<Vec<_>>(),
            serde_json::to_string(&smallest).unwrap()
        ));
    }
    let _ = std::fs::remove_dir_all(&root);
    eprintln!(
        "codex differential (seed {seed}): {n} sessions, {calls} calls, {} disagreeing",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Our answer for one argv over rules files: `Err` when a file does not
/// load, else the strictest matching decision.
fn ours_check(texts: &[String], argv: &[String]) -> Result<Option<String>, String> {
    let mut hosts = Vec::new();
    let mut all: Vec<PrefixRule> = Vec::new();
    for t in texts {
        let f = rules::read(t, &mut hosts);
        if let Some(e) = f.error {
            return Err(e.message);
        }
        all.extend(f.rules);
    }
    let refs: Vec<&PrefixRule> = all.iter().collect();
    Ok(matching(&refs, argv, &hosts)
        .iter()
        .map(|(i, _)| refs[*i].decision)
        .max()
        .map(|d: Decision| d.as_str().to_string()))
}

fn compare_check(
    oracle: &Oracle,
    files: &[PathBuf],
    texts: &[String],
    argv: &[String],
    home: &Path,
) -> Option<String> {
    let theirs = oracle.check(files, argv, home);
    let ours = ours_check(texts, argv);
    let same = match (&ours, &theirs) {
        (Ok(a), Ok(b)) => a == b,
        (Err(_), Err(_)) => true,
        _ => false,
    };
    (!same).then(|| {
        format!(
            "{argv:?} over {:?}: ours {ours:?}, the CLI {:?}",
            files,
            theirs.map_err(|e| e.lines().last().unwrap_or_default().to_string())
        )
    })
}

#[test]
fn the_rule_evaluator_agrees_on_random_files_and_argvs() {
    let Some(oracle) = oracle_or_skip() else {
        return;
    };
    let seed = seed();
    let budget = env_num("CODEX_DIFFERENTIAL_CHECKS", 150);
    let mut rng = Rng(seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 3);
    let root = scratch(&format!("codex-check-{seed}"));
    let mut failures = Vec::new();
    let mut done = 0;
    let mut file_no = 0;
    while done < budget {
        let texts: Vec<String> = (0..1 + rng.below(2))
            .map(|_| random_rules_file(&mut rng))
            .collect();
        let files: Vec<PathBuf> = texts
            .iter()
            .map(|t| {
                file_no += 1;
                let p = root.join(format!("f{file_no}.rules"));
                std::fs::write(&p, t).unwrap();
                p
            })
            .collect();
        let loads = ours_check(&texts, &["true".to_string()]).is_ok();
        // A file that does not load: one call says so.
        let n = if loads { 6 } else { 1 };
        for _ in 0..n {
            let line = rng.pick(COMMANDS);
            let mut argv: Vec<String> = line.split(' ').map(str::to_string).collect();
            if rng.chance(20) {
                argv.push("--flag".into());
            }
            done += 1;
            if let Some(f) = compare_check(&oracle, &files, &texts, &argv, &root) {
                failures.push(format!("{f}\n  files: {texts:?}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&root);
    eprintln!(
        "codex evaluator differential (seed {seed}): {done} calls, {} disagreeing",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_files_load_and_decide_as_the_cli() {
    let Some(oracle) = oracle_or_skip() else {
        return;
    };
    let budget = env_num("CODEX_DIFFERENTIAL_CORPUS_CALLS", 150);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rules"))
        .collect();
    files.sort();
    assert!(files.len() >= 50, "{} corpus files", files.len());
    let home = scratch("codex-corpus");
    let mut calls: Vec<(PathBuf, String, Vec<String>)> = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let read = rules::read(&text, &mut Vec::new());
        // Whether it loads: one call.
        calls.push((f.clone(), text.clone(), vec!["true".into()]));
        for r in read.rules.iter().take(12) {
            let mut argv = vec![r.first.clone()];
            argv.extend(r.rest.iter().map(|t| t[t.len() - 1].clone()));
            argv.push("x".into());
            calls.push((f.clone(), text.clone(), argv.clone()));
            if argv.len() > 2 {
                // One word short of the pattern: a shorter rule decides.
                argv.truncate(argv.len() - 2);
                calls.push((f.clone(), text.clone(), argv));
            }
        }
    }
    // Spread the budget over every file: the loads first, then the rest.
    calls.sort_by_key(|(_, _, a)| a != &vec!["true".to_string()]);
    let mut failures = Vec::new();
    let mut done = 0;
    for (f, text, argv) in calls.iter().take(budget.max(files.len())) {
        done += 1;
        if let Some(d) = compare_check(
            &oracle,
            std::slice::from_ref(f),
            std::slice::from_ref(text),
            argv,
            &home,
        ) {
            failures.push(d);
        }
    }
    let _ = std::fs::remove_dir_all(&home);
    eprintln!(
        "codex corpus differential: {} files, {done} of {} calls, {} disagreeing",
        files.len(),
        calls.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
