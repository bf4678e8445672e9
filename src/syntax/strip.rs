//! The runtime's JSONC comment stripper, reproduced exactly
//! (pi-permission-system `stripJsonComments`, spec §3.1), plus a map from
//! offsets in the stripped text back to the original text.
//!
//! One left-to-right scan: `//` drops up to (not including) the next `\n`,
//! or to the end of the file; `/*` drops through the next `*/`, or — when
//! unterminated — everything to the end of the file; a `"` **or `'`** copies
//! a string literal verbatim (backslash escapes honoured) up to the same
//! quote or the end of the file. Everything else is copied. All markers are
//! ASCII, so scanning UTF-8 bytes is equivalent to the runtime's UTF-16 scan.

use std::ops::Range;

/// A comment the runtime drops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// Byte range in the original text (for `//`, without the newline).
    pub range: Range<usize>,
    pub kind: CommentKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentKind {
    Line,
    Block,
    /// A `/*` with no `*/`: the runtime drops everything to the end of file.
    UnterminatedBlock,
}

/// The text the runtime hands to `JSON.parse`, and where it came from.
#[derive(Debug, Clone)]
pub struct Stripped {
    pub text: String,
    pub comments: Vec<Comment>,
    /// `(stripped offset, original offset)` at the start of every copied run.
    runs: Vec<(usize, usize)>,
}

impl Stripped {
    /// Text for a strict parser that strips nothing: `text` starts at
    /// byte `base` of the original (after a byte order mark, say).
    pub fn verbatim(text: &str, base: usize) -> Stripped {
        Stripped {
            text: text.to_string(),
            comments: Vec::new(),
            runs: vec![(0, base)],
        }
    }

    /// Maps a byte offset in the stripped text to the original text.
    #[inline]
    pub fn to_original(&self, offset: usize) -> usize {
        if let [(s, o)] = self.runs[..] {
            return o + offset - s;
        }
        let i = match self.runs.binary_search_by(|(s, _)| s.cmp(&offset)) {
            Ok(i) => i,
            Err(0) => return offset,
            Err(i) => i - 1,
        };
        let (s, o) = self.runs[i];
        o + (offset - s)
    }

    /// Maps a stripped range; an empty range stays empty.
    pub fn range_to_original(&self, r: Range<usize>) -> Range<usize> {
        let start = self.to_original(r.start);
        if r.is_empty() {
            return start..start;
        }
        // The end maps through its last byte so a range never swallows a
        // comment that follows it.
        let end = self.to_original(r.end - 1) + 1;
        start..end.max(start)
    }
}

pub fn strip_json_comments(input: &str) -> Stripped {
    let bytes = input.as_bytes();
    let mut text = String::with_capacity(input.len());
    let mut comments = Vec::new();
    let mut runs = vec![(0usize, 0usize)];
    let mut copy_from = 0usize; // start of the pending copied run
    let mut i = 0usize;
    let flush = |text: &mut String, from: usize, to: usize| text.push_str(&input[from..to]);
    while i < bytes.len() {
        // Jump to the next byte that can start a comment or a string.
        match memchr::memchr3(b'/', b'"', b'\'', &bytes[i..]) {
            Some(p) => i += p,
            None => break,
        }
        let c = bytes[i];
        let next = bytes.get(i + 1).copied();
        if c == b'/' && next == Some(b'/') {
            flush(&mut text, copy_from, i);
            let end = memchr_newline(bytes, i);
            comments.push(Comment {
                range: i..end,
                kind: CommentKind::Line,
            });
            i = end;
            copy_from = end;
            runs.push((text.len(), end));
            continue;
        }
        if c == b'/' && next == Some(b'*') {
            flush(&mut text, copy_from, i);
            let (end, kind) = match find(bytes, i + 2, b"*/") {
                Some(close) => (close + 2, CommentKind::Block),
                None => (bytes.len(), CommentKind::UnterminatedBlock),
            };
            comments.push(Comment {
                range: i..end,
                kind,
            });
            i = end;
            copy_from = end;
            runs.push((text.len(), end));
            continue;
        }
        if c == b'"' || c == b'\'' {
            i = skip_string(bytes, i);
            continue;
        }
        i += 1;
    }
    flush(&mut text, copy_from, bytes.len());
    runs.dedup_by(|b, a| {
        a.0 == b.0 && {
            a.1 = b.1;
            true
        }
    });
    Stripped {
        text,
        comments,
        runs,
    }
}

/// The offset of the next `\n` at or after `from`, or the end.
fn memchr_newline(bytes: &[u8], from: usize) -> usize {
    memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |p| from + p)
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from >= bytes.len() {
        return None;
    }
    memchr::memmem::find(&bytes[from..], needle).map(|p| from + p)
}

/// Skips a string literal opened at `start`; returns the offset after it.
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        match memchr::memchr2(quote, b'\\', &bytes[i..]) {
            None => return bytes.len(),
            Some(p) => i += p,
        }
        if bytes[i] == quote {
            return i + 1;
        }
        // A backslash escapes the next byte, whatever it is.
        i += 2;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_comment_keeps_newline() {
        let s = strip_json_comments("{\"a\": 1 // x\n}");
        assert_eq!(s.text, "{\"a\": 1 \n}");
        assert_eq!(s.to_original(8), 12);
    }

    #[test]
    fn line_comment_at_eof_drops_the_rest() {
        let s = strip_json_comments("{}// end");
        assert_eq!(s.text, "{}");
    }

    #[test]
    fn unterminated_block_eats_the_rest() {
        let s = strip_json_comments("{\"permission\":{}}\n/* \"bash\": {}");
        assert_eq!(s.text, "{\"permission\":{}}\n");
        assert_eq!(s.comments[0].kind, CommentKind::UnterminatedBlock);
    }

    #[test]
    fn markers_inside_strings_are_kept_including_single_quotes() {
        let s = strip_json_comments("{\"u\": \"http://x\", 'a//b': '/*', \"e\\\"//\": 1}");
        assert_eq!(
            s.text,
            "{\"u\": \"http://x\", 'a//b': '/*', \"e\\\"//\": 1}"
        );
        assert!(s.comments.is_empty());
        // An apostrophe in a comment does not open a string.
        let s = strip_json_comments("// it's\n{}");
        assert_eq!(s.text, "\n{}");
    }

    #[test]
    fn unterminated_string_copies_to_eof() {
        let s = strip_json_comments("{\"a // b");
        assert_eq!(s.text, "{\"a // b");
    }

    #[test]
    fn offsets_map_across_block_comments() {
        let src = "{/*c*/\"a\":/*é*/1}";
        let s = strip_json_comments(src);
        assert_eq!(s.text, "{\"a\":1}");
        let one = s.text.find('1').unwrap();
        assert_eq!(&src[s.to_original(one)..s.to_original(one) + 1], "1");
        let a = s.text.find("\"a\"").unwrap();
        assert_eq!(s.range_to_original(a..a + 3), 6..9);
    }
}
