//! Differential test against the real OpenCode CLI (1.18.33): seeded random
//! sessions — a global config, a project `opencode.json`, sometimes a
//! `.opencode/opencode.json`, agent blocks and agent markdown files, legacy
//! `tools` switches, rules from a vocabulary of the shapes people write —
//! and random harmless calls (bash, read, write, edit, glob, webfetch) as
//! the build, plan, explore or a custom agent are decided by the running
//! server (`tests/differential/opencode/`) and by permission-lsp; every call
//! must get the server's verdict. A disagreement is shrunk (rules dropped
//! one at a time while it persists, each round one server run) and printed
//! with its session.
//!
//! The CLI is installed by `tests/differential/opencode/setup.sh DIR`; the
//! test looks for it in `$OPENCODE_ORACLE_DIR`, else
//! `target/tmp/opencode-oracle`. Without it (or without `unshare -n`, `git`
//! or Node.js) the test is skipped with a message, unless
//! `OPENCODE_DIFFERENTIAL_REQUIRED=1` (CI) makes that a failure.
//! `OPENCODE_DIFFERENTIAL_SESSIONS` (default 24 per batch, three batches
//! with their own global config, three calls each) and
//! `OPENCODE_DIFFERENTIAL_SEED` choose the run.

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::contract::prelude::*;
use permission_lsp::formats::opencode::OpenCode;
use permission_lsp::formats::opencode::engine::policy::Policy;
use permission_lsp::formats::opencode::ide::simulation::OpenCodeSimulator;
use permission_lsp::formats::{CallRequest, Simulator};
use permission_lsp::workspace::{self, Overrides};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::rng::Rng;

const ACTIONS: &[&str] = &["allow", "ask", "deny"];
const BASH_PATTERNS: &[&str] = &[
    "*",
    "*",
    "git *",
    "git status",
    "git status *",
    "git push *",
    "echo *",
    "echo ?",
    "ls",
    "ls *",
    "pwd",
    "cat *",
    "cat a.txt",
    "whoami",
    "rm *",
    "true",
    "echo hi",
    "FOO=1 *",
];
const READ_PATTERNS: &[&str] = &[
    "*", "*.txt", "a.txt", "*.env", "src/*", "*.md", "~/pub/*", "../*",
];
const EDIT_PATTERNS: &[&str] = &["*", "*.md", "*.txt", "src/*", "new.txt"];
const EXT_PATTERNS: &[&str] = &["*", "{ROOT}/outside/*", "~/pub/*", "{HOME}/*", "~/*"];
const KEYS: &[&str] = &[
    "bash",
    "bash",
    "bash",
    "read",
    "read",
    "edit",
    "edit",
    "external_directory",
    "webfetch",
    "glob",
    "*",
];

