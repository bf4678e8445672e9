//! What a config change does: two policies (before and after) compared
//! call by call. For each surface, the rules of both sides that take part
//! in its decisions are read as patterns of the shared algebra, with the
//! format's hints (where the runtime decides by itself). One breadth-first
//! walk of their product automaton visits every state once and sorts the
//! values into classes: the rule that decides on each side (by the
//! format's precedence) and the hints that match. Each class's shortest
//! value becomes a call that both simulators decide; each reported
//! difference is the simulators' answer, never the algebra's guess. The
//! walk is exact and complete when it ends within its budget (a surface
//! whose walk does not is named as incomplete); its cost grows with the
//! number of automaton states (about the total length of the patterns),
//! not with the number of value regions, which grows exponentially.
//!
//! Why one value per class suffices: on a surface whose decision depends
//! on the value only through which rule decides and which runtime checks
//! (hints) apply, two values of a class are decided alike on each side.
//! Compound shell commands are decided per command by the runtimes, and a
//! command alone is a value of its class, so a change shows on a single
//! command first.

use crate::analysis::report::{DecidingRule, EffectivePolicyReport};
use crate::core::decision::Decision;
use crate::core::pattern_algebra::{Pattern, Search, Work, explore_pruned, overlaps};
use crate::formats::{Format, Simulator};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashSet;

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
    /// The agents whose lists decide the call so (when each agent is
    /// compared on its own; empty: the session's one list).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
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
    /// Surfaces not compared completely: differences there may be
    /// missing. (Written only with a reason, by `mark_incomplete`.)
    pub incomplete: Vec<String>,
    /// Why, per surface of `incomplete` (each reason once).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub incomplete_reasons: Vec<IncompleteReason>,
    /// The agents compared one by one (empty: the session's one list).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<String>,
}

/// Why a surface was not compared completely.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IncompleteReason {
    pub surface: String,
    pub reason: String,
}

pub use crate::core::pattern_algebra::path_hints;

/// The positions of automaton states one surface's walk may keep (its
/// memory: 8 bytes each), and the work it may spend (positions stepped).
const SURFACE_STATES: usize = 12_000_000;
pub const SURFACE_WORK: usize = 100_000_000;

/// The reason of a walk or search past its budget.
const OUT_OF_BUDGET: &str = "the comparison ran out of its budget (`--budget` raises it)";

/// A pattern of the comparison: its surface and compiled form (one per
/// surface and source, see [`EntryIndex`]).
struct Entry {
    surface: String,
    pattern: Pattern,
}

/// Each entry's position, by (surface, source): both sides' rules share
/// entries (found by hash, not by a scan per rule).
type EntryIndex = rustc_hash::FxHashMap<(String, String), usize>;

/// A rule `diff` cannot write as a pattern: (surface, pattern, action).
type Uncompared<'a> = (&'a str, &'a str, &'a str);

/// One side's rules, as (entry, action) in evaluation order; the rules the
/// format cannot write as a pattern go to `uncompared`, in order.
fn side_rules<'a>(
    format: &dyn Format,
    policy: &'a EffectivePolicyReport,
    home: &str,
    entries: &mut Vec<Entry>,
    at: &mut EntryIndex,
    uncompared: &mut Vec<Uncompared<'a>>,
) -> Vec<(usize, Decision)> {
    let mut out = Vec::new();
    for rule in &policy.rules {
        let Some((surface, source, pattern)) = format.diff_pattern(rule, home) else {
            uncompared.push((&rule.surface, &rule.pattern, &rule.action));
            continue;
        };
        let Some(action) = Decision::parse(&rule.action) else {
            continue;
        };
        let i = match at.get(&(surface.clone(), source.clone())) {
            Some(&i) => i,
            None => {
                at.insert((surface.clone(), source), entries.len());
                entries.push(Entry { surface, pattern });
                entries.len() - 1
            }
        };
        out.push((i, action));
    }
    out
}

