//! The server in-process over an in-memory duplex stream, spoken to as an
//! editor would: open -> diagnostics -> edit -> new diagnostics, hover,
//! encodings, and hostile input.

use crate::common;

use common::{LspClient, codes};
use serde_json::json;

type Client = LspClient<
    tokio::io::ReadHalf<tokio::io::DuplexStream>,
    tokio::io::WriteHalf<tokio::io::DuplexStream>,
>;

fn start() -> Client {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(permission_lsp::lsp::serve(sr, sw));
    let (cr, cw) = tokio::io::split(client_end);
    LspClient::new(cr, cw)
}

/// `dir` made a git repository whose HEAD holds every file in it.
fn commit_all(dir: &std::path::Path) {
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["commit", "-qm", "base"],
    ] {
        std::process::Command::new("git")
            .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
    }
}

const URI: &str = "file:///work/p/.pi/extensions/pi-permission-system/config.json";

#[tokio::test]
async fn open_edit_and_republish() {
    let mut c = start();
    let init = c.initialize(&["utf-16"]).await;
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(
        init["result"]["capabilities"]["textDocumentSync"]["change"],
        2
    );

    let text = "{\n  \"permission\": {\n    \"bash\": { \"git *\": \"allow\", }\n  }\n}\n";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "jsonc", "version": 1, "text": text}}),
    )
    .await;
    let d = c.diagnostics(URI, Some(1)).await;
    assert_eq!(codes(&d), ["PL002"]);
    let diag = &d["diagnostics"][0];
    assert_eq!(
        diag["range"],
        json!({"start": {"line": 2, "character": 30}, "end": {"line": 2, "character": 31}})
    );
    // A project file: ignored up to 20.x, failing closed from 21.0.
    assert!(diag["message"].as_str().unwrap().contains(
        "up to 20.x it ignores the file (every rule in it is dropped); from 21.0 it fails closed"
    ));
    let related = diag["relatedInformation"][0]["message"].as_str().unwrap();
    assert!(related.starts_with("runtime: Failed to read config at '/work/p/.pi/extensions/pi-permission-system/config.json': Expected double-quoted property name in JSON at position 52 (line 3 column 33)"), "{related}");

    // Remove the trailing comma with an incremental edit.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 2, "character": 30}, "end": {"line": 2, "character": 31}}, "text": ""}]}),
    )
    .await;
    let d = c.diagnostics(URI, Some(2)).await;
    assert_eq!(codes(&d), Vec::<String>::new());

    // Introduce an invalid state.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 3},
               "contentChanges": [{"range": {"start": {"line": 2, "character": 24}, "end": {"line": 2, "character": 29}}, "text": "Allow"}]}),
    )
    .await;
    let d = c.diagnostics(URI, Some(3)).await;
    assert_eq!(codes(&d), ["PL101"]);

    // Hover on the surface key.
    let h = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": {"line": 2, "character": 6}}),
        )
        .await;
    assert!(
        h["result"]["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("surface `bash`"),
        "{h}"
    );

    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    )
    .await;
    let d = c.diagnostics(URI, None).await;
    assert_eq!(d["diagnostics"], json!([]));
    let r = c.request("shutdown", json!(null)).await;
    assert_eq!(r["result"], json!(null));
}

#[tokio::test]
async fn utf8_is_negotiated_when_offered() {
    let mut c = start();
    let init = c.initialize(&["utf-8", "utf-16"]).await;
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-8");
    let text = "{\"permission\": {\"bash\": {\"é😀\": \"Allow\"}}}";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "json", "version": 1, "text": text}}),
    )
    .await;
    let d = c.diagnostics(URI, Some(1)).await;
    // "é😀" is 2 + 4 bytes: the value starts at byte 35.
    assert_eq!(
        d["diagnostics"][0]["range"]["start"],
        json!({"line": 0, "character": 35})
    );
}

#[tokio::test]
async fn utf16_columns_count_surrogate_pairs() {
    let mut c = start();
    c.initialize(&[]).await;
    let text = "{\"permission\": {\"bash\": {\"é😀\": \"Allow\"}}}";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "json", "version": 1, "text": text}}),
    )
    .await;
    let d = c.diagnostics(URI, Some(1)).await;
    assert_eq!(
        d["diagnostics"][0]["range"]["start"],
        json!({"line": 0, "character": 32})
    );
}

