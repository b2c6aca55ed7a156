//! The tools: their arguments and results, and the `#[mcp_tools]` block that serves them.

use mcp_result::{
    content::Payload,
    content::{BlockAnnotations, Image},
    extract::WriteContext,
    mcp_handler, mcp_tools,
    pagination::{Page, Pager},
    rmcp::{
        model::{Implementation, ServerCapabilities, ServerConfig},
        ServerHandler,
    },
    Audience, AuditEventId, Secret, Status, ToolError, ToolResult, Tx,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::desk::{Helpdesk, Severity, Ticket};

// ---------------------------------------------------------------------------------------
// Tool arguments and results
// ---------------------------------------------------------------------------------------

/// Arguments of `search_tickets` (its `Pager` adds `cursor` and `pageSize`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchArgs {
    /// Words to look for in ticket titles and bodies (case-insensitive; all must match; `""`
    /// matches every ticket).
    pub query: String,
    /// Only tickets at or above this severity.
    #[serde(default)]
    pub min_severity: Option<Severity>,
}

/// One ticket that matched a search.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Ticket id, e.g. `T-1001`.
    pub id: String,
    pub title: String,
    pub severity: Severity,
    /// Where the full ticket lives.
    pub uri: String,
}

/// Arguments of `add_internal_note`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteArgs {
    /// The ticket to annotate, e.g. `T-1001`.
    pub ticket_id: String,
    /// The note text (1 to 2000 characters). Internal notes are never shown to the customer.
    #[schemars(length(min = 1, max = 2000))]
    pub body: String,
    /// An idempotency key you choose (1 to 255 characters): a retry with the same
    /// `requestId` returns the first call's result and adds no second note.
    #[serde(default)]
    pub request_id: Option<String>,
}

/// Who can see a note.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Staff only.
    Internal,
}

/// An internal note was added to a ticket.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(
    summary = "Added internal note {note_id} to {ticket_id} (status {status}, \
                         audit event {audit_event_id}). Retry only with the same requestId."
)]
pub struct NoteCreated {
    pub ticket_id: String,
    pub note_id: String,
    pub visibility: Visibility,
    pub status: Status,
    /// True when the call carried an idempotency key (a retry with it returns this result);
    /// false otherwise: a retry without one would add the note twice.
    pub retry_safe: bool,
    pub audit_event_id: AuditEventId,
}

/// A ticket was closed, under a human approval.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Closed {ticket_id} (approval {approval_id}).")]
pub struct TicketClosed {
    pub ticket_id: String,
    pub status: Status,
    pub retry_safe: bool,
    pub audit_event_id: AuditEventId,
    /// The human approval it ran under.
    pub approval_id: Option<String>,
}

/// A transcript was emailed.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Emailed the transcript to {recipient} (message {message_id}).")]
pub struct TranscriptSent {
    /// The mail upstream's message id.
    pub message_id: String,
    /// Who got it.
    pub recipient: String,
    pub status: Status,
    pub retry_safe: bool,
    pub audit_event_id: AuditEventId,
}

/// Names one ticket.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketArgs {
    /// The ticket id, e.g. `T-1001`.
    pub ticket_id: String,
}

/// One ticket.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "{id}: {title} (severity {severity}, {notes} internal notes)")]
pub struct TicketView {
    pub id: String,
    pub title: String,
    pub body: String,
    pub severity: Severity,
    pub locked: bool,
    /// Internal notes, oldest first.
    pub notes: Vec<String>,
}

/// Arguments of `lookup_customer`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerArgs {
    /// The customer id, e.g. `C-100`.
    pub customer_id: String,
}

/// A customer, as the CRM record has them. The record holds the customer's API token: it
/// is `#[secret]`, so it never reaches the client, the schema or `Debug` output, and the
/// result says `redactionApplied: true`.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "{name} ({customer_id}) is on the {plan} plan")]
pub struct Customer {
    pub customer_id: String,
    pub name: String,
    /// Subscription plan: `free`, `team` or `enterprise`.
    pub plan: String,
    /// The customer's API token for the CRM.
    #[secret]
    #[serde(skip)]
    pub api_token: Secret<String>,
    /// True when a value of this record was withheld (set by mcp-result).
    pub redaction_applied: bool,
}

/// The slow upstream: a CRM that takes 40 ms, or 2 s for the customer `C-SLOW`.
async fn crm_fetch(customer_id: &str) -> Option<Customer> {
    let delay = if customer_id == "C-SLOW" { 2_000 } else { 40 };
    tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
    let (name, plan) = match customer_id {
        "C-100" => ("Acme GmbH", "enterprise"),
        "C-200" => ("Birch & Co", "team"),
        "C-SLOW" => ("Sloth Ltd", "free"),
        _ => return None,
    };
    Some(Customer {
        customer_id: customer_id.into(),
        name: name.into(),
        plan: plan.into(),
        api_token: Secret::new(format!("crm-token-{customer_id}-7f3a9c")),
        redaction_applied: false,
    })
}

