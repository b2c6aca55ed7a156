//! The test harness for users' own tests (issue 20, feature `testing`): `TestServer` serves a
//! server in-process to rmcp's real client over an in-memory duplex stream, checks every
//! answer (each result against its tool's `outputSchema`, `tools/list` against the host
//! lint) and hands the test the client view; `assert_result_snapshot!` and
//! `assert_tools_snapshot!` snapshot with `insta` (the snapshots are in
//! `tests/snapshots/harness__*.snap`).

use mcp_result::{
    assert_result_snapshot, assert_tools_snapshot, mcp_handler, mcp_tools,
    rmcp::{
        model::{
            CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
            PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
        },
        service::RequestContext,
        ErrorData, RoleServer, ServerHandler,
    },
    testing::TestServer,
    view::DisplayOptions,
    ErrorKind, ResultExt, ToolError, ToolResult, WriteReceipt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Ticket search results.
#[derive(Serialize, Deserialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Found {total} tickets")]
pub struct TicketSearch {
    /// How many tickets matched.
    pub total: usize,
    pub ids: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to look for.
    pub query: String,
}

/// A ticket was closed.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
pub struct TicketClosed {
    pub ticket_id: String,
    #[serde(flatten)]
    pub receipt: WriteReceipt,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CloseArgs {
    pub ticket_id: String,
}

#[derive(Clone)]
pub struct Desk;

#[mcp_tools]
impl Desk {
    /// Search support tickets by words in their title.
    #[mcp_tool(read_only)]
    async fn search_tickets(&self, args: SearchArgs) -> Result<TicketSearch, ToolError> {
        if args.query.is_empty() {
            return Err(ToolError::not_found("Nothing to search for: give a query."));
        }
        Ok(TicketSearch {
            total: 2,
            ids: vec!["T-1".into(), "T-2".into()],
        })
    }

    /// Close a ticket.
    #[mcp_tool(idempotent)]
    async fn close_ticket(&self, args: CloseArgs) -> Result<TicketClosed, ToolError> {
        if args.ticket_id != "T-1" {
            std::fs::metadata(format!("/nonexistent/{}", args.ticket_id))
                .not_found(format!("No ticket `{}`.", args.ticket_id))?;
        }
        Ok(TicketClosed {
            ticket_id: args.ticket_id,
            receipt: WriteReceipt::succeeded(),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

#[tokio::test]
async fn a_call_returns_the_checked_client_view() {
    let desk = TestServer::start(Desk).await;
    let view = desk
        .call("search_tickets", json!({"query": "printer"}))
        .await;
    let found: TicketSearch = view.structured().unwrap();
    assert_eq!(found.ids, ["T-1", "T-2"]);
    assert!(view
        .model_context()
        .to_text()
        .starts_with("Found 2 tickets"));
    assert!(view
        .user_display(&DisplayOptions::budget(500))
        .to_text()
        .contains("Found 2 tickets"));
    assert!(view.error().is_none());

    let missing = desk.call("search_tickets", json!({"query": ""})).await;
    let error = missing.error().expect("an isError result");
    assert_eq!(
        error.details.as_ref().unwrap().kind(),
        Some(ErrorKind::NotFound)
    );
    desk.close().await;
}

#[tokio::test]
async fn results_and_the_tools_list_snapshot_with_volatile_ids_replaced() {
    let desk = TestServer::start(Desk).await;
    assert_tools_snapshot!(desk);
    let closed = desk.call("close_ticket", json!({"ticketId": "T-1"})).await;
    assert_result_snapshot!("close_ticket_succeeded", closed);
    let missing = desk
        .call("close_ticket", json!({"ticketId": "T-404"}))
        .await;
    assert_result_snapshot!("close_ticket_not_found", missing);
    desk.close().await;
}

#[tokio::test]
async fn a_json_rpc_error_is_an_err_of_try_call() {
    let desk = TestServer::start(Desk).await;
    let error = desk.try_call("no_such_tool", json!({})).await.unwrap_err();
    assert!(error.to_string().contains("-32602") || error.to_string().contains("unknown tool"));
    desk.close().await;
}

/// A hand-written rmcp server whose result breaks its own `outputSchema`, and whose tool
/// name some hosts reject: what the harness exists to catch.
#[derive(Clone)]
struct Lying {
    name: &'static str,
}

impl ServerHandler for Lying {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {"total": {"type": "integer"}},
                            "required": ["total"]});
        let input = json!({"type": "object", "properties": {}});
        let tool = Tool::new(
            self.name,
            "Counts tickets.",
            std::sync::Arc::new(input.as_object().unwrap().clone()),
        )
        .with_raw_output_schema(std::sync::Arc::new(schema.as_object().unwrap().clone()));
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut result = CallToolResult::success(vec![ContentBlock::text("two")]);
        result.structured_content = Some(json!({"total": "two"}));
        Ok(result.into())
    }
}

#[tokio::test]
#[should_panic(
    expected = "tool `count_tickets`: structuredContent breaks the advertised outputSchema"
)]
async fn a_result_that_breaks_its_output_schema_fails_the_test() {
    let server = TestServer::start(Lying {
        name: "count_tickets",
    })
    .await;
    server.call("count_tickets", json!({})).await;
}

#[tokio::test]
#[should_panic(expected = "host finding")]
async fn a_tools_list_a_host_rejects_fails_the_test() {
    TestServer::start(Lying {
        name: "tickets.count",
    })
    .await;
}
