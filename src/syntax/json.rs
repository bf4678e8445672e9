//! Strict JSON, read exactly as V8's `JSON.parse` reads the stripped text,
//! producing a ranged tree.
//!
//! The first error carries V8's message word for word (the runtime reports it
//! as `Failed to read config at '<path>': <message>`). The parser then
//! recovers — trailing commas, single quotes, `NaN`, missing commas, stray
//! tokens — so that every further syntax error and the rest of the document
//! still get diagnostics. Any error means the runtime rejects the whole file.

use super::strip::Stripped;
use std::ops::Range;

/// Deeper nesting than this is reported and not descended. The runtime's
/// schema rejects any value nested deeper than four levels anyway, so the cap
/// never changes whether the file is accepted.
pub const MAX_DEPTH: usize = 128;

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Byte range in the original document.
    pub range: Range<usize>,
    pub value: Value,
}

impl Node {
    /// Every range of the tree (each node's and each key's) through `f`.
    pub fn map_ranges(&mut self, f: impl Fn(&Range<usize>) -> Range<usize>) {
        let mut stack = vec![self];
        while let Some(n) = stack.pop() {
            n.range = f(&n.range);
            match &mut n.value {
                Value::Array(items) => stack.extend(items.iter_mut()),
                Value::Object(members) => {
                    for m in members {
                        m.key_range = f(&m.key_range);
                        stack.push(&mut m.value);
                    }
                }
                _ => {}
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Node>),
    /// Members in source order, duplicates included.
    Object(Vec<Member>),
    /// Something that is not JSON (recovered from a syntax error).
    Invalid,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub key: String,
    /// Range of the key including its quotes.
    pub key_range: Range<usize>,
    pub value: Node,
}

impl Value {
    /// The JavaScript/zod name of this value's type ("received …").
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_nan() => "NaN",
            Value::Number(n) if n.is_infinite() => "Infinity",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
            Value::Invalid => "undefined",
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_object(&self) -> Option<&[Member]> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }
}

/// What kind of syntax error, for diagnostic codes and quick fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    TrailingComma,
    ByteOrderMark,
    /// Nothing but whitespace (and comments) in the file.
    EmptyInput,
    SingleQuotedString,
    NonFiniteNumber,
    InvalidNumber,
    MissingComma,
    MissingColon,
    PropertyNameExpected,
    UnexpectedToken,
    UnterminatedString,
    BadStringCharacter,
    UnexpectedEnd,
    TrailingContent,
    TooDeep,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub kind: SyntaxErrorKind,
    /// Byte range in the original document.
    pub range: Range<usize>,
    /// Our own description.
    pub message: String,
    /// For the first error only: V8's `JSON.parse` message, exactly.
    pub runtime_message: Option<String>,
}

#[derive(Debug, Clone)]
pub struct ParseOutput {
    /// The tree; present even after errors when recovery found a value.
    pub root: Option<Node>,
    pub errors: Vec<SyntaxError>,
}

pub fn parse(stripped: &Stripped) -> ParseOutput {
    let mut p = Parser {
        src: &stripped.text,
        b: stripped.text.as_bytes(),
        pos: 0,
        map: stripped,
        errors: Vec::new(),
    };
    if p.src.starts_with('\u{feff}') {
        p.error_v8(
            SyntaxErrorKind::ByteOrderMark,
            0..3,
            "the file starts with a byte order mark (U+FEFF), which JSON.parse rejects".into(),
            V8::Token,
        );
        p.pos = 3;
    }
    p.skip_ws();
    if p.pos >= p.b.len() {
        p.error_v8(
            SyntaxErrorKind::EmptyInput,
            p.pos..p.pos,
            "the file has no JSON value (empty or only comments)".into(),
            V8::EndOfInput,
        );
        return ParseOutput {
            root: None,
            errors: p.errors,
        };
    }
    let root = p.value(0);
    p.skip_ws();
    if p.pos < p.b.len() {
        let start = p.pos;
        p.error_v8(
            SyntaxErrorKind::TrailingContent,
            start..p.b.len(),
            "unexpected text after the end of the JSON value".into(),
            V8::At("Unexpected non-whitespace character after JSON"),
        );
    }
    ParseOutput {
        root,
        errors: p.errors,
    }
}

/// How V8 phrases an error.
enum V8 {
    /// "Unexpected end of JSON input".
    EndOfInput,
    /// "<text> in JSON at position N (line L column C)".
    At(&'static str),
    /// V8's lookup by the token found at the position: end of input, an
    /// unexpected string or number, or "Unexpected token 'x', …".
    Token,
}

struct Parser<'a> {
    src: &'a str,
    b: &'a [u8],
    pos: usize,
    map: &'a Stripped,
    errors: Vec<SyntaxError>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn orig(&self, r: Range<usize>) -> Range<usize> {
        self.map.range_to_original(r)
    }

