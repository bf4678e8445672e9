//! Findings over the model: diagnostics with stable codes, each with the
//! evidence (range, runtime text, related places).

pub mod agent_file;
pub mod codes;
pub mod config_file;
pub mod levels;
pub mod pattern_algebra;
pub mod pattern_lints;
pub mod rule_lints;
pub mod rule_order;
pub mod suppress;

pub use codes::{Code, Severity};
pub use config_file::{
    AnalysisOptions, ConfigAnalysis, analyze_config_bytes, analyze_config_in_scopes,
    analyze_config_text,
};
pub use levels::LintLevels;

use std::ops::Range;

/// A finding, in byte offsets of the analysed text.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Diagnostic {
    #[serde(serialize_with = "ser_code")]
    pub code: Code,
    pub severity: Severity,
    pub range: Range<usize>,
    pub message: String,
    /// The issue text the runtime itself reports for this problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_issue: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
}

impl Diagnostic {
    /// A finding at its code's default severity, without related places.
    pub fn new(code: Code, range: Range<usize>, message: String) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.default_severity(),
            range,
            message,
            runtime_issue: None,
            related: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Related {
    pub range: Range<usize>,
    pub message: String,
}

fn ser_code<S: serde::Serializer>(c: &Code, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(c.as_str())
}

/// Appended to every finding that makes the runtime drop the file.
pub const WHOLE_FILE_DROPPED: &str =
    "the runtime ignores this entire file: every rule in it is dropped";
