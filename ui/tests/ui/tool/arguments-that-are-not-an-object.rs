// MCP sends a tool's arguments as a JSON object (`inputSchema` has an object root): a
// parameter typed as a number, a string, a sequence or a tuple can never be the arguments,
// nor an extractor. Each is an error at its parameter's type.
use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Done {
    ok: bool,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// A number.
    #[mcp_tool(read_only)]
    fn by_id(&self, args: u64) -> Done {
        Done { ok: args > 0 }
    }

    /// A string.
    #[mcp_tool(read_only)]
    fn by_name(&self, args: String) -> Done {
        Done { ok: !args.is_empty() }
    }

    /// A sequence.
    #[mcp_tool(read_only)]
    fn by_tags(&self, args: Vec<String>) -> Done {
        Done { ok: !args.is_empty() }
    }

    /// A tuple.
    #[mcp_tool(read_only)]
    fn by_pair(&self, args: (u8, u8)) -> Done {
        Done { ok: args.0 < args.1 }
    }
}

fn main() {}
