//! OpenCode agent files' YAML frontmatter, read by this checker and by the
//! CLI's own reader — gray-matter 4.0.3 with js-yaml 3, and the CLI's retry
//! with the frontmatter sanitized, run in Node.js
//! (`tests/differential/opencode/frontmatter.js`, installed with the OpenCode
//! oracle by `tests/differential/opencode/setup.sh`) — on the recorded
//! probes and on seeded random frontmatters that compose anchors and
//! aliases, merge keys, tags, quoting, keys JavaScript turns into other
//! strings (`012`, `1:30`, `~`), repeated keys, flow and block styles,
//! comments, CRLF and the classic `*: ask`. Every file must give the same
//! data, or the same refusal. A disagreement is shrunk (lines removed while
//! it stays) and printed.
//!
//! `OPENCODE_YAML_CASES` (default 400) and `OPENCODE_YAML_SEED` choose the
//! run; without Node.js or the oracle's `node_modules` the test is skipped,
//! unless `OPENCODE_DIFFERENTIAL_REQUIRED=1` (CI).

use permission_lsp::formats::opencode::model::{config, yaml};
use permission_lsp::syntax::{Node, Value};
use serde_json::{Map, Value as Json, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::rng::Rng;

fn oracle_dir() -> PathBuf {
    std::env::var_os("OPENCODE_ORACLE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tmp/opencode-oracle"))
}

