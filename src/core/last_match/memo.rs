//! The state of one analysis, kept so that a list that differs in a few
//! rules (a keystroke inside a pattern) is analysed again only where those
//! rules can change a finding. The result is the same as a fresh analysis:
//! a rule's outcome depends only on its own contents, the rules whose
//! literal prefixes are compatible with its own (its only possible
//! overlaps), the group's catch-alls and the rules after the last one, and
//! on the shared budgets (see [`Outcome`]).

use super::index::PrefixIndex;
use super::verdict::{Answer, ValueOrder};
use super::{Finding, Head, List, budgets};
use crate::core::pattern_algebra::{Pattern, PatternLanguage, Work};
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// What the findings depend on: the groups and the rules' contents in
/// order, not where they are written — every field, length-prefixed, in
/// one buffer (compared whole on a hit: exact, not a hash). `spans`
/// locates each rule's fields, so two lists can be compared rule by rule.
pub(super) struct Key {
    bytes: Vec<u8>,
    spans: Vec<Range<usize>>,
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.bytes == other.bytes
    }
}

fn put(b: &mut Vec<u8>, s: &[u8]) {
    b.extend_from_slice(&(s.len() as u64).to_le_bytes());
    b.extend_from_slice(s);
}

fn put_n(b: &mut Vec<u8>, n: usize) {
    b.extend_from_slice(&(n as u64).to_le_bytes());
}

impl Key {
    pub(super) fn new(list: &List<'_>) -> Key {
        let mut b: Vec<u8> = Vec::with_capacity(list.rules.len() * 40 + list.salt.len() + 16);
        put(&mut b, list.salt);
        for n in budgets() {
            put_n(&mut b, n);
        }
        put_n(&mut b, list.groups.len());
        for g in list.groups {
            put_n(&mut b, g.members.len());
            for (&m, &j) in g.members.iter().zip(&g.judged) {
                put_n(&mut b, m);
                b.push(j as u8);
            }
            b.push(g.single_valued as u8);
            b.push(g.values as u8);
        }
        let mut spans = Vec::with_capacity(list.rules.len());
        for r in list.rules {
            let from = b.len();
            put(&mut b, r.source.as_bytes());
            b.push(r.action as u8);
            match r.effect {
                Some(x) => {
                    b.push(1);
                    put(&mut b, x.as_bytes());
                }
                None => b.push(0),
            }
            b.push(r.keeps_lower as u8);
            spans.push(from..b.len());
        }
        Key { bytes: b, spans }
    }

    /// The salt, the budgets and the groups: everything before the rules.
    fn head(&self) -> &[u8] {
        &self.bytes[..self.spans.first().map_or(self.bytes.len(), |s| s.start)]
    }

    fn rule(&self, i: usize) -> &[u8] {
        &self.bytes[self.spans[i].clone()]
    }
}

