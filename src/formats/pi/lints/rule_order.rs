//! Last-match-wins analysis of the ordered rule list (pattern-analysis spec
//! §5): rules that never decide anything (overridden by a later rule with
//! another action, or shadowed by later rules with the same one), rules
//! whose removal changes no decision, and tools a catch-all deny hides
//! from the agent (D21). Every finding carries a concrete example; every
//! question the bounded search cannot answer produces no finding.
//!
//! The value precedence is the shared last-match-wins analysis
//! (`core::last_match`); this module says what pi's groups are (the
//! rules whose key matches one literal surface), which rules are judged
//! there, and adds pi's own tool-level findings.

use crate::core::last_match::{self, Group, List, Memo, Rule};
use crate::core::pattern_algebra::{Pattern, PatternLanguage};
use crate::formats::pi::engine::wildcard::{MatchOptions, Wildcard};
use crate::formats::pi::model::State;
use crate::formats::pi::model::config::{KNOWN_SURFACES, TOOLS};
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
    /// The analysis's budgets ran out before `count` rules (the first
    /// `rule`) were examined.
    Unexamined { rule: usize, count: usize },
}

impl From<last_match::Finding> for Finding {
    fn from(f: last_match::Finding) -> Finding {
        match f {
            last_match::Finding::Overridden {
                rule,
                decided_by,
                example,
                all_by,
            } => Finding::Overridden {
                rule,
                decided_by,
                example,
                all_by,
            },
            last_match::Finding::Shadowed {
                rule,
                decided_by,
                example,
                all_by,
            } => Finding::Shadowed {
                rule,
                decided_by,
                example,
                all_by,
            },
            last_match::Finding::Redundant {
                rule,
                instead,
                example,
            } => Finding::Redundant {
                rule,
                instead,
                example,
            },
            last_match::Finding::Unexamined { rule, count } => Finding::Unexamined { rule, count },
        }
    }
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

/// pi's value patterns, after home expansion.
struct Values<'h> {
    home: &'h str,
}

impl PatternLanguage for Values<'_> {
    fn compile(&self, source: &str) -> Pattern {
        crate::formats::pi::engine::wildcard::algebra_pattern(source, self.home)
    }
}

/// The groups of a rule list: for each literal surface, the rules whose
/// key matches it (a wildcard key is a possible decider in every group it
/// matches, and judged in none), with the surfaces in group order.
fn groups(rules: &[OrderedRule], home: &str) -> (Vec<String>, Vec<Group>) {
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
    let mut literal: Vec<&str> = keys.iter().copied().filter(|s| !has_wildcard(s)).collect();
    literal.dedup();
    let mut groups = Vec::with_capacity(literal.len());
    for surface in &literal {
        let matching: Vec<bool> = compiled.iter().map(|w| w.is_match(surface)).collect();
        let members: Vec<usize> = (0..rules.len()).filter(|&i| matching[key_of[i]]).collect();
        let judged = members
            .iter()
            .map(|&i| rules[i].surface == *surface && rules[i].elsewhere.is_none())
            .collect();
        groups.push(Group {
            members,
            judged,
            single_valued: !multi_valued(surface),
            values: !is_extension_surface(surface),
        });
    }
    (literal.into_iter().map(str::to_string).collect(), groups)
}

/// Recently analysed rule lists (a few documents' worth).
static MEMO: Memo<Finding> = Memo::new();

/// [`analyze_rule_order`], memoised on the rules' contents and updated in
/// place for small edits (see `core::last_match::Memo`): the answer is
/// the one a fresh analysis gives.
pub fn analyze_rule_order_memo(
    rules: &[OrderedRule],
    default: State,
    home: &str,
) -> std::sync::Arc<Vec<Finding>> {
    run(rules, default, home, |list, language, head| {
        MEMO.analyse(list, language, head)
    })
}