#[tokio::test]
async fn hostile_protocol_input_keeps_the_server_up() {
    let mut c = start();
    c.initialize(&[]).await;
    // A body that is not JSON: answered with a parse error.
    c.send_raw("{not json").await;
    let e = c.wait_for(|m| m.get("error").is_some()).await;
    assert_eq!(e["error"]["code"], -32700);
    assert_eq!(e["id"], json!(null));
    // Valid JSON that is not JSON-RPC: invalid request, with its id.
    c.send_raw(r#"{"id": 7, "foo": 1}"#).await;
    let e = c.wait_for(|m| m["id"] == 7).await;
    assert_eq!(e["error"]["code"], -32600);
    // A header without Content-Length.
    c.writer_raw(b"X-Junk: 1\r\n\r\n").await;
    let e = c.wait_for(|m| m.get("error").is_some()).await;
    assert_eq!(e["error"]["code"], -32700);
    // Requests about documents never opened, positions past the end.
    let h = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": "file:///nowhere.json"}, "position": {"line": 99, "character": 99}}),
        )
        .await;
    assert_eq!(h["result"], json!(null));
    // An unknown method is answered with "method not found".
    let r = c.request("permission-lsp/unknown", json!({})).await;
    assert_eq!(r["error"]["code"], -32601);
    // A change for a document never opened, and edits past the end.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "file:///nowhere.json", "version": 2}, "contentChanges": [{"text": "x"}]}),
    )
    .await;
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "json", "version": 1, "text": "{}"}}),
    )
    .await;
    c.diagnostics(URI, Some(1)).await;
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 50, "character": 3}, "end": {"line": 2, "character": 0}}, "text": "x"}]}),
    )
    .await;
    let d = c.diagnostics(URI, Some(2)).await;
    assert_eq!(codes(&d), ["PL001"], "{{}}x is trailing content");
    // Still serving.
    let h = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": {"line": 0, "character": 0}}),
        )
        .await;
    assert!(h.get("result").is_some());
}

#[tokio::test]
async fn rapid_changes_end_with_the_final_text() {
    let mut c = start();
    c.initialize(&[]).await;
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "json", "version": 1, "text": ""}}),
    )
    .await;
    let mut text = String::new();
    for v in 2..=300 {
        let piece = if v % 2 == 0 { "{" } else { "}" };
        text.push_str(piece);
        let line_len = text.len() - piece.len();
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": v},
                   "contentChanges": [{"range": {"start": {"line": 0, "character": line_len}, "end": {"line": 0, "character": line_len}}, "text": piece}]}),
        )
        .await;
    }
    // Text is "{}{}…{" + "}" … ends with 150 pairs minus: v=300 is even -> "{".
    let d = c.diagnostics(URI, Some(300)).await;
    assert!(codes(&d).contains(&"PL001".to_string()));
    let _ = text;
}

#[tokio::test]
async fn settings_change_levels_and_target() {
    let mut c = start();
    c.initialize(&[]).await;
    let text = "{\"authorizerChain\": [\"bot\"], \"permission\": {\"bash\": {\"*\": \"deny\", \"*\": \"ask\"}}}";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "json", "version": 1, "text": text}}),
    )
    .await;
    // `auto`: read as 20.9.0, the lowest version that accepts the key.
    let d = c.diagnostics(URI, Some(1)).await;
    assert_eq!(codes(&d), ["PL112", "PL010"]);
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"permissionLsp": {"targetVersion": "20.7.3"}}}),
    )
    .await;
    let d = c.diagnostics(URI, Some(1)).await;
    assert_eq!(codes(&d), ["PL111", "PL010"]);
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"permissionLsp": {"targetVersion": "25.0.0", "lints": {"PL010": "off"}}}}),
    )
    .await;
    let d = c.diagnostics(URI, Some(1)).await;
    assert_eq!(codes(&d), Vec::<String>::new());
}

#[tokio::test]
async fn simulate_uses_the_unsaved_buffer() {
    let dir = std::env::temp_dir().join(format!("pl-sim-{}", std::process::id()));
    let cfg_dir = dir.join(".pi/extensions/pi-permission-system");
    std::fs::create_dir_all(&cfg_dir).unwrap();
    let path = cfg_dir.join("config.json");
    std::fs::write(&path, "{\"permission\": {\"*\": \"allow\"}}").unwrap();
    let uri = format!("file://{}", path.display());
    let mut c = start();
    c.initialize(&[]).await;
    let unsaved = "{\"permission\": {\"*\": \"allow\", \"bash\": {\"*\": \"allow\", \"rm *\": {\"action\": \"deny\", \"reason\": \"no deletes\"}}}}";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": unsaved}}),
    )
    .await;
    c.diagnostics(&uri, Some(1)).await;
    let r = c
        .request(
            "workspace/executeCommand",
            json!({"command": "permission-lsp.simulate", "arguments": [{"uri": uri, "tool": "bash", "input": {"command": "ls && rm -rf x"}, "home": "/nonexistent"}]}),
        )
        .await;
    let v = &r["result"];
    assert_eq!(v["decision"], "deny", "{r}");
    assert_eq!(v["reason"], "no deletes");
    assert_eq!(v["rule"]["pattern"], "rm *");
    assert_eq!(v["rule"]["scope"], "project");
    assert_eq!(
        v["agent_message"],
        "[pi-permission-system] is not permitted to run 'bash' command 'rm -rf x' (matched 'rm *'). Reason: no deletes."
    );
    let r = c
        .request(
            "workspace/executeCommand",
            json!({"command": "permission-lsp.simulateCommandLine", "arguments": [{"uri": uri, "commandLine": "git status", "home": "/nonexistent"}]}),
        )
        .await;
    assert_eq!(r["result"]["decision"], "allow", "{r}");
    let lens = c
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert_eq!(
        lens["result"][0]["command"]["command"],
        "permission-lsp.simulateCommandLine"
    );
    let bad = c
        .request(
            "workspace/executeCommand",
            json!({"command": "permission-lsp.simulate", "arguments": [{"uri": uri}]}),
        )
        .await;
    assert_eq!(bad["error"]["code"], -32602);
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn code_action_fixes_a_trailing_comma() {
    let mut c = start();
    c.initialize(&[]).await;
    let text = "{\"permission\": {\"bash\": {\"git *\": \"allow\",}}}";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "json", "version": 1, "text": text}}),
    )
    .await;
    let d = c.diagnostics(URI, Some(1)).await;
    let diag = d["diagnostics"][0].clone();
    let r = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": URI}, "range": diag["range"], "context": {"diagnostics": [diag]}}),
        )
        .await;
    let action = &r["result"][0];
    assert_eq!(action["title"], "Remove the trailing comma");
    assert_eq!(action["kind"], "quickfix");
    assert_eq!(action["diagnostics"][0]["code"], "PL002");
    let edit = &action["edit"]["changes"][URI][0];
    assert_eq!(edit["newText"], "");
    assert_eq!(edit["range"], diag["range"]);
    // Only rewrites when asked for refactorings.
    let r = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": URI}, "range": diag["range"], "context": {"diagnostics": [], "only": ["refactor"]}}),
        )
        .await;
    assert_eq!(r["result"], json!([]));
}

