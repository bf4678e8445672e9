//! The editor's view of history: the logs named in the settings replayed
//! against the open (unsaved) config, and the config compared with its
//! text at git's HEAD. Both are cached per document version and session
//! generation (and the logs' sizes and times), so lenses, hovers and
//! diagnostics share one computation.
//!
//! Settings (`permissionLsp.history`):
//! ```json
//! { "logs": ["~/.pi/agent/extensions/pi-permission-system/logs/*.jsonl", "logs/**/*.jsonl"],
//!   "unusedRules": false, "maxBytes": 33554432 }
//! ```

use crate::history::replay::{Change, Replayer, Summary};
use crate::lsp::diagnostics::context;
use crate::lsp::session::{Session, Settings, Snapshot};
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, Seek};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

/// The history settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistorySettings {
    /// Log files, as paths or globs (`*`, `?`, `**`; `~/` is the home;
    /// relative ones are under the workspace root).
    pub logs: Vec<String>,
    /// Mark rules that decided none of the replayed calls (info).
    pub unused_rules: bool,
    /// The end of each log read at most (older records are left out).
    pub max_bytes: u64,
}

impl Default for HistorySettings {
    fn default() -> Self {
        HistorySettings {
            logs: Vec::new(),
            unused_rules: false,
            max_bytes: 32 << 20,
        }
    }
}

/// Applies `permissionLsp.history`; returns the problems found.
pub fn apply(settings: &mut HistorySettings, value: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let v = value.get("permissionLsp").unwrap_or(value);
    let Some(h) = v.get("history") else {
        return problems;
    };
    if let Some(logs) = h.get("logs") {
        match logs.as_array() {
            Some(a) => {
                settings.logs = a
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|s| !s.trim().is_empty())
                    .take(64)
                    .map(String::from)
                    .collect();
            }
            None => problems.push("history.logs: a list of paths or globs is expected".into()),
        }
    }
    if let Some(b) = h.get("unusedRules").and_then(Value::as_bool) {
        settings.unused_rules = b;
    }
    if let Some(n) = h.get("maxBytes").and_then(Value::as_u64) {
        settings.max_bytes = n.clamp(1 << 10, 1 << 30);
    }
    problems
}

/// Files matched at most, and directory entries looked at.
const MAX_FILES: usize = 64;
const MAX_ENTRIES: usize = 20_000;

/// The log files the globs name (regular files only, sorted, bounded).
pub fn log_files(globs: &[String], root: Option<&Path>, home: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut budget = MAX_ENTRIES;
    for g in globs {
        let g = match g.strip_prefix("~/") {
            Some(rest) => format!("{}/{rest}", home.trim_end_matches('/')),
            None => g.clone(),
        };
        let path = PathBuf::from(&g);
        let path = match (path.is_absolute(), root) {
            (true, _) => path,
            (false, Some(r)) => r.join(path),
            (false, None) => continue,
        };
        let parts: Vec<String> = path
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let start = PathBuf::from(&parts[0]);
        walk(&start, &parts[1..], &mut out, &mut budget);
    }
    out.sort();
    out.dedup();
    out.truncate(MAX_FILES);
    out
}

fn walk(dir: &Path, rest: &[String], out: &mut Vec<PathBuf>, budget: &mut usize) {
    if out.len() >= MAX_FILES || *budget == 0 {
        return;
    }
    let Some((part, more)) = rest.split_first() else {
        if std::fs::metadata(dir).is_ok_and(|m| m.is_file()) {
            out.push(dir.to_path_buf());
        }
        return;
    };
    if part == "**" {
        // Here, or any folder below.
        walk(dir, more, out, budget);
        for e in entries(dir, budget) {
            if e.is_dir() && !e.is_symlink() {
                walk(&e, rest, out, budget);
            }
        }
        return;
    }
    if !part.contains(['*', '?']) {
        walk(&dir.join(part), more, out, budget);
        return;
    }
    let pattern = crate::core::pattern_algebra::Pattern::from_expanded(part);
    for e in entries(dir, budget) {
        let name = e.file_name().map(|n| n.to_string_lossy().into_owned());
        if name.is_some_and(|n| !n.starts_with('.') && pattern.is_match(&n)) {
            walk(&e, more, out, budget);
        }
    }
}

