//! The state of one served instance ([`State`]): its stores, its server key and the values
//! its extractors read. Handed in where the server is served, per instance, shared by
//! clones (axum's `Router::with_state`); no process-wide default.
//!
//! A room of its own: beneath `tool/` and `router/`, which read it, above the stores it holds
//! (`store/`, `task/`, `write/`).

use std::{
    any::{Any, TypeId},
    collections::HashMap,
    fmt,
    sync::Arc,
};

use rmcp::{service::RequestContext, RoleServer};

use crate::{
    cancel::CancelBus,
    store::key::ServerKey,
    subscriptions::Subscriptions,
    task::{runs::Runs, MemoryTasks, TaskStore},
    write::{
        approval::{ApprovalStore, MemoryApprovals},
        audit::{AuditSink, TracingSink},
        idempotency::{IdempotencyStore, MemoryIdempotencyStore},
    },
};

/// What one served instance of a server hands to its calls: where its idempotency keys,
/// approval requests, audit records and tasks go, the key that seals its cursors and fingerprints,
/// and values of your own for your extractors ([`State::with`], [`State::get`]).
///
/// Cheap to clone (one `Arc`); clones share everything. [`State::new`] makes fresh
/// in-memory stores, so two instances served in one process (two tests, two servers) never
/// share keys or approvals unless you hand them the same stores.
///
/// Hand it in where you serve: [`crate::serve_with_state`], [`crate::serve_stdio_with_state`],
/// `HttpOptions::state` (feature `http`), `TestServer::start_with_state` (feature
/// `testing`). Served without one ([`crate::serve`], the default HTTP options, rmcp's own
/// `serve`), a server gets a fresh `State::new()` per serve call; only a server served
/// through rmcp's `serve` directly falls back to one `State` per server type.
///
/// A server that declares `#[mcp_tools(services)]` can still choose a store per call in its
/// [`ServerServices`](crate::ServerServices); the defaults there are this state's.
///
/// ```
/// use std::sync::Arc;
/// use mcp_result_core::{approval::MemoryApprovals, State};
///
/// #[derive(Clone)]
/// struct Pool(&'static str);
///
/// let approvals = MemoryApprovals::default();
/// let state = State::new()
///     .with_approval_store(Arc::new(approvals.clone()))
///     .with(Pool("postgres://..."));
/// assert_eq!(state.get::<Pool>().map(|p| p.0), Some("postgres://..."));
/// ```
#[derive(Clone)]
pub struct State {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    idempotency: Arc<dyn IdempotencyStore>,
    approvals: Arc<dyn ApprovalStore>,
    audit: Arc<dyn AuditSink>,
    tasks: Arc<dyn TaskStore>,
    /// The tasks this instance runs (an instance is a `State` and its clones).
    runs: Arc<Runs>,
    /// The calls a client may cancel by a `notifications/cancelled` POST, and the way such
    /// a cancel reaches the other instances.
    cancels: CancelBus,
    key: Arc<ServerKey>,
    /// The resource changes its clients follow.
    subscriptions: Subscriptions,
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
    /// The log level each session set (`logging/setLevel`, before MCP 2026-07-28), by
    /// session id; at most [`MAX_LOG_LEVELS`].
    #[allow(deprecated)]
    log_levels: Arc<std::sync::Mutex<HashMap<String, rmcp::model::LoggingLevel>>>,
    /// Whether a mix of durable and in-memory stores is meant ([`State::allow_mixed_stores`]).
    mixed_allowed: bool,
    /// The per-caller limits of this instance ([`State::with_call_limits`]).
    limits: Option<Arc<crate::call::limits::CallLimits>>,
    /// The instruments on the application's meter ([`State::with_meter`]).
    #[cfg(feature = "opentelemetry")]
    metrics: Option<crate::call::metrics::Metrics>,
    /// Where a server served on stdio serves its approvals page
    /// ([`State::with_local_approvals_page`]).
    #[cfg(feature = "approvals-page")]
    local_page: Option<String>,
}

/// How many sessions' log levels a [`State`] keeps: past it, the levels set so far are
/// forgotten (those sessions log at the default again), so sessions never grow memory.
const MAX_LOG_LEVELS: usize = 10_000;

