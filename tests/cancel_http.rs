//! A client's `notifications/cancelled` over the default stateless streamable HTTP
//! (issue 39, item 4): a POST of its own, answered `202`, that reaches the call it names on
//! the instance that runs it, by the caller's identity and the request's id.
//!
//! The calls and cancels are raw JSON-RPC POSTs of a 2025-11-25 client (what any MCP client
//! sends without a session). One instance keeps its default bus ([`CancelBus::local`]);
//! two instances are two servers, each with its own stores and bus on one PostgreSQL
//! database (`SqlStores::cancel_bus`), so a cancel crosses between them only through
//! PostgreSQL:
//!
//! - a slow read cancelled on its instance stops, its POST answered the cancelled outcome
//!   within a second;
//! - cancelled through the other instance, the same;
//! - a keyed write held before its run (its idempotency claim waits on a table lock) and
//!   cancelled through the other instance never runs, and its key is free for the retry;
//! - a write that started runs to its end and its POST is answered its outcome;
//! - another caller's cancel, or a cancel of an id that runs nowhere, changes nothing;
//! - two processes of the example (`--store postgres://...`): a transactional note that
//!   started on one, cancelled through the other, is rolled back, and no note stays.

use crate::common;

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use common::postgres::TestDatabase;
use mcp_result::{
    http::{serve_http, HttpOptions, StaticTokens},
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    sql::{sqlx, SqlStores},
    CancelBus, Identity, State, ToolError, ToolResult, WriteReceipt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------

/// A report of some orders.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Report of {orders} orders")]
pub struct Report {
    /// How many orders it covers.
    pub orders: u64,
}

/// What a refund did.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
pub struct Refunded {
    /// The order refunded.
    pub order_id: String,
    #[serde(flatten)]
    pub receipt: WriteReceipt,
}

#[derive(Deserialize, JsonSchema)]
pub struct ReportArgs {
    /// How long the report takes, in milliseconds.
    pub millis: u64,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefundArgs {
    /// The order to refund.
    pub order_id: String,
    /// The idempotency key.
    #[allow(dead_code)] // the idempotency key: the framework reads it, the tool does not
    pub request_id: String,
}

/// What each tool finished, counted.
#[derive(Clone, Default)]
struct Shop {
    reports: Arc<AtomicUsize>,
    refunds: Arc<AtomicUsize>,
    archives: Arc<AtomicUsize>,
}

#[mcp_tools]
impl Shop {
    /// Build a sales report.
    #[mcp_tool(read_only)]
    async fn sales_report(&self, args: ReportArgs) -> Report {
        tokio::time::sleep(Duration::from_millis(args.millis)).await;
        self.reports.fetch_add(1, Ordering::SeqCst);
        Report { orders: 42 }
    }

    /// Refund an order (once per key).
    #[mcp_tool(idempotency_key = "requestId")]
    async fn refund(&self, args: RefundArgs) -> Result<Refunded, ToolError> {
        self.refunds.fetch_add(1, Ordering::SeqCst);
        Ok(Refunded {
            order_id: args.order_id,
            receipt: WriteReceipt::succeeded(),
        })
    }

    /// Archive old orders (no key: each call archives).
    #[mcp_tool]
    async fn archive(&self, args: ReportArgs) -> Result<Refunded, ToolError> {
        tokio::time::sleep(Duration::from_millis(args.millis)).await;
        self.archives.fetch_add(1, Ordering::SeqCst);
        Ok(Refunded {
            order_id: "old orders".into(),
            receipt: WriteReceipt::succeeded(),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Shop {}

/// Serves `shop` with `state` over stateless HTTP (the default) for alice and bob; its URL.
async fn serve(shop: Shop, state: State) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let tokens = StaticTokens::new()
        .with("alice-token", Identity::new("alice").with_tenant("acme"))
        .with("bob-token", Identity::new("bob").with_tenant("acme"));
    let options = HttpOptions {
        state,
        ..HttpOptions::default()
    };
    assert!(!options.sessions, "stateless is the default");
    tokio::spawn(serve_http(
        shop,
        listener,
        Arc::new(tokens),
        options,
        std::future::pending(),
    ));
    url
}

/// An instance on the PostgreSQL database `url`: its own stores and its own cancel bus,
/// as a process of its own would have.
async fn instance(shop: Shop, url: &str) -> String {
    let stores = SqlStores::connect(url).await.unwrap();
    let bus = stores.cancel_bus().await.unwrap();
    assert!(bus.spans_instances());
    let state = State::with_sql_stores(stores).with_cancel_bus(bus);
    serve(shop, state).await
}

// ---------------------------------------------------------------------------------------
// The client: raw POSTs
// ---------------------------------------------------------------------------------------

fn post(url: &str, token: &str, body: &Value) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .bearer_auth(token)
        .json(body)
}

/// Starts `tools/call` `id` of `tool` as `token`: the POST's answer (status, body) and when
/// it came.
fn call(
    url: &str,
    token: &str,
    id: Value,
    tool: &str,
    arguments: Value,
) -> tokio::task::JoinHandle<(u16, Value, Instant)> {
    let request = post(
        url,
        token,
        &json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }),
    );
    tokio::spawn(async move {
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let body = response.json().await.unwrap();
        (status, body, Instant::now())
    })
}

/// POSTs `notifications/cancelled` for request `id` as `token`: the status and the body,
/// and when the answer came.
async fn cancel(url: &str, token: &str, id: Value) -> (u16, String, Instant) {
    let response = post(
        url,
        token,
        &json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "changed my mind"},
        }),
    )
    .send()
    .await
    .unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap(), Instant::now())
}

