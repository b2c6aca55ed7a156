//! Moving an rmcp server to mcp-result tool by tool, several `#[mcp_tools]` blocks on one
//! server type, and generic server types (issue 20), each served over a real transport (a
//! duplex stream between the server and rmcp's client).
//!
//! - One server serves three rmcp `#[tool_router]` tools and three `#[mcp_tools]` tools
//!   through `#[mcp_handler(rmcp_router)]`: `tools/list` gives all six, `tools/call` reaches
//!   each; a name in both is refused at the handshake, naming both tools.
//! - A server whose tools live in three blocks serves the union; a name in two blocks stops
//!   the server, naming both tools and both blocks.
//! - A generic server serves each concrete type with its own registry.

use std::sync::Arc;

use mcp_result::{
    mcp_handler, mcp_tools,
    rmcp::{
        handler::server::{router::tool::ToolRouter, wrapper::Parameters},
        model::{CallToolRequestParams, CallToolResult, ErrorCode},
        service::{RoleClient, RunningService},
        tool, tool_router, ErrorData, ServerHandler, ServiceError, ServiceExt,
    },
    AuditEventId, Status, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

type Client = RunningService<RoleClient, ()>;

/// rmcp's client connected to `server` over a duplex stream.
async fn connect<S: ServerHandler>(server: S) -> Client {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("initialize")
}

async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    let arguments = arguments.as_object().expect("arguments object").clone();
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
        .await
        .unwrap_or_else(|error| panic!("tools/call {name}: {error}"))
}

async fn names(client: &Client) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect()
}

fn only_text(result: &CallToolResult) -> String {
    assert_eq!(result.content.len(), 1, "{result:?}");
    result.content[0]
        .as_text()
        .expect("a text block")
        .text
        .clone()
}

// ---------------------------------------------------------------------------------------
// A desk in the middle of its move: three tools still rmcp's, three moved.

#[derive(Clone, Default)]
struct Desk {
    notes: Arc<std::sync::Mutex<Vec<String>>>,
}

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// What to say back.
    text: String,
}

#[derive(Deserialize, JsonSchema)]
struct SumArgs {
    a: i64,
    b: i64,
}

#[tool_router]
impl Desk {
    /// Answers `pong`.
    #[tool]
    fn ping(&self) -> String {
        "pong".to_owned()
    }

    /// Says the text back.
    #[tool]
    async fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        args.text
    }

    /// Adds two numbers.
    #[tool]
    fn sum(&self, Parameters(args): Parameters<SumArgs>) -> Result<CallToolResult, ErrorData> {
        Ok(CallToolResult::structured(json!({"sum": args.a + args.b})))
    }
}

/// Tickets found.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Found {total} tickets")]
struct Found {
    total: usize,
    ids: Vec<String>,
}

/// One ticket.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Ticket {id}: {title}")]
struct Ticket {
    id: String,
    title: String,
}

/// A note was added.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Added note {note_id}")]
struct NoteAdded {
    note_id: String,
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
}

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    query: String,
}

#[derive(Deserialize, JsonSchema)]
struct TicketArgs {
    id: String,
}

#[derive(Deserialize, JsonSchema)]
struct NoteArgs {
    ticket_id: String,
    body: String,
}

#[mcp_tools]
impl Desk {
    /// Searches tickets.
    #[mcp_tool(read_only)]
    fn search_tickets(&self, args: SearchArgs) -> Found {
        let ids: Vec<String> = ["T-1", "T-2"]
            .iter()
            .filter(|_| !args.query.is_empty())
            .map(|id| (*id).to_owned())
            .collect();
        Found {
            total: ids.len(),
            ids,
        }
    }

    /// Reads one ticket.
    #[mcp_tool(read_only)]
    async fn get_ticket(&self, args: TicketArgs) -> Result<Ticket, ToolError> {
        match args.id.as_str() {
            "T-1" => Ok(Ticket {
                id: args.id,
                title: "Printer on fire".into(),
            }),
            _ => Err(ToolError::not_found(format!("No ticket {}.", args.id))),
        }
    }