    /// Records an error; the first one gets V8's exact message.
    fn error_v8(&mut self, kind: SyntaxErrorKind, r: Range<usize>, message: String, v8: V8) {
        let at = r.start;
        self.error_v8_at(kind, r, message, v8, at)
    }

    /// Like [`Self::error_v8`] where V8's position differs from the range start.
    fn error_v8_at(
        &mut self,
        kind: SyntaxErrorKind,
        r: Range<usize>,
        message: String,
        v8: V8,
        at: usize,
    ) {
        let runtime_message = if self.errors.is_empty() {
            Some(self.v8_message(at, v8))
        } else {
            None
        };
        // Ranges cover whole characters: a bad byte's range grows to the
        // end of the character it starts (U+FFFD from invalid UTF-8, any
        // non-ASCII character where one byte was expected).
        let mut r = r.start.min(self.src.len())..r.end.min(self.src.len());
        while !self.src.is_char_boundary(r.start) {
            r.start -= 1;
        }
        while !self.src.is_char_boundary(r.end) {
            r.end += 1;
        }
        let r = r.start..r.end.max(r.start);
        // Never report an empty range past a character boundary.
        let range = self.orig(r);
        self.errors.push(SyntaxError {
            kind,
            range,
            message,
            runtime_message,
        });
    }

    fn v8_message(&self, at: usize, v8: V8) -> String {
        let pos16 = crate::text::utf16_len(&self.src[..at.min(self.src.len())]);
        let (line, col) = v8_line_col(&self.src[..at.min(self.src.len())]);
        let located = |what: &str| {
            // V8 says "… after JSON at position", everything else "… in JSON at position".
            let sep = if what.ends_with("JSON") {
                ""
            } else {
                " in JSON"
            };
            format!("{what}{sep} at position {pos16} (line {line} column {col})")
        };
        match v8 {
            V8::EndOfInput => "Unexpected end of JSON input".into(),
            V8::At(what) => located(what),
            V8::Token => match self.b.get(at) {
                None => "Unexpected end of JSON input".into(),
                Some(b'"') => located("Unexpected string"),
                Some(b'0'..=b'9' | b'-') => located("Unexpected number"),
                Some(_) => v8_unexpected_token(self.src, at),
            },
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        self.skip_ws();
        let start = self.pos;
        let Some(c) = self.peek() else {
            self.error_v8(
                SyntaxErrorKind::UnexpectedEnd,
                start..start,
                "a value is missing here (the file ends)".into(),
                V8::EndOfInput,
            );
            return None;
        };
        if depth >= MAX_DEPTH && matches!(c, b'{' | b'[') {
            let end = self.skip_nested();
            self.error_v8(
                SyntaxErrorKind::TooDeep,
                start..end,
                format!("nesting deeper than {MAX_DEPTH} levels is not analysed"),
                V8::At("Nesting too deep"),
            );
            return Some(self.node(start, Value::Invalid));
        }
        match c {
            b'{' => Some(self.object(depth)),
            b'[' => Some(self.array(depth)),
            b'"' => {
                let s = self.string();
                Some(self.node(start, Value::String(s)))
            }
            b'\'' => {
                self.error_v8(
                    SyntaxErrorKind::SingleQuotedString,
                    start..start + 1,
                    "single-quoted strings are not JSON".into(),
                    V8::Token,
                );
                let s = self.single_quoted();
                Some(self.node(start, Value::String(s)))
            }
            b'-' | b'0'..=b'9' => Some(self.number()),
            b't' => Some(self.literal("true", Value::Bool(true))),
            b'f' => Some(self.literal("false", Value::Bool(false))),
            b'n' => Some(self.literal("null", Value::Null)),
            _ => Some(self.bad_value()),
        }
    }

    fn node(&self, start: usize, value: Value) -> Node {
        Node {
            range: self.orig(start..self.pos),
            value,
        }
    }

    /// A word or character that cannot start a value: `NaN`, `Infinity`,
    /// `+1`, `.5`, `0x10`, an identifier, a stray `}`.
    fn bad_value(&mut self) -> Node {
        let start = self.pos;
        let word_end = self.word_end(start);
        let word = &self.src[start..word_end];
        let (kind, msg, value) = match word {
            "NaN" | "Infinity" | "+Infinity" => (
                SyntaxErrorKind::NonFiniteNumber,
                format!("`{word}` is not JSON"),
                Value::Number(if word == "NaN" {
                    f64::NAN
                } else {
                    f64::INFINITY
                }),
            ),
            w if !w.is_empty() && (w.starts_with('+') || w.starts_with('.')) => (
                SyntaxErrorKind::InvalidNumber,
                format!("`{w}` is not a JSON number"),
                Value::Number(w.trim_start_matches('+').parse().unwrap_or(f64::NAN)),
            ),
            _ => (
                SyntaxErrorKind::UnexpectedToken,
                "a value (string, number, object, array, true, false or null) is expected here"
                    .into(),
                Value::Invalid,
            ),
        };
        // Consume at least one character so recovery always progresses,
        // but never a structural character that a caller can resynchronise on.
        let end = if word_end > start {
            word_end
        } else if matches!(self.peek(), Some(b'}' | b']' | b',' | b':')) {
            start
        } else {
            next_char_boundary(self.src, start)
        };
        let report_end = if end > start {
            end
        } else {
            next_char_boundary(self.src, start)
        };
        self.error_v8(kind, start..report_end, msg, V8::Token);
        self.pos = end;
        self.node(start, value)
    }

    /// End of a run of identifier-ish characters (letters, digits, `+-._$`).
    fn word_end(&self, from: usize) -> usize {
        let mut i = from;
        while let Some(&c) = self.b.get(i) {
            if c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.' | b'_' | b'$') {
                i += 1;
            } else {
                break;
            }
        }
        i
    }

