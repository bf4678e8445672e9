//! Last-match-wins analysis of the ordered rule list (pattern-analysis spec
//! §5): rules that never decide anything (overridden by a later rule with
//! another action, or shadowed by later rules with the same one), rules
//! whose removal changes no decision, and tools a catch-all deny hides
//! from the agent (D21). Every finding carries a concrete example; every
//! question the bounded search cannot answer produces no finding.

use crate::core::pattern_algebra::{
    Inclusion, Overlap, Pattern, Search, included_in_union_within, overlap, overlaps, search_within,
};
use crate::formats::pi::engine::wildcard::{MatchOptions, Wildcard};
use crate::formats::pi::model::State;
use crate::formats::pi::model::config::{KNOWN_SURFACES, TOOLS};
use rustc_hash::FxHashMap;
use std::ops::Range;

/// One config rule in runtime order.
#[derive(Debug, Clone)]
pub struct OrderedRule {
    pub surface: String,
    pub pattern: String,
    pub action: State,
    /// A deny's reason: part of what the agent sees.
    pub reason: Option<String>,
    /// The pattern key (the surface key for a string surface).
    pub key_range: Range<usize>,
    pub value_range: Range<usize>,
    /// Where the rule lives when it is not in the analysed document
    /// (e.g. "the global config"); `None` for the document's own rules.
    pub elsewhere: Option<String>,
    /// A lower scope has the same surface and pattern: removing this rule
    /// would bring that one back, so "redundant" is not claimed.
    pub replaces_lower: bool,
}

/// The merged rule list of every scope, when the document is one of
/// several scope files: the precedence analysis then runs on what the
/// runtime really evaluates (a project rule keeps a global key's position,
/// a global catch-all may come later, …) and reports for the document's
/// own rules (those with `elsewhere: None`).
#[derive(Debug, Clone)]
pub struct ScopeRules {
    pub rules: Vec<OrderedRule>,
    /// The merged universal default.
    pub default: State,
    /// The runtime's startup check finds the merged global and project
    /// policy permissive for bash (`"*": "allow"` and no bash policy).
    pub permissive_bash: bool,
}

/// What the analysis found about one rule of the document.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// Never decides: a later rule with another action decides every call
    /// it matches, e.g. `example` is decided by `decided_by`.
    Overridden {
        rule: usize,
        decided_by: usize,
        example: String,
        all_by: Vec<usize>,
    },
    /// Never decides, and every call it matches gets its action anyway.
    Shadowed {
        rule: usize,
        decided_by: usize,
        example: String,
        all_by: Vec<usize>,
    },
    /// Decides some calls, but the earlier rules would decide each of them
    /// the same way.
    Redundant {
        rule: usize,
        instead: usize,
        example: String,
    },
    /// The tool-level check (`evaluate(tool, "*")`) is deny: the tool is
    /// removed from the agent, so the allow/ask rules listed are never
    /// reached.
    ToolHidden {
        tool: String,
        decided_by: Option<usize>,
        unreachable: Vec<usize>,
    },
}

/// Limits that keep the analysis of any document bounded.
const OVERLAP_BUDGET: usize = 4_000_000;
/// Rules after the last catch-all that are scanned for each earlier rule.
const TAIL_LIMIT: usize = 256;
/// Possible overlaps examined per rule (a rule starting with `*` may
/// overlap every other one).
const CANDIDATE_LIMIT: usize = 512;
const MAX_UNION: usize = 48;
/// Search work for the whole document (see `pattern_algebra::search_within`).
const SEARCH_BUDGET: usize = 10_000;

/// Surfaces whose calls carry several values (aliases or candidates): a
/// rule's removal may change which value decides, so "removing it changes
/// nothing" is not claimed there.
fn multi_valued(surface: &str) -> bool {
    crate::formats::pi::engine::rules::is_path_surface(surface)
        || surface == "mcp"
        || surface.starts_with("path_")
        || surface.starts_with("external_directory_")
}

/// A key or pattern with `*` or `?`.
pub fn has_wildcard(s: &str) -> bool {
    s.contains('*') || s.contains('?')
}

/// Extension tools: the value matched is always `*`.
pub fn is_extension_surface(key: &str) -> bool {
    let directional = key.starts_with("path_") || key.starts_with("external_directory_");
    (!has_wildcard(key) && !KNOWN_SURFACES.contains(&key) && !directional) || key == "task"
}

