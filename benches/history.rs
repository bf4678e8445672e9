//! Replay and diff. Replay: synthetic logs of 20,000 records (pi's review
//! log, Claude Code stream-json; `benches/support/synthetic.rs`, the
//! generator of the one-million-record measurement in BENCHMARKS.md)
//! decided again with a project config. Diff: a config against an edit of
//! it, small and with 1,000 rules; and at the size of real configs — the
//! 53- and 591-rule Claude Code corpus files and the 10,000-rule pi config
//! (`gen_big.py 10000`), each against a seeded edit. Run: `cargo bench
//! --bench history`.

use criterion::{Criterion, criterion_group, criterion_main};
use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::analysis::diff::{Side, diff};
use permission_lsp::contract::prelude::*;
use permission_lsp::formats::{self};
use permission_lsp::history::replay::{Change, Replayer};
#[path = "support/synthetic.rs"]
mod synthetic;

use permission_lsp::workspace::{Context, Overrides, resolve};
use std::hint::black_box;
use std::path::Path;
use synthetic::{Kind, write_log};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CONFIG: &str = r#"{ "permission": { "*": "ask",
  "bash": { "*": "ask", "git status*": "allow", "git log *": "allow", "npm run test *": "allow",
            "rm *": "deny", "curl *": "deny", "cargo build *": "allow" },
  "read": { "*": "allow", "*.env": "deny", "secrets/*": "deny" } } }"#;

fn project(root: &Path, config: &str) -> Context<'static> {
    let proj = root.join("proj");
    let file = proj.join(".pi/extensions/pi-permission-system/config.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, config).unwrap();
    let pi = formats::by_id("pi").unwrap();
    let mut options = AnalysisOptions::for_profile(pi.profile("20.7.3").unwrap());
    options.home = root.join("home").display().to_string();
    resolve(
        &options,
        None,
        None,
        &Overrides {
            cwd: Some(proj),
            ..Default::default()
        },
        None,
    )
}

/// A trusted Claude Code project holding `settings`, and its home.
fn claude_project(root: &Path, settings: &str) -> Context<'static> {
    let proj = root.join("proj");
    let home = root.join("home");
    std::fs::create_dir_all(proj.join(".claude")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(proj.join(".claude/settings.json"), settings).unwrap();
    std::fs::write(
        home.join(".claude.json"),
        serde_json::json!({"projects": {proj.display().to_string(): {"hasTrustDialogAccepted": true}}})
            .to_string(),
    )
    .unwrap();
    let claude = formats::by_id("claude").unwrap();
    let mut options = AnalysisOptions::for_profile(claude.default_profile());
    options.home = home.display().to_string();
    resolve(
        &options,
        None,
        None,
        &Overrides {
            cwd: Some(proj),
            ..Default::default()
        },
        None,
    )
}

/// A Claude Code settings file with one allow inserted and one deny added
/// (the seeded edit of BENCHMARKS.md).
fn claude_edit(text: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    let p = v["permissions"].as_object_mut().unwrap();
    p.entry("allow")
        .or_insert_with(|| serde_json::json!([]))
        .as_array_mut()
        .unwrap()
        .insert(0, "Bash(rm:*)".into());
    p.entry("deny")
        .or_insert_with(|| serde_json::json!([]))
        .as_array_mut()
        .unwrap()
        .push("Bash(git push --force:*)".into());
    v.to_string()
}

fn replay(ctx: &Context<'_>, log: &[u8]) -> u64 {
    let mut r = Replayer::new(Box::new(|f: &'static dyn Format, s: &_| {
        permission_lsp::history::replay::policy_for(ctx, f, s)
    }));
    let mut changed = 0u64;
    let mut sink = |_: &Change| changed += 1;
    r.replay("log", &mut &log[..], &mut sink);
    r.summary.calls + changed
}

