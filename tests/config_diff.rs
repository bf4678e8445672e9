//! `diff`: what a config change newly allows, asks or denies.
//!
//! Per format, seeded random config pairs (a config and an edit of it) are
//! compared by `diff` and by brute force: every call over a small
//! vocabulary decided with both configs. Every kind of change (surface,
//! before → after) brute force finds must be reported by `diff`, and every
//! example `diff` reports must be decided as it says. Then the command
//! against git.

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::analysis::diff::{Side, diff};
use permission_lsp::contract::prelude::*;
use permission_lsp::formats::{self, CallRequest, Simulator};
use permission_lsp::workspace::{Context, Overrides, resolve};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[path = "common/rng.rs"]
mod rng;
use rng::Rng;

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("permission-lsp-diff-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const WORDS: &[&str] = &[
    "git", "push", "status", "rm", "-rf", "build", "npm", "run", "test", "x",
];
const PATHS: &[&str] = &["src", "docs", ".env", "a.txt", "x", "b.env"];

/// Every command of one to three words, and every relative path of one or
/// two parts.
fn commands() -> Vec<String> {
    let mut out: Vec<String> = WORDS.iter().map(|w| w.to_string()).collect();
    for a in WORDS {
        for b in WORDS {
            out.push(format!("{a} {b}"));
            for c in WORDS {
                out.push(format!("{a} {b} {c}"));
            }
        }
    }
    out
}

fn paths() -> Vec<String> {
    let mut out: Vec<String> = PATHS.iter().map(|p| p.to_string()).collect();
    for a in PATHS {
        for b in PATHS {
            out.push(format!("{a}/{b}"));
        }
    }
    out
}

type Transitions = BTreeSet<(String, String, String)>;

/// The kinds of change brute force finds, and those `diff` reports (after
/// checking each of its examples against both simulators).
fn compare(
    format: &'static dyn Format,
    before: &Context<'_>,
    after: &Context<'_>,
    calls: &[(String, CallRequest)],
) -> (Transitions, Transitions, Vec<String>) {
    let (sb, sa) = (
        format.simulator(before).unwrap(),
        format.simulator(after).unwrap(),
    );
    let decide = |s: &dyn Simulator, c: &CallRequest| {
        let r = s.simulate(c);
        if r.tool_hidden {
            "deny".to_string()
        } else {
            r.decision
        }
    };
    let mut brute = Transitions::new();
    for (surface, call) in calls {
        let (b, a) = (decide(sb.as_ref(), call), decide(sa.as_ref(), call));
        if b != a {
            brute.insert((surface.clone(), b, a));
        }
    }
    let (pb, pa) = (
        format.effective_policy(before).unwrap(),
        format.effective_policy(after).unwrap(),
    );
    let report = diff(
        format,
        Side {
            simulator: sb.as_ref(),
            policy: &pb,
        },
        Side {
            simulator: sa.as_ref(),
            policy: &pa,
        },
        &after.options.home,
    );
    let mut found = Transitions::new();
    for d in &report.differences {
        let call = CallRequest {
            tool: d.tool.clone(),
            input: d.input.clone(),
        };
        assert_eq!(decide(sb.as_ref(), &call), d.before, "{d:?}");
        assert_eq!(decide(sa.as_ref(), &call), d.after, "{d:?}");
        found.insert((d.surface.clone(), d.before.to_string(), d.after.to_string()));
    }
    (brute, found, report.incomplete)
}

fn pick_map(rng: &mut Rng, keys: &[&str], n: usize) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    for _ in 0..n {
        let k = rng.pick(keys).to_string();
        let action = rng.pick(&["allow", "ask", "deny"]);
        m.insert(k, json!(action));
    }
    m
}

const WILDCARDS: &[&str] = &[
    "*",
    "git *",
    "git push *",
    "rm *",
    "rm -rf *",
    "npm run test *",
    "npm *",
    "git status",
    "x*",
    "*build*",
    "*test",
    "rm -rf build",
];
const PATH_GLOBS: &[&str] = &["*", "*.env", "src/*", "docs/**", "*.txt", "x", "*/x"];

fn check_format(
    name: &str,
    format: &'static dyn Format,
    config: impl FnMut(&mut Rng) -> Value,
    place: impl FnMut(&Path, &Value) -> Context<'static>,
    calls: &[(String, CallRequest)],
) {
    let complete = check_format_within(name, format, config, place, calls);
    assert_eq!(complete, 25, "{name}: a comparison said it was incomplete");
}

