//! Synthetic decision logs of any size, for the replay benchmark (used by
//! `benches/history.rs` and `examples/gen_decision_log.rs`): records
//! shaped exactly as the runtimes write them (the recorded fixtures under
//! `tests/fixtures/history/`), over a pool of commands and paths where
//! most calls recur (as in real sessions) and a share is new each time.

use std::io::Write;

/// The log kinds the generator writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// pi-permission-system's review log.
    PiReview,
    /// Claude Code's stream-json output.
    ClaudeStreamJson,
}

// The differential tests' seeded generator.
#[allow(dead_code)]
#[path = "../../tests/common/rng.rs"]
mod rng;
use rng::Rng;

const VERBS: &[&str] = &[
    "git status",
    "git push origin",
    "git log --oneline",
    "npm run test",
    "npm install",
    "rm -rf",
    "cat",
    "ls -la",
    "curl -s",
    "cargo build",
    "make",
    "python3 -m pytest",
];
const ARGS: &[&str] = &[
    "src",
    "build",
    "dist",
    "main",
    "README.md",
    ".env",
    "docs",
    "tests",
];
const PATHS: &[&str] = &[
    "src/main.rs",
    ".env",
    "README.md",
    "docs/a.md",
    "/etc/hosts",
    "secrets/key.pem",
];

/// A command: one of a few thousand recurring ones, or (one in five) new.
fn command(rng: &mut Rng) -> String {
    let verb = VERBS[rng.below(VERBS.len())];
    let arg = ARGS[rng.below(ARGS.len())];
    if rng.below(5) == 0 {
        format!("{verb} {arg}-{}", rng.next() % 1_000_000)
    } else {
        format!("{verb} {arg}{}", rng.below(300))
    }
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Writes `records` records of `kind` (at least; a call's records are not
/// split) for a session in `cwd`.
pub fn write_log(
    kind: Kind,
    records: u64,
    seed: u64,
    cwd: &str,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut rng = Rng(seed | 1);
    let mut n = 0u64;
    let ts = "2026-12-01T12:00:00.000Z";
    match kind {
        Kind::PiReview => {
            writeln!(
                out,
                r#"{{"timestamp":"{ts}","extension":"pi-permission-system","stream":"review","event":"config.resolved","projectConfigPath":{},"projectConfigExists":true}}"#,
                json_str(&format!(
                    "{cwd}/.pi/extensions/pi-permission-system/config.json"
                ))
            )?;
            n += 1;
            let mut id = 0u64;
            while n < records {
                id += 1;
                let (tool, field) = if rng.below(4) == 0 {
                    (
                        "read",
                        format!(r#""path":{}"#, json_str(PATHS[rng.below(PATHS.len())])),
                    )
                } else {
                    (
                        "bash",
                        format!(r#""command":{}"#, json_str(&command(&mut rng))),
                    )
                };
                if rng.below(3) == 0 {
                    writeln!(
                        out,
                        r#"{{"timestamp":"{ts}","extension":"pi-permission-system","stream":"review","event":"permission_request.blocked","source":"tool_call","toolCallId":"c{id}","toolName":"{tool}",{field},"origin":"global","agentName":null,"resolution":"policy_denied"}}"#
                    )?;
                    n += 1;
                } else {
                    let answer = ["approved", "denied", "approved_for_session"][rng.below(3)];
                    let event = if answer == "denied" {
                        "denied"
                    } else {
                        "approved"
                    };
                    for (e, r) in [("waiting", "null".to_string()), (event, json_str(answer))] {
                        writeln!(
                            out,
                            r#"{{"timestamp":"{ts}","extension":"pi-permission-system","stream":"review","event":"permission_request.{e}","requestId":"r{id}","source":"tool_call","agentName":null,"toolCallId":"c{id}","toolName":"{tool}",{field},"resolution":{r},"denialReason":null}}"#
                        )?;
                        n += 1;
                    }
                }
            }
        }
        Kind::ClaudeStreamJson => {
            let session = "00000000-0000-0000-0000-000000000001";
            writeln!(
                out,
                r#"{{"type":"system","subtype":"init","cwd":{},"session_id":"{session}","permissionMode":"default"}}"#,
                json_str(cwd)
            )?;
            n += 1;
            let mut id = 0u64;
            while n < records {
                id += 1;
                let (tool, input) = if rng.below(4) == 0 {
                    (
                        "Read",
                        format!(
                            r#"{{"file_path":{}}}"#,
                            json_str(&format!(
                                "{cwd}/{}",
                                PATHS[rng.below(PATHS.len())].trim_start_matches('/')
                            ))
                        ),
                    )
                } else {
                    (
                        "Bash",
                        format!(
                            r#"{{"command":{},"description":"d"}}"#,
                            json_str(&command(&mut rng))
                        ),
                    )
                };
                writeln!(
                    out,
                    r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"tool_use","id":"toolu_{id}","name":"{tool}","input":{input}}}]}},"session_id":"{session}"}}"#
                )?;
                n += 1;
                let asked = rng.below(3) == 0;
                if asked {
                    writeln!(
                        out,
                        r#"{{"type":"control_request","request_id":"q{id}","request":{{"subtype":"can_use_tool","tool_name":"{tool}","input":{input},"tool_use_id":"toolu_{id}"}}}}"#
                    )?;
                    n += 1;
                }
                let (decision, source) = match (asked, rng.below(2)) {
                    (true, 0) => ("accept", "user_temporary"),
                    (true, _) => ("reject", "user_reject"),
                    (false, 0) => ("accept", "config"),
                    (false, _) => ("reject", "config"),
                };
                writeln!(
                    out,
                    r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_{id}","content":"x","is_error":{}}}]}},"session_id":"{session}","tool_result_meta":[{{"id":"toolu_{id}","permission_decision":{{"decision":"{decision}","source":"{source}","reason_type":"rule"}}}}]}}"#,
                    decision == "reject"
                )?;
                n += 1;
            }
            writeln!(
                out,
                r#"{{"type":"result","subtype":"success","session_id":"{session}","permission_denials":[]}}"#
            )?;
        }
    }
    Ok(())
}