impl DiffReport {
    /// `surface` was not compared completely, because of `reason`.
    fn mark_incomplete(&mut self, surface: &str, reason: String) {
        if !self.incomplete.iter().any(|s| s == surface) {
            self.incomplete.push(surface.to_string());
        }
        if !self
            .incomplete_reasons
            .iter()
            .any(|r| r.surface == surface && r.reason == reason)
        {
            self.incomplete_reasons.push(IncompleteReason {
                surface: surface.to_string(),
                reason,
            });
        }
    }

    /// The reasons `surface` was not compared completely.
    pub fn reasons_for(&self, surface: &str) -> Vec<&str> {
        self.incomplete_reasons
            .iter()
            .filter(|r| r.surface == surface)
            .map(|r| r.reason.as_str())
            .collect()
    }

    /// One more difference whose call is now decided `after`.
    fn count(&mut self, after: &str) {
        match after {
            "allow" => self.newly_allowed += 1,
            "ask" => self.newly_asked += 1,
            _ => self.newly_denied += 1,
        }
    }

    /// Adds the differences of `agent`'s lists: one found for another
    /// agent too (same change, example and rules) names both.
    pub fn merge_agent(&mut self, agent: &str, other: DiffReport) {
        self.agents.push(agent.to_string());
        self.surfaces = self.surfaces.max(other.surfaces);
        self.probes += other.probes;
        for r in other.incomplete_reasons {
            self.mark_incomplete(&format!("{} (agent {agent})", r.surface), r.reason);
        }
        for mut d in other.differences {
            if let Some(same) = self.differences.iter_mut().find(|x| {
                x.surface == d.surface
                    && x.example == d.example
                    && x.before == d.before
                    && x.after == d.after
                    && x.before_rule == d.before_rule
                    && x.after_rule == d.after_rule
            }) {
                same.agents.push(agent.to_string());
                continue;
            }
            self.count(d.after);
            d.agents = vec![agent.to_string()];
            self.differences.push(d);
        }
    }
}

/// Compares two policies of `format`.
pub fn diff(format: &dyn Format, before: Side<'_>, after: Side<'_>, home: &str) -> DiffReport {
    diff_within(format, before, after, home, SURFACE_WORK)
}

