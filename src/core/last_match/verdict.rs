//! One rule's finding within its group: dead (every call it matches is
//! decided by later rules), or redundant (the earlier rules decide every
//! call it decides the same way), each with a concrete example.

use super::index::{PrefixIndex, compatible_prefix, compatible_suffix};
use super::{CANDIDATE_LIMIT, Finding, Group, MAX_UNION, Rule, SEARCH_POSITIONS, TAIL_LIMIT};
use crate::core::pattern_algebra::{
    Inclusion, Overlap, Pattern, Work, explore_pruned, included_in_union_within, inclusion_work,
    matching_work, overlap, overlaps, overlaps_work,
};

/// What the analysis says about one rule.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Answer {
    Found(Finding),
    /// No finding: the rule decides some call otherwise than the rules
    /// around it (or it is not judged here).
    Nothing,
    /// A bound of the analysis (not a budget) was reached before the rule
    /// was decided: too many overlapping rules to combine, or a search
    /// that gave up.
    Undecided,
}

impl From<Option<Finding>> for Answer {
    fn from(f: Option<Finding>) -> Answer {
        f.map_or(Answer::Undecided, Answer::Found)
    }
}

/// The value-precedence analysis of one group, rule by rule. Positions
/// (`k`, `c`) are group positions; `members[k]` is the rule's index.
pub(super) struct ValueOrder<'a> {
    pub rules: &'a [Rule<'a>],
    pub members: &'a [usize],
    pub judged: &'a [bool],
    pub single_valued: bool,
    pub patterns: Vec<&'a Pattern>,
    pub index: &'a PrefixIndex,
    pub prefixes: &'a [Vec<u16>],
    pub suffixes: &'a [Vec<u16>],
    universal: Vec<usize>,
    tail: Vec<usize>,
}

