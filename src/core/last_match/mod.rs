//! The exact precedence analysis of a last-match-wins rule list (pattern
//! analysis spec §5), shared by every format whose runtime lets the last
//! matching rule decide (pi-permission-system, OpenCode): which rules never
//! decide anything (overridden by a later rule with another action, or
//! shadowed by later rules with the same one), and which decide calls that
//! the earlier rules would decide the same way (removing them changes
//! nothing). Every finding carries a concrete example; a question the
//! bounded search cannot answer produces no finding.
//!
//! A format describes its list as [`Rule`]s (pattern sources in runtime
//! order) and [`Group`]s (the rules that compete for the same calls — one
//! tool, one permission), with a [`PatternLanguage`] that compiles its
//! pattern syntax. [`Memo`] keeps the last analyses so that an edit of a
//! few rules (a keystroke inside a pattern) is analysed again only where
//! it can change a finding, with the same answer as a fresh analysis.
//!
//! - `index`: the literal-prefix index that finds every rule a rule can
//!   overlap;
//! - `verdict`: one rule's finding (dead, shadowed, redundant);
//! - `memo`: the analysis state, its updates and the cache.

mod index;
mod memo;
mod verdict;

pub use memo::{Memo, each_owned};

use crate::core::decision::Decision;
use crate::core::pattern_algebra::{Pattern, PatternLanguage};

/// One rule of the list, in runtime order.
#[derive(Debug, Clone, Copy)]
pub struct Rule<'a> {
    /// The pattern as written (compiled by the format's language).
    pub source: &'a str,
    pub action: Decision,
    /// What the agent sees besides the action (a deny's reason): two rules
    /// decide a call alike when action and effect are equal.
    pub effect: Option<&'a str>,
    /// Removing this rule would bring back one of another scope (same
    /// key): "it can go" is not claimed.
    pub keeps_lower: bool,
}

/// The rules that compete for one set of calls (one tool, one
/// permission), by index into the list, ascending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub members: Vec<usize>,
    /// Per member: report findings for it (the document's own rules that
    /// belong to this group as written; a rule of another file or one
    /// written for a wider set of calls is only a possible decider).
    pub judged: Vec<bool>,
    /// Each call of this group is decided by one value, so a rule whose
    /// every call is decided alike by the earlier rules can go. False where
    /// a call carries several values (aliases, candidates) and a rule's
    /// removal may change which one decides.
    pub single_valued: bool,
    /// Analyse the values at all (false: only the group's own findings,
    /// e.g. a tool whose rules only see one value).
    pub values: bool,
}

/// A rule list to analyse.
#[derive(Debug, Clone, Copy)]
pub struct List<'a> {
    pub rules: &'a [Rule<'a>],
    pub groups: &'a [Group],
    /// Everything the language's compilation depends on besides a
    /// pattern's source (the home directory, …): part of the memo's key.
    pub salt: &'a [u8],
}

/// What the analysis found about one judged rule (indices into the list).
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// Never decides: a later rule with another action decides every call
    /// it matches, e.g. `example` is decided by `decided_by`; `all_by` is
    /// the broader rule that covers it on its own.
    Overridden {
        rule: usize,
        decided_by: usize,
        example: String,
        all_by: Vec<usize>,
    },
    /// Never decides, and every call it matches gets its action anyway
    /// (from the rules in `all_by`).
    Shadowed {
        rule: usize,
        decided_by: usize,
        example: String,
        all_by: Vec<usize>,
    },
    /// Decides some calls (`example`), but the earlier rules would decide
    /// each of them the same way (`instead` decides `example`).
    Redundant {
        rule: usize,
        instead: usize,
        example: String,
    },
    /// The analysis's budgets ran out before `count` judged rules (the
    /// first of them `rule`) were examined: whether they ever decide is not
    /// known. At most one per analysis, after every other finding.
    Unexamined { rule: usize, count: usize },
}

