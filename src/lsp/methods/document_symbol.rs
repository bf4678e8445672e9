//! `textDocument/documentSymbol`: surfaces and their rules for the outline.

use crate::ide::symbols::{Symbol, SymbolKind};
use crate::lsp::convert::to_lsp_range;
use crate::lsp::diagnostics::analysis;
use crate::lsp::server::Server;
use crate::text::{LineIndex, PositionEncoding};
use tower_lsp_server::ls_types::{DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse};

pub fn handle(server: &Server, params: DocumentSymbolParams) -> Option<DocumentSymbolResponse> {
    let session = &server.session;
    let snapshot = session.snapshot(&params.text_document.uri)?;
    let kind = snapshot.kind?;
    let settings = session.settings();
    let analysis = analysis(session, &snapshot, &settings)?;
    let text: &str = &snapshot.text;
    let index = LineIndex::new(text);
    let symbols = kind
        .format
        .symbols(kind.role, &analysis)
        .into_iter()
        .map(|s| convert(text, &index, settings.encoding, s))
        .collect();
    Some(DocumentSymbolResponse::Nested(symbols))
}

#[allow(deprecated)]
fn convert(text: &str, index: &LineIndex, enc: PositionEncoding, s: Symbol) -> DocumentSymbol {
    DocumentSymbol {
        name: if s.name.is_empty() {
            "\"\"".into()
        } else {
            s.name
        },
        detail: s.detail,
        kind: match s.kind {
            SymbolKind::Key => tower_lsp_server::ls_types::SymbolKind::PROPERTY,
            SymbolKind::Surface => tower_lsp_server::ls_types::SymbolKind::NAMESPACE,
            SymbolKind::Rule => tower_lsp_server::ls_types::SymbolKind::KEY,
        },
        tags: None,
        deprecated: None,
        range: to_lsp_range(text, index, &s.range, enc),
        selection_range: to_lsp_range(text, index, &s.selection, enc),
        children: (!s.children.is_empty()).then(|| {
            s.children
                .into_iter()
                .map(|c| convert(text, index, enc, c))
                .collect()
        }),
    }
}
