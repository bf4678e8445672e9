//! The literal-prefix index of one group: two patterns can only share a
//! string when one's literal prefix starts the other's, so the rules a
//! rule may overlap are found by prefix instead of by trying them all.

use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Group positions sorted by literal prefix (ties by position), where the
/// run of each exact prefix starts and ends in that order (by the prefix's
/// hash; a lookup checks the prefix), and how many members have a prefix
/// of each length.
#[derive(Default)]
pub(super) struct PrefixIndex {
    sorted: Vec<usize>,
    by_prefix: FxHashMap<u64, (u32, u32)>,
    lengths: BTreeMap<usize, usize>,
}

/// The hash of a literal prefix, one unit at a time (so that every prefix
/// of a string is hashed in one pass).
const PREFIX_SEED: u64 = 0x243f_6a88_85a3_08d3;
fn prefix_step(h: u64, unit: u16) -> u64 {
    (h.rotate_left(5) ^ u64::from(unit)).wrapping_mul(0x517c_c1b7_2722_0a95)
}
fn prefix_hash(p: &[u16]) -> u64 {
    p.iter().fold(PREFIX_SEED, |h, &u| prefix_step(h, u))
}

impl PrefixIndex {
    pub(super) fn new(members: &[usize], prefixes: &[Vec<u16>]) -> PrefixIndex {
        let pre = |k: usize| prefixes[members[k]].as_slice();
        let mut keyed: Vec<(&[u16], usize)> = (0..members.len()).map(|k| (pre(k), k)).collect();
        keyed.sort_unstable();
        let mut index = PrefixIndex {
            sorted: keyed.into_iter().map(|(_, k)| k).collect(),
            ..PrefixIndex::default()
        };
        for k in 0..members.len() {
            *index.lengths.entry(pre(k).len()).or_default() += 1;
        }
        index.runs(members, prefixes);
        index
    }

    /// Index the runs of equal prefixes in `sorted`. Two prefixes with the
    /// same hash keep the first run; a lookup that finds another prefix
    /// there searches `sorted` instead.
    fn runs(&mut self, members: &[usize], prefixes: &[Vec<u16>]) {
        let pre = |x: usize| prefixes[members[x]].as_slice();
        self.by_prefix.clear();
        let mut i = 0;
        while i < self.sorted.len() {
            let p = pre(self.sorted[i]);
            let mut j = i + 1;
            while j < self.sorted.len() && pre(self.sorted[j]) == p {
                j += 1;
            }
            self.by_prefix
                .entry(prefix_hash(p))
                .or_insert((i as u32, j as u32));
            i = j;
        }
    }

    /// Move the members whose prefixes changed (group position, old
    /// prefix) to their new places. All leave `sorted` before any comes
    /// back, so that each is placed by a search over entries that are all
    /// in order.
    pub(super) fn moved(
        &mut self,
        members: &[usize],
        moved: &[(usize, &[u16])],
        prefixes: &[Vec<u16>],
    ) {
        for &(k, old) in moved {
            let new = &prefixes[members[k]];
            if let Some(c) = self.lengths.get_mut(&old.len()) {
                *c -= 1;
                if *c == 0 {
                    self.lengths.remove(&old.len());
                }
            }
            *self.lengths.entry(new.len()).or_default() += 1;
        }
        self.sorted.retain(|x| !moved.iter().any(|(k, _)| k == x));
        let pre = |x: usize| prefixes[members[x]].as_slice();
        for &(k, _) in moved {
            let at = self.sorted.partition_point(|&x| (pre(x), x) < (pre(k), k));
            self.sorted.insert(at, k);
        }
        self.runs(members, prefixes);
    }

    /// Members whose literal prefix starts `p` or starts with it: every
    /// rule a rule with prefix `p` may overlap.
    pub(super) fn compatible(
        &self,
        members: &[usize],
        p: &[u16],
        prefixes: &[Vec<u16>],
        out: &mut Vec<usize>,
    ) {
        let pre = |x: usize| prefixes[members[x]].as_slice();
        let (mut h, mut hashed) = (PREFIX_SEED, 0);
        // Where the prefixes that start with `p` begin in `sorted`: at the
        // run of `p` itself when a member has it (the rule asking usually
        // does), found with the runs of its shorter prefixes.
        let mut from = None;
        for (&len, _) in self.lengths.range(..=p.len()) {
            while hashed < len {
                h = prefix_step(h, p[hashed]);
                hashed += 1;
            }
            let q = &p[..len];
            let run = match self.by_prefix.get(&h) {
                Some(&(a, b)) if pre(self.sorted[a as usize]) == q => a as usize..b as usize,
                Some(_) => {
                    let a = self.sorted.partition_point(|&x| pre(x) < q);
                    let b = self.sorted.partition_point(|&x| pre(x) <= q);
                    a..b
                }
                None => continue,
            };
            if len == p.len() {
                from = Some(run.start);
            }
            out.extend_from_slice(&self.sorted[run]);
        }
        let from = from.unwrap_or_else(|| self.sorted.partition_point(|&x| pre(x) < p));
        for &x in &self.sorted[from..] {
            if !pre(x).starts_with(p) {
                break;
            }
            if pre(x).len() > p.len() {
                out.push(x);
            }
        }
    }
}

/// Two literal prefixes either of which starts the other: the rules can
/// overlap as far as their starts go.
pub(super) fn compatible_prefix(a: &[u16], b: &[u16]) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// Candidate overlaps by literal suffix: two patterns can only share a
/// string when one's literal suffix ends the other's (the prefixes are
/// matched by the index).
pub(super) fn compatible_suffix(a: &[u16], b: &[u16]) -> bool {
    let n = a.len().min(b.len());
    a[a.len() - n..] == b[b.len() - n..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn compatible_prefixes_are_found_both_ways() {
        let prefixes: Vec<Vec<u16>> = ["git ", "git push ", "npm", "", "gi"]
            .iter()
            .map(|s| units(s))
            .collect();
        let members: Vec<usize> = (0..prefixes.len()).collect();
        let index = PrefixIndex::new(&members, &prefixes);
        let mut out = Vec::new();
        index.compatible(&members, &units("git "), &prefixes, &mut out);
        out.sort_unstable();
        // "" and "gi" start it, "git " is it, "git push " starts with it.
        assert_eq!(out, [0, 1, 3, 4]);
    }
}
