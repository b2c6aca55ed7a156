//! The approvals page (feature `approvals-page`): where a person decides, in a browser, the
//! approval requests of writes that could not ask their caller
//! ([`crate::approval`]). Opt-in with [`HttpOptions::approvals_page`](super::HttpOptions):
//! [`router`](super::router) then serves it beside the MCP endpoint.
//!
//! | request | answers |
//! |---|---|
//! | `GET /approvals/sign-in?token=...` | a one-time sign-in link ([`ApprovalsPage::sign_in_link`]): `200` "Signed in" with the session cookie, a page that moves on to the list by itself (`Refresh`, and a link: not a redirect, which a browser sends without the `SameSite=Strict` cookie when the link was opened from another site); a used or expired link `410`, any other `403` |
//! | `GET /approvals` | the pending requests of the signed-in person's tenant (`401` without a session) |
//! | `GET /approvals/requests/{id}` | one request: the tool's title, the approval text, the arguments (secrets withheld, long values cut with their length), who asked and when, when it expires, the Approve and Reject forms; decided, the decision and its audit trail instead ([`AuditSink::approval_records`]); with OAuth sign-in and no session (or a caller's session of another request), `303` to the authorization server, the sign-in coming back here |
//! | `POST /approvals/requests/{id}` | the decision (`decision=approve`, or `decision=reject` with a `reason`), recorded once with the approver's identity |
//! | `GET /approvals/login` | with [`ApprovalsPage::oauth_client`] (feature `oauth`): `303` to the authorization server, authorization code with PKCE |
//! | `GET /approvals/callback?code=...&state=...` | the sign-in's return: the state checked (`400` otherwise), the code exchanged, the person signed in as the access token's identity; `200` "Signed in", moving on to the list or the request the sign-in started from |
//!
//! Every refusal is a page with its exact status: `401` not signed in; `403` not a decider,
//! a missing or wrong CSRF token, or a form from another origin; `404` no such request (or
//! another tenant's: an id names nothing to anyone else); `409` decided already (approved,
//! rejected or used); `410` expired; `400` a rejection without a reason. None changes
//! anything.
//!
//! **Who decides.** [`ApprovalsPage::deciders`] (identities, `tenant:subject`) and
//! [`ApprovalsPage::decider_scope`] (an OAuth scope) say who may; a decider sees and
//! decides only requests of callers of its own tenant. The rule comes from MCP 2025-11-25
//! "Elicitation", URL mode: the server must check that the person who completes it is the
//! one it was meant for, so the page's identity is a verified sign-in, never a value a form
//! carries.
//!
//! **Callers confirming their own requests** ([`ApprovalsPage::callers_confirm`], with the
//! `elicitation` feature): a gated write of a client that declared URL-mode elicitation
//! (and not form mode) sends it an `elicitation/create` of mode `url`. With OAuth sign-in
//! ([`ApprovalsPage::oauth_client`]) its link is the request's page, with no credential in
//! it: the caller signs in at the authorization server, and the page lets the signed-in
//! person confirm only if it is the request's caller (the identity an MCP call with its
//! token has, tenant included). Without (static tokens, local use) the link is a one-time
//! sign-in bound to the caller's identity and to that request ([`SIGN_IN_TTL`]). Either
//! session sees and decides that request only, and only as its caller (`403` "Not your
//! request" for any other, or for anyone else). Before MCP 2026-07-28 (2025-11-25 "Elicitation", URL mode) it is sent during
//! the call, which waits for the decision, sends `notifications/elicitation/complete` and
//! uses it as an out-of-band approval; from 2026-07-28 on it is the question of an
//! input-required round, and the call that comes again with `accept` waits for the decision
//! and uses it the same way (no completion notification: 2026-07-28 removed it). The link's
//! base is [`ApprovalsPage::public_url`], else the MCP request's `Host` when it is a
//! loopback host.
//!
//! **Protections.** Server-rendered HTML (askama templates, every value HTML-escaped), no
//! JavaScript. Every form carries a CSRF token bound to the session and checked on every
//! POST. Every response has `Content-Security-Policy: default-src 'none'; style-src
//! 'sha256-…'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
//! `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer` and `Cache-Control: no-store`. The
//! session is a cookie sealed with the server key (`HttpOnly`, `SameSite=Strict`, `Secure`
//! unless the page is served on a loopback host, its path the page's), valid
//! [`SESSION_TTL`]; several instances share sessions when they share the server key.