/// What an [`Finding::Unexamined`] says, in every format's words.
pub fn unexamined_message(count: usize) -> String {
    let who = match count {
        0 | 1 => "this rule was".to_string(),
        2 => "this rule and 1 later rule were".to_string(),
        n => format!("this rule and {} later rules were", n - 1),
    };
    format!(
        "{who} not checked for never deciding or being redundant: the precedence analysis reached a bound of this checker (not of the runtime) first — its work budget, or more overlapping rules than it combines; the findings it made stand"
    )
}

impl Finding {
    /// The rule the finding is about.
    pub fn rule(&self) -> usize {
        match self {
            Finding::Overridden { rule, .. }
            | Finding::Shadowed { rule, .. }
            | Finding::Redundant { rule, .. }
            | Finding::Unexamined { rule, .. } => *rule,
        }
    }
}

/// A group's own findings besides the value analysis (a format's hook:
/// pi's "tool hidden by a catch-all deny"), given the members' patterns;
/// computed again on every analysis (it must be cheap).
pub type Head<'h, F> = &'h dyn Fn(usize, &[&Pattern]) -> Vec<F>;

/// A fresh analysis: the findings group by group, the group's own
/// (`head`) first, then rule by rule.
pub fn analyse<F: Clone + From<Finding>>(
    list: &List<'_>,
    language: &dyn PatternLanguage,
    head: Head<'_, F>,
) -> Vec<F> {
    memo::once(list, language, head)
}

/// Limits that keep the analysis of any list bounded.
const OVERLAP_BUDGET: usize = 16_000_000;
/// Rules after the last catch-all that are scanned for each earlier rule.
const TAIL_LIMIT: usize = 256;
/// Possible overlaps examined per rule (a rule starting with `*` may
/// overlap every other one).
const CANDIDATE_LIMIT: usize = 512;
const MAX_UNION: usize = 48;
/// Search work for the whole list (see `pattern_algebra::search_within`).
const SEARCH_BUDGET: usize = 1_000_000;
/// Positions one search may keep (its memory).
const SEARCH_POSITIONS: usize = 1 << 16;

/// The two budgets of one analysis (tests make them small to reach the
/// places where they run out).
fn budgets() -> [usize; 2] {
    #[cfg(test)]
    if let Some(b) = testing::BUDGETS.with(|b| b.get()) {
        return b;
    }
    [OVERLAP_BUDGET, SEARCH_BUDGET]
}

/// Hooks for tests of the analysis and of the formats that use it.
#[cfg(test)]
pub mod testing {
    thread_local! {
        pub(super) static BUDGETS: std::cell::Cell<Option<[usize; 2]>> = const { std::cell::Cell::new(None) };
        /// Updates made on this thread (tests check the path is taken).
        pub(super) static UPDATES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        /// Guessing forced on (threads, fewest members, batch).
        pub(super) static GUESSING: std::cell::Cell<Option<(usize, usize, usize)>> = const { std::cell::Cell::new(None) };
        /// Guesses drawing on more than the budgets have.
        pub(super) static GUESSING_FREELY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        /// Guesses kept and guesses decided again on this thread.
        pub(super) static GUESSES: std::cell::Cell<[usize; 2]> = const { std::cell::Cell::new([0, 0]) };
    }

    /// Guess members on `threads` threads in batches of `batch`, in every
    /// group (`None`: as a real analysis does); `freely`: the guesses
    /// together may spend more than the budgets have.
    pub fn set_guessing(g: Option<(usize, usize)>, freely: bool) {
        GUESSING.with(|c| c.set(g.map(|(threads, batch)| (threads, 0, batch))));
        GUESSING_FREELY.with(|c| c.set(freely));
    }

    /// Guesses kept and decided again on this thread so far.
    pub fn guesses() -> [usize; 2] {
        GUESSES.with(|g| g.get())
    }

    /// Use these budgets (overlap checks, search steps) on this thread.
    pub fn set_budgets(b: Option<[usize; 2]>) {
        BUDGETS.with(|c| c.set(b));
    }

    /// How many analyses were updates of an earlier one on this thread.
    pub fn updates() -> usize {
        UPDATES.with(|u| u.get())
    }

    /// A small seeded generator for the tests of the analysis (what is
    /// tested is the analysis, not the randomness).
    pub struct Lcg(pub u64);

