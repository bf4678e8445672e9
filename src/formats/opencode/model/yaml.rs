//! The YAML of an OpenCode agent file's frontmatter, read into the same
//! ranged tree as JSON. OpenCode parses it with a full YAML library and
//! silently skips the agent when that fails, so every construct this reader
//! does not know is an error with a reason, never a guess: block mappings
//! by indentation, one-line flow mappings, block sequences of scalars,
//! plain / single- / double-quoted scalars, `#` comments, literal and folded
//! block scalars. An unquoted `*` or `&` starts an alias or anchor — the
//! classic mistake `*: ask` — and is reported as the YAML error it is.

use crate::syntax::{Member, Node, Value};
use std::ops::Range;

/// A YAML error: where, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct YamlError {
    pub range: Range<usize>,
    pub message: String,
}

/// The frontmatter block of a markdown file: `(block, offset of the block in
/// the text)`; `None` without frontmatter. Like gray-matter: the file starts
/// with `---` and a line break, the block ends at the next line that is
/// `---`.
pub fn frontmatter(text: &str) -> Option<(&str, usize)> {
    let rest = text.strip_prefix("---")?;
    let start = if rest.starts_with("\r\n") {
        5
    } else if rest.starts_with('\n') {
        4
    } else {
        return None;
    };
    let mut off = start;
    for line in text[start..].split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            return Some((&text[start..off], start));
        }
        off += line.len();
    }
    None
}

struct Line<'a> {
    /// Byte offset of the line's first character in the text.
    start: usize,
    indent: usize,
    /// The line without indentation and without a trailing comment.
    body: &'a str,
}

/// Parses a block of YAML starting at byte `base` of the text into a tree
/// whose ranges are offsets in the text. An empty block is an empty map.
pub fn parse(block: &str, base: usize) -> Result<Node, YamlError> {
    let mut lines = Vec::new();
    let mut off = 0;
    for raw in block.split_inclusive('\n') {
        let text = raw.trim_end_matches(['\r', '\n']);
        let indent = text.len() - text.trim_start_matches(' ').len();
        if text[indent..].starts_with('\t') {
            return Err(YamlError {
                range: base + off..base + off + text.len(),
                message: "tabs cannot indent YAML".into(),
            });
        }
        let body = strip_comment(&text[indent..]).trim_end();
        if !body.is_empty() {
            lines.push(Line {
                start: base + off + indent,
                indent,
                body,
            });
        }
        off += raw.len();
    }
    let mut p = Parser {
        lines,
        i: 0,
        depth: std::cell::Cell::new(0),
    };
    if p.lines.is_empty() {
        return Ok(Node {
            range: base..base,
            value: Value::Object(Vec::new()),
        });
    }
    let indent = p.lines[0].indent;
    let node = p.block(indent)?;
    if let Some(l) = p.lines.get(p.i) {
        return Err(YamlError {
            range: l.start..l.start + l.body.len(),
            message: "bad indentation of a mapping entry".into(),
        });
    }
    Ok(node)
}

/// The line without a ` #` comment (quotes respected).
fn strip_comment(s: &str) -> &str {
    let b = s.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => {
                if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                    i += 1;
                } else {
                    quote = None;
                }
            }
            Some(b'"') if c == b'\\' => i += 1,
            Some(_) => {}
            None => {
                if c == b'#' && (i == 0 || b[i - 1] == b' ') {
                    return &s[..i];
                }
                if (c == b'"' || c == b'\'')
                    && (i == 0 || matches!(b[i - 1], b' ' | b':' | b'{' | b',' | b'['))
                {
                    quote = Some(c);
                }
            }
        }
        i += 1;
    }
    s
}

struct Parser<'a> {
    lines: Vec<Line<'a>>,
    i: usize,
    /// Nested collections entered (bounded: a hostile file nests
    /// thousands deep).
    depth: std::cell::Cell<usize>,
}

/// The deepest nesting read; deeper is an error, never a stack overflow.
const MAX_DEPTH: usize = 64;
pub const TOO_DEEP: &str = "nesting deeper than 64 levels is not analysed";

