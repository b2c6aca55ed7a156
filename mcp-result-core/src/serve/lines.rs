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
//!
//! A `subscriptions/listen` request's `taskIds` (SEP-2663; rmcp's filter type drops them)
//! are read here into the request's extensions, and listed in the stream's acknowledgement
//! when the server runs tasks ([`crate::subscriptions`]).

use std::{
    borrow::Cow,
    collections::HashMap,
    sync::{Arc, Mutex},
};

use rmcp::{
    model::{
        ClientRequest, GetExtensions as _, GetMeta as _, JsonRpcMessage, ProtocolVersion,
        RequestId, ServerNotification,
    },
    service::{RxJsonRpcMessage, TxJsonRpcMessage},
    transport::Transport,
    RoleServer,
};
use serde_json::{json, Value};
use tokio::{
    io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader},
    sync::{mpsc, oneshot},
};

/// The longest line read (rmcp's own bound): 16 MiB.
pub(crate) const MAX_LINE: usize = 16 * 1024 * 1024;

/// The most lines waiting for the writer. An error answer that finds the queue full (a
/// client that sends bad lines and does not read) is dropped, logged.
const QUEUE: usize = 1024;

/// How long closing waits for the queued lines to be written.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// One line for the writer, and who waits for it to be written.
struct Out {
    line: Vec<u8>,
    written: Option<oneshot::Sender<std::io::Result<()>>>,
}

/// Newline-delimited JSON-RPC over `read` and a writer task, every bad line answered.
pub(crate) struct Lines<R> {
    read: BufReader<R>,
    /// The writer task's queue: the only way to the output, so lines are written whole and
    /// in order, and an answer queued by `receive` is never lost when rmcp drops a
    /// `receive` future mid-way (it polls it in a `select!`).
    out: mpsc::Sender<Out>,
    /// The writer task, awaited on close so that every queued line is written.
    writer: Option<tokio::task::JoinHandle<()>>,
    line: Vec<u8>,
    /// An oversized line is being skipped up to its newline.
    discarding: bool,
    /// rmcp left its handshake loop (`initialize`, or a first request that opens an MCP
    /// 2026-07-28 exchange): from now on every message is rmcp's.
    started: bool,
    /// The protocol versions the server speaks (what rmcp's handshake accepts inline).
    supported: Cow<'static, [ProtocolVersion]>,
    /// The `taskIds` of the listen streams whose acknowledgement is not out yet, by their
    /// request id; `None` when the server runs no task (no stream follows one).
    listens: Option<Arc<Listens>>,
}

/// The `taskIds` of listen streams not yet acknowledged, by request id.
type Listens = Mutex<HashMap<RequestId, Vec<String>>>;

impl<R: AsyncRead + Unpin> Lines<R> {
    /// Reads `read`; writes `write` from a task of its own (which needs a Tokio runtime).
    pub(crate) fn new<W: AsyncWrite + Unpin + Send + 'static>(
        read: R,
        write: W,
        supported: Cow<'static, [ProtocolVersion]>,
        follows_tasks: bool,
    ) -> Self {
        let (out, queue) = mpsc::channel(QUEUE);
        let writer = Some(tokio::spawn(writer(write, queue)));
        Self {
            read: BufReader::new(read),
            out,
            writer,
            line: Vec::new(),
            discarding: false,
            started: false,
            supported,
            listens: follows_tasks.then(Arc::default),
        }
    }
}

impl<R> Lines<R> {
    /// Queues the JSON-RPC error `code`/`message` for request `id` (no await: `receive`
    /// stays cancel-safe).
    fn answer(&self, id: Value, code: i32, message: String) {
        let error =
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
        let mut line = error.to_string().into_bytes();
        line.push(b'\n');
        if self
            .out
            .try_send(Out {
                line,
                written: None,
            })
            .is_err()
        {
            tracing::warn!("an error answer was dropped: the output does not keep up");
        }
    }

    /// Whether rmcp's handshake loop ends with `request` (server.rs `serve_server`):
    /// `initialize`, or a request other than `server/discover` and `ping` carrying complete MCP
    /// 2026-07-28 metadata for a version the server speaks. Every other request is
    /// answered by the loop, which then waits on.
    fn opens(&self, request: &ClientRequest) -> bool {
        if matches!(request, ClientRequest::InitializeRequest(_)) {
            return true;
        }
        if matches!(
            request,
            ClientRequest::DiscoverRequest(_) | ClientRequest::PingRequest(_)
        ) {
            return false;
        }
        let meta = request.get_meta();
        meta.missing_required_keys(&ProtocolVersion::V_2026_07_28)
            .is_empty()
            && meta
                .protocol_version()
                .is_some_and(|version| self.supported.contains(&version))
    }
}

/// The most lines written with one write and one flush.
const BATCH: usize = 64;

