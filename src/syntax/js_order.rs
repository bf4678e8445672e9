//! JavaScript property order, which is rule order for the runtime.
//!
//! `JSON.parse` keeps the **last** value of a duplicate key at the **first**
//! key's position, and every object enumerates canonical array-index keys
//! (`"0"`, `"42"`, … below 2^32 − 1, no leading zeros) first, ascending,
//! before all other keys in insertion order (ECMAScript OrdinaryOwnPropertyKeys).

use super::json::Member;

/// True for keys that JavaScript enumerates first (canonical array indices).
pub fn is_array_index(key: &str) -> bool {
    if key.is_empty() || key.len() > 10 || !key.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if key.len() > 1 && key.starts_with('0') {
        return false;
    }
    key.parse::<u64>().is_ok_and(|n| n < u32::MAX as u64)
}

/// Objects up to this size are de-duplicated by a linear scan.
const SMALL_OBJECT: usize = 12;

/// One property as the runtime sees it after `JSON.parse`.
#[derive(Debug, Clone, Copy)]
pub struct JsEntry<'a> {
    /// The member that supplies the value (the last duplicate).
    pub member: &'a Member,
    /// The member that fixes the position (the first duplicate).
    pub first: &'a Member,
    /// Index of `first` among the source members.
    pub source_index: usize,
    /// How many times the key occurs.
    pub occurrences: usize,
}

/// The object's properties in JavaScript enumeration order.
pub fn js_entries<'a>(members: &'a [Member]) -> Vec<JsEntry<'a>> {
    let mut out: Vec<JsEntry<'_>> = Vec::with_capacity(members.len());
    let push = |out: &mut Vec<JsEntry<'a>>, i: usize, m: &'a Member| {
        out.push(JsEntry {
            member: m,
            first: m,
            source_index: i,
            occurrences: 1,
        })
    };
    if members.len() <= SMALL_OBJECT {
        // Small objects: a linear scan beats hashing.
        for (i, m) in members.iter().enumerate() {
            match out.iter_mut().find(|e| e.first.key == m.key) {
                Some(e) => {
                    e.member = m;
                    e.occurrences += 1;
                }
                None => push(&mut out, i, m),
            }
        }
    } else {
        let mut index: rustc_hash::FxHashMap<&str, usize> =
            rustc_hash::FxHashMap::with_capacity_and_hasher(members.len(), Default::default());
        for (i, m) in members.iter().enumerate() {
            match index.entry(m.key.as_str()) {
                std::collections::hash_map::Entry::Occupied(at) => {
                    let e = &mut out[*at.get()];
                    e.member = m;
                    e.occurrences += 1;
                }
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(out.len());
                    push(&mut out, i, m);
                }
            }
        }
    }
    if out.iter().any(|e| is_array_index(&e.first.key)) {
        // Stable: indices first by numeric value, others keep their order.
        out.sort_by(
            |a, b| match (is_array_index(&a.first.key), is_array_index(&b.first.key)) {
                (true, true) => {
                    let x: u64 = a.first.key.parse().unwrap_or(0);
                    let y: u64 = b.first.key.parse().unwrap_or(0);
                    x.cmp(&y)
                }
                (true, false) => std::cmp::Ordering::Less,
                (false, true) => std::cmp::Ordering::Greater,
                (false, false) => std::cmp::Ordering::Equal,
            },
        );
    }
    out
}

/// Reorders items the way JavaScript enumerates an object's keys:
/// array-index keys first, ascending; the others keep their order.
pub fn sort_index_keys_first<T>(items: &mut [T], key: impl Fn(&T) -> &str) {
    if !items.iter().any(|i| is_array_index(key(i))) {
        return;
    }
    items.sort_by(
        |a, b| match (is_array_index(key(a)), is_array_index(key(b))) {
            (true, true) => key(a)
                .parse::<u64>()
                .unwrap_or(0)
                .cmp(&key(b).parse::<u64>().unwrap_or(0)),
            (true, false) => std::cmp::Ordering::Less,
            (false, true) => std::cmp::Ordering::Greater,
            (false, false) => std::cmp::Ordering::Equal,
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_index_keys() {
        for k in ["0", "42", "4294967294"] {
            assert!(is_array_index(k), "{k}");
        }
        for k in ["", "01", "4294967295", "-1", "1.0", " 1", "a"] {
            assert!(!is_array_index(k), "{k}");
        }
    }
}
