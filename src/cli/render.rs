//! Terminal and machine output for diagnostics.

use crate::analysis::{Diagnostic, Severity};
use crate::text::LineIndex;
use std::fmt::Write as _;

/// ANSI styling, off when `NO_COLOR` is set or the output is not a terminal.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
}

impl Style {
    /// The style `code` begins on `out` (nothing without color).
    fn begin(self, out: &mut String, code: &str) {
        if self.color {
            out.push_str("\x1b[");
            out.push_str(code);
            out.push('m');
        }
    }

    /// The style ends on `out`.
    fn end(self, out: &mut String) {
        if self.color {
            out.push_str("\x1b[0m");
        }
    }

    /// `s` in the style `code`, written onto `out`.
    fn paint_into(self, out: &mut String, code: &str, s: &str) {
        self.begin(out, code);
        out.push_str(s);
        self.end(out);
    }

    /// A severity in its color, written onto `out`.
    fn severity_into(self, out: &mut String, sev: Severity) {
        let code = match sev {
            Severity::Error => "1;31",
            Severity::Warning => "1;33",
            Severity::Info => "1;36",
            Severity::Hint => "1;32",
        };
        self.paint_into(out, code, sev.as_str());
    }
}

pub use crate::text::line_col_1;

/// One diagnostic, rustc style: header, location, source line and caret.
pub fn human(path: &str, text: &str, index: &LineIndex, d: &Diagnostic, style: Style) -> String {
    let mut out = String::new();
    human_into(&mut out, path, text, index, d, style);
    out
}

/// [`human`], written onto `out` (a chunk of findings is one string: no
/// string per line or per piece of a line).
pub fn human_into(
    out: &mut String,
    path: &str,
    text: &str,
    index: &LineIndex,
    d: &Diagnostic,
    style: Style,
) {
    /// `n` copies of `c`.
    fn repeat(out: &mut String, c: char, n: usize) {
        out.extend(std::iter::repeat_n(c, n));
    }
    let (line, col) = line_col_1(index, text, d.range.start);
    style.severity_into(out, d.severity);
    style.begin(out, "1");
    let _ = write!(out, "[{}]:", d.code.as_str());
    style.end(out);
    out.push(' ');
    style.paint_into(out, "1", &d.message);
    out.push('\n');
    let gutter = line.ilog10() as usize + 1;
    repeat(out, ' ', gutter);
    style.paint_into(out, "1;34", "-->");
    let _ = writeln!(out, " {path}:{line}:{col}");
    let lr = index.line_range(text, line - 1);
    let src = &text[lr.clone()];
    // Keep very long lines readable: show at most 200 characters around the caret.
    let caret_from = d.range.start.clamp(lr.start, lr.end) - lr.start;
    let caret_to = d.range.end.clamp(lr.start, lr.end) - lr.start;
    let (shown, lead) = window(src, caret_from, 200);
    // The caret covers the finding on this line (counted up to a bound:
    // a finding may span megabytes).
    let width = src[caret_from..caret_to.max(caret_from)]
        .chars()
        .take(10_000)
        .count()
        .max(1);
    let bar = |out: &mut String| style.paint_into(out, "1;34", "|");
    repeat(out, ' ', gutter);
    out.push(' ');
    bar(out);
    out.push('\n');
    style.paint_into(out, "1;34", &line.to_string());
    out.push(' ');
    bar(out);
    out.push(' ');
    out.extend(shown.chars().map(|c| {
        if c == '\t' || c.is_control() || c == '\u{feff}' {
            ' '
        } else {
            c
        }
    }));
    out.push('\n');
    let caret_color = if d.severity == Severity::Error {
        "1;31"
    } else {
        "1;33"
    };
    repeat(out, ' ', gutter);
    out.push(' ');
    bar(out);
    out.push(' ');
    repeat(out, ' ', lead);
    style.begin(out, caret_color);
    repeat(out, '^', width.min(200));
    style.end(out);
    out.push('\n');
    let pad = |out: &mut String| repeat(out, ' ', gutter);
    if let Some(r) = &d.runtime_issue {
        pad(out);
        let _ = writeln!(out, " = runtime: {}", printable(&r.replace("<path>", path)));
    }
    for rel in &d.related {
        let (l, c) = line_col_1(index, text, rel.range.start);
        pad(out);
        let _ = writeln!(out, " = note: {path}:{l}:{c}: {}", rel.message);
    }
    pad(out);
    let _ = writeln!(
        out,
        " = help: for more, run `permission-lsp rule {}`",
        d.code.as_str()
    );
}

