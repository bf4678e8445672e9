//! The language server: tower-lsp-server glue over the analysis. One module
//! per LSP method under `methods/`; no analysis logic lives here.

pub mod capabilities;
pub mod convert;
pub mod diagnostics;
pub mod methods;
pub mod server;
pub mod session;
pub mod settings;
pub mod transport;

pub use server::Server;

use tower_lsp_server::{LspService, Server as Transport};

/// The service with every custom method registered.
pub fn service() -> (LspService<Server>, tower_lsp_server::ClientSocket) {
    LspService::build(Server::new)
        .custom_method(transport::INVALID_MESSAGE_METHOD, Server::invalid_message)
        .finish()
}

/// Serves LSP on any pair of streams (stdio in production, pipes in tests).
pub async fn serve<R, W>(input: R, output: W)
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin,
{
    let (service, socket) = service();
    Transport::new(transport::guard(input), output, socket)
        .serve(service)
        .await;
}

/// Serves LSP over stdin/stdout until the client exits.
pub async fn run_stdio() {
    serve(tokio::io::stdin(), tokio::io::stdout()).await;
}
