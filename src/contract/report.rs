//! The typed results every format answers with, shared by the CLI
//! (`simulate --format json`, `explain --format json`) and the LSP commands
//! (`permission-lsp.simulate`, `permission-lsp.effectivePolicy`). Built once
//! by the format; serialised as is. The shape is versioned:
//! `schemaVersion` changes when a field changes meaning or goes away.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The version of the shapes below.
pub const SCHEMA_VERSION: u32 = 1;

/// Where a rule is written: 1-based line and character column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RulePlace {
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

/// The rule that decided a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecidingRule {
    /// The tool or permission the rule is under (`bash`, `read`, `Bash`, …).
    pub surface: String,
    pub pattern: String,
    /// Where the rule comes from in the runtime's list (`config`, `default`, …).
    pub layer: Value,
    /// The scope (`global`, `project`, …).
    pub scope: String,
    #[serde(flatten)]
    pub place: RulePlace,
}

/// What the runtime decides for one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimulationReport {
    #[serde(rename = "schemaVersion")]
    pub schema_version: u32,
    /// The runtime profile applied (`pi 20.7.3`).
    pub runtime: String,
    pub tool: String,
    pub input: Value,
    /// `allow`, `ask` or `deny`.
    pub decision: String,
    pub rule: Option<DecidingRule>,
    pub reason: Option<String>,
    pub agent_message: Option<String>,
    /// The runtime removes the tool from the agent: it cannot be called.
    pub tool_hidden: bool,
    /// Why, as lines for people: the deciding rule, the reason, what the
    /// agent sees (the CLI prints them under the decision).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub explanation: Vec<String>,
    /// What the runtime reports about the files it read (a file it ignores,
    /// and why), in its words.
    pub config_issues: Vec<String>,
    /// What only this format has (pi: `units`, `gates`).
    #[serde(flatten)]
    pub details: Map<String, Value>,
}

impl SimulationReport {
    /// The decision as an outcome: a tool removed from the agent cannot be
    /// called (deny); an unknown decision string reads as ask.
    pub fn outcome(&self) -> crate::core::decision::Decision {
        use crate::core::decision::Decision;
        if self.tool_hidden {
            return Decision::Deny;
        }
        Decision::parse(&self.decision).unwrap_or(Decision::Ask)
    }
}

/// One file the runtime reads for the policy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileStatus {
    /// The scope (`global`, `project`, …).
    pub scope: String,
    pub path: Option<String>,
    pub present: bool,
    /// `false`: the runtime ignores the whole file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<bool>,
    /// `false`: the file has no permission block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issues: Option<Vec<String>>,
}

/// One rule of the merged policy, in evaluation order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EffectiveRule {
    pub index: usize,
    pub surface: String,
    pub pattern: String,
    pub action: String,
    pub reason: Option<String>,
    pub layer: Value,
    pub scope: String,
    #[serde(flatten)]
    pub place: RulePlace,
}

/// Every scope merged as the runtime merges them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EffectivePolicyReport {
    #[serde(rename = "schemaVersion")]
    pub schema_version: u32,
    pub runtime: String,
    pub agent: Option<String>,
    /// In merge order.
    pub files: Vec<FileStatus>,
    /// In evaluation order.
    pub rules: Vec<EffectiveRule>,
    /// How the format picks among matching rules, for people.
    pub precedence: String,
    /// Further lines for people (knobs, warnings).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What only this format has (pi: `default`, `knobs`, `issues`,
    /// `permissiveBashWarning`).
    #[serde(flatten)]
    pub details: Map<String, Value>,
}

impl EffectivePolicyReport {
    /// The policy for people: the files in the order the runtime reads
    /// them, the rules in the order it weighs them, and the notes (what
    /// `explain` prints; the editor's "Effective policy" document).
    pub fn to_text(&self) -> String {
        let v = self;
        let mut out = String::new();
        let agent = v
            .agent
            .as_deref()
            .map_or("none".to_string(), |a| format!("`{a}`"));
        out.push_str(&format!(
            "Effective policy of {} (agent: {agent})\n\nFiles, in the order the runtime reads them ({}):\n",
            v.runtime, v.precedence
        ));
        for f in &v.files {
            let scope = &f.scope;
            match (f.present, &f.path) {
                (true, Some(path)) => {
                    let state = if f.accepted == Some(false) {
                        "REJECTED by the runtime: contributes nothing"
                    } else if f.permission == Some(false) {
                        "no permission block"
                    } else {
                        "read"
                    };
                    out.push_str(&format!("  {scope:<14} {path}  ({state})\n"));
                    for i in f.issues.iter().flatten() {
                        out.push_str(&format!("      {i}\n"));
                    }
                }
                _ => out.push_str(&format!("  {scope:<14} (none)\n")),
            }
        }
        out.push_str("\nRules in the order the runtime weighs them:\n");
        // Columns as wide as their longest entry (within bounds: a long
        // pattern runs past its column rather than widening every row).
        let width = |of: &dyn Fn(&EffectiveRule) -> &str, least: usize, most: usize| {
            v.rules
                .iter()
                .map(|r| of(r).chars().count())
                .filter(|&n| n <= most)
                .max()
                .unwrap_or(0)
                .clamp(least, most)
        };
        let (surface_w, pattern_w) = (
            width(&|r| r.surface.as_str(), 10, 24),
            width(&|r| r.pattern.as_str(), 20, 40),
        );
        let index_w = v.rules.len().saturating_sub(1).to_string().len();
        for r in &v.rules {
            let place = match (&r.place.file, r.place.line, r.place.column) {
                (Some(f), Some(l), Some(c)) => format!("{f}:{l}:{c}"),
                _ => String::new(),
            };
            let reason = r
                .reason
                .as_deref()
                .map_or(String::new(), |s| format!(" “{s}”"));
            let layer = match r.layer.as_str() {
                Some("config") => r.scope.as_str(),
                other => other.unwrap_or(""),
            };
            out.push_str(&format!(
                "  {:>index_w$}  {:<surface_w$} {:<pattern_w$} {:<5}{reason}  [{layer}]",
                r.index, r.surface, r.pattern, r.action,
            ));
            if !place.is_empty() {
                out.push(' ');
                out.push_str(&place);
            }
            out.push('\n');
        }
        out.push('\n');
        for n in &v.notes {
            out.push_str(n);
            out.push('\n');
        }
        out
    }
}
