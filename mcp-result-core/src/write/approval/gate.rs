//! The approval gate of a write: ask (elicitation or an input-required round), or use an out-of-band approval.

use std::sync::Arc;
#[cfg(feature = "elicitation")]
use std::time::Duration;

use crate::store::key::ServerKey;
use rmcp::{model::CallToolResponse, service::RequestContext, RoleServer};
use serde_json::Value;

#[cfg(feature = "elicitation")]
use crate::call::client::{
    asks_by_round, elicits_forms, request_during_call, requests_reach_the_client, Unanswered,
};
use crate::{
    call::client::AskPolicy,
    schema::arguments::ArgumentSchema,
    store::clock::unix_now,
    wire::{
        envelope::ToolError,
        keys::{APPROVAL_REQUEST_ARGUMENT, APPROVAL_REQUEST_META},
    },
    write::{
        approval::{
            approval_text, ApprovalRequest, ApprovalStore, Decision, Refusal, Review, APPROVAL_TTL,
        },
        audit::attempt::{audit_failed, Audit},
    },
};

/// What the elicitation form asks: approve or not.
#[cfg(feature = "elicitation")]
#[derive(Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct ApprovalForm {
    /// Approve this write?
    approve: bool,
}

#[cfg(feature = "elicitation")]
rmcp::elicit_safe!(ApprovalForm);

/// The round of a `tools/call` that repeats an earlier one (MCP 2026-07-28 multi
/// round-trip requests): the client's answers and the server's sealed state, echoed.
#[derive(Debug, Default, Clone)]
#[cfg_attr(not(feature = "elicitation"), allow(dead_code))]
pub(crate) struct Round {
    pub(crate) responses: Option<rmcp::model::InputResponses>,
    pub(crate) state: Option<String>,
}

