//! Linear time, per reader: for every file a format reads (JSON, JSONC,
//! YAML frontmatter, Starlark, TOML), every command line a simulator
//! parses and every log history replays, growing the input four times
//! grows the work about four times, never sixteen (a quadratic path).
//!
//! This is a property, not a benchmark: no absolute time is asserted.
//! Each shape is first grown until one run costs a few tens of
//! milliseconds in the build at hand, then timed at that size and at four
//! times it (the least of three runs, on the thread's own CPU clock, so
//! other tests running beside it do not count). `t(4n) / t(n)` must stay
//! under 10: linear and n log n work give about 4–5, quadratic work 16.
//! The figures are printed (`cargo test --test shared scaling -- --nocapture`).

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::contract::CallRequest;
use permission_lsp::formats::{self, Format, Role};
use permission_lsp::history::replay::{Change, Replayer};
use std::path::Path;
use std::time::Duration;

/// CPU time of the calling thread (other tests' threads do not count).
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0);
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// CPU time of the whole process (for work that uses a thread of its own).
fn process_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0);
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[derive(Clone, Copy)]
enum Clock {
    Thread,
    /// Wall time: for work that runs on threads of its own.
    Wall,
}

fn least_of_three(clock: Clock, run: &dyn Fn()) -> Duration {
    (0..3)
        .map(|_| match clock {
            Clock::Thread => {
                let t = thread_cpu();
                run();
                thread_cpu() - t
            }
            Clock::Wall => {
                let t = std::time::Instant::now();
                let _ = process_cpu();
                run();
                t.elapsed()
            }
        })
        .min()
        .unwrap()
}

/// One run over an input.
type Run = Box<dyn Fn(&[u8])>;

struct Shape {
    name: String,
    /// A known, open exception (measured and printed, not asserted).
    known: Option<&'static str>,
    clock: Clock,
    /// The input of size `n` (rules, nesting levels, commands, records).
    make: Box<dyn Fn(usize) -> Vec<u8>>,
    run: Run,
}

/// Grows `n` until one run takes at least `floor`, then compares `n` with
/// `4n`. Returns (n, bytes at n, t(n), t(4n)).
/// The least time one run is grown to (shorter runs are noise).
const FLOOR: Duration = Duration::from_millis(25);

fn measure(shape: &Shape, start: usize) -> (usize, usize, Duration, Duration) {
    let floor = FLOOR;
    let mut n = start;
    loop {
        let input = (shape.make)(n);
        let t = least_of_three(shape.clock, &|| (shape.run)(&input));
        if t >= floor || input.len() > 4 * 1024 * 1024 {
            let big = (shape.make)(4 * n);
            let t4 = least_of_three(shape.clock, &|| (shape.run)(&big));
            return (n, input.len(), t, t4);
        }
        // Jump close to the floor instead of doubling from far below it.
        let factor = (floor.as_secs_f64() / t.as_secs_f64().max(1e-5)).clamp(2.0, 16.0);
        n = (n as f64 * factor) as usize;
    }
}

fn options() -> AnalysisOptions {
    AnalysisOptions {
        home: HOME.into(),
        ..AnalysisOptions::default()
    }
}

fn format(id: &str) -> &'static dyn Format {
    formats::by_id(id).unwrap_or_else(|| panic!("no format {id}"))
}

const ROOT: &str = "/nonexistent-permission-lsp-scaling/project";
const HOME: &str = "/nonexistent-permission-lsp-scaling/home";

/// A file of `id` in `role`, read twice with every lint: alone, and where
/// its runtime reads it (`place`, under the project, or under the home
/// for a path starting with `~/`), with every scope — from an open buffer,
/// nothing read from disk.
fn reader(
    id: &'static str,
    role: Role,
    name: &str,
    place: &'static str,
    make: impl Fn(usize) -> String + 'static,
) -> Shape {
    Shape {
        name: format!("{id} {name}"),
        known: None,
        clock: Clock::Thread,
        make: Box::new(move |n| make(n).into_bytes()),
        run: Box::new(move |bytes| {
            let f = format(id);
            let options = options();
            let (_, a) = f.analyse_file(role, bytes.to_vec(), &options, None);
            std::hint::black_box(a);
            let doc = match place.strip_prefix("~/") {
                Some(rest) => Path::new(HOME).join(rest),
                None => Path::new(ROOT).join(place),
            };
            let text = String::from_utf8_lossy(bytes).into_owned();
            let open = |p: &Path| (p == doc).then(|| text.clone());
            let ctx = permission_lsp::workspace::resolve(
                &options,
                Some(Path::new(ROOT)),
                Some(&doc),
                &Default::default(),
                Some(&open),
            );
            let (_, a) = f.analyse_file(role, bytes.to_vec(), &options, Some(&ctx));
            std::hint::black_box(a);
        }),
    }
}

