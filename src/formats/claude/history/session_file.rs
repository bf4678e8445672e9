//! The session files Claude Code writes for every session
//! (`~/.claude/projects/<project>/<session>.jsonl`, a subagent's under
//! `<session>/subagents/agent-*.jsonl`; `$CLAUDE_CONFIG_DIR/projects/…`
//! when that is set), one JSON record per line, as 2.1.332 writes them
//! (recorded: `tests/fixtures/history/claude/sessions/`).
//!
//! A call is a `tool_use` block of an `assistant` record; what became of it
//! is the `user` record carrying its `tool_result`. 2.1.332 stamps that
//! record with the permission decision (`permissionDecision`: decision,
//! source, reason type) and, for a call that did not run,
//! `toolDenialKind` (`permission-rule`, `user-rejected`, `automode-*`,
//! `interrupted`, `cancelled`). Files of older versions lack both: the
//! result's text then tells a denial by a rule ("Permission to use …
//! has been denied") and a refusal at the prompt ("The user doesn't want
//! to proceed with this tool use") — never for an MCP tool, whose result
//! text its server writes — and a call that ran was allowed or approved
//! after an ask, which the file cannot tell apart (the replay claims
//! neither). A call refused before any permission decision (its input was
//! invalid: "File has not been read yet", "String to replace not found")
//! is not a decision. The session's working directory is the records'
//! `cwd`; the permission mode, a prompt's `permissionMode`.
//!
//! Every other record (`queue-operation`, `attachment`, `api-request-*`,
//! `last-prompt`, `summary`, compaction boundaries, `cost-state`, …) is
//! read past.

use super::{GIVEN_UP, array, tool_uses};
use crate::contract::Context;
use crate::contract::history::{
    Answer, Decision, Item, LogReader, MAX_LOG_ENTRIES, OpenCalls, PastCall, Session, SessionLogs,
    jsonl_files, str_field,
};
use serde_json::Value;

/// Record types of a session file that are not conversation messages.
const OTHER_RECORDS: &[&str] = &[
    "queue-operation",
    "last-prompt",
    "summary",
    "custom-title",
    "mode",
    "atis-latch",
    "cost-state",
    "tools-used",
    "file-history-snapshot",
    "api-request",
    "api-request-shape",
    "api-request-blob",
];

/// The reader, if `record` is a record of a session file.
pub(super) fn reader(record: &Value) -> Option<Box<dyn LogReader>> {
    let t = str_field(record, "type")?;
    let ours = if record.get("sessionId").is_some_and(Value::is_string) {
        record.get("uuid").is_some() || OTHER_RECORDS.contains(&t)
    } else {
        // Older files open with a summary or a file-history snapshot.
        (t == "summary" && record.get("leafUuid").is_some())
            || (t == "file-history-snapshot" && record.get("snapshot").is_some())
    };
    ours.then(|| Box::new(SessionFile::default()) as Box<dyn LogReader>)
}

struct Pending {
    tool: String,
    input: Value,
    session: Session,
}

#[derive(Default)]
struct SessionFile {
    cwd: Option<String>,
    mode: Option<String>,
    open: OpenCalls<Pending>,
}

/// The text of a tool result's content (a string, or text blocks), at most
/// about `cap` bytes of it.
fn result_text(content: Option<&Value>, cap: usize) -> String {
    let mut out = String::new();
    match content {
        Some(Value::String(s)) => out.push_str(s),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                if let Some(t) = str_field(b, "text") {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(t);
                }
                if out.len() >= cap {
                    break;
                }
            }
        }
        _ => {}
    }
    if out.len() > cap {
        let mut end = cap;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
    }
    out
}

/// The first line of a refusal, without the CLI's tags, for people.
fn first_line(text: &str) -> String {
    let t = text
        .trim()
        .trim_start_matches("<tool_use_error>")
        .trim_start_matches("Error: ");
    let line = t.lines().next().unwrap_or("");
    let line = line.trim_end_matches("</tool_use_error>");
    line.chars().take(120).collect()
}

/// What became of a call that did not carry a stamped decision, from its
/// result alone.
enum Outcome {
    Decided(Decision, Option<Answer>),
    Ran,
    NotDecided(String),
}