#[derive(Clone, Debug)]
enum Val {
    Act(&'static str),
    Map(Vec<(String, &'static str)>),
}

type Perm = Vec<(String, Val)>;

#[derive(Clone, Debug, Default)]
struct Cfg {
    permission: Option<Perm>,
    tools: Vec<(String, bool)>,
    /// `agent.<name>.permission`.
    agents: Vec<(String, Perm)>,
}

#[derive(Clone, Debug)]
struct Call {
    agent: String,
    tool: String,
    input: Value,
}

#[derive(Clone, Debug)]
struct Sess {
    project: Cfg,
    dot: Option<Cfg>,
    /// An agent markdown file: name and its `permission`.
    md: Option<(String, Perm)>,
    calls: Vec<Call>,
}

fn random_perm(rng: &mut Rng, max_keys: usize) -> Perm {
    let mut out: Perm = Vec::new();
    for _ in 0..1 + rng.below(max_keys) {
        let key = rng.pick(KEYS);
        if out.iter().any(|(k, _)| k == key) {
            continue;
        }
        let pool = match key {
            "bash" => BASH_PATTERNS,
            "read" => READ_PATTERNS,
            "edit" => EDIT_PATTERNS,
            "external_directory" => EXT_PATTERNS,
            "glob" => &["*", "*.txt", "*.md"],
            _ => &[],
        };
        let val = if pool.is_empty() || rng.chance(30) {
            Val::Act(rng.pick(ACTIONS))
        } else {
            let mut m: Vec<(String, &'static str)> = Vec::new();
            for _ in 0..1 + rng.below(4) {
                let p = rng.pick(pool).to_string();
                if !m.iter().any(|(q, _)| *q == p) {
                    m.push((p, rng.pick(ACTIONS)));
                }
            }
            Val::Map(m)
        };
        out.push((key.to_string(), val));
    }
    out
}

fn random_cfg(rng: &mut Rng) -> Cfg {
    let mut c = Cfg {
        permission: rng.chance(85).then(|| random_perm(rng, 4)),
        ..Default::default()
    };
    if rng.chance(10) {
        c.tools.push((
            rng.pick(&["bash", "write", "webfetch", "read"]).into(),
            rng.chance(40),
        ));
    }
    if rng.chance(25) {
        let name = rng.pick(&["build", "rev"]).to_string();
        c.agents.push((name, random_perm(rng, 2)));
    }
    c
}

fn random_call(rng: &mut Rng) -> Call {
    let agent = match rng.below(20) {
        0..=11 => "build",
        12..=14 => "plan",
        15..=16 => "explore",
        _ => "rev",
    }
    .to_string();
    let (tool, input) = match rng.below(10) {
        0..=4 => (
            "bash",
            json!({"command": rng.pick(&[
                "git status", "git", "echo hi", "echo a", "ls", "ls -a", "pwd", "cat a.txt", "whoami", "true",
                "echo a && git status", "cat {ROOT}/outside/x.md", "ls {ROOT}/outside", "rm -f nothing.txt",
                "FOO=1 echo hi", "echo $(pwd)", "git status > /dev/null", "cd {ROOT}/outside && ls",
                "git push --dry-run nowhere main",
            ]), "description": "oracle"}),
        ),
        5..=6 => (
            "read",
            json!({"filePath": rng.pick(&["{P}/a.txt", "{P}/.env", "{P}/src/b.ts", "{HOME}/pub/notes.md", "{ROOT}/outside/x.md", "{P}/notes.md"])}),
        ),
        7 => (
            "write",
            json!({"filePath": rng.pick(&["{P}/new.txt", "{P}/new.md", "{P}/src/n.ts", "{ROOT}/outside/new.txt"]), "content": "x"}),
        ),
        8 => ("glob", json!({"pattern": rng.pick(&["*.txt", "*.md"])})),
        _ => (
            "webfetch",
            json!({"url": "http://127.0.0.1:18080/x", "format": "text"}),
        ),
    };
    Call {
        agent,
        tool: tool.into(),
        input,
    }
}

fn perm_json(p: &Perm) -> Value {
    let mut m = Map::new();
    for (k, v) in p {
        m.insert(
            k.clone(),
            match v {
                Val::Act(a) => json!(a),
                Val::Map(list) => {
                    let mut pm = Map::new();
                    for (pat, a) in list {
                        pm.insert(pat.clone(), json!(a));
                    }
                    Value::Object(pm)
                }
            },
        );
    }
    Value::Object(m)
}

fn cfg_json(c: &Cfg) -> String {
    let mut m = Map::new();
    if !c.tools.is_empty() {
        m.insert(
            "tools".into(),
            Value::Object(c.tools.iter().map(|(k, b)| (k.clone(), json!(b))).collect()),
        );
    }
    if let Some(p) = &c.permission {
        m.insert("permission".into(), perm_json(p));
    }
    if !c.agents.is_empty() {
        m.insert(
            "agent".into(),
            Value::Object(
                c.agents
                    .iter()
                    .map(|(n, p)| (n.clone(), json!({ "permission": perm_json(p) })))
                    .collect(),
            ),
        );
    }
    serde_json::to_string_pretty(&Value::Object(m)).unwrap()
}

fn md_text(p: &Perm) -> String {
    let mut s = String::from("---\ndescription: generated\nmode: all\npermission:\n");
    for (k, v) in p {
        match v {
            Val::Act(a) => s.push_str(&format!("  \"{k}\": {a}\n")),
            Val::Map(list) => {
                s.push_str(&format!("  \"{k}\":\n"));
                for (pat, a) in list {
                    s.push_str(&format!("    \"{pat}\": {a}\n"));
                }
            }
        }
    }
    s.push_str("---\nGenerated agent.\n");
    s
}

struct Batch {
    root: PathBuf,
    home: PathBuf,
    global: Cfg,
}

impl Batch {
    fn sub(&self, s: &str, project: &Path) -> String {
        s.replace("{P}", &project.display().to_string())
            .replace("{HOME}", &self.home.display().to_string())
            .replace("{ROOT}", &self.root.display().to_string())
    }

    fn write(&self, path: &Path, text: &str, project: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, self.sub(text, project)).unwrap();
    }

    fn setup(&self) {
        let _ = std::fs::remove_dir_all(&self.root);
        std::fs::create_dir_all(self.home.join("pub")).unwrap();
        std::fs::write(self.home.join("pub/notes.md"), "notes\n").unwrap();
        std::fs::create_dir_all(self.root.join("outside")).unwrap();
        std::fs::write(self.root.join("outside/x.md"), "x\n").unwrap();
        let g = self.home.join(".config/opencode/opencode.json");
        self.write(&g, &cfg_json(&self.global), &self.root);
    }

    fn session(&self, i: usize, s: &Sess) -> PathBuf {
        let p = self.root.join(format!("s{i}"));
        std::fs::create_dir_all(p.join("src")).unwrap();
        let ok = Command::new("git")
            .args(["init", "-q"])
            .arg(&p)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git init failed");
        std::fs::write(p.join("a.txt"), "a\n").unwrap();
        std::fs::write(p.join(".env"), "X=1\n").unwrap();
        std::fs::write(p.join("notes.md"), "n\n").unwrap();
        std::fs::write(p.join("src/b.ts"), "b\n").unwrap();
        self.write(&p.join("opencode.json"), &cfg_json(&s.project), &p);
        if let Some(d) = &s.dot {
            self.write(&p.join(".opencode/opencode.json"), &cfg_json(d), &p);
        }
        if let Some((name, perm)) = &s.md {
            self.write(
                &p.join(format!(".opencode/agents/{name}.md")),
                &md_text(perm),
                &p,
            );
        }
        p
    }
}

struct Oracle {
    dir: PathBuf,
}

impl Oracle {
    fn find() -> Result<Oracle, String> {
        let dir = std::env::var_os("OPENCODE_ORACLE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tmp/opencode-oracle")
            });
        if !dir.join(".installed").exists()
            && !dir
                .join("node_modules/opencode-linux-x64/bin/opencode")
                .exists()
        {
            return Err(format!(
                "no OpenCode CLI in {} (run tests/differential/opencode/setup.sh DIR)",
                dir.display()
            ));
        }
        for (what, ok) in [
            (
                "unshare -n",
                Command::new("unshare")
                    .args(["-n", "true"])
                    .status()
                    .is_ok_and(|s| s.success()),
            ),
            ("git", Command::new("git").arg("--version").output().is_ok()),
            (
                "node",
                Command::new("node").arg("--version").output().is_ok(),
            ),
        ] {
            if !ok {
                return Err(format!("`{what}` is not available"));
            }
        }
        Ok(Oracle { dir })
    }

    /// Runs calls (`(dir, call)`) in one server; the verdicts in order.
    fn run(&self, home: &Path, calls: &[(PathBuf, Call)], batch: &Batch) -> Vec<String> {
        let cases: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (dir, c))| {
                json!({
                    "id": format!("c{i}"),
                    "dir": dir,
                    "agent": c.agent,
                    "tool": c.tool,
                    "args": serde_json::from_str::<Value>(&batch.sub(&c.input.to_string(), dir)).unwrap(),
                })
            })
            .collect();
        let file = batch
            .root
            .join(format!("cases-{}.json", std::process::id()));
        std::fs::write(&file, serde_json::to_string(&cases).unwrap()).unwrap();
        let out = Command::new(self.dir.join("oracle.sh"))
            .arg(&file)
            .arg("1")
            .env("OC_ROOT", &self.dir)
            .env("OC_HOME", home)
            .output()
            .expect("oracle.sh runs");
        let mut by_id = std::collections::HashMap::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            if let Ok(v) = serde_json::from_str::<Value>(line) {
                by_id.insert(
                    v["id"].as_str().unwrap_or("").to_string(),
                    v["verdict"].as_str().unwrap_or("").to_string(),
                );
            }
        }
        (0..calls.len())
            .map(|i| {
                let v = by_id
                    .get(&format!("c{i}"))
                    .cloned()
                    .unwrap_or_else(|| "missing".into());
                match v.as_str() {
                    "allow-then-error" => "allow".into(),
                    "no-tool" => "hidden".into(),
                    _ => v,
                }
            })
            .collect()
    }
}

