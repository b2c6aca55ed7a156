//! Write tools keep their word at run time (issue 16): cancellation and time limits never
//! lie, synchronous tools never stall the server, and a retried write never runs twice.
//! A server written the way the README teaches, over a real transport (a duplex stream
//! between an rmcp server and rmcp's client), counting how often each tool body runs.

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use mcp_result::{
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
    AuditEventId, Status, ToolResult, WriteReceipt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

type Client = RunningService<RoleClient, ()>;

#[derive(Clone, Default)]
struct Notes {
    /// How often a write's body ran.
    executions: Arc<AtomicUsize>,
    /// How often a write's body ran to its end.
    finished: Arc<AtomicUsize>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct NoteArgs {
    ticket_id: String,
    body: String,
    #[serde(default)]
    request_id: Option<String>,
}

/// A note was added.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct NoteAdded {
    note_id: String,
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
}

/// How many.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Count {
    count: usize,
}

impl Notes {
    fn write(&self, args: &NoteArgs) -> NoteAdded {
        let _ = (&args.ticket_id, &args.body, &args.request_id);
        let n = self.executions.fetch_add(1, Ordering::SeqCst) + 1;
        NoteAdded {
            note_id: format!("n-{n}"),
            status: Status::Succeeded,
            // Claims more than it may: the framework answers what is true.
            retry_safe: true,
            audit_event_id: AuditEventId::new(format!("audit-{n}")),
        }
    }
}

#[mcp_tools]
impl Notes {
    /// Adds a note; the upstream takes 100 ms.
    #[mcp_tool(idempotency_key = "requestId")]
    async fn add_note(&self, args: NoteArgs) -> NoteAdded {
        let note = self.write(&args);
        tokio::time::sleep(Duration::from_millis(100)).await;
        self.finished.fetch_add(1, Ordering::SeqCst);
        note
    }

    /// Writes after 300 ms; its limit is 100 ms.
    #[mcp_tool(timeout_ms = 100)]
    async fn slow_write(&self, args: NoteArgs) -> NoteAdded {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let note = self.write(&args);
        self.finished.fetch_add(1, Ordering::SeqCst);
        note
    }

    /// Blocks its thread for 1 s; its limit is 200 ms.
    #[mcp_tool(read_only, timeout_ms = 200)]
    fn blocking_lookup(&self) -> Count {
        std::thread::sleep(Duration::from_secs(1));
        Count { count: 1 }
    }

    /// Answers at once.
    #[mcp_tool(read_only)]
    fn ping(&self) -> Count {
        Count { count: 0 }
    }

    /// A synchronous write that blocks 300 ms; its limit is 100 ms.
    #[mcp_tool(timeout_ms = 100)]
    fn blocking_write(&self, args: NoteArgs) -> NoteAdded {
        std::thread::sleep(Duration::from_millis(300));
        let note = self.write(&args);
        self.finished.fetch_add(1, Ordering::SeqCst);
        note
    }
}

#[mcp_handler]
impl ServerHandler for Notes {}

async fn serve(server: Notes) -> Client {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("initialize")
}

fn params(tool: &str, arguments: Value, key: Option<&str>) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(tool.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone());
    if let Some(key) = key {
        let mut meta = RequestMetaObject::default();
        meta.0
            .insert("io.github.mcp-result/idempotencyKey".into(), json!(key));
        params.meta = Some(meta);
    }
    params
}

async fn call(client: &Client, tool: &str, arguments: Value, key: Option<&str>) -> CallToolResult {
    client
        .call_tool(params(tool, arguments, key))
        .await
        .expect("a tools/call result")
}

fn note() -> Value {
    json!({"ticketId": "T-1", "body": "checked"})
}

fn structured(result: &CallToolResult) -> Value {
    result
        .structured_content
        .clone()
        .expect("structuredContent")
}

