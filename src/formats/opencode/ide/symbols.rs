//! The outline of an OpenCode config and where the simulation lens sits.

use crate::contract::Analysis;
use crate::formats::opencode::model::config;
use crate::ide::symbols::{Symbol, SymbolKind};
use crate::syntax::Value;
use std::ops::Range;

pub fn symbols(analysis: &Analysis) -> Vec<Symbol> {
    let Some(members) = analysis.root.as_ref().and_then(|r| r.value.as_object()) else {
        return Vec::new();
    };
    members.iter().map(member_symbol).collect()
}

pub fn lens_anchor(analysis: &Analysis) -> Option<Range<usize>> {
    let root = analysis.root.as_ref()?;
    let members = root.value.as_object()?;
    Some(
        members
            .iter()
            .find(|m| m.key == "permission")
            .map(|m| m.key_range.clone())
            .unwrap_or(root.range.start..root.range.start),
    )
}

fn member_symbol(m: &crate::syntax::Member) -> Symbol {
    let children = match &m.value.value {
        Value::Object(ms)
            if matches!(m.key.as_str(), "permission" | "agent" | "mode" | "tools")
                || ms.len() < 64 =>
        {
            ms.iter().map(member_symbol).collect()
        }
        _ => Vec::new(),
    };
    Symbol {
        name: m.key.clone(),
        detail: match &m.value.value {
            Value::String(s) => Some(s.clone()),
            _ => None,
        },
        kind: match &m.value.value {
            Value::String(s) if config::action(s).is_some() => SymbolKind::Rule,
            _ => SymbolKind::Key,
        },
        range: m.key_range.start..m.value.range.end,
        selection: m.key_range.clone(),
        children,
    }
}