use std::{collections::HashMap, sync::Arc, time::Duration};

use askama::Template;
use axum::{
    body::Bytes,
    extract::{Path, State as Extract},
    http::{header, HeaderMap, HeaderValue, StatusCode, Uri},
    response::{IntoResponse, Response},
    routing::get,
};
use serde_json::Value;

// Signing in through the authorization server (OAuth).
#[cfg(feature = "oauth")]
mod authorize;
// The handlers of the page's routes, and the pages they answer with.
mod handlers;
// The askama templates and how values are shown in them.
mod render;
// Sessions: signing in with a link and out, the cookie, sessions ended in the store, and
// the checks of a request's origin.
mod session;
// The local page beside a stdio server (`State::with_local_approvals_page`).
mod local;
// Callers confirming their own requests: URL-mode elicitation, the local page's links.
mod url;

use handlers::{decide, list, request, value};
pub(crate) use local::serve_local;
use render::*;
use session::*;
#[cfg(feature = "elicitation")]
pub(crate) use url::{confirm_by_url, confirmed_by_url, Confirmed};
pub(crate) use url::{local_sign_in, UrlConfirmation};

use super::{metadata::ProtectedResource, TokenVerifier};
use crate::{
    audit::{AuditRecord, AuditSink, Phase},
    store::{clock::unix_now, key::ServerKey, StoreError},
    wire::identity::Identity,
    write::approval::{
        in_tenant, marked, ApprovalRequest, ApprovalStore, Decision, Refusal, Review,
    },
};

/// How long a sign-in link stays usable: 10 minutes.
pub const SIGN_IN_TTL: Duration = Duration::from_secs(10 * 60);

/// How long a session of the page lasts at most, by default: 8 hours
/// ([`ApprovalsPage::session_limits`]).
pub const SESSION_TTL: Duration = Duration::from_secs(8 * 60 * 60);

/// How long a session of the page lasts unused, by default: 30 minutes
/// ([`ApprovalsPage::session_limits`]).
pub const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

/// How many pending requests the list shows.
const LISTED: usize = 200;

/// How many records of a decided request's audit trail the page shows, the first ones
/// (the blocked answer, the decision, the write, a caller's later refused retries), saying
/// when the log holds more. A caller's retries while the request was pending are not in
/// its trail (`gate::consume`), so they cannot push the decision and the write out of it.
const TRAIL_ROWS: usize = 100;

/// How many characters of an argument's value the request's page shows before cutting it
/// (the whole value is one click away, [`VALUE_CHARS`] a page).
pub const SHOWN_CHARS: usize = 200;

/// How many characters of one argument's value a page of it shows.
pub const VALUE_CHARS: usize = 4000;

/// How deep the page shows objects and arrays row by row; deeper values are shown as JSON.
const MAX_DEPTH_SHOWN: usize = 6;

/// How many bytes of argument rows one page of a request holds, at most (its rows go on
/// on the next page): every page stays under 64 KB whatever the arguments.
const ROWS_BYTES: usize = 40 * 1024;

/// The tool name of a sign-in link's record in the approval store: no tool has a `/` in
/// its name, so no request of a call is one.
const SIGN_IN_TOOL: &str = "mcp-result/approvals-sign-in";

/// The tool name of a caller's sign-in link's record (URL-mode elicitation,
/// [`ApprovalsPage::callers_confirm`]): it signs in to one request, as its caller.
const CALLER_SIGN_IN_TOOL: &str = "mcp-result/approvals-caller-sign-in";

/// The session cookie's name.
const COOKIE: &str = "mcp_result_approvals";

