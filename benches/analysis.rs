//! Analysis speed: read + validate + diagnose, position conversion, an
//! incremental edit. Run: `cargo bench --bench analysis`.

use criterion::{Criterion, criterion_group, criterion_main};
use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::formats::pi::lints::analyze_config_text;
use permission_lsp::text::{LineCol, LineIndex, PositionEncoding};
use std::hint::black_box;

/// The allocator the `permission-lsp` binary uses.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn data(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/benches/data/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("bench data")
}

fn analysis(c: &mut Criterion) {
    let options = AnalysisOptions::default();
    let small = data("small.json");
    let large = data("bash-10k.json");
    let gen_big = data("gen-big-10k.json");
    c.bench_function("diagnose/small (5 KB real config)", |b| {
        b.iter(|| analyze_config_text(black_box(&small), &options))
    });
    c.bench_function("diagnose/bash-10k (10,000 rules, 489 KB)", |b| {
        b.iter(|| analyze_config_text(black_box(&large), &options))
    });
    c.bench_function("diagnose/gen-big-10k (gen_big.py 10000, 429 KB)", |b| {
        b.iter(|| analyze_config_text(black_box(&gen_big), &options))
    });
    // Every iteration adds 20 new rules (more than an update handles), so
    // the whole precedence analysis runs afresh: what opening a file costs.
    for (name, text) in [
        ("small", &small),
        ("bash-10k", &large),
        ("gen-big-10k", &gen_big),
    ] {
        let mut n = 0u64;
        c.bench_function(
            &format!("diagnose/{name}, fresh precedence analysis"),
            |b| {
                b.iter(|| {
                    n += 1;
                    let block: String = (0..20)
                        .map(|k| format!("\"new{n}x{k} *\": \"ask\", "))
                        .collect();
                    let edited = text.replacen("\"bash\": {", &format!("\"bash\": {{{block}"), 1);
                    analyze_config_text(black_box(&edited), &options)
                })
            },
        );
    }
    // Typing inside a pattern: each iteration's text differs from the
    // last in one rule (the precedence analysis is updated, not redone).
    for (name, text, needle) in [
        ("small", &small, "\"printf"),
        ("bash-10k", &large, "\"git sub04993"),
        ("gen-big-10k", &gen_big, "\"python push"),
    ] {
        let at = text.find(needle).expect("needle") + needle.len();
        let mut n = 0u64;
        c.bench_function(&format!("diagnose/{name}, typing in a pattern"), |b| {
            b.iter(|| {
                n += 1;
                let mut edited = String::with_capacity(text.len() + 8);
                edited.push_str(&text[..at]);
                edited.push_str(&format!("{}", n % 64));
                edited.push_str(&text[at..]);
                analyze_config_text(black_box(&edited), &options)
            })
        });
    }
    // Shadowing at scale: every rule overlaps others; with a final
    // catch-all all 10,000 are dead (10,000 findings with examples).
    let mut slow = c.benchmark_group("diagnose/overlapping");
    slow.sample_size(20);
    for name in [
        "bash-10k-overlap.json",
        "bash-10k-overlap-no-catch-all.json",
    ] {
        let text = data(name);
        slow.bench_function(name, |b| {
            b.iter(|| analyze_config_text(black_box(&text), &options))
        });
    }
    slow.finish();
}

fn positions(c: &mut Criterion) {
    let large = data("bash-10k.json");
    c.bench_function("positions/line index bash-10k", |b| {
        b.iter(|| LineIndex::new(black_box(&large)))
    });
    let index = LineIndex::new(&large);
    let offsets: Vec<usize> = (0..1000).map(|i| i * (large.len() / 1000)).collect();
    c.bench_function("positions/1000 offsets -> utf-16 bash-10k", |b| {
        b.iter(|| {
            for &o in &offsets {
                black_box(index.position(&large, o, PositionEncoding::Utf16));
            }
        })
    });
    c.bench_function("positions/1000 utf-16 -> offsets bash-10k", |b| {
        b.iter(|| {
            for i in 0..1000u32 {
                black_box(index.offset(
                    &large,
                    LineCol {
                        line: i * 10,
                        col: 12,
                    },
                    PositionEncoding::Utf16,
                ));
            }
        })
    });
}

fn incremental_edit(c: &mut Criterion) {
    let large = data("bash-10k.json");
    let rope = ropey::Rope::from_str(&large);
    c.bench_function(
        "edit/insert one char into bash-10k rope + re-diagnose",
        |b| {
            let options = AnalysisOptions::default();
            b.iter_batched(
                || rope.clone(),
                |mut r| {
                    let at = r.line_to_char(5000) + 10;
                    r.insert(at, "x");
                    let text = r.to_string();
                    black_box(analyze_config_text(&text, &options));
                },
                criterion::BatchSize::SmallInput,
            )
        },
    );
    c.bench_function("edit/insert one char into bash-10k rope", |b| {
        b.iter_batched(
            || rope.clone(),
            |mut r| {
                let at = r.line_to_char(5000) + 10;
                r.insert(at, "x");
                black_box(r.len_bytes());
            },
            criterion::BatchSize::SmallInput,
        )
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = analysis, positions, incremental_edit
}
criterion_main!(benches);
