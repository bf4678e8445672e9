//! A guard in front of the framework's reader.
//!
//! The framework answers a message it cannot decode with a JSON-RPC error,
//! but its framed reader then stops reading (a decode error ends the
//! stream), so one bad message would end the session. This guard re-frames
//! the input: well-formed messages pass through untouched; a frame whose
//! header or body is broken is replaced by a request for
//! [`INVALID_MESSAGE_METHOD`], which the server answers with the proper
//! error (`-32700` parse error, `-32600` invalid request, `-32601` method
//! not found) and keeps serving.
//!
//! After a broken header (missing, negative, huge or non-numeric
//! `Content-Length`, junk or NUL bytes before a header) the guard
//! resynchronises at the next `Content-Length:` in the stream, so only the
//! broken frame is lost. A body that is not JSON but holds the start of the
//! next frame (its `Content-Length` was too large) gives the next frame back.

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, DuplexStream};

/// The method a replaced frame is turned into.
pub const INVALID_MESSAGE_METHOD: &str = "permission-lsp/invalidMessage";
/// Bodies larger than this are refused (the header is treated as broken).
/// A 10 MB document, JSON-escaped inside a `didOpen`, fits with room.
pub const MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;
/// A header block longer than this is junk.
const MAX_HEADER_BYTES: usize = 8 * 1024;
const CONTENT_LENGTH: &[u8] = b"content-length:";

/// Starts the guard on `input`; read the returned stream instead.
pub fn guard<R: AsyncRead + Unpin + Send + 'static>(mut input: R) -> DuplexStream {
    let (mut out, inner) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut framer = Framer::default();
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            while let Some(frame) = framer.next_frame() {
                let body = match frame {
                    Frame::Body(bytes) => match sanitize(bytes) {
                        Some(body) => body,
                        None => continue,
                    },
                    Frame::Broken(why) => replacement("parse", Value::Null, &why),
                };
                let header = format!("Content-Length: {}\r\n\r\n", body.len());
                if out.write_all(header.as_bytes()).await.is_err()
                    || out.write_all(&body).await.is_err()
                {
                    return;
                }
            }
            let read = input.read(&mut chunk).await;
            match read {
                Ok(0) | Err(_) => break,
                Ok(n) => framer.push(&chunk[..n]),
            }
        }
        let _ = out.shutdown().await;
    });
    inner
}

/// What the framer cut from the stream.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A body as its header announced it (not yet checked as JSON).
    Body(Vec<u8>),
    /// A broken header or junk between frames, with the reason.
    Broken(String),
}

/// Cuts LSP frames from a byte stream: pure and synchronous (the async loop
/// above only feeds it), so every recovery path is unit-tested.
#[derive(Default)]
pub struct Framer {
    buf: Vec<u8>,
    /// Where the unread part of `buf` starts.
    at: usize,
    state: State,
    /// An error was reported for the current broken stretch: junk skipped
    /// while resynchronising is not reported again.
    reported: bool,
    /// How much of an incomplete body was searched for a following header.
    scanned: usize,
}

#[derive(Default, PartialEq, Debug)]
enum State {
    #[default]
    Header,
    Body(usize),
    /// Skipping to the next `Content-Length:`.
    Resync,
}

