//! Tool execution errors (`isError: true` results with the envelope) versus protocol errors
//! (JSON-RPC `error`), over a real rmcp transport (an in-process duplex stream for the
//! error-kind server; the example binary over stdio for raw malformed requests).
// The desk and its audit records below serve the tests that need the `testing` harness.
#![cfg_attr(not(feature = "testing"), allow(dead_code))]

mod common;

use std::time::Duration;

use common::*;
use mcp_result::{
    mcp_handler, mcp_tools,
    rmcp::{
        model::{CallToolRequestParams, CallToolResult},
        ServerHandler, ServiceExt,
    },
    AuditEventId, ErrorKind, FieldError, ResultExt, Status, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Done.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Done {
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
}

/// What the upstream answered.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Answer {
    value: u32,
}

#[derive(Deserialize, JsonSchema)]
struct Which {
    /// One of the error kinds.
    kind: String,
}

/// A user's own error enum, converted by `From`.
enum BillingError {
    CardDeclined,
    LedgerDown,
}

impl From<BillingError> for ToolError {
    fn from(error: BillingError) -> Self {
        match error {
            BillingError::CardDeclined => {
                ToolError::conflict("The card was declined; ask for another card.")
            }
            BillingError::LedgerDown => {
                ToolError::upstream_unavailable("The ledger is down.", true)
                    .with_retry_after(Duration::from_secs(30))
            }
        }
    }
}

/// A file's text.
#[derive(Serialize, JsonSchema, ToolResult)]
struct FileText {
    text: String,
}

/// A file's size in bytes.
#[derive(Serialize, JsonSchema, ToolResult)]
struct FileSize {
    bytes: u64,
}

#[derive(Deserialize, JsonSchema)]
struct PathArgs {
    /// A path on the server's machine.
    path: String,
}

#[derive(Clone)]
struct Kinds;

#[mcp_tools]
impl Kinds {
    /// Fails with the error kind it is asked for.
    #[mcp_tool(destructive)]
    fn fail(&self, which: Which) -> Result<Done, ToolError> {
        Err(match which.kind.as_str() {
            "validation_error" => ToolError::validation(vec![
                FieldError::new("/amount", "must be positive"),
                FieldError::new("/currency", "unknown currency `XXX`"),
            ]),
            "permission_denied" => ToolError::permission_denied("billing:write"),
            "policy_blocked" => ToolError::policy_blocked("refunds above 1000 EUR need a manager")
                .with_audit_event_id(AuditEventId::new("audit-9")),
            "not_found" => ToolError::not_found("No invoice `INV-1`."),
            "internal" => ToolError::internal("corr-1"),
            _ => ToolError::upstream_timeout(Duration::from_millis(1500), false),
        })
    }

    /// Fails with the user's own error type.
    #[mcp_tool(read_only)]
    fn charge(&self, which: Which) -> Result<Answer, BillingError> {
        match which.kind.as_str() {
            "declined" => Err(BillingError::CardDeclined),
            _ => Err(BillingError::LedgerDown),
        }
    }

    /// Panics with a message that holds a secret.
    #[mcp_tool(read_only)]
    fn explode(&self) -> Answer {
        panic!("db password is hunter2")
    }

    /// Answers after 5 s; its limit is 100 ms.
    #[mcp_tool(read_only, idempotent, timeout_ms = 100)]
    async fn slow(&self) -> Answer {
        tokio::time::sleep(Duration::from_secs(5)).await;
        Answer { value: 1 }
    }

    /// Reads a file's text: `?` on its `io::Error`.
    #[mcp_tool(read_only)]
    fn read_text(&self, args: PathArgs) -> Result<FileText, ToolError> {
        Ok(FileText {
            text: std::fs::read_to_string(&args.path)?,
        })
    }

    /// A file's size: the tool's error is the `io::Error` itself.
    #[mcp_tool(read_only)]
    async fn file_size(&self, args: PathArgs) -> std::io::Result<FileSize> {
        let bytes = tokio::fs::metadata(&args.path).await?.len();
        Ok(FileSize { bytes })
    }