/// Control and invisible characters shown as escapes, so a message quoting
/// the source stays on one line.
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\n' => "\\n".to_string(),
            '\r' => "\\r".to_string(),
            '\t' => "\\t".to_string(),
            '\u{feff}' => "\\u{feff}".to_string(),
            c if c.is_control() => format!("\\u{{{:x}}}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

/// At most `max` characters of `line` around byte `at`; returns the slice and
/// how many characters were skipped at the start.
/// At most `max` characters of `line` around byte `at` (half before it when
/// the line is longer), and how many characters of the window come before
/// `at`. Walks only the window, never the whole line: a minified file is
/// one line of megabytes.
fn window(line: &str, at: usize, max: usize) -> (&str, usize) {
    let back = |from: usize, n: usize| {
        let mut i = from;
        for c in line[..from].chars().rev().take(n) {
            i -= c.len_utf8();
        }
        i
    };
    let forward = |from: usize, n: usize| {
        let mut i = from;
        for c in line[from..].chars().take(n) {
            i += c.len_utf8();
        }
        i
    };
    let mut start = back(at, max / 2);
    let end = forward(start, max);
    if end == line.len() {
        // Near the end: the last `max` characters.
        start = back(end, max);
    }
    (&line[start..end], line[start..at].chars().count())
}

/// The JSON form of one diagnostic (`check --format json`).
/// A position in `check --format json` output (1-based line and column).
#[derive(serde::Serialize)]
pub struct JsonPosition {
    line: usize,
    column: usize,
    offset: usize,
}

#[derive(serde::Serialize)]
pub struct JsonRelated {
    message: String,
    start: JsonPosition,
    end: JsonPosition,
}

/// One finding of `check --format json` (fields in output order).
#[derive(serde::Serialize)]
pub struct JsonDiagnostic {
    path: String,
    code: &'static str,
    name: &'static str,
    severity: &'static str,
    message: String,
    start: JsonPosition,
    end: JsonPosition,
    runtime_issue: Option<String>,
    related: Vec<JsonRelated>,
}

pub fn json(path: &str, text: &str, index: &LineIndex, d: &Diagnostic) -> JsonDiagnostic {
    let pos = |o: usize| {
        let (line, column) = line_col_1(index, text, o);
        JsonPosition {
            line,
            column,
            offset: o,
        }
    };
    JsonDiagnostic {
        path: path.to_string(),
        code: d.code.as_str(),
        name: d.code.name(),
        severity: d.severity.as_str(),
        message: d.message.clone(),
        start: pos(d.range.start),
        end: pos(d.range.end),
        runtime_issue: d.runtime_issue.as_ref().map(|r| r.replace("<path>", path)),
        related: d
            .related
            .iter()
            .map(|r| JsonRelated {
                message: r.message.to_string(),
                start: pos(r.range.start),
                end: pos(r.range.end),
            })
            .collect(),
    }
}

/// `check --format json`'s report, written as its findings come (a large
/// file's are never all held): the object serde writes pretty, with
/// `diagnostics` first and the counts after them.
pub struct JsonReport {
    diagnostics: StreamedArray,
}

impl JsonReport {
    pub fn begin(out: &mut dyn std::io::Write) -> JsonReport {
        let _ = out.write_all(b"{\n  \"diagnostics\": [");
        JsonReport {
            diagnostics: StreamedArray::at(2),
        }
    }

    /// Appends a finding to `buf` (written out by the caller).
    pub fn push(&mut self, d: &JsonDiagnostic, buf: &mut Vec<u8>) {
        self.diagnostics.push(d, buf);
    }

    pub fn end(
        self,
        out: &mut dyn std::io::Write,
        files: usize,
        errors: usize,
        warnings: usize,
        io_errors: &[String],
    ) {
        let mut tail = self.diagnostics.close();
        let io = serde_json::to_string_pretty(io_errors).unwrap_or_default();
        let _ = write!(
            tail,
            ",\n  \"files\": {files},\n  \"errors\": {errors},\n  \"warnings\": {warnings},\n  \"io_errors\": {}\n}}\n",
            io.replace('\n', "\n  ")
        );
        let _ = out.write_all(tail.as_bytes());
    }
}

/// The items of a JSON array `depth` deep in a pretty document, written
/// one at a time after its `[`: serde's layout of the whole array.
struct StreamedArray {
    depth: usize,
    written: usize,
}

impl StreamedArray {
    fn at(depth: usize) -> StreamedArray {
        StreamedArray { depth, written: 0 }
    }

    /// Appends an item to `buf`.
    fn push(&mut self, item: &impl serde::Serialize, buf: &mut Vec<u8>) {
        buf.extend_from_slice(if self.written == 0 { b"\n" } else { b",\n" });
        buf.extend_from_slice(&b"  ".repeat(self.depth));
        self.written += 1;
        let _ = item.serialize(&mut serde_json::Serializer::with_formatter(
            &mut *buf,
            Nested::at(self.depth),
        ));
    }

    /// What closes the array (`]`, on a line of its own after items).
    fn close(&self) -> String {
        if self.written == 0 {
            "]".into()
        } else {
            format!("\n{}]", "  ".repeat(self.depth - 1))
        }
    }
}

/// serde_json's pretty layout for a value nested `level` deep (its lines
/// indented as they are inside the whole report).
struct Nested {
    level: usize,
    has_value: bool,
}

impl Nested {
    fn at(level: usize) -> Nested {
        Nested {
            level,
            has_value: false,
        }
    }

    fn indent<W: ?Sized + std::io::Write>(&self, w: &mut W) -> std::io::Result<()> {
        for _ in 0..self.level {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    fn open<W: ?Sized + std::io::Write>(&mut self, w: &mut W, b: &[u8]) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b)
    }

    fn close<W: ?Sized + std::io::Write>(&mut self, w: &mut W, b: &[u8]) -> std::io::Result<()> {
        self.level -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            self.indent(w)?;
        }
        w.write_all(b)
    }

    fn item<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(w)
    }
}

