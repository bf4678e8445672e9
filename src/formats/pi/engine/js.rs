//! JavaScript string helpers the runtime's code relies on.

use serde_json::Value;

pub use crate::syntax::frontmatter::js_trim;

/// `getNonEmptyString`: a string, trimmed, non-empty.
pub fn non_empty_string(v: Option<&Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) => {
            let t = js_trim(s);
            (!t.is_empty()).then(|| t.to_string())
        }
        _ => None,
    }
}