/// What the CLI's reader makes of each text (one Node.js process).
fn theirs(texts: &[String]) -> Option<Vec<Json>> {
    let dir = oracle_dir();
    if !dir.join("node_modules/gray-matter").is_dir() {
        return None;
    }
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/opencode/frontmatter.js");
    let mut child = Command::new("node")
        .arg(script)
        .env("NODE_PATH", dir.join("node_modules"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let input = serde_json::to_vec(texts).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().ok()?;
    feeder.join().unwrap().ok()?;
    let lines: Vec<Json> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.len(),
        texts.len(),
        "the reader answered {} of {}",
        lines.len(),
        texts.len()
    );
    Some(lines)
}

/// A node as the JavaScript value js-yaml builds, serialised as the Node
/// script does (own keys in property order: integer keys first).
fn to_json(n: &Node) -> Json {
    match &n.value {
        Value::Null => Json::Null,
        Value::Bool(b) => json!(b),
        Value::Number(x) if x.is_finite() => {
            if *x == x.trunc() && x.abs() < 9.0e15 {
                json!(*x as i64)
            } else {
                json!(x)
            }
        }
        Value::Number(x) => {
            json!({ "number": if x.is_nan() { "NaN".to_string() } else if *x > 0.0 { "Infinity".into() } else { "-Infinity".into() } })
        }
        Value::String(s) => json!(s),
        Value::Invalid => json!({ "date": true }),
        Value::Array(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Object(members) => {
            let mut ints: Vec<(u64, Json)> = Vec::new();
            let mut rest: Vec<(String, Json)> = Vec::new();
            for m in members {
                let v = to_json(&m.value);
                let is_index = m
                    .key
                    .parse::<u64>()
                    .is_ok_and(|i| i < 4_294_967_295 && i.to_string() == m.key);
                if is_index {
                    let i: u64 = m.key.parse().unwrap();
                    match ints.iter_mut().find(|(k, _)| *k == i) {
                        Some(slot) => slot.1 = v,
                        None => ints.push((i, v)),
                    }
                } else {
                    match rest.iter_mut().find(|(k, _)| *k == m.key) {
                        Some(slot) => slot.1 = v,
                        None => rest.push((m.key.clone(), v)),
                    }
                }
            }
            ints.sort_by_key(|(k, _)| *k);
            let mut map = Map::new();
            for (k, v) in ints {
                map.insert(k.to_string(), v);
            }
            for (k, v) in rest {
                map.insert(k, v);
            }
            Json::Object(map)
        }
    }
}

/// What this checker reads: the same three outcomes.
fn ours(text: &str) -> Option<Json> {
    match config::read_agent(text, "x") {
        Ok(r) => Some(json!({ "data": r.root.as_ref().map_or(json!({}), to_json) })),
        Err(e) if yaml::is_limit(&e) => None,
        Err(e) if e.without_frontmatter => Some(json!({ "empty": true })),
        Err(e) => Some(json!({ "error": e.message })),
    }
}

/// Whether two answers agree (errors agree whatever their words).
fn agree(a: &Json, b: &Json) -> bool {
    match (a.get("error"), b.get("error")) {
        (Some(_), Some(_)) => true,
        (None, None) => {
            // A file loaded without its data is an empty data either way.
            let norm = |v: &Json| {
                if v.get("empty").is_some() {
                    json!({ "data": {} })
                } else {
                    v.clone()
                }
            };
            norm(a) == norm(b)
        }
        _ => false,
    }
}

const KEYS: &[&str] = &[
    "\"git *\"",
    "'ls *'",
    "git status",
    "\"*\"",
    "*",
    "012",
    "0x1F",
    "1:30",
    "true",
    "~",
    "null",
    "\"rm -rf *\"",
    "\"a: b\"",
    "'it''s'",
    "!!str 12",
    "? \"q\"\n      ",
    "1e3",
    "0.50",
    "-7",
    "\"\"",
    "\"*.env\"",
    "&k \"npm *\"",
];
const VALUES: &[&str] = &[
    "allow",
    "ask",
    "deny",
    "\"deny\"",
    "'ask'",
    "!!str allow",
    "yes",
    "Allow",
    "~",
    "12",
    "&v deny",
    "*v",
    "allow # why",
    "!!bool true",
    "!foo deny",
    "2024-01-02",
    ".inf",
    "\"a\\tb\"",
    "|\n        deny",
];

/// One random agent file.
fn generate(rng: &mut Rng, case: usize) -> String {
    let nl = if rng.below(20) == 0 { "\r\n" } else { "\n" };
    let mut lines: Vec<String> = vec![format!("# case {case}")];
    if rng.below(3) == 0 {
        lines.push(format!(
            "description: {}",
            rng.pick(&[
                "d",
                "Reviews: code",
                "'quoted: yes'",
                "\"dq\"",
                "a # c",
                "x: y: z"
            ])
        ));
    }
    let anchor = rng.below(3) == 0;
    if anchor {
        if rng.below(2) == 0 {
            lines.push("base: &b {\"git *\": ask, \"ls *\": allow}".into());
        } else {
            lines.push("base: &b".into());
            lines.push("  \"git *\": ask".into());
            lines.push(format!(
                "  {}: {}",
                rng.pick(KEYS).replace('\n', "\n  "),
                rng.pick(&["allow", "deny"])
            ));
        }
    }
    if rng.below(8) == 0 {
        lines.push("mode: subagent".into());
    }
    let tag = if rng.below(12) == 0 { " !!map" } else { "" };
    lines.push(format!("permission:{tag}"));
    for perm in ["bash", "edit", "read"] {
        if rng.below(3) == 0 && perm != "bash" {
            continue;
        }
        match rng.below(4) {
            0 => lines.push(format!(
                "  {perm}: {}",
                rng.pick(VALUES).replace('\n', "\n  ")
            )),
            1 => {
                let n = 1 + rng.below(3);
                let items: Vec<String> = (0..n)
                    .map(|_| {
                        format!(
                            "{}: {}",
                            rng.pick(&["\"git *\"", "'*'", "ls", "\"a\"", "x"]),
                            rng.pick(&["allow", "deny", "\"ask\""])
                        )
                    })
                    .collect();
                lines.push(format!("  {perm}: {{{}}}", items.join(", ")));
            }
            _ => {
                lines.push(format!("  {perm}:"));
                if anchor && rng.below(2) == 0 {
                    lines.push("    <<: *b".into());
                }
                let n = 1 + rng.below(4);
                let mut used: Vec<String> = Vec::new();
                for _ in 0..n {
                    let key = if !used.is_empty() && rng.below(6) == 0 {
                        used[rng.below(used.len())].clone()
                    } else {
                        rng.pick(KEYS).to_string()
                    };
                    used.push(key.clone());
                    let indent = match rng.below(30) {
                        0 => "   ",
                        1 => "\t",
                        _ => "    ",
                    };
                    lines.push(format!("{indent}{key}: {}", rng.pick(VALUES)));
                }
                if anchor && rng.below(3) == 0 {
                    lines.push("    <<: *b".into());
                }
            }
        }
    }
    format!("---{nl}{}{nl}---{nl}Body {case}.{nl}", lines.join(nl))
}

/// Removes lines while the two readers still disagree.
fn shrink(text: &str) -> String {
    let mut best = text.to_string();
    loop {
        let lines: Vec<&str> = best.split_inclusive('\n').collect();
        let candidates: Vec<String> = (1..lines.len().saturating_sub(2))
            .map(|i| {
                lines
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, l)| *l)
                    .collect::<String>()
            })
            .collect();
        if candidates.is_empty() {
            return best;
        }
        let Some(answers) = theirs(&candidates) else {
            return best;
        };
        let next = candidates
            .iter()
            .zip(&answers)
            .find(|(t, a)| ours(t).is_some_and(|o| !agree(&o, a)));
        match next {
            Some((t, _)) => best = t.clone(),
            None => return best,
        }
    }
}