pub fn analyze_rule_order(rules: &[OrderedRule], default: State, home: &str) -> Vec<Finding> {
    let findings = run(rules, default, home, |list, language, head| {
        std::sync::Arc::new(last_match::analyse(list, language, head))
    });
    std::sync::Arc::try_unwrap(findings).unwrap_or_else(|a| (*a).clone())
}

fn run(
    rules: &[OrderedRule],
    default: State,
    home: &str,
    analyser: impl Fn(
        &List<'_>,
        &dyn PatternLanguage,
        last_match::Head<'_, Finding>,
    ) -> std::sync::Arc<Vec<Finding>>,
) -> std::sync::Arc<Vec<Finding>> {
    let (surfaces, groups) = groups(rules, home);
    let core: Vec<Rule> = rules
        .iter()
        .map(|r| Rule {
            source: &r.pattern,
            action: r.action,
            effect: r.reason.as_deref(),
            keeps_lower: r.replaces_lower,
        })
        .collect();
    // The home (value patterns expand `~`) and the default (the tool-level
    // check falls back to it).
    let mut salt = home.as_bytes().to_vec();
    salt.push(0);
    salt.push(default as u8);
    let list = List {
        rules: &core,
        groups: &groups,
        salt: &salt,
    };
    let head = |gi: usize, patterns: &[&Pattern]| {
        let surface = surfaces[gi].as_str();
        let g = &groups[gi];
        let star: Vec<bool> = patterns.iter().map(|p| p.matches_star()).collect();
        let mut out = Vec::new();
        if TOOLS.contains(&surface) || is_extension_surface(surface) {
            tool_hidden(surface, rules, &g.members, &star, default, &mut out);
        }
        if !g.values {
            extension_order(surface, rules, &g.members, &star, &mut out);
        }
        out
    };
    analyser(&list, &Values { home }, &head)
}

