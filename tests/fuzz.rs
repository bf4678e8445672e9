//! Seeded fuzzing in the test suite: a bounded number of cases in CI
//! (`FUZZ_CASES`, default 1,000 per target), millions outside it
//! (`FUZZ_CASES=1000000 cargo test --release --test shared fuzz::`), and the same
//! invariants under libFuzzer (`fuzz/`). Every case is reproducible from
//! its seed, printed on failure.
//!
//! - documents: mutated real configs (`tests/fixtures/corpus/`) through
//!   every format's reading, analysis, outline, hover, completion and fixes;
//! - frames: mutated LSP streams through the transport guard;
//! - a real server over stdio: broken frames, odd ids and methods, and
//!   mutated documents with every request kind; every request is answered,
//!   never with an internal error (a panicking handler), and the session
//!   stays alive.

use crate::common;

use common::Rng;
use serde_json::{Value, json};

fn cases() -> usize {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

fn corpus() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus/pi");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    // Claude Code settings from public repositories, and the mistakes
    // fixture.
    let claude = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude");
    let mut more: Vec<_> = std::fs::read_dir(claude.join("corpus"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    more.sort();
    more.push(claude.join("mistakes/.claude/settings.json"));
    files.extend(more);
    // OpenCode configs from public repositories, and the mistakes fixture.
    let oc = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut more: Vec<_> = std::fs::read_dir(oc.join("corpus/opencode"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json" || x == "jsonc"))
        .collect();
    more.sort();
    more.push(oc.join("opencode/mistakes/project/opencode.jsonc"));
    more.push(oc.join("opencode/mistakes/project/.opencode/agents/star.md"));
    files.extend(more);
    // Codex rules and config, Gemini CLI policies and settings, Qwen Code
    // settings from public repositories, and the hand-written fixes
    // fixtures (YAML frontmatter in block and flow style).
    for (dir, exts) in [
        ("codex/corpus", &["rules", "toml"][..]),
        ("gemini/corpus", &["toml", "json"][..]),
        ("qwen/corpus", &["json"][..]),
    ] {
        let mut more: Vec<_> = std::fs::read_dir(oc.join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)))
            .collect();
        more.sort();
        files.extend(more.into_iter().step_by(3));
    }
    files.push(oc.join("fix-safety/opencode-agent/.opencode/agents/rev.md"));
    files.push(oc.join("fix-safety/opencode-agent-flow/.opencode/agents/flow.md"));
    let mut out: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    out.push(b"---\nname: dev\npermission:\n  bash:\n    \"rm *\": deny\n---\nBody\n".to_vec());
    // YAML that js-yaml reads in its own way: anchors, merges, tags, tabs.
    out.push(b"---\nb: &b {\"git *\": ask}\npermission:\n  bash:\n    <<: *b\n    012: !!str allow\n\t\"*\": deny\n---\n".to_vec());
    out
}

const TOKENS: &[&[u8]] = &[
    b"\"*\"",
    b"\"permission\"",
    b"\"external_directory\"",
    b"{file:./x}",
    b"{env:X}",
    b"*: ask",
    b"&a ",
    b"*a",
    b"<<: *a\n",
    b"!!str ",
    b"!!map\n",
    b"\n\t",
    b"[[[[[[",
    b"prefix_rule(pattern=[\"git\"], decision=\"forbidden\")\n",
    b"[[rule]]\ntoolName = \"run_shell_command\"\n",
    b"\"Bash(npm run:*)\"",
    b"\"permissions\"",
    b"(",
    b")",
    b":",
    b",",
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b"\\",
    b"\\ud800",
    b"\xff",
    b"\xe2\x80\x8d",
    b"\"bash\"",
    b"\"deny\"",
    b"{\"action\":\"deny\",\"reason\":1}",
    b"~/",
    b"$HOME/",
    b"**",
    b"?",
    b"/*",
    b"*/",
    b"//",
    b"\n",
    b"\r",
    b"\0",
    b"---\n",
    b"\"git \xc3\xa9\"",
    b" *",
    b":*",
];

/// One mutation of `base`: flips, insertions of interesting tokens,
/// deletions, truncation, duplication of a slice.
fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut v = base.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(6) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                v.splice(at..at, t.iter().copied());
            }
            2 if !v.is_empty() => {
                let end = (at + rng.below(16)).min(v.len());
                v.drain(at.min(end)..end);
            }
            3 => v.truncate(at),
            4 if !v.is_empty() => {
                let from = rng.below(v.len());
                let end = (from + rng.below(64)).min(v.len());
                let piece = v[from..end].to_vec();
                let at = at.min(v.len());
                v.splice(at..at, piece);
            }
            _ => {}
        }
    }
    v
}