/// Precedence on hover, completion, the outline, the move-after quick fix
/// and faded dead rules, over the protocol.
#[tokio::test]
async fn precedence_hover_completion_symbols_and_fixes() {
    let mut c = start();
    c.initialize(&["utf-16"]).await;
    let text = "{\n  \"permission\": {\n    \"*\": \"ask\",\n    \"bash\": {\n      \"git push *\": \"deny\",\n      \"git status\": \"allow\",\n      \"git *\": \"allow\",\n      \"npm *\": \"ask\"\n    }\n  }\n}\n";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "jsonc", "version": 1, "text": text}}),
    )
    .await;
    let d = c.diagnostics(URI, Some(1)).await;
    assert_eq!(codes(&d), ["PL210", "PL211"]);
    assert_eq!(
        d["diagnostics"][1]["tags"],
        json!([1]),
        "dead rules are faded"
    );

    let hover = |line: u32, character: u32| json!({"textDocument": {"uri": URI}, "position": {"line": line, "character": character}});
    let h = c.request("textDocument/hover", hover(6, 8)).await;
    insta::assert_snapshot!(
        "hover-broader-rule",
        h["result"]["contents"]["value"].as_str().unwrap()
    );
    let h = c.request("textDocument/hover", hover(4, 8)).await;
    insta::assert_snapshot!(
        "hover-overridden-rule",
        h["result"]["contents"]["value"].as_str().unwrap()
    );
    let h = c.request("textDocument/hover", hover(3, 6)).await;
    insta::assert_snapshot!(
        "hover-surface",
        h["result"]["contents"]["value"].as_str().unwrap()
    );

    // The move quick fix at the overridden rule.
    let r = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": URI},
                   "range": {"start": {"line": 4, "character": 8}, "end": {"line": 4, "character": 8}},
                   "context": {"diagnostics": [d["diagnostics"][0].clone()]}}),
        )
        .await;
    let titles: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(
        titles.contains(&"Move after \"git *\" so this rule takes effect"),
        "{titles:?}"
    );

    // Completion of a state, and of a surface inside a fresh key.
    let r = c
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": URI}, "position": {"line": 7, "character": 16}}),
        )
        .await;
    let labels: Vec<&str> = r["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["allow", "ask", "deny", "deny with reason"]);

    // The outline: surfaces and their rules in runtime order.
    let r = c
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": URI}}),
        )
        .await;
    let perm = &r["result"][0];
    assert_eq!(perm["name"], "permission");
    let bash = &perm["children"][1];
    assert_eq!(bash["name"], "bash");
    assert_eq!(bash["detail"], "4 rules");
    let rules: Vec<&str> = bash["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["git push *", "git status", "git *", "npm *"]);
}

