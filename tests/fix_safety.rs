//! Every quick fix and rewrite offered anywhere on every fixture of every
//! format, applied: the edits stay inside the text and do not overlap,
//! the file is read again as its runtime reads it and has no new error
//! and is not dropped, no comment is lost, and a quick fix makes its own
//! finding go away. Fixtures: each format's public corpus (kept under
//! `tests/fixtures/`, placed back at the path it was found at) and the
//! hand-written mistakes of `tests/fixtures/fix-safety/`.

use permission_lsp::analysis::{AnalysisOptions, Severity};
use permission_lsp::contract::context::Context;
use permission_lsp::contract::{Analysis, Role};
use permission_lsp::formats::CallRequest;
use permission_lsp::formats::{self, Detected, Format};
use permission_lsp::ide::code_actions::{ActionKind, apply, code_actions};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const PROJECT: &str = "/nonexistent-permission-lsp-fixes/project";

/// Corpus files are named `owner__repo__path__to__file`: the file at its
/// path in a project.
fn corpus() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let dirs = [
        "corpus/pi",
        "corpus/opencode",
        "claude/corpus",
        "codex/corpus",
        "gemini/corpus",
        "qwen/corpus",
    ];
    let mut out = Vec::new();
    for d in dirs {
        let mut entries: Vec<_> = std::fs::read_dir(root.join(d)).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().into_owned();
            let parts: Vec<&str> = name.split("__").collect();
            if parts.len() < 3 || name.ends_with(".tsv") {
                continue;
            }
            let bytes = std::fs::read(e.path()).unwrap();
            out.push((
                Path::new(PROJECT).join(parts[2..].join("/")),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
    }
    let hand = root.join("fix-safety");
    let mut stack = vec![hand.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n != "README.md") {
                let rel = p.strip_prefix(&hand).unwrap();
                // The first folder is the case; the rest is the file's
                // place in its project.
                let inner: PathBuf = rel.components().skip(1).collect();
                out.push((
                    Path::new(PROJECT).join(inner),
                    std::fs::read_to_string(&p).unwrap(),
                ));
            }
        }
    }
    out
}

