//! One rule's finding within its group: dead (every call it matches is
//! decided by later rules), or redundant (the earlier rules decide every
//! call it decides the same way), each with a concrete example.

use super::index::{PrefixIndex, compatible_suffix};
use super::{CANDIDATE_LIMIT, Finding, Group, MAX_UNION, Rule, TAIL_LIMIT};
use crate::core::pattern_algebra::{
    Inclusion, Overlap, Pattern, Search, Work, included_in_union_within, overlap, overlaps,
    search_within,
};

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

    /// The group positions whose patterns overlap member `k`'s, ascending.
    /// `None`: the budget is spent; `Some(None)`: too many candidates, no
    /// finding for this rule.
    fn overlapping(&self, k: usize, budget: &mut Work) -> Option<Option<Vec<usize>>> {
        let i = self.members[k];
        let mut cands: Vec<usize> = Vec::new();
        self.index
            .compatible(self.members, &self.prefixes[i], self.prefixes, &mut cands);
        cands.sort_unstable();
        cands.dedup();
        if cands.len() > CANDIDATE_LIMIT {
            // Too many possible overlaps to examine: no finding for it.
            return Some(None);
        }
        let mut res = Vec::new();
        for c in cands {
            if c == k || !compatible_suffix(&self.suffixes[self.members[c]], &self.suffixes[i]) {
                continue;
            }
            let cost = self.patterns[k].size() * self.patterns[c].size() + 1;
            if !budget.take(cost) {
                return None;
            }
            if overlaps(self.patterns[k], self.patterns[c]) != Some(false) {
                res.push(c);
            }
        }
        Some(Some(res))
    }

    /// Member `k`'s finding, if any; `None` when the budget is spent.
    pub(super) fn outcome(
        &self,
        k: usize,
        budget: &mut Work,
        work: &mut Work,
    ) -> Option<Option<Finding>> {
        let i = self.members[k];
        if !self.judged[k] {
            return Some(None);
        }
        if let Some(&u_last) = self.universal.last()
            && u_last > k
        {
            if self.tail.len() <= TAIL_LIMIT {
                return Some(Some(self.dead_by_universal(k)));
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
                included_in_union_within(self.patterns[k], &[self.patterns[c]], work)
                    == Inclusion::Included
            });
            if single.is_some() {
                let near_later: Vec<usize> =
                    later.iter().copied().rev().take(MAX_UNION).rev().collect();
                return Some(self.dead(k, &near_later, work));
            }
            return Some(None);
        }
        // A call this rule decides (its example, unless a later rule
        // matches that).
        let mut decided: Option<String> = None;
        if !later.is_empty() {
            let inc: Vec<&Pattern> = later.iter().map(|&c| self.patterns[c]).collect();
            match included_in_union_within(self.patterns[k], &inc, work) {
                Inclusion::Included => return Some(self.dead(k, &later, work)),
                Inclusion::Unknown => return Some(None),
                Inclusion::NotIncluded(w) => decided = Some(w),
            }
        }
        if earlier.is_empty()
            || !self.single_valued
            || self.rules[i].keeps_lower
            || earlier.len() + later.len() > MAX_UNION
        {
            return Some(None);
        }
        let decided = decided.unwrap_or_else(|| self.patterns[k].example());
        Some(self.redundant(k, &earlier, &later, &decided, work))
    }

    /// A rule before a rule that matches everything: dead. Its example is
    /// decided by the last matching rule of the tail after the last
    /// universal rule, or by that universal rule itself.
    fn dead_by_universal(&self, k: usize) -> Finding {
        let i = self.members[k];
        let action = self.action(k);
        let u_last = *self.universal.last().expect("a universal rule");
        let example = self.patterns[k].example();
        let d = self
            .tail
            .iter()
            .rev()
            .copied()
            .find(|&c| self.patterns[c].is_match(&example))
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
        later
            .iter()
            .rev()
            .copied()
            .find(|&c| c > k && self.patterns[c].is_match(w))
    }

    /// A dead rule. It is an overridden exception when one later rule with
    /// another action includes it on its own (`"git push *": "deny"` before
    /// `"git *": "allow"`); otherwise it is shadowed by the later rules
    /// together. The deciders named are found through concrete witnesses
    /// (pairwise overlaps), so each one really decides some call it
    /// matches.
    fn dead(&self, k: usize, later: &[usize], work: &mut Work) -> Option<Finding> {
        let i = self.members[k];
        let action = self.action(k);
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
        let broader = later.iter().rev().copied().find(|&c| {
            self.action(c) != action
                && included_in_union_within(self.patterns[k], &[self.patterns[c]], work)
                    == Inclusion::Included
        });
        let mut all_by: Vec<usize> = witnesses.iter().map(|(_, c)| self.members[*c]).collect();
        all_by.sort_unstable();
        // Overridden only when some call it matches really gets another
        // action.
        let differing = witnesses
            .iter()
            .find(|(_, d)| self.action(*d) != action)
            .cloned();
        match (broader, differing) {
            (Some(c), Some((example, d))) => Some(Finding::Overridden {
                rule: i,
                decided_by: self.members[d],
                example,
                all_by: vec![self.members[c]],
            }),
            _ => {
                let (example, c) = witnesses.into_iter().next()?;
                Some(Finding::Shadowed {
                    rule: i,
                    decided_by: self.members[c],
                    example,
                    all_by,
                })
            }
        }
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
        work: &mut Work,
    ) -> Option<Finding> {
        let i = self.members[k];
        // Same decision and same message: action and effect.
        let same = |c: usize| {
            let (a, b) = (&self.rules[self.members[c]], &self.rules[i]);
            a.action == b.action && a.effect == b.effect
        };
        let earlier_decider = |w: &str| {
            earlier
                .iter()
                .rev()
                .copied()
                .find(|&c| self.patterns[c].is_match(w))
        };
        // 1. The call it is known to decide.
        let instead = earlier_decider(decided)?;
        if !same(instead) {
            return None;
        }
        // 2. Every call it matches must be matched by a later rule or by an
        //    earlier one with the same effect (exact, usually one glob
        //    match).
        let same_earlier: Vec<usize> = earlier.iter().copied().filter(|&c| same(c)).collect();
        let mut inc: Vec<&Pattern> = same_earlier.iter().map(|&c| self.patterns[c]).collect();
        inc.extend(later.iter().map(|&c| self.patterns[c]));
        if included_in_union_within(self.patterns[k], &inc, work) != Inclusion::Included {
            return None;
        }
        // 3. With another-effect earlier rules around, the last earlier
        //    match must still be a same-effect one: search for a
        //    counterexample.
        if same_earlier.len() < earlier.len() {
            let mut pats: Vec<&Pattern> = vec![self.patterns[k]];
            pats.extend(earlier.iter().map(|&c| self.patterns[c]));
            let ne = earlier.len();
            pats.extend(later.iter().map(|&c| self.patterns[c]));
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
            instead: self.members[instead],
            example: decided.to_string(),
        })
    }
}