/// [`check_format`] where a comparison may say it is incomplete (then only
/// what it reports is checked): how many pairs were compared completely.
fn check_format_within(
    name: &str,
    format: &'static dyn Format,
    mut config: impl FnMut(&mut Rng) -> Value,
    mut place: impl FnMut(&Path, &Value) -> Context<'static>,
    calls: &[(String, CallRequest)],
) -> usize {
    let mut rng = Rng(0x0d1f_f000 ^ name.len() as u64 | 1);
    let mut kinds = 0;
    let mut complete = 0;
    for i in 0..25 {
        let a = config(&mut rng);
        let b = config(&mut rng);
        let (ra, rb) = (
            temp(&format!("{name}-{i}-a")),
            temp(&format!("{name}-{i}-b")),
        );
        let (ca, cb) = (place(&ra, &a), place(&rb, &b));
        let (brute, found, incomplete) = compare(format, &ca, &cb, calls);
        // What is reported is what the simulators decide (checked in
        // `compare`), and a change brute force does not see among its
        // calls is still one.
        if incomplete.is_empty() {
            complete += 1;
            let missing: Vec<_> = brute.difference(&found).collect();
            assert!(
                missing.is_empty(),
                "{name} pair {i}: diff misses {missing:?}\nbefore {a}\nafter {b}\nreported {found:?}"
            );
        }
        kinds += found.len();
        let _ = std::fs::remove_dir_all(&ra);
        let _ = std::fs::remove_dir_all(&rb);
    }
    assert!(
        kinds >= 25,
        "{name}: only {kinds} kinds of change in 25 pairs"
    );
    complete
}

#[test]
fn pi_diff_finds_every_change_brute_force_finds() {
    let pi = formats::by_id("pi").unwrap();
    let mut calls: Vec<(String, CallRequest)> = commands()
        .into_iter()
        .map(|c| {
            (
                "bash".to_string(),
                CallRequest {
                    tool: "bash".into(),
                    input: json!({ "command": c }),
                },
            )
        })
        .collect();
    calls.extend(paths().into_iter().map(|p| {
        (
            "read".to_string(),
            CallRequest {
                tool: "read".into(),
                input: json!({ "path": p }),
            },
        )
    }));
    check_format(
        "pi",
        pi,
        |rng| {
            let n = rng.below(5) + 1;
            json!({ "permission": {
                "bash": pick_map(rng, WILDCARDS, n),
                "read": pick_map(rng, PATH_GLOBS, 2),
            }})
        },
        |root, config| {
            write(
                &root.join("agent/extensions/pi-permission-system/config.json"),
                &config.to_string(),
            );
            std::fs::create_dir_all(root.join("cwd")).unwrap();
            let mut options = AnalysisOptions::for_profile(pi.profile("20.7.3").unwrap());
            options.home = root.join("home").display().to_string();
            options
                .runtime_args
                .push(("agent-dir".into(), root.join("agent").display().to_string()));
            session_in(&options, root.join("cwd"))
        },
        &calls,
    );
}

#[test]
fn opencode_diff_finds_every_change_brute_force_finds() {
    let oc = formats::by_id("opencode").unwrap();
    let mut calls: Vec<(String, CallRequest)> = commands()
        .into_iter()
        .map(|c| {
            (
                "bash".to_string(),
                CallRequest {
                    tool: "bash".into(),
                    input: json!({ "command": c, "description": "x" }),
                },
            )
        })
        .collect();
    calls.extend(paths().into_iter().map(|p| {
        (
            "read".to_string(),
            CallRequest {
                tool: "read".into(),
                input: json!({ "filePath": p }),
            },
        )
    }));
    check_format(
        "opencode",
        oc,
        |rng| {
            let n = rng.below(5) + 1;
            json!({ "permission": {
                "bash": pick_map(rng, WILDCARDS, n),
                "read": pick_map(rng, PATH_GLOBS, 2),
            }})
        },
        |root, config| {
            let proj = root.join("proj");
            write(&proj.join("opencode.json"), &config.to_string());
            std::fs::create_dir_all(proj.join(".git")).unwrap();
            let mut options = AnalysisOptions::for_profile(oc.default_profile());
            options.home = root.join("home").display().to_string();
            options.runtime_args = vec![(
                "XDG_CONFIG_HOME".into(),
                root.join("home/.config").display().to_string(),
            )];
            session_in(&options, proj)
        },
        &calls,
    );
}

/// The session of a runtime started in `cwd`, with `options`.
fn session_in(options: &AnalysisOptions, cwd: PathBuf) -> Context<'static> {
    resolve(
        options,
        None,
        None,
        &Overrides {
            cwd: Some(cwd),
            ..Default::default()
        },
        None,
    )
}

