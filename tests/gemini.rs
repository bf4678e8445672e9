//! Gemini CLI: policy TOML files and settings as Gemini CLI 0.61.0 reads
//! them, its recorded cases replayed, and the differential test against
//! the real CLI.
//!
//! One test binary per format or layer: each module is one of the former
//! test files, kept under `tests/` by its own name.

#[path = "gemini_check.rs"]
mod gemini_check;
#[path = "gemini_common.rs"]
mod gemini_common;
#[path = "gemini_differential.rs"]
mod gemini_differential;
#[path = "gemini_replay.rs"]
mod gemini_replay;
