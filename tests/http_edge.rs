//! The HTTP edge (issue 34, item 4): every client mistake answered with a JSON-RPC error and
//! the status that fits, rmcp's own refusals included, echoed values capped; repeated
//! security headers refused; CORS for the origins that may call (loopback too) with the
//! 2026-07-28 headers; idle, slow and surplus connections closed by `serve_http`. A server
//! written as the README teaches, served on a real TCP port; requests from reqwest and from
//! raw sockets (what no client library sends).

use std::{sync::Arc, time::Duration};

use mcp_result::{
    http::{serve_http, HttpLimits, HttpOptions, StaticTokens},
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    Identity, ToolResult,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Pong.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Pong {
    ok: bool,
}

#[derive(Clone)]
struct Desk;

#[mcp_tools]
impl Desk {
    /// Answers.
    #[mcp_tool(read_only)]
    async fn ping(&self) -> Pong {
        Pong { ok: true }
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

/// `Desk` on a free loopback port with `limits`: its address (`127.0.0.1:port`).
async fn serve(limits: HttpLimits) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let tokens = StaticTokens::new().with("alice-token", Identity::new("alice"));
    let options = HttpOptions {
        limits,
        ..HttpOptions::default()
    };
    tokio::spawn(async move {
        serve_http(
            Desk,
            listener,
            Arc::new(tokens),
            options,
            std::future::pending(),
        )
        .await
        .unwrap();
    });
    address
}

const PING: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","arguments":{}}}"#;

fn post(address: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(format!("http://{address}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
}

/// The status and JSON-RPC error of a response (which must be JSON).
async fn refusal(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let kind = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned());
    let body: Value = serde_json::from_slice(&response.bytes().await.unwrap())
        .unwrap_or_else(|e| panic!("{status}: not JSON ({e})"));
    assert_eq!(
        kind.as_deref(),
        Some("application/json"),
        "{status}: {body}"
    );
    assert_eq!(body["jsonrpc"], "2.0", "{body}");
    assert_eq!(body["id"], Value::Null, "{body}");
    (status, body["error"].clone())
}

#[tokio::test]
async fn client_mistakes_get_json_rpc_errors_with_their_status() {
    let address = serve(HttpLimits::default()).await;
    // A call as it should be.
    let ok = post(&address)
        .bearer_auth("alice-token")
        .body(PING)
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);

    // rmcp's refusals, turned into JSON-RPC errors with the same status.
    let (status, error) = refusal(
        reqwest::Client::new()
            .post(format!("http://{address}/mcp"))
            .bearer_auth("alice-token")
            .header("content-type", "text/plain")
            .header("accept", "application/json, text/event-stream")
            .body(PING)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, error["code"].clone()),
        (415, json!(-32600)),
        "{error}"
    );
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("Invalid Request: "),
        "{error}"
    );
    let (status, error) = refusal(
        reqwest::Client::new()
            .post(format!("http://{address}/mcp"))
            .bearer_auth("alice-token")
            .header("content-type", "application/json")
            .header("accept", "text/html")
            .body(PING)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, error["code"].clone()),
        (406, json!(-32600)),
        "{error}"
    );

    // A 64 KiB header that does not match the body: the echo is capped.
    let huge = "x".repeat(64 << 10);
    let response = reqwest::Client::new()
        .post(format!("http://{address}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .bearer_auth("alice-token")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", &huge)
        .body(PING)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let bytes = response.bytes().await.unwrap();
    assert!((400..500).contains(&status), "{status}");
    assert!(bytes.len() < 1024, "{status}: {} bytes", bytes.len());
    let body: Value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("{status} {e}: {}", String::from_utf8_lossy(&bytes)));
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], -32020, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("Mcp-Method header `xxx"), "{message}");
    assert!(message.ends_with('…'), "{message}");

    // The framework's own: a body that is not JSON.
    let (status, error) = refusal(
        post(&address)
            .bearer_auth("alice-token")
            .body("{not json")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, error["code"].clone()),
        (400, json!(-32700)),
        "{error}"
    );
}

