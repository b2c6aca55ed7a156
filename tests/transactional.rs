//! Transactional writes (`Tx`), written as the guide teaches and served to rmcp's
//! client, on SQLite and PostgreSQL: the tool's own statements commit with the framework's
//! records of the call, once. A success commits its row; a tool error rolls its row back and
//! its error is replayed under the key; a write past its time limit rolls back, answers
//! `failed` with `retrySafe: true`, and the retry runs fresh; a write its client cancels rolls
//! back and frees its key; two calls with one key run once;
//! on the in-memory stores the tool runs without a transaction.

use crate::common;

use common::postgres;

use std::time::Duration;

use mcp_result::{
    mcp_handler, mcp_tools,
    rmcp::{
        model::{CallToolRequestParams, CallToolResult, RequestMetaObject},
        service::{RoleClient, RunningService},
        ServerHandler, ServiceExt,
    },
    sql::{sqlx, SqlStores},
    ResultExt, State, ToolError, ToolResult, Tx, WriteReceipt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Deserialize, JsonSchema)]
struct NoteArgs {
    /// The note.
    body: String,
    /// Fail after inserting.
    #[serde(default)]
    fail: bool,
    /// Wait this long after inserting (ms).
    #[serde(default)]
    wait_ms: u64,
}

/// A note was added.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Added {
    transactional: bool,
    #[serde(flatten)]
    receipt: WriteReceipt,
}

#[derive(Clone)]
struct Desk;

