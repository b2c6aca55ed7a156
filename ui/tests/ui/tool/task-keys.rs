use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// A task of an unknown kind.
    #[mcp_tool(read_only, task = "always")]
    fn lookup(&self) -> Found {
        Found { total: 0 }
    }

    /// A head start without a task.
    #[mcp_tool(read_only, task_after_ms = 300)]
    fn quick(&self) -> Found {
        Found { total: 0 }
    }

    /// A head start that is no number.
    #[mcp_tool(read_only, task = "optional", task_after_ms = -1)]
    fn negative(&self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
