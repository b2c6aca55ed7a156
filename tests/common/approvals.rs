//! The desk the approvals page's areas serve (`approval_page`, `approval_url`,
//! `approval_oauth`, `approval_browser`): one approval-gated write, `close_ticket`, with a
//! secret argument, and a count of the writes that ran.

use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Arc,
};

use mcp_result::{
    extract::WriteContext, mcp_handler, mcp_tools, rmcp::ServerHandler, AuditEventId, Secret,
    Status, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The desk; `closed` counts the writes that ran.
#[derive(Clone)]
pub struct Desk {
    pub closed: Arc<AtomicUsize>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CloseArgs {
    ticket_id: String,
    /// The note left on the ticket.
    note: Option<String>,
    /// Credentials for the ticketing upstream.
    token: Secret<String>,
    /// Tickets closed with it.
    related: Option<Vec<Related>>,
}

/// A ticket closed with another.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Related {
    ticket_id: String,
    /// Why.
    reason: String,
}

/// Closed.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
pub struct Closed {
    ticket_id: String,
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
    approval_id: Option<String>,
}

#[mcp_tools]
impl Desk {
    /// Closes a ticket, once a human approved.
    #[mcp_tool(title = "Close a ticket", approval = "Close ticket {ticketId}")]
    async fn close_ticket(
        &self,
        args: CloseArgs,
        write: WriteContext,
    ) -> Result<Closed, ToolError> {
        let _ = (args.token, args.note);
        let _ = args
            .related
            .iter()
            .flatten()
            .map(|r| (&r.ticket_id, &r.reason));
        self.closed.fetch_add(1, Ordering::SeqCst);
        Ok(Closed {
            ticket_id: args.ticket_id,
            status: Status::Succeeded,
            retry_safe: false,
            audit_event_id: write.audit_event_id().clone(),
            approval_id: None,
        })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

/// A fresh desk served on `listener` (streamable HTTP with `options`, callers known by
/// `verifier`) until the test ends: its count of the writes that ran.
pub fn serve(
    listener: tokio::net::TcpListener,
    verifier: Arc<dyn mcp_result::http::TokenVerifier>,
    options: mcp_result::http::HttpOptions,
) -> Arc<AtomicUsize> {
    let closed = Arc::new(AtomicUsize::new(0));
    let desk = Desk {
        closed: Arc::clone(&closed),
    };
    tokio::spawn(async move {
        mcp_result::http::serve_http(desk, listener, verifier, options, std::future::pending())
            .await
            .unwrap();
    });
    closed
}

/// The `_meta` of an MCP 2026-07-28 request of a raw client whose capabilities declare
/// `elicitation` (`{"url": {}}`, `{"form": {}}`).
pub fn meta_2026(elicitation: serde_json::Value) -> serde_json::Value {
    serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": elicitation},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    })
}

/// A `tools/call` of `close_ticket` with `params` on MCP 2026-07-28 at the MCP endpoint
/// `url`, as the holder of `token`, over streamable HTTP with raw JSON-RPC: the JSON-RPC
/// `result` (within 60 s; JSON, or one SSE event carrying it).
pub async fn call_2026(url: &str, token: &str, params: serde_json::Value) -> serde_json::Value {
    let body =
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let response = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        reqwest::Client::new()
            .post(url)
            .bearer_auth(token)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "close_ticket")
            .body(body.to_string())
            .send(),
    )
    .await
    .expect("the call answers")
    .unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    let json = text
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .unwrap_or(&text);
    let answer: serde_json::Value = serde_json::from_str(json).unwrap();
    answer
        .get("result")
        .unwrap_or_else(|| panic!("a result: {answer}"))
        .clone()
}

/// Opens the approvals page's sign-in link `url` as a person does: its `GET` shows one
/// button and spends nothing (no cookie; a link malformed is refused there, `403`), and
/// that button's `POST` uses the link: the `POST`'s response (or the `GET`'s refusal).
pub async fn use_sign_in_link(client: &reqwest::Client, url: &str) -> reqwest::Response {
    let shown = client.get(url).send().await.unwrap();
    if shown.status() != 200 {
        return shown;
    }
    assert!(
        shown.headers().get("set-cookie").is_none(),
        "opening a link opens no session"
    );
    let body = shown.text().await.unwrap();
    assert!(
        body.contains(r#"<button type="submit">Sign in</button>"#),
        "{body}"
    );
    let (action, query) = url.split_once('?').expect("a link with its token");
    let token: String = form_urlencoded_token(query);
    client
        .post(action)
        .form(&[("token", token)])
        .send()
        .await
        .unwrap()
}

/// The `token` of a sign-in link's query.
fn form_urlencoded_token(query: &str) -> String {
    reqwest::Url::parse(&format!("http://link/?{query}"))
        .ok()
        .and_then(|url| {
            url.query_pairs()
                .find(|(name, _)| name == "token")
                .map(|(_, token)| token.into_owned())
        })
        .unwrap_or_default()
}
