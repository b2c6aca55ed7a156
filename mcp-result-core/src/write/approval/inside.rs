//! A human approval asked from inside a write tool, after its own checks: [`Approval`].

use std::sync::{Arc, Mutex};

use rmcp::{service::RequestContext, RoleServer};
use serde_json::Value;

use crate::{
    call::client::AskPolicy,
    store::{clock::unix_now, key::ServerKey},
    tool::extract::{via, FromToolCall, ToolCall, ToolExtension},
    wire::{
        envelope::ToolError,
        keys::{APPROVAL_REQUEST_ARGUMENT, APPROVAL_REQUEST_META},
    },
    write::{
        approval::{
            gate::{ask, Asked, Question},
            marked, ApprovalRequest, ApprovalStore, Decision, Refusal, Review, Round, APPROVAL_TTL,
        },
        audit::AuditRecord,
    },
};

/// What a write tool that asks from its body shares with the write path around it: what
/// its approver is shown (the call's arguments, secrets withheld, taken before the tool
/// runs), and what the question came to, which the write path writes into the attempt's
/// outcome record (the request it created or used, the approval it ran under) and by which
/// it gives back the idempotency key of a write the question ended.
#[derive(Clone, Default)]
pub(crate) struct ApprovalNote(Arc<Mutex<Noted>>);

#[derive(Default)]
struct Noted {
    review: Option<Review>,
    /// The approval store the server's writes use (its services').
    store: Option<Arc<dyn ApprovalStore>>,
    /// The approval request the attempt is about: created by its question, or the one its
    /// call came back with.
    request_id: Option<String>,
    /// The approval the write runs under: (approvalId, approver).
    approved: Option<(String, String)>,
    /// The question ended the write (`blocked`, declined, refused): nothing acted.
    ended: bool,
}

impl std::fmt::Debug for ApprovalNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApprovalNote").finish_non_exhaustive()
    }
}

impl PartialEq for ApprovalNote {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ApprovalNote {}

impl ApprovalNote {
    /// A note for a call whose approver is shown `review`, its requests kept in `store`.
    pub(crate) fn new(review: Review, store: Arc<dyn ApprovalStore>) -> Self {
        let note = Self::default();
        note.with(|noted| {
            noted.review = Some(review);
            noted.store = Some(store);
        });
        note
    }

    fn with<T>(&self, change: impl FnOnce(&mut Noted) -> T) -> T {
        change(
            &mut self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }

    /// Whether the question ended the attempt, nothing having acted (`blocked`, declined,
    /// refused): when its answer is that error, the key is given back, as for a write gated
    /// before it runs.
    pub(crate) fn ended(&self) -> bool {
        self.with(|noted| noted.ended)
    }

    /// The approval the tool's question was answered with, if it was approved: the write
    /// runs under it, so the result's `approvalId` says it.
    pub(crate) fn approval_id(&self) -> Option<String> {
        self.with(|noted| noted.approved.as_ref().map(|(id, _)| id.clone()))
    }

    /// Writes what the question came to into the attempt's outcome `record`.
    pub(crate) fn apply(&self, record: &mut AuditRecord) {
        self.with(|noted| {
            if let Some(id) = &noted.request_id {
                record.approval_request_id = Some(id.clone());
            }
            if let Some((approval_id, approver)) = &noted.approved {
                record.approval_id = Some(approval_id.clone());
                record.approver = Some(approver.clone());
            }
        });
    }
}

/// The approval a write runs under ([`Approval::require`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Approved {
    /// The approval's id. The framework writes it into the result's `approvalId` (a
    /// `WriteReceipt`'s, or the result's own `approvalId` field).
    pub approval_id: String,
    /// Who approved (an identity key, `tenant:subject`, or the caller when the client's
    /// user approved by elicitation).
    pub approver: String,
}

/// A human approval asked from inside a write tool, after its own checks, only when the
/// write needs one, with a text naming what the tool resolved (the real path, the rows a
/// delete touches). Take it as a parameter of a write tool and call
/// [`require`](Self::require) before the write acts:
///
/// ```text
/// async fn write_file(&self, args: WriteArgs, mut approval: Approval) -> Result<Written, ToolError> {
///     let path = self.resolve(&args.path)?;            // its own checks first
///     let approved = if path.exists() {
///         Some(approval.require(format!("Overwrite {}", path.display())).await?)
///     } else {
///         None                                           // a new file needs nobody
///     };
///     std::fs::write(&path, &args.content)?;
///     ...
/// }
/// ```
///
/// `require` asks the way a tool gated before it runs is asked (`#[mcp_tool(approval =
/// "...")]`, the chapter on approvals): a client that elicits forms is asked during the call
/// (MCP 2025-11-25) or in an input-required round (2026-07-28, the tool then runs again from
/// its start); any other gets `blocked` with an `approvalRequestId` (and, on a stdio server
/// with its local approvals page, the link to it), the request keeping the text and the
/// arguments as the tool received them (secrets withheld), for a decider on the approvals
/// page or the `approvals` command. The call made again with that `approvalRequestId`
/// (argument or `_meta`, as for gated tools) runs the tool again, which must reach the same
/// question, the same text for the same arguments, for the approval to apply once; a call
/// whose question changed meanwhile (the file appeared, the rows changed) is refused
/// `conflict` with both texts, nothing having run.
///
/// The text is shown with characters that change what a reader sees marked, as the
/// approval text of a gated tool is (`[U+202E]`). The write's outcome record names the
/// request and the approval, and a `blocked` answer gives its idempotency key back.
/// Nothing before `require` may act: the tool runs again when the question is answered.
pub struct Approval {
    context: RequestContext<RoleServer>,
    store: Arc<dyn ApprovalStore>,
    key: Arc<ServerKey>,
    caller: String,
    tool: &'static str,
    fingerprints: Vec<String>,
    request_id: Option<String>,
    round: Round,
    note: ApprovalNote,
    policy: AskPolicy,
}

impl std::fmt::Debug for Approval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approval")
            .field("tool", &self.tool)
            .field("caller", &self.caller)
            .field("request_id", &self.request_id)
            .finish_non_exhaustive()
    }
}

