//! The JSON Schema this project ships (`schemas/pi-permission-system.schema.json`),
//! checked with the `jsonschema` crate and mapped onto source ranges.
//!
//! The schema accepts exactly what runtime 20.7.3 accepts (a test proves it on
//! every conformance case and corpus file). The hot path validates with the
//! zod mirror in `validate`, which also reproduces the runtime's issue texts
//! (zod's union collapse cannot be expressed by JSON Schema output); this
//! module serves editors that take the schema and cross-checks the mirror.

use crate::syntax::js_order::js_entries;
use crate::syntax::{Node, Value};
use std::ops::Range;
use std::sync::OnceLock;

/// The schema text, as shipped.
pub const SCHEMA_TEXT: &str = include_str!("../../../../schemas/pi-permission-system.schema.json");

pub fn schema_json() -> &'static serde_json::Value {
    static SCHEMA: OnceLock<serde_json::Value> = OnceLock::new();
    SCHEMA.get_or_init(|| serde_json::from_str(SCHEMA_TEXT).unwrap_or(serde_json::Value::Null))
}

fn validator() -> Option<&'static jsonschema::Validator> {
    static VALIDATOR: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| jsonschema::validator_for(schema_json()).ok())
        .as_ref()
}

/// The value `JSON.parse` produces: duplicate keys keep the last value at the
/// first position. `None` for numbers JSON cannot carry (NaN, ±Infinity) or
/// recovered syntax errors.
pub fn to_json(node: &Node) -> Option<serde_json::Value> {
    Some(match &node.value {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => serde_json::Value::Bool(*b),
        Value::Number(n) => serde_json::Value::Number(serde_json::Number::from_f64(*n)?),
        Value::String(s) => serde_json::Value::String(s.clone()),
        Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(to_json).collect::<Option<_>>()?)
        }
        Value::Object(members) => {
            let mut map = serde_json::Map::new();
            for e in js_entries(members) {
                map.insert(e.first.key.clone(), to_json(&e.member.value)?);
            }
            serde_json::Value::Object(map)
        }
        Value::Invalid => return None,
    })
}

/// One schema error: where, and the validator's message.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaError {
    pub range: Range<usize>,
    pub message: String,
}

/// Whether the shipped schema accepts the value (`None` when it cannot be
/// represented as JSON).
pub fn schema_accepts(root: &Node) -> Option<bool> {
    let v = to_json(root)?;
    Some(validator()?.is_valid(&v))
}

/// Every schema error, mapped to the narrowest range: the offending key for
/// additional properties, the value otherwise.
pub fn schema_errors(root: &Node) -> Vec<SchemaError> {
    let (Some(v), Some(validator)) = (to_json(root), validator()) else {
        return Vec::new();
    };
    validator
        .iter_errors(&v)
        .map(|e| {
            let segments: Vec<String> = e
                .instance_path()
                .into_iter()
                .map(|s| match s {
                    jsonschema::paths::LocationSegment::Property(p) => p.to_string(),
                    jsonschema::paths::LocationSegment::Index(i) => i.to_string(),
                })
                .collect();
            let mut node = root;
            let mut range = root.range.clone();
            for seg in &segments {
                match &node.value {
                    Value::Object(members) => match js_entries(members)
                        .into_iter()
                        .find(|m| &m.first.key == seg)
                    {
                        Some(m) => {
                            node = &m.member.value;
                            range = node.range.clone();
                        }
                        None => break,
                    },
                    Value::Array(items) => {
                        match seg.parse::<usize>().ok().and_then(|i| items.get(i)) {
                            Some(item) => {
                                node = item;
                                range = node.range.clone();
                            }
                            None => break,
                        }
                    }
                    _ => break,
                }
            }
            if let jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } =
                e.kind()
                && let (Some(first), Some(members)) = (unexpected.first(), node.value.as_object())
                && let Some(m) = members.iter().find(|m| &m.key == first)
            {
                range = m.key_range.clone();
            }
            SchemaError {
                range,
                message: e.to_string(),
            }
        })
        .collect()
}
