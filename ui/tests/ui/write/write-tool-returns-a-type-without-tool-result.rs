use mcp_result::{mcp_tools, AuditEventId, Status, ToolError};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct NoteAdded {
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Adds a note.
    #[mcp_tool]
    async fn add_note(&self) -> Result<NoteAdded, ToolError> {
        unimplemented!()
    }
}

fn main() {}
