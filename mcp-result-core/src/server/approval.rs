//! Writes that need a human: `#[mcp_tool(requires_approval)]` (or `approval = "Close
//! ticket {ticketId}"`, an approval text over the arguments). Before such a write runs, the
//! framework obtains a human decision:
//!
//! - the client declared the elicitation capability (MCP 2025-06-18 and later,
//!   "Elicitation"): it asks through elicitation, form mode, showing the approval text
//!   (arguments only, no secret); during the call before MCP 2026-07-28, and from
//!   2026-07-28 on through an input-required round whose state is sealed with the server
//!   key (bound to the tool, the arguments' fingerprint and an expiry; that round is no
//!   write attempt: not audited, no key kept). Accept: the write runs under a freshly minted `approvalId`, the approver the
//!   caller. Decline or cancel: `status: blocked`, `errorKind: policy_blocked`, reason
//!   "declined by the user"; nothing runs.
//! - otherwise it answers `blocked` with `requiresHumanReview: true`, an
//!   `approvalRequestId` and a `resource_link` to the pending request
//!   (`mcp-result://approvals/<id>`, served by `resources/read`). An approver decides out of
//!   band ([`ApprovalStore::approve`] / [`ApprovalStore::reject`]); the same call repeated
//!   with the approval request id (in `_meta` `io.github.mcp-result/approvalRequestId`, or
//!   the `approvalRequestId` argument the framework adds to the tool's `inputSchema`) then
//!   runs once, and its result and audit record carry the `approvalId`.
//!
//! An approval is bound to the exact arguments (their idempotency fingerprint), expires
//! ([`APPROVAL_TTL`]), and is used at most once. The blocked round is audited as an event of
//! its own (status `blocked`, `requiresHumanReview`) and keeps no idempotency key (a claim
//! taken for it is given back): the key belongs to the write that runs, so a keyed repeat
//! of an approved write that ran is its replay, not a second use of the approval.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{
    server::idempotency::{StoreError, StoreFuture},
    wire::keys::APPROVAL_REQUEST_ARGUMENT,
};

/// How long an approval request, and an approval, stays usable: 1 hour.
pub const APPROVAL_TTL: Duration = Duration::from_secs(60 * 60);

/// The URI prefix of pending approval requests (`resources/read` serves them).
pub const APPROVAL_URI_PREFIX: &str = "mcp-result://approvals/";

/// Where an approval request stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum Decision {
    /// Waiting for an approver.
    Pending,
    /// Approved: the write may run once under `approval_id`.
    Approved {
        /// The approval's id, in the result and the audit record.
        approval_id: String,
        /// Who approved.
        approver: String,
    },
    /// Rejected; the write never runs under this request.
    Rejected {
        /// Who rejected.
        approver: String,
        /// Why.
        reason: String,
    },
    /// Approved and used by the write it was for.
    Used {
        /// The approval's id.
        approval_id: String,
        /// Who approved.
        approver: String,
    },
}

/// A request for a human decision on one write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    /// Its id (`approvalRequestId`).
    pub id: String,
    /// The tool.
    pub tool: String,
    /// What the write does, from the tool's approval text (no secret).
    pub text: String,
    /// Who asked.
    pub caller: String,
    /// The fingerprints of the exact arguments it is for.
    pub fingerprints: Vec<String>,
    /// When it expires (seconds since the Unix epoch).
    pub expires_at: u64,
    /// Where it stands.
    pub decision: Decision,
}

impl ApprovalRequest {
    /// The `resources/read` URI of this request.
    pub fn uri(&self) -> String {
        format!("{APPROVAL_URI_PREFIX}{}", self.id)
    }

    fn expired(&self) -> bool {
        unix_now() >= self.expires_at
    }
}

/// Why an approval request could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No such request.
    Unknown,
    /// Not decided yet.
    Pending,
    /// Rejected, with the reason.
    Rejected(String),
    /// Granted for other arguments.
    OtherArguments,
    /// Already used.
    Used,
    /// Expired.
    Expired,
}

impl Refusal {
    /// The sentence for the error message.
    pub fn message(&self) -> String {
        match self {
            Refusal::Unknown => "No such approval request.".into(),
            Refusal::Pending => "The approval request is still waiting for a human.".into(),
            Refusal::Rejected(reason) => format!("The approval request was rejected: {reason}."),
            Refusal::OtherArguments => {
                "The approval was granted for other arguments; call with exactly those.".into()
            }
            Refusal::Used => "The approval was used already; each approval runs one write.".into(),
            Refusal::Expired => "The approval request expired; call again without it.".into(),
        }
    }
}

