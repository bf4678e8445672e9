//! `textDocument/didSave`: the buffer is already current; re-publish.

use crate::lsp::server::Server;
use tower_lsp_server::ls_types::DidSaveTextDocumentParams;

pub fn handle(server: &Server, params: DidSaveTextDocumentParams) {
    server.schedule_refresh(params.text_document.uri);
}
