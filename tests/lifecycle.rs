//! The life of a call (issue 34, item 1 and 2): nothing of a call follows its answer or its
//! cancellation. A server written the way the README teaches, served by rmcp over an
//! in-memory stream, driven by a raw JSON-RPC client that can cancel at any moment and
//! answer late.
//!
//! - A gated write whose caller cancels while the approval question waits never runs, even
//!   when the user accepts afterwards; the question is withdrawn; the attempt is recorded
//!   as ended without effect and its idempotency key is free for the retry.
//! - While the question waits, the call's progress token gets a heartbeat; the wait is
//!   bounded ([`AskPolicy`]) and the question withdrawn at its end.
//! - A client that declared only URL-mode elicitation is never sent a form.
//! - Progress stops with the answer: past a write's time limit, after a cancellation, from a
//!   clone on a task of its own.

use crate::common;

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use common::raw::RawClient;
use mcp_result::{
    approval::{ApprovalStore, MemoryApprovals},
    audit::{read_records, AuditSink, JsonLinesSink, Phase},
    extract::WriteContext,
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    Ask, AskPolicy, AuditEventId, ErrorKind, Progress, Question, ServerServices, State, Status,
    ToolError, ToolResult, Unstructured,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Clone)]
struct Desk {
    closed: Arc<AtomicUsize>,
    audit: JsonLinesSink,
    approvals: MemoryApprovals,
}

impl ServerServices for Desk {
    fn audit_sink(&self, _state: &State) -> Arc<dyn AuditSink> {
        Arc::new(self.audit.clone())
    }
    fn approval_store(&self, _state: &State) -> Arc<dyn ApprovalStore> {
        Arc::new(self.approvals.clone())
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CloseArgs {
    ticket_id: String,
    /// The idempotency key (the framework reads it).
    #[allow(dead_code)]
    request_id: String,
}

/// Closed.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Closed {
    ticket_id: String,
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
    approval_id: Option<String>,
}

/// Imported.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Imported {
    rows: u64,
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
}

/// Watched.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Watched {
    seen: u64,
}

/// Keeps reporting on a task of its own: every 50 ms, for 1.5 s.
fn report_on_a_task(progress: &Progress) {
    let progress = progress.clone();
    tokio::spawn(async move {
        for done in 1..=30 {
            progress.report(done, 100, format!("{done} of 100")).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
}

#[mcp_tools(services)]
impl Desk {
    /// Closes a ticket, once a human approved.
    #[mcp_tool(approval = "Close ticket {ticketId}", idempotency_key = "requestId")]
    async fn close_ticket(
        &self,
        args: CloseArgs,
        write: WriteContext,
    ) -> Result<Closed, ToolError> {
        self.closed.fetch_add(1, Ordering::SeqCst);
        Ok(Closed {
            ticket_id: args.ticket_id,
            status: Status::Succeeded,
            retry_safe: true,
            audit_event_id: write.audit_event_id().clone(),
            approval_id: None,
        })
    }

    /// Imports rows, slowly: past its 200 ms time limit it runs on.
    #[mcp_tool(timeout_ms = 200)]
    async fn slow_import(&self, progress: Progress, write: WriteContext) -> Imported {
        report_on_a_task(&progress);
        tokio::time::sleep(Duration::from_millis(600)).await;
        Imported {
            rows: 30,
            status: Status::Succeeded,
            retry_safe: false,
            audit_event_id: write.audit_event_id().clone(),
        }
    }

    /// Watches a queue until cancelled.
    #[mcp_tool(read_only)]
    async fn watch(&self, progress: Progress) -> Watched {
        report_on_a_task(&progress);
        tokio::time::sleep(Duration::from_secs(5)).await;
        Watched { seen: 0 }
    }

    /// Greets the user by the name they give.
    #[mcp_tool(read_only)]
    async fn greet(&self, mut ask: Ask) -> Result<Unstructured, ToolError> {
        let question = Question::form::<Name>("What is your name?")?;
        let answer = ask.elicit_form("name", question).await?;
        Ok(Unstructured::text(format!("Hello, {answer:?}!")))
    }
}

/// The user's name.
#[derive(Deserialize, JsonSchema)]
struct Name {
    /// Your name.
    #[allow(dead_code)]
    name: String,
}

#[mcp_handler]
impl ServerHandler for Desk {}

fn desk(name: &str) -> (Desk, std::path::PathBuf) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lifecycle");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let desk = Desk {
        closed: Arc::default(),
        audit: JsonLinesSink::open(&path).unwrap(),
        approvals: MemoryApprovals::default(),
    };
    (desk, path)
}

/// `desk` served with `policy` on an in-memory stream, opened by a raw client with
/// `capabilities` on MCP 2025-11-25.
async fn open(desk: Desk, policy: AskPolicy, capabilities: Value) -> RawClient {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(mcp_result::serve_with_state(
        desk,
        server_io,
        State::new().with(policy).allow_mixed_stores(),
    ));
    let (read, write) = tokio::io::split(client_io);
    let mut client = RawClient::new(read, write);
    let [mut initialize, initialized] = common::raw::handshake("2025-11-25");
    initialize["params"]["capabilities"] = capabilities;
    let answers = client.exchange(&[initialize]).await;
    assert!(answers[0]["result"].is_object(), "{answers:?}");
    client.send(&[initialized]).await;
    client
}

fn close_call(id: u64, ticket: &str, key: &str, token: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "close_ticket", "arguments": {"ticketId": ticket, "requestId": key},
        "_meta": {"progressToken": token}}})
}

