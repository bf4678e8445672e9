//! The YAML of an OpenCode agent file's frontmatter, read into the same
//! ranged tree as JSON, as the CLI reads it: gray-matter with js-yaml 3
//! (`safeLoad`). The events come from a full YAML parser (`saphyr-parser`,
//! with positions); the tree is built the way js-yaml builds its objects:
//! plain scalars resolved by the default schema (null, booleans, integers
//! in every base, floats, timestamps), `!!` tags applied and unknown tags
//! refused, anchors and aliases, `<<` merge keys (keys already there win,
//! later ones override), keys made strings as JavaScript does, and a key
//! written twice refused (`duplicated mapping key`). An unquoted `*` starts
//! an alias — the classic mistake `*: ask`.
//!
//! Iterative, bounded in depth and in the nodes aliases can expand to: a
//! hostile file is an error with a reason, never a crash.

use crate::syntax::frontmatter::{is_js_whitespace, js_trim};
use crate::syntax::{Member, Node, Value};
use crate::text::{EditMap, replace_spans};
use saphyr_parser::{Event, Parser as Events, ScalarStyle};
use std::collections::HashMap;
use std::ops::Range;

/// Keys of one mapping, hashed with a seeded hash (a file is hostile
/// input: no crafted keys all in one bucket), faster than the standard
/// library's for short keys.
type KeySet = foldhash::HashSet<String>;

/// A YAML error: where, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct YamlError {
    pub range: Range<usize>,
    pub message: String,
    /// OpenCode still loads the agent, with none of its frontmatter: no
    /// rules, no description, the whole file as its prompt (gray-matter
    /// keeps the failed read of the text in its cache and returns it, with
    /// no data, when the CLI retries the same text).
    pub without_frontmatter: bool,
}

/// The frontmatter block of a markdown file: `(block, offset of the block in
/// the text)`; `None` without frontmatter. Like gray-matter: the file starts
/// with `---` and a line break, the block ends at the next line that is
/// `---`.
pub fn frontmatter(text: &str) -> Option<(&str, usize)> {
    let start = opening(text)?;
    let mut off = start;
    for line in text[start..].split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            return Some((&text[start..off], start));
        }
        off += line.len();
    }
    None
}

/// Where a frontmatter's block starts: after `---` and a line break.
fn opening(text: &str) -> Option<usize> {
    let rest = text.strip_prefix("---")?;
    if rest.starts_with("\r\n") {
        Some(5)
    } else if rest.starts_with('\n') {
        Some(4)
    } else {
        None
    }
}

/// OpenCode's second try at a frontmatter that does not parse: each
/// top-level `key: value` line whose unquoted value holds a `:` becomes a
/// block scalar (`key: |-` and the value indented). Returns the text and
/// each line changed: its range in the text and in the result.
pub fn sanitize(text: &str) -> (String, EditMap) {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let kv = RE.get_or_init(|| {
        regex::Regex::new(r"^([a-zA-Z_][a-zA-Z0-9_]*)\s*:\s*(.*)$").expect("valid")
    });
    // `^---\r?\n([\s\S]*?)\r?\n---`: the block up to the first `\n---`.
    let Some(open) = opening(text) else {
        return (text.to_string(), EditMap::default());
    };
    let Some(close) = text[open..].find("\n---") else {
        return (text.to_string(), EditMap::default());
    };
    let mut edits = Vec::new();
    let mut at = open;
    for line in text[open..open + close].split('\n') {
        let body = line.strip_suffix('\r').unwrap_or(line);
        let t = js_trim(body);
        let keep = t.starts_with('#') || t.is_empty() || body.starts_with(is_js_whitespace);
        if !keep && let Some(c) = kv.captures(body) {
            let v = js_trim(c.get(2).map_or("", |m| m.as_str()));
            if !(v.is_empty()
                || v == ">"
                || v == "|"
                || v.starts_with('"')
                || v.starts_with('\'')
                || !v.contains(':'))
            {
                edits.push((at..at + body.len(), format!("{}: |-\n  {v}", &c[1])));
            }
        }
        at += line.len() + 1;
    }
    replace_spans(text, &edits)
}

