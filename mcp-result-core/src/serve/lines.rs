//! The stdio transport of [`serve_stdio`](crate::serve_stdio): newline-delimited JSON-RPC
//! (MCP "Transports: stdio") in which every bad line gets an answer.
//!
//! rmcp's own line transport ignores a line that is not JSON (as the other SDKs do, against
//! error storms between two peers that echo errors) and ends the session on a notification
//! or response before `initialize`. A server's client is a host, not a peer that echoes, so
//! here:
//!
//! - a line that is not JSON (a number past `f64`, a lone surrogate, bytes that are not
//!   UTF-8, nesting past the parser's limit) is answered `-32700` "Parse error", with the
//!   request's `id` when it can be read from the line, else `null` (JSON-RPC 2.0 §5.1);
//! - JSON that is no JSON-RPC message (or repeats a key) is answered `-32600` "Invalid
//!   Request", and a request whose `params` do not fit its method `-32602` "Invalid
//!   params", with its `id`;
//! - a line longer than [`MAX_LINE`] is answered `-32600` and skipped;
//! - before `initialize` (or a first MCP 2026-07-28 request carrying its own metadata), a
//!   notification or a response is dropped (logged) instead of ending the session; a request
//!   gets rmcp's error, as before.
//!
//! A notification that cannot be read gets no answer (JSON-RPC: notifications are never
//! answered). Answers share one writer with rmcp's messages, a whole line at a time.

use std::sync::Arc;

use rmcp::{
    model::{ClientRequest, GetMeta as _, JsonRpcMessage},
    service::{RxJsonRpcMessage, TxJsonRpcMessage},
    transport::Transport,
    RoleServer,
};
use serde_json::{json, Value};
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader},
    sync::Mutex,
};

/// The longest line read (rmcp's own bound): 16 MiB.
pub(crate) const MAX_LINE: usize = 16 * 1024 * 1024;

/// Newline-delimited JSON-RPC over `read` and `write`, every bad line answered.
pub(crate) struct Lines<R, W> {
    read: BufReader<R>,
    write: Arc<Mutex<W>>,
    line: Vec<u8>,
    /// An oversized line is being skipped up to its newline.
    discarding: bool,
    /// `initialize`, or a first request with inline metadata, went through: from now on
    /// every message is rmcp's.
    started: bool,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Lines<R, W> {
    pub(crate) fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            write: Arc::new(Mutex::new(write)),
            line: Vec::new(),
            discarding: false,
            started: false,
        }
    }
}

/// What reading one line gave.
enum Read {
    Line,
    Oversized,
    Eof,
}

impl<R: AsyncRead + Unpin + Send, W: AsyncWrite + Unpin + Send + 'static> Lines<R, W> {
    /// Reads one line into `self.line`, never past [`MAX_LINE`] (cancel-safe: a partial
    /// line stays in the buffer).
    async fn read_line(&mut self) -> std::io::Result<Read> {
        loop {
            let available = self.read.fill_buf().await?;
            if available.is_empty() {
                return Ok(Read::Eof);
            }
            let (taken, ended) = match available.iter().position(|b| *b == b'\n') {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            if !self.discarding {
                self.line.extend_from_slice(&available[..taken]);
            }
            self.read.consume(taken);
            if self.line.len() > MAX_LINE {
                self.line.clear();
                self.discarding = true;
            }
            if ended {
                if std::mem::take(&mut self.discarding) {
                    return Ok(Read::Oversized);
                }
                return Ok(Read::Line);
            }
        }
    }
}

/// Writes the JSON-RPC error `code`/`message` for request `id` to `write`.
async fn answer<W: AsyncWrite + Unpin>(write: &Mutex<W>, id: Value, code: i32, message: String) {
    let error = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut bytes = error.to_string().into_bytes();
    bytes.push(b'\n');
    let mut write = write.lock().await;
    if let Err(error) = async {
        write.write_all(&bytes).await?;
        write.flush().await
    }
    .await
    {
        tracing::debug!(%error, "an error answer was not written");
    }
}

