//! Gemini CLI: reading a policy file and deciding calls, on the largest
//! real policy file of the corpus and on a generated file of 2,000 rules.
//! Run: `cargo bench --bench gemini`. The real CLI for comparison:
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

/// `n` rules: command prefixes over a few programs, regexes, argument
/// patterns and whole-tool rules, with every decision and priorities
/// that tie.
fn large(n: usize) -> String {
    let programs = [
        "git", "npm", "cargo", "docker", "kubectl", "gh", "make", "python3",
    ];
    let decisions = ["allow", "deny", "ask_user"];
    let mut out = String::new();
    for i in 0..n {
        let p = programs[i % programs.len()];
        let body = match i % 6 {
            0 => format!(
                "toolName = \"run_shell_command\"\ncommandRegex = \"{p} task{i} (run|test)\""
            ),
            1 => format!("toolName = \"read_file\"\nargsPattern = \"src/m{i}/\""),
            2 => format!(
                "toolName = \"run_shell_command\"\ncommandPrefix = [\"{p} a{i}\", \"{p} b{i}\"]"
            ),
            _ => format!("toolName = \"run_shell_command\"\ncommandPrefix = \"{p} task{i}\""),
        };
        out.push_str(&format!(
            "[[rule]]\n{body}\ndecision = \"{}\"\npriority = {}\n\n",
            decisions[i % 3],
            (i * 7) % 1000
        ));
    }
    out
}

fn largest_corpus_file() -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/gemini/corpus");
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .max_by_key(|t| t.len())
        .unwrap()
}

fn bench(c: &mut Criterion) {
    let gm = formats::by_id("gemini").unwrap();
    let big = large(2_000);
    let small = largest_corpus_file();
    for (name, text) in [("largest corpus file", &small), ("2,000 rules", &big)] {
        let dir = std::env::temp_dir().join(format!(
            "permission-lsp-bench-gemini-{}-{}",
            std::process::id(),
            text.len()
        ));
        let home = dir.join("home");
        let project = dir.join("proj");
        let doc = home.join(".gemini/policies/rules.toml");
        std::fs::create_dir_all(doc.parent().unwrap()).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(&doc, text).unwrap();
        std::fs::write(
            home.join(".gemini/trustedFolders.json"),
            json!({ project.display().to_string(): "TRUST_FOLDER" }).to_string(),
        )
        .unwrap();
        let mut options = AnalysisOptions::for_profile(gm.default_profile());
        options.home = home.display().to_string();
        options.runtime_args.push((
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH".into(),
            dir.join("system.json").display().to_string(),
        ));
        let project = project.as_path();
        let doc = doc.as_path();
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
        c.bench_function(&format!("gemini/check {name}"), |b| {
            b.iter(|| gm.analyse(Role::Config, black_box(text), &ctx))
        });
        let sim = gm.simulator(&ctx).unwrap();
        let calls = [
            "git status && git push origin main",
            "npm run build > /dev/null",
            "bash -c 'docker ps | wc -l'",
            "cd sub && cat README.md",
            "kubectl task7 apply",
        ];
        c.bench_function(&format!("gemini/simulate 5 calls, {name}"), |b| {
            b.iter(|| {
                for line in &calls {
                    black_box(sim.simulate(&CallRequest {
                        tool: "run_shell_command".into(),
                        input: json!({ "command": line }),
                    }));
                }
            })
        });
        c.bench_function(&format!("gemini/load the session, {name}"), |b| {
            b.iter(|| gm.simulator(black_box(&ctx)).unwrap())
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
