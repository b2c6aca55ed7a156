//! The framework mints `auditEventId` and records every write attempt (issue 17): one
//! event per attempt, on every path, over a real transport, in a JSON Lines file that
//! validates against the published record schema and never holds a secret.

use crate::common;

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    time::Duration,
};

use mcp_result::{
    audit::{read_records, record_schema, AuditRecord, AuditSink, JsonLinesSink, Phase},
    extract::WriteContext,
    mcp_handler, mcp_tools,
    rmcp::{
        model::{
            CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest,
            RequestMetaObject,
        },
        service::{PeerRequestOptions, RoleClient, RunningService, ServiceExt},
        ServerHandler,
    },
    AuditEventId, Secret, ServerServices, Status, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

type Client = RunningService<RoleClient, ()>;

const SENTINEL: &str = "SENTINEL-audit-secret-0451";

#[derive(Clone)]
struct Desk {
    audit: JsonLinesSink,
}

impl ServerServices for Desk {
    fn audit_sink(&self, _state: &mcp_result::State) -> Arc<dyn AuditSink> {
        Arc::new(self.audit.clone())
    }
}

#[derive(Deserialize, JsonSchema)]
struct Refund {
    /// `ok`, `blocked`, `failed` or `slow`.
    outcome: String,
    /// Credentials for the payment upstream.
    token: Secret<String>,
}

/// A refund.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Refunded {
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
    external_id: Option<String>,
}

#[mcp_tools(services)]
impl Desk {
    /// Refunds; the outcome is what the caller asks for.
    #[mcp_tool(timeout_ms = 100)]
    async fn refund(&self, args: Refund, write: WriteContext) -> Result<Refunded, ToolError> {
        let _ = args.token;
        match args.outcome.as_str() {
            "blocked" => Err(ToolError::policy_blocked(
                "refunds above the limit need a manager",
            )),
            "failed" => Err(ToolError::upstream_unavailable(
                "the payment upstream is down",
                false,
            )),
            "slow" => {
                tokio::time::sleep(Duration::from_millis(300)).await;
                Ok(refunded(&write))
            }
            _ => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                Ok(refunded(&write))
            }
        }
    }
}

fn refunded(write: &WriteContext) -> Refunded {
    Refunded {
        status: Status::Succeeded,
        retry_safe: false,
        // Any value: the framework answers the event it minted.
        audit_event_id: AuditEventId::new("made-up-by-the-tool"),
        external_id: Some(format!("re_{}", &write.audit_event_id().as_str()[..8])),
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

fn temp_log(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("audit");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

async fn serve(log: &Path) -> Client {
    let desk = Desk {
        audit: JsonLinesSink::open(log).unwrap(),
    };
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = desk.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("initialize")
}

fn params(outcome: &str, key: Option<&str>) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new("refund").with_arguments(
        json!({"outcome": outcome, "token": SENTINEL})
            .as_object()
            .unwrap()
            .clone(),
    );
    if let Some(key) = key {
        let mut meta = RequestMetaObject::default();
        meta.0
            .insert("io.github.mcp-result/idempotencyKey".into(), json!(key));
        params.meta = Some(meta);
    }
    params
}

async fn call(client: &Client, outcome: &str, key: Option<&str>) -> CallToolResult {
    client.call_tool(params(outcome, key)).await.unwrap()
}

fn answered_id(result: &CallToolResult) -> String {
    result.structured_content.as_ref().unwrap()["auditEventId"]
        .as_str()
        .expect("an auditEventId")
        .to_owned()
}

/// The records of one event.
fn event<'a>(records: &'a [AuditRecord], id: &str) -> Vec<&'a AuditRecord> {
    records.iter().filter(|r| r.event_id == id).collect()
}

fn phases(records: &[&AuditRecord]) -> Vec<Phase> {
    records.iter().map(|r| r.phase).collect()
}

