//! A finding in byte offsets of the analysed text, with a stable code and
//! its quick fixes as typed data (never derived from the message text).

use serde::{Deserialize, Serialize};
use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Hint => "hint",
        }
    }
}

/// What a code is: each format declares its codes as a static table.
#[derive(Debug, PartialEq, Eq)]
pub struct CodeInfo {
    /// The format's id (`pi`): the code's namespace and docs folder.
    pub format: &'static str,
    /// `PL002`.
    pub id: &'static str,
    /// A short kebab-case name (`trailing-comma`).
    pub name: &'static str,
    pub severity: Severity,
    /// One line: what the runtime does.
    pub summary: &'static str,
    /// Rules that never decide, or whose removal changes nothing: editors
    /// show them faded.
    pub unnecessary: bool,
    /// The first fix changes no decision (a duplicate or redundant rule
    /// removed, a repeated key folded as the runtime reads it): `check
    /// --fix` and the editor's fix-all action apply it.
    pub safe_fix: bool,
}

/// A format's code table: an enum `Code` with one variant per code, its
/// static [`CodeInfo`]s (`INFOS`), lookups, and the conversion to
/// [`DiagnosticCode`]. Used in a format's `codes.rs`, where `FORMAT` (the
/// format id) is in scope. `unnecessary` lists the codes editors show
/// faded (rules that never decide).
#[macro_export]
macro_rules! code_table {
    (unnecessary: [$($unn:ident),*];
     safe_fix: [$($safe:ident),*];
     $($variant:ident = $code:literal, $name:literal, $sev:ident, $summary:literal;)*) => {
        /// A diagnostic code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $($variant),* }

        /// Every code's static description, in declaration order.
        pub static INFOS: &[$crate::core::diagnostic::CodeInfo] = &[$($crate::core::diagnostic::CodeInfo {
            format: FORMAT,
            id: $code,
            name: $name,
            severity: $crate::core::diagnostic::Severity::$sev,
            summary: $summary,
            unnecessary: Code::$variant.faded(),
            safe_fix: Code::$variant.safe(),
        }),*];

        impl Code {
            /// Shown faded: the rule never decides.
            const fn faded(self) -> bool {
                false $(|| matches!(self, Code::$unn))*
            }
            /// Its first fix keeps every decision as it is.
            const fn safe(self) -> bool {
                false $(|| matches!(self, Code::$safe))*
            }
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];
            pub fn info(self) -> &'static $crate::core::diagnostic::CodeInfo { &INFOS[self as usize] }
            pub fn as_str(self) -> &'static str { self.info().id }
            /// A short kebab-case name.
            pub fn name(self) -> &'static str { self.info().name }
            pub fn default_severity(self) -> $crate::core::diagnostic::Severity { self.info().severity }
            /// One line: what the runtime does.
            pub fn summary(self) -> &'static str { self.info().summary }
            pub fn parse(s: &str) -> Option<Code> {
                match s { $($code | $name => Some(Code::$variant),)* _ => None }
            }
        }

        impl From<Code> for $crate::core::diagnostic::DiagnosticCode {
            fn from(c: Code) -> $crate::core::diagnostic::DiagnosticCode {
                $crate::core::diagnostic::DiagnosticCode(c.info())
            }
        }

        impl PartialEq<Code> for $crate::core::diagnostic::DiagnosticCode {
            fn eq(&self, other: &Code) -> bool {
                *self == $crate::core::diagnostic::DiagnosticCode::from(*other)
            }
        }
    };
}

/// A diagnostic code: a handle on its format's static [`CodeInfo`].
#[derive(Debug, Clone, Copy)]
pub struct DiagnosticCode(pub &'static CodeInfo);

impl DiagnosticCode {
    pub fn as_str(self) -> &'static str {
        self.0.id
    }
    pub fn name(self) -> &'static str {
        self.0.name
    }
    pub fn format(self) -> &'static str {
        self.0.format
    }
    pub fn default_severity(self) -> Severity {
        self.0.severity
    }
    pub fn summary(self) -> &'static str {
        self.0.summary
    }
    pub fn unnecessary(self) -> bool {
        self.0.unnecessary
    }
    /// The docs page, relative to the repository root.
    pub fn docs_path(self) -> String {
        format!("docs/lints/{}/{}.md", self.0.format, self.0.id)
    }
}

impl PartialEq for DiagnosticCode {
    fn eq(&self, other: &Self) -> bool {
        self.0.format == other.0.format && self.0.id == other.0.id
    }
}
impl Eq for DiagnosticCode {}
impl std::hash::Hash for DiagnosticCode {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.id.hash(h)
    }
}
impl PartialOrd for DiagnosticCode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for DiagnosticCode {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.0.format, self.0.id).cmp(&(other.0.format, other.0.id))
    }
}
impl Serialize for DiagnosticCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.id)
    }
}

