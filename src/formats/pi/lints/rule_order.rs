//! Last-match-wins analysis of the ordered rule list (pattern-analysis spec
//! §5): rules that never decide anything (overridden by a later rule with
//! another action, or shadowed by later rules with the same one), rules
//! whose removal changes no decision, and tools a catch-all deny hides
//! from the agent (D21). Every finding carries a concrete example; every
//! question the bounded search cannot answer produces no finding.

use crate::core::pattern_algebra::{
    Inclusion, Overlap, Pattern, Search, Work, included_in_union_within, overlap, overlaps,
    search_within,
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

/// The two budgets of one analysis (tests make them small to reach the
/// places where they run out).
fn budgets() -> [usize; 2] {
    #[cfg(test)]
    if let Some(b) = TEST_BUDGETS.with(|b| b.get()) {
        return b;
    }
    [OVERLAP_BUDGET, SEARCH_BUDGET]
}

#[cfg(test)]
thread_local! {
    static TEST_BUDGETS: std::cell::Cell<Option<[usize; 2]>> = const { std::cell::Cell::new(None) };
}

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
    /// Does the member's pattern match the value `*` (the tool-level check)?
    star: Vec<bool>,
}

/// What the precedence findings depend on: the rules' contents in order,
/// not where they are written — every field, length-prefixed, in one
/// buffer (compared whole on a hit: exact, not a hash). `spans` locates
/// each rule's fields, so two lists can be compared rule by rule.
struct OrderKey {
    bytes: Vec<u8>,
    spans: Vec<Range<usize>>,
}

impl PartialEq for OrderKey {
    fn eq(&self, other: &OrderKey) -> bool {
        self.bytes == other.bytes
    }
}

fn put(b: &mut Vec<u8>, s: &str) {
    b.extend_from_slice(&(s.len() as u64).to_le_bytes());
    b.extend_from_slice(s.as_bytes());
}

impl OrderKey {
    fn new(rules: &[OrderedRule], default: State, home: &str) -> OrderKey {
        let mut b: Vec<u8> = Vec::with_capacity(rules.len() * 32 + home.len() + 16);
        let mut spans = Vec::with_capacity(rules.len());
        put(&mut b, home);
        for n in budgets() {
            b.extend_from_slice(&(n as u64).to_le_bytes());
        }
        b.push(default as u8);
        for r in rules {
            let from = b.len();
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
            spans.push(from..b.len());
        }
        OrderKey { bytes: b, spans }
    }

    /// The home directory, the budgets and the default: everything before
    /// the rules.
    fn head(&self) -> &[u8] {
        &self.bytes[..self.spans.first().map_or(self.bytes.len(), |s| s.start)]
    }

    fn rule(&self, i: usize) -> &[u8] {
        &self.bytes[self.spans[i].clone()]
    }

    /// The rule's surface key (the first field).
    fn surface(&self, i: usize) -> &[u8] {
        let r = self.rule(i);
        let n = u64::from_le_bytes(r[..8].try_into().expect("a length")) as usize;
        &r[..8 + n]
    }
}

/// One member's value-precedence result, and how it met the two shared
/// budgets (overlap checks, search steps): what was left when it started,
/// what it spent, whether a step was refused. Its answer is a function of
/// the rules it can overlap and of those budgets — and for each budget,
/// starting with the same amount, or with at least what it spent when
/// nothing was refused, gives the same answer.
#[derive(Clone, Default)]
struct Outcome {
    /// False for the rest of a group after the overlap budget ran out.
    reached: bool,
    finding: Option<Finding>,
    start: [usize; 2],
    spent: [usize; 2],
    refused: [bool; 2],
}

impl Outcome {
    /// Would this member get the same answer with these budgets?
    fn holds(&self, budgets: [&Work; 2]) -> bool {
        self.reached
            && (0..2).all(|b| {
                budgets[b].left == self.start[b]
                    || (!self.refused[b] && budgets[b].left >= self.spent[b])
            })
    }
}