    /// Answers 42.
    #[mcp_tool(read_only)]
    fn answer(&self) -> Answer {
        Answer { value: 42 }
    }
}

#[mcp_handler]
impl ServerHandler for Kinds {}

async fn kinds_client() -> (Client, tokio::task::JoinHandle<()>) {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(async move {
        if let Ok(running) = Kinds.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("initialize");
    (client, server)
}

async fn checked_call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    let tools = client.list_all_tools().await.unwrap();
    let result = call(client, name, arguments).await.unwrap();
    let structured = result
        .structured_content
        .clone()
        .expect("structuredContent");
    let errors = schema_errors(&output_schema(tool(&tools, name)), &structured);
    assert!(
        errors.is_empty(),
        "{name}: envelope fails the advertised outputSchema: {errors:?}"
    );
    assert_eq!(
        text(&result, 1),
        serde_json::to_string(&structured).unwrap()
    );
    result
}

#[tokio::test]
async fn each_error_kind_has_its_exact_envelope_and_text() {
    let (client, _server) = kinds_client().await;
    let cases = [
        (
            "validation_error",
            json!({"status": "failed", "errorKind": "validation_error", "retrySafe": false,
                   "message": "2 arguments are invalid. Fix all of them and call again.",
                   "fieldErrors": [{"pointer": "/amount", "message": "must be positive"},
                                   {"pointer": "/currency", "message": "unknown currency `XXX`"}]}),
            "Error (validation_error): 2 arguments are invalid. Fix all of them and call again.\n- `/amount`: must be positive\n- `/currency`: unknown currency `XXX`",
        ),
        (
            "permission_denied",
            json!({"status": "failed", "errorKind": "permission_denied", "retrySafe": false,
                   "message": "Permission denied: this call needs the `billing:write` scope.",
                   "requiredScope": "billing:write"}),
            "Error (permission_denied): Permission denied: this call needs the `billing:write` scope. Do not retry until the caller has that scope.",
        ),
        (
            "policy_blocked",
            json!({"status": "blocked", "errorKind": "policy_blocked", "retrySafe": false,
                   "message": "Blocked by policy: refunds above 1000 EUR need a manager. Do not retry or work around it.",
                   "reason": "refunds above 1000 EUR need a manager", "auditEventId": "audit-9",
                   "externalId": "audit-9"}),
            "Error (policy_blocked): Blocked by policy: refunds above 1000 EUR need a manager. Do not retry or work around it.",
        ),
        (
            "not_found",
            json!({"status": "failed", "errorKind": "not_found", "retrySafe": false,
                   "message": "No invoice `INV-1`."}),
            "Error (not_found): No invoice `INV-1`. Do not retry unchanged.",
        ),
        (
            "internal",
            json!({"status": "failed", "errorKind": "internal", "retrySafe": false,
                   "message": "Internal error (correlation id corr-1).", "correlationId": "corr-1"}),
            "Error (internal): Internal error (correlation id corr-1). Do not retry automatically: the call may have taken effect.",
        ),
        (
            "upstream_timeout",
            json!({"status": "failed", "errorKind": "upstream_timeout", "retrySafe": false,
                   "message": "The upstream did not answer within 1500 ms."}),
            "Error (upstream_timeout): The upstream did not answer within 1500 ms. Do not retry automatically: the call may have taken effect.",
        ),
    ];
    for (kind, envelope, summary) in cases {
        let result = checked_call(&client, "fail", json!({"kind": kind})).await;
        assert_eq!(result.is_error, Some(true), "{kind}");
        // `fail` is a write tool: its errors carry the audit event the framework minted
        // (a UUIDv7); an audit id the tool set is kept as the `externalId`.
        let mut structured = result.structured_content.clone().unwrap();
        let minted = structured
            .as_object_mut()
            .unwrap()
            .remove("auditEventId")
            .unwrap();
        let minted = minted.as_str().unwrap();
        assert_eq!(
            (minted.len(), &minted[14..15]),
            (36, "7"),
            "{kind}: {minted}"
        );
        let mut envelope = envelope;
        envelope.as_object_mut().unwrap().remove("auditEventId");
        assert_eq!(structured, envelope, "{kind}");
        // The first block names the audit event of the failed write, and the tool's own id.
        let (first, rest) = summary.split_once('\n').unwrap_or((summary, ""));
        let external = match structured.get("externalId").and_then(Value::as_str) {
            Some(id) => format!(" External id `{id}`."),
            None => String::new(),
        };
        let summary = format!("{first} Audit event `{minted}`.{external}")
            + &if rest.is_empty() {
                String::new()
            } else {
                format!("\n{rest}")
            };
        assert_eq!(text(&result, 0), summary, "{kind}");
    }
    client.cancel().await.unwrap();
}

// With the test harness (feature `testing`): the server in-process, rmcp's client, every
// result checked against its outputSchema and the tools list against the host lint.
#[cfg(feature = "testing")]
#[tokio::test]
async fn an_io_error_answers_the_kind_of_its_io_error_kind() {
    let (client, server) = kinds_client().await;
    let missing = "/no/such/mcp-result-file";
    let cases = [
        (
            "read_text",
            missing,
            "not_found",
            "Not found. (No such file or directory (os error 2))",
        ),
        (
            "file_size",
            missing,
            "not_found",
            "Not found. (No such file or directory (os error 2))",
        ),
        (
            "read_text",
            "/",
            "conflict",
            "The file system does not allow this here. (Is a directory (os error 21))",
        ),
    ];
    for (tool, path, kind, message) in cases {
        let result = checked_call(&client, tool, json!({ "path": path })).await;
        assert_eq!(result.is_error, Some(true), "{tool} {path}");
        let envelope = result.structured_content.unwrap();
        assert_eq!(
            (
                &envelope["errorKind"],
                &envelope["message"],
                &envelope["retrySafe"]
            ),
            (&json!(kind), &json!(message), &json!(true)),
            "{tool} {path}: {envelope}"
        );
    }
    client.cancel().await.unwrap();
    server.abort();
}

#[tokio::test]
async fn a_user_error_enum_converts_through_from() {
    let kinds = mcp_result::testing::TestServer::start(Kinds).await;
    let declined = kinds.call("charge", json!({"kind": "declined"})).await;
    assert_eq!(
        declined.result().structured_content,
        Some(
            json!({"status": "failed", "errorKind": "conflict", "retrySafe": true,
                    "message": "The card was declined; ask for another card."})
        )
    );
    let down = kinds.call("charge", json!({"kind": "down"})).await;
    let error = down.error().expect("an isError result");
    assert_eq!(
        error.details.as_ref().unwrap().kind(),
        Some(mcp_result::ErrorKind::UpstreamUnavailable)
    );
    assert_eq!(
        down.result().structured_content,
        Some(
            json!({"status": "failed", "errorKind": "upstream_unavailable", "retrySafe": true,
                    "message": "The ledger is down.", "retryAfterMs": 30000})
        )
    );
    kinds.close().await;
}

/// The audit records of a served instance, in order.
#[derive(Clone, Default)]
struct Records(std::sync::Arc<std::sync::Mutex<Vec<mcp_result::audit::AuditRecord>>>);

impl mcp_result::audit::AuditSink for Records {
    fn record<'a>(
        &'a self,
        record: &'a mcp_result::audit::AuditRecord,
    ) -> mcp_result::store::StoreFuture<'a, ()> {
        self.0.lock().unwrap().push(record.clone());
        Box::pin(async { Ok(()) })
    }
}

