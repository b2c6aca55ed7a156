//! A human approval asked from inside a write tool, after its own checks (issue 51 item 7):
//! `approval::Approval`. A notes desk written the way the guide teaches: `put_note` writes
//! a new note without a question, and asks to overwrite an existing one, its text naming
//! what it resolved (the note and its current length). Over a real transport with rmcp's
//! client, with and without elicitation:
//!
//! - a new note is written at once, no request made;
//! - an overwrite is `blocked`, nothing written, the request holding the tool's text and
//!   the arguments (its secret withheld), the key given back, the outcome record naming the
//!   request; approved, the call again with the id overwrites once (`approvalId` in the
//!   result and the record), and a repeat is refused;
//! - a call whose question changed meanwhile (the note changed) is refused `conflict`
//!   with both texts, nothing written;
//! - a client that elicits is asked the tool's text during the call, and the write runs
//!   once on its yes;
//! - asking twice (`approval = ...` beside an `Approval`) and a read-only tool taking one
//!   stop the server, each with its message.

use std::{
    collections::BTreeMap,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
};

use mcp_result::{
    approval::{Approval, ApprovalStore, Decision, MemoryApprovals},
    audit::{read_records, AuditSink, JsonLinesSink, Phase},
    extract::WriteContext,
    mcp_handler, mcp_tools,
    rmcp::{
        model::{
            CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig,
            ElicitRequestParams, ElicitResult, ElicitationAction, ErrorData, Implementation,
        },
        service::{RequestContext, RoleClient, RunningService, ServiceExt},
        ClientHandler, ServerHandler,
    },
    AuditEventId, Secret, ServerServices, Status, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Clone)]
struct Notes {
    notes: Arc<Mutex<BTreeMap<String, String>>>,
    writes: Arc<AtomicUsize>,
    audit: JsonLinesSink,
    approvals: MemoryApprovals,
    /// Who calls, when a test says so (else the transport's identity).
    caller: Arc<Mutex<Option<mcp_result::Identity>>>,
}