/// The page's stylesheet, inline; the `Content-Security-Policy` allows it by its hash.
const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0 auto;max-width:60rem;\
padding:1rem;line-height:1.4}header{border-bottom:1px solid #ccc;padding-bottom:.5rem}\
.who{color:#555;margin-left:1rem}table{border-collapse:collapse;width:100%}\
th,td{border:1px solid #ccc;padding:.3rem;text-align:left;vertical-align:top}\
pre{white-space:pre-wrap;word-break:break-all;margin:0}.cut,.status{color:#555}\
form{margin:1rem 0}textarea{display:block;width:100%;min-height:4rem}\
header form.out{display:inline;margin:0 0 0 1rem}.warning{border-left:4px solid #b00;\
padding-left:.5rem}.d1{padding-left:1.5rem}.d2{padding-left:3rem}.d3{padding-left:4.5rem}\
.d4{padding-left:6rem}.d5{padding-left:7.5rem}.d6{padding-left:9rem}";

/// The approvals page: where, and who may decide. Serve it with
/// [`HttpOptions::approvals_page`](super::HttpOptions):
///
/// ```
/// use mcp_result_core::http::{ApprovalsPage, HttpOptions};
///
/// let options = HttpOptions::default()
///     .with_approvals_page(ApprovalsPage::new().deciders(["acme:alice"]));
/// assert_eq!(options.approvals_page.unwrap().path(), "/approvals");
/// ```
#[derive(Debug, Clone)]
pub struct ApprovalsPage {
    path: String,
    deciders: Vec<String>,
    scope: Option<String>,
    public_url: Option<String>,
    callers_confirm: bool,
    /// Deciders may approve their own requests ([`ApprovalsPage::allow_self_approval`]).
    self_approval: bool,
    /// How long a session lasts unused, and at most.
    idle_session: Duration,
    max_session: Duration,
    #[cfg(feature = "oauth")]
    oauth: Option<crate::oauth::ClientCredentials>,
}

impl Default for ApprovalsPage {
    fn default() -> Self {
        Self::new()
    }
}

impl ApprovalsPage {
    /// A page at `/approvals` that nobody may decide on yet: name the deciders
    /// ([`Self::deciders`], [`Self::decider_scope`]).
    pub fn new() -> Self {
        Self {
            path: "/approvals".to_owned(),
            deciders: Vec::new(),
            scope: None,
            public_url: None,
            callers_confirm: false,
            self_approval: false,
            idle_session: SESSION_IDLE,
            max_session: SESSION_TTL,
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }

    /// A session ends after `idle` unused, and `max` after its sign-in whatever happens
    /// (defaults [`SESSION_IDLE`], 30 minutes, and [`SESSION_TTL`], 8 hours). Each page
    /// the person opens starts the idle time over. A caller's session of one request
    /// ([`Self::callers_confirm`]) lasts at most [`SIGN_IN_TTL`]. Sessions end sooner at
    /// their sign-out (the page's *Sign out*, a `POST {page}/sign-out`) and when their
    /// identity's sessions are revoked ([`crate::approval::revoke_sessions`], the
    /// `approvals revoke WHO` command), on every instance sharing the approval store.
    #[must_use]
    pub fn session_limits(mut self, idle: Duration, max: Duration) -> Self {
        self.idle_session = idle;
        self.max_session = max;
        self
    }

    /// Deciders may approve requests they made themselves (opt-in). By default a decider
    /// whose identity (tenant and subject, [`Identity::key`]) is the request's caller may
    /// reject it, withdrawing it, but not approve it: `403` "Not yours to approve". A write
    /// that needs a human is meant to be seen by a second person (four eyes). A caller
    /// confirming its own call as the human in the loop over the model
    /// ([`Self::callers_confirm`], form elicitation, the local page beside stdio) is that
    /// separate mode, and needs no opt-in.
    #[must_use]
    pub fn allow_self_approval(mut self) -> Self {
        self.self_approval = true;
        self
    }

    /// People sign in through the server's authorization server (feature `oauth`; the
    /// server is an OAuth resource server, [`HttpOptions::resource`](super::HttpOptions)):
    /// `{page}/login` sends them there, authorization code with PKCE (`S256`), `state` and
    /// `nonce` checked, this server a confidential client registered there as `client_id`
    /// with `client_secret` and the redirect URI `{base}{page}/callback` (the base is
    /// [`Self::public_url`], else a loopback `Host`). The code is exchanged at the token
    /// endpoint the discovery finds, for an access token of this server's resource
    /// (RFC 8707) that the MCP endpoint's verifier checks: the person is the identity an MCP
    /// call with that token would be (issuer, subject, tenant and scopes, through the same
    /// claims mapping), and decides if that identity may ([`Self::deciders`],
    /// [`Self::decider_scope`], which is asked for too).
    #[cfg(feature = "oauth")]
    #[must_use]
    pub fn oauth_client(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.oauth = Some(crate::oauth::ClientCredentials::new(
            client_id,
            client_secret,
        ));
        self
    }

    /// Whether the page's OAuth sign-in ([`Self::oauth_client`]) can work with `resource`,
    /// the server's protected resource: it needs an authorization server.
    pub(crate) fn check_sign_in(&self, resource: Option<&ProtectedResource>) -> Result<(), String> {
        #[cfg(feature = "oauth")]
        if self.oauth.is_some() && resource.is_none_or(|r| r.authorization_servers.is_empty()) {
            return Err(
                "the approvals page signs in with OAuth (`ApprovalsPage::oauth_client`) \
                        but the server names no authorization server: set \
                        `HttpOptions::resource`"
                    .to_owned(),
            );
        }
        let _ = resource;
        Ok(())
    }

    /// Served at `path` (an absolute path, not the MCP endpoint's) instead.
    #[must_use]
    pub fn at(mut self, path: impl Into<String>) -> Self {
        self.path = path.into().trim_end_matches('/').to_owned();
        self
    }

    /// These identities may decide, each `subject` or `tenant:subject` (the
    /// `MCP_RESULT_IDENTITY` form, [`Identity::parse`]).
    #[must_use]
    pub fn deciders<I: IntoIterator<Item = impl Into<String>>>(mut self, identities: I) -> Self {
        self.deciders.extend(identities.into_iter().map(Into::into));
        self
    }

    /// An identity granted `scope` (an OAuth scope, e.g. `approvals:decide`) may decide too.
    #[must_use]
    pub fn decider_scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = Some(scope.into());
        self
    }

    /// The server's external base URL, as browsers reach it (`https://mcp.example.com`,
    /// with the prefix a proxy strips if any): what the links of URL-mode elicitation
    /// ([`Self::callers_confirm`]) start with. Without it, they start with
    /// `http://{Host}` of the MCP request when that `Host` is a loopback host (a server
    /// used locally), and a server reached under any other `Host` asks out of band (a
    /// `Host` header is the client's word, never a base for a link sent to a person).
    #[must_use]
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into().trim_end_matches('/').to_owned());
        self
    }

    /// Callers confirm their own approval requests on the page (opt-in; feature
    /// `elicitation` too). A caller whose client declared URL-mode elicitation
    /// (`{"elicitation": {"url": {}}}`, MCP 2025-11-25) and whose call can be answered
    /// during the call (streamable HTTP with [`HttpOptions::sessions`](super::HttpOptions)),
    /// or that calls on MCP 2026-07-28 (an input-required round, sessions or not), is sent,
    /// for a gated write, an `elicitation/create` of mode `url` to that one request's
    /// page: it may approve or reject that request and no other, whoever the deciders
    /// are. MCP 2025-11-25 "Elicitation", URL mode: the server verifies that the person who
    /// completes it is the user it was meant for. With [`Self::oauth_client`] the link is
    /// the request's page with no credential in it: the person signs in at the
    /// authorization server, and only the request's caller (the identity an MCP call with
    /// its token has, tenant included) may confirm it; anyone else is refused "Not your
    /// request". Without it (static tokens, local use) the link is a one-time sign-in as
    /// the caller to that request (whoever opens it first is signed in, within
    /// [`SIGN_IN_TTL`]). This is self-approval, as a form
    /// elicitation is (the approver recorded is the caller); a write that needs a second
    /// person must not enable it. A client that declared form mode is asked with a form,
    /// as without the page.
    #[must_use]
    pub fn callers_confirm(mut self) -> Self {
        self.callers_confirm = true;
        self
    }

    /// Whether callers confirm their own requests here ([`Self::callers_confirm`]).
    pub fn confirms_callers(&self) -> bool {
        self.callers_confirm
    }

    /// Where the page is served.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Whether `identity` may decide on this page: it is one of [`Self::deciders`], or it
    /// holds [`Self::decider_scope`].
    pub fn may_decide(&self, identity: &Identity) -> bool {
        let key = identity.key();
        self.deciders
            .iter()
            .filter_map(|text| Identity::parse(text).ok())
            .any(|decider| decider.key() == key)
            || self.scope.as_deref().is_some_and(|s| identity.has_scope(s))
    }

    /// The configuration's mistakes, found when the server starts.
    ///
    /// # Errors
    /// A path that is not absolute or is the MCP endpoint's, a decider that is no identity,
    /// or no decider at all; the message names it and the fix.
    pub fn check(&self, mcp_path: &str) -> Result<(), String> {
        if !self.path.starts_with('/') || self.path.len() < 2 {
            return Err(format!(
                "the approvals page's path `{}` must be an absolute path such as `/approvals`",
                self.path
            ));
        }
        if self.path == mcp_path.trim_end_matches('/') {
            return Err(format!(
                "the approvals page's path `{}` is the MCP endpoint's: choose another",
                self.path
            ));
        }
        for decider in &self.deciders {
            Identity::parse(decider)
                .map_err(|error| format!("approvals page decider `{decider}`: {error}"))?;
        }
        if let Some(url) = &self.public_url {
            let parsed = url.parse::<http::Uri>().ok();
            let usable = parsed.as_ref().is_some_and(|uri| {
                matches!(uri.scheme_str(), Some("https" | "http"))
                    && uri.authority().is_some()
                    && uri.query().is_none()
                    && !url.contains('#')
            });
            if !usable {
                return Err(format!(
                    "the approvals page's public URL `{url}` must be an absolute http(s) URL \
                     without query or fragment, such as `https://mcp.example.com`"
                ));
            }
        }
        if self.deciders.is_empty() && self.scope.is_none() && !self.callers_confirm {
            return Err("an approvals page nobody may decide on: name its deciders \
                        (`ApprovalsPage::deciders`) or their scope (`decider_scope`), or \
                        let callers confirm their own requests (`callers_confirm`)"
                .to_owned());
        }
        Ok(())
    }

    /// Mints a one-time sign-in link for `approver` (for a server with static tokens, used
    /// locally: the operator's command prints it): the page's path and a random token,
    /// `/approvals/sign-in?token=...`, usable once within [`SIGN_IN_TTL`]. Its record lives
    /// in `store` (the server's approval store, so a link minted by another process on the
    /// same SQL database works), keyed by the token's SHA-256: the store never holds the
    /// token itself.
    ///
    /// # Errors
    /// [`StoreError::Invalid`] when `approver` may not decide on this page; the store's
    /// failure.
    pub async fn sign_in_link(
        &self,
        store: &dyn ApprovalStore,
        approver: &Identity,
    ) -> Result<String, StoreError> {
        if !self.may_decide(approver) {
            return Err(StoreError::Invalid(format!(
                "`{}` may not decide on this approvals page: add it to its deciders",
                approver.key()
            )));
        }
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).expect("the operating system's random source");
        let token = base64_url(&bytes);
        let record = ApprovalRequest {
            id: token_id(&token),
            tool: SIGN_IN_TOOL.to_owned(),
            text: serde_json::to_string(approver)?,
            caller: approver.key(),
            fingerprints: Vec::new(),
            expires_at: unix_now() + SIGN_IN_TTL.as_secs(),
            decision: Decision::Pending,
            review: None,
        };
        store.create(&record).await?;
        Ok(format!("{}/sign-in?token={token}", self.path))
    }
}

fn base64_url(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The store id of a sign-in token's record: its SHA-256, hex.
fn token_id(token: &str) -> String {
    use sha2::Digest as _;
    crate::wire::text::hex(&sha2::Sha256::digest(token.as_bytes()))
}

/// What every handler of the page reads.
struct Page {
    config: ApprovalsPage,
    store: Arc<dyn ApprovalStore>,
    /// Where each decision is recorded, and a decided request's trail is read.
    audit: Arc<dyn AuditSink>,
    key: Arc<ServerKey>,
    /// Told of each decision: the clients following the request's resource hear it.
    subscriptions: crate::subscriptions::Subscriptions,
    /// Each tool's title, by name.
    titles: HashMap<String, String>,
    csp: HeaderValue,
    /// The OAuth sign-in ([`ApprovalsPage::oauth_client`]).
    #[cfg(feature = "oauth")]
    oauth: Option<authorize::OAuthSignIn>,
}

/// The page's routes, outside the MCP endpoint's layers (its own headers and checks).
/// The page's routes, deciding the requests of `store` and recording to `audit`: the
/// server's ([`ServerServices`](crate::ServerServices), which default to `state`'s), the
/// stores its writes use.
pub(super) fn routes(
    config: &ApprovalsPage,
    (store, audit): (Arc<dyn ApprovalStore>, Arc<dyn crate::audit::AuditSink>),
    state: &crate::state::State,
    tools: &[rmcp::model::Tool],
    verifier: &Arc<dyn TokenVerifier>,
    resource: Option<&ProtectedResource>,
) -> axum::Router {
    #[cfg(feature = "oauth")]
    let oauth = authorize::OAuthSignIn::new(config, resource, Arc::clone(verifier))
        .unwrap_or_else(|error| panic!("{error}"));
    #[cfg(not(feature = "oauth"))]
    let _ = (verifier, resource);
    use sha2::Digest as _;
    let titles = tools
        .iter()
        .map(|tool| {
            let title = tool
                .title
                .clone()
                .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()))
                .unwrap_or_else(|| tool.name.to_string());
            (tool.name.to_string(), title)
        })
        .collect();
    let style_hash = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(STYLE.as_bytes()))
    };
    let csp = format!(
        "default-src 'none'; style-src 'sha256-{style_hash}'; form-action 'self'; \
         frame-ancestors 'none'; base-uri 'none'"
    );
    let page = Arc::new(Page {
        config: config.clone(),
        store,
        audit,
        key: Arc::clone(state.server_key()),
        subscriptions: state.subscriptions().clone(),
        titles,
        csp: HeaderValue::from_str(&csp).expect("a header value"),
        #[cfg(feature = "oauth")]
        oauth,
    });
    let base = &config.path;
    let routes = axum::Router::new();
    #[cfg(feature = "oauth")]
    let routes = if page.oauth.is_some() {
        routes
            .route(&format!("{base}/login"), get(authorize::login))
            .route(&format!("{base}/callback"), get(authorize::callback))
    } else {
        routes
    };
    routes
        .route(base, get(list))
        .route(&format!("{base}/sign-in"), get(sign_in_page).post(sign_in))
        .route(&format!("{base}/sign-out"), axum::routing::post(sign_out))
        .route(
            &format!("{base}/requests/{{id}}"),
            get(request).post(decide),
        )
        .route(&format!("{base}/requests/{{id}}/value"), get(value))
        .layer(axum::middleware::map_response_with_state(
            Arc::clone(&page),
            framing,
        ))
        .with_state(page)
}

/// The headers of every page response.
async fn framing(Extract(page): Extract<Arc<Page>>, mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, page.csp.clone());
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}
