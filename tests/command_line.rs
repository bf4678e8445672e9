//! The command line as users run it: `check`, `simulate`, `explain`, `diff`, `rule`, and hostile input to each.
//!
//! One test binary per format or layer: each module is one of the former
//! test files, kept under `tests/` by its own name.

#[path = "cli.rs"]
mod cli;
#[path = "cli_hostile.rs"]
mod cli_hostile;
