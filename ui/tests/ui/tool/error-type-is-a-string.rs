use mcp_result::{mcp_tools, AuditEventId, Status, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct NoteAdded {
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
}

#[derive(Clone)]
struct Server;

// The usual rmcp spelling: text as the error.
#[mcp_tools]
impl Server {
    /// Looks up.
    #[mcp_tool(read_only)]
    fn lookup(&self) -> Result<Found, String> {
        Err("no such ticket".to_owned())
    }

    /// Looks up, with a static message.
    #[mcp_tool(read_only)]
    fn lookup_static(&self) -> Result<Found, &'static str> {
        Err("no such ticket")
    }

    /// Adds a note: a write tool gets the same check.
    #[mcp_tool]
    fn add_note(&self) -> Result<NoteAdded, String> {
        Err("ticket is closed".to_owned())
    }
}

fn main() {}