/// The deepest nesting read; deeper is an error, never a stack overflow.
const MAX_DEPTH: usize = 64;
pub const TOO_DEEP: &str = "nesting deeper than 64 levels is not analysed";
/// The most nodes aliases may expand to (what the text holds itself is
/// bounded by its size).
const MAX_NODES: usize = 100_000;
pub const TOO_LARGE: &str = "aliases expand to more than 100,000 nodes, which is not analysed";

/// Whether an error is this reader's limit, not a YAML error the runtime
/// sees: what OpenCode makes of the file is then not known.
pub fn is_limit(e: &YamlError) -> bool {
    e.message == TOO_DEEP || e.message == TOO_LARGE
}

/// A collection being built.
enum Frame {
    Map {
        start: usize,
        anchor: usize,
        flow: bool,
        members: Vec<Member>,
        /// Keys written in this mapping (a second one is refused) and keys
        /// a merge brought (an explicit key may override them).
        written: KeySet,
        merged: KeySet,
        key: Option<Key>,
        /// No key was read yet.
        first: bool,
    },
    Seq {
        start: usize,
        anchor: usize,
        items: Vec<Node>,
    },
}

/// A mapping key waiting for its value.
struct Key {
    text: String,
    range: Range<usize>,
    merge: bool,
}

/// Parses a block of YAML starting at byte `base` of the text into a tree
/// whose ranges are offsets in the text. An empty block is an empty map.
pub fn parse(block: &str, base: usize) -> Result<Node, YamlError> {
    if block.trim().is_empty() {
        return Ok(Node {
            range: base..base,
            value: Value::Object(Vec::new()),
        });
    }
    // js-yaml skips tabs before a line's content as separation, not as
    // indentation (`\tkey: v` is a key at the line's start): the tabs are
    // taken out, and positions mapped back.
    match untab(block) {
        Some((text, map)) => {
            let mut node = parse_spaces(&text, base)?;
            let map = map.shifted(base);
            node.map_ranges(|r| map.range(r));
            Ok(node)
        }
        None => parse_spaces(block, base),
    }
}

/// The block without the tabs that start its lines (after any spaces),
/// and where everything went: `None` when no line starts so.
fn untab(block: &str) -> Option<(String, EditMap)> {
    let mut edits = Vec::new();
    let mut at = 0;
    for line in block.split_inclusive('\n') {
        let spaces = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[spaces..];
        let lead = rest.len() - rest.trim_start_matches(['\t', ' ']).len();
        // (Spaces after the first tab are separation too.)
        if rest[..lead].contains('\t') {
            edits.push((at + spaces..at + spaces + lead, String::new()));
        }
        at += line.len();
    }
    (!edits.is_empty()).then(|| replace_spans(block, &edits))
}