/// A shell command line of `n` parts, decided by `id`'s simulator under
/// its defaults (no config on disk).
fn simulated(id: &'static str, name: &str, make: impl Fn(usize) -> String + 'static) -> Shape {
    Shape {
        name: format!("{id} simulate {name}"),
        known: None,
        clock: Clock::Thread,
        make: Box::new(move |n| make(n).into_bytes()),
        run: Box::new(move |bytes| {
            let options = options();
            let root = Path::new(ROOT);
            let ctx = permission_lsp::workspace::resolve(
                &options,
                Some(root),
                None,
                &Default::default(),
                None,
            );
            let f = format(id);
            let sim = f.simulator(&ctx).expect("a simulator under defaults");
            let call = CallRequest {
                tool: f.shell_tool().into(),
                input: serde_json::json!({ "command": String::from_utf8_lossy(bytes) }),
            };
            std::hint::black_box(sim.simulate(&call));
        }),
    }
}

/// Claude Code or Qwen Code settings: `n` allow rules of one program and
/// `n / 4` deny rules.
fn one_program_settings(n: usize) -> String {
    format!(
        "{{\"permissions\": {{\"allow\": [{}], \"deny\": [{}]}}}}",
        json_list(n, |i| format!("\"Bash(git sub{i} *)\"")),
        json_list(n / 4, |i| format!("\"Bash(git sub{i} --force)\""))
    )
}

fn json_list(n: usize, item: impl Fn(usize) -> String) -> String {
    (0..n).map(item).collect::<Vec<_>>().join(", ")
}

/// An agent frontmatter's `bash` map entries (`"cmdN *": allow|deny`),
/// one line each.
fn yaml_bash_rules(n: usize) -> String {
    (0..n)
        .map(|i| format!("    \"cmd{i} *\": {}\n", ["allow", "deny"][i % 2]))
        .collect()
}