impl Parser<'_> {
    fn enter(&self, range: Range<usize>) -> Result<(), YamlError> {
        if self.depth.get() >= MAX_DEPTH {
            return Err(self.err(range, TOO_DEEP));
        }
        self.depth.set(self.depth.get() + 1);
        Ok(())
    }

    fn leave(&self) {
        self.depth.set(self.depth.get().saturating_sub(1));
    }

    fn err(&self, range: Range<usize>, message: impl Into<String>) -> YamlError {
        YamlError {
            range,
            message: message.into(),
        }
    }

    /// A mapping or sequence whose lines are indented exactly `indent`.
    fn block(&mut self, indent: usize) -> Result<Node, YamlError> {
        let first = &self.lines[self.i];
        if first.body == "-" || first.body.starts_with("- ") {
            return self.sequence(indent);
        }
        let start = first.start;
        let mut members = Vec::new();
        let mut end = start;
        while let Some(line) = self.lines.get(self.i) {
            if line.indent < indent {
                break;
            }
            if line.indent > indent {
                return Err(self.err(
                    line.start..line.start + line.body.len(),
                    "bad indentation of a mapping entry",
                ));
            }
            let (key, key_range, rest, rest_start) = self.key(line)?;
            let line_end = line.start + line.body.len();
            self.i += 1;
            let value = if rest.is_empty() {
                match self.lines.get(self.i) {
                    // A flow collection on the next, more indented line.
                    Some(next) if next.indent > indent && (next.body.starts_with(['{', '['])) => {
                        let (body, at) = (next.body, next.start);
                        self.i += 1;
                        self.inline(body, at)?
                    }
                    Some(next) if next.indent > indent => {
                        let ind = next.indent;
                        let at = next.start..next.start + next.body.len();
                        self.enter(at)?;
                        let v = self.block(ind)?;
                        self.leave();
                        v
                    }
                    Some(next)
                        if next.indent == indent
                            && (next.body == "-" || next.body.starts_with("- ")) =>
                    {
                        self.sequence(indent)?
                    }
                    _ => Node {
                        range: line_end..line_end,
                        value: Value::Null,
                    },
                }
            } else if rest == "|" || rest == ">" || rest.starts_with("|-") || rest.starts_with(">-")
            {
                self.block_scalar(indent, rest_start..rest_start + rest.len())
            } else {
                self.inline(rest, rest_start)?
            };
            end = end.max(value.range.end).max(line_end);
            members.push(Member {
                key,
                key_range,
                value,
            });
        }
        Ok(Node {
            range: start..end,
            value: Value::Object(members),
        })
    }

    fn sequence(&mut self, indent: usize) -> Result<Node, YamlError> {
        let start = self.lines[self.i].start;
        let mut items = Vec::new();
        let mut end = start;
        while let Some(line) = self.lines.get(self.i) {
            if line.indent != indent || !(line.body == "-" || line.body.starts_with("- ")) {
                break;
            }
            let rest = line.body[1..].trim_start();
            let rest_start = line.start + line.body.len() - rest.len();
            self.i += 1;
            if rest.is_empty() || rest.contains(": ") || rest.ends_with(':') {
                return Err(self.err(
                    line.start..line.start + line.body.len(),
                    "sequences of mappings are not read here",
                ));
            }
            let v = self.inline(rest, rest_start)?;
            end = v.range.end;
            items.push(v);
        }
        Ok(Node {
            range: start..end,
            value: Value::Array(items),
        })
    }

    /// A `|` or `>` scalar: the more-indented lines that follow.
    fn block_scalar(&mut self, indent: usize, at: Range<usize>) -> Node {
        let mut end = at.end;
        let mut parts = Vec::new();
        while let Some(l) = self.lines.get(self.i) {
            if l.indent <= indent {
                break;
            }
            parts.push(l.body.to_string());
            end = l.start + l.body.len();
            self.i += 1;
        }
        Node {
            range: at.start..end,
            value: Value::String(parts.join("\n")),
        }
    }

    /// The key of a mapping line, and the rest after `:`.
    fn key<'l>(
        &self,
        line: &'l Line<'_>,
    ) -> Result<(String, Range<usize>, &'l str, usize), YamlError> {
        let body = line.body;
        let whole = line.start..line.start + body.len();
        let (key, key_len) = match body.as_bytes()[0] {
            q @ (b'"' | b'\'') => {
                let (s, n) = quoted(body, q).ok_or_else(|| {
                    self.err(whole.clone(), "unterminated quoted key".to_string())
                })?;
                (s, n)
            }
            b'*' => {
                return Err(self.err(
                    whole,
                    "an unquoted `*` starts a YAML alias (write \"*\" in quotes)",
                ));
            }
            b'&' | b'!' | b'|' | b'>' | b'%' | b'@' | b'`' | b'[' | b'{' | b'?' => {
                return Err(self.err(
                    whole,
                    format!(
                        "a key cannot start with `{}` unquoted",
                        &body[..body.chars().next().map_or(1, char::len_utf8)]
                    ),
                ));
            }
            _ => {
                let colon = find_key_colon(body)
                    .ok_or_else(|| self.err(whole.clone(), "a mapping entry needs `key: value`"))?;
                (body[..colon].trim_end().to_string(), colon)
            }
        };
        let after = &body[key_len..];
        let after_trim = after.trim_start();
        let Some(rest) = after_trim.strip_prefix(':') else {
            return Err(self.err(whole, "a mapping entry needs `key: value`"));
        };
        if !(rest.is_empty() || rest.starts_with(' ')) {
            return Err(self.err(whole, "a mapping entry needs a space after `:`"));
        }
        let rest = rest.trim();
        let rest_start = line.start + (rest.as_ptr() as usize - body.as_ptr() as usize);
        let key_range = line.start
            ..line.start
                + if matches!(body.as_bytes()[0], b'"' | b'\'') {
                    key_len
                } else {
                    body[..key_len].trim_end().len()
                };
        Ok((key, key_range, rest, rest_start))
    }

    /// A value on the line: quoted or plain scalar, or a flow mapping.
    fn inline(&self, s: &str, start: usize) -> Result<Node, YamlError> {
        let range = start..start + s.len();
        match s.as_bytes()[0] {
            q @ (b'"' | b'\'') => {
                let (v, n) = quoted(s, q)
                    .ok_or_else(|| self.err(range.clone(), "unterminated quoted scalar"))?;
                if !s[n..].trim().is_empty() {
                    return Err(self.err(range, "text after a quoted scalar"));
                }
                Ok(Node {
                    range: start..start + n,
                    value: Value::String(v),
                })
            }
            b'{' | b'[' => {
                self.enter(range)?;
                let v = if s.starts_with('{') {
                    self.flow_map(s, start)
                } else {
                    self.flow_seq(s, start)
                };
                self.leave();
                v
            }
            b'*' | b'&' => Err(self.err(
                range,
                "an unquoted `*` or `&` starts a YAML alias or anchor (quote the value)",
            )),
            b'!' | b'%' | b'@' | b'`' => Err(self.err(
                range,
                format!("a plain value cannot start with `{}`", &s[..1]),
            )),
            _ => {
                if find_key_colon(s).is_some() {
                    return Err(self.err(range, "a nested mapping must start on its own line"));
                }
                Ok(Node {
                    range,
                    value: plain(s),
                })
            }
        }
    }

    /// `{a: b, "c": d}` on one line (scalars only).
    fn flow_map(&self, s: &str, start: usize) -> Result<Node, YamlError> {
        let range = start..start + s.len();
        let Some(inner) = s
            .strip_prefix('{')
            .and_then(|r| r.trim_end().strip_suffix('}'))
        else {
            return Err(self.err(range, "a flow mapping must end on its line with `}`"));
        };
        let mut members = Vec::new();
        let mut off = start + 1;
        for part in split_flow(inner) {
            let lead = part.len() - part.trim_start().len();
            let item = part.trim();
            let item_start = off + lead;
            off += part.len() + 1;
            if item.is_empty() {
                continue;
            }
            let (key, key_len) = match item.as_bytes()[0] {
                q @ (b'"' | b'\'') => quoted(item, q)
                    .ok_or_else(|| self.err(range.clone(), "unterminated quoted key"))?,
                b'*' | b'&' => {
                    return Err(self.err(
                        item_start..item_start + item.len(),
                        "an unquoted `*` starts a YAML alias (write \"*\" in quotes)",
                    ));
                }
                _ => {
                    let c = item.find(':').unwrap_or(item.len());
                    (item[..c].trim_end().to_string(), item[..c].trim_end().len())
                }
            };
            let rest = item[key_len..].trim_start();
            let Some(v) = rest.strip_prefix(':') else {
                return Err(self.err(
                    item_start..item_start + item.len(),
                    "a flow mapping entry needs `key: value`",
                ));
            };
            let v_trim = v.trim();
            let v_start = item_start + (v_trim.as_ptr() as usize - item.as_ptr() as usize);
            let value = if v_trim.is_empty() {
                Node {
                    range: v_start..v_start,
                    value: Value::Null,
                }
            } else {
                self.inline(v_trim, v_start)?
            };
            members.push(Member {
                key,
                key_range: item_start..item_start + key_len,
                value,
            });
        }
        Ok(Node {
            range,
            value: Value::Object(members),
        })
    }

    /// `[a, b]` on one line (scalars only).
    fn flow_seq(&self, s: &str, start: usize) -> Result<Node, YamlError> {
        let range = start..start + s.len();
        let Some(inner) = s
            .strip_prefix('[')
            .and_then(|r| r.trim_end().strip_suffix(']'))
        else {
            return Err(self.err(range, "a flow sequence must end on its line with `]`"));
        };
        let mut items = Vec::new();
        let mut off = start + 1;
        for part in split_flow(inner) {
            let lead = part.len() - part.trim_start().len();
            let item = part.trim();
            if !item.is_empty() {
                items.push(self.inline(item, off + lead)?);
            }
            off += part.len() + 1;
        }
        Ok(Node {
            range,
            value: Value::Array(items),
        })
    }
}