/// [`parse`], for a block whose lines start with spaces only.
fn parse_spaces(block: &str, base: usize) -> Result<Node, YamlError> {
    // Character positions (the parser's) to byte offsets: the same in
    // ASCII text, else a table.
    let table: Option<Vec<usize>> = (!block.is_ascii()).then(|| {
        let mut t: Vec<usize> = block.char_indices().map(|(i, _)| i).collect();
        t.push(block.len());
        t
    });
    let at = |char_index: usize| {
        base + match &table {
            None => char_index.min(block.len()),
            Some(t) => t[char_index.min(t.len() - 1)],
        }
    };
    let err = |range: Range<usize>, message: String| YamlError {
        range,
        message,
        without_frontmatter: false,
    };
    let mut events = Events::new_from_str(block);
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: HashMap<usize, Node> = HashMap::new();
    let mut root: Option<Node> = None;
    let mut documents = 0;
    let mut nodes = 0usize;
    while let Some(next) = events.next_event() {
        let (event, span) = match next {
            Ok(e) => e,
            Err(e) => {
                let p = at(e.marker().index());
                // The line the error is on, from its first character.
                let ls = block[..p - base].rfind('\n').map_or(0, |n| n + 1);
                let le = block[ls..].find('\n').map_or(block.len(), |n| ls + n);
                let line = &block[ls..le];
                let lead = line.len() - line.trim_start().len();
                let p = base + ls + lead..base + ls + line.trim_end().len().max(lead);
                let info = e.info();
                let message = if info.contains("recursion limit") {
                    TOO_DEEP.to_string()
                } else if info.contains("anchor") || info.contains("alias") {
                    format!("{info} (an unquoted `*` starts a YAML alias: write \"*\" in quotes)")
                } else {
                    info.to_string()
                };
                return Err(err(p, message));
            }
        };
        let range = at(span.start.index())..at(span.end.index()).max(at(span.start.index()));
        let node = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => continue,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(err(
                        range,
                        "expected a single document in the stream, but found more".into(),
                    ));
                }
                continue;
            }
            Event::MappingStart(anchor, tag) => {
                if let Some(t) = &tag
                    && !(t.suffix == "map" && core_tag(&t.handle))
                {
                    return Err(err(range, unknown_tag(t)));
                }
                if stack.len() >= MAX_DEPTH {
                    return Err(err(range, TOO_DEEP.into()));
                }
                stack.push(Frame::Map {
                    start: range.start,
                    anchor,
                    flow: block[..]
                        .get(range.start - base..)
                        .is_some_and(|t| t.starts_with('{')),
                    members: Vec::new(),
                    written: KeySet::default(),
                    merged: KeySet::default(),
                    key: None,
                    first: true,
                });
                continue;
            }
            Event::SequenceStart(anchor, tag) => {
                if let Some(t) = &tag
                    && !(t.suffix == "seq" && core_tag(&t.handle))
                {
                    return Err(err(range, unknown_tag(t)));
                }
                if stack.len() >= MAX_DEPTH {
                    return Err(err(range, TOO_DEEP.into()));
                }
                stack.push(Frame::Seq {
                    start: range.start,
                    anchor,
                    items: Vec::new(),
                });
                continue;
            }
            Event::MappingEnd => {
                let Some(Frame::Map {
                    start,
                    anchor,
                    flow,
                    members,
                    ..
                }) = stack.pop()
                else {
                    return Err(err(range, "unbalanced mapping".into()));
                };
                let last = members
                    .last()
                    .map_or(start, |m| m.value.range.end.max(m.key_range.end));
                let end = if flow { range.end.max(last) } else { last };
                let n = Node {
                    range: start..end,
                    value: Value::Object(members),
                };
                if anchor > 0 {
                    anchors.insert(anchor, n.clone());
                }
                n
            }
            Event::SequenceEnd => {
                let Some(Frame::Seq {
                    start,
                    anchor,
                    items,
                }) = stack.pop()
                else {
                    return Err(err(range, "unbalanced sequence".into()));
                };
                let flow = block
                    .get(start - base..)
                    .is_some_and(|t| t.starts_with('['));
                let last = items.last().map_or(start, |i| i.range.end);
                let end = if flow { range.end.max(last) } else { last };
                let n = Node {
                    range: start..end,
                    value: Value::Array(items),
                };
                if anchor > 0 {
                    anchors.insert(anchor, n.clone());
                }
                n
            }
            Event::Alias(id) => {
                let Some(n) = anchors.get(&id) else {
                    return Err(err(range, "unidentified alias".into()));
                };
                nodes += count(n);
                if nodes > MAX_NODES {
                    return Err(err(range, TOO_LARGE.into()));
                }
                Node {
                    range: range.clone(),
                    value: n.value.clone(),
                }
            }
            Event::Scalar(text, style, anchor, tag) => {
                let value = match &tag {
                    Some(t) => tagged(&text, &t.handle, &t.suffix)
                        .ok_or_else(|| err(range.clone(), unknown_tag(t)))?,
                    None if style == ScalarStyle::Plain => resolve(&text),
                    None => Value::String(text.to_string()),
                };
                // A plain `<<` key is a merge.
                let merge = tag.is_none() && style == ScalarStyle::Plain && text == "<<";
                let n = Node {
                    range: range.clone(),
                    value,
                };
                if anchor > 0 {
                    anchors.insert(anchor, n.clone());
                }
                if let Some(Frame::Map {
                    key, first, flow, ..
                }) = stack.last_mut()
                    && key.is_none()
                {
                    // js-yaml 3 reads a property before the first key of a
                    // block mapping as the mapping's, and then cannot read
                    // the line.
                    let explicit = block[..range.start - base]
                        .rsplit('\n')
                        .next()
                        .is_some_and(|l| l.trim_start().starts_with('?'));
                    if *first && !*flow && !explicit && (anchor > 0 || tag.is_some()) {
                        return Err(err(
                            range,
                            "a tag or anchor before the first key of a block mapping is read as the mapping's (js-yaml: bad indentation of a mapping entry)".into(),
                        ));
                    }
                    *first = false;
                    *key = Some(Key {
                        text: key_string(&n),
                        range: n.range.clone(),
                        merge,
                    });
                    continue;
                }
                n
            }
        };
        // The node goes into its parent, or is the document.
        match stack.last_mut() {
            None => root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                members,
                written,
                merged,
                key,
                first,
                ..
            }) => match key.take() {
                // A collection as a key: JavaScript makes it a string.
                None => {
                    *first = false;
                    *key = Some(Key {
                        text: key_string(&node),
                        range: node.range.clone(),
                        merge: false,
                    })
                }
                Some(k) if k.merge => merge_into(members, written, merged, &node, &k.range)?,
                Some(k) => {
                    // A key written twice is refused; a key a merge brought
                    // may be written once (one set operation for most keys).
                    let fresh = (!merged.is_empty() && merged.remove(&k.text))
                        || written.insert(k.text.clone());
                    if !fresh {
                        return Err(err(k.range, "duplicated mapping key".into()));
                    }
                    members.push(Member {
                        key: k.text,
                        key_range: k.range,
                        value: node,
                    });
                }
            },
        }
    }
    Ok(root.unwrap_or(Node {
        range: base..base,
        value: Value::Null,
    }))
}

