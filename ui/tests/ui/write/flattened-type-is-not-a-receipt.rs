use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

/// Where a note went: flattened, but no write receipt.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct NotePlace {
    ticket_id: String,
}

/// A note was added.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct NoteAdded {
    note_id: String,
    #[serde(flatten)]
    place: NotePlace,
}

/// Two flattened fields, neither a receipt.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct NoteMoved {
    #[serde(flatten)]
    from: NotePlace,
    #[serde(flatten)]
    extra: std::collections::BTreeMap<String, String>,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Adds a note.
    #[mcp_tool]
    fn add_note(&self) -> NoteAdded {
        unimplemented!()
    }

    /// Moves a note.
    #[mcp_tool]
    fn move_note(&self) -> NoteMoved {
        unimplemented!()
    }
}

fn main() {}