/// What asking the human gave.
#[cfg_attr(not(feature = "elicitation"), allow(dead_code))]
pub(crate) enum Asked {
    /// Approved during the call (elicitation): the framework mints the `approvalId`.
    Approved,
    /// Approved through an input-required round, whose approval the store consumed:
    /// `(approvalId, approver)`.
    ApprovedRound(String, String),
    /// The answer of a round that was answered already (or whose record is gone): no
    /// second write.
    Refused(Refusal),
    /// Declined or cancelled, with the reason.
    Declined(&'static str),
    /// The client cancelled the call (or went away) before the approval was given: the
    /// write never runs.
    Cancelled,
    /// MCP 2026-07-28: the question goes back as an input-required result; the client asks
    /// its user and calls again with the answer and the sealed state.
    Ask(rmcp::model::InputRequiredResult),
    /// The client cannot be asked: an approver decides out of band.
    CannotAsk,
    /// MCP 2026-07-28, a round that sent the caller to the approvals page (URL mode) came
    /// back: request `.0`, and how its confirmation ended.
    #[cfg(all(feature = "approvals-page", feature = "elicitation"))]
    ByUrl(String, crate::http::Confirmed),
}

/// The key of the approval question in an input-required round.
#[cfg(feature = "elicitation")]
const QUESTION: &str = "approval";

/// Asks the client's user, where the client elicits: during the call before MCP
/// 2026-07-28, through an input-required round from 2026-07-28 on (its state sealed with
/// the server key and bound to the tool, the arguments and an expiry).
#[cfg(feature = "elicitation")]
pub(super) async fn ask(question: Question<'_>) -> Asked {
    let Question {
        key,
        caller,
        context,
        text,
        round,
        tool,
        fingerprints,
        store,
        policy,
    } = question;
    if !asks_by_round(context) {
        if !requests_reach_the_client(context) {
            return Asked::CannotAsk;
        }
        if !context
            .client_capabilities()
            .is_some_and(|c| elicits_forms(&c))
        {
            return Asked::CannotAsk;
        }
        let Ok(requested_schema) = rmcp::model::ElicitationSchema::from_type::<ApprovalForm>()
        else {
            return Asked::CannotAsk;
        };
        let request = rmcp::model::ServerRequest::ElicitRequest(rmcp::model::ElicitRequest::new(
            rmcp::model::ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: format!("Approve this write? {text}"),
                requested_schema,
            },
        ));
        let waiting = format!("Waiting for the user to approve: {text}");
        return match request_during_call(context, request, policy, &waiting).await {
            Ok(rmcp::model::ClientResult::ElicitResult(answer)) => {
                let approved = answer.action == rmcp::model::ElicitationAction::Accept
                    && answer.content.as_ref().and_then(|c| c.get("approve"))
                        == Some(&Value::Bool(true));
                if approved {
                    Asked::Approved
                } else {
                    Asked::Declined("declined by the user")
                }
            }
            Ok(_other) => Asked::CannotAsk,
            Err(Unanswered::Cancelled) => Asked::Cancelled,
            Err(Unanswered::TimedOut(_)) => Asked::Declined("the user did not answer in time"),
            Err(Unanswered::Failed(error)) => {
                tracing::debug!(%error, "elicitation failed: asking out of band");
                Asked::CannotAsk
            }
        };
    }
    let elicits = context
        .client_capabilities()
        .is_some_and(|c| elicits_forms(&c));
    // The repeat: the answer counts only with this server's own state for this call, and
    // once: the round's record in the approval store is decided and consumed atomically.
    let answer = round
        .responses
        .as_ref()
        .and_then(|responses| responses.get(QUESTION));
    let opened = answer
        .and(round.state.as_deref())
        .and_then(|state| open_state(key, state, caller, tool, fingerprints));
    match answer.zip(opened) {
        Some((answer, (nonce, Mode::Form))) if elicits => {
            let approved = answer.get("action").and_then(Value::as_str) == Some("accept")
                && answer.pointer("/content/approve") == Some(&Value::Bool(true));
            return answered_round(store, &nonce, caller, fingerprints, approved).await;
        }
        // The caller was sent to the approvals page (URL mode): its `accept` says the user
        // opened the link, the decision is the page's, in the store.
        #[cfg(feature = "approvals-page")]
        Some((answer, (nonce, Mode::Url))) => {
            let accepted = answer.get("action").and_then(Value::as_str) == Some("accept");
            let confirmed =
                crate::http::confirmed_by_url(context, store, &nonce, caller, accepted, policy)
                    .await;
            return Asked::ByUrl(nonce, confirmed);
        }
        _ => {}
    }
    if !elicits {
        return Asked::CannotAsk;
    }
    let Ok(requested_schema) = rmcp::model::ElicitationSchema::from_type::<ApprovalForm>() else {
        return Asked::CannotAsk;
    };
    let question =
        rmcp::model::ElicitRequest::new(rmcp::model::ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: format!("Approve this write? {text}"),
            requested_schema,
        });
    let mut requests = rmcp::model::InputRequests::new();
    requests.insert(
        QUESTION.to_owned(),
        rmcp::model::InputRequest::Elicitation(question),
    );
    // The round's record, pending until the answer comes back: what makes the answer count
    // once, on every instance that shares the store.
    let nonce = uuid::Uuid::now_v7().to_string();
    let record = ApprovalRequest {
        id: nonce.clone(),
        tool: tool.to_owned(),
        text: text.to_owned(),
        caller: caller.to_owned(),
        fingerprints: fingerprints.to_vec(),
        expires_at: unix_now() + ROUND_TTL.as_secs(),
        decision: Decision::Pending,
        review: None,
    };
    if store.create(&record).await.is_err() {
        return Asked::CannotAsk;
    }
    Asked::Ask(rmcp::model::InputRequiredResult::new(
        Some(requests),
        Some(seal_state(
            key,
            &nonce,
            caller,
            tool,
            fingerprints,
            Mode::Form,
        )),
    ))
}

/// How long an input-required approval round may take to come back: 10 minutes.
#[cfg(feature = "elicitation")]
const ROUND_TTL: Duration = Duration::from_secs(600);

/// The answer of an input-required round whose state opened: its record decided (approved
/// by the caller, or declined) and, when approved, consumed, so a second sending of the
/// same answer finds it used and runs nothing.
#[cfg(feature = "elicitation")]
async fn answered_round(
    store: &dyn ApprovalStore,
    nonce: &str,
    caller: &str,
    fingerprints: &[String],
    approved: bool,
) -> Asked {
    let decision = if approved {
        Decision::Approved {
            approval_id: uuid::Uuid::now_v7().to_string(),
            approver: caller.to_owned(),
        }
    } else {
        Decision::Rejected {
            approver: caller.to_owned(),
            reason: "declined by the user".to_owned(),
        }
    };
    match store.decide(nonce, decision).await {
        Ok(Ok(_)) if approved => {}
        Ok(Ok(_)) => return Asked::Declined("declined by the user"),
        Ok(Err(refusal)) => return Asked::Refused(refusal),
        Err(error) => {
            tracing::error!(%error, "approval store failed to record a round's answer");
            return Asked::Refused(Refusal::Unknown);
        }
    }
    match store.consume(nonce, caller, fingerprints).await {
        Ok(Ok((approval_id, approver))) => Asked::ApprovedRound(approval_id, approver),
        Ok(Err(refusal)) => Asked::Refused(refusal),
        Err(error) => {
            tracing::error!(%error, "approval store failed to use a round's approval");
            Asked::Refused(Refusal::Unknown)
        }
    }
}