fn shapes() -> Vec<Shape> {
    let mut out = vec![
        // Rule lists, one per reader.
        reader(
            "pi",
            Role::Config,
            "config.json rules",
            ".pi/extensions/pi-permission-system/config.json",
            |n| {
                format!(
                    "{{\"permission\": {{\"*\": \"ask\", \"bash\": {{{}, \"*\": \"ask\"}}}}}}",
                    json_list(n, |i| format!(
                        "\"cmd{i} sub *\": \"{}\"",
                        ["allow", "deny"][i % 2]
                    ))
                )
            },
        ),
        reader(
            "pi",
            Role::Agent,
            "agent frontmatter rules",
            ".pi/agents/big.md",
            |n| {
                format!(
                    "---\nname: big\npermission:\n  bash:\n    \"*\": ask\n{}---\nBody.\n",
                    yaml_bash_rules(n)
                )
            },
        ),
        reader(
            "pi",
            Role::Config,
            "config.json pattern: pipeline ending in an error",
            ".pi/extensions/pi-permission-system/config.json",
            |n| {
                format!(
                    "{{\"permission\": {{\"bash\": {{\"{}a )\": \"deny\", \"*\": \"ask\"}}}}}}",
                    "a|".repeat(n)
                )
            },
        ),
        reader(
            "pi",
            Role::Config,
            "config.json patterns: pipelines of 64 with an error",
            ".pi/extensions/pi-permission-system/config.json",
            |n| {
                format!(
                    "{{\"permission\": {{\"bash\": {{{}, \"*\": \"ask\"}}}}}}",
                    json_list(n, |i| format!("\"{}x{i} )\": \"deny\"", "a|".repeat(64)))
                )
            },
        ),
        reader(
            "claude-code",
            Role::Config,
            "settings rules",
            ".claude/settings.json",
            |n| {
                format!(
                    "{{\"permissions\": {{\"allow\": [{}], \"deny\": [{}], \"ask\": [\"Bash\"]}}}}",
                    json_list(n, |i| format!("\"Bash(cmd{i} sub:*)\"")),
                    json_list(n / 4, |i| format!("\"Read(./dir{i}/**)\""))
                )
            },
        ),
        reader(
            "opencode",
            Role::Config,
            "opencode.json rules",
            "opencode.json",
            |n| {
                format!(
                    "{{\"permission\": {{\"bash\": {{{}, \"*\": \"ask\"}}}}}}",
                    json_list(n, |i| format!(
                        "\"cmd{i} *\": \"{}\"",
                        ["allow", "deny"][i % 2]
                    ))
                )
            },
        ),
        // Many permission keys (each a tool of its own), every third a
        // `*` deny that hides its tool, maps without a `*` among them.
        reader(
            "opencode",
            Role::Config,
            "opencode.json permission keys",
            "opencode.json",
            |n| {
                format!(
                    "{{\"permission\": {{{}}}}}",
                    json_list(n, |i| match i % 3 {
                        0 => format!("\"tool{i}\": \"deny\""),
                        1 => format!("\"tool{i}\": {{\"x *\": \"allow\"}}"),
                        _ => format!("\"tool{i}\": \"allow\""),
                    })
                )
            },
        ),
        // Wildcard permission names (`t12*`, `*t12`, `*t12*`) beside literal
        // ones with maps: each wildcard's group and each name's rules are
        // found by prefix, suffix or a literal they require (tried against
        // every rule, 8,000 took 80 s).
        reader(
            "opencode",
            Role::Config,
            "opencode.json wildcard permissions",
            "opencode.json",
            |n| {
                format!(
                    "{{\"permission\": {{{}}}}}",
                    json_list(n, |i| match i % 4 {
                        0 => format!("\"t{i}*\": \"deny\""),
                        1 => format!("\"*t{i}\": \"ask\""),
                        2 => format!("\"*t{i}*\": \"deny\""),
                        _ => format!("\"x{i}t{i}\": {{\"a *\": \"allow\", \"*\": \"ask\"}}"),
                    })
                )
            },
        ),
        reader(
            "opencode",
            Role::Agent,
            "agent frontmatter rules",
            ".opencode/agents/big.md",
            |n| {
                format!(
                    "---\ndescription: big\npermission:\n  bash:\n{}    \"*\": ask\n---\nBody.\n",
                    yaml_bash_rules(n)
                )
            },
        ),
        reader(
            "codex",
            Role::Rules,
            "rules file prefix_rules",
            ".codex/rules/big.rules",
            |n| {
                (0..n)
                .map(|i| {
                    format!(
                        "prefix_rule(pattern = [\"cmd{i}\", [\"a\", \"b\"]], decision = \"{}\", match = [\"cmd{i} a x\"])\n",
                        ["allow", "prompt", "forbidden"][i % 3]
                    )
                })
                .collect()
            },
        ),
        reader(
            "codex",
            Role::Rules,
            "rules of one program",
            ".codex/rules/big.rules",
            |n| {
                (0..n)
                    .map(|i| {
                        format!(
                            "prefix_rule(pattern = [\"git\", \"sub{i}\"], decision = \"{}\")\n",
                            ["allow", "prompt", "forbidden"][i % 3]
                        )
                    })
                    .collect()
            },
        ),
        reader(
            "claude-code",
            Role::Config,
            "rules of one program",
            ".claude/settings.json",
            one_program_settings,
        ),
        reader(
            "qwen",
            Role::Config,
            "rules of one program",
            ".qwen/settings.json",
            one_program_settings,
        ),
        reader(
            "opencode",
            Role::Config,
            "rules of one program",
            "opencode.json",
            |n| {
                format!(
                    "{{\"permission\": {{\"bash\": {{{}, \"*\": \"ask\"}}}}}}",
                    json_list(n, |i| format!(
                        "\"git sub{i} *\": \"{}\"",
                        ["allow", "deny"][i % 2]
                    ))
                )
            },
        ),
        reader(
            "codex",
            Role::Config,
            "config.toml projects",
            ".codex/config.toml",
            |n| {
                let mut s = String::from(
                    "approval_policy = \"on-request\"\nsandbox_mode = \"workspace-write\"\n",
                );
                for i in 0..n {
                    s.push_str(&format!(
                        "[projects.\"/srv/repos/p{i}\"]\ntrust_level = \"trusted\"\n"
                    ));
                }
                s
            },
        ),
        reader(
            "gemini",
            Role::Config,
            "policy TOML rules",
            "~/.gemini/policies/big.toml",
            |n| {
                (0..n)
                .map(|i| {
                    format!(
                        "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"cmd{i}\"\ndecision = \"{}\"\npriority = {}\n",
                        ["allow", "deny", "ask_user"][i % 3],
                        100 + i % 800
                    )
                })
                .collect()
            },
        ),
        reader(
            "gemini",
            Role::Config,
            "policy TOML deny rules",
            "~/.gemini/policies/big.toml",
            |n| {
                (0..n)
                .map(|i| {
                    format!(
                        "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"cmd{i}\"\ndecision = \"deny\"\npriority = 500\n"
                    )
                })
                .collect()
            },
        ),
        reader(
            "gemini",
            Role::Config,
            "settings tools",
            ".gemini/settings.json",
            |n| {
                format!(
                    "{{\"tools\": {{\"allowed\": [{}], \"exclude\": [{}]}}}}",
                    json_list(n, |i| format!("\"run_shell_command(cmd{i})\"")),
                    json_list(n / 4, |i| format!("\"run_shell_command(bad{i})\""))
                )
            },
        ),
        reader(
            "qwen",
            Role::Config,
            "settings rules",
            ".qwen/settings.json",
            |n| {
                format!(
                    "{{\"permissions\": {{\"allow\": [{}], \"deny\": [{}]}}}}",
                    json_list(n, |i| format!("\"Bash(cmd{i} *)\"")),
                    json_list(n / 4, |i| format!("\"Read(./dir{i}/**)\""))
                )
            },
        ),
        // Nesting: every recursive reader is bounded, and the bound is cheap.
        reader(
            "claude-code",
            Role::Config,
            "JSON nesting",
            ".claude/settings.json",
            |n| format!("{{\"permissions\": {{\"allow\": {}", "[".repeat(n)),
        ),
        reader(
            "opencode",
            Role::Agent,
            "YAML nesting",
            ".opencode/agents/big.md",
            |n| format!("---\npermission: {}\n---\n", "[".repeat(n)),
        ),
        reader(
            "pi",
            Role::Agent,
            "YAML nesting",
            ".pi/agents/big.md",
            |n| format!("---\npermission:\n  bash: {}\n---\n", "{a: ".repeat(n)),
        ),
        reader(
            "codex",
            Role::Rules,
            "Starlark nesting",
            ".codex/rules/big.rules",
            |n| format!("prefix_rule(pattern = {}", "[".repeat(n)),
        ),
        reader(
            "gemini",
            Role::Config,
            "TOML nesting",
            "~/.gemini/policies/big.toml",
            |n| format!("[[rule]]\ntoolName = {}\n", "[".repeat(n)),
        ),
        // Long lines: one minified file, many findings on one line.
        reader(
            "opencode",
            Role::Config,
            "one-line file",
            "opencode.json",
            |n| {
                format!(
                    "{{\"permission\":{{\"bash\":{{\"*\":\"allow\",{}}}}}}}",
                    (0..n)
                        .map(|i| format!("\"cmd{i} *\":\"ask\""))
                        .collect::<Vec<_>>()
                        .join(",")
                )
            },
        ),
        // Command lines.
        simulated("claude-code", "&& chain", |n| vec!["ls"; n].join(" && ")),
        simulated("opencode", "&& chain", |n| vec!["ls"; n].join(" && ")),
        simulated("codex", "&& chain", |n| vec!["ls"; n].join(" && ")),
        simulated("gemini", "&& chain", |n| vec!["ls"; n].join(" && ")),
        simulated("qwen", "&& chain", |n| vec!["ls"; n].join(" && ")),
        simulated("pi", "&& chain", |n| vec!["ls"; n].join(" && ")),
        simulated("claude-code", "nested substitutions", |n| {
            format!("echo {}x{}", "$(echo ".repeat(n), ")".repeat(n))
        }),
        simulated("opencode", "pipes and single quotes", |n| {
            (0..n)
                .map(|i| format!("cat 'f {i}' 'g{i}'"))
                .collect::<Vec<_>>()
                .join(" | ")
        }),
        simulated("opencode", "pipes of double-quoted words", |n| {
            (0..n)
                .map(|i| format!("cat \"g{i}\""))
                .collect::<Vec<_>>()
                .join(" | ")
        }),
        // A long pipeline with a syntax error after it: refused by the
        // bash reader (quadratic in the grammar), never parsed.
        simulated("opencode", "pipeline ending in an error", |n| {
            format!("{}a )", "a|".repeat(n))
        }),
        simulated("codex", "pipeline ending in an error", |n| {
            format!("{}a )", "a|".repeat(n))
        }),
        simulated("gemini", "pipeline ending in an error", |n| {
            format!("{}a \"", "a | ".repeat(n))
        }),
        simulated("qwen", "pipeline ending in an error", |n| {
            format!("a ) {}", "| a".repeat(n))
        }),
        // Operators right after another, each an error: quadratic in the
        // grammar's recovery, refused past 64.
        simulated("opencode", "operators in a row, then an error", |n| {
            format!("a {}b )", "|| ".repeat(n))
        }),
        simulated("gemini", "operators in a row, then an error", |n| {
            format!("a {}b )", "&& ".repeat(n))
        }),
        simulated("pi", "pipeline ending in an error", |n| {
            format!("{}a (", "{ a; } | ".repeat(n))
        }),
        simulated("pi", "pipes of double-quoted words", |n| {
            (0..n)
                .map(|i| format!("cat \"g{i}\""))
                .collect::<Vec<_>>()
                .join(" | ")
        }),
    ];
    // History: the recorded logs of every runtime, repeated.
    let mut records = Vec::new();
    for dir in ["history/claude/recorded", "history/pi/recorded"] {
        let dir = format!("{}/tests/fixtures/{dir}", env!("CARGO_MANIFEST_DIR"));
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        for f in files {
            records.extend(
                std::fs::read_to_string(f)
                    .unwrap()
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string),
            );
        }
    }
    assert!(records.len() > 20, "recorded logs");
    out.push(Shape {
        name: "history replay of recorded logs".into(),
        known: None,
        clock: Clock::Wall,
        make: Box::new(move |n| {
            let mut s = String::new();
            for k in 0..n {
                // Each copy its own calls (ids are deduplicated).
                let r = &records[k % records.len()];
                s.push_str(&r.replace("\"toolu_", &format!("\"toolu_{k}_")));
                s.push('\n');
            }
            s.into_bytes()
        }),
        run: Box::new(|bytes| {
            let options = options();
            let root = Path::new(ROOT);
            let ctx = permission_lsp::workspace::resolve(
                &options,
                Some(root),
                None,
                &Default::default(),
                None,
            );
            let mut replayer = Replayer::new(Box::new(|f: &'static dyn Format, s: &_| {
                permission_lsp::history::replay::policy_for(&ctx, f, s)
            }));
            let mut changes = 0usize;
            replayer.replay("log", &mut &bytes[..], &mut |_: &Change| changes += 1);
            std::hint::black_box(changes);
        }),
    });
    out
}

