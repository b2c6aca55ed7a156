//! Signing in to the approvals page through the authorization server of an OAuth resource
//! server (feature `oauth`, [`ApprovalsPage::oauth_client`]): OAuth 2.1 authorization code
//! with PKCE (`S256`), the server a confidential client (`client_secret_basic`), `state` and
//! OpenID Connect `nonce` checked. The access token of the exchange is asked for this
//! server's resource (RFC 8707) and verified by the MCP endpoint's own verifier, so the
//! person's identity (issuer, subject, tenant, scopes) is derived exactly as an MCP call's.
//!
//! A handful of HTTP calls with the `oauth` feature's reqwest client (the discovery the
//! resource server does, a form post to the token endpoint with client credentials): no
//! OAuth client crate, whose own HTTP stack and types would be a second copy of these.

use serde::{Deserialize, Serialize};

use super::*;
use crate::{
    http::{ProtectedResource, TokenVerifier},
    oauth::{AuthorizationServer, ClientCredentials},
    serve::oauth::fetch::{default_client, post_form},
};

/// The cookie of a sign-in under way (from `/login` to `/callback`).
const LOGIN_COOKIE: &str = "mcp_result_approvals_login";
const LOGIN_PURPOSE: &str = "mcp-result/approvals-login";

/// How long a sign-in at the authorization server may take: 10 minutes.
const LOGIN_TTL: u64 = 10 * 60;

/// The page's OAuth client: its credentials, the authorization server (discovered at the
/// first sign-in, as the resource server discovers it) and this server's resource.
pub(super) struct OAuthSignIn {
    credentials: ClientCredentials,
    issuer: String,
    resource: String,
    scope: String,
    verifier: Arc<dyn TokenVerifier>,
    server: tokio::sync::OnceCell<AuthorizationServer>,
    client: reqwest::Client,
}

impl OAuthSignIn {
    /// The sign-in of `page`, when it has an OAuth client; an error when it has one but the
    /// server is no OAuth resource server.
    pub(super) fn new(
        page: &ApprovalsPage,
        resource: Option<&ProtectedResource>,
        verifier: Arc<dyn TokenVerifier>,
    ) -> Result<Option<Self>, String> {
        let Some(credentials) = &page.oauth else {
            return Ok(None);
        };
        let Some((resource, issuer)) =
            resource.and_then(|r| Some((r, r.authorization_servers.first()?)))
        else {
            return Err(
                "the approvals page signs in with OAuth (`ApprovalsPage::oauth_client`) \
                        but the server names no authorization server: set \
                        `HttpOptions::resource`"
                    .to_owned(),
            );
        };
        let mut scope = String::from("openid");
        if let Some(decider) = &page.scope {
            scope.push(' ');
            scope.push_str(decider);
        }
        Ok(Some(Self {
            credentials: credentials.clone(),
            issuer: issuer.trim_end_matches('/').to_owned(),
            resource: resource.resource.clone(),
            scope,
            verifier,
            server: tokio::sync::OnceCell::new(),
            client: default_client(),
        }))
    }

    async fn server(&self) -> Result<&AuthorizationServer, StoreError> {
        self.server
            .get_or_try_init(|| AuthorizationServer::discover_with(&self.client, &self.issuer))
            .await
    }
}

/// A sign-in under way, sealed in its cookie.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Login {
    purpose: String,
    state: String,
    nonce: String,
    /// The PKCE code verifier.
    verifier: String,
    expires_at: u64,
    /// The request whose page the sign-in comes back to (a URL-mode elicitation's link
    /// opened without a session); `None`: the list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    request: Option<String>,
}

fn random() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    base64_url(&bytes)
}

/// `{base}{page}/callback`: the base is [`ApprovalsPage::public_url`], else the request's
/// `Host` when it is a loopback host.
fn redirect_uri(page: &Page, headers: &HeaderMap) -> Option<String> {
    let base = match &page.config.public_url {
        Some(url) => url.clone(),
        None if on_loopback(headers) => {
            format!("http://{}", headers.get(header::HOST)?.to_str().ok()?)
        }
        None => return None,
    };
    Some(format!("{base}{}/callback", page.config.path))
}

impl Page {
    fn sign_in_failed(&self, status: StatusCode, line: &str) -> Response {
        self.message(status, None, "Sign-in failed", line)
    }

    fn authorization_server_failed(&self, error: &StoreError) -> Response {
        tracing::warn!(%error, "approvals page: the authorization server failed");
        self.sign_in_failed(
            StatusCode::BAD_GATEWAY,
            "The authorization server could not be reached or refused the exchange; nobody \
             was signed in. Try again.",
        )
    }
}