/// What asking the human needs: the server key that seals a round, who asks, for which
/// tool and arguments, the approval text, the call and the approval store.
#[cfg_attr(not(feature = "elicitation"), allow(dead_code))]
pub(super) struct Question<'a> {
    pub(super) key: &'a ServerKey,
    pub(super) caller: &'a str,
    pub(super) context: &'a RequestContext<RoleServer>,
    pub(super) text: &'a str,
    pub(super) round: &'a Round,
    pub(super) tool: &'a str,
    pub(super) fingerprints: &'a [String],
    pub(super) store: &'a dyn ApprovalStore,
    pub(super) policy: AskPolicy,
}

/// Without the `elicitation` feature every client is asked out of band.
#[cfg(not(feature = "elicitation"))]
pub(super) async fn ask(_question: Question<'_>) -> Asked {
    Asked::CannotAsk
}

/// How an input-required approval round asks (sealed in its state, so that an answer counts
/// only as the kind of answer its round asked for).
#[cfg(feature = "elicitation")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// A form the client's user answers: its `accept` with `approve: true` approves.
    Form,
    /// MCP 2026-07-28 "Elicitation", URL mode: a link to the approvals page, whose decision
    /// the approval store holds; the client's `accept` only says the user opened it.
    Url,
}

/// The state of an input-required approval round, sealed under the server key
/// ([`ServerKey::seal`]): the round's nonce (the id of its record in the approval store),
/// the caller (its identity key), the tool, the arguments' fingerprint, an expiry and, for
/// a URL-mode round, `"mode": "url"`.
#[cfg(feature = "elicitation")]
pub(super) fn seal_state(
    key: &ServerKey,
    nonce: &str,
    caller: &str,
    tool: &str,
    fingerprints: &[String],
    mode: Mode,
) -> String {
    let mut body = serde_json::json!({
        "nonce": nonce,
        "caller": caller,
        "tool": tool,
        "fingerprint": fingerprints.first(),
        "expiresAt": unix_now() + ROUND_TTL.as_secs(),
    });
    if mode == Mode::Url {
        body["mode"] = Value::from("url");
    }
    key.seal(&body)
}

/// The round's nonce and how it asked, when `state` is this server's sealed state for this
/// caller, tool and arguments, and not expired.
#[cfg(feature = "elicitation")]
pub(super) fn open_state(
    key: &ServerKey,
    state: &str,
    caller: &str,
    tool: &str,
    fingerprints: &[String],
) -> Option<(String, Mode)> {
    let body = key.open(state)?;
    let bound = body["caller"] == caller
        && body["tool"] == tool
        && body["fingerprint"]
            .as_str()
            .is_some_and(|f| fingerprints.iter().any(|mine| mine == f))
        && body["expiresAt"].as_u64().is_some_and(|at| at > unix_now());
    let mode = match body.get("mode").and_then(Value::as_str) {
        None => Mode::Form,
        Some("url") => Mode::Url,
        Some(_) => return None,
    };
    body["nonce"]
        .as_str()
        .filter(|_| bound)
        .map(|nonce| (nonce.to_owned(), mode))
}

/// What the approval gate of one call reads: the tool's approval template, the call's
/// approval request id, round, arguments and their fingerprints, and the approval store.
pub(crate) struct Gate<'a> {
    pub(crate) template: &'a str,
    pub(crate) request_id: Option<String>,
    pub(crate) round: Round,
    pub(crate) arguments: &'a Value,
    pub(crate) fingerprints: &'a [String],
    pub(crate) context: &'a RequestContext<RoleServer>,
    pub(crate) store: Arc<dyn ApprovalStore>,
    pub(crate) schema: &'a ArgumentSchema,
    pub(crate) key: &'a ServerKey,
    /// How long the user has to answer during the call.
    pub(crate) policy: AskPolicy,
}

