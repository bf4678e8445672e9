//! Writes a synthetic decision log for the replay benchmark (BENCHMARKS.md):
//!
//!     cargo run --release --example gen_decision_log -- pi 1000000 /work/project > review.jsonl
//!     cargo run --release --example gen_decision_log -- claude 1000000 /work/project > stream.jsonl
//!
//! Arguments: the kind (`pi`: pi-permission-system's review log, `claude`:
//! Claude Code stream-json), the number of records, the session's working
//! directory (default: the current one) and a seed (default 1).

#[path = "../benches/support/synthetic.rs"]
mod synthetic;

use std::io::Write;
use synthetic::{Kind, write_log};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kind = match args.first().map(String::as_str) {
        Some("pi") => Kind::PiReview,
        Some("claude") => Kind::ClaudeStreamJson,
        _ => {
            eprintln!("usage: gen_decision_log pi|claude RECORDS [CWD] [SEED]");
            std::process::exit(2);
        }
    };
    let records: u64 = args
        .get(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000_000);
    let cwd = args.get(2).cloned().unwrap_or_else(|| {
        std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_else(|_| "/".into())
    });
    let seed: u64 = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 20, stdout.lock());
    if let Err(e) = write_log(kind, records, seed, &cwd, &mut out).and_then(|_| out.flush()) {
        eprintln!("gen_decision_log: {e}");
        std::process::exit(1);
    }
}