impl Records {
    /// The outcome record of event `id`.
    fn outcome(&self, id: &str) -> mcp_result::audit::AuditRecord {
        self.0
            .lock()
            .unwrap()
            .iter()
            .find(|r| r.event_id == id && r.phase == mcp_result::audit::Phase::Outcome)
            .cloned()
            .unwrap_or_else(|| panic!("no outcome record of {id}"))
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TicketArgs {
    /// The ticket's id.
    ticket_id: String,
}

/// A ticket was closed.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Closed {
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
}

/// A desk whose tools echo the ticket id they were given, and whose write sets audit ids of
/// its own.
#[derive(Clone)]
struct Desk;

#[mcp_tools]
impl Desk {
    /// Looks a ticket up.
    #[mcp_tool(read_only)]
    fn get_ticket(&self, args: TicketArgs) -> Result<Answer, ToolError> {
        Err(ToolError::not_found(format!(
            "no ticket {}",
            args.ticket_id
        )))
    }

    /// Closes a ticket in the ledger.
    #[mcp_tool(destructive)]
    fn close_ticket(&self, args: TicketArgs) -> Result<Closed, ToolError> {
        Err(match args.ticket_id.as_str() {
            "T-LEDGER" => ToolError::conflict("The ledger refused the close.")
                .with_audit_event_id(AuditEventId::new("ledger-42")),
            "T-BOTH" => ToolError::conflict("The ledger refused the close.")
                .with_audit_event_id(AuditEventId::new("ledger-43"))
                .with_external_id("upstream-7"),
            id => ToolError::not_found(format!("no ticket {id}")),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

#[cfg(feature = "testing")]
async fn desk(records: &Records) -> mcp_result::testing::TestServer {
    let state = mcp_result::State::new().with_audit_sink(std::sync::Arc::new(records.clone()));
    mcp_result::testing::TestServer::start_with_state(Desk, mcp_result::lint::Host::PORTABLE, state)
        .await
}

/// An id of 1 MB echoed in a tool's error message: the message is cut where the error is
/// made, to `ToolError::MAX_MESSAGE_CHARS` characters stating the full length, in the first
/// text block, `structuredContent` and the JSON text alike; the write's audit records hold
/// no message, so nothing of the echo.
#[cfg(feature = "testing")]
#[tokio::test]
async fn an_echoed_megabyte_is_cut_to_the_message_length_stating_its_own() {
    let records = Records::default();
    let desk = desk(&records).await;
    let id = "x".repeat(1 << 20);
    let ending = "… (1048586 characters in all)";
    for tool in ["get_ticket", "close_ticket"] {
        let called = desk.call(tool, json!({"ticketId": id})).await;
        let result = called.result();
        assert_eq!(result.is_error, Some(true), "{tool}");
        let structured = result.structured_content.as_ref().unwrap();
        let message = structured["message"].as_str().unwrap();
        assert_eq!(
            message.chars().count(),
            ToolError::MAX_MESSAGE_CHARS,
            "{tool}"
        );
        assert_eq!(ToolError::MAX_MESSAGE_CHARS, 1024);
        assert!(message.starts_with("no ticket xxxx"), "{tool}: {message}");
        assert!(
            message.ends_with(&format!("x{ending}")),
            "{tool}: {message}"
        );
        let first = text(result, 0);
        // The read is safe to run again; the write (no key) may have done part of its work.
        let next = match tool {
            "get_ticket" => "Safe to retry; unchanged, it gets the same answer.",
            _ => "Do not retry unchanged.",
        };
        assert_eq!(structured["retrySafe"], tool == "get_ticket", "{tool}");
        assert!(
            // The cut message ends as a sentence before what follows.
            first.starts_with(&format!("Error (not_found): {message}. {next}")),
            "{tool}: {first}"
        );
        assert!(first.len() < 1200, "{tool}: {} bytes", first.len());
        assert_eq!(
            text(result, 1),
            serde_json::to_string(structured).unwrap(),
            "{tool}"
        );
        assert!(
            serde_json::to_string(result).unwrap().len() < 4096,
            "{tool}"
        );
    }
    // The write's audit event: its outcome says `not_found` and holds no echo.
    let records = records.0.lock().unwrap().clone();
    assert_eq!(records.len(), 2, "{records:?}");
    let outcome = records.last().unwrap();
    assert_eq!(outcome.error_kind, Some(ErrorKind::NotFound));
    assert!(serde_json::to_string(&records).unwrap().len() < 2048);
    desk.close().await;
}

/// `with_audit_event_id` on a write tool's error: `auditEventId` stays the framework's,
/// the id of the record that exists, and the tool's id is its `externalId`, in the answer and
/// in the outcome record. An error that has an `externalId` keeps it, and the dropped audit id
/// is logged at warn level.
#[cfg(feature = "testing")]
#[tokio::test]
async fn a_write_tools_own_audit_id_is_kept_as_its_external_id() {
    let log = log();
    let records = Records::default();
    let desk = desk(&records).await;

    let refused = desk
        .call("close_ticket", json!({"ticketId": "T-LEDGER"}))
        .await;
    let structured = refused.result().structured_content.clone().unwrap();
    let minted = structured["auditEventId"].as_str().unwrap().to_owned();
    assert_eq!((minted.len(), &minted[14..15]), (36, "7"), "{minted}");
    assert_eq!(
        structured,
        json!({"status": "failed", "errorKind": "conflict", "retrySafe": false,
               "message": "The ledger refused the close.", "auditEventId": minted,
               "externalId": "ledger-42"})
    );
    assert_eq!(
        text(refused.result(), 0),
        format!(
            "Error (conflict): The ledger refused the close. Do not retry unchanged. Audit \
             event `{minted}`. External id `ledger-42`."
        )
    );
    let details = refused.error().and_then(|e| e.details.clone()).unwrap();
    assert_eq!(details.external_id.as_deref(), Some("ledger-42"));
    let outcome = records.outcome(&minted);
    assert_eq!(outcome.external_id.as_deref(), Some("ledger-42"));
    assert_eq!(outcome.error_kind, Some(ErrorKind::Conflict));

    let both = desk
        .call("close_ticket", json!({"ticketId": "T-BOTH"}))
        .await;
    let structured = both.result().structured_content.clone().unwrap();
    let minted = structured["auditEventId"].as_str().unwrap().to_owned();
    assert_eq!(structured["externalId"], "upstream-7");
    let wire = serde_json::to_string(both.result()).unwrap();
    assert!(!wire.contains("ledger-43"), "{wire}");
    assert_eq!(
        records.outcome(&minted).external_id.as_deref(),
        Some("upstream-7")
    );
    let log = log.text();
    let warned = log
        .lines()
        .find(|line| line.contains("ledger-43"))
        .unwrap_or_else(|| panic!("no warning names the dropped id:\n{log}"));
    assert!(
        warned.contains("WARN") && warned.contains("its own audit id was not kept"),
        "{warned}"
    );
    desk.close().await;
}

#[cfg(feature = "testing")]
#[tokio::test]
async fn a_panic_is_an_internal_error_and_the_connection_keeps_serving() {
    let kinds = mcp_result::testing::TestServer::start(Kinds).await;
    let exploded = kinds.call("explode", json!({})).await;
    let details = exploded.error().and_then(|e| e.details.clone()).unwrap();
    assert_eq!(details.error_kind, "internal");
    let correlation = details.correlation_id.unwrap();
    // A UUIDv7 (RFC 9562): unique across processes and restarts, time-ordered.
    assert_eq!(correlation.len(), 36, "{correlation}");
    assert_eq!(&correlation[14..15], "7", "{correlation}");
    let wire = serde_json::to_string(exploded.result()).unwrap();
    assert!(
        !wire.contains("hunter2"),
        "the panic message leaked: {wire}"
    );
    let next = kinds.call("answer", json!({})).await;
    assert!(next.error().is_none());
    assert_eq!(next.structured_value().unwrap(), &json!({"value": 42}));
    kinds.close().await;
}

#[tokio::test]
async fn a_tool_past_its_time_limit_is_an_upstream_timeout() {
    let (client, _server) = kinds_client().await;
    let started = std::time::Instant::now();
    let result = checked_call(&client, "slow", json!({})).await;
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the call was not cut off"
    );
    assert_eq!(
        result.structured_content.unwrap(),
        // retrySafe: true because `slow` is declared idempotent.
        json!({"status": "failed", "errorKind": "upstream_timeout", "retrySafe": true,
               "message": "The upstream did not answer within 100 ms."})
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_example_server_shows_not_found_policy_blocked_and_upstream_timeout() {
    let client = connect("helpdesk").await;
    let kinds = [
        (
            "get_ticket",
            json!({"ticketId": "T-0"}),
            "not_found",
            "failed",
        ),
        (
            "add_internal_note",
            json!({"ticketId": "T-1004", "body": "b"}),
            "policy_blocked",
            "blocked",
        ),
        (
            "lookup_customer",
            json!({"customerId": "C-SLOW"}),
            "upstream_timeout",
            "failed",
        ),
    ];
    for (name, arguments, kind, status) in kinds {
        let result = call(&client, name, arguments).await.unwrap();
        let envelope = result.structured_content.unwrap();
        assert_eq!(envelope["errorKind"], kind);
        assert_eq!(envelope["status"], status);
    }
    let timeout = call(&client, "lookup_customer", json!({"customerId": "C-SLOW"}))
        .await
        .unwrap();
    assert_eq!(
        timeout.structured_content.unwrap()["retrySafe"],
        true,
        "lookup is idempotent"
    );
    client.cancel().await.unwrap();
}

/// Sends raw JSON-RPC lines to the example server and returns the response to id 2.
async fn raw_exchange(request: Value) -> Value {
    let mut child = tokio::process::Command::new(example_path("helpdesk"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut raw =
        common::raw::RawClient::new(child.stdout.take().unwrap(), child.stdin.take().unwrap());
    raw.send(&common::raw::handshake("2025-11-25")).await;
    raw.send(&[request]).await;
    raw.answer(2).await.0
}

#[tokio::test]
async fn a_tools_call_without_a_name_is_json_rpc_invalid_params() {
    let response = raw_exchange(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"arguments": {}}}),
    )
    .await;
    assert_eq!(
        response,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602,
            "message": "invalid tools/call params: expected {\"name\": string, \"arguments\"?: object}"}})
    );
}

#[tokio::test]
async fn an_unknown_method_is_json_rpc_method_not_found() {
    let response =
        raw_exchange(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/explode", "params": {}}))
            .await;
    assert_eq!(response["error"]["code"], -32601, "{response}");
}

#[tokio::test]
async fn an_unknown_tool_over_raw_json_rpc_is_invalid_params() {
    let response = raw_exchange(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "nope", "arguments": {}}}))
    .await;
    assert_eq!(
        response,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "unknown tool: nope"}})
    );
    let _ = CallToolRequestParams::new("unused");
}