/// The human decision an approval-gated write needs ([`crate::approval`]): `Ok((approvalId,
/// approver))` lets it run now; `Err(answer)` is the answer instead: blocked, declined or
/// refused (audited as this attempt's outcome), or, on MCP 2026-07-28, the question as an
/// input-required round (not a write attempt: nothing audited, no key kept).
///
/// The records of an attempt that reaches the gate name its approval request
/// ([`AuditRecord::approval_request_id`](crate::audit::AuditRecord)): the one it created, or
/// the one it came back with when that is the caller's own and no longer pending
/// ([`consume`]). (A keyed call answered from the idempotency store never reaches the gate:
/// its `replay` record names the event it repeats.)
pub(crate) async fn gate(
    gate: Gate<'_>,
    audit: &mut Audit,
) -> Result<(String, String), CallToolResponse> {
    let Gate {
        template,
        request_id,
        round,
        arguments,
        fingerprints,
        context,
        store,
        schema,
        key,
        policy,
    } = gate;
    let round = &round;
    if let Some(id) = request_id {
        if id.contains('\0') {
            // No request's id holds it, and some databases cannot even be asked (nor keep it
            // in the audit record).
            return Err(audit
                .refuse(ToolError::conflict(Refusal::Unknown.message()))
                .await
                .into());
        }
        return consume(&*store, &id, audit, fingerprints).await;
    }
    let text = approval_text(template, &audit.record.tool, arguments, |p| {
        schema.is_secret(p)
    });
    let question = Question {
        key,
        caller: &audit.record.caller,
        context,
        text: &text,
        round,
        tool: &audit.record.tool,
        fingerprints,
        store: &*store,
        policy,
    };
    match ask(question).await {
        Asked::Approved => Ok((
            uuid::Uuid::now_v7().to_string(),
            audit.record.caller.clone(),
        )),
        Asked::ApprovedRound(approval_id, approver) => Ok((approval_id, approver)),
        Asked::Refused(refusal) => Err(audit
            .refuse(ToolError::conflict(refusal.message()))
            .await
            .into()),
        Asked::Declined(reason) => {
            Err(audit.refuse(ToolError::policy_blocked(reason)).await.into())
        }
        Asked::Cancelled => Err(audit
            .refuse(ToolError::cancelled_before_running())
            .await
            .into()),
        Asked::Ask(question) => Err(question.into()),
        #[cfg(all(feature = "approvals-page", feature = "elicitation"))]
        Asked::ByUrl(id, confirmed) => {
            audit.record.approval_request_id = Some(id.clone());
            let url = Url {
                id: &id,
                text: &text,
                key,
                fingerprints,
                store: &*store,
            };
            by_url(confirmed, url, audit).await
        }
        Asked::CannotAsk => {
            // The client cannot be asked during the call: an approver decides out of band.
            let request = ApprovalRequest {
                id: uuid::Uuid::now_v7().to_string(),
                tool: audit.record.tool.clone(),
                text: text.clone(),
                caller: audit.record.caller.clone(),
                fingerprints: fingerprints.to_vec(),
                expires_at: unix_now() + APPROVAL_TTL.as_secs(),
                decision: Decision::Pending,
                // What the approver is shown (the approvals page): the arguments, no secret.
                review: Some(Review {
                    argument_digest: audit.record.argument_digest.clone(),
                    ..Review::of(arguments, |p| schema.has_secrets() && schema.is_secret(p))
                }),
            };
            match store.create(&request).await {
                // From here on the attempt is about the request it created.
                Ok(()) => audit.record.approval_request_id = Some(request.id.clone()),
                Err(crate::store::StoreError::Refused(reason)) => {
                    let advice = "The write did not run; call again once earlier approval \
                                  requests are decided or expire.";
                    return Err(audit
                        .refuse(ToolError::quota_exceeded(reason, advice))
                        .await
                        .into());
                }
                Err(error) => return Err(audit_failed(&error).into()),
            }
            // A client that declared URL-mode elicitation is sent to the request's page,
            // where its user confirms it (`ApprovalsPage::callers_confirm`); the page's
            // decision is then used as an out-of-band one is.
            #[cfg(all(feature = "approvals-page", feature = "elicitation"))]
            if let Some(confirmed) =
                crate::http::confirm_by_url(context, &*store, &request, policy).await
            {
                let url = Url {
                    id: &request.id,
                    text: &text,
                    key,
                    fingerprints,
                    store: &*store,
                };
                return by_url(confirmed, url, audit).await;
            }
            // A stdio server's local approvals page: the answer names the caller's link.
            #[cfg(feature = "approvals-page")]
            let page = crate::http::local_sign_in(context, &*store, &request).await;
            #[cfg(not(feature = "approvals-page"))]
            let page = None;
            Err(blocked(&request.id, &text, page, &*audit).await)
        }
    }
}

