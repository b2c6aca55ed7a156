//! A look at a POST body before rmcp reads it: one JSON-RPC message or a `400` with a
//! JSON-RPC error a client can act on, and a `tools/call` the caller lacks a scope for
//! answered `403 insufficient_scope` (MCP "Authorization", Scope Challenge Handling), so
//! hosts' step-up flows start before the tool runs. A `notifications/cancelled` outside a
//! session, which rmcp accepts and drops (it has no session to find the call in), goes to
//! the instance's [`CancelBus`](crate::CancelBus) with the caller's identity.

use std::{borrow::Cow, future::Future};

use axum::{
    body::{to_bytes, Body},
    extract::Request,
    http::{Method, StatusCode},
    response::{IntoResponse, Response},
};
use serde::{de::IgnoredAny, Deserialize};
use serde_json::{json, value::RawValue};

use super::auth::Challenge;
use crate::{
    state::State as InstanceState, subscriptions::ListenTaskIds, wire::identity::Identity,
};

/// The largest body looked at, as rmcp's own limit: larger ones are answered `413`.
const MAX_BODY: usize = 4 * 1024 * 1024;

pub(crate) struct Calls {
    /// The scopes a call of a tool needs, by tool name.
    pub(crate) scopes: Box<dyn Fn(&str) -> &'static [&'static str] + Send + Sync>,
    pub(crate) challenge: Challenge,
    /// How long the body may take to arrive ([`super::HttpLimits::body_read`]).
    pub(crate) body_read: std::time::Duration,
    /// Whether the router serves without sessions ([`super::HttpOptions::sessions`] off).
    pub(crate) stateless: bool,
    /// Whether a `subscriptions/listen` stream follows tasks (a tool runs as a task).
    pub(crate) follows_tasks: bool,
    /// Whether a tool declares scopes ([`Calls::scopes`] names some).
    pub(crate) scoped: bool,
}

/// What the look needs of a message; the rest is skipped, not built: of `id`, `result`
/// and `error` only whether they are there.
#[derive(Deserialize)]
struct Peek<'a> {
    #[serde(borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    id: Option<IgnoredAny>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
    result: Option<IgnoredAny>,
    error: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    /// A `Cow`: a name written with escapes (`"delete\u005fticket"`) is the name rmcp sees.
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
}

/// A `400` with a JSON-RPC error of `code` (`-32700` parse error, `-32600` invalid request)
/// and `id` null: the request's id could not be read or the message is not one request.
fn bad_request(code: i32, message: &str) -> Response {
    refusal(StatusCode::BAD_REQUEST, code, message)
}

/// A `status` answer with a JSON-RPC error of `code` and `message`, `id` null: how the edge
/// answers every client mistake.
pub(crate) fn refusal(status: StatusCode, code: i32, message: &str) -> Response {
    error_response(
        status,
        serde_json::Value::Null,
        json!({"code": code, "message": message}),
    )
}

/// A `status` answer whose body is the JSON-RPC error `error` for request `id`: the one
/// place the edge writes one.
pub(crate) fn error_response(
    status: StatusCode,
    id: serde_json::Value,
    error: serde_json::Value,
) -> Response {
    (
        status,
        axum::Json(json!({"jsonrpc": "2.0", "id": id, "error": error})),
    )
        .into_response()
}