/// One member's result, and how it met the two shared budgets (overlap
/// checks, search steps): what was left when it started, what it spent,
/// whether a step was refused. Its answer is a function of the rules it
/// can overlap and of those budgets — and for each budget, starting with
/// the same amount, or with at least what it spent when nothing was
/// refused, gives the same answer.
#[derive(Clone, Default)]
struct Outcome {
    /// False for the rest of a group after the overlap budget ran out.
    reached: bool,
    finding: Option<Finding>,
    /// A bound of the analysis was reached before the member was decided.
    undecided: bool,
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

/// Member `k`'s outcome with the budgets as they are, and whether the
/// overlap budget ran out (the group ends there).
fn measured(ctx: &ValueOrder<'_>, k: usize, budget: &mut Work, work: &mut Work) -> (Outcome, bool) {
    let start = [budget.left, work.left];
    budget.refused = false;
    work.refused = false;
    let r = ctx.outcome(k, budget, work);
    let (finding, undecided) = match &r {
        Some(Answer::Found(f)) => (Some(f.clone()), false),
        Some(Answer::Undecided) => (None, true),
        Some(Answer::Nothing) | None => (None, false),
    };
    let outcome = Outcome {
        reached: true,
        finding,
        undecided,
        start,
        spent: [start[0] - budget.left, start[1] - work.left],
        refused: [budget.refused, work.refused],
    };
    (outcome, r.is_none())
}

/// Every member's outcome in order, the budgets shared as they run out:
/// what [`measured`] gives member after member, until the overlap budget
/// is spent (the members after that one are not reached).
///
/// A long group is first decided on every core, each member with budgets
/// of its own (a guess; all guesses together draw on one more pair of
/// budgets, so that a list that spends them costs at most that twice).
/// Then, member by member, a guess stands when the budgets left give the
/// same answer ([`Outcome::holds`]: it refused nothing and they cover what
/// it spent), else the member is decided again with them — the outcomes
/// are those of deciding one member after another (tested).
fn decide_all(ctx: &ValueOrder<'_>, n: usize, budget: &mut Work, work: &mut Work) -> Vec<Outcome> {
    let mut outcomes = vec![Outcome::default(); n];
    let (threads, below, batch) = guessing();
    if threads > 1 && n >= below {
        #[allow(unused_mut)]
        let mut allowance = [budget.left, work.left];
        #[cfg(test)]
        if super::testing::GUESSING_FREELY.with(|g| g.get()) {
            // Guesses that spend more than the budgets have.
            allowance = [usize::MAX / 4; 2];
        }
        guess(ctx, allowance, &mut outcomes, threads, batch);
    }
    for k in 0..n {
        let o = &mut outcomes[k];
        let ends = if o.reached && o.holds([budget, work]) {
            #[cfg(test)]
            super::testing::GUESSES.with(|g| g.set([g.get()[0] + 1, g.get()[1]]));
            o.start = [budget.left, work.left];
            budget.left -= o.spent[0];
            work.left -= o.spent[1];
            o.refused[0]
        } else {
            #[cfg(test)]
            if o.reached {
                super::testing::GUESSES.with(|g| g.set([g.get()[0], g.get()[1] + 1]));
            }
            let (outcome, ends) = measured(ctx, k, budget, work);
            *o = outcome;
            ends
        };
        if ends {
            // The budget is spent: no finding for the rest of the group
            // (and the later groups start with none).
            for o in &mut outcomes[k + 1..] {
                *o = Outcome::default();
            }
            break;
        }
    }
    outcomes
}

/// Guesses of the members' outcomes, made on every core, each with the
/// budgets of its own that are left of `allowance` (spent by the guesses
/// together); a member not guessed keeps its default (not reached).
fn guess(
    ctx: &ValueOrder<'_>,
    allowance: [usize; 2],
    outcomes: &mut [Outcome],
    threads: usize,
    batch: usize,
) {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    let left = [
        AtomicUsize::new(allowance[0]),
        AtomicUsize::new(allowance[1]),
    ];
    crate::core::parallel::fill_on(outcomes, threads, 0, batch, |at, run| {
        for (i, o) in run.iter_mut().enumerate() {
            let mut budget = Work::new(left[0].load(Relaxed));
            let mut work = Work::new(left[1].load(Relaxed));
            if budget.left == 0 {
                return;
            }
            *o = measured(ctx, at + i, &mut budget, &mut work).0;
            for (l, spent) in left.iter().zip(o.spent) {
                // (Saturating: another thread may have drawn meanwhile.)
                let _ = l.fetch_update(Relaxed, Relaxed, |x| Some(x.saturating_sub(spent)));
            }
        }
    });
}

/// Members one thread guesses at a time.
const GUESS_BATCH: usize = 256;

/// Threads that guess, the fewest members worth it, members per batch.
fn guessing() -> (usize, usize, usize) {
    #[cfg(test)]
    if let Some(g) = super::testing::GUESSING.with(|g| g.get()) {
        return g;
    }
    (
        crate::core::parallel::cores(),
        crate::core::parallel::SEQUENTIAL_BELOW,
        GUESS_BATCH,
    )
}

/// Does deciding the group's members look anything up in its prefix
/// index? Only a judged member with a literal prefix at or after the
/// group's last catch-all does (every rule before it is dead by it; an
/// empty prefix is compatible with every member, found without it): a long
/// list that ends in a catch-all is decided without one.
fn asks_the_index(group: &super::Group, pats: &[&Pattern], prefixes: &[Vec<u16>]) -> bool {
    let from = pats.iter().rposition(|p| p.is_universal()).unwrap_or(0);
    (from..group.members.len()).any(|k| group.judged[k] && !prefixes[group.members[k]].is_empty())
}

/// What was found for one group.
struct GroupState<F> {
    /// The format's own findings for the group (redone on every update).
    head: Vec<F>,
    /// The members' outcomes, by group position (value groups only).
    outcomes: Vec<Outcome>,
    index: PrefixIndex,
}

/// Everything one analysis of a list computed.
pub(super) struct State<F> {
    key: Key,
    patterns: Vec<Pattern>,
    prefixes: Vec<Vec<u16>>,
    suffixes: Vec<Vec<u16>>,
    groups: Vec<GroupState<F>>,
    pub(super) findings: Arc<Vec<F>>,
}

fn member_patterns<'p>(members: &[usize], patterns: &'p [Pattern]) -> Vec<&'p Pattern> {
    members.iter().map(|&i| &patterns[i]).collect()
}

