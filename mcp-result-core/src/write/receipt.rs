//! [`WriteReceipt`]: the write contract's fields, ready-made, for a write result to embed
//! with `#[serde(flatten)]`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{
    wire::status::{AuditEventId, Status},
    write::{context::WriteContext, contract::ProvidesContractKeys},
};

/// The write contract, ready-made: `status`, `retrySafe` and `auditEventId` (and
/// `approvalId` for a write a human approved), for a write tool's result to embed:
///
/// ```
/// use mcp_result_core::WriteReceipt;
/// use serde::Serialize;
///
/// /// A note was added. (A tool's result derives `Serialize, JsonSchema, ToolResult`.)
/// #[derive(Serialize)]
/// #[serde(rename_all = "camelCase")]
/// pub struct NoteAdded {
///     pub note_id: String,
///     #[serde(flatten)]
///     pub receipt: WriteReceipt,
/// }
///
/// let added = NoteAdded { note_id: "N-1".into(), receipt: WriteReceipt::succeeded() };
/// assert_eq!(
///     serde_json::to_value(&added).unwrap(),
///     serde_json::json!({"noteId": "N-1", "status": "succeeded", "retrySafe": false,
///                        "auditEventId": ""}),
/// );
/// ```
///
/// serde merges its keys into the result, and the result's `outputSchema` has them as
/// properties of its own. The write-contract check accepts the flattened receipt
/// ([`ProvidesContractKeys`]); a flattened type that is not one is still refused.
///
/// **What the framework fills in.** Inside a write call, the result's `retrySafe` is what
/// the framework knows (`true` under an idempotency key or for an `idempotent` tool),
/// `auditEventId` is the event it minted and recorded before the tool ran, and `approvalId`
/// is the approval the write ran under, whatever the receipt held: so
/// [`WriteReceipt::succeeded`] needs nothing but the status. Outside a call (a unit test of
/// the tool's method), take the values from the call's [`WriteContext`] with
/// `WriteReceipt::from(&write)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteReceipt {
    /// What the write did: `succeeded`, `partial`, `blocked` or `failed`.
    // The schema's description is `Status`'s own; the fields' doc comments stay out of the
    // schema, which is in every write tool's `tools/list` entry (the names say them).
    #[schemars(description = "")]
    pub status: Status,
    /// May an automatic retry run the same call again? Set by the framework: `true` under an
    /// idempotency key or for a tool declared `idempotent`.
    #[schemars(description = "")]
    pub retry_safe: bool,
    /// The audit-log event of this write, minted and recorded by the framework.
    #[schemars(description = "")]
    pub audit_event_id: AuditEventId,
    /// The human approval this write ran under, for a tool that requires one. Absent, never
    /// `null`, when there is none: its schema is `{"type": "string"}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(description = "", with = "String")]
    pub approval_id: Option<String>,
}

impl WriteReceipt {
    /// A receipt with `status`; the framework fills in `retrySafe`, `auditEventId` and
    /// `approvalId` when the result is built inside a write call.
    pub fn new(status: Status) -> Self {
        Self {
            status,
            retry_safe: false,
            audit_event_id: AuditEventId::new(""),
            approval_id: None,
        }
    }

    /// `status: succeeded`: everything the call asked for happened.
    pub fn succeeded() -> Self {
        Self::new(Status::Succeeded)
    }

    /// `status: partial`: some of it happened; the result says which part.
    pub fn partial() -> Self {
        Self::new(Status::Partial)
    }

    /// The same receipt with `status`.
    pub fn with_status(mut self, status: Status) -> Self {
        self.status = status;
        self
    }
}

/// `status: succeeded` with the call's own `retrySafe`, `auditEventId` and `approvalId`:
/// the values the framework writes anyway, there already for a unit test of the method.
impl From<&WriteContext> for WriteReceipt {
    fn from(write: &WriteContext) -> Self {
        Self {
            status: Status::Succeeded,
            retry_safe: write.retry_safe(),
            audit_event_id: write.audit_event_id().clone(),
            approval_id: write.approval().map(|(id, _)| id.to_owned()),
        }
    }
}

/// Always serializes `status`, `retrySafe` and `auditEventId`, under those names.
impl ProvidesContractKeys for WriteReceipt {}

crate::wire::secret::holds_no_secret!(WriteReceipt);
