//! Who calls over HTTP: the bearer token (RFC 6750 §2.1, the `Authorization` header only),
//! verified by a [`TokenVerifier`], and the challenges of a refusal (RFC 6750 §3, RFC 9728
//! §5.1, MCP "Authorization").

use std::{collections::HashMap, sync::Arc};

use axum::{
    extract::Request,
    http::{header, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
};
use serde_json::json;
use sha2::{Digest as _, Sha256};

use crate::{store::StoreFuture, wire::identity::Identity};

/// Verifies a bearer token and says whose it is.
///
/// [`StaticTokens`] is a fixed table; `mcp_result::oauth` (feature `oauth`) has the
/// verifiers of an OAuth 2.1 resource server (JWT access tokens against the authorization
/// server's keys, RFC 7662 introspection).
pub trait TokenVerifier: Send + Sync + 'static {
    /// The identity `token` stands for; `Ok(None)` for a token that is unknown, expired or
    /// not meant for this server (answered `401` with `error="invalid_token"`).
    ///
    /// # Errors
    /// The verifier could not decide (an authorization server is down): the request is
    /// answered `503`.
    fn verify<'a>(&'a self, token: &'a str) -> StoreFuture<'a, Option<Identity>>;

    /// The identity of a request that carries no token: `None` (the default) answers it
    /// `401` with the challenge. Only [`Anonymous`] says otherwise.
    fn anonymous(&self) -> Option<Identity> {
        None
    }
}

/// Serving without authentication, as an explicit choice: every request, with a token or
/// without, is `identity` (the token is not looked at). For a server on a developer's
/// machine or behind a gateway that authenticates; every caller then shares one identity,
/// so artifacts, idempotency keys and approvals are shared too. The router logs a warning
/// when it is built with it.
///
/// ```
/// use mcp_result_core::{http::Anonymous, Identity};
///
/// let verifier = Anonymous::new(Identity::new("dev"));
/// # let _ = verifier;
/// ```
#[derive(Debug, Clone)]
pub struct Anonymous {
    identity: Identity,
}

impl Anonymous {
    /// Every request is `identity`.
    pub fn new(identity: Identity) -> Self {
        Self { identity }
    }
}

impl TokenVerifier for Anonymous {
    fn verify<'a>(&'a self, _token: &'a str) -> StoreFuture<'a, Option<Identity>> {
        Box::pin(async move { Ok(Some(self.identity.clone())) })
    }

    fn anonymous(&self) -> Option<Identity> {
        Some(self.identity.clone())
    }
}

/// A fixed token table: each token stands for one [`Identity`]. Tokens are kept as
/// SHA-256 digests, so a lookup's time does not depend on how much of a guess matches.
#[derive(Debug, Clone, Default)]
pub struct StaticTokens {
    tokens: HashMap<[u8; 32], Identity>,
}

impl StaticTokens {
    /// An empty table (every request is refused).
    pub fn new() -> Self {
        Self::default()
    }

    /// With `token` standing for `identity`.
    #[must_use]
    pub fn with(mut self, token: &str, identity: Identity) -> Self {
        self.tokens.insert(digest(token), identity);
        self
    }

