//! The command line: `check` (and `simulate`, `explain`) over the same analysis.

pub mod check;
pub mod diff;
pub mod discover;
pub mod explain;
pub mod render;
pub mod replay;
pub mod rule;
pub mod simulate;
pub mod suggest;
