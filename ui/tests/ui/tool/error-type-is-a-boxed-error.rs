use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

#[derive(Clone)]
struct Server;

// Not `Send + Sync`: no feature converts it (with the feature `anyhow`, a
// `Box<dyn Error + Send + Sync>` is an `internal` error).
#[mcp_tools]
impl Server {
    /// Looks up.
    #[mcp_tool(read_only)]
    async fn lookup(&self) -> Result<Found, Box<dyn std::error::Error>> {
        Err("upstream failed".into())
    }
}

fn main() {}
