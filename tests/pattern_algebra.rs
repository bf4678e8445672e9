//! Property tests of the pattern algebra against brute force: every string
//! up to length 5 over a small alphabet is matched with the engine's own
//! matcher (a separate implementation: regular expressions over UTF-16),
//! and the algebra's answers — overlap, inclusion, inclusion in a union —
//! must agree, with witnesses that really are witnesses.

use permission_lsp::core::pattern_algebra::{
    Inclusion, Overlap, Pattern, included_in, included_in_union, overlap, overlaps,
};
use permission_lsp::formats::pi::engine::wildcard::{MatchOptions, Wildcard};
use proptest::prelude::*;

const ALPHABET: [char; 4] = ['a', 'b', ' ', 'c'];
const MAX_LEN: usize = 5;

fn all_strings() -> &'static [String] {
    static ALL: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    ALL.get_or_init(enumerate)
}

fn enumerate() -> Vec<String> {
    let mut out = vec![String::new()];
    let mut frontier = vec![String::new()];
    for _ in 0..MAX_LEN {
        let mut next = Vec::new();
        for s in &frontier {
            for c in ALPHABET {
                let mut t = s.clone();
                t.push(c);
                next.push(t);
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

fn engine(p: &str) -> Wildcard {
    Wildcard::compile(p, "/home/u", MatchOptions::default())
}

fn pattern_strategy() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![Just('a'), Just('b'), Just(' '), Just('*'), Just('?')],
        0..5,
    )
    .prop_map(|v| v.into_iter().collect())
}

/// Strings up to `MAX_LEN` decide inclusion exactly when the counterexample,
/// if any, is that short; the algebra's shortest counterexamples are at
/// most |pattern| + 1 long, and patterns here are at most 4 long.
fn brute_included(b: &Wildcard, a: &[Wildcard], strings: &[String]) -> Option<String> {
    strings
        .iter()
        .find(|s| b.is_match(s) && !a.iter().any(|x| x.is_match(s)))
        .cloned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1200, ..ProptestConfig::default() })]

    #[test]
    fn overlap_agrees_with_enumeration(x in pattern_strategy(), y in pattern_strategy()) {
        let strings = all_strings();
        let (ex, ey) = (engine(&x), engine(&y));
        let brute = strings.iter().find(|s| ex.is_match(s) && ey.is_match(s));
        match overlap(&Pattern::from_expanded(&x), &Pattern::from_expanded(&y)) {
            Overlap::Overlap(w) => {
                prop_assert!(ex.is_match(&w) && ey.is_match(&w), "bad witness {w:?}");
                match brute {
                    Some(shortest) => prop_assert!(w.chars().count() <= shortest.chars().count(), "witness {w:?} longer than {shortest:?}"),
                    // The shortest common string is longer than the enumeration.
                    None => prop_assert!(w.chars().count() > MAX_LEN),
                }
            }
            Overlap::Disjoint => prop_assert!(brute.is_none(), "missed overlap {brute:?}"),
            Overlap::Unknown => prop_assert!(false, "unknown on a tiny pattern"),
        }
    }

    #[test]
    fn quick_overlap_agrees_with_the_search(x in pattern_strategy(), y in pattern_strategy()) {
        let (a, b) = (Pattern::from_expanded(&x), Pattern::from_expanded(&y));
        let exact = matches!(overlap(&a, &b), Overlap::Overlap(_));
        prop_assert_eq!(overlaps(&a, &b), Some(exact), "{:?} {:?}", x, y);
    }

    #[test]
    fn inclusion_agrees_with_enumeration(x in pattern_strategy(), y in pattern_strategy()) {
        let strings = all_strings();
        let (ex, ey) = (engine(&x), engine(&y));
        let brute = brute_included(&ey, std::slice::from_ref(&ex), strings);
        match included_in(&Pattern::from_expanded(&y), &Pattern::from_expanded(&x)) {
            Inclusion::Included => prop_assert!(brute.is_none(), "{y:?} ⊄ {x:?}: {brute:?}"),
            Inclusion::NotIncluded(w) => {
                prop_assert!(ey.is_match(&w) && !ex.is_match(&w), "bad counterexample {w:?}");
            }
            Inclusion::Unknown => prop_assert!(false, "unknown on a tiny pattern"),
        }
    }

    #[test]
    fn union_inclusion_agrees_with_enumeration(
        y in pattern_strategy(),
        xs in proptest::collection::vec(pattern_strategy(), 1..4),
    ) {
        let strings = all_strings();
        let ey = engine(&y);
        let exs: Vec<Wildcard> = xs.iter().map(|x| engine(x)).collect();
        let brute = brute_included(&ey, &exs, strings);
        let pats: Vec<Pattern> = xs.iter().map(|x| Pattern::from_expanded(x)).collect();
        let refs: Vec<&Pattern> = pats.iter().collect();
        match included_in_union(&Pattern::from_expanded(&y), &refs) {
            Inclusion::Included => prop_assert!(brute.is_none(), "{y:?} ⊄ {xs:?}: {brute:?}"),
            Inclusion::NotIncluded(w) => {
                prop_assert!(ey.is_match(&w) && !exs.iter().any(|x| x.is_match(&w)), "bad counterexample {w:?}");
            }
            Inclusion::Unknown => prop_assert!(false, "unknown on tiny patterns"),
        }
    }

    #[test]
    fn example_is_matched(x in "[ab *?~/]{0,12}") {
        let p = permission_lsp::formats::pi::engine::wildcard::algebra_pattern(&x, "/home/u");
        let e = engine(&x);
        prop_assert!(e.is_match(&p.example()));
        prop_assert!(p.is_match(&p.example()));
    }
}

#[test]
fn hostile_patterns_answer_quickly() {
    let star = Pattern::from_expanded(&"*".repeat(10_000));
    let q = Pattern::from_expanded(&"?".repeat(10_000));
    let mixed = Pattern::from_expanded(&"*a?".repeat(3_000));
    let ctrl = Pattern::from_expanded("\u{0}\u{1}*\u{1F600}?");
    for a in [&star, &q, &mixed, &ctrl] {
        for b in [&star, &q, &mixed, &ctrl] {
            let _ = overlap(a, b);
            let _ = included_in(a, b);
        }
    }
    assert_eq!(included_in(&q, &star), Inclusion::Included);
    // `?` is one UTF-16 unit: an astral character needs two.
    let two = Pattern::from_expanded("??");
    assert!(two.is_match("\u{1F600}"));
    assert_eq!(
        included_in(&Pattern::from_expanded("\u{1F600}"), &two),
        Inclusion::Included
    );
}
