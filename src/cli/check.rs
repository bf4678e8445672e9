//! `permission-lsp check [PATH…]`.

use super::discover::discover;
use super::render::{SarifLog, Style, github, human_into, json, sarif_result};
use crate::analysis::{AnalysisOptions, Severity};
use crate::formats::{DocumentKind, Role};
use crate::text::LineIndex;
use std::io::Write;
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Human,
    Json,
    /// SARIF 2.1.0 (code scanning).
    Sarif,
    /// GitHub Actions annotations (`::error file=…`).
    Github,
}

/// Files larger than this are reported, not read.
const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// What `check` reads.
pub struct Inputs<'a> {
    /// Files or directories named on the command line; empty: what a
    /// session started in `cwd` reads, and the project's files.
    pub paths: &'a [PathBuf],
    /// Where a session starts (`--cwd`, else the current directory).
    pub cwd: PathBuf,
    /// Read each file with the other files its runtime merges
    /// (cross-file findings), as the editor does.
    pub scopes: bool,
    /// The format was named (`--runtime`): files no format recognises are
    /// read as it.
    pub pinned: bool,
    /// Apply the safe fixes in place first (`--fix`).
    pub fix: bool,
}

/// Runs the check; returns the process exit code (0 clean, 1 errors found, 2 I/O trouble).
pub fn run(
    inputs: &Inputs<'_>,
    format: Format,
    options: &AnalysisOptions,
    out: &mut dyn Write,
) -> i32 {
    let scopes = inputs.scopes;
    let session = inputs.paths.is_empty();
    let (files, mut io_errors, root, looked_in) = if session {
        let s = super::discover::session(&inputs.cwd, options);
        (s.files, s.errors, Some(s.root), s.looked_in)
    } else {
        let (files, errors) = discover(inputs.paths);
        (files, errors, None, Vec::new())
    };
    let style = Style {
        color: format == Format::Human
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            && is_tty(),
    };
    let (mut errors, mut warnings, mut others) = (0usize, 0usize, 0usize);
    let mut json_report =
        (format == Format::Json).then(|| super::render::JsonReport::begin(&mut *out));
    // Files read and analysed (a file that could not be read is an error).
    let mut checked = 0usize;
    let mut sarif_log = (format == Format::Sarif).then(|| SarifLog::begin(&mut *out));
    let job = Job {
        inputs,
        options,
        scopes,
        root: root.as_deref(),
        human: format == Format::Human,
    };
    // Files are analysed on every core and reported in order as each is
    // done; at most `AHEAD` files' texts and findings are held at a time.
    let lookups = crate::fsio::Lookups::current();
    crate::core::parallel::for_each_ordered(
        &files,
        crate::core::parallel::cores(),
        AHEAD,
        |f| {
            let _remembered = lookups.as_ref().map(|l| l.enter());
            job.analyse(f)
        },
        |o| {
            for note in &o.notes {
                let _ = writeln!(out, "{note}");
            }
            io_errors.extend(o.errors);
            // One file's findings, a batch at a time.
            let mut report =
                |display: &str,
                 text: &str,
                 index: &LineIndex,
                 diagnostics: Vec<crate::core::diagnostic::Diagnostic>| {
                    // This batch's JSON or SARIF text, written at once.
                    let mut part = Vec::new();
                    if format == Format::Human {
                        let threads = if diagnostics.len() >= RENDER_PARALLEL_FROM {
                            crate::core::parallel::cores()
                        } else {
                            1
                        };
                        let file = Shown {
                            path: display,
                            text,
                            index,
                        };
                        render_human(&file, &diagnostics, style, threads, out);
                    }
                    for d in &diagnostics {
                        match d.severity {
                            Severity::Error => errors += 1,
                            Severity::Warning => warnings += 1,
                            _ => others += 1,
                        }
                        match format {
                            // (Rendered above, on every core.)
                            Format::Human => {}
                            Format::Json => {
                                if let Some(r) = json_report.as_mut() {
                                    r.push(&json(display, text, index, d), &mut part);
                                }
                            }
                            Format::Github => {
                                let _ = writeln!(out, "{}", github(display, text, index, d));
                            }
                            Format::Sarif => {
                                if let Some(l) = sarif_log.as_mut() {
                                    l.push(&sarif_result(display, text, index, d), &mut part);
                                }
                            }
                        }
                    }
                    let _ = out.write_all(&part);
                };
            if let Some(Analysed {
                display,
                text,
                diagnostics,
            }) = o.analysed
            {
                checked += 1;
                report(&display, &text, &LineIndex::new(&text), diagnostics);
            } else if let Some(p) = o.deferred {
                // A large file: analysed here, in its turn, and its
                // findings reported as they are made.
                checked += 1;
                let display = p.display.clone();
                let mut index: Option<LineIndex> = None;
                job.findings(p, |kind, bytes, ctx| {
                    kind.format.findings_of_file_in_order(
                        kind.role,
                        bytes,
                        options,
                        ctx,
                        &mut |text, ds| {
                            let index = index.get_or_insert_with(|| LineIndex::new(text));
                            report(&display, text, index, ds);
                        },
                    )
                });
            }
        },
    );
    match format {
        Format::Json => {
            if let Some(r) = json_report {
                r.end(out, checked, errors, warnings, &io_errors);
            }
        }
        Format::Sarif => {
            if let Some(l) = sarif_log {
                l.end(out);
            }
            for e in &io_errors {
                eprintln!("error: {e}");
            }
        }
        Format::Github => {
            for e in &io_errors {
                let _ = writeln!(out, "::error::{e}");
            }
        }
        Format::Human => {
            for e in &io_errors {
                let _ = writeln!(out, "error: {e}");
            }
            let files_word = if checked == 1 { "file" } else { "files" };
            if session && files.is_empty() && io_errors.is_empty() {
                let _ = writeln!(out, "No permission configs found (looked in:");
                for (name, places) in &looked_in {
                    let _ = writeln!(out, "  {name}: {}", places.join(", "));
                }
                let _ = writeln!(
                    out,
                    "and below {}).",
                    root.as_deref().unwrap_or(&inputs.cwd).display()
                );
            } else if errors + warnings + others == 0 {
                let _ = writeln!(out, "Checked {} {files_word}: no problems found.", checked);
            } else {
                let _ = writeln!(
                    out,
                    "Checked {} {files_word}: {errors} error{}, {warnings} warning{}{}.",
                    checked,
                    if errors == 1 { "" } else { "s" },
                    if warnings == 1 { "" } else { "s" },
                    if others > 0 {
                        format!(", {others} other")
                    } else {
                        String::new()
                    }
                );
            }
        }
    }
    if !io_errors.is_empty() && errors == 0 {
        2
    } else if errors > 0 {
        1
    } else {
        0
    }
}