    /// Parses a table from JSON: an object from token to identity, e.g.
    /// `{"s3cret": {"subject": "alice", "tenant": "acme", "scopes": ["tickets:write"]}}`.
    ///
    /// # Errors
    /// The JSON error, or an identity with an empty subject.
    pub fn from_json(json: &str) -> Result<Self, String> {
        let table: HashMap<String, Identity> =
            serde_json::from_str(json).map_err(|error| format!("token table: {error}"))?;
        let mut tokens = Self::new();
        for (token, identity) in table {
            if identity.subject.trim().is_empty() {
                return Err("token table: an identity has an empty `subject`".to_owned());
            }
            tokens = tokens.with(&token, identity);
        }
        Ok(tokens)
    }
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

impl TokenVerifier for StaticTokens {
    fn verify<'a>(&'a self, token: &'a str) -> StoreFuture<'a, Option<Identity>> {
        Box::pin(async move { Ok(self.tokens.get(&digest(token)).cloned()) })
    }
}

/// The parts of every `WWW-Authenticate: Bearer` challenge of one router: where the
/// protected resource metadata is (RFC 9728 §5.1) and the scopes to start with.
#[derive(Debug, Clone, Default)]
pub(crate) struct Challenge {
    pub(crate) resource_metadata: Option<String>,
    /// Space-separated; empty for none.
    pub(crate) scope: String,
}

impl Challenge {
    /// `Bearer realm="mcp"[, error="…"][, scope="…"][, resource_metadata="…"]`; `scope`
    /// overrides the starting scopes (a `403` names the scopes of the call).
    pub(crate) fn header(&self, error: Option<&str>, scope: Option<&str>) -> String {
        let mut value = String::from(r#"Bearer realm="mcp""#);
        if let Some(error) = error {
            value.push_str(&format!(r#", error="{error}""#));
        }
        let scope = scope.unwrap_or(&self.scope);
        if !scope.is_empty() {
            value.push_str(&format!(r#", scope="{scope}""#));
        }
        if let Some(url) = &self.resource_metadata {
            value.push_str(&format!(r#", resource_metadata="{url}""#));
        }
        value
    }

    /// A refusal: `status` with the challenge and an OAuth error body (RFC 6750 §3.1).
    pub(crate) fn refuse(
        &self,
        status: StatusCode,
        error: Option<&str>,
        scope: Option<&str>,
        description: &str,
    ) -> Response {
        let body = json!({
            "error": error.unwrap_or("unauthorized"),
            "error_description": description,
        });
        let mut response = (status, axum::Json(body)).into_response();
        if let Ok(value) = HeaderValue::from_str(&self.header(error, scope)) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

pub(crate) struct Authenticator {
    pub(crate) verifier: Arc<dyn TokenVerifier>,
    pub(crate) challenge: Challenge,
}

/// The bearer check, `Err` with the answer when it refuses: a request without a token is
/// answered `401` naming the metadata and the scopes to start with; a token the verifier
/// does not know `401 invalid_token`; a token in the query string `400 invalid_request`
/// (RFC 6750 §2.3 is not supported: URLs end up in logs). A verified identity rides in the
/// request's extensions, and the `Authorization` header is removed before rmcp sees the
/// request, so no tool can read the token or pass it upstream (MCP "Authorization", Token
/// Passthrough).
pub(crate) async fn authenticate(
    auth: &Authenticator,
    request: &mut Request,
) -> Result<(), Response> {
    let in_query = request.uri().query().is_some_and(|query| {
        query
            .split('&')
            .any(|pair| pair.split('=').next() == Some("access_token"))
    });
    if in_query {
        return Err(auth.challenge.refuse(
            StatusCode::BAD_REQUEST,
            Some("invalid_request"),
            None,
            "access tokens are accepted only in the Authorization header (RFC 6750 §2.1), \
             never in the URL",
        ));
    }
    let authorization = request.headers().get(header::AUTHORIZATION);
    let present = authorization.is_some();
    let token = authorization
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            let (scheme, token) = value.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .filter(|token| !token.is_empty());
    let Some(token) = token else {
        if let Some(identity) = auth.verifier.anonymous() {
            if present {
                request.headers_mut().remove(header::AUTHORIZATION);
            }
            request.extensions_mut().insert(identity);
            return Ok(());
        }
        return Err(auth.challenge.refuse(
            StatusCode::UNAUTHORIZED,
            None,
            None,
            "a bearer token is required",
        ));
    };
    match auth.verifier.verify(token).await {
        Ok(Some(identity)) => {
            request.headers_mut().remove(header::AUTHORIZATION);
            request.extensions_mut().insert(identity);
            Ok(())
        }
        Ok(None) => Err(auth.challenge.refuse(
            StatusCode::UNAUTHORIZED,
            Some("invalid_token"),
            None,
            "the access token is invalid, expired or not meant for this server",
        )),
        Err(error) => {
            tracing::error!(%error, "token verifier failed");
            Err((
                StatusCode::SERVICE_UNAVAILABLE,
                axum::Json(json!({
                    "error": "temporarily_unavailable",
                    "error_description": "token verification is unavailable",
                })),
            )
                .into_response())
        }
    }
}
