//! OpenCode configs in the editor and the checker: the findings on a
//! session with every kind of mistake (snapshot, the global config and an
//! agent file around the project's), each quick fix applied (it repairs what
//! it says and touches nothing else), hover, completion, detection.
//! Fixtures: `tests/fixtures/opencode/mistakes/`.

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::cli::render::{Style, human};
use permission_lsp::contract::prelude::*;
use permission_lsp::formats::{self, Analysis, Role};
use permission_lsp::ide::code_actions;
use permission_lsp::text::LineIndex;
use std::path::{Path, PathBuf};

fn opencode() -> &'static dyn Format {
    formats::by_id("opencode").expect("the OpenCode format")
}

/// The mistakes fixture copied to a temporary folder (the project is a git
/// worktree there).
fn session(tag: &str) -> (PathBuf, PathBuf, PathBuf) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opencode/mistakes");
    let dir = std::env::temp_dir().join(format!("permission-lsp-oc-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for rel in [
        "home/.config/opencode/opencode.json",
        "project/opencode.jsonc",
        "project/.opencode/agents/star.md",
    ] {
        let to = dir.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(src.join(rel), &to).unwrap();
    }
    std::fs::create_dir_all(dir.join("project/.git")).unwrap();
    (dir.clone(), dir.join("home"), dir.join("project"))
}

fn analyse(home: &Path, project: &Path, doc: &Path, text: &str, role: Role) -> Analysis {
    let mut options = AnalysisOptions::for_profile(opencode().default_profile());
    options.home = home.display().to_string();
    let ctx = permission_lsp::workspace::resolve(
        &options,
        Some(project),
        Some(doc),
        &Default::default(),
        None,
    );
    opencode().analyse(role, text, &ctx)
}

fn render(name: &str, text: &str, a: &Analysis, root: &Path) -> String {
    let index = LineIndex::new(text);
    let mut out = format!("OpenCode reads the file: {}\n\n", a.accepted);
    for d in &a.diagnostics {
        out.push_str(
            &human(name, text, &index, d, Style { color: false })
                .replace(&root.display().to_string(), "<tmp>"),
        );
        for f in &d.fixes {
            out.push_str(&format!("\n  fix: {f:?}"));
        }
        out.push('\n');
    }
    out
}