    fn literal(&mut self, word: &str, value: Value) -> Node {
        let start = self.pos;
        let w = word.as_bytes();
        let mut i = 0;
        while i < w.len() && self.b.get(start + i) == Some(&w[i]) {
            i += 1;
        }
        if i == w.len() {
            self.pos = start + i;
            return self.node(start, value);
        }
        // V8 reports the first mismatching character (or the end of input).
        let bad = start + i;
        let end = self.word_end(start).max(bad);
        let shown = &self.src[start..end];
        self.pos = bad;
        let kind = if bad >= self.b.len() {
            SyntaxErrorKind::UnexpectedEnd
        } else {
            SyntaxErrorKind::UnexpectedToken
        };
        self.error_v8_at(
            kind,
            start..end.max(start + 1).min(self.b.len().max(start)),
            format!("`{shown}` is not a JSON value (did you mean `{word}`?)"),
            V8::Token,
            bad,
        );
        self.pos = end;
        self.node(start, Value::Invalid)
    }

    fn number(&mut self) -> Node {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                // `-Infinity` and friends.
                if self.src[self.pos..].starts_with("Infinity") {
                    let at = self.pos;
                    self.error_v8_at(
                        SyntaxErrorKind::NonFiniteNumber,
                        start..at + 8,
                        "`-Infinity` is not JSON".into(),
                        V8::At("No number after minus sign"),
                        at,
                    );
                    self.pos += 8;
                    return self.node(start, Value::Number(f64::NEG_INFINITY));
                }
                let at = self.pos;
                self.error_v8_at(
                    SyntaxErrorKind::InvalidNumber,
                    start..at,
                    "a minus sign must be followed by digits".into(),
                    V8::At("No number after minus sign"),
                    at,
                );
                return self.node(start, Value::Invalid);
            }
        }
        if self.peek() == Some(b'0') {
            self.pos += 1;
            if matches!(self.peek(), Some(b'0'..=b'9')) {
                let at = self.pos;
                let end = self.word_end(at);
                self.error_v8_at(
                    SyntaxErrorKind::InvalidNumber,
                    start..end,
                    "JSON numbers have no leading zeros".into(),
                    V8::Token,
                    at,
                );
                self.pos = end;
                return self.node(start, Value::Invalid);
            }
        } else {
            self.digits();
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                let at = self.pos;
                self.error_v8_at(
                    SyntaxErrorKind::InvalidNumber,
                    start..at,
                    "a decimal point must be followed by digits".into(),
                    V8::At("Unterminated fractional number"),
                    at,
                );
                return self.node(start, Value::Invalid);
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                let at = self.pos;
                self.error_v8_at(
                    SyntaxErrorKind::InvalidNumber,
                    start..at,
                    "an exponent must have digits".into(),
                    V8::At("Exponent part is missing a number"),
                    at,
                );
                return self.node(start, Value::Invalid);
            }
            self.digits();
        }
        let n: f64 = self.src[start..self.pos].parse().unwrap_or(f64::NAN);
        self.node(start, Value::Number(n))
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
    }

    /// A double-quoted string at `pos`; returns its decoded value.
    fn string(&mut self) -> String {
        let start = self.pos;
        self.pos += 1;
        // Fast path: no escape and no control character before the closing quote.
        let rest = &self.b[self.pos..];
        if let Some(k) = memchr::memchr2(b'"', b'\\', rest)
            && rest[k] == b'"'
            && !rest[..k].iter().any(|&b| b < 0x20)
        {
            let s = self.src[self.pos..self.pos + k].to_string();
            self.pos += k + 1;
            return s;
        }
        let mut out = String::new();
        let mut run = self.pos;
        loop {
            let Some(c) = self.peek() else {
                out.push_str(&self.src[run..self.pos]);
                let end = self.pos;
                self.error_v8_at(
                    SyntaxErrorKind::UnterminatedString,
                    start..end,
                    "this string is never closed".into(),
                    V8::At("Unterminated string"),
                    end,
                );
                return out;
            };
            match c {
                b'"' => {
                    out.push_str(&self.src[run..self.pos]);
                    self.pos += 1;
                    return out;
                }
                b'\\' => {
                    out.push_str(&self.src[run..self.pos]);
                    self.pos += 1;
                    self.escape(&mut out);
                    run = self.pos;
                }
                0..=0x1f => {
                    out.push_str(&self.src[run..self.pos]);
                    let at = self.pos;
                    self.error_v8(
                        SyntaxErrorKind::BadStringCharacter,
                        at..at + 1,
                        "control characters (tab, newline, …) must be escaped inside strings"
                            .into(),
                        V8::At("Bad control character in string literal"),
                    );
                    out.push(c as char);
                    self.pos += 1;
                    run = self.pos;
                }
                _ => {
                    // Skip plain bytes up to the next quote, backslash or control byte.
                    let rest = &self.b[self.pos..];
                    let stop = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
                    let span = &rest[..stop];
                    self.pos += span.iter().position(|&b| b < 0x20).unwrap_or(stop);
                }
            }
        }
    }

    fn escape(&mut self, out: &mut String) {
        let at = self.pos;
        let Some(c) = self.peek() else {
            // V8 treats a string ending in a backslash as unterminated.
            return;
        };
        let simple = match c {
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            self.pos += 1;
            return;
        }
        if c == b'u' {
            self.pos += 1;
            let mut unit: u32 = 0;
            for k in 0..4 {
                match self.peek().and_then(|h| (h as char).to_digit(16)) {
                    Some(d) => {
                        unit = unit * 16 + d;
                        self.pos += 1;
                    }
                    None => {
                        let bad = self.pos;
                        if self.peek().is_none() {
                            return; // reported as an unterminated string
                        }
                        let _ = k;
                        self.error_v8_at(
                            SyntaxErrorKind::BadStringCharacter,
                            at - 1..bad + 1,
                            "`\\u` needs four hexadecimal digits".into(),
                            V8::At("Bad Unicode escape"),
                            bad,
                        );
                        return;
                    }
                }
            }
            // Surrogate pairs: a high unit followed by `\uDC00`-`\uDFFF`.
            if (0xD800..0xDC00).contains(&unit)
                && self.b.get(self.pos) == Some(&b'\\')
                && self.b.get(self.pos + 1) == Some(&b'u')
            {
                let hex = self.src.get(self.pos + 2..self.pos + 6).unwrap_or("");
                if let Ok(low) = u32::from_str_radix(hex, 16)
                    && hex.len() == 4
                    && (0xDC00..0xE000).contains(&low)
                {
                    self.pos += 6;
                    let cp = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                    return;
                }
            }
            out.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
            return;
        }
        let end = next_char_boundary(self.src, at);
        self.error_v8_at(
            SyntaxErrorKind::BadStringCharacter,
            at - 1..end,
            format!("`\\{}` is not a JSON escape", &self.src[at..end]),
            V8::At("Bad escaped character"),
            at,
        );
        out.push_str(&self.src[at..end]);
        self.pos = end;
    }

    /// Recovery only: a `'…'` string (already reported).
    fn single_quoted(&mut self) -> String {
        self.pos += 1;
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c == b'\\' {
                self.pos = (self.pos + 2).min(self.b.len());
                continue;
            }
            if c == b'\'' {
                let s = self.src[start..self.pos].to_string();
                self.pos += 1;
                return s;
            }
            if c == b'\n' {
                break;
            }
            self.pos += 1;
        }
        self.src[start..self.pos].to_string()
    }

    fn object(&mut self, depth: usize) -> Node {
        let start = self.pos;
        self.pos += 1;
        let mut members = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return self.node(start, Value::Object(members));
        }
        let mut after_comma: Option<usize> = None;
        loop {
            self.skip_ws();
            // A property name.
            let key_start = self.pos;
            let key = match self.peek() {
                Some(b'"') => Some(self.string()),
                Some(b'}') if after_comma.is_some() => {
                    let comma = after_comma.unwrap_or(key_start);
                    self.error_v8_at(
                        SyntaxErrorKind::TrailingComma,
                        comma..comma + 1,
                        "trailing comma before `}`".into(),
                        V8::At("Expected double-quoted property name"),
                        key_start,
                    );
                    self.pos += 1;
                    break;
                }
                Some(b'\'') => {
                    self.error_v8(
                        SyntaxErrorKind::SingleQuotedString,
                        key_start..key_start + 1,
                        "property names must use double quotes".into(),
                        V8::At(if after_comma.is_some() {
                            "Expected double-quoted property name"
                        } else {
                            "Expected property name or '}'"
                        }),
                    );
                    Some(self.single_quoted())
                }
                None => {
                    self.error_v8_at(
                        SyntaxErrorKind::UnexpectedEnd,
                        start..start + 1,
                        "this object is never closed".into(),
                        V8::At(if after_comma.is_some() {
                            "Expected double-quoted property name"
                        } else {
                            "Expected property name or '}'"
                        }),
                        key_start,
                    );
                    break;
                }
                Some(c) if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => {
                    let end = self.word_end(key_start);
                    self.error_v8(
                        SyntaxErrorKind::PropertyNameExpected,
                        key_start..end,
                        "property names must be double-quoted strings".into(),
                        V8::At(if after_comma.is_some() {
                            "Expected double-quoted property name"
                        } else {
                            "Expected property name or '}'"
                        }),
                    );
                    self.pos = end;
                    Some(self.src[key_start..end].to_string())
                }
                Some(_) => {
                    let end = next_char_boundary(self.src, key_start);
                    self.error_v8(
                        SyntaxErrorKind::PropertyNameExpected,
                        key_start..end,
                        "a double-quoted property name is expected here".into(),
                        V8::At(if after_comma.is_some() {
                            "Expected double-quoted property name"
                        } else {
                            "Expected property name or '}'"
                        }),
                    );
                    // Resynchronise: skip to the next `,` or `}` at this level.
                    if !self.resync_in_object() {
                        break;
                    }
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        break;
                    }
                    self.pos += 1; // the comma
                    after_comma = Some(self.pos - 1);
                    continue;
                }
            };
            let key = key.unwrap_or_default();
            let key_range = self.orig(key_start..self.pos);
            self.skip_ws();
            if self.peek() == Some(b':') {
                self.pos += 1;
            } else {
                let at = self.pos;
                self.error_v8(
                    SyntaxErrorKind::MissingColon,
                    at..next_char_boundary(self.src, at),
                    "`:` expected after the property name".into(),
                    V8::At("Expected ':' after property name"),
                );
                if matches!(self.peek(), None | Some(b'}' | b',')) {
                    // No value at all.
                    let value = Node {
                        range: self.orig(at..at),
                        value: Value::Invalid,
                    };
                    members.push(Member {
                        key,
                        key_range,
                        value,
                    });
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        break;
                    }
                    if self.peek().is_none() {
                        break;
                    }
                    self.pos += 1;
                    after_comma = Some(self.pos - 1);
                    continue;
                }
            }
            let value = self.value(depth + 1).unwrap_or(Node {
                range: self.orig(self.pos..self.pos),
                value: Value::Invalid,
            });
            members.push(Member {
                key,
                key_range,
                value,
            });
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    after_comma = Some(self.pos);
                    self.pos += 1;
                }
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(b'"') => {
                    let at = self.pos;
                    self.error_v8(
                        SyntaxErrorKind::MissingComma,
                        at..at + 1,
                        "`,` expected between properties".into(),
                        V8::At("Expected ',' or '}' after property value"),
                    );
                    after_comma = None;
                }
                None => {
                    let at = self.pos;
                    self.error_v8_at(
                        SyntaxErrorKind::UnexpectedEnd,
                        start..start + 1,
                        "this object is never closed".into(),
                        V8::At("Expected ',' or '}' after property value"),
                        at,
                    );
                    break;
                }
                Some(_) => {
                    let at = self.pos;
                    self.error_v8(
                        SyntaxErrorKind::UnexpectedToken,
                        at..next_char_boundary(self.src, at),
                        "`,` or `}` expected after a property value".into(),
                        V8::At("Expected ',' or '}' after property value"),
                    );
                    if !self.resync_in_object() {
                        break;
                    }
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        break;
                    }
                    after_comma = Some(self.pos);
                    self.pos += 1;
                }
            }
        }
        self.node(start, Value::Object(members))
    }

    /// Skips to the next `,` or `}` of the current object (not consuming
    /// it), stepping over nested strings and brackets. False at end of input.
    fn resync_in_object(&mut self) -> bool {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'"' => {
                    let saved = self.errors.len();
                    self.string();
                    self.errors.truncate(saved.max(1).min(self.errors.len()));
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth > 0 => depth -= 1,
                b'}' | b',' if depth == 0 => return true,
                _ => {}
            }
            self.pos += 1;
        }
        false
    }

    /// Skips a nested `{…}`/`[…]` that is too deep to analyse.
    fn skip_nested(&mut self) -> usize {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'"' => {
                    let saved = self.errors.len();
                    self.string();
                    self.errors.truncate(saved);
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.pos += 1;
                        return self.pos;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        self.pos
    }

    fn array(&mut self, depth: usize) -> Node {
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return self.node(start, Value::Array(items));
        }
        loop {
            self.skip_ws();
            if self.peek() == Some(b']') && !items.is_empty() {
                // `[1,]`: V8 reports the `]` as an unexpected token.
                let at = self.pos;
                let comma = self.src[..at].rfind(',').unwrap_or(at);
                self.error_v8_at(
                    SyntaxErrorKind::TrailingComma,
                    comma..comma + 1,
                    "trailing comma before `]`".into(),
                    V8::Token,
                    at,
                );
                self.pos += 1;
                break;
            }
            let before = self.pos;
            match self.value(depth + 1) {
                Some(v) => items.push(v),
                None => break,
            }
            if self.pos == before {
                // A structural character we cannot use: skip it.
                self.pos = next_char_boundary(self.src, self.pos);
            }
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                None => {
                    let at = self.pos;
                    self.error_v8_at(
                        SyntaxErrorKind::UnexpectedEnd,
                        start..start + 1,
                        "this array is never closed".into(),
                        V8::At("Expected ',' or ']' after array element"),
                        at,
                    );
                    break;
                }
                Some(b'}') => {
                    let at = self.pos;
                    self.error_v8(
                        SyntaxErrorKind::UnexpectedToken,
                        at..at + 1,
                        "`]` expected to close the array".into(),
                        V8::At("Expected ',' or ']' after array element"),
                    );
                    break;
                }
                Some(_) => {
                    let at = self.pos;
                    self.error_v8(
                        SyntaxErrorKind::MissingComma,
                        at..next_char_boundary(self.src, at),
                        "`,` expected between array elements".into(),
                        V8::At("Expected ',' or ']' after array element"),
                    );
                }
            }
        }
        self.node(start, Value::Array(items))
    }
}

