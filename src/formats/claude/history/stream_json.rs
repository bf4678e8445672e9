//! The messages of `claude -p
//! --output-format stream-json` and of the Agent SDK, one JSON object per
//! line. A call is the `tool_use` block of an `assistant` message (or the
//! input of a `can_use_tool` control request); its decision is the
//! `tool_result_meta[].permission_decision` of the tool result, a
//! `can_use_tool` request (the CLI asked), `system/permission_denied`
//! messages and the result message's `permission_denials`.

use super::{GIVEN_UP, array, tool_uses};
use crate::contract::history::{
    Answer, Decision, Item, LogReader, OpenCalls, PastCall, Session, str_field,
};
use serde_json::Value;
use std::collections::HashSet;

/// The reader, if `record` is a stream-json / SDK message.
pub(super) fn reader(record: &Value) -> Option<Box<dyn LogReader>> {
    let t = str_field(record, "type")?;
    let ours = match t {
        "control_request" | "control_response" => {
            record.get("request").is_some() || record.get("response").is_some()
        }
        "system" | "assistant" | "user" | "result" | "stream_event" => {
            record.get("session_id").is_some()
        }
        _ => false,
    };
    ours.then(|| Box::new(StreamJson::default()) as Box<dyn LogReader>)
}

#[derive(Default)]
struct Pending {
    tool: String,
    input: Value,
    line: u64,
    asked: bool,
    /// The tool result came back (and whether it was an error) without a
    /// permission decision attached.
    result: Option<bool>,
    denied: bool,
}

#[derive(Default)]
struct StreamJson {
    session: Session,
    open: OpenCalls<Pending>,
    /// Ids already settled since the last flush.
    settled: HashSet<String>,
}

impl LogReader for StreamJson {
    fn kind(&self) -> &'static str {
        "Claude Code stream-json / SDK messages"
    }

    fn record(&mut self, line: u64, r: &Value, out: &mut Vec<Item>) {
        match (str_field(r, "type"), str_field(r, "subtype")) {
            (Some("system"), Some("init")) => {
                self.flush(out);
                let mode = str_field(r, "permissionMode").filter(|m| *m != "default");
                self.session = Session {
                    cwd: str_field(r, "cwd").map(String::from),
                    agent: None,
                    runtime_args: mode
                        .map(|m| vec![("permission-mode".to_string(), m.to_string())])
                        .unwrap_or_default(),
                };
            }
            (Some("assistant"), _) => {
                for (id, name, input) in tool_uses(r, line, out) {
                    self.open(id, name, input, line, out);
                }
            }
            (Some("control_request"), _) => {
                let req = &r["request"];
                if str_field(req, "subtype") != Some("can_use_tool") {
                    return;
                }
                let (Some(id), Some(name)) =
                    (str_field(req, "tool_use_id"), str_field(req, "tool_name"))
                else {
                    out.push(Item::Unrebuildable {
                        line,
                        why: "a can_use_tool request without tool_use_id or tool_name".into(),
                    });
                    return;
                };
                if !self.open.contains(id) {
                    let input = req.get("input").cloned().unwrap_or(Value::Null);
                    self.open(id, name, input, line, out);
                }
                if let Some(p) = self.open.get_mut(id) {
                    p.asked = true;
                }
            }
            (Some("system"), Some("permission_denied")) => {
                if let Some(p) = str_field(r, "tool_use_id").and_then(|id| self.open.get_mut(id)) {
                    p.denied = true;
                }
            }
            (Some("user"), _) => {
                let metas = array(r.get("tool_result_meta"));
                for m in metas {
                    let Some(id) = str_field(m, "id") else {
                        continue;
                    };
                    let Some(d) = m.get("permission_decision") else {
                        continue;
                    };
                    if let Some((_, p)) = self.open.take(id) {
                        self.settled.insert(id.to_string());
                        self.settle_meta(p, d, m, out);
                    }
                }
                let blocks = array(r.pointer("/message/content"));
                for b in blocks {
                    if str_field(b, "type") != Some("tool_result") {
                        continue;
                    }
                    if let Some(p) =
                        str_field(b, "tool_use_id").and_then(|id| self.open.get_mut(id))
                    {
                        let error = b["is_error"].as_bool().unwrap_or(false);
                        p.result = Some(error);
                        // A tool the settings removed from the session
                        // (a deny without a specifier) is not there.
                        if error
                            && str_field(b, "content")
                                .is_some_and(|c| c.contains("Error: No such tool available: "))
                        {
                            p.denied = true;
                        }
                    }
                }
            }
            (Some("result"), _) => {
                for d in array(r.get("permission_denials")) {
                    let Some(id) = str_field(d, "tool_use_id") else {
                        continue;
                    };
                    match self.open.get_mut(id) {
                        Some(p) => p.denied = true,
                        None if !self.settled.contains(id) => {
                            // A denial whose tool_use is not in the log.
                            if let Some(name) = str_field(d, "tool_name") {
                                let input = d.get("tool_input").cloned().unwrap_or(Value::Null);
                                self.open(id, name, input, line, out);
                                if let Some(p) = self.open.get_mut(id) {
                                    p.denied = true;
                                }
                            }
                        }
                        None => {}
                    }
                }
                self.flush(out);
            }
            _ => {}
        }
    }

    fn finish(&mut self, out: &mut Vec<Item>) {
        self.flush(out);
    }
}