/// Claude Code settings: each list fewer than `most` rules of `pool`.
fn claude_lists(rng: &mut Rng, pool: &[&str], most: usize) -> Value {
    let mut lists = serde_json::Map::new();
    for list in ["allow", "ask", "deny"] {
        let n = rng.below(most);
        let rules: Vec<&str> = (0..n).map(|_| rng.pick(pool)).collect();
        lists.insert(list.into(), json!(rules));
    }
    json!({ "permissions": lists })
}

/// A trusted project under `root` with `config` as its Claude Code
/// settings.
fn claude_trusted_session(root: &Path, config: &Value) -> Context<'static> {
    let cc = formats::by_id("claude-code").unwrap();
    let proj = root.join("proj");
    let home = root.join("home");
    write(&proj.join(".claude/settings.json"), &config.to_string());
    write(
        &home.join(".claude.json"),
        &json!({"projects": {proj.display().to_string(): {"hasTrustDialogAccepted": true}}})
            .to_string(),
    );
    let mut options = AnalysisOptions::for_profile(cc.default_profile());
    options.home = home.display().to_string();
    session_in(&options, proj)
}

#[test]
fn claude_code_diff_finds_every_change_brute_force_finds() {
    let cc = formats::by_id("claude-code").unwrap();
    let calls: Vec<(String, CallRequest)> = commands()
        .into_iter()
        .map(|c| {
            (
                "Bash".to_string(),
                CallRequest {
                    tool: "Bash".into(),
                    input: json!({ "command": c, "description": "d" }),
                },
            )
        })
        .collect();
    const BASH: &[&str] = &[
        "Bash(git:*)",
        "Bash(git push:*)",
        "Bash(rm:*)",
        "Bash(rm -rf:*)",
        "Bash(npm run test *)",
        "Bash(npm:*)",
        "Bash(git status)",
        "Bash(x*)",
        "Bash(rm -rf build)",
        "Bash(*test)",
        "Bash",
    ];
    check_format(
        "claude",
        cc,
        |rng| claude_lists(rng, BASH, 3),
        claude_trusted_session,
        &calls,
    );
}

/// `run_shell_command` calls of `lines` (Qwen Code's and Gemini CLI's
/// shell tool), on that surface.
fn shell_calls(lines: Vec<String>) -> Vec<(String, CallRequest)> {
    lines
        .into_iter()
        .map(|c| {
            (
                "run_shell_command".to_string(),
                CallRequest {
                    tool: "run_shell_command".into(),
                    input: json!({ "command": c }),
                },
            )
        })
        .collect()
}

/// Qwen Code's shell rules (word prefixes without `*`, ` *` optional, `?`
/// literal; deny > ask > allow), over commands Qwen also decides by itself
/// (read-only commands, options, expansions, paths outside the project):
/// every change brute force finds, `diff` finds.
#[test]
fn qwen_code_diff_finds_every_change_brute_force_finds() {
    let qwen = formats::by_id("qwen").unwrap();
    let mut lines = commands();
    for extra in [
        "ls",
        "ls -la",
        "cat a.txt",
        "cat /etc/passwd",
        "git log",
        "git status --help",
        "ls *",
        "echo ~/x",
        "git push --force",
        "rm -rf /",
        "git status > out",
        "grep -r x .",
        "sed -i s/a/b/ x",
        "git remote add o u",
        "npm test?",
        "git  status",
        "git branch x",
        "rm -rf ~/x",
        "npm run test ../x",
    ] {
        lines.push(extra.to_string());
    }
    let calls = shell_calls(lines);
    // Rules that reach commands Qwen may call read-only (compared there
    // by example: the comparison may say it is incomplete), and rules
    // that do not (compared completely).
    const READ_ONLY_REACHING: &[&str] = &[
        "Bash(git *)",
        "Bash(git push)",
        "Bash(git push *)",
        "Bash(git status)",
        "Bash(* --force)",
        "Bash(*test)",
        "Bash(ls *)",
        "Bash(cat *)",
        "Bash",
        "ShellTool(git * x)",
    ];
    const ELSEWHERE: &[&str] = &[
        "Bash(rm *)",
        "Bash(rm -rf *)",
        "Bash(npm run test *)",
        "Bash(npm:*)",
        "Bash(x*)",
        "Bash(rm -rf build)",
        "run_shell_command(npm test?)",
        "ShellTool(npm * x)",
        "Bash(npm run test ../*)",
    ];
    let session = |root: &Path, config: &Value| {
        let proj = root.join("proj");
        let home = root.join("home");
        write(&proj.join(".qwen/settings.json"), &config.to_string());
        std::fs::create_dir_all(&home).unwrap();
        let mut options = AnalysisOptions::for_profile(qwen.default_profile());
        options.home = home.display().to_string();
        session_in(&options, proj)
    };
    let settings = |rng: &mut Rng, pool: &[&'static str]| {
        let mut lists = serde_json::Map::new();
        for list in ["allow", "ask", "deny"] {
            let n = rng.below(3);
            let rules: Vec<&str> = (0..n).map(|_| rng.pick(pool)).collect();
            lists.insert(list.into(), json!(rules));
        }
        // The default mode (Qwen's own default, `auto`, leaves what no rule
        // decides to an LLM classifier: a comparison there is incomplete by
        // nature).
        json!({ "permissions": lists, "tools": { "approvalMode": "default" } })
    };
    check_format(
        "qwen",
        qwen,
        |rng| settings(rng, ELSEWHERE),
        session,
        &calls,
    );
    let every: Vec<&'static str> = READ_ONLY_REACHING
        .iter()
        .chain(ELSEWHERE)
        .copied()
        .collect();
    check_format_within(
        "qwen-read-only",
        qwen,
        |rng| settings(rng, &every),
        session,
        &calls,
    );
}

