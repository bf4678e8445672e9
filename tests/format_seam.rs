//! The format seam: the runtime profile reaches the merged pass, quick
//! fixes are data (never read from the message), the registry finds every
//! format's documents, and the typed reports carry their schema version.

use permission_lsp::analysis::AnalysisOptions;
use permission_lsp::formats::{self, Role};
use permission_lsp::workspace::{Overrides, resolve};
use std::path::Path;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// With target 20.9.0, a project file using `authorizerChain` next to a
/// global file is read as 20.9.0 by the merged pass too: no "the runtime
/// ignores this file". With 20.7.3 the same files are reported.
#[test]
fn the_profile_reaches_the_merged_pass() {
    let dir = std::env::temp_dir().join(format!("pl-seam-profile-{}", std::process::id()));
    let home = dir.join("home");
    let project = dir.join("proj");
    write(
        &home.join(".pi/agent/extensions/pi-permission-system/config.json"),
        r#"{"permission": {"*": "ask", "bash": {"rm *": "deny"}}}"#,
    );
    let doc = project.join(".pi/extensions/pi-permission-system/config.json");
    let text = r#"{"authorizerChain": ["a"], "permission": {"bash": {"git *": "allow"}}}"#;
    write(&doc, text);
    let pi = formats::by_id("pi").unwrap();
    let analyse = |version: &str| {
        let mut options = AnalysisOptions::for_profile(pi.profile(version).unwrap());
        options.home = home.display().to_string();
        let ctx = resolve(
            &options,
            Some(&project),
            Some(&doc),
            &Overrides::default(),
            None,
        );
        let kind = formats::detect(&doc.to_string_lossy(), text).unwrap();
        assert_eq!(kind.role, Role::Config);
        kind.format.analyse(kind.role, text, &ctx).diagnostics
    };
    let newer = analyse("20.9.0");
    let codes: Vec<&str> = newer.iter().map(|d| d.code.as_str()).collect();
    assert!(
        !newer.iter().any(|d| d.message.contains("ignores this")),
        "{newer:#?}"
    );
    assert!(
        !codes.contains(&"PL226") && !codes.contains(&"PL111"),
        "{codes:?}"
    );
    let older = analyse("20.7.3");
    let codes: Vec<&str> = older.iter().map(|d| d.code.as_str()).collect();
    assert!(codes.contains(&"PL111"), "{codes:?}");
    assert!(
        codes.contains(&"PL226"),
        "the merged pass reads 20.7.3: {codes:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Every quick fix is offered, and identical, when every message is
/// reworded: code actions read the typed fixes, never the text.
#[test]
fn quick_fixes_do_not_depend_on_message_wording() {
    use permission_lsp::formats::pi::ide::rewrites::code_actions;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs: Vec<(String, String)> = Vec::new();
    for dir in [
        "tests/fixtures/corpus/pi",
        "examples",
        "tests/fixtures/scopes",
    ] {
        collect(&root.join(dir), &mut inputs);
    }
    // Findings with every kind of fix.
    for text in [
        "{\"permission\": {\"bash\": {\"git *\": \"allow\", \"*\": \"deny\",}}}",
        "\u{feff}{\"permission\": {}}",
        "{\"permision\": {}}",
        "{\"permission\": {\"bash\": {\"x\": \"Allow\", \"y\": {\"action\": \"allow\"}, \"z\": {\"action\": \"deny\", \"reason\": 5}}}}",
        "{\"permission\": {\"bash\": {\"action\": \"deny\"}, \"Bash\": \"ask\", \"read\": {\"action\": \"deny\", \"reason\": \"x\"}}}",
        "{\"permission\": {\"bash\": {\"a\": \"allow\", \"a\": \"deny\"}}}",
        "{\"permission\": {\"bash\": {\"git push\": \"deny\", \"git *\": \"allow\", \"npm*\": \"ask\", \" ls\": \"allow\", \"a  b\": \"ask\"}}}",
        "{\"permission\": {\"read\": {\"src/**/*.ts\": \"deny\"}, \"mcp\": {\"*\": \"allow\", \"exa:search\": \"deny\"}, \"write\": {\"*\": \"deny\", \"*.md\": \"allow\"}}}",
        "{\"permission\": {\"bash\": {\"*\": \"ask\", \"git *\": \"ask\", \"git status\": \"ask\"}}}",
    ] {
        inputs.push(("inline.json".into(), text.into()));
    }
    inputs.push((
        "agent.md".into(),
        "---\npermission:\n  bash:\n    \"git *\": allow # ok\n    \"ls\": Allow\n    \"rm *\": { action: deny, reason: no }\n---\n".into(),
    ));
    let pi = formats::by_id("pi").unwrap();
    let options = AnalysisOptions::default();
    let mut fixes_seen = 0;
    for (name, text) in &inputs {
        let role = if name.ends_with(".md") {
            Role::Agent
        } else {
            Role::Config
        };
        let (text, analysis) = pi.analyse_file(role, text.as_bytes().to_vec(), &options, None);
        let mut reworded = analysis.diagnostics.clone();
        for d in &mut reworded {
            d.message = "reworded".into();
            for r in &mut d.related {
                r.message = "reworded".into();
            }
        }
        let root = analysis.root.as_ref();
        for d in &analysis.diagnostics {
            fixes_seen += d.fixes.len();
        }
        let whole = 0..text.len();
        let strip = |acts: Vec<permission_lsp::ide::code_actions::Action>| {
            acts.into_iter()
                .map(|a| (a.title, a.edits, a.fixes.map(|d| (d.code, d.range))))
                .collect::<Vec<_>>()
        };
        for d in &analysis.diagnostics {
            let at = d.range.clone();
            let before = strip(code_actions(&text, root, &analysis.diagnostics, at.clone()));
            let after = strip(code_actions(&text, root, &reworded, at));
            assert_eq!(before, after, "{name}: {}", d.code.as_str());
        }
        assert_eq!(
            strip(code_actions(
                &text,
                root,
                &analysis.diagnostics,
                whole.clone()
            )),
            strip(code_actions(&text, root, &reworded, whole)),
            "{name}"
        );
    }
    assert!(fixes_seen >= 15, "only {fixes_seen} fixes exercised");
}

fn collect(dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p
            .extension()
            .is_some_and(|x| x == "json" || x == "jsonc" || x == "md")
            && let Ok(text) = std::fs::read_to_string(&p)
            && (!p.to_string_lossy().ends_with(".md") || text.starts_with("---"))
        {
            out.push((p.display().to_string(), text));
        }
    }
}

/// The typed reports carry `schemaVersion` and read back into the types.
#[test]
fn reports_are_typed_and_versioned() {
    use permission_lsp::analysis::report::{EffectivePolicyReport, SimulationReport};
    use permission_lsp::formats::CallRequest;
    let dir = std::env::temp_dir().join(format!("pl-seam-report-{}", std::process::id()));
    let project = dir.join("proj");
    write(
        &project.join(".pi/extensions/pi-permission-system/config.json"),
        r#"{"permission": {"bash": {"*": "ask", "git *": "allow"}}}"#,
    );
    let pi = formats::default_format();
    let options = AnalysisOptions {
        home: dir.join("home").display().to_string(),
        ..AnalysisOptions::default()
    };
    let over = Overrides {
        cwd: Some(project.clone()),
        ..Default::default()
    };
    let ctx = resolve(&options, None, None, &over, None);
    let call = CallRequest {
        tool: "bash".into(),
        input: serde_json::json!({"command": "git status"}),
    };
    let r = pi.simulate(&ctx, &call).unwrap();
    assert_eq!(r.decision, "allow");
    assert_eq!(r.rule.as_ref().unwrap().pattern, "git *");
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["schemaVersion"], 1);
    assert_eq!(v["decision"], "allow");
    let back: SimulationReport = serde_json::from_value(v).unwrap();
    assert_eq!(back, r);
    let e = pi.effective_policy(&ctx).unwrap();
    let v = serde_json::to_value(&e).unwrap();
    assert_eq!(v["schemaVersion"], 1);
    let back: EffectivePolicyReport = serde_json::from_value(v).unwrap();
    assert_eq!(back, e);
    std::fs::remove_dir_all(&dir).ok();
}