fn from_text(tool: &str, is_error: bool, text: &str) -> Outcome {
    // An MCP server writes its result's text: it proves nothing.
    if !is_error || tool.starts_with("mcp__") {
        return Outcome::Ran;
    }
    if text.contains("The user doesn't want to proceed with this tool use") {
        return Outcome::Decided(Decision::Ask, Some(Answer::Denied));
    }
    let t = text
        .trim_start_matches("<tool_use_error>")
        .trim_start_matches("Error: ");
    if t.starts_with("Permission to use ") || t.starts_with("Permission for this") {
        return Outcome::Decided(Decision::Deny, None);
    }
    if t.starts_with("Claude requested permissions to use ") {
        // Headless: an ask nobody could answer.
        return Outcome::Decided(Decision::Ask, Some(Answer::Unavailable));
    }
    if t.starts_with("No such tool available: ") {
        // A tool the settings removed from the session (a deny without a
        // specifier).
        return Outcome::Decided(Decision::Deny, None);
    }
    if text.contains("<tool_use_error>") {
        return Outcome::NotDecided(format!(
            "refused before any permission decision: {}",
            first_line(text)
        ));
    }
    // The tool ran and failed.
    Outcome::Ran
}

impl LogReader for SessionFile {
    fn kind(&self) -> &'static str {
        "Claude Code session file"
    }

    fn record(&mut self, line: u64, r: &Value, out: &mut Vec<Item>) {
        if self.cwd.is_none()
            && let Some(cwd) = str_field(r, "cwd")
        {
            self.cwd = Some(cwd.to_string());
        }
        match str_field(r, "type") {
            Some("assistant") => {
                for (id, name, input) in tool_uses(r, line, out) {
                    let p = Pending {
                        tool: name.to_string(),
                        input,
                        session: self.session(),
                    };
                    self.open.open(id, line, p, GIVEN_UP, out);
                }
            }
            Some("user") => {
                let results: Vec<&Value> = array(r.pointer("/message/content"))
                    .iter()
                    .filter(|b| str_field(b, "type") == Some("tool_result"))
                    .collect();
                if results.is_empty() {
                    // A prompt: the permission mode it was sent in.
                    if let Some(m) = str_field(r, "permissionMode") {
                        self.mode = Some(m.to_string()).filter(|m| m != "default");
                    }
                    return;
                }
                // The stamps are the record's: they belong to its one
                // result.
                let single = results.len() == 1;
                for b in results {
                    let Some(id) = str_field(b, "tool_use_id") else {
                        continue;
                    };
                    let Some((opened, p)) = self.open.take(id) else {
                        continue;
                    };
                    let item = settle(id, opened, p, b, single.then_some(r), line);
                    out.push(item);
                }
            }
            _ => {}
        }
    }

    fn finish(&mut self, out: &mut Vec<Item>) {
        for (_, line, p) in self.open.drain() {
            out.push(Item::Unrebuildable {
                line,
                why: format!(
                    "no result was recorded for this {} call (the session ended first)",
                    p.tool
                ),
            });
        }
    }
}

/// The call `p`, settled by its tool result `block` (and the stamps of
/// the record `stamps`, when they are the result's alone).
fn settle(
    id: &str,
    opened: u64,
    p: Pending,
    block: &Value,
    stamps: Option<&Value>,
    line: u64,
) -> Item {
    let kind = stamps.and_then(|r| str_field(r, "toolDenialKind"));
    let decision = stamps.and_then(|r| r.get("permissionDecision"));
    let is_error = block
        .get("is_error")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let text = result_text(block.get("content"), 4096);
    let outcome = match (decision, kind) {
        (Some(d), _) if d.is_object() => match super::stamped(d, kind, false) {
            Ok((recorded, answer)) => Outcome::Decided(recorded, answer),
            Err(why) => {
                return Item::Unrebuildable {
                    line: opened,
                    why: format!("{} was {why}", p.tool),
                };
            }
        },
        (_, Some(k @ ("interrupted" | "cancelled"))) => {
            Outcome::NotDecided(format!("{k} without a recorded permission decision"))
        }
        (_, Some("permission-rule")) => Outcome::Decided(Decision::Deny, None),
        (_, Some("user-rejected")) => Outcome::Decided(Decision::Ask, Some(Answer::Denied)),
        (_, Some(k)) if k.starts_with("automode") => {
            return Item::Unrebuildable {
                line: opened,
                why: format!(
                    "{} was decided by auto mode's classifier ({k}), not by the settings",
                    p.tool
                ),
            };
        }
        _ => from_text(&p.tool, is_error, &text),
    };
    let mut call = match outcome {
        Outcome::Decided(recorded, answer) => {
            let mut c = PastCall::new(p.tool, p.input, recorded, p.session, opened);
            c.answer = answer;
            c
        }
        Outcome::Ran => PastCall::ran(p.tool, p.input, p.session, opened),
        Outcome::NotDecided(why) => {
            return Item::BeforeDecision {
                line,
                why: format!("{} {why}", p.tool),
            };
        }
    };
    call.id = Some(id.to_string());
    Item::Call(call)
}

