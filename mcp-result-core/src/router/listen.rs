//! Change notifications to the clients that asked (MCP "Resources: Subscriptions"): the
//! 2026-07-28 `subscriptions/listen` stream (SEP-2575) and, before it, a session's
//! `resources/subscribe`. What changed comes from the instance's [`Subscriptions`]; the
//! tasks a stream follows from the task store ([`super::tasks`]).
//!
//! A stream honours what the server advertises (rmcp intersects the filter below with the
//! capabilities): `resourceSubscriptions` (at most [`MAX_FOLLOWED`] URIs, any URI: a
//! resource that never changes is never told), `resourcesListChanged`, and `taskIds` when
//! the server runs tasks. The tools and prompts of a `#[mcp_tools]` server do not change
//! while it runs, so `toolsListChanged` and `promptsListChanged` are not honoured.

use std::collections::BTreeSet;

use rmcp::{
    model::{
        GetMeta as _, ResourceUpdatedNotificationParam, ServerNotification, SubscribeRequestParams,
        SubscriptionFilter, TaskStatusNotification, TaskStatusNotificationParams,
        UnsubscribeRequestParams,
    },
    service::{RequestContext, SubscriptionContext, SubscriptionSink},
    ErrorData, RoleServer,
};
use tokio::sync::broadcast::error::RecvError;

use super::{registry::ToolRegistry, set::ToolSet};
use crate::{
    subscriptions::{lock, Change, ListenTaskIds, MAX_FOLLOWED},
    tool::log::session_of,
};

/// The refusal of `resources/subscribe` over streamable HTTP without a session (JSON-RPC
/// `-32600`): no session, no stream to carry the notifications.
#[cfg(feature = "http")]
pub(crate) const STATELESS_SUBSCRIBE: &str =
    "resources/subscribe needs a session, and this server \
    serves streamable HTTP without sessions: on MCP 2026-07-28, follow the resource with \
    subscriptions/listen (resourceSubscriptions)";

/// What a `subscriptions/listen` stream may follow of what it asked (`requested`): its
/// first [`MAX_FOLLOWED`] resources and the resource list. rmcp keeps of it what the
/// server's capabilities advertise.
pub(crate) fn accepted_filter(requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
    let mut accepted = SubscriptionFilter::new();
    accepted.resources_list_changed = Some(true);
    accepted.resource_subscriptions = requested
        .resource_subscriptions
        .as_ref()
        .map(|uris| uris.iter().take(MAX_FOLLOWED).cloned().collect());
    Some(accepted)
}

/// The `taskIds` the framework's transport read from the listen request, if any.
fn task_ids(context: &RequestContext<RoleServer>) -> Option<Vec<String>> {
    if let Some(ids) = context.extensions.get::<ListenTaskIds>() {
        return Some(ids.0.clone());
    }
    #[cfg(feature = "http")]
    if let Some(parts) = context.extensions.get::<http::request::Parts>() {
        return parts
            .extensions
            .get::<ListenTaskIds>()
            .map(|ids| ids.0.clone());
    }
    None
}

/// Sends `notification` on the stream, tagged with its subscription id (SEP-2575); `false`
/// once the stream is gone.
async fn send_task(
    context: &RequestContext<RoleServer>,
    sink: &SubscriptionSink,
    params: TaskStatusNotificationParams,
) -> bool {
    let mut notification =
        ServerNotification::TaskStatusNotification(TaskStatusNotification::new(params));
    notification
        .get_meta_mut()
        .set_subscription_id(sink.id().clone());
    // rmcp's sink refuses task notifications (its filter has no `taskIds`); the framework's
    // transports honoured them in the acknowledgement, so they go on the stream's peer.
    context.peer.send_notification(notification).await.is_ok()
}