fn next_char_boundary(s: &str, at: usize) -> usize {
    let mut i = (at + 1).min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// V8's 1-based line and column of the end of `before`: `\r\n`, `\r` and
/// `\n` each end a line; the column counts UTF-16 units.
fn v8_line_col(before: &str) -> (usize, usize) {
    let b = before.as_bytes();
    let mut line = 1;
    let mut line_start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\r' => {
                if b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                line += 1;
                line_start = i + 1;
            }
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    (line, crate::text::utf16_len(&before[line_start..]) + 1)
}

/// V8's "Unexpected token" message with its source context: the whole
/// source when it is at most 20 UTF-16 units long, else ten units either side.
fn v8_unexpected_token(src: &str, at: usize) -> String {
    let units: Vec<u16> = src.encode_utf16().collect();
    let ch = src[at..].chars().next().unwrap_or('\u{FFFD}');
    let len = units.len();
    if matches!(src, "undefined" | "NaN" | "Infinity" | "[object Object]") {
        return format!("\"{src}\" is not valid JSON");
    }
    if len <= 20 {
        return format!("Unexpected token '{ch}', \"{src}\" is not valid JSON");
    }
    let pos = crate::text::utf16_len(&src[..at]);
    let (from, to, pre, post) = if pos < 10 {
        (0, pos + 10, "", "...")
    } else if pos < len - 10 {
        (pos - 10, pos + 10, "...", "...")
    } else {
        (pos - 10, len, "...", "")
    };
    let ctx = String::from_utf16_lossy(&units[from..to.min(len)]);
    format!("Unexpected token '{ch}', {pre}\"{ctx}\"{post} is not valid JSON")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::strip::strip_json_comments;

    fn first(src: &str) -> String {
        let s = strip_json_comments(src);
        let out = parse(&s);
        out.errors
            .first()
            .and_then(|e| e.runtime_message.clone())
            .unwrap_or_else(|| "ok".into())
    }

    /// Observed from the runtime's `JSON.parse` (Node 22).
    #[test]
    fn v8_messages_match_the_runtime() {
        let cases: &[(&str, &str)] = &[
            (
                "{\"a\":1}{",
                "Unexpected non-whitespace character after JSON at position 7 (line 1 column 8)",
            ),
            (
                "{\"a\":1,}",
                "Expected double-quoted property name in JSON at position 7 (line 1 column 8)",
            ),
            (
                "{\"a\" 1}",
                "Expected ':' after property name in JSON at position 5 (line 1 column 6)",
            ),
            (
                "{\"a\":1 \"b\":2}",
                "Expected ',' or '}' after property value in JSON at position 7 (line 1 column 8)",
            ),
            (
                "{'a':1}",
                "Expected property name or '}' in JSON at position 1 (line 1 column 2)",
            ),
            (
                "{\"a\":NaN}",
                "Unexpected token 'N', \"{\"a\":NaN}\" is not valid JSON",
            ),
            (
                "{\"a\":tru}",
                "Unexpected token '}', \"{\"a\":tru}\" is not valid JSON",
            ),
            (
                "{\"a\":\"\u{1}\"}",
                "Bad control character in string literal in JSON at position 6 (line 1 column 7)",
            ),
            ("  ", "Unexpected end of JSON input"),
            (
                "{\"a\":01}",
                "Unexpected number in JSON at position 6 (line 1 column 7)",
            ),
            (
                "{\"a\":-}",
                "No number after minus sign in JSON at position 6 (line 1 column 7)",
            ),
            (
                "{\"a\":1.}",
                "Unterminated fractional number in JSON at position 7 (line 1 column 8)",
            ),
            (
                "{\"a\":\"\\x\"}",
                "Bad escaped character in JSON at position 7 (line 1 column 8)",
            ),
            ("[1,]", "Unexpected token ']', \"[1,]\" is not valid JSON"),
            (
                "{,}",
                "Expected property name or '}' in JSON at position 1 (line 1 column 2)",
            ),
            (
                "{\"a\":[1 2]}",
                "Expected ',' or ']' after array element in JSON at position 8 (line 1 column 9)",
            ),
            (
                "{\"a\":\"abc",
                "Unterminated string in JSON at position 9 (line 1 column 10)",
            ),
            (
                "{\r\n\"a\":1,\r\n}",
                "Expected double-quoted property name in JSON at position 11 (line 3 column 1)",
            ),
            (
                "{\r\"a\":1,\r}",
                "Expected double-quoted property name in JSON at position 9 (line 3 column 1)",
            ),
            (
                "{\n\"é😀\":1,\n}",
                "Expected double-quoted property name in JSON at position 11 (line 3 column 1)",
            ),
            ("undefined", "\"undefined\" is not valid JSON"),
            (
                "{\"a\":1,\"b\":[1,2,{\"c\":Infinity}]}",
                "Unexpected token 'I', ...\"[1,2,{\"c\":Infinity}]\"... is not valid JSON",
            ),
            (
                "{\"a\":1e}",
                "Exponent part is missing a number in JSON at position 7 (line 1 column 8)",
            ),
            (
                "{\"a\":1e+}",
                "Exponent part is missing a number in JSON at position 8 (line 1 column 9)",
            ),
            (
                "{\"a\":\"\\u12\"}",
                "Bad Unicode escape in JSON at position 10 (line 1 column 11)",
            ),
            (
                "{\"a\":-01}",
                "Unexpected number in JSON at position 7 (line 1 column 8)",
            ),
            (
                "{\"a\":.5}",
                "Unexpected token '.', \"{\"a\":.5}\" is not valid JSON",
            ),
            (
                "{",
                "Expected property name or '}' in JSON at position 1 (line 1 column 2)",
            ),
            (
                "{\"a\":1",
                "Expected ',' or '}' after property value in JSON at position 6 (line 1 column 7)",
            ),
            (
                "{\"a\"",
                "Expected ':' after property name in JSON at position 4 (line 1 column 5)",
            ),
            (
                "[1",
                "Expected ',' or ']' after array element in JSON at position 2 (line 1 column 3)",
            ),
            (
                "{\"a\":1,",
                "Expected double-quoted property name in JSON at position 7 (line 1 column 8)",
            ),
            ("{\"a\":", "Unexpected end of JSON input"),
            ("{\"a\":tru", "Unexpected end of JSON input"),
            ("[", "Unexpected end of JSON input"),
            (
                "\"abc",
                "Unterminated string in JSON at position 4 (line 1 column 5)",
            ),
            (
                "-",
                "No number after minus sign in JSON at position 1 (line 1 column 2)",
            ),
            ("x", "Unexpected token 'x', \"x\" is not valid JSON"),
            (
                "{\"aaaaaaaaaaaaa\":x12}",
                "Unexpected token 'x', ...\"aaaaaaaa\":x12}\" is not valid JSON",
            ),
            (
                "{\"a\":1, \"b\": x2345678901}",
                "Unexpected token 'x', ...\"\":1, \"b\": x234567890\"... is not valid JSON",
            ),
            (
                "{\"a\" \"b\"}",
                "Expected ':' after property name in JSON at position 5 (line 1 column 6)",
            ),
            (
                "{\"a\":1}  \"x\"",
                "Unexpected non-whitespace character after JSON at position 9 (line 1 column 10)",
            ),
            (
                "\u{feff}",
                "Unexpected token '\u{feff}', \"\u{feff}\" is not valid JSON",
            ),
            (
                "{\"a\":\"😀\" x}",
                "Expected ',' or '}' after property value in JSON at position 10 (line 1 column 11)",
            ),
            (
                "{\"a\":1}\r\n\r\nx",
                "Unexpected non-whitespace character after JSON at position 11 (line 3 column 1)",
            ),
            (
                "{\"a\":/* c */ 1, \"b\": \"//x\", 'c//': 2}",
                "Expected double-quoted property name in JSON at position 21 (line 1 column 22)",
            ),
            (
                "\u{feff}{\"permission\": {\"bash\": {\"git *\": \"allow\"}}}",
                "Unexpected token '\u{feff}', \"\u{feff}{\"permiss\"... is not valid JSON",
            ),
            ("// nothing here yet\n", "Unexpected end of JSON input"),
        ];
        for (src, want) in cases {
            assert_eq!(&first(src), want, "source {src:?}");
        }
    }

    #[test]
    fn valid_json_has_no_errors_and_keeps_duplicates() {
        let s = strip_json_comments(
            "{\"a\": [1, -2.5e3, true, null], \"a\": \"\\u00e9\\ud83d\\ude00\"}",
        );
        let out = parse(&s);
        assert!(out.errors.is_empty());
        let root = out.root.unwrap();
        let m = root.value.as_object().unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[1].value.value, Value::String("é😀".into()));
    }

    #[test]
    fn recovery_reports_every_trailing_comma() {
        let src = "{\"permission\": {\"bash\": {\"git *\": \"allow\",},\n \"read\": \"allow\",}}";
        let out = parse(&strip_json_comments(src));
        let kinds: Vec<_> = out.errors.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            vec![
                SyntaxErrorKind::TrailingComma,
                SyntaxErrorKind::TrailingComma
            ]
        );
        assert_eq!(&src[out.errors[1].range.clone()], ",");
        // The tree is still there for the other diagnostics.
        assert!(out.root.is_some());
    }

    #[test]
    fn error_ranges_cover_whole_characters() {
        // Found by the document fuzzer: a `\u` escape cut by a byte that is
        // not UTF-8 (read as U+FFFD), and other non-ASCII bytes where one
        // ASCII byte was expected.
        for src in [
            "{\"\\ud8\u{fffd}0\": 1}",
            "{\"a\": \u{e9}}",
            "{\u{1f600}: 1}",
            "[1 \u{200d}]",
            "{\"a\": 1 \u{fffd}}",
        ] {
            let out = parse(&strip_json_comments(src));
            assert!(!out.errors.is_empty(), "{src}");
            for e in &out.errors {
                assert!(
                    src.is_char_boundary(e.range.start) && src.is_char_boundary(e.range.end),
                    "{src:?}: {:?}",
                    e.range
                );
            }
        }
    }

    #[test]
    fn hostile_inputs_terminate() {
        let deep = "[".repeat(100_000);
        let out = parse(&strip_json_comments(&deep));
        assert!(!out.errors.is_empty());
        for src in [
            "{]",
            "{\"a\"::}",
            "[,,,]",
            "{\"a\":1,,}",
            "}}}}",
            "{\"a\" 1 2 3}",
            "'",
            "{'",
            "[\"\\u",
        ] {
            let out = parse(&strip_json_comments(src));
            assert!(!out.errors.is_empty(), "{src}");
        }
    }
}