/// What matters of a `tools/call` answer: its id, `isError`, the first text block and the
/// structured content.
fn outcome(answer: &Value) -> Value {
    json!({
        "id": answer["id"],
        "isError": answer["result"]["isError"],
        "text": answer["result"]["content"][0]["text"],
        "structuredContent": answer["result"]["structuredContent"],
    })
}

/// The answer the framework gives a read its client cancelled.
fn cancelled_read(id: Value) -> Value {
    json!({
        "id": id,
        "isError": true,
        "text": "Error (conflict): The call was cancelled. Safe to retry; unchanged, it gets the same answer.",
        "structuredContent": {
            "status": "failed",
            "errorKind": "conflict",
            "retrySafe": true,
            "message": "The call was cancelled.",
        },
    })
}

/// The report of a read that ran to its end.
fn report(id: Value) -> Value {
    json!({
        "id": id,
        "isError": false,
        "text": "Report of 42 orders",
        "structuredContent": {"orders": 42},
    })
}

/// Waits for the call to be running on its instance.
async fn running() {
    tokio::time::sleep(Duration::from_millis(300)).await;
}

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// A slow read cancelled on its own instance (the default bus) stops: its POST is answered
/// the cancelled outcome within a second of the cancel's `202`, and the report never ends.
#[tokio::test]
async fn a_cancel_stops_a_read_on_its_instance() {
    let shop = Shop::default();
    let url = serve(shop.clone(), State::new()).await;
    let read = call(
        &url,
        "alice-token",
        json!(41),
        "sales_report",
        json!({"millis": 10_000}),
    );
    running().await;
    let (status, body, sent) = cancel(&url, "alice-token", json!(41)).await;
    assert_eq!((status, body.as_str()), (202, ""));
    let (status, answer, answered) = read.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(outcome(&answer), cancelled_read(json!(41)));
    assert!(
        answered.duration_since(sent) < Duration::from_secs(1),
        "answered {:?} after the cancel",
        answered.duration_since(sent)
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(shop.reports.load(Ordering::SeqCst), 0, "the read stopped");
}

/// A slow read on one instance, cancelled through the other (PostgreSQL `LISTEN`/`NOTIFY`
/// between their buses): it stops within a second.
#[tokio::test]
async fn a_cancel_sent_to_another_instance_stops_the_read() {
    let database = TestDatabase::create().await;
    let (shop_a, shop_b) = (Shop::default(), Shop::default());
    let a = instance(shop_a.clone(), database.url()).await;
    let b = instance(shop_b.clone(), database.url()).await;
    let read = call(
        &a,
        "alice-token",
        json!("report-1"),
        "sales_report",
        json!({"millis": 10_000}),
    );
    running().await;
    let (status, body, sent) = cancel(&b, "alice-token", json!("report-1")).await;
    assert_eq!((status, body.as_str()), (202, ""));
    let (status, answer, answered) = read.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(outcome(&answer), cancelled_read(json!("report-1")));
    assert!(
        answered.duration_since(sent) < Duration::from_secs(1),
        "answered {:?} after the cancel",
        answered.duration_since(sent)
    );
    assert_eq!(shop_a.reports.load(Ordering::SeqCst), 0);
    assert_eq!(shop_b.reports.load(Ordering::SeqCst), 0);
}

/// A keyed write held before its run (its idempotency claim waits for a lock the test
/// holds on the keys' table), cancelled through the other instance: once the lock is let
/// go it is refused as cancelled before it ran, the refund never happens, and the key is
/// free: the retry refunds once.
#[tokio::test]
async fn a_write_cancelled_on_another_instance_before_it_runs_never_runs() {
    let database = TestDatabase::create().await;
    let shop = Shop::default();
    let a = instance(shop.clone(), database.url()).await;
    let b = instance(shop.clone(), database.url()).await;
    let admin = SqlStores::connect(database.url()).await.unwrap();
    let mut lock = admin.pool().begin().await.unwrap();
    sqlx::query("LOCK TABLE mcp_result_idempotency IN EXCLUSIVE MODE")
        .execute(&mut *lock)
        .await
        .unwrap();
    let arguments = json!({"orderId": "O-7", "requestId": "refund-o-7"});
    let write = call(&a, "alice-token", json!(7), "refund", arguments.clone());
    running().await;
    assert!(!write.is_finished(), "the claim waits for the lock");
    let (status, body, _) = cancel(&b, "alice-token", json!(7)).await;
    assert_eq!((status, body.as_str()), (202, ""));
    // Within the second the bus takes, then the lock goes.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    lock.rollback().await.unwrap();
    let (status, answer, _) = write.await.unwrap();
    assert_eq!(status, 200);
    let audit_event = answer["result"]["structuredContent"]["auditEventId"].clone();
    assert!(audit_event.is_string(), "{answer}");
    assert_eq!(
        outcome(&answer),
        json!({
            "id": 7,
            "isError": true,
            "text": format!(
                "Error (conflict): The call was cancelled before it ran; nothing ran. Safe to \
                 retry; unchanged, it gets the same answer. Audit event `{}`.",
                audit_event.as_str().unwrap()
            ),
            "structuredContent": {
                "status": "failed",
                "errorKind": "conflict",
                "retrySafe": true,
                "message": "The call was cancelled before it ran; nothing ran.",
                "auditEventId": audit_event,
            },
        })
    );
    assert_eq!(
        shop.refunds.load(Ordering::SeqCst),
        0,
        "the refund never ran"
    );
    // The key was given back: the retry (not cancelled) refunds, once.
    let (status, retried, _) = call(&b, "alice-token", json!(8), "refund", arguments)
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(retried["result"]["isError"], false, "{retried}");
    assert_eq!(
        retried["result"]["structuredContent"]["status"],
        "succeeded"
    );
    assert_eq!(shop.refunds.load(Ordering::SeqCst), 1);
}

/// A write that started runs to its end when cancelled (a write is never abandoned
/// halfway): its POST is answered its outcome, and it happened once.
#[tokio::test]
async fn a_started_write_cancelled_runs_to_its_end_and_reports_it() {
    let shop = Shop::default();
    let url = serve(shop.clone(), State::new()).await;
    let write = call(
        &url,
        "alice-token",
        json!(9),
        "archive",
        json!({"millis": 1000}),
    );
    running().await;
    let (status, body, _) = cancel(&url, "alice-token", json!(9)).await;
    assert_eq!((status, body.as_str()), (202, ""));
    let (status, answer, _) = write.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"]["status"], "succeeded",
        "{answer}"
    );
    assert_eq!(shop.archives.load(Ordering::SeqCst), 1);
}

