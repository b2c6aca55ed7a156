//! State is one value per served instance, handed in where the server is served
//! (`mcp_result::State`): two instances of one server type share no approvals or keys unless
//! handed the same stores, a store handed in is the one the calls use, and a user's own
//! extractor reads its values (`ToolCall::state`). A server written the way the guide
//! teaches, served by `TestServer` (rmcp's client over an in-memory duplex).

use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Arc,
};

use mcp_result::{
    approval::MemoryApprovals,
    extract::{via, FromToolCall, ToolCall},
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    testing::TestServer,
    State, Status, ToolError, ToolResult, WriteReceipt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A connection pool of the user's, handed in with `State::with`.
#[derive(Clone)]
struct Pool {
    name: &'static str,
    queries: Arc<AtomicUsize>,
}

/// The user's extractor: the pool of the instance that serves the call.
struct Db(Pool);

impl FromToolCall<via::Extractor> for Db {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        call.state()
            .get::<Pool>()
            .cloned()
            .map(Db)
            .ok_or_else(|| ToolError::internal_logged("no `Pool` in this instance's State"))
    }
}

/// Which database answered.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Answered {
    database: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CloseArgs {
    ticket_id: String,
}

/// A closed ticket.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Closed {
    ticket_id: String,
    #[serde(flatten)]
    receipt: WriteReceipt,
}

#[derive(Clone, Default)]
struct Desk {
    closed: Arc<AtomicUsize>,
}

#[mcp_tools]
impl Desk {
    /// Says which database this instance was handed.
    #[mcp_tool(read_only)]
    fn which_database(&self, db: Db) -> Answered {
        db.0.queries.fetch_add(1, Ordering::SeqCst);
        Answered {
            database: db.0.name.to_owned(),
        }
    }

    /// Closes a ticket, once a human approved.
    #[mcp_tool(approval = "Close ticket {ticketId}")]
    fn close_ticket(&self, args: CloseArgs) -> Closed {
        self.closed.fetch_add(1, Ordering::SeqCst);
        Closed {
            ticket_id: args.ticket_id,
            receipt: WriteReceipt::succeeded(),
        }
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

/// `structuredContent` of a result, success or error.
fn structured(view: &mcp_result::view::ResultView) -> &serde_json::Value {
    view.result()
        .structured_content
        .as_ref()
        .expect("structuredContent")
}

fn pool(name: &'static str) -> Pool {
    Pool {
        name,
        queries: Arc::default(),
    }
}

#[tokio::test]
async fn an_extractor_of_the_users_reads_the_value_its_instance_was_handed() {
    let (a, b) = (pool("tickets-a"), pool("tickets-b"));
    let first =
        TestServer::start_with_state(Desk::default(), &[], State::new().with(a.clone())).await;
    let second =
        TestServer::start_with_state(Desk::default(), &[], State::new().with(b.clone())).await;
    let answer = first.call("which_database", json!({})).await;
    assert_eq!(structured(&answer)["database"], "tickets-a");
    let answer = second.call("which_database", json!({})).await;
    assert_eq!(structured(&answer)["database"], "tickets-b");
    assert_eq!(
        (
            a.queries.load(Ordering::SeqCst),
            b.queries.load(Ordering::SeqCst)
        ),
        (1, 1)
    );
}

#[tokio::test]
async fn an_instance_without_the_value_answers_an_internal_error_and_runs_nothing() {
    let server = TestServer::start_with_state(Desk::default(), &[], State::new()).await;
    let answer = server.call("which_database", json!({})).await;
    assert!(answer.is_error());
    assert_eq!(structured(&answer)["errorKind"], "internal");
}

#[tokio::test]
async fn two_instances_of_one_server_type_share_no_approvals() {
    let desk = Desk::default();
    let first = TestServer::start_for(desk.clone(), &[]).await;
    let second = TestServer::start_for(desk.clone(), &[]).await;
    // Asked on the first instance (the client cannot be asked: out of band).
    let blocked = first.call("close_ticket", json!({"ticketId": "T-1"})).await;
    let blocked = structured(&blocked);
    assert_eq!(blocked["status"], "blocked");
    let request = blocked["approvalRequestId"].as_str().unwrap().to_owned();
    // The second instance has its own approvals: the id names nothing there.
    let elsewhere = second
        .call(
            "close_ticket",
            json!({"ticketId": "T-1", "approvalRequestId": request}),
        )
        .await;
    assert!(elsewhere.is_error());
    let elsewhere = structured(&elsewhere);
    assert_eq!(elsewhere["errorKind"], "conflict");
    assert_eq!(elsewhere["message"], "No such approval request.");
    assert_eq!(desk.closed.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn an_approval_store_handed_in_is_the_one_the_calls_use() {
    let approvals = MemoryApprovals::default();
    let desk = Desk::default();
    let state = State::new().with_approval_store(Arc::new(approvals.clone()));
    let server = TestServer::start_with_state(desk.clone(), &[], state).await;
    let blocked = server
        .call("close_ticket", json!({"ticketId": "T-2"}))
        .await;
    let request = structured(&blocked)["approvalRequestId"]
        .as_str()
        .unwrap()
        .to_owned();
    approvals.approve(&request, "alice").unwrap();
    let done = server
        .call(
            "close_ticket",
            json!({"ticketId": "T-2", "approvalRequestId": request}),
        )
        .await;
    assert!(!done.is_error(), "{done:?}");
    assert_eq!(structured(&done)["status"], Status::Succeeded.as_str());
    assert_eq!(desk.closed.load(Ordering::SeqCst), 1);
}