/// The look at a request's body: its answer when the look refuses it, else `next`'s (the
/// layers beneath, given the body back), with what the look found acted on.
///
/// A body the edge has nothing to act on ([`Calls::must_look`] says no) goes to rmcp unread
/// here, as every `tools/call` of a server without scopes does: rmcp parses it anyway. When
/// rmcp refuses it (a `4xx`), the look runs then, and a body it refuses gets the look's
/// answer instead of rmcp's, as when the look came first: one parse fewer for the calls that
/// pass, the same answers, but for a `tools/call` whose params the look cannot read and rmcp
/// takes, which the server answers as on stdio (`-32602` with the request's id).
pub(crate) async fn check_call<Next, Answer>(
    calls: &Calls,
    request: Request,
    next: Next,
) -> Response
where
    Next: FnOnce(Request) -> Answer,
    Answer: Future<Output = Response>,
{
    if request.method() != Method::POST {
        return next(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match tokio::time::timeout(calls.body_read, to_bytes(body, MAX_BODY)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            return refusal(
                StatusCode::PAYLOAD_TOO_LARGE,
                -32600,
                "Invalid Request: the body is larger than 4 MiB, or was cut off",
            )
        }
        Err(_elapsed) => {
            return refusal(
                StatusCode::REQUEST_TIMEOUT,
                -32600,
                &format!(
                    "Invalid Request: the body did not arrive within {} s",
                    calls.body_read.as_secs_f64()
                ),
            )
        }
    };
    if !calls.must_look(&bytes) {
        let response = next(Request::from_parts(parts, Body::from(bytes.clone()))).await;
        if response.status().is_client_error() {
            if let Err(refused) = look(&bytes) {
                return refused;
            }
        }
        return response;
    }
    let peek = match look(&bytes) {
        Ok(peek) => peek,
        Err(refused) => return refused,
    };
    if let Some(name) = peek.tool.as_deref() {
        let required = (calls.scopes)(name);
        if !required.is_empty() {
            let identity = parts.extensions.get::<Identity>();
            let missing = required
                .iter()
                .any(|scope| !identity.is_some_and(|identity| identity.has_scope(scope)));
            if missing {
                tracing::info!(tool = name, "tools/call without a required scope: 403");
                let scope = required.join(" ");
                return calls.challenge.refuse(
                    StatusCode::FORBIDDEN,
                    Some("insufficient_scope"),
                    Some(&scope),
                    &format!(
                        "this tool needs the scope{} `{}`: ask the authorization server for \
                         a token with {} (step-up authorization)",
                        if required.len() == 1 { "" } else { "s" },
                        required.join("`, `"),
                        if required.len() == 1 { "it" } else { "them" },
                    ),
                );
            }
        }
    }
    let cancel = cancel_outside_session(calls, &peek, &parts);
    let mut parts = parts;
    let tasks = (calls.follows_tasks && peek.method.as_deref() == Some("subscriptions/listen"))
        .then(|| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .flatten()
        .as_ref()
        .and_then(ListenTaskIds::of_message);
    if let Some(ids) = &tasks {
        parts.extensions.insert(ids.clone());
    }
    let response = next(Request::from_parts(parts, Body::from(bytes))).await;
    if let Some(ids) = tasks {
        let (parts, body) = response.into_parts();
        return Response::from_parts(parts, super::acknowledge::honour_in_stream(body, ids.0));
    }
    if let Some((caller, state, request)) = cancel {
        // Accepted by rmcp (its header checks passed): cancelled here, and sent on.
        if response.status() == StatusCode::ACCEPTED {
            state.cancel_bus().cancel(&caller, &request).await;
        }
    }
    response
}

impl Calls {
    /// Whether the edge acts on what `body` may be: a `tools/call` of a server whose tools
    /// declare scopes, a `notifications/cancelled`, a `subscriptions/listen` of a server
    /// that runs tasks. Decided on the bytes, before any parse, in one pass over the `/`s
    /// (each of these names has one) and `\`s: a method names itself in the body unless
    /// written with escapes (a `\` anywhere, and the body is looked at). A body that names
    /// one elsewhere (in an argument) is looked at too.
    fn must_look(&self, body: &[u8]) -> bool {
        let names = |at: usize, before: &[u8], after: &[u8]| {
            body[..at].ends_with(before) && body[at + 1..].starts_with(after)
        };
        memchr::memchr2_iter(b'/', b'\\', body).any(|at| {
            body[at] == b'\\'
                || (self.scoped && names(at, b"tools", b"call"))
                || names(at, b"notifications", b"cancelled")
                || (self.follows_tasks && names(at, b"subscriptions", b"listen"))
        })
    }
}

/// What [`look`] found in a body: the message's fields it reads, and the tool a
/// `tools/call` names (as rmcp will read it).
struct Looked<'a> {
    method: Option<Cow<'a, str>>,
    id: bool,
    params: Option<&'a RawValue>,
    tool: Option<Cow<'a, str>>,
}

/// The body as one JSON-RPC 2.0 message, or the `400` that says why it is not: a batch,
/// text that is not JSON (`-32700`), JSON that is not a message (`-32600`), a `tools/call`
/// whose params this look cannot read (`-32602`: a duplicate key, no object), refused so the
/// scope check cannot be stepped around.
fn look(bytes: &[u8]) -> Result<Looked<'_>, Response> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        return Err(bad_request(
            -32600,
            "Invalid Request: a POST body is one JSON-RPC message; batches are not supported \
             (MCP 2025-06-18 removed JSON-RPC batching)",
        ));
    }
    // Read as text when it is UTF-8 (the usual case): the borrowed `params` needs no second
    // UTF-8 check then. Other bytes get serde_json's own error, and its position.
    let parsed = match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str::<Peek>(text),
        Err(_) => serde_json::from_slice::<Peek>(bytes),
    };
    let peek = match parsed {
        Ok(peek) => peek,
        Err(error) if error.is_syntax() || error.is_eof() => {
            return Err(bad_request(
                -32700,
                &format!(
                    "Parse error: the body is not valid JSON (line {}, column {})",
                    error.line(),
                    error.column()
                ),
            ));
        }
        Err(_) => {
            return Err(bad_request(
                -32600,
                "Invalid Request: the body is not a JSON-RPC 2.0 message object",
            ));
        }
    };
    let message = peek.jsonrpc.as_deref() == Some("2.0")
        && (peek.method.is_some()
            || (peek.id.is_some() && (peek.result.is_some() || peek.error.is_some())));
    if !message {
        return Err(bad_request(
            -32600,
            "Invalid Request: a JSON-RPC 2.0 message has `\"jsonrpc\": \"2.0\"` and a \
             `method` (a request or notification) or an `id` with a `result` or `error` (a \
             response)",
        ));
    }
    let tool = if peek.method.as_deref() == Some("tools/call") {
        match peek
            .params
            .map(|params| serde_json::from_str::<CallParams>(params.get()))
        {
            Some(Ok(params)) => params.name,
            _ => {
                return Err(bad_request(
                    -32602,
                    "Invalid params: tools/call takes {\"name\": string, \"arguments\"?: \
                     object}, each key once",
                ))
            }
        }
    } else {
        None
    };
    Ok(Looked {
        method: peek.method,
        id: peek.id.is_some(),
        params: peek.params,
        tool,
    })
}

