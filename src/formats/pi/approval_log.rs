//! The pi-toolkits `/ask-perm` approval log
//! (`~/.pi/agent/approval-log/audit-NNNNNN.jsonl`, numbered ring files):
//! one JSON object per line for every ask and its answer, every block and
//! every session grant. Documented, not verified: the package's writer is
//! not available to run, so this reader follows the fields its
//! documentation names — `ts`, `event` (`ask`, `block`, `session`),
//! `tool`, `input` (`input.command`), `answer.choice` (`allow-once`,
//! `allow-session`, `deny`, …), `modes`, `roots`, `units`, and `verdict`
//! (`layer`, `grantScope`, `grantRoot`) — and reads unknown events and
//! fields without failing. Every call it rebuilds says so in its note.

use crate::contract::history::{Answer, Decision, Item, LogReader, PastCall, Session, str_field};
use serde_json::Value;

/// The note every rebuilt call carries.
pub const NOTE: &str = "pi-toolkits approval log: documented, not verified";

/// The events of the log.
const EVENTS: &[&str] = &["ask", "block", "session"];

/// The reader, if `record` is a line of the approval log: a known event
/// with its tool and time, and none of the review log's envelope.
pub fn reader(record: &Value) -> Option<Box<dyn LogReader>> {
    let event = str_field(record, "event")?;
    (EVENTS.contains(&event)
        && record.get("ts").is_some()
        && str_field(record, "tool").is_some()
        && record.get("extension").is_none())
    .then(|| Box::new(ApprovalLog) as Box<dyn LogReader>)
}

struct ApprovalLog;

/// The answer `answer.choice` names (`allow-session`, `allow-once`,
/// `deny`, …); `None` when there is none or it is not understood.
fn answer_of(choice: &str) -> Option<Answer> {
    let c = choice.to_ascii_lowercase();
    if c.starts_with("allow") || c.starts_with("approve") || c == "yes" {
        Some(
            if ["session", "always", "project", "root", "global"]
                .iter()
                .any(|s| c.contains(s))
            {
                Answer::ApprovedForSession
            } else {
                Answer::Approved
            },
        )
    } else if c.starts_with("deny") || c.starts_with("reject") || c == "no" || c == "block" {
        Some(Answer::Denied)
    } else {
        None
    }
}

/// The session's folder: `cwd`, else the first of `roots`, else the grant's
/// root.
fn folder_of(r: &Value) -> Option<String> {
    str_field(r, "cwd")
        .or_else(|| {
            r.get("roots")
                .and_then(Value::as_array)
                .and_then(|a| a.first())
                .and_then(Value::as_str)
        })
        .or_else(|| r.get("verdict").and_then(|v| str_field(v, "grantRoot")))
        .map(String::from)
}

impl LogReader for ApprovalLog {
    fn kind(&self) -> &'static str {
        "pi-toolkits approval log (documented, not verified)"
    }

    fn record(&mut self, line: u64, r: &Value, out: &mut Vec<Item>) {
        let Some(event) = str_field(r, "event") else {
            return;
        };
        if !EVENTS.contains(&event) {
            out.push(Item::Unknown {
                line,
                event: event.chars().take(64).collect(),
            });
            return;
        }
        let Some(tool) = str_field(r, "tool") else {
            out.push(Item::Unrebuildable {
                line,
                why: format!("an `{event}` record without its tool"),
            });
            return;
        };
        let input = match r.get("input") {
            Some(v @ Value::Object(_)) => v.clone(),
            Some(Value::String(s)) => serde_json::json!({ "command": s }),
            _ => serde_json::json!({}),
        };
        let session = Session {
            cwd: folder_of(r),
            agent: None,
            runtime_args: Vec::new(),
        };
        let mut call = PastCall::new(tool.to_string(), input, Decision::Ask, session, line);
        call.note = Some(NOTE);
        match event {
            "block" => call.recorded = Decision::Deny,
            "session" => {
                // Allowed by a grant given earlier: the policy asked, or
                // allowed it outright.
                call.answer = Some(Answer::SessionRule);
                call.or = Some(Decision::Allow);
            }
            _ => {
                call.answer = r
                    .get("answer")
                    .and_then(|a| str_field(a, "choice").or_else(|| a.as_str()))
                    .and_then(answer_of);
            }
        }
        out.push(Item::Call(call));
    }

    fn finish(&mut self, _out: &mut Vec<Item>) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_documented_fields_are_read_and_the_rest_is_tolerated() {
        let lines = [
            json!({"ts": 1, "event": "ask", "tool": "bash", "input": {"command": "npm test"},
                   "answer": {"choice": "allow-session"}, "modes": ["ask"], "roots": ["/w/p"],
                   "units": ["npm test"], "verdict": {"layer": "rules", "grantScope": "session", "grantRoot": "/w/p"}}),
            json!({"ts": 2, "event": "ask", "tool": "bash", "input": {"command": "rm -rf x"},
                   "answer": {"choice": "deny"}}),
            json!({"ts": 3, "event": "block", "tool": "bash", "input": {"command": "sudo x"}, "verdict": {"layer": "hard"}}),
            json!({"ts": 4, "event": "session", "tool": "bash", "input": {"command": "npm test"}}),
            json!({"ts": 5, "event": "ask", "tool": "read", "input": {"path": "a"}, "answer": {"choice": "something-new"}, "extra": [1]}),
            json!({"ts": 6, "event": "rotated", "file": "audit-000002.jsonl"}),
            json!({"ts": 7, "event": "ask"}),
        ];
        let mut r = reader(&lines[0]).unwrap();
        assert!(r.kind().contains("documented, not verified"));
        let mut out = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            r.record(i as u64 + 1, l, &mut out);
        }
        let calls: Vec<_> = out
            .iter()
            .filter_map(|i| match i {
                Item::Call(c) => Some((c.tool.as_str(), c.recorded, c.or, c.answer, c.note)),
                _ => None,
            })
            .collect();
        assert_eq!(
            calls,
            vec![
                (
                    "bash",
                    Decision::Ask,
                    None,
                    Some(Answer::ApprovedForSession),
                    Some(NOTE)
                ),
                (
                    "bash",
                    Decision::Ask,
                    None,
                    Some(Answer::Denied),
                    Some(NOTE)
                ),
                ("bash", Decision::Deny, None, None, Some(NOTE)),
                (
                    "bash",
                    Decision::Ask,
                    Some(Decision::Allow),
                    Some(Answer::SessionRule),
                    Some(NOTE)
                ),
                ("read", Decision::Ask, None, None, Some(NOTE)),
            ]
        );
        let Item::Call(first) = &out[0] else {
            unreachable!()
        };
        assert_eq!(first.session.cwd.as_deref(), Some("/w/p"));
        assert!(matches!(&out[5], Item::Unknown { event, .. } if event == "rotated"));
        assert!(matches!(&out[6], Item::Unrebuildable { .. }));
    }

    #[test]
    fn review_log_records_are_not_this_log() {
        assert!(reader(&json!({"extension": "pi-permission-system", "event": "ask", "ts": 1, "tool": "bash"})).is_none());
        assert!(reader(&json!({"event": "ask", "tool": "bash"})).is_none());
    }
}
