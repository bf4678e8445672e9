//! Rules found by a literal they need, instead of tried one by one.
//!
//! Many rule languages match a call only when its text holds a literal of
//! the rule: a command pattern `git push *` needs a command starting with
//! `git push`, a regex built from a command prefix needs that prefix
//! somewhere in the arguments. A `LiteralIndex` files each rule under its
//! literal (or under "always", when it has none) and finds, in one
//! Aho-Corasick pass over a text, every rule whose literal the text holds
//! (at its start, for an anchored index). A decision then tries those and
//! the "always" rules, in rule order: the same first match as a pass over
//! every rule, in time that does not grow with the rules a call cannot
//! match. Checks that decide one call per rule stay linear.

use aho_corasick::{
    AhoCorasick, Anchored, Input, MatchKind, StartKind, automaton::OverlappingState,
};
use std::collections::HashMap;

/// A rule's position and the literal it needs (`None`: none).
pub type Entry<'a> = (usize, Option<&'a [u8]>);

#[derive(Debug, Clone, Default)]
pub struct LiteralIndex {
    automaton: Option<AhoCorasick>,
    anchored: bool,
    /// Per literal of the automaton, the rules that need it, ascending.
    by_literal: Vec<Vec<usize>>,
    /// Rules without a literal: always tried, ascending.
    always: Vec<usize>,
}

impl LiteralIndex {
    /// `rules` yields each rule's position and the literal it needs
    /// (`None` or empty: none). `anchored`: the literal must start the
    /// text; otherwise it may be anywhere in it.
    pub fn new<'a>(rules: impl IntoIterator<Item = Entry<'a>>, anchored: bool) -> LiteralIndex {
        let mut literals: Vec<&[u8]> = Vec::new();
        let mut ids: HashMap<&[u8], usize> = HashMap::new();
        let mut by_literal: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        for (i, lit) in rules {
            match lit.filter(|l| !l.is_empty()) {
                Some(lit) => {
                    let id = *ids.entry(lit).or_insert_with(|| {
                        literals.push(lit);
                        by_literal.push(Vec::new());
                        literals.len() - 1
                    });
                    by_literal[id].push(i);
                }
                None => always.push(i),
            }
        }
        let automaton = if literals.is_empty() {
            None
        } else {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .start_kind(if anchored {
                    StartKind::Anchored
                } else {
                    StartKind::Unanchored
                })
                .build(&literals)
                .ok()
        };
        if automaton.is_none() && !by_literal.is_empty() {
            // Not built (too large for the automaton): every rule is tried.
            always.extend(by_literal.drain(..).flatten());
        }
        always.sort_unstable();
        always.dedup();
        LiteralIndex {
            automaton,
            anchored,
            by_literal,
            always,
        }
    }

    /// The rules one of `texts` may match, ascending and without repeats.
    pub fn candidates<'t>(&self, texts: impl IntoIterator<Item = &'t [u8]>) -> Vec<usize> {
        let mut out = self.always.clone();
        let Some(ac) = &self.automaton else {
            return out;
        };
        let mut ids = Vec::new();
        for t in texts {
            let input = Input::new(t).anchored(if self.anchored {
                Anchored::Yes
            } else {
                Anchored::No
            });
            let mut state = OverlappingState::start();
            loop {
                if ac.try_find_overlapping(input.clone(), &mut state).is_err() {
                    // Cannot happen (built for this kind of search).
                    ids = (0..self.by_literal.len()).collect();
                    break;
                }
                match state.get_match() {
                    // An anchored overlapping search also reports literals
                    // found after the start: only those at the start count.
                    Some(m) if self.anchored && m.start() != 0 => {}
                    Some(m) => ids.push(m.pattern().as_usize()),
                    None => break,
                }
            }
        }
        if ids.is_empty() {
            return out;
        }
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            out.extend_from_slice(&self.by_literal[id]);
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// An index built from a policy on first use (a policy's rules do not
/// change after loading); a copy of the policy builds its own.
pub struct BuiltOnce<T>(std::sync::OnceLock<T>);

impl<T> BuiltOnce<T> {
    pub fn get_or_init(&self, build: impl FnOnce() -> T) -> &T {
        self.0.get_or_init(build)
    }
}

impl<T> Default for BuiltOnce<T> {
    fn default() -> Self {
        BuiltOnce(std::sync::OnceLock::new())
    }
}

impl<T> Clone for BuiltOnce<T> {
    fn clone(&self) -> Self {
        BuiltOnce::default()
    }
}

impl<T> std::fmt::Debug for BuiltOnce<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "BuiltOnce(built)"
        } else {
            "BuiltOnce(empty)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(rules: &[Option<&str>], anchored: bool) -> LiteralIndex {
        LiteralIndex::new(
            rules
                .iter()
                .enumerate()
                .map(|(i, l)| (i, l.map(str::as_bytes))),
            anchored,
        )
    }

    #[test]
    fn anchored_finds_every_literal_the_text_starts_with() {
        let ix = index(
            &[
                Some("git"),
                Some("git push"),
                None,
                Some("npm"),
                Some("push"),
                Some("git"),
            ],
            true,
        );
        assert_eq!(ix.candidates([&b"git push origin"[..]]), vec![0, 1, 2, 5]);
        assert_eq!(ix.candidates([&b"npm test"[..], b"xgit"]), vec![2, 3]);
        assert_eq!(ix.candidates(std::iter::empty()), vec![2]);
    }

    #[test]
    fn unanchored_finds_literals_anywhere() {
        let ix = index(
            &[
                Some("\"command\":\"git"),
                Some("\"command\":\"ls"),
                Some(""),
            ],
            false,
        );
        assert_eq!(
            ix.candidates([&b"{\"x\":1,\"command\":\"git status\"}"[..]]),
            vec![0, 2]
        );
    }

    #[test]
    fn the_same_as_trying_every_rule() {
        // Against a pass over every rule with `starts_with`.
        let words = ["a", "ab", "abc", "b", "ba", "", "abd"];
        let rules: Vec<Option<&str>> = words.iter().map(|w| Some(*w)).collect();
        let ix = index(&rules, true);
        for text in ["", "a", "abc", "abd x", "bab", "c"] {
            let want: Vec<usize> = (0..words.len())
                .filter(|&i| text.starts_with(words[i]))
                .collect();
            assert_eq!(ix.candidates([text.as_bytes()]), want, "{text}");
        }
    }
}
