//! Snapshot of the diagnostics for every parser- and validation-level drift
//! case of the catalogue (D01–D13), on the exact text the runtime was run on.

use crate::common;

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::cli::render::{Style, human};
use permission_lsp::formats::pi::lints::analyze_config_text;
use permission_lsp::text::LineIndex;

fn render(text: &str) -> String {
    let analysis = analyze_config_text(text, &AnalysisOptions::default());
    let index = LineIndex::new(text);
    let mut out = format!("accepted by the runtime: {}\n\n", analysis.file.accepted());
    for d in &analysis.diagnostics {
        out.push_str(&human(
            "config.json",
            text,
            &index,
            d,
            Style { color: false },
        ));
        out.push('\n');
    }
    out
}

#[test]
fn drift_cases_d01_to_d13() {
    let mut seen = Vec::new();
    for case in common::jsonl("conformance/pi-drift-cases.jsonl") {
        let id = case["id"].as_str().unwrap().to_string();
        let num: u32 = id[1..3].parse().unwrap();
        if num > 13 || case.get("agents").is_some() {
            continue;
        }
        let text = match &case["global"] {
            serde_json::Value::String(s) => s.clone(),
            other => serde_json::to_string_pretty(other).unwrap(),
        };
        let title = case["title"].as_str().unwrap();
        insta::assert_snapshot!(id.clone(), render(&text), &format!("{id}: {title}\n{text}"));
        seen.push(id);
    }
    assert_eq!(
        seen,
        [
            "D01", "D02", "D03", "D04", "D06", "D07", "D08", "D09", "D10", "D11", "D12", "D13"
        ]
    );
}

/// Accepted configs whose rules cannot do what they seem to.
#[test]
fn drift_cases_rule_lints() {
    let wanted = ["D14", "D15", "D17", "D20", "D33", "D34", "D36", "D40"];
    let mut seen = Vec::new();
    for case in common::jsonl("conformance/pi-drift-cases.jsonl") {
        let id = case["id"].as_str().unwrap().to_string();
        if !wanted.contains(&id.as_str()) {
            continue;
        }
        let text = serde_json::to_string_pretty(&case["global"]).unwrap();
        let out = render(&text);
        assert!(out.contains("[PL2"), "{id}: no rule lint\n{out}");
        insta::assert_snapshot!(id.clone(), out, &format!("{id}: {}\n{text}", case["title"]));
        seen.push(id);
    }
    assert_eq!(seen.len(), wanted.len(), "{seen:?}");
}

#[test]
fn single_quotes_and_nan() {
    insta::assert_snapshot!(render("{\n  'permission': {\"bash\": NaN}\n}\n"));
}

#[test]
fn invalid_utf8_is_read_like_the_runtime() {
    let bytes = b"{\"permission\": {\"bash\": {\"caf\xe9 *\": \"allow\"}}}";
    let (text, analysis) = permission_lsp::formats::pi::lints::analyze_config_bytes(
        bytes,
        &AnalysisOptions::default(),
    );
    assert!(text.contains('\u{fffd}'));
    assert_eq!(analysis.diagnostics[0].code.as_str(), "PL006");
    assert!(analysis.file.accepted());
}