#[tokio::test]
async fn a_hundred_concurrent_calls_with_one_key_run_the_body_once() {
    let notes = Notes::default();
    let client = serve(notes.clone()).await;
    let calls = (0..100).map(|_| call(&client, "add_note", note(), Some("key-100")));
    let answers = futures::future::join_all(calls).await;
    assert_eq!(notes.executions.load(Ordering::SeqCst), 1);
    let first = structured(&answers[0]);
    assert_eq!(first["noteId"], "n-1");
    // The framework's audit event (a UUIDv7), not the tool's own "audit-1".
    assert_eq!(first["auditEventId"].as_str().unwrap().len(), 36);
    assert_eq!(first["retrySafe"], true);
    for answer in &answers {
        assert_eq!(structured(answer), first);
        assert_eq!(answer.content, answers[0].content);
    }
}

#[tokio::test]
async fn the_same_key_with_other_arguments_is_a_conflict_and_runs_nothing() {
    let notes = Notes::default();
    let client = serve(notes.clone()).await;
    call(&client, "add_note", note(), Some("key-c")).await;
    let other = call(
        &client,
        "add_note",
        json!({"ticketId": "T-1", "body": "something else"}),
        Some("key-c"),
    )
    .await;
    assert_eq!(other.is_error, Some(true));
    let mut envelope = structured(&other);
    // The refused attempt is an audit event of its own.
    assert!(envelope
        .as_object_mut()
        .unwrap()
        .remove("auditEventId")
        .is_some());
    assert_eq!(
        envelope,
        json!({"status": "failed", "errorKind": "conflict", "retrySafe": true,
               "message": "Idempotency key reused with different arguments. Use a new key for a different call."})
    );
    assert_eq!(notes.executions.load(Ordering::SeqCst), 1);
    // Integral numbers and key order do not make other arguments.
    let same = call(
        &client,
        "add_note",
        json!({"body": "checked", "ticketId": "T-1"}),
        Some("key-c"),
    )
    .await;
    assert_eq!(structured(&same)["noteId"], "n-1");
}

#[tokio::test]
async fn the_key_may_come_from_the_argument_the_tool_names() {
    let notes = Notes::default();
    let client = serve(notes.clone()).await;
    let args = json!({"ticketId": "T-1", "body": "checked", "requestId": "req-7"});
    let first = call(&client, "add_note", args.clone(), None).await;
    let again = call(&client, "add_note", args, None).await;
    assert_eq!(structured(&first), structured(&again));
    assert_eq!(notes.executions.load(Ordering::SeqCst), 1);
    let tools = client.list_all_tools().await.unwrap();
    let add = tools.iter().find(|t| t.name == "add_note").unwrap();
    assert_eq!(
        add.meta.as_ref().unwrap().0["io.github.mcp-result/idempotency"],
        json!({"keyIn": ["_meta/io.github.mcp-result/idempotencyKey", "arguments/requestId"],
               "ttlSeconds": 86400})
    );
}

#[tokio::test]
async fn without_a_key_a_write_cannot_claim_to_be_retry_safe() {
    let notes = Notes::default();
    let client = serve(notes.clone()).await;
    let result = call(&client, "add_note", note(), None).await;
    assert_eq!(structured(&result)["retrySafe"], false);
    // The compat text says the same as structuredContent.
    let text = &result.content[1].as_text().unwrap().text;
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        structured(&result)
    );
}

#[tokio::test]
async fn a_malformed_key_is_a_validation_error() {
    let client = serve(Notes::default()).await;
    let long = "k".repeat(256);
    for (key, message) in [
        (
            "",
            "an idempotency key has 1 to 255 characters; this one has 0",
        ),
        (
            long.as_str(),
            "an idempotency key has 1 to 255 characters; this one has 256",
        ),
        ("a\nb", "an idempotency key holds only printable characters"),
    ] {
        let result = call(&client, "add_note", note(), Some(key)).await;
        assert_eq!(
            structured(&result)["fieldErrors"],
            json!([{"pointer": "_meta/io.github.mcp-result/idempotencyKey", "message": message}])
        );
    }
}