fn entries(dir: &Path, budget: &mut usize) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v = Vec::new();
    for e in rd.flatten() {
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        v.push(e.path());
    }
    v.sort();
    v
}

/// What the replay of the configured logs found for a document.
#[derive(Default)]
pub struct View {
    pub summary: Summary,
    /// Calls decided now, by the deciding rule's file, line and column.
    pub counts: HashMap<(String, usize, usize), u64>,
    /// The first changed calls (the lens's list).
    pub changes: Vec<Change>,
    pub files: Vec<PathBuf>,
    /// The approvals and refusals seen (rule suggestions are placed from
    /// them only when code actions are asked for).
    pub approvals: crate::history::suggest::Collector,
}

/// Changed calls kept for the list.
const MAX_LISTED: usize = 1000;

type Cache = Mutex<HashMap<String, (u64, Arc<View>)>>;

fn cache() -> &'static Cache {
    static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// A replay in progress for a document: the state it is for, a flag that
/// stops it when a newer state's replay starts, and where its result goes
/// (every request for the same state waits for this one run).
struct Flight {
    key: u64,
    cancel: Arc<AtomicBool>,
    done: Arc<Outcome>,
}

/// A replay's result once it ends (`Some(None)`: stopped, or no result),
/// and the signal that it did.
type Outcome = (Mutex<Option<Option<Arc<View>>>>, Condvar);

fn flights() -> &'static Mutex<HashMap<String, Flight>> {
    static FLIGHTS: std::sync::OnceLock<Mutex<HashMap<String, Flight>>> =
        std::sync::OnceLock::new();
    FLIGHTS.get_or_init(Default::default)
}

/// A log read that ends (as at the end of the file) once its replay is
/// superseded.
struct Cancellable<R> {
    inner: R,
    cancel: Arc<AtomicBool>,
}

impl<R: std::io::Read> std::io::Read for Cancellable<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.cancel.load(Ordering::Relaxed) {
            return Ok(0);
        }
        self.inner.read(buf)
    }
}

/// The configured log files and the state a replay of them for this
/// document is for; `None` without logs.
fn logs_state(snapshot: &Snapshot, settings: &Settings) -> Option<(Vec<PathBuf>, u64)> {
    let h = &settings.history;
    if h.logs.is_empty() {
        return None;
    }
    let files = log_files(
        &h.logs,
        settings.workspace_root.as_deref(),
        &settings.analysis.home,
    );
    let key = state_key(snapshot, h, &files);
    Some((files, key))
}

/// The state of the logs and the document a replay is for.
fn state_key(snapshot: &Snapshot, h: &HistorySettings, files: &[PathBuf]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (snapshot.version, snapshot.generation, h.max_bytes).hash(&mut hasher);
    for f in files {
        f.hash(&mut hasher);
        if let Ok(m) = std::fs::metadata(f) {
            m.len().hash(&mut hasher);
            m.modified().ok().hash(&mut hasher);
        }
    }
    hasher.finish()
}

/// Replays started and replays that ran to the end, per document (the
/// server's own account of the work the history costs: superseded states
/// are stopped, concurrent requests share one run).
pub fn replay_counts(uri: &str) -> (usize, usize) {
    counts()
        .lock()
        .ok()
        .and_then(|c| c.get(uri).copied())
        .unwrap_or_default()
}

fn counts() -> &'static Mutex<HashMap<String, (usize, usize)>> {
    static COUNTS: std::sync::OnceLock<Mutex<HashMap<String, (usize, usize)>>> =
        std::sync::OnceLock::new();
    COUNTS.get_or_init(Default::default)
}

fn count(uri: &str, finished: bool) {
    if let Ok(mut c) = counts().lock() {
        if c.len() > 1024 {
            c.clear();
        }
        let e = c.entry(uri.to_string()).or_default();
        if finished {
            e.1 += 1;
        } else {
            e.0 += 1;
        }
    }
}

