//! Load benchmark: 1,000 edits typed into a 10,000-rule config without
//! waiting, a hover every ten; prints hover latencies (p50, p99, max), the
//! time to the final diagnostics and the server's peak RSS, and checks the
//! final diagnostics against `check`.
//! Run: `cargo bench --bench lsp_load`.

#[path = "../tests/load/driver.rs"]
mod driver;

use std::path::Path;

fn main() {
    let bin = Path::new(env!("CARGO_BIN_EXE_permission-lsp"));
    let work = std::env::temp_dir().join(format!("permission-lsp-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/gen-big-10k.json"),
    )
    .expect("benches/data/gen-big-10k.json");
    let edits: usize = std::env::var("LOAD_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let every: usize = std::env::var("LOAD_HOVER_EVERY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let out = driver::run(bin, &work, &source, edits, every);
    let mut h = out.hovers.clone();
    h.sort();
    let pct = |p: f64| h[((h.len() - 1) as f64 * p).round() as usize];
    println!(
        "lsp_load: {edits} edits, {} hovers on a 10,000-rule config",
        h.len()
    );
    if !h.is_empty() {
        println!(
            "  hover latency: p50 {:.2?}  p99 {:.2?}  max {:.2?}",
            pct(0.5),
            pct(0.99),
            h[h.len() - 1]
        );
    }
    let mut o = out.other_hovers.clone();
    o.sort();
    if !o.is_empty() {
        println!(
            "  hover on another open config meanwhile: p50 {:.2?}  p99 {:.2?}  max {:.2?}",
            o[o.len() / 2],
            o[((o.len() - 1) as f64 * 0.99).round() as usize],
            o[o.len() - 1]
        );
    }
    println!("  first edit -> final diagnostics: {:.2?}", out.total);
    match out.peak_rss_kib {
        Some(k) => println!("  server peak RSS: {:.1} MB", k as f64 / 1024.0),
        None => println!("  server peak RSS: unavailable"),
    }
    let same = driver::lsp_findings(&out.final_diagnostics)
        == driver::check_findings(bin, &out.path, &work.join("home"));
    println!("  final diagnostics equal `check`: {same}");
    let _ = std::fs::remove_dir_all(&work);
    assert!(same);
}
