//! Completion in a config being typed: the context (key path, key or value
//! position, the string under the cursor) comes from a tolerant scan of
//! the text itself, so half-written files complete too.

use crate::formats::pi::ide::hover::surface_description;
use crate::formats::pi::model::config::KNOWN_SURFACES;
use crate::formats::pi::model::versions::{self, KeyShape, Version};
use std::ops::Range;

pub use crate::ide::items::{Item, ItemKind};

/// Where the cursor is.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    /// Keys from the root to the object the cursor is in.
    pub path: Vec<String>,
    /// In a key position (else a value position).
    pub key: bool,
    /// The string token under the cursor (quotes included), or an empty
    /// range at the cursor.
    pub token: Range<usize>,
}

#[derive(Debug)]
struct Frame {
    object: bool,
    /// The key this container is the value of.
    key: Option<String>,
    expecting_key: bool,
    last_key: Option<String>,
}

/// Scans `text` up to `offset` (comments skipped, any bytes tolerated).
pub fn context(text: &str, offset: usize) -> Option<Context> {
    let offset = offset.min(text.len());
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < offset {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(text.len(), |n| i + n);
                if i >= offset {
                    return None;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..]
                    .find("*/")
                    .map_or(text.len(), |n| i + 2 + n + 2);
                if i > offset {
                    return None;
                }
            }
            b'"' => {
                let start = i;
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' && b[j] != b'\n' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                let end = (j + 1).min(b.len());
                if offset <= j {
                    // The cursor is inside this string.
                    let frame = stack.last()?;
                    let token_end = if j < b.len() && b[j] == b'"' {
                        end
                    } else {
                        j.min(b.len())
                    };
                    return Some(Context {
                        path: path_of(&stack),
                        key: frame.object && frame.expecting_key,
                        token: start..token_end,
                    });
                }
                let s = serde_json::from_str::<String>(text.get(start..end).unwrap_or("\"\""))
                    .unwrap_or_default();
                if let Some(f) = stack.last_mut()
                    && f.object
                    && f.expecting_key
                {
                    f.last_key = Some(s);
                }
                i = end;
                continue;
            }
            b'{' | b'[' => {
                let key = stack
                    .last()
                    .and_then(|f| if f.object { f.last_key.clone() } else { None });
                stack.push(Frame {
                    object: b[i] == b'{',
                    key,
                    expecting_key: b[i] == b'{',
                    last_key: None,
                });
            }
            b'}' | b']' => {
                stack.pop();
            }
            b':' => {
                if let Some(f) = stack.last_mut() {
                    f.expecting_key = false;
                }
            }
            b',' => {
                if let Some(f) = stack.last_mut() {
                    f.expecting_key = f.object;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let frame = stack.last()?;
    // A bare word being typed (`al|`): replace it too.
    let word_start = text[..offset]
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .map_or(0, |n| n + 1);
    Some(Context {
        path: path_of(&stack),
        key: frame.object && frame.expecting_key,
        token: word_start..offset,
    })
}

fn path_of(stack: &[Frame]) -> Vec<String> {
    let mut path: Vec<String> = stack
        .iter()
        .skip(1)
        .map(|f| f.key.clone().unwrap_or_default())
        .collect();
    // A value position inside an object: the key being given a value.
    if let Some(f) = stack.last()
        && f.object
        && !f.expecting_key
        && let Some(k) = &f.last_key
    {
        path.push(k.clone());
    }
    path
}

/// Adds one item: label, kind, detail, insert text, is-a-snippet.
type Push<'a> = dyn FnMut(&str, ItemKind, Option<&str>, String, bool) + 'a;

/// Completion items at `offset`. `mcp_servers` are the names from
/// `mcp.json`; `snippets` says whether the client takes placeholders.
pub fn completions(
    text: &str,
    offset: usize,
    target: Version,
    mcp_servers: &[String],
    snippets: bool,
) -> Vec<Item> {
    let Some(ctx) = context(text, offset) else {
        return Vec::new();
    };
    let range = ctx.token.clone();
    let quoted = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut out = Vec::new();
    let path: Vec<&str> = ctx.path.iter().map(String::as_str).collect();
    let mut push =
        |label: &str, kind: ItemKind, detail: Option<&str>, insert: String, snippet: bool| {
            out.push(Item {
                label: label.to_string(),
                kind,
                detail: detail.map(str::to_string),
                insert,
                snippet: snippet && snippets,
                range: range.clone(),
            })
        };
    let states = |push: &mut Push<'_>, with_reason: bool| {
        for (s, d) in [
            ("allow", "runs without a prompt"),
            ("ask", "prompts (blocked without a UI)"),
            ("deny", "blocked; the agent gets the denial message"),
        ] {
            push(s, ItemKind::State, Some(d), quoted(s), false);
        }
        if with_reason {
            let (text, snip) = if snippets {
                (
                    "{ \"action\": \"deny\", \"reason\": \"$1\" }$0".to_string(),
                    true,
                )
            } else {
                (
                    "{ \"action\": \"deny\", \"reason\": \"\" }".to_string(),
                    false,
                )
            };
            push(
                "deny with reason",
                ItemKind::Snippet,
                Some("{ \"action\": \"deny\", \"reason\": \"…\" } — the agent sees the reason"),
                text,
                snip,
            );
        }
    };
    match (path.as_slice(), ctx.key) {
        ([], true) => {
            for k in versions::KEYS
                .iter()
                .filter(|k| versions::accepts(k, target))
            {
                push(
                    k.key,
                    ItemKind::Key,
                    Some(k.description),
                    quoted(k.key),
                    false,
                );
            }
        }
        (["permission"], true) => {
            for s in KNOWN_SURFACES {
                push(
                    s,
                    ItemKind::Surface,
                    surface_description(s),
                    quoted(s),
                    false,
                );
            }
        }
        (["permission", surface], true) => {
            push(
                "*",
                ItemKind::Value,
                Some("every value (a catch-all; last match wins, so put it first)"),
                quoted("*"),
                false,
            );
            if *surface == "mcp" {
                for s in mcp_servers {
                    let p = format!("{s}_*");
                    push(
                        &p,
                        ItemKind::Value,
                        Some("every tool of this server (first MCP target form)"),
                        quoted(&p),
                        false,
                    );
                }
            }
        }
        (["permission", _], false) => {
            states(&mut push, false);
            let (t, snip) = if snippets {
                ("{ \"$1\": \"$2\" }$0".to_string(), true)
            } else {
                ("{}".to_string(), false)
            };
            push(
                "pattern map",
                ItemKind::Snippet,
                Some("{ \"pattern\": \"state\" } — last match wins"),
                t,
                snip,
            );
        }
        (["permission", _, _], false) => states(&mut push, true),
        (["permission", _, _, "action"], false) => push(
            "deny",
            ItemKind::State,
            Some("the only action with an object form"),
            quoted("deny"),
            false,
        ),
        ([key], false) => {
            if let Some(spec) = versions::key_spec(key)
                && spec.shape == KeyShape::Boolean
            {
                push("true", ItemKind::Value, None, "true".into(), false);
                push("false", ItemKind::Value, None, "false".into(), false);
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(text: &str) -> Vec<String> {
        let at = text.find('|').unwrap();
        let t = text.replace('|', "");
        completions(
            &t,
            at,
            crate::formats::pi::model::versions::DEFAULT_TARGET,
            &["exa".into()],
            true,
        )
        .into_iter()
        .map(|i| i.label)
        .collect()
    }

    #[test]
    fn contexts() {
        assert!(labels("{ \"|\" }").contains(&"permission".to_string()));
        assert!(labels("{ \"permission\": { \"b|\" } }").contains(&"bash".to_string()));
        assert!(
            labels("{ \"permission\": { \"bash\": { \"git *\": | } }")
                .contains(&"deny with reason".to_string())
        );
        assert!(labels("{ \"permission\": { \"bash\": | ").contains(&"ask".to_string()));
        assert!(labels("{ \"permission\": { \"mcp\": { \"|").contains(&"exa_*".to_string()));
        assert!(labels("{ \"yoloMode\": t|").contains(&"true".to_string()));
        // Comments and half-written text are tolerated.
        assert!(
            labels("// \"x\": {\n{ \"permission\": { /* { */ \"|").contains(&"skill".to_string())
        );
        assert!(labels("{ \"permission\": { \"bash\": \"|\" } }").contains(&"allow".to_string()));
    }

    #[test]
    fn replaces_the_string_under_the_cursor() {
        let text = "{ \"permission\": { \"ba\" } }";
        let at = text.find("ba").unwrap() + 2;
        let items = completions(
            text,
            at,
            crate::formats::pi::model::versions::DEFAULT_TARGET,
            &[],
            false,
        );
        let bash = items.iter().find(|i| i.label == "bash").unwrap();
        assert_eq!(&text[bash.range.clone()], "\"ba\"");
        assert_eq!(bash.insert, "\"bash\"");
    }
}
