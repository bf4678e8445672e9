//! Claude Code settings files: the findings on a file with every kind of
//! mistake (snapshot), each quick fix applied (it repairs what it says and
//! touches nothing else), the public corpus, and an editor session over
//! stdio. Fixtures: `tests/fixtures/claude/` (the corpus files are copies
//! of `.claude/settings*.json` files from public repositories, from the
//! project's shared corpus).

#[path = "common/mod.rs"]
mod common;

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::cli::render::{Style, human};
use permission_lsp::contract::prelude::*;
use permission_lsp::core::diagnostic::Fix;
use permission_lsp::formats::{self, Analysis, Role};
use permission_lsp::text::LineIndex;
use serde_json::json;

fn claude() -> &'static dyn Format {
    formats::by_id("claude").expect("the Claude Code format")
}

fn analyse(text: &str) -> Analysis {
    let options = AnalysisOptions::for_profile(claude().default_profile());
    claude()
        .analyse_file(Role::Config, text.as_bytes().to_vec(), &options, None)
        .1
}

/// The findings of one code: the text they cover and their message.
fn with_code<'a>(a: &'a Analysis, text: &'a str, code: &str) -> Vec<(&'a str, &'a str)> {
    a.diagnostics
        .iter()
        .filter(|d| d.code.as_str() == code)
        .map(|d| (&text[d.range.clone()], d.message.as_str()))
        .collect()
}

fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/claude/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn render(text: &str, a: &Analysis) -> String {
    let index = LineIndex::new(text);
    let mut out = format!("Claude Code reads the file: {}\n\n", a.accepted);
    for d in &a.diagnostics {
        out.push_str(&human(
            ".claude/settings.json",
            text,
            &index,
            d,
            Style { color: false },
        ));
        for f in &d.fixes {
            out.push_str(&format!("\n  fix: {f:?}"));
        }
        out.push('\n');
    }
    out
}

#[test]
fn every_kind_of_mistake() {
    let text = fixture("mistakes/.claude/settings.json");
    let a = analyse(&text);
    insta::assert_snapshot!(render(&text, &a));
}

/// Each edit fix, applied alone: the finding it answers is gone, the file
/// still parses, and outside the replaced rule not a byte changed.
#[test]
fn every_fix_repairs_its_rule_and_nothing_else() {
    let text = fixture("mistakes/.claude/settings.json");
    let a = analyse(&text);
    let mut applied = 0;
    for d in &a.diagnostics {
        for f in &d.fixes {
            let Fix::Edit { edits, title } = f else {
                continue;
            };
            assert_eq!(edits.len(), 1, "{title}");
            let e = &edits[0];
            let fixed = format!(
                "{}{}{}",
                &text[..e.range.start],
                e.new_text,
                &text[e.range.end..]
            );
            let after = analyse(&fixed);
            assert!(after.accepted, "{title}: {fixed}");
            let still = after
                .diagnostics
                .iter()
                .any(|x| x.code == d.code && x.range.start == e.range.start);
            assert!(!still, "{title} leaves {:?}", d.code);
            assert!(fixed.starts_with(&text[..e.range.start]));
            assert!(fixed.ends_with(&text[e.range.end..]));
            applied += 1;
        }
    }
    assert!(applied >= 6, "{applied}");
}

#[test]
fn a_comment_or_a_trailing_comma_drops_the_whole_file() {
    for text in [
        "{\n  // no comments\n  \"permissions\": {\"deny\": [\"Bash(rm:*)\"]}\n}\n",
        "{\"permissions\": {\"deny\": [\"Bash(rm:*)\",]}}",
    ] {
        let a = analyse(text);
        assert!(!a.accepted);
        let d = &a.diagnostics[0];
        assert_eq!(d.code.as_str(), "CC001");
        assert!(
            d.message.contains("its 1 deny rule with it"),
            "{}",
            d.message
        );
    }
    // A byte order mark is accepted.
    assert!(analyse("\u{feff}{\"permissions\": {\"deny\": [\"Bash(rm:*)\"]}}").accepted);
}

