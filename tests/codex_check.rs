//! Codex files in the editor and the checker: the findings on a session
//! with every kind of mistake (snapshot: the user's `config.toml` and rules
//! files and a trusted project's rules file, read together), each quick fix
//! applied (it repairs what it says and touches nothing else), hover,
//! completion, the outline, and every corpus file read without a panic.

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::cli::render::{Style, human};
use permission_lsp::contract::prelude::*;
use permission_lsp::formats::codex::Codex;
use permission_lsp::formats::{self, Analysis, Role};
use permission_lsp::ide::code_actions;
use permission_lsp::text::LineIndex;
use std::path::{Path, PathBuf};

const USER_CONFIG: &str = "approval_policy = \"on-request\"\nsandbox_mode = \"workspace-write\"\nask_for_approval = \"never\"\n";
const USER_RULES: &str = r#"# the user's rules
prefix_rule(pattern=["git"], decision="prompt")
prefix_rule(pattern=["git", "status"], decision="allow")
prefix_rule(pattern=["git push"], decision="forbidden")
prefix_rule(pattern=["/bin/zsh", "-lc", "npm test"], decision="allow")
prefix_rule(pattern=["curl"], decision="forbidden")
prefix_rule(pattern=["curl", "-s"], decision="forbidden")
"#;
const PROJECT_RULES: &str = r#"prefix_rule(pattern=["npm", "publish"], decision="deny")
prefix_rule(
    pattern=["rm"],
    decision="forbidden",
    match=["rm -rf build", "git rm x"],
)
"#;

