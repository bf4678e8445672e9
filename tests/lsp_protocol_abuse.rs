//! The real binary over stdio under broken frames, odd ids and protocol
//! corner cases: the session survives every one and the protocol's rules
//! on exit codes and unknown `$/` requests hold.

use crate::common;

use common::LspClient;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::process::{Child, ChildStdin, ChildStdout};

type Client = LspClient<ChildStdout, ChildStdin>;

async fn start() -> (Child, Client) {
    let (child, mut c) = common::spawn_server();
    c.initialize(&[]).await;
    (child, c)
}

async fn exit_status(child: &mut Child) -> std::process::ExitStatus {
    tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("server exits")
        .expect("wait")
}

/// The session still answers a request after whatever came before.
async fn still_alive(c: &mut Client) {
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": "file:///nowhere/x.json"}, "position": {"line": 0, "character": 0}}),
        )
        .await;
    assert!(r.get("result").is_some(), "{r}");
}

#[tokio::test]
async fn ids_that_are_not_integers_get_invalid_request_and_the_session_goes_on() {
    let (mut child, mut c) = start().await;
    for id in ["1.0", "1e3", "1.5", "9223372036854775808"] {
        c.send_raw(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"textDocument/hover","params":{{}}}}"#
        ))
        .await;
        let e = c.wait_for(|m| m.get("error").is_some()).await;
        assert_eq!(e["error"]["code"], -32600, "{id}: {e}");
        // A response with such an id answers nothing of ours: dropped.
        c.send_raw(&format!(r#"{{"jsonrpc":"2.0","id":{id},"result":null}}"#))
            .await;
        still_alive(&mut c).await;
    }
    let r = c.request("shutdown", json!(null)).await;
    assert_eq!(r["result"], Value::Null);
    c.notify("exit", json!(null)).await;
    assert!(exit_status(&mut child).await.success());
}

#[tokio::test]
async fn a_broken_frame_costs_that_frame_only() {
    let (mut child, mut c) = start().await;
    let body = r#"{"jsonrpc":"2.0","method":"$/noSuchNotification","params":{}}"#;
    let broken: Vec<Vec<u8>> = vec![
        format!("X-Foo: 1\r\n\r\n{body}").into_bytes(),
        format!("Content-Length: -5\r\n\r\n{body}").into_bytes(),
        format!("Content-Length: {}\r\n\r\n{body}", "9".repeat(30)).into_bytes(),
        format!("Content-Length: 18446744073709551615\r\n\r\n{body}").into_bytes(),
        format!("Content-Length: 10\r\n\r\n{body}").into_bytes(),
        format!("\0\0\0Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes(),
        b"\0\0\0\0".to_vec(),
    ];
    for bad in broken {
        c.writer_raw(&bad).await;
        still_alive(&mut c).await;
    }
    // A length larger than the body: the next frame is read from inside it.
    c.writer_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len() + 30).as_bytes())
        .await;
    still_alive(&mut c).await;
    c.request("shutdown", json!(null)).await;
    c.notify("exit", json!(null)).await;
    assert!(exit_status(&mut child).await.success());
}

#[tokio::test]
async fn exit_without_shutdown_exits_1() {
    let (mut child, mut c) = start().await;
    c.notify("exit", json!(null)).await;
    assert_eq!(exit_status(&mut child).await.code(), Some(1));
}

#[tokio::test]
async fn dollar_requests_get_method_not_found() {
    let (mut child, mut c) = start().await;
    let r = c.request("$/unknownThing", json!({})).await;
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // `$/` notifications are ignored quietly.
    c.notify("$/setTrace", json!({"value": "off"})).await;
    still_alive(&mut c).await;
    c.request("shutdown", json!(null)).await;
    c.notify("exit", json!(null)).await;
    assert!(exit_status(&mut child).await.success());
}

#[tokio::test]
async fn a_lone_surrogate_escape_is_read_as_a_replacement_character() {
    let (_child, mut c) = start().await;
    let uri = "file:///home/u/.pi/agent/extensions/pi-permission-system/config.json";
    // The document text holds `"git \ud800": "allow"` as a lone escape.
    let open = format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"{uri}","languageId":"json","version":1,"text":"{{\"permission\":{{\"bash\":{{\"git \\ud800*\":\"allow\", \"x\": 1}}}}}}"}}}}}}"#
    );
    c.send_raw(&open).await;
    // Published for version 1: the message was not dropped.
    let d = c.diagnostics(uri, Some(1)).await;
    assert!(d["diagnostics"].is_array());
}

#[tokio::test]
async fn a_pattern_ending_in_a_multibyte_character_is_analysed() {
    let (mut child, mut c) = start().await;
    let uri = "file:///home/u/.pi/agent/extensions/pi-permission-system/config.json";
    for (version, key) in [(1, "git é"), (2, "git \u{200d}"), (3, "git \u{fffd}")] {
        let text = json!({"permission": {"bash": {key: "allow"}}}).to_string();
        if version == 1 {
            c.notify(
                "textDocument/didOpen",
                json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}),
            )
            .await;
        } else {
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
            )
            .await;
        }
        let d = c.diagnostics(uri, Some(version)).await;
        let r = c
            .request(
                "textDocument/codeAction",
                json!({"textDocument": {"uri": uri},
                       "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 40}},
                       "context": {"diagnostics": d["diagnostics"]}}),
            )
            .await;
        assert!(r.get("result").is_some(), "{r}");
    }
    c.request("shutdown", json!(null)).await;
    c.notify("exit", json!(null)).await;
    assert!(exit_status(&mut child).await.success());
}

/// A scope file swapped for a FIFO (or a device) is skipped, never opened
/// in a way that blocks: the document's diagnostics and hover still come.
#[cfg(unix)]
#[tokio::test]
async fn a_fifo_in_place_of_a_scope_file_does_not_hang_the_server() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lsp-fifo-scope");
    let _ = std::fs::remove_dir_all(&dir);
    let home = dir.join("home");
    let global = home.join(".pi/agent/extensions/pi-permission-system/config.json");
    std::fs::create_dir_all(global.parent().unwrap()).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(&global)
        .status()
        .unwrap();
    assert!(status.success());
    let project = dir.join("project/.pi/extensions/pi-permission-system/config.json");
    std::fs::create_dir_all(project.parent().unwrap()).unwrap();
    let text = r#"{"permission": {"bash": {"*": "ask", "git *": "allow"}}}"#;
    std::fs::write(&project, text).unwrap();

    let (_child, mut c) = common::spawn_server();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": null,
               "initializationOptions": {"permissionLsp": {"home": home.display().to_string()}},
               "capabilities": {}}),
    )
    .await;
    c.notify("initialized", json!({})).await;
    let uri = format!("file://{}", project.display());
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}),
    )
    .await;
    let d = c.diagnostics(&uri, Some(1)).await;
    assert!(d["diagnostics"].is_array());
    let r = c
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 27}}),
        )
        .await;
    assert!(r.get("result").is_some(), "{r}");
    let r = c
        .request(
            "workspace/executeCommand",
            json!({"command": "permission-lsp.simulate",
                   "arguments": [{"uri": uri, "tool": "bash", "input": {"command": "git status"}}]}),
        )
        .await;
    assert_eq!(r["result"]["decision"], "allow", "{r}");
}