thread_local! {
    /// The prefix index's candidates of the rule being examined (kept from
    /// rule to rule: one allocation per thread, not per rule; per thread,
    /// so that members are examined on every core).
    static CANDIDATES: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl<'a> ValueOrder<'a> {
    /// The analysis of `group` of `rules`, with its members' patterns and
    /// index and every rule's literal ends.
    pub(super) fn new(
        rules: &'a [Rule<'a>],
        group: &'a Group,
        patterns: Vec<&'a Pattern>,
        index: &'a PrefixIndex,
        prefixes: &'a [Vec<u16>],
        suffixes: &'a [Vec<u16>],
    ) -> ValueOrder<'a> {
        let Group {
            members,
            judged,
            single_valued,
            ..
        } = group;
        let n = members.len();
        // Rules that match everything make every earlier rule dead; the
        // rules after the last of them are the only other possible
        // deciders.
        let universal: Vec<usize> = (0..n).filter(|&c| patterns[c].is_universal()).collect();
        let tail: Vec<usize> = universal
            .last()
            .map_or(Vec::new(), |&u| (u + 1..n).collect());
        ValueOrder {
            rules,
            members,
            judged,
            single_valued: *single_valued,
            patterns,
            index,
            prefixes,
            suffixes,
            universal,
            tail,
        }
    }

    fn action(&self, c: usize) -> crate::core::decision::Decision {
        self.rules[self.members[c]].action
    }

    /// Is member `k` included in the members `set` together? The glob
    /// matching is paid from `budget` (`None` when it is spent), a search
    /// from `work`.
    fn included(
        &self,
        k: usize,
        set: &[usize],
        budget: &mut Work,
        work: &mut Work,
    ) -> Option<Inclusion> {
        let inc: Vec<&Pattern> = set.iter().map(|&c| self.patterns[c]).collect();
        if !budget.take(inclusion_work(self.patterns[k], &inc)) {
            return None;
        }
        Some(included_in_union_within(self.patterns[k], &inc, work))
    }

    /// The group positions whose patterns overlap member `k`'s, ascending.
    /// `None`: the budget is spent; `Some(None)`: too many overlaps to
    /// combine (the rule is undecided). Every candidate the prefix index
    /// gives is checked (the overlap budget pays for it): the index's
    /// candidates are often many more than the real overlaps.
    fn overlapping(&self, k: usize, budget: &mut Work) -> Option<Option<Vec<usize>>> {
        let i = self.members[k];
        let mut cands = CANDIDATES.take();
        cands.clear();
        if self.prefixes[i].is_empty() {
            // Every member's prefix starts with an empty one (the index
            // gives them all; it is not made for a list whose members ask
            // it nothing else, see `memo::asks_the_index`).
            cands.extend(0..self.members.len());
        } else {
            self.index
                .compatible(self.members, &self.prefixes[i], self.prefixes, &mut cands);
            cands.sort_unstable();
            cands.dedup();
        }
        let res = self.real_overlaps(k, &cands, budget);
        CANDIDATES.set(cands);
        let res = res?;
        // A catch-all overlaps every rule; without `?` it is combined with
        // any number of them by one glob match each (and only a later
        // catch-all, found before this, makes it dead).
        let catch_all =
            self.patterns[k].is_universal() && res.iter().all(|&c| !self.patterns[c].has_any());
        if res.len() > CANDIDATE_LIMIT && !catch_all {
            return Some(None);
        }
        Some(Some(res))
    }

    /// The candidates whose patterns overlap member `k`'s; `None` when the
    /// budget is spent.
    fn real_overlaps(&self, k: usize, cands: &[usize], budget: &mut Work) -> Option<Vec<usize>> {
        let i = self.members[k];
        let mut res = Vec::new();
        for &c in cands {
            if c == k || !compatible_suffix(&self.suffixes[self.members[c]], &self.suffixes[i]) {
                continue;
            }
            let cost = overlaps_work(self.patterns[k], self.patterns[c]);
            if !budget.take(cost) {
                return None;
            }
            if overlaps(self.patterns[k], self.patterns[c]) != Some(false) {
                res.push(c);
            }
        }
        Some(res)
    }

    /// Member `k`'s answer; `None` when the overlap budget is spent.
    pub(super) fn outcome(&self, k: usize, budget: &mut Work, work: &mut Work) -> Option<Answer> {
        let i = self.members[k];
        if !self.judged[k] {
            return Some(Answer::Nothing);
        }
        if let Some(&u_last) = self.universal.last()
            && u_last > k
        {
            if self.tail.len() <= TAIL_LIMIT {
                // The example matched against the tail, paid like any
                // other glob matching. A rule whose literal prefix is not
                // compatible with this one's fails within it (so an update
                // that changes such a rule leaves this charge as it was).
                let size = self.patterns[k].size();
                let own = &self.prefixes[i];
                let cost = self.tail.iter().fold(1usize, |acc, &c| {
                    let other = &self.prefixes[self.members[c]];
                    acc.saturating_add(if compatible_prefix(own, other) {
                        matching_work(size, &[self.patterns[c]])
                    } else {
                        size + 1
                    })
                });
                if !budget.take(cost) {
                    return None;
                }
                return Some(Answer::Found(self.dead_by_universal(k)));
            }
            return Some(Answer::Undecided);
        }
        let near = self.overlapping(k, budget)?;
        let Some(near) = near else {
            return Some(Answer::Undecided);
        };
        let later: Vec<usize> = near.iter().copied().filter(|&c| c > k).collect();
        let earlier: Vec<usize> = near.iter().copied().filter(|&c| c < k).collect();
        // Without `?` a union of any size is combined by one glob match
        // per pattern (`included_in_union_within`); with it, by a search
        // whose size grows with the union.
        let combinable = |set: &[usize]| {
            set.len() <= MAX_UNION || set.iter().all(|&c| !self.patterns[c].has_any())
        };
        if later.len() > MAX_UNION {
            // Too many to name the deciders of: a single later rule may
            // still include it, and the deciders are then gathered among
            // the last `MAX_UNION` later rules (see `dead`).
            for &c in &later {
                if self.included(k, &[c], budget, work)? == Inclusion::Included {
                    let near_later = &later[later.len() - MAX_UNION..];
                    return Some(self.dead(k, near_later, budget, work)?.into());
                }
            }
            if !combinable(&later) {
                return Some(Answer::Undecided);
            }
        }
        // A call this rule decides (its example, unless a later rule
        // matches that).
        let mut decided: Option<String> = None;
        if !later.is_empty() {
            match self.included(k, &later, budget, work)? {
                Inclusion::Included if later.len() > MAX_UNION => return Some(Answer::Undecided),
                Inclusion::Included => return Some(self.dead(k, &later, budget, work)?.into()),
                Inclusion::Unknown => return Some(Answer::Undecided),
                Inclusion::NotIncluded(w) => decided = Some(w),
            }
        }
        if earlier.is_empty() || !self.single_valued || self.rules[i].keeps_lower {
            return Some(Answer::Nothing);
        }
        if !combinable(&near) {
            return Some(Answer::Undecided);
        }
        let decided = decided.unwrap_or_else(|| self.patterns[k].example());
        self.redundant(k, &earlier, &later, &decided, budget, work)
    }

    /// A rule before a rule that matches everything: dead. Its example is
    /// decided by the last matching rule of the tail after the last
    /// universal rule, or by that universal rule itself.
    fn dead_by_universal(&self, k: usize) -> Finding {
        let i = self.members[k];
        let action = self.action(k);
        let u_last = *self.universal.last().expect("a universal rule");
        let example = self.patterns[k].example();
        let units: Vec<u16> = example.encode_utf16().collect();
        let d = self
            .tail
            .iter()
            .rev()
            .copied()
            .find(|&c| self.patterns[c].is_match_units(&units))
            .unwrap_or(u_last);
        let broader = self
            .universal
            .iter()
            .rev()
            .copied()
            .find(|&c| c > k && self.action(c) != action);
        match broader {
            Some(b) if self.action(d) != action => Finding::Overridden {
                rule: i,
                decided_by: self.members[d],
                example,
                all_by: vec![self.members[b]],
            },
            _ => {
                let mut all_by = vec![self.members[d]];
                if d != u_last {
                    all_by.push(self.members[u_last]);
                }
                Finding::Shadowed {
                    rule: i,
                    decided_by: self.members[d],
                    example,
                    all_by,
                }
            }
        }
    }

    /// The rule that decides `w` among group members after `k`.
    fn decider_after(&self, k: usize, later: &[usize], w: &str) -> Option<usize> {
        let units: Vec<u16> = w.encode_utf16().collect();
        later
            .iter()
            .rev()
            .copied()
            .find(|&c| c > k && self.patterns[c].is_match_units(&units))
    }

    /// A dead rule. It is an overridden exception when one later rule with
    /// another action includes it on its own (`"git push *": "deny"` before
    /// `"git *": "allow"`); otherwise it is shadowed by the later rules
    /// together. The deciders named are found through concrete witnesses
    /// (pairwise overlaps), so each one really decides some call it
    /// matches.
    /// `later` holds at most `MAX_UNION` rules; the witness searches and
    /// the glob matching are paid from `budget` (`None` when it is spent:
    /// the outcome of a rule the budget ended).
    fn dead(
        &self,
        k: usize,
        later: &[usize],
        budget: &mut Work,
        work: &mut Work,
    ) -> Option<Option<Finding>> {
        let i = self.members[k];
        let action = self.action(k);
        // One shortest common string per later rule, each matched against
        // every later rule.
        let size = self.patterns[k].size();
        let cost = later.iter().fold(1usize, |acc, &c| {
            let pair = size.saturating_mul(self.patterns[c].size());
            let scan = later.len().saturating_mul(size + self.patterns[c].size());
            acc.saturating_add(pair).saturating_add(scan)
        });
        if !budget.take(cost) {
            return None;
        }
        let mut witnesses: Vec<(String, usize)> = Vec::new();
        let note = |w: String, witnesses: &mut Vec<(String, usize)>| {
            if let Some(c) = self.decider_after(k, later, &w)
                && !witnesses.iter().any(|(_, d)| *d == c)
            {
                witnesses.push((w, c));
            }
        };
        note(self.patterns[k].example(), &mut witnesses);
        for &c in later {
            if let Overlap::Overlap(w) = overlap(self.patterns[k], self.patterns[c]) {
                note(w, &mut witnesses);
            }
        }
        let mut broader = None;
        for &c in later.iter().rev() {
            if self.action(c) != action
                && self.included(k, &[c], budget, work)? == Inclusion::Included
            {
                broader = Some(c);
                break;
            }
        }
        let mut all_by: Vec<usize> = witnesses.iter().map(|(_, c)| self.members[*c]).collect();
        all_by.sort_unstable();
        // Overridden only when some call it matches really gets another
        // action.
        let differing = witnesses
            .iter()
            .find(|(_, d)| self.action(*d) != action)
            .cloned();
        Some(match (broader, differing) {
            (Some(c), Some((example, d))) => Some(Finding::Overridden {
                rule: i,
                decided_by: self.members[d],
                example,
                all_by: vec![self.members[c]],
            }),
            _ => {
                let Some((example, c)) = witnesses.into_iter().next() else {
                    return Some(None);
                };
                Some(Finding::Shadowed {
                    rule: i,
                    decided_by: self.members[c],
                    example,
                    all_by,
                })
            }
        })
    }

    /// Not dead: is every call it decides decided the same way by the
    /// earlier rules? The earlier decider must be a rule of the list (a
    /// default may come from another scope). `decided` is a call it
    /// decides.
    fn redundant(
        &self,
        k: usize,
        earlier: &[usize],
        later: &[usize],
        decided: &str,
        budget: &mut Work,
        work: &mut Work,
    ) -> Option<Answer> {
        let i = self.members[k];
        // Step 1's matching, paid from the overlap budget like the rest.
        let scan = earlier.iter().fold(1usize, |acc, &c| {
            acc.saturating_add(decided.len() + self.patterns[c].size())
        });
        if !budget.take(scan) {
            return None;
        }
        // Same decision and same message: action and effect.
        let same = |c: usize| {
            let (a, b) = (&self.rules[self.members[c]], &self.rules[i]);
            a.action == b.action && a.effect == b.effect
        };
        // 1. The call it is known to decide.
        let units: Vec<u16> = decided.encode_utf16().collect();
        let instead = earlier
            .iter()
            .rev()
            .copied()
            .find(|&c| self.patterns[c].is_match_units(&units));
        let Some(instead) = instead.filter(|&c| same(c)) else {
            return Some(Answer::Nothing);
        };
        // 2. Every call it matches must be matched by a later rule or by an
        //    earlier one with the same effect (exact, usually one glob
        //    match). The last same-effect earlier rule that matches every
        //    call it matches answers that alone, and no earlier rule
        //    before it can be the last earlier match of any of them.
        let mut covering = None;
        for (at, &c) in earlier.iter().enumerate().rev() {
            if same(c) && self.included(k, &[c], budget, work)? == Inclusion::Included {
                covering = Some(at);
                break;
            }
        }
        let earlier = &earlier[covering.unwrap_or(0)..];
        let sames: Vec<bool> = earlier.iter().map(|&c| same(c)).collect();
        if covering.is_none() {
            let mut inc: Vec<usize> = earlier
                .iter()
                .zip(&sames)
                .filter(|(_, s)| **s)
                .map(|(&c, _)| c)
                .collect();
            inc.extend_from_slice(later);
            match self.included(k, &inc, budget, work)? {
                Inclusion::Included => {}
                Inclusion::NotIncluded(_) => return Some(Answer::Nothing),
                Inclusion::Unknown => return Some(Answer::Undecided),
            }
        }
        // 3. With another-effect earlier rules around (after the covering
        //    one), the last earlier match must still be a same-effect one:
        //    search for a counterexample.
        if sames.iter().any(|s| !s) {
            let mut pats: Vec<&Pattern> = vec![self.patterns[k]];
            pats.extend(earlier.iter().map(|&c| self.patterns[c]));
            let ne = earlier.len();
            pats.extend(later.iter().map(|&c| self.patterns[c]));
            match decided_otherwise(&pats, ne, &sames, work) {
                Some(false) => {}
                Some(true) => return Some(Answer::Nothing),
                None => return Some(Answer::Undecided),
            }
        }
        Some(Answer::Found(Finding::Redundant {
            rule: i,
            instead: self.members[instead],
            example: decided.to_string(),
        }))
    }
}

