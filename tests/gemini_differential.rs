//! Differential test against the real Gemini CLI 0.61.0
//! (`tests/differential/gemini/`: `gemini --acp`, or `gemini -p`, with a
//! scripted model on loopback):
//!
//! - seeded random sessions: user policy files (several, their names
//!   breaking ties) with rules of the shapes people write — command
//!   prefixes sharing words, prefix lists, `commandRegex` with and without
//!   anchors, `argsPattern`, tool lists, `*`, MCP rules, modes,
//!   `allowRedirection`, `interactive`, priorities with ties and the
//!   always-allow band — and rules the CLI drops (priority 1000, an
//!   unknown decision, a bad mode, an unsafe or broken regex, a TOML
//!   error); workspace policies (never loaded); the settings keys
//!   (`tools.allowed`, `tools.exclude`, `tools.core`,
//!   `tools.confirmationRequired`, `security.disableAlwaysAllow`,
//!   `general.defaultApprovalMode`); approval modes; folder trust;
//!   headless sessions; and calls composed of compound commands, pipes,
//!   redirections, wrappers (`bash -c`, `sudo`, `env`), subshells, `cd`,
//!   quoting, assignments, substitutions, reads and writes inside and
//!   outside the project and of build files, fetches, MCP tools;
//! - the corpus (`tests/fixtures/gemini/corpus/`): every public policy
//!   file as a user policy (and the permission keys of every public
//!   settings file), with calls aimed at its rules.
//!
//! Every call must get the CLI's verdict; a disagreement is shrunk (rules
//! dropped one by one while it persists, one CLI run per round) and
//! printed with its session. The CLI is installed by
//! `tests/differential/gemini/setup.sh DIR`; the test looks for it in
//! `$GEMINI_ORACLE_DIR`, else `target/tmp/gemini-oracle`. Without it (or
//! without `unshare -n`) the test is skipped with a message, unless
//! `GEMINI_DIFFERENTIAL_REQUIRED=1` (CI) makes that a failure.
//! `GEMINI_DIFFERENTIAL_SEED`, `GEMINI_DIFFERENTIAL_SESSIONS` (default 12)
//! and `GEMINI_CORPUS_DIFFERENTIAL_SESSIONS` (default 8) choose the run;
//! `GEMINI_DIFFERENTIAL_ONLY=r026,r030` keeps those random sessions.
//!
//! The CLI remembers a session's tool outputs: a command whose flags or
//! path-like words appeared in an earlier output asks again. The stubs
//! print only their name, `echo` prints plain words, and the calls whose
//! output names files (reads, listings, writes) come after the commands.

use crate::gemini_common::{decide, scratch};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

#[path = "common/cli_oracle.rs"]
mod cli_oracle;
use cli_oracle::{Oracle, Spec, env_num};

const SPEC: Spec = Spec {
    what: "the Gemini CLI",
    prefix: "GEMINI",
    default_dir: "gemini-oracle",
    cli: "node_modules/@google/gemini-cli/bundle/gemini.js",
    setup: "gemini/setup.sh",
    scratch_env: "GEMINI_SCRATCH",
};

