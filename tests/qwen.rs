//! Qwen Code: `settings.json` permissions as Qwen Code 0.24.4 reads them,
//! its recorded cases replayed, and the differential test against the
//! real CLI.
//!
//! One test binary per format or layer: each module is one of the former
//! test files, kept under `tests/` by its own name.

#[path = "qwen_check.rs"]
mod qwen_check;
#[path = "qwen_common.rs"]
mod qwen_common;
#[path = "qwen_differential.rs"]
mod qwen_differential;
#[path = "qwen_replay.rs"]
mod qwen_replay;
#[path = "common/rng.rs"]
mod rng;