// ---------------------------------------------------------------------------------------
// `?` on any error: `ResultExt` names the kind at the call site, the cause goes to the log
// under the correlation id the answer carries, never into the answer.

/// A ticket as the desk's store has it.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Ticket {
    ticket_id: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TicketRef {
    ticket_id: String,
}

/// What a failed upstream call looks like from here: an error with a source chain whose
/// text must stay in the log.
#[derive(Debug)]
struct UpstreamError {
    source: std::io::Error,
}

impl std::fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ticket store request failed")
    }
}

impl std::error::Error for UpstreamError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

fn upstream(detail: &str) -> Result<String, UpstreamError> {
    Err(UpstreamError {
        source: std::io::Error::other(detail.to_owned()),
    })
}

#[derive(Clone)]
struct Tickets;

#[mcp_tools]
impl Tickets {
    /// Reads a ticket from its file.
    #[mcp_tool(read_only)]
    async fn read_ticket(&self, args: TicketRef) -> Result<Ticket, ToolError> {
        let path = format!("/nonexistent/tickets/{}.json", args.ticket_id);
        let _text =
            std::fs::read_to_string(&path).not_found(format!("No ticket `{}`.", args.ticket_id))?;
        unreachable!()
    }

    /// Syncs a ticket with the upstream.
    #[mcp_tool(read_only)]
    async fn sync_ticket(&self, args: TicketRef) -> Result<Ticket, ToolError> {
        let ticket_id = upstream("connection refused by tickets-db-7.internal:5432")
            .or_tool_error(ErrorKind::UpstreamUnavailable)?;
        Ok(Ticket {
            ticket_id: ticket_id + &args.ticket_id,
        })
    }