impl ServerServices for Notes {
    fn caller_identity(
        &self,
        context: &RequestContext<mcp_result::rmcp::service::RoleServer>,
    ) -> Option<mcp_result::Identity> {
        let chosen = self.caller.lock().unwrap().clone();
        chosen.or_else(|| mcp_result::Identity::of(context))
    }
    fn audit_sink(&self, _state: &mcp_result::State) -> Arc<dyn AuditSink> {
        Arc::new(self.audit.clone())
    }
    fn approval_store(&self, _state: &mcp_result::State) -> Arc<dyn ApprovalStore> {
        Arc::new(self.approvals.clone())
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PutArgs {
    /// The note's name.
    name: String,
    /// Its text.
    body: String,
    /// Credentials of the notes' upstream.
    token: Option<Secret<String>>,
    /// The same for every retry of one write.
    request_id: Option<String>,
}

/// A note was written.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Note {name}: {status}")]
struct Put {
    name: String,
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
    /// The human approval an overwrite ran under.
    approval_id: Option<String>,
}

#[mcp_tools(services)]
impl Notes {
    /// Write a note; overwriting one needs a person's approval.
    #[mcp_tool(idempotency_key = "requestId")]
    async fn put_note(
        &self,
        args: PutArgs,
        mut approval: Approval,
        write: WriteContext,
    ) -> Result<Put, ToolError> {
        // Its own checks first: only an overwrite asks, naming what it would replace.
        // The credential and the key are the framework's and the upstream's concern here.
        let _ = (&args.token, &args.request_id);
        let existing = self.notes.lock().unwrap().get(&args.name).map(String::len);
        if let Some(length) = existing {
            approval
                .require(format!(
                    "Overwrite note {} ({length} characters)",
                    args.name
                ))
                .await?;
        }
        self.writes.fetch_add(1, Ordering::SeqCst);
        self.notes
            .lock()
            .unwrap()
            .insert(args.name.clone(), args.body);
        Ok(Put {
            name: args.name,
            status: Status::Succeeded,
            retry_safe: write.retry_safe(),
            audit_event_id: write.audit_event_id().clone(),
            // The framework writes the approval the overwrite ran under.
            approval_id: None,
        })
    }
}

#[mcp_handler]
impl ServerHandler for Notes {}

fn notes(name: &str) -> (Notes, std::path::PathBuf) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("approval_inside");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let notes = Notes {
        notes: Arc::default(),
        writes: Arc::default(),
        audit: JsonLinesSink::open(&path).unwrap(),
        approvals: MemoryApprovals::default(),
        caller: Arc::default(),
    };
    notes
        .notes
        .lock()
        .unwrap()
        .insert("a".into(), "milk".into());
    (notes, path)
}

async fn connect<C: ClientHandler>(server: Notes, client: C) -> RunningService<RoleClient, C> {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client.serve(client_io).await.expect("initialize")
}

fn put(arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new("put_note").with_arguments(arguments.as_object().unwrap().clone())
}

fn structured(result: &CallToolResult) -> Value {
    result.structured_content.clone().unwrap()
}

#[tokio::test]
async fn an_overwrite_asks_after_the_tools_checks_and_runs_once_under_its_approval() {
    let (server, log) = notes("overwrite");
    let client = connect(server.clone(), ()).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(
        tools[0].input_schema["properties"]["approvalRequestId"]["type"],
        "string"
    );

    // A new note: no question.
    let new = client
        .call_tool(put(json!({"name": "b", "body": "eggs"})))
        .await
        .unwrap();
    assert_eq!(structured(&new)["status"], "succeeded", "{new:?}");
    assert!(server.approvals.pending(None, 10).await.unwrap().is_empty());

    // An overwrite: blocked, nothing written, the key given back.
    let arguments = json!({"name": "a", "body": "oat milk", "token": "s3cret", "requestId": "k-1"});
    let blocked = client.call_tool(put(arguments.clone())).await.unwrap();
    let envelope = structured(&blocked);
    assert_eq!(
        (&envelope["status"], &envelope["requiresHumanReview"]),
        (&json!("blocked"), &json!(true)),
        "{envelope}"
    );
    let id = envelope["approvalRequestId"].as_str().unwrap().to_owned();
    assert_eq!(
        envelope["message"],
        format!(
            "This write needs a human approval: Overwrite note a (4 characters). Nothing ran. \
             Once it is approved, call again with approvalRequestId `{id}`."
        )
    );
    assert_eq!(server.notes.lock().unwrap()["a"], "milk");
    let request = server.approvals.get(&id).await.unwrap().unwrap();
    assert_eq!(request.text, "Overwrite note a (4 characters)");
    let review = request.review.unwrap();
    assert_eq!(
        review.arguments,
        json!({"name": "a", "body": "oat milk", "requestId": "k-1"})
    );
    assert_eq!(review.withheld, ["/token"]);
    let records = read_records(&log).unwrap();
    let outcome = records.last().unwrap();
    assert_eq!(
        (
            outcome.phase,
            outcome.status,
            outcome.approval_request_id.as_deref()
        ),
        (Phase::Outcome, Some(Status::Blocked), Some(id.as_str()))
    );

    // Pending: refused, nothing written.
    let mut again = arguments.clone();
    again["approvalRequestId"] = json!(id);
    let pending = client.call_tool(put(again.clone())).await.unwrap();
    assert_eq!(structured(&pending)["errorKind"], "conflict", "{pending:?}");

    // Approved by another person: the call again overwrites once, under that approval.
    let approval = server.approvals.approve(&id, "alice").unwrap();
    let ran = client.call_tool(put(again.clone())).await.unwrap();
    assert_eq!(structured(&ran)["status"], "succeeded", "{ran:?}");
    assert_eq!(structured(&ran)["approvalId"], approval.as_str());
    assert_eq!(server.notes.lock().unwrap()["a"], "oat milk");
    let records = read_records(&log).unwrap();
    let outcome = records.last().unwrap();
    assert_eq!(
        (
            outcome.approval_id.as_deref(),
            outcome.approver.as_deref(),
            outcome.approval_request_id.as_deref()
        ),
        (Some(approval.as_str()), Some("alice"), Some(id.as_str()))
    );
    assert!(matches!(
        server.approvals.get(&id).await.unwrap().unwrap().decision,
        Decision::Used { .. }
    ));
    // The same key again is the write's replay; another key with the used id is refused.
    let replay = client.call_tool(put(again.clone())).await.unwrap();
    assert_eq!(
        structured(&replay)["auditEventId"],
        structured(&ran)["auditEventId"]
    );
    // Another key with the used id: the note changed meanwhile, so the tool asks another
    // question, and the old approval does not apply.
    again["requestId"] = json!("k-2");
    let refused = client.call_tool(put(again)).await.unwrap();
    assert_eq!(
        structured(&refused)["message"],
        format!(
            "Approval request `{id}` was for another question (\"Overwrite note a (4 \
             characters)\"); this call now asks \"Overwrite note a (8 characters)\". Nothing \
             ran: call again without approvalRequestId to ask for it."
        )
    );
    assert_eq!(server.writes.load(Ordering::SeqCst), 2, "b once, a once");
}

#[tokio::test]
async fn another_caller_presenting_the_approval_is_told_it_does_not_exist() {
    let (server, _log) = notes("another");
    let client = connect(server.clone(), ()).await;
    let blocked = client
        .call_tool(put(json!({"name": "a", "body": "rye"})))
        .await
        .unwrap();
    let id = structured(&blocked)["approvalRequestId"]
        .as_str()
        .unwrap()
        .to_owned();
    server.approvals.approve(&id, "alice").unwrap();
    // mallory comes with the same arguments and the approved id: no such request for her.
    *server.caller.lock().unwrap() = Some(mcp_result::Identity::new("mallory"));
    let again = json!({"name": "a", "body": "rye", "approvalRequestId": id});
    let refused = client.call_tool(put(again.clone())).await.unwrap();
    assert_eq!(
        structured(&refused)["message"],
        "No such approval request.",
        "{refused:?}"
    );
    assert_eq!(server.notes.lock().unwrap()["a"], "milk");
    // Its caller still runs it, once.
    *server.caller.lock().unwrap() = None;
    let ran = client.call_tool(put(again)).await.unwrap();
    assert_eq!(structured(&ran)["status"], "succeeded", "{ran:?}");
    assert_eq!(server.writes.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn the_same_question_with_its_approval_runs_once_and_a_repeat_is_refused() {
    let (server, _log) = notes("repeat");
    let client = connect(server.clone(), ()).await;
    let blocked = client
        .call_tool(put(json!({"name": "a", "body": "rye"})))
        .await
        .unwrap();
    let id = structured(&blocked)["approvalRequestId"]
        .as_str()
        .unwrap()
        .to_owned();
    server.approvals.approve(&id, "alice").unwrap();
    let again = json!({"name": "a", "body": "rye", "approvalRequestId": id});
    let ran = client.call_tool(put(again.clone())).await.unwrap();
    assert_eq!(structured(&ran)["status"], "succeeded", "{ran:?}");
    // The note is now 3 characters: the same question would be another; write it back to
    // 4, so the question is the same, and the used approval is refused as used.
    server
        .notes
        .lock()
        .unwrap()
        .insert("a".into(), "milk".into());
    let repeat = client.call_tool(put(again)).await.unwrap();
    assert_eq!(
        structured(&repeat)["message"],
        "The approval was used already; each approval runs one write."
    );
    assert_eq!(server.notes.lock().unwrap()["a"], "milk");
    assert_eq!(server.writes.load(Ordering::SeqCst), 1);
}

/// A client whose user answers every elicitation yes, noting what it was asked.
#[derive(Clone, Default)]
struct Yes {
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Yes {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("elicitation-yes", "0.1.0"),
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
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": true})))
    }
}

#[tokio::test]
async fn a_client_that_elicits_is_asked_the_tools_question_during_the_call() {
    let (server, _log) = notes("elicit");
    let user = Yes::default();
    let client = connect(server.clone(), user.clone()).await;
    let ran = client
        .call_tool(put(json!({"name": "a", "body": "\u{202e}klim"})))
        .await
        .unwrap();
    assert_eq!(structured(&ran)["status"], "succeeded", "{ran:?}");
    assert!(structured(&ran)["approvalId"].is_string(), "{ran:?}");
    assert_eq!(
        *user.asked.lock().unwrap(),
        [
            "Approve this write? Overwrite note a (4 characters). Warning: /body holds \
          characters that change how text reads, shown as [U+…]"
        ]
    );
    assert_eq!(server.writes.load(Ordering::SeqCst), 1);
}

#[derive(Clone)]
struct Twice;

#[derive(Deserialize, JsonSchema)]
struct NameArgs {
    name: String,
}

#[mcp_tools]
impl Twice {
    /// Asks before and inside.
    #[mcp_tool(approval = "Drop {name}")]
    async fn drop_table(&self, args: NameArgs, mut approval: Approval) -> Result<Put, ToolError> {
        approval.require(args.name).await?;
        Err(ToolError::internal("never"))
    }
}

#[mcp_handler]
impl ServerHandler for Twice {}

#[derive(Clone)]
struct Reader;

#[mcp_tools]
impl Reader {
    /// Reads, and would ask.
    #[mcp_tool(read_only)]
    async fn look(&self, args: NameArgs, mut approval: Approval) -> Result<String, ToolError> {
        approval.require(args.name).await?;
        Ok(String::new())
    }
}

#[mcp_handler]
impl ServerHandler for Reader {}

/// The error the handshake with `server` failed with.
async fn refused<S: ServerHandler>(server: S) -> String {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    match ().serve(client_io).await {
        Ok(_) => panic!("initialize succeeded"),
        Err(error) => error.to_string(),
    }
}

#[tokio::test]
async fn asking_twice_or_from_a_read_only_tool_stops_the_server() {
    let twice = refused(Twice).await;
    assert!(
        twice.contains(
            "tool `drop_table`: it asks for a human approval twice: before it runs \
             (`approval = ...` or `requires_approval`) and from its body (an `Approval` \
             parameter): keep one"
        ),
        "{twice}"
    );
    let reader = refused(Reader).await;
    assert!(
        reader.contains(
            "tool `look`: a read-only tool takes no `Approval`: it changes nothing a person \
             would approve"
        ),
        "{reader}"
    );
}

#[derive(Clone)]
struct Telling;

#[derive(Deserialize, JsonSchema)]
struct TokenArgs {
    /// Credentials.
    token: Secret<String>,
}

#[mcp_tools]
impl Telling {
    /// Rotates a credential.
    #[mcp_tool(approval = "Rotate {token}")]
    async fn rotate(&self, args: TokenArgs, write: WriteContext) -> Result<Put, ToolError> {
        let _ = args.token;
        Ok(Put {
            name: String::new(),
            status: Status::Succeeded,
            retry_safe: false,
            audit_event_id: write.audit_event_id().clone(),
            approval_id: None,
        })
    }
}

#[mcp_handler]
impl ServerHandler for Telling {}

#[tokio::test]
async fn an_approval_text_naming_a_secret_stops_the_server() {
    let error = refused(Telling).await;
    assert!(
        error.contains(
            "tool `rotate`: the approval text names `{token}`, a secret argument \
             (`Secret<T>`): its approver would read only `[secret]`; name what the write does \
             with arguments a person may read"
        ),
        "{error}"
    );
}