/// Is there a string `pats[0]` matches that none of the later patterns
/// (`pats[1 + ne..]`) matches and whose last match among the earlier ones
/// (`pats[1..=ne]`) is none or one whose `sames` is false? `None` when
/// the work runs out. Only strings the first pattern matches are walked;
/// once a later pattern matches every continuation nothing there is
/// wanted, and once an earlier one does, the earlier ones before it can
/// no longer be the last earlier match (their positions are dropped).
fn decided_otherwise(
    pats: &[&Pattern],
    ne: usize,
    sames: &[bool],
    work: &mut Work,
) -> Option<bool> {
    let found = explore_pruned(
        pats,
        |acc, _| {
            let wanted = acc[0]
                && !acc[1 + ne..].iter().any(|a| *a)
                && acc[1..1 + ne]
                    .iter()
                    .rposition(|a| *a)
                    .is_none_or(|j| !sames[j]);
            wanted.then_some(())
        },
        |settled| {
            let last = *settled.last()?;
            Some(move |p: usize| last <= ne && (p == 0 || p >= last))
        },
        Some(0),
        true,
        work,
        SEARCH_POSITIONS,
    )?;
    Some(!found.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::pattern_algebra::{Search, search_within};

    use crate::core::last_match::testing::Lcg;

    fn pattern(rng: &mut Lcg) -> Pattern {
        const PARTS: [&str; 9] = ["a", "b", " ", "*", "?", "ab", "ba", " *", "*a"];
        let n = 1 + rng.below(4);
        let p: String = (0..n).map(|_| PARTS[rng.below(PARTS.len())]).collect();
        Pattern::from_expanded(&p)
    }

    /// The pruned walk answers as the plain search over every string does
    /// (the search's budget is ample for these small patterns).
    #[test]
    fn the_pruned_walk_answers_as_the_whole_search() {
        let mut rng = Lcg(5);
        let mut answers = [0; 2];
        for _ in 0..4_000 {
            let n = 2 + rng.below(6);
            let owned: Vec<Pattern> = (0..n).map(|_| pattern(&mut rng)).collect();
            let pats: Vec<&Pattern> = owned.iter().collect();
            let ne = rng.below(n);
            let sames: Vec<bool> = (0..ne).map(|_| rng.below(2) == 0).collect();
            let whole = search_within(
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
                &mut Work::new(1_000_000),
            );
            let pruned = decided_otherwise(&pats, ne, &sames, &mut Work::new(1_000_000));
            match whole {
                Search::Unknown => continue,
                Search::Found(_) => assert_eq!(pruned, Some(true), "{pats:?} {ne} {sames:?}"),
                Search::NotFound => assert_eq!(pruned, Some(false), "{pats:?} {ne} {sames:?}"),
            }
            answers[usize::from(pruned == Some(true))] += 1;
        }
        // Both answers are common, and almost no search ran out.
        assert!(answers.iter().all(|&a| a > 500), "{answers:?}");
        assert!(answers[0] + answers[1] > 3_900, "{answers:?}");
    }
}
