//! The analysis every editor feature and CLI command starts from: the
//! options (runtime profile, lint levels, home, agent), and one entry point
//! that hands a document to its format through the registry.

pub mod compare;
pub mod diff;
pub use crate::contract::report;

pub use crate::core::diagnostic::{Diagnostic, DiagnosticCode, Related, Severity};
pub use crate::core::levels::LintLevels;

pub use crate::contract::options::AnalysisOptions;

impl Default for AnalysisOptions {
    /// The default format's default profile (the registry decides).
    fn default() -> Self {
        AnalysisOptions::for_profile(crate::formats::default_format().default_profile())
    }
}

pub use crate::formats::code_by_name;