struct Group<'a> {
    /// Indices into the rule list, in order.
    members: Vec<usize>,
    patterns: Vec<&'a Pattern>,
}

/// What the precedence findings depend on: the rules' contents in order,
/// not where they are written — every field, length-prefixed, in one
/// buffer (compared whole on a hit: exact, not a hash).
#[derive(PartialEq)]
struct OrderKey(Vec<u8>);

impl OrderKey {
    fn new(rules: &[OrderedRule], default: State, home: &str) -> OrderKey {
        let mut b: Vec<u8> = Vec::with_capacity(rules.len() * 32 + home.len() + 16);
        let put = |b: &mut Vec<u8>, s: &str| {
            b.extend_from_slice(&(s.len() as u64).to_le_bytes());
            b.extend_from_slice(s.as_bytes());
        };
        put(&mut b, home);
        b.push(default as u8);
        for r in rules {
            put(&mut b, &r.surface);
            put(&mut b, &r.pattern);
            b.push(r.action as u8);
            match &r.reason {
                Some(x) => {
                    b.push(1);
                    put(&mut b, x);
                }
                None => b.push(0),
            }
            match &r.elsewhere {
                Some(x) => {
                    b.push(1);
                    put(&mut b, x);
                }
                None => b.push(0),
            }
            b.push(r.replaces_lower as u8);
        }
        OrderKey(b)
    }
}

/// Recently analysed rule lists (a few documents' worth).
static ORDER_CACHE: std::sync::Mutex<Vec<(OrderKey, std::sync::Arc<Vec<Finding>>)>> =
    std::sync::Mutex::new(Vec::new());
const ORDER_CACHE_ENTRIES: usize = 8;

/// [`analyze_rule_order`], memoised on the rules' contents: an edit that
/// changes no rule (spacing, comments, knobs, a reason's position) reuses
/// the findings of the last analysis of the same rules. The analysis is a
/// pure function of the key, so the answer is the same either way.
pub fn analyze_rule_order_memo(
    rules: &[OrderedRule],
    default: State,
    home: &str,
) -> std::sync::Arc<Vec<Finding>> {
    let key = OrderKey::new(rules, default, home);
    if let Ok(mut cache) = ORDER_CACHE.lock()
        && let Some(i) = cache.iter().position(|(k, _)| *k == key)
    {
        let hit = cache.remove(i);
        let findings = hit.1.clone();
        cache.insert(0, hit);
        return findings;
    }
    let findings = std::sync::Arc::new(analyze_rule_order(rules, default, home));
    if let Ok(mut cache) = ORDER_CACHE.lock() {
        cache.insert(0, (key, findings.clone()));
        cache.truncate(ORDER_CACHE_ENTRIES);
    }
    findings
}

pub fn analyze_rule_order(rules: &[OrderedRule], default: State, home: &str) -> Vec<Finding> {
    let patterns: Vec<Pattern> = rules
        .iter()
        .map(|r| crate::formats::pi::engine::wildcard::algebra_pattern(&r.pattern, home))
        .collect();
    // Each distinct surface key is compiled once (10,000 rules usually
    // have a handful of surfaces).
    let mut keys: Vec<&str> = rules.iter().map(|r| r.surface.as_str()).collect();
    keys.sort_unstable();
    keys.dedup();
    let compiled: Vec<Wildcard> = keys
        .iter()
        .map(|k| Wildcard::compile(k, home, MatchOptions::default()))
        .collect();
    let key_of: Vec<usize> = rules
        .iter()
        .map(|r| keys.binary_search(&r.surface.as_str()).unwrap_or(0))
        .collect();
    let mut literal_surfaces: Vec<&str> = rules
        .iter()
        .map(|r| r.surface.as_str())
        .filter(|s| !has_wildcard(s))
        .collect();
    literal_surfaces.sort_unstable();
    literal_surfaces.dedup();
    let mut out = Vec::new();
    let mut budget = OVERLAP_BUDGET;
    let mut work = SEARCH_BUDGET;
    for surface in &literal_surfaces {
        let matching: Vec<bool> = compiled.iter().map(|w| w.is_match(surface)).collect();
        let members: Vec<usize> = (0..rules.len()).filter(|&i| matching[key_of[i]]).collect();
        let group = Group {
            patterns: members.iter().map(|&i| &patterns[i]).collect(),
            members,
        };
        if TOOLS.contains(surface) || is_extension_surface(surface) {
            tool_hidden(surface, rules, &group, default, &mut out);
        }
        if is_extension_surface(surface) {
            extension_order(surface, rules, &group, &mut out);
        } else {
            value_order(surface, rules, &group, &mut budget, &mut work, &mut out);
        }
    }
    out
}

