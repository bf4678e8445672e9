//! Qwen Code: reading a settings file and deciding calls, on the largest
//! real file of the corpus and on a generated file of 2,000 rules. Run:
//! `cargo bench --bench qwen`. The real CLI for comparison: BENCHMARKS.md.

use criterion::{Criterion, criterion_group, criterion_main};
use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::formats::{self, CallRequest, Role};
use permission_lsp::workspace::{Overrides, resolve};
use serde_json::json;
use std::hint::black_box;
use std::path::Path;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `n` rules over a few programs in the three lists, with path and
/// domain rules among them.
fn large(n: usize) -> String {
    let programs = [
        "git", "npm", "cargo", "docker", "kubectl", "gh", "make", "python3",
    ];
    let mut lists = [Vec::new(), Vec::new(), Vec::new()];
    for i in 0..n {
        let p = programs[i % programs.len()];
        let rule = match i % 7 {
            0 => format!("Read(src/m{i}/**)"),
            1 => format!("WebFetch(domain:h{i}.example.com)"),
            2 => format!("Bash({p}:*)"),
            _ => format!("Bash({p} task{i} *)"),
        };
        lists[i % 3].push(serde_json::Value::String(rule));
    }
    serde_json::to_string_pretty(&json!({
        "permissions": { "allow": lists[0], "ask": lists[1], "deny": lists[2] },
        "tools": { "approvalMode": "default" }
    }))
    .unwrap()
}

fn largest_corpus_file() -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/qwen/corpus");
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .max_by_key(|t| t.len())
        .unwrap()
}

fn bench(c: &mut Criterion) {
    let qw = formats::by_id("qwen").unwrap();
    let big = large(2_000);
    let small = largest_corpus_file();
    for (name, text) in [("largest corpus file", &small), ("2,000 rules", &big)] {
        let dir = std::env::temp_dir().join(format!(
            "permission-lsp-bench-qwen-{}-{}",
            std::process::id(),
            text.len()
        ));
        let home = dir.join("home");
        let project = dir.join("proj");
        let doc = project.join(".qwen/settings.json");
        std::fs::create_dir_all(doc.parent().unwrap()).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(&doc, text).unwrap();
        let mut options = AnalysisOptions::for_profile(qw.default_profile());
        options.home = home.display().to_string();
        for (k, f) in [
            ("QWEN_CODE_SYSTEM_SETTINGS_PATH", "system.json"),
            ("QWEN_CODE_SYSTEM_DEFAULTS_PATH", "defaults.json"),
        ] {
            options
                .runtime_args
                .push((k.into(), dir.join(f).display().to_string()));
        }
        let project = project.as_path();
        let doc = doc.as_path();
        c.bench_function(&format!("qwen/check {name}"), |b| {
            b.iter(|| {
                qw.analyse_file(
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
            Some(doc),
            &Overrides {
                cwd: Some(project.to_path_buf()),
                ..Default::default()
            },
            Some(&open),
        );
        let sim = qw.simulator(&ctx).unwrap();
        let calls = [
            "git status && git push origin main",
            "npm run build > /dev/null",
            "echo $(gh pr create --fill)",
            "cd sub && cat .env",
            "curl -s https://h8.example.com/x",
        ];
        c.bench_function(&format!("qwen/simulate 5 calls, {name}"), |b| {
            b.iter(|| {
                for line in &calls {
                    black_box(sim.simulate(&CallRequest {
                        tool: "run_shell_command".into(),
                        input: json!({ "command": line }),
                    }));
                }
            })
        });
        c.bench_function(&format!("qwen/load the session, {name}"), |b| {
            b.iter(|| qw.simulator(black_box(&ctx)).unwrap())
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