/// Gemini CLI's shell rules (a `commandPrefix` or every command, the
/// highest priority first): every change brute force finds, `diff` finds
/// where it says it compared completely; commands Gemini judges by their
/// arguments (known safe, dangerous, `git`, redirections) are compared by
/// example.
#[test]
fn gemini_cli_diff_finds_every_change_brute_force_finds() {
    let gemini = formats::by_id("gemini").unwrap();
    let mut lines = commands();
    for extra in [
        "ls",
        "cat a.txt",
        "git log",
        "rm -rf /",
        "npm test > out",
        "curl x",
        "curl  x",
        "npm run test ../x",
        "make",
        "make install",
    ] {
        lines.push(extra.to_string());
    }
    let calls = shell_calls(lines);
    const PREFIXES: &[&str] = &[
        "npm",
        "npm run",
        "npm run test",
        "x",
        "curl",
        "make",
        "npm test",
    ];
    const SELF_DECIDED: &[&str] = &[
        "git",
        "git push",
        "rm -rf",
        "ls",
        "cat",
        "git status",
        "",
        "rm",
    ];
    let session = |root: &Path, config: &Value| {
        let proj = root.join("proj");
        let home = root.join("home");
        std::fs::create_dir_all(&proj).unwrap();
        let mut toml = String::new();
        for r in config.as_array().unwrap() {
            toml.push_str("[[rule]]\ntoolName = \"run_shell_command\"\n");
            let prefix = r["prefix"].as_str().unwrap();
            if !prefix.is_empty() {
                toml.push_str(&format!("commandPrefix = \"{prefix}\"\n"));
            }
            toml.push_str(&format!(
                "decision = \"{}\"\npriority = {}\n\n",
                r["decision"].as_str().unwrap(),
                r["priority"]
            ));
        }
        write(&home.join(".gemini/policies/a.toml"), &toml);
        let mut options = AnalysisOptions::for_profile(gemini.default_profile());
        options.home = home.display().to_string();
        session_in(&options, proj)
    };
    let rules = |rng: &mut Rng, pool: &[&'static str]| {
        let n = rng.below(5);
        let v: Vec<Value> = (0..n)
            .map(|_| {
                json!({
                    "prefix": rng.pick(pool),
                    "decision": rng.pick(&["allow", "deny", "ask_user"]),
                    "priority": ([10, 100, 500][rng.below(3)]),
                })
            })
            .collect();
        Value::Array(v)
    };
    check_format(
        "gemini",
        gemini,
        |rng| rules(rng, PREFIXES),
        session,
        &calls,
    );
    let every: Vec<&'static str> = PREFIXES.iter().chain(SELF_DECIDED).copied().collect();
    check_format_within(
        "gemini-self-decided",
        gemini,
        |rng| rules(rng, &every),
        session,
        &calls,
    );
}

/// Rules on a skill's or an agent type's name (deny rules decide; ask and
/// allow rules and other tools' contents change nothing): every change
/// brute force finds over skill, agent and search calls, `diff` finds, and
/// such rules are compared, never left out.
#[test]
fn claude_code_diff_compares_skill_and_agent_rules() {
    let cc = formats::by_id("claude-code").unwrap();
    let mut calls: Vec<(String, CallRequest)> = Vec::new();
    for name in ["foo", "fo", "foobar", "bar", "f?o", "/foo", "f*", "for"] {
        calls.push((
            "Skill".into(),
            CallRequest {
                tool: "Skill".into(),
                input: json!({ "skill": name }),
            },
        ));
    }
    for kind in ["Explore", "Plan", "general-purpose", "Exp"] {
        calls.push((
            "Agent".into(),
            CallRequest {
                tool: "Agent".into(),
                input: json!({ "subagent_type": kind, "description": "d", "prompt": "p" }),
            },
        ));
    }
    for q in ["cats", "dogs"] {
        calls.push((
            "WebSearch".into(),
            CallRequest {
                tool: "WebSearch".into(),
                input: json!({ "query": q }),
            },
        ));
    }
    const RULES: &[&str] = &[
        "Skill(foo)",
        "Skill(fo:*)",
        "Skill(foo *)",
        "Skill(skill:f*r)",
        "Skill(f?o)",
        "Skill(/bar)",
        "Skill(*)",
        "Skill",
        "Agent(Explore)",
        "Task(Plan)",
        "Agent(E*)",
        "Agent",
        "WebSearch(cats)",
        "WebSearch",
    ];
    check_format(
        "claude-skills",
        cc,
        |rng| claude_lists(rng, RULES, 4),
        claude_trusted_session,
        &calls,
    );
}

