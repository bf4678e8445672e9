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

/// A text in UTF-16 units as an index key (two bytes a unit, high byte
/// first): one text starts with another exactly when their keys do.
fn units_key(units: &[u16]) -> Vec<u8> {
    units.iter().flat_map(|u| u.to_be_bytes()).collect()
}

/// The key of a text read from its end: one text ends with another
/// exactly when their keys start so.
fn reversed_units_key(units: &[u16]) -> Vec<u8> {
    units.iter().rev().flat_map(|u| u.to_be_bytes()).collect()
}

/// Patterns by the text every string they match starts with, the text it
/// ends with and a text it contains (in UTF-16 units): finds the patterns
/// that may match a text, or include a pattern, without trying each. A
/// pattern with a prefix is found by it (its suffix then compared), one
/// with only a suffix by that, one with neither by a literal it requires
/// (looked up among the texts' pieces); only those with none of these are
/// always tried.
#[derive(Debug, Clone, Default)]
pub struct AnchoredIndex {
    starts: LiteralIndex,
    /// The suffixes of the patterns found by their prefix (none: empty).
    suffix_of: FxHashMap<usize, Vec<u16>>,
    ends: LiteralIndex,
    /// The patterns by a literal each requires, and the longest one.
    inner: FxHashMap<Vec<u16>, Vec<usize>>,
    inner_longest: usize,
    always: Vec<usize>,
}

/// How many pieces of the texts a lookup of required literals reads at
/// most; past it, every pattern found by one is tried (exact, slower).
const PIECES: usize = 1 << 14;

/// One pattern of an [`AnchoredIndex`]: its position (ascending), common
/// prefix, common suffix and a literal it requires (each empty: none).
pub struct Anchors {
    pub at: usize,
    pub prefix: Vec<u16>,
    pub suffix: Vec<u16>,
    pub required: Vec<u16>,
}

impl Anchors {
    /// A compiled pattern's.
    pub fn of(at: usize, p: &crate::core::pattern_algebra::Pattern) -> Anchors {
        Anchors {
            at,
            prefix: p.common_prefix(),
            suffix: p.common_suffix(),
            required: p.required_literal(),
        }
    }

    /// A pattern that is a literal text (it matches that text alone).
    pub fn literal(at: usize, text: &str) -> Anchors {
        let units: Vec<u16> = text.encode_utf16().collect();
        Anchors {
            at,
            prefix: units.clone(),
            suffix: units,
            required: Vec::new(),
        }
    }
}

impl AnchoredIndex {
    /// The patterns that may match `text` (every one that does).
    pub fn matching(&self, text: &str) -> Vec<usize> {
        let units: Vec<u16> = text.encode_utf16().collect();
        self.candidates(&units, &units, &[&units])
    }

    /// The patterns that may include `p` (every one that does).
    pub fn including(&self, p: &crate::core::pattern_algebra::Pattern) -> Vec<usize> {
        let runs = p.literal_runs();
        let pieces: Vec<&[u16]> = runs.iter().map(Vec::as_slice).collect();
        self.candidates(&p.common_prefix(), &p.common_suffix(), &pieces)
    }

    pub fn new(entries: impl IntoIterator<Item = Anchors>) -> AnchoredIndex {
        let mut ix = AnchoredIndex::default();
        let (mut starts, mut ends) = (Vec::new(), Vec::new());
        for e in entries {
            if !e.prefix.is_empty() {
                starts.push((e.at, units_key(&e.prefix)));
                if !e.suffix.is_empty() {
                    ix.suffix_of.insert(e.at, e.suffix);
                }
            } else if !e.suffix.is_empty() {
                ends.push((e.at, reversed_units_key(&e.suffix)));
            } else if !e.required.is_empty() {
                ix.inner_longest = ix.inner_longest.max(e.required.len());
                ix.inner.entry(e.required).or_default().push(e.at);
            } else {
                ix.always.push(e.at);
            }
        }
        let index = |keys: &[(usize, Vec<u8>)]| {
            LiteralIndex::new(keys.iter().map(|(i, k)| (*i, Some(k.as_slice()))))
        };
        ix.starts = index(&starts);
        ix.ends = index(&ends);
        ix
    }

    /// The patterns whose prefix `start` starts with, whose suffix `end`
    /// ends with, and whose required literal is within one of `pieces`,
    /// ascending. Every pattern matching a text is among those of (the
    /// text, the text, [the text]); every pattern including a pattern among
    /// those of (its common prefix, its common suffix, its literal runs).
    pub fn candidates(&self, start: &[u16], end: &[u16], pieces: &[&[u16]]) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .starts
            .candidates([units_key(start).as_slice()])
            .into_iter()
            .filter(|i| self.suffix_of.get(i).is_none_or(|s| end.ends_with(s)))
            .collect();
        out.extend(self.ends.candidates([reversed_units_key(end).as_slice()]));
        if !self.inner.is_empty() {
            let reads: usize = pieces
                .iter()
                .map(|p| p.len() * p.len().min(self.inner_longest))
                .sum();
            if reads > PIECES {
                out.extend(self.inner.values().flatten());
            } else {
                for p in pieces {
                    for from in 0..p.len() {
                        for to in from + 1..=p.len().min(from + self.inner_longest) {
                            if let Some(v) = self.inner.get(&p[from..to]) {
                                out.extend(v);
                            }
                        }
                    }
                }
            }
        }
        out.extend_from_slice(&self.always);
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
    /// Every pattern that matches a text, or includes a pattern, is among
    /// the candidates (against a pass over every pattern), on seeded random
    /// patterns of `a`, `b`, `é`, `😀`, `*` and `?`.
    #[test]
    fn anchored_candidates_hold_every_match_and_every_includer() {
        use crate::core::pattern_algebra::{Inclusion, Pattern, included_in};
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let alphabet = ["a", "b", "é", "😀", "*", "?", " *"];
        let (mut matched, mut included) = (0, 0);
        for _ in 0..200 {
            let sources: Vec<String> = (0..12)
                .map(|_| {
                    (0..1 + next(5))
                        .map(|_| alphabet[next(alphabet.len() as u64) as usize])
                        .collect()
                })
                .collect();
            let patterns: Vec<Pattern> =
                sources.iter().map(|s| Pattern::from_expanded(s)).collect();
            let ix =
                AnchoredIndex::new(patterns.iter().enumerate().map(|(i, p)| Anchors::of(i, p)));
            for _ in 0..10 {
                let text: String = (0..next(6))
                    .map(|_| ["a", "b", "é", "😀", " "][next(5) as usize])
                    .collect();
                let found = ix.matching(&text);
                for (i, p) in patterns.iter().enumerate() {
                    if p.is_match(&text) {
                        matched += 1;
                        assert!(found.contains(&i), "{} matches {text:?}", sources[i]);
                    }
                }
            }
            for w in &patterns {
                let found = ix.including(w);
                for (i, r) in patterns.iter().enumerate() {
                    if included_in(w, r) == Inclusion::Included {
                        included += 1;
                        assert!(found.contains(&i), "{} includes {w:?}", sources[i]);
                    }
                }
            }
        }
        // Not a vacuous pass: many of both were seen.
        assert!(matched > 500 && included > 2_000, "{matched} {included}");
    }
}