impl State {
    /// Fresh in-memory stores ([`MemoryIdempotencyStore`], [`MemoryApprovals`]), audit
    /// records to the log ([`TracingSink`]), a cancel bus of this instance only
    /// ([`CancelBus::local`]), the configured server key ([`ServerKey::global`]), no values.
    pub fn new() -> Self {
        Self {
            inner: Arc::new(Inner {
                idempotency: Arc::new(MemoryIdempotencyStore::default()),
                approvals: Arc::new(MemoryApprovals::default()),
                audit: Arc::new(TracingSink),
                tasks: Arc::new(MemoryTasks::default()),
                runs: Arc::default(),
                cancels: CancelBus::local(),
                key: ServerKey::global_shared().clone(),
                subscriptions: Subscriptions::default(),
                values: HashMap::new(),
                log_levels: Arc::default(),
                mixed_allowed: false,
                limits: None,
                #[cfg(feature = "opentelemetry")]
                metrics: None,
                #[cfg(feature = "approvals-page")]
                local_page: None,
            }),
        }
    }

    fn edit(mut self, change: impl FnOnce(&mut Inner)) -> Self {
        change(Arc::make_mut(&mut self.inner));
        self
    }

    /// With `store` for idempotency keys (a SQL store, say, shared by every instance).
    #[must_use]
    pub fn with_idempotency_store(self, store: Arc<dyn IdempotencyStore>) -> Self {
        self.edit(|inner| inner.idempotency = store)
    }

    /// With `store` for approval requests.
    #[must_use]
    pub fn with_approval_store(self, store: Arc<dyn ApprovalStore>) -> Self {
        self.edit(|inner| inner.approvals = store)
    }

    /// With `sink` for the audit records of write attempts.
    #[must_use]
    pub fn with_audit_sink(self, sink: Arc<dyn AuditSink>) -> Self {
        self.edit(|inner| inner.audit = sink)
    }

    /// With `store` for tasks (MCP tasks extension; [`crate::task`]).
    #[must_use]
    pub fn with_task_store(self, store: Arc<dyn TaskStore>) -> Self {
        self.edit(|inner| inner.tasks = store)
    }

    /// With `bus` for the cancels of calls served over streamable HTTP without sessions
    /// (default [`CancelBus::local`], this instance only; on PostgreSQL,
    /// [`SqlStores::cancel_bus`](crate::sql::SqlStores::cancel_bus) reaches every instance).
    #[must_use]
    pub fn with_cancel_bus(self, bus: CancelBus) -> Self {
        self.edit(|inner| inner.cancels = bus)
    }

    /// With `key` as the server key (instead of the configured one).
    #[must_use]
    pub fn with_server_key(self, key: ServerKey) -> Self {
        self.edit(|inner| inner.key = Arc::new(key))
    }

    /// Says that this state's mix of durable and in-memory stores is meant: a server is
    /// served with it, and says at start which stores die with the process (a `warn` line).
    ///
    /// Without it, a state whose stores are neither all durable nor all in memory (each
    /// store's `durable()`: the in-memory stores and [`TracingSink`] say `false`) stops
    /// every `serve*` function before anything is served, with an error naming the stores
    /// of each kind: a server that keys its writes in a database while its approvals or audit
    /// records die with the process is a mistake until said otherwise. One call makes every
    /// store durable: `State::connect(url)` (features `sqlite`, `postgres`).
    #[must_use]
    pub fn allow_mixed_stores(self) -> Self {
        self.edit(|inner| inner.mixed_allowed = true)
    }

    /// A server served on stdio (or any transport but HTTP: [`crate::serve_with_state`],
    /// [`crate::serve_stdio_with_state`]) also serves its approvals page on `address`, a
    /// loopback address and port (`"127.0.0.1:0"`: a port the system chooses), feature
    /// `approvals-page`. The person at the client confirms there the gated writes they
    /// asked for (a caller confirming their own call, as a form elicitation is:
    /// [`ApprovalsPage::callers_confirm`](crate::http::ApprovalsPage::callers_confirm)):
    ///
    /// - a client without elicitation gets `blocked`, and the answer's text names a
    ///   one-time sign-in link to that request's page (usable once, within
    ///   [`SIGN_IN_TTL`](crate::http::SIGN_IN_TTL), signed in as the caller, that request
    ///   only); the call made again with the `approvalRequestId` runs the write once;
    /// - a client that declared URL-mode elicitation only is sent the same link in an
    ///   `elicitation/create` of mode `url` (MCP 2025-11-25 "Elicitation"; in an
    ///   input-required round from 2026-07-28 on), and its call runs once it is approved;
    /// - a client with form elicitation is asked with a form, as without the page.
    ///
    /// The page's address is logged at start (`info`). Only the caller decides there: a
    /// write that needs a second person needs deciders, the HTTP approvals page or the
    /// `approvals` command ([`crate::approval::run_command`]). The link is in the answer the
    /// model reads: a model that can open links could approve its own write; a client that
    /// lets it should ask by form elicitation instead.
    ///
    /// With it, a gated tool on stdio can be approved whatever the approval store
    /// (the check at start, which refuses a gated tool nobody could approve, passes).
    /// `serve_http` refuses a state that asks for it (the HTTP server serves its page with
    /// `HttpOptions::approvals_page`). An address that is no socket address or not a
    /// loopback one stops the server at start, naming it.
    #[cfg(feature = "approvals-page")]
    #[must_use]
    pub fn with_local_approvals_page(self, address: impl Into<String>) -> Self {
        let address = address.into();
        self.edit(|inner| inner.local_page = Some(address))
    }

