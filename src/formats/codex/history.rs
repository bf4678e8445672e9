//! Codex's rollout files (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`,
//! one JSON record per line, as Codex 0.169.0 writes them): the session
//! (`session_meta`: the working directory; `turn_context`: the approval
//! policy), each shell call (`response_item` / `function_call` named
//! `exec_command`, `shell` or `local_shell`) and its outcome
//! (`function_call_output`: a rejection by the policy, a rejection by the
//! user after an ask, or the command's output).
//!
//! A call that ran may have been asked about and approved: the rollouts
//! seen do not mark that, so such a call is recorded as allowed, or asked.

use crate::contract::history::{
    Answer, Decision, Item, LogReader, MAX_LOG_ENTRIES, OpenCalls, PastCall, Session, SessionLogs,
    jsonl_files, str_field,
};
use serde_json::{Value, json};

/// The reader, if `record` is a record of a rollout file.
pub fn reader(record: &Value) -> Option<Box<dyn LogReader>> {
    let t = str_field(record, "type")?;
    let payload = record.get("payload")?;
    let ours = match t {
        "session_meta" => payload.get("cli_version").is_some() || payload.get("cwd").is_some(),
        "turn_context" | "response_item" | "event_msg" => record.get("timestamp").is_some(),
        _ => false,
    };
    ours.then(|| Box::new(Rollout::default()) as Box<dyn LogReader>)
}

#[derive(Default)]
struct Rollout {
    session: Session,
    /// Calls waiting for their output: the call's input.
    open: OpenCalls<Value>,
}

/// The rollouts of sessions in `codex_home` whose working directory is
/// `project` or a folder below it (the first record, `session_meta`, names
/// it; a rollout whose first 256 KiB do not is kept, and its calls are
/// filtered as they are replayed).
pub fn session_logs(codex_home: &std::path::Path, project: &std::path::Path) -> SessionLogs {
    let mut found = SessionLogs::default();
    let dir = codex_home.join("sessions");
    found
        .looked_in
        .push(format!("{}/YYYY/MM/DD/rollout-*.jsonl", dir.display()));
    let mut all = Vec::new();
    let mut budget = MAX_LOG_ENTRIES;
    jsonl_files(&dir, 3, &mut all, &mut budget);
    for (path, modified) in all {
        let named = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("rollout-"));
        if !named {
            continue;
        }
        let ours = match first_cwd(&path) {
            Some(cwd) => std::path::Path::new(&cwd).starts_with(project),
            None => true,
        };
        if ours {
            found.files.push((path, modified));
        }
    }
    found
}

/// The first `"cwd": "…"` member in the head of a rollout.
fn first_cwd(path: &std::path::Path) -> Option<String> {
    let head = crate::fsio::read_head(path, 256 << 10).ok()?;
    let text = String::from_utf8_lossy(&head);
    let at = text.find("\"cwd\":")? + "\"cwd\":".len();
    let mut values =
        serde_json::Deserializer::from_str(text[at..].trim_start()).into_iter::<String>();
    values.next()?.ok()
}

/// The shell tools a model calls, and where their command is.
fn command_of(name: &str, args: &Value) -> Option<Value> {
    match name {
        "exec_command" => args.get("cmd").cloned(),
        "shell" | "local_shell" | "container.exec" => args.get("command").cloned(),
        _ => None,
    }
}

impl Rollout {
    fn settle(&mut self, call_id: &str, output: &str, out: &mut Vec<Item>) {
        let Some((line, input)) = self.open.take(call_id) else {
            return;
        };
        let rejected = output.starts_with("exec_command failed") && output.contains("Rejected(");
        let mut call = if rejected {
            PastCall::new(
                "shell".into(),
                input,
                Decision::Deny,
                self.session.clone(),
                line,
            )
        } else {
            PastCall::ran("shell".into(), input, self.session.clone(), line)
        };
        if rejected && output.contains("rejected by user") {
            call.recorded = Decision::Ask;
            call.answer = Some(Answer::Denied);
        }
        call.id = Some(call_id.to_string());
        out.push(Item::Call(call));
    }
}

impl LogReader for Rollout {
    fn kind(&self) -> &'static str {
        "Codex rollout file"
    }

    fn record(&mut self, line: u64, r: &Value, out: &mut Vec<Item>) {
        let payload = r.get("payload").unwrap_or(&Value::Null);
        match str_field(r, "type") {
            Some("session_meta") => {
                self.session.cwd = str_field(payload, "cwd").map(String::from);
            }
            Some("turn_context") => {
                let mut args: Vec<(String, String)> = Vec::new();
                if let Some(a) = str_field(payload, "approval_policy") {
                    args.push(("ask-for-approval".into(), a.to_string()));
                }
                if let Some(cwd) = str_field(payload, "cwd") {
                    self.session.cwd = Some(cwd.to_string());
                }
                self.session.runtime_args = args;
            }
            Some("response_item") => match str_field(payload, "type") {
                Some("function_call") => {
                    let name = str_field(payload, "name").unwrap_or_default();
                    let Some(call_id) = str_field(payload, "call_id") else {
                        return;
                    };
                    let args: Value = str_field(payload, "arguments")
                        .and_then(|a| serde_json::from_str(a).ok())
                        .unwrap_or(Value::Null);
                    let Some(command) = command_of(name, &args) else {
                        return;
                    };
                    self.open.open(
                        call_id,
                        line,
                        json!({ "command": command }),
                        "no outcome recorded before too many later calls",
                        out,
                    );
                }
                Some("function_call_output") => {
                    let Some(call_id) = str_field(payload, "call_id") else {
                        return;
                    };
                    let output = match payload.get("output") {
                        Some(Value::String(s)) => s.clone(),
                        Some(other) => other
                            .get("content")
                            .and_then(Value::as_str)
                            .map(String::from)
                            .unwrap_or_else(|| other.to_string()),
                        None => String::new(),
                    };
                    self.settle(call_id, &output, out);
                }
                _ => {}
            },
            _ => {}
        }
    }

    fn finish(&mut self, out: &mut Vec<Item>) {
        for (_, line, _) in self.open.drain() {
            out.push(Item::Unrebuildable {
                line,
                why: "the call has no recorded outcome (the session ended first)".into(),
            });
        }
    }
}
