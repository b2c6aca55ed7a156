//! The audit log of write attempts: the framework mints every write's `auditEventId` and
//! records the attempt, so the id in a result names a record that exists (mcp-result
//! rule 13).
//!
//! Every write attempt is one **event**, written as records that share its `eventId`:
//!
//! - `intent`, before the tool runs (if the sink cannot record it, the write does not run:
//!   the call fails with a retry-safe `upstream_unavailable`);
//! - `outcome`, after it: `status`, `errorKind`, `externalId`, `requiresHumanReview`,
//!   `approvalId`, `redactionApplied`, `correlationId`, `durationMs`. A write answered at its
//!   time limit gets a provisional outcome (`status: unknown`) before the answer, and its
//!   final outcome when it ends. A call refused before it ran (an idempotency key reused
//!   with other arguments, still in progress, interrupted) has only an outcome;
//! - `replay`: a call answered from the idempotency store. The answer is the original one
//!   (its `auditEventId` is the original event's); the replay's own event points at it with
//!   `replayOf`, and its id is not in the answer.
//!
//! An approver's decision on an approval request is an event of its own, one record:
//! `approved` or `rejected` ([`ApprovalRequest::decision_record`](crate::approval::ApprovalRequest::decision_record)).
//! Every record about a request names it (`approvalRequestId`), and
//! [`AuditSink::approval_records`] reads them back: the approvals page's audit trail.
//!
//! An intent without an outcome means the server stopped in between: the outcome is
//! unknown. [`JsonLinesSink::open`] writes that outcome for such events when a server starts
//! again on the same file.
//!
//! No secret value is ever written: arguments enter only as `argumentDigest`, SHA-256 of
//! their RFC 8785 canonical form with every secret (`writeOnly`) field removed.

pub(crate) mod attempt;
mod canonical;
mod json_lines;
mod line;
mod record;

pub use canonical::argument_digest;
pub(crate) use canonical::{argument_sha256, canonical_sha256};
pub use json_lines::{read_records, JsonLinesSink};
pub(crate) use record::audit_to_stderr;
pub use record::{
    instance, now_rfc3339, record_schema, AuditRecord, AuditSink, Phase, TracingSink,
};
