//! What a format exchanges about past decisions: the record model a log
//! reader emits (calls with their recorded decision and answer, the
//! session they belong to), the reader's trait, the bounded line reader,
//! and how a suggested rule is written. The replay and the suggestions
//! themselves are in `crate::history`, above the formats.

use serde_json::Value;
use std::io::BufRead;

pub use crate::core::decision::Decision;

/// What the user (or the runtime in their place) answered to an ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Answer {
    /// Approved once.
    Approved,
    /// Approved for the rest of the session (or permanently).
    ApprovedForSession,
    /// Allowed by an approval given earlier in the session.
    SessionRule,
    /// Refused by the user.
    Denied,
    /// Nobody could be asked (headless run): the runtime refused.
    Unavailable,
}

impl Answer {
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Approved => "approved",
            Answer::ApprovedForSession => "approved_for_session",
            Answer::SessionRule => "session_rule",
            Answer::Denied => "denied",
            Answer::Unavailable => "unavailable",
        }
    }

    /// The user let the call run.
    pub fn approved(self) -> bool {
        matches!(
            self,
            Answer::Approved | Answer::ApprovedForSession | Answer::SessionRule
        )
    }
}

/// What the session a record belongs to tells about how it was decided.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Session {
    /// The session's working directory.
    pub cwd: Option<String>,
    /// The active agent.
    pub agent: Option<String>,
    /// Options of the runtime's command line, by name (as
    /// [`crate::analysis::AnalysisOptions::runtime_args`]).
    pub runtime_args: Vec<(String, String)>,
}

/// One past tool call, rebuilt from its records.
#[derive(Debug, Clone, PartialEq)]
pub struct PastCall {
    pub tool: String,
    pub input: Value,
    /// What the runtime's policy decided.
    pub recorded: Decision,
    /// A second decision that the record is as consistent with (a call
    /// allowed by an approval given earlier in the session: the policy
    /// said ask, or allowed it outright).
    pub or: Option<Decision>,
    /// The answer to an ask, when the log has it.
    pub answer: Option<Answer>,
    pub session: Session,
    /// The line of the record that settled the decision (1-based).
    pub line: u64,
    /// How the call was rebuilt when it is not the whole call (pi logs one
    /// record per gated unit of a bash command).
    pub note: Option<&'static str>,
    /// The outcome as the log tells it, when that is not one decision
    /// (`ran`: allowed, or approved after an ask — the log cannot tell
    /// which, so neither is claimed).
    pub outcome: Option<&'static str>,
    /// The runtime's id of the call (a tool_use id), when it has one: a
    /// call met again (a resumed session's copy of its history) is
    /// replayed once.
    pub id: Option<String>,
}

impl PastCall {
    /// A call decided `recorded` at `line` of a session, nothing else
    /// known yet.
    pub fn new(
        tool: String,
        input: Value,
        recorded: Decision,
        session: Session,
        line: u64,
    ) -> Self {
        PastCall {
            tool,
            input,
            recorded,
            or: None,
            answer: None,
            session,
            line,
            note: None,
            outcome: None,
            id: None,
        }
    }

    /// A call that ran: allowed, or asked and approved (the log does not
    /// say which).
    pub fn ran(tool: String, input: Value, session: Session, line: u64) -> Self {
        PastCall {
            or: Some(Decision::Ask),
            outcome: Some("ran"),
            ..PastCall::new(tool, input, Decision::Allow, session, line)
        }
    }

    /// The outcome for people: `ran`, or the recorded decision.
    pub fn outcome_label(&self) -> &'static str {
        self.outcome.unwrap_or(self.recorded.as_str())
    }
}

/// What a log reader makes of its records.
// Items are handed on one record's worth at a time: their size is no
// concern, and calls, the common item, would each pay for a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Call(PastCall),
    /// A decision record the reader cannot turn into a call.
    Unrebuildable {
        line: u64,
        why: String,
    },
    /// A tool call that never reached a permission decision (its input
    /// was refused first, or it was interrupted): nothing to replay.
    BeforeDecision {
        line: u64,
        why: String,
    },
    /// A record of an event the reader does not know (a newer runtime's),
    /// by name.
    Unknown {
        line: u64,
        event: String,
    },
}

/// A format's reader of one log file: fed each record in order, it emits
/// the calls once their decision is known. It keeps at most a bounded
/// amount of state (pending calls waiting for their decision).
pub trait LogReader {
    /// The name of the log kind (`pi-permission-system review log`).
    fn kind(&self) -> &'static str;
    /// One JSON record (one line) of the file.
    fn record(&mut self, line: u64, record: &Value, out: &mut Vec<Item>);
    /// The end of the file: whatever is pending.
    fn finish(&mut self, out: &mut Vec<Item>);
}

/// Pending entries a reader keeps at most; older ones are given up (and
/// counted as unrebuildable).
pub const MAX_PENDING: usize = 65_536;

/// Calls a reader waits on for what became of them, by id, in arrival
/// order: at most [`MAX_PENDING`]; when more come the oldest is given up
/// (and reported).
pub struct OpenCalls<P> {
    pending: std::collections::HashMap<String, (u64, P)>,
    order: std::collections::VecDeque<String>,
}