/// The public corpus: every file is read; the codes found are snapshotted.
#[test]
fn corpus_claude_settings() {
    let dir = format!(
        "{}/tests/fixtures/claude/corpus",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    assert!(names.len() >= 70);
    let mut out = String::new();
    for n in &names {
        let text = std::fs::read_to_string(format!("{dir}/{n}")).unwrap();
        let a = analyse(&text);
        let codes: Vec<&str> = a.diagnostics.iter().map(|d| d.code.as_str()).collect();
        if !codes.is_empty() || !a.accepted {
            out.push_str(&format!("{n}: read {} {codes:?}\n", a.accepted));
        }
    }
    insta::assert_snapshot!(out);
}

#[test]
fn detected_by_path_and_schema() {
    let kind = |p: &str, t: &str| formats::detect(p, t).map(|k| k.format.id());
    assert_eq!(kind("/w/p/.claude/settings.json", "{}"), Some("claude"));
    assert_eq!(
        kind("/w/p/.claude/settings.local.json", "{}"),
        Some("claude")
    );
    assert_eq!(
        kind("/etc/claude-code/managed-settings.json", "{}"),
        Some("claude")
    );
    assert_eq!(
        kind(
            "/w/p/team.json",
            "{\"$schema\": \"https://json.schemastore.org/claude-code-settings.json\"}"
        ),
        Some("claude")
    );
    assert_eq!(kind("/w/p/other.json", "{}"), None);
}

#[tokio::test]
async fn an_editor_session_on_a_settings_file() {
    let (mut child, mut c) = common::spawn_server();
    c.initialize(&[]).await;
    let uri = "file:///w/p/.claude/settings.json";
    let text = "{\"permissions\": {\"allow\": [\"bash(ls)\", \"Bash(npm run test:*)\"], \"deny\": [\"Bash(git push:*)\"]}}";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}),
    )
    .await;
    let diags = c.diagnostics(uri, Some(1)).await;
    // CC017: the project is not trusted here (the allow rules are ignored).
    assert_eq!(common::codes(&diags), ["CC017", "CC005", "CC018"]);
    // The quick fix is sent as data and offered as a code action.
    let d = &diags["diagnostics"][1];
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": d["range"], "context": {"diagnostics": [d]}}),
        )
        .await;
    let titles: Vec<&str> = actions["result"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["title"].as_str())
        .collect();
    assert!(titles.contains(&"Use `Bash`"), "{titles:?}");
    // Hover on the second rule says what it matches.
    let at = text.find("npm run test").unwrap() as u32;
    let hover = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": at}}),
        )
        .await;
    let md = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        md.contains("`npm run test` alone or followed by a space"),
        "{md}"
    );
    // Simulation decides calls against the unsaved buffer (the file is not
    // on disk): its deny rule, and the read-only commands.
    let simulate = |command: &'static str| json!({"command": "permission-lsp.simulate", "arguments": [{"uri": uri, "tool": "Bash", "input": {"command": command}}]});
    let sim = c
        .request("workspace/executeCommand", simulate("git push origin main"))
        .await;
    assert_eq!(sim["result"]["decision"], "deny", "{sim}");
    assert_eq!(
        sim["result"]["rule"]["pattern"], "Bash(git push:*)",
        "{sim}"
    );
    assert_eq!(sim["result"]["rule"]["line"], 1, "{sim}");
    let sim = c
        .request("workspace/executeCommand", simulate("ls -la"))
        .await;
    assert_eq!(sim["result"]["decision"], "allow", "{sim}");
    assert_eq!(sim["result"]["why"], "readOnly", "{sim}");
    c.request("shutdown", json!(null)).await;
    c.notify("exit", json!(null)).await;
    let _ = child.wait().await;
}

