//! Long tools: [`Progress`] reports how far a call is (MCP "Progress": `notifications/progress`
//! for a request that carried `_meta.progressToken`), and
//! [`CancellationToken`](crate::extract::CancellationToken) says when the client gave up on it
//! (MCP "Cancellation": `notifications/cancelled`). Both are tool parameters, produced by
//! the one [`FromToolCall`](crate::extract::FromToolCall) mechanism.
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
//!
//! **The end of a call.** The router makes one reporter per call and closes it when the call
//! is answered (its result, a time limit's answer, a JSON-RPC error), when the client
//! cancels it, or when the client went away: every report after that is dropped (logged at
//! `debug`), also from clones a tool moved into tasks of its own. MCP "Progress": progress
//! notifications are only for active requests.

use std::{
    fmt,
    sync::Arc,
    time::{Duration, Instant},
};

use rmcp::{
    model::{ProgressNotificationParam, ProgressToken},
    service::{Peer, RequestContext},
    RoleServer,
};
use tokio_util::sync::CancellationToken;

/// Reports a call's progress to the client: `notifications/progress` with the request's
/// `progressToken`, when the client sent one (`_meta.progressToken` of the `tools/call`);
/// without one, every report does nothing. Take it as a tool parameter.
///
/// What reaches the client, whatever the tool reports:
///
/// - **At most one report per interval** ([`ProgressPolicy::min_interval`], 100 ms by
///   default, so at most 10 a second), **coalesced, never lost**: a report that comes
///   sooner after the last one sent waits, and is sent when the interval has passed, unless
///   a newer report replaced it by then (it carries the newer count). The final report
///   (`done >= total`) is sent at once, after the one waiting, if any: the tool's last two
///   words both arrive. Nothing is sent after the final report, nor after the call ended
///   (answered, timed out, cancelled, or its client gone): the answer is the last word.
/// - **In order, increasing.** MCP requires `progress` to increase with every notification:
///   a report whose `done` is not above the last one reported is ignored. Reports from
///   clones used on several tasks at once are sent one at a time, in order.
/// - **Never an error for the tool.** A client that went away makes a report a no-op
///   (logged at `debug`).
///
/// Clones share the interval and the order.
#[derive(Clone)]
pub struct Progress {
    inner: Option<Arc<Inner>>,
}

/// How often a call's progress may reach the client: a value of the instance's
/// [`State`](crate::State) (`State::new().with(ProgressPolicy { .. })`), read by every
/// [`Progress`] of its calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProgressPolicy {
    /// The shortest time between two reports sent (the final one excepted). Default
    /// [`Progress::MIN_INTERVAL`]; zero sends every report as it comes.
    pub min_interval: Duration,
}

impl Default for ProgressPolicy {
    fn default() -> Self {
        Self {
            min_interval: Progress::MIN_INTERVAL,
        }
    }
}

struct Inner {
    peer: Peer<RoleServer>,
    token: ProgressToken,
    interval: Duration,
    /// The request's cancellation (the client cancelled it, or went away): closes the
    /// reporter as [`Progress::close`] does.
    cancelled: Option<CancellationToken>,
    state: tokio::sync::Mutex<State>,
}

/// One report: `done`, `total`, `message`.
type Report = (f64, Option<f64>, Option<String>);

#[derive(Default)]
struct State {
    last_sent: Option<Instant>,
    /// The highest `done` reported (sent or waiting).
    last_done: Option<f64>,
    /// The newest report not sent yet, and whether a flush is scheduled for it.
    waiting: Option<Report>,
    flush_scheduled: bool,
    finished: bool,
    /// The call ended: nothing more is sent.
    closed: bool,
}

impl Progress {
    /// The default shortest time between two reports sent to the client (the final one
    /// excepted): 100 ms, at most 10 reports a second.
    pub const MIN_INTERVAL: Duration = Duration::from_millis(100);

    /// A `Progress` that reports nothing (the call carried no `progressToken`).
    pub fn disabled() -> Self {
        Self { inner: None }
    }

    /// Whether reports reach the client (the call carried a `progressToken`).
    pub(crate) fn enabled(&self) -> bool {
        self.inner.is_some()
    }

    /// A `Progress` that reports to `peer` under `token`, at most one report per
    /// [`Self::MIN_INTERVAL`].
    pub fn new(peer: Peer<RoleServer>, token: ProgressToken) -> Self {
        Self::with_policy(peer, token, ProgressPolicy::default())
    }

    /// A `Progress` that reports to `peer` under `token`, as often as `policy` allows.
    pub fn with_policy(
        peer: Peer<RoleServer>,
        token: ProgressToken,
        policy: ProgressPolicy,
    ) -> Self {
        Self::reporter(peer, token, policy, None)
    }

    fn reporter(
        peer: Peer<RoleServer>,
        token: ProgressToken,
        policy: ProgressPolicy,
        cancelled: Option<CancellationToken>,
    ) -> Self {
        Self {
            inner: Some(Arc::new(Inner {
                peer,
                token,
                interval: policy.min_interval,
                cancelled,
                state: tokio::sync::Mutex::new(State::default()),
            })),
        }
    }