/// Member `k`'s outcome with the budgets as they are; `None` (with the
/// outcome) when the overlap budget ran out and the group ends there.
fn measured(ctx: &ValueOrder<'_>, k: usize, budget: &mut Work, work: &mut Work) -> (Outcome, bool) {
    let start = [budget.left, work.left];
    budget.refused = false;
    work.refused = false;
    let r = ctx.outcome(k, budget, work);
    let outcome = Outcome {
        reached: true,
        finding: r.clone().flatten(),
        start,
        spent: [start[0] - budget.left, start[1] - work.left],
        refused: [budget.refused, work.refused],
    };
    (outcome, r.is_none())
}

/// The rules whose key matches one literal surface, with what the
/// analysis found for them.
struct GroupState {
    surface: String,
    members: Vec<usize>,
    /// Tool-hidden and extension-order findings (cheap; redone on every
    /// update).
    head: Vec<Finding>,
    /// Value surfaces: the members' outcomes, by group position.
    value: bool,
    outcomes: Vec<Outcome>,
    /// Group positions sorted by literal prefix (ties by position), and
    /// where the run of each exact prefix starts and ends in it, by the
    /// prefix's hash (a lookup checks the prefix: see [`runs`]).
    sorted: Vec<usize>,
    by_prefix: FxHashMap<u64, (u32, u32)>,
    /// How many members have a literal prefix of each length.
    lengths: std::collections::BTreeMap<usize, usize>,
}

/// Everything one analysis of a rule list computed, kept so that a list
/// that differs in a few rules (a keystroke inside a pattern) is analysed
/// again only where those rules can change a finding. The result is the
/// same as a fresh analysis: a rule's outcome depends only on its own
/// contents, the rules whose literal prefixes are compatible with its own
/// (its only possible overlaps), the group's catch-alls and the rules
/// after the last one, and on the shared budgets (see [`Outcome`]).
struct OrderState {
    key: OrderKey,
    default: State,
    patterns: Vec<Pattern>,
    prefixes: Vec<Vec<u16>>,
    suffixes: Vec<Vec<u16>>,
    star: Vec<bool>,
    groups: Vec<GroupState>,
    findings: std::sync::Arc<Vec<Finding>>,
}

