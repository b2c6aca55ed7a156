//! Streamable HTTP (MCP "Transports: Streamable HTTP") as an OAuth 2.1 protected resource
//! (MCP "Authorization"), the caller's identity taken from a verified bearer token (feature
//! `http`).
//!
//! rmcp's [`StreamableHttpService`](rmcp::transport::StreamableHttpService) is a tower
//! service; [`router`] mounts it in an [`axum::Router`] behind the checks of the edge, and
//! [`serve_http`] serves that router on a TCP listener until a shutdown signal, then drains
//! running writes as [`crate::serve`] does.
//!
//! **Identity.** Every MCP request must carry `Authorization: Bearer <token>` (RFC 6750
//! §2.1; never in the URL). The [`TokenVerifier`] turns the token into an
//! [`Identity`](crate::Identity); the identity rides in the HTTP request's extensions, which
//! rmcp hands to the request context, where [`Identity::of`](crate::Identity::of) finds it.
//! A missing or unknown token is answered `401` with a `WWW-Authenticate: Bearer` challenge
//! before any MCP message is read: no identity, no access.
//!
//! **OAuth 2.1.** Set [`HttpOptions::resource`] to the [`ProtectedResource`] the server is:
//! its metadata (RFC 9728) is then served without a token, and every `401` names it and the
//! scopes to start with, which is how hosts (Claude, ChatGPT, VS Code, the MCP Inspector)
//! find the authorization server. Verify its tokens with `mcp_result::oauth`'s verifiers
//! (feature `oauth`): JWT access tokens (RFC 9068) against its keys, or RFC 7662
//! introspection. A tool that declares `#[mcp_tool(scopes = "...")]` is answered `403
//! insufficient_scope` for a caller without them, before it runs. [`StaticTokens`] is the
//! fixed table a demo or a test uses; [`Anonymous`] serves without authentication, as an
//! explicit choice.
//!
//! **Browsers.** `Origin` is validated (loopback and [`HttpOptions::allowed_origins`] pass,
//! others get `403`); the listed origins and, unless the server is [`Anonymous`], the
//! loopback ones get CORS, preflights answered before authentication.
//!
//! **Client mistakes.** Every one is answered with a JSON-RPC error in the body and the
//! HTTP status that fits (rmcp's own plain-text refusals too: `406`, `415`, …), values the
//! client sent echoed capped; a request with two `Authorization`, `Origin` or `Host`
//! headers is refused `400`. [`serve_http`] closes connections that send no headers within
//! [`HttpLimits::header_read`] and keeps at most [`HttpLimits::max_connections`].
//!
//! **Several instances.** [`HttpOptions::default`] serves statelessly (rmcp's
//! `legacy_session_mode: false`): no MCP session lives in one instance's memory, so any
//! instance behind a load balancer answers any request (MCP 2026-07-28 requests are
//! stateless anyway). All state a request depends on must then live in shared stores
//! (the `postgres` feature). A client's `notifications/cancelled`, a POST of its own, reaches
//! its call on another instance through the stores' cancel bus
//! ([`State::with_cancel_bus`](crate::State::with_cancel_bus) with `SqlStores::cancel_bus`).
//!
//! **Approvals in a browser.** With the `approvals-page` feature,
//! `HttpOptions::with_approvals_page` serves an approvals page beside the endpoint
//! (`/approvals`): a signed-in decider approves or rejects the pending approval requests of
//! its tenant (`ApprovalsPage`).

mod acknowledge;
#[cfg(feature = "approvals-page")]
mod approvals;
mod auth;
mod calls;
mod edge;
mod health;
mod listen;
mod metadata;
mod options;
mod router;
mod sessions;

#[cfg(all(feature = "approvals-page", feature = "elicitation"))]
pub(crate) use approvals::{confirm_by_url, confirmed_by_url, Confirmed};
#[cfg(feature = "approvals-page")]
pub(crate) use approvals::{local_sign_in, serve_local};
#[cfg(feature = "approvals-page")]
pub use approvals::{
    ApprovalsPage, SESSION_IDLE, SESSION_TTL, SHOWN_CHARS, SIGN_IN_TTL, VALUE_CHARS,
};
pub use auth::{Anonymous, StaticTokens, TokenVerifier};
pub use health::{Health, READY_TIMEOUT};
pub use metadata::ProtectedResource;
pub use options::{HttpLimits, HttpOptions};
pub use router::{router, serve_http};