    /// Assigns a ticket.
    #[mcp_tool(read_only)]
    async fn assign_ticket(&self, _args: TicketRef) -> Result<Ticket, ToolError> {
        let ticket_id =
            upstream("403 for token sk-live-4242").permission_denied("tickets:assign")?;
        Ok(Ticket { ticket_id })
    }

    /// Recomputes a ticket's score.
    #[mcp_tool(read_only)]
    async fn score_ticket(&self, _args: TicketRef) -> Result<Ticket, ToolError> {
        let ticket_id = upstream("password=hunter2 rejected").internal()?;
        Ok(Ticket { ticket_id })
    }
}

#[mcp_handler]
impl ServerHandler for Tickets {}

/// Every log line of this test binary: one global subscriber (a thread's own default would
/// miss the lines of other threads, and `tracing` caches a callsite's interest process-wide),
/// so each test finds its lines by what is unique to them (a correlation id, a tool).
#[derive(Clone, Default)]
struct Log(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

fn log() -> &'static Log {
    static LOG: std::sync::OnceLock<Log> = std::sync::OnceLock::new();
    LOG.get_or_init(|| {
        let log = Log::default();
        let writer = log.clone();
        tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .init();
        log
    })
}

impl std::io::Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Log {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

#[tokio::test]
async fn result_ext_names_the_kind_and_logs_the_cause_under_the_correlation_id() {
    let log = log();

    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = Tickets.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("initialize");
    let cases = [
        (
            "read_ticket",
            "No such file or directory",
            json!({"status": "failed", "errorKind": "not_found", "retrySafe": true,
                   "message": "No ticket `T-9`."}),
            "Error (not_found): No ticket `T-9`. Safe to retry; unchanged, it gets the same answer.",
        ),
        (
            "sync_ticket",
            "ticket store request failed: connection refused by tickets-db-7.internal:5432",
            json!({"status": "failed", "errorKind": "upstream_unavailable", "retrySafe": true,
                   "message": "The upstream is unavailable."}),
            "Error (upstream_unavailable): The upstream is unavailable. Safe to retry.",
        ),
        (
            "assign_ticket",
            "ticket store request failed: 403 for token sk-live-4242",
            json!({"status": "failed", "errorKind": "permission_denied", "retrySafe": true,
                   "message": "Permission denied: this call needs the `tickets:assign` scope.",
                   "requiredScope": "tickets:assign"}),
            "Error (permission_denied): Permission denied: this call needs the `tickets:assign` scope. Do not retry until the caller has that scope.",
        ),
        (
            "score_ticket",
            "ticket store request failed: password=hunter2 rejected",
            json!({"status": "failed", "errorKind": "internal", "retrySafe": true,
                   "message": "Internal error (correlation id <id>)."}),
            // A read-only tool: nothing to repeat, so safe to retry (a write's says it may
            // have taken effect: `fail` above).
            "Error (internal): Internal error (correlation id <id>). Safe to retry.",
        ),
    ];
    for (tool, cause, envelope, summary) in cases {
        let result = checked_call(&client, tool, json!({"ticketId": "T-9"})).await;
        assert_eq!(result.is_error, Some(true), "{tool}");
        let mut structured = result.structured_content.clone().unwrap();
        let id = structured["correlationId"]
            .as_str()
            .unwrap_or_else(|| panic!("{tool}: a correlationId"))
            .to_owned();
        assert_eq!(id.len(), 36, "{tool}: a UUIDv7 {id}");
        structured.as_object_mut().unwrap().remove("correlationId");
        let envelope_text = serde_json::to_string(&envelope)
            .unwrap()
            .replace("<id>", &id);
        assert_eq!(
            structured,
            serde_json::from_str::<Value>(&envelope_text).unwrap(),
            "{tool}"
        );
        assert_eq!(text(&result, 0), summary.replace("<id>", &id), "{tool}");
        // The cause: in the log, once, under the id; nowhere in the answer.
        let wire = serde_json::to_string(&result).unwrap();
        for secret in cause.split(": ") {
            assert!(!wire.contains(secret), "{tool}: `{secret}` leaked: {wire}");
        }
        let log = log.text();
        let lines: Vec<&str> = log.lines().filter(|line| line.contains(&id)).collect();
        assert_eq!(lines.len(), 1, "{tool}: one log line under {id}: {log}");
        assert!(
            lines[0].contains(cause),
            "{tool}: the cause chain: {}",
            lines[0]
        );
        assert!(
            lines[0].contains(&format!(
                "error_kind=\"{}\"",
                envelope["errorKind"].as_str().unwrap()
            )) || lines[0].contains(&format!(
                "error_kind={}",
                envelope["errorKind"].as_str().unwrap()
            )),
            "{tool}: the kind: {}",
            lines[0]
        );
    }
    client.cancel().await.unwrap();
}

/// With the feature `anyhow`: `anyhow::Error` and `Box<dyn Error + Send + Sync>` are
/// `internal` errors, by `?` and as a tool's error type.
#[cfg(feature = "anyhow")]
mod with_anyhow {
    use super::*;
    use anyhow::Context as _;