#[test]
fn every_reader_is_linear() {
    let mut failures = Vec::new();
    println!(
        "{:<44} {:>9} {:>10} {:>10} {:>10} {:>6}",
        "shape", "n", "bytes", "t(n)", "t(4n)", "ratio"
    );
    // SCALING_ONLY=text: only the shapes whose name contains it.
    let only = std::env::var("SCALING_ONLY").unwrap_or_default();
    for shape in shapes().into_iter().filter(|s| s.name.contains(&only)) {
        let (n, bytes, t, t4) = measure(&shape, 64);
        let ratio = t4.as_secs_f64() / t.as_secs_f64().max(1e-6);
        println!(
            "{:<44} {:>9} {:>10} {:>9.1}ms {:>9.1}ms {:>6.1}",
            shape.name,
            n,
            bytes,
            t.as_secs_f64() * 1e3,
            t4.as_secs_f64() * 1e3,
            ratio
        );
        // A shape whose input stopped growing at 4 MiB below the floor
        // costs too little to time: it fails only if four times that input
        // costs more than four floors (copying 16 MiB a few times takes
        // about 15 ms, and twice that while the other tests of this binary
        // run: a quadratic path that cheap at 4 MiB does not exist).
        let capped = t < FLOOR;
        let slow = |t4: Duration| t4 >= if capped { 4 * FLOOR } else { FLOOR };
        if let Some(why) = shape.known {
            println!("  (not asserted: {why})");
            continue;
        }
        if ratio > 10.0 && slow(t4) {
            // Once more, to tell a busy machine from a quadratic path.
            let (n, _, t, t4) = measure(&shape, n);
            let again = t4.as_secs_f64() / t.as_secs_f64().max(1e-6);
            if again > 10.0 && slow(t4) {
                failures.push(format!(
                    "{}: t(4n)/t(n) = {ratio:.1} then {again:.1} at n = {n}",
                    shape.name
                ));
            }
        }
    }
    assert!(failures.is_empty(), "not linear:\n{}", failures.join("\n"));
}