/// Arguments of `billing_import_dry_run`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportArgs {
    /// How many invoice rows the simulated export holds (1 to 100000).
    #[schemars(range(min = 1, max = 100000))]
    pub rows: u32,
}

/// A billing import checked without writing anything.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(
    summary = "Dry run: {rows_valid} of {rows_total} invoice rows would import, \
                         {rows_rejected} rejected. The full report is linked (resources/read)."
)]
pub struct ImportDryRun {
    pub rows_total: u32,
    pub rows_valid: u32,
    pub rows_rejected: u32,
    /// The row-by-row report (CSV), stored as an artifact: its URI here, a `resource_link`
    /// in `content`.
    pub report: Payload,
}

/// The header image of a ticket (a tiny generated PNG).
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Attachment of {ticket_id} (image block for the user)")]
pub struct Attachment {
    pub ticket_id: String,
    /// The image: bytes in an `image` block, metadata here.
    pub image: Image,
}

/// A 1x1 transparent PNG.
const TINY_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];
// ---------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------

#[mcp_tools(artifacts, services)]
impl Helpdesk {
    /// Search support tickets by words in their title or body. Returns the matches, most
    /// severe first, with their ids and URIs, a page at a time: `pageSize` (1 to 200,
    /// default 50) per page; for the next page, call again with the same arguments and the
    /// result's `nextCursor` as `cursor` (absent on the last page).
    #[mcp_tool(read_only, title = "Search tickets", scopes = "tickets:read")]
    fn search_tickets(&self, args: SearchArgs, pages: Pager<usize>) -> Page<Finding> {
        let words: Vec<String> = args
            .query
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let tickets = self.tickets.lock().unwrap_or_else(|e| e.into_inner());
        let mut matches: Vec<&Ticket> = tickets
            .values()
            .filter(|t| args.min_severity.is_none_or(|min| t.severity >= min))
            .filter(|t| {
                let text = format!("{} {}", t.title, t.body).to_lowercase();
                words.iter().all(|w| text.contains(w.as_str()))
            })
            .collect();
        matches.sort_by(|a, b| b.severity.cmp(&a.severity).then(a.id.cmp(&b.id)));
        // The position is an offset into the sorted matches (`None`: the first page).
        let start = pages.position().unwrap_or(0).min(matches.len());
        let end = start.saturating_add(pages.page_size()).min(matches.len());
        let findings = matches[start..end]
            .iter()
            .map(|t| Finding {
                id: t.id.clone(),
                title: t.title.clone(),
                severity: t.severity,
                uri: format!("helpdesk://tickets/{}", t.id),
            })
            .collect();
        let next = (end < matches.len()).then_some(end);
        pages.page(findings, next, Some(matches.len() as u64))
    }

