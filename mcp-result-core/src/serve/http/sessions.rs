//! MCP sessions (before 2026-07-28) bound to the identity that created them: a session id
//! is a handle, not a credential, so another caller who learns it gets `404`, as for a
//! session that does not exist (MCP "Transports", Session Management).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, PoisonError},
    time::Instant,
};

use axum::{
    extract::{Request, State},
    http::{HeaderName, Method, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};
use serde_json::json;

use crate::wire::identity::Identity;

const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// At most this many bindings are kept; past it the least recently used goes, and its
/// session with it (its next request is answered `404` and the client starts a new one, as
/// the spec has it). Fail closed: a session id without a binding is never served.
pub(crate) const MAX_SESSIONS: usize = 10_000;

/// At most this many sessions per identity: past it, that identity's least recently used
/// goes first, so one caller opening sessions in a loop ends only its own.
pub(crate) const MAX_SESSIONS_PER_IDENTITY: usize = 100;

/// The identity key ([`Identity::key`]) of each live session, and when it was last used.
#[derive(Default)]
pub(crate) struct Sessions {
    owners: Mutex<HashMap<String, (String, Instant)>>,
}

impl Sessions {
    fn owners(&self) -> std::sync::MutexGuard<'_, HashMap<String, (String, Instant)>> {
        self.owners.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn bind(&self, session: String, owner: String) {
        let mut owners = self.owners();
        let own: Vec<(&String, Instant)> = owners
            .iter()
            .filter(|(_, (bound, _))| *bound == owner)
            .map(|(id, (_, used))| (id, *used))
            .collect();
        if own.len() >= MAX_SESSIONS_PER_IDENTITY {
            if let Some(oldest) = own
                .iter()
                .min_by_key(|(_, used)| *used)
                .map(|(id, _)| (*id).clone())
            {
                owners.remove(&oldest);
            }
        }
        if owners.len() >= MAX_SESSIONS {
            if let Some(oldest) = owners
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(id, _)| id.clone())
            {
                owners.remove(&oldest);
            }
        }
        owners.insert(session, (owner, Instant::now()));
    }

    /// Whether `session` belongs to `owner` (and marks it used).
    fn owned_by(&self, session: &str, owner: &str) -> bool {
        match self.owners().get_mut(session) {
            Some((bound, used)) if bound == owner => {
                *used = Instant::now();
                true
            }
            _ => false,
        }
    }

    fn forget(&self, session: &str) {
        self.owners().remove(session);
    }
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        axum::Json(json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32001, "message": "Session not found: start a new one with initialize"},
        })),
    )
        .into_response()
}

/// Runs after authentication: the identity is in the request's extensions.
pub(crate) async fn bind_session(
    State(sessions): State<Arc<Sessions>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(owner) = request.extensions().get::<Identity>().map(Identity::key) else {
        return not_found();
    };
    let session = request
        .headers()
        .get(&SESSION_ID)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    match session {
        Some(session) => {
            if !sessions.owned_by(&session, &owner) {
                return not_found();
            }
            let delete = request.method() == Method::DELETE;
            let response = next.run(request).await;
            if response.status() == StatusCode::NOT_FOUND
                || (delete && response.status().is_success())
            {
                sessions.forget(&session);
            }
            response
        }
        None => {
            let response = next.run(request).await;
            if let Some(created) = response
                .headers()
                .get(&SESSION_ID)
                .and_then(|value| value.to_str().ok())
            {
                sessions.bind(created.to_owned(), owner);
            }
            response
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_belongs_to_its_creator_only_and_the_oldest_goes_first() {
        let sessions = Sessions::default();
        sessions.bind("s1".into(), "acme:alice".into());
        assert!(sessions.owned_by("s1", "acme:alice"));
        assert!(!sessions.owned_by("s1", "globex:bob"));
        assert!(!sessions.owned_by("s2", "acme:alice"));
        // One identity cannot hold more than its share: its own oldest goes.
        for i in 0..MAX_SESSIONS_PER_IDENTITY {
            sessions.bind(format!("a{i}"), "acme:alice".into());
        }
        assert!(
            !sessions.owned_by("s1", "acme:alice"),
            "alice's oldest went"
        );
        sessions.bind("b0".into(), "globex:bob".into());
        for i in 0..MAX_SESSIONS_PER_IDENTITY {
            sessions.bind(format!("a-more-{i}"), "acme:alice".into());
        }
        assert!(
            sessions.owned_by("b0", "globex:bob"),
            "bob's session is not alice's to end"
        );
        // Past the global bound, the least recently used of all goes.
        for i in 0..MAX_SESSIONS {
            sessions.bind(format!("n{i}"), format!("tenant{i}:user"));
        }
        assert_eq!(sessions.owners().len(), MAX_SESSIONS);
        assert!(
            !sessions.owned_by("s1", "acme:alice"),
            "the least recently used went"
        );
        sessions.forget("n5");
        assert!(!sessions.owned_by("n5", "acme:alice"));
    }
}
