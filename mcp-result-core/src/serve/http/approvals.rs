//! The approvals page (feature `approvals-page`): where a person decides, in a browser, the
//! approval requests of writes that could not ask their caller
//! ([`crate::approval`]). Opt-in with [`HttpOptions::approvals_page`](super::HttpOptions):
//! [`router`](super::router) then serves it beside the MCP endpoint.
//!
//! | request | answers |
//! |---|---|
//! | `GET /approvals/sign-in?token=...` | a one-time sign-in link ([`ApprovalsPage::sign_in_link`]): `303` to the list with the session cookie; a used or expired link `410`, any other `403` |
//! | `GET /approvals` | the pending requests of the signed-in person's tenant (`401` without a session) |
//! | `GET /approvals/requests/{id}` | one request: the tool's title, the approval text, the arguments (secrets withheld, long values cut with their length), who asked and when, when it expires, the Approve and Reject forms |
//! | `POST /approvals/requests/{id}` | the decision (`decision=approve`, or `decision=reject` with a `reason`), recorded once with the approver's identity |
//! | `GET /approvals/login` | with [`ApprovalsPage::oauth_client`] (feature `oauth`): `303` to the authorization server, authorization code with PKCE |
//! | `GET /approvals/callback?code=...&state=...` | the sign-in's return: the state checked (`400` otherwise), the code exchanged, the person signed in as the access token's identity |
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
//! (and not form mode) sends it, during the call, an `elicitation/create` of mode `url`
//! whose link is a one-time sign-in bound to the caller's identity and to that request
//! ([`SIGN_IN_TTL`]); the session it opens sees and decides that request only (`403`
//! "Not your request" for any other), the call waits for the decision, sends
//! `notifications/elicitation/complete` and uses it as an out-of-band approval. The link's
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

#[cfg(feature = "oauth")]
mod authorize;

use super::{metadata::ProtectedResource, TokenVerifier};
use crate::{
    store::{clock::unix_now, key::ServerKey, StoreError},
    wire::identity::Identity,
    write::approval::{in_tenant, ApprovalRequest, ApprovalStore, Decision, Refusal, Review},
};

/// How long a sign-in link stays usable: 10 minutes.
pub const SIGN_IN_TTL: Duration = Duration::from_secs(10 * 60);

/// How long a session of the page lasts: 8 hours.
pub const SESSION_TTL: Duration = Duration::from_secs(8 * 60 * 60);

/// How many pending requests the list shows.
const LISTED: usize = 200;

/// How many characters of an argument's value the page shows before cutting it.
const SHOWN_CHARS: usize = 200;

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
form{margin:1rem 0}textarea{display:block;width:100%;min-height:4rem}";

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
            #[cfg(feature = "oauth")]
            oauth: None,
        }
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
    /// during the call (streamable HTTP with [`HttpOptions::sessions`](super::HttpOptions))
    /// is sent, for a gated write, an `elicitation/create` of mode `url` whose link signs
    /// it in, once, to that one request's page, as itself: it may approve or reject that
    /// request and no other, whoever the deciders are. This is self-approval, as a form
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
    key: Arc<ServerKey>,
    /// Each tool's title, by name.
    titles: HashMap<String, String>,
    csp: HeaderValue,
    /// The OAuth sign-in ([`ApprovalsPage::oauth_client`]).
    #[cfg(feature = "oauth")]
    oauth: Option<authorize::OAuthSignIn>,
}

/// The page's routes, outside the MCP endpoint's layers (its own headers and checks).
pub(super) fn routes(
    config: &ApprovalsPage,
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
        store: Arc::clone(state.approval_store()),
        key: Arc::clone(state.server_key()),
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
        .route(&format!("{base}/sign-in"), get(sign_in))
        .route(
            &format!("{base}/requests/{{id}}"),
            get(request).post(decide),
        )
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

#[derive(Template)]
#[template(path = "approvals/message.html")]
struct Message<'a> {
    style: &'a str,
    base: &'a str,
    who: Option<String>,
    status: u16,
    heading: &'a str,
    line: &'a str,
    back: bool,
    /// Where to sign in, on a `401` of a page that signs in with OAuth.
    sign_in: Option<String>,
}

