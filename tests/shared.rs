//! What every format shares: the pattern algebra, the JSON reader against an independent parser, the format seam and the layering, fuzzing, hostile input, history replay and `diff`, and that every reader is linear.
//!
//! One test binary per format or layer: each module is one of the former
//! test files, kept under `tests/` by its own name.

// Helpers several modules share, loaded once.
#[path = "common/mod.rs"]
mod common;

#[path = "config_diff.rs"]
mod config_diff;
#[path = "format_seam.rs"]
mod format_seam;
#[path = "fuzz.rs"]
mod fuzz;
#[path = "history_replay.rs"]
mod history_replay;
#[path = "hostile_input.rs"]
mod hostile_input;
#[path = "layering.rs"]
mod layering;
#[path = "parser_cross_check.rs"]
mod parser_cross_check;
#[path = "pattern_algebra.rs"]
mod pattern_algebra;
#[path = "scaling.rs"]
mod scaling;
