//! SQLite's one writer (`mcp_result::sql`, module docs "SQLite: one writer, group commits"):
//! the stores' writes on a SQLite file queue in arrival order and commit in groups, each
//! write in a savepoint of its own.
//!
//! - 32 keyed writers queued into one group, one of them failing in the middle: it alone
//!   fails, its claim rolled back; the 31 others each succeed once (their keys, their two
//!   audit records).
//! - transactional writes (`Tx`) and plain keyed writes interleaved on one file: all
//!   commit, none sees `database is locked`.
//! - a write that gets no turn within the busy timeout (a `Tx` holds the writer) fails,
//!   saying why, and never runs.
//! - a process killed (SIGKILL) while its writers commit: on reopening, every key either
//!   committed whole (its claim with its intent; its result with its outcome) or not at all,
//!   and every write answered before the kill is there.

use std::{
    io::{BufRead as _, Write as _},
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use mcp_result::{
    audit::{AuditRecord, AuditSink, Phase},
    idempotency::{Claim, IdempotencyStore, KeyScope, Opened},
    mcp_handler, mcp_tools,
    rmcp::{
        model::{CallToolRequestParams, CallToolResult, RequestMetaObject},
        service::{RoleClient, RunningService},
        ServerHandler, ServiceExt,
    },
    sql::{sqlx, SqlStores},
    ResultExt, State, Status, ToolError, ToolResult, Tx, WriteReceipt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

const LEASE: Duration = Duration::from_secs(60);
const TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// A directory removed when the test ends.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "mcp-result-sqlite-writer-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn url(&self) -> String {
        url_of(&self.0)
    }
}