/// Codes live in per-format namespaces with a docs page each.
#[test]
fn every_code_has_a_page_in_its_format_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for f in formats::all() {
        for c in f.codes() {
            assert_eq!(c.format, f.id());
            let code = permission_lsp::analysis::DiagnosticCode(c);
            let page = std::fs::read_to_string(root.join(code.docs_path()))
                .unwrap_or_else(|_| panic!("missing {}", code.docs_path()));
            // The heading names the code; the page states its severity.
            assert!(
                page.starts_with(&format!("# {} `{}`", c.id, c.name)),
                "{}",
                code.docs_path()
            );
            assert!(
                page.contains(&format!("**Default severity:** {}", c.severity.as_str())),
                "{}",
                code.docs_path()
            );
            assert_eq!(
                permission_lsp::analysis::code_by_name(c.id),
                Some(code),
                "{}",
                c.id
            );
        }
    }
}

/// The docs index is generated from the codes' one-line summaries (kept in
/// one place: each format's code table). `UPDATE_DOCS=1 cargo test` rewrites
/// it.
#[test]
fn the_docs_index_lists_every_code_with_its_summary() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/lints/README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("| code |").expect("the index table");
    let end = text[start..]
        .find("\n\n")
        .map_or(text.len(), |e| start + e + 1);
    let mut table = String::from(
        "| code | format | name | default | what the runtime does |\n|---|---|---|---|---|\n",
    );
    for f in formats::all() {
        let mut codes: Vec<_> = f.codes().iter().collect();
        codes.sort_by_key(|c| c.id);
        for c in codes {
            table.push_str(&format!(
                "| [{id}]({format}/{id}.md) | {display} | `{name}` | {sev} | {summary} |\n",
                id = c.id,
                format = c.format,
                display = f.display_name(),
                name = c.name,
                sev = c.severity.as_str(),
                summary = c.summary.replace('|', "\\|"),
            ));
        }
    }
    let expected = format!("{}{table}{}", &text[..start], &text[end..]);
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).unwrap();
        return;
    }
    assert!(
        text == expected,
        "docs/lints/README.md is out of date: run `UPDATE_DOCS=1 cargo test --test shared format_seam::`"
    );
}