/// The replay of the document's current state when it is done already
/// (never waits); `None` without logs or while it runs.
pub fn view_ready(snapshot: &Snapshot, settings: &Settings) -> Option<Arc<View>> {
    snapshot.kind?;
    let (_, key) = logs_state(snapshot, settings)?;
    let cached = cache().lock().ok()?;
    cached
        .get(snapshot.uri.as_str())
        .filter(|(k, _)| *k == key)
        .map(|(_, v)| v.clone())
}

/// The replay of the configured logs against the document's policy (its
/// unsaved text and the other open buffers); `None` without logs, or when
/// a newer state of the document superseded this one meanwhile. One replay
/// runs per document state — concurrent requests (lenses, hover,
/// diagnostics) wait for it and share its result — and a replay still
/// running for an older state is stopped.
pub fn view(session: &Session, snapshot: &Snapshot, settings: &Settings) -> Option<Arc<View>> {
    snapshot.kind?;
    let (files, key) = logs_state(snapshot, settings)?;
    let id = snapshot.uri.as_str().to_string();
    if let Some((k, v)) = cache().lock().ok()?.get(&id)
        && *k == key
    {
        return Some(v.clone());
    }
    let (done, cancel, mine) = {
        let mut f = flights().lock().ok()?;
        match f.get(&id) {
            Some(fl) if fl.key == key => (fl.done.clone(), fl.cancel.clone(), false),
            other => {
                if let Some(old) = other {
                    old.cancel.store(true, Ordering::Relaxed);
                }
                let fl = Flight {
                    key,
                    cancel: Arc::default(),
                    done: Arc::default(),
                };
                let out = (fl.done.clone(), fl.cancel.clone(), true);
                f.insert(id.clone(), fl);
                out
            }
        }
    };
    if !mine {
        let (lock, ready) = &*done;
        let mut slot = lock.lock().ok()?;
        while slot.is_none() {
            slot = ready.wait(slot).ok()?;
        }
        return slot.clone().flatten();
    }
    count(&id, false);
    // A replay that panics answers nothing (and frees its waiters).
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        replay_view(session, snapshot, settings, files, &cancel)
    }))
    .ok()
    .flatten();
    if result.is_some() {
        count(&id, true);
    }
    if let Some(v) = &result
        && let Ok(mut c) = cache().lock()
    {
        if c.len() > 64 {
            c.clear();
        }
        c.insert(id.clone(), (key, v.clone()));
    }
    if let Ok(mut f) = flights().lock()
        && f.get(&id).is_some_and(|fl| fl.key == key)
    {
        f.remove(&id);
    }
    let (lock, ready) = &*done;
    if let Ok(mut slot) = lock.lock() {
        *slot = Some(result.clone());
    }
    ready.notify_all();
    result
}

/// One replay of the logs; `None` when stopped.
fn replay_view(
    session: &Session,
    snapshot: &Snapshot,
    settings: &Settings,
    files: Vec<PathBuf>,
    cancel: &Arc<AtomicBool>,
) -> Option<Arc<View>> {
    let kind = snapshot.kind?;
    let h = &settings.history;
    let open = |p: &Path| session.open_text_by_path(p);
    let ctx = context(settings, &snapshot.uri, &Default::default(), &open);
    let collector = std::cell::RefCell::new(crate::history::suggest::Collector::default());
    let mut replayer = Replayer::new(Box::new(|f: &'static dyn crate::formats::Format, s: &_| {
        crate::history::replay::policy_for(&ctx, f, s)
    }));
    replayer.only = Some(kind.format);
    replayer.observer = Some(Box::new(|f, call| collector.borrow_mut().add(f, call)));
    let mut changes = Vec::new();
    for f in &files {
        let Ok((mut file, _)) = crate::fsio::open(f, false) else {
            continue;
        };
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        // Only the end of a long log: the newest records.
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let mut skip_partial = false;
        if len > h.max_bytes
            && file
                .seek(std::io::SeekFrom::Start(len - h.max_bytes))
                .is_ok()
        {
            skip_partial = true;
        }
        let mut reader = std::io::BufReader::with_capacity(
            1 << 16,
            Cancellable {
                inner: file,
                cancel: cancel.clone(),
            },
        );
        if skip_partial {
            let mut scratch = Vec::new();
            let _ = reader.read_until(b'\n', &mut scratch);
        }
        let mut sink = |c: &Change| {
            if changes.len() < MAX_LISTED {
                changes.push(c.clone());
            }
        };
        replayer.replay(&f.display().to_string(), &mut reader, &mut sink);
    }
    let counts = replayer
        .rule_counts()
        .filter_map(|(r, n)| {
            Some((
                (
                    r.place.file.clone()?,
                    r.place.line?,
                    r.place.column.unwrap_or(1),
                ),
                n,
            ))
        })
        .collect();
    let summary = std::mem::take(&mut replayer.summary);
    drop(replayer);
    if cancel.load(Ordering::Relaxed) {
        // Stopped part-way: not the replay of anything.
        return None;
    }
    Some(Arc::new(View {
        summary,
        counts,
        changes,
        files,
        approvals: collector.into_inner(),
    }))
}

