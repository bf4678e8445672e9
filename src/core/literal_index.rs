//! Rules found by a literal they need, instead of tried one by one.
//!
//! Many rule languages match a call only when a text of the call starts
//! with a literal of the rule: a command pattern `git push *` needs a
//! command starting with `git push`, a regex built from a command prefix
//! needs the arguments' command to start with it. A `LiteralIndex` files
//! each rule under its literal (or under "always", when it has none) and
//! finds, in one walk along a text, every rule whose literal the text
//! starts with. A decision then tries those and the "always" rules, in
//! rule order: the same first match as a pass over every rule, in time that
//! does not grow with the rules a call cannot match. Checks that decide one
//! call per rule stay linear.

use rustc_hash::FxHashMap;

/// A rule's position and the literal it needs (`None`: none).
pub type Entry<'a> = (usize, Option<&'a [u8]>);

/// The literals in a byte trie: a text's walk from the root passes every
/// literal it starts with. (An Aho-Corasick automaton was tried first: its
/// construction reorders states in time that grows faster than the number
/// of literals, and took longer than every search of a large policy.)
#[derive(Debug, Clone, Default)]
pub struct LiteralIndex {
    /// Edges: (node, byte) to node; the root is node 0.
    edges: FxHashMap<(u32, u8), u32>,
    /// Per node `k`, its rules are `ending[first[k]..first[k + 1]]`: the
    /// rules whose literal ends there (one flat list, not a list per node:
    /// a large policy has a node per rule).
    first: Vec<u32>,
    /// The rules ending at each node, node by node, ascending within one.
    ending: Vec<usize>,
    /// Rules without a literal: always tried, ascending.
    always: Vec<usize>,
}

impl LiteralIndex {
    /// `rules` yields each rule's position, ascending, and the literal it
    /// needs at the start of a text (`None` or empty: none).
    pub fn new<'a>(rules: impl IntoIterator<Item = Entry<'a>>) -> LiteralIndex {
        let mut ix = LiteralIndex::default();
        let mut nodes = 1u32;
        // (node, rule) pairs, rules ascending.
        let mut ends: Vec<(u32, usize)> = Vec::new();
        for (i, lit) in rules {
            match lit.filter(|l| !l.is_empty()) {
                Some(lit) => {
                    let mut node = 0u32;
                    for &b in lit {
                        node = *ix.edges.entry((node, b)).or_insert(nodes);
                        if node == nodes {
                            nodes += 1;
                        }
                    }
                    ends.push((node, i));
                }
                None => ix.always.push(i),
            }
        }
        // Grouped by node (a stable sort keeps each node's rules ascending).
        ends.sort_by_key(|&(node, _)| node);
        ix.first = Vec::with_capacity(nodes as usize + 1);
        let mut at = 0;
        for node in 0..nodes {
            ix.first.push(at as u32);
            while at < ends.len() && ends[at].0 == node {
                at += 1;
            }
        }
        ix.first.push(at as u32);
        ix.ending = ends.into_iter().map(|(_, i)| i).collect();
        ix
    }

    /// The rules one of `texts` may match — without a literal, or with one
    /// the text starts with — ascending and without repeats.
    pub fn candidates<'t>(&self, texts: impl IntoIterator<Item = &'t [u8]>) -> Vec<usize> {
        let mut out = self.always.clone();
        let mut found = false;
        for t in texts {
            let mut node = 0u32;
            for &b in t {
                match self.edges.get(&(node, b)) {
                    Some(&next) => node = next,
                    None => break,
                }
                let k = node as usize;
                let (from, to) = (self.first[k] as usize, self.first[k + 1] as usize);
                if from < to {
                    out.extend_from_slice(&self.ending[from..to]);
                    found = true;
                }
            }
        }
        if found {
            out.sort_unstable();
            out.dedup();
        }
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

    fn index(rules: &[Option<&str>]) -> LiteralIndex {
        LiteralIndex::new(
            rules
                .iter()
                .enumerate()
                .map(|(i, l)| (i, l.map(str::as_bytes))),
        )
    }

    #[test]
    fn finds_every_literal_the_text_starts_with() {
        let ix = index(&[
            Some("git"),
            Some("git push"),
            None,
            Some("npm"),
            Some("push"),
            Some("git"),
        ]);
        assert_eq!(ix.candidates([&b"git push origin"[..]]), vec![0, 1, 2, 5]);
        assert_eq!(ix.candidates([&b"npm test"[..], b"xgit"]), vec![2, 3]);
        assert_eq!(ix.candidates(std::iter::empty()), vec![2]);
    }

    #[test]
    fn the_same_as_trying_every_rule() {
        // Against a pass over every rule with `starts_with`.
        let words = ["a", "ab", "abc", "b", "ba", "", "abd"];
        let rules: Vec<Option<&str>> = words.iter().map(|w| Some(*w)).collect();
        let ix = index(&rules);
        for text in ["", "a", "abc", "abd x", "bab", "c"] {
            let want: Vec<usize> = (0..words.len())
                .filter(|&i| text.starts_with(words[i]))
                .collect();
            assert_eq!(ix.candidates([text.as_bytes()]), want, "{text}");
        }
    }
}
