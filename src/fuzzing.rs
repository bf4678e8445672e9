//! Invariants checked on arbitrary input, shared by the `cargo fuzz`
//! targets (`fuzz/`, millions of executions) and the seeded fuzz tests that
//! run a bounded number of cases in CI (`tests/fuzz.rs`). Each function
//! panics when an invariant breaks; a panic anywhere below is a bug.

use crate::analysis::AnalysisOptions;
use crate::formats::Role;
use crate::text::{LineIndex, PositionEncoding};
use std::path::Path;

/// Any bytes as a document of every format and role: read, analysed,
/// outlined, hovered and completed at several offsets, every quick fix
/// applied. Ranges stay in bounds and on character boundaries, and a fix
/// edits only inside the text.
pub fn document(bytes: &[u8]) {
    let options = AnalysisOptions {
        home: "/nonexistent-permission-lsp-fuzz/home".into(),
        ..AnalysisOptions::default()
    };
    // Nothing on disk is read: the project directory does not exist.
    let root = Path::new("/nonexistent-permission-lsp-fuzz/project");
    let ctx = crate::workspace::resolve(&options, Some(root), None, &Default::default(), None);
    simulated(bytes, &options, root);
    for format in crate::formats::all() {
        for role in [Role::Config, Role::Agent, Role::Rules] {
            let (text, analysis) = format.analyse_file(role, bytes.to_vec(), &options, None);
            // What `check` writes a large file's findings from: the same
            // findings in the same order, a batch at a time.
            let (alone_text, alone) = format.findings_of_file(role, bytes.to_vec(), &options, None);
            let mut batches = Vec::new();
            format.findings_of_file_in_order(role, bytes.to_vec(), &options, None, &mut |t, ds| {
                assert_eq!(t, alone_text);
                batches.extend(ds);
            });
            assert!(
                batches == alone,
                "{}: findings in order differ",
                format.id()
            );
            let index = LineIndex::new(&text);
            let in_bounds = |r: &std::ops::Range<usize>| {
                r.start <= r.end
                    && r.end <= text.len()
                    && text.is_char_boundary(r.start)
                    && text.is_char_boundary(r.end)
            };
            for d in &analysis.diagnostics {
                assert!(in_bounds(&d.range), "{d:?}");
                for r in &d.related {
                    assert!(in_bounds(&r.range), "{r:?}");
                }
                for enc in [PositionEncoding::Utf16, PositionEncoding::Utf8] {
                    let p = index.position(&text, d.range.start, enc);
                    assert!(index.offset(&text, p, enc) <= text.len());
                }
            }
            if role == Role::Config {
                let actions = crate::ide::code_actions::code_actions(
                    &text,
                    analysis.root.as_ref(),
                    &analysis.diagnostics,
                    0..text.len(),
                );
                for a in &actions {
                    for e in &a.edits {
                        assert!(in_bounds(&e.range), "{} {e:?}", a.title);
                    }
                    let _ = crate::ide::code_actions::apply(&text, &a.edits);
                }
            }
            let symbols = format.symbols(role, &analysis);
            let mut stack: Vec<&crate::ide::symbols::Symbol> = symbols.iter().collect();
            while let Some(s) = stack.pop() {
                assert!(in_bounds(&s.range) && in_bounds(&s.selection), "{s:?}");
                stack.extend(s.children.iter());
            }
            let _ = format.lens_anchor(role, &analysis);
            let step = (text.len() / 7).max(1);
            for offset in (0..=text.len()).step_by(step).take(8) {
                let mut offset = offset;
                while !text.is_char_boundary(offset) {
                    offset -= 1;
                }
                if let Some(h) = format.hover(role, &text, &analysis, offset, &ctx)
                    && let Some(r) = &h.range
                {
                    assert!(in_bounds(r), "hover {r:?}");
                }
                let _ = format.completions(role, &text, offset, &ctx, true);
                let _ = format.assists(role, &text, &analysis, offset..offset);
            }
        }
    }
}

