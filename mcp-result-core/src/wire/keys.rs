//! Property names and `_meta` keys that mcp-result writes and reads. Each string lives here
//! once; the server writes it and the client view and the docs read it through these
//! constants.
//!
//! `_meta` keys carry the prefix `io.github.mcp-result/` (MCP 2025-11-25 "General fields:
//! `_meta`": dot-separated labels, then `/`; not a reserved prefix).

/// The `_meta` key prefix of every key mcp-result defines.
pub const META_PREFIX: &str = "io.github.mcp-result/";

/// The property a result whose serialized form is not always a JSON object is wrapped
/// under: `structuredContent` is `{"result": <value>}` and the schema describes exactly that.
/// MCP 2025-06-18 and 2025-11-25 require an object root; clients on those versions reject a
/// whole `tools/list` over one non-object `outputSchema`.
pub const WRAP_PROPERTY: &str = "result";

/// The `_meta` key of a `tools/list` entry whose result is wrapped; its value is
/// [`WRAP_PROPERTY`].
pub const WRAP_META_KEY: &str = "io.github.mcp-result/wrapped";

/// The `_meta` key of an image or audio block: the block's content handle (`sha256:<hex>`),
/// the same string `structuredContent` holds for it.
pub const HANDLE_META_KEY: &str = "io.github.mcp-result/handle";

/// The write contract: the keys every write tool's `structuredContent` must serialize,
/// always present, under exactly these names (mcp-result's write contract; see
/// `mcp_result::contract`).
///
/// `mcp-result-derive` keeps its own copy of this list (a proc-macro crate cannot link this
/// one); a unit test of the derive crate reads this file and proves both lists equal.
pub const CONTRACT_KEYS: [&str; 3] = ["status", "retrySafe", "auditEventId"];

/// The write contract's optional companions: type-checked where a result type has them.
/// Mirrored in `mcp-result-derive` under the same test as [`CONTRACT_KEYS`].
pub const COMPANION_KEYS: [&str; 4] = [
    "externalId",
    "requiresHumanReview",
    "redactionApplied",
    "approvalId",
];

/// The key of [`CONTRACT_KEYS`] that the framework sets to what it knows
/// ([`crate::result::build::ResultScope::retry_safe`]).
pub const RETRY_SAFE: &str = "retrySafe";

/// The key of [`CONTRACT_KEYS`] that the framework sets to the audit event it minted.
pub const AUDIT_EVENT_ID: &str = "auditEventId";

/// The key of [`COMPANION_KEYS`] that [`crate::ToolResult::REDACTS`] types have set to
/// `true` by the framework.
pub const REDACTION_APPLIED: &str = "redactionApplied";

/// The `_meta` key of a `tools/list` entry whose tool needs OAuth scopes
/// (`#[mcp_tool(scopes = "...")]`): their list, e.g. `["tickets:write"]`.
pub const SCOPES_META: &str = "io.github.mcp-result/scopes";

/// The `_meta` key of a `tools/call` request that carries the idempotency key.
pub const IDEMPOTENCY_KEY_META: &str = "io.github.mcp-result/idempotencyKey";

/// The `_meta` key of a write tool's `tools/list` entry that says where the idempotency key
/// goes and how long it is kept: `{"keyIn": ["_meta/io.github.mcp-result/idempotencyKey",
/// "arguments/requestId"], "ttlSeconds": 86400}`.
pub const IDEMPOTENCY_META: &str = "io.github.mcp-result/idempotency";

/// The `_meta` key of a `tools/call` request that carries an approval request id (the
/// repeat of a call that answered `blocked` with `requiresHumanReview`).
pub const APPROVAL_REQUEST_META: &str = "io.github.mcp-result/approvalRequestId";

/// The argument the framework adds to the `inputSchema` of an approval-gated tool, for
/// hosts whose models cannot set `_meta`.
pub const APPROVAL_REQUEST_ARGUMENT: &str = "approvalRequestId";

/// The key of [`COMPANION_KEYS`] that the framework sets to the approval a write ran under.
pub const APPROVAL_ID: &str = "approvalId";

/// The argument a paging tool takes its cursor in (MCP "Pagination" names it `cursor`):
/// added to the `inputSchema` by [`Pager`](crate::pagination::Pager).
pub const CURSOR_ARGUMENT: &str = "cursor";

/// The argument a paging tool takes its page size in (AIP-158 `page_size`, camelCased):
/// added to the `inputSchema` by [`Pager`](crate::pagination::Pager).
pub const PAGE_SIZE_ARGUMENT: &str = "pageSize";

/// The property of a [`Page`](crate::pagination::Page) that holds the next page's cursor
/// (MCP "Pagination": `nextCursor`, absent on the last page).
pub const NEXT_CURSOR: &str = "nextCursor";

/// The `_meta` key of a paging tool's `tools/list` entry that says where the cursor and the
/// page size go and what the policy is
/// ([`pagination::Advertised`](crate::pagination::Advertised)).
pub const PAGING_META: &str = "io.github.mcp-result/paging";