/// A project's settings next to the user's settings and the trust state:
/// an allow rule a user deny always beats, allow rules ignored in an
/// untrusted project, `bypassPermissions` ignored in project settings.
#[test]
fn project_rules_next_to_the_user_settings_and_the_trust_state() {
    let dir = std::env::temp_dir().join(format!("plsp-claude-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let home = dir.join("home");
    let project = dir.join("proj");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        home.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Bash(npm run deploy)", "WebFetch"]}}"#,
    )
    .unwrap();
    let doc = project.join(".claude/settings.json");
    let text = r#"{"permissions": {"allow": ["Bash(npm run deploy)", "WebFetch(domain:example.com)", "Bash(npm test)"], "defaultMode": "bypassPermissions"}}"#;
    let analyse_in = |text: &str| {
        let mut options = AnalysisOptions::for_profile(claude().default_profile());
        options.home = home.display().to_string();
        let ctx = permission_lsp::workspace::resolve(
            &options,
            Some(&project),
            Some(&doc),
            &Default::default(),
            None,
        );
        claude().analyse(Role::Config, text, &ctx)
    };
    let codes = |a: &Analysis| -> Vec<(String, String)> {
        a.diagnostics
            .iter()
            .map(|d| {
                (
                    d.code.as_str().to_string(),
                    text[d.range.clone()].to_string(),
                )
            })
            .collect()
    };
    // Claude Code has not run here (no ~/.claude.json): the project is not
    // trusted yet, said once on the allow list.
    let a = analyse_in(text);
    assert_eq!(
        codes(&a),
        [
            ("CC017".to_string(), "\"allow\"".to_string()),
            ("CC014".to_string(), "\"Bash(npm run deploy)\"".to_string()),
            ("CC014".into(), "\"WebFetch(domain:example.com)\"".into()),
            ("CC016".into(), "\"bypassPermissions\"".into()),
        ]
    );
    assert!(
        a.diagnostics[0]
            .message
            .contains("Claude Code has not run here")
    );
    assert!(a.diagnostics[1].message.contains("your user settings"));
    // Not trusted: every allow rule of the project is ignored.
    let key = project.display().to_string();
    std::fs::write(
        home.join(".claude.json"),
        serde_json::to_string(
            &json!({"projects": {key.clone(): {"hasTrustDialogAccepted": false}}}),
        )
        .unwrap(),
    )
    .unwrap();
    let a = analyse_in(text);
    let untrusted: Vec<_> = codes(&a)
        .into_iter()
        .filter(|(c, _)| c == "CC017")
        .collect();
    assert_eq!(untrusted.len(), 3, "{:?}", codes(&a));
    // Trusted: the findings without the trust warning.
    std::fs::write(
        home.join(".claude.json"),
        serde_json::to_string(&json!({"projects": {key: {"hasTrustDialogAccepted": true}}}))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(codes(&analyse_in(text)).len(), 3);
    std::fs::remove_dir_all(&dir).ok();
}

/// An allow rule inside a broader one (CC019): found with an example
/// command, and the quick fix removes exactly that item (its comma, not its
/// neighbours or the comments).
#[test]
fn a_redundant_allow_is_removed_and_nothing_else() {
    let text = "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm run test:*)\", // tests\n      \"Bash(npm:*)\",\n      \"Bash(npm run build)\"\n    ]\n  }\n}\n";
    // Comments make the file unreadable to Claude Code; the check runs on
    // the strict text.
    let text = text.replace(" // tests", "");
    let a = analyse(&text);
    let found = with_code(&a, &text, "CC019");
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].0, "\"Bash(npm run test:*)\"");
    assert!(
        found[0].1.contains("e.g. `npm run test …`"),
        "{}",
        found[0].1
    );
    assert_eq!(found[1].0, "\"Bash(npm run build)\"");
    for d in a.diagnostics.iter().filter(|d| d.code.as_str() == "CC019") {
        let actions = permission_lsp::ide::code_actions::code_actions(
            &text,
            a.root.as_ref(),
            std::slice::from_ref(d),
            d.range.clone(),
        );
        let action = actions
            .iter()
            .find(|x| x.title.starts_with("Remove"))
            .expect("a removal");
        let fixed = permission_lsp::ide::code_actions::apply(&text, &action.edits);
        let v: serde_json::Value = serde_json::from_str(&fixed).expect("still JSON");
        let allow: Vec<&str> = v["permissions"]["allow"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|x| x.as_str())
            .collect();
        assert_eq!(allow.len(), 2, "{fixed}");
        assert!(!allow.contains(&&text[d.range.start + 1..d.range.end - 1]));
        assert!(allow.contains(&"Bash(npm:*)"));
    }
}

