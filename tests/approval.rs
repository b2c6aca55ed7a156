//! Writes that need a human (issue 17): through elicitation when the client can elicit
//! (accept, decline, cancel), out of band otherwise (blocked, approved, repeated: one
//! execution, the `approvalId` in the result and the audit). A server written the way the
//! README teaches, over a real transport, with rmcp's client (with and without an
//! elicitation handler).

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use mcp_result::{
    approval::{ApprovalStore, MemoryApprovals},
    audit::{read_records, AuditSink, JsonLinesSink, Phase},
    extract::WriteContext,
    mcp_handler, mcp_tools,
    rmcp::{
        model::{
            CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ContentBlock,
            ElicitRequestParams, ElicitResult, ElicitationAction, ErrorData, Implementation,
            ReadResourceRequestParams, RequestMetaObject,
        },
        service::{RequestContext, RoleClient, RoleServer, RunningService, ServiceExt},
        ClientHandler, ServerHandler,
    },
    AuditEventId, Identity, ServerServices, Status, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Clone)]
struct Desk {
    closed: Arc<AtomicUsize>,
    audit: JsonLinesSink,
    approvals: MemoryApprovals,
    /// Who calls, when a test says so (else the transport's identity).
    caller: Arc<std::sync::Mutex<Option<Identity>>>,
}

impl ServerServices for Desk {
    fn audit_sink(&self, _state: &mcp_result::State) -> Arc<dyn AuditSink> {
        Arc::new(self.audit.clone())
    }
    fn approval_store(&self, _state: &mcp_result::State) -> Arc<dyn ApprovalStore> {
        Arc::new(self.approvals.clone())
    }
    fn caller_identity(&self, context: &RequestContext<RoleServer>) -> Option<Identity> {
        let chosen = self.caller.lock().unwrap().clone();
        chosen.or_else(|| Identity::of(context))
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CloseArgs {
    ticket_id: String,
}

/// Closed.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Closed {
    ticket_id: String,
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
    approval_id: Option<String>,
}

#[mcp_tools(services)]
impl Desk {
    /// Closes a ticket, once a human approved.
    #[mcp_tool(approval = "Close ticket {ticketId}")]
    async fn close_ticket(
        &self,
        args: CloseArgs,
        write: WriteContext,
    ) -> Result<Closed, ToolError> {
        self.closed.fetch_add(1, Ordering::SeqCst);
        Ok(closed(args, &write))
    }
}

/// The result of a close (its `approvalId` is written by the framework).
fn closed(args: CloseArgs, write: &WriteContext) -> Closed {
    Closed {
        ticket_id: args.ticket_id,
        status: Status::Succeeded,
        retry_safe: false,
        audit_event_id: write.audit_event_id().clone(),
        approval_id: None,
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

/// A client whose user answers every elicitation with `action` (and, on accept, `approve`).
#[derive(Clone)]
struct User {
    action: ElicitationAction,
    approve: bool,
    asked: Arc<std::sync::Mutex<Vec<String>>>,
}

impl ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("elicitation-user", "0.1.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked.lock().unwrap().push(message.clone());
        }
        let mut result = ElicitResult::new(self.action.clone());
        if self.action == ElicitationAction::Accept {
            result = result.with_content(json!({"approve": self.approve}));
        }
        Ok(result)
    }
}

fn desk(name: &str) -> (Desk, std::path::PathBuf) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("approval");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let desk = Desk {
        closed: Arc::default(),
        audit: JsonLinesSink::open(&path).unwrap(),
        approvals: MemoryApprovals::default(),
        caller: Arc::default(),
    };
    (desk, path)
}

async fn connect<C: ClientHandler>(server: Desk, client: C) -> RunningService<RoleClient, C> {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client.serve(client_io).await.expect("initialize")
}

fn close(ticket: &str, approval: Option<&str>) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new("close_ticket")
        .with_arguments(json!({"ticketId": ticket}).as_object().unwrap().clone());
    if let Some(id) = approval {
        let mut meta = RequestMetaObject::default();
        meta.0
            .insert("io.github.mcp-result/approvalRequestId".into(), json!(id));
        params.meta = Some(meta);
    }
    params
}

fn structured(result: &CallToolResult) -> Value {
    result.structured_content.clone().unwrap()
}

