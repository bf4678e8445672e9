//! Differential test against the real Qwen Code CLI 0.24.4
//! (`tests/differential/qwen/`: `qwen --acp` with a scripted model):
//!
//! - seeded random sessions: user and project settings with rules of the
//!   shapes people write (command prefixes sharing words, `:*`, glued and
//!   lone `*`, whole-tool rules, aliases, quotes, malformed and
//!   wrong-case rules, path rules with every anchor, domains), legacy
//!   `tools.*` keys, approval modes, folder trust; and calls composed of
//!   compound commands, pipes, background jobs, env prefixes,
//!   substitutions, quoting, redirections, wrappers (`bash -c`, `sudo`,
//!   `env`), `cd`, comments, reads and writes inside and outside the
//!   project, fetches and `curl`s of subdomains;
//! - the corpus (`tests/fixtures/qwen/corpus/`): every rule set with calls
//!   aimed at its rules' boundaries.
//!
//! Every call must get the CLI's verdict; a disagreement is shrunk (rules
//! dropped one by one while it persists, one CLI run per round) and
//! printed with its session. The CLI is installed by
//! `tests/differential/qwen/setup.sh DIR`; the test looks for it in
//! `$QWEN_ORACLE_DIR`, else `target/tmp/qwen-oracle`. Without it (or
//! without `unshare -n`) the test is skipped with a message, unless
//! `QWEN_DIFFERENTIAL_REQUIRED=1` (CI) makes that a failure.
//! `QWEN_DIFFERENTIAL_SEED`, `QWEN_DIFFERENTIAL_SESSIONS` (default 10) and
//! `QWEN_CORPUS_DIFFERENTIAL_SESSIONS` (default 6) choose the run.

use crate::qwen_common::{decide, scratch};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

use crate::rng::Rng;

#[path = "common/cli_oracle.rs"]
mod cli_oracle;
use cli_oracle::{Oracle, Spec, env_num};

const SPEC: Spec = Spec {
    what: "the Qwen Code CLI",
    prefix: "QWEN",
    default_dir: "qwen-oracle",
    cli: "node_modules/@qwen-code/qwen-code/cli-entry.js",
    setup: "qwen/setup.sh",
    scratch_env: "QWEN_SCRATCH",
};

