//! One Gemini CLI settings file (`settings.json`: comments stripped, then
//! `JSON.parse`), kept as the JSON value the CLI merges and as the ranged
//! tree diagnostics point into.

use crate::syntax::{Node, Value};
use std::ops::Range;

/// A settings file as read.
#[derive(Debug, Clone, Default)]
pub struct SettingsFile {
    /// Where and why `JSON.parse` failed (the CLI then refuses to start),
    /// or the file is not an object.
    pub error: Option<(Range<usize>, String)>,
    pub root: Option<Node>,
    /// The value the CLI merges (duplicate keys: the last wins).
    pub value: serde_json::Value,
}

fn to_json(n: &Node) -> serde_json::Value {
    match &n.value {
        Value::Null | Value::Invalid => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(x) => serde_json::Number::from_f64(*x)
            .map(serde_json::Value::Number)
            .unwrap_or(serde_json::Value::Null),
        Value::String(s) => serde_json::Value::String(s.clone()),
        Value::Array(items) => serde_json::Value::Array(items.iter().map(to_json).collect()),
        Value::Object(members) => {
            let mut m = serde_json::Map::new();
            for mem in members {
                if mem.key == "__proto__" {
                    continue;
                }
                m.insert(mem.key.clone(), to_json(&mem.value));
            }
            serde_json::Value::Object(m)
        }
    }
}

/// Reads a settings file.
pub fn read(text: &str) -> SettingsFile {
    let stripped = crate::syntax::strip::strip_json_comments(text);
    let out = crate::syntax::json::parse(&stripped);
    let mut f = SettingsFile::default();
    if let Some(e) = out.errors.first() {
        f.error = Some((e.range.clone(), e.message.clone()));
        return f;
    }
    let Some(root) = out.root else {
        f.error = Some((0..0, "Unexpected end of JSON input".into()));
        return f;
    };
    if root.value.as_object().is_none() {
        f.error = Some((
            root.range.clone(),
            "Settings file is not a valid JSON object.".into(),
        ));
        return f;
    }
    f.value = to_json(&root);
    f.root = Some(root);
    f
}

/// The member node at a key path (the last duplicate wins, as in
/// `JSON.parse`).
pub fn member_at<'a>(root: &'a Node, path: &[&str]) -> Option<&'a crate::syntax::Member> {
    let mut node = root;
    let mut found = None;
    for key in path {
        let m = node
            .value
            .as_object()?
            .iter()
            .rev()
            .find(|m| m.key == *key)?;
        node = &m.value;
        found = Some(m);
    }
    found
}

/// The string items of the array at a key path, with their ranges.
pub fn strings_at(root: &Node, path: &[&str]) -> Vec<(String, Range<usize>)> {
    match member_at(root, path).map(|m| &m.value.value) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.value.as_str().map(|s| (s.to_string(), i.range.clone())))
            .collect(),
        _ => Vec::new(),
    }
}

/// Keys 0.61.0 no longer reads, each with where its meaning lives now.
pub const STALE_KEYS: &[(&[&str], &str)] = &[
    (&["coreTools"], "`tools.core`"),
    (&["excludeTools"], "`tools.exclude`"),
    (&["allowedTools"], "`tools.allowed`"),
    (
        &["autoAccept"],
        "an `allow` rule in a policy file (or `--approval-mode auto_edit`)",
    ),
    (
        &["tools", "autoAccept"],
        "an `allow` rule in a policy file (or `--approval-mode auto_edit`)",
    ),
    (&["allowMCPServers"], "`mcp.allowed`"),
    (&["excludeMCPServers"], "`mcp.excluded`"),
];