/// [`diff`] with `surface_work` for each surface's walk and searches
/// (past it the surface is incomplete).
pub fn diff_within(
    format: &dyn Format,
    before: Side<'_>,
    after: Side<'_>,
    home: &str,
    surface_work: usize,
) -> DiffReport {
    let mut entries: Vec<Entry> = Vec::new();
    let (mut skipped_before, mut skipped_after) = (Vec::new(), Vec::new());
    let mut at = EntryIndex::default();
    let rules_before = side_rules(
        format,
        before.policy,
        home,
        &mut entries,
        &mut at,
        &mut skipped_before,
    );
    let rules_after = side_rules(
        format,
        after.policy,
        home,
        &mut entries,
        &mut at,
        &mut skipped_after,
    );
    let mut surfaces: Vec<&str> = entries.iter().map(|e| e.surface.as_str()).collect();
    surfaces.sort_unstable();
    surfaces.dedup();
    let precedence = format.diff_precedence();
    let decider_matters = format.diff_decider_matters();
    // Beyond the rules (mode, directories, defaults, trust), the policies
    // are the same: a class decided by the same action on both sides is
    // decided alike.
    let same_settings =
        before.policy.notes == after.policy.notes && before.policy.details == after.policy.details;
    let mut report = DiffReport {
        surfaces: surfaces.len(),
        ..Default::default()
    };
    // Rules `diff` cannot write as patterns (every rule of a runtime
    // without `diff_pattern`; a rule of another whose shape has none):
    // where such rules differ between the sides, their surfaces are not
    // compared — never "0 differences".
    if skipped_before != skipped_after {
        // Each surface's rules in order, side by side (one pass per side),
        // surfaces in the order they first appear.
        let mut order: Vec<&str> = Vec::new();
        let mut by_surface: std::collections::HashMap<&str, [Vec<(&str, &str)>; 2]> =
            Default::default();
        for (side, rules) in [&skipped_before, &skipped_after].into_iter().enumerate() {
            for &(surface, pattern, action) in rules {
                let sides = by_surface.entry(surface).or_insert_with(|| {
                    order.push(surface);
                    Default::default()
                });
                sides[side].push((pattern, action));
            }
        }
        for surface in order {
            let [b, a] = &by_surface[surface];
            if b != a {
                // A few of the rules on one side only (sets: a changed
                // list of thousands stays linear).
                let (sb, sa): (HashSet<_>, HashSet<_>) = (b.iter().collect(), a.iter().collect());
                let changed: Vec<String> = b
                    .iter()
                    .chain(a)
                    .filter(|r| !(sb.contains(r) && sa.contains(r)))
                    .take(3)
                    .map(|(p, _)| format!("`{}`", crate::text::clip_line(p)))
                    .collect();
                report.mark_incomplete(
                    surface,
                    format!(
                        "a changed rule diff cannot compare ({})",
                        changed.join(", ")
                    ),
                );
            }
        }
    }
    let mut seen_calls: HashSet<(String, String)> = HashSet::new();
    for surface in surfaces {
        // The entries that take part, by position in the product (after
        // the "non-empty" pattern), then the hints.
        let applicable: Vec<usize> = (0..entries.len())
            .filter(|&i| format.diff_applies(&entries[i].surface, surface))
            .collect();
        let slot = |i: usize| applicable.binary_search(&i).ok().map(|p| p + 1);
        let side = |rules: &[(usize, Decision)]| -> Vec<(usize, Decision, usize)> {
            rules
                .iter()
                .filter_map(|&(i, a)| slot(i).map(|s| (s, a, i)))
                .collect()
        };
        let (sb, sa) = (side(&rules_before), side(&rules_after));
        // The same rules in the same order with the same settings decide
        // every value alike: nothing to compare here.
        let same_rules = sb
            .iter()
            .map(|r| (r.2, r.1))
            .eq(sa.iter().map(|r| (r.2, r.1)));
        if same_rules && same_settings {
            continue;
        }
        let mut hints = format.diff_hints(surface, home);
        // Hints from here on are compared by example only.
        let exact_hints = hints.len();
        hints.extend(format.diff_example_hints(surface, home));
        let any_hint = Pattern::union(&hints);
        let non_empty = Pattern::from_expanded("?*");
        let mut product: Vec<&Pattern> = vec![&non_empty];
        product.extend(applicable.iter().map(|&i| &entries[i].pattern));
        let n = product.len();
        // Per product position, the rules of each side written with it (in
        // evaluation order), so that a state's deciders are found from the
        // patterns it accepts.
        let mut at: Vec<[Vec<usize>; 2]> = vec![[Vec::new(), Vec::new()]; n];
        for (side, rules) in [&sb, &sa].into_iter().enumerate() {
            for (k, (slot, _, _)) in rules.iter().enumerate() {
                at[*slot][side].push(k);
            }
        }
        let rules_of = |side: usize| if side == 0 { &sb } else { &sa };
        // How strongly rule `k` of a side claims a value (smallest decides).
        let rank = |side: usize, k: usize| precedence.rank(k, rules_of(side)[k].1);
        let decider = |side: usize, hits: &[usize]| -> Option<(usize, Decision)> {
            let k = hits
                .iter()
                .filter(|&&s| s > 0 && s < n)
                .flat_map(|&s| at[s][side].iter().copied())
                .min_by_key(|&k| rank(side, k))?;
            Some((rules_of(side)[k].2, rules_of(side)[k].1))
        };
        let class = |hits: &[usize]| (decider(0, hits), decider(1, hits));
        let mut work = Work::new(surface_work);
        // A rule whose pattern matches every continuation settles its
        // side for the rules it outranks (later ones for last match wins;
        // for deny > ask > allow, weaker actions and later rules of its
        // action): their matching no longer changes that side's decider,
        // and a pattern outranked on every side it is on is dropped from
        // the walk's states (floating patterns such as `*secret*` would
        // otherwise multiply them).
        let prune = |settled: &[usize]| {
            let mut best: [Option<(usize, usize)>; 2] = [None, None];
            for &slot in settled.iter().filter(|&&s| s > 0 && s < n) {
                for (side, best) in best.iter_mut().enumerate() {
                    for &k in &at[slot][side] {
                        let r = rank(side, k);
                        if best.is_none_or(|b| r < b) {
                            *best = Some(r);
                        }
                    }
                }
            }
            if best.iter().all(Option::is_none) {
                return None;
            }
            let at = &at;
            Some(move |slot: usize| {
                slot == 0
                    || slot >= n
                    || (0..2).any(|side| {
                        at[slot][side]
                            .iter()
                            .any(|&k| best[side].is_none_or(|b| rank(side, k) <= b))
                    })
            })
        };
        // Phase A: every class of the rules alone, one walk.
        let classes = explore_pruned(
            &product,
            |acc, hits| acc[0].then(|| class(hits)),
            &prune,
            None,
            false,
            &mut work,
            SURFACE_STATES,
        );
        let Some(classes) = classes else {
            report.mark_incomplete(surface, OUT_OF_BUDGET.into());
            continue;
        };
        let mut complete = true;
        let mut by_example = false;
        let mut decide_both = |value: String, report: &mut DiffReport| {
            probe(
                format,
                &before,
                &after,
                surface,
                value,
                &mut seen_calls,
                report,
            )
        };
        // Phase B: a class whose sides may decide differently (another
        // action, or a rule on one side only; another deciding rule where
        // the format says the rule matters; every class when the policies
        // differ beyond their rules) is decided by both
        // simulators — where the runtime's own checks may decide, inside
        // each hint and outside them all. No rule on either side is the
        // runtime's own default, the same on both.
        type Class = (Option<(usize, Decision)>, Option<(usize, Decision)>);
        let differing: Vec<(Class, String)> = classes
            .into_iter()
            .filter(|((b, a), _)| {
                let alike = if decider_matters {
                    b == a
                } else {
                    b.map(|x| x.1) == a.map(|x| x.1)
                };
                !(same_settings && alike)
            })
            .collect();
        for (_, example) in &differing {
            if !any_hint.is_match(example) {
                decide_both(example.clone(), &mut report);
            }
        }
        let examples: std::collections::HashMap<Class, String> =
            differing.iter().cloned().collect();
        if !hints.is_empty() && !differing.is_empty() {
            // The deciding rules' positions in the product.
            let deciders = |c: &Class| -> Vec<usize> {
                [c.0, c.1]
                    .iter()
                    .flatten()
                    .filter_map(|(i, _)| slot(*i))
                    .collect()
            };
            // The values of `wanted` classes with `extra` matching (or
            // not): one confined search per class for a few classes, one
            // walk of the product with `extra` for many (or when a
            // search runs out of its budget).
            let mut in_hint = |extra: &Pattern,
                               inside: bool,
                               wanted: Vec<Class>,
                               report: &mut DiffReport,
                               complete: &mut bool| {
                if wanted.is_empty() {
                    return;
                }
                let mut with = product.clone();
                with.push(extra);
                // First, values built from each class's shortest value
                // (an argument appended or a prefix added that falls in the
                // hint, or the path characters taken out of it), checked
                // against every pattern: a class so met needs no search.
                let mut wanted = wanted;
                wanted.retain(|c| {
                    let Some(example) = examples.get(c) else {
                        return true;
                    };
                    for candidate in hint_candidates(example, home, inside) {
                        let hits: Vec<usize> = (0..n)
                            .filter(|&i| product[i].is_match(&candidate))
                            .collect();
                        let in_extra = extra.is_match(&candidate);
                        if hits.first() == Some(&0) && in_extra == inside && class(&hits) == *c {
                            decide_both(candidate, report);
                            return false;
                        }
                    }
                    true
                });
                let mut walk_all: Vec<Class> = Vec::new();
                if wanted.len() > 4 {
                    walk_all = wanted;
                } else {
                    for c in wanted {
                        // Confined to the narrowest pattern the value must
                        // match: the hint (inside it), else the decider with
                        // the longest literal start.
                        let (mut required, mut longest) = match inside {
                            true => (n, with[n].literal_prefix().len()),
                            false => (0, 0),
                        };
                        for k in deciders(&c) {
                            let len = with[k].literal_prefix().len();
                            if len > longest {
                                (required, longest) = (k, len);
                            }
                        }
                        let want = |acc: &[bool], hits: &[usize]| {
                            acc[0] && acc[n] == inside && class(hits) == c
                        };
                        match confined(&with, required, want, &prune, &mut work) {
                            Search::Found(v) => decide_both(v, report),
                            Search::NotFound => {}
                            Search::Unknown => walk_all.push(c),
                        }
                    }
                }
                if walk_all.is_empty() {
                    return;
                }
                let wanted: HashSet<Class> = walk_all.into_iter().collect();
                let mut fresh = Work::new(surface_work);
                let found = explore_pruned(
                    &with,
                    |acc, hits| {
                        if !(acc[0] && acc[n] == inside) {
                            return None;
                        }
                        let c = class(hits);
                        wanted.contains(&c).then_some(c)
                    },
                    &prune,
                    None,
                    false,
                    &mut fresh,
                    SURFACE_STATES,
                );
                match found {
                    Some(values) => {
                        for (_, v) in values {
                            decide_both(v, report);
                        }
                    }
                    None => *complete = false,
                }
            };
            let outside: Vec<Class> = differing
                .iter()
                .filter(|(_, ex)| any_hint.is_match(ex))
                .map(|(c, _)| *c)
                .collect();
            in_hint(&any_hint, false, outside, &mut report, &mut complete);
            for (k, h) in hints.iter().enumerate() {
                let wanted: Vec<Class> = differing
                    .iter()
                    .filter(|(c, _)| {
                        !deciders(c)
                            .iter()
                            .any(|&k| overlaps(product[k], h) == Some(false))
                    })
                    .map(|(c, _)| *c)
                    .collect();
                // Regions the runtime decides by more than the value's
                // class (a command's arguments): an example per class is
                // not every value.
                if !wanted.is_empty() && k >= exact_hints {
                    by_example = true;
                }
                in_hint(h, true, wanted, &mut report, &mut complete);
            }
        }
        if !complete {
            report.mark_incomplete(surface, OUT_OF_BUDGET.into());
        }
        if by_example {
            report.mark_incomplete(
                surface,
                "the change reaches commands the runtime judges by their arguments (compared by example)".into(),
            );
        }
    }
    report
}

