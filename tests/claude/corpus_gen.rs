//! Cases seeded with the rule sets of real Claude Code settings files
//! (`tests/fixtures/claude/corpus/`, copied from the project's corpus of
//! public settings files) and calls aimed at each rule's boundary: the
//! command a rule names, alone, with an argument, glued to more text, in a
//! compound command, behind wrappers (`sudo`, `env`, `timeout`, `nohup`,
//! `command`, `xargs`, a shell's `-c`, a subshell), after harmless and
//! other environment assignments, piped into `tail`, redirected, in the
//! background, with its flags reordered (`rm -fr` for `rm -rf`), with
//! `git` global options, and by an absolute program path; path rules
//! probed with the file they name, a sibling and a file below; domains
//! with the host and a subdomain.
//!
//! Allowed calls run for real in the oracle's sandbox, so every command a
//! generated call can start is shadowed by an echo-only stub (the stub
//! folder comes first on the CLI's `PATH`), and rules that write through
//! redirections, substitute commands or name programs by path are left
//! out.

use crate::harness::{Call, Case};
use permission_lsp::formats::claude::engine::bash;
use serde_json::{Value, json};
use std::collections::BTreeSet;

use super::rng::Rng;

/// One corpus file's permissions.
pub struct RuleSet {
    /// The corpus file's name.
    pub name: String,
    pub allow: Vec<String>,
    pub ask: Vec<String>,
    pub deny: Vec<String>,
    pub mode: Option<String>,
}

impl RuleSet {
    fn all(&self) -> impl Iterator<Item = &String> {
        self.allow.iter().chain(&self.ask).chain(&self.deny)
    }
}

/// The corpus files that hold at least one rule.
pub fn rule_sets() -> Vec<RuleSet> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/claude/corpus");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for path in names {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let p = &v["permissions"];
        let list = |k: &str| -> Vec<String> {
            p[k].as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|r| r.as_str().map(String::from))
                        .filter(|r| usable(r))
                        .collect()
                })
                .unwrap_or_default()
        };
        let set = RuleSet {
            name: path.file_name().unwrap().to_string_lossy().into_owned(),
            allow: list("allow"),
            ask: list("ask"),
            deny: list("deny"),
            mode: p["defaultMode"].as_str().map(String::from),
        };
        if set.all().next().is_some() {
            out.push(set);
        }
    }
    out
}

/// A rule the sandbox can hold: no redirection, substitution, here
/// document or program named by path in a Bash rule; nothing long.
fn usable(rule: &str) -> bool {
    if rule.len() > 200 || rule.contains('\n') {
        return false;
    }
    let Some(content) = rule.strip_prefix("Bash(").and_then(|r| r.strip_suffix(')')) else {
        return true;
    };
    if content.contains(['>', '<', '`']) || content.contains("$(") {
        return false;
    }
    let first = content.split_whitespace().next().unwrap_or("");
    !(first.starts_with(['/', '~', '.', '"', '\'']) || first.contains('/'))
}

/// Interpreters whose arguments would run code: only probed by name.
const INTERPRETERS: &[&str] = &[
    "python", "python3", "node", "bash", "sh", "zsh", "perl", "ruby", "deno", "bun", "php",
];

/// Commands never shadowed: the CLI's own shell, the MCP stub's
/// interpreter, and `env`.
const NO_STUB: &[&str] = &["bash", "sh", "python3", "python", "node", "env"];

/// Harmless to run by an absolute path with relative arguments.
const ABSOLUTE_OK: &[&str] = &[
    "ls", "cat", "echo", "grep", "head", "tail", "wc", "rm", "true",
];

/// The command a Bash rule names, as a call: its fixed text with every
/// `*` standing for `x`, and how the rule ends (`:*`, ` *`, `*` or exact).
fn rule_command(content: &str) -> Option<(String, &'static str)> {
    let (base, kind) = if let Some(b) = content.strip_suffix(":*") {
        (b, "colon")
    } else if let Some(b) = content.strip_suffix(" *") {
        (b, "space")
    } else if let Some(b) = content.strip_suffix('*') {
        (b, "glued")
    } else {
        (content, "exact")
    };
    let base = base.trim().replace('*', "x");
    if base.is_empty() {
        return None;
    }
    Some((base, kind))
}

