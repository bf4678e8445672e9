//! pi-permission-system's permission review log
//! (`<agentDir>/extensions/pi-permission-system/logs/pi-permission-system-permission-review.jsonl`):
//! one JSON object per line, `{"timestamp", "extension":
//! "pi-permission-system", "stream": "review", "event", …}`. The runtime
//! writes a record for every call its policy blocks or asks about (allowed
//! calls leave none), the user's answer to each ask, session approvals and
//! yolo approvals; `config.resolved` opens each session with its paths.

use crate::contract::history::{Answer, Decision, Item, LogReader, PastCall, Session, str_field};
use serde_json::{Value, json};
use std::collections::HashMap;

/// Where the project config sits under the session's working directory.
const PROJECT_CONFIG_SUFFIX: &str = "/.pi/extensions/pi-permission-system/config.json";

/// The review log's name in the logs folder (the debug log beside it
/// records no decisions).
pub const REVIEW_LOG: &str = "pi-permission-system-permission-review.jsonl";

/// The review log of the agent directory and the pi-toolkits approval log
/// (`approval-log/audit-NNNNNN.jsonl`): one of each for every project (their
/// calls are filtered by their project as they are replayed).
pub fn session_logs(agent_dir: &std::path::Path) -> crate::contract::history::SessionLogs {
    use crate::contract::history::{MAX_LOG_ENTRIES, SessionLogs, jsonl_files};
    let logs = agent_dir.join("extensions/pi-permission-system/logs");
    let audit = agent_dir.join("approval-log");
    let mut found = SessionLogs::default();
    found
        .looked_in
        .push(logs.join(REVIEW_LOG).display().to_string());
    found
        .looked_in
        .push(format!("{}/audit-*.jsonl", audit.display()));
    let mut budget = MAX_LOG_ENTRIES;
    let mut all = Vec::new();
    jsonl_files(&logs, 0, &mut all, &mut budget);
    jsonl_files(&audit, 0, &mut all, &mut budget);
    found.files = all
        .into_iter()
        .filter(|(p, _)| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name == REVIEW_LOG || name.starts_with("audit-")
        })
        .collect();
    found
}

/// The reader, if `record` is a line of the review log.
pub fn reader(record: &Value) -> Option<Box<dyn LogReader>> {
    (str_field(record, "extension") == Some("pi-permission-system")
        && str_field(record, "event").is_some())
    .then(|| Box::new(ReviewLog::default()) as Box<dyn LogReader>)
}

#[derive(Default)]
struct ReviewLog {
    cwd: Option<String>,
    /// Asks waiting for their answer, by request id.
    waiting: HashMap<String, (u64, Value)>,
    /// The same asks by the line they were asked on: the oldest is the one
    /// given up when too many are open (the same one on every run).
    waiting_order: std::collections::BTreeMap<u64, String>,
    /// The tool call id of a call the user just approved: the records of
    /// its later gates belong to the same call.
    approved: Option<String>,
}