/// D21: `evaluate(tool, "*")` is deny, so the tool is not offered.
fn tool_hidden(
    tool: &str,
    rules: &[OrderedRule],
    g: &Group<'_>,
    default: State,
    out: &mut Vec<Finding>,
) {
    let decider = g
        .members
        .iter()
        .zip(&g.patterns)
        .rev()
        .find(|(_, p)| p.is_match("*"))
        .map(|(i, _)| *i);
    let state = decider.map_or(default, |i| rules[i].action);
    if state != State::Deny {
        return;
    }
    let unreachable: Vec<usize> = g
        .members
        .iter()
        .copied()
        .filter(|&i| {
            rules[i].action != State::Deny
                && rules[i].surface == tool
                && rules[i].elsewhere.is_none()
        })
        .collect();
    if !unreachable.is_empty() {
        out.push(Finding::ToolHidden {
            tool: tool.to_string(),
            decided_by: decider,
            unreachable,
        });
    }
}

/// Extension tools see only the value `*`: of the rules matching it, all
/// but the last are dead.
fn extension_order(surface: &str, rules: &[OrderedRule], g: &Group<'_>, out: &mut Vec<Finding>) {
    let matching: Vec<usize> = g
        .members
        .iter()
        .zip(&g.patterns)
        .filter(|(_, p)| p.is_match("*"))
        .map(|(i, _)| *i)
        .collect();
    let Some(&last) = matching.last() else { return };
    for &i in &matching[..matching.len() - 1] {
        if rules[i].surface != surface || rules[i].elsewhere.is_some() {
            continue;
        }
        let example = "*".to_string();
        let f = if rules[last].action != rules[i].action {
            Finding::Overridden {
                rule: i,
                decided_by: last,
                example,
                all_by: vec![last],
            }
        } else {
            Finding::Shadowed {
                rule: i,
                decided_by: last,
                example,
                all_by: vec![last],
            }
        };
        out.push(f);
    }
}

/// Candidate overlaps by literal prefix and suffix: two patterns can only
/// share a string when one's literal prefix starts the other's (and the
/// same for suffixes).
fn compatible(a: &[u16], b: &[u16]) -> bool {
    let n = a.len().min(b.len());
    a[..n] == b[..n]
}

fn compatible_suffix(a: &[u16], b: &[u16]) -> bool {
    let n = a.len().min(b.len());
    a[a.len() - n..] == b[b.len() - n..]
}