/// The comments of a file, as written (`#` lines of YAML, TOML and
/// Starlark; `//` and `/* */` of JSON), each trimmed.
fn comments(path: &Path, text: &str) -> Vec<String> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let mut out = Vec::new();
    if matches!(ext, "json" | "jsonc") {
        let b = text.as_bytes();
        let (mut i, mut in_str) = (0, false);
        while i < b.len() {
            match (in_str, b[i]) {
                (true, b'\\') => i += 1,
                (true, b'"') | (false, b'"') => in_str = !in_str,
                (false, b'/') if b.get(i + 1) == Some(&b'/') => {
                    let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                    out.push(text[i..end].trim().to_string());
                    i = end;
                    continue;
                }
                (false, b'/') if b.get(i + 1) == Some(&b'*') => {
                    let end = text[i + 2..].find("*/").map_or(text.len(), |n| i + n + 4);
                    out.push(text[i..end].trim().to_string());
                    i = end;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    } else {
        for line in text.lines() {
            let t = line.trim_start();
            if let Some(c) = permission_lsp::ide::block_edits::comment_start(t) {
                out.push(t[c..].trim().to_string());
            }
        }
    }
    out
}

const HOME: &str = "/nonexistent-permission-lsp-fixes/home";

/// Runs `f` with the session of a document at `path` whose unsaved text
/// is `text` (nothing else exists on disk).
fn with_session<R>(
    project: &Path,
    path: &Path,
    text: &str,
    agent: Option<&str>,
    f: impl FnOnce(&Context<'_>) -> R,
) -> R {
    let options = AnalysisOptions {
        home: HOME.into(),
        agent: agent.map(str::to_string),
        ..AnalysisOptions::default()
    };
    let owned = text.to_string();
    let doc = path.to_path_buf();
    let open = move |p: &Path| (p == doc).then(|| owned.clone());
    let ctx = permission_lsp::workspace::resolve(
        &options,
        Some(project),
        Some(path),
        &Default::default(),
        Some(&open),
    );
    f(&ctx)
}

fn read(format: &dyn Format, role: Role, path: &Path, text: &str) -> Analysis {
    with_session(Path::new(PROJECT), path, text, None, |ctx| {
        format.analyse(role, text, ctx)
    })
}

fn errors(a: &Analysis) -> usize {
    a.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count()
}

/// Codes whose fix removes comments on purpose (the runtime refuses a
/// file with comments).
fn removes_comments(code: &str) -> bool {
    formats::code_by_name(code).is_some_and(|c| c.0.name.contains("comment"))
}

/// Where offset `at` of the text is after the edits (`None` when an edit
/// replaces it).
fn moved(edits: &[permission_lsp::ide::code_actions::TextEdit], at: usize) -> Option<usize> {
    let mut shift: isize = 0;
    for e in edits {
        if e.range.start < at && at < e.range.end || e.range.start == at && !e.range.is_empty() {
            return None;
        }
        if e.range.end <= at && !(e.range.is_empty() && e.range.start == at) {
            shift += e.new_text.len() as isize - e.range.len() as isize;
        }
    }
    Some((at as isize + shift) as usize)
}

#[test]
fn every_fix_on_every_fixture_keeps_the_file() {
    let mut applied: HashMap<&'static str, usize> = HashMap::new();
    let mut problems = Vec::new();
    for (path, text) in corpus() {
        let shown = path
            .strip_prefix(PROJECT)
            .unwrap_or(&path)
            .display()
            .to_string();
        let kind = match formats::detect_file(&path.to_string_lossy(), &text) {
            Detected::Kind(k) => k,
            _ => continue,
        };
        let (format, role) = (kind.format, kind.role);
        let before = read(format, role, &path, &text);
        let before_comments = comments(&path, &text);
        let mut seen = std::collections::HashSet::new();
        for d in &before.diagnostics {
            let mut actions = code_actions(
                &text,
                before.root.as_ref(),
                std::slice::from_ref(d),
                d.range.clone(),
            );
            actions.extend(format.assists(role, &text, &before, d.range.clone()));
            for a in actions {
                if !seen.insert((a.title.clone(), format!("{:?}", a.edits))) {
                    continue;
                }
                let mut sorted = a.edits.clone();
                sorted.sort_by_key(|e| (e.range.start, e.range.end));
                if sorted.iter().any(|e| text.get(e.range.clone()).is_none())
                    || sorted.windows(2).any(|w| w[0].range.end > w[1].range.start)
                {
                    problems.push(format!(
                        "{shown}: `{}`: edits out of bounds or overlapping",
                        a.title
                    ));
                    continue;
                }
                let out = apply(&text, &a.edits);
                let after = read(format, role, &path, &out);
                *applied.entry(format.id()).or_default() += 1;
                let what = format!("{shown}: {} `{}`", d.code.as_str(), a.title);
                if errors(&after) > errors(&before) {
                    let new: Vec<String> = after
                        .diagnostics
                        .iter()
                        .filter(|x| x.severity == Severity::Error)
                        .map(|x| format!("{} {}", x.code.as_str(), x.message))
                        .collect();
                    problems.push(format!("{what}: new error: {new:?}\n{out}"));
                }
                if before.accepted && !after.accepted {
                    problems.push(format!("{what}: the runtime drops the fixed file\n{out}"));
                }
                if !removes_comments(d.code.as_str()) {
                    let mut left = comments(&path, &out);
                    for c in &before_comments {
                        match left.iter().position(|x| x == c) {
                            Some(i) => {
                                left.swap_remove(i);
                            }
                            None => problems.push(format!("{what}: lost the comment {c:?}\n{out}")),
                        }
                    }
                }
                if a.kind == ActionKind::QuickFix && a.fixes.is_some() {
                    // The finding is gone from where it was (a finding
                    // the fix uncovers elsewhere is a new one).
                    let at = moved(&a.edits, d.range.start);
                    let stays = after
                        .diagnostics
                        .iter()
                        .any(|y| y.code == d.code && at.is_some_and(|at| y.range.start == at));
                    if stays {
                        problems.push(format!("{what}: the finding stays\n{out}"));
                    }
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n\n")
    );
    for id in ["pi", "claude", "opencode", "qwen"] {
        assert!(
            applied.get(id).copied().unwrap_or(0) > 0,
            "no fix applied for {id}: {applied:?}"
        );
    }
    eprintln!("fixes applied: {applied:?}");
}

/// OpenCode: a `~/` folder rule under `read` never matches (OC006); its fix
/// moves it under `external_directory` after every rule that decides a
/// path of that folder — proven by deciding a read there before and after
/// — while a narrower rule after it keeps deciding its own path.
#[test]
fn a_moved_rule_decides_where_it_lands() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fix-safety");
    let opencode = formats::by_id("opencode").unwrap();
    for (file, place, agent) in [
        ("opencode-external/opencode.json", "opencode.json", None),
        (
            "opencode-agent/.opencode/agents/rev.md",
            ".opencode/agents/rev.md",
            Some("rev"),
        ),
    ] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        // On disk, where OpenCode discovers agent files.
        let project = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/tmp/fix-safety")
            .join(file.split('/').next().unwrap());
        let path = project.join(place);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap();
        let role = match formats::detect_file(&path.to_string_lossy(), &text) {
            Detected::Kind(k) => k.role,
            other => panic!("{file}: {other:?}"),
        };
        let decide = |text: &str, target: &str| {
            with_session(&project, &path, text, agent, |ctx| {
                let sim = opencode.simulator(ctx).unwrap();
                sim.simulate(&CallRequest {
                    tool: "read".into(),
                    input: serde_json::json!({ "filePath": format!("{HOME}/{target}") }),
                })
                .decision
            })
        };
        assert_eq!(decide(&text, ".ssh/id_rsa"), "allow", "{file}: the bug");
        let a = read(opencode, role, &path, &text);
        let d = a
            .diagnostics
            .iter()
            .find(|d| d.code.as_str() == "OC006")
            .unwrap_or_else(|| panic!("{file}: no OC006"));
        let actions = code_actions(
            &text,
            a.root.as_ref(),
            std::slice::from_ref(d),
            d.range.clone(),
        );
        let fix = actions
            .iter()
            .find(|x| x.title.starts_with("Move to `external_directory`"))
            .unwrap_or_else(|| panic!("{file}: no move"));
        let out = apply(&text, &fix.edits);
        assert_eq!(decide(&out, ".ssh/id_rsa"), "deny", "{file}:\n{out}");
        assert_eq!(decide(&out, "notes.txt"), "allow", "{file}:\n{out}");
        if file.ends_with(".json") {
            assert_eq!(
                decide(&out, ".ssh/public/id.pub"),
                "allow",
                "{file}:\n{out}"
            );
        }
    }
}
