//! Replay: every past call of a log decided again with the current policy,
//! streamed (one record in memory at a time, bounded caches), each call
//! whose decision changes handed to a [`Sink`] as it is found.

use super::{Answer, Decision, Item, Line, LogReader, PastCall, Session};
use crate::analysis::report::DecidingRule;
use crate::formats::{CallRequest, Format, Simulator};
use crate::workspace::{Context, Overrides};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// A call whose decision changes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub file: String,
    pub line: u64,
    pub tool: String,
    pub input: Value,
    pub recorded: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<&'static str>,
    pub now: &'static str,
    /// The rule that decides the call now.
    pub rule: Option<DecidingRule>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<&'static str>,
}

/// Where the changes go, as they are found.
pub trait Sink {
    fn change(&mut self, change: &Change);
}

impl<F: FnMut(&Change)> Sink for F {
    fn change(&mut self, change: &Change) {
        self(change)
    }
}

/// A record that could not be replayed, with where it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skipped {
    pub file: String,
    pub line: u64,
    pub why: String,
}

/// One log file's part of the replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileSummary {
    pub file: String,
    /// The log kind (`Claude Code stream-json`), when recognised.
    pub kind: Option<&'static str>,
    pub format: Option<&'static str>,
    pub records: u64,
    pub calls: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How many calls a rule decided, by where it is written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct RuleKey {
    pub surface: String,
    pub pattern: String,
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

/// Skipped records listed at most (all are counted).
pub const MAX_SKIPPED_LISTED: usize = 50;

/// The outcome of a replay.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    pub calls: u64,
    pub changed: u64,
    /// Changed calls by recorded → now (`"deny -> allow"`).
    pub transitions: BTreeMap<String, u64>,
    pub newly_allowed: u64,
    pub newly_asked: u64,
    pub newly_denied: u64,
    /// Decision records that could not be rebuilt into a call (plus lines
    /// that are not JSON, not UTF-8, or too long).
    pub unrebuildable: u64,
    pub skipped: Vec<Skipped>,
    /// Records of events no reader knows, by name.
    pub unknown_events: BTreeMap<String, u64>,
    /// Calls that could not be decided (the policy could not be loaded).
    pub undecided: u64,
    /// Tool calls that never reached a permission decision (refused for
    /// their input first, interrupted): nothing to replay.
    pub before_decision: u64,
    /// Calls met again (a resumed session's copy of earlier records),
    /// replayed once.
    pub repeated: u64,
    /// Calls of sessions in other projects, left out (`project`).
    pub other_projects: u64,
    /// What the reader should know about how calls were decided (a
    /// recorded folder that is not here).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub files: Vec<FileSummary>,
}

impl Summary {
    /// `1,204 calls; 5 change: 3 newly allowed, 2 newly asked`.
    pub fn headline(&self) -> String {
        let mut s = format!(
            "{} call{}; ",
            thousands(self.calls),
            if self.calls == 1 { "" } else { "s" }
        );
        match self.changed {
            0 => s.push_str("none changes"),
            1 => s.push_str("1 changes"),
            n => s.push_str(&format!("{} change", thousands(n))),
        }
        let parts: Vec<String> = [
            (self.newly_allowed, "newly allowed"),
            (self.newly_asked, "newly asked"),
            (self.newly_denied, "newly denied"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{} {what}", thousands(*n)))
        .collect();
        if !parts.is_empty() {
            s.push_str(": ");
            s.push_str(&parts.join(", "));
        }
        if self.unrebuildable > 0 {
            s.push_str(&format!(
                "; {} record{} not replayable",
                thousands(self.unrebuildable),
                if self.unrebuildable == 1 { "" } else { "s" }
            ));
        }
        if self.undecided > 0 {
            s.push_str(&format!("; {} undecided", thousands(self.undecided)));
        }
        if self.before_decision > 0 {
            s.push_str(&format!(
                "; {} ended before any permission decision",
                thousands(self.before_decision)
            ));
        }
        if self.other_projects > 0 {
            s.push_str(&format!(
                "; {} of other projects left out",
                thousands(self.other_projects)
            ));
        }
        s
    }

    fn skip(&mut self, file: &str, line: u64, why: String) {
        self.unrebuildable += 1;
        if self.skipped.len() < MAX_SKIPPED_LISTED {
            self.skipped.push(Skipped {
                file: file.to_string(),
                line,
                why,
            });
        }
    }
}

/// `1204` → `1,204`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A line as read: a record, a line skipped (with why), or the end of
/// reading with an error.
enum Parsed {
    Record(Value),
    Skip(String),
    Failed(String),
}

type Batch = Vec<(u64, Parsed)>;

/// Lines per batch handed from the reading thread.
const BATCH: usize = 512;

/// Reads and parses every line of `reader`, in batches, until the end, an
/// error, or the receiver hangs up.
fn read_records(reader: &mut (dyn BufRead + Send), tx: std::sync::mpsc::SyncSender<Batch>) {
    let mut buf = Vec::new();
    let mut batch: Batch = Vec::with_capacity(BATCH);
    let mut n = 0u64;
    loop {
        let line = match super::read_line(reader, &mut buf, super::MAX_LINE) {
            Ok(l) => l,
            Err(e) => {
                batch.push((
                    n + 1,
                    Parsed::Failed(format!("reading stopped at line {}: {e}", n + 1)),
                ));
                break;
            }
        };
        n += 1;
        let parsed = match line {
            Line::End => break,
            Line::TooLong(len) => {
                Parsed::Skip(format!("a line of {len} bytes (longer than the cap)"))
            }
            Line::Text => {
                if buf.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match std::str::from_utf8(&buf) {
                    Err(_) => Parsed::Skip("not UTF-8".into()),
                    Ok(s) => match serde_json::from_str::<Value>(s) {
                        Ok(v) => Parsed::Record(v),
                        Err(e) => Parsed::Skip(format!("not JSON: {e}")),
                    },
                }
            }
        };
        batch.push((n, parsed));
        if batch.len() >= BATCH
            && tx
                .send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)))
                .is_err()
        {
            return;
        }
    }
    let _ = tx.send(batch);
}

