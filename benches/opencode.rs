//! OpenCode: checking a config and deciding calls, small (a real project
//! file from the corpus) and very large (10,000 rules). Run: `cargo bench
//! --bench opencode`. The real CLI for comparison: BENCHMARKS.md.

use criterion::{Criterion, criterion_group, criterion_main};
use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::formats::{self, CallRequest, Role};
use permission_lsp::workspace::{Overrides, resolve};
use serde_json::json;
use std::hint::black_box;
use std::path::Path;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A config with `n` rules over bash, read, edit and external_directory,
/// the catch-alls first.
fn large(n: usize) -> String {
    let tools = [
        "npm run",
        "git",
        "cargo",
        "docker",
        "make",
        "ls",
        "grep -rn",
        "python3 -m",
    ];
    let mut bash = vec!["\"*\": \"ask\"".to_string()];
    let mut read = vec!["\"*\": \"allow\"".to_string()];
    let mut edit = vec!["\"*\": \"ask\"".to_string()];
    for i in 0..n {
        match i % 3 {
            0 => bash.push(format!(
                "\"{} task{i} *\": \"allow\"",
                tools[i % tools.len()]
            )),
            1 => read.push(format!("\"src/module{i}/*\": \"deny\"")),
            _ => edit.push(format!("\"docs/page{i}.md\": \"allow\"")),
        }
    }
    bash.push("\"git push *\": \"deny\"".into());
    format!(
        "{{\n  \"permission\": {{\n    \"bash\": {{ {} }},\n    \"read\": {{ {} }},\n    \"edit\": {{ {} }},\n    \"external_directory\": {{ \"~/src/*\": \"allow\" }}\n  }}\n}}\n",
        bash.join(", "),
        read.join(", "),
        edit.join(", ")
    )
}

fn small() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/corpus/opencode/denialbb__limen__opencode.json"
    ))
    .expect("corpus file")
}

fn bench(c: &mut Criterion) {
    let oc = formats::by_id("opencode").unwrap();
    let mut options = AnalysisOptions::for_profile(oc.default_profile());
    options.home = "/nonexistent-permission-lsp-bench/home".into();
    let big = large(10_000);
    let small = small();
    let project = Path::new("/nonexistent-permission-lsp-bench/proj");
    let doc = project.join("opencode.json");
    for (name, text) in [("small (real file)", &small), ("10,000 rules", &big)] {
        c.bench_function(&format!("opencode/check {name}"), |b| {
            b.iter(|| {
                oc.analyse_file(
                    Role::Config,
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
            Some(&doc),
            &Overrides {
                cwd: Some(project.to_path_buf()),
                ..Default::default()
            },
            Some(&open),
        );
        c.bench_function(&format!("opencode/check with the session, {name}"), |b| {
            b.iter(|| oc.analyse(Role::Config, black_box(text), &ctx))
        });
        let sim = oc.simulator(&ctx).unwrap();
        let calls = [
            (
                "bash",
                json!({"command": "git status && npm run task9999 --watch"}),
            ),
            ("bash", json!({"command": "cat ../outside/x.md | grep y"})),
            ("read", json!({"filePath": "src/module9997/a.rs"})),
            (
                "edit",
                json!({"filePath": "docs/page9998.md", "oldString": "a", "newString": "b"}),
            ),
            ("webfetch", json!({"url": "https://example.com/x"})),
        ];
        c.bench_function(&format!("opencode/simulate 5 calls, {name}"), |b| {
            b.iter(|| {
                for (tool, input) in &calls {
                    black_box(sim.simulate(&CallRequest {
                        tool: tool.to_string(),
                        input: input.clone(),
                    }));
                }
            })
        });
        c.bench_function(&format!("opencode/load the policy, {name}"), |b| {
            b.iter(|| oc.simulator(black_box(&ctx)).unwrap())
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
