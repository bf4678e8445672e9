//! Computing and publishing diagnostics. Analysis runs on a snapshot in a
//! task of its own (on the blocking pool for documents over 16 KB); a result
//! is published only if its version is still the document's version, under
//! a lock so an older result never lands after a newer one.

use super::convert::to_lsp_range;
use super::session::{Session, Snapshot};
use crate::analysis::Severity;
use crate::formats::Analysis;
use crate::lsp::session::Settings;
use crate::text::LineIndex;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::Mutex;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag,
    Location, NumberOrString, Uri,
};

/// Documents up to this size are analysed on the async worker itself.
const INLINE_ANALYSIS_BYTES: usize = 16 * 1024;

/// What was published per document, and which analyses are running.
#[derive(Debug, Default)]
pub struct Publisher {
    /// The (version, session generation, with the history findings) last
    /// published per document.
    published: Mutex<HashMap<Uri, (i32, u64, bool)>>,
    /// Documents with an analysis in flight; `true`: another refresh was
    /// asked for meanwhile and runs when this one ends (newest state).
    running: std::sync::Mutex<HashMap<Uri, bool>>,
}

impl Publisher {
    /// Claims the document's analysis slot; `false` when an analysis is
    /// already running (it is told to run once more when it ends).
    fn claim(&self, uri: &Uri) -> bool {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        match running.get_mut(uri) {
            Some(again) => {
                *again = true;
                false
            }
            None => {
                running.insert(uri.clone(), false);
                true
            }
        }
    }

    /// Ends a run: `true` when a refresh came in meanwhile (run again,
    /// keeping the slot), else the slot is released.
    fn rerun(&self, uri: &Uri) -> bool {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        match running.get_mut(uri) {
            Some(again) if *again => {
                *again = false;
                true
            }
            _ => {
                running.remove(uri);
                false
            }
        }
    }
}

/// The resolved context of a document: the one resolver, with the
/// session's settings and open buffers.
pub fn context<'a>(
    settings: &Settings,
    uri: &Uri,
    overrides: &crate::workspace::Overrides,
    open: &'a dyn Fn(&std::path::Path) -> Option<String>,
) -> crate::workspace::Context<'a> {
    let path = uri.to_file_path().map(|p| p.into_owned());
    crate::workspace::resolve(
        &settings.analysis,
        settings.workspace_root.as_deref(),
        path.as_deref(),
        overrides,
        Some(open),
    )
}

/// The analysis of a snapshot, over every scope when other scope files
/// contribute rules (open buffers win over disk): from the cache when the
/// document and the session have not changed since, else computed and
/// cached. `None` for a document that is no permission config.
pub fn analysis(
    session: &Session,
    snapshot: &Snapshot,
    settings: &Settings,
) -> Option<Arc<Analysis>> {
    let kind = snapshot.kind?;
    if let Some(a) = session.cached_analysis(snapshot) {
        return Some(a);
    }
    // One analysis of a document at a time: whoever comes second waits and
    // usually finds the result cached.
    let lock = session.computing_lock(&snapshot.uri);
    let _held = lock.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(a) = session.cached_analysis(snapshot) {
        return Some(a);
    }
    let open = |p: &std::path::Path| session.open_text_by_path(p);
    let ctx = context(settings, &snapshot.uri, &Default::default(), &open);
    let a = Arc::new(kind.format.analyse(kind.role, &snapshot.text, &ctx));
    session.store_analysis(snapshot, a.clone());
    Some(a)
}