/// Bob's cancel of alice's request id, on her call's instance and on the other, matches
/// nothing: her read ends with its report.
#[tokio::test]
async fn another_callers_cancel_is_ignored() {
    let database = TestDatabase::create().await;
    let shop = Shop::default();
    let a = instance(shop.clone(), database.url()).await;
    let b = instance(shop.clone(), database.url()).await;
    let read = call(
        &a,
        "alice-token",
        json!(5),
        "sales_report",
        json!({"millis": 1500}),
    );
    running().await;
    for url in [&a, &b] {
        let (status, body, _) = cancel(url, "bob-token", json!(5)).await;
        assert_eq!((status, body.as_str()), (202, ""));
    }
    let (status, answer, _) = read.await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(outcome(&answer), report(json!(5)));
    assert_eq!(shop.reports.load(Ordering::SeqCst), 1);
}

/// Cancels of ids that run nowhere (another number, the same number as a string, an id
/// never sent), on one instance and on both of a database, are accepted (`202`) and change
/// nothing.
#[tokio::test]
async fn a_cancel_of_an_unknown_id_changes_nothing() {
    let shop = Shop::default();
    let url = serve(
        shop.clone(),
        State::new().with_cancel_bus(CancelBus::local()),
    )
    .await;
    let database = TestDatabase::create().await;
    let a = instance(shop.clone(), database.url()).await;
    let b = instance(shop.clone(), database.url()).await;
    let here = call(
        &url,
        "alice-token",
        json!(5),
        "sales_report",
        json!({"millis": 1500}),
    );
    let there = call(
        &a,
        "alice-token",
        json!(5),
        "sales_report",
        json!({"millis": 1500}),
    );
    running().await;
    for target in [&url, &a, &b] {
        for id in [json!(6), json!("5"), json!("never-sent")] {
            let (status, body, _) = cancel(target, "alice-token", id).await;
            assert_eq!((status, body.as_str()), (202, ""));
        }
    }
    for call in [here, there] {
        let (status, answer, _) = call.await.unwrap();
        assert_eq!(status, 200);
        assert_eq!(outcome(&answer), report(json!(5)));
    }
    assert_eq!(shop.reports.load(Ordering::SeqCst), 2);
}