#[cfg(test)]
thread_local! {
    /// Updates made on this thread (tests check the path is taken).
    static UPDATES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Recently analysed rule lists (a few documents' worth).
static ORDER_CACHE: std::sync::Mutex<Vec<OrderState>> = std::sync::Mutex::new(Vec::new());
const ORDER_CACHE_ENTRIES: usize = 8;
/// An update handles at most this many changed rules; more is a new list.
const UPDATE_LIMIT: usize = 16;

/// [`analyze_rule_order`], memoised on the rules' contents and updated
/// in place for small edits: an edit that changes no rule (spacing,
/// comments, knobs, a reason's position) reuses the findings of the last
/// analysis of the same rules; an edit that changes a few rules re-examines
/// only the rules they can affect. Either way the answer is the one a
/// fresh analysis gives (tested against it on random edits).
pub fn analyze_rule_order_memo(
    rules: &[OrderedRule],
    default: State,
    home: &str,
) -> std::sync::Arc<Vec<Finding>> {
    let key = OrderKey::new(rules, default, home);
    let mut base: Option<(OrderState, Vec<usize>)> = None;
    if let Ok(mut cache) = ORDER_CACHE.lock() {
        if let Some(i) = cache.iter().position(|s| s.key == key) {
            let hit = cache.remove(i);
            let findings = hit.findings.clone();
            cache.insert(0, hit);
            return findings;
        }
        // The most recent state this list is a small edit of.
        if let Some((i, changed)) = cache
            .iter()
            .enumerate()
            .find_map(|(i, s)| changed_rules(s, &key).map(|c| (i, c)))
        {
            base = Some((cache.remove(i), changed));
        }
    }
    let state = match base {
        Some((old, changed)) => update(old, &changed, rules, key, home)
            .unwrap_or_else(|key| analyse(rules, default, home, key)),
        None => analyse(rules, default, home, key),
    };
    let findings = state.findings.clone();
    if let Ok(mut cache) = ORDER_CACHE.lock() {
        cache.insert(0, state);
        cache.truncate(ORDER_CACHE_ENTRIES);
    }
    findings
}

/// The rules that differ between `old` and `key` when the lists are a
/// small edit of each other: same length, home, default and surfaces.
fn changed_rules(old: &OrderState, key: &OrderKey) -> Option<Vec<usize>> {
    if old.key.spans.len() != key.spans.len() || old.key.head() != key.head() {
        return None;
    }
    let mut changed = Vec::new();
    for i in 0..key.spans.len() {
        if old.key.rule(i) != key.rule(i) {
            if old.key.surface(i) != key.surface(i) || changed.len() == UPDATE_LIMIT {
                return None;
            }
            changed.push(i);
        }
    }
    Some(changed)
}

pub fn analyze_rule_order(rules: &[OrderedRule], default: State, home: &str) -> Vec<Finding> {
    let key = OrderKey::new(rules, default, home);
    let state = analyse(rules, default, home, key);
    std::sync::Arc::try_unwrap(state.findings).unwrap_or_else(|a| (*a).clone())
}

/// A fresh analysis of the whole list.
fn analyse(rules: &[OrderedRule], default: State, home: &str, key: OrderKey) -> OrderState {
    let patterns: Vec<Pattern> = rules
        .iter()
        .map(|r| crate::formats::pi::engine::wildcard::algebra_pattern(&r.pattern, home))
        .collect();
    let prefixes: Vec<Vec<u16>> = patterns.iter().map(Pattern::literal_prefix).collect();
    let suffixes: Vec<Vec<u16>> = patterns.iter().map(Pattern::literal_suffix).collect();
    let star: Vec<bool> = patterns.iter().map(Pattern::matches_star).collect();
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
    let [overlap_budget, search_budget] = budgets();
    let mut budget = Work::new(overlap_budget);
    let mut work = Work::new(search_budget);
    let mut groups = Vec::with_capacity(literal_surfaces.len());
    for surface in &literal_surfaces {
        let matching: Vec<bool> = compiled.iter().map(|w| w.is_match(surface)).collect();
        let members: Vec<usize> = (0..rules.len()).filter(|&i| matching[key_of[i]]).collect();
        let mut group = GroupState {
            surface: surface.to_string(),
            members,
            head: Vec::new(),
            value: !is_extension_surface(surface),
            outcomes: Vec::new(),
            sorted: Vec::new(),
            by_prefix: FxHashMap::default(),
            lengths: Default::default(),
        };
        let g = view(&group.members, &patterns, &star);
        head_findings(&mut group, rules, &g, default);
        if group.value {
            let n = group.members.len();
            let pre = |k: usize| prefixes[group.members[k]].as_slice();
            let mut keyed: Vec<(&[u16], usize)> = (0..n).map(|k| (pre(k), k)).collect();
            keyed.sort_unstable();
            group.sorted = keyed.into_iter().map(|(_, k)| k).collect();
            for k in 0..n {
                *group.lengths.entry(pre(k).len()).or_default() += 1;
            }
            runs(&mut group, &prefixes);
            let mut outcomes = vec![Outcome::default(); n];
            let ctx = ValueOrder::new(surface, rules, &g, &group, &prefixes, &suffixes);
            for (k, o) in outcomes.iter_mut().enumerate() {
                let (outcome, ends) = measured(&ctx, k, &mut budget, &mut work);
                *o = outcome;
                if ends {
                    // The budget is spent: no finding for the rest of the
                    // group (and the later groups start with none).
                    break;
                }
            }
            group.outcomes = outcomes;
        }
        groups.push(group);
    }
    OrderState {
        key,
        default,
        findings: std::sync::Arc::new(assemble(&groups)),
        patterns,
        prefixes,
        suffixes,
        star,
        groups,
    }
}

fn view<'a>(members: &[usize], patterns: &'a [Pattern], star: &[bool]) -> Group<'a> {
    Group {
        members: members.to_vec(),
        patterns: members.iter().map(|&i| &patterns[i]).collect(),
        star: members.iter().map(|&i| star[i]).collect(),
    }
}