fn ours(batch: &Batch, tmp: &Path, dir: &Path, c: &Call) -> String {
    let mut options = AnalysisOptions::for_profile(OpenCode.default_profile());
    options.home = batch.home.display().to_string();
    options
        .runtime_args
        .push(("TMPDIR".into(), tmp.display().to_string()));
    let ctx = workspace::resolve(
        &options,
        None,
        None,
        &Overrides {
            cwd: Some(dir.to_path_buf()),
            ..Default::default()
        },
        None,
    );
    let policy = Policy::load(&ctx);
    if policy.refused.is_some() {
        return "refused".into();
    }
    let sim = OpenCodeSimulator::for_policy(policy, Some(&c.agent));
    if sim.unknown_agent {
        return "no-agent".into();
    }
    let input: Value = serde_json::from_str(&batch.sub(&c.input.to_string(), dir)).unwrap();
    let r = sim.simulate(&CallRequest {
        tool: c.tool.clone(),
        input,
    });
    if r.tool_hidden {
        "hidden".into()
    } else {
        r.decision
    }
}

/// Every session with one rule fewer (for shrinking).
fn smaller(s: &Sess) -> Vec<Sess> {
    fn perms(p: &Perm) -> Vec<Perm> {
        let mut out = Vec::new();
        for i in 0..p.len() {
            let mut q = p.clone();
            q.remove(i);
            out.push(q);
            if let Val::Map(list) = &p[i].1
                && list.len() > 1
            {
                for j in 0..list.len() {
                    let mut q = p.clone();
                    let mut l = list.clone();
                    l.remove(j);
                    q[i].1 = Val::Map(l);
                    out.push(q);
                }
            }
        }
        out
    }
    let mut out = Vec::new();
    if let Some(p) = &s.project.permission {
        for q in perms(p) {
            let mut t = s.clone();
            t.project.permission = Some(q);
            out.push(t);
        }
    }
    if s.dot.is_some() {
        let mut t = s.clone();
        t.dot = None;
        out.push(t);
    }
    if s.md.is_some() && s.calls[0].agent != "rev" {
        let mut t = s.clone();
        t.md = None;
        out.push(t);
    }
    for (i, (_, p)) in s.project.agents.iter().enumerate() {
        for q in perms(p) {
            let mut t = s.clone();
            t.project.agents[i].1 = q;
            out.push(t);
        }
    }
    if !s.project.tools.is_empty() {
        let mut t = s.clone();
        t.project.tools.clear();
        out.push(t);
    }
    out
}