    /// Adds a note to a ticket.
    #[mcp_tool]
    fn add_note(&self, args: NoteArgs) -> NoteAdded {
        let mut notes = self.notes.lock().unwrap();
        notes.push(args.body);
        NoteAdded {
            note_id: format!("{}-N{}", args.ticket_id, notes.len()),
            status: Status::Succeeded,
            retry_safe: false,
            audit_event_id: AuditEventId::new("set by the framework"),
        }
    }
}

#[mcp_handler(rmcp_router)]
impl ServerHandler for Desk {}

#[tokio::test]
async fn three_rmcp_tools_and_three_mcp_result_tools_are_listed_and_answered() {
    let client = connect(Desk::default()).await;
    // The `#[mcp_tools]` tools in declaration order, then the router's by name.
    assert_eq!(
        names(&client).await,
        [
            "search_tickets",
            "get_ticket",
            "add_note",
            "echo",
            "ping",
            "sum"
        ]
    );
    let tools = client.list_all_tools().await.unwrap();
    let moved = tools.iter().find(|t| t.name == "search_tickets").unwrap();
    assert!(moved.output_schema.is_some(), "{moved:?}");
    let rmcp = tools.iter().find(|t| t.name == "echo").unwrap();
    assert_eq!(rmcp.description.as_deref(), Some("Says the text back."));

    // rmcp's tools answer as rmcp answers them.
    assert_eq!(only_text(&call(&client, "ping", json!({})).await), "pong");
    assert_eq!(
        only_text(&call(&client, "echo", json!({"text": "hello"})).await),
        "hello"
    );
    let sum = call(&client, "sum", json!({"a": 2, "b": 40})).await;
    assert_eq!(sum.structured_content, Some(json!({"sum": 42})));

    // The moved tools answer with the mcp-result contract.
    let found = call(&client, "search_tickets", json!({"query": "printer"})).await;
    assert_eq!(found.is_error, Some(false));
    assert_eq!(
        found.structured_content,
        Some(json!({"total": 2, "ids": ["T-1", "T-2"]}))
    );
    assert_eq!(found.content[0].as_text().unwrap().text, "Found 2 tickets");
    let ticket = call(&client, "get_ticket", json!({"id": "T-1"})).await;
    assert_eq!(
        ticket.structured_content,
        Some(json!({"id": "T-1", "title": "Printer on fire"}))
    );
    let missing = call(&client, "get_ticket", json!({"id": "T-9"})).await;
    assert_eq!(missing.is_error, Some(true));
    assert_eq!(
        missing.structured_content.unwrap()["errorKind"],
        "not_found"
    );
    let note = call(
        &client,
        "add_note",
        json!({"ticket_id": "T-1", "body": "Tried"}),
    )
    .await;
    let note = note.structured_content.unwrap();
    assert_eq!(
        (&note["noteId"], &note["status"], &note["retrySafe"]),
        (&json!("T-1-N1"), &json!("succeeded"), &json!(false))
    );
    assert_ne!(note["auditEventId"], "set by the framework", "{note}");

    // mcp-result's argument checks apply to its tools, not to the router's.
    let bad = call(&client, "get_ticket", json!({})).await;
    assert_eq!(
        bad.structured_content.unwrap()["errorKind"],
        "validation_error"
    );

    // A name neither has is a protocol error, as always.
    let unknown = client
        .call_tool(CallToolRequestParams::new("nope"))
        .await
        .unwrap_err();
    let ServiceError::McpError(error) = unknown else {
        panic!("{unknown:?}")
    };
    assert_eq!(
        (error.code, error.message.as_ref()),
        (ErrorCode::INVALID_PARAMS, "unknown tool: nope")
    );
    client.cancel().await.unwrap();
}

// ---------------------------------------------------------------------------------------
// A tool moved without leaving the router: refused when the server starts.

#[derive(Clone)]
struct Halfway {
    legacy: ToolRouter<Self>,
}

#[tool_router(router = legacy_tools)]
impl Halfway {
    /// Searches tickets, the old way.
    #[tool]
    fn search_tickets(&self) -> String {
        "old".to_owned()
    }

    /// Answers `pong`.
    #[tool]
    fn ping(&self) -> String {
        "pong".to_owned()
    }
}

