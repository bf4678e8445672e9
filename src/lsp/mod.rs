//! The language server: tower-lsp-server glue over the analysis. One module
//! per LSP method under `methods/`; no analysis logic lives here.

pub mod capabilities;
pub mod convert;
pub mod diagnostics;
pub mod methods;
pub mod server;
pub mod session;
pub mod settings;

pub use server::Server;

use tower_lsp_server::{LspService, Server as Transport};

/// Serves LSP over stdin/stdout until the client exits.
pub async fn run_stdio() {
    let (service, socket) = LspService::new(Server::new);
    Transport::new(tokio::io::stdin(), tokio::io::stdout(), socket)
        .serve(service)
        .await;
}