/// Across files: a local allow inside a project allow is redundant (the
/// project's rule applies to everyone the local file does); a project
/// allow inside a user allow is not (teammates lack the user's rule); an
/// allow inside a deny of another file never decides, with an example.
#[test]
fn containment_across_the_settings_files() {
    let dir = std::env::temp_dir().join(format!("plsp-claude-shape-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let home = dir.join("home");
    let project = dir.join("proj");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        home.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(cargo:*)"], "deny": ["Bash(git push:*)"]}}"#,
    )
    .unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(npm run:*)", "Bash(cargo test:*)"]}}"#,
    )
    .unwrap();
    std::fs::write(
        home.join(".claude.json"),
        json!({"projects": {project.display().to_string(): {"hasTrustDialogAccepted": true}}})
            .to_string(),
    )
    .unwrap();
    let doc = project.join(".claude/settings.local.json");
    let text = r#"{"permissions": {"allow": ["Bash(npm run build)", "Bash(git push origin main)", "Bash(make)"]}}"#;
    let mut options = AnalysisOptions::for_profile(claude().default_profile());
    options.home = home.display().to_string();
    let ctx = permission_lsp::workspace::resolve(
        &options,
        Some(&project),
        Some(&doc),
        &Default::default(),
        None,
    );
    let a = claude().analyse(Role::Config, text, &ctx);
    let found: Vec<(String, String)> = a
        .diagnostics
        .iter()
        .map(|d| {
            (
                d.code.as_str().to_string(),
                text[d.range.clone()].to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("CC019".to_string(), "\"Bash(npm run build)\"".to_string()),
            (
                "CC014".to_string(),
                "\"Bash(git push origin main)\"".to_string()
            ),
        ],
        "{:#?}",
        a.diagnostics
    );
    assert!(
        a.diagnostics[1]
            .message
            .contains("e.g. `git push origin main`")
    );
    // Hover says what each rule decides with every file, the buffer
    // included (it is not on disk).
    let open = |p: &std::path::Path| (p == doc).then(|| text.to_string());
    let ctx_open = permission_lsp::workspace::resolve(
        &options,
        Some(&project),
        Some(&doc),
        &Default::default(),
        Some(&open),
    );
    let hover = |needle: &str| {
        let at = text.find(needle).unwrap() + 2;
        claude()
            .hover(Role::Config, text, &a, at, &ctx_open)
            .unwrap()
            .markdown
    };
    let md = hover("Bash(git push origin main)");
    assert!(
        md.contains(
            "**Example:** `git push origin main` → **deny** by `Bash(git push:*)` (deny, user settings"
        ),
        "{md}"
    );
    let md = hover("Bash(make)");
    assert!(md.contains("`make` → **allow** by this rule"), "{md}");
    // The project file: `cargo test:*` inside the user's `cargo:*` is kept.
    let pdoc = project.join(".claude/settings.json");
    let ctx = permission_lsp::workspace::resolve(
        &options,
        Some(&project),
        Some(&pdoc),
        &Default::default(),
        None,
    );
    let ptext = std::fs::read_to_string(&pdoc).unwrap();
    let a = claude().analyse(Role::Config, &ptext, &ctx);
    assert!(a.diagnostics.is_empty(), "{:#?}", a.diagnostics);
    let _ = std::fs::remove_dir_all(&dir);
}

/// MCP rules against the servers the project's `.mcp.json` and
/// `~/.claude.json` define: an unknown server is reported with the closest
/// known name; claude.ai connectors and plugin servers are not judged.
#[test]
fn mcp_rules_name_servers_that_exist() {
    let dir = std::env::temp_dir().join(format!("plsp-claude-mcp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let home = dir.join("home");
    let project = dir.join("proj");
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        home.join(".claude.json"),
        json!({"mcpServers": {"github": {"command": "gh-mcp"}},
               "projects": {project.display().to_string(): {"hasTrustDialogAccepted": true, "mcpServers": {"local-db": {}}}}})
            .to_string(),
    )
    .unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        r#"{"mcpServers": {"docs": {"command": "docs-mcp"}}}"#,
    )
    .unwrap();
    let doc = project.join(".claude/settings.json");
    let text = r#"{"permissions": {"allow": ["mcp__github__get_issue", "mcp__docs", "mcp__local-db__query", "mcp__gihtub__list", "mcp__claude_ai_Slack__send"], "deny": ["mcp__nowhere"]}}"#;
    let mut options = AnalysisOptions::for_profile(claude().default_profile());
    options.home = home.display().to_string();
    let ctx = permission_lsp::workspace::resolve(
        &options,
        Some(&project),
        Some(&doc),
        &Default::default(),
        None,
    );
    let a = claude().analyse(Role::Config, text, &ctx);
    let found = with_code(&a, text, "CC028");
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(found[0].0, "\"mcp__gihtub__list\"");
    assert!(
        found[0].1.contains("did you mean `github`?"),
        "{}",
        found[0].1
    );
    assert_eq!(found[1].0, "\"mcp__nowhere\"");
    // Completion offers each server's tools.
    let at = text.find("mcp__docs").unwrap() + 3;
    let labels: Vec<String> = claude()
        .completions(Role::Config, text, at, &ctx, false)
        .into_iter()
        .map(|i| i.label)
        .collect();
    for s in ["mcp__docs", "mcp__github", "mcp__local-db", "Bash"] {
        assert!(labels.iter().any(|l| l == s), "{s} in {labels:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An ask rule naming a command exactly decides it before deny wildcards
/// and prefixes (observed on the CLI): it is not reported as never
/// deciding; a wildcard ask under the same deny is.
#[test]
fn an_exact_ask_is_not_beaten_by_a_deny_prefix() {
    let text = r#"{"permissions": {"ask": ["Bash(npm run test)", "Bash(npm run lint:*)", "Bash(npm run build *)"], "deny": ["Bash(npm:*)"]}}"#;
    let a = analyse(text);
    let never: Vec<&str> = a
        .diagnostics
        .iter()
        .filter(|d| d.code.as_str() == "CC014")
        .map(|d| &text[d.range.clone()])
        .collect();
    assert_eq!(never, ["\"Bash(npm run build *)\""]);
}

/// What a deny rule does not block (CC018) and what it also blocks, in a
/// session of several files: the finding names the spelling that gets
/// through and the rule that allows it (decided over every file), its
/// fixes add the spellings or deny the whole command, each fixed file is
/// read again without the finding; hover on the deny rule lists the
/// wrapped forms it also blocks and the spellings it does not, hover on
/// the broad allow rule the risky calls it lets through.
#[test]
fn what_a_deny_rule_does_not_block() {
    let dir = std::env::temp_dir().join(format!("permission-lsp-cc018-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (home, project) = (dir.join("home"), dir.join("proj"));
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        home.join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(rm:*)", "Bash(git:*)"]}}"#,
    )
    .unwrap();
    std::fs::write(
        home.join(".claude.json"),
        json!({"projects": {project.to_string_lossy(): {"hasTrustDialogAccepted": true}}})
            .to_string(),
    )
    .unwrap();
    let doc = project.join(".claude/settings.json");
    let text = "{\n  \"permissions\": {\n    \"deny\": [\n      \"Bash(rm -rf *)\",\n      \"Bash(git push:*)\"\n    ]\n  }\n}\n";
    std::fs::write(&doc, text).unwrap();
    let mut options = AnalysisOptions::for_profile(claude().default_profile());
    options.home = home.display().to_string();
    let ctx = permission_lsp::workspace::resolve(
        &options,
        Some(&project),
        Some(&doc),
        &Default::default(),
        None,
    );
    let a = claude().analyse(Role::Config, text, &ctx);
    let found = with_code(&a, text, "CC018");
    assert_eq!(found.len(), 2, "{:#?}", a.diagnostics);
    assert_eq!(found[0].0, "\"Bash(rm -rf *)\"");
    assert!(
        found[0].1.starts_with(
            "`rm -fr build` is not denied by this rule — Claude Code allows it (allow rule `Bash(rm:*)` in the user settings)"
        ),
        "{}",
        found[0].1
    );
    assert!(
        found[1].1.starts_with("`git -C . push` is not denied"),
        "{}",
        found[1].1
    );
    // The fixes: the other spellings added after the rule, or `rm` denied
    // whole; each result loads and no longer has the finding for it.
    let d = a
        .diagnostics
        .iter()
        .find(|d| d.code.as_str() == "CC018")
        .unwrap();
    let titles: Vec<String> = d
        .fixes
        .iter()
        .map(|f| match f {
            Fix::Edit { title, .. } => title.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        titles,
        [
            "Also deny the 4 other spellings",
            "Deny every `rm` command instead (`Bash(rm:*)`)"
        ]
    );
    for f in &d.fixes {
        let Fix::Edit { edits, .. } = f else {
            unreachable!()
        };
        let mut fixed = text.to_string();
        for e in edits.iter().rev() {
            fixed.replace_range(e.range.clone(), &e.new_text);
        }
        // The session reads the edited buffer, as the editor's does.
        let open = |p: &std::path::Path| (p == doc).then(|| fixed.clone());
        let ctx_fixed = permission_lsp::workspace::resolve(
            &options,
            Some(&project),
            Some(&doc),
            &Default::default(),
            Some(&open),
        );
        let again = claude().analyse(Role::Config, &fixed, &ctx_fixed);
        assert!(again.accepted, "{fixed}");
        assert!(
            !again
                .diagnostics
                .iter()
                .any(|d| d.code.as_str() == "CC018" && fixed[d.range.clone()].contains("rm")),
            "{fixed}\n{:#?}",
            again.diagnostics
        );
        // Everything else stays as it was.
        assert!(
            fixed.contains("      \"Bash(git push:*)\"\n    ]"),
            "{fixed}"
        );
    }
    // Hover on the deny rule and on the user's broad allow.
    let hover = |text: &str, doc: &std::path::Path, needle: &str| {
        let ctx = permission_lsp::workspace::resolve(
            &options,
            Some(&project),
            Some(doc),
            &Default::default(),
            None,
        );
        let a = claude().analyse(Role::Config, text, &ctx);
        let at = text.find(needle).unwrap() + 2;
        claude()
            .hover(Role::Config, text, &a, at, &ctx)
            .unwrap()
            .markdown
    };
    let md = hover(text, &doc, "Bash(rm -rf *)");
    assert!(
        md.contains("**Also blocks** `sudo rm -rf build`, `/usr/bin/rm -rf build`"),
        "{md}"
    );
    assert!(
        md.contains("**Does not block** `rm -fr build` → **allow** (allow rule `Bash(rm:*)` in the user settings)"),
        "{md}"
    );
    let user = std::fs::read_to_string(home.join(".claude/settings.json")).unwrap();
    // `git push --force` is denied by the project's `Bash(git push:*)`.
    let md = hover(&user, &home.join(".claude/settings.json"), "Bash(git:*)");
    assert!(
        md.contains(
            "**Lets through, without asking:** `git reset --hard` (discards uncommitted work)"
        ),
        "{md}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Hooks are named wherever a decision is shown: a `PreToolUse` hook whose
/// matcher covers the call (a name list, a regular expression, `*`) in
/// `simulate`'s answer and JSON details, every hook in `explain`'s notes,
/// the hooks of the rule's tool in hover; `disableAllHooks` silences them.
#[test]
fn hooks_are_named_not_simulated() {
    let dir = std::env::temp_dir().join(format!("permission-lsp-hooks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (home, project) = (dir.join("home"), dir.join("proj"));
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        home.join(".claude/settings.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "mcp__.*", "hooks": [{"type": "command", "command": "audit-mcp"}]}]}}"#,
    )
    .unwrap();
    let doc = project.join(".claude/settings.json");
    let text = r#"{
  "permissions": {"allow": ["Bash(npm test:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]},
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt-check"}]}
    ]
  }
}"#;
    std::fs::write(&doc, text).unwrap();
    let mut options = AnalysisOptions::for_profile(claude().default_profile());
    options.home = home.display().to_string();
    options.runtime_args = vec![("trusted".into(), "true".into())];
    let ctx = permission_lsp::workspace::resolve(
        &options,
        Some(&project),
        Some(&doc),
        &Default::default(),
        None,
    );
    let sim = claude().simulator(&ctx).unwrap();
    let ask = |tool: &str, input: serde_json::Value| {
        sim.simulate(&formats::CallRequest {
            tool: tool.into(),
            input,
        })
    };
    let r = ask("Bash", json!({"command": "npm test"}));
    assert!(
        r.explanation.iter().any(|l| l
            .starts_with("a PreToolUse hook `./check.sh` (project settings, ")
            && l.ends_with("runs first and may change this decision; not simulated")),
        "{:#?}",
        r.explanation
    );
    assert_eq!(r.details["hooks"][0]["command"], "./check.sh");
    let r = ask(
        "Write",
        json!({"file_path": project.join("a.txt").display().to_string(), "content": "x"}),
    );
    assert!(
        r.explanation.iter().any(|l| l.contains("`fmt-check`")),
        "{:#?}",
        r.explanation
    );
    assert!(
        !r.explanation.iter().any(|l| l.contains("check.sh")),
        "{:#?}",
        r.explanation
    );
    let r = ask("NotebookEdit", json!({"notebook_path": "x.ipynb"}));
    assert!(
        !r.explanation.iter().any(|l| l.contains("PreToolUse")),
        "{:#?}",
        r.explanation
    );
    let r = ask("mcp__srv__echo", json!({}));
    assert!(
        r.explanation
            .iter()
            .any(|l| l.contains("`audit-mcp` (user settings")),
        "{:#?}",
        r.explanation
    );
    let e = claude().effective_policy(&ctx).unwrap();
    assert_eq!(
        e.notes
            .iter()
            .filter(|n| n.starts_with("hook: PreToolUse"))
            .count(),
        3,
        "{:#?}",
        e.notes
    );
    let a = claude().analyse(Role::Config, text, &ctx);
    let at = text.find("Bash(npm").unwrap() + 2;
    let md = claude()
        .hover(Role::Config, text, &a, at, &ctx)
        .unwrap()
        .markdown;
    assert!(
        md.contains("**Hooks for `Bash`:**\n- a PreToolUse hook `./check.sh`"),
        "{md}"
    );
    // Every hook off.
    std::fs::write(
        project.join(".claude/settings.local.json"),
        r#"{"disableAllHooks": true}"#,
    )
    .unwrap();
    let sim = claude().simulator(&ctx).unwrap();
    let r = sim.simulate(&formats::CallRequest {
        tool: "Bash".into(),
        input: json!({"command": "npm test"}),
    });
    assert!(
        !r.explanation.iter().any(|l| l.contains("PreToolUse")),
        "{:#?}",
        r.explanation
    );
    let _ = std::fs::remove_dir_all(&dir);
}