/// One replacement in the analysed text (byte offsets).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextEdit {
    pub range: Range<usize>,
    pub new_text: String,
}

impl TextEdit {
    pub fn replace(range: Range<usize>, new_text: impl Into<String>) -> TextEdit {
        TextEdit {
            range,
            new_text: new_text.into(),
        }
    }
}

/// A quick fix, as data. The finding that knows what is wrong says how to
/// fix it; the code actions turn these into edits over the document's JSON
/// tree (format-neutral operations) without reading the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Fix {
    /// Replace text: the edits are known when the finding is made.
    Edit { title: String, edits: Vec<TextEdit> },
    /// Rename the object key whose range is the diagnostic's to `to`
    /// (not offered when the object already has that key).
    RenameKey { to: String },
    /// Remove the object member whose key is at the diagnostic, with its
    /// comma, keeping every comment.
    RemoveMember,
    /// Remove a repeated key keeping the runtime's meaning: the last value,
    /// at the first key's position.
    RemoveDuplicate,
    /// Replace the value of the member whose key is at the diagnostic.
    SetValue { title: String, value: String },
    /// Replace the object holding the diagnostic's range with `value`.
    ReplaceEnclosingObject { title: String, value: String },
    /// Move the member whose key is at the diagnostic after the member whose
    /// key has the range `after` (same object); `overriders` are every
    /// overriding key, all of which must be in that object.
    MoveAfter {
        after: Range<usize>,
        overriders: Vec<Range<usize>>,
    },
    /// Remove the array item whose range is the diagnostic's, with its
    /// comma, keeping every comment.
    RemoveArrayItem { title: String },
}

/// A finding, in byte offsets of the analysed text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    pub code: DiagnosticCode,
    pub severity: Severity,
    pub range: Range<usize>,
    pub message: String,
    /// The issue text the runtime itself reports for this problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_issue: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<Related>,
    /// Quick fixes, as data.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<Fix>,
}

impl Diagnostic {
    /// A finding at its code's default severity, without related places.
    pub fn new(
        code: impl Into<DiagnosticCode>,
        range: Range<usize>,
        message: String,
    ) -> Diagnostic {
        let code = code.into();
        let clipped = match crate::text::clip_spans(&message) {
            std::borrow::Cow::Owned(m) => Some(m),
            std::borrow::Cow::Borrowed(_) => None,
        };
        Diagnostic {
            code,
            severity: code.default_severity(),
            range,
            message: clipped.unwrap_or(message),
            runtime_issue: None,
            related: Vec::new(),
            fixes: Vec::new(),
        }
    }

    /// Adds a quick fix.
    pub fn with_fix(mut self, fix: Fix) -> Diagnostic {
        self.add_fix(fix);
        self
    }

    /// Adds a quick fix.
    pub fn add_fix(&mut self, fix: Fix) {
        push_small(&mut self.fixes, fix);
    }

    /// Adds a related place.
    pub fn add_related(&mut self, related: Related) {
        push_small(&mut self.related, related);
    }
}

/// Pushes onto a list that usually holds one or two items: room for one
/// first, then doubling (`Vec::push` starts with room for four, which at a
/// finding per rule of a large file was a fifth of the memory).
fn push_small<T>(v: &mut Vec<T>, x: T) {
    if v.len() == v.capacity() {
        v.reserve_exact(v.len().max(1));
    }
    v.push(x);
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Related {
    pub range: Range<usize>,
    /// Shared: a rule that overrides every other one is the related place
    /// of each of their findings, described once.
    pub message: std::sync::Arc<str>,
}

/// Sorts findings by where they are (start, then end), keeping the order
/// of findings at one place. A list already in order — most are, found
/// rule by rule — is left as it is: a stable sort takes a buffer half the
/// list's size even then (30 MB for 10 MB of rules).
pub fn sort_by_place(list: &mut [Diagnostic]) {
    let key = |d: &Diagnostic| (d.range.start, d.range.end);
    if !list.is_sorted_by_key(key) {
        list.sort_by_key(key);
    }
}

/// The order findings are reported in: by start, end and code
/// ([`LintLevels::apply`](crate::core::levels::LintLevels::apply) sorts by it).
pub(crate) fn place_key(d: &Diagnostic) -> (usize, usize, DiagnosticCode) {
    (d.range.start, d.range.end, d.code)
}

/// Findings handed on in document order while most of them are made a
/// batch at a time (a finding per rule of a long list): the few found
/// apart from that stream are held, sorted, and merged in, and each batch
/// goes on as it comes — never all of them held. The same findings, in the
/// same order, as [`LintLevels::apply`](crate::core::levels::LintLevels::apply)
/// over all of them pushed as `before`, then the stream, then `after`.
pub struct InOrder<'s> {
    /// Held findings, with whether each was found after the stream (it
    /// follows the stream's findings at the same place).
    held: std::collections::VecDeque<(Diagnostic, bool)>,
    levels: &'s crate::core::levels::LintLevels,
    sink: &'s mut dyn FnMut(Vec<Diagnostic>),
    /// The last streamed finding's place (the stream must not go back).
    last: Option<(usize, usize, DiagnosticCode)>,
}

