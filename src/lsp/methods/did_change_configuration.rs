//! `workspace/didChangeConfiguration`: new settings, then every open
//! document is re-analysed.

use crate::lsp::server::Server;
use crate::lsp::settings;
use tower_lsp_server::ls_types::{DidChangeConfigurationParams, MessageType};

pub async fn handle(server: &Server, params: DidChangeConfigurationParams) {
    let mut problems = Vec::new();
    server.session.update_settings(|s| {
        problems = settings::apply(&mut s.analysis, &params.settings);
        problems.extend(crate::lsp::history::apply(&mut s.history, &params.settings));
    });
    for uri in server.session.uris() {
        server.schedule_refresh(uri);
    }
    if !problems.is_empty() {
        server
            .client
            .show_message(
                MessageType::WARNING,
                format!("permission-lsp settings: {}", problems.join("; ")),
            )
            .await;
    }
}
