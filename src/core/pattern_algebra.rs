//! Exact questions about the runtime's wildcard language (pattern-analysis
//! spec): do two patterns overlap (with a shortest common example), is one
//! included in another or in a union of others (with a counterexample when
//! not). Patterns are read after home expansion, over UTF-16 code units as
//! the runtime's regular expressions are; `*` is any run, `?` one unit, a
//! trailing ` *` also matches the bare prefix.
//!
//! Every search is bounded: past its budget an answer is
//! [`Inclusion::Unknown`] / [`Overlap::Unknown`], and callers report nothing.

use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Tok {
    Lit(u16),
    /// `?`: one code unit.
    Any,
    /// `*`: any run of code units.
    Star,
}

/// A pattern as a union of linear globs (one, or two for a trailing ` *`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    alts: Vec<Vec<Tok>>,
}

/// Product states explored before an answer becomes "unknown".
const STATE_BUDGET: usize = 5_000;
/// Position pairs an overlap search may visit.
const PAIR_BUDGET: usize = 2_000_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlap {
    Disjoint,
    /// A shortest string both match.
    Overlap(String),
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inclusion {
    Included,
    /// A string the included side matches and no including pattern does.
    NotIncluded(String),
    Unknown,
}

/// A rule-pattern language whose patterns this algebra can reason about:
/// each pattern is compiled into a [`Pattern`] (a union of linear globs
/// over UTF-16 units) that matches exactly the values the runtime's
/// matcher does. Shared by the threads of one analysis.
pub trait PatternLanguage: Sync {
    fn compile(&self, source: &str) -> Pattern;
}

impl Pattern {
    /// A glob over UTF-16 units: `*` any run, `?` one unit, a trailing
    /// ` *` also the bare prefix. A [`PatternLanguage`] turns its own
    /// patterns into this form (pi expands `~/` first).
    pub fn from_expanded(p: &str) -> Pattern {
        let mut units: Vec<Tok> = Vec::with_capacity(p.len());
        units.extend(p.encode_utf16().map(|u| match u {
            42 => Tok::Star,
            63 => Tok::Any,
            u => Tok::Lit(u),
        }));
        let n = units.len();
        let space = Tok::Lit(u16::from(b' '));
        // The runtime turns a final " .*" into "( .*)?" — only when the last
        // `*` directly follows a space (`git **` is not the command form).
        let command_form = n >= 2 && units[n - 1] == Tok::Star && units[n - 2] == space;
        let body = if command_form {
            &units[..n - 2]
        } else {
            &units[..]
        };
        let toks = normalize(body);
        let alts = if command_form {
            // A literal before the `*` ends any run of wildcards: the body
            // normalized, then ` *`, is normalized.
            let mut with_args = Vec::with_capacity(toks.len() + 2);
            with_args.extend_from_slice(&toks);
            with_args.push(space);
            with_args.push(Tok::Star);
            vec![toks, with_args]
        } else {
            vec![toks]
        };
        Pattern { alts }
    }

    /// The literal `parts` with any run between each two (`["a", ""]` is
    /// every string starting with `a`): for a runtime whose wildcard is
    /// `*` alone, where `?` and every other character is itself.
    pub fn from_parts(parts: &[&str]) -> Pattern {
        let mut toks = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                toks.push(Tok::Star);
            }
            toks.extend(part.encode_utf16().map(Tok::Lit));
        }
        Pattern {
            alts: vec![normalize(&toks)],
        }
    }

    /// Commands that start with one of `names` as a whole word: the name
    /// alone, or it, a blank and anything (`*` and `?` in a name are
    /// themselves).
    pub fn commands_named<S: AsRef<str>>(names: &[S]) -> Pattern {
        let alts: Vec<Pattern> = names
            .iter()
            .flat_map(|n| {
                let n = n.as_ref();
                [
                    Pattern::from_parts(&[n]),
                    Pattern::from_parts(&[&format!("{n} "), ""]),
                ]
            })
            .collect();
        Pattern::union(&alts)
    }

    /// Matches every string.
    pub fn is_universal(&self) -> bool {
        self.alts.iter().any(|a| a == &[Tok::Star])
    }

    pub fn has_any(&self) -> bool {
        self.alts.iter().flatten().any(|t| *t == Tok::Any)
    }

    fn literals(&self, out: &mut FxHashSet<u16>) {
        for t in self.alts.iter().flatten() {
            if let Tok::Lit(c) = t {
                out.insert(*c);
            }
        }
    }

    /// True when the pattern matches `value` (same answer as the engine's
    /// matcher; used for witnesses and tests).
    pub fn is_match(&self, value: &str) -> bool {
        let v: Vec<u16> = value.encode_utf16().collect();
        self.alts.iter().any(|a| glob_match(a, &v))
    }

    /// [`Pattern::is_match`] over a value already in UTF-16 units (callers
    /// that test one value against many patterns encode it once).
    pub fn is_match_units(&self, value: &[u16]) -> bool {
        self.alts.iter().any(|a| glob_match(a, value))
    }

    /// A shortest string the pattern matches.
    pub fn example(&self) -> String {
        let fresh = fresh_unit(&[self]);
        let best = self
            .alts
            .iter()
            .map(|a| {
                a.iter()
                    .filter_map(|t| match t {
                        Tok::Lit(c) => Some(*c),
                        Tok::Any => Some(fresh),
                        Tok::Star => None,
                    })
                    .collect::<Vec<u16>>()
            })
            .min_by_key(Vec::len)
            .unwrap_or_default();
        String::from_utf16_lossy(&best)
    }

    /// The literal text before the first wildcard (of the first branch; a
    /// trailing ` *` branch shares it).
    pub fn literal_prefix(&self) -> Vec<u16> {
        let alt = &self.alts[0];
        let n = alt.iter().take_while(|t| matches!(t, Tok::Lit(_))).count();
        alt[..n].iter().map(Tok::unit).collect()
    }

    /// The literal text every string the pattern matches starts with: the
    /// longest start common to every branch's literal run (`git *` also
    /// matches `git` alone, so its is `git`). A pattern included in another
    /// starts with the other's: a wildcard right after a branch's literal
    /// run can put any unit there.
    pub fn common_prefix(&self) -> Vec<u16> {
        self.common_run(false)
    }

    /// The literal run every branch has at its start (`from_end`: at its
    /// end), as far as all branches agree.
    fn common_run(&self, from_end: bool) -> Vec<u16> {
        let lit = |t: &Tok| match t {
            Tok::Lit(c) => Some(*c),
            _ => None,
        };
        // Each branch's run, read from the end it is anchored at.
        let run = |a: &[Tok]| -> Vec<u16> {
            if from_end {
                a.iter().rev().map_while(lit).collect()
            } else {
                a.iter().map_while(lit).collect()
            }
        };
        let mut common = run(&self.alts[0]);
        for a in &self.alts[1..] {
            let other = run(a);
            let same = common
                .iter()
                .zip(&other)
                .take_while(|(x, y)| x == y)
                .count();
            common.truncate(same);
        }
        if from_end {
            common.reverse();
        }
        common
    }

    /// The runs of literal text between the wildcards of the pattern's
    /// first branch: a string the pattern matches holds each, in order.
    pub fn literal_runs(&self) -> Vec<Vec<u16>> {
        self.alts[0]
            .split(|t| !matches!(t, Tok::Lit(_)))
            .filter(|r| !r.is_empty())
            .map(|r| r.iter().map(Tok::unit).collect())
            .collect()
    }

    /// A literal text every string the pattern matches contains: the
    /// longest run of a one-branch pattern (empty: none). A pattern included
    /// in this one holds it within one of its own runs (a wildcard there
    /// can be a unit this one never uses).
    pub fn required_literal(&self) -> Vec<u16> {
        if self.alts.len() != 1 {
            return Vec::new();
        }
        self.literal_runs()
            .into_iter()
            .max_by_key(Vec::len)
            .unwrap_or_default()
    }

    /// The literal text every string the pattern matches ends with (the
    /// mirror of [`Pattern::common_prefix`]).
    pub fn common_suffix(&self) -> Vec<u16> {
        self.common_run(true)
    }

    /// The literal text after the last wildcard, when every branch ends
    /// with the same one (else empty: no constraint).
    pub fn literal_suffix(&self) -> Vec<u16> {
        let tail = |a: &[Tok]| {
            let n = a
                .iter()
                .rev()
                .take_while(|t| matches!(t, Tok::Lit(_)))
                .count();
            a.len() - n
        };
        let first = &self.alts[0][tail(&self.alts[0])..];
        if self.alts[1..].iter().all(|a| &a[tail(a)..] == first) {
            first.iter().map(Tok::unit).collect()
        } else {
            Vec::new()
        }
    }

    /// Does the pattern match the value `*` (a tool-level check)?
    pub fn matches_star(&self) -> bool {
        self.alts
            .iter()
            .any(|a| glob_match_by(a, 1, |_| u16::from(b'*')))
    }

    fn len(&self) -> usize {
        self.alts.iter().map(Vec::len).sum()
    }

    /// Positions of the pattern (the cost unit of the searches).
    pub fn size(&self) -> usize {
        self.len() + self.alts.len()
    }

    /// The pattern that matches what any of `patterns` matches.
    pub fn union(patterns: &[Pattern]) -> Pattern {
        Pattern {
            alts: patterns
                .iter()
                .flat_map(|p| p.alts.iter().cloned())
                .collect(),
        }
    }
}

