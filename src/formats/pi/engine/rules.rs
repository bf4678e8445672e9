//! The ordered rule list and its evaluation (spec §4.2): the default rule,
//! the MCP baseline, config rules in runtime key order, session rules, the
//! yolo rewrite; last match wins.

use super::wildcard::{MatchOptions, Utf16Value, Wildcard};
use crate::formats::pi::model::State;
use std::ops::Range;
use std::sync::Arc;

/// Which scope (or mechanism) a rule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleOrigin {
    Global,
    Project,
    Agent,
    ProjectAgent,
    Builtin,
    Baseline,
    Session,
    Yolo,
    /// An allow floored to ask because a project or agent scope is invalid
    /// (21.0 on; `floorAllowsToAsk`).
    FailClosed,
}

impl RuleOrigin {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleOrigin::Global => "global",
            RuleOrigin::Project => "project",
            RuleOrigin::Agent => "agent",
            RuleOrigin::ProjectAgent => "project-agent",
            RuleOrigin::Builtin => "builtin",
            RuleOrigin::Baseline => "baseline",
            RuleOrigin::Session => "session",
            RuleOrigin::Yolo => "yolo",
            RuleOrigin::FailClosed => "fail-closed",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    Default,
    Baseline,
    Config,
    Session,
}

/// Where a config rule was written.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RuleSource {
    /// The file (path or URI) it was read from, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<Arc<str>>,
    /// Byte range of the pattern key (or the surface key for a state surface).
    pub key_range: Range<usize>,
    /// Byte range of the value in force.
    pub value_range: Range<usize>,
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub surface: String,
    pub pattern: String,
    pub action: State,
    pub reason: Option<String>,
    pub layer: Layer,
    pub origin: RuleOrigin,
    pub source: Option<RuleSource>,
    surface_wc: Wildcard,
    pattern_wc: Wildcard,
    /// The pattern compiled with the path flavor's options (Windows only).
    pattern_path_wc: Option<Wildcard>,
}

/// The path flavor: how path surfaces are matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PathFlavor {
    #[default]
    Posix,
    /// Case-insensitive, `/` in patterns read as `\`.
    Windows,
}

impl PathFlavor {
    pub fn match_options(self) -> Option<MatchOptions> {
        match self {
            PathFlavor::Posix => None,
            PathFlavor::Windows => Some(MatchOptions {
                case_insensitive: true,
                windows_separators: true,
            }),
        }
    }
}

/// Surfaces matched as paths (options of the flavor apply there).
pub fn is_path_surface(surface: &str) -> bool {
    matches!(
        surface,
        "read" | "write" | "edit" | "find" | "grep" | "ls" | "external_directory" | "path"
    ) || is_directional_surface(surface)
}

/// `path_read`, `path_write`, `external_directory_read`,
/// `external_directory_write` (27.1 on).
pub fn is_directional_surface(surface: &str) -> bool {
    matches!(
        surface,
        "path_read" | "path_write" | "external_directory_read" | "external_directory_write"
    )
}

impl Rule {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        surface: &str,
        pattern: &str,
        action: State,
        reason: Option<String>,
        layer: Layer,
        origin: RuleOrigin,
        source: Option<RuleSource>,
        home: &str,
        flavor: PathFlavor,
    ) -> Rule {
        Rule {
            surface: surface.to_string(),
            pattern: pattern.to_string(),
            action,
            reason,
            layer,
            origin,
            source,
            surface_wc: Wildcard::compile(surface, home, MatchOptions::default()),
            pattern_wc: Wildcard::compile(pattern, home, MatchOptions::default()),
            pattern_path_wc: flavor
                .match_options()
                .map(|o| Wildcard::compile(pattern, home, o)),
        }
    }

    pub fn surface_matches(&self, surface: &Utf16Value<'_>) -> bool {
        self.surface_wc.is_match_value(surface)
    }

    pub fn pattern_matches(&self, surface: &str, value: &Utf16Value<'_>) -> bool {
        match (&self.pattern_path_wc, is_path_surface(surface)) {
            (Some(wc), true) => wc.is_match(value.text),
            _ => self.pattern_wc.is_match_value(value),
        }
    }

    /// The same rule with the yolo rewrite applied (`ask` → `allow`).
    pub fn yolo(&self) -> Rule {
        let mut r = self.clone();
        if r.action == State::Ask {
            r.action = State::Allow;
            r.origin = RuleOrigin::Yolo;
        }
        r
    }

    /// Matches the literal pattern `*`?
    pub fn pattern_matches_everything(&self) -> bool {
        self.pattern_wc.matches_everything()
    }
}

