//! Liveness and readiness probes of the HTTP server, for a load balancer or an orchestrator
//! ([`Health`]).

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::Duration,
};

use axum::{
    extract::State as Extract,
    http::{header, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
    routing::get,
};

use crate::state::State;

/// The HTTP server's probes ([`HttpOptions::health`](super::HttpOptions::health)), served
/// beside the MCP endpoint without the bearer check, each answering one line of plain text:
///
/// | probe | answers |
/// |---|---|
/// | `GET /healthz` (liveness) | `200` `ok`: the process answers |
/// | `GET /readyz` (readiness) | `200` `ready`; `503` `not ready: draining` from the moment shutdown starts; `503` `not ready: database` when the state's SQL stores ([`State::connect`](crate::State::connect)) do not answer `SELECT 1` within [`READY_TIMEOUT`] |
///
/// (Their migrations are applied before the server serves: `State::connect` runs them.)
/// Neither says more than that. A process that serves with [`serve_http`](super::serve_http)
/// turns readiness `503` as soon as its `shutdown` future completes, then keeps serving
/// for [`Self::drain_delay`] (the balancer's probes see it go and stop sending), then stops
/// accepting connections and drains (up to [`crate::SHUTDOWN_GRACE`]). Behind a balancer
/// that probes every `p` seconds, give it a delay longer than `p` times the failures it
/// waits for. A router served by other means ([`router`](super::router)) never drains.
///
/// ```
/// use std::time::Duration;
/// use mcp_result_core::http::{Health, HttpOptions};
///
/// let options = HttpOptions {
///     health: Some(Health::default().drain_delay(Duration::from_secs(10))),
///     ..HttpOptions::default()
/// };
/// assert_eq!(options.health.unwrap().ready_path(), "/readyz");
/// ```
#[derive(Debug, Clone)]
pub struct Health {
    live: String,
    ready: String,
    drain_delay: Duration,
}

/// How long readiness waits for the database's `SELECT 1`: 2 seconds.
pub const READY_TIMEOUT: Duration = Duration::from_secs(2);

impl Default for Health {
    /// `/healthz` and `/readyz`, no drain delay.
    fn default() -> Self {
        Self {
            live: "/healthz".to_owned(),
            ready: "/readyz".to_owned(),
            drain_delay: Duration::ZERO,
        }
    }
}

impl Health {
    /// Liveness at `live` and readiness at `ready` (absolute paths) instead.
    #[must_use]
    pub fn at(mut self, live: impl Into<String>, ready: impl Into<String>) -> Self {
        self.live = live.into();
        self.ready = ready.into();
        self
    }

    /// How long the server keeps serving after its shutdown began, readiness already `503`.
    /// Default zero.
    #[must_use]
    pub fn drain_delay(mut self, delay: Duration) -> Self {
        self.drain_delay = delay;
        self
    }

    /// The liveness path.
    pub fn live_path(&self) -> &str {
        &self.live
    }

    /// The readiness path.
    pub fn ready_path(&self) -> &str {
        &self.ready
    }

    pub(super) fn delay(&self) -> Duration {
        self.drain_delay
    }

    /// The configuration's mistakes: a path that is not absolute, or one the MCP endpoint
    /// or the other probe has.
    pub(super) fn check(&self, mcp_path: &str) -> Result<(), String> {
        for path in [&self.live, &self.ready] {
            if !path.starts_with('/') || path.len() < 2 {
                return Err(format!(
                    "the health probe's path `{path}` must be an absolute path such as `/healthz`"
                ));
            }
            if path.trim_end_matches('/') == mcp_path.trim_end_matches('/') {
                return Err(format!(
                    "the health probe's path `{path}` is the MCP endpoint's: choose another"
                ));
            }
        }
        if self.live == self.ready {
            return Err(format!(
                "liveness and readiness share the path `{}`: give each its own",
                self.live
            ));
        }
        Ok(())
    }
}

/// What the probes read: whether the server drains, and the state whose stores they try.
#[derive(Clone)]
struct Probes {
    draining: Arc<AtomicBool>,
    state: State,
}

/// The probes' routes, outside the MCP endpoint's layers.
pub(super) fn routes(health: &Health, state: &State, draining: Arc<AtomicBool>) -> axum::Router {
    axum::Router::new()
        .route(&health.live, get(live))
        .route(&health.ready, get(ready))
        .with_state(Probes {
            draining,
            state: state.clone(),
        })
}

fn line(status: StatusCode, text: &'static str) -> Response {
    let mut response = (status, text).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn live() -> Response {
    line(StatusCode::OK, "ok\n")
}

async fn ready(Extract(probes): Extract<Probes>) -> Response {
    if probes.draining.load(Ordering::SeqCst) {
        return line(StatusCode::SERVICE_UNAVAILABLE, "not ready: draining\n");
    }
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    if let Some(stores) = probes.state.get::<crate::sql::SqlStores>() {
        let answered = tokio::time::timeout(
            READY_TIMEOUT,
            sqlx::query("SELECT 1").execute(stores.pool()),
        )
        .await;
        if !matches!(answered, Ok(Ok(_))) {
            return line(StatusCode::SERVICE_UNAVAILABLE, "not ready: database\n");
        }
    }
    #[cfg(not(any(feature = "sqlite", feature = "postgres")))]
    let _ = &probes.state;
    line(StatusCode::OK, "ready\n")
}