impl<S: ToolSet> ToolRegistry<S> {
    /// Serves one `subscriptions/listen` stream until the client cancels it or the server
    /// stops (rmcp then sends its final result).
    ///
    /// # Errors
    /// None: a stream whose client is gone ends quietly.
    pub async fn listen(
        &self,
        server: &S,
        subscription: SubscriptionContext,
    ) -> Result<(), ErrorData> {
        let context = subscription.request_context();
        let state = self.state_for(context);
        let sink = subscription.sink().clone();
        let accepted = subscription.accepted().clone();
        let resources: BTreeSet<String> = accepted
            .resource_subscriptions
            .clone()
            .unwrap_or_default()
            .into_iter()
            .collect();
        let list_changed = accepted.resources_list_changed == Some(true);
        let mut changes = state.subscriptions().changes();
        let ids = task_ids(context)
            .filter(|_| self.has_tasks())
            .unwrap_or_default();
        let mut tasks = self.watch_tasks(server, &state, ids, context);
        let mut poll = tokio::time::interval(tasks.interval());
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = subscription.cancelled() => return Ok(()),
                change = changes.recv() => {
                    let sent = match change {
                        Ok(Change::ResourceUpdated(uri)) if resources.contains(&uri) => {
                            sink.notify_resource_updated(uri).await.is_ok()
                        }
                        Ok(Change::ResourceListChanged) if list_changed => {
                            sink.notify_resource_list_changed().await.is_ok()
                        }
                        Ok(_) => true,
                        // Fell behind: every followed resource may have changed.
                        Err(RecvError::Lagged(_)) => {
                            let mut sent = true;
                            for uri in &resources {
                                sent &= sink.notify_resource_updated(uri.clone()).await.is_ok();
                            }
                            if list_changed {
                                sent &= sink.notify_resource_list_changed().await.is_ok();
                            }
                            sent
                        }
                        Err(RecvError::Closed) => return Ok(()),
                    };
                    if !sent {
                        return Ok(());
                    }
                }
                _ = poll.tick(), if !tasks.is_empty() => {
                    for params in self.changed_tasks(server, &state, &mut tasks).await {
                        if !send_task(context, &sink, params).await {
                            return Ok(());
                        }
                    }
                }
            }
        }
    }

    /// `resources/subscribe` (before MCP 2026-07-28): the session follows `uri` until
    /// `resources/unsubscribe` or its end; the session's first subscription starts the
    /// listener that sends it `notifications/resources/updated`.
    ///
    /// # Errors
    /// `-32602` past [`MAX_FOLLOWED`] resources in one session; `-32600` over streamable
    /// HTTP without a session ([`STATELESS_SUBSCRIBE`]), where no stream would carry them.
    pub fn subscribe(
        &self,
        params: SubscribeRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        #[cfg(feature = "http")]
        if context
            .extensions
            .get::<http::request::Parts>()
            .is_some_and(|parts| !parts.headers.contains_key("mcp-session-id"))
        {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::INVALID_REQUEST,
                STATELESS_SUBSCRIBE,
                None,
            ));
        }
        let state = self.state_for(context);
        let subscriptions = state.subscriptions().clone();
        let session = session_of(context);
        let (followed, fresh) = subscriptions.session(&session);
        {
            let mut uris = lock(&followed);
            if uris.len() >= MAX_FOLLOWED && !uris.contains(&params.uri) {
                return Err(ErrorData::invalid_params(
                    format!(
                        "a session follows at most {MAX_FOLLOWED} resources: \
                         resources/unsubscribe one first"
                    ),
                    None,
                ));
            }
            uris.insert(params.uri);
        }
        if fresh {
            let mut changes = subscriptions.changes();
            let peer = context.peer.clone();
            tokio::spawn(async move {
                let mut check = tokio::time::interval(std::time::Duration::from_secs(5));
                loop {
                    let change = tokio::select! {
                        change = changes.recv() => change,
                        _ = check.tick() => {
                            if peer.is_transport_closed() { break; }
                            continue;
                        }
                    };
                    let uris: Vec<String> = match change {
                        Ok(Change::ResourceUpdated(uri)) if lock(&followed).contains(&uri) => {
                            vec![uri]
                        }
                        Ok(_) => continue,
                        Err(RecvError::Lagged(_)) => lock(&followed).iter().cloned().collect(),
                        Err(RecvError::Closed) => break,
                    };
                    let mut sent = true;
                    for uri in uris {
                        sent &= peer
                            .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri))
                            .await
                            .is_ok();
                    }
                    if !sent {
                        break;
                    }
                }
                subscriptions.end_session(&session, &followed);
            });
        }
        Ok(())
    }

    /// `resources/unsubscribe` (before MCP 2026-07-28): the session no longer follows
    /// `uri` (a URI it did not follow is no error).
    ///
    /// # Errors
    /// None.
    pub fn unsubscribe(
        &self,
        params: &UnsubscribeRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.state_for(context)
            .subscriptions()
            .unfollow(&session_of(context), &params.uri);
        Ok(())
    }
}
