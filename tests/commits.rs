//! What a durable write costs the database, counted by PostgreSQL itself
//! (`pg_stat_database.xact_commit`) over many keyed writes served as the guide teaches
//! (`serve_with_state` with the SQL stores, rmcp's client): at most two commits each, one for
//! the claim with its audit intent and one for the stored answer with its audit outcome;
//! unkeyed writes likewise two (intent, outcome).

use crate::common::postgres;

use std::time::Duration;

use mcp_result::{
    mcp_handler, mcp_tools,
    rmcp::{
        model::{CallToolRequestParams, RequestMetaObject},
        ServerHandler, ServiceExt,
    },
    sql::SqlStores,
    State, Tx, WriteReceipt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
struct NoteArgs {
    /// The note.
    #[allow(dead_code)]
    body: String,
}

/// A note was added.
#[derive(Serialize, JsonSchema, mcp_result::ToolResult)]
struct Added {
    #[serde(flatten)]
    receipt: WriteReceipt,
}

#[derive(Clone)]
struct Desk;

#[mcp_tools]
impl Desk {
    /// Adds a note.
    #[mcp_tool(destructive = false)]
    fn add_note(&self, _args: NoteArgs) -> Added {
        Added {
            receipt: WriteReceipt::succeeded(),
        }
    }

    /// Adds a note in the stores' transaction.
    #[mcp_tool(destructive = false)]
    async fn add_row(&self, args: NoteArgs, tx: Tx) -> Result<Added, mcp_result::ToolError> {
        use mcp_result::ResultExt as _;
        let mut connection = tx.connection().await.expect("SQL stores");
        mcp_result::sql::sqlx::query("INSERT INTO rows (body) VALUES ($1)")
            .bind(args.body)
            .execute(&mut *connection)
            .await
            .internal()?;
        Ok(Added {
            receipt: WriteReceipt::succeeded(),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

/// The database's commits so far, read on a connection of its own that is closed at once
/// (a backend publishes its counters when it exits; pooled connections that stay open may
/// hold theirs for seconds).

/// The commits of a server's life on the SQL stores at `url` in which rmcp's client makes
/// `writes` calls of `add_note`, keyed or not: the stores opened, the server served, the
/// calls, the server stopped and the stores closed (so every connection published its
/// counters).
async fn commits_of(url: &str, tool: &str, writes: usize, keyed: bool) -> i64 {
    let before = postgres::xact_commit(url).await;
    let stores = SqlStores::open(url).await.unwrap();
    let state = State::with_sql_stores(stores.clone());
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let served = tokio::spawn(async move {
        let _ = mcp_result::serve_with_state(Desk, server_io, state).await;
    });
    let client = ().serve(client_io).await.unwrap();
    for i in 0..writes {
        let mut request = CallToolRequestParams::new(tool.to_owned())
            .with_arguments(json!({"body": "hi"}).as_object().unwrap().clone());
        if keyed {
            let mut meta = RequestMetaObject::default();
            meta.0.insert(
                mcp_result::keys::IDEMPOTENCY_KEY_META.to_owned(),
                json!(format!("key-{tool}-{keyed}-{writes}-{i}")),
            );
            request.meta = Some(meta);
        }
        let result = client.call_tool(request).await.unwrap();
        assert_eq!(result.is_error, Some(false), "{result:?}");
    }
    client.cancel().await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), served)
        .await
        .expect("the server stops with its client")
        .unwrap();
    stores.close().await;
    // The closed backends publish at exit: the reading waits until they have all gone.
    postgres::xact_commit(url).await - before
}

#[tokio::test(flavor = "multi_thread")]
async fn a_durable_write_commits_twice_and_a_transactional_one_once() {
    let database = postgres::TestDatabase::create().await;
    // Runs the migrations and makes the table, so the measured lives do not.
    let stores = SqlStores::connect(database.url()).await.unwrap();
    mcp_result::sql::sqlx::query("CREATE TABLE rows (body TEXT NOT NULL)")
        .execute(stores.pool())
        .await
        .unwrap();
    stores.close().await;
    const WRITES: usize = 200;
    // What a server's life costs without writes: opening, the handshake, closing, the reads.
    let base = commits_of(database.url(), "add_note", 0, true).await;
    let per_call = |commits: i64| (commits - base) as f64 / WRITES as f64;
    let keyed = per_call(commits_of(database.url(), "add_note", WRITES, true).await);
    let unkeyed = per_call(commits_of(database.url(), "add_note", WRITES, false).await);
    let transactional = per_call(commits_of(database.url(), "add_row", WRITES, true).await);
    println!(
        "commits per keyed write: {keyed:.2}; per unkeyed write: {unkeyed:.2}; per \
         transactional keyed write: {transactional:.2}"
    );
    // Autovacuum's own commits in the database may fall in the window.
    assert!(
        (0.95..=1.10).contains(&transactional),
        "commits per transactional write: {transactional:.2}"
    );
    // Two each; a purge of expired keys (once a minute) or a commit of the database's own
    // may fall in the window.
    assert!(
        (1.95..=2.10).contains(&keyed),
        "commits per keyed write: {keyed:.2}"
    );
    assert!(
        (1.95..=2.10).contains(&unkeyed),
        "commits per unkeyed write: {unkeyed:.2}"
    );
}
