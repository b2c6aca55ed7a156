//! The write path end to end, by store: a keyed write tool (idempotency claim, start and
//! completion, audit intent and outcome) served over streamable HTTP in this process, and 32
//! callers on loopback, each sending one call at a time with a fresh idempotency key.
//!
//! `cargo bench --all-features --bench write_path` prints, per store (memory, SQLite,
//! PostgreSQL, and the transactional tool `add_note_tx` whose row commits with the write's
//! records on SQLite and PostgreSQL): calls per second, p50 and p99 latency, and for PostgreSQL the database
//! commits per call (`pg_stat_database.xact_commit`: two per keyed write, the claim with its
//! intent and the answer with its outcome). `WRITE_PATH_SECS` sets the seconds per store
//! (default 10), counted after a warm-up second whose calls are not counted (steady state:
//! connections opened, statements prepared), `WRITE_PATH_CALLERS` the callers (default
//! 32). PostgreSQL comes from the
//! machine as in the tests (`tests/common/postgres.rs`).

#[path = "../tests/common/postgres.rs"]
mod postgres;

use std::{
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use mcp_result::{
    approval::ApprovalStore,
    audit::AuditSink,
    extract::WriteContext,
    http::{serve_http, HttpOptions, StaticTokens},
    idempotency::{IdempotencyStore, KeyLimits, MemoryIdempotencyStore},
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    sql::SqlStores,
    AuditEventId, Identity, ServerServices, Status, ToolResult, Tx,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct NoteArgs {
    ticket_id: String,
    body: String,
    /// The idempotency key (the framework reads it; the tool need not).
    #[allow(dead_code)]
    request_id: String,
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Added note {note_id} ({status}).")]
struct NoteAdded {
    note_id: String,
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
}

#[derive(Clone)]
struct Desk {
    notes: Arc<AtomicU64>,
    idempotency: Arc<dyn IdempotencyStore>,
    approvals: Arc<dyn ApprovalStore>,
    audit: Arc<dyn AuditSink>,
}

impl ServerServices for Desk {
    fn idempotency_store(&self, _state: &mcp_result::State) -> Arc<dyn IdempotencyStore> {
        self.idempotency.clone()
    }
    fn approval_store(&self, _state: &mcp_result::State) -> Arc<dyn ApprovalStore> {
        self.approvals.clone()
    }
    fn audit_sink(&self, _state: &mcp_result::State) -> Arc<dyn AuditSink> {
        self.audit.clone()
    }
}

#[mcp_tools(services)]
impl Desk {
    /// Adds a note.
    #[mcp_tool(destructive = false, idempotency_key = "requestId")]
    async fn add_note(&self, args: NoteArgs, write: WriteContext) -> NoteAdded {
        let _ = (args.ticket_id, args.body);
        let n = self.notes.fetch_add(1, Ordering::Relaxed);
        NoteAdded {
            note_id: format!("N{n}"),
            status: Status::Succeeded,
            retry_safe: true,
            audit_event_id: write.audit_event_id().clone(),
        }
    }

    /// Adds a note as a row, in the write's transaction.
    #[mcp_tool(destructive = false, idempotency_key = "requestId")]
    async fn add_note_tx(
        &self,
        args: NoteArgs,
        write: WriteContext,
        tx: Tx,
    ) -> Result<NoteAdded, mcp_result::ToolError> {
        use mcp_result::ResultExt as _;
        let n = self.notes.fetch_add(1, Ordering::Relaxed);
        if let Some(mut connection) = tx.connection().await {
            mcp_result::sql::sqlx::query(
                "INSERT INTO bench_notes (ticket_id, body) VALUES ($1, $2)",
            )
            .bind(args.ticket_id)
            .bind(args.body)
            .execute(&mut *connection)
            .await
            .internal()?;
        }
        Ok(NoteAdded {
            note_id: format!("N{n}"),
            status: Status::Succeeded,
            retry_safe: true,
            audit_event_id: write.audit_event_id().clone(),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

struct Figures {
    /// The calls counted (after the warm-up).
    calls: u64,
    /// Every call made, the warm-up's too (what the database's commit counter saw).
    all_calls: u64,
    secs: f64,
    p50: Duration,
    p99: Duration,
}

async fn run(desk: Desk, tool: &'static str, callers: usize, secs: u64) -> Figures {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    // One identity per caller, as many agents would be.
    let tokens = (0..callers).fold(StaticTokens::new(), |tokens, n| {
        tokens.with(&format!("bench-{n}"), Identity::new(format!("caller-{n}")))
    });
    let stop = shutdown_signal();
    let server = tokio::spawn(serve_http(
        desk,
        listener,
        Arc::new(tokens),
        HttpOptions::default(),
        stop.1,
    ));
    let http = reqwest::Client::new();
    let next = Arc::new(AtomicU64::new(0));
    // Steady state: the first second's calls (the pool's connections opened, PostgreSQL's
    // SCRAM handshakes, the HTTP connections, the first statements prepared) are made and
    // not counted.
    let measured = Instant::now() + WARM_UP;
    let deadline = measured + Duration::from_secs(secs);
    let tasks: Vec<_> = (0..callers)
        .map(|n| {
            let (http, url, next) = (http.clone(), url.clone(), next.clone());
            let token = format!("bench-{n}");
            tokio::spawn(async move {
                let (mut latencies, mut made) = (Vec::new(), 0u64);
                while Instant::now() < deadline {
                    made += 1;
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
                        "name": tool,
                        "arguments": {"ticketId": "T-1", "body": "note", "requestId": format!("key-{i}")}
                    }});
                    let sent = Instant::now();
                    let reply: Value = http
                        .post(&url)
                        .bearer_auth(&token)
                        .header("content-type", "application/json")
                        .header("accept", "application/json, text/event-stream")
                        .header("mcp-protocol-version", "2025-06-18")
                        .body(body.to_string())
                        .send()
                        .await
                        .unwrap()
                        .json()
                        .await
                        .unwrap();
                    if sent >= measured {
                        latencies.push(sent.elapsed());
                    }
                    assert_eq!(
                        reply["result"]["structuredContent"]["status"], "succeeded",
                        "{reply}"
                    );
                }
                (latencies, made)
            })
        })
        .collect();
    let (mut latencies, mut all_calls) = (Vec::new(), 0);
    for task in tasks {
        let (measured, made) = task.await.unwrap();
        latencies.extend(measured);
        all_calls += made;
    }
    let secs = measured.elapsed().as_secs_f64();
    let _ = stop.0.send(());
    let _ = server.await;
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    Figures {
        calls: latencies.len() as u64,
        all_calls,
        secs,
        p50: at(0.50),
        p99: at(0.99),
    }
}

/// How long each run makes calls before it counts them.
const WARM_UP: Duration = Duration::from_secs(1);

/// A shutdown signal for `serve_http`: send on the first to stop.
fn shutdown_signal() -> (
    tokio::sync::oneshot::Sender<()>,
    impl std::future::Future<Output = ()> + Send + 'static,
) {
    let (tx, rx) = tokio::sync::oneshot::channel();
    (tx, async move {
        let _ = rx.await;
    })
}

/// Room for every key of a run (a bench run makes more than the default 100,000 in all);
/// each caller is an identity of its own, within the default per-caller quota.
const LIMITS: KeyLimits = KeyLimits {
    per_caller: 10_000,
    total: 10_000_000,
};

fn desk_on(stores: Option<&SqlStores>) -> Desk {
    match stores {
        None => Desk {
            notes: Arc::default(),
            idempotency: Arc::new(MemoryIdempotencyStore::with_limits(LIMITS)),
            approvals: Arc::new(mcp_result::approval::MemoryApprovals::default()),
            audit: Arc::new(mcp_result::audit::TracingSink),
        },
        Some(stores) => Desk {
            notes: Arc::default(),
            idempotency: Arc::new(stores.idempotency().with_limits(LIMITS)),
            approvals: Arc::new(stores.approvals()),
            audit: Arc::new(stores.audit()),
        },
    }
}

async fn xact_commit(stores: &SqlStores) -> i64 {
    mcp_result::sql::sqlx::query_scalar(
        "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()",
    )
    .fetch_one(stores.pool())
    .await
    .unwrap()
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        // `cargo bench -- --test` / `--list`: nothing to list; the run itself is the test.
        return;
    }
    let secs: u64 = std::env::var("WRITE_PATH_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let callers: usize = std::env::var("WRITE_PATH_CALLERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32);
    let dir = std::env::temp_dir().join(format!("write-path-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sqlite = SqlStores::connect(&format!("sqlite:{}", dir.join("bench.db").display()))
        .await
        .unwrap();
    let database = postgres::TestDatabase::create().await;
    let pg = SqlStores::connect(database.url()).await.unwrap();

    println!("| store | calls/s | p50 | p99 | vs memory | DB transactions per call |");
    println!("|---|---|---|---|---|---|");
    let memory = run(desk_on(None), "add_note", callers, secs).await;
    let base = memory.calls as f64 / memory.secs;
    let row = |name: &str, f: &Figures, extra: String| {
        let rate = f.calls as f64 / f.secs;
        println!(
            "| {name} | {rate:.0} | {:.2} ms | {:.2} ms | {:.2}× | {extra} |",
            f.p50.as_secs_f64() * 1e3,
            f.p99.as_secs_f64() * 1e3,
            rate / base
        );
    };
    row("memory", &memory, "–".into());
    let figures = run(desk_on(Some(&sqlite)), "add_note", callers, secs).await;
    row("SQLite (WAL, synchronous=FULL)", &figures, "–".into());
    for stores in [&sqlite, &pg] {
        mcp_result::sql::sqlx::query(
            "CREATE TABLE bench_notes (ticket_id TEXT NOT NULL, body TEXT NOT NULL)",
        )
        .execute(stores.pool())
        .await
        .unwrap();
    }
    let figures = run(desk_on(Some(&sqlite)), "add_note_tx", callers, secs).await;
    row("SQLite, transactional (`Tx`)", &figures, "–".into());
    let before = xact_commit(&pg).await;
    let figures = run(desk_on(Some(&pg)), "add_note", callers, secs).await;
    let after = xact_commit(&pg).await;
    // The two counter reads are transactions too; the statistics lag by up to 0.5 s.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let after = after.max(xact_commit(&pg).await - 1);
    row(
        "PostgreSQL 15",
        &figures,
        format!(
            "{:.2}",
            (after - before - 1) as f64 / figures.all_calls as f64
        ),
    );
    let before = xact_commit(&pg).await;
    let figures = run(desk_on(Some(&pg)), "add_note_tx", callers, secs).await;
    let after = xact_commit(&pg).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
    let after = after.max(xact_commit(&pg).await - 1);
    row(
        "PostgreSQL 15, transactional (`Tx`)",
        &figures,
        format!(
            "{:.2}",
            (after - before - 1) as f64 / figures.all_calls as f64
        ),
    );
    // Diagnostic, not a configuration to run: the same database without waiting for the
    // WAL flush at commit. The difference is what durability costs on this disk.
    mcp_result::sql::sqlx::query(&format!(
        "ALTER DATABASE {} SET synchronous_commit = off",
        database.name()
    ))
    .execute(pg.pool())
    .await
    .unwrap();
    let unsafe_pg = SqlStores::connect(database.url()).await.unwrap();
    let figures = run(desk_on(Some(&unsafe_pg)), "add_note", callers, secs).await;
    row(
        "PostgreSQL 15, synchronous_commit=off (diagnostic)",
        &figures,
        "–".into(),
    );
    unsafe_pg.close().await;
    println!("\n{callers} callers, {secs} s per store, one fresh idempotency key per call");
    pg.close().await;
    sqlite.close().await;
    let _ = std::fs::remove_dir_all(dir);
}