fn cancel(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
           "params": {"requestId": id, "reason": "the user stopped it"}})
}

fn is_progress_of(message: &Value, token: &str) -> bool {
    message["method"] == "notifications/progress" && message["params"]["progressToken"] == token
}

/// Every message the server sends within `window`.
async fn drain(client: &mut RawClient, window: Duration) -> Vec<Value> {
    let mut seen = Vec::new();
    let until = tokio::time::Instant::now() + window;
    while let Ok(line) = tokio::time::timeout_at(until, client.next_line()).await {
        seen.push(serde_json::from_str(&line).unwrap());
    }
    seen
}

/// Reads up to the server's request `method`, returning it and what came before.
async fn request_of(client: &mut RawClient, method: &str) -> (Value, Vec<Value>) {
    let mut before = Vec::new();
    loop {
        let message = client.next().await;
        if message["method"] == method && message.get("id").is_some() {
            return (message, before);
        }
        before.push(message);
    }
}

const HEARTBEAT: AskPolicy = AskPolicy {
    wait: Duration::from_secs(20),
    heartbeat: Duration::from_millis(100),
};

#[tokio::test]
async fn a_gated_write_cancelled_while_its_question_waits_never_runs() {
    let (server, log) = desk("cancel");
    let mut client = open(server.clone(), HEARTBEAT, json!({"elicitation": {}})).await;
    client.send(&[close_call(1, "T-1", "k-1", "p1")]).await;
    let (question, _) = request_of(&mut client, "elicitation/create").await;
    assert_eq!(
        question["params"]["message"],
        "Approve this write? Close ticket T-1"
    );
    // While the question waits: heartbeats under the call's token, increasing, below the
    // first whole unit, no total.
    let mut beats = Vec::new();
    while beats.len() < 3 {
        let message = client.next().await;
        assert!(is_progress_of(&message, "p1"), "{message}");
        beats.push(message["params"].clone());
    }
    for pair in beats.windows(2) {
        assert!(
            pair[0]["progress"].as_f64() < pair[1]["progress"].as_f64(),
            "{beats:?}"
        );
    }
    assert_eq!(beats[0]["progress"], 0.5);
    assert!(beats.iter().all(|b| b["progress"].as_f64().unwrap() < 1.0
        && b.get("total").is_none()
        && b["message"] == "Waiting for the user to approve: Close ticket T-1"));

    // The caller cancels; the server withdraws its question.
    client.send(&[cancel(json!(1))]).await;
    let mut after_cancel = Vec::new();
    loop {
        let message = client.next().await;
        if message["method"] == "notifications/cancelled" {
            assert_eq!(message["params"]["requestId"], question["id"], "{message}");
            break;
        }
        after_cancel.push(message);
    }
    assert!(
        after_cancel.iter().all(|m| m.get("id").is_none()),
        "a cancelled call gets no answer: {after_cancel:?}"
    );
    // The user accepts anyway, late: nothing runs, nothing more of the call is sent.
    client
        .send(&[json!({"jsonrpc": "2.0", "id": question["id"],
            "result": {"action": "accept", "content": {"approve": true}}})])
        .await;
    let later = drain(&mut client, Duration::from_millis(500)).await;
    assert!(
        later.is_empty(),
        "nothing of the call after its end: {later:?}"
    );
    assert_eq!(server.closed.load(Ordering::SeqCst), 0);
    // Recorded as ended without effect: an outcome, no intent.
    let records = read_records(&log).unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].phase, Phase::Outcome);
    assert_eq!(records[0].error_kind, Some(ErrorKind::Conflict));
    assert_eq!(records[0].idempotency_key.as_deref(), Some("k-1"));

    // The retry with the same key is asked again and runs once: the key was given back.
    client.send(&[close_call(2, "T-1", "k-1", "p2")]).await;
    let (question, _) = request_of(&mut client, "elicitation/create").await;
    client
        .send(&[json!({"jsonrpc": "2.0", "id": question["id"],
            "result": {"action": "accept", "content": {"approve": true}}})])
        .await;
    let (answer, _) = client.answer(2).await;
    let result = &answer["result"]["structuredContent"];
    assert_eq!(result["status"], "succeeded", "{answer}");
    assert!(result["approvalId"].is_string(), "{answer}");
    assert_eq!(server.closed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_wait_for_a_human_is_bounded_and_the_question_withdrawn() {
    let (server, log) = desk("bounded");
    let policy = AskPolicy {
        wait: Duration::from_millis(300),
        ..AskPolicy::default()
    };
    let mut client = open(server.clone(), policy, json!({"elicitation": {}})).await;
    client.send(&[close_call(1, "T-2", "k-2", "p1")]).await;
    let (question, _) = request_of(&mut client, "elicitation/create").await;
    let (answer, before) = client.answer(1).await;
    let withdrawn = before
        .iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .unwrap_or_else(|| panic!("the question is withdrawn: {before:?}"));
    assert_eq!(withdrawn["params"]["requestId"], question["id"]);
    let envelope = &answer["result"]["structuredContent"];
    assert_eq!(envelope["errorKind"], "policy_blocked", "{answer}");
    assert_eq!(envelope["reason"], "the user did not answer in time");
    assert_eq!(envelope["retrySafe"], true);
    // The late answer runs nothing.
    client
        .send(&[json!({"jsonrpc": "2.0", "id": question["id"],
            "result": {"action": "accept", "content": {"approve": true}}})])
        .await;
    drain(&mut client, Duration::from_millis(300)).await;
    assert_eq!(server.closed.load(Ordering::SeqCst), 0);
    let records = read_records(&log).unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].status, Some(Status::Blocked));
    // The default stays below the 60 s after which the SDK clients give up.
    assert_eq!(AskPolicy::default().wait, Duration::from_secs(50));
}