/// Scope files see each other: a project rule that keeps the global key's
/// position is overridden by the global catch-all after it (D19), and
/// editing the open global file republishes the project file's findings.
#[tokio::test]
async fn an_edit_in_the_global_config_changes_the_project_diagnostics() {
    let dir = std::env::temp_dir().join(format!("pl-scopes-{}", std::process::id()));
    let home = dir.join("home");
    let global_dir = home.join(".pi/agent/extensions/pi-permission-system");
    let project_dir = dir.join("proj/.pi/extensions/pi-permission-system");
    std::fs::create_dir_all(&global_dir).unwrap();
    std::fs::create_dir_all(&project_dir).unwrap();
    let global = global_dir.join("config.json");
    let project = project_dir.join("config.json");
    let global_text = "{\"permission\": {\"bash\": {\"git *\": \"deny\", \"*\": \"ask\"}}}";
    let project_text = "{\"permission\": {\"bash\": {\"git *\": \"allow\"}}}";
    std::fs::write(&global, global_text).unwrap();
    std::fs::write(&project, project_text).unwrap();
    let (guri, puri) = (
        format!("file://{}", global.display()),
        format!("file://{}", project.display()),
    );
    let mut c = start();
    c.initialize(&[]).await;
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"permissionLsp": {"home": home.display().to_string()}}}),
    )
    .await;
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": puri, "languageId": "json", "version": 1, "text": project_text}}),
    )
    .await;
    let with_finding = |uri: String| {
        move |m: &serde_json::Value| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri.as_str()
                && m["params"]["diagnostics"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|d| d["code"] == "PL210"))
        }
    };
    let d = c.wait_for(with_finding(puri.clone())).await;
    let msg = d["params"]["diagnostics"][0]["message"].as_str().unwrap();
    assert!(msg.contains("`git *` (allow) never takes effect"), "{msg}");
    assert!(msg.contains("in the global config"), "{msg}");
    // Hover says which scope is in force and what it replaces.
    let h = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": puri}, "position": {"line": 0, "character": 28}}),
        )
        .await;
    let md = h["result"]["contents"]["value"].as_str().unwrap_or("");
    assert!(
        md.contains("In force: rule 1 of 2 in the merged order"),
        "{md}"
    );
    assert!(
        md.contains("Replaces `git *` → deny of the global config"),
        "{md}"
    );

    // Open the global file and drop its catch-all: the project file's
    // finding goes away without touching the project file.
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": guri, "languageId": "json", "version": 1, "text": global_text}}),
    )
    .await;
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": guri, "version": 2},
               "contentChanges": [{"text": "{\"permission\": {\"bash\": {\"git *\": \"deny\"}}}"}]}),
    )
    .await;
    let puri2 = puri.clone();
    c.wait_for(move |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == puri2.as_str()
            && m["params"]["diagnostics"] == json!([])
    })
    .await;
    // The effective policy command sees both scopes, the buffer included.
    let r = c
        .request(
            "workspace/executeCommand",
            json!({"command": "permission-lsp.effectivePolicy", "arguments": [{"uri": puri, "home": home.display().to_string()}]}),
        )
        .await;
    let rules: Vec<(String, String, String)> = r["result"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["pattern"].as_str().unwrap().to_string(),
                x["action"].as_str().unwrap().to_string(),
                x["scope"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rules,
        [
            ("*".into(), "ask".into(), "builtin".into()),
            ("git *".into(), "allow".into(), "project".into())
        ]
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Agent files are documents of their own: dropped frontmatter entries are
/// published, with a quick fix, and hover explains a kept rule.
#[tokio::test]
async fn agent_files_get_diagnostics_fixes_and_hover() {
    let uri = "file:///work/p/.pi/agents/dev.md";
    let text = "---\npermission:\n  read: allow # reviewed\n  bash:\n    \"git *\": allow\n    \"git push *\": deny\n---\n";
    let mut c = start();
    c.initialize(&["utf-16"]).await;
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
    )
    .await;
    let d = c.diagnostics(uri, Some(1)).await;
    assert_eq!(codes(&d), ["PL302"]);
    let r = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri},
                   "range": {"start": {"line": 2, "character": 3}, "end": {"line": 2, "character": 3}},
                   "context": {"diagnostics": []}}),
        )
        .await;
    assert_eq!(
        r["result"][0]["title"], "Move the comment to its own line",
        "{r}"
    );
    let h = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 5, "character": 7}}),
        )
        .await;
    let md = h["result"]["contents"]["value"].as_str().unwrap_or("");
    assert!(md.contains("**`git push *` → deny**"), "{h}");
}

/// File watching: the server registers watchers for the scope files, and a
/// change on disk of the global config republishes the open project file.
#[tokio::test]
async fn a_changed_global_file_on_disk_republishes_the_project_file() {
    let dir = std::env::temp_dir().join(format!("pl-watch-{}", std::process::id()));
    let home = dir.join("home");
    let global_dir = home.join(".pi/agent/extensions/pi-permission-system");
    let project_dir = dir.join("proj/.pi/extensions/pi-permission-system");
    std::fs::create_dir_all(&global_dir).unwrap();
    std::fs::create_dir_all(&project_dir).unwrap();
    let global = global_dir.join("config.json");
    let project = project_dir.join("config.json");
    std::fs::write(
        &global,
        "{\"permission\": {\"bash\": {\"git *\": \"deny\"}}}",
    )
    .unwrap();
    let project_text = "{\"permission\": {\"bash\": {\"git *\": \"allow\"}}}";
    std::fs::write(&project, project_text).unwrap();
    let puri = format!("file://{}", project.display());
    let mut c = start();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": null,
               "initializationOptions": {"permissionLsp": {"home": home.display().to_string()}},
               "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}}),
    )
    .await;
    c.notify("initialized", json!({})).await;
    let reg = c
        .wait_for(|m| m["method"] == "client/registerCapability")
        .await;
    let watchers = &reg["params"]["registrations"][0]["registerOptions"]["watchers"];
    assert!(
        watchers
            .to_string()
            .contains("extensions/pi-permission-system/config.json"),
        "{reg}"
    );
    c.send_raw(&json!({"jsonrpc": "2.0", "id": reg["id"], "result": null}).to_string())
        .await;
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": puri, "languageId": "json", "version": 1, "text": project_text}}),
    )
    .await;
    let d = c.diagnostics(&puri, Some(1)).await;
    assert_eq!(codes(&d), Vec::<String>::new());
    std::fs::write(
        &global,
        "{\"permission\": {\"bash\": {\"git *\": \"deny\", \"*\": \"ask\"}}}",
    )
    .unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": format!("file://{}", global.display()), "type": 2}]}),
    )
    .await;
    let puri2 = puri.clone();
    c.wait_for(move |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == puri2.as_str()
            && m["params"]["diagnostics"]
                .as_array()
                .is_some_and(|a| a.iter().any(|d| d["code"] == "PL210"))
    })
    .await;
    std::fs::remove_dir_all(&dir).ok();
}

