//! Shared test helpers: fixtures and a small LSP client speaking
//! Content-Length framed JSON-RPC over any async stream.

#![allow(dead_code)]

pub mod oracle;

use serde_json::{Value, json};
use std::collections::VecDeque;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

pub fn fixture(path: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{path}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture")
}

pub fn jsonl(path: &str) -> Vec<Value> {
    fixture(path)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("jsonl"))
        .collect()
}

pub struct LspClient<R, W> {
    reader: BufReader<R>,
    writer: W,
    next_id: i64,
    /// Messages received while waiting for something else.
    backlog: VecDeque<Value>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> LspClient<R, W> {
    pub fn new(reader: R, writer: W) -> Self {
        LspClient {
            reader: BufReader::new(reader),
            writer,
            next_id: 1,
            backlog: VecDeque::new(),
        }
    }

    pub async fn send_raw(&mut self, body: &str) {
        let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.writer
            .write_all(frame.as_bytes())
            .await
            .expect("write");
        self.writer.flush().await.expect("flush");
    }

    pub async fn writer_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).await.expect("write");
        self.writer.flush().await.expect("flush");
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.send_raw(&msg.to_string()).await;
    }

    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_raw(&msg.to_string()).await;
        self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
            .await
    }

    async fn read_message(&mut self) -> Value {
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            let n = self.reader.read_line(&mut line).await.expect("read header");
            assert!(n > 0, "server closed the stream");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                len = v.parse().expect("length");
            }
        }
        let mut body = vec![0u8; len];
        self.reader.read_exact(&mut body).await.expect("read body");
        serde_json::from_slice(&body).expect("json body")
    }

    /// Waits (up to 20 s) for a message matching `pred`; others are kept.
    pub async fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i).expect("backlog");
        }
        let fut = async {
            loop {
                let m = self.read_message().await;
                if pred(&m) {
                    return m;
                }
                // Answer server-to-client requests so the server never waits.
                if m.get("id").is_some() && m.get("method").is_some() {
                    let reply = json!({"jsonrpc": "2.0", "id": m["id"], "result": null});
                    self.send_raw(&reply.to_string()).await;
                    continue;
                }
                self.backlog.push_back(m);
            }
        };
        tokio::time::timeout(Duration::from_secs(20), fut)
            .await
            .expect("timed out waiting for the server")
    }

    /// The next `publishDiagnostics` for `uri` (optionally for one version).
    pub async fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Value {
        let uri = uri.to_string();
        self.wait_for(move |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri.as_str()
                && version.is_none_or(|v| m["params"]["version"] == v)
        })
        .await["params"]
            .clone()
    }

    pub async fn initialize(&mut self, encodings: &[&str]) -> Value {
        let r = self
            .request(
                "initialize",
                json!({"processId": null, "rootUri": null,
                       "capabilities": {"general": {"positionEncodings": encodings}}}),
            )
            .await;
        self.notify("initialized", json!({})).await;
        r
    }
}

/// Codes of an LSP diagnostics list.
pub fn codes(diags: &Value) -> Vec<String> {
    diags["diagnostics"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| d["code"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Policy inputs from a conformance-style case: `config`/`global`, `project`
/// (objects or raw texts), `agents`/`projectAgents` keyed by name, `agent`,
/// `mcpServerNames`, `platform`.
pub fn policy_inputs(
    v: &Value,
    home: &str,
) -> permission_lsp::formats::pi::engine::policy::PolicyInputs {
    use permission_lsp::formats::pi::engine::policy::{PolicyInputs, ScopeText};
    use permission_lsp::formats::pi::engine::rules::PathFlavor;
    let text_of = |v: &Value| match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(serde_json::to_string_pretty(other).unwrap()),
    };
    let scope = |name: &str, v: &Value| {
        text_of(v).map(|text| ScopeText {
            path: name.into(),
            text,
        })
    };
    let agent = v["agent"].as_str();
    let agent_file = |key: &str| {
        agent.and_then(|a| v[key][a].as_str()).map(|md| ScopeText {
            path: format!("{key}.md").into(),
            text: md.to_string(),
        })
    };
    PolicyInputs {
        version: permission_lsp::formats::pi::model::versions::DEFAULT_TARGET,
        global: scope(
            "global.json",
            if v.get("config").is_some() {
                &v["config"]
            } else {
                &v["global"]
            },
        ),
        project: scope("project.json", &v["project"]),
        global_agent: agent_file("agents"),
        project_agent: agent_file("projectAgents"),
        unreadable_agents: Vec::new(),
        mcp_servers: v["mcpServerNames"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default(),
        home: home.into(),
        flavor: if v["platform"] == "win32" {
            PathFlavor::Windows
        } else {
            PathFlavor::Posix
        },
        extra_infra_dirs: Vec::new(),
        agent_dir: None,
        auto: false,
        installed: None,
        project_trusted: v["projectTrusted"].as_bool(),
    }
}

/// A simulated gate in the field names the runtime's gate records use.
pub fn gate_json(g: &permission_lsp::formats::pi::engine::gates::GateRecord) -> Value {
    let c = g.check.as_ref();
    json!({
        "gate": g.gate,
        "state": g.state.as_str(),
        "matchedPattern": c.and_then(|c| c.matched_pattern.clone()),
        "reason": c.and_then(|c| c.reason.clone()),
        "origin": c.map(|c| c.origin.as_str()),
        "source": c.map(|c| serde_json::to_value(c.source).unwrap()),
        "executedUnit": c.and_then(|c| c.executed_unit.clone()),
        "command": c.and_then(|c| c.command.clone()),
        "commandContext": c.and_then(|c| c.command_context).map(|x| serde_json::to_value(x).unwrap()),
        "message": g.message,
        "promptMessage": g.prompt_message,
        "noUiMessage": g.no_ui_message,
    })
}

/// `gate=state` for each simulated gate, for failure messages.
pub fn gate_names(gates: &[permission_lsp::formats::pi::engine::gates::GateRecord]) -> Vec<String> {
    gates
        .iter()
        .map(|g| format!("{}={}", g.gate, g.state))
        .collect()
}

/// The real binary serving LSP over stdio, and a client on its pipes (the
/// process is killed when the child is dropped).
pub fn spawn_server() -> (
    tokio::process::Child,
    LspClient<tokio::process::ChildStdout, tokio::process::ChildStdin>,
) {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
        .arg("--stdio")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the server");
    let stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    (child, LspClient::new(stdout, stdin))
}

/// A small seeded generator (xorshift) for reproducible random cases: the
/// differential test's configs and calls, the fuzz tests' mutations.
pub struct Rng(pub u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }
}
