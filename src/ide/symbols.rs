//! The outline: top-level keys; under the policy key, each surface and its
//! rules in the order the runtime evaluates them.

use crate::syntax::js_order::js_entries;
use crate::syntax::{Node, Value};
use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolKind {
    Key,
    Surface,
    Rule,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Symbol {
    pub name: String,
    /// The value in force (`allow`, `deny: reason`, `3 rules`).
    pub detail: Option<String>,
    pub kind: SymbolKind,
    /// Key and value.
    pub range: Range<usize>,
    /// The key.
    pub selection: Range<usize>,
    pub children: Vec<Symbol>,
}

fn rule_detail(v: &Node) -> Option<String> {
    match &v.value {
        Value::String(s) => Some(s.clone()),
        Value::Object(m) => {
            let action = m
                .iter()
                .rev()
                .find(|x| x.key == "action")?
                .value
                .value
                .as_str()?
                .to_string();
            match m
                .iter()
                .rev()
                .find(|x| x.key == "reason")
                .and_then(|r| r.value.value.as_str())
            {
                Some(r) => Some(format!("{action}: {r}")),
                None => Some(action),
            }
        }
        _ => None,
    }
}

/// The outline of a JSON config whose rules live under `policy_key`.
pub fn document_symbols(root: &Node, policy_key: &str) -> Vec<Symbol> {
    let Some(members) = root.value.as_object() else {
        return Vec::new();
    };
    members
        .iter()
        .map(|m| {
            let mut sym = Symbol {
                name: m.key.clone(),
                detail: None,
                kind: SymbolKind::Key,
                range: m.key_range.start..m.value.range.end,
                selection: m.key_range.clone(),
                children: Vec::new(),
            };
            if m.key == policy_key
                && let Some(surfaces) = m.value.value.as_object()
            {
                sym.children = js_entries(surfaces)
                    .into_iter()
                    .map(|e| {
                        let s = e.member;
                        let children: Vec<Symbol> = match s.value.value.as_object() {
                            Some(rules) => js_entries(rules)
                                .into_iter()
                                .map(|r| Symbol {
                                    name: r.member.key.clone(),
                                    detail: rule_detail(&r.member.value),
                                    kind: SymbolKind::Rule,
                                    range: r.member.key_range.start..r.member.value.range.end,
                                    selection: r.member.key_range.clone(),
                                    children: Vec::new(),
                                })
                                .collect(),
                            None => Vec::new(),
                        };
                        Symbol {
                            name: s.key.clone(),
                            detail: match &s.value.value {
                                Value::String(st) => Some(st.clone()),
                                Value::Object(_) => Some(format!("{} rules", children.len())),
                                _ => None,
                            },
                            kind: SymbolKind::Surface,
                            range: s.key_range.start..s.value.range.end,
                            selection: s.key_range.clone(),
                            children,
                        }
                    })
                    .collect();
            }
            sym
        })
        .collect()
}
