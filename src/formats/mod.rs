//! The format registry: the list of formats, at the top, and the lookups
//! every shared layer uses (by id, by a document's path and content, by
//! the files a session reads). The contract a format implements is
//! `crate::contract`; each format is one folder behind it.

pub mod claude;
pub mod codex;
pub mod gemini;
pub mod opencode;
pub mod pi;
pub mod qwen;

pub use crate::contract::*;

/// Every format, in the order detection tries them.
static FORMATS: &[&dyn Format] = &[
    &pi::Pi,
    &claude::Claude,
    &opencode::OpenCode,
    &codex::Codex,
    &qwen::Qwen,
    &gemini::Gemini,
];

/// Every registered format.
pub fn all() -> &'static [&'static dyn Format] {
    FORMATS
}

/// The format used when nothing else decides.
pub fn default_format() -> &'static dyn Format {
    FORMATS[0]
}

/// A format by id.
pub fn by_id(id: &str) -> Option<&'static dyn Format> {
    FORMATS
        .iter()
        .copied()
        .find(|f| f.id() == id || f.aliases().contains(&id))
}

/// The format and role of a document, by path and the start of its text
/// (`$schema`). When several formats claim the path, the first wins here;
/// [`detect_file`] lets the whole content decide.
pub fn detect(path: &str, text: &str) -> Option<DocumentKind> {
    let head = &text[..floor_char_boundary(text, 4096)];
    FORMATS.iter().find_map(|f| {
        f.detect(path, head)
            .map(|role| DocumentKind { format: *f, role })
    })
}

/// Every format that claims a document by its path and the start of its
/// text, in registry order.
pub fn claims(path: &str, text: &str) -> Vec<DocumentKind> {
    let head = &text[..floor_char_boundary(text, 4096)];
    FORMATS
        .iter()
        .filter_map(|f| {
            f.detect(path, head)
                .map(|role| DocumentKind { format: *f, role })
        })
        .collect()
}

/// What reading a file's content says about its format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detected {
    /// One format reads it (by location, `$schema` or content).
    Kind(DocumentKind),
    /// The content fits several formats equally well (their ids).
    Ambiguous(Vec<&'static str>),
    /// No format reads it.
    Unknown,
}

/// The format of a file by everything it shows: its location and
/// `$schema` first; when several formats claim the location, or none
/// does, the content decides (a JSON document whose keys one format
/// alone uses).
pub fn detect_file(path: &str, text: &str) -> Detected {
    let by_path = claims(path, text);
    if by_path.len() == 1 {
        return Detected::Kind(by_path[0]);
    }
    // Markdown agent files are known by their folder alone.
    let is_json = path.ends_with(".json") || path.ends_with(".jsonc") || !by_path.is_empty();
    if !is_json {
        return Detected::Unknown;
    }
    let stripped = crate::syntax::strip::strip_json_comments(text);
    let parsed = crate::syntax::json::parse(&stripped);
    let candidates: Vec<&'static dyn Format> = if by_path.is_empty() {
        FORMATS.to_vec()
    } else {
        by_path.iter().map(|k| k.format).collect()
    };
    let scored: Vec<(u32, &'static dyn Format)> = match &parsed.root {
        Some(root) => candidates
            .iter()
            .map(|f| (f.content_score(root), *f))
            .collect(),
        None => Vec::new(),
    };
    let best = scored.iter().map(|(s, _)| *s).max().unwrap_or(0);
    let top: Vec<&'static dyn Format> = scored
        .iter()
        .filter(|(s, _)| *s == best && best > 0)
        .map(|(_, f)| *f)
        .collect();
    match (top.as_slice(), by_path.first()) {
        ([one], _) => Detected::Kind(
            by_path
                .iter()
                .copied()
                .find(|k| k.format.id() == one.id())
                .unwrap_or(DocumentKind {
                    format: *one,
                    role: Role::Config,
                }),
        ),
        // Several formats claim the location and the content does not
        // decide: the registry's order (the location's usual owner).
        ([], Some(k)) => Detected::Kind(*k),
        ([], None) => Detected::Unknown,
        (many, Some(_)) => Detected::Kind(
            by_path
                .iter()
                .copied()
                .find(|k| many.iter().any(|f| f.id() == k.format.id()))
                .unwrap_or(by_path[0]),
        ),
        (many, None) => Detected::Ambiguous(many.iter().map(|f| f.id()).collect()),
    }
}

/// A format with the files a session reads of it.
pub type FormatFiles = (&'static dyn Format, SessionFiles);

/// The formats whose files a session started in `ctx.cwd` would read,
/// each with those files, in registry order; every format's
/// [`SessionFiles`] when none has any (for the "looked in" message).
pub fn present(ctx: &Context<'_>) -> (Vec<FormatFiles>, Vec<FormatFiles>) {
    let all: Vec<FormatFiles> = FORMATS.iter().map(|f| (*f, f.session_files(ctx))).collect();
    all.into_iter().partition(|(_, s)| !s.present.is_empty())
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A code by id (`PL010`) or name (`duplicate-key`), in any format.
pub fn code_by_name(s: &str) -> Option<crate::core::diagnostic::DiagnosticCode> {
    crate::formats::all()
        .iter()
        .flat_map(|f| f.codes())
        .find(|c| c.id == s || c.name == s)
        .map(crate::core::diagnostic::DiagnosticCode)
}
