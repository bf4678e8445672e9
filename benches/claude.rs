//! Claude Code settings: checking a file and deciding calls, small (a real
//! project file) and very large (10,000 rules, the size `settings.local.json`
//! reaches after months of "don't ask again"). Run: `cargo bench --bench
//! claude`. The real CLI for comparison: BENCHMARKS.md.

use criterion::{Criterion, criterion_group, criterion_main};
use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::formats::{self, CallRequest, Role};
use permission_lsp::workspace::{Overrides, resolve};
use serde_json::json;
use std::hint::black_box;
use std::path::Path;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A settings file with `n` allow rules of the shapes people accumulate
/// (one-off commands, prefixes, paths) and a few denies.
fn large(n: usize) -> String {
    let tools = [
        "npm run",
        "git",
        "cargo",
        "python3 -m",
        "docker",
        "make",
        "ls",
        "grep -rn",
    ];
    let rules: Vec<String> = (0..n)
        .map(|i| match i % 4 {
            0 => format!("\"Bash({} task{i}:*)\"", tools[i % tools.len()]),
            1 => format!("\"Bash({} build --target t{i})\"", tools[i % tools.len()]),
            2 => format!("\"Read(src/module{i}/**)\""),
            _ => format!("\"WebFetch(domain:host{i}.example.com)\""),
        })
        .collect();
    format!(
        "{{\n  \"permissions\": {{\n    \"allow\": [\n      {}\n    ],\n    \"deny\": [\"Bash(git push:*)\", \"Read(./.env)\", \"Bash(rm -rf:*)\"]\n  }}\n}}\n",
        rules.join(",\n      ")
    )
}

fn small() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/claude/corpus/kkelly-2022__dotfiles__.claude__settings.json"
    ))
    .expect("corpus file")
}

fn bench(c: &mut Criterion) {
    let claude = formats::by_id("claude-code").unwrap();
    let options = AnalysisOptions::for_profile(claude.default_profile());
    let big = large(10_000);
    let small = small();
    for (name, text) in [("small (real file)", &small), ("10,000 rules", &big)] {
        c.bench_function(&format!("claude/check {name}"), |b| {
            b.iter(|| {
                claude.analyse_file(
                    Role::Config,
                    black_box(text.as_bytes().to_vec()),
                    &options,
                    None,
                )
            })
        });
    }
    // Deciding calls: the settings as the user's file (an open buffer,
    // nothing on disk; the user's rules apply in any project, trusted or
    // not), the policy loaded once.
    let project = Path::new("/nonexistent-permission-lsp-bench/proj");
    let doc = Path::new("/nonexistent-permission-lsp-bench/home/.claude/settings.json");
    let calls = [
        (
            "Bash",
            json!({"command": "git status && npm run task7 --watch"}),
        ),
        (
            "Bash",
            json!({"command": "cargo build --target t9999 | grep x"}),
        ),
        ("Bash", json!({"command": "echo $(whoami)"})),
        (
            "Read",
            json!({"file_path": "/nonexistent-permission-lsp-bench/proj/src/module9998/a.rs"}),
        ),
        ("WebFetch", json!({"url": "https://host9999.example.com/x"})),
    ];
    for (name, text) in [("small (real file)", &small), ("10,000 rules", &big)] {
        let open = |p: &Path| (p == doc).then(|| text.to_string());
        let doc = doc.to_path_buf();
        let mut opts = options.clone();
        opts.home = "/nonexistent-permission-lsp-bench/home".into();
        let ctx = resolve(
            &opts,
            Some(project),
            Some(&doc),
            &Overrides {
                cwd: Some(project.to_path_buf()),
                ..Default::default()
            },
            Some(&open),
        );
        let sim = claude.simulator(&ctx).unwrap();
        // The rules are in force: a call one of the last rules allows.
        let probe = sim.simulate(&CallRequest {
            tool: "WebFetch".into(),
            input: json!({"url": "https://host9999.example.com/x"}),
        });
        assert!(
            name.starts_with("small") || probe.decision == "allow",
            "{probe:?}"
        );
        c.bench_function(&format!("claude/simulate 5 calls, {name}"), |b| {
            b.iter(|| {
                for (tool, input) in &calls {
                    black_box(sim.simulate(&CallRequest {
                        tool: tool.to_string(),
                        input: input.clone(),
                    }));
                }
            })
        });
        c.bench_function(&format!("claude/load the policy, {name}"), |b| {
            b.iter(|| claude.simulator(black_box(&ctx)).unwrap())
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