impl<'s> InOrder<'s> {
    /// `before` and `after`: the findings made apart from the stream, as
    /// they would be pushed before and after it.
    pub fn new(
        before: Vec<Diagnostic>,
        after: Vec<Diagnostic>,
        levels: &'s crate::core::levels::LintLevels,
        sink: &'s mut dyn FnMut(Vec<Diagnostic>),
    ) -> InOrder<'s> {
        let mut held: Vec<(Diagnostic, bool)> = levels
            .apply(before)
            .into_iter()
            .map(|d| (d, false))
            .chain(levels.apply(after).into_iter().map(|d| (d, true)))
            .collect();
        // Stable: at one place, what came before the stream stays first.
        held.sort_by_key(|(d, after)| (place_key(d), *after));
        InOrder {
            held: held.into(),
            levels,
            sink,
            last: None,
        }
    }

    /// The stream's next findings: in order, and none before the last
    /// batch's.
    pub fn batch(&mut self, batch: Vec<Diagnostic>) {
        let batch = self.levels.apply(batch);
        let mut out = Vec::with_capacity(batch.len() + 1);
        for d in batch {
            let key = place_key(&d);
            debug_assert!(
                self.last.is_none_or(|l| l <= key),
                "a stream of findings went back"
            );
            self.last = Some(key);
            while let Some((h, after)) = self.held.front() {
                let k = place_key(h);
                if k < key || (k == key && !after) {
                    out.extend(self.held.pop_front().map(|(h, _)| h));
                } else {
                    break;
                }
            }
            out.push(d);
        }
        if !out.is_empty() {
            (self.sink)(out);
        }
    }

    /// Hands on what is still held: a last batch, empty when nothing is
    /// (so that the sink is called at least once).
    pub fn finish(mut self) {
        let rest: Vec<Diagnostic> = std::mem::take(&mut self.held)
            .into_iter()
            .map(|(d, _)| d)
            .collect();
        (self.sink)(rest);
    }
}

/// A code for the crate's unit tests (a warning, `T001`).
#[cfg(test)]
pub(crate) static TEST_CODE: CodeInfo = CodeInfo {
    format: "test",
    id: "T001",
    name: "test",
    severity: Severity::Warning,
    summary: "",
    unnecessary: false,
    safe_fix: false,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn at(range: Range<usize>, message: &str) -> Diagnostic {
        Diagnostic::new(DiagnosticCode(&TEST_CODE), range, message.to_string())
    }

    #[test]
    fn findings_streamed_in_order_equal_them_sorted_at_once() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as usize
        };
        let levels = crate::core::levels::LintLevels::default();
        for case in 0..300 {
            let made = |n: usize, tag: &str, next: &mut dyn FnMut(usize) -> usize| {
                (0..n)
                    .map(|i| {
                        let s = next(40);
                        at(s..s + next(3), &format!("{tag}{case}.{i}"))
                    })
                    .collect::<Vec<_>>()
            };
            let before = made(next(6), "b", &mut next);
            let after = made(next(6), "a", &mut next);
            let mut stream = made(next(30), "s", &mut next);
            sort_by_place(&mut stream);
            let mut all = before.clone();
            all.extend(stream.iter().cloned());
            all.extend(after.iter().cloned());
            let want: Vec<String> = levels.apply(all).into_iter().map(|d| d.message).collect();
            let mut got: Vec<String> = Vec::new();
            let mut sink = |ds: Vec<Diagnostic>| got.extend(ds.into_iter().map(|d| d.message));
            let mut order = InOrder::new(before, after, &levels, &mut sink);
            let mut rest = stream.as_slice();
            while !rest.is_empty() {
                let (batch, more) = rest.split_at(1 + next(rest.len()));
                order.batch(batch.to_vec());
                rest = more;
            }
            order.finish();
            assert_eq!(got, want, "case {case}");
        }
    }

    #[test]
    fn sorting_by_place_keeps_the_order_at_one_place() {
        let mut list = vec![at(5..6, "c"), at(1..2, "a"), at(5..6, "d"), at(1..2, "b")];
        sort_by_place(&mut list);
        let order: Vec<String> = list.iter().map(|d| d.message.clone()).collect();
        assert_eq!(order, ["a", "b", "c", "d"]);
        // In order already: unchanged.
        sort_by_place(&mut list);
        let again: Vec<String> = list.iter().map(|d| d.message.clone()).collect();
        assert_eq!(again, order);
        // The end breaks ties of the start.
        let mut list = vec![at(1..4, "long"), at(1..2, "short")];
        sort_by_place(&mut list);
        assert_eq!(list[0].message, "short");
    }
}
