//! Typing into a 10,000-rule config: 1,000 incremental edits sent without
//! waiting, a hover every ten. The server stays within its memory budget
//! and its final diagnostics equal `check` on the final text. Latencies are
//! measured by `cargo bench --bench lsp_load`, never asserted here.

#[path = "load/driver.rs"]
mod driver;

use std::path::Path;

#[test]
fn a_thousand_edits_end_in_the_same_findings_as_check() {
    let bin = Path::new(env!("CARGO_BIN_EXE_permission-lsp"));
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("load-test");
    let _ = std::fs::remove_dir_all(&work);
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/data/gen-big-10k.json"),
    )
    .unwrap();
    let out = driver::run(bin, &work, &source, 1000, 10);
    assert_eq!(out.hovers.len(), 100);
    // Every hover on the other open config was answered too (latencies are
    // printed by the benchmark, not asserted).
    assert_eq!(out.other_hovers.len(), 100);
    assert!(!out.total.is_zero());
    let lsp = driver::lsp_findings(&out.final_diagnostics);
    let check = driver::check_findings(bin, &out.path, &work.join("home"));
    assert!(!check.is_empty());
    assert_eq!(lsp, check, "final diagnostics differ from check");
    // Peak RSS of the server under the load: the budget is 100 MB for the
    // release build; the test build is unoptimised, so allow it some slack.
    if let Some(kib) = out.peak_rss_kib {
        let budget = if cfg!(debug_assertions) { 200 } else { 100 };
        assert!(kib < budget * 1024, "peak RSS {kib} KiB");
    }
}
