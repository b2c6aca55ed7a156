use mcp_result::{mcp_handler, mcp_tools, rmcp::ServerHandler, ToolError, ToolResult, WriteReceipt};
use schemars::JsonSchema;
use serde::Serialize;

/// The receipt alone carries the write contract.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct NoteAdded {
    note_id: String,
    #[serde(flatten)]
    receipt: WriteReceipt,
}

/// Part of a ticket, flattened beside the receipt: the contract comes from the one
/// flattened field that provides it.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TicketHead {
    ticket_id: String,
    title: String,
}

/// A ticket was closed.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct TicketClosed {
    #[serde(flatten)]
    head: TicketHead,
    #[serde(flatten)]
    receipt: WriteReceipt,
    external_id: Option<String>,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Adds a note.
    #[mcp_tool]
    fn add_note(&self) -> NoteAdded {
        NoteAdded { note_id: "N-1".into(), receipt: WriteReceipt::succeeded() }
    }

    /// Closes a ticket.
    #[mcp_tool(idempotent)]
    async fn close_ticket(&self) -> Result<TicketClosed, ToolError> {
        Ok(TicketClosed {
            head: TicketHead { ticket_id: "T-1".into(), title: "Printer".into() },
            receipt: WriteReceipt::succeeded(),
            external_id: None,
        })
    }
}

#[mcp_handler]
impl ServerHandler for Server {}

fn main() {}