/// Runs the write under approval request `id` when the store lets this call use it (the
/// caller's, for these arguments, approved, unexpired, unused; consumed now); else the
/// refusal, audited (`conflict`). The attempt's records name the request when it is the
/// caller's and the call was not only asking whether it is decided yet: an id that names
/// nothing to this caller (another's, or none) is not written into its records, nor is a
/// retry while the request is pending (a client polling its request would fill its trail).
async fn consume(
    store: &dyn ApprovalStore,
    id: &str,
    audit: &mut Audit,
    fingerprints: &[String],
) -> Result<(String, String), CallToolResponse> {
    let used = store.consume(id, &audit.record.caller, fingerprints).await;
    if !matches!(&used, Ok(Err(Refusal::Unknown | Refusal::Pending)) | Err(_)) {
        audit.record.approval_request_id = Some(id.to_owned());
    }
    match used {
        Ok(Ok(approved)) => Ok(approved),
        Ok(Err(refusal)) => Err(audit
            .refuse(ToolError::conflict(refusal.message()))
            .await
            .into()),
        Err(error) => Err(audit_failed(&error).into()),
    }
}

/// The answer of a write left to a decider: `blocked`, with approval request `id` and a
/// `resource_link` to it, audited; its text names `page`, a sign-in link to the request's
/// page where its caller confirms it (a stdio server's local approvals page).
async fn blocked(id: &str, text: &str, page: Option<String>, audit: &Audit) -> CallToolResponse {
    let error = match page {
        Some(url) => ToolError::approval_required_at(id.to_owned(), text, &url),
        None => ToolError::approval_required(id.to_owned(), text),
    };
    let mut answer = audit.refuse(error).await;
    let link = crate::result::content::Artifact::new(
        format!("{}{id}", crate::write::approval::APPROVAL_URI_PREFIX),
        "approval-request",
    )
    .with_title(format!("Approval request: {text}"))
    .with_mime_type("application/json");
    answer.content.push(link.to_block());
    answer.into()
}

/// The approval request a URL-mode confirmation is about, and what its answer needs.
#[cfg(all(feature = "approvals-page", feature = "elicitation"))]
struct Url<'a> {
    id: &'a str,
    text: &'a str,
    key: &'a ServerKey,
    fingerprints: &'a [String],
    store: &'a dyn ApprovalStore,
}

/// The answer of a URL-mode confirmation on the approvals page (MCP 2025-11-25
/// "Elicitation", URL mode; in an input-required round from 2026-07-28 on), the same on
/// both revisions: decided on the page, the request is used as an out-of-band approval is
/// (the write runs once under it, or its refusal); declined or cancelled, the write does
/// not run; undecided, `blocked` with the request's id; on 2026-07-28 first the round that
/// asks, its state sealed as a form round's is (bound to the caller, the tool, the
/// arguments and an expiry) and naming the request.
#[cfg(all(feature = "approvals-page", feature = "elicitation"))]
async fn by_url(
    confirmed: crate::http::Confirmed,
    url: Url<'_>,
    audit: &mut Audit,
) -> Result<(String, String), CallToolResponse> {
    use crate::http::Confirmed;
    let Url {
        id,
        text,
        key,
        fingerprints,
        store,
    } = url;
    match confirmed {
        Confirmed::Decided => consume(store, id, audit, fingerprints).await,
        Confirmed::Declined(reason) => {
            Err(audit.refuse(ToolError::policy_blocked(reason)).await.into())
        }
        Confirmed::Cancelled => Err(audit
            .refuse(ToolError::cancelled_before_running())
            .await
            .into()),
        Confirmed::Undecided => Err(blocked(id, text, None, audit).await),
        Confirmed::Ask(question) => {
            let record = &audit.record;
            let mut requests = rmcp::model::InputRequests::new();
            requests.insert(
                QUESTION.to_owned(),
                rmcp::model::InputRequest::Elicitation(*question),
            );
            let state = seal_state(
                key,
                id,
                &record.caller,
                &record.tool,
                fingerprints,
                Mode::Url,
            );
            Err(rmcp::model::InputRequiredResult::new(Some(requests), Some(state)).into())
        }
    }
}

/// The approval request id of a call: `_meta`'s, else the framework's argument (taken out
/// of the arguments, which the tool's own type does not have).
pub(crate) fn approval_request_id(
    context: &RequestContext<RoleServer>,
    arguments: &mut Value,
) -> Option<String> {
    let from_argument = arguments
        .as_object_mut()
        .and_then(|a| a.remove(APPROVAL_REQUEST_ARGUMENT))
        .and_then(|v| v.as_str().map(str::to_owned));
    context
        .meta
        .get(APPROVAL_REQUEST_META)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or(from_argument)
}