#[test]
fn documents_keep_every_invariant() {
    let corpus = corpus();
    // `FUZZ_SEED=N` replays one case.
    let seeds = match std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()) {
        Some(seed) => seed..=seed,
        None => 1..=cases() as u64,
    };
    for seed in seeds {
        let mut rng = Rng::new(seed);
        let base = &corpus[rng.below(corpus.len())];
        let doc = mutate(&mut rng, base);
        check_case(
            "document",
            "document",
            seed,
            &doc,
            permission_lsp::fuzzing::document,
        );
    }
}

/// Runs one case's invariant; a failure keeps the input (for `cargo fuzz
/// run <target> <file>` and a regression test) and names the seed.
fn check_case(file: &str, label: &str, seed: u64, input: &[u8], invariant: fn(&[u8])) {
    if std::panic::catch_unwind(|| invariant(input)).is_err() {
        let kept = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("fuzz-{file}-{seed}.bin"));
        let _ = std::fs::write(&kept, input);
        panic!(
            "{label} case seed {seed} (input kept in {})",
            kept.display()
        );
    }
}

/// The decision logs the real runtimes wrote (`tests/fixtures/history/`),
/// and a few hand-written records of every event.
fn logs() -> Vec<Vec<u8>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/history");
    let mut out = Vec::new();
    for kind in ["pi", "claude"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(kind).join("recorded"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        out.extend(files.iter().map(|p| std::fs::read(p).unwrap()));
    }
    out.push(
        br#"{"extension":"pi-permission-system","event":"permission_request.waiting","requestId":"a","toolCallId":"a","toolName":"bash","command":"npm run test"}
{"extension":"pi-permission-system","event":"permission_request.approved","requestId":"a","toolCallId":"a","toolName":"bash","command":"npm run test","resolution":"approved"}
{"extension":"pi-permission-system","event":"permission_request.blocked","toolCallId":"a","toolName":"bash","command":"rm x","resolution":"policy_denied"}
{"extension":"pi-permission-system","event":"permission_request.session_approved","toolCallId":"b","toolName":"read","path":"/etc/x"}
"#
        .to_vec(),
    );
    out
}

#[test]
fn decision_logs_keep_every_invariant() {
    let logs = logs();
    let seeds = match std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()) {
        Some(seed) => seed..=seed,
        None => 1..=(cases() as u64 / 4).max(1),
    };
    for seed in seeds {
        let mut rng = Rng::new(seed);
        let base = &logs[rng.below(logs.len())];
        let log = mutate(&mut rng, base);
        check_case(
            "decision-log",
            "decision log",
            seed,
            &log,
            permission_lsp::fuzzing::decision_log,
        );
    }
}