/// Values near `example` that fall inside the path hints (`inside`), or
/// outside them all: an argument appended or a prefix added, or the path
/// characters of the example replaced.
fn hint_candidates(example: &str, home: &str, inside: bool) -> Vec<String> {
    if inside {
        let home = home.trim_end_matches('/');
        let tails = [
            "/x", "~/x", "../x", "./x", "/./x", "//x", "/", "a/b/", "a/./b", "a//b", "~", "x /x",
            "x ~/x", "x ../x", "x //x",
        ];
        // The example itself first: a hint such as `rm *` holds the
        // class's shortest value (`rm`), decided in the working directory.
        let mut out: Vec<String> = vec![example.to_string()];
        for sep in [" ", ""] {
            out.extend(tails.iter().map(|t| format!("{example}{sep}{t}")));
            out.push(format!("{example}{sep}{home}/x"));
        }
        out.extend(["/", "./", "../"].iter().map(|p| format!("{p}{example}")));
        out.push(format!("{home}/{example}"));
        out
    } else {
        // Each path form broken with a letter where the hints look for
        // it, or every path character replaced.
        let mut soft = example
            .replace(" /", " a/")
            .replace(" ~", " a~")
            .replace("../", "..a/");
        soft = soft.replace("//", "/a/").replace("/./", "/a/");
        if soft.starts_with('/') || soft.starts_with("./") {
            soft.insert(0, 'a');
        }
        if soft.ends_with('/') {
            soft.push('a');
        }
        let plain: String = example
            .chars()
            .map(|c| match c {
                '/' => 'x',
                '~' => 'y',
                '.' => 'z',
                c => c,
            })
            .collect();
        vec![
            soft,
            plain.clone(),
            format!("x{plain}"),
            format!("{plain}x"),
        ]
    }
}

