//! Simulation throughput: non-bash calls, simple bash, long bash chains, on a
//! real config. Run: `cargo bench --bench simulate`.

use criterion::{Criterion, criterion_group, criterion_main};
use permission_lsp::formats::pi::engine::gates::{Call, Policy};
use permission_lsp::formats::pi::engine::paths::RealFs;
use permission_lsp::formats::pi::engine::policy::{PolicyInputs, ScopeText, load_policy};
use serde_json::json;
use std::hint::black_box;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn policy(file: &str) -> Policy {
    let text = std::fs::read_to_string(format!(
        "{}/benches/data/{file}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    load_policy(&PolicyInputs {
        global: Some(ScopeText {
            path: "global.json".into(),
            text,
        }),
        home: "/home/bench".into(),
        mcp_servers: vec!["exa".into(), "github".into()],
        ..PolicyInputs::new(permission_lsp::formats::pi::model::versions::DEFAULT_TARGET)
    })
    .policy
}

fn call(tool: &str, input: serde_json::Value) -> Call {
    Call {
        tool: tool.into(),
        input,
        agent: None,
        cwd: "/workspace/project".into(),
    }
}

fn bench(c: &mut Criterion) {
    let p = policy("small.json");
    let cases = [
        ("non-bash/extension tool", call("TaskCreate", json!({}))),
        (
            "non-bash/mcp",
            call("mcp", json!({ "tool": "web_search_exa" })),
        ),
        (
            "non-bash/skill",
            call("skill", json!({ "name": "librarian" })),
        ),
        (
            "non-bash/read inside cwd",
            call("read", json!({ "path": "src/main.rs" })),
        ),
        (
            "bash/simple",
            call("bash", json!({ "command": "git status" })),
        ),
        (
            "bash/typical (3 units)",
            call(
                "bash",
                json!({ "command": "cd src && cargo test 2>&1 | tail -20" }),
            ),
        ),
        (
            "bash/long chain (20 units, substitutions)",
            call(
                "bash",
                json!({ "command": (0..20).map(|i| format!("echo $(date) step{i} > /tmp/log{i}")).collect::<Vec<_>>().join(" && ") }),
            ),
        ),
    ];
    for (name, c1) in &cases {
        c.bench_function(&format!("simulate/{name}"), |b| {
            b.iter(|| black_box(p.simulate(black_box(c1), &RealFs)))
        });
    }
    let big = policy("bash-10k.json");
    let c1 = call("bash", json!({ "command": "git status && npm install" }));
    c.bench_function("simulate/bash 2 units against 10,000 rules", |b| {
        b.iter(|| black_box(big.simulate(&c1, &RealFs)))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
