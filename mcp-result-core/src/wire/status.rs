use std::{borrow::Cow, fmt};

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

/// The outcome of a tool call, as a machine can branch on it (`status` in
/// `structuredContent`). Required on every write tool's result (mcp-result write contract).
///
/// Serialized as one of the lowercase strings below.
///
/// The framework never reports `failed` for a write that may have happened: that is
/// `unknown` (mcp-result write contract, rule 12).
///
/// Its schema is a plain `enum` of the five strings with a one-line description, inline
/// where a result names it: it is in the `tools/list` entry of every write tool, so the
/// meaning of the values a client acts on is told there in a few words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// `"succeeded"`: everything the call asked for happened.
    Succeeded,
    /// `"partial"`: some of it happened; the result says which part (retry only the rest).
    Partial,
    /// `"blocked"`: nothing happened because a policy or a lock refused it; the agent must
    /// stop and hand over, not work around it.
    Blocked,
    /// `"failed"`: nothing happened because of an error.
    Failed,
    /// `"unknown"`: the outcome is not known (yet): a write that passed its time limit, was
    /// cancelled while running, or was interrupted may or may not have taken effect. The
    /// message says how to learn the outcome (with an idempotency key: call again with the
    /// same key).
    Unknown,
}

impl Status {
    /// Every value, in declaration order (the schema's `enum`).
    const ALL: [Status; 5] = [
        Status::Succeeded,
        Status::Partial,
        Status::Blocked,
        Status::Failed,
        Status::Unknown,
    ];

    /// The serialized form: `"succeeded"`, `"partial"`, `"blocked"`, `"failed"` or
    /// `"unknown"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Status::Succeeded => "succeeded",
            Status::Partial => "partial",
            Status::Blocked => "blocked",
            Status::Failed => "failed",
            Status::Unknown => "unknown",
        }
    }
}

/// The description of [`Status`]'s schema: what a client does on the values that ask
/// something of it.
const STATUS_DESCRIPTION: &str = "`partial`: retry only the rest; `blocked`: stop and hand \
    over; `unknown`: it may have run, learn the outcome first.";

impl JsonSchema for Status {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("mcp-result.Status")
    }

    fn schema_id() -> Cow<'static, str> {
        Cow::Borrowed("mcp_result::Status")
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let values: Vec<&str> = Status::ALL.iter().map(|s| s.as_str()).collect();
        json_schema!({
            "type": "string",
            "enum": values,
            "description": STATUS_DESCRIPTION
        })
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The id of the audit-log event a write tool recorded (`auditEventId` in
/// `structuredContent`). Serialized as a plain JSON string; its schema is
/// `{"type": "string"}`, without a description (it is in every write tool's `tools/list`
/// entry, and its name says it).
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
#[schemars(inline, description = "")]
pub struct AuditEventId(String);

impl AuditEventId {
    /// Wraps an audit event id as issued by the audit log.
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    /// The id as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AuditEventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
