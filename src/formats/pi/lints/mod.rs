//! pi-permission-system's findings: the per-file analysis, rule order and
//! pattern lints, agent files.

pub mod agent_file;
pub mod config_file;
pub mod pattern_lints;
pub mod rule_lints;
pub mod rule_order;

pub use config_file::{
    ConfigAnalysis, analyze_config_bytes, analyze_config_decoded, analyze_config_in_scopes,
    analyze_config_text,
};

/// Appended to every finding that makes the runtime drop the file.
pub const WHOLE_FILE_DROPPED: &str =
    "the runtime ignores this entire file: every rule in it is dropped";

/// [`WHOLE_FILE_DROPPED`] for the project file, whose rejection changed
/// meaning in 21.0 (observed on 26.3.1).
pub const PROJECT_FILE_REJECTED: &str = "the runtime rejects this project file: up to 20.x it ignores the file (every rule in it is dropped); from 21.0 it fails closed (its rules are dropped and every allow rule, defaults and the other files' included, becomes ask for the session)";