/// The comparison of the document with its text at HEAD (`None` when it
/// is not in git or has no earlier version).
pub fn head_diff(
    session: &Session,
    snapshot: &Snapshot,
    settings: &Settings,
) -> Option<Arc<crate::analysis::compare::Comparison>> {
    type DiffCache =
        Mutex<HashMap<String, (u64, Option<Arc<crate::analysis::compare::Comparison>>)>>;
    static CACHE: std::sync::OnceLock<DiffCache> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let kind = snapshot.kind?;
    let path = snapshot.uri.to_file_path()?.into_owned();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    (snapshot.version, snapshot.generation).hash(&mut hasher);
    let key = hasher.finish();
    let id = snapshot.uri.as_str().to_string();
    if let Some((k, v)) = cache.lock().ok()?.get(&id)
        && *k == key
    {
        return v.clone();
    }
    let open = |p: &Path| session.open_text_by_path(p);
    let ctx = context(settings, &snapshot.uri, &Default::default(), &open);
    // A file with no version at HEAD (new, or not in git) gets no lens.
    let result = crate::analysis::compare::compare(
        kind.format,
        &ctx,
        Some(&path),
        &crate::analysis::compare::Base::Rev("HEAD".into()),
    )
    .ok()
    .filter(|c| c.files.iter().all(|f| f.status != "new"))
    .map(Arc::new);
    if let Ok(mut c) = cache.lock() {
        if c.len() > 64 {
            c.clear();
        }
        c.insert(id, (key, result.clone()));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_and_globs() {
        let mut s = HistorySettings::default();
        let p = apply(
            &mut s,
            &serde_json::json!({"permissionLsp": {"history": {"logs": ["a/*.jsonl", ""], "unusedRules": true, "maxBytes": 5}}}),
        );
        assert!(p.is_empty());
        assert_eq!(s.logs, vec!["a/*.jsonl".to_string()]);
        assert!(s.unused_rules);
        assert_eq!(s.max_bytes, 1 << 10);
        assert!(!apply(&mut s, &serde_json::json!({"history": {"logs": "x"}})).is_empty());

        let root =
            std::env::temp_dir().join(format!("permission-lsp-globs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for f in [
            "logs/a.jsonl",
            "logs/b.txt",
            "logs/deep/c.jsonl",
            "home/.pi/r.jsonl",
        ] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        let home = root.join("home").display().to_string();
        let got = log_files(
            &[
                "logs/*.jsonl".into(),
                "logs/**/*.jsonl".into(),
                "~/.pi/r.jsonl".into(),
            ],
            Some(&root),
            &home,
        );
        let names: Vec<String> = got
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        assert_eq!(
            names,
            ["home/.pi/r.jsonl", "logs/a.jsonl", "logs/deep/c.jsonl"]
        );
        let _ = std::fs::remove_dir_all(&root);
    }
}
