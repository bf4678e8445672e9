//! `textDocument/didOpen`.

use crate::lsp::server::Server;
use tower_lsp_server::ls_types::DidOpenTextDocumentParams;

pub fn handle(server: &Server, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    server
        .session
        .open(doc.uri.clone(), &doc.text, doc.version, doc.language_id);
    server.schedule_refresh(doc.uri);
}