/// Up to this size a checked file's text stands for it in its session
/// (a copy); a larger one is read again there.
const OWN_TEXT_SHARED: usize = 64 << 10;

/// Files analysed beyond the last one reported.
const AHEAD: usize = 64;

/// From this size a file is analysed in its turn and its findings written
/// as they are made (a 10 MB file has hundreds of thousands: never all
/// held), instead of beside the others.
const IN_ORDER_FROM: usize = 1 << 20;

/// A file as its findings are shown.
struct Shown<'a> {
    path: &'a str,
    text: &'a str,
    index: &'a LineIndex,
}

/// A file's findings, rendered on `threads` threads a chunk at a time (a
/// 10 MB file has hundreds of thousands) and written in order: the same
/// bytes as one after the other.
fn render_human(
    file: &Shown<'_>,
    diagnostics: &[crate::analysis::Diagnostic],
    style: Style,
    threads: usize,
    out: &mut dyn Write,
) {
    let chunks: Vec<_> = diagnostics.chunks(RENDER_CHUNK).collect();
    crate::core::parallel::for_each_ordered(
        &chunks,
        threads,
        RENDER_AHEAD,
        |ds| {
            // (About half a kilobyte per finding: grown once or twice.)
            let mut part = String::with_capacity(ds.len() * 512);
            for d in *ds {
                human_into(&mut part, file.path, file.text, file.index, d, style);
                part.push('\n');
            }
            part
        },
        |part| {
            let _ = out.write_all(part.as_bytes());
        },
    );
}

/// Findings rendered as one piece, pieces rendered beyond the last one
/// written (about a megabyte of text held), and from how many findings a
/// file's are rendered on every core.
const RENDER_CHUNK: usize = 256;
const RENDER_AHEAD: usize = 8;
const RENDER_PARALLEL_FROM: usize = 4096;

/// What every file's check shares.
struct Job<'a> {
    inputs: &'a Inputs<'a>,
    options: &'a AnalysisOptions,
    scopes: bool,
    root: Option<&'a std::path::Path>,
    /// Notes are written for people (not in JSON, SARIF or annotations).
    human: bool,
}

