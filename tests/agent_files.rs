//! Agent files: every entry the runtime's mini-YAML drops is reported, the
//! quick fixes rewrite it into what the runtime reads, and — checked
//! against the reference runtime — the rewritten rule then takes effect.

use crate::common;

use common::oracle::{oracle_or_skip, run_oracle};
use permission_lsp::cli::render::{Style, human};
use permission_lsp::formats::pi::codes::Code;
use permission_lsp::formats::pi::ide::rewrites::code_actions;
use permission_lsp::formats::pi::lints::agent_file::analyze_agent_text;
use permission_lsp::formats::pi::model::agent::agent_permission;
use permission_lsp::ide::code_actions::apply;
use permission_lsp::text::LineIndex;
use serde_json::json;

/// The drift case D41 plus the other ways an entry is dropped.
const AGENT: &str = "---\nname: a\npermission:\n  mcp:\n    exa:*: allow\n  read: allow # reviewed\n  bash:\n    \"npm *\": { action: deny, reason: Use pnpm }\n    \"pip *\":\n      action: deny\n      reason: Use uv\n    \"git *\": Allow\n  write:\n    \"*.lock\":\n      action: allow\n---\nbody\n";

/// Applies every quick fix offered for the dropped entries, one after the
/// other (re-analysing in between).
fn fix_all(mut text: String) -> (String, Vec<String>) {
    let mut titles = Vec::new();
    loop {
        let d = analyze_agent_text(&text);
        let Some((diag, action)) = d.iter().find_map(|x| {
            code_actions(&text, None, &d, x.range.clone())
                .into_iter()
                .find(|a| a.fixes.as_ref() == Some(x))
                .map(|a| (x.clone(), a))
        }) else {
            return (text, titles);
        };
        titles.push(format!("{}: {}", diag.code.as_str(), action.title));
        text = apply(&text, &action.edits);
    }
}

#[test]
fn dropped_entries_and_their_fixes() {
    let d = analyze_agent_text(AGENT);
    let index = LineIndex::new(AGENT);
    let mut snap = String::new();
    for x in &d {
        snap.push_str(&human(
            "agents/a.md",
            AGENT,
            &index,
            x,
            Style { color: false },
        ));
        snap.push('\n');
    }
    let (fixed, titles) = fix_all(AGENT.to_string());
    snap.push_str(&format!("--- fixes: {titles:#?}\n{fixed}"));
    insta::assert_snapshot!(snap);
    assert!(d.iter().all(|x| x.code == Code::FrontmatterEntryDropped));
    // The fixed file keeps the rules the fixes rewrote.
    let kept = agent_permission(&fixed).unwrap();
    let names: Vec<&str> = kept.iter().map(|s| s.key.as_str()).collect();
    assert!(
        names.contains(&"read") && names.contains(&"bash"),
        "{names:?}"
    );
    // CRLF files get CRLF fixes, and ranges in the original text.
    let crlf = AGENT.replace('\n', "\r\n");
    let (fixed_crlf, _) = fix_all(crlf.clone());
    assert_eq!(fixed_crlf, fixed.replace('\n', "\r\n"));
}

#[test]
fn an_unclosed_frontmatter_contributes_nothing() {
    let d = analyze_agent_text("---\npermission:\n  bash: deny\n");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, Code::FrontmatterNotRead);
}

/// With the runtime: before the fixes the calls fall through to the global
/// `*` (ask); after them the rewritten rules decide.
#[test]
fn fixed_rules_take_effect_in_the_runtime() {
    let Some(dir) = oracle_or_skip("agent-file fixes against the runtime") else {
        return;
    };
    let (fixed, _) = fix_all(AGENT.to_string());
    let calls = json!([
        { "tool": "read", "input": { "path": "a" } },
        { "tool": "bash", "input": { "command": "npm i" } },
    ]);
    let case = |id: &str, md: &str| json!({ "id": id, "global": "{\"permission\": {\"*\": \"ask\"}}", "agents": { "a": md }, "agent": "a", "cwd": "/work/p", "calls": calls });
    let r = run_oracle(&dir, &[case("before", AGENT), case("after", &fixed)]);
    let decisions = |v: &serde_json::Value| -> Vec<String> {
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["decision"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(decisions(&r[0]), ["ask", "ask"], "{}", r[0]);
    assert_eq!(decisions(&r[1]), ["allow", "deny"], "{}", r[1]);
    let npm = &r[1]["results"][1]["gates"];
    assert!(npm.to_string().contains("Use pnpm"), "{npm}");
}