fn head_findings(group: &mut GroupState, rules: &[OrderedRule], g: &Group<'_>, default: State) {
    group.head.clear();
    let surface = group.surface.as_str();
    if TOOLS.contains(&surface) || is_extension_surface(surface) {
        tool_hidden(surface, rules, g, default, &mut group.head);
    }
    if !group.value {
        extension_order(surface, rules, g, &mut group.head);
    }
}

/// Findings in the order of a fresh analysis: surface by surface, the
/// tool-level ones first, then rule by rule.
fn assemble(groups: &[GroupState]) -> Vec<Finding> {
    let mut out = Vec::new();
    for g in groups {
        out.extend(g.head.iter().cloned());
        out.extend(g.outcomes.iter().filter_map(|o| o.finding.clone()));
    }
    out
}

/// Analyse again after `changed` rules were edited (nothing else moved):
/// the members whose overlaps may involve a changed rule are examined
/// again, and so is every member whose budgets would not give the same
/// answer as before (around the place where a budget runs out). `Err`
/// gives the key back when a rule became or stopped being a catch-all
/// (every rule before it changes): then only a fresh analysis will do.
fn update(
    mut st: OrderState,
    changed: &[usize],
    rules: &[OrderedRule],
    key: OrderKey,
    home: &str,
) -> Result<OrderState, OrderKey> {
    let mut old_prefix: Vec<(usize, Vec<u16>)> = Vec::with_capacity(changed.len());
    for &j in changed {
        let p = crate::formats::pi::engine::wildcard::algebra_pattern(&rules[j].pattern, home);
        if p.is_universal() || st.patterns[j].is_universal() {
            return Err(key);
        }
        let new = p.literal_prefix();
        old_prefix.push((j, std::mem::replace(&mut st.prefixes[j], new)));
        st.suffixes[j] = p.literal_suffix();
        st.star[j] = p.matches_star();
        st.patterns[j] = p;
    }
    let default = st.default;
    let [overlap_budget, search_budget] = budgets();
    let mut budget = Work::new(overlap_budget);
    let mut work = Work::new(search_budget);
    for group in &mut st.groups {
        let g = view(&group.members, &st.patterns, &st.star);
        head_findings(group, rules, &g, default);
        if !group.value {
            continue;
        }
        // A rule before the last catch-all names its decider from the rules
        // after it that match its example — and such a rule's prefix is
        // compatible with its own (both begin the example), so it is among
        // the compatible members too.
        let mut dirty: Vec<usize> = Vec::new();
        let mut moved: Vec<(usize, &[u16])> = Vec::new();
        for (j, old) in &old_prefix {
            if let Ok(k) = group.members.binary_search(j) {
                if *old != st.prefixes[*j] {
                    moved.push((k, old));
                }
                dirty.push(k);
            }
        }
        if !moved.is_empty() {
            reindex(group, &moved, &st.prefixes);
            runs(group, &st.prefixes);
        }
        for (j, old) in &old_prefix {
            if group.members.binary_search(j).is_ok() {
                compatible_members(group, old, &st.prefixes, &mut dirty);
                compatible_members(group, &st.prefixes[*j], &st.prefixes, &mut dirty);
            }
        }
        dirty.sort_unstable();
        dirty.dedup();
        let ctx = ValueOrder::new(&group.surface, rules, &g, group, &st.prefixes, &st.suffixes);
        let mut fresh: Vec<(usize, Outcome)> = Vec::new();
        let mut end = group.outcomes.len();
        for (k, o) in group.outcomes.iter().enumerate() {
            if dirty.binary_search(&k).is_err() && o.holds([&budget, &work]) {
                budget.left -= o.spent[0];
                work.left -= o.spent[1];
                continue;
            }
            let (outcome, ends) = measured(&ctx, k, &mut budget, &mut work);
            fresh.push((k, outcome));
            if ends {
                end = k + 1;
                break;
            }
        }
        for (k, o) in fresh {
            group.outcomes[k] = o;
        }
        for o in &mut group.outcomes[end..] {
            *o = Outcome::default();
        }
    }
    #[cfg(test)]
    UPDATES.with(|u| u.set(u.get() + 1));
    st.key = key;
    st.findings = std::sync::Arc::new(assemble(&st.groups));
    Ok(st)
}

