//! What the framework knows about a write call, handed to the tool.

use crate::wire::status::AuditEventId;

/// What the framework knows about a write call, for the tool: the audit event it minted
/// before the tool runs (pass it on to the upstream as a reference), and the idempotency
/// key the call carries. Take it as a parameter of a write tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteContext {
    pub(crate) audit_event_id: AuditEventId,
    pub(crate) idempotency_key: Option<String>,
    pub(crate) retry_safe: bool,
    pub(crate) approval: Option<(String, String)>,
    /// What a tool that asks for its approval from its body shares with the write path
    /// ([`crate::approval::Approval`]).
    pub(crate) note: Option<crate::write::approval::ApprovalNote>,
}

impl WriteContext {
    pub(crate) fn new(
        audit_event_id: AuditEventId,
        idempotency_key: Option<String>,
        retry_safe: bool,
    ) -> Self {
        Self {
            audit_event_id,
            idempotency_key,
            retry_safe,
            approval: None,
            note: None,
        }
    }

    pub(crate) fn with_note(mut self, note: Option<crate::write::approval::ApprovalNote>) -> Self {
        self.note = note;
        self
    }

    pub(crate) fn with_approval(mut self, approval: Option<(String, String)>) -> Self {
        self.approval = approval;
        self
    }

    /// The human approval this write runs under (`approvalId`, approver), for a tool that
    /// requires one.
    pub fn approval(&self) -> Option<(&str, &str)> {
        self.approval
            .as_ref()
            .map(|(id, approver)| (id.as_str(), approver.as_str()))
    }

    /// The audit event of this write (a UUIDv7), already recorded as an intent; the
    /// result's `auditEventId` is this one whatever the tool sets.
    pub fn audit_event_id(&self) -> &AuditEventId {
        &self.audit_event_id
    }

    /// The call's idempotency key, if it carries one.
    pub fn idempotency_key(&self) -> Option<&str> {
        self.idempotency_key.as_deref()
    }

    /// Whether a retry of this call is safe (it carries a key, or the tool is
    /// `idempotent`): the result's `retrySafe`.
    pub fn retry_safe(&self) -> bool {
        self.retry_safe
    }
}