/// Command lines the real runtimes were asked about (the recorded cases and
/// logs under `tests/fixtures/`, every string under a `"command"` key).
fn commands() -> Vec<Vec<u8>> {
    fn collect(v: &Value, out: &mut Vec<Vec<u8>>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, v)| match v {
                Value::String(s) if k == "command" => out.push(s.as_bytes().to_vec()),
                _ => collect(v, out),
            }),
            Value::Array(a) => a.iter().for_each(|v| collect(v, out)),
            _ => {}
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(std::fs::read_dir(&p).unwrap().flatten().map(|e| e.path()));
        } else if p.extension().is_some_and(|x| x == "json" || x == "jsonl") {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            for line in text.lines() {
                if let Ok(v) = serde_json::from_str(line) {
                    collect(&v, &mut out);
                }
            }
            if let Ok(v) = serde_json::from_str(&text) {
                collect(&v, &mut out);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Every recorded command, whole: the bash parser's linear path gives the
/// tree of the command as written.
#[test]
fn every_recorded_command_parses_as_written() {
    let commands = commands();
    assert!(commands.len() > 1000, "{} commands", commands.len());
    let failures: Vec<_> = commands
        .iter()
        .filter_map(|c| {
            let c = String::from_utf8_lossy(c);
            permission_lsp::syntax::bash::same_as_written(&c)
                .and_then(|()| permission_lsp::syntax::bash::scan_bounds_tree(&c))
                .err()
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} disagree; first:\n{}",
        failures.len(),
        commands.len(),
        failures[0]
    );
}

#[test]
fn command_lines_keep_every_invariant() {
    let commands = commands();
    assert!(commands.len() > 500, "{} commands", commands.len());
    let seeds = match std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()) {
        Some(seed) => seed..=seed,
        None => 1..=cases() as u64 * 4,
    };
    for seed in seeds {
        let mut rng = Rng::new(seed);
        let mut line = commands[rng.below(commands.len())].clone();
        // Sometimes two joined, then mutated.
        if rng.below(3) == 0 {
            line.extend(b" | ");
            line.extend(&commands[rng.below(commands.len())]);
        }
        let line = mutate(&mut rng, &line);
        check_case(
            "command",
            "command",
            seed,
            &line,
            permission_lsp::fuzzing::command,
        );
    }
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend(body);
    out
}

/// A stream of frames, some broken.
fn stream(rng: &mut Rng) -> Vec<u8> {
    let bodies: &[&[u8]] = &[
        br#"{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{}}"#,
        br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
        br#"{"jsonrpc":"2.0","id":1.5,"result":null}"#,
        br#"{"jsonrpc":"2.0","id":"x","method":"$/x"}"#,
        br#"{"jsonrpc":"2.0","method":"t","params":{"s":"\ud800"}}"#,
    ];
    let mut out = Vec::new();
    for _ in 0..1 + rng.below(5) {
        let body = bodies[rng.below(bodies.len())];
        let f = match rng.below(4) {
            0 => mutate(rng, &frame(body)),
            1 => format!("Content-Length: {}\r\n\r\n", rng.below(200))
                .into_bytes()
                .into_iter()
                .chain(body.iter().copied())
                .collect(),
            _ => frame(body),
        };
        out.extend(f);
    }
    out
}

#[test]
fn frames_keep_every_invariant() {
    for seed in 1..=cases() as u64 * 4 {
        let mut rng = Rng(seed.wrapping_mul(0xD1B5_4A32_D192_ED03) | 1);
        let bytes = stream(&mut rng);
        let result = std::panic::catch_unwind(|| permission_lsp::fuzzing::frames(&bytes));
        assert!(
            result.is_ok(),
            "frames case seed {seed}: {:?}",
            String::from_utf8_lossy(&bytes)
        );
    }
}

/// The real server: broken frames and mutated documents with every request
/// kind, then a request that must still be answered.
#[tokio::test]
async fn the_server_survives_hostile_streams_and_documents() {
    let (mut child, mut c) = common::spawn_server();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": null,
               "initializationOptions": {"permissionLsp": {"home": "/nonexistent-permission-lsp-fuzz/home"}},
               "capabilities": {}}),
    )
    .await;
    c.notify("initialized", json!({})).await;
    let corpus = corpus();
    let uri = "file:///nonexistent-permission-lsp-fuzz/project/.pi/extensions/pi-permission-system/config.json";
    let agent_uri = "file:///nonexistent-permission-lsp-fuzz/project/.pi/agents/dev.md";
    let mut versions = [0i64; 2];
    let n = cases().div_ceil(3) as u64;
    let first = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1u64);
    for seed in first..first + n {
        let mut rng = Rng(seed.wrapping_mul(0xA076_1D64_78BD_642F) | 1);
        // Protocol abuse.
        let started = std::time::Instant::now();
        let abuse = stream(&mut rng);
        c.writer_raw(&abuse).await;
        // A mutated document, as an open or a full change.
        let which = rng.below(2);
        let u = [uri, agent_uri][which];
        let base = &corpus[if which == 1 {
            corpus.len() - 1
        } else {
            rng.below(corpus.len())
        }];
        let text = String::from_utf8_lossy(&mutate(&mut rng, base)).into_owned();
        versions[which] += 1;
        let v = versions[which];
        if v == 1 {
            c.notify(
                "textDocument/didOpen",
                json!({"textDocument": {"uri": u, "languageId": "json", "version": v, "text": text}}),
            )
            .await;
        } else {
            c.notify(
                "textDocument/didChange",
                json!({"textDocument": {"uri": u, "version": v}, "contentChanges": [{"text": text}]}),
            )
            .await;
        }
        let lines = text.lines().count().max(1);
        let tool = ["bash", "read", "mcp", "Bash"][rng.below(4)];
        let pos = json!({"line": rng.below(lines + 1), "character": rng.below(80)});
        let requests = [
            (
                "textDocument/hover",
                json!({"textDocument": {"uri": u}, "position": pos}),
            ),
            (
                "textDocument/completion",
                json!({"textDocument": {"uri": u}, "position": pos}),
            ),
            (
                "textDocument/documentSymbol",
                json!({"textDocument": {"uri": u}}),
            ),
            ("textDocument/codeLens", json!({"textDocument": {"uri": u}})),
            (
                "textDocument/codeAction",
                json!({"textDocument": {"uri": u},
                "range": {"start": pos, "end": {"line": lines, "character": 0}},
                "context": {"diagnostics": []}}),
            ),
            (
                "workspace/executeCommand",
                json!({"command": "permission-lsp.simulate",
                "arguments": [{"uri": u, "tool": tool,
                               "input": {"command": "git push --force", "path": "~/x"}}]}),
            ),
            (
                "workspace/executeCommand",
                json!({"command": "permission-lsp.effectivePolicy",
                "arguments": [{"uri": u}]}),
            ),
        ];
        for (method, params) in requests {
            let answered = tokio::time::timeout(
                std::time::Duration::from_secs(15),
                c.request(method, params),
            )
            .await;
            let Ok(r) = answered else {
                let kept = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
                    .join(format!("fuzz-server-{seed}.txt"));
                let _ = std::fs::write(&kept, &text);
                let _ = std::fs::write(kept.with_extension("stream"), &abuse);
                panic!(
                    "seed {seed}: no answer to {method} within 15 s (document kept in {})",
                    kept.display()
                );
            };
            assert!(
                r.get("result").is_some() || r["error"]["code"] != -32603,
                "seed {seed}: {method} failed inside the server: {r}"
            );
        }
        // Slow cases are worth a look (reported, never asserted).
        if started.elapsed() > std::time::Duration::from_secs(1) {
            eprintln!("slow: seed {seed} took {:?}", started.elapsed());
        }
    }
    let r = c.request("shutdown", json!(null)).await;
    assert_eq!(r["result"], Value::Null);
    c.notify("exit", json!(null)).await;
    let status = tokio::time::timeout(std::time::Duration::from_secs(10), child.wait())
        .await
        .expect("exits")
        .expect("wait");
    assert!(status.success());
}