/// The hash of a literal prefix, one unit at a time (so that every prefix
/// of a string is hashed in one pass).
const PREFIX_SEED: u64 = 0x243f_6a88_85a3_08d3;
fn prefix_step(h: u64, unit: u16) -> u64 {
    (h.rotate_left(5) ^ u64::from(unit)).wrapping_mul(0x517c_c1b7_2722_0a95)
}
fn prefix_hash(p: &[u16]) -> u64 {
    p.iter().fold(PREFIX_SEED, |h, &u| prefix_step(h, u))
}

/// Index the runs of equal prefixes in `group.sorted`. Two prefixes with
/// the same hash keep the first run; a lookup that finds another prefix
/// there searches `sorted` instead.
fn runs(group: &mut GroupState, prefixes: &[Vec<u16>]) {
    let pre = |x: usize| prefixes[group.members[x]].as_slice();
    group.by_prefix.clear();
    let mut i = 0;
    while i < group.sorted.len() {
        let p = pre(group.sorted[i]);
        let mut j = i + 1;
        while j < group.sorted.len() && pre(group.sorted[j]) == p {
            j += 1;
        }
        group
            .by_prefix
            .entry(prefix_hash(p))
            .or_insert((i as u32, j as u32));
        i = j;
    }
}

/// Move the members whose prefixes changed (group position, old prefix)
/// to their new places in the group's index (the runs are indexed again
/// by the caller). All leave `sorted` before any comes back, so that
/// each is placed by a search over entries that are all in order.
fn reindex(group: &mut GroupState, moved: &[(usize, &[u16])], prefixes: &[Vec<u16>]) {
    for &(k, old) in moved {
        let new = &prefixes[group.members[k]];
        if let Some(c) = group.lengths.get_mut(&old.len()) {
            *c -= 1;
            if *c == 0 {
                group.lengths.remove(&old.len());
            }
        }
        *group.lengths.entry(new.len()).or_default() += 1;
    }
    group.sorted.retain(|x| !moved.iter().any(|(k, _)| k == x));
    let pre = |x: usize| prefixes[group.members[x]].as_slice();
    for &(k, _) in moved {
        let at = group.sorted.partition_point(|&x| (pre(x), x) < (pre(k), k));
        group.sorted.insert(at, k);
    }
}

/// Members whose literal prefix starts `p` or starts with it: every rule
/// a rule with prefix `p` may overlap.
fn compatible_members(group: &GroupState, p: &[u16], prefixes: &[Vec<u16>], out: &mut Vec<usize>) {
    let pre = |x: usize| prefixes[group.members[x]].as_slice();
    let (mut h, mut hashed) = (PREFIX_SEED, 0);
    for (&len, _) in group.lengths.range(..=p.len()) {
        while hashed < len {
            h = prefix_step(h, p[hashed]);
            hashed += 1;
        }
        let q = &p[..len];
        let run = match group.by_prefix.get(&h) {
            Some(&(a, b)) if pre(group.sorted[a as usize]) == q => a as usize..b as usize,
            Some(_) => {
                let a = group.sorted.partition_point(|&x| pre(x) < q);
                let b = group.sorted.partition_point(|&x| pre(x) <= q);
                a..b
            }
            None => continue,
        };
        out.extend_from_slice(&group.sorted[run]);
    }
    let from = group.sorted.partition_point(|&x| pre(x) < p);
    for &x in &group.sorted[from..] {
        if !pre(x).starts_with(p) {
            break;
        }
        if pre(x).len() > p.len() {
            out.push(x);
        }
    }
}