    /// Where [`Self::with_local_approvals_page`] serves the page, if it was called.
    #[cfg(feature = "approvals-page")]
    pub(crate) fn local_approvals_page(&self) -> Option<&str> {
        self.inner.local_page.as_deref()
    }

    /// With per-caller `limits`: a rate and a number of calls running at once for each
    /// caller, checked before a call runs ([`CallLimits`](crate::CallLimits); local to this
    /// instance).
    #[must_use]
    pub fn with_call_limits(self, limits: crate::call::limits::CallLimits) -> Self {
        let limits = Arc::new(limits);
        self.edit(|inner| inner.limits = Some(limits))
    }

    /// With metrics recorded on `meter`, the application's OpenTelemetry meter (feature
    /// `opentelemetry`; its provider exports them, by OTLP or to Prometheus): the MCP
    /// semantic conventions' `mcp.server.operation.duration` for each `tools/call`, and
    /// `mcp_result.*` counters of replays, keys in progress, `outcome_unknown` writes,
    /// approvals requested and decided, and audit records a sink refused (the table of
    /// the guide's long-tools chapter). No attribute holds an argument, an id or a caller.
    #[cfg(feature = "opentelemetry")]
    #[must_use]
    pub fn with_meter(self, meter: opentelemetry::metrics::Meter) -> Self {
        let metrics = crate::call::metrics::Metrics::new(&meter);
        self.edit(|inner| inner.metrics = Some(metrics))
    }

    /// The instruments of [`Self::with_meter`], if any.
    #[cfg(feature = "opentelemetry")]
    pub(crate) fn metrics(&self) -> Option<&crate::call::metrics::Metrics> {
        self.inner.metrics.as_ref()
    }

    /// The per-caller limits, if any ([`Self::with_call_limits`]).
    pub(crate) fn call_limits(&self) -> Option<&crate::call::limits::CallLimits> {
        self.inner.limits.as_deref()
    }