/// Spellings of `rm -rf` a deny rule may miss.
fn flag_spellings(base: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (a, bs) in [
        (
            "-rf",
            &[
                "-fr",
                "-r -f",
                "-Rf",
                "-f -r",
                "--recursive --force",
                "-rfv",
            ][..],
        ),
        ("-fr", &["-rf", "-f -r"][..]),
        ("-r", &["-R", "--recursive"][..]),
        ("-f", &["--force"][..]),
    ] {
        if base.split(' ').any(|w| w == a) {
            for b in bs {
                out.push(
                    base.split(' ')
                        .map(|w| if w == a { *b } else { w })
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
            break;
        }
    }
    out
}

/// Calls aimed at a Bash rule's boundary.
fn bash_probes(content: &str, rng: &mut Rng) -> Vec<String> {
    let Some((base, kind)) = rule_command(content) else {
        return Vec::new();
    };
    let first = base.split(' ').next().unwrap_or("").to_string();
    if INTERPRETERS.contains(&first.as_str()) && base != first {
        return Vec::new();
    }
    let mut out = vec![
        base.clone(),
        format!("{base} x"),
        format!("{base}x"),
        format!("{base}:x"),
        format!("{base} && echo done"),
        format!("echo a && {base}"),
        format!("{base}; rm x"),
        format!("{base} | tail -5"),
        format!("{base} 2>&1 | head -20"),
        format!("{base} > out.txt"),
        format!("{base} 2>/dev/null"),
        format!("FOO=1 {base}"),
        format!("NODE_ENV=test {base}"),
        format!("CI=1 {base} x"),
        format!("sudo {base}"),
        format!("env {base}"),
        format!("timeout 5 {base}"),
        format!("nohup {base}"),
        format!("command {base}"),
        format!("xargs {base}"),
        format!("echo x | xargs {base}"),
        format!("({base})"),
        format!("cd sub && {base}"),
        format!("{base} &"),
        format!("{base} $(echo x)"),
        format!("exec {base}"),
    ];
    if !base.contains('\'') {
        out.push(format!("bash -c '{base}'"));
        // Not `sh -lc`: a login shell resets PATH past the echo stubs,
        // and the real program (npx fetching a package) hangs the session.
        out.push(format!("sh -c '{base}'"));
    }
    if kind != "exact" {
        out.push(format!("{base} --flag"));
    }
    if ABSOLUTE_OK.contains(&first.as_str()) && !base.contains(['/', '~', '$', '*']) {
        out.push(format!("/usr/bin/{base}"));
        out.push(format!("/bin/{base} x"));
    }
    for s in flag_spellings(&base) {
        out.push(s.clone());
        out.push(format!("{s} x"));
    }
    if let Some(rest) = base.strip_prefix("git ") {
        for opt in ["-C sub", "--no-pager", "-c color.ui=never", "-C ."] {
            out.push(format!("git {opt} {rest}"));
        }
    }
    // Keep a handful, always the rule's own command.
    let mut picked = vec![out[0].clone()];
    for _ in 0..5 {
        picked.push(out[rng.below(out.len())].clone());
    }
    picked.sort();
    picked.dedup();
    picked
}

/// A file a path pattern names, its sibling and a file below it, as call
/// paths (`{PROJ}`, `{HOME}` or absolute).
fn path_probes(pattern: &str) -> Vec<String> {
    let concrete = |p: &str| p.replace("**", "a/b").replace('*', "x").replace('?', "q");
    let (root, rest) = if let Some(r) = pattern.strip_prefix("//") {
        ("/", r.to_string())
    } else if let Some(r) = pattern.strip_prefix("~/") {
        ("{HOME}/", r.to_string())
    } else if let Some(r) = pattern.strip_prefix('/') {
        ("{PROJ}/", r.to_string())
    } else {
        (
            "{PROJ}/",
            pattern.strip_prefix("./").unwrap_or(pattern).to_string(),
        )
    };
    let rest = concrete(rest.trim_end_matches('/'));
    if rest.is_empty() || rest.contains("..") || rest.contains(['[', '{', '\\']) {
        return Vec::new();
    }
    let mut out = vec![format!("{root}{rest}")];
    out.push(format!("{root}{rest}/inner.txt"));
    match rest.rsplit_once('/') {
        Some((dir, _)) => out.push(format!("{root}{dir}/sibling.txt")),
        None => out.push(format!("{root}sub/{rest}")),
    }
    out
}

/// Up to `n` calls aimed at the rules of `set`.
pub fn calls_for(set: &RuleSet, n: usize, rng: &mut Rng) -> Vec<Call> {
    let rules: Vec<&String> = set.all().collect();
    let mut calls: Vec<Call> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut tries = 0;
    while calls.len() < n && tries < n * 6 {
        tries += 1;
        let rule = rules[rng.below(rules.len())];
        let (tool, content) = match rule.find('(') {
            Some(i) if rule.ends_with(')') => (&rule[..i], Some(&rule[i + 1..rule.len() - 1])),
            _ => (rule.as_str(), None),
        };
        let new: Vec<(String, Value)> = match (tool, content) {
            ("Bash", Some(c)) => bash_probes(c, rng)
                .into_iter()
                .map(|cmd| {
                    (
                        "Bash".to_string(),
                        json!({ "command": cmd, "description": "d" }),
                    )
                })
                .collect(),
            ("Bash", None) => vec![(
                "Bash".into(),
                json!({ "command": "npm run build", "description": "d" }),
            )],
            ("Read" | "Edit" | "Write", Some(p)) => path_probes(p)
                .into_iter()
                .map(|path| {
                    if tool == "Read" || rng.chance(30) {
                        ("Read".to_string(), json!({ "file_path": path }))
                    } else {
                        (
                            "Write".to_string(),
                            json!({ "file_path": path, "content": "x\n" }),
                        )
                    }
                })
                .filter(|(t, v)| {
                    // Writes only inside the case's own folders.
                    t == "Read" || {
                        let p = v["file_path"].as_str().unwrap_or("");
                        p.starts_with("{PROJ}/") || p.starts_with("{HOME}/")
                    }
                })
                .collect(),
            ("WebFetch", Some(c)) => match c.strip_prefix("domain:") {
                Some(host) if !host.contains(['/', ' ']) => {
                    let host = host.trim_start_matches("*.");
                    vec![
                        (
                            "WebFetch".into(),
                            json!({ "url": format!("https://{host}/x"), "prompt": "p" }),
                        ),
                        (
                            "WebFetch".into(),
                            json!({ "url": format!("https://docs.{host}/x"), "prompt": "p" }),
                        ),
                    ]
                }
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        for (tool, input) in new {
            if calls.len() >= n {
                break;
            }
            let key = format!("{tool} {input}");
            if seen.insert(key) {
                calls.push(Call {
                    tool,
                    input,
                    verdict: None,
                });
            }
        }
    }
    calls
}

/// A case with `set`'s rules in one settings file (or split between the
/// project and the local file), some sessions in another mode or
/// untrusted.
pub fn corpus_case(set: &RuleSet, id: String, rng: &mut Rng, calls: usize) -> Case {
    let mut perms = serde_json::Map::new();
    for (k, v) in [
        ("allow", &set.allow),
        ("ask", &set.ask),
        ("deny", &set.deny),
    ] {
        if !v.is_empty() {
            perms.insert(k.into(), json!(v));
        }
    }
    if let Some(m) = &set.mode {
        perms.insert("defaultMode".into(), json!(m));
    }
    let settings = json!({ "permissions": perms });
    let mut case = Case {
        id,
        user: None,
        project: None,
        local: None,
        files: [
            ("a.txt", "A\n"),
            ("x", "x\n"),
            ("sub/b.txt", "b\n"),
            (".env", "SECRET=1\n"),
            ("build/x", "x\n"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect(),
        home_files: vec![("outside.txt".into(), "o\n".into())],
        trust: !rng.chance(10),
        git: rng.chance(30),
        start: None,
        env: Vec::new(),
        args: Vec::new(),
        mcp: false,
        calls: calls_for(set, calls, rng),
        warmup: Some(crate::harness::warmup()),
        replay_failures: Vec::new(),
    };
    match rng.below(10) {
        0 => case.user = Some(settings),
        1 => case.local = Some(settings),
        _ => case.project = Some(settings),
    }
    if rng.chance(15) {
        case.args = vec![
            "--permission-mode".into(),
            rng.pick(&["acceptEdits", "dontAsk", "bypassPermissions"])
                .into(),
        ];
    }
    case
}

/// Every program a case's calls can start (each simple command's first
/// word, behind wrappers too), to be shadowed by a stub.
pub fn programs(cases: &[Case]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let add = |line: &str, out: &mut BTreeSet<String>| {
        for c in bash::parse(line).commands {
            for w in c.words.iter().take(6) {
                let ok = !w.is_empty()
                    && w.len() < 64
                    && w.bytes().all(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'+')
                    })
                    && !w.starts_with(['-', '.'])
                    && !NO_STUB.contains(&w.as_str());
                if ok {
                    out.insert(w.clone());
                }
            }
        }
    };
    for case in cases {
        for call in &case.calls {
            if let Some(cmd) = call.input["command"].as_str() {
                add(cmd, &mut out);
                // What a shell's `-c` runs.
                for part in cmd.split(['\'', '"']) {
                    add(part, &mut out);
                }
            }
        }
    }
    out
}

/// Writes an echo-only stub for each program into `dir`.
pub fn write_stubs(dir: &std::path::Path, programs: &BTreeSet<String>) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).unwrap();
    for p in programs {
        let path = dir.join(p);
        std::fs::write(&path, format!("#!/bin/sh\necho \"STUB {p} $*\"\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