    impl Lcg {
        /// A number below `n`.
        pub fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) % n as u64) as usize
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::pattern_algebra::Pattern;
    use Decision::*;

    struct Glob;
    impl PatternLanguage for Glob {
        fn compile(&self, source: &str) -> Pattern {
            Pattern::from_expanded(source)
        }
    }

    /// The findings of one group holding every rule (pattern, action,
    /// effect), each judged.
    fn analysed(spec: &[(&str, Decision, Option<&str>)]) -> Vec<Finding> {
        let rules: Vec<Rule> = spec
            .iter()
            .map(|(p, a, e)| Rule {
                source: p,
                action: *a,
                effect: *e,
                keeps_lower: false,
            })
            .collect();
        let groups = [Group {
            members: (0..rules.len()).collect(),
            judged: vec![true; rules.len()],
            single_valued: true,
            values: true,
        }];
        let list = List {
            rules: &rules,
            groups: &groups,
            salt: b"",
        };
        analyse(&list, &Glob, &|_, _| Vec::<Finding>::new())
    }

    fn findings(spec: &[(&str, Decision)]) -> Vec<Finding> {
        let spec: Vec<_> = spec.iter().map(|(p, a)| (*p, *a, None)).collect();
        analysed(&spec)
    }

    #[test]
    fn an_exception_before_its_broader_rule_is_overridden() {
        assert_eq!(
            findings(&[("git push *", Deny), ("*", Ask)]),
            [Finding::Overridden {
                rule: 0,
                decided_by: 1,
                example: "git push".into(),
                all_by: vec![1]
            }]
        );
    }

    #[test]
    fn shadowed_by_a_union_and_redundant_after_a_broader_rule() {
        let f = findings(&[
            ("git *", Deny),
            ("git", Allow),
            ("git ?*", Ask),
            ("git ", Ask),
            ("npm *", Allow),
            ("npm test", Allow),
        ]);
        // No single later rule includes `git *`: shadowed by the three
        // together.
        assert!(
            matches!(&f[0], Finding::Shadowed { rule: 0, all_by, .. } if all_by == &vec![1, 2, 3])
        );
        assert!(f.contains(&Finding::Redundant {
            rule: 5,
            instead: 4,
            example: "npm test".into()
        }));
        assert_eq!(f.len(), 2);
    }

    #[test]
    fn live_rules_have_no_finding() {
        assert!(findings(&[("*", Ask), ("git *", Allow), ("git push *", Deny)]).is_empty());
        assert!(findings(&[("rm *", Ask)]).is_empty());
    }

    /// Every string of up to `n` units over `units`.
    fn strings(units: &[char], n: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..n {
            last = last
                .iter()
                .flat_map(|s| units.iter().map(move |u| format!("{s}{u}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    /// The last matching rule's action and effect, over `rules` without
    /// the one at `skip`.
    fn decide(
        rules: &[(Pattern, Decision, Option<&str>)],
        skip: Option<usize>,
        w: &str,
    ) -> Option<(Decision, Option<String>)> {
        rules
            .iter()
            .enumerate()
            .rev()
            .find(|(i, (p, _, _))| Some(*i) != skip && p.is_match(w))
            .map(|(_, (_, a, e))| (*a, e.map(str::to_string)))
    }

    /// Every finding of random lists holds on every short string: a dead
    /// rule's calls are all matched by a later rule, a redundant rule's
    /// removal changes no decision among the calls the list decides, and
    /// each example is a call the rule matches.
    #[test]
    fn findings_hold_on_every_short_string() {
        const PARTS: [&str; 8] = ["a", "b", " ", "*", "?", "ab", " *", "*a"];
        let units = ['a', 'b', ' ', 'z'];
        let words = strings(&units, 6);
        let mut rng = testing::Lcg(17);
        let mut below = |n: usize| rng.below(n);
        let mut kinds = [0usize; 3];
        for _ in 0..1_500 {
            let n = 2 + below(9);
            let spec: Vec<(String, Decision, Option<&str>)> = (0..n)
                .map(|_| {
                    let parts = 1 + below(3);
                    let p: String = (0..parts).map(|_| PARTS[below(PARTS.len())]).collect();
                    let a = [Allow, Ask, Deny][below(3)];
                    let e = [None, None, Some("why")][below(3)];
                    (p, a, e)
                })
                .collect();
            let borrowed: Vec<(&str, Decision, Option<&str>)> =
                spec.iter().map(|(p, a, e)| (p.as_str(), *a, *e)).collect();
            let found = analysed(&borrowed);
            let compiled: Vec<(Pattern, Decision, Option<&str>)> = spec
                .iter()
                .map(|(p, a, e)| (Pattern::from_expanded(p), *a, *e))
                .collect();
            for f in &found {
                let k = f.rule();
                let own = |w: &String| compiled[k].0.is_match(w);
                match f {
                    Finding::Overridden { example, .. } | Finding::Shadowed { example, .. } => {
                        kinds[0] += 1;
                        assert!(compiled[k].0.is_match(example), "{spec:?} {f:?}");
                        for w in words.iter().filter(|w| own(w)) {
                            assert!(
                                compiled[k + 1..].iter().any(|(p, _, _)| p.is_match(w)),
                                "{spec:?} {f:?}: `{w}` is decided by the rule"
                            );
                        }
                        kinds[1] += usize::from(matches!(f, Finding::Overridden { .. }));
                    }
                    Finding::Redundant { example, .. } => {
                        kinds[2] += 1;
                        assert!(compiled[k].0.is_match(example), "{spec:?} {f:?}");
                        for w in words.iter().filter(|w| own(w)) {
                            assert_eq!(
                                decide(&compiled, None, w),
                                decide(&compiled, Some(k), w),
                                "{spec:?} {f:?}: `{w}`"
                            );
                        }
                    }
                    Finding::Unexamined { .. } => panic!("{spec:?}: {f:?}"),
                }
            }
        }
        // Every kind of finding was made many times.
        assert!(kinds.iter().all(|&c| c > 100), "{kinds:?}");
    }

    /// Members guessed on several threads, with budgets of their own, and
    /// then kept or decided again in order give the findings of deciding
    /// one member after another — with budgets that run out anywhere.
    #[test]
    fn guessing_on_every_core_finds_what_one_member_after_another_does() {
        const PARTS: [&str; 9] = ["a", "b", " ", "*", "?", "ab", " *", "*a", "b?"];
        let mut rng = testing::Lcg(29);
        let mut below = |n: usize| rng.below(n);
        let before = testing::guesses();
        let mut differ = 0;
        for round in 0..600 {
            let n = 2 + below(40);
            let spec: Vec<(String, Decision, Option<&str>)> = (0..n)
                .map(|i| {
                    let parts = 1 + below(3);
                    let mut p: String = (0..parts).map(|_| PARTS[below(PARTS.len())]).collect();
                    if i == n / 2 && round % 3 == 0 {
                        p = "*".into();
                    }
                    (
                        p,
                        [Allow, Ask, Deny][below(3)],
                        [None, Some("why")][below(2)],
                    )
                })
                .collect();
            let borrowed: Vec<(&str, Decision, Option<&str>)> =
                spec.iter().map(|(p, a, e)| (p.as_str(), *a, *e)).collect();
            let budgets = match below(3) {
                0 => None,
                _ => Some([below(4_000), below(400)]),
            };
            testing::set_budgets(budgets);
            testing::set_guessing(None, false);
            let one_by_one = analysed(&borrowed);
            testing::set_guessing(Some((2 + below(2), 1 + below(6))), round % 2 == 0);
            let guessed = analysed(&borrowed);
            testing::set_guessing(None, false);
            testing::set_budgets(None);
            assert_eq!(guessed, one_by_one, "{spec:?} {budgets:?}");
            differ += usize::from(
                one_by_one
                    .iter()
                    .any(|f| matches!(f, Finding::Unexamined { .. })),
            );
        }
        let [kept, redone] = testing::guesses();
        // Both ways were taken many times, and budgets ran out in many lists.
        assert!(
            kept - before[0] > 1_000 && redone - before[1] > 100,
            "{kept} {redone}"
        );
        assert!(differ > 50, "{differ}");
    }
}