    /// List every ticket id, oldest first. The result is a JSON array, so `structuredContent`
    /// wraps it as `{"result": [...]}` (the tool's `_meta` says so).
    #[mcp_tool(
        read_only,
        idempotent,
        title = "List ticket ids",
        scopes = "tickets:read"
    )]
    fn list_ticket_ids(&self) -> Vec<String> {
        let tickets = self.tickets.lock().unwrap_or_else(|e| e.into_inner());
        tickets.keys().cloned().collect()
    }

    /// Read one ticket with its internal notes.
    #[mcp_tool(read_only, title = "Get ticket", scopes = "tickets:read")]
    async fn get_ticket(&self, args: TicketArgs) -> Result<TicketView, ToolError> {
        self.view(&args.ticket_id).await
    }

    /// Look a customer up in the CRM. The CRM is slow at times: past 500 ms the call is
    /// answered with `upstream_timeout` (retry-safe: the lookup is idempotent).
    #[mcp_tool(
        read_only,
        idempotent,
        timeout_ms = 500,
        title = "Look up customer",
        scopes = "tickets:read"
    )]
    async fn lookup_customer(&self, args: CustomerArgs) -> Result<Customer, ToolError> {
        crm_fetch(&args.customer_id).await.ok_or_else(|| {
            ToolError::not_found(format!("No customer `{}` in the CRM.", args.customer_id))
        })
    }

    /// Add an internal (staff-only) note to a ticket. Not idempotent: each call adds a note,
    /// unless it carries an idempotency key (`requestId`, or `_meta`
    /// `io.github.mcp-result/idempotencyKey`): a retry with the same key returns the first
    /// result. Locked tickets refuse notes (policy); the result then has status `blocked`.
    #[mcp_tool(
        title = "Add internal note",
        destructive = false,
        idempotency_key = "requestId",
        scopes = "tickets:write",
        task = "optional"
    )]
    async fn add_internal_note(
        &self,
        args: NoteArgs,
        write: WriteContext,
        tx: Tx,
    ) -> Result<NoteCreated, ToolError> {
        let note_id = self.add_note(&args.ticket_id, args.body, &tx).await?;
        if let Some(delay) = std::env::var("HELPDESK_NOTE_DELAY_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
        {
            tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
        }
        Ok(NoteCreated {
            // The framework minted and recorded this event before the tool ran.
            audit_event_id: write.audit_event_id().clone(),
            ticket_id: args.ticket_id,
            note_id,
            visibility: Visibility::Internal,
            status: Status::Succeeded,
            // The framework writes what is true here: true under an idempotency key.
            retry_safe: false,
        })
    }

    /// Close a ticket. A human approves first: a client that can elicit asks its user; any
    /// other gets `blocked` with an `approvalRequestId` to call again with once an approver
    /// approved it.
    #[mcp_tool(
        title = "Close ticket",
        approval = "Close ticket {ticketId}",
        scopes = "tickets:write",
        task = "optional"
    )]
    async fn close_ticket(
        &self,
        args: TicketArgs,
        write: WriteContext,
    ) -> Result<TicketClosed, ToolError> {
        let ticket_id = self.lock(&args.ticket_id).await?;
        Ok(TicketClosed {
            ticket_id,
            status: Status::Succeeded,
            retry_safe: false,
            audit_event_id: write.audit_event_id().clone(),
            approval_id: write.approval().map(|(id, _)| id.to_owned()),
        })
    }

    /// Email a ticket's transcript to its customer. The mail upstream takes a few hundred
    /// milliseconds; past the 2 s limit the answer says the outcome is unknown, and the
    /// mail is still sent and recorded. Send an idempotency key (`_meta`
    /// `io.github.mcp-result/idempotencyKey`) so that a retry never mails twice.
    #[mcp_tool(
        title = "Email transcript",
        timeout_ms = 2000,
        scopes = "tickets:write"
    )]
    async fn email_transcript(
        &self,
        args: TicketArgs,
        write: WriteContext,
    ) -> Result<TranscriptSent, ToolError> {
        let customer = self.with_ticket(&args.ticket_id, |ticket| {
            Ok(format!("customer-of-{}", ticket.id))
        })?;
        // The mail upstream.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let n = self.next_message();
        Ok(TranscriptSent {
            message_id: format!("mail-{n:06}"),
            recipient: customer,
            // Passed on to the mail upstream as a reference in a real server.
            audit_event_id: write.audit_event_id().clone(),
            status: Status::Succeeded,
            retry_safe: false,
        })
    }

    /// Check a billing import without writing anything: counts in the result, the full
    /// row-by-row report behind a `resource_link` (only the caller who made it may read it).
    #[mcp_tool(
        read_only,
        idempotent,
        title = "Billing import (dry run)",
        scopes = "tickets:read"
    )]
    fn billing_import_dry_run(&self, args: ImportArgs) -> ImportDryRun {
        let mut report = String::from("row,invoice,status,reason\n");
        let mut rejected = 0;
        for row in 1..=args.rows {
            // Every 7th row has a negative amount in the simulated export.
            let (status, reason) = if row % 7 == 0 {
                rejected += 1;
                ("rejected", "negative amount")
            } else {
                ("ok", "")
            };
            report.push_str(&format!("{row},INV-{row:06},{status},{reason}\n"));
        }
        ImportDryRun {
            rows_total: args.rows,
            rows_valid: args.rows - rejected,
            rows_rejected: rejected,
            report: Payload::text("import-report.csv", "text/csv", report)
                .with_title("Billing import dry-run report"),
        }
    }

    /// Get a ticket's attachment (an image).
    #[mcp_tool(read_only, title = "Get attachment", scopes = "tickets:read")]
    fn get_attachment(&self, args: TicketArgs) -> Result<Attachment, ToolError> {
        let tickets = self.tickets.lock().unwrap_or_else(|e| e.into_inner());
        if !tickets.contains_key(&args.ticket_id) {
            return Err(ToolError::not_found(format!(
                "No ticket `{}`.",
                args.ticket_id
            )));
        }
        let annotations = BlockAnnotations::new().audience(Audience::USER);
        Ok(Attachment {
            ticket_id: args.ticket_id,
            image: Image::new(TINY_PNG, "image/png").with_annotations(annotations),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Helpdesk {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_tasks()
                .build(),
        )
        .with_server_info(Implementation::new("helpdesk", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Support desk. Search tickets, read one, add internal notes. Results carry \
                 structuredContent; write results carry status, retrySafe and auditEventId.",
        )
    }
}