/// One resolver: with a non-default `agentDir` setting, the simulate
/// command reads the same global file the diagnostics use.
#[tokio::test]
async fn simulate_reads_the_agent_dir_of_the_settings() {
    let dir = std::env::temp_dir().join(format!("pl-agentdir-{}", std::process::id()));
    let agent_dir = dir.join("custom-agent");
    let global = agent_dir.join("extensions/pi-permission-system/config.json");
    let project = dir.join("proj/.pi/extensions/pi-permission-system/config.json");
    std::fs::create_dir_all(global.parent().unwrap()).unwrap();
    std::fs::create_dir_all(project.parent().unwrap()).unwrap();
    std::fs::write(
        &global,
        "{\"permission\": {\"bash\": {\"rm *\": \"deny\", \"*\": \"ask\"}}}",
    )
    .unwrap();
    let project_text = "{\"permission\": {\"bash\": {\"rm *\": \"allow\"}}}";
    std::fs::write(&project, project_text).unwrap();
    let puri = format!("file://{}", project.display());
    let mut c = start();
    c.initialize(&[]).await;
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"permissionLsp": {
            "home": dir.join("home").display().to_string(),
            "agentDir": agent_dir.display().to_string()}}}),
    )
    .await;
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": puri, "languageId": "json", "version": 1, "text": project_text}}),
    )
    .await;
    // The diagnostics see the global file of the agent directory: the
    // project's `rm *` keeps the global key's position, before `*`.
    let p = puri.clone();
    c.wait_for(move |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == p.as_str()
            && m["params"]["diagnostics"]
                .as_array()
                .is_some_and(|a| a.iter().any(|d| d["code"] == "PL210"))
    })
    .await;
    let r = c
        .request(
            "workspace/executeCommand",
            json!({"command": "permission-lsp.simulate", "arguments": [{
                "uri": puri, "tool": "bash", "input": {"command": "rm -rf build"}}]}),
        )
        .await;
    assert_eq!(r["result"]["schemaVersion"], 1, "{r}");
    assert_eq!(r["result"]["decision"], "ask", "{r}");
    assert_eq!(r["result"]["rule"]["pattern"], "*", "{r}");
    let file = r["result"]["rule"]["file"].as_str().unwrap_or("");
    assert!(
        std::path::Path::new(file) == global,
        "the rule comes from the agentDir's global file: {r}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// An `opencode.json` over the protocol: the CLI's verdicts as diagnostics,
/// simulate on the unsaved buffer, hover on a rule.
#[tokio::test]
async fn opencode_config_diagnostics_simulate_and_hover() {
    let dir = std::env::temp_dir().join(format!("pl-oc-{}", std::process::id()));
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    let path = dir.join("opencode.json");
    std::fs::write(&path, "{}").unwrap();
    let uri = format!("file://{}", path.display());
    let mut c = start();
    c.initialize(&[]).await;
    let unsaved = "{\"permission\": {\"bash\": {\"git push *\": \"deny\", \"*\": \"ask\"}}}";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": unsaved}}),
    )
    .await;
    let d = c.diagnostics(&uri, Some(1)).await;
    assert!(codes(&d).contains(&"OC005".to_string()), "{d}");
    let r = c
        .request(
            "workspace/executeCommand",
            json!({"command": "permission-lsp.simulate", "arguments": [{"uri": uri, "tool": "bash", "input": {"command": "git push origin main"}, "home": "/nonexistent"}]}),
        )
        .await;
    assert_eq!(r["result"]["decision"], "ask", "{r}");
    assert_eq!(r["result"]["rule"]["pattern"], "*", "{r}");
    let at = unsaved.find("git push").unwrap() as u32;
    let h = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": at}}),
        )
        .await;
    let md = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        md.contains("**Example:** `bash` `git push` → **ask**"),
        "{h}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// An OpenCode agent file answers for its own agent: simulate and the