/// A client that declared only URL-mode elicitation is asked out of band (2025-11-25, 2026-07-28),
/// and an `Ask` form is refused with `-32021`, never sent.
#[tokio::test]
async fn a_url_only_client_is_never_sent_a_form() {
    let url_only = json!({"elicitation": {"url": {}}});
    let (server, _log) = desk("url-only");
    let mut client = open(server.clone(), HEARTBEAT, url_only.clone()).await;
    client.send(&[close_call(1, "T-3", "k-3", "p1")]).await;
    let (answer, before) = client.answer(1).await;
    assert!(
        before.iter().all(|m| m["method"] != "elicitation/create"),
        "{before:?}"
    );
    let envelope = &answer["result"]["structuredContent"];
    assert_eq!(envelope["reason"], "requires human approval", "{answer}");
    assert!(envelope["approvalRequestId"].is_string());
    client
        .send(&[json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "greet", "arguments": {}}})])
        .await;
    let (answer, before) = client.answer(2).await;
    assert!(before.iter().all(|m| m["method"] != "elicitation/create"));
    assert_eq!(answer["error"]["code"], -32021, "{answer}");

    // MCP 2026-07-28: no form in an input-required round either.
    let (server, _log) = desk("url-only-2026");
    let mut client = RawClient::serve(server.clone());
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": url_only,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    });
    let answers = client
        .exchange(&[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "close_ticket", "_meta": meta,
                "arguments": {"ticketId": "T-4", "requestId": "k-4"}}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "greet", "_meta": meta, "arguments": {}}}),
        ])
        .await;
    let by_id = |id: u64| answers.iter().find(|a| a["id"] == id).unwrap();
    let closed = &by_id(1)["result"];
    assert_ne!(closed["resultType"], "input_required", "{closed}");
    assert_eq!(
        closed["structuredContent"]["reason"], "requires human approval",
        "{closed}"
    );
    assert_eq!(by_id(2)["error"]["code"], -32021, "{answers:?}");
    assert_eq!(server.closed.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn progress_stops_with_the_answer() {
    let (server, _log) = desk("progress");
    let mut client = open(server, HEARTBEAT, json!({})).await;
    // A write past its time limit: answered at 200 ms; its task runs on and its clone keeps
    // reporting for 1.5 s, but nothing of it follows the answer.
    client
        .send(&[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "slow_import", "arguments": {}, "_meta": {"progressToken": "w"}}}),
        ])
        .await;
    let (answer, before) = client.answer(1).await;
    assert_eq!(
        answer["result"]["structuredContent"]["status"], "unknown",
        "{answer}"
    );
    assert!(before.iter().any(|m| is_progress_of(m, "w")), "{before:?}");
    let after = drain(&mut client, Duration::from_millis(1200)).await;
    assert!(
        !after.iter().any(|m| is_progress_of(m, "w")),
        "progress after the answer: {after:?}"
    );

    // A read cancelled by its client: nothing after the cancellation is handled.
    client
        .send(&[
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "watch", "arguments": {}, "_meta": {"progressToken": "r"}}}),
        ])
        .await;
    let first = client.next().await;
    assert!(is_progress_of(&first, "r"), "{first}");
    client.send(&[cancel(json!(2))]).await;
    // What was on its way when the cancellation arrived may still come.
    drain(&mut client, Duration::from_millis(200)).await;
    let after = drain(&mut client, Duration::from_millis(1000)).await;
    assert!(after.is_empty(), "nothing of a cancelled call: {after:?}");
}