/// Loads the policy of `format` for a recorded session: the recorded
/// working directory, agent and runtime options apply unless given
/// explicitly.
pub fn policy_for(
    ctx: &Context<'_>,
    format: &'static dyn Format,
    session: &Session,
) -> Result<Box<dyn Simulator>, String> {
    let mut c = ctx.with(&Overrides {
        cwd: session
            .cwd
            .as_ref()
            .filter(|_| !ctx.cwd_explicit)
            .map(PathBuf::from),
        agent: session.agent.clone().filter(|_| !ctx.agent_explicit),
        ..Default::default()
    });
    for (k, v) in &session.runtime_args {
        if !c.options.runtime_args.iter().any(|(n, _)| n == k) {
            c.options.runtime_args.push((k.clone(), v.clone()));
        }
    }
    format.simulator(&c)
}

/// Sees each past call before it is decided.
pub type Observer<'a> = dyn FnMut(&'static dyn Format, &PastCall) + 'a;

/// Loads the current policy for a format and a recorded session.
pub type PolicyLoader<'a> =
    dyn FnMut(&'static dyn Format, &Session) -> Result<Box<dyn Simulator>, String> + 'a;

/// Policies kept at once (one per distinct session setting).
const MAX_POLICIES: usize = 64;
/// Decisions remembered (the same call recurs often in real logs).
const MAX_MEMO: usize = 250_000;
/// Records read to recognise a log's kind.
const DETECT_RECORDS: usize = 64;

/// A loaded policy (or why it could not be loaded), with its number.
type Policy = (usize, Result<Box<dyn Simulator>, String>);

/// Decisions by policy and call (`tool`, NUL, the input's JSON), with the
/// deciding rule's number.
type Memo = HashMap<(usize, String), (Decision, Option<usize>)>;

/// The replay of any number of logs against the current policies.
pub struct Replayer<'a> {
    loader: Box<PolicyLoader<'a>>,
    /// Only logs of this format are replayed (`--runtime`).
    pub only: Option<&'static dyn Format>,
    /// Sees every past call before it is decided (rule suggestions).
    pub observer: Option<Box<Observer<'a>>>,
    /// Only calls of sessions in this folder (or below it) are replayed;
    /// calls whose session names no folder are replayed too.
    pub project: Option<PathBuf>,
    /// Call ids met (by format), for the calls a log repeats.
    seen: std::collections::HashSet<(&'static str, String)>,
    /// Recorded folders found missing here (warned about once each).
    missing: std::collections::HashSet<String>,
    policies: HashMap<(&'static str, Session), Policy>,
    next_policy: usize,
    memo: Memo,
    /// Every deciding rule met, and how many calls it decided.
    rules: Vec<(DecidingRule, u64)>,
    rule_ids: HashMap<RuleKey, usize>,
    pub summary: Summary,
}

impl<'a> Replayer<'a> {
    pub fn new(loader: Box<PolicyLoader<'a>>) -> Replayer<'a> {
        Replayer {
            loader,
            only: None,
            observer: None,
            project: None,
            seen: Default::default(),
            missing: Default::default(),
            policies: HashMap::new(),
            next_policy: 0,
            memo: HashMap::new(),
            rules: Vec::new(),
            rule_ids: HashMap::new(),
            summary: Summary::default(),
        }
    }

    /// Every rule that decided a replayed call now, with how many.
    pub fn rule_counts(&self) -> impl Iterator<Item = (&DecidingRule, u64)> {
        self.rules.iter().map(|(r, n)| (r, *n))
    }

    /// Replays one log, streamed.
    pub fn replay(&mut self, file: &str, reader: &mut (dyn BufRead + Send), sink: &mut dyn Sink) {
        let mut fs = FileSummary {
            file: file.to_string(),
            kind: None,
            format: None,
            records: 0,
            calls: 0,
            error: None,
        };
        let mut head: Vec<(u64, Value)> = Vec::new();
        let mut active: Option<(&'static dyn Format, Box<dyn LogReader>)> = None;
        let mut items = Vec::new();
        // Lines are read and parsed on a second thread, in batches, while
        // this one decides (a bounded queue keeps memory bounded).
        let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(4);
        std::thread::scope(|scope| {
            scope.spawn(move || read_records(reader, tx));
            self.consume(file, rx, &mut fs, &mut head, &mut active, &mut items, sink);
        });
        match &mut active {
            Some((format, reader)) => {
                reader.finish(&mut items);
                self.drain(*format, file, &mut items, &mut fs, sink);
            }
            None => {
                if fs.error.is_none() {
                    fs.error = Some(if fs.records == 0 {
                        "not a decision log (no JSON records)".to_string()
                    } else {
                        "not a decision log of a known kind (no format reads its first records)"
                            .to_string()
                    });
                }
            }
        }
        self.summary.files.push(fs);
    }

    #[allow(clippy::too_many_arguments)]
    fn consume(
        &mut self,
        file: &str,
        rx: std::sync::mpsc::Receiver<Batch>,
        fs: &mut FileSummary,
        head: &mut Vec<(u64, Value)>,
        active: &mut Option<(&'static dyn Format, Box<dyn LogReader>)>,
        items: &mut Vec<Item>,
        sink: &mut dyn Sink,
    ) {
        for batch in rx {
            for (n, parsed) in batch {
                let value = match parsed {
                    Parsed::Record(v) => v,
                    Parsed::Skip(why) => {
                        self.summary.skip(file, n, why);
                        continue;
                    }
                    Parsed::Failed(why) => {
                        fs.error = Some(why);
                        return;
                    }
                };
                fs.records += 1;
                match active {
                    Some((format, reader)) => {
                        reader.record(n, &value, items);
                        self.drain(*format, file, items, fs, sink);
                    }
                    None => {
                        let detected = super::detect(&value);
                        head.push((n, value));
                        if let Some((format, reader)) = detected {
                            fs.kind = Some(reader.kind());
                            fs.format = Some(format.id());
                            if let Some(only) = self.only
                                && only.id() != format.id()
                            {
                                fs.error = Some(format!(
                                    "a {} log, not {}'s: not replayed",
                                    format.display_name(),
                                    only.display_name()
                                ));
                                head.clear();
                                return;
                            }
                            let mut reader = reader;
                            for (line, v) in head.drain(..) {
                                reader.record(line, &v, items);
                            }
                            self.drain(format, file, items, fs, sink);
                            *active = Some((format, reader));
                        } else if head.len() >= DETECT_RECORDS {
                            return;
                        }
                    }
                }
            }
        }
    }

    fn drain(
        &mut self,
        format: &'static dyn Format,
        file: &str,
        items: &mut Vec<Item>,
        fs: &mut FileSummary,
        sink: &mut dyn Sink,
    ) {
        for item in items.drain(..) {
            match item {
                Item::Call(call) => {
                    fs.calls += 1;
                    self.decide(format, file, call, sink);
                }
                Item::Unrebuildable { line, why } => self.summary.skip(file, line, why),
                Item::BeforeDecision { .. } => self.summary.before_decision += 1,
                Item::Unknown { event, .. } => {
                    let known = self.summary.unknown_events.len() < 256
                        || self.summary.unknown_events.contains_key(&event);
                    if known {
                        *self.summary.unknown_events.entry(event).or_default() += 1;
                    }
                }
            }
        }
    }

    /// Decides one past call with the current policy.
    pub fn decide(
        &mut self,
        format: &'static dyn Format,
        file: &str,
        call: PastCall,
        sink: &mut dyn Sink,
    ) {
        if let (Some(project), Some(cwd)) = (&self.project, &call.session.cwd)
            && !Path::new(cwd).starts_with(project)
        {
            self.summary.other_projects += 1;
            return;
        }
        if let Some(id) = &call.id {
            if self.seen.len() >= MAX_MEMO {
                self.seen.clear();
            }
            if !self.seen.insert((format.id(), id.clone())) {
                self.summary.repeated += 1;
                return;
            }
        }
        self.summary.calls += 1;
        if let Some(o) = &mut self.observer {
            o(format, &call);
        }
        let key = (format.id(), call.session.clone());
        if !self.policies.contains_key(&key) {
            if self.policies.len() >= MAX_POLICIES {
                self.policies.clear();
                self.memo.clear();
            }
            let mut session = call.session.clone();
            if let Some(cwd) = &session.cwd
                && !Path::new(cwd).is_dir()
            {
                if self.missing.len() < 64 && self.missing.insert(cwd.clone()) {
                    self.summary.warnings.push(format!(
                        "{file}:{}: the session's folder {cwd} is not here: its calls are decided in this replay's folder, against a different project than the one they were made in",
                        call.line
                    ));
                }
                session.cwd = None;
            }
            let loaded = (self.loader)(format, &session);
            self.next_policy += 1;
            self.policies
                .insert(key.clone(), (self.next_policy, loaded));
        }
        let (policy_id, simulator) = &self.policies[&key];
        let simulator = match simulator {
            Ok(s) => s,
            Err(e) => {
                self.summary.undecided += 1;
                if self.summary.undecided == 1 {
                    self.summary.skip(
                        file,
                        call.line,
                        format!("the policy could not be loaded: {e}"),
                    );
                }
                return;
            }
        };
        let mut key = String::with_capacity(call.tool.len() + 64);
        key.push_str(&call.tool);
        key.push('\0');
        key.push_str(&call.input.to_string());
        let memo_key = (*policy_id, key);
        let (now, rule_id) = match self.memo.get(&memo_key) {
            Some(hit) => *hit,
            None => {
                let report = simulator.simulate(&CallRequest {
                    tool: call.tool.clone(),
                    input: call.input.clone(),
                });
                let now = format.decision_as_logged(&report);
                let id = report.rule.map(|r| {
                    let k = RuleKey {
                        surface: r.surface.clone(),
                        pattern: r.pattern.clone(),
                        file: r.place.file.clone(),
                        line: r.place.line,
                        column: r.place.column,
                    };
                    *self.rule_ids.entry(k).or_insert_with(|| {
                        self.rules.push((r, 0));
                        self.rules.len() - 1
                    })
                });
                if self.memo.len() >= MAX_MEMO {
                    self.memo.clear();
                }
                self.memo.insert(memo_key, (now, id));
                (now, id)
            }
        };
        if let Some(id) = rule_id {
            self.rules[id].1 += 1;
        }
        if now == call.recorded || Some(now) == call.or {
            return;
        }
        let rule = rule_id.map(|id| self.rules[id].0.clone());
        self.summary.changed += 1;
        *self
            .summary
            .transitions
            .entry(format!("{} -> {}", call.outcome_label(), now.as_str()))
            .or_default() += 1;
        match now {
            Decision::Allow => self.summary.newly_allowed += 1,
            Decision::Ask => self.summary.newly_asked += 1,
            Decision::Deny => self.summary.newly_denied += 1,
        }
        let recorded = call.outcome_label();
        sink.change(&Change {
            file: file.to_string(),
            line: call.line,
            tool: call.tool,
            input: call.input,
            recorded,
            answer: call.answer.map(Answer::as_str),
            now: now.as_str(),
            rule,
            cwd: call.session.cwd,
            note: call.note,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1204), "1,204");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }

    #[test]
    fn headline_names_each_kind_of_change() {
        let s = Summary {
            calls: 1204,
            changed: 5,
            newly_allowed: 3,
            newly_asked: 2,
            ..Default::default()
        };
        assert_eq!(
            s.headline(),
            "1,204 calls; 5 change: 3 newly allowed, 2 newly asked"
        );
        let one = Summary {
            calls: 1,
            changed: 1,
            newly_denied: 1,
            unrebuildable: 2,
            ..Default::default()
        };
        assert_eq!(
            one.headline(),
            "1 call; 1 changes: 1 newly denied; 2 records not replayable"
        );
    }
}