/// D21: `evaluate(tool, "*")` is deny, so the tool is not offered.
fn tool_hidden(
    tool: &str,
    rules: &[OrderedRule],
    members: &[usize],
    star: &[bool],
    default: State,
    out: &mut Vec<Finding>,
) {
    let decider = members
        .iter()
        .zip(star)
        .rev()
        .find(|(_, s)| **s)
        .map(|(i, _)| *i);
    let state = decider.map_or(default, |i| rules[i].action);
    if state != State::Deny {
        return;
    }
    let unreachable: Vec<usize> = members
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
fn extension_order(
    surface: &str,
    rules: &[OrderedRule],
    members: &[usize],
    star: &[bool],
    out: &mut Vec<Finding>,
) {
    let matching: Vec<usize> = members
        .iter()
        .zip(star)
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

    use last_match::testing::Lcg;

    fn pattern(rng: &mut Lcg) -> String {
        const PARTS: [&str; 10] = ["git", "npm", " ", "*", "?", "a", "b", "push", " *", "x"];
        if rng.below(10) == 0 {
            return "*".into();
        }
        let n = 1 + rng.below(4);
        (0..n).map(|_| PARTS[rng.below(PARTS.len())]).collect()
    }

    fn action(rng: &mut Lcg) -> State {
        [State::Allow, State::Ask, State::Deny][rng.below(3)]
    }

    fn random_rules(rng: &mut Lcg, n: usize) -> Vec<OrderedRule> {
        const SURFACES: [&str; 8] = ["bash", "bash", "bash", "read", "ba*", "*", "mcp", "myext"];
        (0..n)
            .map(|i| OrderedRule {
                surface: SURFACES[rng.below(SURFACES.len())].into(),
                pattern: pattern(rng),
                action: action(rng),
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
                2 => r.pattern = pattern(rng),
                _ => r.action = action(rng),
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
        last_match::testing::set_budgets(budgets);
        let mut rng = Lcg(seed);
        let before = last_match::testing::updates();
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
        assert!(last_match::testing::updates() - before > 1200);
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
    /// When a budget runs out, the rules left unexamined are said, once,
    /// after the findings made (never silently dropped); with room enough
    /// there is no such finding and every redundant rule is found.
    #[test]
    fn a_spent_budget_is_said() {
        let mut spec = vec![("bash", "*".to_string(), State::Allow)];
        spec.extend((0..40).map(|i| ("bash", format!("a{i} *"), State::Allow)));
        let owned: Vec<(&str, &str, State)> =
            spec.iter().map(|(s, p, a)| (*s, p.as_str(), *a)).collect();
        let r = rules(&owned);
        last_match::testing::set_budgets(None);
        let all = analyze_rule_order(&r, State::Ask, "/home/u");
        assert_eq!(all.len(), 40, "{all:?}");
        assert!(all.iter().all(|f| matches!(f, Finding::Redundant { .. })));
        // A search budget for a few rules only.
        last_match::testing::set_budgets(Some([2_000, 10_000]));
        let cut = analyze_rule_order(&r, State::Ask, "/home/u");
        last_match::testing::set_budgets(None);
        let found = cut
            .iter()
            .filter(|f| matches!(f, Finding::Redundant { .. }))
            .count();
        let Some(Finding::Unexamined { rule, count }) = cut.last() else {
            panic!("{cut:?}");
        };
        // Some found, the rest counted (the catch-all, examined first,
        // has no finding either way).
        assert!(found > 0 && found < 40, "{cut:?}");
        assert_eq!(found + count, 40, "{cut:?}");
        assert_eq!(*rule, found + 1, "{cut:?}");
        assert_eq!(
            cut.iter()
                .filter(|f| matches!(f, Finding::Unexamined { .. }))
                .count(),
            1
        );
    }

    /// A rule the analysis's bounds leave undecided (here: it overlaps
    /// more rules than are combined, each `*v…*` overlapping every other)
    /// is counted as unexamined, never silently left without a finding.
    #[test]
    fn a_rule_left_undecided_is_said() {
        let mut spec = vec![("bash", "*".to_string(), State::Ask)];
        spec.extend((0..600).map(|i| {
            let action = if i % 2 == 0 {
                State::Allow
            } else {
                State::Deny
            };
            ("bash", format!("*v{i}*"), action)
        }));
        let owned: Vec<(&str, &str, State)> =
            spec.iter().map(|(s, p, a)| (*s, p.as_str(), *a)).collect();
        last_match::testing::set_budgets(None);
        let found = analyze_rule_order(&rules(&owned), State::Ask, "/home/u");
        assert_eq!(
            found,
            [Finding::Unexamined {
                rule: 1,
                count: 600
            }]
        );
    }

    /// Updates agree with fresh analyses where the bounds leave rules
    /// undecided: hundreds of rules that overlap each other, edited.
    #[test]
    fn an_update_where_bounds_are_reached_equals_a_fresh_analysis() {
        last_match::testing::set_budgets(None);
        let mut rng = Lcg(23);
        let mut spec: Vec<(String, State)> = vec![("*".into(), State::Ask)];
        spec.extend((0..560).map(|i| (format!("*v{i}*"), action(&mut rng))));
        spec.extend((0..40).map(|i| (format!("git c{i} *"), action(&mut rng))));
        let owned: Vec<(&str, &str, State)> =
            spec.iter().map(|(p, a)| ("bash", p.as_str(), *a)).collect();
        let mut list = rules(&owned);
        let home = "/home/bounds";
        analyze_rule_order_memo(&list, State::Ask, home);
        for round in 0..12 {
            edit(&mut rng, &mut list);
            let updated = analyze_rule_order_memo(&list, State::Ask, home);
            let fresh = analyze_rule_order(&list, State::Ask, home);
            assert_eq!(*updated, fresh, "round {round}");
            assert!(
                fresh
                    .iter()
                    .any(|f| matches!(f, Finding::Unexamined { count, .. } if *count > 500)),
                "round {round}: {fresh:?}"
            );
        }
    }
}