/// A client that goes away while the approval question waits: the write never runs, its
/// attempt is recorded as ended without effect.
#[tokio::test]
async fn a_gated_write_whose_client_went_away_never_runs() {
    let (server, log) = desk("gone");
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let served = tokio::spawn(mcp_result::serve_with_state(
        server.clone(),
        server_io,
        State::new().with(HEARTBEAT).allow_mixed_stores(),
    ));
    let (read, write) = tokio::io::split(client_io);
    let mut client = RawClient::new(read, write);
    let [mut initialize, initialized] = common::raw::handshake("2025-11-25");
    initialize["params"]["capabilities"] = json!({"elicitation": {}});
    client.exchange(&[initialize]).await;
    client.send(&[initialized]).await;
    client.send(&[close_call(1, "T-5", "k-5", "p1")]).await;
    request_of(&mut client, "elicitation/create").await;
    // The client is gone: its stream closes.
    drop(client);
    tokio::time::timeout(Duration::from_secs(15), served)
        .await
        .expect("the server ends with its client")
        .unwrap()
        .unwrap();
    // The call's own task records its end (it may finish just after the server's loop).
    let mut records = Vec::new();
    for _ in 0..100 {
        records = read_records(&log).unwrap();
        if !records.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(server.closed.load(Ordering::SeqCst), 0);
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].phase, Phase::Outcome);
    assert_eq!(records[0].error_kind, Some(ErrorKind::Conflict));
}

/// A read-only tool cancelled while its own question (`Ask`) waits: the question is
/// withdrawn, and the call gets no answer.
#[tokio::test]
async fn a_question_of_a_cancelled_call_is_withdrawn() {
    let (server, _log) = desk("ask-cancel");
    let mut client = open(server, HEARTBEAT, json!({"elicitation": {}})).await;
    client
        .send(&[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "greet", "arguments": {}}})])
        .await;
    let (question, _) = request_of(&mut client, "elicitation/create").await;
    assert_eq!(question["params"]["message"], "What is your name?");
    client.send(&[cancel(json!(1))]).await;
    let seen = drain(&mut client, Duration::from_millis(500)).await;
    let withdrawn: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "notifications/cancelled")
        .collect();
    assert_eq!(withdrawn.len(), 1, "{seen:?}");
    assert_eq!(withdrawn[0]["params"]["requestId"], question["id"]);
    assert!(seen.iter().all(|m| m["id"] != 1), "no answer: {seen:?}");
}