struct Row {
    id: String,
    title: String,
    text: String,
    caller: String,
    asked: String,
    expires: String,
}

#[derive(Template)]
#[template(path = "approvals/list.html")]
struct List<'a> {
    style: &'a str,
    base: &'a str,
    who: Option<String>,
    rows: Vec<Row>,
}

struct Argument {
    name: String,
    value: String,
    /// The value's length in characters, when it was cut.
    cut: Option<usize>,
    withheld: bool,
}

#[derive(Template)]
#[template(path = "approvals/request.html")]
struct Detail<'a> {
    style: &'a str,
    base: &'a str,
    who: Option<String>,
    id: &'a str,
    tool: &'a str,
    title: &'a str,
    text: &'a str,
    caller: String,
    asked: String,
    expires: String,
    arguments: Vec<Argument>,
    csrf: &'a str,
}

fn html(status: StatusCode, body: Result<String, askama::Error>) -> Response {
    match body {
        Ok(body) => (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body,
        )
            .into_response(),
        Err(error) => {
            tracing::error!(%error, "approvals page: a template failed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

impl Page {
    /// A page of one message, with its exact status.
    fn message(
        &self,
        status: StatusCode,
        who: Option<&Identity>,
        heading: &str,
        line: &str,
    ) -> Response {
        let page = Message {
            style: STYLE,
            base: &self.config.path,
            who: who.map(shown_identity),
            status: status.as_u16(),
            heading,
            line,
            back: who.is_some(),
            sign_in: None,
        };
        html(status, page.render())
    }

    fn not_signed_in(&self) -> Response {
        #[cfg(feature = "oauth")]
        if self.oauth.is_some() {
            let page = Message {
                style: STYLE,
                base: &self.config.path,
                who: None,
                status: 401,
                heading: "Not signed in",
                line: "You are not signed in to the approvals page.",
                back: false,
                sign_in: Some(format!("{}/login", self.config.path)),
            };
            return html(StatusCode::UNAUTHORIZED, page.render());
        }
        self.message(
            StatusCode::UNAUTHORIZED,
            None,
            "Not signed in",
            "You are not signed in to the approvals page: open the sign-in link your \
             operator gave you.",
        )
    }

    /// `/login` and `/callback` of a page without OAuth sign-in (never routed).
    #[cfg(feature = "oauth")]
    fn no_oauth(&self) -> Response {
        self.message(
            StatusCode::NOT_FOUND,
            None,
            "Not found",
            "This approvals page does not sign in through an authorization server.",
        )
    }

    /// Opens a session of `identity` (a caller's of `request` only, when given): its
    /// sealed cookie set on `response`.
    fn open_session(
        &self,
        headers: &HeaderMap,
        identity: Identity,
        request: Option<String>,
        response: &mut Response,
    ) {
        let mut csrf = [0u8; 32];
        getrandom::fill(&mut csrf).expect("the operating system's random source");
        let session = Session {
            purpose: SESSION_PURPOSE.to_owned(),
            identity,
            csrf: base64_url(&csrf),
            expires_at: unix_now()
                + if request.is_some() {
                    SIGN_IN_TTL.as_secs()
                } else {
                    SESSION_TTL.as_secs()
                },
            request,
        };
        let sealed = self
            .key
            .seal(&serde_json::to_value(&session).unwrap_or_default());
        let cookie = format!(
            "{COOKIE}={sealed}; Path={}; Max-Age={}; HttpOnly; SameSite=Strict{}",
            self.config.path,
            session.expires_at.saturating_sub(unix_now()),
            secure(headers)
        );
        if let Ok(cookie) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, cookie);
        }
    }

    fn not_a_decider(&self, identity: &Identity) -> Response {
        self.message(
            StatusCode::FORBIDDEN,
            Some(identity),
            "Not an approver",
            &format!(
                "{} may not decide approval requests on this server.",
                shown_identity(identity)
            ),
        )
    }

    fn no_such_request(&self, identity: &Identity) -> Response {
        self.message(
            StatusCode::NOT_FOUND,
            Some(identity),
            "No such approval request",
            "No such approval request.",
        )
    }

    fn store_failed(&self, identity: Option<&Identity>, error: &StoreError) -> Response {
        tracing::error!(%error, "approvals page: the approval store failed");
        self.message(
            StatusCode::SERVICE_UNAVAILABLE,
            identity,
            "The approval store failed",
            "The approval store could not be reached; nothing was changed. Try again.",
        )
    }

    /// The signed-in decider of `headers`' session, or the page that says why not.
    fn session(&self, headers: &HeaderMap) -> Result<Session, Response> {
        let Some(session) = cookie(headers)
            .and_then(|sealed| self.key.open(&sealed))
            .and_then(|body| serde_json::from_value::<Session>(body).ok())
            .filter(|s| s.purpose == SESSION_PURPOSE && s.expires_at > unix_now())
        else {
            return Err(self.not_signed_in());
        };
        let allowed = if session.request.is_some() {
            self.config.callers_confirm
        } else {
            self.config.may_decide(&session.identity)
        };
        if !allowed {
            return Err(self.not_a_decider(&session.identity));
        }
        Ok(session)
    }

    /// A caller's session opens its own request only: any other is refused `403`, and so
    /// is a request whose caller is not the signed-in identity (identity equality:
    /// [`Identity::key`], tenant and subject).
    fn own(&self, session: &Session, request: &ApprovalRequest) -> Result<(), Response> {
        let Some(only) = &session.request else {
            return Ok(());
        };
        if *only == request.id && request.caller == session.identity.key() {
            return Ok(());
        }
        Err(self.message(
            StatusCode::FORBIDDEN,
            Some(&session.identity),
            "Not your request",
            "This approval request is not the one you were signed in to confirm; only its \
             caller may confirm it, and only from the link its client was sent.",
        ))
    }

    /// `request` when `identity` may see it: a request decided out of band (it has a
    /// review) of a caller of its tenant.
    async fn visible(
        &self,
        id: &str,
        identity: &Identity,
    ) -> Result<(ApprovalRequest, Review), Response> {
        match self.store.get(id).await {
            Ok(Some(mut request))
                if in_tenant(&request.caller, identity.tenant.as_deref())
                    && request.tool != SIGN_IN_TOOL
                    && request.tool != CALLER_SIGN_IN_TOOL =>
            {
                match request.review.take() {
                    Some(review) => Ok((request, review)),
                    None => Err(self.no_such_request(identity)),
                }
            }
            Ok(_) => Err(self.no_such_request(identity)),
            Err(error) => Err(self.store_failed(Some(identity), &error)),
        }
    }

    /// The page of a request that can no longer be decided: decided already (`409`) or
    /// expired (`410`).
    fn settled(&self, identity: &Identity, request: &ApprovalRequest) -> Option<Response> {
        let line = match &request.decision {
            Decision::Pending if request.expired() => {
                return Some(self.expired(identity));
            }
            Decision::Pending => return None,
            Decision::Approved { approver, .. } => {
                format!("This approval request was decided already: approved by {approver}.")
            }
            Decision::Used { approver, .. } => format!(
                "This approval request was decided already: approved by {approver}, and used."
            ),
            Decision::Rejected { approver, reason } => format!(
                "This approval request was decided already: rejected by {approver} ({reason})."
            ),
        };
        Some(self.message(
            StatusCode::CONFLICT,
            Some(identity),
            "Decided already",
            &line,
        ))
    }

    fn expired(&self, identity: &Identity) -> Response {
        self.message(
            StatusCode::GONE,
            Some(identity),
            "Expired",
            "This approval request expired; nothing was changed. The caller may ask again.",
        )
    }
}

const SESSION_PURPOSE: &str = "mcp-result/approvals-session";

/// A session of the page, sealed in its cookie.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Session {
    purpose: String,
    identity: Identity,
    /// The CSRF token of this session's forms.
    csrf: String,
    expires_at: u64,
    /// A caller's session (URL-mode elicitation): the one request, of this identity, it
    /// may see and decide. `None`: a decider's session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    request: Option<String>,
}

/// What a caller's sign-in link's record holds: who it signs in, to which request.
#[derive(serde::Serialize, serde::Deserialize)]
struct CallerLink {
    identity: Identity,
    request: String,
}

/// The session cookie's value, if the request has one.
fn cookie(headers: &HeaderMap) -> Option<String> {
    cookie_named(headers, COOKIE)
}

/// `; Secure` for a cookie, unless the request's `Host` is a loopback host (plain HTTP).
fn secure(headers: &HeaderMap) -> &'static str {
    if on_loopback(headers) {
        ""
    } else {
        "; Secure"
    }
}

