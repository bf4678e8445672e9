//! What a config change does: two policies (before and after) compared
//! call by call. For each surface the rules of both sides are read as
//! patterns of the shared algebra; every region of values that the
//! patterns tell apart (a distinct set of matching patterns) is visited
//! with a shortest example value, turned into a call by the format and
//! decided by both simulators. Where decisions depend only on which
//! patterns match (the wildcard surfaces), every difference is found, each
//! with a concrete example; a surface whose search runs out of budget is
//! named as incomplete. Each reported difference is the simulators'
//! answer, never the algebra's guess.

use crate::analysis::report::{DecidingRule, EffectivePolicyReport};
use crate::core::decision::Decision;
use crate::core::pattern_algebra::{Pattern, Search, Work, search_within};
use crate::formats::{Format, Simulator};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

/// One side of the comparison.
pub struct Side<'a> {
    pub simulator: &'a dyn Simulator,
    pub policy: &'a EffectivePolicyReport,
}

/// A call decided differently.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    pub surface: String,
    /// The value the rules match (`rm -rf x`).
    pub example: String,
    pub tool: String,
    pub input: Value,
    pub before: &'static str,
    pub after: &'static str,
    pub before_rule: Option<DecidingRule>,
    pub after_rule: Option<DecidingRule>,
    /// Other examples found with the same change by the same rules (not
    /// listed).
    pub similar: usize,
}

