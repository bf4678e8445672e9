//! The reference runtime as a test oracle: installs
//! `@gotgenes/pi-permission-system` from npm once per target directory
//! (`tests/differential/setup.sh`) and runs JSONL batches of cases through
//! `tests/differential/oracle.mts`.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The home directory the oracle runs with.
pub const HOME: &str = "/home/difftester";

/// The oracle, or why it is unavailable; with `DIFFERENTIAL_REQUIRED=1`
/// (CI) unavailability is a failure.
pub fn oracle_or_skip(what: &str) -> Option<PathBuf> {
    match oracle_dir() {
        Ok(d) => Some(d),
        Err(why) if std::env::var("DIFFERENTIAL_REQUIRED").is_ok_and(|v| v == "1") => {
            panic!("{why}")
        }
        Err(why) => {
            eprintln!("{what} skipped: {why}");
            None
        }
    }
}

/// Installs the runtime once per target directory.
pub fn oracle_dir() -> Result<PathBuf, String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("differential-oracle");
    if dir.join(".installed").exists() {
        return Ok(dir);
    }
    let setup = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/setup.sh");
    let out = Command::new("bash")
        .arg(&setup)
        .arg(&dir)
        .output()
        .map_err(|e| format!("cannot run setup.sh: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "installing the runtime from npm failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    Ok(dir)
}

pub fn run_oracle(dir: &Path, cases: &[Value]) -> Vec<Value> {
    // Tests of one binary run in parallel: one file per call.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let batch = dir.join(format!("batch-{}-{n}.jsonl", std::process::id()));
    let text: String = cases.iter().map(|c| format!("{c}\n")).collect();
    std::fs::write(&batch, text).expect("write batch");
    let out = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/run.sh"))
        .arg(dir)
        .arg(&batch)
        .env("HOME", HOME)
        .output()
        .expect("run oracle");
    let _ = std::fs::remove_file(&batch);
    assert!(
        out.status.success(),
        "oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("oracle json"))
        .collect()
}