/// Any bytes as a tool call (a command line, a path, a URL) decided by
/// every format, with the bytes also open as the project's settings file
/// (an unsaved buffer): every answer is allow, ask or deny.
fn simulated(bytes: &[u8], options: &AnalysisOptions, root: &Path) {
    let text = String::from_utf8_lossy(bytes).into_owned();
    // Every JSON file a format reads is the bytes (an unsaved buffer).
    let open = |p: &Path| {
        p.extension()
            .is_some_and(|e| e == "json" || e == "jsonc")
            .then(|| text.clone())
    };
    let ctx =
        crate::workspace::resolve(options, Some(root), None, &Default::default(), Some(&open));
    let line: String = text.chars().take(4096).collect();
    // Every format's sample tools, asked of every format (a tool another
    // format has is hostile input too).
    let mut tools: Vec<(&str, &str)> = crate::formats::all()
        .iter()
        .flat_map(|f| f.sample_tools().iter().copied())
        .collect();
    tools.sort_unstable();
    tools.dedup();
    for format in crate::formats::all() {
        let Ok(sim) = format.simulator(&ctx) else {
            continue;
        };
        let mut calls: Vec<crate::formats::CallRequest> = tools
            .iter()
            .map(|(tool, key)| crate::formats::CallRequest {
                tool: tool.to_string(),
                input: serde_json::json!({ *key: line }),
            })
            .collect();
        calls.extend(format.parse_command_line(&line));
        for call in &calls {
            let r = sim.simulate(call);
            assert!(
                matches!(r.decision.as_str(), "allow" | "ask" | "deny"),
                "{r:?}"
            );
        }
    }
}

/// Any bytes as the LSP input stream, cut at every chunk size: the framer
/// never panics, always makes progress, and only passes well-formed
/// JSON-RPC on to the framework.
pub fn frames(bytes: &[u8]) {
    for step in [1, 7, 4096] {
        let mut framer = crate::lsp::transport::Framer::default();
        for chunk in bytes.chunks(step) {
            framer.push(chunk);
            while let Some(frame) = framer.next_frame() {
                if let crate::lsp::transport::Frame::Body(body) = frame
                    && let Some(out) = crate::lsp::transport::sanitize(body)
                {
                    let v: serde_json::Value =
                        serde_json::from_slice(&out).expect("the guard passes JSON only");
                    assert_eq!(v["jsonrpc"], "2.0");
                }
            }
        }
    }
}

/// Any bytes as a decision log: read by every format's reader, each call
/// decided with a policy that reads nothing from disk, the changes and
/// the rule suggestions computed. The counts add up, the listed skips stay
/// bounded, every change points at a line of the input, and the readers
/// keep their state bounded.
pub fn decision_log(bytes: &[u8]) {
    use crate::history::replay::{Change, MAX_SKIPPED_LISTED, Replayer};
    let home = "/nonexistent-permission-lsp-fuzz/home";
    let lines = bytes.split(|b| *b == b'\n').count() as u64;
    let collector = std::cell::RefCell::new(crate::history::suggest::Collector::default());
    let mut replayer = Replayer::new(Box::new(|f: &'static dyn crate::formats::Format, s: &_| {
        let mut options = AnalysisOptions::for_profile(f.default_profile());
        options.home = home.into();
        let ctx = crate::workspace::resolve(
            &options,
            Some(Path::new("/nonexistent-permission-lsp-fuzz/project")),
            None,
            &Default::default(),
            None,
        );
        // The recorded working directory is kept only when it is the
        // (absent) fuzz project: nothing real is read.
        let mut session: crate::history::Session = s.clone();
        session.cwd = None;
        crate::history::replay::policy_for(&ctx, f, &session)
    }));
    replayer.observer = Some(Box::new(|f, c| collector.borrow_mut().add(f, c)));
    let mut changes = 0u64;
    let mut sink = |c: &Change| {
        assert!(
            c.line >= 1 && c.line <= lines,
            "a change at line {} of {lines}",
            c.line
        );
        assert_ne!(c.recorded, c.now);
        changes += 1;
    };
    replayer.replay("fuzz", &mut &bytes[..], &mut sink);
    drop(replayer.observer.take());
    let s = &replayer.summary;
    assert_eq!(s.changed, changes);
    assert!(s.changed <= s.calls);
    assert_eq!(s.newly_allowed + s.newly_asked + s.newly_denied, s.changed);
    assert_eq!(s.transitions.values().sum::<u64>(), s.changed);
    assert!(s.skipped.len() <= MAX_SKIPPED_LISTED);
    assert!(s.skipped.len() as u64 <= s.unrebuildable);
    assert_eq!(s.files.len(), 1);
    assert!(s.files[0].calls <= s.calls);
    let _ = collector.borrow().suggestions(1);
}

/// Any text as a command line: the bash parser's linear path (a newline
/// added and edited out) gives the tree of the command as written, node for
/// node, and the scan that bounds it counts at least the tree's pipes.
/// Longer inputs are cut to 4 KiB (the reference parse can cost the square
/// of the length).
pub fn command(bytes: &[u8]) {
    let bytes = &bytes[..bytes.len().min(4096)];
    let command = String::from_utf8_lossy(bytes);
    if let Err(e) = crate::syntax::bash::same_as_written(&command) {
        panic!("{e}");
    }
    // The scan that refuses long pipelines never counts fewer pipes than
    // the tree has.
    if let Err(e) = crate::syntax::bash::scan_bounds_tree(&command) {
        panic!("{e}");
    }
}
