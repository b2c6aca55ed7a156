// Two `#[mcp_tools]` blocks on one server type (one in another module): both compile, and the
// server serves the union of their tools over a real transport.
use mcp_result::{
    mcp_handler, mcp_tools,
    rmcp::{model::CallToolRequestParams, ServerHandler, ServiceExt},
};

#[derive(Clone)]
struct Desk;

#[mcp_tools(include(billing))]
impl Desk {
    /// Lists ticket ids.
    #[mcp_tool(read_only)]
    fn tickets(&self) -> Vec<String> {
        vec!["T-1".into()]
    }
}

mod billing {
    #[mcp_result::mcp_tools(block = billing)]
    impl super::Desk {
        /// Lists invoice numbers.
        #[mcp_tool(read_only)]
        fn invoices(&self) -> Vec<u32> {
            vec![7]
        }
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

#[tokio::main]
async fn main() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = Desk.serve(server_io).await.expect("serve");
        let _ = running.waiting().await;
    });
    let client = ().serve(client_io).await.expect("initialize");
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    assert_eq!(names, ["tickets", "invoices"]);
    let invoices = client
        .call_tool(CallToolRequestParams::new("invoices"))
        .await
        .expect("tools/call");
    assert_eq!(invoices.structured_content, Some(serde_json::json!({"result": [7]})));
    client.cancel().await.expect("close");
}
