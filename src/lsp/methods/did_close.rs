//! `textDocument/didClose`: forget the buffer and clear its diagnostics.

use crate::lsp::server::Server;
use tower_lsp_server::ls_types::DidCloseTextDocumentParams;

pub fn handle(server: &Server, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    if server.session.close(&uri) {
        tokio::spawn(crate::lsp::diagnostics::clear(
            server.client.clone(),
            server.publisher.clone(),
            uri,
        ));
    }
}
