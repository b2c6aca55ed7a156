use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

#[derive(Debug)]
enum LookupError {
    Missing,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Look up.
    #[mcp_tool(read_only)]
    fn lookup(&self) -> Result<Found, LookupError> {
        Err(LookupError::Missing)
    }
}

fn main() {}
