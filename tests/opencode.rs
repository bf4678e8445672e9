//! OpenCode: configs and agent files as the CLI reads them, its recorded sessions replayed, and the differential test against the real CLI.
//!
//! One test binary per format or layer: each module is one of the former
//! test files, kept under `tests/` by its own name.

// The seeded generator both differential tests draw from, loaded once.
#[path = "common/rng.rs"]
mod rng;

#[path = "opencode_differential.rs"]
mod opencode_differential;
#[path = "opencode_settings.rs"]
mod opencode_settings;
#[path = "opencode_simulate.rs"]
mod opencode_simulate;
#[path = "opencode_yaml.rs"]
mod opencode_yaml;
