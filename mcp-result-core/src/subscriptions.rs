//! What changed, for the clients that asked to hear it: [`Subscriptions`], the instance's
//! resource change notifications (MCP "Resources: Subscriptions").
//!
//! A client hears them two ways, both served by the framework from this one source:
//!
//! - on MCP 2026-07-28, on a `subscriptions/listen` stream (SEP-2575) that names the
//!   resources (`resourceSubscriptions`), `resourcesListChanged`, and the tasks
//!   (`taskIds`, SEP-2663) it wants: `notifications/resources/updated`,
//!   `notifications/resources/list_changed` and `notifications/tasks`, each carrying the
//!   stream's `_meta["io.modelcontextprotocol/subscriptionId"]`;
//! - before it, on the session, after `resources/subscribe` (`resources/unsubscribe` ends
//!   it): `notifications/resources/updated`.
//!
//! A room of its own beneath `state.rs`, which holds one per instance; `router/listen.rs`
//! serves the streams.

use std::{
    collections::{BTreeSet, HashMap},
    sync::{Arc, Mutex},
};

use tokio::sync::broadcast;

/// How many changes wait for a slow listener. One that falls further behind is told that
/// every resource it follows may have changed (MCP: "may need to be read again"), so a
/// change is never lost, only merged.
pub(crate) const CHANGES_QUEUED: usize = 1024;

/// The most resources one `subscriptions/listen` stream or one session follows, and the most
/// tasks one stream follows: past them the rest are not honoured (the acknowledgement of a
/// stream lists what is).
pub const MAX_FOLLOWED: usize = 256;

/// One change a listener hears.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    /// `notifications/resources/updated` for this URI.
    ResourceUpdated(String),
    /// `notifications/resources/list_changed`.
    ResourceListChanged,
}

/// The resource change notifications of one served instance: tell it what changed, and
/// every client following that resource hears it (over stdio, streamable HTTP, stateless
/// instances included).
///
/// Take it as a tool parameter (an extractor), or get it from [`State::subscriptions`](
/// crate::State::subscriptions) for code outside a call. Cheap to clone; clones share.
/// Telling it costs nothing when nobody listens.
///
/// The notifications reach the clients of **this instance**: several instances behind a
/// load balancer each tell their own listeners, so a change made on one instance is heard
/// by a client listening on another only when that instance is told too (a database's own
/// notifications, say). Task status notifications are not limited so: a stream reads its
/// tasks from the task store every instance shares.
///
/// ```
/// use mcp_result_core::State;
///
/// let state = State::new();
/// // After the server changed what `memory://graph` reads:
/// state.subscriptions().resource_updated("memory://graph");
/// // After it added or removed a resource:
/// state.subscriptions().resource_list_changed();
/// ```
#[derive(Clone)]
pub struct Subscriptions {
    inner: Arc<Inner>,
}

struct Inner {
    changes: broadcast::Sender<Change>,
    /// The resources each pre-2026-07-28 session follows (`resources/subscribe`), by session
    /// id (`""` for stdio's one session).
    sessions: Mutex<HashMap<String, Arc<Mutex<BTreeSet<String>>>>>,
}

impl Default for Subscriptions {
    fn default() -> Self {
        let (changes, _) = broadcast::channel(CHANGES_QUEUED);
        Self {
            inner: Arc::new(Inner {
                changes,
                sessions: Mutex::default(),
            }),
        }
    }
}

impl std::fmt::Debug for Subscriptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscriptions")
            .field("listeners", &self.inner.changes.receiver_count())
            .finish()
    }
}

impl Subscriptions {
    /// The resource at `uri` changed: `notifications/resources/updated` with this `uri` to
    /// every client following it (MCP "Resources: Subscriptions").
    pub fn resource_updated(&self, uri: impl Into<String>) {
        // No listener is no error: nobody asked.
        let _ = self.inner.changes.send(Change::ResourceUpdated(uri.into()));
    }

    /// The list of resources changed: `notifications/resources/list_changed` to every
    /// 2026-07-28 stream that asked for it (`resourcesListChanged`).
    pub fn resource_list_changed(&self) {
        let _ = self.inner.changes.send(Change::ResourceListChanged);
    }

    /// How many streams and sessions listen now.
    pub fn listeners(&self) -> usize {
        self.inner.changes.receiver_count()
    }

    pub(crate) fn changes(&self) -> broadcast::Receiver<Change> {
        self.inner.changes.subscribe()
    }

