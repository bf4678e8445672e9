//! The `LanguageServer` implementation: each method delegates to its module.

use super::diagnostics::Publisher;
use super::methods;
use super::session::Session;
use std::sync::Arc;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

#[derive(Clone)]
pub struct Server {
    pub client: Client,
    pub session: Arc<Session>,
    pub publisher: Arc<Publisher>,
}

impl Server {
    pub fn new(client: Client) -> Self {
        Self::with_shutdown_flag(client, Arc::default())
    }

    /// A server that records a received `shutdown` in `flag`.
    pub fn with_shutdown_flag(client: Client, flag: Arc<std::sync::atomic::AtomicBool>) -> Self {
        Server {
            client,
            session: Arc::new(Session::with_shutdown_flag(flag)),
            publisher: Arc::new(Publisher::default()),
        }
    }

    /// Schedules a diagnostics refresh without blocking the handler.
    pub fn schedule_refresh(&self, uri: Uri) {
        tokio::spawn(super::diagnostics::refresh(
            self.client.clone(),
            self.session.clone(),
            self.publisher.clone(),
            uri.clone(),
        ));
        // Scope files see each other (a global catch-all decides project
        // rules): the other open configs are analysed again too.
        for other in self.session.config_uris() {
            if other != uri {
                tokio::spawn(super::diagnostics::refresh(
                    self.client.clone(),
                    self.session.clone(),
                    self.publisher.clone(),
                    other,
                ));
            }
        }
    }
}

impl Server {
    /// Runs a request handler off the protocol thread: a slow request on
    /// one document (a huge outline, a simulation of a huge command) never
    /// holds up requests on another, a cancelled request's answer is
    /// dropped, and a handler that panics answers an internal error
    /// instead of taking the session down.
    async fn off_loop<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Server) -> T + Send + 'static,
    ) -> Result<T> {
        let server = self.clone();
        tokio::task::spawn_blocking(move || f(&server))
            .await
            .map_err(|_| tower_lsp_server::jsonrpc::Error::internal_error())
    }

    /// Answers a frame the transport guard replaced (see `transport`).
    pub async fn invalid_message(&self, params: serde_json::Value) -> Result<serde_json::Value> {
        let reason = params["reason"]
            .as_str()
            .unwrap_or("malformed message")
            .to_string();
        let mut error = match params["kind"].as_str() {
            Some("parse") => tower_lsp_server::jsonrpc::Error::parse_error(),
            Some("method") => tower_lsp_server::jsonrpc::Error::method_not_found(),
            _ => tower_lsp_server::jsonrpc::Error::invalid_request(),
        };
        error.data = Some(serde_json::Value::String(reason));
        Err(error)
    }
}

impl LanguageServer for Server {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        Ok(methods::initialize::handle(self, params))
    }

    async fn initialized(&self, _: InitializedParams) {
        methods::initialize::initialized(self).await;
    }

    async fn shutdown(&self) -> Result<()> {
        self.session
            .shutdown_requested
            .store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        methods::did_open::handle(self, params);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        methods::did_change::handle(self, params).await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        methods::did_save::handle(self, params);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        methods::did_close::handle(self, params);
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        methods::did_change_configuration::handle(self, params).await;
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        methods::did_change_watched_files::handle(self, params)
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        self.off_loop(move |s| methods::hover::handle(s, params))
            .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        self.off_loop(move |s| methods::code_action::handle(s, params))
            .await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        self.off_loop(move |s| methods::completion::handle(s, params))
            .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        self.off_loop(move |s| methods::document_symbol::handle(s, params))
            .await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        self.off_loop(move |s| methods::code_lens::handle(s, params))
            .await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        self.off_loop(move |s| methods::execute_command::handle(s, params))
            .await?
    }
}