#[test]
fn random_sessions_agree_with_the_cli() {
    let required = std::env::var("OPENCODE_DIFFERENTIAL_REQUIRED").is_ok_and(|v| v == "1");
    let oracle = match Oracle::find() {
        Ok(o) => o,
        Err(why) if !required => {
            eprintln!("skipped: {why}");
            return;
        }
        Err(why) => panic!("the OpenCode differential test cannot run: {why}"),
    };
    let seed: u64 = std::env::var("OPENCODE_DIFFERENTIAL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let per_batch: usize = std::env::var("OPENCODE_DIFFERENTIAL_SESSIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(24);
    let shrink_rounds: usize = std::env::var("OPENCODE_DIFFERENTIAL_SHRINK_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let tmp = oracle.dir.join("scratch/tmp");
    let base =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("target/tmp/opencode-diff-{seed}"));
    let mut total = 0;
    let mut failures = Vec::new();
    for b in 0..3 {
        let root = base.join(format!("b{b}"));
        let batch = Batch {
            home: root.join("home"),
            root,
            global: if b == 0 {
                Cfg::default()
            } else {
                random_cfg(&mut rng)
            },
        };
        batch.setup();
        let mut sessions = Vec::new();
        for _ in 0..per_batch {
            let mut s = Sess {
                project: random_cfg(&mut rng),
                dot: rng.chance(20).then(|| random_cfg(&mut rng)),
                md: None,
                calls: (0..3).map(|_| random_call(&mut rng)).collect(),
            };
            if s.calls.iter().any(|c| c.agent == "rev") && rng.chance(60) {
                s.md = Some(("rev".into(), random_perm(&mut rng, 2)));
            }
            // A call as an agent nobody defines never gets an answer from
            // the server (it waits); such calls go to `build`.
            let defines = |c: &Cfg| c.agents.iter().any(|(n, _)| n == "rev");
            if !(s.md.is_some()
                || defines(&s.project)
                || s.dot.as_ref().is_some_and(defines)
                || defines(&batch.global))
            {
                for c in &mut s.calls {
                    if c.agent == "rev" {
                        c.agent = "build".into();
                    }
                }
            }
            sessions.push(s);
        }
        let mut calls = Vec::new();
        let mut dirs = Vec::new();
        for (i, s) in sessions.iter().enumerate() {
            let d = batch.session(i, s);
            for c in &s.calls {
                calls.push((d.clone(), c.clone()));
            }
            dirs.push(d);
        }
        let theirs = oracle.run(&batch.home, &calls, &batch);
        let mut k = 0;
        for (i, s) in sessions.iter().enumerate() {
            for c in &s.calls {
                let t = &theirs[k];
                k += 1;
                let o = ours(&batch, &tmp, &dirs[i], c);
                if same(&o, t) {
                    total += 1;
                    continue;
                }
                total += 1;
                eprintln!(
                    "disagreement (seed {seed} batch {b} session s{i}): CLI {t}, ours {o} for {} {} as {}",
                    c.tool, c.input, c.agent
                );
                if failures.len() >= 8 {
                    failures.push(format!("(not shrunk) CLI {t}, ours {o} in s{i}"));
                    continue;
                }
                // Shrink: one session per call, rules dropped while the
                // disagreement persists.
                let mut cur = Sess {
                    calls: vec![c.clone()],
                    ..s.clone()
                };
                for round in 0..shrink_rounds {
                    let cands = smaller(&cur);
                    if cands.is_empty() {
                        break;
                    }
                    let mut cc = Vec::new();
                    let mut cdirs = Vec::new();
                    for (j, t) in cands.iter().enumerate() {
                        let d = batch.session(10_000 + round * 1000 + j, t);
                        cc.push((d.clone(), c.clone()));
                        cdirs.push(d);
                    }
                    let v = oracle.run(&batch.home, &cc, &batch);
                    let next = (0..cands.len()).find(|&j| {
                        !same(&ours(&batch, &tmp, &cdirs[j], c), &v[j]) && v[j] != "missing"
                    });
                    match next {
                        Some(j) => cur = cands[j].clone(),
                        None => break,
                    }
                }
                let d = batch.session(99_999, &cur);
                failures.push(format!(
                    "seed {seed} batch {b}: CLI {t}, ours {o} for {} {} as {}\n  global: {}\n  project: {}\n  .opencode: {:?}\n  agent md: {:?}\n  (session in {})",
                    c.tool,
                    c.input,
                    c.agent,
                    cfg_json(&batch.global).replace('\n', " "),
                    cfg_json(&cur.project).replace('\n', " "),
                    cur.dot.as_ref().map(cfg_json),
                    cur.md.as_ref().map(|(_, p)| md_text(p)),
                    d.display()
                ));
            }
        }
    }
    eprintln!(
        "{total} calls compared with the CLI, {} disagreements",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Our verdict and the CLI's agree (a refused config or a missing agent
/// fails the call in the server).
fn same(ours: &str, theirs: &str) -> bool {
    ours == theirs
        || (matches!(ours, "refused" | "no-agent")
            && matches!(theirs, "driver-error" | "error" | "no-tool"))
}
