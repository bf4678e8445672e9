//! Codex CLI: `.rules` files and `config.toml` as Codex 0.169.0 reads them,
//! its recorded cases replayed, and the differential test against the real
//! CLI.
//!
//! One test binary per format or layer: each module is one of the former
//! test files, kept under `tests/` by its own name.

#[path = "codex_check.rs"]
mod codex_check;
#[path = "codex_common.rs"]
mod codex_common;
#[path = "codex_differential.rs"]
mod codex_differential;
#[path = "codex_replay.rs"]
mod codex_replay;
