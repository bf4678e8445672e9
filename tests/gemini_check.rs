//! Gemini CLI files in the editor and the checker: the findings on a
//! session with every kind of mistake (snapshot: user policy files, a
//! workspace policy file, the settings files, read together), each quick
//! fix applied (it repairs what it says and touches nothing else), hover,
//! completion, the outline, the session's files, and every corpus file
//! read without a panic (the files the CLI drops are errors).

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::cli::render::{Style, human};
use permission_lsp::contract::prelude::*;
use permission_lsp::formats::gemini::Gemini;
use permission_lsp::formats::{self, Analysis, Role};
use permission_lsp::ide::code_actions;
use permission_lsp::text::LineIndex;
use std::path::{Path, PathBuf};

const RULES: &str = r#"# the user's rules
[[rule]]
toolName = "run_shell_command"
commandPrefix = "git"
decision = "allow"
priority = 10

[[rule]]
toolName = "run_shell_command"
commandPrefix = "git push"
decision = "deny"
priority = 5

[[rule]]
toolName = "run_shell_command"
commandRegex = "^npm (run|test)$"
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_comand"
decision = "deny"
priority = 100

[[rule]]
toolName = ["read_file", "glob"]
commandPrefix = "cat"
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
argsPattern = "(rm|mv)+ (-rf)+"
decision = "deny"
priority = 200
"#;

const DROPPED: &str = r#"[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "docker"
decision = "ask"
priority = 1000
"#;

const WORKSPACE: &str = r#"[[rule]]
toolName = "run_shell_command"
commandPrefix = "terraform apply"
decision = "deny"
priority = 999
"#;

const SETTINGS: &str = r#"{
  // project settings
  "autoAccept": true,
  "general": { "defaultApprovalMode": "yolo" },
  "tools": {
    "allowed": ["run_shell_command(npm test)"],
    "exclude": ["run_shell_command(rm)", "web_fetc"]
  }
}
"#;

