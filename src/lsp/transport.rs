//! A guard in front of the framework's reader.
//!
//! The framework answers a message it cannot decode with a JSON-RPC error,
//! but its framed reader then stops reading (a decode error ends the
//! stream), so one bad message would end the session. This guard re-frames
//! the input: well-formed messages pass through untouched; a frame whose
//! header or body is broken is replaced by a request for
//! [`INVALID_MESSAGE_METHOD`], which the server answers with the proper
//! error (`-32700` parse error or `-32600` invalid request) and keeps serving.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// The method a replaced frame is turned into.
pub const INVALID_MESSAGE_METHOD: &str = "permission-lsp/invalidMessage";
/// Bodies larger than this are discarded and answered with an error.
pub const MAX_MESSAGE_BYTES: usize = 512 * 1024 * 1024;
const MAX_HEADER_LINE: usize = 8 * 1024;

/// Starts the guard on `input`; read the returned stream instead.
pub fn guard<R: AsyncRead + Unpin + Send + 'static>(input: R) -> DuplexStream {
    let (mut out, inner) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut reader = BufReader::new(input);
        while let Some(frame) = next_frame(&mut reader).await {
            let body = match frame {
                Frame::Body(bytes) => sanitize(bytes),
                Frame::BadHeader(why) => replacement("parse", Value::Null, &why),
            };
            let header = format!("Content-Length: {}\r\n\r\n", body.len());
            if out.write_all(header.as_bytes()).await.is_err()
                || out.write_all(&body).await.is_err()
            {
                break;
            }
        }
        let _ = out.shutdown().await;
    });
    inner
}

enum Frame {
    Body(Vec<u8>),
    BadHeader(String),
}

async fn next_frame<R: AsyncRead + Unpin>(reader: &mut BufReader<R>) -> Option<Frame> {
    let mut length: Option<Result<usize, String>> = None;
    let mut saw_any = false;
    loop {
        let mut line = Vec::new();
        let n = (&mut *reader)
            .take(MAX_HEADER_LINE as u64)
            .read_until(b'\n', &mut line)
            .await
            .ok()?;
        if n == 0 {
            return None; // end of input
        }
        let text = String::from_utf8_lossy(&line);
        let trimmed = text.trim_end_matches(['\r', '\n']);
        if trimmed.is_empty() {
            if saw_any {
                break;
            }
            continue; // stray blank line between frames
        }
        saw_any = true;
        if let Some((name, value)) = trimmed.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = Some(
                    value
                        .trim()
                        .parse::<usize>()
                        .map_err(|_| format!("invalid Content-Length `{}`", value.trim())),
                );
            }
        } else {
            length = Some(Err(format!(
                "malformed header line `{}`",
                trimmed.chars().take(80).collect::<String>()
            )));
        }
    }
    match length {
        Some(Ok(n)) if n <= MAX_MESSAGE_BYTES => {
            let mut body = vec![0u8; n];
            reader.read_exact(&mut body).await.ok()?;
            Some(Frame::Body(body))
        }
        Some(Ok(n)) => {
            // Discard the oversized body in chunks.
            let mut left = n;
            let mut buf = vec![0u8; 64 * 1024];
            while left > 0 {
                let take = left.min(buf.len());
                let k = reader.read(&mut buf[..take]).await.ok()?;
                if k == 0 {
                    return None;
                }
                left -= k;
            }
            Some(Frame::BadHeader(format!(
                "message of {n} bytes exceeds the {MAX_MESSAGE_BYTES}-byte limit"
            )))
        }
        Some(Err(why)) => Some(Frame::BadHeader(why)),
        None => Some(Frame::BadHeader("missing Content-Length header".into())),
    }
}

/// Passes a valid JSON-RPC message through; replaces anything else.
fn sanitize(bytes: Vec<u8>) -> Vec<u8> {
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => return replacement("parse", Value::Null, &format!("invalid JSON: {e}")),
    };
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let id_ok = matches!(id, Value::Null | Value::Number(_) | Value::String(_));
    let well_formed = value.is_object()
        && value.get("jsonrpc") == Some(&json!("2.0"))
        && id_ok
        && match value.get("method") {
            Some(Value::String(_)) => value
                .get("params")
                .is_none_or(|p| p.is_object() || p.is_array() || p.is_null()),
            Some(_) => false,
            // A response from the client.
            None => {
                value.get("id").is_some()
                    && (value.get("result").is_some() || value.get("error").is_some())
            }
        };
    if well_formed {
        return bytes;
    }
    let id = if id_ok { id } else { Value::Null };
    replacement("request", id, "not a JSON-RPC 2.0 message")
}

fn replacement(kind: &str, id: Value, why: &str) -> Vec<u8> {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": INVALID_MESSAGE_METHOD,
        "params": { "kind": kind, "reason": why },
    })
    .to_string()
    .into_bytes()
}
