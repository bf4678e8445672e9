//! MCP permission targets (spec §4.7), in the runtime's candidate order.

use super::js::{js_trim, non_empty_string};
use serde_json::Value;

struct Targets(Vec<String>);

impl Targets {
    fn add(&mut self, v: impl Into<String>) {
        let v = v.into();
        if !v.is_empty() && !self.0.contains(&v) {
            self.0.push(v);
        }
    }
}

/// `server:tool` with both sides non-empty after trimming.
fn parse_qualified(value: &str) -> Option<(String, String)> {
    let t = js_trim(value);
    let colon = t.find(':')?;
    if colon == 0 || colon >= t.len() - 1 {
        return None;
    }
    let server = js_trim(&t[..colon]);
    let tool = js_trim(&t[colon + 1..]);
    if server.is_empty() || tool.is_empty() {
        return None;
    }
    Some((server.to_string(), tool.to_string()))
}

fn push_tool_targets(
    raw: &str,
    server_hint: Option<&str>,
    servers: &[String],
    prefix: bool,
    t: &mut Targets,
) {
    let qualified = parse_qualified(raw);
    let server = server_hint
        .map(str::to_string)
        .or_else(|| qualified.as_ref().map(|q| q.0.clone()));
    let tool = qualified.as_ref().map_or(raw.to_string(), |q| q.1.clone());
    match server {
        Some(s) => {
            t.add(format!("{s}_{tool}"));
            t.add(format!("{s}:{tool}"));
            t.add(s);
        }
        None => {
            let tool_trimmed = js_trim(&tool);
            // 33.0 (documented): the longest configured server leading a
            // `<server>_<tool>` name settles it (`servers` is longest first).
            let by_prefix = prefix
                .then(|| {
                    servers.iter().map(|n| js_trim(n)).find(|n| {
                        !n.is_empty()
                            && tool_trimmed
                                .strip_prefix(*n)
                                .is_some_and(|rest| rest.len() > 1 && rest.starts_with('_'))
                    })
                })
                .flatten();
            if let Some(name) = by_prefix {
                t.add(raw);
                t.add(name);
            } else if !tool_trimmed.is_empty() {
                for name in servers {
                    let name = js_trim(name);
                    if name.is_empty()
                        || !tool_trimmed.ends_with(&format!("_{name}"))
                        || tool_trimmed.starts_with(&format!("{name}_"))
                    {
                        continue;
                    }
                    t.add(format!("{name}_{tool_trimmed}"));
                    t.add(format!("{name}:{tool_trimmed}"));
                    t.add(name);
                }
            }
        }
    }
    t.add(tool);
    t.add(raw);
}

/// The candidate targets of an `mcp` tool call (without the final `mcp`).
/// The names an MCP call is looked up under, most specific first; with
/// `prefix` (33.0 on) a prefix-named tool derives its server.
pub fn mcp_targets(input: &Value, servers: &[String], prefix: bool) -> Vec<String> {
    let r = input.as_object();
    let get = |k: &str| non_empty_string(r.and_then(|r| r.get(k)));
    let (tool, server, connect, describe, search) = (
        get("tool"),
        get("server"),
        get("connect"),
        get("describe"),
        get("search"),
    );
    let mut t = Targets(Vec::new());
    if let Some(tool) = tool {
        push_tool_targets(&tool, server.as_deref(), servers, prefix, &mut t);
        t.add("mcp_call");
    } else if let Some(c) = connect {
        t.add(format!("mcp_connect_{c}"));
        t.add(c);
        t.add("mcp_connect");
    } else if let Some(d) = describe {
        push_tool_targets(&d, server.as_deref(), servers, prefix, &mut t);
        t.add("mcp_describe");
    } else if let Some(q) = search {
        if let Some(s) = server {
            t.add(format!("mcp_server_{s}"));
            t.add(s);
        }
        t.add(q);
        t.add("mcp_search");
    } else if let Some(s) = server {
        t.add(format!("mcp_server_{s}"));
        t.add(s);
        t.add("mcp_list");
    } else {
        t.add("mcp_status");
    }
    t.0
}

/// Server names from an `mcp.json` text: keys of `mcpServers` or
/// `mcp-servers`, trimmed, deduplicated, longest first then alphabetical.
pub fn server_names_from_mcp_json(text: &str) -> Vec<String> {
    let stripped = crate::syntax::strip::strip_json_comments(text);
    let Ok(v) = serde_json::from_str::<Value>(&stripped.text) else {
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for key in ["mcpServers", "mcp-servers"] {
        if let Some(obj) = v.get(key).and_then(Value::as_object) {
            for k in obj.keys() {
                let t = js_trim(k).to_string();
                if !t.is_empty() && !names.contains(&t) {
                    names.push(t);
                }
            }
        }
    }
    names.sort_by(|a, b| {
        b.chars()
            .count()
            .cmp(&a.chars().count())
            .then_with(|| a.to_lowercase().cmp(&b.to_lowercase()).then(a.cmp(b)))
    });
    names
}
