//! The promises hold on the defaults a real server starts with: stdio, nothing configured.
//!
//! `tests/defaults/notes.rs`, a notes server written as the README and the guide teach, is
//! built as a crate of its own and served over stdio to the TypeScript SDK client
//! (`tests/clients/call-stdio.mjs`, which declares no elicitation):
//!
//! - with nothing configured (no store, no `RUST_LOG`, no subscriber of its own), its
//!   stderr holds the gated tool's startup warning, every audit record of its writes, and
//!   the cause behind an `internal` answer's correlation id;
//! - with `State::connect_with(url, MIGRATIONS)` (one call: every store and its own table
//!   in one database, a SQLite file or PostgreSQL), each client session a new server
//!   process: a keyed note's retry gets the first process's answer; a delete blocked for
//!   approval is approved from another process (`notes approvals approve ID --as alice`),
//!   and the call again runs it once and a repeat is refused; its caller cannot approve it,
//!   and the request's audit trail is in the database.
//!
//! Built without the feature `elicitation`, the same server refuses to start, with its exact
//! message: its gated delete could never be approved.
//!
//! In process: a state that mixes durable and in-memory stores refuses to start, with its
//! exact message, unless the mix is allowed; an application's migration whose version is
//! the framework's or not positive is refused with its exact message.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use mcp_result::{
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    sql::{AppMigration, SqlStores},
    State, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::common::pinned::{command, install_npm, run, run_ok, CLIENTS_DIR};

/// The manifest of the notes server as package (and binary) `name`, its `mcp-result`
/// dependency's keys `mcp_result`. Each build has a name of its own: the builds share one
/// target directory, where a second `notes` would replace the first one's binary.
fn manifest(name: &str, mcp_result: &str) -> String {
    format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2021"

[dependencies]
mcp-result = {{ version = "0.1", {mcp_result} }}
schemars = "1.2"
serde = {{ version = "1", features = ["derive"] }}
tokio = {{ version = "1", features = ["macros", "rt-multi-thread"] }}
"#
    )
}

/// Builds the notes server with mcp-result's default features, `sqlite`, `postgres` and
/// `approvals-page` (once per test binary run; trybuild's target directory).
pub(crate) fn notes_binary() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let manifest = manifest(
                "notes",
                r#"features = ["sqlite", "postgres", "approvals-page"]"#,
            );
            let main = include_str!("defaults/notes.rs");
            crate::README::build_fresh_crate("defaults-notes", &manifest, main, "notes")
        })
        .clone()
}

/// One session of the TypeScript SDK client with the notes server: each call's result,
/// and the session's stderr (the server's).
fn session(db: Option<&str>, calls: Value) -> (Vec<Value>, String) {
    let binary = notes_binary();
    install_npm().expect("npm ci in tests/clients");
    let mut node = command(
        "node",
        &[
            "call-stdio.mjs",
            binary.to_str().unwrap(),
            &calls.to_string(),
        ],
        Path::new(CLIENTS_DIR),
    );
    node.env_remove("RUST_LOG");
    match db {
        Some(url) => node.env("NOTES_DB", url),
        None => node.env_remove("NOTES_DB"),
    };
    let done = run_ok("node call-stdio.mjs", node, Duration::from_secs(120)).unwrap();
    let results = done
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON result a line"))
        .collect();
    (results, done.stderr)
}

/// `notes approvals ARGS...` against `db` (none: the defaults): whether it succeeded, stdout,
/// stderr.
fn approvals_on(db: Option<&str>, args: &[&str]) -> (bool, String, String) {
    let mut notes = std::process::Command::new(notes_binary());
    notes.arg("approvals").args(args);
    match db {
        Some(url) => notes.env("NOTES_DB", url),
        None => notes.env_remove("NOTES_DB"),
    };
    let done = run("notes approvals", notes, Duration::from_secs(60)).unwrap();
    (done.status.success(), done.stdout, done.stderr)
}

/// `notes approvals ARGS...` against `db`.
fn approvals(db: &str, args: &[&str]) -> (bool, String, String) {
    approvals_on(Some(db), args)
}

/// The line of `stderr` that names `id` (an event's or a correlation id).
fn line_with<'a>(stderr: &'a str, id: &str) -> &'a str {
    stderr
        .lines()
        .find(|line| line.contains(id))
        .unwrap_or_else(|| panic!("no line names {id} on stderr:\n{stderr}"))
}