/// effective policy from `.opencode/agent/review.md` use `review`'s rules,
/// not `build`'s, unless an agent is named.
#[tokio::test]
async fn an_opencode_agent_file_answers_for_its_agent() {
    let dir = std::env::temp_dir().join(format!("pl-oc-agent-{}", std::process::id()));
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::create_dir_all(dir.join(".opencode/agent")).unwrap();
    std::fs::write(
        dir.join("opencode.json"),
        "{\"permission\": {\"bash\": {\"*\": \"allow\"}}}",
    )
    .unwrap();
    let path = dir.join(".opencode/agent/review.md");
    let text =
        "---\ndescription: Reviews\npermission:\n  bash:\n    \"git log *\": deny\n---\nReview.\n";
    std::fs::write(&path, text).unwrap();
    let uri = format!("file://{}", path.display());
    let mut c = start();
    c.initialize(&[]).await;
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}),
    )
    .await;
    let _ = c.diagnostics(&uri, Some(1)).await;
    let sim = |agent: Option<&str>| {
        let mut a = json!({"uri": uri, "commandLine": "git log -1", "home": "/nonexistent"});
        if let Some(n) = agent {
            a["agent"] = json!(n);
        }
        json!({"command": "permission-lsp.simulateCommandLine", "arguments": [a]})
    };
    let r = c.request("workspace/executeCommand", sim(None)).await;
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    let r = c
        .request("workspace/executeCommand", sim(Some("build")))
        .await;
    assert_eq!(r["result"]["decision"], "allow", "{r}");
    let p = c
        .request(
            "workspace/executeCommand",
            json!({"command": "permission-lsp.effectivePolicy", "arguments": [{"uri": uri, "home": "/nonexistent"}]}),
        )
        .await;
    assert_eq!(p["result"]["agent"], "review", "{p}");
    // Hover at the rule names the file's agent.
    let h = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": 6}}),
        )
        .await;
    assert!(h.to_string().contains("agent `review`"), "{h}");
    assert!(
        p["result"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("Rules in the order the runtime weighs them")),
        "{p}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A Codex rules file: diagnostics of the unsaved buffer, a quick fix,
/// simulate against the unsaved rules, hover and the outline.
#[tokio::test]
async fn codex_rules_diagnostics_fix_simulate_hover_and_outline() {
    let dir = std::env::temp_dir().join(format!("pl-cx-{}", std::process::id()));
    let home = dir.join("home");
    let project = dir.join("p");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(home.join(".codex/rules")).unwrap();
    let path = home.join(".codex/rules/default.rules");
    std::fs::write(&path, "").unwrap();
    let uri = format!("file://{}", path.display());
    let mut c = start();
    c.initialize(&[]).await;
    let unsaved = "prefix_rule(pattern=[\"git\", \"push\"], decision=\"deny\")\n";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "starlark", "version": 1, "text": unsaved}}),
    )
    .await;
    let d = c.diagnostics(&uri, Some(1)).await;
    assert!(codes(&d).contains(&"CX001".to_string()), "{d}");
    let a = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 50}}, "context": {"diagnostics": []}}),
        )
        .await;
    assert!(a.to_string().contains("Use `forbidden`"), "{a}");
    let fixed = unsaved.replace("\"deny\"", "\"forbidden\"");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    )
    .await;
    let d = c.diagnostics(&uri, Some(2)).await;
    assert!(!codes(&d).contains(&"CX001".to_string()), "{d}");
    let r = c
        .request(
            "workspace/executeCommand",
            json!({"command": "permission-lsp.simulate", "arguments": [{"uri": uri, "tool": "shell", "input": {"command": "git status && git push"}, "home": home.display().to_string(), "cwd": project.display().to_string()}]}),
        )
        .await;
    assert_eq!(r["result"]["decision"], "deny", "{r}");
    assert_eq!(r["result"]["rule"]["pattern"], "git push", "{r}");
    let h = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 3}}),
        )
        .await;
    let md = h["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(md.contains("**`git push`** → `forbidden`"), "{h}");
    let s = c
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert!(s.to_string().contains("git push"), "{s}");
    let l = c
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert!(l.to_string().contains("Simulate a tool call"), "{l}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The logs named in the settings, replayed against the unsaved buffer: a
/// lens with the effect on history, the list behind it, hover counts,
/// rules that decided nothing; and the lens against git's HEAD.
#[tokio::test]
async fn history_lenses_hover_and_unused_rules() {
    let dir = std::env::temp_dir().join(format!("pl-history-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cfg_dir = dir.join(".pi/extensions/pi-permission-system");
    std::fs::create_dir_all(&cfg_dir).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    let path = cfg_dir.join("config.json");
    let saved = "{\n  \"permission\": {\n    \"bash\": {\n      \"*\": \"ask\",\n      \"rm *\": \"deny\",\n      \"make *\": \"deny\"\n    }\n  }\n}\n";
    std::fs::write(&path, saved).unwrap();
    commit_all(&dir);
    // A review log as pi-permission-system writes it.
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let rec = |event: &str, cmd: &str, extra: serde_json::Value| {
        let mut v = json!({"extension": "pi-permission-system", "event": event, "toolName": "bash",
            "command": cmd, "toolCallId": cmd, "requestId": cmd, "agentName": null});
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v.to_string()
    };
    let log = [
        json!({"extension": "pi-permission-system", "event": "config.resolved",
            "projectConfigPath": path.display().to_string()})
        .to_string(),
        rec(
            "permission_request.blocked",
            "rm -rf build",
            json!({"resolution": "policy_denied"}),
        ),
        rec(
            "permission_request.waiting",
            "npm install",
            json!({"resolution": null}),
        ),
        rec(
            "permission_request.approved",
            "npm install",
            json!({"resolution": "approved"}),
        ),
        rec(
            "permission_request.waiting",
            "git status",
            json!({"resolution": null}),
        ),
        rec(
            "permission_request.denied",
            "git status",
            json!({"resolution": "denied"}),
        ),
        rec(
            "permission_request.waiting",
            "cargo build",
            json!({"resolution": null}),
        ),
        rec(
            "permission_request.approved",
            "cargo build",
            json!({"resolution": "approved"}),
        ),
        rec(
            "permission_request.waiting",
            "cargo build --release",
            json!({"resolution": null}),
        ),
        rec(
            "permission_request.approved",
            "cargo build --release",
            json!({"resolution": "approved"}),
        ),
    ]
    .join("\n");
    std::fs::write(logs.join("review.jsonl"), log + "\n").unwrap();

    let uri = format!("file://{}", path.display());
    let mut c = start();
    c.initialize(&[]).await;
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"permissionLsp": {"targetVersion": "20.7.3",
            "home": dir.join("home").display().to_string(),
            "history": {"logs": [format!("{}/*.jsonl", logs.display())], "unusedRules": true}}}}),
    )
    .await;
    // Unsaved: npm is allowed now.
    let unsaved = saved.replace(
        "\"*\": \"ask\",",
        "\"*\": \"ask\",\n      \"npm *\": \"allow\",",
    );
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": unsaved}}),
    )
    .await;
    // Published at once without the history findings, and again with them
    // when the replay of the logs (in the background) is done.
    let mut d = c.diagnostics(&uri, Some(1)).await;
    for _ in 0..5 {
        if d["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["code"] == "unused-in-history")
        {
            break;
        }
        d = c.diagnostics(&uri, Some(1)).await;
    }
    let unused: Vec<&serde_json::Value> = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["code"] == "unused-in-history")
        .collect();
    assert_eq!(unused.len(), 1, "{d}");
    assert!(
        unused[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("`make *` decided none of the 5"),
        "{d}"
    );
    assert_eq!(unused[0]["severity"], 3);

    let lens = c
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let titles: Vec<&str> = lens["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    assert!(
        titles.contains(&"History: this config changes 1 of 5 past calls (1 newly allowed)"),
        "{titles:?}"
    );
    assert!(
        titles.contains(&"Against HEAD: 1 newly allowed, 0 newly asked, 0 newly denied"),
        "{titles:?}"
    );
    let list = c
        .request(
            "workspace/executeCommand",
            json!({"command": "permission-lsp.replay", "arguments": [{"uri": uri}]}),
        )
        .await;
    let changes = list["result"]["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{list}");
    assert_eq!(changes[0]["input"]["command"], "npm install");
    assert_eq!(
        (changes[0]["recorded"].as_str(), changes[0]["now"].as_str()),
        (Some("ask"), Some("allow"))
    );
    let diff = c
        .request(
            "workspace/executeCommand",
            json!({"command": "permission-lsp.diff", "arguments": [{"uri": uri}]}),
        )
        .await;
    assert_eq!(diff["result"]["newly_allowed"], 1, "{diff}");
    assert_eq!(diff["result"]["differences"][0]["example"], "npm", "{diff}");

    // Hover on `rm *`: it decides one past call.
    let line = unsaved
        .lines()
        .position(|l| l.contains("\"rm *\""))
        .unwrap();
    let hover = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 8}}),
        )
        .await;
    let md = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(
        md.contains("**History:** decides 1 of the 5 replayed past calls"),
        "{hover}"
    );
    // The approvals of `cargo build …` suggest a rule, inserted right after
    // the `*` it must override.
    let actions = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                   "context": {"diagnostics": [], "only": ["source"]}}),
        )
        .await;
    let add = actions["result"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .unwrap()
                .starts_with("Add `cargo build *` → allow (approved 2 times")
        })
        .unwrap_or_else(|| panic!("{actions}"));
    let edits = &add["edit"]["changes"][uri.as_str()];
    assert_eq!(edits.as_array().unwrap().len(), 1, "{add}");
    assert_eq!(edits[0]["newText"], "      \"cargo build *\": \"allow\",\n");
    assert_eq!(
        edits[0]["range"]["start"]["line"], 4,
        "after the line of `*`"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `source.fixAll`: every safe fix of an unsaved Claude Code settings
/// buffer at once (duplicate and redundant rules, a `Read(*)` that allows
/// nothing), as one edit that keeps everything else byte for byte.
#[tokio::test]
async fn fix_all_applies_every_safe_fix_to_the_buffer() {
    let dir = std::env::temp_dir().join(format!("permission-lsp-fixall-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    let path = dir.join(".claude/settings.local.json");
    let uri = format!("file://{}", path.display());
    let text = "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm:*)\",\n      \"Bash(npm run test:*)\", // not JSON, but fixes keep it\n      \"Bash(git status)\",\n      \"Bash(git status)\",\n      \"Read(*)\"\n    ],\n    \"deny\": [\"Bash(rm:*)\"]\n  }\n}\n"
        .replace(" // not JSON, but fixes keep it", "");
    let mut c = start();
    c.initialize(&[]).await;
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}),
    )
    .await;
    let _ = c.diagnostics(&uri, Some(1)).await;
    let r = c
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
        )
        .await;
    let actions = r["result"].as_array().unwrap();
    assert_eq!(actions.len(), 1, "{r:#?}");
    assert_eq!(actions[0]["kind"], "source.fixAll");
    assert!(
        actions[0]["title"]
            .as_str()
            .unwrap()
            .starts_with("Fix all safe problems (3 fixes")
    );
    let edits = actions[0]["edit"]["changes"][&uri].as_array().unwrap();
    assert_eq!(edits.len(), 1);
    // Applied, the buffer keeps the rules that decide and everything else.
    let lines: Vec<&str> = text.split('\n').collect();
    let e = &edits[0];
    let (sl, el) = (
        e["range"]["start"]["line"].as_u64().unwrap() as usize,
        e["range"]["end"]["line"].as_u64().unwrap() as usize,
    );
    let (sc, ec) = (
        e["range"]["start"]["character"].as_u64().unwrap() as usize,
        e["range"]["end"]["character"].as_u64().unwrap() as usize,
    );
    let offset = |l: usize, ch: usize| lines[..l].iter().map(|x| x.len() + 1).sum::<usize>() + ch;
    let mut fixed = text.clone();
    fixed.replace_range(
        offset(sl, sc)..offset(el, ec),
        e["newText"].as_str().unwrap(),
    );
    assert_eq!(
        fixed,
        "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm:*)\",\n      \"Bash(git status)\"\n    ],\n    \"deny\": [\"Bash(rm:*)\"]\n  }\n}\n"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Fast typing with a large decision log configured: each document state
/// gets one replay at most, shared by the diagnostics, lenses and hovers
/// that ask for it, and a replay still running for a superseded state is
/// stopped — the replays that run to the end are far fewer than the edits
/// (each edit replayed the whole log, for every lens and hover, before).
/// The diagnostics never wait for a replay: they come without the history
/// findings first.
#[tokio::test]
async fn fast_edits_share_and_stop_the_history_replay() {
    let dir = std::env::temp_dir().join(format!("pl-history-fast-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cfg_dir = dir.join(".pi/extensions/pi-permission-system");
    std::fs::create_dir_all(&cfg_dir).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    let path = cfg_dir.join("config.json");
    let saved = "{\n  \"permission\": {\n    \"bash\": {\n      \"*\": \"ask\",\n      \"rm *\": \"deny\"\n    }\n  }\n}\n";
    std::fs::write(&path, saved).unwrap();
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let mut log = json!({"extension": "pi-permission-system", "event": "config.resolved",
        "projectConfigPath": path.display().to_string()})
    .to_string();
    for i in 0..20_000 {
        log.push('\n');
        log.push_str(
            &json!({"extension": "pi-permission-system", "event": "permission_request.blocked",
                "toolName": "bash", "command": format!("rm -rf build{i}"), "toolCallId": i.to_string(),
                "resolution": "policy_denied", "agentName": null})
            .to_string(),
        );
    }
    std::fs::write(logs.join("review.jsonl"), log + "\n").unwrap();
    let uri = format!("file://{}", path.display());
    let mut c = start();
    c.initialize(&[]).await;
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"permissionLsp": {"targetVersion": "20.7.3",
            "home": dir.join("home").display().to_string(),
            "history": {"logs": [format!("{}/*.jsonl", logs.display())], "unusedRules": true}}}}),
    )
    .await;
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": saved}}),
    )
    .await;
    let edits = 30;
    for v in 2..=edits + 1 {
        let text = saved.replace(
            "\"*\": \"ask\"",
            &format!("\"*\": \"ask\", \"x{v} *\": \"allow\""),
        );
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": v}, "contentChanges": [{"text": text}]}),
        )
        .await;
    }
    let last = edits as i64 + 1;
    // The final state's lens waits for its replay (shared with the
    // diagnostics' background replay of the same state).
    let lens = c
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    assert!(
        lens["result"].as_array().is_some_and(|l| !l.is_empty()),
        "{lens}"
    );
    let mut d = c.diagnostics(&uri, Some(last)).await;
    for _ in 0..5 {
        if d["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["code"] == "unused-in-history")
        {
            break;
        }
        d = c.diagnostics(&uri, Some(last)).await;
    }
    assert!(
        d["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["code"] == "unused-in-history"),
        "{d}"
    );
    let (started, finished) = permission_lsp::lsp::history::replay_counts(&uri);
    eprintln!("{started} replays started, {finished} ran to the end, for {edits} edits");
    assert!(
        finished <= 3 && started <= edits + 1,
        "{started} replays started, {finished} ran to the end, for {edits} edits"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn an_incomplete_diff_over_the_server_says_why() {
    // A Qwen Code project whose unsaved edit adds an allow rule that the
    // `auto` approval mode sets aside: the comparison with HEAD cannot be
    // exact, and the editor's diff says so, with the reason.
    let dir = std::env::temp_dir().join(format!("pl-diff-incomplete-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".qwen")).unwrap();
    std::fs::create_dir_all(dir.join("home")).unwrap();
    let path = dir.join(".qwen/settings.json");
    let saved = "{\"permissions\": {\"allow\": [\"Bash(npm test)\"]}}\n";
    std::fs::write(&path, saved).unwrap();
    commit_all(&dir);
    let uri = format!("file://{}", path.display());
    let mut c = start();
    c.initialize(&[]).await;
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"permissionLsp": {"home": dir.join("home").display().to_string()}}}),
    )
    .await;
    let unsaved = "{\"permissions\": {\"allow\": [\"Bash(npm test)\", \"Bash(npm *)\"]}}\n";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": unsaved}}),
    )
    .await;
    let diff = c
        .request(
            "workspace/executeCommand",
            json!({"command": "permission-lsp.diff", "arguments": [{"uri": uri}]}),
        )
        .await;
    assert!(
        diff["result"]["runtime"]
            .as_str()
            .is_some_and(|r| r.starts_with("qwen-code")),
        "{diff}"
    );
    assert!(
        !diff["result"]["incomplete"].as_array().unwrap().is_empty(),
        "{diff}"
    );
    let reasons = diff["result"]["incomplete_reasons"].as_array().unwrap();
    assert!(
        reasons.iter().any(|r| r["reason"]
            .as_str()
            .is_some_and(|r| r.contains("classifier"))),
        "{diff}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
