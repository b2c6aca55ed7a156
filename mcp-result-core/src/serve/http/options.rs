//! How [`router`](super::router) serves: [`HttpOptions`].

use std::time::Duration;

use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;

use super::metadata::ProtectedResource;
use crate::state::State as InstanceState;

/// How [`router`](super::router) and [`serve_http`](super::serve_http) serve.
///
/// ```
/// use mcp_result_core::http::{HttpOptions, ProtectedResource};
///
/// let options = HttpOptions {
///     allowed_hosts: vec!["mcp.example.com".into()],
///     allowed_origins: vec!["https://app.example.com".into()],
///     resource: Some(ProtectedResource::new(
///         "https://mcp.example.com/mcp",
///         ["https://auth.example.com"],
///     )),
///     ..HttpOptions::default()
/// };
/// assert_eq!(options.path, "/mcp");
/// ```
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The path of the MCP endpoint. Default `/mcp`.
    pub path: String,
    /// Hosts accepted in the `Host` header (DNS-rebinding protection, MCP "Transports:
    /// Security Warning"). Default: loopback only, as rmcp's.
    pub allowed_hosts: Vec<String>,
    /// Browser origins allowed to call the server, as RFC 6454 origins: `scheme://host`
    /// with an explicit port, `:*` for any port, or none for the scheme's default
    /// (`https://app.example.com`, `http://localhost:*`).
    ///
    /// MCP "Transports" (Security Warning): servers MUST validate `Origin`. A request whose
    /// `Origin` is neither a loopback origin (`http(s)://localhost`, `127.0.0.1`, `[::1]`,
    /// any port) nor listed here is answered `403` before anything else, preflights
    /// included; requests without `Origin` (every non-browser client) pass. The listed
    /// origins, and the loopback ones unless the server is [`Anonymous`](super::Anonymous)
    /// (any local page could call its tools; list the ones it serves), get CORS answers
    /// (Fetch standard): a
    /// preflight is answered before authentication, the headers MCP clients send
    /// (`Authorization`, `Mcp-Session-Id`, `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
    /// `Last-Event-ID`) are allowed, and `WWW-Authenticate`, `Mcp-Session-Id` and
    /// `MCP-Protocol-Version` are exposed to the page. Default: empty (loopback pages, such
    /// as the MCP Inspector's, may call).
    pub allowed_origins: Vec<String>,
    /// Keep MCP sessions (before 2026-07-28) in this instance's memory. Default `false`:
    /// stateless, so any instance answers any request. A session is bound to the identity
    /// that created it ([`Identity::key`](crate::Identity::key): tenant and subject, not the
    /// token, so a refreshed token keeps it); any other identity is answered `404` for it.
    /// At most 100 sessions per identity and 10,000 in all are kept; past either, the least
    /// recently used ends (its next request is `404`, and the client starts a new one).
    pub sessions: bool,
    /// The OAuth protected resource this server is (RFC 9728): served without a token at
    /// `/.well-known/oauth-protected-resource` and the path-suffixed
    /// `/.well-known/oauth-protected-resource{path}`, and named in every `401` and `403`
    /// challenge. `None` (static tokens, no authorization server): those URLs answer `404`.
    pub resource: Option<ProtectedResource>,
    /// The state every call of this router gets ([`State`](crate::State)): its stores, server
    /// key and values. Default: `State::new()`, fresh in-memory stores for this router only
    /// (give several instances the same SQL stores to share keys and approvals).
    pub state: InstanceState,
    /// How many connections, and how slow, [`serve_http`](super::serve_http) accepts.
    pub limits: HttpLimits,
    /// The liveness and readiness probes, outside the bearer check
    /// ([`Health`](super::Health)). Default: `/healthz` and `/readyz`, no drain delay;
    /// `None` serves neither.
    pub health: Option<super::Health>,
    /// An approvals page beside the MCP endpoint (feature `approvals-page`): where a
    /// person decides, in a browser, the approval requests of [`Self::state`]'s approval
    /// store ([`ApprovalsPage`](super::ApprovalsPage)). Default `None`: no page.
    #[cfg(feature = "approvals-page")]
    pub approvals_page: Option<super::ApprovalsPage>,
}

impl HttpOptions {
    /// These options with `page` served beside the MCP endpoint (default path
    /// `/approvals`; see [`ApprovalsPage`](super::ApprovalsPage)).
    #[cfg(feature = "approvals-page")]
    #[must_use]
    pub fn with_approvals_page(mut self, page: super::ApprovalsPage) -> Self {
        self.approvals_page = Some(page);
        self
    }
}

/// The bounds [`serve_http`](super::serve_http) puts on connections, so that idle or slow
/// clients cannot hold every file descriptor (a server behind [`router`](super::router) on
/// a listener of its own sets its own).
///
/// - A connection that has not sent a request's headers within [`Self::header_read`] (a
///   new one, or a kept-alive one between requests) is closed.
/// - A POST whose body has not arrived within [`Self::body_read`] is answered `408` with a
///   JSON-RPC error.
/// - Past [`Self::max_connections`] open connections, a new one is answered `503` with
///   `Retry-After: 1` and closed. A response being streamed (an SSE stream) keeps its
///   connection.
///
/// The struct is `#[non_exhaustive]`, so outside this crate it is built from
/// [`HttpLimits::default`] and changed with its `with_*` methods (or by assigning its
/// fields):
///
/// ```
/// use std::time::Duration;
/// use mcp_result_core::http::{HttpLimits, HttpOptions};
///
/// let options = HttpOptions {
///     limits: HttpLimits::default()
///         .with_max_connections(2_000)
///         .with_body_read(Duration::from_secs(10)),
///     ..HttpOptions::default()
/// };
/// assert_eq!(options.limits.header_read, Duration::from_secs(10));
///
/// let mut limits = HttpLimits::default();
/// limits.header_read = Duration::from_secs(5);
/// # let _ = limits;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpLimits {
    /// The most connections open at once. Default 512 (half the common 1,024 file
    /// descriptors of a process).
    pub max_connections: usize,
    /// How long a connection may take to send a request's headers. Default 10 s.
    pub header_read: Duration,
    /// How long a POST body may take to arrive. Default 30 s.
    pub body_read: Duration,
}

impl HttpLimits {
    /// These limits with at most `max` connections open at once.
    pub fn with_max_connections(mut self, max: usize) -> Self {
        self.max_connections = max;
        self
    }

    /// These limits with headers read within `timeout`.
    pub fn with_header_read(mut self, timeout: Duration) -> Self {
        self.header_read = timeout;
        self
    }

    /// These limits with POST bodies read within `timeout`.
    pub fn with_body_read(mut self, timeout: Duration) -> Self {
        self.body_read = timeout;
        self
    }
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            max_connections: 512,
            header_read: Duration::from_secs(10),
            body_read: Duration::from_secs(30),
        }
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".to_owned(),
            allowed_hosts: StreamableHttpServerConfig::default().allowed_hosts,
            allowed_origins: Vec::new(),
            sessions: false,
            resource: None,
            state: InstanceState::new(),
            limits: HttpLimits::default(),
            health: Some(super::Health::default()),
            #[cfg(feature = "approvals-page")]
            approvals_page: None,
        }
    }
}
