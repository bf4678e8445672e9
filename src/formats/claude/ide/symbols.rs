//! The outline of a Claude Code settings file (each list with its rules)
//! and where the simulation lens sits.

use crate::contract::Analysis;
use crate::formats::claude::model::rules::List;
use crate::ide::symbols::{Symbol, SymbolKind};
use crate::syntax::{Node, Value};
use std::ops::Range;

pub fn symbols(analysis: &Analysis) -> Vec<Symbol> {
    let Some(members) = analysis.root.as_ref().and_then(|r| r.value.as_object()) else {
        return Vec::new();
    };
    members
        .iter()
        .map(|m| {
            let children = if m.key == "permissions" {
                m.value
                    .value
                    .as_object()
                    .map(|ps| ps.iter().map(list_symbol).collect())
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            Symbol {
                name: m.key.clone(),
                detail: None,
                kind: SymbolKind::Key,
                range: m.key_range.start..m.value.range.end,
                selection: m.key_range.clone(),
                children,
            }
        })
        .collect()
}

pub fn lens_anchor(analysis: &Analysis) -> Option<Range<usize>> {
    // Over the `permissions` key, else the start of the file.
    let root = analysis.root.as_ref()?;
    let members = root.value.as_object()?;
    Some(
        members
            .iter()
            .rev()
            .find(|m| m.key == "permissions")
            .map(|m| m.key_range.clone())
            .unwrap_or(root.range.start..root.range.start),
    )
}

fn list_symbol(m: &crate::syntax::Member) -> Symbol {
    let children = match &m.value.value {
        Value::Array(items) if List::from_key(&m.key).is_some() => items
            .iter()
            .filter_map(|i: &Node| {
                i.value.as_str().map(|s| Symbol {
                    name: s.to_string(),
                    detail: Some(m.key.clone()),
                    kind: SymbolKind::Rule,
                    range: i.range.clone(),
                    selection: i.range.clone(),
                    children: Vec::new(),
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    Symbol {
        name: m.key.clone(),
        detail: match &m.value.value {
            Value::Array(items) => Some(format!(
                "{} rule{}",
                items.len(),
                if items.len() == 1 { "" } else { "s" }
            )),
            Value::String(s) => Some(s.clone()),
            _ => None,
        },
        kind: SymbolKind::Surface,
        range: m.key_range.start..m.value.range.end,
        selection: m.key_range.clone(),
        children,
    }
}