#[mcp_tools]
impl Desk {
    /// Adds a note, in the stores' transaction. Past 400 ms it stops and rolls back.
    #[mcp_tool(destructive = false, timeout_ms = 400)]
    async fn add_note(&self, args: NoteArgs, tx: Tx) -> Result<Added, ToolError> {
        if let Some(mut connection) = tx.connection().await {
            sqlx::query("INSERT INTO notes (body) VALUES ($1)")
                .bind(&args.body)
                .execute(&mut *connection)
                .await
                .internal()?;
        }
        if args.wait_ms > 0 {
            tokio::time::sleep(Duration::from_millis(args.wait_ms)).await;
        }
        if args.fail {
            return Err(ToolError::conflict("The note was refused."));
        }
        Ok(Added {
            transactional: tx.is_transactional(),
            receipt: WriteReceipt::succeeded(),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

type Client = RunningService<RoleClient, ()>;

async fn serve(state: State) -> Client {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let _ = mcp_result::serve_with_state(Desk, server_io, state).await;
    });
    ().serve(client_io).await.unwrap()
}

async fn add(client: &Client, arguments: Value, key: &str) -> CallToolResult {
    let mut request = CallToolRequestParams::new("add_note")
        .with_arguments(arguments.as_object().unwrap().clone());
    let mut meta = RequestMetaObject::default();
    meta.0.insert(
        mcp_result::keys::IDEMPOTENCY_KEY_META.to_owned(),
        json!(key),
    );
    request.meta = Some(meta);
    client.call_tool(request).await.unwrap()
}

async fn notes(stores: &SqlStores, body: &str) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM notes WHERE body = $1")
        .bind(body)
        .fetch_one(stores.pool())
        .await
        .unwrap()
}

async fn every_end_of_a_transactional_write(url: &str) {
    let stores = SqlStores::connect(url).await.unwrap();
    sqlx::query("CREATE TABLE notes (body TEXT NOT NULL)")
        .execute(stores.pool())
        .await
        .unwrap();
    let state = State::with_sql_stores(stores.clone());
    let client = serve(state).await;

    // Success: one row; the retry is the same answer, no second row.
    let done = add(&client, json!({"body": "ok"}), "k-ok").await;
    assert_eq!(done.is_error, Some(false), "{done:?}");
    let done = done.structured_content.unwrap();
    assert_eq!(done["transactional"], true);
    assert_eq!(done["status"], "succeeded");
    let again = add(&client, json!({"body": "ok"}), "k-ok").await;
    assert_eq!(again.structured_content.unwrap(), done);
    assert_eq!(notes(&stores, "ok").await, 1);

    // A tool error: its row rolled back, its error stored and replayed.
    let refused = add(&client, json!({"body": "no", "fail": true}), "k-no").await;
    assert_eq!(refused.is_error, Some(true));
    let refused = refused.structured_content.unwrap();
    assert_eq!(refused["errorKind"], "conflict");
    assert_eq!(notes(&stores, "no").await, 0);
    let again = add(&client, json!({"body": "no", "fail": true}), "k-no").await;
    assert_eq!(again.structured_content.unwrap(), refused);
    assert_eq!(notes(&stores, "no").await, 0);

    // Past its time limit: rolled back, `failed` and retry-safe; the retry runs fresh.
    let slow = add(&client, json!({"body": "slow", "wait_ms": 2000}), "k-slow").await;
    assert_eq!(slow.is_error, Some(true));
    let slow = slow.structured_content.unwrap();
    assert_eq!(
        (
            &slow["status"],
            &slow["errorKind"],
            &slow["retrySafe"],
            &slow["message"]
        ),
        (
            &json!("failed"),
            &json!("upstream_timeout"),
            &json!(true),
            &json!("The write did not finish within 400 ms and was rolled back: nothing happened. Safe to retry.")
        )
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(notes(&stores, "slow").await, 0);
    let retried = add(&client, json!({"body": "slow"}), "k-slow").await;
    assert_eq!(retried.is_error, Some(false), "{retried:?}");
    assert_eq!(notes(&stores, "slow").await, 1);

    // Two calls with one key at once: one runs, both get its answer.
    let (a, b) = tokio::join!(
        add(&client, json!({"body": "twice", "wait_ms": 150}), "k-twice"),
        add(&client, json!({"body": "twice", "wait_ms": 150}), "k-twice"),
    );
    assert_eq!(a.is_error, Some(false), "{a:?}");
    assert_eq!(a.structured_content, b.structured_content);
    assert_eq!(notes(&stores, "twice").await, 1);

    // Cancelled by its client (`notifications/cancelled`): rolled back, nothing stays, and
    // the key is free for the retry.
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let state = State::with_sql_stores(stores.clone());
    tokio::spawn(async move {
        let _ = mcp_result::serve_with_state(Desk, server_io, state).await;
    });
    let (read, write) = tokio::io::split(client_io);
    let mut raw = common::raw::RawClient::new(read, write);
    raw.send(&common::raw::handshake("2025-11-25")).await;
    raw.answer(0).await;
    raw.send(&[
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "add_note", "arguments": {"body": "cancelled", "wait_ms": 300},
        "_meta": {"io.github.mcp-result/idempotencyKey": "k-cancelled"}}}),
    ])
    .await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    raw.send(&[
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "the user stopped it"}}),
    ])
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(notes(&stores, "cancelled").await, 0);
    let retried = add(&client, json!({"body": "cancelled"}), "k-cancelled").await;
    assert_eq!(retried.is_error, Some(false), "{retried:?}");
    assert_eq!(notes(&stores, "cancelled").await, 1);

    // The audit log: the success's event has its intent and outcome; the rolled-back slow
    // attempt left no intent.
    let event = done["auditEventId"].as_str().unwrap();
    let records = stores.audit().records_for(event).await.unwrap();
    assert_eq!(records.len(), 2, "{records:?}");
    let slow_event = slow["auditEventId"].as_str().unwrap();
    let records = stores.audit().records_for(slow_event).await.unwrap();
    assert!(
        records
            .iter()
            .all(|r| r.phase != mcp_result::audit::Phase::Intent),
        "{records:?}"
    );
    client.cancel().await.unwrap();
    stores.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn on_postgres() {
    let database = postgres::TestDatabase::create().await;
    every_end_of_a_transactional_write(database.url()).await;
}