/// The shortest value `wanted` accepts (given its acceptance vector and
/// the patterns it matches), walking only the values `with[required]`
/// matches: the patterns that share no value with it never match there,
/// so they are left out of the walk (and seen as not matching), and the
/// rules `prune` says are settled are dropped as in the whole walk.
fn confined<P: Fn(usize) -> bool>(
    with: &[&Pattern],
    required: usize,
    wanted: impl Fn(&[bool], &[usize]) -> bool,
    prune: &impl Fn(&[usize]) -> Option<P>,
    work: &mut Work,
) -> Search {
    let r = with[required];
    let keep: Vec<usize> = (0..with.len())
        .filter(|&i| {
            required == 0 || i == 0 || i == required || overlaps(r, with[i]) != Some(false)
        })
        .collect();
    let sub: Vec<&Pattern> = keep.iter().map(|&i| with[i]).collect();
    let at = keep.iter().position(|&i| i == required).unwrap_or(0);
    let mut full = vec![false; with.len()];
    let mut full_hits: Vec<usize> = Vec::new();
    let found = explore_pruned(
        &sub,
        |_, hits| {
            for &i in &full_hits {
                full[i] = false;
            }
            full_hits.clear();
            full_hits.extend(hits.iter().map(|&k| keep[k]));
            for &i in &full_hits {
                full[i] = true;
            }
            wanted(&full, &full_hits).then_some(())
        },
        |settled| {
            let settled: Vec<usize> = settled.iter().map(|&k| keep[k]).collect();
            let kept = prune(&settled)?;
            let keep = &keep;
            Some(move |k: usize| kept(keep[k]))
        },
        Some(at),
        true,
        work,
        SURFACE_STATES,
    );
    match found {
        None => Search::Unknown,
        Some(v) => match v.into_iter().next() {
            Some((_, w)) => Search::Found(w),
            None => Search::NotFound,
        },
    }
}