// ---------------------------------------------------------------------------------------
// Two processes of the example on one PostgreSQL database
// ---------------------------------------------------------------------------------------

/// The example on `port` with `--store`, its notes slowed inside the write's transaction.
fn helpdesk(port: u16, store: &str) -> tokio::process::Child {
    tokio::process::Command::new(common::example_path("helpdesk"))
        .args(["--http", &format!("127.0.0.1:{port}"), "--store", store])
        .env(
            "MCP_RESULT_SERVER_KEY",
            "Y2FuY2VsLWh0dHAtdGVzdC1zZXJ2ZXIta2V5LTMyIQ==",
        )
        .env("HELPDESK_NOTE_DELAY_MS", "5000")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the example")
}

/// A keyed note written in its transaction on one process, cancelled through the other
/// while it runs: the transaction is rolled back, the POST answered so within a second, and
/// the ticket has no such note.
#[tokio::test]
async fn a_started_transactional_write_cancelled_through_another_process_rolls_back() {
    let database = TestDatabase::create().await;
    let (port_a, port_b) = (common::free_port(), common::free_port());
    let _a = helpdesk(port_a, database.url());
    assert!(common::wait_listening(port_a).await);
    let _b = helpdesk(port_b, database.url());
    assert!(common::wait_listening(port_b).await);
    let (a, b) = (
        format!("http://127.0.0.1:{port_a}/mcp"),
        format!("http://127.0.0.1:{port_b}/mcp"),
    );
    let note = call(
        &a,
        "alice-token",
        json!(3),
        "add_internal_note",
        json!({"ticketId": "T-1001", "body": "cancel-test", "requestId": "note-3"}),
    );
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(!note.is_finished(), "the note is being written");
    let (status, body, sent) = cancel(&b, "alice-token", json!(3)).await;
    assert_eq!((status, body.as_str()), (202, ""));
    let (status, answer, answered) = note.await.unwrap();
    assert_eq!(status, 200);
    assert!(
        answered.duration_since(sent) < Duration::from_secs(1),
        "answered {:?} after the cancel",
        answered.duration_since(sent)
    );
    let structured = &answer["result"]["structuredContent"];
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert_eq!(
        (
            &structured["status"],
            &structured["errorKind"],
            &structured["message"]
        ),
        (
            &json!("failed"),
            &json!("upstream_timeout"),
            &json!(ROLLED_BACK)
        ),
        "{answer}"
    );
    // Past the delay the note would have been committed: none is.
    tokio::time::sleep(Duration::from_millis(5000)).await;
    let (status, ticket, _) = call(
        &b,
        "alice-token",
        json!(4),
        "get_ticket",
        json!({"ticketId": "T-1001"}),
    )
    .await
    .unwrap();
    assert_eq!(status, 200);
    let notes = &ticket["result"]["structuredContent"]["notes"];
    assert!(
        !notes
            .as_array()
            .unwrap()
            .iter()
            .any(|note| note == "cancel-test"),
        "no note: {notes}"
    );
}

/// What a transactional write its client cancelled is answered.
const ROLLED_BACK: &str =
    "The call was cancelled and the write rolled back: nothing happened. Safe to retry.";