/// Findings in the order of a fresh analysis: group by group, the group's
/// own first, then rule by rule; last, the rules a spent budget left
/// unexamined.
fn assemble<F: Clone + From<Finding>>(list: &List<'_>, groups: &[GroupState<F>]) -> Vec<F> {
    let mut out = Vec::new();
    for g in groups {
        out.extend(g.head.iter().cloned());
        out.extend(
            g.outcomes
                .iter()
                .filter_map(|o| o.finding.clone().map(F::from)),
        );
    }
    out.extend(unexamined(list, groups).map(F::from));
    out
}

/// The judged rules without a finding whose examination a spent budget
/// cut short (never reached, or a check refused) or a bound of the
/// analysis left undecided, as one finding: the first such rule and how
/// many (each rule once).
fn unexamined<F>(list: &List<'_>, groups: &[GroupState<F>]) -> Option<Finding> {
    let mut cut = vec![false; list.rules.len()];
    for (group, state) in list.groups.iter().zip(groups) {
        for (k, o) in state.outcomes.iter().enumerate() {
            let short = !o.reached || o.undecided || o.refused.iter().any(|r| *r);
            if short && o.finding.is_none() && group.judged[k] {
                cut[group.members[k]] = true;
            }
        }
    }
    let count = cut.iter().filter(|c| **c).count();
    let rule = cut.iter().position(|c| *c)?;
    Some(Finding::Unexamined { rule, count })
}

/// What a fresh analysis works with and finds.
struct Fresh<F> {
    patterns: Vec<Pattern>,
    prefixes: Vec<Vec<u16>>,
    suffixes: Vec<Vec<u16>>,
    groups: Vec<GroupState<F>>,
}

/// A fresh analysis of the whole list; `keep`: for updates (every value
/// group's index is made).
fn fresh<F: Clone + From<Finding>>(
    list: &List<'_>,
    language: &dyn PatternLanguage,
    head: Head<'_, F>,
    keep: bool,
) -> Fresh<F> {
    // Each rule compiled on every core (independent of the others).
    let compiled = crate::core::parallel::map_ordered(list.rules, |rules| {
        rules
            .iter()
            .map(|r| {
                let p = language.compile(r.source);
                let ends = (p.literal_prefix(), p.literal_suffix());
                (p, ends)
            })
            .collect()
    });
    let mut patterns = Vec::with_capacity(compiled.len());
    let mut prefixes = Vec::with_capacity(compiled.len());
    let mut suffixes = Vec::with_capacity(compiled.len());
    for (p, (pre, suf)) in compiled {
        patterns.push(p);
        prefixes.push(pre);
        suffixes.push(suf);
    }
    let [overlap_budget, search_budget] = budgets();
    let mut budget = Work::new(overlap_budget);
    let mut work = Work::new(search_budget);
    let mut groups = Vec::with_capacity(list.groups.len());
    for (gi, group) in list.groups.iter().enumerate() {
        let pats = member_patterns(&group.members, &patterns);
        let mut state = GroupState {
            head: head(gi, &pats),
            outcomes: Vec::new(),
            index: PrefixIndex::default(),
        };
        if group.values {
            if keep || asks_the_index(group, &pats, &prefixes) {
                state.index = PrefixIndex::new(&group.members, &prefixes);
            }
            let ctx = ValueOrder::new(list.rules, group, pats, &state.index, &prefixes, &suffixes);
            state.outcomes = decide_all(&ctx, group.members.len(), &mut budget, &mut work);
        }
        groups.push(state);
    }
    Fresh {
        patterns,
        prefixes,
        suffixes,
        groups,
    }
}