/// The value of the cookie `name`, if the request has one.
fn cookie_named(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(found, _)| *found == name)
        .map(|(_, value)| value.to_owned())
}

/// Whether the request's `Host` is a loopback host (no `Secure` cookie there: plain HTTP).
fn on_loopback(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `tenant:subject` as people read it: `alice (acme)`.
fn shown_identity(identity: &Identity) -> String {
    match &identity.tenant {
        Some(tenant) => format!("{} ({tenant})", identity.subject),
        None => identity.subject.clone(),
    }
}

/// A caller key (`tenant:subject`, encoded) as people read it.
fn shown_caller(caller: &str) -> String {
    let decode = |part: &str| part.replace("%3A", ":").replace("%25", "%");
    match caller.split_once(':') {
        Some((tenant, subject)) => format!("{} ({})", decode(subject), decode(tenant)),
        None => decode(caller),
    }
}

/// A Unix time as `2026-12-15 10:04:05 UTC`.
fn shown_time(at: u64) -> String {
    i64::try_from(at)
        .ok()
        .and_then(|at| chrono::DateTime::from_timestamp(at, 0))
        .map_or_else(
            || at.to_string(),
            |t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        )
}

/// An expiry with how far away it is.
fn shown_expiry(at: u64) -> String {
    let now = unix_now();
    if at <= now {
        return format!("{} (expired)", shown_time(at));
    }
    let minutes = (at - now).div_ceil(60);
    format!("{} (in {minutes} min)", shown_time(at))
}

/// The arguments of a review as table rows: each top-level argument (strings as they are,
/// other values as JSON, cut past [`SHOWN_CHARS`] characters with their length stated),
/// then each withheld secret.
fn argument_rows(review: &Review) -> Vec<Argument> {
    let mut rows = Vec::new();
    if let Value::Object(arguments) = &review.arguments {
        for (name, value) in arguments {
            let text = match value {
                Value::String(text) => text.clone(),
                other => serde_json::to_string_pretty(other).unwrap_or_default(),
            };
            let length = text.chars().count();
            let (value, cut) = if length > SHOWN_CHARS {
                let shown: String = text.chars().take(SHOWN_CHARS).collect();
                (format!("{shown}…"), Some(length))
            } else {
                (text, None)
            };
            rows.push(Argument {
                name: name.clone(),
                value,
                cut,
                withheld: false,
            });
        }
    }
    for pointer in &review.withheld {
        let name = pointer
            .strip_prefix('/')
            .unwrap_or(pointer)
            .replace("~1", "/")
            .replace("~0", "~");
        rows.push(Argument {
            name,
            value: String::new(),
            cut: None,
            withheld: true,
        });
    }
    rows
}

/// `GET /approvals/sign-in?token=...`: uses the link once and opens a session.
async fn sign_in(Extract(page): Extract<Arc<Page>>, headers: HeaderMap, uri: Uri) -> Response {
    let token = uri
        .query()
        .map(|q| form_urlencoded::parse(q.as_bytes()))
        .and_then(|mut pairs| pairs.find(|(name, _)| name == "token"))
        .map(|(_, token)| token.into_owned())
        .unwrap_or_default();
    let invalid = || {
        page.message(
            StatusCode::FORBIDDEN,
            None,
            "Not a sign-in link",
            "This sign-in link is not valid: ask your operator for a new one.",
        )
    };
    if token.is_empty() || token.len() > 100 {
        return invalid();
    }
    let used = Decision::Used {
        approval_id: String::new(),
        approver: String::new(),
    };
    let (identity, request) = match page.store.decide(&token_id(&token), used).await {
        Ok(Ok(record)) if record.tool == SIGN_IN_TOOL => {
            match serde_json::from_str::<Identity>(&record.text) {
                Ok(identity) => (identity, None),
                Err(_) => return invalid(),
            }
        }
        Ok(Ok(record)) if record.tool == CALLER_SIGN_IN_TOOL && page.config.callers_confirm => {
            match serde_json::from_str::<CallerLink>(&record.text) {
                // The record's caller is the identity's key: a link signs in as the one
                // identity it was minted for.
                Ok(link) if link.identity.key() == record.caller => {
                    (link.identity, Some(link.request))
                }
                _ => return invalid(),
            }
        }
        Ok(Ok(_) | Err(Refusal::Unknown)) => return invalid(),
        Ok(Err(Refusal::Expired)) => {
            return page.message(
                StatusCode::GONE,
                None,
                "Sign-in link expired",
                "This sign-in link expired: ask your operator for a new one.",
            )
        }
        Ok(Err(_)) => {
            return page.message(
                StatusCode::GONE,
                None,
                "Sign-in link used",
                "This sign-in link was used already; each link signs in once.",
            )
        }
        Err(error) => return page.store_failed(None, &error),
    };
    if request.is_none() && !page.config.may_decide(&identity) {
        return page.not_a_decider(&identity);
    }
    let location = match &request {
        Some(id) => format!("{}/requests/{id}", page.config.path),
        None => page.config.path.clone(),
    };
    let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response();
    page.open_session(&headers, identity, request, &mut response);
    response
}

/// `GET /approvals`: the pending requests of the decider's tenant.
async fn list(Extract(page): Extract<Arc<Page>>, headers: HeaderMap) -> Response {
    let session = match page.session(&headers) {
        Ok(session) => session,
        Err(refused) => return refused,
    };
    let identity = &session.identity;
    let pending = match page.store.pending(identity.tenant.as_deref(), LISTED).await {
        Ok(pending) => pending,
        Err(error) => return page.store_failed(Some(identity), &error),
    };
    let rows = pending
        .into_iter()
        .filter(|request| {
            session
                .request
                .as_ref()
                .is_none_or(|only| *only == request.id && request.caller == identity.key())
        })
        .map(|request| Row {
            title: page
                .titles
                .get(&request.tool)
                .cloned()
                .unwrap_or_else(|| request.tool.clone()),
            asked: request
                .review
                .as_ref()
                .map(|r| shown_time(r.asked_at))
                .unwrap_or_default(),
            expires: shown_expiry(request.expires_at),
            caller: shown_caller(&request.caller),
            text: request.text,
            id: request.id,
        })
        .collect();
    let list = List {
        style: STYLE,
        base: &page.config.path,
        who: Some(shown_identity(identity)),
        rows,
    };
    html(StatusCode::OK, list.render())
}

/// `GET /approvals/requests/{id}`: one request and the forms that decide it.
async fn request(
    Extract(page): Extract<Arc<Page>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let session = match page.session(&headers) {
        Ok(session) => session,
        Err(refused) => return refused,
    };
    let identity = &session.identity;
    let (request, review) = match page.visible(&id, identity).await {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    if let Err(refused) = page.own(&session, &request) {
        return refused;
    }
    if let Some(settled) = page.settled(identity, &request) {
        return settled;
    }
    let title = page
        .titles
        .get(&request.tool)
        .map_or(request.tool.as_str(), String::as_str);
    let detail = Detail {
        style: STYLE,
        base: &page.config.path,
        who: Some(shown_identity(identity)),
        id: &request.id,
        tool: &request.tool,
        title,
        text: &request.text,
        caller: shown_caller(&request.caller),
        asked: shown_time(review.asked_at),
        expires: shown_expiry(request.expires_at),
        arguments: argument_rows(&review),
        csrf: &session.csrf,
    };
    html(StatusCode::OK, detail.render())
}

/// Whether `a` and `b` are equal, in time independent of where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |diff, (x, y)| diff | (x ^ y))
            == 0
}

/// Whether a form comes from the page itself: its `Sec-Fetch-Site` (Fetch Metadata, sent
/// by every current browser), when sent, is `same-origin`, and its `Origin`, when sent, is
/// the page's own (the `Host` it was sent to). A browser sends `Origin: null` for a form of
/// a page whose `Referrer-Policy` is `no-referrer` (this page's), even to its own origin:
/// that stands only beside `Sec-Fetch-Site: same-origin`.
fn same_origin(headers: &HeaderMap) -> bool {
    let site = headers.get("sec-fetch-site");
    if site.is_some_and(|site| site.as_bytes() != b"same-origin") {
        return false;
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    if origin.as_bytes() == b"null" {
        return site.is_some();
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let authority = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, authority)| authority);
    matches!((authority, host), (Some(a), Some(h)) if a.eq_ignore_ascii_case(h))
}

/// `POST /approvals/requests/{id}`: the decision, recorded once with the approver.
async fn decide(
    Extract(page): Extract<Arc<Page>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let session = match page.session(&headers) {
        Ok(session) => session,
        Err(refused) => return refused,
    };
    let identity = &session.identity;
    let form: HashMap<String, String> = form_urlencoded::parse(&body).into_owned().collect();
    let csrf_ok = form
        .get("csrf")
        .is_some_and(|token| same(token, &session.csrf));
    if !csrf_ok || !same_origin(&headers) {
        return page.message(
            StatusCode::FORBIDDEN,
            Some(identity),
            "Refused",
            "The form's CSRF token is missing or wrong (or it came from another site); \
             nothing was changed. Open the request again and decide from its page.",
        );
    }
    let (request, _review) = match page.visible(&id, identity).await {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    if let Err(refused) = page.own(&session, &request) {
        return refused;
    }
    if let Some(settled) = page.settled(identity, &request) {
        return settled;
    }
    let approver = identity.key();
    let (decision, done) = match form.get("decision").map(String::as_str) {
        Some("approve") => {
            let approval_id = uuid::Uuid::now_v7().to_string();
            let done = if session.request.is_some() {
                format!(
                    "Approved: go back to your client; the call that asked runs the write \
                     once, under approval {approval_id}."
                )
            } else {
                format!(
                    "Approved: the caller's next call with this request runs once, under \
                     approval {approval_id}."
                )
            };
            (
                Decision::Approved {
                    approval_id,
                    approver,
                },
                done,
            )
        }
        Some("reject") => {
            let reason = form
                .get("reason")
                .map(|r| r.trim())
                .unwrap_or_default()
                .chars()
                .take(500)
                .collect::<String>();
            if reason.is_empty() {
                return page.message(
                    StatusCode::BAD_REQUEST,
                    Some(identity),
                    "A reason is needed",
                    "A rejection needs a reason; nothing was changed.",
                );
            }
            let done = format!("Rejected: the write never runs under this request ({reason}).");
            (Decision::Rejected { approver, reason }, done)
        }
        _ => {
            return page.message(
                StatusCode::BAD_REQUEST,
                Some(identity),
                "No decision",
                "The form said neither approve nor reject; nothing was changed.",
            )
        }
    };
    match page.store.decide(&request.id, decision).await {
        Ok(Ok(_)) => {
            let heading = if done.starts_with("Approved") {
                "Approved"
            } else {
                "Rejected"
            };
            page.message(StatusCode::OK, Some(identity), heading, &done)
        }
        Ok(Err(Refusal::Expired)) => page.expired(identity),
        Ok(Err(Refusal::Unknown)) => page.no_such_request(identity),
        Ok(Err(_)) => match page.store.get(&request.id).await {
            Ok(Some(now)) => page.settled(identity, &now).unwrap_or_else(|| {
                page.message(
                    StatusCode::CONFLICT,
                    Some(identity),
                    "Decided already",
                    "This approval request was decided already.",
                )
            }),
            Ok(None) => page.no_such_request(identity),
            Err(error) => page.store_failed(Some(identity), &error),
        },
        Err(error) => page.store_failed(Some(identity), &error),
    }
}

/// URL-mode elicitation to the page ([`ApprovalsPage::callers_confirm`]): put in the MCP
/// endpoint's requests by the router, so a gated write of such a request may send its
/// caller to the page.
#[cfg(feature = "elicitation")]
#[derive(Debug, Clone)]
pub(crate) struct UrlConfirmation(Arc<ApprovalsPage>);

#[cfg(feature = "elicitation")]
impl UrlConfirmation {
    pub(crate) fn new(page: &ApprovalsPage) -> Self {
        Self(Arc::new(page.clone()))
    }
}

/// How a URL-mode confirmation ended.
#[cfg(feature = "elicitation")]
pub(crate) enum Confirmed {
    /// The request was decided on the page (approved or rejected) or expired: the gate
    /// uses it as an out-of-band approval is used.
    Decided,
    /// The client declined or cancelled the elicitation: the request is rejected.
    Declined(&'static str),
    /// The call was cancelled while it waited: the request is rejected.
    Cancelled,
    /// No decision within the wait, or the client failed: the request stays pending, for
    /// a decider (or the caller, still signed in) and a later call with its id.
    Undecided,
}

/// The method of the notification that tells the client a URL-mode elicitation is done
/// (MCP 2025-11-25 "Elicitation"; rmcp 3.11 has no type for it: sent as a custom
/// notification).
#[cfg(feature = "elicitation")]
pub(crate) const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";

/// How often the waiting call looks at the store for the page's decision.
#[cfg(feature = "elicitation")]
const POLL: Duration = Duration::from_millis(200);

/// Sends the caller of `request` (pending, in `store`) to its page by URL-mode
/// elicitation, when the call can: the page lets callers confirm and the router put it in
/// this request, the client declared URL mode (and not form mode, which asks with a form
/// instead), requests reach it during the call, the caller is the request's, and the page
/// has a public base URL (or the MCP request's `Host` is a loopback host). `None` when not:
/// the request is left to a decider, out of band.
///
/// The link is a one-time sign-in (as [`ApprovalsPage::sign_in_link`]) bound to the
/// caller's identity and to this request, usable within [`SIGN_IN_TTL`], sent only in
/// this elicitation (to the caller's own authenticated session). After the client's
/// `accept` the call waits, until `policy.wait` from the start, for the page's decision;
/// once decided it sends `notifications/elicitation/complete`.
#[cfg(feature = "elicitation")]
pub(crate) async fn confirm_by_url(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
    store: &dyn ApprovalStore,
    request: &ApprovalRequest,
    policy: crate::call::client::AskPolicy,
) -> Option<Confirmed> {
    use crate::call::client::{elicits_forms, request_during_call, Unanswered};
    use rmcp::model::{
        ClientResult, CustomNotification, ElicitRequest, ElicitRequestParams, ElicitationAction,
        ServerNotification, ServerRequest,
    };

    let parts = context.extensions.get::<http::request::Parts>()?;
    let UrlConfirmation(page) = parts.extensions.get::<UrlConfirmation>()?;
    let capabilities = context.client_capabilities()?;
    let declared_url = capabilities
        .elicitation
        .as_ref()
        .is_some_and(|modes| modes.url.is_some());
    if !page.callers_confirm || !declared_url || elicits_forms(&capabilities) {
        return None;
    }
    // Before MCP 2026-07-28 only (a request during the call); over a connection that
    // carries the answer back.
    if crate::call::client::asks_by_round(context)
        || !crate::call::client::requests_reach_the_client(context)
    {
        return None;
    }
    let caller = Identity::of(context).filter(|c| c.key() == request.caller)?;
    let base = match &page.public_url {
        Some(url) => url.clone(),
        None if on_loopback(&parts.headers) => {
            let host = parts.headers.get(header::HOST)?.to_str().ok()?;
            format!("http://{host}")
        }
        None => {
            tracing::debug!(
                "URL-mode elicitation not sent: the approvals page has no public URL and \
                 the request's Host is not a loopback host"
            );
            return None;
        }
    };
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    let token = base64_url(&bytes);
    let link = CallerLink {
        identity: caller.clone(),
        request: request.id.clone(),
    };
    let record = ApprovalRequest {
        id: token_id(&token),
        tool: CALLER_SIGN_IN_TOOL.to_owned(),
        text: serde_json::to_string(&link).ok()?,
        caller: caller.key(),
        fingerprints: Vec::new(),
        expires_at: unix_now() + SIGN_IN_TTL.as_secs(),
        decision: Decision::Pending,
        review: None,
    };
    if let Err(error) = store.create(&record).await {
        tracing::warn!(%error, "URL-mode elicitation not sent: its sign-in link was not stored");
        return None;
    }
    let url = format!("{base}{}/sign-in?token={token}", page.path);
    let message = format!(
        "Approve this write? {} Open the link to review and confirm it, signed in as {}.",
        request.text,
        shown_identity(&caller)
    );
    let asked = ServerRequest::ElicitRequest(ElicitRequest::new(
        ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message,
            url,
            elicitation_id: request.id.clone(),
        },
    ));
    let started = tokio::time::Instant::now();
    let waiting = format!(
        "Waiting for the user to confirm on the page: {}",
        request.text
    );
    let reject = |reason: &str| Decision::Rejected {
        approver: caller.key(),
        reason: reason.to_owned(),
    };
    match request_during_call(context, asked, policy, &waiting).await {
        Ok(ClientResult::ElicitResult(answer)) if answer.action == ElicitationAction::Accept => {}
        Ok(ClientResult::ElicitResult(_)) => {
            let _ = store
                .decide(&request.id, reject("declined by the user"))
                .await;
            return Some(Confirmed::Declined("declined by the user"));
        }
        Ok(_) | Err(Unanswered::TimedOut(_)) => return Some(Confirmed::Undecided),
        Err(Unanswered::Failed(error)) => {
            tracing::debug!(%error, "URL-mode elicitation failed: asking out of band");
            return Some(Confirmed::Undecided);
        }
        Err(Unanswered::Cancelled) => {
            let _ = store
                .decide(&request.id, reject("the call was cancelled"))
                .await;
            return Some(Confirmed::Cancelled);
        }
    }
    // Accepted: the user opened the link. The decision is the page's, in the store.
    let deadline = started + policy.wait;
    loop {
        match store.get(&request.id).await {
            Ok(Some(now)) if now.decision != Decision::Pending || now.expired() => break,
            Ok(Some(_)) => {}
            Ok(None) => break,
            Err(error) => {
                tracing::warn!(%error, "approval store failed while a call waited for the page");
            }
        }
        if tokio::time::Instant::now() + POLL > deadline {
            return Some(Confirmed::Undecided);
        }
        tokio::select! {
            biased;
            () = context.ct.cancelled() => {
                let _ = store
                    .decide(&request.id, reject("the call was cancelled"))
                    .await;
                return Some(Confirmed::Cancelled);
            }
            () = tokio::time::sleep(POLL) => {}
        }
    }
    let complete = CustomNotification::new(
        ELICITATION_COMPLETE,
        Some(serde_json::json!({ "elicitationId": request.id })),
    );
    if let Err(error) = context
        .peer
        .send_notification(ServerNotification::CustomNotification(complete))
        .await
    {
        tracing::debug!(%error, "notifications/elicitation/complete not sent");
    }
    Some(Confirmed::Decided)
}