impl serde_json::ser::Formatter for Nested {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _w: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// One GitHub Actions workflow command (`::warning file=…::message`): the
/// finding shows up as an annotation on the pull request.
pub fn github(path: &str, text: &str, index: &LineIndex, d: &Diagnostic) -> String {
    let (line, col) = line_col_1(index, text, d.range.start);
    let (end_line, end_col) = line_col_1(index, text, d.range.end);
    let level = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        _ => "notice",
    };
    format!(
        "::{level} file={},line={line},col={col},endLine={end_line},endColumn={end_col},title={}::{}",
        gh_property(path),
        gh_property(&format!("{} {}", d.code.as_str(), d.code.name())),
        gh_data(&d.message)
    )
}

pub(crate) fn gh_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

pub(crate) fn gh_property(s: &str) -> String {
    gh_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Every code of every format, in the order of the SARIF log's rules.
fn sarif_codes() -> &'static [crate::analysis::DiagnosticCode] {
    static CODES: std::sync::OnceLock<Vec<crate::analysis::DiagnosticCode>> =
        std::sync::OnceLock::new();
    CODES.get_or_init(|| {
        crate::formats::all()
            .iter()
            .flat_map(|f| f.codes())
            .map(crate::analysis::DiagnosticCode)
            .collect()
    })
}

/// One finding of a SARIF log, made while its file's text is at hand (a
/// log of a large file holds its findings, never a copy of the text each).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult {
    rule_id: &'static str,
    rule_index: Option<usize>,
    level: &'static str,
    message: SarifText,
    locations: [SarifLocation; 1],
    related_locations: Vec<SarifRelated>,
}