/// The findings of a fresh analysis that is not kept: taken out of it (not
/// copied), after what only an update needs is freed.
pub(super) fn once<F: Clone + From<Finding>>(
    list: &List<'_>,
    language: &dyn PatternLanguage,
    head: Head<'_, F>,
) -> Vec<F> {
    let Fresh { mut groups, .. } = fresh(list, language, head, false);
    let cut = unexamined(list, &groups);
    let mut out = Vec::with_capacity(
        groups
            .iter()
            .map(|g| g.head.len() + g.outcomes.iter().filter(|o| o.finding.is_some()).count())
            .sum::<usize>()
            + 1,
    );
    for g in &mut groups {
        g.index = PrefixIndex::default();
        out.append(&mut g.head);
        out.extend(
            std::mem::take(&mut g.outcomes)
                .into_iter()
                .filter_map(|o| o.finding.map(F::from)),
        );
    }
    out.extend(cut.map(F::from));
    out
}

impl<F: Clone + From<Finding>> State<F> {
    /// A fresh analysis of the whole list, kept for updates.
    pub(super) fn analyse(
        list: &List<'_>,
        language: &dyn PatternLanguage,
        head: Head<'_, F>,
        key: Key,
    ) -> State<F> {
        let Fresh {
            patterns,
            prefixes,
            suffixes,
            groups,
        } = fresh(list, language, head, true);
        State {
            key,
            findings: Arc::new(assemble(list, &groups)),
            patterns,
            prefixes,
            suffixes,
            groups,
        }
    }

    /// The rules that differ between this analysis and `key` when the
    /// lists are a small edit of each other: same length, salt and groups.
    fn changed_rules(&self, key: &Key) -> Option<Vec<usize>> {
        if self.key.spans.len() != key.spans.len() || self.key.head() != key.head() {
            return None;
        }
        let mut changed = Vec::new();
        for i in 0..key.spans.len() {
            if self.key.rule(i) != key.rule(i) {
                if changed.len() == UPDATE_LIMIT {
                    return None;
                }
                changed.push(i);
            }
        }
        Some(changed)
    }

