//! Computing and publishing diagnostics. Analysis runs off the handler on a
//! snapshot; a result is published only if its version is still the
//! document's version, under a lock so an older result never lands after a
//! newer one.

use super::convert::to_lsp_range;
use super::session::{DocumentKind, Session, Snapshot};
use crate::analysis::{self, Code, Severity};
use crate::lsp::session::Settings;
use crate::text::LineIndex;
use crate::workspace::{ScopeFileKind, analyse_scope_file};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::Mutex;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag,
    Location, NumberOrString, Uri,
};

/// Last published version per document.
#[derive(Debug, Default)]
pub struct Publisher {
    published: Mutex<HashMap<Uri, i32>>,
}

/// The analysis of a snapshot, as published: the config's tree (JSON
/// files) and the findings, over every scope when other scope files
/// contribute rules (open buffers win over disk).
pub fn analyse(
    snapshot: &Snapshot,
    settings: &Settings,
    open: &dyn Fn(&std::path::Path) -> Option<String>,
) -> (Option<crate::syntax::Node>, Vec<analysis::Diagnostic>) {
    let kind = match snapshot.kind {
        DocumentKind::PiConfig => ScopeFileKind::Config,
        DocumentKind::PiAgent => ScopeFileKind::Agent,
        DocumentKind::Other => return (None, Vec::new()),
    };
    let path = snapshot.uri.to_file_path().map(|p| p.into_owned());
    let cwd = settings.workspace_root.clone().or_else(|| {
        path.as_ref()
            .and_then(|p| p.parent().map(|p| p.to_path_buf()))
    });
    analyse_scope_file(
        kind,
        path.as_deref(),
        cwd.as_deref(),
        &snapshot.text,
        &settings.analysis,
        open,
    )
}

/// The LSP diagnostics of a snapshot.
pub fn compute(
    snapshot: &Snapshot,
    settings: &Settings,
    open: &dyn Fn(&std::path::Path) -> Option<String>,
) -> Vec<Diagnostic> {
    let enc = settings.encoding;
    let text: &str = &snapshot.text;
    if snapshot.kind == DocumentKind::Other {
        return Vec::new();
    }
    let (_, diagnostics) = analyse(snapshot, settings, open);
    let index = LineIndex::new(text);
    let path = snapshot
        .uri
        .to_file_path()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| snapshot.uri.as_str().to_string());
    diagnostics
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
                    message: r.message.clone(),
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
                code_description: docs_uri(d.code.as_str()).map(|href| CodeDescription { href }),
                source: Some("permission-lsp".into()),
                message: d.message.clone(),
                related_information: (!related.is_empty()).then_some(related),
                // Rules that never decide, or whose removal changes nothing,
                // are shown faded.
                tags: matches!(d.code, Code::ShadowedRule | Code::RedundantRule)
                    .then(|| vec![DiagnosticTag::UNNECESSARY]),
                data: None,
            }
        })
        .collect()
}

fn docs_uri(code: &str) -> Option<Uri> {
    format!("https://github.com/permission-lsp/permission-lsp/blob/main/docs/lints/{code}.md")
        .parse()
        .ok()
}

/// Analyses the document's current state and publishes, unless a newer
/// version arrives meanwhile.
pub async fn refresh(client: Client, session: Arc<Session>, publisher: Arc<Publisher>, uri: Uri) {
    let Some(snapshot) = session.snapshot(&uri) else {
        return;
    };
    let settings = session.settings();
    let snap = snapshot.clone();
    let sess = session.clone();
    let computed = tokio::task::spawn_blocking(move || {
        compute(&snap, &settings, &|p: &std::path::Path| {
            sess.open_text_by_path(p)
        })
    })
    .await;
    let Ok(diagnostics) = computed else { return };
    let mut published = publisher.published.lock().await;
    if session.version(&uri) != Some(snapshot.version) {
        return; // stale: a newer version is being analysed
    }
    if published.get(&uri).is_some_and(|v| *v > snapshot.version) {
        return;
    }
    published.insert(uri.clone(), snapshot.version);
    client
        .publish_diagnostics(uri, diagnostics, Some(snapshot.version))
        .await;
}

/// Clears a closed document's diagnostics.
pub async fn clear(client: Client, publisher: Arc<Publisher>, uri: Uri) {
    let mut published = publisher.published.lock().await;
    published.remove(&uri);
    client.publish_diagnostics(uri, Vec::new(), None).await;
}