/// The LSP diagnostics of a snapshot; `history`: the replay of the logs
/// for it, when done (the history findings come from it).
pub fn compute(
    session: &Session,
    snapshot: &Snapshot,
    settings: &Settings,
    history: Option<&crate::lsp::history::View>,
) -> Vec<Diagnostic> {
    let enc = settings.encoding;
    let text: &str = &snapshot.text;
    let Some(analysis) = analysis(session, snapshot, settings) else {
        return Vec::new();
    };
    let diagnostics = &analysis.diagnostics;
    let index = LineIndex::new(text);
    let path = snapshot
        .uri
        .to_file_path()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| snapshot.uri.as_str().to_string());
    let mut out: Vec<Diagnostic> = diagnostics
        .iter()
        .map(|d| {
            let range = to_lsp_range(text, &index, &d.range, enc);
            let mut related: Vec<DiagnosticRelatedInformation> = d
                .related
                .iter()
                .map(|r| DiagnosticRelatedInformation {
                    location: Location::new(
                        snapshot.uri.clone(),
                        to_lsp_range(text, &index, &r.range, enc),
                    ),
                    message: r.message.to_string(),
                })
                .collect();
            if let Some(issue) = &d.runtime_issue {
                related.insert(
                    0,
                    DiagnosticRelatedInformation {
                        location: Location::new(snapshot.uri.clone(), range),
                        message: format!("runtime: {}", issue.replace("<path>", &path)),
                    },
                );
            }
            Diagnostic {
                range,
                severity: Some(match d.severity {
                    Severity::Error => DiagnosticSeverity::ERROR,
                    Severity::Warning => DiagnosticSeverity::WARNING,
                    Severity::Info => DiagnosticSeverity::INFORMATION,
                    Severity::Hint => DiagnosticSeverity::HINT,
                }),
                code: Some(NumberOrString::String(d.code.as_str().to_string())),
                code_description: docs_uri(d.code).map(|href| CodeDescription { href }),
                source: Some("permission-lsp".into()),
                message: d.message.clone(),
                related_information: (!related.is_empty()).then_some(related),
                // Rules that never decide, or whose removal changes nothing,
                // are shown faded.
                tags: d
                    .code
                    .unnecessary()
                    .then(|| vec![DiagnosticTag::UNNECESSARY]),
                // The quick fixes, as data (byte offsets of this version).
                data: (!d.fixes.is_empty())
                    .then(|| serde_json::json!({ "version": snapshot.version, "fixes": d.fixes })),
            }
        })
        .collect();
    if settings.history.unused_rules
        && let Some(view) = history
    {
        out.extend(unused_in_history(
            session, snapshot, settings, view, &index, &path,
        ));
    }
    out
}

/// The code of the history finding, and its page.
pub const UNUSED_IN_HISTORY: &str = "unused-in-history";

/// Rules of this document that decided none of the replayed past calls
/// (info; with `permissionLsp.history.unusedRules`).
fn unused_in_history(
    session: &Session,
    snapshot: &Snapshot,
    settings: &Settings,
    view: &crate::lsp::history::View,
    index: &LineIndex,
    path: &str,
) -> Vec<Diagnostic> {
    let Some(kind) = snapshot.kind else {
        return Vec::new();
    };
    if view.summary.calls == 0 {
        return Vec::new();
    }
    let open = |p: &std::path::Path| session.open_text_by_path(p);
    let ctx = context(settings, &snapshot.uri, &Default::default(), &open);
    let Ok(policy) = kind.format.effective_policy(&ctx) else {
        return Vec::new();
    };
    let text: &str = &snapshot.text;
    let mut seen = std::collections::HashSet::new();
    policy
        .rules
        .iter()
        .filter(|r| r.place.file.as_deref() == Some(path))
        .filter_map(|r| {
            let (line, column) = (r.place.line?, r.place.column.unwrap_or(1));
            if !seen.insert((line, column))
                || view.counts.contains_key(&(path.to_string(), line, column))
            {
                return None;
            }
            let lr = index.line_range(text, line.checked_sub(1)?);
            let start = lr.start
                + text[lr.clone()]
                    .char_indices()
                    .nth(column.saturating_sub(1))
                    .map_or(lr.len(), |(i, _)| i);
            let end = text[start..]
                .find(['\n', ','])
                .map_or(text.len(), |e| start + e)
                .max(start + 1)
                .min(text.len());
            Some(Diagnostic {
                range: to_lsp_range(text, index, &(start..end), settings.encoding),
                severity: Some(DiagnosticSeverity::INFORMATION),
                code: Some(NumberOrString::String(UNUSED_IN_HISTORY.into())),
                code_description: docs_href(&format!("docs/lints/history/{UNUSED_IN_HISTORY}.md"))
                    .map(|href| CodeDescription { href }),
                source: Some("permission-lsp".into()),
                message: format!(
                    "`{}` decided none of the {} past calls replayed from the configured logs",
                    r.pattern,
                    crate::history::replay::thousands(view.summary.calls)
                ),
                related_information: None,
                tags: None,
                data: None,
            })
        })
        .collect()
}

