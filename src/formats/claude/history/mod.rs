//! Claude Code's records of past decisions: the session files the CLI
//! writes for every session (`session_file`), and the messages of
//! `claude -p --output-format stream-json` and of the Agent SDK
//! (`stream_json`).

mod session_file;
mod stream_json;

use crate::contract::history::{Answer, Decision, Item, LogReader, str_field};
use serde_json::Value;

pub use session_file::{project_folder_name, session_logs};

/// The reader for a log that `record` starts (or belongs to).
pub fn reader(record: &Value) -> Option<Box<dyn LogReader>> {
    session_file::reader(record).or_else(|| stream_json::reader(record))
}

/// What a permission decision the CLI stamped on a tool result says: the
/// decision and the answer to an ask, or who decided instead of the
/// settings. `decision` is `{decision, source, reasonType, …}` (the session
/// file's `permissionDecision`; stream-json's `permission_decision` spells
/// the reason `reason_type`); `denial_kind` is the result's
/// `toolDenialKind` (`non_execution_kind` in stream-json).
///
/// `source` names who decided: `config`, or the user's answer
/// (`user_temporary`, `user_permanent`, `user_reject`) — but with a reason
/// type it was a rule of the settings (observed: a user-settings allow is
/// `user_permanent` + `rule`, a local deny `user_reject` + `rule`). An ask
/// nobody could answer (headless) is `config` + `user-rejected` without a
/// reason type.
pub(crate) fn stamped(
    decision: &Value,
    denial_kind: Option<&str>,
    asked: bool,
) -> Result<(Decision, Option<Answer>), String> {
    let accept = str_field(decision, "decision") == Some("accept");
    let source = str_field(decision, "source").unwrap_or("");
    let reason = decision
        .get("reasonType")
        .or_else(|| decision.get("reason_type"));
    let answer = || match (accept, source) {
        (true, "user_permanent") => Answer::ApprovedForSession,
        (true, _) => Answer::Approved,
        (false, _) => Answer::Denied,
    };
    if let Some(kind) = denial_kind.filter(|k| k.starts_with("automode")) {
        return Err(format!(
            "decided by auto mode's classifier ({kind}), not by the settings"
        ));
    }
    Ok(if asked {
        (Decision::Ask, Some(answer()))
    } else if reason.is_some() || source == "config" {
        if accept {
            (Decision::Allow, None)
        } else if denial_kind == Some("user-rejected") && reason.is_none() {
            (Decision::Ask, Some(Answer::Unavailable))
        } else {
            (Decision::Deny, None)
        }
    } else if source.starts_with("user_") {
        (Decision::Ask, Some(answer()))
    } else {
        return Err(format!("decided by `{source}`, not by the settings"));
    })
}

/// The items of an array field (none when absent or not an array).
fn array(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The `tool_use` blocks of an assistant message: id, name and input each;
/// a block without its id or name is reported.
fn tool_uses<'a>(r: &'a Value, line: u64, out: &mut Vec<Item>) -> Vec<(&'a str, &'a str, Value)> {
    let mut uses = Vec::new();
    for b in array(r.pointer("/message/content")) {
        if str_field(b, "type") != Some("tool_use") {
            continue;
        }
        match (str_field(b, "id"), str_field(b, "name")) {
            (Some(id), Some(name)) => {
                uses.push((id, name, b.get("input").cloned().unwrap_or(Value::Null)))
            }
            _ => out.push(Item::Unrebuildable {
                line,
                why: "a tool_use block without its id or name".into(),
            }),
        }
    }
    uses
}

/// Why a call given up for too many open calls cannot be replayed.
const GIVEN_UP: &str = "a tool call whose outcome never came (too many open calls)";

/// Every item a log's records give, read from the start as the replay
/// reads them (for the readers' tests).
#[cfg(test)]
fn read_all(lines: &[Value]) -> Vec<Item> {
    let mut out = Vec::new();
    let mut r = reader(&lines[0]).expect("a reader for the first record");
    for (i, l) in lines.iter().enumerate() {
        r.record(i as u64 + 1, l, &mut out);
    }
    r.finish(&mut out);
    out
}
