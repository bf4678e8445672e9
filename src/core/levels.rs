//! Lint levels: per code, override the severity or turn the code off.

use super::diagnostic::{DiagnosticCode, Severity};
use std::collections::HashMap;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LintLevels {
    overrides: HashMap<DiagnosticCode, Option<Severity>>,
}

impl LintLevels {
    /// Parses `PL010=off`, `duplicate-key=error`, … with `lookup` finding a
    /// code by id or name. Unknown codes or levels are errors.
    pub fn parse_assignment(
        &mut self,
        spec: &str,
        lookup: &dyn Fn(&str) -> Option<DiagnosticCode>,
    ) -> Result<(), String> {
        let (code, level) = spec
            .split_once('=')
            .ok_or_else(|| format!("expected CODE=LEVEL, got `{spec}`"))?;
        let code =
            lookup(code.trim()).ok_or_else(|| format!("unknown diagnostic code `{code}`"))?;
        let level = match level.trim() {
            "off" | "allow" | "none" => None,
            "error" => Some(Severity::Error),
            "warning" | "warn" => Some(Severity::Warning),
            "info" | "information" => Some(Severity::Info),
            "hint" => Some(Severity::Hint),
            other => {
                return Err(format!(
                    "unknown level `{other}` (off, error, warning, info, hint)"
                ));
            }
        };
        self.overrides.insert(code, level);
        Ok(())
    }

    /// The findings at their configured severity (those turned off go;
    /// an unconfigured code keeps the severity its finding was made with,
    /// by default the code's), in document order: by start, end and code.
    pub fn apply(
        &self,
        diagnostics: Vec<crate::core::diagnostic::Diagnostic>,
    ) -> Vec<crate::core::diagnostic::Diagnostic> {
        let mut out: Vec<crate::core::diagnostic::Diagnostic> = diagnostics
            .into_iter()
            .filter_map(|mut d| {
                if let Some(level) = self.overrides.get(&d.code) {
                    d.severity = (*level)?;
                }
                Some(d)
            })
            .collect();
        // Stable, and with a scratch of keys rather than of diagnostics
        // (a long list's merge buffer was a quarter of its size).
        let key = crate::core::diagnostic::place_key;
        if !out.is_sorted_by_key(key) {
            out.sort_by_cached_key(key);
        }
        out
    }

    /// The severity to report `code` with, or `None` when it is off.
    pub fn severity(&self, code: impl Into<DiagnosticCode>) -> Option<Severity> {
        let code = code.into();
        match self.overrides.get(&code) {
            Some(level) => *level,
            None => Some(code.default_severity()),
        }
    }
}