/// `<<: source`: the source mapping's keys (or each mapping's of a list)
/// not already in this one.
fn merge_into(
    members: &mut Vec<Member>,
    written: &mut KeySet,
    merged: &mut KeySet,
    source: &Node,
    at: &Range<usize>,
) -> Result<(), YamlError> {
    let sources: Vec<&Node> = match &source.value {
        Value::Object(_) => vec![source],
        Value::Array(items) => items.iter().collect(),
        _ => vec![],
    };
    if sources.is_empty() || sources.iter().any(|s| !matches!(s.value, Value::Object(_))) {
        return Err(YamlError {
            range: at.clone(),
            message: "cannot merge mappings; the provided source object is unacceptable".into(),
            without_frontmatter: false,
        });
    }
    for s in sources {
        for m in s.value.as_object().into_iter().flatten() {
            if !written.insert(m.key.clone()) {
                continue;
            }
            merged.insert(m.key.clone());
            members.push(m.clone());
        }
    }
    Ok(())
}

fn count(n: &Node) -> usize {
    let mut total = 0;
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        total += 1;
        match &n.value {
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(ms) => stack.extend(ms.iter().map(|m| &m.value)),
            _ => {}
        }
        if total > MAX_NODES {
            break;
        }
    }
    total
}

/// A tag of YAML's own schema (`!!str`, `!!map`, …).
fn core_tag(handle: &str) -> bool {
    handle == "!!" || handle == "tag:yaml.org,2002:"
}

fn unknown_tag(t: &saphyr_parser::Tag) -> String {
    format!("unknown tag !<{}{}>", t.handle, t.suffix)
}

