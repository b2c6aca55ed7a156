//! Per-caller limits (issue 49 item 4): `State::with_call_limits`, a server written the way
//! the guide teaches, over a real transport with rmcp's client, two callers on it:
//!
//! - a caller over its rate gets the exact envelope with `retryAfterMs`; another caller is
//!   unaffected;
//! - a keyed write's replay is never refused nor counted, and a refused write holds no key:
//!   the same call after the wait runs once; the refusal is audited;
//! - a caller over its concurrency is refused while its call runs, then admitted;
//! - a tool's own limit is counted apart from the others'.

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use mcp_result::{
    audit::{AuditSink, JsonLinesSink},
    extract::WriteContext,
    mcp_handler, mcp_tools,
    rmcp::{
        model::{CallToolRequestParams, CallToolResult},
        service::{RequestContext, RoleClient, RoleServer, RunningService, ServiceExt},
        ServerHandler,
    },
    AuditEventId, CallLimits, Identity, Limit, ServerServices, State, Status, ToolError,
    ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Clone)]
struct Desk {
    /// Who calls next.
    caller: Arc<Mutex<Identity>>,
    added: Arc<AtomicUsize>,
    gate: Arc<tokio::sync::Notify>,
    audit: JsonLinesSink,
}

impl ServerServices for Desk {
    fn caller_identity(&self, _context: &RequestContext<RoleServer>) -> Option<Identity> {
        Some(self.caller.lock().unwrap().clone())
    }
    fn audit_sink(&self, _state: &State) -> Arc<dyn AuditSink> {
        Arc::new(self.audit.clone())
    }
}

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AddArgs {
    /// The same for every retry of one write.
    request_id: String,
}

/// Added.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Added {
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
}

#[mcp_tools(services)]
impl Desk {
    /// Looks something up.
    #[mcp_tool(read_only)]
    async fn lookup(&self, _args: NoArgs) -> Result<String, ToolError> {
        Ok("found".into())
    }

    /// Waits until the test lets it end.
    #[mcp_tool(read_only)]
    async fn slow(&self, _args: NoArgs) -> Result<String, ToolError> {
        self.gate.notified().await;
        Ok("done".into())
    }

