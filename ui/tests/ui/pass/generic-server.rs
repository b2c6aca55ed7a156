// A generic server type: `#[mcp_tools]` and `#[mcp_handler]` on `impl<Db: Store>`, with a
// named block, and a tool whose arguments name the parameter. Each concrete type serves.
use mcp_result::{
    mcp_handler, mcp_tools,
    rmcp::{model::CallToolRequestParams, ServerHandler, ServiceExt},
    ToolError,
};

trait Store: Clone + Send + Sync + 'static {
    type Key: serde::de::DeserializeOwned + schemars::JsonSchema + Send + 'static;
    fn get(&self, key: Self::Key) -> Option<String>;
}

#[derive(Clone)]
struct Numbers;

impl Store for Numbers {
    type Key = Lookup;
    fn get(&self, key: Lookup) -> Option<String> {
        (key.id < 10).then(|| format!("number {}", key.id))
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Lookup {
    id: u32,
}

#[derive(Clone)]
struct Server<Db: Store> {
    db: Db,
}

#[mcp_tools(include(health))]
impl<Db: Store> Server<Db> {
    /// Reads one record.
    #[mcp_tool(read_only)]
    async fn get(&self, key: Db::Key) -> Result<String, ToolError> {
        self.db
            .get(key)
            .ok_or_else(|| ToolError::not_found("No such record."))
    }
}

#[mcp_tools(block = health)]
impl<Db> Server<Db>
where
    Db: Store,
{
    /// Says whether the store answers.
    #[mcp_tool(read_only)]
    fn healthy(&self) -> bool {
        true
    }
}

#[mcp_handler]
impl<Db: Store> ServerHandler for Server<Db> {}

#[tokio::main]
async fn main() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = Server { db: Numbers }.serve(server_io).await.expect("serve");
        let _ = running.waiting().await;
    });
    let client = ().serve(client_io).await.expect("initialize");
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, ["get", "healthy"]);
    let found = client
        .call_tool(
            CallToolRequestParams::new("get")
                .with_arguments(serde_json::json!({"id": 3}).as_object().unwrap().clone()),
        )
        .await
        .expect("tools/call");
    assert_eq!(found.structured_content, Some(serde_json::json!({"result": "number 3"})));
    client.cancel().await.expect("close");
}