#[test]
fn frontmatters_read_as_the_cli_reads_them() {
    let required = std::env::var("OPENCODE_DIFFERENTIAL_REQUIRED").is_ok_and(|v| v == "1");
    let cases: usize = std::env::var("OPENCODE_YAML_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let seed: u64 = std::env::var("OPENCODE_YAML_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mut rng = Rng::seeded(seed);
    // The recorded probes (each also decided by the CLI: the `yaml` group
    // of cases.json), then the generated files.
    let fixtures: Json = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opencode/cases.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let mut texts: Vec<String> = Vec::new();
    for g in fixtures["groups"].as_array().unwrap() {
        for p in g["projects"].as_object().unwrap().values() {
            for (path, text) in p["files"].as_object().into_iter().flatten() {
                if path.ends_with(".md") {
                    texts.push(text.as_str().unwrap().to_string());
                }
            }
        }
    }
    let probes = texts.len();
    texts.extend((0..cases).map(|i| generate(&mut rng, i)));
    let Some(answers) = theirs(&texts) else {
        assert!(
            !required,
            "Node.js or gray-matter is missing (run tests/differential/opencode/setup.sh)"
        );
        eprintln!("skipped: no Node.js or gray-matter (tests/differential/opencode/setup.sh)");
        return;
    };
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut kinds = [0usize; 3];
    for (text, answer) in texts.iter().zip(&answers) {
        let Some(o) = ours(text) else { continue };
        compared += 1;
        kinds[if answer.get("error").is_some() {
            2
        } else if answer.get("empty").is_some() || answer["data"] == json!({}) {
            1
        } else {
            0
        }] += 1;
        if !agree(&o, answer) && failures.len() < 5 {
            let small = shrink(text);
            let small_theirs = theirs(std::slice::from_ref(&small)).unwrap();
            failures.push(format!(
                "--- file (shrunk) ---\n{small}--- CLI reader: {}\n--- ours:       {}",
                small_theirs[0],
                ours(&small).unwrap()
            ));
        }
    }
    eprintln!(
        "{compared} frontmatters ({probes} recorded probes): {} with data, {} without, {} refused",
        kinds[0], kinds[1], kinds[2]
    );
    assert!(
        kinds.iter().all(|k| *k > 10),
        "the generator is too narrow: {kinds:?}"
    );
    assert!(
        failures.is_empty(),
        "{} disagreements, the first:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
