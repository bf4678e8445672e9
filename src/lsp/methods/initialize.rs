//! `initialize` / `initialized`: negotiate the position encoding, read
//! `initializationOptions`, announce honest capabilities.

use crate::lsp::capabilities::{negotiate_encoding, server_capabilities};
use crate::lsp::server::Server;
use crate::lsp::settings;
use tower_lsp_server::ls_types::{InitializeParams, InitializeResult, MessageType, ServerInfo};

pub fn handle(server: &Server, params: InitializeParams) -> InitializeResult {
    let enc = negotiate_encoding(&params.capabilities);
    let mut problems = Vec::new();
    #[allow(deprecated)]
    let root = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| f.uri.clone())
        .or_else(|| params.root_uri.clone())
        .and_then(|u| u.to_file_path().map(|p| p.into_owned()));
    server.session.update_settings(|s| {
        s.encoding = enc;
        s.workspace_root = root;
        s.watch_files = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false);
        s.snippets = params
            .capabilities
            .text_document
            .as_ref()
            .and_then(|t| t.completion.as_ref())
            .and_then(|c| c.completion_item.as_ref())
            .and_then(|i| i.snippet_support)
            .unwrap_or(false);
        if let Ok(home) = std::env::var("HOME") {
            s.analysis.home = home;
        }
        if let Some(opts) = &params.initialization_options {
            problems = settings::apply(&mut s.analysis, opts);
            problems.extend(crate::lsp::history::apply(&mut s.history, opts));
        }
    });
    if !problems.is_empty() {
        let client = server.client.clone();
        tokio::spawn(async move {
            client
                .show_message(
                    MessageType::WARNING,
                    format!("permission-lsp settings: {}", problems.join("; ")),
                )
                .await;
        });
    }
    InitializeResult {
        capabilities: server_capabilities(enc),
        server_info: Some(ServerInfo {
            name: "permission-lsp".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
        offset_encoding: None,
    }
}

pub async fn initialized(server: &Server) {
    let settings = server.session.settings();
    if settings.watch_files {
        let reg = {
            let ctx = crate::workspace::resolve(
                &settings.analysis,
                settings.workspace_root.as_deref(),
                None,
                &Default::default(),
                None,
            );
            super::did_change_watched_files::registration(&ctx)
        };
        if let Err(e) = server.client.register_capability(vec![reg]).await {
            server
                .client
                .log_message(
                    MessageType::WARNING,
                    format!("file watching not available: {e}"),
                )
                .await;
        }
    }
    server
        .client
        .log_message(MessageType::INFO, "permission-lsp ready")
        .await;
}