impl FromToolCall<via::Extractor> for Approval {
    fn tool_extension() -> Option<ToolExtension> {
        let mut arguments = rmcp::model::JsonObject::new();
        arguments.insert(
            APPROVAL_REQUEST_ARGUMENT.into(),
            super::text::approval_request_schema(),
        );
        Some(ToolExtension {
            arguments,
            binds_arguments: true,
            approval: true,
            ..ToolExtension::default()
        })
    }

    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        let note = call
            .write_context()
            .and_then(|write| write.note.clone())
            .ok_or_else(|| {
                ToolError::internal_logged("an `Approval` parameter outside a write's call")
            })?;
        let request_id = call
            .context()
            .meta
            .get(APPROVAL_REQUEST_META)
            .or_else(|| call.extension_argument(APPROVAL_REQUEST_ARGUMENT))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let store = note
            .with(|noted| noted.store.clone())
            .ok_or_else(|| ToolError::internal_logged("an `Approval` without its store"))?;
        Ok(Self {
            context: call.context().clone(),
            store,
            key: call.state().server_key().clone(),
            caller: call.identity().key(),
            tool: call.tool(),
            fingerprints: call.binding().map(<[String]>::to_vec).unwrap_or_default(),
            request_id,
            round: call.round().clone(),
            note,
            policy: call.state().get::<AskPolicy>().copied().unwrap_or_default(),
        })
    }
}

impl Approval {
    /// Asks a person to approve `text` (what the write will do, as the tool resolved it)
    /// for this call's arguments, or uses the approval the call came back with: `Ok` once
    /// approved, for the write to act now.
    ///
    /// # Errors
    /// The answer the call ends with, nothing having run: `blocked` (`policy_blocked`,
    /// `requiresHumanReview`, an `approvalRequestId`) while a decider has not approved;
    /// `policy_blocked` "declined by the user"; the question itself (2026-07-28: the call
    /// comes back answered); `conflict` for an approval request that is not this caller's,
    /// pending, rejected, expired, used, or for another question or other arguments.
    pub async fn require(&mut self, text: impl AsRef<str>) -> Result<Approved, ToolError> {
        let answer = self.asked(text.as_ref()).await;
        if answer.is_err() {
            // The write ends here, nothing having acted: its key goes back.
            self.note.with(|noted| noted.ended = true);
        }
        answer
    }