fn bench(c: &mut Criterion) {
    let root = std::env::temp_dir().join(format!(
        "permission-lsp-bench-history-{}",
        std::process::id()
    ));
    let ctx = project(&root, CONFIG);
    let cwd = ctx.cwd.display().to_string();
    for (name, kind) in [
        ("pi review log", Kind::PiReview),
        ("claude stream-json", Kind::ClaudeStreamJson),
    ] {
        let mut log = Vec::new();
        write_log(kind, 20_000, 7, &cwd, &mut log).unwrap();
        c.bench_function(&format!("replay 20k records: {name}"), |b| {
            b.iter(|| black_box(replay(&ctx, &log)))
        });
    }

    // Diff: the config against an edit of it; then 1,000 rules.
    let pi = formats::by_id("pi").unwrap();
    let edited = CONFIG.replace(r#""rm *": "deny""#, r#""rm *": "allow""#);
    let large = |n: usize, action: &str| {
        let rules: Vec<String> = (0..n)
            .map(|i| format!(r#""tool{} task{i} *": "{action}""#, i % 7))
            .collect();
        format!(
            r#"{{ "permission": {{ "bash": {{ "*": "ask", {} }} }} }}"#,
            rules.join(", ")
        )
    };
    for (name, a, b) in [
        ("small", CONFIG.to_string(), edited),
        ("1,000 rules", large(1000, "allow"), large(1000, "deny")),
    ] {
        let (ra, rb) = (root.join("a"), root.join("b"));
        let (ca, cb) = (project(&ra, &a), project(&rb, &b));
        let (sa, sb) = (pi.simulator(&ca).unwrap(), pi.simulator(&cb).unwrap());
        let (pa, pb) = (
            pi.effective_policy(&ca).unwrap(),
            pi.effective_policy(&cb).unwrap(),
        );
        c.bench_function(&format!("diff: {name}"), |bch| {
            bch.iter(|| {
                black_box(diff(
                    pi,
                    Side {
                        simulator: sa.as_ref(),
                        policy: &pa,
                    },
                    Side {
                        simulator: sb.as_ref(),
                        policy: &pb,
                    },
                    &ca.options.home,
                ))
            })
        });
    }
    // At the size of real configs.
    let fixture =
        |p: &str| std::fs::read_to_string(format!("{}/{p}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let claude = formats::by_id("claude").unwrap();
    for (name, file) in [
        (
            "Claude Code, 53 rules",
            "tests/fixtures/claude/corpus/Opentab1__advapp2__.claude__settings.local.json",
        ),
        (
            "Claude Code, 591 rules",
            "tests/fixtures/claude/corpus/007Byte__Quantum_Shield__.claude__settings.json",
        ),
    ] {
        let text = fixture(file);
        let (ra, rb) = (root.join("ca"), root.join("cb"));
        let (ca, cb) = (
            claude_project(&ra, &text),
            claude_project(&rb, &claude_edit(&text)),
        );
        let (sa, sb) = (
            claude.simulator(&ca).unwrap(),
            claude.simulator(&cb).unwrap(),
        );
        let (pa, pb) = (
            claude.effective_policy(&ca).unwrap(),
            claude.effective_policy(&cb).unwrap(),
        );
        c.bench_function(&format!("diff: {name}"), |bch| {
            bch.iter(|| {
                black_box(diff(
                    claude,
                    Side {
                        simulator: sa.as_ref(),
                        policy: &pa,
                    },
                    Side {
                        simulator: sb.as_ref(),
                        policy: &pb,
                    },
                    &ca.options.home,
                ))
            })
        });
    }
    let big = fixture("benches/data/gen-big-10k.json");
    let mut edited: serde_json::Value = serde_json::from_str(&big).unwrap();
    {
        let bash = edited["permission"]["bash"].as_object_mut().unwrap();
        let first = bash.keys().nth(1).unwrap().clone();
        bash.insert(first, "allow".into());
        bash.insert("seeded-probe *".into(), "deny".into());
    }
    let (ra, rb) = (root.join("pa"), root.join("pb"));
    let (ca, cb) = (project(&ra, &big), project(&rb, &edited.to_string()));
    let (sa, sb) = (pi.simulator(&ca).unwrap(), pi.simulator(&cb).unwrap());
    let (pa, pb) = (
        pi.effective_policy(&ca).unwrap(),
        pi.effective_policy(&cb).unwrap(),
    );
    c.bench_function("diff: pi, 10,000 rules", |bch| {
        bch.iter(|| {
            black_box(diff(
                pi,
                Side {
                    simulator: sa.as_ref(),
                    policy: &pa,
                },
                Side {
                    simulator: sb.as_ref(),
                    policy: &pb,
                },
                &ca.options.home,
            ))
        })
    });
    let _ = std::fs::remove_dir_all(&root);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