/// A value with an explicit tag, as js-yaml's default schema reads it;
/// `None` for a tag it does not know or a value the tag cannot take.
fn tagged(text: &str, handle: &str, suffix: &str) -> Option<Value> {
    if !core_tag(handle) {
        return None;
    }
    match suffix {
        "str" => Some(Value::String(text.to_string())),
        "null" => matches!(text, "" | "~" | "null" | "Null" | "NULL").then_some(Value::Null),
        "bool" => match resolve(text) {
            v @ Value::Bool(_) => Some(v),
            _ => None,
        },
        "int" => integer(text).map(Value::Number),
        "float" => float(text).or_else(|| integer(text)).map(Value::Number),
        // Dates, binary data: values that are neither strings nor numbers.
        "timestamp" | "binary" => Some(Value::Invalid),
        // An empty node tagged as a collection is an empty one.
        "map" if text.is_empty() => Some(Value::Object(Vec::new())),
        "seq" if text.is_empty() => Some(Value::Array(Vec::new())),
        _ => None,
    }
}

/// A plain scalar resolved by js-yaml's default schema.
fn resolve(s: &str) -> Value {
    match s {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    if let Some(n) = integer(s).or_else(|| float(s)) {
        return Value::Number(n);
    }
    if timestamp(s) {
        return Value::Invalid;
    }
    Value::String(s.to_string())
}

/// js-yaml 3's integers: `0b`, `0x`, a leading `0` (octal), decimal with
/// `_`, and base 60 (`1:30`).
fn integer(s: &str) -> Option<f64> {
    let (sign, body) = match s.as_bytes().first()? {
        b'-' => (-1.0, &s[1..]),
        b'+' => (1.0, &s[1..]),
        _ => (1.0, s),
    };
    if body.is_empty() || body.ends_with('_') {
        return None;
    }
    let digits = |t: &str, radix: u32| -> Option<f64> {
        let clean: String = t.chars().filter(|c| *c != '_').collect();
        if clean.is_empty() || !clean.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        Some(clean.chars().fold(0f64, |acc, c| {
            acc * radix as f64 + c.to_digit(radix).unwrap_or(0) as f64
        }))
    };
    let n = if body == "0" {
        0.0
    } else if let Some(b) = body.strip_prefix("0b") {
        digits(b, 2)?
    } else if let Some(h) = body.strip_prefix("0x") {
        digits(h, 16)?
    } else if let Some(o) = body.strip_prefix('0') {
        digits(o, 8)?
    } else if body.starts_with('_') {
        return None;
    } else if body.contains(':') {
        let mut parts = body.split(':');
        let first = digits(parts.next()?, 10)?;
        let mut n = first;
        for p in parts {
            if p.is_empty() || p.len() > 2 || !p.bytes().all(|c| c.is_ascii_digit()) {
                return None;
            }
            let v: f64 = p.parse().ok()?;
            if v >= 60.0 {
                return None;
            }
            n = n * 60.0 + v;
        }
        n
    } else {
        digits(body, 10)?
    };
    Some(sign * n)
}

/// js-yaml 3's floats (`1.5`, `1e3`, `.5`, `.inf`, `.nan`, base 60).
fn float(s: &str) -> Option<f64> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(
            r"^(?:[-+]?(?:0|[1-9][0-9_]*)(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        )
        .expect("valid")
    });
    if !re.is_match(s) || s.ends_with('_') {
        return None;
    }
    let t = s.replace('_', "").to_ascii_lowercase();
    match t.as_str() {
        ".inf" | "+.inf" => return Some(f64::INFINITY),
        "-.inf" => return Some(f64::NEG_INFINITY),
        ".nan" => return Some(f64::NAN),
        _ => {}
    }
    if t.contains(':') {
        let (sign, body) = match t.strip_prefix('-') {
            Some(b) => (-1.0, b),
            None => (1.0, t.trim_start_matches('+')),
        };
        let mut n = 0.0;
        for p in body.split(':') {
            n = n * 60.0 + p.parse::<f64>().ok()?;
        }
        return Some(sign * n);
    }
    t.parse().ok()
}

fn timestamp(s: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(
            r"^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$",
        )
        .expect("valid")
    })
    .is_match(s)
}

