//! Requests of the server to its client during a call (MCP before 2026-07-28: elicitation,
//! sampling, roots), bounded in time and withdrawn when the call ends first; and what the
//! client declared it can be asked.

use std::time::Duration;

#[cfg(feature = "elicitation")]
use rmcp::{
    model::{
        CancelledNotification, CancelledNotificationParam, ClientCapabilities, ClientResult,
        ServerNotification, ServerRequest,
    },
    service::{Peer, PeerRequestOptions, ServiceError},
};
use rmcp::{service::RequestContext, RoleServer};

#[cfg(feature = "elicitation")]
use crate::call::progress::Progress;

/// How long a call waits for its client to answer a question of the server (an approval
/// or an [`Ask`](crate::Ask) question sent during the call, before MCP 2026-07-28), and how
/// often it shows it is alive meanwhile. A value of the instance's
/// [`State`](crate::State): `State::new().with(AskPolicy { wait, ..AskPolicy::default() })`.
///
/// The wait is for a human, and the host waits on the call too: the TypeScript and Python
/// SDKs give up on a request after 60 s by default, so the default wait, 50 s, ends first
/// and the call is answered (an approval not given in time: `policy_blocked`; an `Ask`
/// question: `upstream_timeout`) instead of cut off. While it waits, a call whose client
/// sent a `progressToken` gets a progress notification every [`Self::heartbeat`] (hosts
/// that reset their timeout on progress, as the TypeScript SDK's `resetTimeoutOnProgress`
/// does, then wait as long as [`Self::wait`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AskPolicy {
    /// How long the call waits for the answer: default [`AskPolicy::WAIT`] (50 s). Past it
    /// the question is withdrawn (`notifications/cancelled`).
    pub wait: Duration,
    /// How often a waiting call sends a progress notification (when the client gave a
    /// `progressToken`): default [`AskPolicy::HEARTBEAT`] (15 s).
    pub heartbeat: Duration,
}

impl AskPolicy {
    /// The default wait for an answer: 50 s, below the 60 s after which the TypeScript and
    /// Python SDK clients give up on a request.
    pub const WAIT: Duration = Duration::from_secs(50);
    /// The default time between two progress notifications of a waiting call: 15 s.
    pub const HEARTBEAT: Duration = Duration::from_secs(15);
}

impl Default for AskPolicy {
    fn default() -> Self {
        Self {
            wait: Self::WAIT,
            heartbeat: Self::HEARTBEAT,
        }
    }
}

#[cfg(feature = "elicitation")]
/// Why a request to the client brought no answer.
#[derive(Debug)]
pub(crate) enum Unanswered {
    /// The call was cancelled by its client, or its client went away: the question was
    /// withdrawn.
    Cancelled,
    /// No answer within the wait: the question was withdrawn.
    TimedOut(Duration),
    /// The request failed: the client answered a JSON-RPC error, or could not be reached.
    Failed(ServiceError),
}

#[cfg(feature = "elicitation")]
/// Sends `request` to the client of the call `context` answers and waits for the answer, at
/// most `policy.wait`, sending `waiting` as a progress heartbeat meanwhile. The call's
/// cancellation wins over an answer that arrives at the same moment (the call's end is
/// decided once). Whenever this returns without the answer, or is dropped (the call
/// answered or cut off first), the request is withdrawn: `notifications/cancelled` with its
/// id (MCP "Cancellation").
pub(crate) async fn request_during_call(
    context: &RequestContext<RoleServer>,
    request: ServerRequest,
    policy: AskPolicy,
    waiting: &str,
) -> Result<ClientResult, Unanswered> {
    if context.ct.is_cancelled() {
        return Err(Unanswered::Cancelled);
    }
    let handle = context
        .peer
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .map_err(Unanswered::Failed)?;
    let mut pending = Pending {
        peer: context.peer.clone(),
        id: Some(handle.id.clone()),
    };
    let progress = context.extensions.get::<Progress>().cloned();
    let answer = handle.await_response();
    let deadline = tokio::time::sleep(policy.wait);
    let beat = policy.heartbeat.max(Duration::from_millis(10));
    let mut beats = tokio::time::interval_at(tokio::time::Instant::now() + beat, beat);
    tokio::pin!(answer, deadline);
    loop {
        tokio::select! {
            biased;
            () = context.ct.cancelled() => return Err(Unanswered::Cancelled),
            answered = &mut answer => {
                pending.id = None;
                return answered.map_err(Unanswered::Failed);
            }
            () = &mut deadline => return Err(Unanswered::TimedOut(policy.wait)),
            _ = beats.tick() => {
                if let Some(progress) = &progress {
                    progress.heartbeat(waiting).await;
                }
            }
        }
    }
}

#[cfg(feature = "elicitation")]
/// A request of the server still waiting for its answer: withdrawn when dropped.
struct Pending {
    peer: Peer<RoleServer>,
    id: Option<rmcp::model::RequestId>,
}

#[cfg(feature = "elicitation")]
impl Drop for Pending {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        let notification = CancelledNotification::new(CancelledNotificationParam::new(
            Some(id),
            Some("the call that asked ended".to_owned()),
        ));
        runtime.spawn(async move {
            if let Err(error) = peer
                .send_notification(ServerNotification::CancelledNotification(notification))
                .await
            {
                tracing::debug!(%error, "withdrawal of a question not sent");
            }
        });
    }
}

#[cfg(feature = "elicitation")]
/// Whether the client can be sent a form (`elicitation/create` in form mode): it declared
/// `elicitation` with `form`, or with neither mode (the capability before modes existed
/// means form). A client that declared only `url` cannot (MCP 2025-11-25 "Elicitation",
/// capabilities).
pub(crate) fn elicits_forms(capabilities: &ClientCapabilities) -> bool {
    capabilities
        .elicitation
        .as_ref()
        .is_some_and(|modes| modes.form.is_some() || modes.url.is_none())
}

/// Whether this call asks its client through input-required rounds (MCP 2026-07-28 on),
/// not through requests during the call.
pub(crate) fn asks_by_round(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .and_then(|v| serde_json::to_value(v).ok())
        .and_then(|v| v.as_str().map(|v| v >= "2026-07-28"))
        .unwrap_or(false)
}

#[cfg(feature = "elicitation")]
/// Whether a request of the server can reach the client during this call and its answer
/// come back. Not over streamable HTTP without a session before MCP 2026-07-28 (the
/// framework's default, stateless HTTP): the client would answer on a new POST that no
/// session ties to the waiting call, so asking would only wait out the time limit. Such a
/// call uses the out-of-band approval at once.
pub(crate) fn requests_reach_the_client(context: &RequestContext<RoleServer>) -> bool {
    #[cfg(feature = "http")]
    if let Some(parts) = context.extensions.get::<http::request::Parts>() {
        return !parts
            .extensions
            .get::<crate::state::Served>()
            .is_some_and(|served| served.stateless);
    }
    let _ = context;
    true
}
