//! Scope merge with JavaScript object-spread semantics (spec §1.3): global
//! file → project file → global agent → project agent. A key keeps its base
//! position; new keys append; integer-like keys enumerate first, ascending.
//! Two maps merge shallowly; anything else replaces. Each rule keeps the
//! scope that last wrote it and where it was written.

use super::rules::{Layer, PathFlavor, Rule, RuleOrigin, RuleSet, RuleSource};
use crate::formats::pi::model::{RuleValue, State, Surface, SurfaceValue};
use crate::syntax::js_order::sort_index_keys_first;
use std::sync::Arc;

/// One scope's permission object and where it came from.
#[derive(Debug, Clone)]
pub struct Scope {
    pub origin: RuleOrigin,
    pub file: Option<Arc<str>>,
    pub surfaces: Vec<Surface>,
}

/// A pattern of the merged policy.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedPattern {
    pub pattern: String,
    pub value: RuleValue,
    pub origin: RuleOrigin,
    pub source: RuleSource,
}

#[derive(Debug, Clone, PartialEq)]
pub enum MergedValue {
    State {
        state: State,
        origin: RuleOrigin,
        source: RuleSource,
    },
    Map(Vec<MergedPattern>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct MergedSurface {
    pub key: String,
    pub value: MergedValue,
}

/// The merged `permission` object, in runtime order.
pub fn merge_scopes(scopes: &[Scope]) -> Vec<MergedSurface> {
    let mut merged: Vec<MergedSurface> = Vec::new();
    for scope in scopes {
        for s in &scope.surfaces {
            let incoming = scope_value(scope, s);
            match merged.iter_mut().find(|m| m.key == s.key) {
                Some(existing) => match (&mut existing.value, incoming) {
                    (MergedValue::Map(base), MergedValue::Map(over)) => {
                        // `{ ...base, ...over }`: a key keeps its position
                        // and takes the new value (an index, not a scan per
                        // key: maps can hold a hundred thousand patterns).
                        let mut at: rustc_hash::FxHashMap<String, usize> = base
                            .iter()
                            .enumerate()
                            .map(|(i, b)| (b.pattern.clone(), i))
                            .collect();
                        for p in over {
                            match at.get(&p.pattern) {
                                Some(&i) => base[i] = p,
                                None => {
                                    at.insert(p.pattern.clone(), base.len());
                                    base.push(p);
                                }
                            }
                        }
                        js_sort_patterns(base);
                    }
                    (slot, incoming) => *slot = incoming,
                },
                None => merged.push(MergedSurface {
                    key: s.key.clone(),
                    value: incoming,
                }),
            }
        }
        js_sort_surfaces(&mut merged);
    }
    merged
}

fn scope_value(scope: &Scope, s: &Surface) -> MergedValue {
    let src = |key: &std::ops::Range<usize>, value: &std::ops::Range<usize>| RuleSource {
        file: scope.file.clone(),
        key_range: key.clone(),
        value_range: value.clone(),
    };
    match &s.value {
        SurfaceValue::State { state, range } => MergedValue::State {
            state: *state,
            origin: scope.origin,
            source: src(&s.key_range, range),
        },
        SurfaceValue::Map { rules, .. } => MergedValue::Map(
            rules
                .iter()
                .map(|r| MergedPattern {
                    pattern: r.pattern.clone(),
                    value: r.value.clone(),
                    origin: scope.origin,
                    source: src(&r.key_range, &r.value_range),
                })
                .collect(),
        ),
    }
}

fn js_sort_patterns(p: &mut [MergedPattern]) {
    sort_index_keys_first(p, |x| x.pattern.as_str());
}

fn js_sort_surfaces(s: &mut [MergedSurface]) {
    sort_index_keys_first(s, |x| x.key.as_str());
}

/// MCP discovery targets allowed when any `mcp` rule allows.
pub const MCP_BASELINE_TARGETS: [&str; 5] = [
    "mcp_status",
    "mcp_list",
    "mcp_search",
    "mcp_describe",
    "mcp_connect",
];

/// The composed rule list: default, MCP baseline, config rules.
pub fn compose_rules(merged: &[MergedSurface], home: &str, flavor: PathFlavor) -> RuleSet {
    let (universal, universal_origin, universal_source) = match merged.iter().find(|m| m.key == "*")
    {
        Some(MergedSurface {
            value:
                MergedValue::State {
                    state,
                    origin,
                    source,
                },
            ..
        }) => (*state, *origin, Some(source.clone())),
        Some(MergedSurface {
            value: MergedValue::Map(patterns),
            ..
        }) => (
            State::Ask,
            patterns
                .iter()
                .find(|p| p.pattern == "*")
                .map_or(RuleOrigin::Builtin, |p| p.origin),
            None,
        ),
        None => (State::Ask, RuleOrigin::Builtin, None),
    };
    let mcp_baseline = merged.iter().any(|m| {
        m.key == "mcp"
            && match &m.value {
                MergedValue::State { state, .. } => *state == State::Allow,
                MergedValue::Map(p) => p.iter().any(|p| p.value.action == State::Allow),
            }
    });
    let count: usize = merged
        .iter()
        .filter(|m| m.key != "*")
        .map(|m| match &m.value {
            MergedValue::State { .. } => 1,
            MergedValue::Map(p) => p.len(),
        })
        .sum();
    // One allocation of the final size: the default, the baseline, then
    // the config rules (a policy can hold a hundred thousand rules).
    let mut rules = Vec::with_capacity(1 + MCP_BASELINE_TARGETS.len() + count);
    rules.push(Rule::new(
        "*",
        "*",
        universal,
        None,
        Layer::Default,
        universal_origin,
        universal_source,
        home,
        flavor,
    ));
    if mcp_baseline {
        for t in MCP_BASELINE_TARGETS {
            rules.push(Rule::new(
                "mcp",
                t,
                State::Allow,
                None,
                Layer::Baseline,
                RuleOrigin::Baseline,
                None,
                home,
                flavor,
            ));
        }
    }
    let config = &mut rules;
    for m in merged.iter().filter(|m| m.key != "*") {
        match &m.value {
            MergedValue::State {
                state,
                origin,
                source,
            } => config.push(Rule::new(
                &m.key,
                "*",
                *state,
                None,
                Layer::Config,
                *origin,
                Some(source.clone()),
                home,
                flavor,
            )),
            MergedValue::Map(patterns) => {
                for p in patterns {
                    config.push(Rule::new(
                        &m.key,
                        &p.pattern,
                        p.value.action,
                        p.value.reason.clone(),
                        Layer::Config,
                        p.origin,
                        Some(p.source.clone()),
                        home,
                        flavor,
                    ));
                }
            }
        }
    }
    RuleSet::new(rules)
}
