use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

mod app {
    /// A crate's own one-parameter `Result`, as `anyhow::Result<T>` is.
    pub type Result<T> = std::result::Result<T, String>;
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Parses a count.
    #[mcp_tool(read_only)]
    fn read(&self) -> Result<Found, std::num::ParseIntError> {
        "x".parse::<u32>().map(|total| Found { total })
    }

    /// Looks up.
    #[mcp_tool(read_only)]
    fn lookup(&self) -> app::Result<Found> {
        Err("no such ticket".to_owned())
    }
}

fn main() {}
