//! Replay and diff. Replay: synthetic logs of 20,000 records (pi's review
//! log, Claude Code stream-json; `benches/support/synthetic.rs`, the
//! generator of the one-million-record measurement in BENCHMARKS.md)
//! decided again with a project config. Diff: a config against an edit of
//! it, small and with 1,000 rules. Run: `cargo bench --bench history`.

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
    let _ = std::fs::remove_dir_all(&root);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