/// The editor settings come from the formats' declarations: every declared
/// session option is a setting `permissionLsp.<id>.<setting>` of the VS Code
/// extension (with the declared values, when closed), each format with
/// environment variables has `permissionLsp.<id>.env`, and the extension
/// forwards every format id.
#[test]
fn every_declared_session_option_is_an_editor_setting() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let package: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("editors/vscode/package.json")).unwrap(),
    )
    .unwrap();
    let props = &package["contributes"]["configuration"]["properties"];
    let config_ts = std::fs::read_to_string(root.join("editors/vscode/src/config.ts")).unwrap();
    for f in permission_lsp::formats::all() {
        assert!(
            config_ts.contains(&format!("\"{}\"", f.id())),
            "FORMAT_IDS in config.ts lacks {}",
            f.id()
        );
        for o in f.session_options() {
            let key = format!("permissionLsp.{}.{}", f.id(), o.setting);
            let p = &props[&key];
            assert!(p.is_object(), "{key} is not a setting of the extension");
            let expected = if o.switch {
                "boolean"
            } else if o.repeatable {
                "array"
            } else {
                "string"
            };
            assert_eq!(p["type"], expected, "{key}");
            for v in o.values {
                assert!(
                    p["enum"]
                        .as_array()
                        .is_some_and(|e| e.iter().any(|x| x == v)),
                    "{key} lacks `{v}`"
                );
            }
        }
        if !f.session_env().is_empty() {
            let key = format!("permissionLsp.{}.env", f.id());
            assert!(
                props[&key].is_object(),
                "{key} is not a setting of the extension"
            );
        }
    }
}

/// Every fixture of every format, through the contract's two ways of
/// handing over a file's findings: in order a batch at a time (what
/// `check` writes a large file's with) they are `findings_of_file`'s, in
/// its order, with its text — alone and in a session.
#[test]
fn findings_in_order_are_the_findings_of_every_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.metadata().is_ok_and(|m| m.len() < 1 << 20) {
                files.push(p);
            }
        }
    }
    let mut checked = 0;
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        // Corpus files are named `owner__repo__path__to__file`: the file at
        // its path in a project.
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let parts: Vec<&str> = name.split("__").collect();
        let placed = if parts.len() >= 3 {
            Path::new("/nonexistent-permission-lsp-seam/project").join(parts[2..].join("/"))
        } else {
            path.clone()
        };
        let formats::Detected::Kind(kind) = formats::detect_file(&placed.to_string_lossy(), &text)
        else {
            continue;
        };
        let options = AnalysisOptions::for_profile(kind.format.default_profile());
        let ctx = resolve(
            &options,
            placed.parent(),
            Some(&placed),
            &Overrides::default(),
            None,
        );
        for ctx in [None, Some(&ctx)] {
            let (want_text, want) =
                kind.format
                    .findings_of_file(kind.role, bytes.clone(), &options, ctx);
            let mut got = Vec::new();
            kind.format.findings_of_file_in_order(
                kind.role,
                bytes.clone(),
                &options,
                ctx,
                &mut |t, ds| {
                    assert_eq!(t, want_text, "{}", path.display());
                    got.extend(ds);
                },
            );
            assert_eq!(got, want, "{}", path.display());
        }
        checked += 1;
    }
    assert!(checked > 300, "{checked} fixtures");
}
