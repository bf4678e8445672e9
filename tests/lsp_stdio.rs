//! The real binary over stdio: a whole session from initialize to exit.

use crate::common;

use common::codes;
use serde_json::json;

#[tokio::test]
async fn binary_session_over_stdio() {
    let (mut child, mut c) = common::spawn_server();
    let init = c.initialize(&[]).await;
    assert_eq!(init["result"]["serverInfo"]["name"], "permission-lsp");

    let uri = "file:///home/u/.pi/agent/extensions/pi-permission-system/config.json";
    let text = "\u{feff}{\"permission\": {\"*\": \"ask\"}}";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}),
    )
    .await;
    assert_eq!(codes(&c.diagnostics(uri, Some(1)).await), ["PL003"]);

    // Garbage on the wire, then more work.
    c.send_raw("][").await;
    let e = c.wait_for(|m| m.get("error").is_some()).await;
    assert_eq!(e["error"]["code"], -32700);
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "{\"permission\": {\"*\": \"ask\"}}"}]}),
    )
    .await;
    assert_eq!(
        codes(&c.diagnostics(uri, Some(2)).await),
        Vec::<String>::new()
    );

    let r = c.request("shutdown", json!(null)).await;
    assert_eq!(r["result"], json!(null));
    c.notify("exit", json!(null)).await;
    let status = tokio::time::timeout(std::time::Duration::from_secs(10), child.wait())
        .await
        .expect("server exits after `exit`")
        .expect("wait");
    assert!(status.success(), "{status:?}");
}