fn value_order(
    surface: &str,
    rules: &[OrderedRule],
    g: &Group<'_>,
    budget: &mut usize,
    work: &mut usize,
    out: &mut Vec<Finding>,
) {
    let n = g.members.len();
    let prefixes: Vec<Vec<u16>> = g.patterns.iter().map(|p| p.literal_prefix()).collect();
    let suffixes: Vec<Vec<u16>> = g.patterns.iter().map(|p| p.literal_suffix()).collect();
    // Index by prefix: the exact prefixes, and the set of prefix lengths.
    let mut by_prefix: FxHashMap<&[u16], Vec<usize>> = FxHashMap::default();
    for (k, p) in prefixes.iter().enumerate() {
        by_prefix.entry(p.as_slice()).or_default().push(k);
    }
    let mut sorted: Vec<usize> = (0..n).collect();
    sorted.sort_by(|&a, &b| prefixes[a].cmp(&prefixes[b]));
    let mut lengths: Vec<usize> = prefixes.iter().map(Vec::len).collect();
    lengths.sort_unstable();
    lengths.dedup();
    // `None`: the budget is spent; `Some(None)`: this rule is skipped.
    let overlapping = |k: usize, budget: &mut usize| -> Option<Option<Vec<usize>>> {
        let p = &prefixes[k];
        let mut cands: Vec<usize> = Vec::new();
        for &len in lengths.iter().take_while(|&&l| l <= p.len()) {
            if let Some(v) = by_prefix.get(&p[..len]) {
                cands.extend(
                    v.iter()
                        .copied()
                        .filter(|&c| prefixes[c].len() != p.len() || len == p.len()),
                );
            }
        }
        // Longer prefixes that start with `p`.
        let from = sorted.partition_point(|&x| prefixes[x].as_slice() < p.as_slice());
        for &x in &sorted[from..] {
            if !prefixes[x].starts_with(p) {
                break;
            }
            if prefixes[x].len() > p.len() {
                cands.push(x);
            }
        }
        cands.sort_unstable();
        cands.dedup();
        if cands.len() > CANDIDATE_LIMIT {
            // Too many possible overlaps to examine: no finding for it.
            return Some(None);
        }
        let mut res = Vec::new();
        for c in cands {
            if c == k
                || !compatible(&prefixes[c], p)
                || !compatible_suffix(&suffixes[c], &suffixes[k])
            {
                continue;
            }
            let cost = g.patterns[k].size() * g.patterns[c].size() + 1;
            if *budget < cost {
                *budget = 0;
                return None;
            }
            *budget -= cost;
            if overlaps(g.patterns[k], g.patterns[c]) != Some(false) {
                res.push(c);
            }
        }
        Some(Some(res))
    };
    // Rules that match everything make every earlier rule dead; the rules
    // after the last of them are the only other possible deciders.
    let universal: Vec<usize> = (0..n).filter(|&c| g.patterns[c].is_universal()).collect();
    let tail: Vec<usize> = universal
        .last()
        .map_or(Vec::new(), |&u| (u + 1..n).collect());
    for k in 0..n {
        let i = g.members[k];
        if rules[i].surface != surface || rules[i].elsewhere.is_some() {
            continue;
        }
        if let Some(&u_last) = universal.last()
            && u_last > k
        {
            if tail.len() <= TAIL_LIMIT {
                out.push(dead_by_universal(rules, g, k, &universal, &tail));
            }
            continue;
        }
        let Some(near) = overlapping(k, budget) else {
            return;
        };
        let Some(near) = near else { continue };
        let later: Vec<usize> = near.iter().copied().filter(|&c| c > k).collect();
        let earlier: Vec<usize> = near.iter().copied().filter(|&c| c < k).collect();
        if later.len() > MAX_UNION {
            // Too many to combine: a single later rule may still include it.
            let single = later.iter().copied().find(|&c| {
                included_in_union_within(g.patterns[k], &[g.patterns[c]], work)
                    == Inclusion::Included
            });
            if single.is_some() {
                let near_later: Vec<usize> =
                    later.iter().copied().rev().take(MAX_UNION).rev().collect();
                out.extend(dead(rules, g, k, &near_later, work));
            }
            continue;
        }
        // A call this rule decides (its example, unless a later rule
        // matches that).
        let mut decided: Option<String> = None;
        if !later.is_empty() {
            let inc: Vec<&Pattern> = later.iter().map(|&c| g.patterns[c]).collect();
            match included_in_union_within(g.patterns[k], &inc, work) {
                Inclusion::Included => {
                    out.extend(dead(rules, g, k, &later, work));
                    continue;
                }
                Inclusion::Unknown => continue,
                Inclusion::NotIncluded(w) => decided = Some(w),
            }
        }
        if earlier.is_empty()
            || multi_valued(surface)
            || rules[i].replaces_lower
            || earlier.len() + later.len() > MAX_UNION
        {
            continue;
        }
        let decided = decided.unwrap_or_else(|| g.patterns[k].example());
        if let Some(f) = redundant(rules, g, k, &earlier, &later, &decided, work) {
            out.push(f);
        }
    }
}

/// A rule before a rule that matches everything: dead. Its example is
/// decided by the last matching rule of the tail after the last universal
/// rule, or by that universal rule itself.
fn dead_by_universal(
    rules: &[OrderedRule],
    g: &Group<'_>,
    k: usize,
    universal: &[usize],
    tail: &[usize],
) -> Finding {
    let i = g.members[k];
    let action = rules[i].action;
    let u_last = *universal.last().expect("a universal rule");
    let example = g.patterns[k].example();
    let d = tail
        .iter()
        .rev()
        .copied()
        .find(|&c| g.patterns[c].is_match(&example))
        .unwrap_or(u_last);
    let broader = universal
        .iter()
        .rev()
        .copied()
        .find(|&c| c > k && rules[g.members[c]].action != action);
    match broader {
        Some(b) if rules[g.members[d]].action != action => Finding::Overridden {
            rule: i,
            decided_by: g.members[d],
            example,
            all_by: vec![g.members[b]],
        },
        _ => {
            let mut all_by = vec![g.members[d]];
            if d != u_last {
                all_by.push(g.members[u_last]);
            }
            Finding::Shadowed {
                rule: i,
                decided_by: g.members[d],
                example,
                all_by,
            }
        }
    }
}