/// `JSON.parse` where it is laxer than serde_json: a `\uD800`–`\uDFFF`
/// escape without its pair (half an emoji cut in a saved history) is read,
/// as U+FFFD, where serde_json refuses the whole text.
pub fn from_str_like_node(text: &str) -> Option<serde_json::Value> {
    match serde_json::from_str(text) {
        Ok(v) => Some(v),
        Err(_) if text.contains("\\u") => {
            serde_json::from_str(&lone_surrogates_replaced(text)).ok()
        }
        Err(_) => None,
    }
}

/// Every `\uXXXX` escape of a lone surrogate replaced by `\uFFFD` (escapes
/// read as JSON reads them: `\\u` is a backslash, then `u`).
fn lone_surrogates_replaced(text: &str) -> String {
    let b = text.as_bytes();
    let hex4 = |i: usize| -> Option<u32> {
        let s = text.get(i..i + 4)?;
        u32::from_str_radix(s, 16)
            .ok()
            .filter(|_| s.bytes().all(|c| c.is_ascii_hexdigit()))
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b[i + 1] != b'u' {
            i += 2;
            continue;
        }
        let Some(v) = hex4(i + 2) else {
            i += 2;
            continue;
        };
        let high = (0xD800..0xDC00).contains(&v);
        let low = (0xDC00..0xE000).contains(&v);
        let paired_low = high
            && b.get(i + 6) == Some(&b'\\')
            && b.get(i + 7) == Some(&b'u')
            && hex4(i + 8).is_some_and(|w| (0xDC00..0xE000).contains(&w));
        if paired_low {
            i += 12;
        } else if high || low {
            out.push_str(&text[last..i]);
            out.push_str("\\uFFFD");
            i += 6;
            last = i;
        } else {
            i += 6;
        }
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod node_parse_tests {
    use super::from_str_like_node;

    #[test]
    fn lone_surrogates_are_read_as_node_reads_them() {
        let v = from_str_like_node(
            r#"{"h": "a\ud83d", "p": {"t": true}, "ok": "\ud83d\ude00", "esc": "\\ud83d"}"#,
        )
        .unwrap();
        assert_eq!(v["p"]["t"], true);
        assert_eq!(v["h"], "a\u{fffd}");
        assert_eq!(v["ok"], "😀");
        assert_eq!(v["esc"], "\\ud83d");
        assert!(from_str_like_node("{").is_none());
    }
}
