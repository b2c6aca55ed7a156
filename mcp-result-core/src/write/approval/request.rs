//! An approval request, its decision, and the store trait.
use crate::{
    store::{clock::unix_now, StoreFuture},
    write::audit::{attempt::new_event_id, AuditRecord, Phase},
};

use std::time::Duration;

use serde::{Deserialize, Serialize};

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
    /// What an approver is shown of the call: set on the requests an approver decides out
    /// of band (what the approvals page lists); `None` on an input-required round's record
    /// (the client's own user answers it) and on the framework's other single-use records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<Review>,
}

/// What an approver is shown of the call an [`ApprovalRequest`] is for, kept with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Review {
    /// When the call asked (seconds since the Unix epoch).
    pub asked_at: u64,
    /// The call's arguments, every secret value removed (the framework's
    /// `approvalRequestId` argument too).
    pub arguments: serde_json::Value,
    /// The JSON Pointers of the secret values removed from [`Self::arguments`], in the
    /// order met: shown as withheld.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub withheld: Vec<String>,
    /// The call's [`AuditRecord::argument_digest`] (empty when not known): the decision's
    /// audit record ([`ApprovalRequest::decision_record`]) carries it, as the call's did.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub argument_digest: String,
    /// The warning that the arguments hold characters that change what a reader sees
    /// (bidirectional controls, zero-width and other format characters, control
    /// characters: [`changes_reading`](super::changes_reading)): the JSON Pointers of the
    /// values and property names that hold them, sorted. The approvals page says so above
    /// the arguments and shows each such character as its code point, `[U+202E]`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden: Vec<String>,
}

impl Review {
    /// The review of `arguments` asked now: every value `is_secret` says is a secret (by its
    /// JSON Pointer) removed and its pointer listed in [`Self::withheld`].
    pub fn of(arguments: &serde_json::Value, is_secret: impl Fn(&str) -> bool) -> Self {
        let mut arguments = arguments.clone();
        let mut withheld = Vec::new();
        withhold(&mut arguments, "", &is_secret, &mut withheld);
        Self {
            asked_at: unix_now(),
            hidden: super::hidden_pointers(&arguments),
            arguments,
            withheld,
            argument_digest: String::new(),
        }
    }
}

fn withhold(
    value: &mut serde_json::Value,
    pointer: &str,
    is_secret: &dyn Fn(&str) -> bool,
    withheld: &mut Vec<String>,
) {
    match value {
        serde_json::Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                let child = format!("{pointer}/{}", crate::wire::pointer::escape(&key));
                if is_secret(&child) {
                    map.remove(&key);
                    withheld.push(child);
                } else if let Some(inner) = map.get_mut(&key) {
                    withhold(inner, &child, is_secret, withheld);
                }
            }
        }
        serde_json::Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                withhold(item, &format!("{pointer}/{i}"), is_secret, withheld);
            }
        }
        _ => {}
    }
}

/// Whether the caller whose [`Identity::key`](crate::Identity::key) is `caller` acts for
/// `tenant` (`None`: a caller of no tenant). The key is `tenant:subject` with `:` encoded in
/// both parts, so its first `:` ends the tenant.
pub fn in_tenant(caller: &str, tenant: Option<&str>) -> bool {
    let encode = |part: &str| part.replace('%', "%25").replace(':', "%3A");
    match (caller.split_once(':'), tenant) {
        (None, None) => true,
        (Some((of, _)), Some(tenant)) => of == encode(tenant),
        _ => false,
    }
}

impl ApprovalRequest {
    /// The `resources/read` URI of this request.
    pub fn uri(&self) -> String {
        format!("{APPROVAL_URI_PREFIX}{}", self.id)
    }

    pub(crate) fn expired(&self) -> bool {
        unix_now() >= self.expires_at
    }

    /// Whether a call by `caller` whose arguments have `fingerprints` may use this request
    /// now: the one refusal order every store follows (another caller's request is unknown;
    /// then other arguments; then, by decision, expired, pending, rejected, used). `Ok((approvalId, approver))` only for an unexpired approval of
    /// these arguments.
    ///
    /// # Errors
    /// The [`Refusal`] the call gets.
    pub fn usable_by(
        &self,
        caller: &str,
        fingerprints: &[String],
    ) -> Result<(&str, &str), Refusal> {
        if self.caller != caller {
            return Err(Refusal::Unknown);
        }
        if !self.fingerprints.iter().any(|f| fingerprints.contains(f)) {
            return Err(Refusal::OtherArguments);
        }
        match &self.decision {
            Decision::Pending if self.expired() => Err(Refusal::Expired),
            Decision::Pending => Err(Refusal::Pending),
            Decision::Rejected { reason, .. } => Err(Refusal::Rejected(reason.clone())),
            Decision::Used { .. } => Err(Refusal::Used),
            Decision::Approved { .. } if self.expired() => Err(Refusal::Expired),
            Decision::Approved {
                approval_id,
                approver,
            } => Ok((approval_id, approver)),
        }
    }