/// The rule that decides `w` among group members after `k`.
fn decider_after(g: &Group<'_>, k: usize, later: &[usize], w: &str) -> Option<usize> {
    later
        .iter()
        .rev()
        .copied()
        .find(|&c| c > k && g.patterns[c].is_match(w))
}

/// A dead rule. It is an overridden exception when one later rule with
/// another action includes it on its own (`"git push *": "deny"` before
/// `"git *": "allow"`); otherwise it is shadowed by the later rules
/// together. The deciders named are found through concrete witnesses
/// (pairwise overlaps), so each one really decides some call it matches.
fn dead(
    rules: &[OrderedRule],
    g: &Group<'_>,
    k: usize,
    later: &[usize],
    work: &mut usize,
) -> Option<Finding> {
    let i = g.members[k];
    let action = rules[i].action;
    let mut witnesses: Vec<(String, usize)> = Vec::new();
    let note = |w: String, witnesses: &mut Vec<(String, usize)>| {
        if let Some(c) = decider_after(g, k, later, &w)
            && !witnesses.iter().any(|(_, d)| *d == c)
        {
            witnesses.push((w, c));
        }
    };
    note(g.patterns[k].example(), &mut witnesses);
    for &c in later {
        if let Overlap::Overlap(w) = overlap(g.patterns[k], g.patterns[c]) {
            note(w, &mut witnesses);
        }
    }
    let broader = later.iter().rev().copied().find(|&c| {
        rules[g.members[c]].action != action
            && included_in_union_within(g.patterns[k], &[g.patterns[c]], work)
                == Inclusion::Included
    });
    let mut all_by: Vec<usize> = witnesses.iter().map(|(_, c)| g.members[*c]).collect();
    all_by.sort_unstable();
    // Overridden only when some call it matches really gets another action.
    let differing = witnesses
        .iter()
        .find(|(_, d)| rules[g.members[*d]].action != action)
        .cloned();
    match (broader, differing) {
        (Some(c), Some((example, d))) => Some(Finding::Overridden {
            rule: i,
            decided_by: g.members[d],
            example,
            all_by: vec![g.members[c]],
        }),
        _ => {
            let (example, c) = witnesses.into_iter().next()?;
            Some(Finding::Shadowed {
                rule: i,
                decided_by: g.members[c],
                example,
                all_by,
            })
        }
    }
}