impl Framer {
    pub fn push(&mut self, bytes: &[u8]) {
        if self.at > 0 && self.at * 2 >= self.buf.len() {
            self.buf.drain(..self.at);
            self.at = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    fn rest(&self) -> &[u8] {
        &self.buf[self.at..]
    }

    /// Where the next frame starts inside an incomplete body: a
    /// `Content-Length:` after one complete JSON value, or one that begins a
    /// whole frame — a header block ending in a blank line and a body of
    /// its length that is JSON. Neither can occur inside a JSON body (a
    /// header is no JSON token, and a string cannot hold a raw line break),
    /// so a real body is never cut. Each byte is searched once; a candidate
    /// whose frame is still arriving is looked at again when more comes.
    fn overshoot(&mut self) -> Option<usize> {
        let rest = &self.buf[self.at..];
        let from = self.scanned.saturating_sub(CONTENT_LENGTH.len() - 1);
        let mut at = from.max(1);
        let mut pending = None;
        let json = |b: &[u8]| serde_json::from_slice::<serde::de::IgnoredAny>(b).is_ok();
        while at < rest.len()
            && let Some(j) = find_content_length(&rest[at..])
        {
            let j = at + j;
            if json(&rest[..j]) {
                return Some(j);
            }
            match parse_header(&rest[j..]) {
                HeaderParse::Done { length, used } => {
                    let body = j + used..j + used + length;
                    if body.end > rest.len() {
                        pending.get_or_insert(j);
                    } else if json(&rest[body]) {
                        return Some(j);
                    }
                }
                HeaderParse::Incomplete => {
                    pending.get_or_insert(j);
                }
                HeaderParse::Broken { .. } => {}
            }
            at = j + 1;
        }
        self.scanned = pending.unwrap_or(rest.len());
        None
    }

    /// The next complete frame, or `None` when more input is needed.
    pub fn next_frame(&mut self) -> Option<Frame> {
        loop {
            match self.state {
                State::Body(n) => {
                    if self.rest().len() < n {
                        // A length larger than the body would hold every
                        // later message until enough bytes arrive: when the
                        // bytes so far are one complete JSON value followed
                        // by a header, the length was wrong — report this
                        // frame and go on at that header now.
                        if let Some(j) = self.overshoot() {
                            self.at += j;
                            self.state = State::Header;
                            self.reported = true;
                            return Some(Frame::Broken(format!(
                                "the body is shorter than its Content-Length of {n} bytes (the next message starts inside it)"
                            )));
                        }
                        return None;
                    }
                    let body = self.rest()[..n].to_vec();
                    self.at += n;
                    self.state = State::Header;
                    let json = serde_json::from_slice::<serde::de::IgnoredAny>(&body).is_ok();
                    if !json && let Some(j) = find_content_length(&body[1.min(body.len())..]) {
                        // The announced length ran into the next frame: give
                        // the next frame back and report this one.
                        let j = j + 1;
                        let tail = body[j..].to_vec();
                        self.at -= tail.len();
                        debug_assert_eq!(&self.buf[self.at..self.at + tail.len()], &tail[..]);
                        self.reported = true;
                        return Some(Frame::Broken(format!(
                            "the body is shorter than its Content-Length of {n} bytes (the next header starts inside it)"
                        )));
                    }
                    // A body that is not JSON is answered with an error;
                    // junk right after it belongs to the same breakage.
                    self.reported = !json;
                    return Some(Frame::Body(body));
                }
                State::Resync => {
                    let rest = self.rest();
                    match find_content_length(rest) {
                        Some(i) => {
                            let junk = !rest[..i].iter().all(u8::is_ascii_whitespace);
                            self.at += i;
                            self.state = State::Header;
                            if junk && !self.reported {
                                self.reported = true;
                                return Some(Frame::Broken(
                                    "bytes that are not a message before the next header".into(),
                                ));
                            }
                        }
                        None => {
                            // Keep a tail that may be the start of the marker.
                            let keep = rest.len().min(CONTENT_LENGTH.len() - 1);
                            let junk = !rest[..rest.len() - keep]
                                .iter()
                                .all(u8::is_ascii_whitespace);
                            self.at = self.buf.len() - keep;
                            if junk && !self.reported {
                                self.reported = true;
                                return Some(Frame::Broken(
                                    "bytes that are not a message before the next header".into(),
                                ));
                            }
                            return None;
                        }
                    }
                }
                State::Header => {
                    // Blank lines between frames are tolerated.
                    let skip = self
                        .rest()
                        .iter()
                        .take_while(|b| matches!(b, b'\r' | b'\n'))
                        .count();
                    self.at += skip;
                    match parse_header(self.rest()) {
                        HeaderParse::Incomplete => return None,
                        HeaderParse::Done { length, used } => {
                            self.at += used;
                            self.state = State::Body(length);
                            self.scanned = 0;
                        }
                        HeaderParse::Broken { why, skip } => {
                            self.at += skip;
                            self.state = State::Resync;
                            if !self.reported {
                                self.reported = true;
                                return Some(Frame::Broken(why));
                            }
                        }
                    }
                }
            }
        }
    }
}

enum HeaderParse {
    Incomplete,
    Done {
        length: usize,
        used: usize,
    },
    /// `skip`: bytes to drop before resynchronising (past the bad header
    /// block when it ended, so its own `Content-Length` is not found again;
    /// nothing when the first line is junk, which may hold the next header).
    Broken {
        why: String,
        skip: usize,
    },
}

fn parse_header(bytes: &[u8]) -> HeaderParse {
    let mut length: Option<Result<usize, String>> = None;
    let mut pos = 0;
    loop {
        let Some(nl) = bytes[pos..].iter().position(|&b| b == b'\n') else {
            if bytes.len() > MAX_HEADER_BYTES || !plausible_prefix(&bytes[pos..]) {
                return HeaderParse::Broken {
                    why: "a header line that is not `Name: value`".into(),
                    skip: pos,
                };
            }
            return HeaderParse::Incomplete;
        };
        let line = &bytes[pos..pos + nl];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let next = pos + nl + 1;
        if next > MAX_HEADER_BYTES {
            return HeaderParse::Broken {
                why: format!("a header longer than {MAX_HEADER_BYTES} bytes"),
                skip: pos,
            };
        }
        if line.is_empty() {
            return match length {
                Some(Ok(length)) => HeaderParse::Done { length, used: next },
                Some(Err(why)) => HeaderParse::Broken { why, skip: next },
                None => HeaderParse::Broken {
                    why: "missing Content-Length header".into(),
                    skip: next,
                },
            };
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return malformed(line, pos);
        };
        let name = &line[..colon];
        if name.is_empty() || !name.iter().all(|b| is_token(*b)) {
            return malformed(line, pos);
        }
        if name.eq_ignore_ascii_case(b"content-length") {
            let value = String::from_utf8_lossy(&line[colon + 1..])
                .trim()
                .to_string();
            length = Some(match value.parse::<usize>() {
                Ok(n) if n <= MAX_MESSAGE_BYTES => Ok(n),
                Ok(n) => Err(format!(
                    "message of {n} bytes exceeds the {MAX_MESSAGE_BYTES}-byte limit"
                )),
                Err(_) => Err(format!(
                    "invalid Content-Length `{}`",
                    value.chars().take(40).collect::<String>()
                )),
            });
        }
        pos = next;
    }
}

/// A header line that is not `Name: value`; resynchronise from its start
/// (it may hold the next header after junk).
fn malformed(line: &[u8], pos: usize) -> HeaderParse {
    HeaderParse::Broken {
        why: format!(
            "malformed header line `{}`",
            String::from_utf8_lossy(line)
                .chars()
                .take(80)
                .collect::<String>()
        ),
        skip: pos,
    }
}

/// A header name's characters (RFC 7230 token).
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Whether an unterminated line can still become `Name: value`.
fn plausible_prefix(line: &[u8]) -> bool {
    match line.iter().position(|&b| b == b':') {
        Some(colon) => colon > 0 && line[..colon].iter().all(|b| is_token(*b)),
        None => line.iter().all(|b| is_token(*b) || *b == b'\r'),
    }
}

/// The first `Content-Length:` (any case) at the start of a line or after
/// non-header bytes.
fn find_content_length(bytes: &[u8]) -> Option<usize> {
    let n = CONTENT_LENGTH.len();
    if bytes.len() < n {
        return None;
    }
    memchr::memchr2_iter(b'c', b'C', &bytes[..=bytes.len() - n])
        .find(|&i| bytes[i..i + n].eq_ignore_ascii_case(CONTENT_LENGTH))
}

/// Passes a valid JSON-RPC message through; replaces anything else; drops
/// a response whose id no request of this server can have (`None`).
pub fn sanitize(bytes: Vec<u8>) -> Option<Vec<u8>> {
    let (value, bytes): (Value, Vec<u8>) = match serde_json::from_slice(&bytes) {
        Ok(v) => (v, bytes),
        Err(e) => {
            // A lone UTF-16 surrogate escape is read as U+FFFD, as the
            // runtimes read such text, instead of losing the message.
            let repaired = replace_lone_surrogates(&bytes);
            match repaired.as_deref().map(serde_json::from_slice::<Value>) {
                Some(Ok(v)) => (v, repaired.unwrap_or_default()),
                _ => {
                    return Some(replacement(
                        "parse",
                        Value::Null,
                        &format!("invalid JSON: {e}"),
                    ));
                }
            }
        }
    };
    let Some(obj) = value.as_object() else {
        return Some(replacement(
            "request",
            Value::Null,
            "not a JSON-RPC 2.0 message",
        ));
    };
    let raw_id = obj.get("id");
    // The framework reads ids as strings or 64-bit integers; a fraction,
    // an exponent or an out-of-range number is an invalid request.
    let id_ok = match raw_id {
        None | Some(Value::Null) | Some(Value::String(_)) => true,
        Some(Value::Number(n)) => n.as_i64().is_some(),
        Some(_) => false,
    };
    let id = if id_ok {
        raw_id.cloned().unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    let version_ok = obj.get("jsonrpc") == Some(&json!("2.0"));
    match obj.get("method") {
        Some(Value::String(method)) => {
            let params_ok = obj
                .get("params")
                .is_none_or(|p| p.is_object() || p.is_array() || p.is_null());
            if !(version_ok && id_ok && params_ok) {
                return Some(replacement("request", id, "not a JSON-RPC 2.0 message"));
            }
            // `$/` requests the server does not implement get MethodNotFound
            // (the framework would ignore them and leave the client waiting).
            if method.starts_with("$/") && raw_id.is_some_and(|i| !i.is_null()) {
                return Some(replacement(
                    "method",
                    id,
                    &format!("unknown method `{method}`"),
                ));
            }
            Some(bytes)
        }
        Some(_) => Some(replacement("request", id, "not a JSON-RPC 2.0 message")),
        // A response from the client: the server's own ids are small
        // integers, so one with any other id answers nothing and is dropped.
        None => {
            if version_ok
                && id_ok
                && raw_id.is_some()
                && (obj.get("result").is_some() || obj.get("error").is_some())
            {
                Some(bytes)
            } else if raw_id.is_some() && !id_ok {
                None
            } else {
                Some(replacement("request", id, "not a JSON-RPC 2.0 message"))
            }
        }
    }
}

/// `bytes` with every lone surrogate escape (`\uD800`–`\uDFFF` not part of a
/// pair) replaced by `\uFFFD`, or `None` when there is none.
fn replace_lone_surrogates(bytes: &[u8]) -> Option<Vec<u8>> {
    fn hex4(b: &[u8]) -> Option<u16> {
        let s = std::str::from_utf8(b.get(..4)?).ok()?;
        u16::from_str_radix(s, 16).ok()
    }
    let mut out = bytes.to_vec();
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        if bytes.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(unit) = hex4(&bytes[(i + 2).min(bytes.len())..]) else {
            i += 2;
            continue;
        };
        match unit {
            0xD800..=0xDBFF => {
                let low = (bytes.get(i + 6) == Some(&b'\\') && bytes.get(i + 7) == Some(&b'u'))
                    .then(|| hex4(&bytes[(i + 8).min(bytes.len())..]))
                    .flatten();
                if matches!(low, Some(0xDC00..=0xDFFF)) {
                    i += 12;
                } else {
                    out[i + 2..i + 6].copy_from_slice(b"FFFD");
                    changed = true;
                    i += 6;
                }
            }
            0xDC00..=0xDFFF => {
                out[i + 2..i + 6].copy_from_slice(b"FFFD");
                changed = true;
                i += 6;
            }
            _ => i += 6,
        }
    }
    changed.then_some(out)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    /// Every frame the framer cuts from `input`, fed in chunks of `step`.
    fn cut(input: &[u8], step: usize) -> Vec<Frame> {
        let mut f = Framer::default();
        let mut out = Vec::new();
        for chunk in input.chunks(step.max(1)) {
            f.push(chunk);
            while let Some(fr) = f.next_frame() {
                out.push(fr);
            }
        }
        out
    }

    const GOOD: &str = r#"{"jsonrpc":"2.0","id":99,"method":"shutdown"}"#;

    fn ends_with_good(frames: &[Frame]) {
        assert_eq!(
            frames.last(),
            Some(&Frame::Body(GOOD.as_bytes().to_vec())),
            "{frames:?}"
        );
    }

    #[test]
    fn well_formed_frames_pass_in_any_chunking() {
        let mut input = frame(r#"{"jsonrpc":"2.0","method":"x"}"#);
        input.extend(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n");
        input.extend(frame(GOOD));
        for step in [1, 2, 7, 1000] {
            let frames = cut(&input, step);
            assert_eq!(frames.len(), 2, "step {step}: {frames:?}");
            ends_with_good(&frames);
        }
    }

    #[test]
    fn resynchronises_after_every_broken_header() {
        let body = r#"{"jsonrpc":"2.0","id":5,"method":"shutdown"}"#;
        let broken: Vec<Vec<u8>> = vec![
            format!("X-Foo: 1\r\n\r\n{body}").into_bytes(),
            format!("Content-Length: -5\r\n\r\n{body}").into_bytes(),
            format!("Content-Length: {}\r\n\r\n{body}", "9".repeat(30)).into_bytes(),
            format!("Content-Length: 99999999999\r\n\r\n{body}").into_bytes(),
            format!("Content-Length: 10\r\n\r\n{body}").into_bytes(),
            format!("\0\0\0Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes(),
            format!("garbage\r\n\r\n{body}").into_bytes(),
            b"\xff\xfe junk without newline".to_vec(),
        ];
        for bad in broken {
            for step in [1, 3, 4096] {
                let mut input = bad.clone();
                input.extend(frame(GOOD));
                let frames = cut(&input, step);
                ends_with_good(&frames);
                // The broken frame is answered (a report, or a body that is
                // answered as a parse error), and once only.
                let answered = frames
                    .iter()
                    .filter(|f| match f {
                        Frame::Broken(_) => true,
                        Frame::Body(b) => serde_json::from_slice::<Value>(b).is_err(),
                    })
                    .count();
                assert_eq!(
                    answered,
                    1,
                    "{:?}: {frames:?}",
                    String::from_utf8_lossy(&bad)
                );
            }
        }
    }

    #[test]
    fn nul_bytes_before_a_header_are_reported_once_and_skipped() {
        let mut input = b"\0\0\0".to_vec();
        input.extend(frame(GOOD));
        let frames = cut(&input, 4096);
        assert_eq!(frames.len(), 2, "{frames:?}");
        assert!(matches!(frames[0], Frame::Broken(_)));
        ends_with_good(&frames);
    }

    #[test]
    fn too_large_length_gives_the_next_frame_back() {
        let body = r#"{"jsonrpc":"2.0","id":5,"method":"shutdown"}"#;
        let mut input = format!("Content-Length: {}\r\n\r\n{body}", body.len() + 20).into_bytes();
        input.extend(frame(GOOD));
        let frames = cut(&input, 4096);
        assert!(matches!(frames[0], Frame::Broken(_)), "{frames:?}");
        ends_with_good(&frames);
    }

    /// Found by the server fuzzer: a length larger than everything sent so
    /// far held the next request back until more bytes came (the client
    /// waited for its answer, so none came).
    #[test]
    fn a_too_large_length_does_not_hold_back_the_next_request() {
        let body = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let mut input = format!("Content-Length: {}\r\n\r\n{body}", body.len() + 150).into_bytes();
        input.extend(frame(GOOD));
        for step in [1, 5, 4096] {
            let frames = cut(&input, step);
            assert!(matches!(frames[0], Frame::Broken(_)), "{frames:?}");
            ends_with_good(&frames);
        }
        // A body that merely mentions a header inside a string still waits.
        let quoted = r#"{"jsonrpc":"2.0","method":"x","params":{"t":"Content-Length: 5"}}"#;
        let partial = format!("Content-Length: {}\r\n\r\n{}", quoted.len(), &quoted[..50]);
        assert!(cut(partial.as_bytes(), 3).is_empty());
    }

    /// Found by the server fuzzer: a truncated body with a length far past
    /// it, then a whole frame — resumed at that frame as soon as it is
    /// complete, in any chunking.
    #[test]
    fn a_whole_frame_inside_an_unfinished_body_is_taken_out() {
        let mut input = b"Content-Length: 5454\r\n\r\n{\"jsonrpc\":\"".to_vec();
        input.extend(frame(GOOD));
        for step in [1, 3, 4096] {
            let frames = cut(&input, step);
            assert_eq!(frames.len(), 2, "{frames:?}");
            assert!(matches!(frames[0], Frame::Broken(_)));
            ends_with_good(&frames);
        }
        // A body whose strings mention headers is never cut.
        let tricky = r#"{"jsonrpc":"2.0","method":"x","params":{"t":"Content-Length: 2\r\n\r\n{}","u":"Content-Length: 2"}}"#;
        let partial = format!("Content-Length: {}\r\n\r\n{}", tricky.len() + 10, tricky);
        assert!(cut(partial.as_bytes(), 5).is_empty());
        let whole = frame(tricky);
        assert_eq!(
            cut(&whole, 5),
            vec![Frame::Body(tricky.as_bytes().to_vec())]
        );
    }

    #[test]
    fn ids_the_framework_cannot_read_are_invalid_requests() {
        for id in [
            "1.0",
            "1e3",
            "1.5",
            "9223372036854775808",
            "-9223372036854775809",
        ] {
            let req = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"shutdown"}}"#);
            let out: Value = serde_json::from_slice(&sanitize(req.into_bytes()).unwrap()).unwrap();
            assert_eq!(out["method"], INVALID_MESSAGE_METHOD);
            assert_eq!(out["id"], Value::Null);
            let resp = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":null}}"#);
            assert_eq!(sanitize(resp.into_bytes()), None, "{id}");
        }
        let ok = br#"{"jsonrpc":"2.0","id":-3,"method":"shutdown"}"#.to_vec();
        assert_eq!(sanitize(ok.clone()), Some(ok));
    }

    #[test]
    fn dollar_requests_are_unknown_methods_and_dollar_notifications_pass() {
        let req = br#"{"jsonrpc":"2.0","id":7,"method":"$/foo","params":{}}"#.to_vec();
        let out: Value = serde_json::from_slice(&sanitize(req).unwrap()).unwrap();
        assert_eq!(out["params"]["kind"], "method");
        assert_eq!(out["id"], 7);
        let note = br#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#.to_vec();
        assert_eq!(sanitize(note.clone()), Some(note));
    }

    #[test]
    fn lone_surrogates_are_read_as_replacement_characters() {
        let msg = br#"{"jsonrpc":"2.0","method":"x","params":{"t":"a\ud800b\udc00c\ud83d\ude00\\ud800"}}"#;
        let out: Value = serde_json::from_slice(&sanitize(msg.to_vec()).unwrap()).unwrap();
        assert_eq!(out["params"]["t"], "a\u{FFFD}b\u{FFFD}c\u{1F600}\\ud800");
        assert_eq!(replace_lone_surrogates(br#""\ud83d\ude00""#), None);
    }
}
