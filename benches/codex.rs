//! Codex CLI: reading a rules file (Starlark evaluated) and deciding calls,
//! on the largest real file of the corpus and on a generated file of 2,000
//! rules. Run: `cargo bench --bench codex`. The real CLI for comparison:
//! BENCHMARKS.md.

use criterion::{Criterion, criterion_group, criterion_main};
use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::formats::{self, CallRequest, Role};
use permission_lsp::workspace::{Overrides, resolve};
use serde_json::json;
use std::hint::black_box;
use std::path::Path;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `n` rules over a few programs, every decision, some alternatives.
fn large(n: usize) -> String {
    let programs = [
        "git", "npm", "cargo", "docker", "kubectl", "gh", "make", "python3",
    ];
    let decisions = ["allow", "prompt", "forbidden"];
    let mut out = String::from("# generated\n");
    for i in 0..n {
        let p = programs[i % programs.len()];
        let d = decisions[i % 3];
        if i % 5 == 0 {
            out.push_str(&format!(
                "prefix_rule(pattern=[\"{p}\", [\"task{i}\", \"alias{i}\"]], decision=\"{d}\")\n"
            ));
        } else {
            out.push_str(&format!(
                "prefix_rule(pattern=[\"{p}\", \"task{i}\", \"--flag\"], decision=\"{d}\", match=[\"{p} task{i} --flag x\"])\n"
            ));
        }
    }
    out
}

fn small() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/codex/corpus/riii111__dotfiles__dot_codex__rules__default.rules"
    ))
    .expect("corpus file")
}

fn bench(c: &mut Criterion) {
    let cx = formats::by_id("codex").unwrap();
    let big = large(2_000);
    let small = small();
    for (name, text) in [("largest corpus file", &small), ("2,000 rules", &big)] {
        // The session's files on disk: the rules file in `$CODEX_HOME/rules`.
        let dir = std::env::temp_dir().join(format!(
            "permission-lsp-bench-codex-{}-{}",
            std::process::id(),
            text.len()
        ));
        let home = dir.join("home");
        let project = dir.join("proj");
        let doc = home.join(".codex/rules/default.rules");
        std::fs::create_dir_all(doc.parent().unwrap()).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(&doc, text).unwrap();
        let mut options = AnalysisOptions::for_profile(cx.default_profile());
        options.home = home.display().to_string();
        options.runtime_args.push((
            "CODEX_HOME".into(),
            home.join(".codex").display().to_string(),
        ));
        let project = project.as_path();
        let doc = doc.as_path();
        c.bench_function(&format!("codex/check {name}"), |b| {
            b.iter(|| {
                cx.analyse_file(
                    Role::Rules,
                    black_box(text.as_bytes().to_vec()),
                    &options,
                    None,
                )
            })
        });
        let open = |p: &Path| (p == doc).then(|| text.to_string());
        let ctx = resolve(
            &options,
            Some(project),
            Some(doc),
            &Overrides {
                cwd: Some(project.to_path_buf()),
                ..Default::default()
            },
            Some(&open),
        );
        let sim = cx.simulator(&ctx).unwrap();
        let calls = [
            "git status && git push origin main",
            "npm run build > /dev/null",
            "gh pr create --fill",
            "/usr/bin/git log -1",
            "rm -rf build",
        ];
        c.bench_function(&format!("codex/simulate 5 calls, {name}"), |b| {
            b.iter(|| {
                for line in &calls {
                    black_box(sim.simulate(&CallRequest {
                        tool: "shell".into(),
                        input: json!({ "command": line }),
                    }));
                }
            })
        });
        c.bench_function(&format!("codex/load the session, {name}"), |b| {
            b.iter(|| cx.simulator(black_box(&ctx)).unwrap())
        });
        let _ = std::fs::remove_dir_all(&dir);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