/// Where approval requests live. [`MemoryApprovals`] is the default.
pub trait ApprovalStore: Send + Sync + 'static {
    /// Stores a new pending request.
    fn create<'a>(&'a self, request: &'a ApprovalRequest) -> StoreFuture<'a, ()>;

    /// The request `id`, if any.
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ApprovalRequest>>;

    /// Records `approver`'s decision on a pending request; the approved request, or why not.
    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
    ) -> StoreFuture<'a, Result<ApprovalRequest, Refusal>>;

    /// Atomically uses the approval of request `id` for a write whose arguments have
    /// `fingerprints`: it must be approved, for those arguments, unexpired and unused.
    fn consume<'a>(
        &'a self,
        id: &'a str,
        fingerprints: &'a [String],
    ) -> StoreFuture<'a, Result<(String, String), Refusal>>;
}

/// The in-memory [`ApprovalStore`]: one process. Clones share it.
#[derive(Debug, Default, Clone)]
pub struct MemoryApprovals {
    requests: Arc<Mutex<HashMap<String, ApprovalRequest>>>,
}

impl MemoryApprovals {
    /// The process's default store (what servers use unless their `ServerServices` say
    /// otherwise).
    pub fn global() -> &'static MemoryApprovals {
        static GLOBAL: std::sync::LazyLock<MemoryApprovals> =
            std::sync::LazyLock::new(MemoryApprovals::default);
        &GLOBAL
    }

    /// `approver` approves request `id` (out of band: an admin API, a CLI).
    ///
    /// # Errors
    /// Why the request cannot be approved (unknown, decided, expired).
    pub fn approve(&self, id: &str, approver: &str) -> Result<String, Refusal> {
        let approval_id = uuid::Uuid::now_v7().to_string();
        self.decide_now(
            id,
            Decision::Approved {
                approval_id: approval_id.clone(),
                approver: approver.to_owned(),
            },
        )
        .map(|_| approval_id)
    }

    /// `approver` rejects request `id` for `reason`.
    ///
    /// # Errors
    /// Why the request cannot be rejected.
    pub fn reject(&self, id: &str, approver: &str, reason: &str) -> Result<(), Refusal> {
        self.decide_now(
            id,
            Decision::Rejected {
                approver: approver.to_owned(),
                reason: reason.to_owned(),
            },
        )
        .map(|_| ())
    }

    fn decide_now(&self, id: &str, decision: Decision) -> Result<ApprovalRequest, Refusal> {
        let mut requests = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        let request = requests.get_mut(id).ok_or(Refusal::Unknown)?;
        if request.expired() {
            return Err(Refusal::Expired);
        }
        if request.decision != Decision::Pending {
            return Err(Refusal::Used);
        }
        request.decision = decision;
        Ok(request.clone())
    }
}

impl ApprovalStore for MemoryApprovals {
    fn create<'a>(&'a self, request: &'a ApprovalRequest) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.requests
                .lock()
                .map_err(|e| StoreError(e.to_string()))?
                .insert(request.id.clone(), request.clone());
            Ok(())
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ApprovalRequest>> {
        Box::pin(async move {
            Ok(self
                .requests
                .lock()
                .map_err(|e| StoreError(e.to_string()))?
                .get(id)
                .cloned())
        })
    }

    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
    ) -> StoreFuture<'a, Result<ApprovalRequest, Refusal>> {
        Box::pin(async move { Ok(self.decide_now(id, decision)) })
    }

    fn consume<'a>(
        &'a self,
        id: &'a str,
        fingerprints: &'a [String],
    ) -> StoreFuture<'a, Result<(String, String), Refusal>> {
        Box::pin(async move {
            let mut requests = self
                .requests
                .lock()
                .map_err(|e| StoreError(e.to_string()))?;
            let Some(request) = requests.get_mut(id) else {
                return Ok(Err(Refusal::Unknown));
            };
            if !request
                .fingerprints
                .iter()
                .any(|f| fingerprints.contains(f))
            {
                return Ok(Err(Refusal::OtherArguments));
            }
            Ok(match request.decision.clone() {
                Decision::Pending if request.expired() => Err(Refusal::Expired),
                Decision::Pending => Err(Refusal::Pending),
                Decision::Rejected { reason, .. } => Err(Refusal::Rejected(reason)),
                Decision::Used { .. } => Err(Refusal::Used),
                Decision::Approved { .. } if request.expired() => Err(Refusal::Expired),
                Decision::Approved {
                    approval_id,
                    approver,
                } => {
                    request.decision = Decision::Used {
                        approval_id: approval_id.clone(),
                        approver: approver.clone(),
                    };
                    Ok((approval_id, approver))
                }
            })
        })
    }
}