    /// The reporter of the call `context` answers: enabled when its `tools/call` carried
    /// `_meta.progressToken`, closed when the request is cancelled.
    pub(crate) fn of_call(context: &RequestContext<RoleServer>, policy: ProgressPolicy) -> Self {
        match context.meta.get_progress_token() {
            Some(token) => Self::reporter(
                context.peer.clone(),
                token,
                policy,
                Some(context.ct.clone()),
            ),
            None => Self::disabled(),
        }
    }

    /// Ends the reporter with its call: a report waiting is dropped, every later one too
    /// (logged at `debug`). Returns once a report being sent has been handed to the
    /// transport, so nothing of this reporter follows the call's answer.
    pub(crate) async fn close(&self) {
        if let Some(inner) = &self.inner {
            let mut state = inner.state.lock().await;
            state.closed = true;
            state.waiting = None;
        }
    }

    /// A sign of life while the call waits on someone else (its client's user answering a
    /// question): a report with no total and a `done` between the last one reported and the
    /// next whole unit (0.5, 0.75, … before the first), so the tool's own counts still
    /// increase after it. Nothing when the client asked for no progress, the final report
    /// was sent, a report is waiting to be sent, or the call ended.
    #[cfg(feature = "elicitation")]
    pub(crate) async fn heartbeat(&self, message: &str) {
        let Some(inner) = &self.inner else {
            return;
        };
        let mut state = inner.state.lock().await;
        if inner.ended(&state) || state.finished || state.waiting.is_some() {
            return;
        }
        let last = state.last_done.unwrap_or(0.0);
        let next = last + (last.floor() + 1.0 - last) / 2.0;
        if next <= last {
            return;
        }
        state.last_done = Some(next);
        inner
            .notify(&mut state, (next, None, Some(message.to_owned())))
            .await;
    }

    /// Whether the client asked for progress (sent a `progressToken`): when it did not,
    /// there is no need to count.
    pub fn is_requested(&self) -> bool {
        self.inner.is_some()
    }

    /// Reports that `done` of `total` units are done, with a short `message` for the user
    /// (`"imported 300 of 1,000 rows"`). `done >= total` is the final report: always sent,
    /// and the last one. See [`Progress`] for what is coalesced.
    pub async fn report(&self, done: u64, total: u64, message: impl Into<String>) {
        self.send((done as f64, Some(total as f64), Some(message.into())))
            .await;
    }

    /// Reports `done` units with no known total (every report is an intermediate one).
    pub async fn report_unbounded(&self, done: u64, message: impl Into<String>) {
        self.send((done as f64, None, Some(message.into()))).await;
    }

    async fn send(&self, report: Report) {
        let Some(inner) = &self.inner else {
            return;
        };
        // Held while sending: two reports never overtake each other.
        let mut state = inner.state.lock().await;
        let (done, total, _) = &report;
        if inner.ended(&state) {
            tracing::debug!(done, "progress report after the call ended: dropped");
            return;
        }
        if state.finished || state.last_done.is_some_and(|last| *done <= last) {
            return;
        }
        state.last_done = Some(*done);
        let last = total.is_some_and(|total| *done >= total);
        if last {
            if let Some(waiting) = state.waiting.take() {
                inner.notify(&mut state, waiting).await;
            }
            inner.notify(&mut state, report).await;
            state.finished = true;
            return;
        }
        let now = Instant::now();
        let due = state
            .last_sent
            .and_then(|sent| sent.checked_add(inner.interval));
        let runtime = tokio::runtime::Handle::try_current().ok();
        match (due, runtime) {
            (Some(due), Some(runtime)) if now < due => {
                state.waiting = Some(report);
                if !state.flush_scheduled {
                    state.flush_scheduled = true;
                    // The flush holds the reporter weakly: once the tool returned (every
                    // clone dropped), a report still waiting is not sent.
                    let weak = Arc::downgrade(inner);
                    runtime.spawn(Inner::flush(weak, due));
                }
            }
            // Past the interval, or no runtime to wait on (a synchronous tool blocking on
            // its own executor): sent at once.
            _ => {
                state.waiting = None;
                inner.notify(&mut state, report).await;
            }
        }
    }
}

impl Inner {
    /// Whether the call ended (closed by the router, or cancelled by its client).
    fn ended(&self, state: &State) -> bool {
        state.closed || self.cancelled.as_ref().is_some_and(|ct| ct.is_cancelled())
    }

    /// Sends the report waiting once the interval since the last one sent has passed
    /// (measured again after each wait: a report sent meanwhile moves it).
    async fn flush(weak: std::sync::Weak<Inner>, mut due: Instant) {
        loop {
            tokio::time::sleep_until(due.into()).await;
            let Some(inner) = weak.upgrade() else {
                return;
            };
            let mut state = inner.state.lock().await;
            let next = state
                .last_sent
                .and_then(|sent| sent.checked_add(inner.interval));
            if let Some(next) = next.filter(|next| *next > Instant::now()) {
                due = next;
                continue;
            }
            state.flush_scheduled = false;
            let ended = state.finished || inner.ended(&state);
            if let (false, Some(waiting)) = (ended, state.waiting.take()) {
                inner.notify(&mut state, waiting).await;
            }
            return;
        }
    }

    async fn notify(&self, state: &mut State, (done, total, message): Report) {
        let mut param = ProgressNotificationParam::new(self.token.clone(), done);
        param.total = total;
        param.message = message;
        if let Err(error) = self.peer.notify_progress(param).await {
            tracing::debug!(%error, "progress notification not sent");
        }
        state.last_sent = Some(Instant::now());
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
