//! A typing session against the real server over stdio, shared by the
//! load test (`tests/load.rs`: correctness and memory) and the load
//! benchmark (`benches/lsp_load.rs`: latencies, printed).
//!
//! It opens a 10,000-rule config (`benches/data/gen-big-10k.json`, from
//! the project's `perf/gen_big.py 10000`), types into it — one character
//! inserted or deleted inside a rule per edit, sent as incremental changes
//! without waiting — and asks for a hover every few edits, timing each
//! hover from request to answer. At the end it waits for the diagnostics of
//! the last version and reads the server's peak RSS.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

pub struct Outcome {
    /// Hover latencies on the document being typed into, in request order.
    pub hovers: Vec<Duration>,
    /// Hover latencies on another (small) open config meanwhile: what a
    /// request waits behind the big document's analyses.
    pub other_hovers: Vec<Duration>,
    /// Diagnostics published for the final version.
    pub final_diagnostics: Vec<Value>,
    /// Where the document lives (the same file is checked with `check`).
    pub path: PathBuf,
    /// The server's peak resident memory (`VmHWM`), in KiB.
    pub peak_rss_kib: Option<u64>,
    /// Time from the first edit to the final diagnostics.
    pub total: Duration,
}

pub fn frame(v: &Value) -> Vec<u8> {
    let body = v.to_string();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend(body.as_bytes());
    out
}

fn reader(stdout: impl Read + Send + 'static) -> Receiver<Value> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        loop {
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length: ") {
                    len = v.parse().unwrap_or(0);
                }
            }
            let mut body = vec![0u8; len];
            if r.read_exact(&mut body).is_err() {
                return;
            }
            if let Ok(v) = serde_json::from_slice(&body)
                && tx.send(v).is_err()
            {
                return;
            }
        }
    });
    rx
}

fn peak_rss_kib(child: &Child) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// Byte offset of (line, column) in an ASCII text.
fn offset_of(text: &str, line: usize, col: usize) -> usize {
    text.split_inclusive('\n')
        .take(line)
        .map(str::len)
        .sum::<usize>()
        + col
}

/// Runs the session: `edits` edits, a hover every `hover_every` edits.
pub fn run(
    binary: &Path,
    workdir: &Path,
    source: &str,
    edits: usize,
    hover_every: usize,
) -> Outcome {
    let project = workdir.join("project");
    let home = workdir.join("home");
    let path = project.join(".pi/extensions/pi-permission-system/config.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(&path, source).unwrap();
    let uri = format!("file://{}", path.display());

    let mut child = Command::new(binary)
        .arg("--stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the server");
    let mut stdin: ChildStdin = child.stdin.take().unwrap();
    let rx = reader(child.stdout.take().unwrap());
    let mut send = |v: Value| {
        stdin.write_all(&frame(&v)).unwrap();
        stdin.flush().unwrap();
    };
    let wait = |pred: &dyn Fn(&Value) -> bool| -> Value {
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = rx.recv_timeout(left).expect("the server answers");
            if pred(&m) {
                return m;
            }
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "capabilities": {}, "initializationOptions": {"permissionLsp": {"home": home.display().to_string()}}}}),
    );
    wait(&|m| m["id"] == 0);
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "json", "version": 1, "text": source}}}),
    );
    {
        let uri = uri.clone();
        wait(&move |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str()
        });
    }
    let other = workdir.join("other/.pi/extensions/pi-permission-system/config.json");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    let other_text = "{\n  \"permission\": {\n    \"bash\": {\n      \"*\": \"ask\",\n      \"git status\": \"allow\"\n    }\n  }\n}\n";
    std::fs::write(&other, other_text).unwrap();
    let other_uri = format!("file://{}", other.display());
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": other_uri, "languageId": "json", "version": 1, "text": other_text}}}),
    );
    let mut other_hovers = Vec::new();

    // Rule lines: `      "pattern": "action",` — edit inside the pattern.
    let lines: Vec<usize> = source
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with('"') && l.contains("\": \""))
        .map(|(i, _)| i)
        .collect();
    let mut text = source.to_string();
    let mut version = 1;
    let mut hovers = Vec::new();
    let mut next_id = 1;
    let start = Instant::now();
    for e in 0..edits {
        let line = lines[(e / 2 * 7919) % lines.len()];
        let indent = text.lines().nth(line).unwrap().find('"').unwrap();
        let col = indent + 2;
        version += 1;
        let change = if e % 2 == 0 {
            text.insert(offset_of(&text, line, col), 'x');
            json!({"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col}}, "text": "x"})
        } else {
            text.remove(offset_of(&text, line, col));
            json!({"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col + 1}}, "text": ""})
        };
        send(
            json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}}),
        );
        if hover_every > 0 && e % hover_every == 0 && e + 1 < edits {
            let id = 1_000_000 + next_id;
            next_id += 1;
            let at = lines[(e * 31) % lines.len()];
            let t = Instant::now();
            send(
                json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {
                "textDocument": {"uri": uri}, "position": {"line": at, "character": indent + 2}}}),
            );
            wait(&move |m| m["id"] == id);
            hovers.push(t.elapsed());
            let id = 2_000_000 + next_id;
            let t = Instant::now();
            send(
                json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {
                "textDocument": {"uri": other_uri}, "position": {"line": 4, "character": 8}}}),
            );
            wait(&move |m| m["id"] == id);
            other_hovers.push(t.elapsed());
        }
    }
    let final_version = version;
    let d = {
        let uri = uri.clone();
        wait(&move |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri.as_str()
                && m["params"]["version"] == final_version
        })
    };
    let total = start.elapsed();
    let peak_rss_kib = peak_rss_kib(&child);
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "shutdown"}));
    wait(&|m| m["id"] == 1);
    send(json!({"jsonrpc": "2.0", "method": "exit"}));
    let _ = child.wait();
    std::fs::write(&path, &text).unwrap();
    Outcome {
        hovers,
        other_hovers,
        final_diagnostics: d["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default(),
        path,
        peak_rss_kib,
        total,
    }
}

/// `(code, line, message)` of LSP diagnostics (0-based lines).
pub fn lsp_findings(diags: &[Value]) -> Vec<(String, u64, String)> {
    let mut v: Vec<_> = diags
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["range"]["start"]["line"].as_u64().unwrap_or(0),
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

/// The same from `check --format json` (1-based lines there).
pub fn check_findings(binary: &Path, path: &Path, home: &Path) -> Vec<(String, u64, String)> {
    let out = Command::new(binary)
        .args(["check", "--format", "json", "--scopes", "--home"])
        .arg(home)
        .arg(path)
        .output()
        .expect("run check");
    let v: Value = serde_json::from_slice(&out.stdout).expect("check json");
    let mut f: Vec<_> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["start"]["line"].as_u64().unwrap_or(1) - 1,
                d["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    f.sort();
    f
}