    /// Adds something, once per key.
    #[mcp_tool(idempotency_key = "requestId")]
    async fn add(&self, args: AddArgs, write: WriteContext) -> Result<Added, ToolError> {
        let _ = args.request_id;
        self.added.fetch_add(1, Ordering::SeqCst);
        Ok(Added {
            status: Status::Succeeded,
            retry_safe: write.retry_safe(),
            audit_event_id: write.audit_event_id().clone(),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

async fn serve(limits: CallLimits) -> (Desk, RunningService<RoleClient, ()>) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("limits");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.jsonl", uuid::Uuid::now_v7()));
    let desk = Desk {
        caller: Arc::new(Mutex::new(Identity::new("alice"))),
        added: Arc::default(),
        gate: Arc::default(),
        audit: JsonLinesSink::open(&path).unwrap(),
    };
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let served = desk.clone();
    // The audit file is durable, the rest in memory: a mix this test means.
    let state = State::new().with_call_limits(limits).allow_mixed_stores();
    tokio::spawn(async move {
        if let Err(error) = mcp_result::serve_with_state(served, server_io, state).await {
            panic!("{error}");
        }
    });
    let client = ().serve(client_io).await.expect("initialize");
    (desk, client)
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone())
}

fn structured(result: &CallToolResult) -> Value {
    result.structured_content.clone().unwrap_or(Value::Null)
}

/// The refusal's envelope, its `retryAfterMs` checked to lie in `(0, at_most]` and then
/// left out (it depends on the clock).
fn refusal(result: &CallToolResult, at_most: Duration) -> Value {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let mut envelope = structured(result);
    let after = envelope["retryAfterMs"].as_u64().expect("retryAfterMs");
    assert!(
        after > 0 && u128::from(after) <= at_most.as_millis(),
        "{after}"
    );
    let object = envelope.as_object_mut().unwrap();
    object.remove("retryAfterMs");
    object.remove("auditEventId");
    let message = object.remove("message").unwrap();
    assert!(
        message
            .as_str()
            .unwrap()
            .ends_with(&format!("Nothing ran. Call again after {after} ms.")),
        "{message}"
    );
    envelope
}

#[tokio::test]
async fn a_caller_over_its_rate_is_refused_with_retry_after_and_another_is_not() {
    let (desk, client) = serve(CallLimits::new(
        Limit::new().rate(2, Duration::from_secs(60)),
    ))
    .await;
    for _ in 0..2 {
        let ok = client.call_tool(call("lookup", json!({}))).await.unwrap();
        assert_eq!(ok.is_error, Some(false), "{ok:?}");
    }
    let refused = client.call_tool(call("lookup", json!({}))).await.unwrap();
    assert_eq!(
        structured(&refused)["message"]
            .as_str()
            .unwrap()
            .split(". Nothing ran")
            .next(),
        Some("Limited: this caller may make 2 calls per 60000 ms")
    );
    assert_eq!(
        refusal(&refused, Duration::from_secs(30)),
        json!({"status": "blocked", "errorKind": "policy_blocked", "retrySafe": true,
               "reason": "caller rate limit"})
    );
    // bob has his own allowance.
    *desk.caller.lock().unwrap() = Identity::new("bob");
    let bob = client.call_tool(call("lookup", json!({}))).await.unwrap();
    assert_eq!(bob.is_error, Some(false), "{bob:?}");
}

#[tokio::test]
async fn a_replay_is_never_counted_and_a_refused_write_holds_no_key() {
    let (desk, client) = serve(CallLimits::new(
        Limit::new().rate(1, Duration::from_millis(800)),
    ))
    .await;
    let first = client
        .call_tool(call("add", json!({"requestId": "k-1"})))
        .await
        .unwrap();
    assert_eq!(structured(&first)["status"], "succeeded", "{first:?}");
    // The replay of k-1 is answered from the store, over the rate or not.
    let replay = client
        .call_tool(call("add", json!({"requestId": "k-1"})))
        .await
        .unwrap();
    assert_eq!(
        structured(&replay)["auditEventId"],
        structured(&first)["auditEventId"]
    );
    // A new key is over the rate: refused, audited, its key not held.
    let refused = client
        .call_tool(call("add", json!({"requestId": "k-2"})))
        .await
        .unwrap();
    let event = structured(&refused)["auditEventId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        refusal(&refused, Duration::from_millis(800))["reason"],
        "caller rate limit"
    );
    let records = mcp_result::audit::read_records(desk.audit.path()).unwrap();
    let outcome = records
        .iter()
        .find(|r| r.event_id == event && r.phase == mcp_result::audit::Phase::Outcome)
        .expect("audited");
    assert_eq!(outcome.status, Some(Status::Blocked));
    // After the wait the same call runs, once.
    tokio::time::sleep(Duration::from_millis(900)).await;
    let later = client
        .call_tool(call("add", json!({"requestId": "k-2"})))
        .await
        .unwrap();
    assert_eq!(structured(&later)["status"], "succeeded", "{later:?}");
    assert_eq!(desk.added.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_caller_over_its_concurrency_is_refused_while_its_call_runs() {
    let (desk, client) = serve(CallLimits::new(Limit::new().concurrent(1))).await;
    let client = Arc::new(client);
    let running = {
        let client = Arc::clone(&client);
        tokio::spawn(async move { client.call_tool(call("slow", json!({}))).await.unwrap() })
    };
    // The slow call holds alice's one slot.
    let mut refused = None;
    for _ in 0..50 {
        let answer = client.call_tool(call("lookup", json!({}))).await.unwrap();
        if answer.is_error == Some(true) {
            refused = Some(answer);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let refused = refused.expect("refused while the slow call runs");
    assert_eq!(
        structured(&refused)["message"]
            .as_str()
            .unwrap()
            .split(". Nothing ran")
            .next(),
        Some("Limited: this caller already has 1 calls running")
    );
    assert_eq!(
        refusal(&refused, Duration::from_secs(1))["reason"],
        "caller concurrency limit"
    );
    desk.gate.notify_one();
    assert_eq!(running.await.unwrap().is_error, Some(false));
    let after = client.call_tool(call("lookup", json!({}))).await.unwrap();
    assert_eq!(after.is_error, Some(false), "{after:?}");
}

#[tokio::test]
async fn a_tools_own_limit_is_counted_apart() {
    let limits = CallLimits::new(Limit::new().rate(5, Duration::from_secs(60)))
        .tool("add", Limit::new().rate(1, Duration::from_secs(60)));
    let (_desk, client) = serve(limits).await;
    let added = client
        .call_tool(call("add", json!({"requestId": "a-1"})))
        .await
        .unwrap();
    assert_eq!(added.is_error, Some(false), "{added:?}");
    let refused = client
        .call_tool(call("add", json!({"requestId": "a-2"})))
        .await
        .unwrap();
    assert_eq!(
        refusal(&refused, Duration::from_secs(60))["reason"],
        "caller rate limit"
    );
    // Every other tool still has its five.
    for _ in 0..5 {
        let ok = client.call_tool(call("lookup", json!({}))).await.unwrap();
        assert_eq!(ok.is_error, Some(false), "{ok:?}");
    }
}