fn docs_uri(code: crate::analysis::DiagnosticCode) -> Option<Uri> {
    docs_href(&code.docs_path())
}

/// The page of a docs file of the repository.
fn docs_href(path: &str) -> Option<Uri> {
    format!("https://github.com/permission-lsp/permission-lsp/blob/main/{path}")
        .parse()
        .ok()
}

/// Analyses the document's current state and publishes, unless a newer
/// version arrives meanwhile. At most one analysis per document runs at a
/// time: refreshes asked for while one runs are coalesced into one more
/// run on the newest state when it ends, so fast typing never stacks up
/// analyses of superseded versions.
pub async fn refresh(client: Client, session: Arc<Session>, publisher: Arc<Publisher>, uri: Uri) {
    if !publisher.claim(&uri) {
        return;
    }
    loop {
        refresh_once(&client, &session, &publisher, &uri).await;
        if !publisher.rerun(&uri) {
            break;
        }
    }
}

async fn refresh_once(
    client: &Client,
    session: &Arc<Session>,
    publisher: &Arc<Publisher>,
    uri: &Uri,
) {
    let Some(snapshot) = session.snapshot(uri) else {
        return;
    };
    let settings = session.settings();
    // The history findings wait for the replay of the logs, which runs in
    // the background: published now without them, again when it is done.
    // (Only a replay that is done: diagnostics never wait for one.)
    let history = settings
        .history
        .unused_rules
        .then(|| crate::lsp::history::view_ready(&snapshot, &settings))
        .flatten();
    let history_pending = settings.history.unused_rules
        && !settings.history.logs.is_empty()
        && snapshot.kind.is_some()
        && history.is_none();
    let snap = snapshot.clone();
    let sess = session.clone();
    // A small document is analysed in place (well under a millisecond:
    // a hop to the blocking pool would cost more than the work); a larger
    // one off the async workers.
    let diagnostics = if snap.text.len() <= INLINE_ANALYSIS_BYTES {
        compute(&sess, &snap, &settings, history.as_deref())
    } else {
        let set = settings.clone();
        match tokio::task::spawn_blocking(move || compute(&sess, &snap, &set, history.as_deref()))
            .await
        {
            Ok(d) => d,
            Err(_) => return,
        }
    };
    let mut published = publisher.published.lock().await;
    if session.version(uri) != Some(snapshot.version) {
        return; // stale: the newer version gets its own run
    }
    let this = (snapshot.version, snapshot.generation, !history_pending);
    // (Out already: a newer version, or this state with at least as much.)
    if published
        .get(uri)
        .is_some_and(|v| v.0 > this.0 || (v.0 == this.0 && v.1 == this.1 && (v.2 || !this.2)))
    {
        return; // newer already out, or this very state already published
    }
    published.insert(uri.clone(), this);
    drop(published);
    client
        .publish_diagnostics(uri.clone(), diagnostics, Some(snapshot.version))
        .await;
    if history_pending {
        let (client, session, uri) = (client.clone(), session.clone(), uri.clone());
        let publisher = publisher.clone();
        tokio::spawn(async move {
            let (s, snap, set) = (session.clone(), snapshot.clone(), settings.clone());
            let replayed = tokio::task::spawn_blocking(move || {
                crate::lsp::history::view(&s, &snap, &set).is_some()
            })
            .await
            .unwrap_or(false);
            // (Superseded meanwhile: the newer state's refresh publishes.)
            if replayed && session.version(&uri) == Some(snapshot.version) {
                refresh_later(client, session, publisher, uri);
            }
        });
    }
}

/// Starts a refresh from a task a refresh started (a plain function: the
/// task's future does not contain the refresh's own).
fn refresh_later(client: Client, session: Arc<Session>, publisher: Arc<Publisher>, uri: Uri) {
    tokio::spawn(refresh(client, session, publisher, uri));
}

/// Clears a closed document's diagnostics.
pub async fn clear(client: Client, publisher: Arc<Publisher>, uri: Uri) {
    let mut published = publisher.published.lock().await;
    published.remove(&uri);
    client.publish_diagnostics(uri, Vec::new(), None).await;
}