/// Waits until the file holds `n` records.
async fn records(log: &Path, n: usize) -> Vec<AuditRecord> {
    for _ in 0..100 {
        let records = read_records(log).unwrap();
        if records.len() >= n {
            return records;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    read_records(log).unwrap()
}

#[tokio::test]
async fn every_path_leaves_one_event_named_by_the_answer() {
    let log = temp_log("paths");
    let client = serve(&log).await;

    let ok = call(&client, "ok", None).await;
    let blocked = call(&client, "blocked", None).await;
    let failed = call(&client, "failed", None).await;
    let slow = call(&client, "slow", None).await;
    let first = call(&client, "ok", Some("key-1")).await;
    let replayed = call(&client, "ok", Some("key-1")).await;
    let conflict = call(&client, "blocked", Some("key-1")).await;

    let all = records(&log, 16).await;
    let check = |result: &CallToolResult, status: Status, want: &[Phase]| {
        let id = answered_id(result);
        let records = event(&all, &id);
        assert_eq!(phases(&records), want, "{id}: {records:?}");
        assert_eq!(records.last().unwrap().status, Some(status), "{id}");
        records.last().map(|r| (*r).clone()).unwrap()
    };
    let done = check(&ok, Status::Succeeded, &[Phase::Intent, Phase::Outcome]);
    assert_eq!(done.tool, "refund");
    assert_eq!(done.caller, "local");
    assert!(done.duration_ms.is_some());
    assert_eq!(
        done.external_id.as_deref(),
        ok.structured_content.as_ref().unwrap()["externalId"].as_str()
    );
    // The answer carries the minted id, not the tool's.
    assert_ne!(answered_id(&ok), "made-up-by-the-tool");
    check(&blocked, Status::Blocked, &[Phase::Intent, Phase::Outcome]);
    check(&failed, Status::Failed, &[Phase::Intent, Phase::Outcome]);
    // Timed out: a provisional unknown outcome before the answer, the final one after.
    let slow_id = answered_id(&slow);
    assert_eq!(
        slow.structured_content.as_ref().unwrap()["status"],
        "unknown"
    );
    let all = records(&log, 17).await;
    let slow_records = event(&all, &slow_id);
    assert_eq!(
        phases(&slow_records),
        [Phase::Intent, Phase::Outcome, Phase::Outcome]
    );
    assert_eq!(slow_records[1].status, Some(Status::Unknown));
    assert_eq!(slow_records[2].status, Some(Status::Succeeded));
    // A replay answers the original event; its own event points at it.
    assert_eq!(answered_id(&first), answered_id(&replayed));
    assert_eq!(
        first.structured_content, replayed.structured_content,
        "a replay is identical"
    );
    let replays: Vec<&AuditRecord> = all.iter().filter(|r| r.phase == Phase::Replay).collect();
    assert_eq!(replays.len(), 1);
    assert_eq!(
        replays[0].replay_of.as_deref(),
        Some(answered_id(&first).as_str())
    );
    assert_ne!(replays[0].event_id, answered_id(&first));
    assert_eq!(replays[0].idempotency_key.as_deref(), Some("key-1"));
    // A conflict ran nothing: its event is only an outcome.
    let refused = event(&all, &answered_id(&conflict));
    assert_eq!(phases(&refused), [Phase::Outcome]);
    assert_eq!(refused[0].error_kind, Some(mcp_result::ErrorKind::Conflict));

    // Every record validates against the published schema; no secret in the file.
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains(SENTINEL));
    let schema = record_schema();
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for line in text.lines() {
        let value: Value = serde_json::from_str(line).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{line}: {errors:?}");
    }
    // The digest of the same arguments is the same; the secret is not part of it.
    assert_eq!(
        done.argument_digest,
        event(&all, &answered_id(&first))[0].argument_digest
    );
}

#[tokio::test]
async fn a_cancelled_write_still_records_its_outcome() {
    let log = temp_log("cancel");
    let client = serve(&log).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params("ok", None)));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    // Cancelled once its intent is recorded: past that point a write runs to its end (a
    // cancel before it is refused as `cancelled_before_running`, and the machine's load
    // decides which comes first after a fixed sleep). The tool takes 20 ms more.
    for _ in 0..5_000 {
        if !read_records(&log).unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    handle.cancel(None).await.unwrap();
    let all = records(&log, 2).await;
    assert_eq!(
        phases(&all.iter().collect::<Vec<_>>()),
        [Phase::Intent, Phase::Outcome]
    );
    assert_eq!(all[0].event_id, all[1].event_id);
    assert_eq!(all[1].status, Some(Status::Succeeded));
}