/// Writes each queued line whole, then flushes, and tells who waits. Lines that queued
/// while the last were written go out together, in order, with one write and one flush
/// (Tokio's stdout hands every write to a blocking thread): each waiter is told once its
/// line is flushed.
async fn writer<W: AsyncWrite + Unpin>(mut write: W, mut queue: mpsc::Receiver<Out>) {
    let mut batch: Vec<Out> = Vec::new();
    let mut joined: Vec<u8> = Vec::new();
    while let Some(first) = queue.recv().await {
        batch.push(first);
        while batch.len() < BATCH {
            match queue.try_recv() {
                Ok(next) => batch.push(next),
                Err(_) => break,
            }
        }
        let bytes = match &batch[..] {
            [one] => &one.line[..],
            many => {
                joined.clear();
                for out in many {
                    joined.extend_from_slice(&out.line);
                }
                &joined[..]
            }
        };
        let result = async {
            write.write_all(bytes).await?;
            write.flush().await
        }
        .await;
        let failed = result.is_err();
        for Out { written, .. } in batch.drain(..) {
            let result = match &result {
                Ok(()) => Ok(()),
                Err(error) => Err(std::io::Error::new(error.kind(), error.to_string())),
            };
            match written {
                Some(waiting) => {
                    let _ = waiting.send(result);
                }
                None => {
                    if let Err(error) = result {
                        tracing::debug!(%error, "an error answer was not written");
                    }
                }
            }
        }
        if failed {
            return;
        }
        if joined.capacity() > 1 << 20 {
            joined = Vec::new(); // not kept at the size of a batch of large lines
        }
    }
    let _ = write.shutdown().await;
}

/// What reading one line gave.
enum Read {
    Line,
    Oversized,
    Eof,
}

impl<R: AsyncRead + Unpin + Send> Lines<R> {
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

/// The answer to a line that is no message rmcp reads, if it gets one.
fn refuse<R>(lines: &Lines<R>, line: &[u8], error: &serde_json::Error) {
    use serde_json::error::Category;
    match error.classify() {
        Category::Syntax | Category::Eof | Category::Io => {
            let seen = shown(line);
            if seen.response && !seen.method {
                // A response of the client's: its id is the server's, so it gets no answer.
                tracing::warn!("a response of the client's that is not valid JSON: dropped");
                return;
            }
            let id = seen.answer_id().unwrap_or(Value::Null);
            lines.answer(
                id,
                -32700,
                format!("Parse error: the line is not valid JSON ({error})"),
            );
        }
        Category::Data => {
            let Ok(value) = serde_json::from_slice::<Value>(line) else {
                return;
            };
            if value.get("method").is_none()
                && (value.get("result").is_some() || value.get("error").is_some())
            {
                // A response of the client's to a request of the server's: its id is the
                // server's, so it gets no answer.
                tracing::warn!("a response of the client's that cannot be read: dropped");
                return;
            }
            let id = value.get("id").cloned();
            // The value reads as a message once a repeated key kept one of its values: the
            // line repeats a key (which rmcp's reader refuses).
            let reread = serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone());
            if let Ok(reread) = reread {
                if let (JsonRpcMessage::Request(_), Some(id)) = (reread, id) {
                    lines.answer(
                        id,
                        -32600,
                        "Invalid Request: the message repeats a key; JSON-RPC messages have \
                         each key once"
                            .to_owned(),
                    );
                }
                return;
            }
            let valid_id = |id: &Value| id.is_string() || id.is_i64() || id.is_u64();
            let envelope =
                value.get("jsonrpc") == Some(&json!("2.0")) && id.as_ref().is_none_or(valid_id);
            let method = value.get("method").and_then(Value::as_str);
            let (method, id) = if envelope {
                (method, id)
            } else {
                (None, id.filter(valid_id))
            };
            match (method, id) {
                // A notification is never answered.
                (Some(method), None) => {
                    tracing::debug!(method, %error, "a notification that cannot be read: dropped");
                }
                (Some(method), Some(id)) => {
                    let method = crate::wire::text::cap(method);
                    let detail = crate::wire::text::cap_message(&error.to_string());
                    lines.answer(
                        id,
                        -32602,
                        format!("Invalid params of `{method}`: {detail}"),
                    );
                }
                (None, id) => {
                    lines.answer(
                        id.unwrap_or(Value::Null),
                        -32600,
                        "Invalid Request: a JSON-RPC 2.0 message has `\"jsonrpc\": \
                         \"2.0\"` and a `method` (a request or notification) or an `id` \
                         with a `result` or `error` (a response)"
                            .to_owned(),
                    );
                }
            }
        }
    }
}