fn session(tag: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("permission-lsp-gm-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let home = dir.join("home");
    let proj = dir.join("project");
    let write = |p: PathBuf, t: &str| {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    write(home.join(".gemini/policies/rules.toml"), RULES);
    write(home.join(".gemini/policies/dropped.toml"), DROPPED);
    write(proj.join(".gemini/policies/team.toml"), WORKSPACE);
    write(proj.join(".gemini/settings.json"), SETTINGS);
    write(
        home.join(".gemini/trustedFolders.json"),
        &serde_json::json!({ proj.display().to_string(): "TRUST_FOLDER" }).to_string(),
    );
    (dir, home, proj)
}

fn context<'a>(home: &Path, project: &Path, doc: &Path) -> permission_lsp::contract::Context<'a> {
    let mut options = AnalysisOptions::for_profile(Gemini.default_profile());
    options.home = home.display().to_string();
    options.runtime_args.push((
        "GEMINI_CLI_SYSTEM_SETTINGS_PATH".into(),
        home.join("system.json").display().to_string(),
    ));
    permission_lsp::workspace::resolve(
        &options,
        Some(project),
        Some(doc),
        &Default::default(),
        None,
    )
}

fn analyse(home: &Path, project: &Path, doc: &Path, text: &str) -> (Role, Analysis) {
    let kind = formats::detect(&doc.display().to_string(), text).expect("a Gemini CLI file");
    assert_eq!(kind.format.id(), "gemini");
    let ctx = context(home, project, doc);
    (kind.role, Gemini.analyse(kind.role, text, &ctx))
}

fn render(name: &str, text: &str, a: &Analysis, root: &Path) -> String {
    let index = LineIndex::new(text);
    let mut out = format!("Gemini CLI uses the file: {}\n\n", a.accepted);
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
    let mut out = String::new();
    for (name, path, text) in [
        (
            "~/.gemini/policies/rules.toml",
            home.join(".gemini/policies/rules.toml"),
            RULES,
        ),
        (
            "~/.gemini/policies/dropped.toml",
            home.join(".gemini/policies/dropped.toml"),
            DROPPED,
        ),
        (
            ".gemini/policies/team.toml",
            project.join(".gemini/policies/team.toml"),
            WORKSPACE,
        ),
        (
            ".gemini/settings.json",
            project.join(".gemini/settings.json"),
            SETTINGS,
        ),
    ] {
        let (_, a) = analyse(&home, &project, &path, text);
        out.push_str(&format!("=== {name}\n"));
        out.push_str(&render(name, text, &a, &dir));
    }
    // A broken settings file: the CLI does not start.
    let broken = "{\"tools\": {\"exclude\": [\"web_fetch\",]}}";
    let path = project.join(".gemini/settings.json");
    let (_, a) = analyse(&home, &project, &path, broken);
    out.push_str("=== .gemini/settings.json, broken\n");
    out.push_str(&render(".gemini/settings.json", broken, &a, &dir));
    // No trust entry: the workspace settings are ignored.
    std::fs::remove_file(home.join(".gemini/trustedFolders.json")).unwrap();
    let (_, a) = analyse(&home, &project, &path, SETTINGS);
    out.push_str("=== .gemini/settings.json, folder not trusted\n");
    out.push_str(&render(".gemini/settings.json", SETTINGS, &a, &dir));
    let _ = std::fs::remove_dir_all(&dir);
    insta::assert_snapshot!(out);
}

#[test]
fn quick_fixes_repair_what_they_say_and_nothing_else() {
    let (dir, home, project) = session("fixes");
    let path = home.join(".gemini/policies/rules.toml");
    let (_, a) = analyse(&home, &project, &path, RULES);
    let actions = code_actions::code_actions(RULES, None, &a.diagnostics, 0..RULES.len());
    let rename = actions
        .iter()
        .find(|x| x.title == "Use `run_shell_command`")
        .unwrap_or_else(|| panic!("{actions:?}"));
    assert_eq!(
        code_actions::apply(RULES, &rename.edits),
        RULES.replace("\"run_shell_comand\"", "\"run_shell_command\"")
    );
    let path = home.join(".gemini/policies/dropped.toml");
    let (_, a) = analyse(&home, &project, &path, DROPPED);
    let actions = code_actions::code_actions(DROPPED, None, &a.diagnostics, 0..DROPPED.len());
    let cap = actions
        .iter()
        .find(|x| x.title.starts_with("Use priority 999"))
        .unwrap_or_else(|| panic!("{actions:?}"));
    assert_eq!(
        code_actions::apply(DROPPED, &cap.edits),
        DROPPED.replace("priority = 1000", "priority = 999")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hover_completion_outline_and_files() {
    let (dir, home, project) = session("hover");
    let path = home.join(".gemini/policies/rules.toml");
    let ctx = context(&home, &project, &path);
    let (role, a) = analyse(&home, &project, &path, RULES);
    let at = RULES.find("\"git push\"").unwrap();
    let h = Gemini.hover(role, RULES, &a, at, &ctx).expect("a hover");
    insta::assert_snapshot!("gemini-hover-rule", h.markdown);
    let names: Vec<String> = Gemini
        .symbols(role, &a)
        .iter()
        .map(|s| s.name.clone())
        .collect();
    assert_eq!(names[0], "rule #1: run_shell_command git");
    assert_eq!(names.len(), 6);
    let partial = "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"a";
    let items = Gemini.completions(role, partial, partial.len(), &ctx, true);
    let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
    assert_eq!(labels, ["allow", "ask_user"]);
    let partial = "[[rule]]\nmo";
    let items = Gemini.completions(role, partial, partial.len(), &ctx, true);
    let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
    assert_eq!(labels, ["modes"]);
    let files = Gemini.session_files(&context(
        &home,
        &project,
        &project.join(".gemini/settings.json"),
    ));
    let scopes: Vec<&str> = files.present.iter().map(|f| f.scope.as_str()).collect();
    assert_eq!(
        scopes,
        [
            "workspace",
            "user policies",
            "user policies",
            "workspace policies (not loaded)"
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_corpus_file_is_read_and_checked() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gemini/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json" || x == "toml"))
        .collect();
    files.sort();
    let mut summary = String::new();
    let options = AnalysisOptions::for_profile(Gemini.default_profile());
    let mut dropped = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(f).unwrap();
        let kind = formats::detect(&f.display().to_string(), &String::from_utf8_lossy(&bytes))
            .unwrap_or_else(|| panic!("{name} is not detected as a Gemini CLI file"));
        assert_eq!(kind.format.id(), "gemini", "{name}");
        let (_, a) = Gemini.analyse_file(kind.role, bytes.clone(), &options, None);
        let mut codes: Vec<&str> = a.diagnostics.iter().map(|d| d.code.as_str()).collect();
        codes.sort();
        codes.dedup();
        if codes.contains(&"GM001") {
            dropped += 1;
        }
        summary.push_str(&format!(
            "{name}: {} {}\n",
            if a.accepted { "used" } else { "DROPPED" },
            codes.join(" ")
        ));
    }
    assert_eq!(files.len(), 72);
    // The public policy files the CLI drops whole (a schema error).
    assert!(dropped >= 8, "{dropped} files dropped");
    insta::assert_snapshot!(summary);
}
