//! Positions: byte offsets <-> (line, column) in UTF-16 or UTF-8 code units.
//!
//! LSP lines end at `\n`, `\r\n` or a lone `\r`. A [`LineIndex`] is built once
//! per document version (O(n)) and answers conversions in O(log n) plus at
//! most one checkpoint step: a text that is not all ASCII gets, on its
//! first UTF-16 or character query, a running count every
//! [`CHECKPOINT`] bytes, so a 100,000-rule config on one line converts
//! each position in constant time instead of walking the line.

use std::ops::Range;

/// Which unit a column counts, as negotiated with the client (`positionEncoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PositionEncoding {
    /// The LSP default and the only mandatory one.
    #[default]
    Utf16,
    Utf8,
}

/// A zero-based line and column, the column counted in the document's [`PositionEncoding`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// Bytes between two running counts of UTF-16 units and characters.
const CHECKPOINT: usize = 256;

/// Line starts of a text, for fast offset <-> position conversion.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset of the start of every line; always starts with 0.
    line_starts: Vec<usize>,
    len: usize,
    /// Every byte is ASCII: a column in any unit is a byte difference.
    ascii: bool,
    /// UTF-16 units and characters before the char boundary at or before
    /// each multiple of [`CHECKPOINT`] (built on first need).
    counts: std::sync::OnceLock<Vec<(usize, usize)>>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        let mut i = 0;
        while let Some(p) = memchr::memchr2(b'\n', b'\r', &bytes[i..]) {
            i += p;
            if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            i += 1;
            line_starts.push(i);
        }
        LineIndex {
            line_starts,
            len: text.len(),
            ascii: text.is_ascii(),
            counts: std::sync::OnceLock::new(),
        }
    }

    fn boundary_at_or_before(text: &str, mut at: usize) -> usize {
        at = at.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    fn checkpoints(&self, text: &str) -> &[(usize, usize)] {
        self.counts.get_or_init(|| {
            let mut out = Vec::with_capacity(text.len() / CHECKPOINT + 1);
            let (mut u16s, mut chars, mut prev) = (0usize, 0usize, 0usize);
            for k in 0..=text.len() / CHECKPOINT {
                let b = Self::boundary_at_or_before(text, k * CHECKPOINT);
                for ch in text[prev..b].chars() {
                    u16s += ch.len_utf16();
                    chars += 1;
                }
                prev = b;
                out.push((u16s, chars));
            }
            out
        })
    }

    /// UTF-16 units and characters in `text[..offset]` (`offset` on a char
    /// boundary).
    fn counts_before(&self, text: &str, offset: usize) -> (usize, usize) {
        if self.ascii {
            return (offset, offset);
        }
        let k = offset / CHECKPOINT;
        let (mut u16s, mut chars) = self.checkpoints(text)[k];
        let from = Self::boundary_at_or_before(text, k * CHECKPOINT);
        for ch in text[from..offset].chars() {
            u16s += ch.len_utf16();
            chars += 1;
        }
        (u16s, chars)
    }

    /// Characters in `text[start..end]` (both on char boundaries).
    pub fn chars_between(&self, text: &str, start: usize, end: usize) -> usize {
        self.counts_before(text, end).1 - self.counts_before(text, start).1
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The byte range of line `line` without its terminator.
    pub fn line_range(&self, text: &str, line: usize) -> Range<usize> {
        let start = self.line_starts[line.min(self.line_starts.len() - 1)];
        let mut end = self.line_starts.get(line + 1).copied().unwrap_or(self.len);
        let bytes = text.as_bytes();
        while end > start && matches!(bytes[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        start..end
    }

    /// Zero-based line of a byte offset (offsets past the end clamp to the end).
    pub fn line_of(&self, offset: usize) -> usize {
        let offset = offset.min(self.len);
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    /// Byte offset -> position. An offset inside a multi-byte character is
    /// moved back to the character's start.
    pub fn position(&self, text: &str, offset: usize, enc: PositionEncoding) -> LineCol {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_of(offset);
        let start = self.line_starts[line];
        let col = match enc {
            PositionEncoding::Utf8 => offset - start,
            PositionEncoding::Utf16 => {
                self.counts_before(text, offset).0 - self.counts_before(text, start).0
            }
        };
        LineCol {
            line: line as u32,
            col: col as u32,
        }
    }

    /// Position -> byte offset. A line past the end maps to the end of the
    /// text; a column past the end of its line maps to the line's end; a
    /// column inside a character (half a surrogate pair, the middle of a
    /// UTF-8 sequence) maps to that character's start.
    pub fn offset(&self, text: &str, pos: LineCol, enc: PositionEncoding) -> usize {
        let line = pos.line as usize;
        if line >= self.line_starts.len() {
            return text.len();
        }
        let range = self.line_range(text, line);
        let want = pos.col as usize;
        let mut from = range.start;
        let mut units = 0usize;
        if enc == PositionEncoding::Utf8 || self.ascii {
            // A column is a byte count.
            let at = Self::boundary_at_or_before(text, (range.start + want).min(range.end));
            return at;
        }
        // Jump to the last checkpoint inside the line at or before the
        // column, then walk at most one checkpoint step.
        let base = self.counts_before(text, range.start).0;
        let cps = self.checkpoints(text);
        let first = range.start / CHECKPOINT + 1;
        let last = range.end / CHECKPOINT;
        if first <= last {
            let slice = &cps[first..=last];
            let n = slice.partition_point(|c| c.0 - base <= want);
            if n > 0 {
                let k = first + n - 1;
                from = Self::boundary_at_or_before(text, k * CHECKPOINT).max(range.start);
                units = self.counts_before(text, from).0 - base;
            }
        }
        let line_text = &text[from..range.end];
        let range = from..range.end;
        for (i, ch) in line_text.char_indices() {
            let w = match enc {
                PositionEncoding::Utf8 => ch.len_utf8(),
                PositionEncoding::Utf16 => ch.len_utf16(),
            };
            if units + w > want {
                return range.start + i;
            }
            units += w;
        }
        range.end
    }
}

/// Number of UTF-16 code units in `s`.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// 1-based line and character column, as editors and compilers print them.
/// Levenshtein distance over characters, for did-you-mean suggestions:
/// `usize::MAX` when the lengths differ by more than 3 or either is longer
/// than 64 characters (no such pair is a suggestion; long input stays cheap).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(65).collect();
    let b: Vec<char> = b.chars().take(65).collect();
    if a.len().abs_diff(b.len()) > 3 || a.len() > 64 || b.len() > 64 {
        return usize::MAX;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Where the parts of a text went when some of its spans were replaced:
/// each replacement's range before and after, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EditMap {
    moved: Vec<(Range<usize>, Range<usize>)>,
}

impl EditMap {
    /// No span was replaced.
    pub fn is_empty(&self) -> bool {
        self.moved.is_empty()
    }

    /// How many spans were replaced.
    pub fn len(&self) -> usize {
        self.moved.len()
    }

    /// Offset `at` of the edited text in the text before; `end` picks the
    /// end of a replacement `at` falls inside (else its start).
    pub fn original(&self, at: usize, end: bool) -> usize {
        // A start belongs to what begins at it; an end to what ends at it.
        let i = self
            .moved
            .partition_point(|(_, new)| new.start < at || (!end && new.start == at));
        if i == 0 {
            return at;
        }
        let (old, new) = &self.moved[i - 1];
        if at < new.end || (end && at == new.end) {
            return if end { old.end } else { old.start };
        }
        at - new.end + old.end
    }

    /// A range of the edited text in the text before (a range inside a
    /// replacement covers what it replaced).
    pub fn range(&self, r: &Range<usize>) -> Range<usize> {
        let start = self.original(r.start, false);
        start..self.original(r.end, true).max(start)
    }

    /// The same map for both texts placed `by` bytes further into larger
    /// ones.
    pub fn shifted(mut self, by: usize) -> EditMap {
        for (old, new) in &mut self.moved {
            *old = old.start + by..old.end + by;
            *new = new.start + by..new.end + by;
        }
        self
    }
}

/// `text` with each of `edits` (ranges that do not overlap, in any order)
/// replaced, and where everything went.
pub fn replace_spans(text: &str, edits: &[(Range<usize>, String)]) -> (String, EditMap) {
    let mut sorted: Vec<&(Range<usize>, String)> = edits.iter().collect();
    sorted.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(text.len());
    let mut moved = Vec::with_capacity(sorted.len());
    let mut at = 0;
    for (r, v) in sorted {
        out.push_str(&text[at..r.start]);
        let start = out.len();
        out.push_str(v);
        moved.push((r.clone(), start..out.len()));
        at = r.end;
    }
    out.push_str(&text[at..]);
    (out, EditMap { moved })
}

/// A message as people read it: each `` `code` `` span longer than
/// [`SPAN_MAX`] characters clipped to its start and end with its length
/// (a 40 KB tool name is not echoed whole), and an empty span written as
/// the empty string it is (`""`, not ``` `` ```).
pub fn clip_spans(message: &str) -> std::borrow::Cow<'_, str> {
    // Built only when a span changes (most messages stay as they are).
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut at = 0;
    while let Some(rel) = memchr::memchr(b'`', &message.as_bytes()[at..]) {
        let open = at + rel;
        let run = message[open..].len() - message[open..].trim_start_matches('`').len();
        let after = open + run;
        let fence = &message[open..after];
        let (replacement, next) = if run == 2 {
            // An empty span: the empty string it stands for.
            (Some("`\"\"`".to_string()), after)
        } else {
            let close = if run == 1 {
                memchr::memchr(b'`', &message.as_bytes()[after..])
            } else {
                message[after..].find(fence)
            };
            match close {
                // (A run of backticks, a fence, is left as written.)
                None => (None, after),
                Some(close) => {
                    let span = &message[after..after + close];
                    // Characters are counted only where there can be too
                    // many (a span has no more characters than bytes).
                    let clipped = (run == 1 && span.len() > SPAN_MAX)
                        .then(|| span.chars().count())
                        .filter(|&n| n > SPAN_MAX)
                        .map(|n| {
                            let (head, tail) = ends(span, n);
                            format!("`{head}…{tail}` ({n} characters)")
                        });
                    (clipped, after + close + run)
                }
            }
        };
        if let Some(r) = replacement {
            let o = out.get_or_insert_with(|| String::with_capacity(message.len().min(4096)));
            o.push_str(&message[copied..open]);
            o.push_str(&r);
            copied = next;
        }
        at = next;
    }
    match out {
        None => std::borrow::Cow::Borrowed(message),
        Some(mut o) => {
            o.push_str(&message[copied..]);
            std::borrow::Cow::Owned(o)
        }
    }
}

/// The longest code span a message shows whole.
pub const SPAN_MAX: usize = 300;

/// What a clipped text of `n` characters keeps: its first 120 and last 40.
fn ends(text: &str, n: usize) -> (&str, &str) {
    let at = |k: usize| text.char_indices().nth(k).map_or(text.len(), |(i, _)| i);
    (&text[..at(120)], &text[at(n - 40)..])
}

/// A line as people read it: each code span clipped as by [`clip_spans`],
/// then each word (a run without white space) longer than [`SPAN_MAX`]
/// characters clipped the same way — a 40 KB tool name or command without
/// spaces in a line of prose. Machine output (JSON) keeps every value
/// whole.
pub fn clip_line(line: &str) -> std::borrow::Cow<'_, str> {
    let spans = clip_spans(line);
    let long = |w: &str| w.len() > SPAN_MAX && w.chars().count() > SPAN_MAX;
    if !spans.split(char::is_whitespace).any(long) {
        return spans;
    }
    let mut out = String::with_capacity(spans.len().min(4096));
    let mut rest: &str = &spans;
    while !rest.is_empty() {
        let space = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..space]);
        rest = &rest[space..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        if long(word) {
            let n = word.chars().count();
            let (head, tail) = ends(word, n);
            out.push_str(&format!("{head}…{tail} ({n} characters)"));
        } else {
            out.push_str(word);
        }
        rest = &rest[end..];
    }
    std::borrow::Cow::Owned(out)
}

pub fn line_col_1(index: &LineIndex, text: &str, offset: usize) -> (usize, usize) {
    let p = index.position(text, offset, PositionEncoding::Utf8);
    let start = index.line_range(text, p.line as usize).start;
    let end = (start + p.col as usize).min(text.len());
    (
        p.line as usize + 1,
        index.chars_between(text, start, end) + 1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_clipped_word_by_word() {
        assert_eq!(clip_line("ask  bash `ls -la`"), "ask  bash `ls -la`");
        let tool = "x".repeat(40_000);
        let line = format!("ask   {tool}\n  agent sees: Using tool '{tool}'");
        let clipped = clip_line(&line);
        assert!(clipped.len() < 500, "{clipped}");
        assert!(clipped.starts_with("ask   xxx"));
        assert!(clipped.contains("(40000 characters)\n  agent sees: Using tool 'xxx"));
        assert!(clipped.ends_with("' (40002 characters)"));
        let command = format!("bash `{}`", "a|".repeat(8_000));
        assert!(clip_line(&command).contains("(16000 characters)"));
    }

    #[test]
    fn replaced_spans_map_back() {
        let (t, map) = replace_spans(
            "a {x} b {y}",
            &[(8..11, String::new()), (2..5, "XYZW".into())],
        );
        assert_eq!(t, "a XYZW b ");
        assert_eq!(map.range(&(2..6)), 2..5);
        assert_eq!(map.range(&(7..8)), 6..7);
        // (A span deleted at the end is not part of a range ending there.)
        assert_eq!(map.range(&(0..9)), 0..8);
        assert!(replace_spans("x", &[]).1.is_empty());
    }

    #[test]
    fn long_and_empty_spans_are_shown_readably() {
        let long = "y".repeat(40_000);
        let message = format!("no tool `{long}` here");
        let m = clip_spans(&message);
        assert!(m.len() < 200 && m.contains("(40000 characters)"), "{m}");
        assert_eq!(clip_spans("agent `` has"), "agent `\"\"` has");
        assert_eq!(clip_spans("a `b` and ```c``` `d"), "a `b` and ```c``` `d");
        assert_eq!(clip_spans("plain"), "plain");
    }

    #[test]
    fn crlf_and_lone_cr_are_line_breaks() {
        let text = "a\r\nb\rc\nd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line_count(), 4);
        assert_eq!(
            idx.position(text, 3, PositionEncoding::Utf16),
            LineCol { line: 1, col: 0 }
        );
        assert_eq!(
            idx.position(text, 5, PositionEncoding::Utf16),
            LineCol { line: 2, col: 0 }
        );
        assert_eq!(idx.line_range(text, 0), 0..1);
        // The middle of a CRLF is still on line 0.
        assert_eq!(
            idx.position(text, 2, PositionEncoding::Utf16),
            LineCol { line: 0, col: 2 }
        );
    }

    #[test]
    fn astral_characters_count_two_utf16_units() {
        let text = "x😀y\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, 5, PositionEncoding::Utf16).col, 3);
        assert_eq!(idx.position(text, 5, PositionEncoding::Utf8).col, 5);
        assert_eq!(
            idx.offset(text, LineCol { line: 0, col: 3 }, PositionEncoding::Utf16),
            5
        );
        // Half a surrogate pair lands on the character's start.
        assert_eq!(
            idx.offset(text, LineCol { line: 0, col: 2 }, PositionEncoding::Utf16),
            1
        );
        // Inside a UTF-8 sequence -> character start; offsets inside a char move back.
        assert_eq!(
            idx.offset(text, LineCol { line: 0, col: 3 }, PositionEncoding::Utf8),
            1
        );
        assert_eq!(idx.position(text, 3, PositionEncoding::Utf16).col, 1);
    }

    #[test]
    fn positions_past_the_end_clamp() {
        let text = "ab\ncd";
        let idx = LineIndex::new(text);
        assert_eq!(
            idx.offset(text, LineCol { line: 0, col: 99 }, PositionEncoding::Utf16),
            2
        );
        assert_eq!(
            idx.offset(text, LineCol { line: 9, col: 0 }, PositionEncoding::Utf16),
            5
        );
        assert_eq!(
            idx.position(text, 99, PositionEncoding::Utf16),
            LineCol { line: 1, col: 2 }
        );
    }

    /// The checkpointed conversions equal a walk over the line, on long
    /// lines mixing one- to four-byte characters.
    #[test]
    fn checkpoints_agree_with_walking_the_line() {
        let mut text = String::new();
        for i in 0..3000 {
            text.push_str(["a", "é", "😀", "中", "\r\n", "bb"][(i * 7 + i / 13) % 6]);
            if i % 997 == 0 {
                text.push('\n');
            }
        }
        let idx = LineIndex::new(&text);
        for (off, _) in text.char_indices() {
            let line = idx.line_of(off);
            let start = idx.line_range(&text, line).start;
            let want16 = text[start..off.max(start)].encode_utf16().count();
            let p = idx.position(&text, off, PositionEncoding::Utf16);
            assert_eq!(p.col as usize, want16, "offset {off}");
            if off <= idx.line_range(&text, line).end {
                assert_eq!(
                    idx.offset(&text, p, PositionEncoding::Utf16),
                    off,
                    "offset {off}"
                );
            }
            let (_, c) = line_col_1(&idx, &text, off);
            assert_eq!(c, text[start..off.max(start)].chars().count() + 1);
        }
    }

    #[test]
    fn roundtrip_every_offset() {
        let text = "{\r\n  \"é😀\": 1,\r  x\n}";
        let idx = LineIndex::new(text);
        for (off, _) in text.char_indices() {
            for enc in [PositionEncoding::Utf16, PositionEncoding::Utf8] {
                let p = idx.position(text, off, enc);
                let back = idx.offset(text, p, enc);
                // '\n' of a CRLF maps to the end of the line, which is the '\r'.
                if text.as_bytes()[off] == b'\n' && off > 0 && text.as_bytes()[off - 1] == b'\r' {
                    continue;
                }
                assert_eq!(back, off, "offset {off} {enc:?}");
            }
        }
    }
}