impl LogReader for ReviewLog {
    fn kind(&self) -> &'static str {
        "pi-permission-system review log"
    }

    fn record(&mut self, line: u64, r: &Value, out: &mut Vec<Item>) {
        let Some(event) = str_field(r, "event") else {
            out.push(Item::Unrebuildable {
                line,
                why: "a record without \"event\"".into(),
            });
            return;
        };
        let call_id = str_field(r, "toolCallId");
        if event.starts_with("permission_request.") {
            if call_id.is_some() && call_id == self.approved.as_deref() {
                // A later gate of a call already counted (its first gate
                // asked and the user approved).
                return;
            }
            self.approved = None;
        }
        let (recorded, answer) = match event {
            "config.resolved" => {
                // A new session: its working directory, from where the
                // project config is looked for.
                self.cwd = str_field(r, "projectConfigPath")
                    .and_then(|p| p.strip_suffix(PROJECT_CONFIG_SUFFIX))
                    .map(|c| if c.is_empty() { "/" } else { c }.to_string());
                return;
            }
            "permission_request.blocked" => match str_field(r, "resolution") {
                Some("gate_error") => {
                    out.push(Item::Unrebuildable {
                        line,
                        why: format!(
                            "the runtime's gate failed ({}); no policy decision was recorded",
                            r.get("error")
                                .and_then(|e| e.get("message").or(Some(e)))
                                .map(short)
                                .unwrap_or_default()
                        ),
                    });
                    return;
                }
                _ => (Decision::Deny, None),
            },
            "permission_request.waiting" => {
                if self.waiting.len() >= crate::contract::history::MAX_PENDING
                    && let Some((_, k)) = self.waiting_order.pop_first()
                    && let Some((l, _)) = self.waiting.remove(&k)
                {
                    out.push(Item::Unrebuildable {
                        line: l,
                        why: "an ask whose answer never came (too many open asks)".into(),
                    });
                }
                let id = str_field(r, "requestId").unwrap_or("").to_string();
                self.waiting_order.insert(line, id.clone());
                if let Some((l, old)) = self.waiting.insert(id, (line, r.clone())) {
                    self.waiting_order.remove(&l);
                    // The same id asked again before its answer: the first
                    // ask stays an ask.
                    self.emit(l, &old, Decision::Ask, None, out);
                }
                return;
            }
            "permission_request.approved" | "permission_request.denied" => {
                if let Some(id) = str_field(r, "requestId")
                    && let Some((l, _)) = self.waiting.remove(id)
                {
                    self.waiting_order.remove(&l);
                }
                let answer = match str_field(r, "resolution") {
                    Some("approved") => Answer::Approved,
                    Some("approved_for_session") => Answer::ApprovedForSession,
                    Some("confirmation_unavailable") => Answer::Unavailable,
                    Some(_) | None if event == "permission_request.approved" => Answer::Approved,
                    _ => Answer::Denied,
                };
                if answer.approved() {
                    self.approved = call_id.map(String::from);
                }
                (Decision::Ask, Some(answer))
            }
            "permission_request.session_approved" => (Decision::Ask, Some(Answer::SessionRule)),
            "permission_request.auto_approved"
            | "permission_request.infrastructure_auto_allowed" => (Decision::Allow, None),
            e if e.starts_with("forwarded_permission.")
                || e.starts_with("permission_forwarding.")
                || e.starts_with("config.") =>
            {
                // Forwarding between agents and configuration notices: no
                // decision of this session's policy.
                return;
            }
            other => {
                out.push(Item::Unknown {
                    line,
                    event: other.to_string(),
                });
                return;
            }
        };
        self.emit(line, r, recorded, answer, out);
    }

    fn finish(&mut self, out: &mut Vec<Item>) {
        self.waiting_order.clear();
        let mut open: Vec<(u64, Value)> = self.waiting.drain().map(|(_, v)| v).collect();
        open.sort_by_key(|(l, _)| *l);
        for (line, r) in open {
            self.emit(line, &r, Decision::Ask, None, out);
        }
    }
}

impl ReviewLog {
    fn emit(
        &self,
        line: u64,
        r: &Value,
        recorded: Decision,
        answer: Option<Answer>,
        out: &mut Vec<Item>,
    ) {
        match rebuild(r) {
            Ok((tool, input, note)) => out.push(Item::Call(PastCall {
                tool,
                input,
                recorded,
                // Allowed by an earlier approval: the policy asked, or
                // (yolo) allowed.
                or: (answer == Some(Answer::SessionRule)).then_some(Decision::Allow),
                answer,
                session: Session {
                    cwd: self.cwd.clone(),
                    agent: str_field(r, "agentName").map(String::from),
                    runtime_args: Vec::new(),
                },
                line,
                note,
                outcome: None,
                id: None,
            })),
            Err(why) => out.push(Item::Unrebuildable { line, why }),
        }
    }
}

