//! What a transactional keyed write (`Tx`) costs PostgreSQL in round trips, counted on the
//! wire: the SQL stores connect through a proxy here that reads the frontend messages and
//! counts each `Query` (a simple query, several statements in one) and each `Sync` (the end
//! of an extended query: bind, execute), the messages after which the client waits for the
//! server. At most four besides the tool's own statement (`BEGIN` with the lock timeout and
//! the savepoint; the claim with its intent; the answer with its outcome; `COMMIT`), and no
//! statement prepared again once a connection has run it (sqlx's statement cache). A tool
//! that fails rolls back to the savepoint taken before the claim: the claim and the intent are
//! written again, its row is not, its error is stored and replayed.
#![cfg(feature = "postgres")]

use crate::common::postgres;

use std::sync::{
    atomic::{AtomicU64, Ordering},
    Arc,
};

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
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

#[derive(Deserialize, JsonSchema)]
struct NoteArgs {
    /// The note.
    body: String,
    /// Refuse it after inserting it.
    #[serde(default)]
    fail: bool,
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
    /// Adds a note in the stores' transaction: one statement of its own.
    #[mcp_tool(destructive = false)]
    async fn add_row(&self, args: NoteArgs, tx: Tx) -> Result<Added, mcp_result::ToolError> {
        use mcp_result::ResultExt as _;
        let mut connection = tx.connection().await.expect("SQL stores");
        mcp_result::sql::sqlx::query("INSERT INTO rows (body) VALUES ($1)")
            .bind(args.body)
            .execute(&mut *connection)
            .await
            .internal()?;
        if args.fail {
            return Err(mcp_result::ToolError::conflict("The note was refused."));
        }
        Ok(Added {
            receipt: WriteReceipt::succeeded(),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

/// What the proxy counted, over all connections.
#[derive(Default)]
struct Counts {
    /// `Query` and `Sync` messages: round trips.
    round_trips: AtomicU64,
    /// `Parse` messages: statements prepared.
    parses: AtomicU64,
    /// `Sync` messages alone: sqlx's pings (as a connection goes back to its pool, off the
    /// caller's path; when one idle for long is taken).
    pings: AtomicU64,
}

/// Forwards connections from a local port to `upstream`, counting the client's messages.
async fn proxy(upstream: String, counts: Arc<Counts>) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((client, _)) = listener.accept().await else {
                return;
            };
            let server = TcpStream::connect(&upstream).await.unwrap();
            let counts = counts.clone();
            tokio::spawn(async move {
                let (mut client_read, mut client_write) = client.into_split();
                let (mut server_read, mut server_write) = server.into_split();
                tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut server_read, &mut client_write).await;
                });
                // The startup message has no type byte; every message after it has one.
                let mut typed = false;
                let mut last = 0u8;
                loop {
                    let mut kind = [0u8; 1];
                    if typed && client_read.read_exact(&mut kind).await.is_err() {
                        return;
                    }
                    let mut length = [0u8; 4];
                    if client_read.read_exact(&mut length).await.is_err() {
                        return;
                    }
                    let mut body = vec![0u8; u32::from_be_bytes(length) as usize - 4];
                    if client_read.read_exact(&mut body).await.is_err() {
                        return;
                    }
                    if typed {
                        match kind[0] {
                            // A `Sync` alone: sqlx's ping.
                            b'S' if !matches!(last, b'P' | b'B' | b'D' | b'E' | b'C' | b'H') => {
                                counts.pings.fetch_add(1, Ordering::SeqCst)
                            }
                            b'Q' | b'S' => counts.round_trips.fetch_add(1, Ordering::SeqCst),
                            b'P' => counts.parses.fetch_add(1, Ordering::SeqCst),
                            _ => 0,
                        };
                        last = kind[0];
                        if server_write.write_all(&kind).await.is_err() {
                            return;
                        }
                    }
                    if server_write.write_all(&length).await.is_err()
                        || server_write.write_all(&body).await.is_err()
                    {
                        return;
                    }
                    typed = true;
                }
            });
        }
    });
    address
}

