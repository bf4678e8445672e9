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
pub fn js_entries(members: &[Member]) -> Vec<JsEntry<'_>> {
    let mut out: Vec<JsEntry<'_>> = Vec::with_capacity(members.len());
    // Small objects: linear scan; large ones: a hash map of first positions.
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (i, m) in members.iter().enumerate() {
        if let Some(&at) = index.get(m.key.as_str()) {
            out[at].member = m;
            out[at].occurrences += 1;
        } else {
            index.insert(m.key.as_str(), out.len());
            out.push(JsEntry {
                member: m,
                first: m,
                source_index: i,
                occurrences: 1,
            });
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
