//! `check` over every real pi config of the corpus (copied from the
//! project's shared corpus; provenance in `fixtures/corpus/pi/SOURCES.tsv`):
//! no panic, and the findings are snapshotted.

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::cli::render::line_col_1;
use permission_lsp::formats::pi::lints::analyze_config_bytes;
use permission_lsp::text::LineIndex;

/// The corpus configs of `dir` (`*.json`), by name.
fn config_names(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
}

#[test]
fn corpus_pi_configs() {
    let dir = format!("{}/tests/fixtures/corpus/pi", env!("CARGO_MANIFEST_DIR"));
    let names = config_names(&dir);
    assert!(names.len() >= 80);
    let mut out = String::new();
    let (mut accepted, mut rejected) = (0, 0);
    for name in &names {
        let bytes = std::fs::read(format!("{dir}/{name}")).unwrap();
        let (text, analysis) = analyze_config_bytes(&bytes, &AnalysisOptions::default());
        let index = LineIndex::new(&text);
        if analysis.file.accepted() {
            accepted += 1;
        } else {
            rejected += 1;
        }
        if analysis.diagnostics.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "{name} (accepted: {})\n",
            analysis.file.accepted()
        ));
        for d in &analysis.diagnostics {
            let (l, c) = line_col_1(&index, &text, d.range.start);
            out.push_str(&format!(
                "  {}:{} {} {} — {}\n",
                l,
                c,
                d.severity.as_str(),
                d.code.as_str(),
                d.message
            ));
            if let Some(r) = &d.runtime_issue {
                out.push_str(&format!("      runtime: {r}\n"));
            }
        }
    }
    out.insert_str(
        0,
        &format!(
            "{} files: {accepted} accepted, {rejected} rejected\n\n",
            names.len()
        ),
    );
    insta::assert_snapshot!(out);
}

/// The runtime's own loader was run on every corpus file
/// (`fixtures/runtime/corpus-load-observed.jsonl`): the issue texts agree.
#[test]
fn corpus_issue_texts_match_the_runtime() {
    let dir = format!("{}/tests/fixtures", env!("CARGO_MANIFEST_DIR"));
    let observed =
        std::fs::read_to_string(format!("{dir}/runtime/corpus-load-observed.jsonl")).unwrap();
    let pinned = {
        use permission_lsp::contract::prelude::*;
        AnalysisOptions::for_profile(permission_lsp::formats::pi::Pi.profile("20.7.3").unwrap())
    };
    let mut n = 0;
    for line in observed.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = v["file"].as_str().unwrap();
        let want: Vec<String> = serde_json::from_value(v["issues"].clone()).unwrap();
        let bytes = std::fs::read(format!("{dir}/corpus/pi/{name}")).unwrap();
        // The loader observed is 20.7.3's: read as it reads.
        let (_, analysis) = analyze_config_bytes(&bytes, &pinned);
        assert_eq!(analysis.file.runtime_issues("<path>"), want, "{name}");
        n += 1;
    }
    assert_eq!(n, 83);
}

/// The default target is `auto`: of the ten corpus files 20.7.3 rejects,
/// the six with keys of a newer pi-permission-system are read as the
/// lowest version that accepts them (and say so), the four with keys only
/// forks read stay rejected with the fork named.
#[test]
fn auto_accepts_newer_keys_and_names_the_forks() {
    let dir = format!("{}/tests/fixtures/corpus/pi", env!("CARGO_MANIFEST_DIR"));
    let pinned = {
        use permission_lsp::contract::prelude::*;
        AnalysisOptions::for_profile(permission_lsp::formats::pi::Pi.profile("20.7.3").unwrap())
    };
    let (mut newer, mut forks) = (0, 0);
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let (_, on_20_7_3) = analyze_config_bytes(&bytes, &pinned);
        if on_20_7_3.file.accepted() {
            continue;
        }
        let (_, auto) = analyze_config_bytes(&bytes, &AnalysisOptions::default());
        let codes: Vec<&str> = auto.diagnostics.iter().map(|d| d.code.as_str()).collect();
        if auto.file.accepted() {
            newer += 1;
            assert!(codes.contains(&"PL112"), "{}: {codes:?}", path.display());
        } else {
            forks += 1;
            let named = auto
                .diagnostics
                .iter()
                .filter(|d| d.code.as_str() == "PL111")
                .all(|d| d.message.contains("read only by"));
            assert!(named, "{}", path.display());
        }
    }
    assert_eq!((newer, forks), (6, 4));
}

/// What `check` reports (the findings without the JSON tree, which is
/// dropped before the precedence analysis) equals the editor's analysis,
/// for every corpus config as a project's config in a session.
#[test]
fn findings_alone_equal_the_analysis() {
    let dir = format!("{}/tests/fixtures/corpus/pi", env!("CARGO_MANIFEST_DIR"));
    let tmp = std::env::temp_dir().join(format!("pl-pi-findings-{}", std::process::id()));
    let (home, project) = (tmp.join("home"), tmp.join("project"));
    let doc = project.join(".pi/extensions/pi-permission-system/config.json");
    std::fs::create_dir_all(doc.parent().unwrap()).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let pi = permission_lsp::formats::by_id("pi").unwrap();
    let mut options = AnalysisOptions::for_profile(pi.default_profile());
    options.home = home.display().to_string();
    let names = config_names(&dir);
    for name in &names {
        let bytes = std::fs::read(format!("{dir}/{name}")).unwrap();
        std::fs::write(&doc, &bytes).unwrap();
        let ctx = permission_lsp::workspace::resolve(
            &options,
            Some(&project),
            Some(&doc),
            &Default::default(),
            None,
        );
        let role = permission_lsp::formats::Role::Config;
        let (text, findings) = pi.findings_of_file(role, bytes.clone(), &options, Some(&ctx));
        let analysis = pi.analyse(role, &text, &ctx);
        assert_eq!(findings, analysis.diagnostics, "{name}");
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
