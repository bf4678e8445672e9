//! `textDocument/documentSymbol`: surfaces and their rules for the outline.

use crate::ide::symbols::{Symbol, SymbolKind, document_symbols};
use crate::lsp::convert::to_lsp_range;
use crate::lsp::server::Server;
use crate::lsp::session::DocumentKind;
use crate::model::pi::read::read_config;
use crate::text::{LineIndex, PositionEncoding};
use tower_lsp_server::ls_types::{DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse};

pub fn handle(server: &Server, params: DocumentSymbolParams) -> Option<DocumentSymbolResponse> {
    let snapshot = server.session.snapshot(&params.text_document.uri)?;
    if snapshot.kind != DocumentKind::PiConfig {
        return None;
    }
    let settings = server.session.settings();
    let text: &str = &snapshot.text;
    let file = read_config(text, settings.analysis.target);
    let root = file.parsed.root.as_ref()?;
    let index = LineIndex::new(text);
    let symbols = document_symbols(root)
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