    #[derive(Clone)]
    struct Jobs;

    #[mcp_tools]
    impl Jobs {
        /// Returns `anyhow::Result`.
        #[mcp_tool(read_only)]
        async fn run_job(&self) -> anyhow::Result<Answer> {
            let value: u32 = "forty-two"
                .parse()
                .context("parsing the job's answer from db-7")?;
            Ok(Answer { value })
        }

        /// `?` on a boxed error in a `ToolError` tool.
        #[mcp_tool(read_only)]
        async fn run_boxed(&self) -> Result<Answer, ToolError> {
            let boxed: Result<u32, Box<dyn std::error::Error + Send + Sync>> =
                Err("queue jobs-3 unreachable".into());
            Ok(Answer { value: boxed? })
        }
    }

    #[mcp_handler]
    impl ServerHandler for Jobs {}

    #[tokio::test]
    async fn anyhow_and_boxed_errors_are_internal_with_the_cause_logged() {
        let log = log();
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        tokio::spawn(async move {
            if let Ok(running) = Jobs.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = ().serve(client_io).await.expect("initialize");
        for (tool, cause) in [
            (
                "run_job",
                "parsing the job's answer from db-7: invalid digit found in string",
            ),
            ("run_boxed", "queue jobs-3 unreachable"),
        ] {
            let result = checked_call(&client, tool, json!({})).await;
            let structured = result.structured_content.clone().unwrap();
            let id = structured["correlationId"].as_str().unwrap().to_owned();
            assert_eq!(
                structured,
                json!({"status": "failed", "errorKind": "internal", "retrySafe": true,
                       "message": format!("Internal error (correlation id {id})."),
                       "correlationId": id}),
                "{tool}"
            );
            // (Not "db-7" alone: a UUIDv7 correlation id holds "…db-7…" once in 256.)
            let wire = serde_json::to_string(&result).unwrap();
            assert!(!wire.contains("from db-7"), "{wire}");
            assert!(!wire.contains("jobs-3 unreachable"), "{wire}");
            let log = log.text();
            let line = log.lines().find(|line| line.contains(&id)).unwrap();
            assert!(line.contains(cause), "{tool}: {line}");
        }
        client.cancel().await.unwrap();
    }
}
