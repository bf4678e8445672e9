//! What hover and completion answer, as plain data.

use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    Key,
    Surface,
    State,
    Snippet,
    Value,
}

/// A completion.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub label: String,
    pub kind: ItemKind,
    pub detail: Option<String>,
    /// Text replacing `range`; with `snippet`, `$1`/`$0` placeholders.
    pub insert: String,
    pub snippet: bool,
    pub range: Range<usize>,
}

/// A hover.
#[derive(Debug, Clone, PartialEq)]
pub struct HoverInfo {
    /// The range the hover is about (`None`: the cursor's).
    pub range: Option<Range<usize>>,
    /// Markdown.
    pub markdown: String,
}