/// The call a `notifications/cancelled` outside a session names: its caller's key (the
/// identity of this POST's token), the instance's state, and the request id. `None` for
/// any other message, one in a session (rmcp's), or one without a `requestId`.
fn cancel_outside_session(
    calls: &Calls,
    peek: &Looked<'_>,
    parts: &axum::http::request::Parts,
) -> Option<(String, InstanceState, rmcp::model::RequestId)> {
    if peek.method.as_deref() != Some("notifications/cancelled") || peek.id {
        return None;
    }
    if !calls.stateless && parts.headers.contains_key("mcp-session-id") {
        return None;
    }
    let params: rmcp::model::CancelledNotificationParam =
        serde_json::from_str(peek.params?.get()).ok()?;
    let caller = parts.extensions.get::<Identity>()?.key();
    let state = parts
        .extensions
        .get::<crate::state::Served>()?
        .state
        .clone();
    Some((caller, state, params.request_id?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(scoped: bool, follows_tasks: bool) -> Calls {
        Calls {
            scopes: Box::new(|_| &[]),
            challenge: Challenge {
                resource_metadata: None,
                scope: String::new(),
            },
            body_read: std::time::Duration::from_secs(1),
            stateless: true,
            follows_tasks,
            scoped,
        }
    }

    #[test]
    fn a_body_is_looked_at_when_it_may_name_what_the_edge_acts_on() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#;
        let cancel = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#;
        let listen = br#"{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen"}"#;
        let escaped = br#"{"jsonrpc":"2.0","id":1,"method":"tools\/call"}"#;
        let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"a":"b/c"}}"#;
        let plain = calls(false, false);
        assert!(!plain.must_look(call) && !plain.must_look(listen) && !plain.must_look(list));
        assert!(plain.must_look(cancel) && plain.must_look(escaped));
        assert!(calls(true, false).must_look(call));
        assert!(!calls(true, false).must_look(list));
        assert!(calls(false, true).must_look(listen));
        // A name in an argument: looked at, which is only slower.
        assert!(plain.must_look(br#"{"params":{"note":"notifications/cancelled"}}"#));
        assert!(!plain.must_look(b"/"));
    }
}