#[tokio::test(flavor = "multi_thread")]
async fn a_transactional_keyed_write_is_four_round_trips_besides_the_tools() {
    let database = postgres::TestDatabase::create().await;
    let stores = SqlStores::connect(database.url()).await.unwrap();
    mcp_result::sql::sqlx::query("CREATE TABLE rows (body TEXT NOT NULL)")
        .execute(stores.pool())
        .await
        .unwrap();
    stores.close().await;

    // postgres://user:password@host:port/name: through the proxy, in clear (its messages
    // are read).
    let url = database.url();
    let (head, rest) = url.rsplit_once('@').unwrap();
    let (upstream, name) = rest.split_once('/').unwrap();
    let counts = Arc::new(Counts::default());
    let local = proxy(upstream.to_owned(), counts.clone()).await;
    let proxied = format!("{head}@{local}/{name}?sslmode=disable");

    let stores = SqlStores::open(&proxied).await.unwrap();
    let state = State::with_sql_stores(stores.clone());
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let _ = mcp_result::serve_with_state(Desk, server_io, state).await;
    });
    let client = ().serve(client_io).await.unwrap();
    let write = |i: usize| {
        let mut request = CallToolRequestParams::new("add_row".to_owned())
            .with_arguments(json!({"body": "hi"}).as_object().unwrap().clone());
        let mut meta = RequestMetaObject::default();
        meta.0.insert(
            mcp_result::keys::IDEMPOTENCY_KEY_META.to_owned(),
            json!(format!("key-{i}")),
        );
        request.meta = Some(meta);
        let client = &client;
        async move {
            let result = client.call_tool(request).await.unwrap();
            assert_eq!(result.is_error, Some(false), "{result:?}");
        }
    };
    // The first writes open the connection, prepare the statements, purge expired keys.
    for i in 0..5 {
        write(i).await;
    }
    const WRITES: usize = 20;
    let (trips, parses, pings) = (
        counts.round_trips.load(Ordering::SeqCst),
        counts.parses.load(Ordering::SeqCst),
        counts.pings.load(Ordering::SeqCst),
    );
    for i in 5..5 + WRITES {
        write(i).await;
    }
    let trips = counts.round_trips.load(Ordering::SeqCst) - trips;
    let parses = counts.parses.load(Ordering::SeqCst) - parses;
    let pings = counts.pings.load(Ordering::SeqCst) - pings;
    let per_write = trips as f64 / WRITES as f64;
    println!(
        "round trips per transactional keyed write, the tool's one statement included: \
         {per_write:.2}; sqlx's pings: {:.2} a write; statements prepared in {WRITES} \
         writes: {parses}",
        pings as f64 / WRITES as f64
    );
    assert!(
        per_write <= 5.0,
        "round trips per transactional keyed write: {per_write:.2} (the tool's 1 included)"
    );
    assert_eq!(parses, 0, "statements prepared again");
    // One ping a write, as its connection goes back to the pool; none when it is taken.
    assert!(
        pings as usize <= WRITES + 2,
        "sqlx's pings in {WRITES} writes: {pings}"
    );

    // A failed tool: its row rolled back, its claim and intent written again, its error
    // stored and replayed, its audit record complete (intent, outcome).
    let call = |i: &'static str| {
        let mut request = CallToolRequestParams::new("add_row".to_owned()).with_arguments(
            json!({"body": "no", "fail": true})
                .as_object()
                .unwrap()
                .clone(),
        );
        let mut meta = RequestMetaObject::default();
        meta.0
            .insert(mcp_result::keys::IDEMPOTENCY_KEY_META.to_owned(), json!(i));
        request.meta = Some(meta);
        client.call_tool(request)
    };
    let refused = call("key-refused").await.unwrap();
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    let refused = refused.structured_content.unwrap();
    assert_eq!(refused["errorKind"], "conflict", "{refused}");
    let again = call("key-refused").await.unwrap();
    assert_eq!(again.structured_content.unwrap(), refused);
    let event = refused["auditEventId"].as_str().unwrap();
    let phases: Vec<_> = stores
        .audit()
        .records_for(event)
        .await
        .unwrap()
        .into_iter()
        .map(|record| record.phase)
        .collect();
    assert!(
        phases.contains(&mcp_result::audit::Phase::Intent) && phases.len() == 2,
        "{phases:?}"
    );

    client.cancel().await.unwrap();
    stores.close().await;
    let rows: i64 = {
        let stores = SqlStores::open(database.url()).await.unwrap();
        let rows = mcp_result::sql::sqlx::query_scalar("SELECT COUNT(*) FROM rows")
            .fetch_one(stores.pool())
            .await
            .unwrap();
        stores.close().await;
        rows
    };
    assert_eq!(rows, 5 + WRITES as i64);
}