/// An ordered rule list.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
    /// Rules by literal surface key, built on first use.
    index: std::sync::OnceLock<SurfaceIndex>,
}

/// Which rules can apply to a surface: those whose surface key is that
/// literal string, and those whose surface key has a wildcard.
#[derive(Debug, Clone, Default)]
struct SurfaceIndex {
    exact: rustc_hash::FxHashMap<String, Vec<usize>>,
    wildcard: Vec<usize>,
}

impl RuleSet {
    pub fn new(rules: Vec<Rule>) -> RuleSet {
        RuleSet {
            rules,
            index: std::sync::OnceLock::new(),
        }
    }

    fn index(&self) -> &SurfaceIndex {
        self.index.get_or_init(|| {
            let mut idx = SurfaceIndex::default();
            for (i, r) in self.rules.iter().enumerate() {
                match r.surface_wc.exact_literal() {
                    Some(lit) => idx.exact.entry(lit.to_string()).or_default().push(i),
                    None => idx.wildcard.push(i),
                }
            }
            idx
        })
    }

    /// Rules whose surface key matches `surface`, last first.
    fn candidates<'a, 's>(
        &'a self,
        surface: &'s Utf16Value<'s>,
    ) -> impl Iterator<Item = &'a Rule> + use<'a, 's> {
        let idx = self.index();
        let exact: &[usize] = idx.exact.get(surface.text).map_or(&[], Vec::as_slice);
        let wild: &[usize] = &idx.wildcard;
        let (mut e, mut w) = (exact.len(), wild.len());
        std::iter::from_fn(move || {
            loop {
                let next = match (
                    e.checked_sub(1).map(|i| exact[i]),
                    w.checked_sub(1).map(|i| wild[i]),
                ) {
                    (None, None) => return None,
                    (Some(a), Some(b)) if a > b => {
                        e -= 1;
                        return Some(&self.rules[a]);
                    }
                    (Some(a), None) => {
                        e -= 1;
                        return Some(&self.rules[a]);
                    }
                    (_, Some(b)) => {
                        w -= 1;
                        b
                    }
                };
                let rule = &self.rules[next];
                if rule.surface_matches(surface) {
                    return Some(rule);
                }
            }
        })
    }
}

/// The winning rule and the value it matched.
#[derive(Debug, Clone, Copy)]
pub struct Verdict<'a> {
    pub rule: &'a Rule,
    pub value_index: usize,
}

impl RuleSet {
    /// The last rule matching (surface, value); the default rule always exists.
    pub fn evaluate<'a>(&'a self, surface: &str, value: &str) -> Option<&'a Rule> {
        let s = Utf16Value::new(surface);
        let v = Utf16Value::new(value);
        self.candidates(&s).find(|r| r.pattern_matches(surface, &v))
    }

    /// `evaluateFirst`: the first value whose winner is not the default rule,
    /// else the first value (or `*`).
    pub fn evaluate_first<'a>(
        &'a self,
        surface: &str,
        values: &[String],
    ) -> Option<(&'a Rule, String)> {
        for v in values {
            if let Some(rule) = self.evaluate(surface, v)
                && rule.layer != Layer::Default
            {
                return Some((rule, v.clone()));
            }
        }
        let fallback = values.first().cloned().unwrap_or_else(|| "*".into());
        self.evaluate(surface, &fallback).map(|r| (r, fallback))
    }

    /// `evaluateAnyValue`: the last rule matching any of the values.
    pub fn evaluate_any_value<'a>(
        &'a self,
        surface: &str,
        values: &[String],
    ) -> Option<(&'a Rule, String)> {
        let s = Utf16Value::new(surface);
        let vs: Vec<Utf16Value<'_>> = values.iter().map(|v| Utf16Value::new(v)).collect();
        let fallback = values.first().cloned().unwrap_or_else(|| "*".into());
        for rule in self.candidates(&s) {
            if let Some(i) = vs.iter().position(|v| rule.pattern_matches(surface, v)) {
                return Some((rule, values[i].clone()));
            }
        }
        self.evaluate(surface, &fallback).map(|r| (r, fallback))
    }
}