impl Tok {
    /// The unit of a literal (only called on literals).
    fn unit(&self) -> u16 {
        match self {
            Tok::Lit(c) => *c,
            _ => 0,
        }
    }
}

/// `**` is `*`; a run of wildcards puts its `?`s first (`*?` ≡ `?*`).
fn normalize(toks: &[Tok]) -> Vec<Tok> {
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if matches!(toks[i], Tok::Lit(_)) {
            out.push(toks[i]);
            i += 1;
            continue;
        }
        let mut anys = 0;
        let mut star = false;
        while i < toks.len() && !matches!(toks[i], Tok::Lit(_)) {
            match toks[i] {
                Tok::Any => anys += 1,
                _ => star = true,
            }
            i += 1;
        }
        out.extend(std::iter::repeat_n(Tok::Any, anys));
        if star {
            out.push(Tok::Star);
        }
    }
    out
}

/// Anchored glob match over code units (the classic star-backtracking
/// walk; linear in practice, O(n·m) at worst).
fn glob_match(p: &[Tok], v: &[u16]) -> bool {
    glob_match_by(p, v.len(), |i| v[i])
}

/// [`glob_match`] over a value given unit by unit.
fn glob_match_by(p: &[Tok], n: usize, v: impl Fn(usize) -> u16) -> bool {
    let (mut pi, mut vi) = (0, 0);
    let mut back: Option<(usize, usize)> = None;
    while vi < n {
        match p.get(pi) {
            Some(Tok::Star) => {
                back = Some((pi, vi));
                pi += 1;
            }
            Some(Tok::Any) => {
                pi += 1;
                vi += 1;
            }
            Some(Tok::Lit(c)) if *c == v(vi) => {
                pi += 1;
                vi += 1;
            }
            _ => match back {
                Some((bp, bv)) => {
                    pi = bp + 1;
                    vi = bv + 1;
                    back = Some((bp, bv + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|t| *t == Tok::Star)
}

/// A readable code unit that none of the patterns uses literally.
fn fresh_unit(patterns: &[&Pattern]) -> u16 {
    let used = |c: u16| {
        patterns
            .iter()
            .any(|p| p.alts.iter().flatten().any(|t| *t == Tok::Lit(c)))
    };
    "xyzqkjw0123456789abcdefghilmnoprstuv"
        .encode_utf16()
        .chain(0x00e0..0xd7ff)
        .find(|c| !used(*c))
        .unwrap_or(0xe000)
}

/// Do `a` and `b` match a common string? (No witness: the cheap question.)
/// Without `?`, two patterns with a `*` each overlap exactly when their
/// literal prefixes agree and their literal suffixes agree (the prefix,
/// every literal run of both, and the suffix, in a row, is matched by
/// both); a literal is matched directly; anything else runs the search.
pub fn overlaps(a: &Pattern, b: &Pattern) -> Option<bool> {
    if a.is_universal() || b.is_universal() {
        return Some(true);
    }
    let mut unknown = false;
    for x in &a.alts {
        for y in &b.alts {
            match overlaps_linear(x, y) {
                Some(true) => return Some(true),
                Some(false) => {}
                None => unknown = true,
            }
        }
    }
    if unknown {
        match overlap(a, b) {
            Overlap::Overlap(_) => Some(true),
            Overlap::Disjoint => Some(false),
            Overlap::Unknown => None,
        }
    } else {
        Some(false)
    }
}

/// An upper bound of the work [`overlaps`] does on `a` and `b`, in the
/// unit of the search budgets (pattern positions visited): what the
/// linear checks cost where they answer, a position pair for every pair
/// where the search runs.
pub fn overlaps_work(a: &Pattern, b: &Pattern) -> usize {
    if a.is_universal() || b.is_universal() {
        return 1;
    }
    let mut work = 1usize;
    let mut searched = false;
    for x in &a.alts {
        for y in &b.alts {
            match linear_work(x, y) {
                Some(w) => work = work.saturating_add(w),
                None => searched = true,
            }
        }
    }
    if searched {
        work = work.saturating_add(a.size().saturating_mul(b.size()));
    }
    work
}

/// An upper bound of the glob matching [`included_in_union_within`] does
/// when no includer has `?` (two candidate strings per branch of `b`, each
/// matched against every branch of every includer), in the unit of
/// [`overlaps_work`]. With a `?` the search charges its own budget: 1.
pub fn inclusion_work(b: &Pattern, including: &[&Pattern]) -> usize {
    if including.iter().any(|a| a.is_universal() || a.has_any()) || including.contains(&b) {
        return 1;
    }
    let mut work = 1usize;
    for alt in &b.alts {
        for a in including {
            for glob in &a.alts {
                work = work.saturating_add(walk_work(alt.len(), glob).saturating_mul(2));
            }
        }
    }
    work
}

/// An upper bound of matching a value of `len` units against every branch
/// of `patterns` (the backtracking walk), in the unit of [`overlaps_work`].
pub fn matching_work(len: usize, patterns: &[&Pattern]) -> usize {
    patterns
        .iter()
        .flat_map(|p| &p.alts)
        .fold(1usize, |acc, glob| acc.saturating_add(walk_work(len, glob)))
}

/// An upper bound of the backtracking walk of [`glob_match`] over a value
/// of `len` units: each unit may be compared again with every token from
/// the glob's first `*` on.
fn walk_work(len: usize, glob: &[Tok]) -> usize {
    let after_first_star = glob
        .iter()
        .position(|x| *x == Tok::Star)
        .map_or(0, |i| glob.len() - i);
    (len + 1).saturating_mul(after_first_star + 1) + glob.len()
}

/// What [`overlaps_linear`] costs on `a` and `b`, or `None` when it
/// leaves the question to the search. A literal against a glob is the
/// backtracking walk ([`walk_work`]).
fn linear_work(a: &[Tok], b: &[Tok]) -> Option<usize> {
    let literal = |t: &[Tok]| t.iter().all(|x| matches!(x, Tok::Lit(_)));
    if literal(a) {
        return Some(walk_work(a.len(), b));
    }
    if literal(b) {
        return Some(walk_work(b.len(), a));
    }
    if a.contains(&Tok::Any) || b.contains(&Tok::Any) {
        return None;
    }
    Some(a.len() + b.len() + 1)
}

fn overlaps_linear(a: &[Tok], b: &[Tok]) -> Option<bool> {
    let literal = |t: &[Tok]| t.iter().all(|x| matches!(x, Tok::Lit(_)));
    let unit = |t: &[Tok], i: usize| match t[i] {
        Tok::Lit(c) => c,
        _ => 0,
    };
    if literal(a) {
        return Some(glob_match_by(b, a.len(), |i| unit(a, i)));
    }
    if literal(b) {
        return Some(glob_match_by(a, b.len(), |i| unit(b, i)));
    }
    if a.contains(&Tok::Any) || b.contains(&Tok::Any) {
        return None;
    }
    // Without `?`, two patterns with wildcards share a string exactly when
    // their literal prefixes agree as far as both go, and so do their
    // literal suffixes.
    let agree = |x: &mut dyn Iterator<Item = (&Tok, &Tok)>| {
        x.map_while(|p| match p {
            (Tok::Lit(c), Tok::Lit(d)) => Some(c == d),
            _ => None,
        })
        .all(|same| same)
    };
    Some(agree(&mut a.iter().zip(b)) && agree(&mut a.iter().rev().zip(b.iter().rev())))
}

/// Do `a` and `b` match a common string? The witness is a shortest one.
pub fn overlap(a: &Pattern, b: &Pattern) -> Overlap {
    if a.len().saturating_mul(b.len()) > PAIR_BUDGET {
        return Overlap::Unknown;
    }
    let fresh = fresh_unit(&[a, b]);
    let mut best: Option<Vec<u16>> = None;
    for x in &a.alts {
        for y in &b.alts {
            if let Some(w) = overlap_linear(x, y, fresh)
                && best.as_ref().is_none_or(|b| w.len() < b.len())
            {
                best = Some(w);
            }
        }
    }
    match best {
        Some(w) => Overlap::Overlap(String::from_utf16_lossy(&w)),
        None => Overlap::Disjoint,
    }
}

/// 0-1 BFS over position pairs; ε-moves skip a `*`.
fn overlap_linear(a: &[Tok], b: &[Tok], fresh: u16) -> Option<Vec<u16>> {
    let m = b.len() + 1;
    let size = (a.len() + 1) * m;
    let mut dist = vec![u32::MAX; size];
    // parent: (previous state, emitted unit or none)
    let mut parent: Vec<Option<(usize, Option<u16>)>> = vec![None; size];
    let mut dq = VecDeque::new();
    dist[0] = 0;
    dq.push_back(0usize);
    let goal = a.len() * m + b.len();
    while let Some(s) = dq.pop_front() {
        if s == goal {
            let mut out = Vec::new();
            let mut cur = s;
            while let Some((prev, unit)) = parent[cur] {
                if let Some(u) = unit {
                    out.push(u);
                }
                cur = prev;
            }
            out.reverse();
            return Some(out);
        }
        let (i, j) = (s / m, s % m);
        let d = dist[s];
        let mut relax = |t: usize, unit: Option<u16>, dq: &mut VecDeque<usize>| {
            let nd = d + u32::from(unit.is_some());
            if nd < dist[t] {
                dist[t] = nd;
                parent[t] = Some((s, unit));
                if unit.is_none() {
                    dq.push_front(t);
                } else {
                    dq.push_back(t);
                }
            }
        };
        if a.get(i) == Some(&Tok::Star) {
            relax((i + 1) * m + j, None, &mut dq);
        }
        if b.get(j) == Some(&Tok::Star) {
            relax(i * m + j + 1, None, &mut dq);
        }
        let (Some(ta), Some(tb)) = (a.get(i), b.get(j)) else {
            continue;
        };
        let unit = match (ta, tb) {
            (Tok::Lit(x), Tok::Lit(y)) if x != y => continue,
            (Tok::Lit(x), _) | (_, Tok::Lit(x)) => *x,
            _ => fresh,
        };
        let ni = if *ta == Tok::Star { i } else { i + 1 };
        let nj = if *tb == Tok::Star { j } else { j + 1 };
        relax(ni * m + nj, Some(unit), &mut dq);
    }
    None
}

/// Work a series of questions may spend. A step that does not fit is
/// refused: the answer is unknown, nothing is left, and `refused` is set
/// (so a caller can tell an answer cut short from one the limit did not
/// touch — the same question asked with at least as much work left gets
/// the same answer when nothing was refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Work {
    pub left: usize,
    pub refused: bool,
}

impl Work {
    pub fn new(left: usize) -> Work {
        Work {
            left,
            refused: false,
        }
    }

    /// Take `cost`, or refuse it (and give up what is left).
    pub fn take(&mut self, cost: usize) -> bool {
        if self.left < cost {
            self.left = 0;
            self.refused = true;
            false
        } else {
            self.left -= cost;
            true
        }
    }
}

/// Is every string `b` matches also matched by one of `including`?
pub fn included_in_union(b: &Pattern, including: &[&Pattern]) -> Inclusion {
    included_in_union_within(b, including, &mut Work::new(SEARCH_WORK))
}

/// [`included_in_union`] drawing on a shared work budget.
pub fn included_in_union_within(
    b: &Pattern,
    including: &[&Pattern],
    budget: &mut Work,
) -> Inclusion {
    if including.iter().any(|a| a.is_universal()) {
        return Inclusion::Included;
    }
    if including.contains(&b) {
        return Inclusion::Included;
    }
    if including.is_empty() {
        return Inclusion::NotIncluded(b.example());
    }
    if !including.iter().any(|a| a.has_any()) {
        return skeleton_inclusion(b, including);
    }
    subset_inclusion(b, including, budget)
}

/// `L(b) ⊆ L(a)`.
pub fn included_in(b: &Pattern, a: &Pattern) -> Inclusion {
    included_in_union(b, &[a])
}

/// Exact when no including pattern has `?`: replace every wildcard of `b`
/// by a unit the includers never use; `b` is included iff some includer
/// matches that skeleton, and otherwise the skeleton is a counterexample.
fn skeleton_inclusion(b: &Pattern, including: &[&Pattern]) -> Inclusion {
    let mut all: Vec<&Pattern> = including.to_vec();
    all.push(b);
    let fresh = fresh_unit(&all);
    let matched = |w: &[u16]| {
        including
            .iter()
            .any(|a| a.alts.iter().any(|alt| glob_match(alt, w)))
    };
    for alt in &b.alts {
        let skeleton: Vec<u16> = alt
            .iter()
            .map(|t| match t {
                Tok::Lit(c) => *c,
                _ => fresh,
            })
            .collect();
        if !matched(&skeleton) {
            // Prefer the shorter string with every `*` empty when it too
            // escapes the includers.
            let short: Vec<u16> = alt
                .iter()
                .filter_map(|t| match t {
                    Tok::Lit(c) => Some(*c),
                    Tok::Any => Some(fresh),
                    Tok::Star => None,
                })
                .collect();
            let w = if matched(&short) { skeleton } else { short };
            return Inclusion::NotIncluded(String::from_utf16_lossy(&w));
        }
    }
    Inclusion::Included
}

/// A set of NFA positions over several linear globs, ε-closed.
type PosSet = Vec<(u32, u32)>;

fn closure(alts: &[&[Tok]], set: &mut PosSet) {
    // Each position after a `*` is added once per position before it (a
    // repeat only when the set already had it): the sort removes repeats.
    let mut i = 0;
    while i < set.len() {
        let (a, k) = set[i];
        if alts[a as usize].get(k as usize) == Some(&Tok::Star) {
            set.push((a, k + 1));
        }
        i += 1;
    }
    set.sort_unstable();
    set.dedup();
}

fn step(alts: &[&[Tok]], set: &PosSet, c: u16) -> PosSet {
    let mut next = Vec::new();
    step_into(alts, set, c, &mut next);
    next
}

/// [`step`] into a buffer the caller keeps.
fn step_into(alts: &[&[Tok]], set: &PosSet, c: u16, next: &mut PosSet) {
    next.clear();
    for &(a, k) in set {
        match alts[a as usize].get(k as usize) {
            Some(Tok::Star) => next.push((a, k)),
            Some(Tok::Any) => next.push((a, k + 1)),
            Some(Tok::Lit(x)) if *x == c => next.push((a, k + 1)),
            _ => {}
        }
    }
    closure(alts, next);
}

fn start(alts: &[&[Tok]]) -> PosSet {
    let mut s: PosSet = (0..alts.len() as u32).map(|a| (a, 0)).collect();
    closure(alts, &mut s);
    s
}

/// Inclusion by search: a string `b` accepts and no includer does.
fn subset_inclusion(b: &Pattern, including: &[&Pattern], budget: &mut Work) -> Inclusion {
    let mut all: Vec<&Pattern> = vec![b];
    all.extend_from_slice(including);
    match search_within(
        &all,
        0,
        |acc| acc[0] && !acc[1..].iter().any(|a| *a),
        budget,
    ) {
        Search::Found(w) => Inclusion::NotIncluded(w),
        Search::NotFound => Inclusion::Included,
        Search::Unknown => Inclusion::Unknown,
    }
}

/// The answer of [`search`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Search {
    /// A shortest string whose acceptance vector satisfies the predicate.
    Found(String),
    NotFound,
    Unknown,
}

/// Explores the product of several patterns breadth-first (an on-the-fly
/// subset construction over the symbolic alphabet: every literal unit,
/// plus one for "anything else") and returns a shortest string for which
/// `wanted(accepted)` holds, where `accepted[k]` says whether
/// `patterns[k]` matches the string. Only strings `patterns[required]`
/// can still match are explored. Past the budget the answer is unknown.
pub fn search(patterns: &[&Pattern], required: usize, wanted: impl Fn(&[bool]) -> bool) -> Search {
    search_within(patterns, required, wanted, &mut Work::new(SEARCH_WORK))
}

/// Work (positions stepped) one [`search`] may spend.
pub const SEARCH_WORK: usize = 20_000;

/// [`search`] drawing on a shared work budget; when it runs out the answer
/// is unknown (and the budget stays empty for the caller's next question).
pub fn search_within(
    patterns: &[&Pattern],
    required: usize,
    wanted: impl Fn(&[bool]) -> bool,
    budget: &mut Work,
) -> Search {
    let mut alts: Vec<&[Tok]> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    for (k, p) in patterns.iter().enumerate() {
        for a in &p.alts {
            alts.push(a);
            owner.push(k);
        }
    }
    let total: usize = alts.iter().map(|a| a.len() + 1).sum();
    if total > PAIR_BUDGET / 16 {
        return Search::Unknown;
    }
    let mut lits = FxHashSet::default();
    for p in patterns {
        p.literals(&mut lits);
    }
    let mut alphabet: Vec<u16> = lits.into_iter().collect();
    alphabet.sort_unstable();
    alphabet.push(fresh_unit(patterns));
    let mut accepted = vec![false; patterns.len()];
    let mut check = |set: &PosSet| {
        accepted.iter_mut().for_each(|a| *a = false);
        for &(a, k) in set {
            if k as usize == alts[a as usize].len() {
                accepted[owner[a as usize]] = true;
            }
        }
        wanted(&accepted)
    };
    let alive = |set: &PosSet| set.iter().any(|&(a, _)| owner[a as usize] == required);
    let first = start(&alts);
    let mut seen: FxHashMap<PosSet, ()> = FxHashMap::default();
    let mut states: Vec<(PosSet, Option<(usize, u16)>)> = Vec::new();
    if !alive(&first) {
        return Search::NotFound;
    }
    seen.insert(first.clone(), ());
    states.push((first, None));
    let mut head = 0;
    while head < states.len() {
        if check(&states[head].0) {
            let mut out = Vec::new();
            let mut cur = head;
            while let Some((prev, c)) = states[cur].1 {
                out.push(c);
                cur = prev;
            }
            out.reverse();
            return Search::Found(String::from_utf16_lossy(&out));
        }
        for &c in &alphabet {
            let next = step(&alts, &states[head].0, c);
            let cost = states[head].0.len() + 1;
            if !budget.take(cost) {
                return Search::Unknown;
            }
            if !alive(&next) || seen.contains_key(&next) {
                continue;
            }
            if states.len() >= STATE_BUDGET {
                return Search::Unknown;
            }
            seen.insert(next.clone(), ());
            states.push((next, Some((head, c))));
        }
        head += 1;
    }
    Search::NotFound
}

/// Every class of strings at once: explores the whole product of
/// `patterns` breadth-first — from each state only the units some live
/// position can read, plus one unit no pattern names (every other unit
/// leads to the state that one does) — and gives `class(accepted, hits)`
/// each state's acceptance vector (and the patterns it accepts, ascending). The result lists every class met with a
/// shortest string of it, in the order found (shortest first). `None` when
/// the budget or `max_states` ran out before every state was seen (some
/// classes may be missing); `max_positions` bounds the memory (the
/// positions of every state kept).
pub fn explore_within<K: Eq + std::hash::Hash + Clone>(
    patterns: &[&Pattern],
    class: impl FnMut(&[bool], &[usize]) -> Option<K>,
    budget: &mut Work,
    max_positions: usize,
) -> Option<Vec<(K, String)>> {
    explore_pruned(
        patterns,
        class,
        |_| None::<fn(usize) -> bool>,
        None,
        false,
        budget,
        max_positions,
    )
}

/// [`explore_within`] where the caller may drop patterns from a state:
/// `prune(settled)` is given the patterns that match every continuation
/// of the state's string (a position before nothing but `*`), and may
/// answer which patterns still matter (`keep(k)`); the others' positions
/// are dropped, so states that differ only in them are one. It must only
/// drop patterns whose matching can no longer change any class of a
/// continuation (a later rule that always matches decides instead).
/// With `required`, only strings that pattern can still match are walked;
/// with `first_only`, the walk ends at the first class met (a shortest
/// string of it).
#[allow(clippy::too_many_arguments)]
pub fn explore_pruned<K: Eq + std::hash::Hash + Clone, P: Fn(usize) -> bool>(
    patterns: &[&Pattern],
    mut class: impl FnMut(&[bool], &[usize]) -> Option<K>,
    mut prune: impl FnMut(&[usize]) -> Option<P>,
    required: Option<usize>,
    first_only: bool,
    budget: &mut Work,
    max_positions: usize,
) -> Option<Vec<(K, String)>> {
    use std::hash::{BuildHasher, BuildHasherDefault};
    let hasher = BuildHasherDefault::<rustc_hash::FxHasher>::default();
    let mut alts: Vec<&[Tok]> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    for (k, p) in patterns.iter().enumerate() {
        for a in &p.alts {
            alts.push(a);
            owner.push(k);
        }
    }
    let fresh = fresh_unit(patterns);
    let mut accepted = vec![false; patterns.len()];
    let mut found: FxHashMap<K, usize> = FxHashMap::default();
    let mut out: Vec<(K, usize)> = Vec::new();
    // Each state's positions are kept once, in `states`; `first` and
    // `chain` find the states of a hash (compared whole: exact).
    let mut states: Vec<(PosSet, Option<(u32, u16)>)> = Vec::new();
    let mut first: FxHashMap<u64, u32> = FxHashMap::default();
    let mut chain: Vec<u32> = Vec::new();
    let mut stored = 0usize;
    let start_set = start(&alts);
    let alive =
        |set: &PosSet| required.is_none_or(|r| set.iter().any(|&(a, _)| owner[a as usize] == r));
    if !alive(&start_set) {
        return Some(Vec::new());
    }
    first.insert(hasher.hash_one(&start_set), 0);
    chain.push(u32::MAX);
    stored += start_set.len();
    states.push((start_set, None));
    let mut head = 0;
    let mut units: Vec<u16> = Vec::new();
    let mut hits: Vec<usize> = Vec::new();
    let mut scratch: PosSet = Vec::new();
    let mut settled: Vec<usize> = Vec::new();
    while head < states.len() {
        for &h in &hits {
            accepted[h] = false;
        }
        hits.clear();
        for &(a, k) in &states[head].0 {
            if k as usize == alts[a as usize].len() {
                accepted[owner[a as usize]] = true;
                hits.push(owner[a as usize]);
            }
        }
        hits.sort_unstable();
        hits.dedup();
        if let Some(key) = class(&accepted, &hits)
            && !found.contains_key(&key)
        {
            found.insert(key.clone(), out.len());
            out.push((key, head));
            if first_only {
                break;
            }
        }
        units.clear();
        for &(a, k) in &states[head].0 {
            if let Some(Tok::Lit(c)) = alts[a as usize].get(k as usize) {
                units.push(*c);
            }
        }
        units.sort_unstable();
        units.dedup();
        units.push(fresh);
        for &c in &units {
            if !budget.take(states[head].0.len() + 1) {
                return None;
            }
            step_into(&alts, &states[head].0, c, &mut scratch);
            if scratch.is_empty() {
                continue;
            }
            settled.clear();
            for &(a, k) in &scratch {
                // At a `*` with nothing but `*` after it: every
                // continuation matches (the end of an alternative alone
                // matches only the string as it is).
                let rest = &alts[a as usize][k as usize..];
                if !rest.is_empty() && rest.iter().all(|t| *t == Tok::Star) {
                    settled.push(owner[a as usize]);
                }
            }
            if !settled.is_empty() {
                settled.dedup();
                if let Some(keep) = prune(&settled) {
                    scratch.retain(|&(a, _)| keep(owner[a as usize]));
                }
            }
            if scratch.is_empty() || !alive(&scratch) {
                continue;
            }
            let h = hasher.hash_one(&scratch);
            let mut at = first.get(&h).copied().unwrap_or(u32::MAX);
            let mut known = false;
            while at != u32::MAX {
                if states[at as usize].0 == scratch {
                    known = true;
                    break;
                }
                at = chain[at as usize];
            }
            if known {
                continue;
            }
            stored += scratch.len();
            if stored > max_positions || states.len() >= u32::MAX as usize - 1 {
                budget.refused = true;
                return None;
            }
            let id = states.len() as u32;
            chain.push(first.insert(h, id).unwrap_or(u32::MAX));
            states.push((std::mem::take(&mut scratch), Some((head as u32, c))));
        }
        head += 1;
    }
    let text = |mut cur: usize| {
        let mut v = Vec::new();
        while let Some((prev, c)) = states[cur].1 {
            v.push(c);
            cur = prev as usize;
        }
        v.reverse();
        String::from_utf16_lossy(&v)
    };
    Some(out.into_iter().map(|(k, at)| (k, text(at))).collect())
}

/// Hints for path values and commands with path arguments: the places
/// where runtimes check folders by themselves (absolute paths, the home
/// folder, parent directories) or rewrite the path before matching it
/// (`./`, `//`, a trailing `/`), plus the format's `extra` patterns.
pub fn path_hints(home: &str, extra: &[&str]) -> Vec<Pattern> {
    let mut v = vec![
        Pattern::from_expanded("/*"),
        Pattern::from_expanded(&format!("{}/*", home.trim_end_matches('/'))),
        Pattern::from_expanded("*../*"),
        Pattern::from_expanded("./*"),
        Pattern::from_expanded("*/./*"),
        Pattern::from_expanded("*//*"),
        Pattern::from_expanded("*/"),
    ];
    v.extend(extra.iter().map(|p| Pattern::from_expanded(p)));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_prefix_starts_every_match() {
        let units = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
        for (p, prefix, matches) in [
            ("git *", "git", &["git", "git push"][..]),
            ("git push*", "git push", &["git push", "git pushx"][..]),
            ("a?b*", "a", &["axb", "ayb c"][..]),
            ("*", "", &["", "x"][..]),
            ("ls", "ls", &["ls"][..]),
        ] {
            let pat = Pattern::from_expanded(p);
            assert_eq!(pat.common_prefix(), units(prefix), "{p}");
            for m in matches {
                assert!(pat.is_match(m), "{p} {m}");
                assert!(units(m).starts_with(&pat.common_prefix()), "{p} {m}");
            }
        }
        for (p, suffix) in [
            ("git *", ""),
            ("*.ts", ".ts"),
            ("a*b?c", "c"),
            ("ls", "ls"),
            ("*", ""),
        ] {
            assert_eq!(
                Pattern::from_expanded(p).common_suffix(),
                units(suffix),
                "{p}"
            );
        }
        // Included in another: starts with the other's.
        let (inner, outer) = (
            Pattern::from_expanded("git push *"),
            Pattern::from_expanded("git *"),
        );
        assert_eq!(included_in(&inner, &outer), Inclusion::Included);
        assert!(inner.common_prefix().starts_with(&outer.common_prefix()));
    }

    /// Dropping the patterns a settled later one outranks (last match
    /// wins) merges states but keeps every class: the same classes as the
    /// whole walk, over floating patterns that would multiply the states.
    #[test]
    fn pruning_outranked_patterns_keeps_every_class() {
        let sources = [
            "*",
            "git *",
            "*secret*",
            "*.env*",
            "git push *",
            "*x*y*",
            "rm *",
            "*secret",
            "x*",
        ];
        let pats: Vec<Pattern> = sources.iter().map(|s| p(s)).collect();
        let refs: Vec<&Pattern> = pats.iter().collect();
        let last = |hits: &[usize]| hits.iter().max().copied();
        let mut whole: Vec<Option<usize>> = explore_within(
            &refs,
            |_, h| Some(last(h)),
            &mut Work::new(1 << 24),
            1 << 22,
        )
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
        let mut states = 0usize;
        let mut pruned: Vec<Option<usize>> = explore_pruned(
            &refs,
            |_, h| {
                states += 1;
                Some(last(h))
            },
            |settled| {
                let top = *settled.iter().max()?;
                Some(move |k: usize| k >= top)
            },
            None,
            false,
            &mut Work::new(1 << 24),
            1 << 22,
        )
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
        whole.sort();
        pruned.sort();
        assert_eq!(whole, pruned);
        assert!(states > 0);
    }

    #[test]
    fn exploring_finds_every_class_with_a_shortest_string() {
        let (a, b, c) = (p("git *"), p("git push *"), p("*test*"));
        let pats = [&a, &b, &c];
        let classes = explore_within(
            &pats,
            |acc, _| Some(acc.to_vec()),
            &mut Work::new(1 << 20),
            10_000,
        )
        .expect("complete");
        // Every acceptance vector the three can show, each once.
        let mut keys: Vec<Vec<bool>> = classes.iter().map(|(k, _)| k.clone()).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), classes.len());
        assert_eq!(keys.len(), 6, "{classes:?}");
        for (k, w) in &classes {
            let got: Vec<bool> = pats.iter().map(|p| p.is_match(w)).collect();
            assert_eq!(&got, k, "{w:?}");
        }
        // Shortest first: the empty string matches none.
        assert_eq!(classes[0], (vec![false, false, false], String::new()));
        // Out of budget: incomplete, never a partial answer taken as whole.
        assert!(
            explore_within(
                &pats,
                |acc, _| Some(acc.to_vec()),
                &mut Work::new(10),
                10_000
            )
            .is_none()
        );
    }

    fn p(s: &str) -> Pattern {
        Pattern::from_expanded(s)
    }

    #[test]
    fn command_form_includes_the_bare_prefix() {
        assert!(p("git *").is_match("git"));
        assert!(p("git *").is_match("git status"));
        assert!(!p("git *").is_match("gitk"));
        assert!(p("git **").is_match("git "));
        assert!(!p("git **").is_match("git"));
        assert!(p(" *").is_match(""));
    }

    #[test]
    fn overlap_with_shortest_witness() {
        assert_eq!(
            overlap(&p("git *"), &p("* push")),
            Overlap::Overlap("git push".into())
        );
        assert_eq!(overlap(&p("git *"), &p("npm *")), Overlap::Disjoint);
        assert_eq!(overlap(&p("a?c"), &p("*c")), Overlap::Overlap("axc".into()));
        assert_eq!(
            overlap(&p("git *"), &p("*")),
            Overlap::Overlap("git".into())
        );
    }

    #[test]
    fn inclusion_with_counterexamples() {
        assert_eq!(
            included_in(&p("git push"), &p("git *")),
            Inclusion::Included
        );
        assert_eq!(
            included_in(&p("git *"), &p("git push *")),
            Inclusion::NotIncluded("git".into())
        );
        assert_eq!(
            included_in(&p("npm*"), &p("npm *")),
            Inclusion::NotIncluded("npmx".into())
        );
        assert_eq!(included_in(&p("a?b"), &p("a*")), Inclusion::Included);
        assert_eq!(included_in(&p("ab"), &p("a?")), Inclusion::Included);
        assert_eq!(
            included_in(&p("a*"), &p("a?")),
            Inclusion::NotIncluded("a".into())
        );
        assert_eq!(
            included_in_union(&p("git *"), &[&p("git"), &p("git ?*")]),
            Inclusion::NotIncluded("git ".into())
        );
        assert_eq!(
            included_in_union(&p("git *"), &[&p("git"), &p("git "), &p("git ?*")]),
            Inclusion::Included
        );
    }

    #[test]
    fn determinisation_blow_up_is_bounded() {
        let k = "?".repeat(40);
        let b = p(&format!("*a{k}"));
        let a = p(&format!("*a{k}b*"));
        let r = included_in(&b, &a);
        assert!(matches!(r, Inclusion::Unknown | Inclusion::NotIncluded(_)));
        let huge = p(&"*".repeat(10_000));
        assert!(huge.is_universal());
        let long = p(&"a?".repeat(5_000));
        assert_eq!(overlap(&long, &long), Overlap::Unknown);
    }
}