#[test]
fn the_published_record_schema_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/audit-record.schema.json");
    let current = serde_json::to_string_pretty(&record_schema()).unwrap() + "\n";
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &current).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        committed, current,
        "docs/audit-record.schema.json is stale: UPDATE_DOCS=1 cargo test --all-features --test suite -- audit::"
    );
}

/// The example server over stdio with `--audit-log`: killed between a write's intent and
/// its outcome, then started again on the same file, it records that event's outcome as
/// unknown.
#[tokio::test]
async fn a_server_killed_mid_write_leaves_an_unknown_outcome() {
    let log = temp_log("killed");
    let example = common::example_path("helpdesk");
    // The child is ours, so that it is killed (SIGKILL, and waited for) exactly when the
    // test says, not whenever the client's transport task gets to drop it.
    let spawn = || {
        let mut child = tokio::process::Command::new(&example)
            .arg("--audit-log")
            .arg(&log)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let io = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
        (child, io)
    };
    let (mut first, io) = spawn();
    let client: Client = ().serve(io).await.expect("initialize");
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("email_transcript")
            .with_arguments(json!({"ticketId": "T-1001"}).as_object().unwrap().clone()),
    ));
    let _pending = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    // The mail upstream takes 300 ms: kill the server while it waits.
    let all = records(&log, 1).await;
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0].phase, Phase::Intent);
    first.kill().await.unwrap();
    drop(client);
    // Started again on the same file: the dangling intent gets its outcome.
    let (_second, io) = spawn();
    let again: Client = ().serve(io).await.expect("initialize again");
    let all = read_records(&log).unwrap();
    let unknown = event(&all, &all[0].event_id);
    assert_eq!(phases(&unknown), [Phase::Intent, Phase::Outcome], "{all:?}");
    assert_eq!(unknown[1].status, Some(Status::Unknown));
    assert_eq!(
        unknown[1].error_kind,
        Some(mcp_result::ErrorKind::OutcomeUnknown)
    );
    again.cancel().await.unwrap();
}

/// The example server over stdio: stdin closes while a write is in flight; the write
/// finishes, and its outcome is recorded, before the process exits (`serve_stdio` drains).
#[tokio::test]
async fn closing_stdin_drains_a_write_in_flight_before_the_process_exits() {
    let log = temp_log("stdin-closed");
    let example = common::example_path("helpdesk");
    let mut child = tokio::process::Command::new(&example)
        .arg("--audit-log")
        .arg(&log)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut raw =
        common::raw::RawClient::new(child.stdout.take().unwrap(), child.stdin.take().unwrap());
    raw.send(&common::raw::handshake("2025-11-25")).await;
    raw.send(&[
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "email_transcript", "arguments": {"ticketId": "T-1001"}}}),
    ])
    .await;
    // The initialize answer, then the intent of the write (the mail takes 300 ms).
    raw.answer(0).await;
    let all = records(&log, 1).await;
    assert_eq!(phases(&all.iter().collect::<Vec<_>>()), [Phase::Intent]);
    // Closing stdin: the client goes away with the write in flight.
    drop(raw);
    let status = tokio::time::timeout(Duration::from_secs(20), child.wait())
        .await
        .expect("the server exits after stdin closes")
        .unwrap();
    assert!(status.success(), "{status:?}");
    let all = read_records(&log).unwrap();
    let event = event(&all, &all[0].event_id);
    assert_eq!(phases(&event), [Phase::Intent, Phase::Outcome], "{all:?}");
    assert_eq!(event[1].status, Some(Status::Succeeded));
}
