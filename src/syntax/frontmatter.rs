//! Agent frontmatter as the runtime reads it (spec §2.5): the block between a
//! leading `---\n` and the first `\n---`, parsed by a tolerant mini-YAML.

use std::ops::Range;

/// A mini-YAML value with the byte range of its key and value in the file.
#[derive(Debug, Clone, PartialEq)]
pub enum YamlValue {
    Scalar(String),
    Map(Vec<YamlEntry>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct YamlEntry {
    pub key: String,
    pub key_range: Range<usize>,
    pub value: YamlValue,
    /// The whole line (scalars) or key line (maps).
    pub line_range: Range<usize>,
}

/// The frontmatter block of an agent file: its text (after CRLF → LF) and
/// where it starts in that text. `None` when the file has no frontmatter.
pub fn extract_frontmatter(text: &str) -> Option<(String, usize)> {
    let normalized = text.replace("\r\n", "\n");
    if !normalized.starts_with("---\n") {
        return None;
    }
    let body_start = 4;
    // The block ends at the first "\n---" found from offset 4 on.
    let end = normalized[body_start..]
        .find("\n---")
        .map(|i| body_start + i)?;
    let block = normalized[body_start..end].to_string();
    Some((block, body_start))
}

/// The runtime's `parseSimpleYamlMap`: line by line, indentation by a stack,
/// key before the first `:`, no comments, flow maps or coercion.
/// Ranges are relative to `block`.
pub fn parse_simple_yaml_map(block: &str) -> Vec<YamlEntry> {
    // Stack of (indent, entries) for open maps.
    struct Open {
        indent: usize,
        key: String,
        key_range: Range<usize>,
        line_range: Range<usize>,
        entries: Entries,
    }
    let mut root = Entries::default();
    let mut stack: Vec<Open> = Vec::new();
    let mut offset = 0usize;
    fn close(stack: &mut Vec<Open>, root: &mut Entries) {
        if let Some(open) = stack.pop() {
            let entry = YamlEntry {
                key: open.key,
                key_range: open.key_range,
                value: YamlValue::Map(open.entries.list),
                line_range: open.line_range,
            };
            assign(
                stack.last_mut().map(|o| &mut o.entries).unwrap_or(root),
                entry,
            );
        }
    }
    for line in block.split('\n') {
        let line_start = offset;
        offset += line.len() + 1;
        let trimmed = js_trim(line);
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let content_start = line.len() - js_trim_start(line).len();
        // Indentation in UTF-16 units, as JavaScript counts it.
        let indent = crate::text::utf16_len(&line[..content_start]);
        // The runtime looks for the first ':' in the trimmed line; at index 0
        // or absent, the line is skipped.
        let Some(ccolon) = trimmed.find(':') else {
            continue;
        };
        if ccolon == 0 {
            continue;
        }
        let raw_key = js_trim(&trimmed[..ccolon]);
        let key = strip_one_quote_each_side(raw_key);
        let key_off = line_start + content_start;
        let key_range = key_off..key_off + raw_key.len();
        let value = js_trim(&trimmed[ccolon + 1..]);
        while stack.last().is_some_and(|o| indent <= o.indent) {
            close(&mut stack, &mut root);
        }
        let line_range = line_start..line_start + line.len();
        if value.is_empty() {
            stack.push(Open {
                indent,
                key,
                key_range,
                line_range,
                entries: Entries::default(),
            });
        } else {
            let entry = YamlEntry {
                key,
                key_range,
                value: YamlValue::Scalar(strip_matching_quotes(value)),
                line_range,
            };
            assign(
                stack
                    .last_mut()
                    .map(|o| &mut o.entries)
                    .unwrap_or(&mut root),
                entry,
            );
        }
    }
    while !stack.is_empty() {
        close(&mut stack, &mut root);
    }
    root.list
}

/// JavaScript's `String.prototype.trim` whitespace (includes U+FEFF).
pub fn is_js_whitespace(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

pub fn js_trim_start(s: &str) -> &str {
    s.trim_start_matches(is_js_whitespace)
}

/// A map being read: its entries and where each key is (a frontmatter
/// of 100,000 keys stays linear).
#[derive(Default)]
struct Entries {
    list: Vec<YamlEntry>,
    at: std::collections::HashMap<String, usize>,
}

/// Plain object assignment: a repeated key keeps its first position.
fn assign(entries: &mut Entries, entry: YamlEntry) {
    if let Some(&i) = entries.at.get(&entry.key) {
        let existing = &mut entries.list[i];
        *existing = YamlEntry {
            key_range: existing.key_range.clone(),
            ..entry
        };
    } else {
        entries.at.insert(entry.key.clone(), entries.list.len());
        entries.list.push(entry);
    }
}

/// `key.replace(/^['"]|['"]$/g, "")`: one quote removed at each end, independently.
fn strip_one_quote_each_side(s: &str) -> String {
    let mut s = s;
    if s.starts_with(['\'', '"']) {
        s = &s[1..];
    }
    if s.ends_with(['\'', '"']) {
        s = &s[..s.len() - 1];
    }
    s.to_string()
}

/// One pair of matching surrounding quotes removed.
fn strip_matching_quotes(s: &str) -> String {
    let b = s.as_bytes();
    if b.len() >= 2 && (b[0] == b'"' || b[0] == b'\'') && b[b.len() - 1] == b[0] {
        return s[1..s.len() - 1].to_string();
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(entries: &[YamlEntry]) -> Vec<String> {
        entries.iter().map(|e| e.key.clone()).collect()
    }

    #[test]
    fn nested_permission_block() {
        let md = "---\nname: x\npermission:\n  bash:\n    \"npm *\":\n      action: deny\n      reason: Use pnpm\n  read: allow # note\n  mcp:\n    exa:*: allow\n---\nbody";
        let (block, _) = extract_frontmatter(md).unwrap();
        let root = parse_simple_yaml_map(&block);
        assert_eq!(keys(&root), ["name", "permission"]);
        let YamlValue::Map(perm) = &root[1].value else {
            panic!()
        };
        assert_eq!(keys(perm), ["bash", "read", "mcp"]);
        assert_eq!(perm[1].value, YamlValue::Scalar("allow # note".into()));
        let YamlValue::Map(mcp) = &perm[2].value else {
            panic!()
        };
        // The key is cut at the first colon.
        assert_eq!(mcp[0].key, "exa");
        assert_eq!(mcp[0].value, YamlValue::Scalar("*: allow".into()));
    }

    #[test]
    fn frontmatter_needs_open_and_close() {
        assert!(extract_frontmatter("no").is_none());
        assert!(extract_frontmatter("---\na: b\n").is_none());
        assert_eq!(
            extract_frontmatter("---\r\na: b\r\n---\r\n").unwrap().0,
            "a: b"
        );
        assert!(extract_frontmatter("---\n---\n").is_none());
        assert_eq!(extract_frontmatter("---\n\n---\n").unwrap().0, "");
    }
}