fn seed() -> u64 {
    std::env::var("QWEN_DIFFERENTIAL_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x9e3a_11c0_de00_0001)
}

fn oracle_or_skip() -> Option<Oracle> {
    Oracle::or_skip(&SPEC)
}

const PROGRAMS: &[&str] = &[
    "git", "npm", "echo", "ls", "cat", "rm", "make", "docker", "curl", "wget", "touch", "grep",
    "sed",
];
const WORDS: &[&str] = &[
    "push", "status", "test", "run", "build", "log", "commit", "install", "ps", "-la", "origin",
    "x",
];

fn random_command_rule(rng: &mut Rng) -> String {
    let p = rng.pick(PROGRAMS);
    let w = rng.pick(WORDS);
    let tool = rng.pick(&["Bash", "Bash", "Bash", "Shell", "run_shell_command", "bash"]);
    let spec = match rng.below(12) {
        0 => format!("{p} *"),
        1 => format!("{p} {w} *"),
        2 => format!("{p}:*"),
        3 => format!("{p} {w}"),
        4 => format!("{p}*"),
        5 => "*".into(),
        6 => String::new(),
        7 => format!("{p} {w}:*"),
        8 => format!("{p} \"{w}\""),
        9 => format!("{p} {w} {}", rng.pick(WORDS)),
        10 => format!("{p} * {w}"),
        _ => p.to_string(),
    };
    match rng.below(20) {
        0 => tool.to_string(),
        1 => format!("{tool}({spec}"),
        _ => format!("{tool}({spec})"),
    }
}

fn random_path_rule(rng: &mut Rng) -> String {
    let tool = rng.pick(&["Read", "Read", "Edit", "Write", "Edit"]);
    let spec = rng.pick(&[
        ".env",
        "**/.env",
        "/docs/**",
        "//etc/**",
        "~/secret.txt",
        "src/**",
        "sub/**",
        "*.txt",
        "./README.md",
        "/opt/**",
        "docs/*.md",
        "**",
        "//**",
    ]);
    if rng.chance(8) {
        tool.to_string()
    } else {
        format!("{tool}({spec})")
    }
}

fn random_rule(rng: &mut Rng) -> String {
    match rng.below(11) {
        10 => rng
            .pick(&[
                "mcp__srv__echo",
                "mcp__srv",
                "mcp__srv__d*",
                "mcp__srv__look",
                "mcp__other",
            ])
            .to_string(),
        0..=5 => random_command_rule(rng),
        6 | 7 => random_path_rule(rng),
        _ => {
            let d = rng.pick(&["example.com", "evil.test", "docs.example.com"]);
            match rng.below(6) {
                0 => "WebFetch".into(),
                1 => format!("WebFetch({d})"),
                _ => format!("WebFetch(domain:{d})"),
            }
        }
    }
}

fn random_lists(rng: &mut Rng) -> Value {
    let mut p = serde_json::Map::new();
    for k in ["allow", "ask", "deny"] {
        if rng.chance(70) {
            let n = 1 + rng.below(4);
            let rules: Vec<String> = (0..n).map(|_| random_rule(rng)).collect();
            p.insert(k.into(), json!(rules));
        }
    }
    let mut s = json!({ "permissions": p });
    if rng.chance(10) {
        s["tools"] = json!({ "exclude": [random_rule(rng)] });
    }
    if rng.chance(8) {
        s["tools"] = json!({ "allowed": [random_command_rule(rng)] });
    }
    if rng.chance(5) {
        s["tools"] = json!({ "core": [rng.pick(&["read_file", "run_shell_command", "ShellTool(git status)", "glob"])] });
    }
    if rng.chance(5) {
        s["tools"] =
            json!({ "disabled": [rng.pick(&["glob", "grep_search", "read_file", "web_fetch"])] });
    }
    if rng.chance(5) {
        s["excludeTools"] = json!([random_rule(rng)]);
    }
    s
}

fn base_command(rng: &mut Rng) -> String {
    let p = rng.pick(PROGRAMS);
    match p {
        "cat" => format!(
            "cat {}",
            rng.pick(&[
                ".env",
                "sub/.env",
                "README.md",
                "/etc/hostname",
                "~/secret.txt",
                "docs/private.md"
            ])
        ),
        "ls" => format!("ls {}", rng.pick(&["", "-la", "/etc", "sub", "docs"]))
            .trim()
            .to_string(),
        "grep" => format!("grep -r MARK {}", rng.pick(&["docs", ".", "/etc/hostname"])),
        "sed" => format!("sed -n 1p {}", rng.pick(&["README.md", ".env"])),
        "touch" => format!("touch {}", rng.pick(&["x.txt", "src/n.ts", "sub/y"])),
        "rm" => format!(
            "rm {}",
            rng.pick(&["x.txt", "src/app.ts", "-rf build", ".env"])
        ),
        "curl" => format!(
            "curl {}https://{}/x",
            rng.pick(&["", "-s ", "-o out.html "]),
            rng.pick(&[
                "example.com",
                "a.evil.test",
                "evil.test",
                "docs.example.com"
            ])
        ),
        "wget" => format!(
            "wget https://{}/x",
            rng.pick(&["example.com", "evil.test", "b.example.com"])
        ),
        _ => {
            let n = rng.below(3);
            let mut s = p.to_string();
            for _ in 0..n {
                s.push(' ');
                s.push_str(rng.pick(WORDS));
            }
            s
        }
    }
}

fn compose(rng: &mut Rng, a: String) -> String {
    match rng.below(24) {
        0 => format!("{a} && {}", base_command(rng)),
        1 => format!("{} || {a}", base_command(rng)),
        2 => format!("{a}; {}", base_command(rng)),
        3 => format!("{a} | head -5"),
        4 => format!("{a} &"),
        5 => format!("FOO=1 {a}"),
        6 => format!("echo $({a})"),
        7 => format!("echo `{a}`"),
        8 => format!("bash -c '{a}'"),
        9 => format!("sudo {a}"),
        10 => format!("env {a}"),
        11 => format!("cd sub && {a}"),
        12 => format!("{a} > out.txt"),
        13 => format!("{a} 2>&1"),
        14 => format!("{a} # note"),
        15 => format!("({a})"),
        16 => {
            let mut w: Vec<String> = a.split(' ').map(str::to_string).collect();
            if w.len() > 1 {
                w[1] = format!("\"{}\"", w[1]);
            }
            w.join(" ")
        }
        17 => format!("{a} < README.md"),
        20 => format!("cd $HOME && {a}"),
        21 => format!("{a} >> log.txt"),
        18 => format!("{}  ", a.replace(' ', "  ")),
        19 => format!("{a}\n{}", base_command(rng)),
        _ => a,
    }
}

fn random_call(rng: &mut Rng, mcp: bool) -> Value {
    if mcp && rng.chance(30) {
        let t = rng.pick(&[
            "mcp__srv__echo",
            "mcp__srv__danger",
            "mcp__srv__other",
            "mcp__srv__look",
        ]);
        return json!({"name": t, "arguments": {"x": "1"}});
    }
    match rng.below(11) {
        10 => {
            json!({"name": "list_directory", "arguments": {"path": rng.pick(&["{PROJ}", "/etc"])}})
        }
        0 => {
            json!({"name": "read_file", "arguments": {"file_path": rng.pick(&["{PROJ}/.env", "{PROJ}/sub/.env", "{PROJ}/README.md", "/etc/hostname", "{HOME}/secret.txt", "{PROJ}/docs/private.md"])}})
        }
        1 => {
            json!({"name": "write_file", "arguments": {"file_path": rng.pick(&["{PROJ}/src/n.ts", "{PROJ}/b.txt", "{PROJ}/out/o.txt", "{HOME}/w.txt"]), "content": "x"}})
        }
        // `grep_search` takes a regex (`*` alone is refused as invalid).
        2 => {
            let tool = rng.pick(&["glob", "grep_search"]);
            let pattern = if tool == "glob" { "*" } else { "MARK" };
            json!({"name": tool, "arguments": {"pattern": pattern, "path": rng.pick(&["{PROJ}/docs", "/etc", "{PROJ}"])}})
        }
        3 => {
            json!({"name": "web_fetch", "arguments": {"url": format!("https://{}/x", rng.pick(&["example.com", "docs.example.com", "evil.test", "a.evil.test", "notexample.com"])), "prompt": "summarize"}})
        }
        _ => {
            let c = base_command(rng);
            json!({"name": "run_shell_command", "arguments": {"command": compose(rng, c)}})
        }
    }
}

const FILES: &[(&str, &str)] = &[
    ("README.md", "MARK\n"),
    (".env", "MARK\n"),
    ("src/app.ts", "MARK\n"),
    ("sub/.env", "MARK\n"),
    ("docs/private.md", "MARK\n"),
    ("opt/x.txt", "MARK\n"),
];

fn files() -> Value {
    Value::Object(
        FILES
            .iter()
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect(),
    )
}

fn random_case(rng: &mut Rng, id: String) -> Value {
    let mut case = json!({ "id": id, "files": files(), "home_files": {"secret.txt": "MARK\n"} });
    let mut user = random_lists(rng);
    if rng.chance(50) {
        case["project_settings"] = random_lists(rng);
    }
    if rng.chance(12) {
        user["security"] = json!({"folderTrust": {"enabled": true}});
        match rng.below(3) {
            0 => case["trust"] = json!("untrusted"),
            1 => case["trust"] = json!(false),
            _ => {}
        }
    }
    case["settings"] = user;
    match rng.below(12) {
        0 => case["approval_mode"] = json!("plan"),
        1 => case["approval_mode"] = json!("yolo"),
        2 => case["approval_mode"] = json!("auto-edit"),
        _ => {}
    }
    let mcp = rng.chance(10);
    if mcp {
        case["mcp"] = json!(true);
        if rng.chance(30) {
            case["mcp_config"] = json!({"trust": true});
        }
    }
    let calls: Vec<Value> = (0..6).map(|_| random_call(rng, mcp)).collect();
    case["calls"] = json!(calls);
    case
}

/// One disagreement: the call's index (`None`: the session), ours, the CLI's.
type Disagreement = (Option<usize>, String, String);

thread_local! {
    /// Calls this simulation marked incomplete (not compared).
    static INCOMPLETE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Disagreements of one case.
fn compare(case: &Value, cli: &Value, root: &Path) -> Vec<Disagreement> {
    let mut out = Vec::new();
    match (decide(root, case), cli.get("error")) {
        (Err(e), None) => out.push((None, format!("refused: {e}"), "starts".into())),
        (Ok(_), Some(e)) => out.push((None, "starts".into(), format!("refused: {e}"))),
        (Err(_), Some(_)) => {}
        (Ok(ours), None) => {
            for (i, (c, (v, incomplete))) in cli["calls"]
                .as_array()
                .unwrap()
                .iter()
                .zip(ours)
                .enumerate()
            {
                let theirs = c["verdict"].as_str().unwrap_or("unknown");
                let name = case["calls"][i]["name"].as_str().unwrap_or("");
                // No decision exists for these: the tool refused first,
                // the CLI gave no answer, or this simulation says its
                // answer is incomplete.
                if incomplete {
                    INCOMPLETE.with(|n| n.set(n.get() + 1));
                }
                if theirs == "unknown" || incomplete || (theirs == "invalid" && name == "edit") {
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

fn shrink_candidates(case: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for file in ["settings", "project_settings"] {
        let Some(p) = case
            .get(file)
            .and_then(|s| s.get("permissions"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (list, rules) in p {
            let n = rules.as_array().map(Vec::len).unwrap_or(0);
            for i in 0..n {
                let mut c = case.clone();
                c[file]["permissions"][list]
                    .as_array_mut()
                    .unwrap()
                    .remove(i);
                out.push(c);
            }
        }
        if file == "project_settings" {
            let mut c = case.clone();
            c.as_object_mut().unwrap().remove(file);
            out.push(c);
        }
    }
    out
}

fn run_and_compare(oracle: &Oracle, cases: Vec<Value>, what: &str, tag: &str) {
    let root = scratch(&format!("qwen-diff-{tag}"));
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
        "Qwen Code differential ({what}): seed {}, {} sessions, {calls} calls with a CLI verdict ({} of them not compared: the simulation says it is incomplete there), {} sessions disagree",
        seed(),
        answers.len(),
        INCOMPLETE.with(|n| n.get()),
        failing.len()
    );
    // Shrink the first disagreements: one CLI run per round, every
    // candidate of the round at once.
    let mut report = Vec::new();
    for (case, diffs) in failing.iter().take(3) {
        let (i, ..) = diffs[0];
        let mut cur = case.clone();
        if let Some(i) = i {
            cur["calls"] = json!([case["calls"][i].clone()]);
        }
        for round in 0..env_num("QWEN_DIFFERENTIAL_SHRINK_ROUNDS", 5) {
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
        "{} sessions decided otherwise than Qwen Code (seed {}), shrunk:\n{}",
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
    let n = env_num("QWEN_DIFFERENTIAL_SESSIONS", 10);
    let cases: Vec<Value> = (0..n)
        .map(|i| random_case(&mut rng, format!("r{i:03}")))
        .collect();
    run_and_compare(&oracle, cases, "random sessions", "random");
}

/// The rule sets of the corpus with calls aimed at each rule: the
/// example command, with more words, in a compound, behind an env prefix,
/// inside a substitution.
#[test]
fn corpus_rule_sets_agree_with_the_cli() {
    let Some(oracle) = oracle_or_skip() else {
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen/corpus");
    let mut sets: Vec<(String, Value)> = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    for p in names {
        let text = std::fs::read_to_string(&p).unwrap();
        let stripped = permission_lsp::syntax::strip::strip_json_comments(&text);
        let Some(root) = permission_lsp::syntax::json::parse(&stripped).root else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(&stripped.text) else {
            continue;
        };
        let _ = root;
        let Some(perm) = v.get("permissions").filter(|p| p.is_object()) else {
            continue;
        };
        sets.push((
            p.file_name().unwrap().to_string_lossy().into_owned(),
            json!({ "permissions": perm }),
        ));
    }
    assert!(sets.len() >= 15, "only {} corpus rule sets", sets.len());
    let mut rng = Rng::seeded(seed() ^ 0xc0);
    let n = env_num("QWEN_CORPUS_DIFFERENTIAL_SESSIONS", 6);
    let mut cases = Vec::new();
    for i in 0..n {
        let (name, settings) = &sets[rng.below(sets.len())];
        eprintln!("c{i:03}: {name}");
        let rules: Vec<String> = ["allow", "ask", "deny"]
            .iter()
            .flat_map(|k| {
                settings["permissions"][k]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter_map(|r| r.as_str().map(str::to_string))
            .collect();
        let mut calls = Vec::new();
        for _ in 0..8 {
            if rules.is_empty() {
                break;
            }
            let r =
                permission_lsp::formats::qwen::model::parse_rule(&rules[rng.below(rules.len())]);
            let Some(spec) = r.specifier.filter(|_| r.tool == "run_shell_command") else {
                continue;
            };
            let base = permission_lsp::formats::qwen::lints::example_command(&spec);
            if base.contains(['\'', '"', '\\', '$', '`', '>', '<', '|', '&', ';', '(', ')']) {
                continue;
            }
            let c = match rng.below(5) {
                0 => base,
                1 => format!("{base} --flag"),
                _ => compose(&mut rng, base),
            };
            calls.push(json!({"name": "run_shell_command", "arguments": {"command": c}}));
        }
        if calls.is_empty() {
            continue;
        }
        let mut case = json!({ "id": format!("c{i:03}"), "files": files(), "settings": settings, "calls": calls });
        // Every program a call starts is an echo-only stub.
        let mut stubs: Vec<String> = calls
            .iter()
            .flat_map(|c| {
                c["arguments"]["command"]
                    .as_str()
                    .unwrap_or("")
                    .split([' ', '\n', '(', ')', '\'', '"', '`', '$'])
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            // A program name: a stub file of that name is written (never
            // `.`, `..` or an option: the driver cannot write those).
            .filter(|w| {
                w.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
                    && w.chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                    && ![
                        // The CLI runs `node` and the MCP stub `python3` itself: a
                        // stub of either stops it from starting.
                        "ls", "cat", "echo", "grep", "sed", "head", "find", "cd", "env", "bash",
                        "sh", "true", "node", "python", "python3",
                    ]
                    .contains(&w.as_str())
            })
            .collect();
        stubs.sort();
        stubs.dedup();
        case["stubs"] = json!(stubs);
        cases.push(case);
    }
    run_and_compare(&oracle, cases, "corpus rule sets", "corpus");
}
