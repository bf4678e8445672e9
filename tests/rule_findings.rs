//! One snapshot per finding of the drift and precedence analysis
//! (PL013, PL209–PL224): the diagnostics of a small config, then every
//! quick fix offered for that code applied to the text, re-read the way
//! the runtime reads it, and re-analysed — the fix must remove its finding
//! and add no error.

use permission_lsp::analysis::{AnalysisOptions, Severity};
use permission_lsp::cli::render::{Style, human};
use permission_lsp::formats::pi::codes::Code;
use permission_lsp::formats::pi::ide::rewrites::code_actions;
use permission_lsp::formats::pi::lints::analyze_config_text;
use permission_lsp::ide::code_actions::apply;
use permission_lsp::text::LineIndex;

fn options() -> AnalysisOptions {
    AnalysisOptions {
        home: "/home/user".into(),
        ..AnalysisOptions::default()
    }
}

fn render(code: Code, text: &str) -> String {
    let analysis = analyze_config_text(text, &options());
    let index = LineIndex::new(text);
    let mut out = String::new();
    let mine: Vec<_> = analysis
        .diagnostics
        .iter()
        .filter(|d| d.code == code)
        .collect();
    assert!(!mine.is_empty(), "{}: no finding in\n{text}", code.as_str());
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
    let errors_before = analysis
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    for d in mine {
        let root = analysis.file.parsed.root.as_ref();
        for action in code_actions(text, root, &analysis.diagnostics, d.range.clone())
            .into_iter()
            .filter(|a| a.fixes.as_ref().is_some_and(|f| f.code == code))
        {
            let fixed = apply(text, &action.edits);
            let after = analyze_config_text(&fixed, &options());
            let errors_after = after
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .count();
            assert!(
                errors_after <= errors_before,
                "{}: `{}` added an error",
                code.as_str(),
                action.title
            );
            assert!(
                after.file.accepted() || !analysis.file.accepted(),
                "{}: `{}` broke the file",
                code.as_str(),
                action.title
            );
            let gone = !after
                .diagnostics
                .iter()
                .any(|x| x.code == code && x.message == d.message);
            assert!(
                gone,
                "{}: `{}` left its finding",
                code.as_str(),
                action.title
            );
            out.push_str(&format!(
                "--- fix: {}\n{fixed}\n(accepted by the runtime: {})\n",
                action.title,
                after.file.accepted()
            ));
        }
    }
    out
}

fn case(code: Code, text: &str) {
    insta::assert_snapshot!(code.as_str(), render(code, text), text);
}

#[test]
fn tool_hidden() {
    case(
        Code::ToolHidden,
        "{\n  \"permission\": {\n    \"bash\": {\n      \"*\": \"deny\",\n      \"git *\": \"allow\"\n    }\n  }\n}\n",
    );
}

#[test]
fn overridden_rule() {
    case(
        Code::OverriddenRule,
        "{\n  \"permission\": {\n    \"bash\": {\n      // the exception\n      \"git push *\": \"deny\", // keep pushes out\n      \"git *\": \"allow\",\n      \"npm *\": \"ask\"\n    }\n  }\n}\n",
    );
}

#[test]
fn overridden_rule_inline_map() {
    insta::assert_snapshot!(
        "PL210-inline",
        render(
            Code::OverriddenRule,
            "{\"permission\": {\"bash\": {\"rm -rf /\": \"deny\", \"rm *\": \"ask\"}}}"
        )
    );
}

#[test]
fn shadowed_rule() {
    case(
        Code::ShadowedRule,
        "{\n  \"permission\": {\n    \"bash\": {\n      \"git status\": \"allow\",\n      \"git *\": \"allow\"\n    }\n  }\n}\n",
    );
}

#[test]
fn redundant_rule() {
    case(
        Code::RedundantRule,
        "{\n  \"permission\": {\n    \"bash\": {\n      \"npm *\": \"allow\",\n      \"npm test\": \"allow\"\n    }\n  }\n}\n",
    );
}

