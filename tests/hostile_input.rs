//! Any bytes, any size: the analysis never panics and every range stays in
//! bounds. Mutations of real configs, seeded and repeatable (the fuzz
//! target in `fuzz/` explores further).

use crate::common;

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::formats::pi::lints::analyze_config_bytes;
use permission_lsp::text::{LineIndex, PositionEncoding};

fn check(bytes: &[u8]) {
    let (text, analysis) = analyze_config_bytes(bytes, &AnalysisOptions::default());
    let index = LineIndex::new(&text);
    for d in &analysis.diagnostics {
        assert!(
            d.range.start <= d.range.end && d.range.end <= text.len(),
            "{d:?} in {text:?}"
        );
        let p = index.position(&text, d.range.end, PositionEncoding::Utf16);
        assert!(index.offset(&text, p, PositionEncoding::Utf16) <= text.len());
        for r in &d.related {
            assert!(r.range.end <= text.len());
        }
    }
}

#[test]
fn mutated_corpus_files() {
    let dir = format!("{}/tests/fixtures/corpus/pi", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .map(|e| std::fs::read(e.path()).unwrap())
        .collect();
    files.sort();
    let alphabet: &[u8] =
        b"{}[],:\"'\\/*\n\r\t -0123456789eE.+truefalsnNaI\xef\xbb\xbf\xff\xc3\xa9";
    let mut rng = common::Rng(0x9e3779b97f4a7c15);
    for round in 0..3000 {
        let mut bytes = files[round % files.len()].clone();
        for _ in 0..1 + rng.below(8) {
            let at = rng.below(bytes.len() + 1);
            match rng.below(3) {
                0 if !bytes.is_empty() => {
                    bytes.remove(at.min(bytes.len() - 1));
                }
                1 => bytes.insert(at, alphabet[rng.below(alphabet.len())]),
                _ => {
                    // Cut a span out.
                    let len = rng.below(40);
                    let from = at.min(bytes.len());
                    let to = (from + len).min(bytes.len());
                    bytes.drain(from..to);
                }
            }
        }
        check(&bytes);
    }
}

#[test]
fn pathological_shapes() {
    check(&b"[".repeat(1_000_000));
    check(&b"{\"a\":".repeat(200_000));
    check(&b"/*".repeat(100_000));
    check(&b"\"\\".repeat(100_000));
    check(&[0xff; 10_000]);
    check(b"");
    check("\u{feff}".as_bytes());
    // A 10 MB config with one huge bash map.
    let mut big = String::from("{\"permission\": {\"bash\": {");
    let mut i = 0;
    while big.len() < 10 * 1024 * 1024 {
        big.push_str(&format!("\"cmd{i} *\": \"allow\", "));
        i += 1;
    }
    big.push_str("\"*\": \"ask\"}}}");
    let (_, analysis) = analyze_config_bytes(big.as_bytes(), &AnalysisOptions::default());
    assert!(analysis.file.accepted());
}

/// Tool inputs of any shape and size: the simulation answers, never panics.
#[test]
fn simulation_of_hostile_calls() {
    use permission_lsp::formats::pi::engine::gates::Call;
    use permission_lsp::formats::pi::engine::paths::NoFs;
    use permission_lsp::formats::pi::engine::policy::{PolicyInputs, ScopeText, load_policy};
    use serde_json::json;
    let policy = load_policy(&PolicyInputs {
        global: Some(ScopeText {
            path: "g.json".into(),
            text: r#"{"permission": {"*": "ask", "bash": {"*": "allow", "rm *": "deny"}, "path": {"*.env": "deny", "?*": "ask"}}}"#.into(),
        }),
        home: "/home/u".into(),
        ..PolicyInputs::new(permission_lsp::formats::pi::model::versions::DEFAULT_TARGET)
    })
    .policy;
    // 100 KB of script; and a chain of relative `cd`s, whose effective
    // directory grows with every line (quadratic for the runtime too).
    let big_script = "echo $(cat a.txt) > /tmp/out; cd /srv && ls '..'\n".repeat(2_000);
    let cd_chain = "cd src && ls ../x\n".repeat(300);
    let deep = format!("{}x{}", "$(".repeat(2_000), ")".repeat(2_000));
    let inputs = vec![
        json!({"command": big_script}),
        json!({"command": cd_chain}),
        json!({"command": deep}),
        json!({"command": "echo 'unterminated \"quote $(rm -rf / "}),
        json!({"command": "\u{0}\u{1}\u{fffd}\u{10ffff} rm -rf /"}),
        json!({"command": ["not", "a", "string"]}),
        json!({"command": null}),
        json!({"path": "x".repeat(100_000)}),
        json!({"path": "../".repeat(5_000)}),
        json!(null),
        json!([1, 2, 3]),
        json!("just a string"),
        json!({"tool": {"nested": true}, "server": 5, "arguments": "x"}),
    ];
    for tool in [
        "bash", "read", "mcp", "skill", "write", "my_tool", "", "  ", "\u{0}",
    ] {
        for input in &inputs {
            let sim = policy.simulate(
                &Call {
                    tool: tool.into(),
                    input: input.clone(),
                    agent: None,
                    cwd: "/w/p".into(),
                },
                &NoFs,
            );
            assert!(!sim.gates.is_empty(), "{tool} {input}");
        }
    }
}