/// The answer to a line that is no message rmcp reads, if it gets one.
async fn refuse<W: AsyncWrite + Unpin>(write: &Mutex<W>, line: &[u8], error: &serde_json::Error) {
    use serde_json::error::Category;
    match error.classify() {
        Category::Syntax | Category::Eof | Category::Io => {
            let id = lenient_id(line).unwrap_or(Value::Null);
            answer(
                write,
                id,
                -32700,
                format!("Parse error: the line is not valid JSON ({error})"),
            )
            .await;
        }
        Category::Data => {
            let Ok(value) = serde_json::from_slice::<Value>(line) else {
                return;
            };
            let id = value.get("id").cloned();
            // The value reads as a message once a repeated key kept one of its values: the
            // line repeats a key (which rmcp's reader refuses).
            if serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()).is_ok() {
                if let Some(id) = id {
                    answer(
                        write,
                        id,
                        -32600,
                        "Invalid Request: the message repeats a key; JSON-RPC messages have \
                         each key once"
                            .to_owned(),
                    )
                    .await;
                }
                return;
            }
            match (value.get("method").and_then(Value::as_str), id) {
                // A notification is never answered.
                (Some(method), None) => {
                    tracing::debug!(method, %error, "a notification that cannot be read: dropped");
                }
                (Some(method), Some(id)) => {
                    let method = crate::wire::text::cap(method);
                    answer(
                        write,
                        id,
                        -32602,
                        format!("Invalid params of `{method}`: {error}"),
                    )
                    .await;
                }
                (None, id) => {
                    answer(
                        write,
                        id.filter(|id| id.is_string() || id.is_number())
                            .unwrap_or(Value::Null),
                        -32600,
                        "Invalid Request: a JSON-RPC 2.0 message has `\"jsonrpc\": \
                         \"2.0\"` and a `method` (a request or notification) or an `id` \
                         with a `result` or `error` (a response)"
                            .to_owned(),
                    )
                    .await;
                }
            }
        }
    }
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move {
            let mut bytes = serde_json::to_vec(&item)?;
            bytes.push(b'\n');
            let mut write = write.lock().await;
            write.write_all(&bytes).await?;
            write.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(Read::Line) => {}
                Ok(Read::Oversized) => {
                    answer(
                        &self.write,
                        Value::Null,
                        -32600,
                        format!("Invalid Request: the line is longer than {MAX_LINE} bytes"),
                    )
                    .await;
                    continue;
                }
                Ok(Read::Eof) => return None,
                Err(error) => {
                    tracing::error!(%error, "reading stdin failed");
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            let text = text.strip_suffix(b"\r").unwrap_or(text);
            let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
            if text.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let message = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
                Ok(message) => message,
                Err(error) => {
                    refuse(&self.write, text, &error).await;
                    continue;
                }
            };
            if !self.started {
                match &message {
                    JsonRpcMessage::Request(request) => {
                        self.started =
                            matches!(request.request, ClientRequest::InitializeRequest(_))
                                || request.request.get_meta().protocol_version().is_some();
                    }
                    _ => {
                        tracing::warn!("a notification or response before `initialize`: dropped");
                        continue;
                    }
                }
            }
            return Some(message);
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.shutdown().await
    }
}

/// The `id` of the request on `line`, read without parsing it as JSON: the value of the
/// top-level key `"id"`, when it is a number or a string without escapes.
fn lenient_id(line: &[u8]) -> Option<Value> {
    let mut depth = 0usize;
    let mut at = 0;
    while at < line.len() {
        match line[at] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let end = string_end(line, at)?;
                let key = &line[at + 1..end];
                at = end + 1;
                if depth == 1 && key == b"id" {
                    let rest = skip_space(line, at);
                    if line.get(rest) == Some(&b':') {
                        return value_at(line, skip_space(line, rest + 1));
                    }
                }
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// The index of the quote closing the string opened at `open`.
fn string_end(line: &[u8], open: usize) -> Option<usize> {
    let mut at = open + 1;
    while at < line.len() {
        match line[at] {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
    None
}

fn skip_space(line: &[u8], mut at: usize) -> usize {
    while line.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// A number or a plain string starting at `at`.
fn value_at(line: &[u8], at: usize) -> Option<Value> {
    match line.get(at)? {
        b'"' => {
            let end = string_end(line, at)?;
            let text = std::str::from_utf8(&line[at + 1..end]).ok()?;
            (!text.contains('\\')).then(|| Value::String(text.to_owned()))
        }
        b'-' | b'0'..=b'9' => {
            let end = line[at..]
                .iter()
                .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                .map_or(line.len(), |n| at + n);
            serde_json::from_slice::<serde_json::Number>(&line[at..end])
                .ok()
                .map(Value::Number)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::lenient_id;
    use serde_json::json;

    #[test]
    fn the_id_of_a_line_that_does_not_parse() {
        for (line, id) in [
            (
                &br#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"n":1e400}}"#[..],
                Some(json!(7)),
            ),
            (
                br#"{"params":{"id":3},"id":"a-1","method":"x"}"#,
                Some(json!("a-1")),
            ),
            (
                b"{\"id\": 12 , \"method\": \"x\", \"params\": {\"s\": \"\xff\"}}",
                Some(json!(12)),
            ),
            (br#"{"method":"x","params":{"id":3}"#, None),
            (br#"{"id":"a\"b","method":"x"#, None),
            (b"not json", None),
        ] {
            assert_eq!(lenient_id(line), id, "{}", String::from_utf8_lossy(line));
        }
    }
}