/// The server declares no scopes, so a `tools/call` goes to rmcp unread by the edge; what
/// rmcp refuses gets the edge's answer for its body, the one it got when the edge read every
/// body first: each case below, whichever header rmcp refused first. A `tools/call` whose
/// params cannot be read, in a request rmcp takes, is the server's to answer, as on stdio:
/// `-32602` with the request's id (a server whose tools declare scopes refuses it at the
/// edge, before its scope check, `tests/oauth.rs`).
#[tokio::test]
async fn a_body_rmcp_refuses_gets_the_edges_answer_for_it() {
    let address = serve(HttpLimits::default()).await;
    let not_a_message = "Invalid Request: a JSON-RPC 2.0 message has `\"jsonrpc\": \"2.0\"` \
                         and a `method` (a request or notification) or an `id` with a `result` \
                         or `error` (a response)";
    let not_an_object = "Invalid Request: the body is not a JSON-RPC 2.0 message object";
    let bad_params = "Invalid params: tools/call takes {\"name\": string, \"arguments\"?: \
                      object}, each key once";
    let server_says = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602,
        "message": "invalid tools/call params: expected {\"name\": string, \"arguments\"?: object}"}});
    for (body, code, message) in [
        (
            r#" [{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#,
            -32600,
            "Invalid Request: a POST body is one JSON-RPC message; batches are not supported \
             (MCP 2025-06-18 removed JSON-RPC batching)",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/ca"#,
            -32700,
            "Parse error: the body is not valid JSON (line 1, column 42)",
        ),
        (r#"{"id":1,"method":"tools/call"}"#, -32600, not_a_message),
        (
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call"}"#,
            -32600,
            not_a_message,
        ),
        (r#"{"jsonrpc":"2.0","id":1}"#, -32600, not_a_message),
        (r#""tools/call""#, -32600, not_an_object),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"ping"}}"#,
            -32600,
            not_an_object,
        ),
        (
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping"}}"#,
            -32600,
            not_an_object,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"ping"}}"#,
            -32600,
            not_an_object,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":7}"#,
            -32602,
            bad_params,
        ),
    ] {
        for accept in ["application/json, text/event-stream", "text/html"] {
            let response = reqwest::Client::new()
                .post(format!("http://{address}/mcp"))
                .header("content-type", "application/json")
                .header("accept", accept)
                .bearer_auth("alice-token")
                .body(body)
                .send()
                .await
                .unwrap();
            let (status, error) = refusal(response).await;
            assert_eq!(
                (status, error),
                (400, json!({"code": code, "message": message})),
                "{body} (Accept: {accept})"
            );
        }
    }
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","name":"ping"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}"#,
    ] {
        let response = post(&address)
            .bearer_auth("alice-token")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{body}");
        let answer: Value = serde_json::from_slice(&response.bytes().await.unwrap()).unwrap();
        assert_eq!(answer, server_says, "{body}");
        let (status, error) = refusal(
            reqwest::Client::new()
                .post(format!("http://{address}/mcp"))
                .header("content-type", "application/json")
                .header("accept", "text/html")
                .bearer_auth("alice-token")
                .body(body)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(
            (status, error),
            (400, json!({"code": -32602, "message": bad_params})),
            "{body}"
        );
    }
}

#[tokio::test]
async fn repeated_security_headers_are_refused() {
    let address = serve(HttpLimits::default()).await;
    for (name, first, second) in [
        ("authorization", "Bearer alice-token", "Bearer other"),
        ("origin", "http://localhost:3000", "https://evil.example"),
    ] {
        let (status, error) = refusal(
            post(&address)
                .header(name, first)
                .header(name, second)
                .bearer_auth("alice-token")
                .body(PING)
                .send()
                .await
                .unwrap(),
        )
        .await;
        let shown = if name == "origin" {
            "Origin"
        } else {
            "Authorization"
        };
        let count = if name == "origin" { 2 } else { 3 };
        assert_eq!(status, 400);
        assert_eq!(
            error,
            json!({"code": -32600,
                   "message": format!("Invalid Request: {count} `{shown}` headers; send one")})
        );
    }
    // Two Host headers, on a raw socket (no client library sends them).
    let mut socket = tokio::net::TcpStream::connect(&address).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {address}\r\nhost: evil.example\r\nauthorization: Bearer \
         alice-token\r\ncontent-type: application/json\r\naccept: application/json, \
         text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{PING}",
        PING.len()
    );
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    socket.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(
        answer.contains("Invalid Request: 2 `Host` headers; send one"),
        "{answer}"
    );
}

