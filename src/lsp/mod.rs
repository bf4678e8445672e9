//! The language server: tower-lsp-server glue over the analysis. One module
//! per LSP method under `methods/`; no analysis logic lives here.

pub mod capabilities;
pub mod convert;
pub mod diagnostics;
pub mod history;
pub mod methods;
pub mod server;
pub mod session;
pub mod settings;
pub mod transport;

pub use server::Server;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tower_lsp_server::{LspService, Server as Transport};

/// The service with every custom method registered.
pub fn service() -> (LspService<Server>, tower_lsp_server::ClientSocket) {
    service_with_flag(Arc::default())
}

fn service_with_flag(
    shutdown: Arc<AtomicBool>,
) -> (LspService<Server>, tower_lsp_server::ClientSocket) {
    LspService::build(move |client| Server::with_shutdown_flag(client, shutdown.clone()))
        .custom_method(transport::INVALID_MESSAGE_METHOD, Server::invalid_message)
        .finish()
}

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ended {
    /// `shutdown` came before the end (`exit` or end of input): the
    /// process exits 0, otherwise 1, as the protocol asks.
    pub after_shutdown: bool,
}

/// Serves LSP on any pair of streams (stdio in production, pipes in tests).
pub async fn serve<R, W>(input: R, output: W) -> Ended
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin,
{
    let flag = Arc::new(AtomicBool::new(false));
    let (service, socket) = service_with_flag(flag.clone());
    Transport::new(transport::guard(input), output, socket)
        .serve(service)
        .await;
    Ended {
        after_shutdown: flag.load(Ordering::SeqCst),
    }
}

/// Serves LSP over stdin/stdout until the client exits.
pub async fn run_stdio() -> Ended {
    let (stdout, writer) = stdio::stdout();
    let ended = serve(stdio::stdin(), stdout).await;
    // Everything the server wrote reaches the client before the process ends.
    let _ = writer.join();
    ended
}

/// Standard input and output without a trip through the blocking pool per
/// read and write (tokio's own stdio hands every read and write to a pool
/// thread): a dedicated thread reads stdin as data arrives, another writes
/// what the server sends. Neither side ever blocks the async runtime, so a
/// client that writes much before it reads cannot deadlock the server.
mod stdio {
    use std::io::{Read, Write};
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use tokio::io::AsyncWrite;

    /// Stdin as an async reader, fed by a reader thread.
    pub fn stdin() -> ChannelReader {
        let (tx, rx) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
        std::thread::Builder::new()
            .name("stdin".into())
            .spawn(move || {
                let mut stdin = std::io::stdin().lock();
                let mut buf = vec![0u8; 1 << 16];
                loop {
                    match stdin.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            if tx.blocking_send(buf[..n].to_vec()).is_err() {
                                break;
                            }
                        }
                    }
                }
            })
            .ok();
        ChannelReader {
            rx,
            chunk: Vec::new(),
            at: 0,
        }
    }

    /// Reads the chunks a thread sends; ends when the thread ends.
    pub struct ChannelReader {
        rx: tokio::sync::mpsc::Receiver<Vec<u8>>,
        chunk: Vec<u8>,
        at: usize,
    }

    impl tokio::io::AsyncRead for ChannelReader {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> Poll<std::io::Result<()>> {
            while self.at >= self.chunk.len() {
                match self.rx.poll_recv(cx) {
                    Poll::Ready(Some(chunk)) => {
                        self.chunk = chunk;
                        self.at = 0;
                    }
                    Poll::Ready(None) => return Poll::Ready(Ok(())),
                    Poll::Pending => return Poll::Pending,
                }
            }
            let n = buf.remaining().min(self.chunk.len() - self.at);
            let at = self.at;
            buf.put_slice(&self.chunk[at..at + n]);
            self.at += n;
            Poll::Ready(Ok(()))
        }
    }

    /// Stdout, fed to a writer thread.
    pub struct Stdout {
        tx: Option<std::sync::mpsc::Sender<Vec<u8>>>,
    }

    /// The writer and its thread (join it to flush everything written).
    pub fn stdout() -> (Stdout, std::thread::JoinHandle<()>) {
        let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
        let handle = std::thread::Builder::new()
            .name("stdout".into())
            .spawn(move || {
                let mut out = std::io::stdout().lock();
                while let Ok(chunk) = rx.recv() {
                    if out.write_all(&chunk).is_err() {
                        return;
                    }
                    // Flush once the queue is drained.
                    let mut more = rx.try_recv();
                    while let Ok(next) = more {
                        if out.write_all(&next).is_err() {
                            return;
                        }
                        more = rx.try_recv();
                    }
                    if out.flush().is_err() {
                        return;
                    }
                }
            })
            .unwrap_or_else(|_| std::thread::spawn(|| {}));
        (Stdout { tx: Some(tx) }, handle)
    }

    impl AsyncWrite for Stdout {
        fn poll_write(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<std::io::Result<usize>> {
            match &self.tx {
                Some(tx) if tx.send(buf.to_vec()).is_ok() => Poll::Ready(Ok(buf.len())),
                _ => Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into())),
            }
        }

        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<std::io::Result<()>> {
            self.tx = None;
            Poll::Ready(Ok(()))
        }
    }
}