#[tokio::test]
async fn cancel_then_retry_with_the_key_runs_once() {
    let notes = Notes::default();
    let client = serve(notes.clone()).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params(
        "add_note",
        note(),
        Some("key-cancel"),
    )));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    handle.cancel(Some("changed my mind".into())).await.unwrap();
    // The write was not abandoned: it runs to its end and its outcome is kept.
    let retried = call(&client, "add_note", note(), Some("key-cancel")).await;
    assert_eq!(retried.is_error, Some(false), "{retried:?}");
    assert_eq!(structured(&retried)["noteId"], "n-1");
    assert_eq!(notes.executions.load(Ordering::SeqCst), 1);
    assert_eq!(notes.finished.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_time_limit_never_says_failed_and_the_keyed_retry_gets_the_outcome() {
    let notes = Notes::default();
    let client = serve(notes.clone()).await;
    let started = Instant::now();
    let late = call(&client, "slow_write", note(), Some("key-late")).await;
    assert!(
        started.elapsed() < Duration::from_millis(280),
        "{:?}",
        started.elapsed()
    );
    let mut envelope = structured(&late);
    let event = envelope
        .as_object_mut()
        .unwrap()
        .remove("auditEventId")
        .unwrap();
    assert_eq!(
        envelope,
        json!({"status": "unknown", "errorKind": "upstream_timeout", "retrySafe": true,
               "message": "The write did not finish within 100 ms and may still take effect. Call again with the same idempotency key to get its outcome; it will not run twice."})
    );
    // Retried at once: it is still running, so the retry waits up to the limit, then says
    // so (safe to retry, and when).
    let early = call(&client, "slow_write", note(), Some("key-late")).await;
    assert_eq!(structured(&early)["errorKind"], "in_progress");
    assert_eq!(structured(&early)["retryAfterMs"], 100);
    // The write still happens, once; the retry with the key after it gets its outcome.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let retried = call(&client, "slow_write", note(), Some("key-late")).await;
    assert_eq!(retried.is_error, Some(false), "{retried:?}");
    assert_eq!(structured(&retried)["noteId"], "n-1");
    // The outcome is the one of the event the late answer named.
    assert_eq!(structured(&retried)["auditEventId"], event);
    assert_eq!(notes.executions.load(Ordering::SeqCst), 1);

    // Without a key: unknown, not safe to retry, and the write still goes through.
    let unkeyed = call(&client, "slow_write", note(), None).await;
    assert_eq!(structured(&unkeyed)["status"], "unknown");
    assert_eq!(structured(&unkeyed)["retrySafe"], false);
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(notes.executions.load(Ordering::SeqCst), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocking_tools_keep_their_limits_and_never_stall_other_calls() {
    let notes = Notes::default();
    let client = serve(notes.clone()).await;
    let started = Instant::now();
    let blocking = (0..4).map(|_| call(&client, "blocking_lookup", json!({}), None));
    let blocking = futures::future::join_all(blocking);
    let ping = async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let sent = Instant::now();
        let answer = call(&client, "ping", json!({}), None).await;
        (answer, sent.elapsed())
    };
    let (answers, (pinged, ping_took)) = tokio::join!(blocking, ping);
    assert_eq!(pinged.is_error, Some(false));
    // Stalled behind the blocking calls it would take 1 s; it takes a few ms (50 ms is the
    // target, with room for a loaded CI machine).
    assert!(
        ping_took < Duration::from_millis(200),
        "ping took {ping_took:?}"
    );
    for answer in answers {
        assert_eq!(structured(&answer)["errorKind"], "upstream_timeout");
        assert_eq!(structured(&answer)["retrySafe"], true);
    }
    assert!(
        started.elapsed() < Duration::from_millis(800),
        "{:?}",
        started.elapsed()
    );

    // A synchronous write past its limit: unknown, and it still runs to its end.
    let write = call(&client, "blocking_write", note(), None).await;
    assert_eq!(structured(&write)["status"], "unknown");
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(notes.finished.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn closing_the_transport_drains_writes_in_flight() {
    let notes = Notes::default();
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let serving = tokio::spawn(mcp_result::serve(notes.clone(), server_io));
    let client: Client = ().serve(client_io).await.expect("initialize");
    let request =
        ClientRequest::CallToolRequest(CallToolRequest::new(params("slow_write", note(), None)));
    let _pending = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    client.cancel().await.unwrap();
    // `serve` returns only after the write finished (the mail went out, the note exists).
    tokio::time::timeout(Duration::from_secs(10), serving)
        .await
        .expect("serve returns")
        .unwrap()
        .unwrap();
    assert_eq!(notes.finished.load(Ordering::SeqCst), 1);
}

/// A tool naming an idempotency key argument its arguments type does not have: `serve`
/// refuses to start, naming the tool and the fix.
#[derive(Clone)]
struct NoKeyField;

#[derive(Deserialize, JsonSchema)]
struct Plain {
    body: String,
}

#[mcp_tools]
impl NoKeyField {
    /// Writes.
    #[mcp_tool(idempotency_key = "requestId")]
    async fn write(&self, args: Plain) -> NoteAdded {
        let _ = args.body;
        NoteAdded {
            note_id: "n".into(),
            status: Status::Succeeded,
            retry_safe: false,
            audit_event_id: AuditEventId::new("a"),
        }
    }
}

#[mcp_handler]
impl ServerHandler for NoKeyField {}

#[tokio::test]
async fn an_idempotency_key_field_that_is_no_argument_stops_serve() {
    let (server_io, _client_io) = tokio::io::duplex(1 << 16);
    let error = mcp_result::serve(NoKeyField, server_io)
        .await
        .expect_err("serve refuses to start");
    assert_eq!(
        error.to_string(),
        "tool `write`: `idempotency_key = \"requestId\"` names no string argument: add \
         `requestId: Option<String>` (serialized as `requestId`) to the arguments type, or \
         remove the key"
    );
}

/// A server whose idempotency store keeps at most two live keys per caller.
#[derive(Clone)]
struct Bounded {
    keys: Arc<mcp_result::idempotency::MemoryIdempotencyStore>,
    executions: Arc<AtomicUsize>,
}

impl mcp_result::ServerServices for Bounded {
    fn idempotency_store(
        &self,
        _state: &mcp_result::State,
    ) -> Arc<dyn mcp_result::idempotency::IdempotencyStore> {
        self.keys.clone()
    }
}

#[mcp_tools(services)]
impl Bounded {
    /// Adds a note; the key is `requestId`.
    #[mcp_tool(destructive = false, idempotency_key = "requestId")]
    fn add_note(&self, args: NoteArgs, write: mcp_result::extract::WriteContext) -> NoteAdded {
        let _ = args;
        let n = self.executions.fetch_add(1, Ordering::SeqCst);
        NoteAdded {
            note_id: format!("N{n}"),
            status: Status::Succeeded,
            retry_safe: true,
            audit_event_id: write.audit_event_id().clone(),
        }
    }
}

#[mcp_handler]
impl ServerHandler for Bounded {}

#[tokio::test]
async fn a_caller_past_its_live_keys_is_refused_and_nothing_runs() {
    let executions = Arc::new(AtomicUsize::new(0));
    let server = Bounded {
        keys: Arc::new(
            mcp_result::idempotency::MemoryIdempotencyStore::with_limits(
                mcp_result::idempotency::KeyLimits {
                    per_caller: 2,
                    total: 10,
                },
            ),
        ),
        executions: executions.clone(),
    };
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let _ = mcp_result::serve(server, server_io).await;
    });
    let client: Client = ().serve(client_io).await.unwrap();
    let with_key = |key: &str| json!({"ticketId": "T-1", "body": "hi", "requestId": key});
    let first = call(&client, "add_note", with_key("k-1"), None).await;
    assert_eq!(structured(&first)["status"], "succeeded");
    assert_eq!(
        structured(&call(&client, "add_note", with_key("k-2"), None).await)["status"],
        "succeeded"
    );
    let refused = call(&client, "add_note", with_key("k-3"), None).await;
    assert_eq!(refused.is_error, Some(true));
    let envelope = structured(&refused);
    assert_eq!(envelope["errorKind"], "policy_blocked");
    assert_eq!(
        envelope["message"],
        "Quota exceeded: this caller holds 2 live idempotency keys, its limit. Nothing was \
         stored. The write did not run; call again once earlier keys expire (24 hours after \
         their call)."
    );
    // A repeat of a live key is still its replay.
    assert_eq!(
        structured(&call(&client, "add_note", with_key("k-1"), None).await),
        structured(&first)
    );
    assert_eq!(executions.load(Ordering::SeqCst), 2);
    client.cancel().await.unwrap();
}

// ---------------------------------------------------------------------------------------
// `WriteReceipt`: the write contract, ready-made, flattened into a result and filled by the
// framework.

/// A note was filed.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct NoteFiled {
    note_id: String,
    #[serde(flatten)]
    receipt: WriteReceipt,
}

#[derive(Clone)]
struct Filing;

#[mcp_tools]
impl Filing {
    /// Files a note; the receipt says only what happened.
    #[mcp_tool(idempotency_key = "requestId")]
    async fn file_note(&self, args: NoteArgs) -> NoteFiled {
        NoteFiled {
            note_id: format!("{}-N1", args.ticket_id),
            receipt: WriteReceipt::succeeded(),
        }
    }

    /// Files part of a note; the receipt is built from the call's write context.
    #[mcp_tool]
    fn file_partly(&self, args: NoteArgs, write: WriteContext) -> NoteFiled {
        NoteFiled {
            note_id: format!("{}-N2", args.ticket_id),
            receipt: WriteReceipt::from(&write).with_status(Status::Partial),
        }
    }
}

#[mcp_handler]
impl ServerHandler for Filing {}

#[tokio::test]
async fn a_write_receipt_is_filled_by_the_framework() {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = Filing.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client: Client = ().serve(client_io).await.expect("initialize");
    let tools = client.list_all_tools().await.unwrap();
    for (tool, arguments, key, status, retry_safe) in [
        ("file_note", note(), None, "succeeded", false),
        ("file_note", note(), Some("file-1"), "succeeded", true),
        ("file_partly", note(), None, "partial", false),
    ] {
        let result = call(&client, tool, arguments, key).await;
        assert_eq!(result.is_error, Some(false), "{tool}: {result:?}");
        let mut value = structured(&result);
        let id = value["auditEventId"].as_str().unwrap().to_owned();
        // The id the framework minted and recorded: a UUIDv7, not the receipt's placeholder.
        assert_eq!(id.len(), 36, "{tool}: {id}");
        assert_eq!(&id[14..15], "7", "{tool}: {id}");
        value["auditEventId"] = json!("<minted>");
        let note_id = if tool == "file_note" {
            "T-1-N1"
        } else {
            "T-1-N2"
        };
        assert_eq!(
            value,
            json!({"noteId": note_id, "status": status, "retrySafe": retry_safe,
                   "auditEventId": "<minted>"}),
            "{tool} key {key:?}"
        );
        assert_eq!(
            result.content[0].as_text().unwrap().text,
            format!("A note was filed (status: {status})")
        );
        // The advertised outputSchema accepts it, and has the receipt's keys as its own.
        let schema = Value::Object(
            tools
                .iter()
                .find(|t| t.name == tool)
                .unwrap()
                .output_schema
                .as_ref()
                .unwrap()
                .as_ref()
                .clone(),
        );
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        assert!(validator.is_valid(&structured(&result)), "{tool}: {schema}");
        let success = &schema["anyOf"][0];
        for key in [
            "noteId",
            "status",
            "retrySafe",
            "auditEventId",
            "approvalId",
        ] {
            assert!(
                success["properties"].get(key).is_some(),
                "{tool}: `{key}` in {success}"
            );
        }
        for key in ["noteId", "status", "retrySafe", "auditEventId"] {
            assert!(
                success["required"]
                    .as_array()
                    .unwrap()
                    .contains(&json!(key)),
                "{tool}: `{key}` required in {success}"
            );
        }
    }
    // A keyed repeat is the stored answer: the same audit event.
    let first = call(&client, "file_note", note(), Some("file-2")).await;
    let again = call(&client, "file_note", note(), Some("file-2")).await;
    assert_eq!(first.structured_content, again.structured_content);
    client.cancel().await.unwrap();
}