fn seed() -> u64 {
    std::env::var("GEMINI_DIFFERENTIAL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x6e31_0061_c0de_0001)
}

fn oracle_or_skip() -> Option<Oracle> {
    Oracle::or_skip(&SPEC)
}

const PREFIXES: &[&str] = &[
    "git",
    "git push",
    "git status",
    "git log",
    "npm",
    "npm test",
    "npm run",
    "rm",
    "rm -rf",
    "ls",
    "echo",
    "docker",
    "make",
    "cat",
    "sudo",
    "find",
    "sed",
];
const REGEXES: &[&str] = &[
    "git (status|log)",
    "npm (run|test)",
    "^git",
    "rm .*",
    "docker (ps|run)",
    "echo [a-z]+$",
    "make\\b",
    "(?:git|npm) push",
    "[a-z]+ -rf",
];
const ARGS_PATTERNS: &[&str] = &[
    "git push",
    "\"file_path\":\"[^\"]*\\.env\"",
    "rm -rf",
    "README",
    "\"command\":\"echo",
    "package\\.json",
];

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// One `[[rule]]` (sometimes one the CLI refuses).
fn random_rule(rng: &mut Rng) -> String {
    let mut lines = vec!["[[rule]]".to_string()];
    let shell = rng.chance(70);
    let tool = if shell {
        quote(rng.pick(&[
            "run_shell_command",
            "run_shell_command",
            "run_shell_command",
            "ShellTool",
        ]))
    } else {
        match rng.below(9) {
            0 => "\"*\"".into(),
            1 => "[\"write_file\", \"replace\"]".into(),
            2 => "[\"read_file\", \"run_shell_command\"]".into(),
            3 => "\"mcp_srv_*\"".into(),
            _ => quote(rng.pick(&[
                "read_file",
                "write_file",
                "replace",
                "glob",
                "web_fetch",
                "list_directory",
                "grep_search",
                "google_web_search",
                "search_file_content",
                "Bash",
                "read_fil",
            ])),
        }
    };
    lines.push(format!("toolName = {tool}"));
    if shell || rng.chance(10) {
        match rng.below(10) {
            0..=4 => lines.push(format!("commandPrefix = {}", quote(rng.pick(PREFIXES)))),
            5 => lines.push(format!(
                "commandPrefix = [{}, {}]",
                quote(rng.pick(PREFIXES)),
                quote(rng.pick(PREFIXES))
            )),
            6 | 7 => lines.push(format!("commandRegex = {}", quote(rng.pick(REGEXES)))),
            8 => lines.push(format!("argsPattern = {}", quote(rng.pick(ARGS_PATTERNS)))),
            _ => {}
        }
    } else if rng.chance(20) {
        lines.push(format!("argsPattern = {}", quote(rng.pick(ARGS_PATTERNS))));
    }
    if tool == "\"mcp_srv_*\"" && rng.chance(50) {
        lines.pop();
        lines.push("toolName = \"echo\"".into());
        lines.push("mcpName = \"srv\"".into());
    }
    let decision = match rng.below(40) {
        0 => "\"ask\"",
        _ => rng.pick(&["\"allow\"", "\"deny\"", "\"ask_user\""]),
    };
    lines.push(format!("decision = {decision}"));
    let priority = match rng.below(40) {
        0 => "1000".to_string(),
        1 => "10.5".to_string(),
        _ => rng
            .pick(&[
                "0", "5", "10", "10", "50", "100", "300", "300", "500", "950", "999",
            ])
            .to_string(),
    };
    lines.push(format!("priority = {priority}"));
    match rng.below(14) {
        0 => lines.push("modes = [\"default\"]".into()),
        1 => lines.push("modes = [\"autoEdit\", \"yolo\"]".into()),
        2 => lines.push("modes = [\"plan\"]".into()),
        3 if rng.chance(30) => lines.push("modes = [\"auto_edit\"]".into()),
        _ => {}
    }
    if rng.chance(12) {
        lines.push("allowRedirection = true".into());
    }
    if rng.chance(6) {
        lines.push(format!("interactive = {}", rng.pick(&["true", "false"])));
    }
    if rng.chance(4) {
        lines.push("argsPattern = \"(a+)+\"".into());
    }
    if rng.chance(3) {
        lines.push("commandRegex = \"(git\"".into());
    }
    lines.join("\n")
}

fn random_policy_file(rng: &mut Rng) -> String {
    let n = 1 + rng.below(4);
    let mut text = (0..n)
        .map(|_| random_rule(rng))
        .collect::<Vec<_>>()
        .join("\n\n");
    if rng.chance(4) {
        text.push_str("\n[[rule]\n");
    }
    text.push('\n');
    text
}

fn random_settings(rng: &mut Rng) -> Value {
    let mut s = json!({});
    if rng.chance(12) {
        s["tools"]["allowed"] = json!([rng.pick(&[
            "run_shell_command(git)",
            "run_shell_command(npm test)",
            "ShellTool(ls)",
            "read_file",
            "write_file",
        ])]);
    }
    if rng.chance(12) {
        s["tools"]["exclude"] = json!([rng.pick(&[
            "web_fetch",
            "write_file",
            "run_shell_command(rm)",
            "run_shell_command",
            "glob",
        ])]);
    }
    if rng.chance(6) {
        s["tools"]["core"] = json!([
            rng.pick(&[
                "read_file",
                "run_shell_command(git)",
                "run_shell_command",
                "glob"
            ]),
            rng.pick(&["write_file", "read_file", "web_fetch"])
        ]);
    }
    if rng.chance(6) {
        s["tools"]["confirmationRequired"] =
            json!([rng.pick(&["read_file", "run_shell_command", "glob"])]);
    }
    if rng.chance(8) {
        s["security"]["disableAlwaysAllow"] = json!(true);
    }
    if rng.chance(8) {
        s["general"]["defaultApprovalMode"] = json!(rng.pick(&["auto_edit", "plan", "yolo"]));
    }
    s
}

const PROGRAMS: &[&str] = &[
    "git", "npm", "echo", "ls", "cat", "rm", "make", "docker", "find", "sed", "wc", "head", "curl",
    "touch",
];
const WORDS: &[&str] = &[
    "push", "status", "test", "run", "build", "log", "ps", "-rf", "-f", "x", "origin", "main",
    "--short",
];

fn base_command(rng: &mut Rng) -> String {
    match rng.pick(PROGRAMS) {
        "cat" => format!(
            "cat {}",
            rng.pick(&[
                "README.md",
                "/etc/hostname",
                "~/secret.txt",
                "sub/a.txt",
                "../x"
            ])
        ),
        "ls" => format!("ls {}", rng.pick(&["", "-la", "/etc", "sub", "~"]))
            .trim()
            .to_string(),
        "sed" => format!(
            "sed -n {} README.md",
            rng.pick(&["1p", "1,2p", "p", "s/a/b/"])
        ),
        "find" => format!(
            "find . {}",
            rng.pick(&["-name x", "-delete", "-exec rm {} ;", ""])
        )
        .trim()
        .to_string(),
        "rm" => format!("rm {}", rng.pick(&["x", "-rf build", "-f x", "-r sub"])),
        "echo" => format!("echo {}", rng.pick(&["hi", "git push", "a b", "done"])),
        "git" => format!(
            "git {}",
            rng.pick(&[
                "status",
                "status --short",
                "log",
                "push",
                "push origin main",
                "diff",
                "branch",
                "-c x=y log",
                "statusx"
            ])
        ),
        "npm" => format!(
            "npm {}",
            rng.pick(&["test", "testing", "run build", "publish", "run"])
        ),
        p => {
            let mut s = p.to_string();
            for _ in 0..rng.below(3) {
                s.push(' ');
                s.push_str(rng.pick(WORDS));
            }
            s
        }
    }
}

fn compose(rng: &mut Rng, a: String) -> String {
    match rng.below(26) {
        0 => format!("{a} && {}", base_command(rng)),
        1 => format!("{} || {a}", base_command(rng)),
        2 => format!("{a}; {}", base_command(rng)),
        3 => format!("{a} | wc -l"),
        4 => format!("{a} &"),
        5 => format!("FOO=1 {a}"),
        6 => format!("echo $({a})"),
        7 => format!("bash -c '{a}'"),
        8 => format!("sudo {a}"),
        9 => format!("env {a}"),
        10 => format!("cd sub && {a}"),
        11 => format!("{a} > out.txt"),
        12 => format!("{a} 2>&1"),
        13 => format!("({a})"),
        14 => format!("sh -c \"{a}\""),
        15 => format!("{a} < README.md"),
        16 => a.replacen(' ', "  ", 1),
        17 => format!("{a} >> log.txt"),
        18 => format!("time {a}"),
        19 => format!("{a} # note"),
        _ => a,
    }
}

fn shell_call(rng: &mut Rng) -> Value {
    let base = base_command(rng);
    let c = compose(rng, base);
    if rng.chance(8) {
        json!({"name": "run_shell_command", "args": {"command": c, "dir_path": rng.pick(&["sub", "."])}})
    } else {
        json!({"name": "run_shell_command", "args": {"command": c}})
    }
}

fn other_call(rng: &mut Rng, mcp: bool) -> Value {
    if mcp && rng.chance(40) {
        let t = rng.pick(&["mcp_srv_echo", "mcp_srv_danger", "mcp_srv_other"]);
        return json!({"name": t, "args": {"x": "1"}});
    }
    match rng.below(9) {
        0 | 1 => {
            json!({"name": "read_file", "args": {"file_path": rng.pick(&["README.md", ".env", "sub/a.txt", "/etc/hostname"])}})
        }
        2 | 3 => {
            json!({"name": "write_file", "args": {"file_path": rng.pick(&["b.txt", "package.json", "Makefile", "sub/c.md", "notes.md", "build.mk"]), "content": "x"}})
        }
        4 => {
            json!({"name": "replace", "args": {"file_path": "README.md", "instruction": "edit", "old_string": "MARK", "new_string": "MARK2"}})
        }
        5 => json!({"name": "web_fetch", "args": {"prompt": "get http://127.0.0.1:9/x"}}),
        6 => json!({"name": "glob", "args": {"pattern": "*.txt"}}),
        7 => json!({"name": "google_web_search", "args": {"query": "x"}}),
        _ => {
            json!({"name": rng.pick(&["save_memory", "write_todos", "list_directory"]), "args": {"dir_path": ".", "todos": []}})
        }
    }
}

fn files() -> Value {
    json!({"README.md": "MARK\n", "sub/a.txt": "MARK\n", ".env": "MARK\n", "package.json": "{}\n", "Makefile": "all:\n"})
}

fn random_case(rng: &mut Rng, id: String) -> Value {
    let mut case = json!({ "id": id, "files": files(), "home_files": {"secret.txt": "MARK\n"} });
    let names = ["a.toml", "b.toml", "B.toml", "z.toml"];
    let mut policies = serde_json::Map::new();
    for _ in 0..1 + rng.below(3) {
        policies.insert(rng.pick(&names).to_string(), json!(random_policy_file(rng)));
    }
    case["policies"] = Value::Object(policies);
    if rng.chance(8) {
        case["project_policies"] = json!({ "p.toml": random_policy_file(rng) });
    }
    // The other tiers: an admin folder (tier 5) named by
    // `adminPolicyPaths`, and `policyPaths` / `--policy`, which replace
    // ~/.gemini/policies.
    let mut home_files = json!({"secret.txt": "MARK\n"});
    let mut extra_settings = json!({});
    if rng.chance(10) {
        home_files["admin/a.toml"] = json!(random_policy_file(rng));
        extra_settings["adminPolicyPaths"] = json!(["{HOME}/admin"]);
    }
    match rng.below(14) {
        0 => {
            home_files["extra/x.toml"] = json!(random_policy_file(rng));
            extra_settings["policyPaths"] = json!(["{HOME}/extra"]);
        }
        1 => {
            home_files["extra/x.toml"] = json!(random_policy_file(rng));
            case["args"] = json!(["--policy", "{HOME}/extra/x.toml"]);
        }
        _ => {}
    }
    case["home_files"] = home_files;
    let mut settings = random_settings(rng);
    for (k, v) in extra_settings.as_object().unwrap() {
        settings[k] = v.clone();
    }
    if rng.chance(5) {
        settings["security"]["folderTrust"]["enabled"] = json!(false);
    }
    case["settings"] = settings;
    if rng.chance(15) {
        case["project_settings"] = random_settings(rng);
    }
    if rng.chance(8) {
        case["trust"] = json!(false);
    }
    let mode = match rng.below(10) {
        0 => Some("plan"),
        1 => Some("yolo"),
        2 => Some("auto_edit"),
        _ => None,
    };
    if let Some(m) = mode {
        let mut args = case
            .get("args")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        args.extend([json!("--approval-mode"), json!(m)]);
        case["args"] = json!(args);
    }
    let headless = rng.chance(10);
    if headless {
        case["headless"] = json!(true);
    }
    let mcp = !headless && rng.chance(8);
    if mcp {
        case["mcp"] = json!(true);
        if rng.chance(30) {
            case["mcp_config"] = json!({"trust": true});
        }
    }
    let n_shell = 3 + rng.below(3);
    let mut calls: Vec<Value> = (0..n_shell).map(|_| shell_call(rng)).collect();
    for _ in 0..(6 - n_shell.min(5)) {
        calls.push(other_call(rng, mcp));
    }
    case["calls"] = json!(calls);
    case
}

/// One disagreement: the call's index (`None`: the session), ours, the CLI's.
type Disagreement = (Option<usize>, String, String);

thread_local! {
    static INCOMPLETE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn compare(case: &Value, cli: &Value, root: &Path) -> Vec<Disagreement> {
    let mut out = Vec::new();
    let cli_calls = cli["calls"].as_array().cloned().unwrap_or_default();
    let cli_refused = cli.get("error").is_some()
        || (cli["rc"] != json!(0)
            && !cli_calls.is_empty()
            && cli_calls.iter().all(|c| c["verdict"] == "unknown"));
    match (decide(root, case), cli_refused) {
        (Err(e), false) => out.push((None, format!("refused: {e}"), "starts".into())),
        (Ok(_), true) => out.push((None, "starts".into(), "refused".into())),
        (Err(_), true) => {}
        (Ok(ours), false) => {
            for (i, (c, (v, incomplete))) in cli_calls.iter().zip(ours).enumerate() {
                let theirs = c["verdict"].as_str().unwrap_or("unknown");
                if incomplete {
                    INCOMPLETE.with(|n| n.set(n.get() + 1));
                }
                if theirs == "unknown" || incomplete {
                    continue;
                }
                if theirs != v {
                    out.push((Some(i), v, theirs.to_string()));
                }
            }
        }
    }
    out
}

/// Smaller sessions: each policy rule dropped, each policy file dropped,
/// each settings key dropped.
fn shrink_candidates(case: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for key in ["policies", "project_policies"] {
        let Some(files) = case.get(key).and_then(Value::as_object) else {
            continue;
        };
        for (name, text) in files {
            let mut c = case.clone();
            c[key].as_object_mut().unwrap().remove(name);
            out.push(c);
            let text = text.as_str().unwrap_or("");
            let parts: Vec<&str> = text.split("[[rule]]").collect();
            if parts.len() > 2 {
                for i in 1..parts.len() {
                    let kept: Vec<&str> = parts
                        .iter()
                        .enumerate()
                        .filter(|(k, _)| *k != i)
                        .map(|(_, p)| *p)
                        .collect();
                    let mut c = case.clone();
                    c[key][name] = json!(kept.join("[[rule]]"));
                    out.push(c);
                }
            }
        }
    }
    for key in ["settings", "project_settings"] {
        let Some(s) = case.get(key).and_then(Value::as_object) else {
            continue;
        };
        for k in s.keys() {
            let mut c = case.clone();
            c[key].as_object_mut().unwrap().remove(k);
            out.push(c);
        }
    }
    out
}

fn run_and_compare(oracle: &Oracle, cases: Vec<Value>, what: &str, tag: &str) {
    let root = scratch(&format!("gemini-diff-{tag}"));
    let answers = oracle.run(&cases, &root);
    assert!(
        answers.len() * 10 >= cases.len() * 9,
        "the CLI answered {} of {} sessions",
        answers.len(),
        cases.len()
    );
    let mut calls = 0;
    let mut failing: Vec<(Value, Vec<Disagreement>)> = Vec::new();
    for a in &answers {
        let Some(case) = cases.iter().find(|c| c["id"] == a["id"]) else {
            continue;
        };
        calls += a["calls"]
            .as_array()
            .map(|c| c.iter().filter(|x| x["verdict"] != "unknown").count())
            .unwrap_or(0);
        let d = compare(case, a, &root);
        if !d.is_empty() {
            failing.push((case.clone(), d));
        }
    }
    eprintln!(
        "Gemini CLI differential ({what}): seed {}, {} sessions, {calls} calls with a CLI verdict ({} of them not compared: the simulation says it is incomplete there), {} sessions disagree",
        seed(),
        answers.len(),
        INCOMPLETE.with(|n| n.get()),
        failing.len()
    );
    if !failing.is_empty() {
        // The whole sessions, as generated, for a closer look (one
        // `oracle.sh` run of this file shows the CLI's responses).
        let keep = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
            "target/tmp/gemini-differential-{tag}-failures.json"
        ));
        let all: Vec<&Value> = failing.iter().map(|(c, _)| c).collect();
        let _ = std::fs::create_dir_all(keep.parent().unwrap());
        let _ = std::fs::write(&keep, serde_json::to_string_pretty(&all).unwrap());
        eprintln!("the disagreeing sessions: {}", keep.display());
    }
    let mut report = Vec::new();
    for (case, diffs) in failing.iter().take(3) {
        let (i, ..) = diffs[0];
        let mut cur = case.clone();
        if let Some(i) = i {
            cur["calls"] = json!([case["calls"][i].clone()]);
        }
        for round in 0..env_num("GEMINI_DIFFERENTIAL_SHRINK_ROUNDS", 4) {
            let cands: Vec<Value> = shrink_candidates(&cur)
                .into_iter()
                .enumerate()
                .map(|(k, mut c)| {
                    c["id"] = json!(format!("{}-s{round}-{k}", case["id"].as_str().unwrap()));
                    c
                })
                .collect();
            if cands.is_empty() {
                break;
            }
            let ans = oracle.run(&cands, &root);
            let next = cands.iter().find(|c| {
                ans.iter()
                    .find(|a| a["id"] == c["id"])
                    .is_some_and(|a| !compare(c, a, &root).is_empty())
            });
            match next {
                Some(n) => cur = n.clone(),
                None => break,
            }
        }
        report.push(format!(
            "{}\n  first: {:?}",
            serde_json::to_string_pretty(&cur).unwrap(),
            diffs
        ));
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(
        calls >= cases.len() * 3,
        "only {calls} calls got a CLI verdict"
    );
    assert!(
        failing.is_empty(),
        "{} sessions decided otherwise than Gemini CLI (seed {}), shrunk:\n{}",
        failing.len(),
        seed(),
        report.join("\n\n")
    );
}

#[test]
fn random_sessions_agree_with_the_cli() {
    let Some(oracle) = oracle_or_skip() else {
        return;
    };
    let mut rng = Rng::seeded(seed());
    let n = env_num("GEMINI_DIFFERENTIAL_SESSIONS", 12);
    let only = std::env::var("GEMINI_DIFFERENTIAL_ONLY").unwrap_or_default();
    let cases: Vec<Value> = (0..n)
        .map(|i| random_case(&mut rng, format!("r{i:03}")))
        .filter(|c| only.is_empty() || only.split(',').any(|id| c["id"] == id))
        .collect();
    run_and_compare(&oracle, cases, "random sessions", "random");
}

/// The settings keys that decide calls (the corpus files' other keys
/// would start MCP servers, sandboxes or sign-ins).
fn permission_keys(v: &Value) -> Value {
    let mut s = json!({});
    for (a, b) in [
        ("tools", "allowed"),
        ("tools", "exclude"),
        ("tools", "core"),
        ("tools", "confirmationRequired"),
        ("mcp", "allowed"),
        ("mcp", "excluded"),
        ("general", "defaultApprovalMode"),
        ("security", "disableAlwaysAllow"),
        ("security", "disableYoloMode"),
    ] {
        if let Some(x) = v.get(a).and_then(|t| t.get(b)) {
            s[a][b] = x.clone();
        }
    }
    s
}

/// Every corpus policy file as the user's policy, with calls aimed at its
/// rules: each prefix as written, with more words, in a compound, behind
/// an assignment, redirected; and each tool it names.
#[test]
fn corpus_files_agree_with_the_cli() {
    let Some(oracle) = oracle_or_skip() else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini/corpus");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    names.sort();
    let settings: Vec<Value> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| {
            let t = std::fs::read_to_string(p).ok()?;
            let s = permission_lsp::syntax::strip::strip_json_comments(&t);
            serde_json::from_str::<Value>(&s.text).ok()
        })
        .map(|v| permission_keys(&v))
        .filter(|v| v.as_object().is_some_and(|o| !o.is_empty()))
        .collect();
    assert!(
        names.len() >= 40,
        "only {} corpus policy files",
        names.len()
    );
    let mut rng = Rng::seeded(seed() ^ 0xc0);
    let n = env_num("GEMINI_CORPUS_DIFFERENTIAL_SESSIONS", 8);
    let mut cases = Vec::new();
    for i in 0..n {
        let p = &names[rng.below(names.len())];
        let text = std::fs::read_to_string(p).unwrap();
        eprintln!("c{i:03}: {}", p.file_name().unwrap().to_string_lossy());
        let prefixes: Vec<String> = toml_edit::Document::parse(&text)
            .ok()
            .map(|d| {
                d.get("rule")
                    .and_then(|r| r.as_array_of_tables())
                    .map(|a| {
                        a.iter()
                            .flat_map(|t| match t.get("commandPrefix") {
                                Some(i) if i.is_str() => vec![i.as_str().unwrap().to_string()],
                                Some(i) => i
                                    .as_array()
                                    .map(|a| {
                                        a.iter()
                                            .filter_map(|x| x.as_str().map(str::to_string))
                                            .collect()
                                    })
                                    .unwrap_or_default(),
                                None => Vec::new(),
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .unwrap_or_default();
        // Prefixes a call can run: no shell syntax, and no program the
        // oracle cannot stub that would wait on its input (an interpreter
        // or a shell started bare), and no echo (its output would name the
        // words later calls use).
        let prefixes: Vec<String> = prefixes
            .into_iter()
            .filter(|p| {
                let first = p.split_whitespace().next().unwrap_or("");
                !p.is_empty()
                    && !p.contains([
                        '\'', '"', '\\', '$', '`', '>', '<', '|', '&', ';', '(', ')', '\n', '{',
                        '}', '*',
                    ])
                    && ![
                        "bash", "sh", "zsh", "python", "python3", "node", "env", "sudo", "exec",
                        "xargs", "nohup", "time", "watch", "timeout", "echo", "printf",
                    ]
                    .contains(&first)
            })
            .collect();
        let mut calls = Vec::new();
        for _ in 0..6 {
            if prefixes.is_empty() {
                break;
            }
            let base = prefixes[rng.below(prefixes.len())].clone();
            let c = match rng.below(6) {
                0 | 1 => base,
                2 => format!("{base} extra"),
                _ => compose(&mut rng, base),
            };
            calls.push(json!({"name": "run_shell_command", "args": {"command": c}}));
        }
        calls.push(other_call(&mut rng, false));
        calls.push(other_call(&mut rng, false));
        let mut case = json!({
            "id": format!("c{i:03}"),
            "files": files(),
            "policies": { "corpus.toml": text },
            "calls": calls,
        });
        if !settings.is_empty() && rng.chance(40) {
            case["settings"] = settings[rng.below(settings.len())].clone();
        }
        // Every program a call starts is an echo-only stub.
        let mut stubs: Vec<String> = case["calls"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| {
                c["args"]["command"]
                    .as_str()
                    .unwrap_or("")
                    .split([' ', '\n', '(', ')', '\'', '"', '`', '$'])
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .filter(|w| {
                w.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
                    && w.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                    && ![
                        "ls", "cat", "echo", "grep", "sed", "head", "find", "cd", "env", "bash",
                        "sh", "true", "node", "python", "python3", "pwd",
                    ]
                    .contains(&w.as_str())
            })
            .collect();
        stubs.sort();
        stubs.dedup();
        case["stubs"] = json!(stubs);
        cases.push(case);
    }
    run_and_compare(&oracle, cases, "corpus policy files", "corpus");
}
