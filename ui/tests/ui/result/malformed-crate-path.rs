use mcp_result::{mcp_handler, mcp_tools, rmcp::ServerHandler, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[mcp_result(crate = mcp_result)]
struct Unquoted {
    total: u32,
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[mcp_result(crate = "not a path", krate = "::mcp_result")]
struct NotAPath {
    total: u32,
}

#[derive(Clone)]
struct Server;

#[mcp_tools(crate = "::mcp_result<T>")]
impl Server {
    /// Count.
    #[mcp_tool(read_only)]
    fn count(&self) -> Unquoted {
        let _ = NotAPath { total: 0 };
        Unquoted { total: 0 }
    }
}

#[mcp_handler(crate)]
impl ServerHandler for Server {}

fn main() {}