#[derive(serde::Serialize)]
struct SarifText {
    text: String,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    physical_location: SarifPhysical,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifPhysical {
    artifact_location: SarifUri,
    region: SarifRegion,
}

#[derive(serde::Serialize)]
struct SarifUri {
    uri: String,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRegion {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRelated {
    id: usize,
    message: SarifText,
    physical_location: SarifPhysical,
}

/// A finding of `path` as a SARIF result.
pub fn sarif_result(path: &str, text: &str, index: &LineIndex, d: &Diagnostic) -> SarifResult {
    let uri = path.trim_start_matches("./");
    let physical = |r: &std::ops::Range<usize>| {
        let (start_line, start_column) = line_col_1(index, text, r.start);
        let (end_line, end_column) = line_col_1(index, text, r.end);
        SarifPhysical {
            artifact_location: SarifUri {
                uri: uri.to_string(),
            },
            region: SarifRegion {
                start_line,
                start_column,
                end_line,
                end_column,
            },
        }
    };
    SarifResult {
        rule_id: d.code.as_str(),
        rule_index: sarif_codes().iter().position(|c| *c == d.code),
        level: sarif_level(d.severity),
        message: SarifText {
            text: d.message.clone(),
        },
        locations: [SarifLocation {
            physical_location: physical(&d.range),
        }],
        related_locations: d
            .related
            .iter()
            .enumerate()
            .map(|(id, r)| SarifRelated {
                id,
                message: SarifText {
                    text: r.message.to_string(),
                },
                physical_location: physical(&r.range),
            })
            .collect(),
    }
}

/// A SARIF 2.1.0 log of the findings (code scanning in CI), written as
/// they come (a large file's are never all held): serde's pretty layout of
/// the whole log, whose results come last.
pub struct SarifLog {
    results: StreamedArray,
    /// What follows the results.
    rest: String,
}

impl SarifLog {
    pub fn begin(out: &mut dyn std::io::Write) -> SarifLog {
        let whole = serde_json::to_string_pretty(&sarif_log(&[])).unwrap_or_default();
        // The results are the run's last member and the run is the last
        // thing in the log: the empty array is the last `[]` of this shape.
        let marker = "\"results\": []";
        let at = whole.rfind(marker).unwrap_or(whole.len());
        let open = (at + marker.len() - 1).min(whole.len());
        let _ = out.write_all(&whole.as_bytes()[..open]);
        SarifLog {
            // `log.runs[0].results`.
            results: StreamedArray::at(4),
            rest: whole.get(open + 1..).unwrap_or_default().to_string(),
        }
    }

    /// Appends a result to `buf` (written out by the caller).
    pub fn push(&mut self, r: &SarifResult, buf: &mut Vec<u8>) {
        self.results.push(r, buf);
    }

    pub fn end(self, out: &mut dyn std::io::Write) {
        let mut tail = self.results.close();
        tail.push_str(&self.rest);
        tail.push('\n');
        let _ = out.write_all(tail.as_bytes());
    }
}

#[derive(serde::Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool,
    column_kind: &'static str,
    results: &'a [SarifResult],
}

#[derive(serde::Serialize)]
struct Tool {
    driver: serde_json::Value,
}

/// The whole log with `results`.
fn sarif_log(results: &[SarifResult]) -> Log<'_> {
    let rules: Vec<serde_json::Value> = sarif_codes()
        .iter()
        .map(|c| {
            serde_json::json!({
                "id": c.as_str(),
                "name": c.name(),
                "shortDescription": { "text": c.summary() },
                "help": {
                    "text": format!("{} Run `permission-lsp rule {}` for more.", c.summary(), c.as_str()),
                    "markdown": super::rule::page(c.as_str()).unwrap_or_default(),
                },
                "defaultConfiguration": { "level": sarif_level(c.default_severity()) },
            })
        })
        .collect();
    Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: serde_json::json!({
                    "name": "permission-lsp",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }),
            },
            column_kind: "unicodeCodePoints",
            results,
        }],
    }
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        _ => "note",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::diagnostic::{DiagnosticCode, Related, TEST_CODE};

    /// The streamed JSON report is the object serde writes pretty, with
    /// the findings first: none, one or several, with and without I/O
    /// errors.
    #[test]
    fn the_json_report_is_written_as_serde_writes_it() {
        #[derive(serde::Serialize)]
        struct Whole<'a> {
            diagnostics: &'a [JsonDiagnostic],
            files: usize,
            errors: usize,
            warnings: usize,
            io_errors: &'a [String],
        }
        let text = "{\n  \"a\": \"x\\ny\",\n  \"b\": 2\n}\n";
        let index = LineIndex::new(text);
        for n in 0..3 {
            for io_errors in [vec![], vec!["a: gone".to_string(), "b\nc".to_string()]] {
                let mut d = Diagnostic::new(DiagnosticCode(&TEST_CODE), 4..7, "`a` is\nodd".into());
                d.add_related(Related {
                    range: 12..20,
                    message: "see".into(),
                });
                let items: Vec<JsonDiagnostic> =
                    (0..n).map(|_| json("f.json", text, &index, &d)).collect();
                let mut out = Vec::new();
                let mut report = JsonReport::begin(&mut out);
                let mut buf = Vec::new();
                for j in &items {
                    report.push(j, &mut buf);
                }
                out.extend_from_slice(&buf);
                report.end(&mut out, 1, n, 0, &io_errors);
                let whole = Whole {
                    diagnostics: &items,
                    files: 1,
                    errors: n,
                    warnings: 0,
                    io_errors: &io_errors,
                };
                let want = serde_json::to_string_pretty(&whole).unwrap() + "\n";
                assert_eq!(String::from_utf8(out).unwrap(), want);
            }
        }
    }

    /// The streamed SARIF log is the whole log as serde writes it pretty:
    /// with none, one or several results.
    #[test]
    fn the_sarif_log_is_written_as_serde_writes_it() {
        let text = "{\n  \"a\": 1,\n  \"b\": 2\n}\n";
        let index = LineIndex::new(text);
        let mut d = Diagnostic::new(DiagnosticCode(&TEST_CODE), 4..7, "`a` is odd".into());
        d.add_related(Related {
            range: 12..15,
            message: "see `b`".into(),
        });
        let plain = Diagnostic::new(DiagnosticCode(&TEST_CODE), 0..1, "x".into());
        for n in 0..3 {
            let results: Vec<SarifResult> = (0..n)
                .map(|i| sarif_result("./f.json", text, &index, if i == 0 { &d } else { &plain }))
                .collect();
            let mut out = Vec::new();
            let mut log = SarifLog::begin(&mut out);
            let mut buf = Vec::new();
            for r in &results {
                log.push(r, &mut buf);
            }
            out.extend_from_slice(&buf);
            log.end(&mut out);
            let want = serde_json::to_string_pretty(&sarif_log(&results)).unwrap() + "\n";
            assert_eq!(String::from_utf8(out).unwrap(), want, "{n} results");
        }
    }

    /// The layout of one finding, with and without color: header, place,
    /// source line with its caret, related places, the rule's pointer.
    #[test]
    fn a_finding_is_rendered_rustc_style() {
        let text = "{\n  \"a\": 1,\n\t\"b\": 2\n}\n";
        let index = LineIndex::new(text);
        let at = text.find("\"b\"").unwrap();
        let mut d = Diagnostic::new(DiagnosticCode(&TEST_CODE), at..at + 3, "`b` is odd".into());
        d.runtime_issue = Some("bad <path>".into());
        d.add_related(Related {
            range: 4..7,
            message: "see `a`".into(),
        });
        let plain = human("f.json", text, &index, &d, Style { color: false });
        assert_eq!(
            plain,
            "warning[T001]: `b` is odd\n \
             --> f.json:3:2\n  \
             |\n\
             3 |  \"b\": 2\n  \
             |  ^^^\n  \
             = runtime: bad f.json\n  \
             = note: f.json:2:3: see `a`\n  \
             = help: for more, run `permission-lsp rule T001`\n"
        );
        let color = human("f.json", text, &index, &d, Style { color: true });
        assert_eq!(
            color,
            "\x1b[1;33mwarning\x1b[0m\x1b[1m[T001]:\x1b[0m \x1b[1m`b` is odd\x1b[0m\n \
             \x1b[1;34m-->\x1b[0m f.json:3:2\n  \
             \x1b[1;34m|\x1b[0m\n\
             \x1b[1;34m3\x1b[0m \x1b[1;34m|\x1b[0m  \"b\": 2\n  \
             \x1b[1;34m|\x1b[0m  \x1b[1;33m^^^\x1b[0m\n  \
             = runtime: bad f.json\n  \
             = note: f.json:2:3: see `a`\n  \
             = help: for more, run `permission-lsp rule T001`\n"
        );
        // Written onto what is there.
        let mut out = String::from("x");
        human_into(&mut out, "f.json", text, &index, &d, Style { color: false });
        assert_eq!(out, format!("x{plain}"));
    }
}