/// A key as the JavaScript property name js-yaml makes of it.
fn key_string(n: &Node) -> String {
    match &n.value {
        Value::String(s) => s.clone(),
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(x) => js_number(*x),
        Value::Object(_) => "[object Object]".into(),
        Value::Array(items) => items
            .iter()
            .map(|i| match &i.value {
                Value::Null => String::new(),
                Value::Object(_) => "[object Object]".into(),
                _ => key_string(i),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Invalid => "null".into(),
    }
}

/// `String(x)` for a JavaScript number.
fn js_number(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        }
    } else if x == x.trunc() && x.abs() < 1e21 {
        format!("{}", x as i128)
    } else {
        format!("{x}")
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
    fn places_are_byte_offsets_in_ascii_and_in_other_text() {
        for (lead, key) in [
            ("", "git x*"),
            ("# é ☃ 😀\n", "git x*"),
            ("description: \"naïve 😀\"\n", "git ✓*"),
        ] {
            let text = format!(
                "---\n{lead}permission:\n  bash:\n    \"{key}\": allow\n    ls: deny\n---\n"
            );
            let (block, at) = frontmatter(&text).unwrap();
            let root = parse(block, at).unwrap();
            let perm = root.value.as_object().unwrap().last().unwrap();
            let rules = perm.value.value.as_object().unwrap()[0]
                .value
                .value
                .as_object()
                .unwrap();
            assert_eq!(
                text[rules[0].key_range.clone()],
                format!("\"{key}\""),
                "{lead}"
            );
            assert_eq!(&text[rules[0].value.range.clone()], "allow", "{lead}");
            assert_eq!(&text[rules[1].key_range.clone()], "ls", "{lead}");
        }
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
    fn anchors_merges_tags_and_keys_as_js_yaml_makes_them() {
        let root = parse(
            "base: &b {\"git *\": ask, \"ls *\": allow}\nbash:\n  \"git *\": deny\n  <<: *b\n  012: !!str 7\n  1:30: x\n  ~: y\n",
            0,
        )
        .unwrap();
        let bash = &root.value.as_object().unwrap()[1].value;
        // The explicit key before the merge wins; the merged one is added.
        let got: Vec<(String, String)> = bash
            .value
            .as_object()
            .unwrap()
            .iter()
            .map(|m| (m.key.clone(), format!("{:?}", m.value.value)))
            .collect();
        assert_eq!(got[0], ("git *".into(), "String(\"deny\")".into()));
        assert_eq!(got[1].0, "ls *");
        assert_eq!(got[2], ("10".into(), "String(\"7\")".into()));
        assert_eq!(got[3].0, "90");
        assert_eq!(got[4].0, "null");
        // Refused as js-yaml refuses them.
        for bad in [
            "a: 1\na: 2\n",
            "x: !foo y\n",
            "x:\n  &k a: 1\n",
            "x: *nowhere\n",
            "a: 1\n---\nb: 2\n",
        ] {
            assert!(parse(bad, 0).is_err(), "{bad:?}");
        }
        // A merged key may be overridden later.
        assert!(parse("b: &b {a: 1}\nx:\n  <<: *b\n  a: 2\n", 0).is_ok());
    }

    #[test]
    fn sanitizing_turns_a_colon_value_into_a_block_scalar() {
        let (t, changed) = sanitize("---\ndescription: Reviews: code\nmode: all\n---\nbody\n");
        assert_eq!(
            t,
            "---\ndescription: |-\n  Reviews: code\nmode: all\n---\nbody\n"
        );
        assert_eq!(changed.len(), 1);
        assert_eq!(sanitize("---\na: b\n---\n").1.len(), 0);
    }

    #[test]
    fn flow_maps_and_errors() {
        let root = parse("permission: {bash: deny, \"*\": ask}\n", 0).unwrap();
        let p = &root.value.as_object().unwrap()[0].value;
        assert_eq!(keys(p), ["bash", "*"]);
        // A tab before a line's content is not indentation (js-yaml).
        let tabbed = parse("a:\n\tb: c\n", 0).unwrap();
        assert_eq!(keys(&tabbed), ["a", "b"]);
        assert!(parse("a: b: c\n", 0).is_err());
        assert!(frontmatter("no frontmatter").is_none());
        assert!(frontmatter("---\nunterminated: yes\n").is_none());
    }
}