/// `GET /approvals/login`: to the authorization server, with PKCE, `state` and `nonce`;
/// back to the list.
pub(super) async fn login(Extract(page): Extract<Arc<Page>>, headers: HeaderMap) -> Response {
    start(&page, &headers, None).await
}

/// Whether `id` may stand in a path and a header as a sign-in's way back: a request id's
/// characters (the gate's are UUIDs), at most 128 of them.
pub(super) fn returnable(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Starts a sign-in at the authorization server (`303` there, with PKCE, `state` and
/// `nonce`, the sign-in under way sealed in its cookie), coming back to request `request`'s
/// page when given (a URL-mode elicitation's link, opened without a session), else to the
/// list.
pub(super) async fn start(page: &Page, headers: &HeaderMap, request: Option<&str>) -> Response {
    let Some(oauth) = &page.oauth else {
        return page.no_oauth();
    };
    let Some(redirect) = redirect_uri(page, headers) else {
        return page.sign_in_failed(
            StatusCode::BAD_REQUEST,
            "This page has no public URL to come back to: set `ApprovalsPage::public_url`.",
        );
    };
    let server = match oauth.server().await {
        Ok(server) => server,
        Err(error) => return page.authorization_server_failed(&error),
    };
    let Some(endpoint) = &server.authorization_endpoint else {
        return page.authorization_server_failed(&StoreError::Invalid(
            "the authorization server's metadata has no authorization_endpoint".to_owned(),
        ));
    };
    let login = Login {
        purpose: LOGIN_PURPOSE.to_owned(),
        state: random(),
        nonce: random(),
        verifier: random(),
        expires_at: unix_now() + LOGIN_TTL,
        request: request.filter(|id| returnable(id)).map(str::to_owned),
    };
    let challenge = {
        use sha2::Digest as _;
        base64_url(&sha2::Sha256::digest(login.verifier.as_bytes()))
    };
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("response_type", "code")
        .append_pair("client_id", &oauth.credentials.client_id)
        .append_pair("redirect_uri", &redirect)
        .append_pair("scope", &oauth.scope)
        .append_pair("state", &login.state)
        .append_pair("nonce", &login.nonce)
        .append_pair("code_challenge", &challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("resource", &oauth.resource)
        .finish();
    let separator = if endpoint.contains('?') { '&' } else { '?' };
    let location = format!("{endpoint}{separator}{query}");
    let sealed = page
        .key
        .seal(&serde_json::to_value(&login).unwrap_or_default());
    // `Lax`: the cookie comes back with the authorization server's redirect to the
    // callback (a top-level navigation from another site).
    let cookie = format!(
        "{LOGIN_COOKIE}={sealed}; Path={}; Max-Age={LOGIN_TTL}; HttpOnly; SameSite=Lax{}",
        page.config.path,
        secure(headers)
    );
    let mut response = (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response();
    if let Ok(cookie) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

/// The claims of a JWT's payload, not verified.
fn payload(jwt: &str) -> Option<serde_json::Map<String, Value>> {
    use base64::Engine as _;
    let body = jwt.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(body.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// `GET /approvals/callback?code=...&state=...`: the sign-in's return; the code exchanged,
/// the person signed in as the access token's identity.
pub(super) async fn callback(
    Extract(page): Extract<Arc<Page>>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let Some(oauth) = &page.oauth else {
        return page.no_oauth();
    };
    let query: HashMap<String, String> = uri
        .query()
        .map(|q| form_urlencoded::parse(q.as_bytes()).into_owned().collect())
        .unwrap_or_default();
    let login = cookie_named(&headers, LOGIN_COOKIE)
        .and_then(|sealed| page.key.open(&sealed))
        .and_then(|body| serde_json::from_value::<Login>(body).ok())
        .filter(|l| l.purpose == LOGIN_PURPOSE && l.expires_at > unix_now());
    let Some(login) = login else {
        return page.sign_in_failed(
            StatusCode::BAD_REQUEST,
            "This sign-in was not started here, or took more than 10 minutes; nobody was \
             signed in. Sign in again.",
        );
    };
    let state_ok = query
        .get("state")
        .is_some_and(|state| same(state, &login.state));
    if !state_ok {
        return page.sign_in_failed(
            StatusCode::BAD_REQUEST,
            "The sign-in's state is not the one this page sent; nobody was signed in. Sign in \
             again.",
        );
    }
    if let Some(error) = query.get("error") {
        let error: String = error
            .chars()
            .filter(|c| c.is_ascii_graphic())
            .take(64)
            .collect();
        return page.sign_in_failed(
            StatusCode::FORBIDDEN,
            &format!(
                "The authorization server refused the sign-in ({error}); nobody was signed in."
            ),
        );
    }
    let server = match oauth.server().await {
        Ok(server) => server,
        Err(error) => return page.authorization_server_failed(&error),
    };
    // RFC 9207: when the authorization server names itself, it must be this one.
    if query
        .get("iss")
        .is_some_and(|iss| iss.trim_end_matches('/') != server.issuer.trim_end_matches('/'))
    {
        return page.sign_in_failed(
            StatusCode::BAD_REQUEST,
            "The sign-in came back from another authorization server; nobody was signed in.",
        );
    }
    let (Some(code), Some(redirect), Some(token_endpoint)) = (
        query.get("code"),
        redirect_uri(&page, &headers),
        server.token_endpoint.as_ref(),
    ) else {
        return page.sign_in_failed(
            StatusCode::BAD_REQUEST,
            "The sign-in came back without a code; nobody was signed in. Sign in again.",
        );
    };
    let answer = match post_form(
        &oauth.client,
        token_endpoint,
        &oauth.credentials,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", &redirect),
            ("code_verifier", &login.verifier),
            ("resource", &oauth.resource),
        ],
    )
    .await
    {
        Ok(answer) => answer,
        Err(error) => return page.authorization_server_failed(&error),
    };
    // The ID token came from the token endpoint over this client's own connection (OpenID
    // Connect Core 1.0 §3.1.3.7: TLS server validation stands in for its signature): its
    // issuer, audience, expiry and nonce are checked.
    let id_token = answer
        .get("id_token")
        .and_then(Value::as_str)
        .and_then(payload);
    let id_ok = id_token.as_ref().is_some_and(|claims| {
        let text = |name: &str| claims.get(name).and_then(Value::as_str);
        let audience = match claims.get("aud") {
            Some(Value::String(aud)) => *aud == oauth.credentials.client_id,
            Some(Value::Array(auds)) => auds
                .iter()
                .any(|aud| aud.as_str() == Some(&oauth.credentials.client_id)),
            _ => false,
        };
        text("nonce").is_some_and(|nonce| same(nonce, &login.nonce))
            && text("iss").map(|iss| iss.trim_end_matches('/'))
                == Some(server.issuer.trim_end_matches('/'))
            && audience
            && claims
                .get("exp")
                .and_then(Value::as_u64)
                .is_some_and(|exp| exp > unix_now())
    });
    if !id_ok {
        return page.sign_in_failed(
            StatusCode::BAD_REQUEST,
            "The authorization server's ID token is not this sign-in's (issuer, audience, \
             expiry or nonce); nobody was signed in.",
        );
    }
    let Some(access_token) = answer.get("access_token").and_then(Value::as_str) else {
        return page.sign_in_failed(
            StatusCode::BAD_GATEWAY,
            "The authorization server answered without an access token; nobody was signed in.",
        );
    };
    let identity = match oauth.verifier.verify(access_token).await {
        Ok(Some(identity)) => identity,
        Ok(None) => {
            return page.sign_in_failed(
                StatusCode::FORBIDDEN,
                "The authorization server's access token is not one this server accepts; \
                 nobody was signed in.",
            )
        }
        Err(error) => return page.authorization_server_failed(&error),
    };
    // A decider's session; or, back to a request without being a decider, a caller's
    // session of that one request: its page opens only if the person is the request's
    // caller (`Page::own`: the identity key an MCP call with this token has, tenant
    // included), anyone else is refused "Not your request" (MCP 2025-11-25 "Elicitation",
    // URL mode: the server checks that the person who completes it is the user it was
    // meant for).
    let then = login.request.as_deref();
    let only = match then {
        _ if page.config.may_decide(&identity) => None,
        Some(id) if page.config.callers_confirm => Some(id.to_owned()),
        _ => return page.not_a_decider(&identity),
    };
    let mut response = page.signed_in(&headers, identity, only, then).await;
    let clear = format!(
        "{LOGIN_COOKIE}=; Path={}; Max-Age=0; HttpOnly; SameSite=Lax{}",
        page.config.path,
        secure(&headers)
    );
    if let Ok(clear) = HeaderValue::from_str(&clear) {
        response.headers_mut().append(header::SET_COOKIE, clear);
    }
    response
}