/// PostgreSQL cannot store U+0000 in text: an argument holding it is a `validation_error`
/// naming the field before anything runs (never "unavailable, retry"); no driver text
/// reaches the client (resource URIs holding it: tests/approval_http.rs).
#[tokio::test(flavor = "multi_thread")]
async fn text_postgres_cannot_store_is_a_validation_error() {
    let database = postgres::TestDatabase::create().await;
    let stores = SqlStores::connect(database.url()).await.unwrap();
    sqlx::query("CREATE TABLE notes (body TEXT NOT NULL)")
        .execute(stores.pool())
        .await
        .unwrap();
    let state = State::with_sql_stores(stores.clone());
    let client = serve(state).await;
    let refused = add(&client, json!({"body": "a\u{0}b"}), "k-nul").await;
    assert_eq!(refused.is_error, Some(true));
    let envelope = refused.structured_content.unwrap();
    assert_eq!(envelope["errorKind"], "validation_error", "{envelope}");
    assert_eq!(envelope["retrySafe"], true);
    assert_eq!(
        envelope["fieldErrors"],
        json!([{"pointer": "/body", "message": "holds the character U+0000 (NUL), which this \
            server's database cannot store: remove it"}])
    );
    assert_eq!(notes(&stores, "ab").await, 0);
    // The key was not taken: the corrected call runs.
    let done = add(&client, json!({"body": "ab"}), "k-nul").await;
    assert_eq!(done.is_error, Some(false), "{done:?}");
    client.cancel().await.unwrap();
    stores.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn on_sqlite() {
    let dir = std::env::temp_dir().join(format!("mcp-result-tx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    every_end_of_a_transactional_write(&format!("sqlite:{}", dir.join("tx.db").display())).await;
    let _ = std::fs::remove_dir_all(dir);
}

/// On the in-memory stores the tool runs as any write: no transaction, still once per key.
#[tokio::test(flavor = "multi_thread")]
async fn on_the_memory_stores() {
    let client = serve(State::new()).await;
    let done = add(&client, json!({"body": "m"}), "k-m").await;
    assert_eq!(done.is_error, Some(false), "{done:?}");
    let done = done.structured_content.unwrap();
    assert_eq!(done["transactional"], false);
    let again = add(&client, json!({"body": "m"}), "k-m").await;
    assert_eq!(again.structured_content.unwrap(), done);
    client.cancel().await.unwrap();
}

/// A read-only tool and a write gated by a human approval cannot take `Tx`: the server does
/// not start, and says why.
#[tokio::test]
async fn tx_where_it_cannot_hold_stops_the_server() {
    #[derive(Clone)]
    struct Reader;

    #[mcp_tools]
    impl Reader {
        /// Reads.
        #[mcp_tool(read_only)]
        async fn read(&self, _tx: Tx) -> Result<Added, ToolError> {
            Err(ToolError::conflict("never runs"))
        }
    }

    #[mcp_handler]
    impl ServerHandler for Reader {}

    #[derive(Clone)]
    struct Gated;

    #[mcp_tools]
    impl Gated {
        /// Purges, once a human approved.
        #[mcp_tool(requires_approval)]
        async fn purge(&self, _tx: Tx) -> Result<Added, ToolError> {
            Err(ToolError::conflict("never runs"))
        }
    }

    #[mcp_handler]
    impl ServerHandler for Gated {}

    let (io, _client) = tokio::io::duplex(1 << 10);
    let stopped = mcp_result::serve(Reader, io).await.unwrap_err();
    assert_eq!(
        stopped.to_string(),
        "tool `read`: a read-only tool takes no `Tx`: it changes nothing to commit; read \
         through the stores' pool (`SqlStores::pool`) instead"
    );
    let (io, _client) = tokio::io::duplex(1 << 10);
    let stopped = mcp_result::serve(Gated, io).await.unwrap_err();
    assert_eq!(
        stopped.to_string(),
        "tool `purge`: a tool gated by a human approval (`requires_approval`) cannot take \
         `Tx` yet: its claim comes before the question, outside the transaction"
    );
}
