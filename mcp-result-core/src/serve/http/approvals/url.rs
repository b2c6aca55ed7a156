//! Callers sent to the page to confirm their own requests ([`ApprovalsPage::callers_confirm`]):
//! by URL-mode elicitation, and (the local page beside stdio, [`super::local`]) by the link
//! a `blocked` answer names.

use super::*;

/// The page callers confirm their own requests on ([`ApprovalsPage::callers_confirm`]):
/// put in the MCP endpoint's requests by the router, or in the [`State`](crate::State) of
/// a stdio server by its local page ([`super::local`]), so a gated write of such a request
/// may send its caller to the page.
#[derive(Debug, Clone)]
pub(crate) struct UrlConfirmation(Arc<ApprovalsPage>);

impl UrlConfirmation {
    pub(crate) fn new(page: &ApprovalsPage) -> Self {
        Self(Arc::new(page.clone()))
    }

    /// The page of `context`'s request: the HTTP request's (the router put it there), else,
    /// for a request that came over no HTTP, the local page in the served state's values.
    fn of(context: &rmcp::service::RequestContext<rmcp::RoleServer>) -> Option<&Self> {
        match context.extensions.get::<http::request::Parts>() {
            Some(parts) => parts.extensions.get::<Self>(),
            None => crate::state::State::of(context)?.get::<Self>(),
        }
    }
}

/// The one-time sign-in link to `request`'s page for its caller, when the request came
/// over stdio to a server with a local approvals page
/// ([`State::with_local_approvals_page`](crate::State::with_local_approvals_page)) and
/// the caller is the request's: what a `blocked` answer names, so that whoever reads it
/// (the person at the client, or the model that shows it to them) can confirm it. `None`
/// over HTTP (a decider decides there, or URL-mode elicitation sends the caller) and when
/// the link could not be stored.
pub(crate) async fn local_sign_in(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    store: &dyn ApprovalStore,
    request: &ApprovalRequest,
) -> Option<String> {
    if context.extensions.get::<http::request::Parts>().is_some() {
        return None;
    }
    let UrlConfirmation(page) = UrlConfirmation::of(context)?;
    let base = page.public_url.as_deref()?;
    let caller = Identity::of(context).filter(|c| c.key() == request.caller)?;
    let token = caller_link(store, &caller, request).await?;
    Some(format!("{base}{}/sign-in?token={token}", page.path))
}

/// How a URL-mode confirmation ended, or (MCP 2026-07-28) the question it asks first.
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
    /// MCP 2026-07-28 (multi round-trip requests, "Elicitation" URL mode): the
    /// `elicitation/create` of mode `url` the call answers with, inside an input-required
    /// round; the client opens the link and calls again with its answer
    /// ([`confirmed_by_url`]).
    Ask(Box<rmcp::model::ElicitRequest>),
}

/// The method of the notification that tells the client a URL-mode elicitation is done
/// (MCP 2025-11-25 "Elicitation"; rmcp 3.11 has no type for it: sent as a custom
/// notification). MCP 2026-07-28 removed it: the client learns the outcome by calling
/// again, so a round's confirmation sends none.
#[cfg(feature = "elicitation")]
pub(crate) const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

/// How often the waiting call looks at the store for the page's decision.
#[cfg(feature = "elicitation")]
const POLL: Duration = Duration::from_millis(200);