/// Decide the call of `value` on both sides and record a difference.
fn probe(
    format: &dyn Format,
    before: &Side<'_>,
    after: &Side<'_>,
    surface: &str,
    value: String,
    seen_calls: &mut HashSet<(String, String)>,
    report: &mut DiffReport,
) {
    let Some(call) = format.probe_call(surface, &value) else {
        return;
    };
    if !seen_calls.insert((call.tool.clone(), call.input.to_string())) {
        return;
    }
    report.probes += 1;
    let b = before.simulator.simulate(&call);
    let a = after.simulator.simulate(&call);
    // A side that could not decide the call exactly (a command the bash
    // reader refused): the surface is not compared completely.
    for r in [&b, &a] {
        let Some(why) = r.details.get("incomplete") else {
            continue;
        };
        let why: Vec<&str> = match why {
            Value::Array(v) => v.iter().filter_map(Value::as_str).collect(),
            Value::String(s) => vec![s.as_str()],
            _ => Vec::new(),
        };
        let reason = if why.is_empty() {
            "a call not decided exactly".to_string()
        } else {
            format!("a call not decided exactly: {}", why.join("; "))
        };
        report.mark_incomplete(surface, reason);
    }
    let (db, da) = (b.outcome(), a.outcome());
    if db == da {
        return;
    }
    let key = |r: &Option<DecidingRule>| {
        r.as_ref()
            .map(|r| (r.surface.clone(), r.pattern.clone(), r.place.clone()))
    };
    if let Some(same) = report.differences.iter_mut().find(|d| {
        d.surface == surface
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
    report.count(da.as_str());
    report.differences.push(Difference {
        surface: surface.to_string(),
        example: value,
        tool: call.tool,
        input: call.input,
        before: db.as_str(),
        after: da.as_str(),
        before_rule: b.rule,
        after_rule: a.rule,
        similar: 0,
        agents: Vec::new(),
    });
}