#[tokio::test]
async fn loopback_pages_get_cors_before_authentication() {
    let address = serve(HttpLimits::default()).await;
    let preflight = |origin: &str| {
        reqwest::Client::new()
            .request(reqwest::Method::OPTIONS, format!("http://{address}/mcp"))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization, content-type, mcp-protocol-version, mcp-method, mcp-name",
            )
            .send()
    };
    // The MCP Inspector's page, on loopback: answered before any token.
    let answer = preflight("http://localhost:6274").await.unwrap();
    assert_eq!(answer.status(), 200);
    let header = |name: &str| {
        answer
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    assert_eq!(
        header("access-control-allow-origin"),
        "http://localhost:6274"
    );
    let allowed = header("access-control-allow-headers");
    for name in [
        "authorization",
        "mcp-protocol-version",
        "mcp-method",
        "mcp-name",
    ] {
        assert!(allowed.contains(name), "{name} in {allowed}");
    }
    // The call itself: a page's POST (it names its origin) gets CORS headers; a POST with
    // no `Origin`, which no browser sends, gets none, nor `Vary` (no cache keeps a POST's
    // answer).
    let from_page = post(&address)
        .bearer_auth("alice-token")
        .header("origin", "http://localhost:6274")
        .body(PING)
        .send()
        .await
        .unwrap();
    assert_eq!(from_page.status(), 200);
    let cors = |response: &reqwest::Response, name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    assert_eq!(
        cors(&from_page, "access-control-allow-origin").as_deref(),
        Some("http://localhost:6274")
    );
    assert!(cors(&from_page, "access-control-expose-headers")
        .unwrap_or_default()
        .contains("mcp-session-id"));
    assert!(cors(&from_page, "vary").is_some());
    let direct = post(&address)
        .bearer_auth("alice-token")
        .body(PING)
        .send()
        .await
        .unwrap();
    assert_eq!(direct.status(), 200);
    let access: Vec<_> = direct
        .headers()
        .keys()
        .filter(|name| name.as_str().starts_with("access-control-") || *name == "vary")
        .collect();
    assert!(access.is_empty(), "{access:?}");
    // A server without authentication answers loopback pages CORS only when listed: any
    // local page could call its tools otherwise.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let anonymous = listener.local_addr().unwrap().to_string();
    tokio::spawn(serve_http(
        Desk,
        listener,
        Arc::new(mcp_result::http::Anonymous::new(Identity::new("local"))),
        HttpOptions::default(),
        std::future::pending(),
    ));
    let unlisted = reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, format!("http://{anonymous}/mcp"))
        .header("origin", "http://localhost:6274")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert!(
        unlisted
            .headers()
            .get("access-control-allow-origin")
            .is_none(),
        "{:?}",
        unlisted.headers()
    );
    // A foreign page: refused, preflight included.
    let (status, error) = refusal(preflight("https://evil.example").await.unwrap()).await;
    assert_eq!((status, error["code"].clone()), (403, json!(-32600)));
}

/// Reads until the peer closes (or `limit` passes): what it sent, and whether it closed.
async fn until_closed(socket: &mut tokio::net::TcpStream, limit: Duration) -> (String, bool) {
    let mut seen = Vec::new();
    let read = tokio::time::timeout(limit, socket.read_to_end(&mut seen)).await;
    (String::from_utf8_lossy(&seen).into_owned(), read.is_ok())
}

#[tokio::test]
async fn idle_slow_and_surplus_connections_are_closed() {
    let limits = HttpLimits::default()
        .with_max_connections(3)
        .with_header_read(Duration::from_millis(300))
        .with_body_read(Duration::from_millis(300));
    let address = serve(limits).await;
    // Silent: closed after the header timeout.
    let started = std::time::Instant::now();
    let mut silent = tokio::net::TcpStream::connect(&address).await.unwrap();
    let (_, closed) = until_closed(&mut silent, Duration::from_secs(5)).await;
    assert!(closed, "a silent connection is closed");
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "{:?}",
        started.elapsed()
    );
    // Headers sent slowly, never finished: closed too.
    let mut slow = tokio::net::TcpStream::connect(&address).await.unwrap();
    slow.write_all(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let (_, closed) = until_closed(&mut slow, Duration::from_secs(5)).await;
    assert!(closed, "a connection whose headers never end is closed");
    // A body that never arrives: 408 with a JSON-RPC error.
    let mut trickle = tokio::net::TcpStream::connect(&address).await.unwrap();
    trickle
        .write_all(
            b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer alice-token\r\n\
              content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
              content-length: 100\r\n\r\n{\"jsonrpc\"",
        )
        .await
        .unwrap();
    let (answer, _) = until_closed(&mut trickle, Duration::from_secs(5)).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("Invalid Request: the body did not arrive within 0.3 s"),
        "{answer}"
    );

    // Three open connections fill the server: a fourth is answered 503 and closed.
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(tokio::net::TcpStream::connect(&address).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    // A real client has sent its request before it reads: the 503 still arrives whole.
    let mut surplus = tokio::net::TcpStream::connect(&address).await.unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {address}\r\nauthorization: Bearer alice-token\r\n\
         content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
         content-length: {}\r\n\r\n{PING}",
        PING.len()
    );
    surplus.write_all(request.as_bytes()).await.unwrap();
    let (answer, closed) = until_closed(&mut surplus, Duration::from_secs(5)).await;
    assert!(closed);
    assert!(
        answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
        "{answer}"
    );
    assert!(answer.contains("retry-after: 1\r\n"), "{answer}");
    assert!(
        answer.contains("Server busy: too many open connections"),
        "{answer}"
    );
    // Once the header timeout closed the idle ones, calls go through again.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let ok = post(&address)
        .bearer_auth("alice-token")
        .body(PING)
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    drop(held);
}