fn short(v: &Value) -> String {
    let s = match v.as_str() {
        Some(s) => s.to_string(),
        None => v.to_string(),
    };
    s.chars().take(120).collect()
}

/// The tool call of a record: its tool and input, and how it was rebuilt.
fn rebuild(r: &Value) -> Result<(String, Value, Option<&'static str>), String> {
    let source = str_field(r, "source");
    if source == Some("skill_input")
        && let Some(skill) = str_field(r, "skillName")
    {
        return Ok(("skill".into(), json!({ "name": skill }), None));
    }
    let Some(tool) = str_field(r, "toolName") else {
        return Err("a decision record without \"toolName\"".into());
    };
    let preview = str_field(r, "toolInputPreview").unwrap_or("");
    match tool {
        "bash" => match str_field(r, "command") {
            Some(c) => {
                let unit = str_field(r, "message").is_some_and(|m| m.contains("(full command: "));
                Ok((
                    tool.into(),
                    json!({ "command": c }),
                    unit.then_some("the gated part of a longer command, as the log records it"),
                ))
            }
            None => Err("a bash record without its command".into()),
        },
        "read" | "write" | "edit" | "grep" | "find" | "ls" => {
            if let Some(p) = str_field(r, "path") {
                return Ok((tool.into(), json!({ "path": p }), None));
            }
            if let Some(p) = quoted_after(preview, "for pattern '") {
                return Ok((
                    tool.into(),
                    json!({ "pattern": p }),
                    Some("rebuilt from the prompt's summary of the input"),
                ));
            }
            if let Some(p) =
                quoted_after(preview, "for path '").or_else(|| quoted_after(preview, "for '"))
            {
                return Ok((
                    tool.into(),
                    json!({ "path": p }),
                    Some("rebuilt from the prompt's summary of the input"),
                ));
            }
            if matches!(tool, "grep" | "find" | "ls") {
                return Ok((tool.into(), json!({}), None));
            }
            Err(format!("a {tool} record without the path it was called on"))
        }
        "mcp" => match str_field(r, "target") {
            Some(t) => Ok((tool.into(), json!({ "tool": t }), None)),
            None => match serde_json::from_str::<Value>(preview) {
                Ok(v @ Value::Object(_)) => Ok((tool.into(), v, None)),
                _ => Err("an mcp record without its target".into()),
            },
        },
        other => match serde_json::from_str::<Value>(preview) {
            Ok(v @ Value::Object(_)) => Ok((other.into(), v, None)),
            _ => Ok((
                other.into(),
                json!({}),
                (!preview.is_empty()).then_some(
                    "the input is only summarised in the log; rules by tool name decide",
                ),
            )),
        },
    }
}

