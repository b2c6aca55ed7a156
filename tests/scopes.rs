//! Scopes declared where the tool is (`#[mcp_tool(scopes = "...")]`): advertised in the
//! tool's `_meta`, and checked before the arguments for a caller whose identity comes from
//! the server's own `ServerServices::caller_identity` (no HTTP status to answer with): a
//! `permission_denied` result naming `requiredScope`, and nothing runs. (Over HTTP the same
//! call is a `403 insufficient_scope`: tests/oauth.rs.) A server written the way the guide
//! teaches, served by `TestServer` (rmcp's client over an in-memory duplex).

use std::sync::{
    atomic::{AtomicUsize, Ordering},
    Arc,
};

use mcp_result::{
    mcp_handler, mcp_tools,
    rmcp::{service::RequestContext, RoleServer, ServerHandler},
    testing::TestServer,
    Identity, ServerServices, ToolError, ToolResult, WriteReceipt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TicketArgs {
    ticket_id: String,
}

/// A ticket.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Ticket {
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

/// The caller a gateway in front of this server vouched for: may read, may not write.
impl ServerServices for Desk {
    fn caller_identity(&self, _context: &RequestContext<RoleServer>) -> Option<Identity> {
        Some(Identity::new("reader").with_scopes(["tickets:read"]))
    }
}

#[mcp_tools(services)]
impl Desk {
    /// Reads a ticket.
    #[mcp_tool(read_only, scopes = "tickets:read")]
    fn get_ticket(&self, args: TicketArgs) -> Ticket {
        Ticket {
            ticket_id: args.ticket_id,
        }
    }

    /// Closes a ticket.
    #[mcp_tool(scopes = "tickets:read tickets:write")]
    fn close_ticket(&self, args: TicketArgs) -> Result<Closed, ToolError> {
        self.closed.fetch_add(1, Ordering::SeqCst);
        Ok(Closed {
            ticket_id: args.ticket_id,
            receipt: WriteReceipt::succeeded(),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

#[tokio::test]
async fn a_caller_without_a_declared_scope_is_refused_before_anything_runs() {
    let desk = Desk::default();
    let server = TestServer::start(desk.clone()).await;
    let meta = |name: &str| {
        server
            .tools()
            .iter()
            .find(|tool| tool.name == name)
            .and_then(|tool| tool.meta.clone())
            .map(|meta| meta.0.get("io.github.mcp-result/scopes").cloned())
    };
    assert_eq!(meta("get_ticket"), Some(Some(json!(["tickets:read"]))));
    assert_eq!(
        meta("close_ticket"),
        Some(Some(json!(["tickets:read", "tickets:write"])))
    );

    let read = server.call("get_ticket", json!({"ticketId": "T-1"})).await;
    assert!(!read.is_error());

    // Refused before the arguments are read: even invalid ones get the scope answer.
    for arguments in [json!({"ticketId": "T-1"}), json!({})] {
        let refused = server.call("close_ticket", arguments).await;
        let envelope = &refused.result().structured_content;
        let message = "Permission denied: this call needs the `tickets:write` scope.";
        assert_eq!(
            envelope.as_ref().unwrap(),
            &json!({
                "status": "failed",
                "errorKind": "permission_denied",
                "retrySafe": true,
                "message": message,
                "requiredScope": "tickets:write",
            })
        );
    }
    assert_eq!(desk.closed.load(Ordering::SeqCst), 0, "nothing ran");
}
