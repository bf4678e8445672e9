//! Claude Code: the settings files as the CLI reads them, its recorded decisions replayed, and the differential test against the real CLI.
//!
//! One test binary per format or layer: each module is one of the former
//! test files, kept under `tests/` by its own name.

// Helpers several modules share, loaded once.
#[path = "claude/harness.rs"]
mod harness;

#[path = "claude_differential.rs"]
mod claude_differential;
#[path = "claude_oracle.rs"]
mod claude_oracle;
#[path = "claude_settings.rs"]
mod claude_settings;
#[path = "claude_simulate.rs"]
mod claude_simulate;