fn cli(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn git(dir: &Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(ok.status.success(), "git {args:?}: {ok:?}");
}

/// A git repository with a pi project config committed as `base`, and a
/// home of its own: (the folder of both, repo, home, config path).
fn pi_repo(tag: &str, base: &str) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    repo_with(tag, ".pi/extensions/pi-permission-system/config.json", base)
}

/// A git repository with `file` committed as `base`, and a home of its
/// own: (the folder of both, repo, home, the file's path).
fn repo_with(tag: &str, file: &str, base: &str) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let root = temp(tag);
    let repo = root.join("repo");
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = repo.join(file);
    write(&config, base);
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "base"]);
    (root, repo, home, config)
}

#[test]
fn the_diff_command_compares_with_git_and_fails_on_new_allows() {
    let (root, repo, home, config) = pi_repo(
        "git",
        "{\n  \"permission\": {\n    \"bash\": {\n      \"*\": \"ask\",\n      \"git *\": \"allow\",\n      \"rm *\": \"deny\"\n    }\n  }\n}\n",
    );
    let home_arg = home.display().to_string();
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "diff",
            "--runtime",
            "pi",
            "--target-version",
            "20.7.3",
            "--home",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.push(home_arg.clone());
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        cli(&repo, &a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let (code, out, err) = run(&[]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("config.json against HEAD: unchanged"), "{out}");
    assert!(out.trim_end().ends_with("0 differences"), "{out}");

    // The edit: one specific allow (after `rm *`, so it wins), `git *` gone.
    write(
        &config,
        "{\n  \"permission\": {\n    \"bash\": {\n      \"*\": \"ask\",\n      \"rm *\": \"deny\",\n      \"rm -rf build\": \"allow\"\n    }\n  }\n}\n",
    );
    let (code, out, _) = run(&[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("newly allowed: bash `rm -rf build` by `bash` `rm -rf build` (config.json:6); was deny by `bash` `rm *` (config.json:6 at HEAD)"),
        "{out}"
    );
    assert!(out.contains("newly asked: bash `git` "), "{out}");
    let (code, out, _) = run(&["--format", "json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["newly_allowed"], 1);
    assert!(v["newly_asked"].as_u64().unwrap() >= 1);
    assert_eq!(v["files"][0]["status"], "changed");
    let allowed: Vec<&Value> = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["after"] == "allow")
        .collect();
    assert_eq!(allowed[0]["input"]["command"], "rm -rf build");
    assert_eq!(allowed[0]["after_rule"]["pattern"], "rm -rf build");

    // In a pull request: each difference on the line of the rule that now
    // decides it (GitHub annotations, SARIF), the exit status the same.
    let (code, out, _) = run(&["--format", "github"]);
    assert_eq!(code, 1);
    assert!(
        out.lines().any(|l| l.starts_with(
            "::error file=.pi/extensions/pi-permission-system/config.json,line=6,title=permission-lsp diff%3A newly allowed::newly allowed: bash `rm -rf build`"
        )),
        "{out}"
    );
    let (code, out, _) = run(&["--format", "sarif"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let results = v["runs"][0]["results"].as_array().unwrap();
    let r = results
        .iter()
        .find(|r| r["ruleId"] == "diff/newly-allowed")
        .expect("a newly allowed result");
    assert_eq!(r["level"], "error");
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(
        loc["artifactLocation"]["uri"],
        ".pi/extensions/pi-permission-system/config.json"
    );
    assert_eq!(loc["region"]["startLine"], 6);

    // Against a file instead of git: the same file is no difference.
    let copy = root.join("copy.json");
    std::fs::copy(&config, &copy).unwrap();
    let config_arg = config.display().to_string();
    let copy_arg = copy.display().to_string();
    let (code, out, _) = run(&[&config_arg, "--base", &copy_arg]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("unchanged"), "{out}");

    // A revision that does not exist: a usage error.
    let (code, _, err) = run(&["--base", "no-such-revision"]);
    assert_eq!(code, 2);
    assert!(err.contains("no-such-revision"), "{err}");

    // A file git does not have at the base is compared as one without rules.
    git(&repo, &["rm", "-q", "--cached", &config_arg]);
    git(&repo, &["commit", "-qm", "drop"]);
    let (code, out, _) = run(&[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("against HEAD: new"), "{out}");
    let _ = std::fs::remove_dir_all(&root);
}

/// A trusted Claude Code project under `root` whose settings file reads
/// as `open` says (the other side of a comparison reads the same path).
fn claude_session<'a>(root: &Path, open: &'a dyn Fn(&Path) -> Option<String>) -> Context<'a> {
    let cc = formats::by_id("claude-code").unwrap();
    let proj = root.join("proj");
    let home = root.join("home");
    write(&proj.join(".claude/settings.json"), "{}");
    write(
        &home.join(".claude.json"),
        &json!({"projects": {proj.display().to_string(): {"hasTrustDialogAccepted": true}}})
            .to_string(),
    );
    let mut options = AnalysisOptions::for_profile(cc.default_profile());
    options.home = home.display().to_string();
    resolve(
        &options,
        None,
        None,
        &Overrides {
            cwd: Some(proj),
            ..Default::default()
        },
        Some(open),
    )
}

/// Every real Claude Code settings file of the corpus
/// (`tests/fixtures/claude/corpus/`, copied from the project's public
/// corpus) with seeded edits: a new deny is found with an example both
/// simulators confirm, dropping an allow reports only confirmed changes,
/// reordering a list reports nothing — and no comparison is incomplete
/// (`compare` checks every example and completeness).
#[test]
fn every_corpus_settings_file_compares_completely_under_seeded_edits() {
    let cc = formats::by_id("claude-code").unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut compared = 0;
    for (n, path) in files.iter().enumerate() {
        let text = std::fs::read_to_string(path).unwrap();
        // Files Claude Code drops (comments, not an object) have no rules
        // to compare.
        let Ok(Value::Object(mut config)) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let Some(Value::Object(perms)) = config.get_mut("permissions") else {
            continue;
        };
        let lists: Vec<String> = ["allow", "ask", "deny"]
            .iter()
            .filter(|l| perms.get(**l).is_some_and(Value::is_array))
            .map(|l| l.to_string())
            .collect();
        if lists.is_empty() {
            continue;
        }
        let base = Value::Object(config.clone());
        let edited = |f: &dyn Fn(&mut serde_json::Map<String, Value>)| {
            let mut c = base.clone();
            f(c["permissions"].as_object_mut().unwrap());
            c.to_string()
        };
        let with_deny = edited(&|p| {
            let deny = p.entry("deny").or_insert_with(|| json!([]));
            if let Some(a) = deny.as_array_mut() {
                a.push(json!("Bash(seeded-probe:*)"));
            }
        });
        let dropped = edited(&|p| {
            if let Some(a) = p.get_mut("allow").and_then(Value::as_array_mut)
                && let Some(i) = a
                    .iter()
                    .position(|r| r.as_str().is_some_and(|s| s.starts_with("Bash(")))
            {
                a.remove(i);
            }
        });
        let reordered = edited(&|p| {
            for l in ["allow", "ask", "deny"] {
                if let Some(a) = p.get_mut(l).and_then(Value::as_array_mut) {
                    a.reverse();
                }
            }
        });
        let root = temp(&format!("corpus-{n}"));
        let settings = root.join("proj/.claude/settings.json");
        let base_text = base.to_string();
        let open_b = |p: &Path| (p == settings).then(|| base_text.clone());
        let before = claude_session(&root, &open_b);
        for (tag, after_text) in [
            ("deny", with_deny),
            ("drop", dropped),
            ("reorder", reordered),
        ] {
            let open_a = |p: &Path| (p == settings).then(|| after_text.clone());
            let after = claude_session(&root, &open_a);
            let (_, found, incomplete) = compare(cc, &before, &after, &[]);
            assert!(incomplete.is_empty(), "{}: {incomplete:?}", path.display());
            match tag {
                "deny" => assert!(
                    found.iter().any(|(s, _, a)| s == "Bash" && a == "deny"),
                    "{}: the new deny is not found: {found:?}",
                    path.display()
                ),
                "reorder" => assert!(
                    found.is_empty(),
                    "{}: reordering changed {found:?}",
                    path.display()
                ),
                _ => {}
            }
        }
        let _ = std::fs::remove_dir_all(&root);
        compared += 1;
    }
    assert!(compared >= 40, "only {compared} corpus files compared");
}

/// OpenCode: without `--agent`, every agent's list is compared on its own,
/// so an allow added in one agent's file is found and names that agent; a
/// top-level change names every agent it reaches; `--agent` narrows.
#[test]
fn opencode_diff_compares_every_agent() {
    let root = temp("oc-agents");
    let repo = root.join("repo");
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    write(
        &repo.join("opencode.json"),
        r#"{ "permission": { "bash": { "*": "ask", "rm *": "deny" } } }"#,
    );
    let agent = repo.join(".opencode/agents/deployer.md");
    write(
        &agent,
        "---\ndescription: Deploys\npermission:\n  bash:\n    \"kubectl *\": ask\n---\nDeploy.\n",
    );
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "base"]);
    write(
        &agent,
        "---\ndescription: Deploys\npermission:\n  bash:\n    \"kubectl *\": allow\n---\nDeploy.\n",
    );
    let home_arg = home.display().to_string();
    let env = format!("XDG_CONFIG_HOME={}/.config", home.display());
    let base = [
        "diff",
        "--runtime",
        "opencode",
        "--home",
        &home_arg,
        "--runtime-env",
        &env,
    ];
    let (code, out, err) = cli(&repo, &base);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("newly allowed: bash `kubectl`") && out.contains("[agent deployer]"),
        "{out}"
    );
    // Only the deployer's list changed.
    assert_eq!(
        out.lines()
            .filter(|l| l.starts_with("newly allowed:"))
            .count(),
        1,
        "{out}"
    );
    let mut narrowed = base.to_vec();
    narrowed.extend(["--agent", "build"]);
    let (code, out, _) = cli(&repo, &narrowed);
    assert_eq!(code, 0, "{out}");
    // A top-level change reaches every agent: one difference naming them.
    write(
        &repo.join("opencode.json"),
        r#"{ "permission": { "bash": { "*": "ask", "rm *": "allow" } } }"#,
    );
    let (code, out, _) = cli(&repo, &[&base[..], &["--format", "json"]].concat());
    assert_eq!(code, 1, "{out}");
    let v: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    let rm: Vec<&Value> = v["differences"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| {
            d["input"]["command"]
                .as_str()
                .is_some_and(|c| c.starts_with("rm"))
        })
        .collect();
    assert!(!rm.is_empty(), "{out}");
    let agents = rm[0]["agents"].as_array().unwrap();
    assert!(
        agents.iter().any(|a| a == "build") && agents.iter().any(|a| a == "deployer"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// pi: without `--agent`, the session without an agent and every agent
/// file's agent are compared on their own; an allow added in one agent
/// file names that agent only.
#[test]
fn pi_diff_compares_every_agent_file() {
    let root = temp("pi-agents");
    let repo = root.join("repo");
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    write(
        &repo.join(".pi/extensions/pi-permission-system/config.json"),
        r#"{ "permission": { "bash": { "*": "ask", "rm *": "deny" } } }"#,
    );
    let agent = repo.join(".pi/agents/reviewer.md");
    write(
        &agent,
        "---\ndescription: Reviews\npermission:\n  bash:\n    \"git diff *\": ask\n---\nReview.\n",
    );
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "base"]);
    write(
        &agent,
        "---\ndescription: Reviews\npermission:\n  bash:\n    \"git diff *\": allow\n---\nReview.\n",
    );
    let home_arg = home.display().to_string();
    let args = [
        "diff",
        "--runtime",
        "pi",
        "--target-version",
        "20.7.3",
        "--home",
        &home_arg,
    ];
    let (code, out, err) = cli(&repo, &args);
    assert_eq!(code, 1, "{out}{err}");
    let allowed: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("newly allowed:"))
        .collect();
    assert_eq!(allowed.len(), 1, "{out}");
    assert!(
        allowed[0].contains("git diff") && allowed[0].ends_with("[agent reviewer]"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

/// The editor's diff of an edited, unsaved buffer: the buffer is the
/// config now, so the file is "changed" (it said "unchanged", the text on
/// disk being HEAD's) and the difference shows.
#[test]
fn an_unsaved_buffer_is_compared_not_the_file_on_disk() {
    let root = temp("buffer");
    let repo = root.join("repo");
    let home = root.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let config = repo.join(".pi/extensions/pi-permission-system/config.json");
    let saved = "{\n  \"permission\": {\n    \"bash\": {\n      \"*\": \"ask\",\n      \"rm *\": \"deny\"\n    }\n  }\n}\n";
    write(&config, saved);
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "base"]);
    let edited = saved.replace("\"rm *\": \"deny\"", "\"rm *\": \"allow\"");
    let doc = config.clone();
    let open = move |p: &Path| (p == doc).then(|| edited.clone());
    let options = AnalysisOptions {
        home: home.display().to_string(),
        ..AnalysisOptions::default()
    };
    let ctx = resolve(
        &options,
        Some(&repo),
        Some(&config),
        &Overrides::default(),
        Some(&open),
    );
    let pi = formats::by_id("pi").unwrap();
    let c = permission_lsp::analysis::compare::compare(
        pi,
        &ctx,
        Some(&config),
        &permission_lsp::analysis::compare::Base::Rev("HEAD".into()),
    )
    .unwrap();
    assert_eq!(c.files[0].status, "changed", "{:?}", c.files);
    assert!(c.report.newly_allowed >= 1, "{:?}", c.report);
    let _ = std::fs::remove_dir_all(&root);
}

/// A rule whose command the bash reader refuses (a pipeline of 300 commands
/// with a syntax error after it) cannot be compared exactly: the surface is
/// named incomplete and the gate does not pass.
#[test]
fn a_probe_decided_incompletely_makes_the_diff_incomplete() {
    let (root, repo, home, config) = pi_repo(
        "incomplete",
        "{\"permission\": {\"bash\": {\"*\": \"ask\", \"git *\": \"allow\"}}}\n",
    );
    let long = format!("{}a )", "a|".repeat(300));
    write(
        &config,
        &format!(
            "{{\"permission\": {{\"bash\": {{\"*\": \"ask\", \"git *\": \"allow\", \"{long}\": \"deny\"}}}}}}\n"
        ),
    );
    let home_arg = home.display().to_string();
    let (code, out, err) = cli(
        &repo,
        &[
            "diff",
            "--runtime",
            "pi",
            "--target-version",
            "20.7.3",
            "--home",
            &home_arg,
            "--format",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    let incomplete = v["incomplete"].as_array().expect("incomplete listed");
    assert!(incomplete.iter().any(|s| s == "bash"), "{out}");
    assert_ne!(code, 0, "an incomplete comparison never passes: {out}");
    let _ = std::fs::remove_dir_all(&root);
}

/// A rule `diff` cannot write as a pattern (a Qwen Code file rule, a
/// Gemini CLI regular expression): a changed one is named incomplete, never
/// "0 differences" and a pass.
#[test]
fn a_changed_rule_diff_cannot_read_makes_the_diff_incomplete() {
    let (root, repo, home, settings) = repo_with(
        "qwen-uncompared",
        ".qwen/settings.json",
        "{\"permissions\": {\"allow\": [\"Bash(git status)\"]}, \"tools\": {\"approvalMode\": \"default\"}}\n",
    );
    let home_arg = home.display().to_string();
    let run = || {
        cli(
            &repo,
            &[
                "diff",
                "--runtime",
                "qwen",
                "--home",
                &home_arg,
                "--format",
                "json",
            ],
        )
    };
    // Unchanged: complete.
    let (code, out, _) = run();
    assert_eq!(code, 0, "{out}");
    write(
        &settings,
        "{\"permissions\": {\"allow\": [\"Bash(git status)\"], \"deny\": [\"Read(.env)\"]}, \"tools\": {\"approvalMode\": \"default\"}}\n",
    );
    let (code, out, err) = run();
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    assert!(
        v["incomplete"].as_array().is_some_and(|l| !l.is_empty()),
        "{out}"
    );
    // It says which rule.
    assert!(
        v["incomplete_reasons"]
            .as_array()
            .is_some_and(|l| l.iter().any(|r| r["reason"]
                .as_str()
                .is_some_and(|r| r.contains("`Read(.env)`")))),
        "{out}"
    );
    assert_eq!(code, 3, "{out}");
    let _ = std::fs::remove_dir_all(&root);
}

/// Qwen Code's default `auto` mode sets broad allow rules aside (its
/// classifier decides their calls): adding one is not "0 differences and a
/// pass" but incomplete, saying why.
#[test]
fn a_rule_the_auto_mode_sets_aside_makes_the_diff_incomplete() {
    let (root, repo, home, settings) = repo_with(
        "qwen-auto",
        ".qwen/settings.json",
        "{\"permissions\": {\"allow\": [\"Bash(npm test)\"]}}\n",
    );
    write(
        &settings,
        "{\"permissions\": {\"allow\": [\"Bash(npm test)\", \"Bash(npm *)\"]}}\n",
    );
    let home_arg = home.display().to_string();
    let (code, out, err) = cli(
        &repo,
        &[
            "diff",
            "--runtime",
            "qwen",
            "--home",
            &home_arg,
            "--format",
            "json",
        ],
    );
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    assert_eq!(code, 3, "{out}");
    assert!(
        v["incomplete_reasons"]
            .as_array()
            .is_some_and(|l| l.iter().any(|r| r["reason"]
                .as_str()
                .is_some_and(|r| r.contains("classifier")))),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&root);
}
