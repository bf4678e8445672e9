//! OpenCode's sessions, as 1.18.33 keeps them: a SQLite database
//! (`$XDG_DATA_HOME/opencode/opencode.db`, `~/.local/share/opencode/…` by
//! default; recorded: `tests/fixtures/history/opencode/`). A session row
//! has its folder (`directory`); each tool call is a `part` row of type
//! `tool`, whose `state` tells what became of it: `completed` (it ran:
//! allowed, or asked and approved — OpenCode keeps no record of the ask,
//! so the replay claims neither), `error` with the text of a rule's deny
//! ("… a rule which prevents you from using this specific tool call"), of
//! a refusal at the prompt ("The user rejected permission to use this
//! specific tool call"), of a tool the agent does not have ("Model tried
//! to call unavailable tool"), or of the tool failing after its permission
//! (it ran). The agent is the assistant message's `agent`.
//!
//! The database is opened read-only and its calls are handed on as JSON
//! lines (`{"type": "opencode.tool", "session", "directory", "agent",
//! "part"}`), read by [`reader`] like any other log.

use crate::contract::history::{
    Answer, Decision, Item, LogReader, PastCall, Session, SessionLogs, str_field,
};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// The record type the database's calls are handed on as.
const RECORD: &str = "opencode.tool";

/// The reader, if `record` is a call handed on from the database.
pub fn reader(record: &Value) -> Option<Box<dyn LogReader>> {
    (str_field(record, "type") == Some(RECORD)).then(|| Box::new(Sessions) as Box<dyn LogReader>)
}

/// The database at `path` as JSON lines, when it is an SQLite file named
/// like OpenCode's.
pub fn stream(path: &Path) -> Option<Result<Box<dyn std::io::Read + Send>, String>> {
    let named = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".db"));
    let head = crate::fsio::read_head(path, 16).ok()?;
    if !named || head != b"SQLite format 3\0" {
        return None;
    }
    Some(open_stream(path))
}

fn open_stream(path: &Path) -> Result<Box<dyn std::io::Read + Send>, String> {
    use rusqlite::OpenFlags;
    let db = rusqlite::Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| format!("not readable as OpenCode's database: {e}"))?;
    // A database another program holds: wait a little, never forever.
    let _ = db.busy_timeout(std::time::Duration::from_secs(2));
    // Its schema is OpenCode's: a `part` table of JSON rows.
    let tables: i64 = db
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')",
            [],
            |r| r.get(0),
        )
        .map_err(|e| format!("not readable as OpenCode's database: {e}"))?;
    if tables != 3 {
        return Err("an SQLite database without OpenCode's session tables".into());
    }
    let (reader, mut writer) =
        std::io::pipe().map_err(|e| format!("no pipe for the database's records: {e}"))?;
    std::thread::spawn(move || {
        let query = "SELECT s.id, s.directory, m.data, p.data FROM part p \
                     JOIN session s ON s.id = p.session_id \
                     LEFT JOIN message m ON m.id = p.message_id \
                     WHERE json_valid(p.data) AND json_extract(p.data, '$.type') = 'tool' \
                     ORDER BY s.time_created, s.id, p.time_created, p.id";
        let Ok(mut stmt) = db.prepare(query) else {
            let _ = writeln!(
                writer,
                "{}",
                json!({"type": "opencode.error", "why": "the parts could not be queried"})
            );
            return;
        };
        let Ok(mut rows) = stmt.query([]) else {
            return;
        };
        let mut out = std::io::BufWriter::new(&mut writer);
        while let Ok(Some(row)) = rows.next() {
            let session: String = row.get(0).unwrap_or_default();
            let directory: Option<String> = row.get(1).ok();
            let message: Option<String> = row.get(2).ok().flatten();
            let part: String = row.get(3).unwrap_or_default();
            let agent = message
                .and_then(|m| serde_json::from_str::<Value>(&m).ok())
                .and_then(|m| str_field(&m, "agent").map(String::from));
            let part: Value = serde_json::from_str(&part).unwrap_or(Value::Null);
            let record = json!({
                "type": RECORD,
                "session": session,
                "directory": directory,
                "agent": agent,
                "part": part,
            });
            // The reader hung up: stop.
            if writeln!(out, "{record}").is_err() {
                return;
            }
        }
        let _ = out.flush();
    });
    Ok(Box::new(reader))
}