#[test]
fn with_nothing_configured_records_causes_and_warnings_reach_stderr() {
    let (results, stderr) = session(
        None,
        json!([["delete_note", {"id": "n1"}], ["list_notes", {}]]),
    );
    // The gated tool nobody outside the process could approve is named at start.
    assert!(
        stderr.contains(
            "`delete_note` needs a human approval: a client that supports elicitation asks \
             its user, but one that cannot be asked gets `blocked` with a request nothing can \
             decide: the approval store is in this process's memory and this transport serves \
             no approvals page; ways out: make the approval store durable in one call \
             (`State::connect(\"sqlite:app.db\")`, features `sqlite`/`postgres`) and decide \
             from another process with your binary's `approvals` subcommand \
             (`mcp_result::approval::run_command`), or serve the approvals page (feature \
             `approvals-page`: on a loopback port beside stdio, \
             `State::with_local_approvals_page(\"127.0.0.1:0\")`, or over HTTP)"
        ),
        "{stderr}"
    );
    // The blocked delete's audit record: one JSON line, the record alone.
    let blocked = &results[0]["structuredContent"];
    assert_eq!(blocked["status"], "blocked", "{blocked}");
    let event = blocked["auditEventId"].as_str().unwrap();
    let record: Value = serde_json::from_str(line_with(&stderr, event)).unwrap();
    assert_eq!(record["eventId"], event, "{record}");
    assert_eq!(
        (
            &record["tool"],
            &record["phase"],
            &record["status"],
            &record["approvalRequestId"]
        ),
        (
            &json!("delete_note"),
            &json!("outcome"),
            &json!("blocked"),
            &blocked["approvalRequestId"]
        ),
        "{record}"
    );
    // Nobody can decide that request from another process, and the command says why (as
    // `main` prints an error: plain text, not a quoted string).
    let (ok, _, refused) = approvals_on(None, &["list"]);
    assert!(!ok);
    assert_eq!(
        refused.trim(),
        "Error: approvals: this server's approval requests live in its process's memory, so \
         no other process can decide them: make the approval store durable \
         (`State::connect(\"sqlite:app.db\")`, features `sqlite`/`postgres`) and serve with \
         that state"
    );
    // The `internal` answer's cause, under its correlation id.
    let internal = &results[1]["structuredContent"];
    assert_eq!(internal["errorKind"], "internal", "{internal}");
    let id = internal["correlationId"].as_str().unwrap();
    let cause = line_with(&stderr, id);
    assert!(
        cause.contains(" ERROR ")
            && cause.contains(
                "mcp_result_core::wire::envelope: tool failed: a tool took a `Database` \
             parameter and the server's State holds no SQL stores: serve with \
             `State::connect(url)` (or `State::with(stores)`)"
            ),
        "{cause}"
    );
}