impl Difference {
    /// `newly allowed`, `newly asked`, `newly denied`.
    pub fn kind(&self) -> &'static str {
        match self.after {
            "allow" => "newly allowed",
            "ask" => "newly asked",
            _ => "newly denied",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DiffReport {
    /// One per kind of change and pair of deciding rules, with its
    /// shortest example.
    pub differences: Vec<Difference>,
    pub newly_allowed: usize,
    pub newly_asked: usize,
    pub newly_denied: usize,
    /// Surfaces compared, and example calls decided.
    pub surfaces: usize,
    pub probes: usize,
    /// Surfaces whose search ran out of budget: differences there may be
    /// missing.
    pub incomplete: Vec<String>,
}

pub use crate::core::pattern_algebra::path_hints;

/// Regions visited per surface at most.
const MAX_REGIONS: usize = 512;
/// Work the searches of one surface may spend.
const SURFACE_WORK: usize = 4_000_000;

/// A value of the same region outside every hint, by small edits of the
/// region's example (a word or letters the patterns do not use, before or
/// after it): the exact search over many hints can be costly, and any
/// member of the region will do.
fn outside_hints(
    example: &str,
    rules: &[&Pattern],
    region: &[bool],
    hints: &Pattern,
) -> Option<String> {
    let fits = |v: &str| {
        !hints.is_match(v)
            && rules
                .iter()
                .map(|p| p.is_match(v))
                .eq(region.iter().copied())
    };
    ["q", "zq", "qz9"].iter().find_map(|f| {
        [
            format!("{f}{example}"),
            format!("{f} {example}"),
            format!("{example} {f}"),
            format!("{example}{f}"),
        ]
        .into_iter()
        .find(|v| fits(v))
    })
}

/// Compares two policies of `format`.
pub fn diff(format: &dyn Format, before: Side<'_>, after: Side<'_>, home: &str) -> DiffReport {
    // The patterns of each surface, from both sides, without repeats.
    let mut surfaces: BTreeMap<String, Vec<(String, Pattern)>> = BTreeMap::new();
    for rule in before.policy.rules.iter().chain(&after.policy.rules) {
        if let Some((surface, source, pattern)) = format.diff_pattern(rule, home) {
            let list = surfaces.entry(surface).or_default();
            if !list.iter().any(|(s, _)| *s == source) {
                list.push((source, pattern));
            }
        }
    }
    let mut report = DiffReport {
        surfaces: surfaces.len(),
        ..Default::default()
    };
    let mut seen_calls: HashSet<(String, String)> = HashSet::new();
    for (surface, patterns) in &surfaces {
        let rules: Vec<&Pattern> = patterns.iter().map(|(_, p)| p).collect();
        let hints = format.diff_hints(surface, home);
        let any_hint = Pattern::union(&hints);
        let mut work = Work::new(SURFACE_WORK);
        let mut probe = |value: String, report: &mut DiffReport| {
            let Some(call) = format.probe_call(surface, &value) else {
                return;
            };
            if !seen_calls.insert((call.tool.clone(), call.input.to_string())) {
                return;
            }
            report.probes += 1;
            let b = before.simulator.simulate(&call);
            let a = after.simulator.simulate(&call);
            let (db, da) = (b.outcome(), a.outcome());
            if db == da {
                return;
            }
            let key = |r: &Option<DecidingRule>| {
                r.as_ref()
                    .map(|r| (r.surface.clone(), r.pattern.clone(), r.place.clone()))
            };
            if let Some(same) = report.differences.iter_mut().find(|d| {
                d.surface == *surface
                    && d.before == db.as_str()
                    && d.after == da.as_str()
                    && key(&d.before_rule) == key(&b.rule)
                    && key(&d.after_rule) == key(&a.rule)
            }) {
                same.similar += 1;
                // Keep the shortest example.
                if value.len() < same.example.len() {
                    same.example = value;
                    same.tool = call.tool;
                    same.input = call.input;
                }
                return;
            }
            match da {
                Decision::Allow => report.newly_allowed += 1,
                Decision::Ask => report.newly_asked += 1,
                Decision::Deny => report.newly_denied += 1,
            }
            report.differences.push(Difference {
                surface: surface.clone(),
                example: value,
                tool: call.tool,
                input: call.input,
                before: db.as_str(),
                after: da.as_str(),
                before_rule: b.rule,
                after_rule: a.rule,
                similar: 0,
            });
        };
        // Every region the rules tell apart, with a shortest example.
        let non_empty = Pattern::from_expanded("?*");
        let mut all: Vec<&Pattern> = vec![&non_empty];
        all.extend(rules.iter().copied());
        let mut regions: Vec<(Vec<bool>, String)> = Vec::new();
        let mut complete = false;
        while regions.len() < MAX_REGIONS {
            let found = search_within(
                &all,
                0,
                |acc| acc[0] && !regions.iter().any(|(r, _)| r[..] == acc[1..]),
                &mut work,
            );
            match found {
                Search::Found(v) => {
                    let acc: Vec<bool> = rules.iter().map(|p| p.is_match(&v)).collect();
                    if regions.iter().any(|(r, _)| *r == acc) {
                        // The search and the matcher disagree: stop rather
                        // than loop.
                        break;
                    }
                    regions.push((acc, v));
                }
                Search::NotFound => {
                    complete = true;
                    break;
                }
                Search::Unknown => break,
            }
        }
        // Within each region, the runtime may still decide by itself where a
        // hint says so: one example inside each hint, one outside them all.
        for (region, example) in &regions {
            let in_region = |acc: &[bool]| acc[1..=rules.len()] == region[..];
            if hints.is_empty() || !any_hint.is_match(example) {
                probe(example.clone(), &mut report);
            } else if let Some(v) = outside_hints(example, &rules, region, &any_hint) {
                probe(v, &mut report);
            } else {
                let mut with: Vec<&Pattern> = vec![&non_empty];
                with.extend(rules.iter().copied());
                with.push(&any_hint);
                // Explore only what a rule matching in the region matches.
                // (the one with the longest literal start: the narrowest).
                let required = region
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| **m)
                    .max_by_key(|(i, _)| rules[*i].literal_prefix().len())
                    .map_or(0, |(i, _)| i + 1);
                match search_within(
                    &with,
                    required,
                    |acc| acc[0] && in_region(acc) && !acc[rules.len() + 1],
                    &mut work,
                ) {
                    Search::Found(v) => probe(v, &mut report),
                    Search::NotFound => {}
                    Search::Unknown => complete = false,
                }
            }
            for h in &hints {
                let mut with: Vec<&Pattern> = vec![h];
                with.extend(rules.iter().copied());
                match search_within(&with, 0, |acc| acc[0] && in_region(acc), &mut work) {
                    Search::Found(v) => probe(v, &mut report),
                    Search::NotFound => {}
                    Search::Unknown => complete = false,
                }
            }
        }
        if !complete {
            report.incomplete.push(surface.clone());
        }
    }
    report
}
