//! Quick fixes and rewrites: each result is snapshotted, re-read exactly as
//! the runtime reads it, and must fix its diagnostic without a new error;
//! every rewrite offered anywhere in the corpus keeps the file accepted.

use permission_lsp::analysis::{AnalysisOptions, Severity};
use permission_lsp::formats::pi::ide::rewrites::code_actions;
use permission_lsp::formats::pi::lints::analyze_config_text;
use permission_lsp::formats::pi::model::read::read_config;
use permission_lsp::ide::code_actions::{Action, apply};

fn actions_at(text: &str, needle: &str) -> Vec<Action> {
    let at = text.find(needle).expect("needle") + 1;
    let a = analyze_config_text(text, &AnalysisOptions::default());
    code_actions(text, a.file.parsed.root.as_ref(), &a.diagnostics, at..at)
}

fn errors(text: &str) -> usize {
    analyze_config_text(text, &AnalysisOptions::default())
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count()
}

/// Applies the first action and returns the fixed text.
fn fixed(text: &str, needle: &str) -> (String, String) {
    let actions = actions_at(text, needle);
    let a = actions
        .first()
        .unwrap_or_else(|| panic!("no action at {needle} in {text}"));
    (a.title.clone(), apply(text, &a.edits))
}

#[test]
fn quick_fixes() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "trailing comma",
            "{\n  // keep me\n  \"permission\": { \"bash\": { \"git *\": \"allow\", } }\n}\n",
            ",",
        ),
        (
            "byte order mark",
            "\u{feff}{\"permission\": {\"*\": \"ask\"}}",
            "\u{feff}",
        ),
        (
            "state case",
            "{\"permission\": {\"read\": \"Allow\" /* note */}}",
            "Allow",
        ),
        (
            "allow object",
            "{\"permission\": {\"bash\": {\"git *\": {\"action\": \"allow\"}}}}",
            "allow",
        ),
        (
            "reason number",
            "{\"permission\": {\"bash\": {\"npm *\": {\"action\": \"deny\", \"reason\": 42}}}}",
            "42",
        ),
        (
            "surface deny object",
            "{\"permission\": {\"write\": {\"action\": \"deny\", \"reason\": \"read-only\"}}}",
            "{\"action\": \"deny\", \"reason\": \"read",
        ),
        (
            "misspelled key",
            "{\"permision\": {\"*\": \"ask\"}}",
            "permision",
        ),
        (
            "duplicate key",
            "{\"permission\": {\"bash\": {\"*\": \"deny\", \"git *\": \"allow\", \"*\": \"ask\"}}}",
            "\"*\": \"ask\"",
        ),
    ];
    let mut snap = String::new();
    for (name, text, needle) in cases {
        let (title, out) = fixed(text, needle);
        assert!(
            errors(&out) < errors(text) || errors(text) == 0,
            "{name}: {out}"
        );
        let file = read_config(
            &out,
            permission_lsp::formats::pi::model::versions::DEFAULT_TARGET,
        );
        snap.push_str(&format!(
            "## {name}: {title}\n{text}\n=>\n{out}\naccepted: {}\n\n",
            file.accepted()
        ));
    }
    insta::assert_snapshot!(snap);
}

#[test]
fn duplicate_fix_keeps_the_runtime_meaning() {
    let text =
        "{\"permission\": {\"bash\": {\"*\": \"deny\", \"git *\": \"allow\", \"*\": \"ask\"}}}";
    let (_, out) = fixed(text, "\"*\": \"ask\"");
    assert_eq!(
        out,
        "{\"permission\": {\"bash\": {\"*\": \"ask\", \"git *\": \"allow\"}}}"
    );
}

#[test]
fn deny_reason_rewrite_and_back() {
    let text = "{\n  \"permission\": {\n    // npm is slow here\n    \"bash\": { \"npm *\": \"deny\" }\n  }\n}\n";
    let actions = actions_at(text, "\"deny\"");
    let add = actions
        .iter()
        .find(|a| a.title == "Add a deny reason")
        .expect("rewrite offered");
    let out = apply(text, &add.edits);
    assert_eq!(
        out,
        "{\n  \"permission\": {\n    // npm is slow here\n    \"bash\": { \"npm *\": { \"action\": \"deny\", \"reason\": \"\" } }\n  }\n}\n"
    );
    assert!(
        read_config(
            &out,
            permission_lsp::formats::pi::model::versions::DEFAULT_TARGET
        )
        .accepted()
    );
    let back = actions_at(&out, "{ \"action\"");
    let plain = back
        .iter()
        .find(|a| a.title.starts_with("Write as the plain string"))
        .expect("reverse offered");
    assert_eq!(apply(&out, &plain.edits), text);
}

/// Every rewrite offered at any deny value of any corpus file keeps the
/// file accepted, and every quick fix adds no error.
#[test]
fn corpus_actions_never_add_an_error() {
    let dir = format!("{}/tests/fixtures/corpus/pi", env!("CARGO_MANIFEST_DIR"));
    let mut applied = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        if !entry.file_name().to_string_lossy().ends_with(".json") {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap()).into_owned();
        let before = errors(&text);
        let accepted = read_config(
            &text,
            permission_lsp::formats::pi::model::versions::DEFAULT_TARGET,
        )
        .accepted();
        let mut offsets: Vec<usize> = text.match_indices("\"deny\"").map(|(i, _)| i + 1).collect();
        let a = analyze_config_text(&text, &AnalysisOptions::default());
        offsets.extend(a.diagnostics.iter().map(|d| d.range.start));
        for at in offsets {
            for action in code_actions(&text, a.file.parsed.root.as_ref(), &a.diagnostics, at..at) {
                let out = apply(&text, &action.edits);
                assert!(
                    errors(&out) <= before,
                    "{:?}: `{}` added an error",
                    entry.file_name(),
                    action.title
                );
                if accepted {
                    assert!(
                        read_config(
                            &out,
                            permission_lsp::formats::pi::model::versions::DEFAULT_TARGET
                        )
                        .accepted(),
                        "{:?}: `{}`",
                        entry.file_name(),
                        action.title
                    );
                }
                applied += 1;
            }
        }
    }
    assert!(applied > 50, "only {applied} actions applied");
}