/// Extension tools see only the value `*`: of the rules matching it, all
/// but the last are dead.
fn extension_order(surface: &str, rules: &[OrderedRule], g: &Group<'_>, out: &mut Vec<Finding>) {
    let matching: Vec<usize> = g
        .members
        .iter()
        .zip(&g.star)
        .filter(|(_, s)| **s)
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
        .zip(&g.star)
        .rev()
        .find(|(_, s)| **s)
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

/// Candidate overlaps by literal suffix: two patterns can only share a
/// string when one's literal suffix ends the other's (the prefixes are
/// matched by the index).
fn compatible_suffix(a: &[u16], b: &[u16]) -> bool {
    let n = a.len().min(b.len());
    a[a.len() - n..] == b[b.len() - n..]
}

/// The value-precedence analysis of one literal surface's group, rule by
/// rule.
struct ValueOrder<'a> {
    surface: &'a str,
    rules: &'a [OrderedRule],
    g: &'a Group<'a>,
    group: &'a GroupState,
    prefixes: &'a [Vec<u16>],
    suffixes: &'a [Vec<u16>],
    universal: Vec<usize>,
    tail: Vec<usize>,
}

impl<'a> ValueOrder<'a> {
    fn new(
        surface: &'a str,
        rules: &'a [OrderedRule],
        g: &'a Group<'a>,
        group: &'a GroupState,
        prefixes: &'a [Vec<u16>],
        suffixes: &'a [Vec<u16>],
    ) -> ValueOrder<'a> {
        let n = g.members.len();
        // Rules that match everything make every earlier rule dead; the
        // rules after the last of them are the only other possible
        // deciders.
        let universal: Vec<usize> = (0..n).filter(|&c| g.patterns[c].is_universal()).collect();
        let tail: Vec<usize> = universal
            .last()
            .map_or(Vec::new(), |&u| (u + 1..n).collect());
        ValueOrder {
            surface,
            rules,
            g,
            group,
            prefixes,
            suffixes,
            universal,
            tail,
        }
    }

    /// The group positions whose patterns overlap member `k`'s, ascending.
    /// `None`: the budget is spent; `Some(None)`: too many candidates, no
    /// finding for this rule.
    fn overlapping(&self, k: usize, budget: &mut Work) -> Option<Option<Vec<usize>>> {
        let g = self.g;
        let i = g.members[k];
        let mut cands: Vec<usize> = Vec::new();
        compatible_members(self.group, &self.prefixes[i], self.prefixes, &mut cands);
        cands.sort_unstable();
        cands.dedup();
        if cands.len() > CANDIDATE_LIMIT {
            // Too many possible overlaps to examine: no finding for it.
            return Some(None);
        }
        let mut res = Vec::new();
        for c in cands {
            if c == k || !compatible_suffix(&self.suffixes[g.members[c]], &self.suffixes[i]) {
                continue;
            }
            let cost = g.patterns[k].size() * g.patterns[c].size() + 1;
            if !budget.take(cost) {
                return None;
            }
            if overlaps(g.patterns[k], g.patterns[c]) != Some(false) {
                res.push(c);
            }
        }
        Some(Some(res))
    }

    /// Member `k`'s finding, if any; `None` when the budget is spent.
    fn outcome(&self, k: usize, budget: &mut Work, work: &mut Work) -> Option<Option<Finding>> {
        let (rules, g) = (self.rules, self.g);
        let i = g.members[k];
        if rules[i].surface != self.surface || rules[i].elsewhere.is_some() {
            return Some(None);
        }
        if let Some(&u_last) = self.universal.last()
            && u_last > k
        {
            if self.tail.len() <= TAIL_LIMIT {
                return Some(Some(dead_by_universal(
                    rules,
                    g,
                    k,
                    &self.universal,
                    &self.tail,
                )));
            }
            return Some(None);
        }
        let near = self.overlapping(k, budget)?;
        let Some(near) = near else {
            return Some(None);
        };
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
                return Some(dead(rules, g, k, &near_later, work));
            }
            return Some(None);
        }
        // A call this rule decides (its example, unless a later rule
        // matches that).
        let mut decided: Option<String> = None;
        if !later.is_empty() {
            let inc: Vec<&Pattern> = later.iter().map(|&c| g.patterns[c]).collect();
            match included_in_union_within(g.patterns[k], &inc, work) {
                Inclusion::Included => return Some(dead(rules, g, k, &later, work)),
                Inclusion::Unknown => return Some(None),
                Inclusion::NotIncluded(w) => decided = Some(w),
            }
        }
        if earlier.is_empty()
            || multi_valued(self.surface)
            || rules[i].replaces_lower
            || earlier.len() + later.len() > MAX_UNION
        {
            return Some(None);
        }
        let decided = decided.unwrap_or_else(|| g.patterns[k].example());
        Some(redundant(rules, g, k, &earlier, &later, &decided, work))
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
    work: &mut Work,
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
    work: &mut Work,
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

    /// A small deterministic generator (the analysis is what is tested).
    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) % n as u64) as usize
        }
        fn pattern(&mut self) -> String {
            const PARTS: [&str; 10] = ["git", "npm", " ", "*", "?", "a", "b", "push", " *", "x"];
            if self.below(10) == 0 {
                return "*".into();
            }
            let n = 1 + self.below(4);
            (0..n).map(|_| PARTS[self.below(PARTS.len())]).collect()
        }
        fn action(&mut self) -> State {
            [State::Allow, State::Ask, State::Deny][self.below(3)]
        }
    }

    fn random_rules(rng: &mut Lcg, n: usize) -> Vec<OrderedRule> {
        const SURFACES: [&str; 8] = ["bash", "bash", "bash", "read", "ba*", "*", "mcp", "myext"];
        (0..n)
            .map(|i| OrderedRule {
                surface: SURFACES[rng.below(SURFACES.len())].into(),
                pattern: rng.pattern(),
                action: rng.action(),
                reason: (rng.below(4) == 0).then(|| format!("r{}", rng.below(2))),
                key_range: i..i,
                value_range: i..i,
                elsewhere: (rng.below(6) == 0).then(|| "the global config".into()),
                replaces_lower: rng.below(8) == 0,
            })
            .collect()
    }

    /// An edit of one to three rules, as typing makes them: a character
    /// added or removed, a new pattern, another action.
    fn edit(rng: &mut Lcg, rules: &mut [OrderedRule]) {
        for _ in 0..1 + rng.below(3) {
            let r = &mut rules[rng.below(rules.len())];
            match rng.below(4) {
                0 => r.pattern.push(['a', '*', ' ', '?', 'x'][rng.below(5)]),
                1 => {
                    r.pattern.pop();
                }
                2 => r.pattern = rng.pattern(),
                _ => r.action = rng.action(),
            }
        }
    }

    #[test]
    fn an_update_after_an_edit_equals_a_fresh_analysis() {
        updates_equal_fresh_analyses(7, None);
    }

    /// Budgets small enough to run out in most lists: the members around
    /// the place where one runs out are examined again.
    #[test]
    fn an_update_where_a_budget_runs_out_equals_a_fresh_analysis() {
        for (seed, budgets) in [(11, [400, 60]), (12, [2_000, 300]), (13, [150, 5_000])] {
            updates_equal_fresh_analyses(seed, Some(budgets));
        }
    }

    fn updates_equal_fresh_analyses(seed: u64, budgets: Option<[usize; 2]>) {
        TEST_BUDGETS.with(|b| b.set(budgets));
        let mut rng = Lcg(seed);
        let before = UPDATES.with(|u| u.get());
        for round in 0..600 {
            let n = 4 + rng.below(40);
            let mut rules = random_rules(&mut rng, n);
            let home = format!("/home/u{seed}-{round}");
            analyze_rule_order_memo(&rules, State::Ask, &home);
            for _ in 0..4 {
                edit(&mut rng, &mut rules);
                let updated = analyze_rule_order_memo(&rules, State::Ask, &home);
                let fresh = analyze_rule_order(&rules, State::Ask, &home);
                assert_eq!(*updated, fresh, "round {round}: {rules:#?}");
            }
        }
        // Most edits were updates, not fresh analyses.
        assert!(UPDATES.with(|u| u.get()) - before > 1200);
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