#[tokio::test]
async fn an_elicited_yes_runs_the_write_once_with_an_approval_id() {
    let (server, log) = desk("accept");
    let user = User {
        action: ElicitationAction::Accept,
        approve: true,
        asked: Arc::default(),
    };
    let client = connect(server.clone(), user.clone()).await;
    let result = client.call_tool(close("T-1", None)).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let approval = structured(&result)["approvalId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(server.closed.load(Ordering::SeqCst), 1);
    assert_eq!(
        *user.asked.lock().unwrap(),
        ["Approve this write? Close ticket T-1"]
    );
    let records = read_records(&log).unwrap();
    let outcome = records.iter().find(|r| r.phase == Phase::Outcome).unwrap();
    assert_eq!(outcome.approval_id.as_deref(), Some(approval.as_str()));
    assert_eq!(outcome.approver.as_deref(), Some("local"));
}

#[tokio::test]
async fn a_declined_or_cancelled_elicitation_blocks_and_runs_nothing() {
    for (action, approve) in [
        (ElicitationAction::Decline, false),
        (ElicitationAction::Cancel, false),
        (ElicitationAction::Accept, false),
    ] {
        let (server, log) = desk(&format!("decline-{action:?}-{approve}"));
        let user = User {
            action: action.clone(),
            approve,
            asked: Arc::default(),
        };
        let client = connect(server.clone(), user).await;
        let result = client.call_tool(close("T-1", None)).await.unwrap();
        let envelope = structured(&result);
        assert_eq!(envelope["status"], "blocked", "{action:?}");
        assert_eq!(envelope["errorKind"], "policy_blocked");
        assert_eq!(envelope["reason"], "declined by the user");
        assert_eq!(server.closed.load(Ordering::SeqCst), 0, "{action:?}");
        // Audited: one event, its outcome blocked.
        let records = read_records(&log).unwrap();
        assert_eq!(records.len(), 1, "{records:?}");
        assert_eq!(records[0].status, Some(Status::Blocked));
        assert_eq!(records[0].event_id, envelope["auditEventId"]);
    }
}

#[tokio::test]
async fn without_elicitation_an_approver_decides_out_of_band() {
    let (server, log) = desk("fallback");
    let client = connect(server.clone(), ()).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(
        tools[0].input_schema["properties"]["approvalRequestId"]["type"],
        "string"
    );
    let blocked = client.call_tool(close("T-2", None)).await.unwrap();
    let envelope = structured(&blocked);
    assert_eq!(envelope["status"], "blocked");
    assert_eq!(envelope["requiresHumanReview"], true);
    let request = envelope["approvalRequestId"].as_str().unwrap().to_owned();
    assert_eq!(server.closed.load(Ordering::SeqCst), 0);
    // A resource_link to the pending request, readable by its caller.
    let link = blocked
        .content
        .iter()
        .find_map(|b| match b {
            ContentBlock::ResourceLink(link) => Some(link.uri.clone()),
            _ => None,
        })
        .expect("a resource_link");
    assert_eq!(link, format!("mcp-result://approvals/{request}"));
    let read = client
        .read_resource(ReadResourceRequestParams::new(link))
        .await
        .unwrap();
    let pending: Value = serde_json::from_str(
        serde_json::to_value(&read.contents[0]).unwrap()["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(pending["text"], "Close ticket T-2");
    assert_eq!(pending["decision"]["state"], "pending");

    // Repeated before a decision: still refused, nothing runs.
    let early = client
        .call_tool(close("T-2", Some(&request)))
        .await
        .unwrap();
    assert_eq!(structured(&early)["errorKind"], "conflict");
    let approval = server.approvals.approve(&request, "alice").unwrap();
    // With other arguments: refused.
    let other = client
        .call_tool(close("T-3", Some(&request)))
        .await
        .unwrap();
    assert_eq!(
        structured(&other)["message"],
        "The approval was granted for other arguments; call with exactly those."
    );
    // Repeated with the approval request id (here as the argument): runs once.
    let mut args = close("T-2", None);
    args.arguments
        .as_mut()
        .unwrap()
        .insert("approvalRequestId".into(), json!(request));
    let done = client.call_tool(args).await.unwrap();
    assert_eq!(done.is_error, Some(false), "{done:?}");
    assert_eq!(structured(&done)["approvalId"], approval);
    assert_eq!(server.closed.load(Ordering::SeqCst), 1);
    // Used once: a second repeat is refused.
    let again = client
        .call_tool(close("T-2", Some(&request)))
        .await
        .unwrap();
    assert_eq!(
        structured(&again)["message"],
        "The approval was used already; each approval runs one write."
    );
    assert_eq!(server.closed.load(Ordering::SeqCst), 1);
    let records = read_records(&log).unwrap();
    let ran = records
        .iter()
        .find(|r| r.phase == Phase::Outcome && r.status == Some(Status::Succeeded))
        .unwrap();
    assert_eq!(ran.approval_id.as_deref(), Some(approval.as_str()));
    assert_eq!(ran.approver.as_deref(), Some("alice"));
    let _ = Duration::ZERO;
}

/// A tool whose approval text names no argument: the server fails its handshake with the
/// tool's name and the fix, instead of serving and failing later.
#[derive(Clone)]
struct Misnamed;

#[mcp_tools]
impl Misnamed {
    /// Closes a ticket.
    #[mcp_tool(approval = "Close ticket {ticket}")]
    async fn close(&self, args: CloseArgs, write: WriteContext) -> Result<Closed, ToolError> {
        Ok(closed(args, &write))
    }
}

#[mcp_handler]
impl ServerHandler for Misnamed {}

#[tokio::test]
async fn an_approval_text_naming_no_argument_stops_the_server_at_the_handshake() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = Misnamed.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let Err(error) = ().serve(client_io).await else {
        panic!("initialize succeeded");
    };
    assert!(
        error.to_string().contains(
            "tool `close`: the approval text names `{ticket}`, which is no argument: use the \
             serialized name of a field of the arguments type"
        ),
        "{error}"
    );
}

#[tokio::test]
async fn a_keyed_repeat_of_an_approved_write_is_its_replay_not_a_second_use() {
    let (server, _log) = desk("keyed");
    let client = connect(server.clone(), ()).await;
    let keyed = |approval: Option<&str>| {
        let mut params = close("T-7", approval);
        let meta = params.meta.get_or_insert_with(RequestMetaObject::default);
        meta.0.insert(
            "io.github.mcp-result/idempotencyKey".into(),
            json!("close-7"),
        );
        params
    };
    let blocked = client.call_tool(keyed(None)).await.unwrap();
    let request = structured(&blocked)["approvalRequestId"]
        .as_str()
        .unwrap()
        .to_owned();
    server.approvals.approve(&request, "bob").unwrap();
    let done = client.call_tool(keyed(Some(&request))).await.unwrap();
    assert_eq!(done.is_error, Some(false), "{done:?}");
    // The lost-response retry: same key, same approval request: the same answer, no run.
    let again = client.call_tool(keyed(Some(&request))).await.unwrap();
    assert_eq!(again.structured_content, done.structured_content);
    assert_eq!(server.closed.load(Ordering::SeqCst), 1);
}

/// On MCP 2026-07-28 a server cannot ask during a call: the question goes back as an
/// input-required round with sealed state; rmcp's client asks its user and calls again.
#[tokio::test]
async fn on_2026_07_28_the_question_is_an_input_required_round() {
    use mcp_result::rmcp::{
        model::ProtocolVersion,
        service::{serve_client_with_lifecycle, ClientLifecycleMode},
    };
    for (action, approve, closes) in [
        (ElicitationAction::Accept, true, 1),
        (ElicitationAction::Decline, false, 0),
    ] {
        let (server, log) = desk(&format!("mrtr-{action:?}"));
        let user = User {
            action: action.clone(),
            approve,
            asked: Arc::default(),
        };
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        let serving = server.clone();
        tokio::spawn(async move {
            if let Ok(running) = serving.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = serve_client_with_lifecycle(
            user.clone(),
            client_io,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover");
        let result = client.call_tool(close("T-9", None)).await.unwrap();
        assert_eq!(
            server.closed.load(Ordering::SeqCst),
            closes,
            "{action:?}: {result:?}"
        );
        assert_eq!(
            *user.asked.lock().unwrap(),
            ["Approve this write? Close ticket T-9"]
        );
        let envelope = structured(&result);
        if closes == 1 {
            assert_eq!(result.is_error, Some(false));
            assert!(envelope["approvalId"].is_string());
        } else {
            assert_eq!(envelope["reason"], "declined by the user");
        }
        // The question round was no write attempt: one audit event, the decision's.
        let records = read_records(&log).unwrap();
        let events: std::collections::BTreeSet<&str> =
            records.iter().map(|r| r.event_id.as_str()).collect();
        assert_eq!(events.len(), 1, "{records:?}");
    }
}

/// One human answer authorizes one write by the caller who asked: on MCP 2026-07-28 the
/// accepted round sent again runs nothing, and sent by another caller runs nothing either.
#[tokio::test]
async fn an_accepted_round_runs_one_write_by_the_caller_who_asked() {
    use mcp_result::rmcp::{
        model::{CallToolResponse, ProtocolVersion},
        service::{serve_client_with_lifecycle, ClientLifecycleMode},
    };
    let (server, log) = desk("round-once");
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let serving = server.clone();
    tokio::spawn(async move {
        if let Ok(running) = serving.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let user = User {
        action: ElicitationAction::Accept,
        approve: true,
        asked: Arc::default(),
    };
    let client = serve_client_with_lifecycle(
        user,
        client_io,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("discover");
    let CallToolResponse::InputRequired(round) =
        client.call_tool_once(close("T-11", None)).await.unwrap()
    else {
        panic!("the first round asks");
    };
    let state = round.request_state.clone().expect("sealed state");
    let mut answer = mcp_result::rmcp::model::InputResponses::new();
    answer.insert(
        "approval".into(),
        json!({"action": "accept", "content": {"approve": true}}),
    );
    let answered = close("T-11", None)
        .with_input_responses(answer)
        .with_request_state(state);
    // Another caller presents the accepted round: its state is not theirs.
    *server.caller.lock().unwrap() = Some(Identity::new("mallory").with_tenant("globex"));
    let CallToolResponse::InputRequired(_) = client.call_tool_once(answered.clone()).await.unwrap()
    else {
        panic!("another caller's round is asked again, never run");
    };
    assert_eq!(server.closed.load(Ordering::SeqCst), 0);
    // The caller who asked: the write runs once.
    *server.caller.lock().unwrap() = None;
    let CallToolResponse::Complete(done) = client.call_tool_once(answered.clone()).await.unwrap()
    else {
        panic!("the accepted round completes");
    };
    assert_eq!(done.is_error, Some(false), "{done:?}");
    assert!(structured(&done)["approvalId"].is_string());
    // The same accepted round again: used, refused, nothing runs.
    let CallToolResponse::Complete(again) = client.call_tool_once(answered).await.unwrap() else {
        panic!("a used round is answered");
    };
    assert_eq!(again.is_error, Some(true), "{again:?}");
    assert_eq!(structured(&again)["errorKind"], "conflict");
    assert_eq!(
        structured(&again)["message"],
        "The approval was used already; each approval runs one write."
    );
    assert_eq!(server.closed.load(Ordering::SeqCst), 1);
    // One intent in the audit log: one write.
    let intents = read_records(&log)
        .unwrap()
        .into_iter()
        .filter(|r| r.phase == Phase::Intent)
        .count();
    assert_eq!(intents, 1);
}

/// Strict-mode hosts send `null` for every optional property they leave unset: the
/// `approvalRequestId` argument the framework adds takes `null` as absent (the first round:
/// blocked, asking for approval), never a `validation_error`.
#[tokio::test]
async fn a_null_approval_request_id_is_the_first_round() {
    let (server, _log) = desk("null-request-id");
    let client = connect(server.clone(), ()).await;
    let arguments = json!({"ticketId": "T-3", "approvalRequestId": null});
    let blocked = client
        .call_tool(
            CallToolRequestParams::new("close_ticket")
                .with_arguments(arguments.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let envelope = structured(&blocked);
    assert_eq!(envelope["status"], "blocked", "{envelope}");
    assert_eq!(envelope["requiresHumanReview"], true);
    assert!(envelope["approvalRequestId"].is_string());
    assert_eq!(server.closed.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_gated_call_with_arguments_the_tool_never_reads_is_refused_before_any_request() {
    let (server, log) = desk("undeclared");
    let client = connect(server.clone(), ()).await;
    let mut params = close("T-1002", None);
    let arguments = params.arguments.as_mut().unwrap();
    arguments.insert("note".into(), json!("also refund the customer"));
    arguments.insert("a/b".into(), json!(1));
    let refused = client.call_tool(params).await.unwrap();
    assert_eq!(refused.is_error, Some(true));
    let envelope = structured(&refused);
    let expected = "is not an argument of this tool: remove it (a write that needs a human \
                    approval takes only the arguments it declares, so that its approver reads \
                    what runs)";
    assert_eq!(
        (
            &envelope["errorKind"],
            &envelope["message"],
            &envelope["fieldErrors"]
        ),
        (
            &json!("validation_error"),
            &json!("2 arguments are invalid. Fix all of them and call again."),
            &json!([
                {"pointer": "/a~1b", "message": expected},
                {"pointer": "/note", "message": expected},
            ])
        ),
        "{envelope}"
    );
    // No approval request exists, nothing ran, and no write was attempted.
    assert!(server.approvals.pending(None, 10).await.unwrap().is_empty());
    assert_eq!(server.closed.load(Ordering::SeqCst), 0);
    assert!(read_records(&log).unwrap().is_empty());
    // Declared arguments alone, the same call is blocked for approval as ever.
    let blocked = client.call_tool(close("T-1002", None)).await.unwrap();
    assert_eq!(structured(&blocked)["status"], "blocked");
}