    /// The resources session `session` follows, and whether they were made now (the first
    /// `resources/subscribe` of the session starts its listener).
    pub(crate) fn session(&self, session: &str) -> (Arc<Mutex<BTreeSet<String>>>, bool) {
        let mut sessions = lock(&self.inner.sessions);
        if let Some(followed) = sessions.get(session) {
            return (Arc::clone(followed), false);
        }
        let followed = Arc::<Mutex<BTreeSet<String>>>::default();
        sessions.insert(session.to_owned(), Arc::clone(&followed));
        (followed, true)
    }

    /// The session's listener ended (its transport closed): it follows nothing now.
    pub(crate) fn end_session(&self, session: &str, followed: &Arc<Mutex<BTreeSet<String>>>) {
        let mut sessions = lock(&self.inner.sessions);
        if sessions
            .get(session)
            .is_some_and(|current| Arc::ptr_eq(current, followed))
        {
            sessions.remove(session);
        }
    }

    /// Session `session` no longer follows `uri`.
    pub(crate) fn unfollow(&self, session: &str, uri: &str) {
        if let Some(followed) = lock(&self.inner.sessions).get(session) {
            lock(followed).remove(uri);
        }
    }
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// The `taskIds` of a `subscriptions/listen` request's filter (SEP-2663), read from the
/// message by the framework's transports (rmcp's filter type has no such field) and put into
/// the request's extensions: stdio's into the message's, streamable HTTP's into the HTTP
/// request's. At most [`MAX_FOLLOWED`], in the order given, without repeats.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ListenTaskIds(pub(crate) Vec<String>);

impl ListenTaskIds {
    /// The `params.notifications.taskIds` of a `subscriptions/listen` request `message`
    /// (`None` for any other message, or one without task ids), read by the framework's
    /// transports (`serve_stdio`'s lines, `serve_http`'s body check).
    #[cfg(any(feature = "transport-io", feature = "http", test))]
    pub(crate) fn of_message(message: &serde_json::Value) -> Option<Self> {
        if message.get("method")?.as_str()? != "subscriptions/listen" {
            return None;
        }
        let ids = message
            .get("params")?
            .get("notifications")?
            .get("taskIds")?
            .as_array()?;
        let mut seen = BTreeSet::new();
        let ids: Vec<String> = ids
            .iter()
            .filter_map(|id| id.as_str())
            .filter(|id| seen.insert(*id))
            .take(MAX_FOLLOWED)
            .map(str::to_owned)
            .collect();
        (!ids.is_empty()).then_some(Self(ids))
    }
}

/// Lists `ids` as honoured in a `notifications/subscriptions/acknowledged` message
/// (`params.notifications.taskIds`), which rmcp writes without them. `false` when `message`
/// is no such acknowledgement.
#[cfg(any(feature = "transport-io", feature = "http", test))]
pub(crate) fn honour_task_ids(message: &mut serde_json::Value, ids: &[String]) -> bool {
    if message.get("method").and_then(serde_json::Value::as_str)
        != Some("notifications/subscriptions/acknowledged")
    {
        return false;
    }
    let Some(notifications) = message
        .get_mut("params")
        .and_then(|params| params.get_mut("notifications"))
        .and_then(serde_json::Value::as_object_mut)
    else {
        return false;
    };
    notifications.insert("taskIds".to_owned(), serde_json::json!(ids));
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn task_ids_are_read_from_a_listen_request_only() {
        let listen = json!({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen",
            "params": {"notifications": {"taskIds": ["a", "b", "a", 7]}}});
        assert_eq!(
            ListenTaskIds::of_message(&listen),
            Some(ListenTaskIds(vec!["a".into(), "b".into()]))
        );
        let other = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"notifications": {"taskIds": ["a"]}}});
        assert_eq!(ListenTaskIds::of_message(&other), None);
        let none = json!({"jsonrpc": "2.0", "id": 3, "method": "subscriptions/listen",
            "params": {"notifications": {"resourceSubscriptions": ["x://y"]}}});
        assert_eq!(ListenTaskIds::of_message(&none), None);
    }

    #[test]
    fn a_change_nobody_hears_is_no_error_and_a_listener_hears_it() {
        let subscriptions = Subscriptions::default();
        subscriptions.resource_updated("x://nobody");
        let mut changes = subscriptions.changes();
        subscriptions.resource_updated("x://a");
        subscriptions.resource_list_changed();
        assert_eq!(
            changes.try_recv().ok(),
            Some(Change::ResourceUpdated("x://a".into()))
        );
        assert_eq!(changes.try_recv().ok(), Some(Change::ResourceListChanged));
    }
}