    /// Analyse again after `changed` rules were edited (nothing else
    /// moved): the members whose overlaps may involve a changed rule are
    /// examined again, and so is every member whose budgets would not give
    /// the same answer as before (around the place where a budget runs
    /// out). `Err` gives the key back when a rule became or stopped being a
    /// catch-all (every rule before it changes): then only a fresh analysis
    /// will do.
    fn update(
        mut self,
        changed: &[usize],
        list: &List<'_>,
        language: &dyn PatternLanguage,
        head: Head<'_, F>,
        key: Key,
    ) -> Result<State<F>, Key> {
        let mut old_prefix: Vec<(usize, Vec<u16>)> = Vec::with_capacity(changed.len());
        for &j in changed {
            let p = language.compile(list.rules[j].source);
            if p.is_universal() || self.patterns[j].is_universal() {
                return Err(key);
            }
            let new = p.literal_prefix();
            old_prefix.push((j, std::mem::replace(&mut self.prefixes[j], new)));
            self.suffixes[j] = p.literal_suffix();
            self.patterns[j] = p;
        }
        let [overlap_budget, search_budget] = budgets();
        let mut budget = Work::new(overlap_budget);
        let mut work = Work::new(search_budget);
        for (gi, (group, state)) in list.groups.iter().zip(&mut self.groups).enumerate() {
            let pats = member_patterns(&group.members, &self.patterns);
            state.head = head(gi, &pats);
            if !group.values {
                continue;
            }
            // A rule before the last catch-all names its decider from the
            // rules after it that match its example — and such a rule's
            // prefix is compatible with its own (both begin the example),
            // so it is among the compatible members too.
            let mut dirty: Vec<usize> = Vec::new();
            let mut moved: Vec<(usize, &[u16])> = Vec::new();
            for (j, old) in &old_prefix {
                if let Ok(k) = group.members.binary_search(j) {
                    if *old != self.prefixes[*j] {
                        moved.push((k, old));
                    }
                    dirty.push(k);
                }
            }
            if !moved.is_empty() {
                state.index.moved(&group.members, &moved, &self.prefixes);
            }
            for (j, old) in &old_prefix {
                if group.members.binary_search(j).is_ok() {
                    state
                        .index
                        .compatible(&group.members, old, &self.prefixes, &mut dirty);
                    state.index.compatible(
                        &group.members,
                        &self.prefixes[*j],
                        &self.prefixes,
                        &mut dirty,
                    );
                }
            }
            dirty.sort_unstable();
            dirty.dedup();
            let ctx = ValueOrder::new(
                list.rules,
                group,
                pats,
                &state.index,
                &self.prefixes,
                &self.suffixes,
            );
            let mut fresh: Vec<(usize, Outcome)> = Vec::new();
            let mut end = state.outcomes.len();
            for (k, o) in state.outcomes.iter().enumerate() {
                if dirty.binary_search(&k).is_err() && o.holds([&budget, &work]) {
                    budget.left -= o.spent[0];
                    work.left -= o.spent[1];
                    if o.refused[0] {
                        // The overlap budget ran out at this member again:
                        // the group ends here, as in a fresh analysis (the
                        // members after it are not examined).
                        end = k + 1;
                        break;
                    }
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
                state.outcomes[k] = o;
            }
            for o in &mut state.outcomes[end..] {
                *o = Outcome::default();
            }
        }
        #[cfg(test)]
        super::testing::UPDATES.with(|u| u.set(u.get() + 1));
        self.key = key;
        self.findings = Arc::new(assemble(list, &self.groups));
        Ok(self)
    }
}

/// An update handles at most this many changed rules; more is a new list.
const UPDATE_LIMIT: usize = 16;
/// Analyses kept (a few documents' worth).
const ENTRIES: usize = 8;
/// Lists with more rules than this are analysed afresh and not kept: a
/// kept state costs some hundred bytes per rule beside its findings, and at
/// hundreds of thousands of rules that was a third of a check's memory.
const KEPT_RULES: usize = 100_000;

/// Each of `findings`, owned: taken out of the list when no memo holds
/// it (a long list is freed finding by finding as its callers turn them
/// into diagnostics), else copied one at a time.
pub fn each_owned<F: Clone>(findings: Arc<Vec<F>>, mut each: impl FnMut(F)) {
    match Arc::try_unwrap(findings) {
        Ok(own) => own.into_iter().for_each(each),
        Err(shared) => shared.iter().for_each(|f| each(f.clone())),
    }
}

/// Recent analyses of one caller (a format keeps one in a static): the
/// same list again is answered from here, a small edit of one is an
/// update, anything else a fresh analysis — with the answer of a fresh
/// analysis every time (tested against it on random edits).
pub struct Memo<F> {
    states: Mutex<Vec<State<F>>>,
}

impl<F> Memo<F> {
    pub const fn new() -> Memo<F> {
        Memo {
            states: Mutex::new(Vec::new()),
        }
    }
}

impl<F> Default for Memo<F> {
    fn default() -> Memo<F> {
        Memo::new()
    }
}

impl<F: Clone + From<Finding>> Memo<F> {
    /// [`super::analyse`], memoised: an edit that changes no rule
    /// (spacing, comments, a reason's position) reuses the findings of the
    /// last analysis of the same rules; an edit that changes a few rules
    /// re-examines only the rules they can affect.
    pub fn analyse(
        &self,
        list: &List<'_>,
        language: &dyn PatternLanguage,
        head: Head<'_, F>,
    ) -> Arc<Vec<F>> {
        // A list this long is never kept, so never found: no key, no copy.
        if list.rules.len() > KEPT_RULES {
            return Arc::new(once(list, language, head));
        }
        let key = Key::new(list);
        let mut base: Option<(State<F>, Vec<usize>)> = None;
        if let Ok(mut cache) = self.states.lock() {
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
                .find_map(|(i, s)| s.changed_rules(&key).map(|c| (i, c)))
            {
                base = Some((cache.remove(i), changed));
            }
        }
        let state = match base {
            Some((old, changed)) => old
                .update(&changed, list, language, head, key)
                .unwrap_or_else(|key| State::analyse(list, language, head, key)),
            None => State::analyse(list, language, head, key),
        };
        let findings = state.findings.clone();
        if let Ok(mut cache) = self.states.lock() {
            cache.insert(0, state);
            cache.truncate(ENTRIES);
        }
        findings
    }
}
