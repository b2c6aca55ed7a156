//! Writes that need a human: `#[mcp_tool(requires_approval)]` (or `approval = "Close
//! ticket {ticketId}"`, an approval text over the arguments). Before such a write runs, the
//! framework obtains a human decision:
//!
//! - the client declared the elicitation capability (MCP 2025-06-18 and later,
//!   "Elicitation"): it asks through elicitation, form mode, showing the approval text
//!   (arguments only, no secret); during the call before MCP 2026-07-28, and from
//!   2026-07-28 on through an input-required round whose state is sealed with the server
//!   key (bound to the caller, the tool, the arguments' fingerprint, an expiry and the round's
//!   record in the approval store, consumed by the answer, so one answer runs one write; that round is no
//!   write attempt: not audited, no key kept). Accept: the write runs under a freshly minted `approvalId`, the approver the
//!   caller. Decline or cancel: `status: blocked`, `errorKind: policy_blocked`, reason
//!   "declined by the user"; nothing runs.
//! - otherwise it answers `blocked` with `requiresHumanReview: true`, an
//!   `approvalRequestId` and a `resource_link` to the pending request
//!   (`mcp-result://approvals/<id>`, served by `resources/read`). An approver decides out of
//!   band ([`MemoryApprovals::approve`](memory::MemoryApprovals::approve) / [`MemoryApprovals::reject`](memory::MemoryApprovals::reject)); the same call repeated
//!   with the approval request id (in `_meta` `io.github.mcp-result/approvalRequestId`, or
//!   the `approvalRequestId` argument the framework adds to the tool's `inputSchema`) then
//!   runs once, and its result and audit record carry the `approvalId`.
//!
//! An approval is bound to the caller who asked (another caller presenting its id is told it
//! does not exist) and to the exact arguments (their idempotency fingerprint), expires
//! ([`APPROVAL_TTL`]), and is used at most once. The blocked round is audited as an event of
//! its own (status `blocked`, `requiresHumanReview`) and keeps no idempotency key (a claim
//! taken for it is given back): the key belongs to the write that runs, so a keyed repeat
//! of an approved write that ran is its replay, not a second use of the approval.

mod command;
mod gate;
mod inside;
mod memory;
mod request;
mod sessions;
mod text;
mod visible;

pub use command::{decide, run_command, LIST_LIMIT, USAGE};
pub(crate) use gate::{approval_request_id, gate, Gate, Round};
pub(crate) use inside::ApprovalNote;
pub use inside::{Approval, Approved};
pub use memory::MemoryApprovals;
pub use request::{
    in_tenant, ApprovalRequest, ApprovalStore, Decision, Refusal, Review, APPROVAL_TTL,
    APPROVAL_URI_PREFIX, PENDING_PER_CALLER,
};
#[cfg_attr(not(feature = "approvals-page"), allow(unused_imports))]
pub(crate) use sessions::{end_session, sessions_ended};
pub use sessions::{revocations, revoke_sessions};
pub(crate) use text::gated_input_schema;
pub use text::{
    approval_text, is_gated, placeholders, APPROVAL_LISTED_ARGUMENTS, APPROVAL_VALUE_CHARS,
};
pub(crate) use visible::hidden_pointers;
pub use visible::{changes_reading, holds_hidden, marked};

#[cfg(test)]
mod tests;