#[test]
fn bash_operator_pattern() {
    case(
        Code::BashOperatorPattern,
        "{ \"permission\": { \"bash\": { \"curl * | sh\": \"deny\" } } }\n",
    );
}

#[test]
fn bash_env_prefix() {
    case(
        Code::BashEnvPrefix,
        "{ \"permission\": { \"bash\": { \"NODE_ENV=production *\": \"allow\" } } }\n",
    );
}

#[test]
fn home_in_pattern() {
    case(
        Code::HomeInPattern,
        "{ \"permission\": { \"bash\": { \"~/bin/deploy *\": \"allow\" } } }\n",
    );
}

#[test]
fn pattern_whitespace() {
    case(
        Code::PatternWhitespace,
        "{ \"permission\": { \"bash\": { \"git status \": \"allow\" } } }\n",
    );
}

#[test]
fn double_star() {
    case(
        Code::DoubleStar,
        "{ \"permission\": { \"write\": { \"src/**/*.ts\": \"allow\" } } }\n",
    );
}

#[test]
fn wrapper_allow_clamped() {
    case(
        Code::WrapperAllowClamped,
        "{ \"permission\": { \"bash\": { \"sudo *\": \"allow\" } } }\n",
    );
}

#[test]
fn mcp_catch_all_shadows() {
    // The runtime documentation's own example (D31).
    case(
        Code::McpCatchAllShadows,
        "{ \"permission\": { \"mcp\": { \"*\": \"ask\", \"myServer:*\": \"allow\", \"dangerousServer\": \"deny\" } } }\n",
    );
}

#[test]
fn mcp_baseline_overridden() {
    case(
        Code::McpBaselineOverridden,
        "{ \"permission\": { \"mcp\": { \"exa_*\": \"allow\", \"*\": \"ask\" } } }\n",
    );
}

#[test]
fn path_allow_not_grant() {
    case(
        Code::PathAllowNotGrant,
        "{ \"permission\": { \"path\": { \"/opt/cache/*\": \"allow\" } } }\n",
    );
}

#[test]
fn shell_tool_key() {
    case(
        Code::ShellToolKey,
        "{ \"shellTools\": { \"read\": { \"commandArgument\": \"path\" } }, \"permission\": { \"bash\": { \"rm *\": \"deny\" } } }\n",
    );
}

#[test]
fn yolo_floors() {
    case(
        Code::YoloFloors,
        "{ \"yoloMode\": true, \"permission\": { \"*\": \"ask\" } }\n",
    );
}

#[test]
fn star_without_space() {
    case(
        Code::StarWithoutSpace,
        "{ \"permission\": { \"bash\": { \"npm*\": \"allow\" } } }\n",
    );
}

#[test]
fn unknown_ignore_code() {
    case(
        Code::IgnoreCommentCode,
        "{\n  \"permission\": {\n    \"bash\": {\n      \"npm*\": \"allow\" // permission-lsp-ignore PL999\n    }\n  }\n}\n",
    );
}

#[test]
fn ignore_comments_suppress() {
    let text = "{\n  // permission-lsp-ignore-file PL224\n  \"permission\": {\n    \"bash\": {\n      // permission-lsp-ignore overridden-rule\n      \"git push *\": \"deny\",\n      \"npm*\": \"allow\",\n      \"*\": \"ask\"\n    }\n  }\n}\n";
    let a = analyze_config_text(text, &options());
    let codes: Vec<&str> = a.diagnostics.iter().map(|d| d.code.as_str()).collect();
    // `npm*` is still overridden by `*` (its line has no suppression).
    assert_eq!(codes, ["PL210"]);
    assert_eq!(&text[a.diagnostics[0].range.clone()], "\"npm*\"");
}

