//! `textDocument/didChange`: incremental edits applied to the rope before
//! anything awaits.

use crate::lsp::server::Server;
use tower_lsp_server::ls_types::{DidChangeTextDocumentParams, MessageType};

pub async fn handle(server: &Server, params: DidChangeTextDocumentParams) {
    let enc = server.session.settings().encoding;
    let uri = params.text_document.uri;
    let result = server.session.change(
        &uri,
        params.text_document.version,
        params.content_changes,
        enc,
    );
    match result {
        Ok(()) => server.schedule_refresh(uri),
        Err(reason) => {
            server
                .client
                .log_message(MessageType::WARNING, reason)
                .await
        }
    }
}