/// Sends the caller of `request` (pending, in `store`) to its page by URL-mode
/// elicitation, when the call can: the page lets callers confirm and the router put it in
/// this request, the client declared URL mode (and not form mode, which asks with a form
/// instead), the caller is the request's, the page has a public base URL (or the MCP
/// request's `Host` is a loopback host), and the question can reach the client: during the
/// call before MCP 2026-07-28 (over a connection that carries the answer back), in an
/// input-required round from 2026-07-28 on. `None` when not: the request is left to a
/// decider, out of band.
///
/// With OAuth sign-in ([`ApprovalsPage::oauth_client`]) the link is the request's page,
/// with no credential in it: opened without a session, the page starts the sign-in at the
/// authorization server and comes back to the request, which it shows and lets decide only
/// to its caller (the identity key an MCP call with the person's token has, tenant
/// included: MCP 2025-11-25 "Elicitation", URL mode, the server verifies that the person
/// who completes it is the user it was meant for). Without it (static tokens, local use)
/// the link is a one-time sign-in (as [`ApprovalsPage::sign_in_link`]) bound to the
/// caller's identity and to this request, usable within [`SIGN_IN_TTL`], sent only in
/// this elicitation (to the caller's own authenticated session).
///
/// Before 2026-07-28 (MCP 2025-11-25 "Elicitation", URL mode) the elicitation is sent
/// during the call; after the client's `accept` the call waits, until `policy.wait` from
/// the start, for the page's decision, and once decided sends
/// `notifications/elicitation/complete`. From 2026-07-28 on (multi round-trip requests)
/// it is [`Confirmed::Ask`]: the round's question, answered by the call that comes again
/// ([`confirmed_by_url`]).
#[cfg(feature = "elicitation")]
pub(crate) async fn confirm_by_url(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    store: &dyn ApprovalStore,
    request: &ApprovalRequest,
    policy: crate::call::client::AskPolicy,
) -> Option<Confirmed> {
    use crate::call::client::{request_during_call, Unanswered};
    use rmcp::model::{
        ClientResult, CustomNotification, ElicitRequest, ElicitationAction, ServerNotification,
        ServerRequest,
    };

    let by_round = crate::call::client::asks_by_round(context);
    // Before MCP 2026-07-28 only over a connection that carries the answer back.
    if !by_round && !crate::call::client::requests_reach_the_client(context) {
        return None;
    }
    let (caller, asked) = link(context, store, request).await?;
    if by_round {
        return Some(Confirmed::Ask(Box::new(ElicitRequest::new(asked))));
    }
    let asked = ServerRequest::ElicitRequest(ElicitRequest::new(asked));
    let started = tokio::time::Instant::now();
    let waiting = format!(
        "Waiting for the user to confirm on the page: {}",
        request.text
    );
    match request_during_call(context, asked, policy, &waiting).await {
        Ok(ClientResult::ElicitResult(answer)) if answer.action == ElicitationAction::Accept => {}
        Ok(ClientResult::ElicitResult(_)) => {
            return Some(decline(store, &request.id, &caller).await);
        }
        Ok(_) | Err(Unanswered::TimedOut(_)) => return Some(Confirmed::Undecided),
        Err(Unanswered::Failed(error)) => {
            tracing::debug!(%error, "URL-mode elicitation failed: asking out of band");
            return Some(Confirmed::Undecided);
        }
        Err(Unanswered::Cancelled) => {
            reject(store, &request.id, &caller, "the call was cancelled").await;
            return Some(Confirmed::Cancelled);
        }
    }
    // Accepted: the user opened the link. The decision is the page's, in the store.
    let decided = decision(context, store, &request.id, &caller, started + policy.wait).await;
    if !matches!(decided, Confirmed::Decided) {
        return Some(decided);
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

/// The answer of an MCP 2026-07-28 input-required round whose question was
/// [`Confirmed::Ask`], for request `id` of `caller` (its identity key), the round's state
/// opened. `accepted` (the client's `accept`: the user consented to open the link, which
/// says nothing of the decision, 2026-07-28 "Elicitation", URL mode): the request's
/// decision in the store, waited for as after a 2025-11-25 `accept`, until `policy.wait`
/// from now (the page decided: [`Confirmed::Decided`]; still pending:
/// [`Confirmed::Undecided`]; the call cancelled meanwhile rejects it). Not accepted
/// (`decline`, `cancel`): the request is rejected, "declined by the user". No
/// `notifications/elicitation/complete`: 2026-07-28 removed it, the answer of this call
/// completes the elicitation.
#[cfg(feature = "elicitation")]
pub(crate) async fn confirmed_by_url(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    store: &dyn ApprovalStore,
    id: &str,
    caller: &str,
    accepted: bool,
    policy: crate::call::client::AskPolicy,
) -> Confirmed {
    if !accepted {
        return decline(store, id, caller).await;
    }
    let deadline = tokio::time::Instant::now() + policy.wait;
    decision(context, store, id, caller, deadline).await
}

/// The URL-mode elicitation that sends the caller of `request` to its page, when the page,
/// the client's capabilities, the caller and the base URL allow it (see
/// [`confirm_by_url`]): the caller's identity key and the elicitation's parameters, its
/// link the request's page (OAuth sign-in), else a one-time sign-in minted (and stored)
/// for this caller and request.
#[cfg(feature = "elicitation")]
async fn link(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    store: &dyn ApprovalStore,
    request: &ApprovalRequest,
) -> Option<(String, rmcp::model::ElicitRequestParams)> {
    let UrlConfirmation(page) = UrlConfirmation::of(context)?;
    let capabilities = context.client_capabilities()?;
    let declared_url = capabilities
        .elicitation
        .as_ref()
        .is_some_and(|modes| modes.url.is_some());
    if !page.callers_confirm || !declared_url || crate::call::client::elicits_forms(&capabilities) {
        return None;
    }
    let caller = Identity::of(context).filter(|c| c.key() == request.caller)?;
    let parts = context.extensions.get::<http::request::Parts>();
    let base = match &page.public_url {
        Some(url) => url.clone(),
        None if parts.is_some_and(|parts| on_loopback(&parts.headers)) => {
            let host = parts?.headers.get(header::HOST)?.to_str().ok()?;
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
    #[cfg(feature = "oauth")]
    let through_the_authorization_server = page.oauth.is_some();
    #[cfg(not(feature = "oauth"))]
    let through_the_authorization_server = false;
    let shown = shown_identity(&caller);
    let (url, message) = if through_the_authorization_server {
        // The request's page, no credential in it: opened without a session it starts the
        // sign-in at the authorization server, and shows the request only to its caller.
        (
            format!("{base}{}/requests/{}", page.path, request.id),
            format!(
                "Approve this write? {} Open the link and sign in as {shown} to review and \
                 confirm it.",
                request.text
            ),
        )
    } else {
        let token = caller_link(store, &caller, request).await?;
        (
            format!("{base}{}/sign-in?token={token}", page.path),
            format!(
                "Approve this write? {} Open the link to review and confirm it, signed in \
                 as {shown}.",
                request.text
            ),
        )
    };
    // `elicitationId` is MCP 2025-11-25's; 2026-07-28 removed it, but rmcp 3.11 writes the
    // field on every revision (empty when unset): the request's id on both.
    let asked = rmcp::model::ElicitRequestParams::UrlElicitationParams {
        meta: None,
        message,
        url,
        elicitation_id: request.id.clone(),
    };
    Some((caller.key(), asked))
}

/// A one-time sign-in link's token for `caller` to `request` (a page without OAuth
/// sign-in), its record stored under the token's SHA-256: `None` when the store failed.
async fn caller_link(
    store: &dyn ApprovalStore,
    caller: &Identity,
    request: &ApprovalRequest,
) -> Option<String> {
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
        tracing::warn!(%error, "the caller's sign-in link to the approvals page was not stored: not sent");
        return None;
    }
    Some(token)
}

/// Rejects request `id` as its `caller` with `reason` (a decided or used request stays as
/// it is).
#[cfg(feature = "elicitation")]
async fn reject(store: &dyn ApprovalStore, id: &str, caller: &str, reason: &str) {
    let rejected = Decision::Rejected {
        approver: caller.to_owned(),
        reason: reason.to_owned(),
    };
    let _ = store.decide(id, rejected).await;
}

/// The client declined or cancelled the elicitation: the request is rejected, so its page
/// can no longer approve it.
#[cfg(feature = "elicitation")]
async fn decline(store: &dyn ApprovalStore, id: &str, caller: &str) -> Confirmed {
    reject(store, id, caller, "declined by the user").await;
    Confirmed::Declined("declined by the user")
}

/// Waits until `deadline` for the page's decision on request `id`, looking at the store
/// every [`POLL`]: [`Confirmed::Decided`] once it is decided (or expired, or gone),
/// [`Confirmed::Undecided`] past the deadline; a call cancelled meanwhile rejects it as
/// `caller` ([`Confirmed::Cancelled`]).
#[cfg(feature = "elicitation")]
async fn decision(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    store: &dyn ApprovalStore,
    id: &str,
    caller: &str,
    deadline: tokio::time::Instant,
) -> Confirmed {
    loop {
        match store.get(id).await {
            Ok(Some(now)) if now.decision != Decision::Pending || now.expired() => break,
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(error) => {
                tracing::warn!(%error, "approval store failed while a call waited for the page");
            }
        }
        if tokio::time::Instant::now() + POLL > deadline {
            return Confirmed::Undecided;
        }
        tokio::select! {
            biased;
            () = context.ct.cancelled() => {
                reject(store, id, caller, "the call was cancelled").await;
                return Confirmed::Cancelled;
            }
            () = tokio::time::sleep(POLL) => {}
        }
    }
    Confirmed::Decided
}
