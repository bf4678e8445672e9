//! Qwen Code files in the editor and the checker: the findings on a
//! session with every kind of mistake (snapshot: the user's and the
//! project's `settings.json`, read together), each quick fix applied (it
//! repairs what it says and touches nothing else), hover, completion, the
//! outline, the session's files, and every corpus file read without a
//! panic.

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::cli::render::{Style, human};
use permission_lsp::contract::prelude::*;
use permission_lsp::formats::qwen::Qwen;
use permission_lsp::formats::{self, Analysis, Role};
use permission_lsp::ide::code_actions;
use permission_lsp::text::LineIndex;
use std::path::{Path, PathBuf};

const USER: &str = r#"{
  // the user's rules
  "permissions": {
    "allow": ["Bash(echo *)", "Bash(npm test)", "bash(npm run lint)", "Bash(npm run build"],
    "deny": ["Bash(git push *)", "Read(.env)", "Bash(npm publish)"]
  },
  "tools": { "approvalMode": "default" }
}
"#;
const PROJECT: &str = r#"{
  "permissions": {
    "allow": ["Bash(npm publish)", "WebFetch(domain:example.com)", "Bash(git push origin main)", "Shell(echo *)"],
    "ask": ["Bash(git commit -m \"wip\")"],
    "deny": ["Edit(src/**)"]
  },
  "excludeTools": ["write_file"]
}
"#;