impl SessionFile {
    fn session(&self) -> Session {
        Session {
            cwd: self.cwd.clone(),
            agent: None,
            runtime_args: self
                .mode
                .as_ref()
                .map(|m| vec![("permission-mode".to_string(), m.clone())])
                .unwrap_or_default(),
        }
    }
}

/// The name of the folder under `projects/` that Claude Code keeps a
/// project's sessions in (2.1.332, read from its bundle): every UTF-16
/// unit of the path that is not an ASCII letter or digit becomes `-`; a
/// name longer than 200 is cut there and given a hash of the path — only
/// its cut part is returned then (`true`), to be matched as a prefix.
pub fn project_folder_name(path: &str) -> (String, bool) {
    let mut s = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                s.push('-');
            }
        }
    }
    if s.len() > 200 {
        s.truncate(200);
        s.push('-');
        (s, true)
    } else {
        (s, false)
    }
}

/// The session files of the project at `ctx.cwd` and of the folders below
/// it (their folder names start with the project's), subagents' included.
pub fn session_logs(ctx: &Context<'_>) -> SessionLogs {
    let mut found = SessionLogs::default();
    let Some(cwd) = ctx.cwd.to_str() else {
        return found;
    };
    let projects = match crate::formats::claude::scopes::config_dir(ctx) {
        Some(d) => d.join("projects"),
        None => match crate::formats::claude::scopes::home(ctx) {
            Some(h) => h.join(".claude/projects"),
            None => return found,
        },
    };
    let (name, cut) = project_folder_name(cwd.trim_end_matches('/'));
    found
        .looked_in
        .push(format!("{}/{name}*", projects.display()));
    let mut budget = MAX_LOG_ENTRIES;
    let Ok(entries) = std::fs::read_dir(&projects) else {
        return found;
    };
    for e in entries.flatten() {
        if budget == 0 {
            break;
        }
        budget -= 1;
        let folder = e.file_name();
        let Some(folder) = folder.to_str() else {
            continue;
        };
        let ours = if cut {
            folder.starts_with(&name)
        } else {
            folder == name || folder.starts_with(&format!("{name}-"))
        };
        if ours {
            // `<session>.jsonl` and `<session>/subagents/agent-*.jsonl`.
            jsonl_files(&e.path(), 2, &mut found.files, &mut budget);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn folder_names_are_the_clis() {
        assert_eq!(
            project_folder_name("/tmp/cs/runs/s1/proj"),
            ("-tmp-cs-runs-s1-proj".to_string(), false)
        );
        assert_eq!(
            project_folder_name("/home/a.b/my_proj"),
            ("-home-a-b-my-proj".to_string(), false)
        );
        // A character outside the BMP is two UTF-16 units: two dashes.
        assert_eq!(project_folder_name("/é/😀").0, "-----");
        let long = format!("/{}", "a".repeat(300));
        let (n, cut) = project_folder_name(&long);
        assert!(cut && n.len() == 201 && n.ends_with('-'));
    }

    use super::super::read_all as read;

    fn tool_use(id: &str, name: &str, cmd: &str) -> Value {
        json!({"type": "assistant", "sessionId": "s", "uuid": "u", "cwd": "/p",
               "message": {"content": [{"type": "tool_use", "id": id, "name": name, "input": {"command": cmd}}]}})
    }

    fn result(id: &str, is_error: bool, text: &str, extra: Value) -> Value {
        let mut r = json!({"type": "user", "sessionId": "s", "uuid": "v",
            "message": {"content": [{"type": "tool_result", "tool_use_id": id, "is_error": is_error, "content": text}]}});
        if let Value::Object(e) = extra {
            r.as_object_mut().unwrap().extend(e);
        }
        r
    }

    fn outcomes(items: &[Item]) -> Vec<String> {
        items
            .iter()
            .map(|i| match i {
                Item::Call(c) => format!(
                    "{} {}{}",
                    c.input["command"].as_str().unwrap(),
                    c.outcome_label(),
                    c.answer
                        .map(|a| format!("/{}", a.as_str()))
                        .unwrap_or_default()
                ),
                Item::BeforeDecision { why, .. } => format!("before: {why}"),
                Item::Unrebuildable { why, .. } => format!("unrebuildable: {why}"),
                Item::Unknown { event, .. } => format!("unknown: {event}"),
            })
            .collect()
    }

    #[test]
    fn stamped_decisions_and_older_files_text() {
        let items = read(&[
            json!({"type": "queue-operation", "operation": "enqueue", "sessionId": "s"}),
            json!({"type": "user", "sessionId": "s", "uuid": "p", "cwd": "/p", "permissionMode": "acceptEdits",
                   "message": {"role": "user", "content": "go"}}),
            tool_use("a", "Bash", "git status"),
            result(
                "a",
                false,
                "ok",
                json!({"permissionDecision": {"decision": "accept", "source": "config", "reasonType": "rule"}}),
            ),
            tool_use("b", "Bash", "git push"),
            result(
                "b",
                true,
                "no",
                json!({"permissionDecision": {"decision": "reject", "source": "user_reject"}, "toolDenialKind": "permission-rule"}),
            ),
            tool_use("c", "Bash", "npm test"),
            result(
                "c",
                true,
                "This command requires approval",
                json!({"permissionDecision": {"decision": "reject", "source": "config"}, "toolDenialKind": "user-rejected"}),
            ),
            tool_use("d", "Bash", "rm x"),
            result(
                "d",
                true,
                "Permission to use Bash with command rm x has been denied.",
                json!({}),
            ),
            tool_use("e", "Bash", "make"),
            result(
                "e",
                true,
                "The user doesn't want to proceed with this tool use. The tool use was rejected",
                json!({}),
            ),
            tool_use("f", "Bash", "ls"),
            result("f", false, "a b", json!({})),
            tool_use("g", "Edit", "edit"),
            result(
                "g",
                true,
                "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
                json!({}),
            ),
            tool_use("h", "mcp__srv__echo", "mcp"),
            result(
                "h",
                true,
                "Permission to use everything has been denied.",
                json!({}),
            ),
            tool_use("i", "Bash", "sleep 9"),
            result(
                "i",
                true,
                "[Request interrupted by user for tool use]",
                json!({"toolDenialKind": "interrupted"}),
            ),
            tool_use("j", "Bash", "curl x"),
            result(
                "j",
                true,
                "blocked",
                json!({"toolDenialKind": "automode-blocked"}),
            ),
            tool_use("k", "Bash", "still open"),
        ]);
        assert_eq!(
            outcomes(&items),
            vec![
                "git status allow",
                "git push ask/denied",
                "npm test ask/unavailable",
                "rm x deny",
                "make ask/denied",
                "ls ran",
                "before: Edit refused before any permission decision: File has not been read yet. Read it first before writing to it.",
                "mcp ran",
                "before: Bash interrupted without a recorded permission decision",
                "unrebuildable: Bash was decided by auto mode's classifier (automode-blocked), not by the settings",
                "unrebuildable: no result was recorded for this Bash call (the session ended first)",
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
        assert_eq!(c.id.as_deref(), Some("a"));
    }

    #[test]
    fn only_session_file_records_start_this_reader() {
        assert!(reader(&json!({"type": "queue-operation", "sessionId": "x"})).is_some());
        assert!(reader(&json!({"type": "user", "sessionId": "x", "uuid": "u"})).is_some());
        assert!(reader(&json!({"type": "summary", "summary": "s", "leafUuid": "l"})).is_some());
        assert!(reader(&json!({"type": "user", "session_id": "x"})).is_none());
        assert!(reader(&json!({"type": "user", "sessionId": "x"})).is_none());
        assert!(reader(&json!({"type": "assistant"})).is_none());
    }
}