#[test]
fn a_blocked_delete_on_stdio_is_approved_from_another_process_and_runs_once() {
    let dir = std::env::temp_dir().join(format!("mcp-result-notes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let _ = std::fs::remove_file(dir.join("notes.db"));
    across_processes(&format!("sqlite:{}", dir.join("notes.db").display()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "postgres")]
#[test]
fn on_postgres_the_key_the_approval_and_the_trail_outlive_each_process() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let database = runtime.block_on(crate::common::postgres::TestDatabase::create());
    across_processes(database.url());
    drop(database);
}

/// The whole path on the database at `db`, each client session a new server process: a
/// keyed note (its key answered again by the next process), a delete blocked for approval,
/// decided by `notes approvals` from another process, run once by a third, and its trail.
fn across_processes(db: &str) {
    // A note, then its delete: blocked, nothing deleted.
    let (results, _) = session(
        Some(db),
        json!([
            ["add_note", {"id": "n1", "body": "milk", "requestId": "r-1"}],
            ["delete_note", {"id": "n1"}],
            ["list_notes", {}]
        ]),
    );
    assert_eq!(
        results[0]["structuredContent"]["status"], "succeeded",
        "{results:?}"
    );
    let written = results[0]["structuredContent"]["auditEventId"].clone();
    let blocked = &results[1]["structuredContent"];
    assert_eq!(blocked["status"], "blocked", "{blocked}");
    let request = blocked["approvalRequestId"].as_str().unwrap().to_owned();
    assert_eq!(results[2]["structuredContent"]["ids"], json!(["n1"]));

    // Another process lists it and decides it; the caller (stdio's `local`) may not.
    let (ok, listed, _) = approvals(db, &["list"]);
    assert!(ok);
    assert_eq!(
        listed.trim(),
        format!("{request}  delete_note  local  Delete note n1")
    );
    let (ok, _, refused) = approvals(db, &["approve", &request, "--as", "local"]);
    assert!(!ok);
    assert!(
        refused.contains(&format!(
            "approvals: local made request {request} and cannot approve it: another person \
             approves a write"
        )),
        "{refused}"
    );
    // A wrong use gets the usage; an unknown request is named.
    let (ok, _, wrong) = approvals(db, &["approve", &request]);
    assert!(!ok);
    assert_eq!(
        wrong.trim(),
        format!("Error: {}", mcp_result::approval::USAGE)
    );
    let (ok, _, unknown) = approvals(db, &["approve", "no-such-id", "--as", "alice"]);
    assert!(!ok);
    assert_eq!(
        unknown.trim(),
        "Error: approvals: no approval request no-such-id"
    );
    let (ok, approved, stderr) = approvals(db, &["approve", &request, "--as", "alice"]);
    assert!(ok, "{stderr}");
    let approval = approved
        .trim()
        .strip_prefix(&format!("approved {request}: approval "))
        .unwrap_or_else(|| panic!("{approved}"))
        .to_owned();

    // A new server process: the call again runs the delete once, under that approval.
    // A new server process: the keyed note's retry is its first answer (the key outlived the
    // process), and the call again runs the delete once, under that approval.
    let again = json!(["delete_note", {"id": "n1", "approvalRequestId": request}]);
    let retry = json!(["add_note", {"id": "n1", "body": "milk", "requestId": "r-1"}]);
    let (mut results, _) = session(Some(db), json!([retry, again, ["list_notes", {}], again]));
    let replayed = results.remove(0);
    assert_eq!(
        replayed["structuredContent"]["auditEventId"], written,
        "the retry is the first write's answer: {replayed}"
    );
    let deleted = &results[0]["structuredContent"];
    assert_eq!(
        (&deleted["status"], &deleted["approvalId"]),
        (&json!("succeeded"), &json!(approval)),
        "{deleted}"
    );
    assert_eq!(results[1]["structuredContent"]["ids"], json!([]));
    assert_eq!(results[2]["isError"], true, "{:?}", results[2]);
    let (_, shown, _) = approvals(db, &["show", &request]);
    assert!(shown.contains("state: approved by alice, used"), "{shown}");
    // Decided and used: a second decision is refused, and changes nothing.
    let (ok, _, again) = approvals(db, &["approve", &request, "--as", "bob"]);
    assert!(!ok);
    assert_eq!(
        again.trim(),
        format!(
            "Error: approvals: {request}: The approval was used already; each approval runs \
             one write."
        )
    );

    // The trail, read back from the file: the blocked round, the decision, the delete.
    let trail = tokio::runtime::Runtime::new().unwrap().block_on(async {
        use mcp_result::audit::AuditSink as _;
        let stores = SqlStores::connect(db).await.unwrap();
        let records = stores
            .audit()
            .approval_records(&request, 100)
            .await
            .unwrap();
        stores.close().await;
        records.unwrap()
    });
    // The blocked round's outcome, alice's decision, the delete's intent and outcome, and the
    // refused repeat's outcome.
    let trail: Vec<(String, Value)> = trail
        .iter()
        .map(|r| {
            let r = serde_json::to_value(r).unwrap();
            (r["phase"].as_str().unwrap().to_owned(), r["status"].clone())
        })
        .collect();
    assert_eq!(
        trail,
        [
            ("outcome".to_owned(), json!("blocked")),
            ("approved".to_owned(), Value::Null),
            ("intent".to_owned(), Value::Null),
            ("outcome".to_owned(), json!("succeeded")),
            ("outcome".to_owned(), json!("failed")),
        ]
    );
}

/// A server with one read tool, for the in-process checks.
#[derive(Clone)]
struct Echo;

#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "{text}")]
struct Echoed {
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    text: String,
}

#[mcp_tools]
impl Echo {
    /// Echo the text.
    #[mcp_tool(read_only)]
    async fn echo(&self, args: EchoArgs) -> Result<Echoed, ToolError> {
        Ok(Echoed { text: args.text })
    }
}

#[mcp_handler]
impl ServerHandler for Echo {}

#[tokio::test]
async fn a_state_mixing_durable_and_in_memory_stores_starts_only_when_allowed() {
    let stores = SqlStores::connect("sqlite::memory:").await.unwrap();
    let mixed = State::new().with_idempotency_store(Arc::new(stores.idempotency()));
    let (server_end, _client_end) = tokio::io::duplex(4096);
    let refused = mcp_result::serve_with_state(Echo, server_end, mixed.clone())
        .await
        .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "this server's State mixes durable and in-memory stores: idempotency keys are \
         durable, approval requests, audit records, tasks live in this process's memory and \
         die with it. Make every store durable in one call (`State::connect(\"sqlite:app.db\")` \
         or a `postgres://` URL, features `sqlite`/`postgres`), hand in a durable store for \
         each, or say the mix is meant with `State::allow_mixed_stores()`"
    );

    // Allowed, it serves (the client end closes at once: the session ends, no error).
    let (server_end, client_end) = tokio::io::duplex(4096);
    drop(client_end);
    let served = mcp_result::serve_with_state(Echo, server_end, mixed.allow_mixed_stores()).await;
    assert!(
        !served
            .as_ref()
            .is_err_and(|e| e.to_string().contains("mixes durable")),
        "{served:?}"
    );

    // One call: every store durable, no refusal, the stores a value of the state.
    let durable = State::connect("sqlite::memory:").await.unwrap();
    assert!(durable.get::<SqlStores>().is_some());
    let (server_end, client_end) = tokio::io::duplex(4096);
    drop(client_end);
    let served = mcp_result::serve_with_state(Echo, server_end, durable).await;
    assert!(
        !served
            .as_ref()
            .is_err_and(|e| e.to_string().contains("mixes durable")),
        "{served:?}"
    );
}

#[tokio::test]
async fn an_application_migration_needs_a_version_of_its_own() {
    let refused = |version| async move {
        SqlStores::connect_with(
            "sqlite::memory:",
            &[AppMigration::new(
                version,
                "notes",
                "CREATE TABLE notes (id TEXT)",
            )],
        )
        .await
        .unwrap_err()
        .to_string()
    };
    assert_eq!(
        refused(20261130000001).await,
        "SQL stores: the application's migration version 20261130000001 (\"notes\") is one \
         of mcp-result's own migrations: give each migration its own positive version"
    );
    assert_eq!(
        refused(0).await,
        "SQL stores: the application's migration version 0 (\"notes\") is not positive: \
         give each migration its own positive version"
    );
    // Accepted: the table is there, beside the framework's.
    let stores = SqlStores::connect_with(
        "sqlite::memory:",
        &[AppMigration::new(
            1,
            "notes",
            "CREATE TABLE notes (id TEXT PRIMARY KEY)",
        )],
    )
    .await
    .unwrap();
    let count: i64 = mcp_result::sql::sqlx::query_scalar("SELECT COUNT(*) FROM notes")
        .fetch_one(stores.pool())
        .await
        .unwrap();
    assert_eq!(count, 0);
}

#[test]
fn without_elicitation_a_gated_tool_nobody_could_approve_refuses_to_start() {
    // The same server, built without the feature `elicitation`: no client can be asked.
    let manifest = manifest(
        "notes-no-elicitation",
        r#"default-features = false, features = ["transport-io", "sqlite", "approvals-page"]"#,
    );
    let main = include_str!("defaults/notes.rs");
    let binary = crate::README::build_fresh_crate(
        "defaults-notes-no-elicitation",
        &manifest,
        main,
        "notes-no-elicitation",
    );
    let mut notes = std::process::Command::new(binary);
    notes.env_remove("NOTES_DB").env_remove("RUST_LOG");
    let done = run("notes without elicitation", notes, Duration::from_secs(60)).unwrap();
    assert!(!done.status.success());
    assert_eq!(
        done.stderr.trim(),
        "Error: `delete_note` needs a human approval and nobody could give one: this build \
         asks no client (feature `elicitation` is off), the approval store is in this \
         process's memory and this transport serves no approvals page; ways out: make the \
         approval store durable in one call (`State::connect(\"sqlite:app.db\")`, features \
         `sqlite`/`postgres`) and decide from another process with your binary's `approvals` \
         subcommand (`mcp_result::approval::run_command`), or serve the approvals page \
         (feature `approvals-page`: on a loopback port beside stdio, \
         `State::with_local_approvals_page(\"127.0.0.1:0\")`, or over HTTP)"
    );
    assert!(done.stdout.is_empty(), "{}", done.stdout);
}
