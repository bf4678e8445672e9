//! Byte offsets <-> LSP positions in the negotiated encoding.

use crate::text::{LineCol, LineIndex, PositionEncoding};
use std::ops::Range;
use tower_lsp_server::ls_types::{Position, Range as LspRange};

pub fn to_lsp_range(
    text: &str,
    index: &LineIndex,
    r: &Range<usize>,
    enc: PositionEncoding,
) -> LspRange {
    let s = index.position(text, r.start, enc);
    let e = index.position(text, r.end.max(r.start), enc);
    LspRange {
        start: Position::new(s.line, s.col),
        end: Position::new(e.line, e.col),
    }
}

pub fn to_offset(text: &str, index: &LineIndex, p: Position, enc: PositionEncoding) -> usize {
    index.offset(
        text,
        LineCol {
            line: p.line,
            col: p.character,
        },
        enc,
    )
}