/// The approval text of a write: `template` with each `{field}` replaced by the argument
/// (strings as they are, other values as compact JSON, cut to 80 characters, escaped onto
/// one line; a secret argument shows as `[secret]`). An empty template gives
/// "Run `<tool>`".
pub fn approval_text(
    template: &str,
    tool: &str,
    arguments: &Value,
    is_secret: impl Fn(&str) -> bool,
) -> String {
    if template.is_empty() {
        return format!("Run `{tool}`");
    }
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let name = &rest[open + 1..open + close];
        let pointer = format!("/{name}");
        let shown = match arguments.get(name) {
            _ if is_secret(&pointer) => "[secret]".to_owned(),
            Some(Value::String(text)) => crate::wire::text::cap(text),
            Some(other) => crate::wire::text::cap(&other.to_string()),
            None => "none".to_owned(),
        };
        out.push_str(&shown);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// Whether a listed tool is approval-gated: its `inputSchema` has the `approvalRequestId`
/// the registry adds to such tools (the one reader of that fact).
pub fn is_gated(tool: &rmcp::model::Tool) -> bool {
    tool.input_schema
        .get("properties")
        .and_then(|p| p.get(APPROVAL_REQUEST_ARGUMENT))
        .is_some()
}

/// The `{placeholders}` of an approval template.
pub fn placeholders(template: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        names.push(&rest[open + 1..open + close]);
        rest = &rest[open + close + 1..];
    }
    names
}

/// The `inputSchema` of an approval-gated tool: the arguments' own, plus the optional
/// `approvalRequestId` (for hosts whose models cannot set `_meta`).
///
/// # Errors
/// When the approval text names an argument the schema does not have, or the arguments
/// already have an `approvalRequestId`: the message names it and the fix.
pub(crate) fn gated_input_schema(
    input: Arc<rmcp::model::JsonObject>,
    template: &str,
) -> Result<Arc<rmcp::model::JsonObject>, String> {
    let properties = input.get("properties").and_then(Value::as_object);
    for name in placeholders(template) {
        if !properties.is_some_and(|p| p.contains_key(name)) {
            return Err(format!(
                "the approval text names `{{{name}}}`, which is no argument: use the \
                 serialized name of a field of the arguments type"
            ));
        }
    }
    if properties.is_some_and(|p| p.contains_key(APPROVAL_REQUEST_ARGUMENT)) {
        return Err(format!(
            "the arguments already have `{APPROVAL_REQUEST_ARGUMENT}`, which the framework adds \
             to approval-gated tools: rename the field"
        ));
    }
    let mut input = (*input).clone();
    let properties = input
        .entry("properties")
        .or_insert_with(|| Value::Object(rmcp::model::JsonObject::new()));
    if let Value::Object(properties) = properties {
        properties.insert(
            APPROVAL_REQUEST_ARGUMENT.into(),
            serde_json::json!({
                "type": "string",
                "description": "After an answer `blocked` with `requiresHumanReview`, the \
                    `approvalRequestId` it gave, once a human approved."
            }),
        );
    }
    Ok(Arc::new(input))
}

pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn approval_texts_show_arguments_never_secrets() {
        let args = json!({"ticketId": "T-1\nx", "amount": 12.5, "token": "s3cret"});
        let text = approval_text(
            "Refund {amount} on {ticketId} with {token}",
            "refund",
            &args,
            |p| p == "/token",
        );
        assert_eq!(text, "Refund 12.5 on T-1\\nx with [secret]");
        assert_eq!(
            placeholders("Close {ticketId} ({reason})"),
            ["ticketId", "reason"]
        );
    }

    #[tokio::test]
    async fn an_approval_runs_one_write_with_its_arguments() {
        let store = MemoryApprovals::default();
        let request = ApprovalRequest {
            id: "r-1".into(),
            tool: "close".into(),
            text: "Close T-1".into(),
            caller: "local".into(),
            fingerprints: vec!["fp".into()],
            expires_at: unix_now() + 60,
            decision: Decision::Pending,
        };
        store.create(&request).await.unwrap();
        let fp = vec!["fp".to_owned()];
        assert_eq!(
            store.consume("r-1", &fp).await.unwrap(),
            Err(Refusal::Pending)
        );
        let approval = store.approve("r-1", "alice").unwrap();
        assert_eq!(
            store.consume("r-1", &["other".to_owned()]).await.unwrap(),
            Err(Refusal::OtherArguments)
        );
        assert_eq!(
            store.consume("r-1", &fp).await.unwrap(),
            Ok((approval, "alice".to_owned()))
        );
        assert_eq!(store.consume("r-1", &fp).await.unwrap(), Err(Refusal::Used));
        let mut old = request.clone();
        old.id = "r-2".into();
        old.expires_at = 0;
        store.create(&old).await.unwrap();
        assert_eq!(store.approve("r-2", "alice"), Err(Refusal::Expired));
    }
}