/// One file's check, before it is reported.
#[derive(Default)]
struct Outcome {
    /// Lines written before its findings.
    notes: Vec<String>,
    /// Problems reading, recognising or fixing it.
    errors: Vec<String>,
    /// The file's text and findings, when it was analysed.
    analysed: Option<Analysed>,
    /// A large file, read and recognised: analysed when it is reported,
    /// its findings written as they are made.
    deferred: Option<Prepared>,
}

/// A file read, recognised and fixed, before its analysis.
struct Prepared {
    display: String,
    bytes: Vec<u8>,
    kind: DocumentKind,
    abs: PathBuf,
}

struct Analysed {
    display: String,
    text: String,
    diagnostics: Vec<crate::core::diagnostic::Diagnostic>,
}

/// A fixed text and each fix applied (its code and title).
type Fixed = (String, Vec<(&'static str, String)>);

impl Job<'_> {
    /// Reads, recognises, fixes (`--fix`) and analyses one file.
    fn analyse(&self, f: &super::discover::Found) -> Outcome {
        let Job {
            inputs,
            options,
            human,
            ..
        } = *self;
        let mut out = Outcome::default();
        let display = f
            .shown
            .clone()
            .unwrap_or_else(|| f.path.display().to_string());
        // Opened first, then checked: a FIFO or a device named on the
        // command line is an error, never a hang or an endless read.
        let bytes = match crate::fsio::read_capped(&f.path, MAX_FILE_BYTES) {
            Ok(b) => b,
            Err(e) => {
                out.errors.push(format!("{display}: {e}"));
                return out;
            }
        };
        let abs = crate::fsio::absolute(&f.path).unwrap_or_else(|_| f.path.clone());
        // A file named explicitly that no location claims: its content
        // decides; with `--runtime`, it is read as that format (a config,
        // or an agent file when it is markdown).
        let kind = match f.kind {
            Some(k) => k,
            None => {
                let text = String::from_utf8_lossy(&bytes);
                match crate::formats::detect_file(&abs.to_string_lossy(), &text) {
                    _ if inputs.pinned => {
                        let format = crate::formats::by_id(options.profile.format)
                            .unwrap_or_else(crate::formats::default_format);
                        // The format's own reading of the name first (a
                        // rules file), else markdown is an agent file.
                        let role = format.detect(&abs.to_string_lossy(), &text).unwrap_or(
                            if display.ends_with(".md") {
                                Role::Agent
                            } else {
                                Role::Config
                            },
                        );
                        DocumentKind { format, role }
                    }
                    crate::formats::Detected::Kind(k) => k,
                    crate::formats::Detected::Ambiguous(ids) => {
                        // Read as the first (the registry's order), and
                        // said so.
                        let first = crate::formats::by_id(ids[0])
                            .unwrap_or_else(crate::formats::default_format);
                        if human {
                            let others: Vec<&str> = ids[1..]
                                .iter()
                                .filter_map(|id| crate::formats::by_id(id))
                                .map(|f| f.display_name())
                                .collect();
                            out.notes.push(format!(
                                "note: {display}: read as {}; its content fits {} too (--runtime picks the format)",
                                first.display_name(),
                                others.join(" and ")
                            ));
                        }
                        DocumentKind {
                            format: first,
                            role: Role::Config,
                        }
                    }
                    crate::formats::Detected::Unknown => {
                        out.errors.push(format!(
                            "{display}: not a permission config of a known format (formats: {}; --runtime reads it as one)",
                            crate::formats::all()
                                .iter()
                                .map(|f| f.id())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                        return out;
                    }
                }
            }
        };
        let mut bytes = bytes;
        if inputs.fix {
            match self.fix_file(&f.path, &bytes, kind, &abs) {
                Ok(Some((fixed, applied))) => {
                    if human {
                        out.notes.push(format!(
                            "fixed {} problem{} in {display}: {}",
                            applied.len(),
                            if applied.len() == 1 { "" } else { "s" },
                            applied
                                .iter()
                                .map(|(code, title)| format!("{code} {title}"))
                                .collect::<Vec<_>>()
                                .join("; ")
                        ));
                    }
                    bytes = fixed.into_bytes();
                }
                Ok(None) => {}
                Err(e) => out
                    .errors
                    .push(format!("{display}: cannot write the fixes: {e}")),
            }
        }
        let p = Prepared {
            display,
            bytes,
            kind,
            abs,
        };
        if p.bytes.len() >= IN_ORDER_FROM {
            out.deferred = Some(p);
            return out;
        }
        let display = p.display.clone();
        let (text, diagnostics) = self.findings(p, |kind, bytes, ctx| {
            kind.format.findings_of_file(kind.role, bytes, options, ctx)
        });
        out.analysed = Some(Analysed {
            display,
            text,
            diagnostics,
        });
        out
    }

    /// Runs `analyse` on a prepared file with the editor's context: the
    /// project as the workspace root (a named file: its folder), the
    /// file's text standing for it in its session as an open buffer does
    /// (not read again; a large file is).
    fn findings<R>(
        &self,
        p: Prepared,
        analyse: impl FnOnce(DocumentKind, Vec<u8>, Option<&crate::contract::Context<'_>>) -> R,
    ) -> R {
        let Prepared {
            bytes, kind, abs, ..
        } = p;
        let own =
            (bytes.len() <= OWN_TEXT_SHARED).then(|| String::from_utf8_lossy(&bytes).into_owned());
        let open = |q: &std::path::Path| own.as_ref().filter(|_| q == abs).cloned();
        let ctx = self.scopes.then(|| {
            let workspace = self.root.or(abs.parent());
            crate::workspace::resolve(
                self.options,
                workspace,
                Some(&abs),
                &Default::default(),
                Some(&open),
            )
        });
        analyse(kind, bytes, ctx.as_ref())
    }

    /// Applies the safe fixes of one file in place (each fix read again with
    /// the file's session, as the editor reads an unsaved buffer), keeping
    /// every other byte: `Some` with the new text and the fixes when any
    /// applied. Only a valid UTF-8 file is rewritten.
    fn fix_file(
        &self,
        path: &std::path::Path,
        bytes: &[u8],
        kind: DocumentKind,
        abs: &std::path::Path,
    ) -> std::io::Result<Option<Fixed>> {
        let Job {
            options,
            scopes,
            root,
            ..
        } = *self;
        let Ok(text) = std::str::from_utf8(bytes) else {
            return Ok(None);
        };
        let mut analyse = |t: &str| {
            let open = |p: &std::path::Path| (p == abs).then(|| t.to_string());
            let a = if scopes {
                let workspace = root.or(abs.parent());
                let ctx = crate::workspace::resolve(
                    options,
                    workspace,
                    Some(abs),
                    &Default::default(),
                    Some(&open),
                );
                kind.format.analyse(kind.role, t, &ctx)
            } else {
                kind.format
                    .analyse_file(kind.role, t.as_bytes().to_vec(), options, None)
                    .1
            };
            (a.root, a.diagnostics)
        };
        let fixed = crate::ide::code_actions::fix_all(text, &mut analyse, 10_000);
        if fixed.applied.is_empty() {
            return Ok(None);
        }
        // Written beside it and moved over it: a crash never leaves half a
        // file; the permissions stay.
        let tmp = path.with_extension(format!(
            "{}.permission-lsp-fix",
            path.extension().and_then(|e| e.to_str()).unwrap_or("")
        ));
        std::fs::write(&tmp, fixed.text.as_bytes())?;
        if let Ok(meta) = std::fs::metadata(path) {
            let _ = std::fs::set_permissions(&tmp, meta.permissions());
        }
        std::fs::rename(&tmp, path)?;
        Ok(Some((fixed.text, fixed.applied)))
    }
}

fn is_tty() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_rendered_on_several_threads_are_the_bytes_of_one() {
        // 6,000 rules a catch-all placed last overrides: a finding each.
        let rules: Vec<String> = (0..6000)
            .map(|i| format!("\"cmd{i} *\": \"deny\""))
            .collect();
        let text = format!(
            "{{\"permission\": {{\"bash\": {{{}, \"*\": \"ask\"}}}}}}",
            rules.join(",\n")
        );
        let pi = crate::formats::by_id("pi").unwrap();
        let (text, analysis) = pi.analyse_file(
            Role::Config,
            text.into_bytes(),
            &AnalysisOptions::default(),
            None,
        );
        assert!(analysis.diagnostics.len() >= 6000);
        let index = LineIndex::new(&text);
        let file = Shown {
            path: "config.json",
            text: &text,
            index: &index,
        };
        let render = |threads| {
            let mut out = Vec::new();
            render_human(
                &file,
                &analysis.diagnostics,
                Style { color: false },
                threads,
                &mut out,
            );
            out
        };
        let one = render(1);
        assert_eq!(one, render(2));
        assert_eq!(one, render(3));
        let one = String::from_utf8(one).unwrap();
        assert!(one.contains("`cmd5999 *`"), "{}", &one[..400]);
    }
}