#[mcp_tools]
impl Halfway {
    /// Searches tickets.
    #[mcp_tool(read_only, name = "search_tickets")]
    fn find_tickets(&self, args: SearchArgs) -> Found {
        Found {
            total: 0,
            ids: vec![args.query],
        }
    }
}

#[mcp_handler(rmcp_router = self.legacy)]
impl ServerHandler for Halfway {}

const CLASH: &str = "tool `search_tickets`: served twice, by `Halfway::find_tickets` \
                     (`#[mcp_tools]`) and by the rmcp router `self.legacy`: tool names are \
                     unique within a server; once a tool moves to `#[mcp_tools]`, delete its \
                     `#[tool]` method from the router (or give one of the two another name)";

#[tokio::test]
async fn a_name_in_both_sets_is_refused_when_the_server_starts_naming_both_tools() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(mcp_result::serve(
        Halfway {
            legacy: Halfway::legacy_tools(),
        },
        server_io,
    ));
    // The client's handshake gets the reason...
    let Err(refused) = ().serve(client_io).await else {
        panic!("initialize accepted")
    };
    assert!(refused.to_string().contains(CLASH), "{refused}");
    // ...and the server stops with it (a JSON-RPC internal error, as for any broken tool).
    let stopped = server.await.unwrap().unwrap_err();
    assert_eq!(
        stopped.to_string(),
        format!("initialize failed: -32603: {CLASH}")
    );
}

// ---------------------------------------------------------------------------------------
// One server, three `#[mcp_tools]` blocks (one in another module).

#[derive(Clone)]
struct Shop;

/// The shop's state.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "The shop is {state}")]
struct ShopStatus {
    state: String,
}

#[mcp_tools(include(billing, catalog))]
impl Shop {
    /// Says whether the shop is open.
    #[mcp_tool(read_only)]
    fn status(&self) -> ShopStatus {
        ShopStatus {
            state: "open".into(),
        }
    }
}

/// An invoice.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Invoice {number}: {cents} cents")]
struct Invoice {
    number: u32,
    cents: u64,
}

#[derive(Deserialize, JsonSchema)]
struct InvoiceArgs {
    number: u32,
}

#[mcp_tools(block = billing)]
impl Shop {
    /// Reads an invoice.
    #[mcp_tool(read_only)]
    fn invoice(&self, args: InvoiceArgs) -> Invoice {
        Invoice {
            number: args.number,
            cents: 1250,
        }
    }

    /// Counts unpaid invoices.
    #[mcp_tool(read_only)]
    fn unpaid(&self) -> Vec<u32> {
        vec![7, 9]
    }
}

mod catalog {
    use mcp_result::mcp_tools;

    #[mcp_tools(block = catalog)]
    impl super::Shop {
        /// Lists the products.
        #[mcp_tool(read_only)]
        fn products(&self) -> Vec<String> {
            vec!["kettle".into()]
        }
    }
}

#[mcp_handler]
impl ServerHandler for Shop {}

#[tokio::test]
async fn several_blocks_serve_the_union_of_their_tools() {
    let client = connect(Shop).await;
    // Block by block: the main block's, then each included block's in `include` order.
    assert_eq!(
        names(&client).await,
        ["status", "invoice", "unpaid", "products"]
    );
    let status = call(&client, "status", json!({})).await;
    assert_eq!(status.structured_content, Some(json!({"state": "open"})));
    let invoice = call(&client, "invoice", json!({"number": 3})).await;
    assert_eq!(
        invoice.structured_content,
        Some(json!({"number": 3, "cents": 1250}))
    );
    let unpaid = call(&client, "unpaid", json!({})).await;
    assert_eq!(unpaid.structured_content, Some(json!({"result": [7, 9]})));
    let products = call(&client, "products", json!({})).await;
    assert_eq!(
        products.structured_content,
        Some(json!({"result": ["kettle"]}))
    );
    client.cancel().await.unwrap();
}

// Two blocks that name a tool alike: the server does not start.

#[derive(Clone)]
struct Twice;

#[mcp_tools(include(archive))]
impl Twice {
    /// Searches open tickets.
    #[mcp_tool(read_only)]
    fn search(&self) -> Vec<String> {
        Vec::new()
    }
}