    /// Checks the mix of stores before a server is served: `Err` with the message for a
    /// mix nobody allowed, `Ok(Some(warning))` for an allowed one, `Ok(None)` when every
    /// store is durable or every one in memory.
    ///
    /// `stores` names each store the server's calls use (its services' choice, by default
    /// this state's) and whether it is durable.
    pub(crate) fn check_store_mix(
        &self,
        stores: [(&'static str, bool); 4],
    ) -> Result<Option<String>, String> {
        let (durable, volatile): (Vec<_>, Vec<_>) = stores.into_iter().partition(|(_, d)| *d);
        let durable: Vec<&str> = durable.into_iter().map(|(name, _)| name).collect();
        let volatile: Vec<&str> = volatile.into_iter().map(|(name, _)| name).collect();
        if durable.is_empty() || volatile.is_empty() {
            return Ok(None);
        }
        let (durable, volatile) = (durable.join(", "), volatile.join(", "));
        if self.inner.mixed_allowed {
            return Ok(Some(format!(
                "serving with durable {durable} and in-memory {volatile} \
                 (State::allow_mixed_stores): the in-memory ones die with the process"
            )));
        }
        Err(format!(
            "this server's State mixes durable and in-memory stores: {durable} are durable, \
             {volatile} live in this process's memory and die with it. Make every store \
             durable in one call (`State::connect(\"sqlite:app.db\")` or a `postgres://` URL, \
             features `sqlite`/`postgres`), hand in a durable store for each, or say the mix \
             is meant with `State::allow_mixed_stores()`"
        ))
    }

    /// With `value`, for your own extractors: a database pool, a tenant directory, a client
    /// of an upstream. One value per type; a second `with` of the same type replaces it.
    #[must_use]
    pub fn with<T: Any + Send + Sync>(self, value: T) -> Self {
        self.edit(|inner| {
            inner.values.insert(TypeId::of::<T>(), Arc::new(value));
        })
    }

    /// The value of type `T` handed in with [`State::with`], if any.
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.inner.values.get(&TypeId::of::<T>())?.downcast_ref()
    }

    /// Where idempotency keys live.
    pub fn idempotency_store(&self) -> &Arc<dyn IdempotencyStore> {
        &self.inner.idempotency
    }

    /// Where approval requests live.
    pub fn approval_store(&self) -> &Arc<dyn ApprovalStore> {
        &self.inner.approvals
    }

    /// Where audit records go.
    pub fn audit_sink(&self) -> &Arc<dyn AuditSink> {
        &self.inner.audit
    }

    /// Where tasks live.
    pub fn task_store(&self) -> &Arc<dyn TaskStore> {
        &self.inner.tasks
    }

    /// The tasks this instance runs.
    pub(crate) fn runs(&self) -> &Runs {
        &self.inner.runs
    }

    /// Where a client's cancel finds the calls of this instance.
    pub fn cancel_bus(&self) -> &CancelBus {
        &self.inner.cancels
    }

    /// The server key: the one handed in, else the configured one ([`ServerKey::global`]).
    pub fn server_key(&self) -> &Arc<ServerKey> {
        &self.inner.key
    }

    /// The resource change notifications of this instance: tell it what changed, and the
    /// clients following it hear it ([`Subscriptions`]).
    pub fn subscriptions(&self) -> &Subscriptions {
        &self.inner.subscriptions
    }

    /// The log level session `session` set with `logging/setLevel`.
    #[allow(deprecated)]
    pub(crate) fn log_level(&self, session: &str) -> Option<rmcp::model::LoggingLevel> {
        let levels = self
            .inner
            .log_levels
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        levels.get(session).copied()
    }

    /// Records the level session `session` set with `logging/setLevel`.
    #[allow(deprecated)]
    pub(crate) fn set_log_level(&self, session: String, level: rmcp::model::LoggingLevel) {
        let mut levels = self
            .inner
            .log_levels
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if levels.len() >= MAX_LOG_LEVELS && !levels.contains_key(&session) {
            levels.clear();
        }
        levels.insert(session, level);
    }

    /// The state a request was served with: the one the serving function put into the
    /// request (stdio and other transports: the message's extensions; streamable HTTP: the
    /// HTTP request's), `None` when it was served by rmcp's own `serve`.
    pub(crate) fn of(context: &RequestContext<RoleServer>) -> Option<&State> {
        if let Some(state) = context.extensions.get::<State>() {
            return Some(state);
        }
        #[cfg(feature = "http")]
        if let Some(parts) = context.extensions.get::<http::request::Parts>() {
            return parts.extensions.get::<Served>().map(|served| &served.state);
        }
        None
    }
}

/// What the streamable HTTP router puts in each request's extensions, in one value: the
/// instance's state, and whether it serves without sessions (before MCP 2026-07-28, no
/// request of the server can then reach the client during a call and be answered: the
/// answer would come on a POST no session ties to the call). Decided by the server's
/// configuration, never by a header the client sends.
#[derive(Clone)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Served {
    pub(crate) state: State,
    pub(crate) stateless: bool,
}

/// Registers the call of `context` on its instance's bus when a client can cancel it only
/// by a `notifications/cancelled` POST of its own: a streamable HTTP request outside a
/// session, with a verified identity. `None` for every other call (stdio, a session: rmcp
/// matches those cancels itself).
pub(crate) fn register_call(
    context: &RequestContext<RoleServer>,
) -> Option<crate::cancel::Registered> {
    #[cfg(feature = "http")]
    {
        let parts = context.extensions.get::<http::request::Parts>()?;
        if !outside_session(&parts.extensions, &parts.headers) {
            return None;
        }
        let identity = parts.extensions.get::<crate::wire::identity::Identity>()?;
        let state = &parts.extensions.get::<Served>()?.state;
        Some(
            state
                .cancel_bus()
                .register(&identity.key(), &context.id, context.ct.clone()),
        )
    }
    #[cfg(not(feature = "http"))]
    {
        let _ = context;
        None
    }
}

/// Whether an HTTP request is served outside any MCP session: the router serves without
/// sessions, or the request names none.
#[cfg(feature = "http")]
fn outside_session(extensions: &http::Extensions, headers: &http::HeaderMap) -> bool {
    extensions
        .get::<Served>()
        .is_some_and(|served| served.stateless)
        || !headers.contains_key("mcp-session-id")
}

impl Default for State {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("values", &self.inner.values.len())
            .finish_non_exhaustive()
    }
}