#[test]
fn every_kind_of_mistake() {
    let (dir, home, project) = session("mistakes");
    let doc = project.join("opencode.jsonc");
    let text = std::fs::read_to_string(&doc).unwrap();
    let a = analyse(&home, &project, &doc, &text, Role::Config);
    insta::assert_snapshot!(render("opencode.jsonc", &text, &a, &dir));
    let md = project.join(".opencode/agents/star.md");
    let mtext = std::fs::read_to_string(&md).unwrap();
    let a = analyse(&home, &project, &md, &mtext, Role::Agent);
    assert!(!a.accepted);
    assert_eq!(a.diagnostics.len(), 1, "{:#?}", a.diagnostics);
    assert_eq!(a.diagnostics[0].code.as_str(), "OC011");
    assert_eq!(&mtext[a.diagnostics[0].range.clone()], "*: ask");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Each quick fix, applied alone through the code actions: the finding it
/// answers is gone, the file still reads, and nothing else changed.
#[test]
fn every_fix_repairs_its_key_and_nothing_else() {
    let (dir, home, project) = session("fixes");
    let doc = project.join("opencode.jsonc");
    let text = std::fs::read_to_string(&doc).unwrap();
    let a = analyse(&home, &project, &doc, &text, Role::Config);
    let mut applied = 0;
    for d in a.diagnostics.iter().filter(|d| !d.fixes.is_empty()) {
        let actions = code_actions::code_actions(
            &text,
            a.root.as_ref(),
            std::slice::from_ref(d),
            d.range.clone(),
        );
        assert!(!actions.is_empty(), "no action for {d:#?}");
        for act in actions {
            let fixed = code_actions::apply(&text, &act.edits);
            let b = analyse(&home, &project, &doc, &fixed, Role::Config);
            assert!(b.accepted, "{}: the file no longer reads", act.title);
            let same = b.diagnostics.iter().any(|e| {
                e.code == d.code
                    && fixed.get(e.range.clone()) == text.get(d.range.clone())
                    && e.range.start == d.range.start
            });
            assert!(!same, "{}: {} is still there", act.title, d.code.as_str());
            // Nothing outside the edited spans changed.
            let start = act.edits.iter().map(|e| e.range.start).min().unwrap();
            let end = act.edits.iter().map(|e| e.range.end).max().unwrap();
            assert_eq!(&fixed[..start], &text[..start], "{}", act.title);
            assert!(fixed.ends_with(&text[end..]), "{}", act.title);
            applied += 1;
        }
    }
    assert!(applied >= 4, "only {applied} fixes");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hover_says_what_a_rule_decides_and_what_overrides_it() {
    let (dir, home, project) = session("hover");
    let doc = project.join("opencode.jsonc");
    let text = std::fs::read_to_string(&doc).unwrap();
    let a = analyse(&home, &project, &doc, &text, Role::Config);
    let mut options = AnalysisOptions::for_profile(opencode().default_profile());
    options.home = home.display().to_string();
    let ctx = permission_lsp::workspace::resolve(
        &options,
        Some(&project),
        Some(&doc),
        &Default::default(),
        None,
    );
    let at = text.find("\"git push *\"").unwrap() + 2;
    let md = opencode()
        .hover(Role::Config, &text, &a, at, &ctx)
        .unwrap()
        .markdown;
    assert!(md.contains("agent `build`"), "{md}");
    assert!(md.contains("`bash` `*` ask"), "{md}");
    assert!(
        md.contains("**Example:** `bash` `git push` → **ask** by `bash` `*` ask"),
        "{md}"
    );
    let at = text.find("\"edit\": { \"*.md\"").unwrap() + 2;
    let md = opencode()
        .hover(Role::Config, &text, &a, at, &ctx)
        .unwrap()
        .markdown;
    assert!(md.contains("edit, write and apply_patch"), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn completion_of_permissions_and_actions() {
    let text = r#"{ "permission": { "ba": "al" } }"#;
    let mut options = AnalysisOptions::for_profile(opencode().default_profile());
    options.home = "/home/u".into();
    let ctx = permission_lsp::workspace::resolve(&options, None, None, &Default::default(), None);
    let keys = opencode().completions(
        Role::Config,
        text,
        text.find("ba").unwrap() + 1,
        &ctx,
        false,
    );
    assert!(keys.iter().any(|i| i.label == "bash"));
    assert!(keys.iter().any(|i| i.label == "external_directory"));
    let values = opencode().completions(
        Role::Config,
        text,
        text.find("al").unwrap() + 1,
        &ctx,
        false,
    );
    let labels: Vec<&str> = values.iter().map(|i| i.label.as_str()).collect();
    assert_eq!(labels, ["allow", "ask", "deny"]);
}

#[test]
fn detected_by_path_and_schema() {
    let d = |p: &str, t: &str| formats::detect(p, t).map(|k| (k.format.id(), k.role));
    assert_eq!(
        d("/p/opencode.json", "{}"),
        Some(("opencode", Role::Config))
    );
    assert_eq!(
        d("/p/.opencode/opencode.jsonc", "{}"),
        Some(("opencode", Role::Config))
    );
    assert_eq!(
        d(
            "/p/x.json",
            r#"{"$schema": "https://opencode.ai/config.json"}"#
        ),
        Some(("opencode", Role::Config))
    );
    assert_eq!(
        d("/p/.opencode/agents/rev.md", ""),
        Some(("opencode", Role::Agent))
    );
    assert_eq!(
        d("/h/.config/opencode/agent/rev.md", ""),
        Some(("opencode", Role::Agent))
    );
    assert_eq!(d("/p/docs/agents/rev.md", ""), None);
}

/// Hostile input never panics and always answers.
#[test]
fn any_bytes_are_read_without_a_panic() {
    let options = AnalysisOptions::for_profile(opencode().default_profile());
    let samples: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"\xff\xfe{".to_vec(),
        b"{\"permission\":".to_vec(),
        b"{\"permission\":{\"bash\":{\"\":\"allow\"}}}".to_vec(),
        "[".repeat(100_000).into_bytes(),
        format!(
            "{{\"permission\":{{\"bash\":{{{}}}}}}}",
            (0..5000)
                .map(|i| format!("\"c{i} *\":\"allow\""))
                .collect::<Vec<_>>()
                .join(",")
        )
        .into_bytes(),
        b"---\npermission:\n  bash: {a: b, [x]: y}\n---\n".to_vec(),
        b"---\n\tpermission: x\n---\n".to_vec(),
    ];
    for s in &samples {
        for role in [Role::Config, Role::Agent] {
            let _ = opencode().analyse_file(role, s.to_vec(), &options, None);
        }
    }
}

/// The `~` read rule's fix moves it under `external_directory`, where it
/// takes effect: reading `~/.ssh/id_rsa` goes from ask (the rule never
/// matched) to deny.
#[test]
fn a_home_read_rule_moves_to_external_directory_and_takes_effect() {
    let (dir, home, project) = session("extfix");
    let doc = project.join("opencode.jsonc");
    let text = std::fs::read_to_string(&doc).unwrap();
    let a = analyse(&home, &project, &doc, &text, Role::Config);
    let d = a
        .diagnostics
        .iter()
        .find(|d| d.code.as_str() == "OC006")
        .expect("the ~ read rule is reported");
    let actions = code_actions::code_actions(
        &text,
        a.root.as_ref(),
        std::slice::from_ref(d),
        d.range.clone(),
    );
    let fix = actions
        .iter()
        .find(|x| x.title.starts_with("Move to `external_directory`"))
        .expect("the move is offered");
    let fixed = code_actions::apply(&text, &fix.edits);
    assert!(
        fixed.contains(
            r#""external_directory": { "~/.ssh/*": "deny" }, "read": { "*.pem": "deny" }"#
        ),
        "{fixed}"
    );
    let decide = |t: &str| {
        std::fs::write(&doc, t).unwrap();
        let mut options = AnalysisOptions::for_profile(opencode().default_profile());
        options.home = home.display().to_string();
        let ctx = permission_lsp::workspace::resolve(
            &options,
            Some(&project),
            Some(&doc),
            &permission_lsp::workspace::Overrides {
                cwd: Some(project.clone()),
                ..Default::default()
            },
            None,
        );
        opencode()
            .simulate(
                &ctx,
                &permission_lsp::formats::CallRequest {
                    tool: "read".into(),
                    input: serde_json::json!({ "filePath": home.join(".ssh/id_rsa") }),
                },
            )
            .unwrap()
            .decision
    };
    assert_eq!(decide(&text), "ask");
    assert_eq!(decide(&fixed), "deny");
    let b = analyse(&home, &project, &doc, &fixed, Role::Config);
    assert!(b.accepted);
    assert!(!b.diagnostics.iter().any(|d| d.code.as_str() == "OC006"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// OC005 and OC015 come from the shared exact last-match-wins analysis:
/// a rule the later rules cover only together is found, a rule the
/// earlier rules already decide the same way is redundant (with a fix that
/// removes it and nothing else), and nothing is claimed against OpenCode's
/// built-in rules or for a live rule.
#[test]
fn precedence_is_exact_over_unions_and_finds_redundant_rules() {
    let dir = std::env::temp_dir().join(format!("permission-lsp-oc-prec-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (home, project) = (dir.join("home"), dir.join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let text = r#"{
  "permission": {
    "bash": {
      "git *": "deny",
      "git": "allow",
      "git ?*": "ask",
      "git ": "ask",
      "npm *": "allow",
      "npm test": "allow",
      "ls *": "allow"
    },
    "webfetch": "allow"
  }
}
"#;
    let doc = project.join("opencode.json");
    std::fs::write(&doc, text).unwrap();
    let a = analyse(&home, &project, &doc, text, Role::Config);
    let at = |code: &str| -> Vec<&str> {
        a.diagnostics
            .iter()
            .filter(|d| d.code.as_str() == code)
            .map(|d| &text[d.range.clone()])
            .collect()
    };
    assert_eq!(at("OC005"), ["\"git *\""], "{:#?}", a.diagnostics);
    let union = a
        .diagnostics
        .iter()
        .find(|d| d.code.as_str() == "OC005")
        .unwrap();
    assert!(union.message.contains("together"), "{}", union.message);
    assert_eq!(union.related.len(), 3, "{:#?}", union.related);
    assert_eq!(at("OC015"), ["\"npm test\""], "{:#?}", a.diagnostics);
    let redundant = a
        .diagnostics
        .iter()
        .find(|d| d.code.as_str() == "OC015")
        .unwrap();
    assert!(
        redundant.message.contains("`npm *` allow"),
        "{}",
        redundant.message
    );
    // The fix removes the rule and nothing else, and the finding is gone.
    let actions = code_actions::code_actions(
        text,
        a.root.as_ref(),
        std::slice::from_ref(redundant),
        redundant.range.clone(),
    );
    assert_eq!(actions.len(), 1);
    let fixed = code_actions::apply(text, &actions[0].edits);
    assert_eq!(fixed, text.replace("      \"npm test\": \"allow\",\n", ""));
    let b = analyse(&home, &project, &doc, &fixed, Role::Config);
    assert!(b.diagnostics.iter().all(|d| d.code.as_str() != "OC015"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A long list (its findings are written on every core): each rule the
/// final catch-all overrides is reported once, in the file's order, with
/// its own example, and the catch-all named the same way in every one.
#[test]
fn every_overridden_rule_of_a_long_list_is_reported_once_in_order() {
    let dir = std::env::temp_dir().join(format!("permission-lsp-oc-long-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (home, project) = (dir.join("home"), dir.join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    let n = 6_000;
    let mut text = String::from("{\n  \"permission\": {\n    \"bash\": {\n");
    for i in 0..n {
        let action = if i % 2 == 0 { "deny" } else { "allow" };
        text.push_str(&format!("      \"cmd{i} *\": \"{action}\",\n"));
    }
    text.push_str("      \"*\": \"ask\"\n    }\n  }\n}\n");
    let doc = project.join("opencode.json");
    std::fs::write(&doc, &text).unwrap();
    let a = analyse(&home, &project, &doc, &text, Role::Config);
    let found: Vec<&permission_lsp::analysis::Diagnostic> = a
        .diagnostics
        .iter()
        .filter(|d| d.code.as_str() == "OC005")
        .collect();
    assert_eq!(found.len(), n);
    for (i, d) in found.iter().enumerate() {
        assert_eq!(&text[d.range.clone()], format!("\"cmd{i} *\""));
        let past = if i % 2 == 0 { "denied" } else { "allowed" };
        assert!(
            d.message.starts_with(
                "This rule never decides: the later `bash` `*` ask (opencode.json line "
            ) && d
                .message
                .contains(&format!("e.g. `bash` `cmd{i}` is asked about, not {past}.")),
            "{}",
            d.message
        );
        assert_eq!(d.related.len(), 1);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `{env:…}` and `{file:…}` references are replaced as OpenCode replaces
/// them (what each one gives is recorded on the CLI: the `refs` group of
/// `cases.json`); a file outside the project and OpenCode's folders is
/// never read — the finding says the value is not known, and no refusal is
/// claimed for it; a folder is refused as OpenCode refuses it; and a file
/// checked alone (no session) resolves its references from its folder.
#[test]
fn references_are_replaced_and_files_elsewhere_never_read() {
    let (dir, home, project) = session("refs");
    let outside = dir.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("mode.txt"), "allow").unwrap();
    std::fs::write(project.join("mode.txt"), " deny\n").unwrap();
    std::fs::create_dir_all(project.join("sub")).unwrap();
    let doc = project.join("opencode.jsonc");
    let codes = |a: &Analysis| -> Vec<String> {
        a.diagnostics
            .iter()
            .map(|d| d.code.as_str().to_string())
            .collect()
    };
    let text = r#"{ "permission": { "bash": { "*": "{file:./mode.txt}", "git *": "allow" } } }"#;
    let a = analyse(&home, &project, &doc, text, Role::Config);
    assert!(
        a.accepted && !codes(&a).contains(&"OC002".to_string()),
        "{:?}",
        a.diagnostics
    );
    let text = format!(
        r#"{{ "permission": {{ "bash": {{ "*": "{{file:{}}}" }} }} }}"#,
        outside.join("mode.txt").display()
    );
    let a = analyse(&home, &project, &doc, &text, Role::Config);
    assert!(
        codes(&a).contains(&"OC016".to_string()),
        "{:?}",
        a.diagnostics
    );
    assert!(
        !codes(&a).contains(&"OC002".to_string()),
        "{:?}",
        a.diagnostics
    );
    let text = r#"{ "permission": { "read": "{file:./sub}" } }"#;
    let a = analyse(&home, &project, &doc, text, Role::Config);
    let refused = a
        .diagnostics
        .iter()
        .find(|d| d.code.as_str() == "OC002")
        .unwrap();
    assert!(
        refused
            .message
            .contains("bad file reference: \"{file:./sub}\""),
        "{}",
        refused.message
    );
    assert_eq!(&text[refused.range.clone()], "{file:./sub}");
    // Alone (no session): no other file is read, and that is said — no
    // refusal is claimed.
    std::fs::write(&doc, r#"{ "permission": { "bash": "{file:./mode.txt}" } }"#).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .args(["check", "--no-scopes", "--format", "json"])
        .arg(&doc)
        .current_dir(&dir)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["errors"], 0, "{v:#}");
    assert_eq!(v["diagnostics"][0]["code"], "OC016", "{v:#}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What `check` writes a large file's findings from — handed over in
/// document order a batch at a time, never all held — equals the
/// analysis's findings in its order: seeded long configs (thousands of
/// rules, so the precedence findings are made on every core in batches)
/// mixing tools, repeated keys, catch-alls, a last `*` deny that hides a
/// tool, agent blocks (then several lists are judged) and agent files; each
/// in its session and alone.
#[test]
fn findings_in_order_are_the_analysis_findings() {
    use super::rng::Rng;
    let dir = std::env::temp_dir().join(format!("permission-lsp-oc-order-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (home, project) = (dir.join("home"), dir.join("project"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(project.join(".git")).unwrap();
    // A global config merged first: its keys are set elsewhere, and one
    // map sets a key to the action the project's then repeats.
    let global = home.join(".config/opencode/opencode.json");
    std::fs::create_dir_all(global.parent().unwrap()).unwrap();
    std::fs::write(
        &global,
        r#"{"permission": {"bash": {"cmd1 *": "deny", "*": "ask", "cmd7 *": "allow"}, "edit": "ask"}}"#,
    )
    .unwrap();
    let mut options = AnalysisOptions::for_profile(opencode().default_profile());
    options.home = home.display().to_string();
    let tools = ["bash", "edit", "read", "webfetch", "*", "mcp_*", "bash"];
    let actions = ["allow", "deny", "ask"];
    let mut rng = Rng::seeded(31);
    let mut most_batches = 0;
    for case in 0..9 {
        // One tool's rules: thousands, a few repeated, sometimes a
        // catch-all among or after them.
        let map = |rng: &mut Rng, n: usize, indent: &str| {
            let mut lines = Vec::new();
            for i in 0..n {
                let key = match rng.below(1000) {
                    0..2 => "*".to_string(),
                    2..12 => format!("cmd{} *", rng.below(n.max(1))),
                    12..20 => "git *".to_string(),
                    _ => format!("cmd{i} *"),
                };
                lines.push(format!("{indent}\"{key}\": \"{}\"", rng.pick(&actions)));
            }
            if rng.chance(60) {
                // Overrides every rule before it with another action.
                lines.push(format!("{indent}\"*\": \"{}\"", rng.pick(&actions)));
            }
            format!("{{\n{}\n{}}}", lines.join(",\n"), &indent[2..])
        };
        let tools_block = |rng: &mut Rng, indent: &str| {
            let mut entries = Vec::new();
            for k in 0..1 + rng.below(3) {
                let tool = rng.pick(&tools);
                let inner = format!("{indent}  ");
                let value = if k > 0 && rng.chance(20) {
                    format!("\"{}\"", rng.pick(&actions))
                } else {
                    let n = 4000 + rng.below(8000);
                    map(rng, n, &inner)
                };
                entries.push(format!("{indent}\"{tool}\": {value}"));
            }
            format!("{{\n{}\n{}}}", entries.join(",\n"), &indent[2..])
        };
        let (doc, text, role) = if case == 8 {
            // As `benches/budgets.py` writes it: every rule overridden by
            // the last, three batches of findings and more.
            let keys: Vec<String> = (0..10_000)
                .map(|i| format!("      \"cmd{i} *\": \"{}\"", actions[i % 2]))
                .collect();
            let text = format!(
                "{{\n  \"permission\": {{\n    \"bash\": {{\n{},\n      \"*\": \"ask\"\n    }}\n  }}\n}}\n",
                keys.join(",\n")
            );
            (project.join("opencode.json"), text, Role::Config)
        } else if case % 4 == 3 {
            // An agent file: YAML frontmatter.
            let n = 9000 + rng.below(4000);
            // (A repeated key is a YAML error: one catch-all.)
            let star = rng.below(n);
            let mut keys = Vec::new();
            for i in 0..n {
                let key = if i == star {
                    "*".to_string()
                } else {
                    format!("cmd{i} *")
                };
                keys.push(format!("    \"{key}\": {}", rng.pick(&actions)));
            }
            let text = format!(
                "---\ndescription: big\npermission:\n  bash:\n{}\n---\nBody.\n",
                keys.join("\n")
            );
            (project.join(".opencode/agents/big.md"), text, Role::Agent)
        } else {
            let top = tools_block(&mut rng, "    ");
            let agent = if case % 4 == 2 {
                format!(
                    ",\n  \"agent\": {{\"build\": {{\"permission\": {}}}}}",
                    tools_block(&mut rng, "        ")
                )
            } else {
                String::new()
            };
            let text = format!("{{\n  \"permission\": {top}{agent}\n}}\n");
            (project.join("opencode.json"), text, Role::Config)
        };
        std::fs::create_dir_all(doc.parent().unwrap()).unwrap();
        std::fs::write(&doc, &text).unwrap();
        let ctx = permission_lsp::workspace::resolve(
            &options,
            Some(&project),
            Some(&doc),
            &Default::default(),
            None,
        );
        for ctx in [Some(&ctx), None] {
            let (want_text, want) =
                opencode().findings_of_file(role, text.clone().into_bytes(), &options, ctx);
            let mut got = Vec::new();
            let mut batches = 0;
            opencode().findings_of_file_in_order(
                role,
                text.clone().into_bytes(),
                &options,
                ctx,
                &mut |t, ds| {
                    assert_eq!(t, want_text, "case {case}");
                    batches += 1;
                    got.extend(ds);
                },
            );
            assert!(batches >= 1);
            most_batches = most_batches.max(batches);
            assert_eq!(got.len(), want.len(), "case {case}");
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "case {case}, finding {k}");
            }
        }
        std::fs::remove_file(&doc).unwrap();
    }
    // Some list's findings came in several batches.
    assert!(most_batches >= 3, "{most_batches}");
    let _ = std::fs::remove_dir_all(&dir);
}
