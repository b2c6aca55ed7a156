//! Durable tasks (MCP tasks extension `io.modelcontextprotocol/tasks`, SEP-2663), through a
//! server written as the guide teaches ("Durable tasks"), served over streamable HTTP and
//! called by rmcp's client on MCP 2026-07-28 as alice and as bob:
//!
//! - a task is its caller's: bob is told `-32602` for alice's task, whatever he asks;
//! - the approval gate of a keyed write is an `input_required` task: answered by
//!   `tasks/update`, the write runs once; answered again, or called again under its key, it
//!   does not run again; cancelled while it waits, it never runs;
//! - a cancelled read ends `cancelled`; a cancelled write that ran reports its outcome;
//! - tasks expire after their TTL and are bounded per caller;
//! - a task whose instance stopped is taken over by the next `tasks/get`: run again when
//!   that is safe, failed with an unknown outcome otherwise;
//! - two instances on one PostgreSQL database read and feed each other's tasks, and a task
//!   whose instance is killed (SIGKILL) mid-write is run again on the other exactly once
//!   (the example, `--store postgres://...`).
//!
//! The official suite's `tasks-*` scenarios run in `tests/conformance.rs`.

use crate::common;

use std::{
    process::Stdio,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use mcp_result::{
    http::{serve_http, HttpOptions, StaticTokens},
    mcp_handler, mcp_tools,
    rmcp::{
        model::{
            CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult,
            CancelTaskParams, ClientCapabilities, ClientConfig, ClientRequest, GetTaskParams,
            GetTaskResult, Implementation, InputResponses, ProtocolVersion, ServerCapabilities,
            ServerConfig, TaskPayload, TaskStatus, UpdateTaskParams,
        },
        service::{
            serve_client_with_lifecycle, ClientLifecycleMode, PeerRequestOptions, RoleClient,
            RunningService,
        },
        transport::{
            streamable_http_client::StreamableHttpClientTransportConfig,
            StreamableHttpClientTransport,
        },
        ClientHandler, ErrorData, ServerHandler, ServiceError,
    },
    task::{MemoryTasks, TaskPolicy, TaskRecord, TaskStore},
    Identity, State, ToolError, ToolResult, WriteReceipt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------
// The server, as a user writes it
// ---------------------------------------------------------------------------------------

/// A report of some orders.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Report of {orders} orders")]
pub struct Report {
    /// How many orders it covers.
    pub orders: u64,
}

/// What a write did.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
pub struct Done {
    /// What it acted on.
    pub target: String,
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
    /// The idempotency key: a retry with the same key never refunds twice.
    #[allow(dead_code)] // the idempotency key: the framework reads it, the tool does not
    pub request_id: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct ArchiveArgs {
    /// How long the archiving takes, in milliseconds.
    pub millis: u64,
}

/// What each write did, counted.
#[derive(Clone, Default)]
struct Shop {
    reports: Arc<AtomicUsize>,
    refunds: Arc<AtomicUsize>,
    archives: Arc<AtomicUsize>,
}

#[mcp_tools]
impl Shop {
    /// Build a sales report; long reports run as tasks.
    #[mcp_tool(read_only, task = "optional")]
    async fn sales_report(&self, args: ReportArgs) -> Report {
        tokio::time::sleep(Duration::from_millis(args.millis)).await;
        self.reports.fetch_add(1, Ordering::SeqCst);
        Report { orders: 42 }
    }

    /// Count today's orders: answered at once when quick, a task when it takes longer
    /// than 300 ms.
    #[mcp_tool(read_only, task = "optional", task_after_ms = 300)]
    async fn order_count(&self, args: ReportArgs) -> Report {
        tokio::time::sleep(Duration::from_millis(args.millis)).await;
        self.reports.fetch_add(1, Ordering::SeqCst);
        Report { orders: 7 }
    }

    /// Refund an order, once a human approved it.
    #[mcp_tool(
        approval = "Refund order {orderId}",
        idempotency_key = "requestId",
        task = "optional"
    )]
    async fn refund(&self, args: RefundArgs) -> Result<Done, ToolError> {
        self.refunds.fetch_add(1, Ordering::SeqCst);
        Ok(Done {
            target: args.order_id,
            receipt: WriteReceipt::succeeded(),
        })
    }

    /// Archive old orders (no key: each call archives).
    #[mcp_tool(task = "optional")]
    async fn archive(&self, args: ArchiveArgs) -> Result<Done, ToolError> {
        tokio::time::sleep(Duration::from_millis(args.millis)).await;
        self.archives.fetch_add(1, Ordering::SeqCst);
        Ok(Done {
            target: "old orders".into(),
            receipt: WriteReceipt::succeeded(),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Shop {}

/// Serves `shop` with `state` over HTTP for alice and bob; its URL.
async fn serve(shop: Shop, state: State) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let tokens = StaticTokens::new()
        .with("alice-token", Identity::new("alice"))
        .with("bob-token", Identity::new("bob"));
    let options = HttpOptions {
        state,
        ..HttpOptions::default()
    };
    tokio::spawn(serve_http(
        shop,
        listener,
        Arc::new(tokens),
        options,
        std::future::pending(),
    ));
    url
}

// ---------------------------------------------------------------------------------------
// The client
// ---------------------------------------------------------------------------------------

/// A host that declares the tasks extension (or not) and form elicitation.
#[derive(Clone)]
struct Host {
    tasks: bool,
}

impl ClientHandler for Host {
    fn get_info(&self) -> ClientConfig {
        let builder = ClientCapabilities::builder().enable_elicitation();
        let capabilities = if self.tasks {
            builder.enable_tasks().build()
        } else {
            builder.build()
        };
        ClientConfig::new(capabilities, Implementation::new("tasks-host", "0.1.0"))
    }
}

type Client = RunningService<RoleClient, Host>;

async fn connect(url: &str, token: &str, tasks: bool) -> Client {
    connect_at(url, token, tasks, ProtocolVersion::V_2026_07_28).await
}

async fn connect_at(url: &str, token: &str, tasks: bool, version: ProtocolVersion) -> Client {
    let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(token);
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    serve_client_with_lifecycle(
        Host { tasks },
        transport,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version],
        },
    )
    .await
    .expect("connect")
}

fn call(tool: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(tool.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone())
}

/// The id of the task a call was answered with.
async fn start(client: &Client, params: CallToolRequestParams) -> String {
    match client.call_tool_once(params).await.unwrap() {
        CallToolResponse::Task(created) => {
            assert_eq!(created.task.status, TaskStatus::Working);
            created.task.task_id
        }
        other => panic!("expected a task, got {other:?}"),
    }
}

/// The result of a call answered at once (no task).
async fn answered(client: &Client, params: CallToolRequestParams) -> CallToolResult {
    match client.call_tool_once(params).await.unwrap() {
        CallToolResponse::Complete(result) => result,
        other => panic!("expected a plain result, got {other:?}"),
    }
}

async fn get(client: &Client, id: &str) -> GetTaskResult {
    client.get_task(GetTaskParams::new(id)).await.unwrap()
}

/// Polls task `id` until its status is `want` or terminal, for up to 10 s.
async fn until(client: &Client, id: &str, want: TaskStatus) -> GetTaskResult {
    for _ in 0..200 {
        let task = get(client, id).await;
        if task.task.status() == want || task.task.status().is_terminal() {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} did not reach {want:?} in 10 s");
}

fn result_of(task: &GetTaskResult) -> CallToolResult {
    match &task.task.payload {
        TaskPayload::Completed { result } => {
            serde_json::from_value(Value::Object(result.clone())).unwrap()
        }
        other => panic!("expected a completed task, got {other:?}"),
    }
}

/// The JSON-RPC error of a failed request.
fn error_of<T: std::fmt::Debug>(answer: Result<T, ServiceError>) -> ErrorData {
    match answer {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn accept() -> InputResponses {
    let mut answers = InputResponses::new();
    answers.insert(
        "approval".into(),
        json!({"action": "accept", "content": {"approve": true}}),
    );
    answers
}

const UNKNOWN: &str = "unknown task: no task of this id for this caller";

// ---------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------

/// Bob is told alice's task does not exist, whether he reads, feeds or cancels it; alice
/// reads it working, then completed with the report.
#[tokio::test]
async fn a_task_is_its_callers_only() {
    let url = serve(Shop::default(), State::new()).await;
    let alice = connect(&url, "alice-token", true).await;
    let bob = connect(&url, "bob-token", true).await;
    let id = start(&alice, call("sales_report", json!({"millis": 400}))).await;
    let working = get(&alice, &id).await;
    assert_eq!(working.task.status(), TaskStatus::Working);
    assert!(working.task.task.ttl_ms.is_some_and(|ttl| ttl == 3_600_000));
    for answer in [
        error_of(bob.get_task(GetTaskParams::new(&id)).await),
        error_of(bob.cancel_task(CancelTaskParams::new(&id)).await),
        error_of(bob.update_task(UpdateTaskParams::new(&id, accept())).await),
    ] {
        assert_eq!(answer.code.0, -32602);
        assert_eq!(answer.message, UNKNOWN);
    }
    let done = until(&alice, &id, TaskStatus::Completed).await;
    let result = result_of(&done);
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content, Some(json!({"orders": 42})));
    // Still bob's to be told nothing about, once it ended.
    assert_eq!(
        error_of(bob.get_task(GetTaskParams::new(&id)).await).message,
        UNKNOWN
    );
}

/// A client that does not declare the extension gets a plain call of the same tool.
#[tokio::test]
async fn a_client_without_the_extension_gets_a_plain_call() {
    let url = serve(Shop::default(), State::new()).await;
    let plain = connect(&url, "alice-token", false).await;
    assert_eq!(
        answered(&plain, call("sales_report", json!({"millis": 10})))
            .await
            .structured_content,
        Some(json!({"orders": 42}))
    );
    let error = error_of(plain.get_task(GetTaskParams::new("any")).await);
    assert_eq!(error.code.0, -32021, "{error:?}");
    // A 2025-11-25 session gets plain calls even when its client declares the extension:
    // SEP-2663's task shape is MCP 2026-07-28's.
    let older = connect_at(&url, "alice-token", true, ProtocolVersion::V_2025_11_25).await;
    assert_eq!(
        answered(&older, call("sales_report", json!({"millis": 10})))
            .await
            .structured_content,
        Some(json!({"orders": 42}))
    );
}

/// The approval of a keyed write is an `input_required` task: bob cannot answer it; alice's
/// answer runs the write once; her answer sent again, and the same call again under its
/// key, do not run it again.
#[tokio::test]
async fn the_approval_gate_is_an_input_required_task() {
    let shop = Shop::default();
    let url = serve(shop.clone(), State::new()).await;
    let alice = connect(&url, "alice-token", true).await;
    let bob = connect(&url, "bob-token", true).await;
    let refund = || call("refund", json!({"orderId": "O-1", "requestId": "r-1"}));
    let id = start(&alice, refund()).await;
    let asking = until(&alice, &id, TaskStatus::InputRequired).await;
    let TaskPayload::InputRequired { input_requests } = &asking.task.payload else {
        panic!("expected input_required, got {asking:?}");
    };
    let asked = serde_json::to_value(input_requests).unwrap();
    assert_eq!(asked["approval"]["method"], "elicitation/create", "{asked}");
    assert_eq!(
        error_of(bob.update_task(UpdateTaskParams::new(&id, accept())).await).message,
        UNKNOWN
    );
    assert_eq!(shop.refunds.load(Ordering::SeqCst), 0);
    alice
        .update_task(UpdateTaskParams::new(&id, accept()))
        .await
        .unwrap();
    let done = until(&alice, &id, TaskStatus::Completed).await;
    let result = result_of(&done);
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(shop.refunds.load(Ordering::SeqCst), 1);
    // The same answer again: acknowledged, nothing runs.
    alice
        .update_task(UpdateTaskParams::new(&id, accept()))
        .await
        .unwrap();
    assert_eq!(get(&alice, &id).await.task.status(), TaskStatus::Completed);
    // The same call under the same key: a new task, answered from the key's record.
    let again = start(&alice, refund()).await;
    let replayed = until(&alice, &again, TaskStatus::Completed).await;
    assert_eq!(
        result_of(&replayed).structured_content,
        result.structured_content
    );
    assert_eq!(shop.refunds.load(Ordering::SeqCst), 1, "one refund per key");
}

/// Cancelled while it waits for its approval, a write never runs, even when the approval
/// comes after.
#[tokio::test]
async fn a_task_cancelled_while_it_waits_never_runs() {
    let shop = Shop::default();
    let url = serve(shop.clone(), State::new()).await;
    let alice = connect(&url, "alice-token", true).await;
    let id = start(
        &alice,
        call("refund", json!({"orderId": "O-2", "requestId": "r-2"})),
    )
    .await;
    until(&alice, &id, TaskStatus::InputRequired).await;
    alice.cancel_task(CancelTaskParams::new(&id)).await.unwrap();
    assert_eq!(get(&alice, &id).await.task.status(), TaskStatus::Cancelled);
    alice
        .update_task(UpdateTaskParams::new(&id, accept()))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(get(&alice, &id).await.task.status(), TaskStatus::Cancelled);
    assert_eq!(shop.refunds.load(Ordering::SeqCst), 0, "nothing ran");
}

/// `tasks/cancel` is honest: a read stops and ends `cancelled`; a write that runs runs to
/// its end, and its task reports what it did.
#[tokio::test]
async fn a_cancelled_task_ends_cancelled_only_when_nothing_took_effect() {
    let shop = Shop::default();
    let url = serve(shop.clone(), State::new()).await;
    let alice = connect(&url, "alice-token", true).await;
    let read = start(&alice, call("sales_report", json!({"millis": 30_000}))).await;
    alice
        .cancel_task(CancelTaskParams::new(&read))
        .await
        .unwrap();
    assert_eq!(
        until(&alice, &read, TaskStatus::Cancelled)
            .await
            .task
            .status(),
        TaskStatus::Cancelled
    );
    let write = start(&alice, call("archive", json!({"millis": 500}))).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    alice
        .cancel_task(CancelTaskParams::new(&write))
        .await
        .unwrap();
    let ended = until(&alice, &write, TaskStatus::Completed).await;
    let result = result_of(&ended);
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(result.structured_content.unwrap()["status"], "succeeded");
    assert_eq!(shop.archives.load(Ordering::SeqCst), 1);
}

/// A caller holds at most `per_caller` tasks, each readable for its TTL and then gone.
#[tokio::test]
async fn tasks_are_bounded_per_caller_and_expire() {
    let policy = TaskPolicy::default()
        .with_ttl(Duration::from_millis(1500))
        .with_per_caller(2);
    let url = serve(Shop::default(), State::new().with(policy)).await;
    let alice = connect(&url, "alice-token", true).await;
    let bob = connect(&url, "bob-token", true).await;
    let report = || call("sales_report", json!({"millis": 1}));
    let first = start(&alice, report()).await;
    let created = get(&alice, &first).await;
    assert_eq!(created.task.task.ttl_ms, Some(1500));
    start(&alice, report()).await;
    let CallToolResponse::Complete(refused) = alice.call_tool_once(report()).await.unwrap() else {
        panic!("the third task is refused");
    };
    assert_eq!(refused.is_error, Some(true));
    let refused = refused.structured_content.unwrap();
    assert_eq!(refused["errorKind"], "policy_blocked");
    assert_eq!(
        refused["message"],
        "Quota exceeded: this caller holds 2 tasks, its limit. Nothing was stored. Wait for \
         older tasks to expire, or call without the tasks extension."
    );
    start(&bob, report()).await;
    tokio::time::sleep(Duration::from_millis(1700)).await;
    assert_eq!(
        error_of(alice.get_task(GetTaskParams::new(&first)).await).message,
        UNKNOWN
    );
    start(&alice, report()).await;
}

/// A stored task whose instance stopped renewing it (`runner` gone, lease lapsed).
fn stalled(tool: &str, arguments: Value, rerunnable: bool) -> TaskRecord {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    serde_json::from_value(json!({
        "id": uuid_like(),
        "caller": "alice",
        "tool": tool,
        "arguments": arguments,
        "meta": {},
        "state": {"status": "working"},
        "createdMs": now - 5_000,
        "updatedMs": now - 5_000,
        "ttlMs": 3_600_000,
        "cancelRequested": false,
        "runner": "an-instance-that-was-killed",
        "leaseUntilMs": now - 1_000,
        "attempts": 1,
        "rerunnable": rerunnable,
        "version": 3,
    }))
    .unwrap()
}

fn uuid_like() -> String {
    format!(
        "{:x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

/// The next `tasks/get` of a task whose instance stopped: a read runs again here and
/// completes; an unkeyed write, which may have run, fails with an unknown outcome and is
/// not run again.
#[tokio::test]
async fn a_task_whose_instance_stopped_is_taken_over_honestly() {
    let shop = Shop::default();
    let tasks = MemoryTasks::default();
    let state = State::new().with_task_store(Arc::new(tasks.clone()));
    let url = serve(shop.clone(), state).await;
    let alice = connect(&url, "alice-token", true).await;

    let read = stalled("sales_report", json!({"millis": 10}), true);
    tasks.create(&read, 100).await.unwrap();
    let taken = get(&alice, &read.id).await;
    assert_eq!(taken.task.status(), TaskStatus::Working, "run again here");
    let done = until(&alice, &read.id, TaskStatus::Completed).await;
    assert_eq!(
        result_of(&done).structured_content,
        Some(json!({"orders": 42}))
    );
    assert_eq!(tasks.get(&read.id).await.unwrap().unwrap().attempts, 2);

    let write = stalled("archive", json!({"millis": 10}), false);
    tasks.create(&write, 100).await.unwrap();
    let failed = get(&alice, &write.id).await;
    let TaskPayload::Failed { error } = &failed.task.payload else {
        panic!("expected failed, got {failed:?}");
    };
    assert_eq!(
        Value::Object(error.clone()),
        json!({
            "code": -32603,
            "message": "The server instance running this task stopped before it finished \
                        (attempt 1); whether `archive` took effect is unknown. Check before \
                        calling it again.",
            "data": {"retrySafe": false},
        })
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(shop.archives.load(Ordering::SeqCst), 0, "not run again");
}

/// A server whose own `get_info` leaves out the tasks extension does not start: rmcp would
/// answer every `tasks/get` with `-32601`.
#[tokio::test]
async fn a_server_that_declares_no_tasks_extension_does_not_start() {
    #[derive(Clone, Default)]
    struct Quiet;

    #[mcp_tools]
    impl Quiet {
        /// A long read.
        #[mcp_tool(read_only, task = "optional")]
        async fn long_read(&self) -> Report {
            Report { orders: 1 }
        }
    }

    #[mcp_handler]
    impl ServerHandler for Quiet {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }
    }

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let error = serve_http(
        Quiet,
        listener,
        Arc::new(StaticTokens::new()),
        HttpOptions::default(),
        std::future::pending(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `long_read`: it runs as a task (`task = ...`), and the server's `get_info` does \
         not declare the tasks extension: add `.enable_tasks()` to its \
         `ServerCapabilities::builder()`, or start from \
         `mcp_result::handler::server_info::<Self>(..)`"
    );
}

// ---------------------------------------------------------------------------------------
// Two instances of the example on one PostgreSQL database
// ---------------------------------------------------------------------------------------

/// The example with `--store`, its notes slowed (`HELPDESK_NOTE_DELAY_MS`, inside the
/// write's transaction) and its task lease short.
fn helpdesk(port: u16, store: &str) -> tokio::process::Child {
    tokio::process::Command::new(common::example_path("helpdesk"))
        .args(["--http", &format!("127.0.0.1:{port}"), "--store", store])
        .env(
            "MCP_RESULT_SERVER_KEY",
            "dGFza3MtdGVzdC1zZXJ2ZXIta2V5LTMyLWJ5dGVzISE=",
        )
        .env("HELPDESK_NOTE_DELAY_MS", "1500")
        .env("HELPDESK_TASK_LEASE_MS", "600")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the example")
}

/// A task made on one instance is read and fed on the other; the instance running a keyed
/// note is killed (SIGKILL) inside its transaction, and the next `tasks/get`, on the other
/// instance, runs it again there: one note, the task completed.
#[tokio::test]
async fn two_instances_share_tasks_and_a_killed_ones_write_runs_once() {
    let database = common::postgres::TestDatabase::create().await;
    let (port_a, port_b) = (common::free_port(), common::free_port());
    let mut a = helpdesk(port_a, database.url());
    assert!(common::wait_listening(port_a).await);
    let b = helpdesk(port_b, database.url());
    assert!(common::wait_listening(port_b).await);
    let on_a = connect(
        &format!("http://127.0.0.1:{port_a}/mcp"),
        "alice-token",
        true,
    )
    .await;
    let on_b = connect(
        &format!("http://127.0.0.1:{port_b}/mcp"),
        "alice-token",
        true,
    )
    .await;
    let bob_on_b = connect(&format!("http://127.0.0.1:{port_b}/mcp"), "bob-token", true).await;

    // The approval asked on one instance, answered on the other.
    let close = start(&on_a, call("close_ticket", json!({"ticketId": "T-1003"}))).await;
    until(&on_b, &close, TaskStatus::InputRequired).await;
    on_b.update_task(UpdateTaskParams::new(&close, accept()))
        .await
        .unwrap();
    let closed = until(&on_a, &close, TaskStatus::Completed).await;
    assert_eq!(result_of(&closed).is_error, Some(false), "{closed:?}");

    // A keyed note: its instance killed while the note is written, uncommitted.
    let note = start(
        &on_a,
        call(
            "add_internal_note",
            json!({"ticketId": "T-1001", "body": "kill-test", "requestId": "kill-1"}),
        ),
    )
    .await;
    assert_eq!(
        error_of(bob_on_b.get_task(GetTaskParams::new(&note)).await).message,
        UNKNOWN
    );
    tokio::time::sleep(Duration::from_millis(700)).await;
    a.start_kill().unwrap();
    a.wait().await.unwrap();
    // Taken over on b once a's lease lapsed, run again there, once.
    let done = until(&on_b, &note, TaskStatus::Completed).await;
    let result = result_of(&done);
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(result.structured_content.unwrap()["status"], "succeeded");
    let CallToolResponse::Complete(view) = on_b
        .call_tool_once(call("get_ticket", json!({"ticketId": "T-1001"})))
        .await
        .unwrap()
    else {
        panic!("get_ticket answers at once");
    };
    let notes = view.structured_content.unwrap()["notes"].clone();
    let written = notes
        .as_array()
        .unwrap()
        .iter()
        .filter(|note| *note == "kill-test")
        .count();
    assert_eq!(written, 1, "one note: {notes}");
    drop(b);
}

/// With a head start (`task_after_ms = 300`), a quick call is answered plainly and a slow
/// one becomes a task that completes with the same result.
#[tokio::test]
async fn a_head_start_answers_quick_calls_plainly() {
    let url = serve(Shop::default(), State::new()).await;
    let alice = connect(&url, "alice-token", true).await;
    assert_eq!(
        answered(&alice, call("order_count", json!({"millis": 10})))
            .await
            .structured_content,
        Some(json!({"orders": 7}))
    );
    let id = start(&alice, call("order_count", json!({"millis": 900}))).await;
    let done = until(&alice, &id, TaskStatus::Completed).await;
    assert_eq!(
        result_of(&done).structured_content,
        Some(json!({"orders": 7}))
    );
}

/// A run whose task another instance took over (its lease lapsed while it still ran, say
/// it stalled) is cancelled when it next renews, and never writes into the task: the
/// task stays the other instance's.
#[tokio::test]
async fn a_run_whose_task_was_taken_is_cancelled_and_leaves_it_alone() {
    let shop = Shop::default();
    let tasks = MemoryTasks::default();
    let state = State::new()
        .with_task_store(Arc::new(tasks.clone()))
        .with(TaskPolicy::default().with_lease(Duration::from_millis(400)));
    let url = serve(shop.clone(), state).await;
    let alice = connect(&url, "alice-token", true).await;
    let id = start(&alice, call("sales_report", json!({"millis": 1500}))).await;
    let mut record = tasks.get(&id).await.unwrap().unwrap();
    assert_eq!(record.attempts, 1);
    // Another instance takes it over.
    record.runner = Some("another-instance".into());
    record.attempts = 2;
    record.lease_until_ms += 60_000;
    record.version += 1;
    assert!(tasks.replace(&record).await.unwrap());
    tokio::time::sleep(Duration::from_millis(2000)).await;
    assert_eq!(
        shop.reports.load(Ordering::SeqCst),
        0,
        "its run was cancelled"
    );
    let after = tasks.get(&id).await.unwrap().unwrap();
    assert_eq!(after.runner.as_deref(), Some("another-instance"));
    assert_eq!(after.attempts, 2);
    assert_eq!(
        after.version, record.version,
        "not written by the cancelled run"
    );
    assert_eq!(get(&alice, &id).await.task.status(), TaskStatus::Working);
}

/// A call its client cancels during its head start stops there: its tool does not finish
/// and no task is left holding the caller's place (a bound of one task still lets the next
/// call become a task).
#[tokio::test]
async fn a_call_cancelled_during_its_head_start_stops_and_leaves_no_task() {
    let shop = Shop::default();
    let state = State::new().with(TaskPolicy::default().with_per_caller(1));
    let url = serve(shop.clone(), state).await;
    let alice = connect(&url, "alice-token", true).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(call(
        "order_count",
        json!({"millis": 900}),
    )));
    let handle = alice
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    handle.cancel(Some("changed my mind".into())).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(shop.reports.load(Ordering::SeqCst), 0, "its run stopped");
    let id = start(&alice, call("order_count", json!({"millis": 400}))).await;
    let done = until(&alice, &id, TaskStatus::Completed).await;
    assert_eq!(
        result_of(&done).structured_content,
        Some(json!({"orders": 7}))
    );
}