impl<R> Transport<RoleServer> for Lines<R>
where
    R: AsyncRead + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        let honoured = self
            .listens
            .as_ref()
            .and_then(|listens| acknowledged(listens, &item));
        async move {
            // A `tools/call` answer holds its result's JSON text twice (once escaped): 1 KiB
            // holds most, allocated once instead of grown from serde_json's 128 bytes.
            let mut line = Vec::with_capacity(1024);
            match honoured {
                Some(ids) => {
                    let mut message = serde_json::to_value(&item)?;
                    crate::subscriptions::honour_task_ids(&mut message, &ids);
                    serde_json::to_writer(&mut line, &message)?;
                }
                None => serde_json::to_writer(&mut line, &item)?,
            }
            line.push(b'\n');
            let (written, done) = oneshot::channel();
            let closed =
                || std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the output closed");
            out.send(Out {
                line,
                written: Some(written),
            })
            .await
            .map_err(|_| closed())?;
            done.await.map_err(|_| closed())?
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Ok(Read::Line) => {}
                Ok(Read::Oversized) => {
                    self.answer(
                        Value::Null,
                        -32600,
                        format!("Invalid Request: the line is longer than {MAX_LINE} bytes"),
                    );
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
            let mut message = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
                Ok(message) => message,
                Err(error) => {
                    refuse(self, text, &error);
                    continue;
                }
            };
            if let (Some(listens), JsonRpcMessage::Request(request)) = (&self.listens, &mut message)
            {
                if matches!(
                    request.request,
                    ClientRequest::SubscriptionsListenRequest(_)
                ) {
                    let ids = serde_json::from_slice::<Value>(text)
                        .ok()
                        .as_ref()
                        .and_then(crate::subscriptions::ListenTaskIds::of_message);
                    if let Some(ids) = ids {
                        let mut listens = crate::subscriptions::lock(listens);
                        // A listen rmcp refused is never acknowledged: a bound on them.
                        if listens.len() >= crate::subscriptions::MAX_FOLLOWED {
                            listens.clear();
                        }
                        listens.insert(request.id.clone(), ids.0.clone());
                        drop(listens);
                        request.request.extensions_mut().insert(ids);
                    }
                }
            }
            if !self.started {
                match &message {
                    JsonRpcMessage::Request(request) => {
                        self.started = self.opens(&request.request);
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
        // The writer ends (and shuts the output down) once every sender is gone: wait for
        // it, so that answers queued last are written before the process ends.
        let (closed, _) = mpsc::channel(1);
        drop(std::mem::replace(&mut self.out, closed));
        if let Some(writer) = self.writer.take() {
            let _ = tokio::time::timeout(CLOSE_WAIT, writer).await;
        }
        Ok(())
    }
}

/// The `taskIds` to list in `item` when it is the acknowledgement of a listen stream that
/// asked for tasks (taken: an acknowledgement is sent once).
fn acknowledged(listens: &Listens, item: &TxJsonRpcMessage<RoleServer>) -> Option<Vec<String>> {
    let JsonRpcMessage::Notification(notification) = item else {
        return None;
    };
    let ServerNotification::SubscriptionsAcknowledgedNotification(_) = &notification.notification
    else {
        return None;
    };
    let id = notification.notification.get_meta().subscription_id()?;
    crate::subscriptions::lock(listens).remove(&id)
}

/// What a line that does not parse shows at its top level, read without parsing it as JSON.
#[derive(Debug, Default, PartialEq)]
struct Shown {
    /// The value of `"id"`, when it is a number or a string without escapes.
    id: Option<Value>,
    /// A `"method"` key: a request or notification.
    method: bool,
    /// A `"result"` or `"error"` key: a response.
    response: bool,
}

/// The top-level keys of `line` that tell what it was meant to be.
fn shown(line: &[u8]) -> Shown {
    let mut shown = Shown::default();
    let mut depth = 0usize;
    let mut at = 0;
    while at < line.len() {
        match line[at] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let Some(end) = string_end(line, at) else {
                    return shown;
                };
                let key = &line[at + 1..end];
                at = end + 1;
                let rest = skip_space(line, at);
                if depth == 1 && line.get(rest) == Some(&b':') {
                    match key {
                        b"id" if shown.id.is_none() => {
                            shown.id = value_at(line, skip_space(line, rest + 1));
                        }
                        b"method" => shown.method = true,
                        b"result" | b"error" => shown.response = true,
                        _ => {}
                    }
                }
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    shown
}

impl Shown {
    /// The `id` to answer the line with: the request's, when the line shows a `"method"`
    /// beside it (a client's own response carries the id of a request of the server's:
    /// answering it would answer another request).
    fn answer_id(&self) -> Option<Value> {
        self.id.clone().filter(|_| self.method)
    }
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
    use super::shown;
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
            assert_eq!(
                shown(line).answer_id(),
                id,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