/// A session: a home with `.codex/config.toml` (trusting the project) and
/// `.codex/rules/default.rules`, a project with `.codex/rules/p.rules`.
fn session(tag: &str, project_rules: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("permission-lsp-cx-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let home = dir.join("home");
    let project = dir.join("project");
    let write = |p: PathBuf, t: &str| {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    write(
        home.join(".codex/config.toml"),
        &format!(
            "{USER_CONFIG}\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            project.display()
        ),
    );
    write(home.join(".codex/rules/default.rules"), USER_RULES);
    write(project.join(".codex/rules/p.rules"), project_rules);
    std::fs::create_dir_all(project.join(".git")).unwrap();
    (dir, home, project)
}

fn context<'a>(home: &Path, project: &Path, doc: &Path) -> permission_lsp::contract::Context<'a> {
    let mut options = AnalysisOptions::for_profile(Codex.default_profile());
    options.home = home.display().to_string();
    options.runtime_args.push((
        "CODEX_HOME".into(),
        home.join(".codex").display().to_string(),
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
    let kind = formats::detect(&doc.display().to_string(), text).expect("a Codex file");
    assert_eq!(kind.format.id(), "codex");
    let ctx = context(home, project, doc);
    (kind.role, Codex.analyse(kind.role, text, &ctx))
}

fn render(name: &str, text: &str, a: &Analysis, root: &Path) -> String {
    let index = LineIndex::new(text);
    let mut out = format!("Codex loads the file: {}\n\n", a.accepted);
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
    let (dir, home, project) = session("mistakes", PROJECT_RULES);
    let mut out = String::new();
    for (name, path) in [
        ("~/.codex/config.toml", home.join(".codex/config.toml")),
        (
            "~/.codex/rules/default.rules",
            home.join(".codex/rules/default.rules"),
        ),
        (".codex/rules/p.rules", project.join(".codex/rules/p.rules")),
    ] {
        let text = std::fs::read_to_string(&path).unwrap();
        let (_, a) = analyse(&home, &project, &path, &text);
        out.push_str(&format!("=== {name}\n"));
        out.push_str(&render(name, &text, &a, &dir));
    }
    // With the project's file repaired, the user's rules apply again.
    let fixed = PROJECT_RULES
        .replace("\"deny\"", "\"forbidden\"")
        .replace(", \"git rm x\"", "");
    let (dir2, home2, project2) = session("repaired", &fixed);
    let path = home2.join(".codex/rules/default.rules");
    let (_, a) = analyse(&home2, &project2, &path, USER_RULES);
    out.push_str("=== ~/.codex/rules/default.rules, the project's file repaired\n");
    out.push_str(&render(
        "~/.codex/rules/default.rules",
        USER_RULES,
        &a,
        &dir2,
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&dir2);
    insta::assert_snapshot!(out);
}

#[test]
fn quick_fixes_repair_what_they_say_and_nothing_else() {
    let (dir, home, project) = session("fixes", PROJECT_RULES);
    let path = project.join(".codex/rules/p.rules");
    let (_, a) = analyse(&home, &project, &path, PROJECT_RULES);
    let actions =
        code_actions::code_actions(PROJECT_RULES, None, &a.diagnostics, 0..PROJECT_RULES.len());
    let titles: Vec<&str> = actions.iter().map(|x| x.title.as_str()).collect();
    assert!(titles.contains(&"Use `forbidden`"), "{titles:?}");
    let fixed = code_actions::apply(PROJECT_RULES, &actions[0].edits);
    assert_eq!(fixed, PROJECT_RULES.replace("\"deny\"", "\"forbidden\""));
    // Now the example fails: its fix removes it and keeps the rule.
    let (_, a) = analyse(&home, &project, &path, &fixed);
    let actions = code_actions::code_actions(&fixed, None, &a.diagnostics, 0..fixed.len());
    let remove = actions
        .iter()
        .find(|x| x.title.starts_with("Remove the failing example"))
        .expect("a fix for the failing example");
    let repaired = code_actions::apply(&fixed, &remove.edits);
    assert_eq!(repaired, fixed.replace(", \"git rm x\"", ""));
    let (_, a) = analyse(&home, &project, &path, &repaired);
    assert!(a.accepted, "{:?}", a.diagnostics);
    // config.toml: the refused value and the ignored key.
    let cfg_path = home.join(".codex/config.toml");
    let cfg = "approval_policy = \"untrusted\"\nsandbx_mode = \"read-only\"\n";
    let (_, a) = analyse(&home, &project, &cfg_path, cfg);
    let actions = code_actions::code_actions(cfg, None, &a.diagnostics, 0..cfg.len());
    let mut text = cfg.to_string();
    for title in [
        "Use `on-request` (commands no rule allows run in the sandbox; dangerous ones ask)",
        "Rename to `sandbox_mode`",
    ] {
        let act = actions
            .iter()
            .find(|x| x.title == title)
            .unwrap_or_else(|| panic!("{title}: {actions:?}"));
        let (_, a2) = analyse(&home, &project, &cfg_path, &text);
        let again = code_actions::code_actions(&text, None, &a2.diagnostics, 0..text.len());
        let act2 = again.iter().find(|x| x.title == act.title).unwrap();
        text = code_actions::apply(&text, &act2.edits);
    }
    assert_eq!(
        text,
        "approval_policy = \"on-request\"\nsandbox_mode = \"read-only\"\n"
    );
    let (_, a) = analyse(&home, &project, &cfg_path, &text);
    assert!(a.diagnostics.is_empty(), "{:?}", a.diagnostics);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hover_completion_and_outline() {
    let (dir, home, project) = session(
        "hover",
        &PROJECT_RULES
            .replace("\"deny\"", "\"forbidden\"")
            .replace(", \"git rm x\"", ""),
    );
    let path = home.join(".codex/rules/default.rules");
    let ctx = context(&home, &project, &path);
    let (role, a) = analyse(&home, &project, &path, USER_RULES);
    assert_eq!(role, Role::Rules);
    let at = USER_RULES.find("[\"git\", \"status\"]").unwrap();
    let h = Codex
        .hover(role, USER_RULES, &a, at, &ctx)
        .expect("a hover");
    insta::assert_snapshot!("hover-rule", h.markdown);
    let symbols = Codex.symbols(role, &a);
    let names: Vec<String> = symbols
        .iter()
        .map(|s| format!("{} ({})", s.name, s.detail.clone().unwrap_or_default()))
        .collect();
    assert_eq!(
        names,
        [
            "git (prompt)",
            "git status (allow)",
            "\"git push\" (forbidden)",
            "/bin/zsh -lc \"npm test\" (allow)",
            "curl (forbidden)",
            "curl -s (forbidden)"
        ]
    );
    let partial = "prefix_rule(pattern=[\"x\"], decision=";
    let items = Codex.completions(role, partial, partial.len(), &ctx, true);
    let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
    assert_eq!(labels, ["allow", "prompt", "forbidden"]);
    let cfg = "approval_policy = ";
    let items = Codex.completions(Role::Config, cfg, cfg.len(), &ctx, true);
    let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
    assert_eq!(labels, ["on-request", "never", "on-failure"]);
    let cfg_path = home.join(".codex/config.toml");
    let cfg_text = std::fs::read_to_string(&cfg_path).unwrap();
    let (_, ca) = analyse(&home, &project, &cfg_path, &cfg_text);
    let h = Codex
        .hover(
            Role::Config,
            &cfg_text,
            &ca,
            2,
            &context(&home, &project, &cfg_path),
        )
        .expect("a hover on approval_policy");
    assert!(h.markdown.contains("on-request"), "{}", h.markdown);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_corpus_file_is_read_and_checked() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rules" || x == "toml"))
        .collect();
    files.sort();
    let mut summary = String::new();
    let options = AnalysisOptions::for_profile(Codex.default_profile());
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(f).unwrap();
        let kind = formats::detect(&f.display().to_string(), &String::from_utf8_lossy(&bytes))
            .unwrap_or_else(|| panic!("{name} is not detected as a Codex file"));
        assert_eq!(kind.format.id(), "codex", "{name}");
        let (_, a) = Codex.analyse_file(kind.role, bytes.clone(), &options, None);
        let mut codes: Vec<&str> = a.diagnostics.iter().map(|d| d.code.as_str()).collect();
        codes.dedup();
        summary.push_str(&format!(
            "{name}: {} {}\n",
            if a.accepted { "loads" } else { "REFUSED" },
            codes.join(" ")
        ));
    }
    assert_eq!(files.len(), 77);
    insta::assert_snapshot!(summary);
}

/// `diff` against git's HEAD in a project whose rules changed: what is
/// newly allowed, by which rule, exit 1.
#[test]
fn diff_against_head_names_what_is_newly_allowed() {
    let dir = std::env::temp_dir().join(format!("permission-lsp-cx-diff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let home = dir.join("home");
    let project = dir.join("proj");
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    std::fs::create_dir_all(project.join(".codex/rules")).unwrap();
    std::fs::write(
        home.join(".codex/config.toml"),
        format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            project.display()
        ),
    )
    .unwrap();
    let rules = project.join(".codex/rules/p.rules");
    std::fs::write(
        &rules,
        "prefix_rule(pattern=[\"git\", \"push\"], decision=\"forbidden\")\nprefix_rule(pattern=[\"npm\", [\"publish\", \"unpublish\"]], decision=\"prompt\")\n",
    )
    .unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(&project)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "rules"]);
    std::fs::write(
        &rules,
        "prefix_rule(pattern=[\"git\"], decision=\"allow\")\nprefix_rule(pattern=[\"npm\", [\"publish\", \"unpublish\"]], decision=\"prompt\")\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .args(["diff", "--runtime", "codex"])
        .current_dir(&project)
        .env("HOME", &home)
        .env_remove("CODEX_HOME")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("newly allowed: shell `git push` by `shell` `git`"),
        "{text}"
    );
    assert!(!text.contains("npm"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