impl<P> Default for OpenCalls<P> {
    fn default() -> Self {
        OpenCalls {
            pending: Default::default(),
            order: Default::default(),
        }
    }
}

impl<P> OpenCalls<P> {
    /// Opens the call `id` of `line`, giving up the oldest open calls
    /// beyond the bound (each reported as unrebuildable, `why`); true when
    /// the arrival list was compacted (ids settled since are forgotten).
    pub fn open(&mut self, id: &str, line: u64, p: P, why: &str, out: &mut Vec<Item>) -> bool {
        let compacted = self.order.len() >= 2 * MAX_PENDING;
        if compacted {
            let pending = &self.pending;
            self.order.retain(|o| pending.contains_key(o));
        }
        while self.pending.len() >= MAX_PENDING {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some((line, _)) = self.pending.remove(&old) {
                out.push(Item::Unrebuildable {
                    line,
                    why: why.to_string(),
                });
            }
        }
        self.order.push_back(id.to_string());
        self.pending.insert(id.to_string(), (line, p));
        compacted
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut P> {
        self.pending.get_mut(id).map(|(_, p)| p)
    }

    pub fn contains(&self, id: &str) -> bool {
        self.pending.contains_key(id)
    }

    /// The call `id` and the line it was opened on, no longer open.
    pub fn take(&mut self, id: &str) -> Option<(u64, P)> {
        self.pending.remove(id)
    }

    /// Every call still open, in arrival order.
    pub fn drain(&mut self) -> Vec<(String, u64, P)> {
        let mut all = Vec::with_capacity(self.pending.len());
        for id in std::mem::take(&mut self.order) {
            if let Some((line, p)) = self.pending.remove(&id) {
                all.push((id, line, p));
            }
        }
        self.pending.clear();
        all
    }
}

/// The longest record read; a longer line is skipped (and counted).
pub const MAX_LINE: usize = 16 << 20;

/// One line of a log, read with a bounded buffer.
pub enum Line {
    Text,
    /// Longer than the cap: its bytes were skipped; the length is given.
    TooLong(usize),
    End,
}

/// Reads the next line into `buf` (without the newline), keeping at most
/// `cap` bytes: a longer line is consumed and reported as too long, never
/// held whole in memory.
pub fn read_line(reader: &mut dyn BufRead, buf: &mut Vec<u8>, cap: usize) -> std::io::Result<Line> {
    buf.clear();
    let mut total = 0usize;
    let mut seen = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(if !seen {
                Line::End
            } else if total > cap {
                Line::TooLong(total)
            } else {
                Line::Text
            });
        }
        seen = true;
        let (part, done) = match memchr(chunk) {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        total += part.len();
        if total <= cap {
            buf.extend_from_slice(part);
        } else if !buf.is_empty() {
            buf.clear();
            buf.shrink_to(4096);
        }
        let used = done.unwrap_or(chunk.len());
        reader.consume(used);
        if done.is_some() {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(if total > cap {
                Line::TooLong(total)
            } else {
                Line::Text
            });
        }
    }
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// A string field of a record (`None` when absent, null or not a string).
pub fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The logs a runtime wrote for the sessions of a project, found where it
/// writes them.
#[derive(Debug, Clone, Default)]
pub struct SessionLogs {
    /// Each log and when it was last written.
    pub files: Vec<(std::path::PathBuf, std::time::SystemTime)>,
    /// Where the runtime writes them (said when none is found).
    pub looked_in: Vec<String>,
}

/// Folders and files looked at at most when finding a project's logs.
pub const MAX_LOG_ENTRIES: usize = 100_000;

/// The regular files named `*.jsonl` under `dir`, `depth` folders deep at
/// most (symlinks are not followed), with their modification times; at
/// most `budget` entries are looked at.
pub fn jsonl_files(
    dir: &std::path::Path,
    depth: usize,
    out: &mut Vec<(std::path::PathBuf, std::time::SystemTime)>,
    budget: &mut usize,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let path = e.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_file() && path.extension().is_some_and(|x| x == "jsonl") {
            out.push((path, meta.modified().unwrap_or(std::time::UNIX_EPOCH)));
        } else if meta.is_dir() && depth > 0 {
            jsonl_files(&path, depth - 1, out, budget);
        }
    }
}

/// Where a suggested rule goes in a config file, as the format writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleText {
    /// The keys leading to the object or array that holds the rule
    /// (`["permission", "bash"]`, `["permissions", "allow"]`).
    pub path: Vec<String>,
    /// The member (`"npm run test *": "allow"`) or array element
    /// (`"Bash(npm run test *)"`) to insert.
    pub item: String,
    /// The rule for people, with where it goes.
    pub display: String,
}

impl RuleText {
    /// A rule as a member `"pattern": "action"` of the object at `path`
    /// (the map formats: pi's and OpenCode's `permission.<surface>`).
    pub fn member(path: &[&str], pattern: &str, action: &str) -> Option<RuleText> {
        let item = format!(
            "{}: {}",
            serde_json::to_string(pattern).ok()?,
            serde_json::to_string(action).ok()?
        );
        Some(RuleText {
            path: path.iter().map(|p| p.to_string()).collect(),
            display: format!("{item} under `{}`", path.join(".")),
            item,
        })
    }
}
