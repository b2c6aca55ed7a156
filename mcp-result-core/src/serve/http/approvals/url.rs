//! URL-mode elicitation to the page ([`ApprovalsPage::callers_confirm`]): a caller sent
//! to confirm its own request.

use super::*;

/// URL-mode elicitation to the page ([`ApprovalsPage::callers_confirm`]): put in the MCP
/// endpoint's requests by the router, so a gated write of such a request may send its
/// caller to the page.
#[cfg(feature = "elicitation")]
#[derive(Debug, Clone)]
pub(crate) struct UrlConfirmation(Arc<ApprovalsPage>);

#[cfg(feature = "elicitation")]
impl UrlConfirmation {
    pub(crate) fn new(page: &ApprovalsPage) -> Self {
        Self(Arc::new(page.clone()))
    }
}

/// How a URL-mode confirmation ended.
#[cfg(feature = "elicitation")]
pub(crate) enum Confirmed {
    /// The request was decided on the page (approved or rejected) or expired: the gate
    /// uses it as an out-of-band approval is used.
    Decided,
    /// The client declined or cancelled the elicitation: the request is rejected.
    Declined(&'static str),
    /// The call was cancelled while it waited: the request is rejected.
    Cancelled,
    /// No decision within the wait, or the client failed: the request stays pending, for
    /// a decider (or the caller, still signed in) and a later call with its id.
    Undecided,
}

/// The method of the notification that tells the client a URL-mode elicitation is done
/// (MCP 2025-11-25 "Elicitation"; rmcp 3.11 has no type for it: sent as a custom
/// notification).
#[cfg(feature = "elicitation")]
pub(crate) const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

/// How often the waiting call looks at the store for the page's decision.
#[cfg(feature = "elicitation")]
const POLL: Duration = Duration::from_millis(200);

/// Sends the caller of `request` (pending, in `store`) to its page by URL-mode
/// elicitation, when the call can: the page lets callers confirm and the router put it in
/// this request, the client declared URL mode (and not form mode, which asks with a form
/// instead), requests reach it during the call, the caller is the request's, and the page
/// has a public base URL (or the MCP request's `Host` is a loopback host). `None` when not:
/// the request is left to a decider, out of band.
///
/// The link is a one-time sign-in (as [`ApprovalsPage::sign_in_link`]) bound to the
/// caller's identity and to this request, usable within [`SIGN_IN_TTL`], sent only in
/// this elicitation (to the caller's own authenticated session). After the client's
/// `accept` the call waits, until `policy.wait` from the start, for the page's decision;
/// once decided it sends `notifications/elicitation/complete`.
#[cfg(feature = "elicitation")]
pub(crate) async fn confirm_by_url(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    store: &dyn ApprovalStore,
    request: &ApprovalRequest,
    policy: crate::call::client::AskPolicy,
) -> Option<Confirmed> {
    use crate::call::client::{elicits_forms, request_during_call, Unanswered};
    use rmcp::model::{
        ClientResult, CustomNotification, ElicitRequest, ElicitRequestParams, ElicitationAction,
        ServerNotification, ServerRequest,
    };

    let parts = context.extensions.get::<http::request::Parts>()?;
    let UrlConfirmation(page) = parts.extensions.get::<UrlConfirmation>()?;
    let capabilities = context.client_capabilities()?;
    let declared_url = capabilities
        .elicitation
        .as_ref()
        .is_some_and(|modes| modes.url.is_some());
    if !page.callers_confirm || !declared_url || elicits_forms(&capabilities) {
        return None;
    }
    // Before MCP 2026-07-28 only (a request during the call); over a connection that
    // carries the answer back.
    if crate::call::client::asks_by_round(context)
        || !crate::call::client::requests_reach_the_client(context)
    {
        return None;
    }
    let caller = Identity::of(context).filter(|c| c.key() == request.caller)?;
    let base = match &page.public_url {
        Some(url) => url.clone(),
        None if on_loopback(&parts.headers) => {
            let host = parts.headers.get(header::HOST)?.to_str().ok()?;
            format!("http://{host}")
        }
        None => {
            tracing::debug!(
                "URL-mode elicitation not sent: the approvals page has no public URL and \
                 the request's Host is not a loopback host"
            );
            return None;
        }
    };
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    let token = base64_url(&bytes);
    let link = CallerLink {
        identity: caller.clone(),
        request: request.id.clone(),
    };
    let record = ApprovalRequest {
        id: token_id(&token),
        tool: CALLER_SIGN_IN_TOOL.to_owned(),
        text: serde_json::to_string(&link).ok()?,
        caller: caller.key(),
        fingerprints: Vec::new(),
        expires_at: unix_now() + SIGN_IN_TTL.as_secs(),
        decision: Decision::Pending,
        review: None,
    };
    if let Err(error) = store.create(&record).await {
        tracing::warn!(%error, "URL-mode elicitation not sent: its sign-in link was not stored");
        return None;
    }
    let url = format!("{base}{}/sign-in?token={token}", page.path);
    let message = format!(
        "Approve this write? {} Open the link to review and confirm it, signed in as {}.",
        request.text,
        shown_identity(&caller)
    );
    let asked = ServerRequest::ElicitRequest(ElicitRequest::new(
        ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message,
            url,
            elicitation_id: request.id.clone(),
        },
    ));
    let started = tokio::time::Instant::now();
    let waiting = format!(
        "Waiting for the user to confirm on the page: {}",
        request.text
    );
    let reject = |reason: &str| Decision::Rejected {
        approver: caller.key(),
        reason: reason.to_owned(),
    };
    match request_during_call(context, asked, policy, &waiting).await {
        Ok(ClientResult::ElicitResult(answer)) if answer.action == ElicitationAction::Accept => {}
        Ok(ClientResult::ElicitResult(_)) => {
            let _ = store
                .decide(&request.id, reject("declined by the user"))
                .await;
            return Some(Confirmed::Declined("declined by the user"));
        }
        Ok(_) | Err(Unanswered::TimedOut(_)) => return Some(Confirmed::Undecided),
        Err(Unanswered::Failed(error)) => {
            tracing::debug!(%error, "URL-mode elicitation failed: asking out of band");
            return Some(Confirmed::Undecided);
        }
        Err(Unanswered::Cancelled) => {
            let _ = store
                .decide(&request.id, reject("the call was cancelled"))
                .await;
            return Some(Confirmed::Cancelled);
        }
    }
    // Accepted: the user opened the link. The decision is the page's, in the store.
    let deadline = started + policy.wait;
    loop {
        match store.get(&request.id).await {
            Ok(Some(now)) if now.decision != Decision::Pending || now.expired() => break,
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(error) => {
                tracing::warn!(%error, "approval store failed while a call waited for the page");
            }
        }
        if tokio::time::Instant::now() + POLL > deadline {
            return Some(Confirmed::Undecided);
        }
        tokio::select! {
            biased;
            () = context.ct.cancelled() => {
                let _ = store
                    .decide(&request.id, reject("the call was cancelled"))
                    .await;
                return Some(Confirmed::Cancelled);
            }
            () = tokio::time::sleep(POLL) => {}
        }
    }
    let complete = CustomNotification::new(
        ELICITATION_COMPLETE,
        Some(serde_json::json!({ "elicitationId": request.id })),
    );
    if let Err(error) = context
        .peer
        .send_notification(ServerNotification::CustomNotification(complete))
        .await
    {
        tracing::debug!(%error, "notifications/elicitation/complete not sent");
    }
    Some(Confirmed::Decided)
}
