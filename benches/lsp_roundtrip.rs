//! Keystroke to diagnostics through the real binary over stdio: the time
//! from sending `didChange` to receiving the `publishDiagnostics` of that
//! version, for a small config and a 10,000-rule config: a keystroke that
//! changes no rule (a space before the first key) and one that types
//! inside a bash pattern.
//! Run: `cargo bench --bench lsp_roundtrip`.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Session {
    fn start() -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_permission-lsp"))
            .arg("serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the server");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut s = Session {
            child,
            stdin,
            stdout,
        };
        s.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}));
        s.wait(|m| m["id"] == 1);
        s.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
        s
    }

    fn send(&mut self, v: Value) {
        let body = v.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn read(&mut self) -> Value {
        let mut len = 0;
        loop {
            let mut line = String::new();
            self.stdout.read_line(&mut line).unwrap();
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                len = v.parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        self.stdout.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    fn wait(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let m = self.read();
            if pred(&m) {
                return m;
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const URI: &str = "file:///bench/.pi/extensions/pi-permission-system/config.json";

fn roundtrip(c: &mut Criterion, name: &str, text: &str) {
    let mut s = Session::start();
    s.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": URI, "languageId": "jsonc", "version": 1, "text": text}}}));
    s.wait(|m| m["method"] == "textDocument/publishDiagnostics");
    // Each change inserts and then removes one character on line 2.
    let mut version = 1;
    c.bench_function(&format!("lsp/didChange -> publishDiagnostics ({name})"), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                version += 1;
                let insert = version % 2 == 0;
                let change = if insert {
                    json!({"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}, "text": " "})
                } else {
                    json!({"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 1}}, "text": ""})
                };
                let start = Instant::now();
                s.send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": URI, "version": version}, "contentChanges": [change]}}));
                let v = version;
                s.wait(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == v);
                total += start.elapsed();
            }
            total
        })
    });
}

/// Typing inside a pattern: each keystroke adds a letter after `needle`
/// (the first line that has it); every 32 letters the run is deleted again
/// (not timed), so patterns stay short and every version is new.
fn typing_in_a_pattern(c: &mut Criterion, name: &str, text: &str, needle: &str) {
    let (line, at) = text
        .lines()
        .enumerate()
        .find_map(|(n, l)| l.find(needle).map(|i| (n, i + needle.len())))
        .expect("the needle is in the file");
    let mut s = Session::start();
    s.send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": URI, "languageId": "jsonc", "version": 1, "text": text}}}));
    s.wait(|m| m["method"] == "textDocument/publishDiagnostics");
    let mut version = 1;
    let mut typed = 0usize;
    let change = |s: &mut Session, version: i64, change: Value| {
        s.send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": URI, "version": version}, "contentChanges": [change]}}));
        s.wait(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == version
        });
    };
    c.bench_function(&format!("lsp/typing in a pattern -> publishDiagnostics ({name})"), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                if typed == 32 {
                    version += 1;
                    change(&mut s, version, json!({"range": {"start": {"line": line, "character": at}, "end": {"line": line, "character": at + typed}}, "text": ""}));
                    typed = 0;
                }
                version += 1;
                let letter = ["a", "b", "c", "d"][typed % 4];
                let edit = json!({"range": {"start": {"line": line, "character": at + typed}, "end": {"line": line, "character": at + typed}}, "text": letter});
                let start = Instant::now();
                change(&mut s, version, edit);
                total += start.elapsed();
                typed += 1;
            }
            total
        })
    });
}

fn bench(c: &mut Criterion) {
    let data = |f: &str| {
        std::fs::read_to_string(format!("{}/benches/data/{f}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    };
    let (small, large) = (data("small.json"), data("bash-10k.json"));
    roundtrip(c, "small config", &small);
    roundtrip(c, "10,000 rules", &large);
    typing_in_a_pattern(c, "small config", &small, "\"printf");
    typing_in_a_pattern(c, "10,000 rules", &large, "\"git sub04993");
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
