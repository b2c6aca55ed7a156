//! Long tools: [`Progress`] reports how far a call is (MCP "Progress": `notifications/progress`
//! for a request that carried `_meta.progressToken`), and
//! [`CancellationToken`](crate::extract::CancellationToken) says when the client gave up on it
//! (MCP "Cancellation": `notifications/cancelled`). Both are tool parameters, produced by
//! the one [`FromToolCall`] mechanism.
//!
//! ```
//! use mcp_result_core::{extract::CancellationToken, progress::Progress};
//!
//! /// The body of a long, read-only tool: `fn import(&self, progress: Progress,
//! /// cancelled: CancellationToken) -> Imported` in an `#[mcp_tools]` block.
//! async fn import(rows: &[String], progress: Progress, cancelled: CancellationToken) -> usize {
//!     let total = rows.len() as u64;
//!     let mut done = 0;
//!     for _row in rows {
//!         if cancelled.is_cancelled() {
//!             break; // the client stopped waiting: stop at a safe point
//!         }
//!         done += 1;
//!         progress.report(done, total, format!("imported {done} of {total} rows")).await;
//!     }
//!     done as usize
//! }
//! ```
//!
//! **Cancellation.** The token is cancelled when the client sends `notifications/cancelled`
//! for the call. A read-only tool is dropped at that moment anyway (at its next `.await`);
//! the token lets a synchronous one, or one that must clean up, stop itself. A write is
//! never dropped: it runs to its end on its own task (README "Retries: a write never runs
//! twice"), so the token is how a write stops at a safe point of its own choosing, and it
//! answers what it did (`status: partial`, say). A call cancelled before its tool starts
//! never starts.

use std::{
    fmt,
    sync::Arc,
    time::{Duration, Instant},
};

use rmcp::{
    model::{ProgressNotificationParam, ProgressToken},
    service::Peer,
    RoleServer,
};

use crate::{
    tool::extract::{via, FromToolCall, ToolCall},
    wire::envelope::ToolError,
};

/// Reports a call's progress to the client: `notifications/progress` with the request's
/// `progressToken`, when the client sent one (`_meta.progressToken` of the `tools/call`);
/// without one, every report does nothing. Take it as a tool parameter.
///
/// What reaches the client, whatever the tool reports:
///
/// - **At most one report per [`Progress::MIN_INTERVAL`] (100 ms, so at most 10 a second),
///   plus the final one.** A report that comes sooner after the last one sent is dropped,
///   not queued: the next report carries the newer count anyway. The final report (`done
///   >= total`) is always sent, and nothing after it.
/// - **In order, increasing.** MCP requires `progress` to increase with every notification:
///   a report whose `done` is not above the last one sent is dropped. Reports from clones
///   used on several tasks at once are sent one at a time, in the order they were let
///   through.
/// - **Never an error for the tool.** A client that went away makes a report a no-op
///   (logged at `debug`).
///
/// Clones share the rate limit and the order.
#[derive(Clone)]
pub struct Progress {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    state: tokio::sync::Mutex<State>,
}

#[derive(Default)]
struct State {
    last_sent: Option<Instant>,
    last_done: Option<f64>,
    finished: bool,
}

impl Progress {
    /// The shortest time between two reports sent to the client (the final one excepted):
    /// 100 ms, at most 10 reports a second.
    pub const MIN_INTERVAL: Duration = Duration::from_millis(100);

    /// A `Progress` that reports nothing (the call carried no `progressToken`).
    pub fn disabled() -> Self {
        Self { inner: None }
    }

    /// A `Progress` that reports to `peer` under `token`.
    pub fn new(peer: Peer<RoleServer>, token: ProgressToken) -> Self {
        Self {
            inner: Some(Arc::new(Inner {
                peer,
                token,
                state: tokio::sync::Mutex::new(State::default()),
            })),
        }
    }

    /// Whether the client asked for progress (sent a `progressToken`): when it did not,
    /// there is no need to count.
    pub fn is_requested(&self) -> bool {
        self.inner.is_some()
    }

    /// Reports that `done` of `total` units are done, with a short `message` for the user
    /// (`"imported 300 of 1,000 rows"`). `done >= total` is the final report: always sent,
    /// and the last one. See [`Progress`] for what is dropped.
    pub async fn report(&self, done: u64, total: u64, message: impl Into<String>) {
        self.send(done as f64, Some(total as f64), Some(message.into()))
            .await;
    }

    /// Reports `done` units with no known total (every report is an intermediate one).
    pub async fn report_unbounded(&self, done: u64, message: impl Into<String>) {
        self.send(done as f64, None, Some(message.into())).await;
    }

    async fn send(&self, done: f64, total: Option<f64>, message: Option<String>) {
        let Some(inner) = &self.inner else {
            return;
        };
        // Held while sending: two reports never overtake each other.
        let mut state = inner.state.lock().await;
        if state.finished || state.last_done.is_some_and(|last| done <= last) {
            return;
        }
        let last = total.is_some_and(|total| done >= total);
        let now = Instant::now();
        if !last
            && state
                .last_sent
                .is_some_and(|sent| now.duration_since(sent) < Self::MIN_INTERVAL)
        {
            return;
        }
        let mut param = ProgressNotificationParam::new(inner.token.clone(), done);
        param.total = total;
        param.message = message;
        if let Err(error) = inner.peer.notify_progress(param).await {
            tracing::debug!(%error, "progress notification not sent");
        }
        state.last_sent = Some(now);
        state.last_done = Some(done);
        state.finished = last;
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress")
            .field(
                "token",
                &self.inner.as_ref().map(|inner| inner.token.0.to_string()),
            )
            .finish()
    }
}

/// The call's progress reporter: enabled when the `tools/call` carried
/// `_meta.progressToken`.
impl FromToolCall<via::Extractor> for Progress {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        let context = call.context();
        Ok(match context.meta.get_progress_token() {
            Some(token) => Progress::new(context.peer.clone(), token),
            None => Progress::disabled(),
        })
    }
}