#[mcp_tools(block = archive)]
impl Twice {
    /// Searches closed tickets.
    #[mcp_tool(read_only, name = "search")]
    fn search_archive(&self) -> Vec<String> {
        Vec::new()
    }
}

#[mcp_handler]
impl ServerHandler for Twice {}

#[tokio::test]
async fn a_tool_name_in_two_blocks_stops_the_server_naming_both_tools_and_blocks() {
    let (server_io, _client_io) = tokio::io::duplex(1 << 16);
    let error = mcp_result::serve(Twice, server_io).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `search`: defined twice, by `Twice::search` (`#[mcp_tools]`) and by \
         `Twice::search_archive` (`#[mcp_tools(block = archive)]`): tool names are unique \
         within a server; rename one with `#[mcp_tool(name = \"...\")]`"
    );
}

// ---------------------------------------------------------------------------------------
// A generic server: one registry per concrete type.

trait Store: Clone + Send + Sync + 'static {
    fn name(&self) -> &'static str;
    fn rows(&self) -> Vec<String>;
}

#[derive(Clone)]
struct Memory;

impl Store for Memory {
    fn name(&self) -> &'static str {
        "memory"
    }
    fn rows(&self) -> Vec<String> {
        vec!["a".into(), "b".into()]
    }
}

#[derive(Clone)]
struct Files(Arc<Vec<String>>);

impl Store for Files {
    fn name(&self) -> &'static str {
        "files"
    }
    fn rows(&self) -> Vec<String> {
        self.0.to_vec()
    }
}

#[derive(Clone)]
struct Records<Db: Store> {
    db: Db,
}

/// Rows of the store.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "{count} rows from {store}")]
struct Rows {
    store: String,
    count: usize,
    rows: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
struct RowArgs {
    /// Keep rows starting with this.
    prefix: String,
}

#[mcp_tools(include(admin))]
impl<Db: Store> Records<Db> {
    /// Lists the rows starting with a prefix.
    #[mcp_tool(read_only)]
    async fn rows(&self, args: RowArgs) -> Result<Rows, ToolError> {
        let rows: Vec<String> = self
            .db
            .rows()
            .into_iter()
            .filter(|row| row.starts_with(&args.prefix))
            .collect();
        Ok(Rows {
            store: self.db.name().into(),
            count: rows.len(),
            rows,
        })
    }
}

#[mcp_tools(block = admin)]
impl<Db> Records<Db>
where
    Db: Store,
{
    /// Names the store.
    #[mcp_tool(read_only)]
    fn store_name(&self) -> String {
        self.db.name().to_owned()
    }
}

#[mcp_handler]
impl<Db: Store> ServerHandler for Records<Db> {}

#[tokio::test]
async fn a_generic_server_serves_each_concrete_type() {
    let memory = connect(Records { db: Memory }).await;
    let files = connect(Records {
        db: Files(Arc::new(vec!["x1".into(), "y".into()])),
    })
    .await;
    for client in [&memory, &files] {
        assert_eq!(names(client).await, ["rows", "store_name"]);
    }
    let rows = call(&memory, "rows", json!({"prefix": ""})).await;
    assert_eq!(
        rows.structured_content,
        Some(json!({"store": "memory", "count": 2, "rows": ["a", "b"]}))
    );
    let rows = call(&files, "rows", json!({"prefix": "x"})).await;
    assert_eq!(
        rows.structured_content,
        Some(json!({"store": "files", "count": 1, "rows": ["x1"]}))
    );
    assert_eq!(rows.content[0].as_text().unwrap().text, "1 rows from files");
    let name = call(&files, "store_name", json!({})).await;
    assert_eq!(name.structured_content, Some(json!({"result": "files"})));
    // Each concrete type has its own registry, built once.
    let first = <Records<Memory> as mcp_result::ToolSet>::tool_registry().unwrap();
    let again = <Records<Memory> as mcp_result::ToolSet>::tool_registry().unwrap();
    let other = <Records<Files> as mcp_result::ToolSet>::tool_registry().unwrap();
    assert!(std::ptr::eq(first, again));
    assert!(!std::ptr::addr_eq(first, other));
    memory.cancel().await.unwrap();
    files.cancel().await.unwrap();
}