/// Splits a flow collection's inside at top-level commas.
fn split_flow(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quote: Option<u8> = None;
    let mut depth = 0i32;
    let mut last = 0;
    for (i, c) in s.bytes().enumerate() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'{' | b'[' => depth += 1,
                b'}' | b']' => depth -= 1,
                b',' if depth == 0 => {
                    out.push(&s[last..i]);
                    last = i + 1;
                }
                _ => {}
            },
        }
    }
    out.push(&s[last..]);
    out
}

/// The colon that ends a plain key: the first `:` followed by a space or
/// the end of the line.
fn find_key_colon(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    (0..b.len()).find(|&i| b[i] == b':' && (i + 1 == b.len() || b[i + 1] == b' '))
}

/// A quoted scalar at the start of `s`: its value and its length in bytes.
fn quoted(s: &str, q: u8) -> Option<(String, usize)> {
    let b = s.as_bytes();
    let mut out = String::new();
    let mut i = 1;
    let mut run = 1;
    while i < b.len() {
        let c = b[i];
        if c == q {
            if q == b'\'' && b.get(i + 1) == Some(&b'\'') {
                out.push_str(&s[run..i + 1]);
                i += 2;
                run = i;
                continue;
            }
            out.push_str(&s[run..i]);
            return Some((out, i + 1));
        }
        if q == b'"' && c == b'\\' && i + 1 < b.len() {
            out.push_str(&s[run..i]);
            let e = b[i + 1];
            match e {
                b'n' => out.push('\n'),
                b't' => out.push('\t'),
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'0' => out.push('\0'),
                _ => {
                    out.push('\\');
                    out.push(e as char);
                }
            }
            i += 2;
            run = i;
            continue;
        }
        i += 1;
    }
    None
}