    /// The audit record of this request's decision, made now: phase
    /// [`Phase::Approved`](crate::audit::Phase::Approved) (an approved or used request, with
    /// its `approvalId`) or [`Phase::Rejected`](crate::audit::Phase::Rejected), a new event
    /// id, `approver` who decided, `approvalRequestId` this request; `tool`, `caller` and
    /// `argumentDigest` the request's. `None` while it is pending. The approvals page
    /// records one with each decision; an application that decides in code (`approve`,
    /// `reject`) records it to its sink the same way, so the decision is in the request's
    /// audit trail.
    pub fn decision_record(&self) -> Option<AuditRecord> {
        let (phase, approval_id, approver) = match &self.decision {
            Decision::Pending => return None,
            Decision::Approved {
                approval_id,
                approver,
            }
            | Decision::Used {
                approval_id,
                approver,
            } => (Phase::Approved, Some(approval_id.clone()), approver),
            Decision::Rejected { approver, .. } => (Phase::Rejected, None, approver),
        };
        let digest = self
            .review
            .as_ref()
            .map(|review| review.argument_digest.clone())
            .unwrap_or_default();
        let mut record = AuditRecord::intent(
            new_event_id(),
            &self.tool,
            self.caller.clone(),
            None,
            digest,
        );
        record.phase = phase;
        record.approval_id = approval_id;
        record.approver = Some(approver.clone());
        record.approval_request_id = Some(self.id.clone());
        Some(record)
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

/// How many pending approval requests one caller identity may have at once (unexpired and
/// undecided, out-of-band requests and input-required rounds alike): past it a new request
/// is refused ([`StoreError::Refused`](crate::store::StoreError::Refused); the call answers
/// `policy_blocked`) until older ones are decided or expire, so one caller cannot fill the
/// store. Every [`ApprovalStore`] the framework ships keeps it (the SQL stores count in the
/// insert itself: requests of one caller created at the same instant may pass it by as many).
pub const PENDING_PER_CALLER: usize = 1_000;

/// Where approval requests live. [`MemoryApprovals`](super::MemoryApprovals) is the default.
pub trait ApprovalStore: Send + Sync + 'static {
    /// Stores a new pending request.
    ///
    /// # Errors
    /// [`StoreError::Refused`](crate::store::StoreError::Refused) when the caller has
    /// [`PENDING_PER_CALLER`] pending requests; the store's failure.
    fn create<'a>(&'a self, request: &'a ApprovalRequest) -> StoreFuture<'a, ()>;

    /// The request `id`, if any.
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ApprovalRequest>>;

    /// Records `approver`'s decision on a pending request; the approved request, or why not.
    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
    ) -> StoreFuture<'a, Result<ApprovalRequest, Refusal>>;

    /// Atomically uses the approval of request `id` for a write by `caller` (its
    /// [`Identity::key`](crate::Identity::key)) whose arguments have `fingerprints`: it must
    /// be `caller`'s own request (another caller is told [`Refusal::Unknown`], so an id
    /// names nothing to anyone else), approved, for those arguments, unexpired and unused
    /// ([`ApprovalRequest::usable_by`]).
    fn consume<'a>(
        &'a self,
        id: &'a str,
        caller: &'a str,
        fingerprints: &'a [String],
    ) -> StoreFuture<'a, Result<(String, String), Refusal>>;

    /// The pending, unexpired requests with a [`Review`] (the ones an approver decides out
    /// of band) of callers acting for `tenant` ([`in_tenant`]), oldest first, at most
    /// `limit`: what the approvals page lists.
    ///
    /// # Errors
    /// The store's failure; this default, for a store that does not list:
    /// [`StoreError::Invalid`](crate::store::StoreError::Invalid).
    fn pending<'a>(
        &'a self,
        tenant: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Vec<ApprovalRequest>> {
        let _ = (tenant, limit);
        Box::pin(async {
            Err(crate::store::StoreError::Invalid(
                "this approval store does not list its pending requests: implement \
                 `ApprovalStore::pending` to serve the approvals page"
                    .to_owned(),
            ))
        })
    }

    /// Whether this store's database cannot hold the character U+0000 in text (PostgreSQL):
    /// the router then refuses a gated write's arguments holding it (its approval text
    /// quotes them). Not public API.
    #[doc(hidden)]
    fn refuses_nul(&self) -> bool {
        false
    }

    /// Whether what this store holds outlives the process (a database): `true` unless the
    /// store says otherwise; the in-memory stores say `false`. A server whose state mixes
    /// durable and in-memory stores starts only when the mix is explicit
    /// ([`State::allow_mixed_stores`](crate::State::allow_mixed_stores)).
    fn durable(&self) -> bool {
        true
    }
}