impl StreamJson {
    fn open(&mut self, id: &str, name: &str, input: Value, line: u64, out: &mut Vec<Item>) {
        let p = Pending {
            tool: name.to_string(),
            input,
            line,
            ..Default::default()
        };
        if self.open.open(id, line, p, GIVEN_UP, out) {
            self.settled.clear();
        }
    }

    fn call(&self, p: Pending, recorded: Decision, answer: Option<Answer>) -> Item {
        let mut c = PastCall::new(p.tool, p.input, recorded, self.session.clone(), p.line);
        c.answer = answer;
        Item::Call(c)
    }

    fn settle_meta(&mut self, p: Pending, d: &Value, meta: &Value, out: &mut Vec<Item>) {
        let kind = str_field(meta, "non_execution_kind");
        let item = match super::stamped(d, kind, p.asked) {
            Ok((recorded, answer)) => self.call(p, recorded, answer),
            Err(why) => Item::Unrebuildable {
                line: p.line,
                why: format!("{} was {why}", p.tool),
            },
        };
        out.push(item);
    }

    /// Settles every call still open (at a result message or the end):
    /// those without a decision on their tool result.
    fn flush(&mut self, out: &mut Vec<Item>) {
        for (_, _, p) in self.open.drain() {
            let item = match (p.denied, p.asked, p.result) {
                (true, true, _) => self.call(p, Decision::Ask, Some(Answer::Denied)),
                (true, false, _) => self.call(p, Decision::Deny, None),
                (false, true, Some(false)) => self.call(p, Decision::Ask, Some(Answer::Approved)),
                (false, true, _) => self.call(p, Decision::Ask, None),
                (false, false, Some(false)) => self.call(p, Decision::Allow, None),
                (false, false, _) => Item::Unrebuildable {
                    line: p.line,
                    why: format!("no decision was recorded for this {} call", p.tool),
                },
            };
            out.push(item);
        }
        self.settled.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use super::super::read_all as read;

    fn tool_use(id: &str, cmd: &str) -> Value {
        json!({"type": "assistant", "session_id": "s", "message": {"content": [
            {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": cmd}}]}})
    }

    fn meta(id: &str, decision: &str, source: &str, extra: Value) -> Value {
        let mut m =
            json!({"id": id, "permission_decision": {"decision": decision, "source": source}});
        if let Value::Object(e) = extra {
            m.as_object_mut().unwrap().extend(e);
        }
        json!({"type": "user", "session_id": "s", "message": {"content": []}, "tool_result_meta": [m]})
    }

    fn decisions(items: &[Item]) -> Vec<(String, Decision, Option<Answer>)> {
        items
            .iter()
            .map(|i| match i {
                Item::Call(c) => (
                    c.input["command"].as_str().unwrap().to_string(),
                    c.recorded,
                    c.answer,
                ),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn each_kind_of_record_gives_its_decision() {
        let items = read(&[
            json!({"type": "system", "subtype": "init", "session_id": "s", "cwd": "/p", "permissionMode": "acceptEdits"}),
            tool_use("a", "git status"),
            tool_use("b", "rm x"),
            tool_use("c", "git push"),
            tool_use("d", "npm i"),
            tool_use("e", "make"),
            json!({"type": "control_request", "request_id": "r", "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "git push"}, "tool_use_id": "c"}}),
            meta("a", "accept", "config", json!({})),
            meta(
                "b",
                "reject",
                "config",
                json!({"non_execution_kind": "permission-rule"}),
            ),
            meta("c", "accept", "user_temporary", json!({})),
            meta(
                "d",
                "reject",
                "config",
                json!({"non_execution_kind": "user-rejected"}),
            ),
            json!({"type": "result", "session_id": "s", "permission_denials": [
                {"tool_name": "Bash", "tool_use_id": "e", "tool_input": {"command": "make"}},
                {"tool_name": "Bash", "tool_use_id": "f", "tool_input": {"command": "curl x"}}]}),
        ]);
        assert_eq!(
            decisions(&items),
            vec![
                ("git status".into(), Decision::Allow, None),
                ("rm x".into(), Decision::Deny, None),
                ("git push".into(), Decision::Ask, Some(Answer::Approved)),
                ("npm i".into(), Decision::Ask, Some(Answer::Unavailable)),
                ("make".into(), Decision::Deny, None),
                ("curl x".into(), Decision::Deny, None),
            ]
        );
        let Item::Call(c) = &items[0] else {
            unreachable!()
        };
        assert_eq!(c.session.cwd.as_deref(), Some("/p"));
        assert_eq!(
            c.session.runtime_args,
            vec![("permission-mode".to_string(), "acceptEdits".to_string())]
        );
    }

    #[test]
    fn a_call_without_any_decision_is_reported() {
        let items = read(&[tool_use("a", "ls")]);
        assert!(
            matches!(&items[0], Item::Unrebuildable { why, .. } if why.contains("no decision"))
        );
    }

    #[test]
    fn only_stream_json_messages_are_read() {
        assert!(reader(&json!({"type": "user", "sessionId": "x"})).is_none());
        assert!(reader(&json!({"extension": "pi-permission-system", "event": "x"})).is_none());
        assert!(reader(&json!({"type": "result", "session_id": "x"})).is_some());
    }
}