/// Where OpenCode keeps its sessions for a context: the database (with
/// when it was last written, its write-ahead log's time when later).
pub fn session_logs(data_dir: &Path) -> SessionLogs {
    let db = data_dir.join("opencode.db");
    let mut found = SessionLogs::default();
    found.looked_in.push(db.display().to_string());
    if let Ok(meta) = std::fs::metadata(&db)
        && meta.is_file()
    {
        let mut modified = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
        if let Ok(wal) = std::fs::metadata(data_dir.join("opencode.db-wal"))
            && let Ok(t) = wal.modified()
        {
            modified = modified.max(t);
        }
        found.files.push((db, modified));
    }
    found
}

struct Sessions;

impl LogReader for Sessions {
    fn kind(&self) -> &'static str {
        "OpenCode session database"
    }

    fn record(&mut self, line: u64, r: &Value, out: &mut Vec<Item>) {
        if str_field(r, "type") != Some(RECORD) {
            if let Some(t) = str_field(r, "type") {
                out.push(Item::Unknown {
                    line,
                    event: t.chars().take(64).collect(),
                });
            }
            return;
        }
        let part = &r["part"];
        let (Some(tool), Some(state)) = (str_field(part, "tool"), part.get("state")) else {
            out.push(Item::Unrebuildable {
                line,
                why: "a tool part without its tool or state".into(),
            });
            return;
        };
        let input = state.get("input").cloned().unwrap_or_else(|| json!({}));
        let session = Session {
            cwd: str_field(r, "directory").map(String::from),
            agent: str_field(r, "agent").map(String::from),
            runtime_args: Vec::new(),
        };
        let error = str_field(state, "error").unwrap_or_default();
        let mut call = match str_field(state, "status") {
            Some("completed") => PastCall::ran(tool.to_string(), input, session, line),
            Some("error") if error.contains("prevents you from using this specific tool call") => {
                PastCall::new(tool.to_string(), input, Decision::Deny, session, line)
            }
            Some("error")
                if error.contains("rejected permission to use this specific tool call") =>
            {
                let mut c = PastCall::new(tool.to_string(), input, Decision::Ask, session, line);
                c.answer = Some(Answer::Denied);
                c
            }
            Some("error") if error.contains("tried to call unavailable tool") => {
                PastCall::new(tool.to_string(), input, Decision::Deny, session, line)
            }
            // The permission let it through; the tool itself failed.
            Some("error") => PastCall::ran(tool.to_string(), input, session, line),
            other => {
                out.push(Item::Unrebuildable {
                    line,
                    why: format!(
                        "a {tool} call that never finished (state `{}`)",
                        other.unwrap_or("none")
                    ),
                });
                return;
            }
        };
        call.id = str_field(part, "callID")
            .map(|id| format!("{}/{id}", str_field(r, "session").unwrap_or_default()));
        out.push(Item::Call(call));
    }

    fn finish(&mut self, _out: &mut Vec<Item>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(status: &str, error: Option<&str>) -> Value {
        let mut state = json!({"status": status, "input": {"command": "x"}});
        if let Some(e) = error {
            state["error"] = json!(e);
        }
        json!({"type": RECORD, "session": "s", "directory": "/p", "agent": "build",
               "part": {"type": "tool", "tool": "bash", "callID": "c", "state": state}})
    }

    #[test]
    fn each_state_gives_its_outcome() {
        let mut r = reader(&part("completed", None)).unwrap();
        let mut out = Vec::new();
        for (i, p) in [
            part("completed", None),
            part("error", Some("The user has specified a rule which prevents you from using this specific tool call. Here …")),
            part("error", Some("The user rejected permission to use this specific tool call.")),
            part("error", Some("Model tried to call unavailable tool 'bash'.")),
            part("error", Some("exit code 1")),
            part("running", None),
        ]
        .iter()
        .enumerate()
        {
            r.record(i as u64 + 1, p, &mut out);
        }
        let got: Vec<String> = out
            .iter()
            .map(|i| match i {
                Item::Call(c) => format!(
                    "{}{}",
                    c.outcome_label(),
                    c.answer
                        .map(|a| format!("/{}", a.as_str()))
                        .unwrap_or_default()
                ),
                Item::Unrebuildable { why, .. } => why.clone(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            got,
            vec![
                "ran",
                "deny",
                "ask/denied",
                "deny",
                "ran",
                "a bash call that never finished (state `running`)"
            ]
        );
        let Item::Call(c) = &out[0] else {
            unreachable!()
        };
        assert_eq!(c.session.cwd.as_deref(), Some("/p"));
        assert_eq!(c.session.agent.as_deref(), Some("build"));
        assert_eq!(c.id.as_deref(), Some("s/c"));
    }

    #[test]
    fn only_an_sqlite_file_is_streamed() {
        let dir = std::env::temp_dir().join(format!("oc-history-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let not = dir.join("opencode.db");
        std::fs::write(&not, b"{\"type\": \"x\"}\n").unwrap();
        assert!(stream(&not).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