fn url_of(dir: &Path) -> String {
    format!("sqlite:{}", dir.join("writer.db").display())
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scope(key: &str) -> KeyScope {
    KeyScope {
        tool: "add_note".into(),
        caller: "alice".into(),
        key: key.into(),
    }
}

fn fp() -> Vec<String> {
    vec!["fingerprint".to_owned()]
}

fn result(key: &str) -> Value {
    json!({"content": [], "structuredContent": {"noteId": key}, "isError": false})
}

fn record(event: &str, phase: Phase) -> AuditRecord {
    let mut record = AuditRecord::intent(
        event.into(),
        "add_note",
        "alice".into(),
        None,
        "digest".into(),
    );
    record.phase = phase;
    record.time = "2026-01-01T00:00:00.000Z".into();
    if phase == Phase::Outcome {
        record.status = Some(Status::Succeeded);
    }
    record
}

/// One keyed write as the write path makes it: the claim started with its intent, then the
/// result stored with its outcome.
async fn keyed_write(
    idempotency: &dyn IdempotencyStore,
    audit: &dyn AuditSink,
    key: &str,
    event: &str,
) -> Result<(), String> {
    let k = scope(key);
    let claim = idempotency
        .claim_started(
            &k,
            &fp(),
            (LEASE, TTL),
            audit,
            &record(event, Phase::Intent),
        )
        .await
        .map_err(|e| e.to_string())?;
    let Claim::Claimed(token) = claim else {
        return Err(format!("{key}: not claimed: {claim:?}"));
    };
    idempotency
        .complete_recorded(
            &k,
            token,
            &result(key),
            audit,
            &record(event, Phase::Outcome),
        )
        .await
        .map_err(|e| e.to_string())
}

/// 32 keyed writers queue behind a held writer and are served as one group; the intent of
/// the 17th is refused by the database (a trigger): that write fails, and its claim, made in
/// the same savepoint, is rolled back with it; the 31 others succeed, each once.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn thirty_two_keyed_writers_in_one_group_and_one_failing_statement() {
    let dir = TempDir::new("group");
    let stores = SqlStores::connect(&dir.url()).await.unwrap();
    sqlx::query(
        "CREATE TRIGGER poison BEFORE INSERT ON mcp_result_audit \
         WHEN NEW.event_id = 'e-poison' BEGIN SELECT RAISE(ABORT, 'poisoned intent'); END",
    )
    .execute(stores.pool())
    .await
    .unwrap();
    let idempotency = Arc::new(stores.idempotency());
    let audit = Arc::new(stores.audit());

    // Hold the writer: an open transactional write leases its connection, so that the 32
    // writes below queue behind it and are taken as one group when it commits.
    let hold = record("e-hold", Phase::Intent);
    let Some(Opened::Open(held)) = idempotency
        .open_transaction(None, audit.as_ref(), &hold)
        .await
        .unwrap()
    else {
        panic!("the SQL stores open a transaction");
    };
    let mut writers = Vec::new();
    for i in 0..32 {
        let (idempotency, audit) = (idempotency.clone(), audit.clone());
        let event = if i == 16 {
            "e-poison".to_owned()
        } else {
            format!("e-{i}")
        };
        writers.push(tokio::spawn(async move {
            keyed_write(
                idempotency.as_ref(),
                audit.as_ref(),
                &format!("k-{i}"),
                &event,
            )
            .await
        }));
        // In arrival order, one after the other.
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        writers.iter().all(|writer| !writer.is_finished()),
        "every write waits for the held writer, none fails"
    );
    held.commit(&json!({}), &record("e-hold", Phase::Outcome), false)
        .await
        .unwrap();

    for (i, writer) in writers.into_iter().enumerate() {
        let done = writer.await.unwrap();
        if i == 16 {
            let error = done.unwrap_err();
            assert!(error.contains("poisoned intent"), "{error}");
        } else {
            assert_eq!(done, Ok(()), "k-{i}");
        }
    }
    // The store's own records: each of the 31 stored its result once, with one intent and
    // one outcome; the failed one left nothing.
    for i in (0..32).filter(|i| *i != 16) {
        let key = format!("k-{i}");
        assert_eq!(
            idempotency.peek(&scope(&key)).await.unwrap(),
            Some(result(&key))
        );
        let event = format!("e-{i}");
        assert_eq!(
            audit.records_for(&event).await.unwrap(),
            [
                record(&event, Phase::Intent),
                record(&event, Phase::Outcome)
            ],
            "{event}"
        );
    }
    assert_eq!(idempotency.peek(&scope("k-16")).await.unwrap(), None);
    assert!(audit.records_for("e-poison").await.unwrap().is_empty());
    assert_eq!(audit.records().await.unwrap().len(), 2 * 31 + 2);
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM mcp_result_idempotency")
        .fetch_one(stores.pool())
        .await
        .unwrap();
    assert_eq!(rows, 31, "the failed write's claim was rolled back");
    // Its key was never taken: a new claim wins it.
    assert!(matches!(
        idempotency
            .claim(&scope("k-16"), &fp(), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Claimed(_)
    ));
    stores.close().await;
}

// ---------------------------------------------------------------------------------------
// Transactional and plain writes on one file

#[derive(Deserialize, JsonSchema)]
struct NoteArgs {
    /// The note.
    body: String,
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
    /// Adds a note as a row, in the write's transaction; holds it 20 ms.
    #[mcp_tool(destructive = false)]
    async fn add_row(&self, args: NoteArgs, tx: Tx) -> Result<Added, ToolError> {
        if let Some(mut connection) = tx.connection().await {
            sqlx::query("INSERT INTO notes (body) VALUES ($1)")
                .bind(&args.body)
                .execute(&mut *connection)
                .await
                .internal()?;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        Ok(Added {
            transactional: tx.is_transactional(),
            receipt: WriteReceipt::succeeded(),
        })
    }

    /// Adds a note (no row).
    #[mcp_tool(destructive = false)]
    async fn add_plain(&self, args: NoteArgs) -> Added {
        let _ = args.body;
        Added {
            transactional: false,
            receipt: WriteReceipt::succeeded(),
        }
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

type Client = RunningService<RoleClient, ()>;

async fn call(client: &Client, tool: &'static str, body: &str, key: &str) -> CallToolResult {
    let mut request = CallToolRequestParams::new(tool)
        .with_arguments(json!({"body": body}).as_object().unwrap().clone());
    let mut meta = RequestMetaObject::default();
    meta.0.insert(
        mcp_result::keys::IDEMPOTENCY_KEY_META.to_owned(),
        json!(key),
    );
    request.meta = Some(meta);
    client.call_tool(request).await.unwrap()
}

/// 16 transactional writes (each holding the writer 20 ms), 16 plain keyed writes through a
/// tool and 16 through the store, all at once on one file: every one commits, with its
/// records, and none sees `database is locked`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn transactional_and_plain_keyed_writes_interleave_on_one_file() {
    let dir = TempDir::new("interleave");
    let stores = SqlStores::connect(&dir.url()).await.unwrap();
    sqlx::query("CREATE TABLE notes (body TEXT NOT NULL)")
        .execute(stores.pool())
        .await
        .unwrap();
    let state = State::with_sql_stores(stores.clone());
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let _ = mcp_result::serve_with_state(Desk, server_io, state).await;
    });
    let client = Arc::new(().serve(client_io).await.unwrap());

    let mut calls = Vec::new();
    for i in 0..16 {
        for tool in ["add_row", "add_plain"] {
            let client = client.clone();
            calls.push(tokio::spawn(async move {
                let body = format!("{tool}-{i}");
                (
                    tool,
                    call(&client, tool, &body, &format!("key-{body}")).await,
                )
            }));
        }
    }
    let direct: Vec<_> = (0..16)
        .map(|i| {
            let (idempotency, audit) = (stores.idempotency(), stores.audit());
            tokio::spawn(async move {
                keyed_write(&idempotency, &audit, &format!("d-{i}"), &format!("e-d-{i}")).await
            })
        })
        .collect();
    let mut events = Vec::new();
    for done in calls {
        let (tool, answer) = done.await.unwrap();
        let text = format!("{answer:?}");
        assert!(!text.contains("locked"), "{text}");
        assert_eq!(answer.is_error, Some(false), "{text}");
        let content = answer.structured_content.unwrap();
        assert_eq!(content["status"], "succeeded");
        assert_eq!(content["transactional"], tool == "add_row");
        events.push(content["auditEventId"].as_str().unwrap().to_owned());
    }
    for done in direct {
        assert_eq!(done.await.unwrap(), Ok(()));
    }
    let notes: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notes")
        .fetch_one(stores.pool())
        .await
        .unwrap();
    assert_eq!(notes, 16, "each transactional write's row, once");
    let audit = stores.audit();
    for event in &events {
        let phases: Vec<Phase> = audit
            .records_for(event)
            .await
            .unwrap()
            .iter()
            .map(|r| r.phase)
            .collect();
        assert_eq!(phases, [Phase::Intent, Phase::Outcome], "{event}");
    }
    for i in 0..16 {
        let event = format!("e-d-{i}");
        assert_eq!(audit.records_for(&event).await.unwrap().len(), 2, "{event}");
    }
    let keys: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM mcp_result_idempotency WHERE state = 'completed'")
            .fetch_one(stores.pool())
            .await
            .unwrap();
    assert_eq!(keys, 48);
    stores.close().await;
}

// ---------------------------------------------------------------------------------------
// SIGKILL while groups commit

/// Set to a directory: `writer_child` writes there until it is killed.
const CHILD_ENV: &str = "MCP_RESULT_SQLITE_WRITER_CHILD";

/// Not a test on its own (it returns at once): the child process of
/// `a_kill_during_group_commits_leaves_whole_writes_or_none`. 16 writers make keyed writes
/// without end, and print `done KEY` for each write answered.
#[test]
fn writer_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let stores = SqlStores::connect(&url_of(Path::new(&dir))).await.unwrap();
        let writers: Vec<_> = (0..16)
            .map(|w| {
                let (idempotency, audit) = (stores.idempotency(), stores.audit());
                tokio::spawn(async move {
                    for n in 0.. {
                        let key = format!("k-{w}-{n}");
                        keyed_write(&idempotency, &audit, &key, &format!("e-{key}"))
                            .await
                            .unwrap();
                        let mut out = std::io::stdout().lock();
                        writeln!(out, "done {key}").unwrap();
                        out.flush().unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.await.unwrap();
        }
    });
}

/// A child process writes keyed writes from 16 writers (so in groups) and is killed with
/// SIGKILL once it has answered 300. Reopened: every write it answered is there whole; every
/// key in the file is whole (completed with its intent and outcome, or started with its
/// intent alone: the kill came between its two commits); no intent without its key.
/// A store write that waits for a transactional write holding the writer (as one made from
/// inside that write's `Tx` on the same stores would, waiting for itself) fails after
/// `SQLITE_BUSY_TIMEOUT` with a message that says why, instead of waiting forever, and
/// nothing of it ran: once the writer is free, its key is claimed fresh.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_that_gets_no_turn_within_the_busy_timeout_fails_and_never_runs() {
    let dir = TempDir::new("no-turn");
    let stores = SqlStores::connect(&dir.url()).await.unwrap();
    let idempotency = stores.idempotency();
    let audit = stores.audit();
    let hold = record("e-hold", Phase::Intent);
    let Some(Opened::Open(held)) = idempotency
        .open_transaction(None, &audit, &hold)
        .await
        .unwrap()
    else {
        panic!("the SQL stores open a transaction");
    };
    let started = std::time::Instant::now();
    let error = keyed_write(&idempotency, &audit, "k-waits", "e-waits")
        .await
        .unwrap_err();
    let waited = started.elapsed();
    assert_eq!(
        error,
        "SQL stores: waiting for the SQLite writer: no turn within 10 s: a transactional \
         write (`Tx`) held the writer all that time (a store written from inside a `Tx` on \
         the same stores waits for itself); nothing of this write ran"
    );
    assert!(waited >= mcp_result::sql::SQLITE_BUSY_TIMEOUT, "{waited:?}");
    held.commit(&json!({}), &record("e-hold", Phase::Outcome), false)
        .await
        .unwrap();
    // Nothing of it ran: the key is free, and its intent was never recorded.
    keyed_write(&idempotency, &audit, "k-waits", "e-waits-again")
        .await
        .unwrap();
    let (intents,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM mcp_result_audit WHERE event_id = 'e-waits'")
            .fetch_one(stores.pool())
            .await
            .unwrap();
    assert_eq!(intents, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kill_during_group_commits_leaves_whole_writes_or_none() {
    let dir = TempDir::new("kill");
    // The schema first, so that the child starts writing at once.
    SqlStores::connect(&dir.url()).await.unwrap().close().await;
    // This test binary again, running only `writer_child` (its name in the binary is its
    // path without the crate: `sqlite_writer::writer_child` in the suite).
    let name = module_path!()
        .split_once("::")
        .map_or("writer_child".to_owned(), |(_, module)| {
            format!("{module}::writer_child")
        });
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, &dir.0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines_tx, lines_rx) = std::sync::mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut done = Vec::new();
    while done.len() < 300 {
        let line = lines_rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the child writes");
        if let Some(key) = line.strip_prefix("done ") {
            done.push(key.to_owned());
        }
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    reader.join().unwrap();
    done.extend(
        lines_rx
            .try_iter()
            .filter_map(|line| line.strip_prefix("done ").map(str::to_owned)),
    );

    let stores = SqlStores::connect(&dir.url()).await.unwrap();
    let (idempotency, audit) = (stores.idempotency(), stores.audit());
    for key in &done {
        assert_eq!(
            idempotency.peek(&scope(key)).await.unwrap(),
            Some(result(key)),
            "{key} was answered, so committed"
        );
    }
    let rows: Vec<(String, String)> =
        sqlx::query_as("SELECT idem_key, state FROM mcp_result_idempotency")
            .fetch_all(stores.pool())
            .await
            .unwrap();
    assert!(rows.len() >= done.len());
    for (key, state) in &rows {
        let event = format!("e-{key}");
        // The phases of its records (the child's records name its process, not this one).
        let records: Vec<Phase> = audit
            .records_for(&event)
            .await
            .unwrap()
            .iter()
            .map(|record| record.phase)
            .collect();
        match state.as_str() {
            "completed" => {
                assert_eq!(records, [Phase::Intent, Phase::Outcome], "{key}");
                assert_eq!(
                    idempotency.peek(&scope(key)).await.unwrap(),
                    Some(result(key))
                );
            }
            "started" => assert_eq!(records, [Phase::Intent], "{key}"),
            other => panic!("{key}: state {other}"),
        }
    }
    let intents: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM mcp_result_audit WHERE phase = 'intent'")
            .fetch_one(stores.pool())
            .await
            .unwrap();
    assert_eq!(intents as usize, rows.len(), "no intent without its key");
    stores.close().await;
}