/// A plain scalar as YAML 1.2's core schema types it (js-yaml's default
/// schema): booleans, null, numbers, else a string.
fn plain(s: &str) -> Value {
    match s {
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        "null" | "Null" | "NULL" | "~" => Value::Null,
        _ => match s.parse::<f64>() {
            Ok(n)
                if s.bytes()
                    .all(|c| c.is_ascii_digit() || b"+-.eE".contains(&c)) =>
            {
                Value::Number(n)
            }
            _ => Value::String(s.to_string()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(n: &Node) -> Vec<String> {
        n.value
            .as_object()
            .unwrap()
            .iter()
            .map(|m| m.key.clone())
            .collect()
    }

    #[test]
    fn reads_an_agent_frontmatter() {
        let text = "---\ndescription: Reviews code # note\nmode: subagent\ntools:\n  write: false\npermission:\n  edit: deny\n  bash:\n    \"*\": ask\n    'git diff*': allow\n---\nBody\n";
        let (block, at) = frontmatter(text).unwrap();
        let root = parse(block, at).unwrap();
        assert_eq!(keys(&root), ["description", "mode", "tools", "permission"]);
        let perm = &root.value.as_object().unwrap()[3].value;
        let bash = &perm.value.as_object().unwrap()[1];
        assert_eq!(bash.key, "bash");
        let rules = bash.value.value.as_object().unwrap();
        assert_eq!(rules[0].key, "*");
        assert_eq!(&text[rules[0].key_range.clone()], "\"*\"");
        assert_eq!(rules[1].key, "git diff*");
        assert_eq!(&text[rules[1].value.range.clone()], "allow");
        let tools = &root.value.as_object().unwrap()[2].value;
        assert_eq!(
            tools.value.as_object().unwrap()[0].value.value,
            Value::Bool(false)
        );
    }

    #[test]
    fn an_unquoted_star_is_an_alias() {
        let e = parse("permission:\n  bash:\n    *: ask\n", 0).unwrap_err();
        assert!(e.message.contains("alias"), "{e:?}");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let flow = format!("bash: {}{}\n", "[".repeat(20_000), "]".repeat(20_000));
        assert!(
            parse(&flow, 0)
                .unwrap_err()
                .message
                .contains("deeper than 64")
        );
        let mut block = String::new();
        for i in 0..5_000 {
            block.push_str(&format!("{}k{i}:\n", " ".repeat(i)));
        }
        assert!(
            parse(&block, 0)
                .unwrap_err()
                .message
                .contains("deeper than 64")
        );
    }

    #[test]
    fn flow_maps_and_errors() {
        let root = parse("permission: {bash: deny, \"*\": ask}\n", 0).unwrap();
        let p = &root.value.as_object().unwrap()[0].value;
        assert_eq!(keys(p), ["bash", "*"]);
        assert!(parse("a:\n\tb: c\n", 0).is_err());
        assert!(parse("a: b: c\n", 0).is_err());
        assert!(frontmatter("no frontmatter").is_none());
        assert!(frontmatter("---\nunterminated: yes\n").is_none());
    }
}
