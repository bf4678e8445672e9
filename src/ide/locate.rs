//! What is under the cursor in a config tree.

use crate::syntax::{Node, Value};
use std::ops::Range;

/// A place in the tree: the key path and whether the cursor is on a key or a value.
#[derive(Debug, Clone, PartialEq)]
pub struct Located<'a> {
    /// Keys from the root; array items appear as their index.
    pub path: Vec<String>,
    pub on_key: bool,
    /// The key's or value's range.
    pub range: Range<usize>,
    pub node: &'a Node,
}

/// The innermost key or value containing `offset`.
pub fn locate(root: &Node, offset: usize) -> Option<Located<'_>> {
    let mut path = Vec::new();
    let mut node = root;
    if !contains(&root.range, offset) {
        return None;
    }
    loop {
        match &node.value {
            Value::Object(members) => {
                let hit = members
                    .iter()
                    .rev()
                    .find(|m| contains(&m.key_range, offset) || contains(&m.value.range, offset));
                let Some(m) = hit else {
                    return Some(Located {
                        path,
                        on_key: false,
                        range: node.range.clone(),
                        node,
                    });
                };
                path.push(m.key.clone());
                if contains(&m.key_range, offset) {
                    return Some(Located {
                        path,
                        on_key: true,
                        range: m.key_range.clone(),
                        node: &m.value,
                    });
                }
                node = &m.value;
            }
            Value::Array(items) => {
                let Some((i, item)) = items
                    .iter()
                    .enumerate()
                    .find(|(_, it)| contains(&it.range, offset))
                else {
                    return Some(Located {
                        path,
                        on_key: false,
                        range: node.range.clone(),
                        node,
                    });
                };
                path.push(i.to_string());
                node = item;
            }
            _ => {
                return Some(Located {
                    path,
                    on_key: false,
                    range: node.range.clone(),
                    node,
                });
            }
        }
    }
}

fn contains(r: &Range<usize>, offset: usize) -> bool {
    r.start <= offset && offset <= r.end && r.start != r.end
        || (r.start == offset && r.end == offset)
}
