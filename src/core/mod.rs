//! What every format shares: diagnostics with typed fixes and stable codes,
//! lint levels, suppression comments, runtime profiles, precedence
//! strategies, and the pattern algebra behind the pattern-language trait.
//! Nothing here names a format.

pub mod decision;
pub mod diagnostic;
pub mod last_match;
pub mod levels;
pub mod literal_index;
pub mod parallel;
pub mod pattern_algebra;
pub mod precedence;
pub mod profile;
pub mod suppress;

pub use diagnostic::{CodeInfo, Diagnostic, DiagnosticCode, Fix, Related, Severity, TextEdit};
pub use levels::LintLevels;
pub use profile::{RuntimeProfile, Version};