/// The text between `prefix` and the last `'` before a ` (` or the end
/// (`for 'notes.txt' (2 lines, 11 characters)` → `notes.txt`).
fn quoted_after(s: &str, prefix: &str) -> Option<String> {
    let rest = s.strip_prefix(prefix)?;
    let end = rest
        .rfind("' (")
        .or_else(|| rest.rfind("', "))
        .or_else(|| rest.strip_suffix('\'').map(str::len))?;
    Some(rest[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> Vec<Item> {
        let mut out = Vec::new();
        let mut reader = None;
        for (i, l) in lines.iter().enumerate() {
            let v: Value = serde_json::from_str(l).unwrap();
            let r = reader.get_or_insert_with(|| super::reader(&v).unwrap());
            r.record(i as u64 + 1, &v, &mut out);
        }
        reader.unwrap().finish(&mut out);
        out
    }

    fn call(item: &Item) -> &PastCall {
        match item {
            Item::Call(c) => c,
            other => panic!("not a call: {other:?}"),
        }
    }

    /// More unanswered asks than are kept open: the oldest is given up,
    /// the same on every run (it was whichever the hash map gave first).
    #[test]
    fn too_many_open_asks_give_up_the_oldest_every_time() {
        let n = crate::contract::history::MAX_PENDING + 3;
        let lines: Vec<String> = (0..n)
            .map(|i| format!(r#"{{"extension":"pi-permission-system","event":"permission_request.waiting","requestId":"r{i}","toolName":"find","toolInputPreview":"for pattern 'f{i}', current working directory"}}"#))
            .collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let first = read(&refs);
        let given_up: Vec<u64> = first
            .iter()
            .filter_map(|i| match i {
                Item::Unrebuildable { line, .. } => Some(*line),
                _ => None,
            })
            .collect();
        assert_eq!(given_up, vec![1, 2, 3]);
        assert_eq!(first.len(), n);
        assert_eq!(read(&refs), first);
    }

    #[test]
    fn blocked_asked_and_answered_records_become_calls() {
        let items = read(&[
            r#"{"extension":"pi-permission-system","event":"config.resolved","projectConfigPath":"/w/p/.pi/extensions/pi-permission-system/config.json"}"#,
            r#"{"extension":"pi-permission-system","event":"permission_request.blocked","toolName":"bash","command":"rm x","message":"… (full command: 'git log && rm x'). Allow?","resolution":"policy_denied","agentName":null}"#,
            r#"{"extension":"pi-permission-system","event":"permission_request.waiting","requestId":"a","toolName":"write","path":null,"toolInputPreview":"for 'notes.txt' (2 lines, 11 characters)","agentName":"rev"}"#,
            r#"{"extension":"pi-permission-system","event":"permission_request.approved","requestId":"a","toolName":"write","path":null,"toolInputPreview":"for 'notes.txt' (2 lines, 11 characters)","resolution":"approved_for_session","agentName":"rev"}"#,
            r#"{"extension":"pi-permission-system","event":"permission_request.waiting","requestId":"b","toolName":"find","toolInputPreview":"for pattern '*.rs', current working directory"}"#,
            r#"{"extension":"pi-permission-system","event":"permission_request.sparkly"}"#,
        ]);
        assert_eq!(items.len(), 4);
        let rm = call(&items[0]);
        assert_eq!((rm.tool.as_str(), rm.recorded), ("bash", Decision::Deny));
        assert_eq!(rm.input, json!({"command": "rm x"}));
        assert_eq!(rm.session.cwd.as_deref(), Some("/w/p"));
        assert!(rm.note.is_some());
        let w = call(&items[1]);
        assert_eq!(w.input, json!({"path": "notes.txt"}));
        assert_eq!(
            (w.recorded, w.answer),
            (Decision::Ask, Some(Answer::ApprovedForSession))
        );
        assert_eq!(w.session.agent.as_deref(), Some("rev"));
        assert_eq!(w.line, 4);
        assert_eq!(
            items[2],
            Item::Unknown {
                line: 6,
                event: "permission_request.sparkly".into()
            }
        );
        // An ask whose answer never came is still an ask.
        let f = call(&items[3]);
        assert_eq!(
            (f.input.clone(), f.answer),
            (json!({"pattern": "*.rs"}), None)
        );
    }

    #[test]
    fn records_without_a_call_are_reported() {
        let items = read(&[
            r#"{"extension":"pi-permission-system","event":"permission_request.blocked","resolution":"policy_denied"}"#,
            r#"{"extension":"pi-permission-system","event":"permission_request.blocked","toolName":"bash","resolution":"gate_error","error":{"message":"boom"}}"#,
            r#"{"extension":"pi-permission-system","event":"permission_request.blocked","toolName":"write","toolInputPreview":"something"}"#,
        ]);
        assert!(
            items
                .iter()
                .all(|i| matches!(i, Item::Unrebuildable { .. }))
        );
        assert!(matches!(&items[1], Item::Unrebuildable { why, .. } if why.contains("boom")));
    }

    #[test]
    fn other_logs_are_not_read() {
        assert!(reader(&json!({"type": "system", "subtype": "init"})).is_none());
        assert!(reader(&json!({"extension": "pi-permission-system"})).is_none());
    }
}
