use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

/// Holds a connection that is not `Clone`: every call runs on a clone of the server.
struct Server {
    connection: std::sync::Mutex<u32>,
}

#[mcp_tools]
impl Server {
    /// Look up.
    #[mcp_tool(read_only)]
    fn lookup(&self) -> Found {
        Found {
            total: *self.connection.lock().unwrap(),
        }
    }
}

fn main() {}