/// A pattern whose pipeline the bash reader refuses is said once (PL229),
/// and no lint that needs its commands guesses them (PL213 said "no
/// command at all").
#[test]
fn pattern_not_parsed() {
    let long = format!("{}a )", "a|".repeat(300));
    let text = format!(
        "{{ \"permission\": {{ \"bash\": {{ \"{long}\": \"deny\", \"env {long}\": \"allow\", \"git *\": \"allow\" }} }} }}\n"
    );
    let a = analyze_config_text(&text, &options());
    let mine: Vec<_> = a
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::PatternNotParsed)
        .collect();
    assert_eq!(mine.len(), 2, "{:?}", a.diagnostics);
    assert!(
        mine[0].message.contains("300 commands"),
        "{}",
        mine[0].message
    );
    assert!(
        !a.diagnostics
            .iter()
            .any(|d| d.code == Code::BashOperatorPattern || d.code == Code::WrapperAllowClamped)
    );
}

/// Past the bytes of bash patterns one file gives the bash reader, the rest
/// are left unread and one finding (at the first) says how many; the
/// patterns before it keep their findings. (A file of 37,000 broken
/// 64-command pipelines, 10 MB, took minutes before the bound.)
#[test]
fn patterns_past_the_parse_budget_are_counted_not_read() {
    use permission_lsp::formats::pi::lints::pattern_lints::PARSE_BUDGET;
    let pattern = |i: usize| format!("cmd{i} {})", "| a ".repeat(64));
    let each = pattern(0).len();
    let fit = PARSE_BUDGET / (each + 2);
    let n = fit + 30;
    let rules: Vec<String> = (0..n)
        .map(|i| format!("\"{}\": \"deny\"", pattern(i)))
        .collect();
    let text = format!(
        "{{ \"permission\": {{ \"bash\": {{ {}, \"*\": \"ask\" }} }} }}\n",
        rules.join(", ")
    );
    let a = analyze_config_text(&text, &options());
    let operators = a
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::BashOperatorPattern)
        .count();
    let unread: Vec<_> = a
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::PatternNotParsed)
        .collect();
    assert_eq!(unread.len(), 1, "{unread:?}");
    // Every pattern is either read (and found to be split) or counted.
    let later: usize = unread[0]
        .message
        .split("nor ")
        .nth(1)
        .and_then(|m| m.split(' ').next())
        .and_then(|k| k.parse().ok())
        .unwrap_or_else(|| panic!("{}", unread[0].message));
    assert_eq!(operators + 1 + later, n, "{}", unread[0].message);
    assert!(operators >= fit, "{operators} < {fit}");
    // The finding sits on the first pattern left unread.
    let first = &text[unread[0].range.clone()];
    assert_eq!(first, format!("\"{}\"", pattern(operators)));
}

/// Every code of the drift and precedence analysis has a case above.
#[test]
fn every_rule_finding_code_has_a_case() {
    let src = std::fs::read_to_string(file!()).unwrap();
    for c in Code::ALL {
        let n: u32 = c.as_str()[2..].parse().unwrap();
        if n == 13 || (209..=224).contains(&n) || n == 229 {
            let variant = format!("{c:?}");
            assert!(
                src.contains(&format!("Code::{variant}")),
                "no case for {}",
                c.as_str()
            );
        }
    }
}

#[test]
fn source_action_adds_reasons_to_every_string_deny_of_a_map() {
    let text = "{\n  \"permission\": {\n    \"bash\": {\n      \"rm *\": \"deny\", // no\n      \"git *\": \"allow\",\n      \"curl *\": \"deny\"\n    }\n  }\n}\n";
    let a = analyze_config_text(text, &options());
    let at = text.find("\"bash\"").unwrap() + 1;
    let actions = code_actions(text, a.file.parsed.root.as_ref(), &a.diagnostics, at..at);
    let source = actions
        .iter()
        .find(|x| x.title.starts_with("Add a deny reason to all 2"))
        .expect("source action offered on the surface key");
    let out = apply(text, &source.edits);
    insta::assert_snapshot!("add-reasons", out);
    assert!(analyze_config_text(&out, &options()).file.accepted());
    assert!(out.contains("// no"), "comments stay");
}