/// Not dead: is every call it decides decided the same way by the
/// earlier rules? The earlier decider must be a config rule (the default
/// may come from another scope). `decided` is a call it decides.
fn redundant(
    rules: &[OrderedRule],
    g: &Group<'_>,
    k: usize,
    earlier: &[usize],
    later: &[usize],
    decided: &str,
    work: &mut usize,
) -> Option<Finding> {
    let i = g.members[k];
    // Same decision and same message: action and reason.
    let same = |c: usize| {
        let (a, b) = (&rules[g.members[c]], &rules[i]);
        a.action == b.action && a.reason == b.reason
    };
    let earlier_decider = |w: &str| {
        earlier
            .iter()
            .rev()
            .copied()
            .find(|&c| g.patterns[c].is_match(w))
    };
    // 1. The call it is known to decide.
    let instead = earlier_decider(decided)?;
    if !same(instead) {
        return None;
    }
    // 2. Every call it matches must be matched by a later rule or by an
    //    earlier one with the same effect (exact, usually one glob match).
    let same_earlier: Vec<usize> = earlier.iter().copied().filter(|&c| same(c)).collect();
    let mut inc: Vec<&Pattern> = same_earlier.iter().map(|&c| g.patterns[c]).collect();
    inc.extend(later.iter().map(|&c| g.patterns[c]));
    if included_in_union_within(g.patterns[k], &inc, work) != Inclusion::Included {
        return None;
    }
    // 3. With another-effect earlier rules around, the last earlier match
    //    must still be a same-effect one: search for a counterexample.
    if same_earlier.len() < earlier.len() {
        let mut pats: Vec<&Pattern> = vec![g.patterns[k]];
        pats.extend(earlier.iter().map(|&c| g.patterns[c]));
        let ne = earlier.len();
        pats.extend(later.iter().map(|&c| g.patterns[c]));
        let sames: Vec<bool> = earlier.iter().map(|&c| same(c)).collect();
        let differs = search_within(
            &pats,
            0,
            |acc| {
                acc[0]
                    && !acc[1 + ne..].iter().any(|a| *a)
                    && acc[1..1 + ne]
                        .iter()
                        .rposition(|a| *a)
                        .is_none_or(|j| !sames[j])
            },
            work,
        );
        if differs != Search::NotFound {
            return None;
        }
    }
    Some(Finding::Redundant {
        rule: i,
        instead: g.members[instead],
        example: decided.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(spec: &[(&str, &str, State)]) -> Vec<OrderedRule> {
        spec.iter()
            .enumerate()
            .map(|(n, (s, p, a))| OrderedRule {
                surface: s.to_string(),
                pattern: p.to_string(),
                action: *a,
                reason: None,
                key_range: n..n,
                value_range: n..n,
                elsewhere: None,
                replaces_lower: false,
            })
            .collect()
    }

    #[test]
    fn overridden_exception() {
        let r = rules(&[
            ("bash", "git push *", State::Deny),
            ("bash", "*", State::Ask),
        ]);
        let f = analyze_rule_order(&r, State::Ask, "/home/u");
        assert_eq!(
            f,
            [Finding::Overridden {
                rule: 0,
                decided_by: 1,
                example: "git push".into(),
                all_by: vec![1]
            }]
        );
    }

    #[test]
    fn shadowed_and_redundant() {
        let r = rules(&[
            ("bash", "npm *", State::Allow),
            ("bash", "npm test", State::Allow),
            ("bash", "git status", State::Allow),
            ("bash", "git *", State::Allow),
        ]);
        let f = analyze_rule_order(&r, State::Ask, "/home/u");
        assert!(f.contains(&Finding::Redundant {
            rule: 1,
            instead: 0,
            example: "npm test".into()
        }));
        assert!(f.contains(&Finding::Shadowed {
            rule: 2,
            decided_by: 3,
            example: "git status".into(),
            all_by: vec![3]
        }));
        assert_eq!(f.len(), 2);
    }

    #[test]
    fn union_of_later_rules_and_wildcard_surfaces() {
        let r = rules(&[
            ("bash", "git *", State::Deny),
            ("bash", "git", State::Allow),
            ("ba*", "git ?*", State::Ask),
            ("bash", "git ", State::Ask),
        ]);
        let f = analyze_rule_order(&r, State::Ask, "/home/u");
        // No single later rule includes it: shadowed by the three together.
        assert!(
            matches!(&f[..], [Finding::Shadowed { rule: 0, all_by, .. }] if all_by == &vec![1, 2, 3])
        );
    }

    #[test]
    fn tool_hidden_by_catch_all() {
        let r = rules(&[("bash", "*", State::Deny), ("bash", "git *", State::Allow)]);
        let f = analyze_rule_order(&r, State::Ask, "/home/u");
        assert!(f.contains(&Finding::ToolHidden {
            tool: "bash".into(),
            decided_by: Some(0),
            unreachable: vec![1]
        }));
        let r = rules(&[("read", "src/*", State::Allow)]);
        let f = analyze_rule_order(&r, State::Deny, "/home/u");
        assert_eq!(
            f,
            [Finding::ToolHidden {
                tool: "read".into(),
                decided_by: None,
                unreachable: vec![0]
            }]
        );
    }

    #[test]
    fn no_finding_for_live_rules() {
        let r = rules(&[
            ("bash", "*", State::Ask),
            ("bash", "git *", State::Allow),
            ("bash", "git push *", State::Deny),
        ]);
        assert!(analyze_rule_order(&r, State::Ask, "/home/u").is_empty());
        // Not redundant against the default: it may come from another scope.
        let r = rules(&[("bash", "rm *", State::Ask)]);
        assert!(analyze_rule_order(&r, State::Ask, "/home/u").is_empty());
    }
}