    async fn asked(&mut self, text: &str) -> Result<Approved, ToolError> {
        let text = self.shown(text);
        if let Some(id) = self.request_id.clone() {
            return self.use_request(&id, &text).await;
        }
        let question = Question {
            key: &self.key,
            caller: &self.caller,
            context: &self.context,
            text: &text,
            round: &self.round,
            tool: self.tool,
            fingerprints: &self.fingerprints,
            store: self.store.as_ref(),
            policy: self.policy,
        };
        match ask(question).await {
            Asked::Approved => {
                Ok(self.approved(uuid::Uuid::now_v7().to_string(), self.caller.clone()))
            }
            Asked::ApprovedRound(approval_id, approver) => Ok(self.approved(approval_id, approver)),
            Asked::Refused(refusal) => Err(ToolError::conflict(refusal.message())),
            Asked::Declined(reason) => Err(ToolError::policy_blocked(reason)),
            Asked::Cancelled => Err(ToolError::cancelled_before_running()),
            Asked::Ask(question) => Err(ToolError::asking(question)),
            #[cfg(all(feature = "approvals-page", feature = "elicitation"))]
            Asked::ByUrl(..) => Err(ToolError::conflict(Refusal::Unknown.message())),
            Asked::CannotAsk => self.blocked(text).await,
        }
    }

    /// The text as the approver reads it: characters that change reading marked, and the
    /// warning when the arguments hold such characters too.
    fn shown(&self, text: &str) -> String {
        let mut shown = marked(text, &[]).into_owned();
        let hidden = self.note.with(|noted| {
            noted
                .review
                .as_ref()
                .map(|review| review.hidden.clone())
                .unwrap_or_default()
        });
        if let Some(warning) = super::visible::warning(&hidden) {
            shown.push_str(&warning);
        }
        shown
    }

    fn approved(&self, approval_id: String, approver: String) -> Approved {
        self.note
            .with(|noted| noted.approved = Some((approval_id.clone(), approver.clone())));
        Approved {
            approval_id,
            approver,
        }
    }

    /// The call came back with approval request `id`: used when it is this caller's, for
    /// these arguments and this question, approved and unused.
    async fn use_request(&mut self, id: &str, text: &str) -> Result<Approved, ToolError> {
        let store_failed = |error: crate::store::StoreError| {
            ToolError::internal_logged(format_args!("approval store failed: {error}"))
        };
        let found = self.store.get(id).await.map_err(store_failed)?;
        let Some(request) = found.filter(|r| r.caller == self.caller && r.tool == self.tool) else {
            return Err(ToolError::conflict(Refusal::Unknown.message()));
        };
        self.note
            .with(|noted| noted.request_id = Some(id.to_owned()));
        if request.text != text {
            return Err(ToolError::conflict(format!(
                "Approval request `{id}` was for another question (\"{}\"); this call now asks \
                 \"{text}\". Nothing ran: call again without approvalRequestId to ask for it.",
                crate::wire::text::escaped(&request.text)
            )));
        }
        match self
            .store
            .consume(id, &self.caller, &self.fingerprints)
            .await
            .map_err(store_failed)?
        {
            Ok((approval_id, approver)) => Ok(self.approved(approval_id, approver)),
            Err(refusal) => Err(ToolError::conflict(refusal.message())),
        }
    }

    /// No one can be asked during the call: a request for a decider, and `blocked`.
    async fn blocked(&mut self, text: String) -> Result<Approved, ToolError> {
        let review = self.note.with(|noted| noted.review.clone());
        let request = ApprovalRequest {
            id: uuid::Uuid::now_v7().to_string(),
            tool: self.tool.to_owned(),
            text: text.clone(),
            caller: self.caller.clone(),
            fingerprints: self.fingerprints.clone(),
            expires_at: unix_now() + APPROVAL_TTL.as_secs(),
            decision: Decision::Pending,
            review,
        };
        match self.store.create(&request).await {
            Ok(()) => {}
            Err(crate::store::StoreError::Refused(reason)) => {
                return Err(ToolError::quota_exceeded(
                    reason,
                    "The write did not run; call again once earlier approval requests are \
                     decided or expire.",
                ))
            }
            Err(error) => {
                return Err(ToolError::internal_logged(format_args!(
                    "approval store failed: {error}"
                )))
            }
        }
        self.note
            .with(|noted| noted.request_id = Some(request.id.clone()));
        #[cfg(feature = "approvals-page")]
        if let Some(url) =
            crate::http::local_sign_in(&self.context, self.store.as_ref(), &request).await
        {
            return Err(ToolError::approval_required_at(request.id, &text, &url));
        }
        Err(ToolError::approval_required(request.id, &text))
    }
}
