use mcp_result::{mcp_tools, AuditEventId, Status, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

/// A note was added.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct NoteAdded {
    note_id: String,
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
    requires_human_review: String,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Adds a note.
    #[mcp_tool(idempotent)]
    fn add_note(&self) -> NoteAdded {
        unimplemented!()
    }
}

fn main() {
    let _ = (Status::Succeeded, AuditEventId::new(""));
}