fn session(tag: &str, project: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("permission-lsp-qw-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let home = dir.join("home");
    let proj = dir.join("project");
    let write = |p: PathBuf, t: &str| {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    write(home.join(".qwen/settings.json"), USER);
    write(proj.join(".qwen/settings.json"), project);
    (dir, home, proj)
}

fn context<'a>(home: &Path, project: &Path, doc: &Path) -> permission_lsp::contract::Context<'a> {
    let mut options = AnalysisOptions::for_profile(Qwen.default_profile());
    options.home = home.display().to_string();
    for (k, f) in [
        ("QWEN_CODE_SYSTEM_SETTINGS_PATH", "system.json"),
        ("QWEN_CODE_SYSTEM_DEFAULTS_PATH", "defaults.json"),
    ] {
        options
            .runtime_args
            .push((k.into(), home.join(f).display().to_string()));
    }
    permission_lsp::workspace::resolve(
        &options,
        Some(project),
        Some(doc),
        &Default::default(),
        None,
    )
}

fn analyse(home: &Path, project: &Path, doc: &Path, text: &str) -> (Role, Analysis) {
    let kind = formats::detect(&doc.display().to_string(), text).expect("a Qwen file");
    assert_eq!(kind.format.id(), "qwen");
    let ctx = context(home, project, doc);
    (kind.role, Qwen.analyse(kind.role, text, &ctx))
}

fn render(name: &str, text: &str, a: &Analysis, root: &Path) -> String {
    let index = LineIndex::new(text);
    let mut out = format!("Qwen reads the file: {}\n\n", a.accepted);
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
    let (dir, home, project) = session("mistakes", PROJECT);
    let mut out = String::new();
    for (name, path, text) in [
        (
            "~/.qwen/settings.json",
            home.join(".qwen/settings.json"),
            USER,
        ),
        (
            ".qwen/settings.json",
            project.join(".qwen/settings.json"),
            PROJECT,
        ),
    ] {
        let (_, a) = analyse(&home, &project, &path, text);
        out.push_str(&format!("=== {name}\n"));
        out.push_str(&render(name, text, &a, &dir));
    }
    // A broken project file: Qwen resets it, every rule is lost.
    let broken = "{\"permissions\": {\"deny\": [\"Bash(rm *)\",]}}";
    let path = project.join(".qwen/settings.json");
    let (_, a) = analyse(&home, &project, &path, broken);
    out.push_str("=== .qwen/settings.json, broken\n");
    out.push_str(&render(".qwen/settings.json", broken, &a, &dir));
    // Folder trust on, the folder not trusted: the project file is dropped.
    std::fs::write(
        home.join(".qwen/settings.json"),
        "{\"security\": {\"folderTrust\": {\"enabled\": true}}}",
    )
    .unwrap();
    let (_, a) = analyse(&home, &project, &path, PROJECT);
    out.push_str("=== .qwen/settings.json, folder not trusted\n");
    out.push_str(&render(".qwen/settings.json", PROJECT, &a, &dir));
    let _ = std::fs::remove_dir_all(&dir);
    insta::assert_snapshot!(out);
}

#[test]
fn quick_fixes_repair_what_they_say_and_nothing_else() {
    let (dir, home, project) = session("fixes", PROJECT);
    let path = home.join(".qwen/settings.json");
    let (_, a) = analyse(&home, &project, &path, USER);
    let actions = code_actions::code_actions(USER, None, &a.diagnostics, 0..USER.len());
    let rename = actions
        .iter()
        .find(|x| x.title == "Write `Bash`")
        .expect("the tool-name fix");
    let fixed = code_actions::apply(USER, &rename.edits);
    assert_eq!(
        fixed,
        USER.replace("bash(npm run lint)", "Bash(npm run lint)")
    );
    // The project's allow of a denied command: removed, comments and the
    // other items kept.
    let ppath = project.join(".qwen/settings.json");
    let (_, a) = analyse(&home, &project, &ppath, PROJECT);
    let root = a.root.clone();
    let actions =
        code_actions::code_actions(PROJECT, root.as_ref(), &a.diagnostics, 0..PROJECT.len());
    let remove = actions
        .iter()
        .find(|x| x.title.starts_with("Remove `Bash(npm publish)`"))
        .unwrap_or_else(|| panic!("{actions:?}"));
    let repaired = code_actions::apply(PROJECT, &remove.edits);
    assert_eq!(repaired, PROJECT.replace("\"Bash(npm publish)\", ", ""));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn hover_completion_outline_and_files() {
    let (dir, home, project) = session("hover", PROJECT);
    let path = home.join(".qwen/settings.json");
    let ctx = context(&home, &project, &path);
    let (role, a) = analyse(&home, &project, &path, USER);
    let at = USER.find("Bash(echo *)").unwrap();
    let h = Qwen.hover(role, USER, &a, at, &ctx).expect("a hover");
    insta::assert_snapshot!("qwen-hover-rule", h.markdown);
    let names: Vec<String> = Qwen
        .symbols(role, &a)
        .iter()
        .flat_map(|s| s.children.iter().map(|c| format!("{}: {}", s.name, c.name)))
        .collect();
    assert_eq!(
        names,
        [
            "permissions: allow",
            "permissions: deny",
            "tools: approvalMode"
        ]
    );
    let partial = "{\"permissions\": {\"allow\": [\"Web";
    let items = Qwen.completions(
        role,
        &format!("{partial}\"]}}}}"),
        partial.len(),
        &ctx,
        true,
    );
    let labels: Vec<&str> = items.iter().map(|i| i.label.as_str()).collect();
    assert_eq!(labels, ["WebFetch", "WebSearch"]);
    let files = Qwen.session_files(&context(
        &home,
        &project,
        &project.join(".qwen/settings.json"),
    ));
    let scopes: Vec<&str> = files.present.iter().map(|f| f.scope.as_str()).collect();
    assert_eq!(scopes, ["user", "project"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_corpus_file_is_read_and_checked() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/qwen/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut summary = String::new();
    let options = AnalysisOptions::for_profile(Qwen.default_profile());
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(f).unwrap();
        let kind = formats::detect(&f.display().to_string(), &String::from_utf8_lossy(&bytes))
            .unwrap_or_else(|| panic!("{name} is not detected as a Qwen Code file"));
        assert_eq!(kind.format.id(), "qwen", "{name}");
        let (_, a) = Qwen.analyse_file(kind.role, bytes.clone(), &options, None);
        // What `check` reports (without the tree the editor reads): the
        // same findings.
        let (_, findings) = Qwen.findings_of_file(kind.role, bytes.clone(), &options, None);
        assert_eq!(findings, a.diagnostics, "{name}");
        let mut codes: Vec<&str> = a.diagnostics.iter().map(|d| d.code.as_str()).collect();
        codes.sort();
        codes.dedup();
        summary.push_str(&format!(
            "{name}: {} {}\n",
            if a.accepted { "read" } else { "NOT JSON" },
            codes.join(" ")
        ));
    }
    assert_eq!(files.len(), 42);
    insta::assert_snapshot!(summary);
}

/// What `check` writes a large file's findings from — handed over in
/// document order a batch at a time — equals the analysis's findings in its
/// order: seeded long settings whose lists come in any order in the file
/// (`deny` before `allow`, the `tools` lists after), with repeated,
/// malformed, misspelt and overlapping rules; in a session and alone.
#[test]
fn findings_in_order_are_the_analysis_findings() {
    use crate::rng::Rng;
    let (dir, home, project) = session("order", "{}");
    let doc = project.join(".qwen/settings.json");
    let ctx = context(&home, &project, &doc);
    let options = AnalysisOptions::for_profile(Qwen.default_profile());
    let shapes = [
        "Bash(cmd{} *)",
        "Bash(cmd{} --force)",
        "Bash(git push)",
        "Bash(rm -rf *)",
        "Read(./.env)",
        "Bash(cmd{}",
        "Bsh(cmd{})",
        "Bash(echo $(cmd{}))",
        "Bash",
        "WebFetch(domain:x{}.com)",
    ];
    let mut rng = Rng::seeded(5);
    let mut most = 0;
    for case in 0..6 {
        let list = |rng: &mut Rng, n: usize| {
            let items: Vec<String> = (0..n)
                .map(|i| {
                    let shape = if rng.chance(80) {
                        shapes[0]
                    } else {
                        rng.pick(&shapes)
                    };
                    format!("\"{}\"", shape.replace("{}", &(i % 5000).to_string()))
                })
                .collect();
            format!("[\n      {}\n    ]", items.join(",\n      "))
        };
        let sizes = [
            2000 + rng.below(4000),
            500 + rng.below(2000),
            rng.below(500),
        ];
        let mut keys = [
            format!("\"allow\": {}", list(&mut rng, sizes[0])),
            format!("\"deny\": {}", list(&mut rng, sizes[1])),
            format!("\"ask\": {}", list(&mut rng, sizes[2])),
        ];
        // Any order in the file.
        for k in (1..keys.len()).rev() {
            let j = rng.below(k + 1);
            keys.swap(k, j);
        }
        let tools = if case % 2 == 1 {
            format!(
                ",\n  \"tools\": {{\"allowed\": {}, \"exclude\": {}}}",
                list(&mut rng, 300),
                list(&mut rng, 300)
            )
        } else {
            String::new()
        };
        let text = format!(
            "{{\n  \"permissions\": {{\n    {}\n  }}{tools}\n}}\n",
            keys.join(",\n    ")
        );
        std::fs::write(&doc, &text).unwrap();
        for ctx in [Some(&ctx), None] {
            let (want_text, want) =
                Qwen.findings_of_file(Role::Config, text.clone().into_bytes(), &options, ctx);
            let mut got = Vec::new();
            let mut batches = 0;
            Qwen.findings_of_file_in_order(
                Role::Config,
                text.clone().into_bytes(),
                &options,
                ctx,
                &mut |t, ds| {
                    assert_eq!(t, want_text);
                    batches += 1;
                    got.extend(ds);
                },
            );
            most = most.max(batches);
            assert_eq!(got.len(), want.len(), "case {case}");
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "case {case}, finding {k}");
            }
        }
    }
    assert!(most >= 3, "{most}");
    let _ = std::fs::remove_dir_all(&dir);
}
