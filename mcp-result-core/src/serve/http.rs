//! Streamable HTTP (MCP "Transports: Streamable HTTP") with the caller's identity taken
//! from a verified bearer token (feature `http`).
//!
//! rmcp's [`StreamableHttpService`] is a tower service; [`router`] mounts it in an
//! [`axum::Router`] behind a bearer-token check, and [`serve_http`] serves that router on
//! a TCP listener until a shutdown signal, then drains running writes as [`crate::serve`]
//! does.
//!
//! **Identity.** Every request must carry `Authorization: Bearer <token>` (RFC 6750). The
//! [`TokenVerifier`] turns the token into an [`Identity`]; the identity rides in the HTTP
//! request's extensions, which rmcp hands to the request context, where
//! [`Identity::of`] finds it. A missing or unknown token is answered `401` with a
//! `WWW-Authenticate: Bearer` challenge before any MCP message is read: no identity, no
//! access.
//!
//! **OAuth 2.1.** MCP "Authorization" makes an HTTP MCP server an OAuth 2.1 resource
//! server: implement [`TokenVerifier`] by validating the access token (a JWT checked
//! against the authorization server's keys, or RFC 7662 introspection), checking that its
//! audience is this server (RFC 8707), and mapping `sub`, the tenant claim and `scope` to
//! an [`Identity`]. Set [`HttpOptions::resource_metadata`] to the URL of the server's
//! protected resource metadata (RFC 9728) so that the `401` tells clients where to get a
//! token. [`StaticTokens`] is the fixed table a demo or a test uses.
//!
//! **Several instances.** [`HttpOptions::default`] serves statelessly (rmcp's
//! `legacy_session_mode: false`): no MCP session lives in one instance's memory, so any
//! instance behind a load balancer answers any request (MCP 2026-07-28 requests are
//! stateless anyway). All state a request depends on must then live in shared stores
//! (the `postgres` feature).

use std::{collections::HashMap, future::Future, sync::Arc};

use axum::{
    extract::{Request, State},
    http::{header, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
};
use rmcp::{
    transport::streamable_http_server::{
        session::{local::LocalSessionManager, never::NeverSessionManager},
        StreamableHttpServerConfig, StreamableHttpService,
    },
    ServerHandler,
};
use sha2::{Digest as _, Sha256};

use crate::{
    router::set::{ServerClone, ToolSet},
    router::state::State as InstanceState,
    serve::handler::{drain, prepare},
    store::StoreFuture,
    wire::identity::Identity,
};

/// Verifies a bearer token and says whose it is.
pub trait TokenVerifier: Send + Sync + 'static {
    /// The identity `token` stands for; `Ok(None)` for a token that is unknown, expired or
    /// not meant for this server.
    ///
    /// # Errors
    /// The verifier could not decide (an introspection endpoint is down): the request is
    /// answered `503`.
    fn verify<'a>(&'a self, token: &'a str) -> StoreFuture<'a, Option<Identity>>;
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

/// How [`router`] serves.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The path of the MCP endpoint. Default `/mcp`.
    pub path: String,
    /// Hosts accepted in the `Host` header (DNS-rebinding protection, MCP "Transports:
    /// Security Warning"). Default: loopback only, as rmcp's.
    pub allowed_hosts: Vec<String>,
    /// Keep MCP sessions (before 2026-07-28) in this instance's memory. Default `false`:
    /// stateless, so any instance answers any request.
    pub sessions: bool,
    /// The protected resource metadata URL (RFC 9728) named in the `401` challenge.
    pub resource_metadata: Option<String>,
    /// The state every call of this router gets ([`State`](crate::State)): its stores, server key and
    /// values. Default: `State::new()`, fresh in-memory stores for this router only (give
    /// several instances the same SQL stores to share keys and approvals).
    pub state: InstanceState,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            path: "/mcp".to_owned(),
            allowed_hosts: StreamableHttpServerConfig::default().allowed_hosts,
            sessions: false,
            resource_metadata: None,
            state: InstanceState::new(),
        }
    }
}

/// An [`axum::Router`] serving `server`'s tools at [`HttpOptions::path`], every request
/// authenticated by `verifier`. Each request (stateless) or session gets a clone of
/// `server`.
pub fn router<S>(server: S, verifier: Arc<dyn TokenVerifier>, options: &HttpOptions) -> axum::Router
where
    S: ToolSet + ServerHandler + ServerClone,
{
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(options.sessions)
        .with_json_response(!options.sessions)
        .with_allowed_hosts(options.allowed_hosts.clone());
    let factory = move || Ok(server.clone_server());
    let mcp = if options.sessions {
        axum::Router::new().route_service(
            &options.path,
            StreamableHttpService::new(factory, Arc::new(LocalSessionManager::default()), config),
        )
    } else {
        axum::Router::new().route_service(
            &options.path,
            StreamableHttpService::new(factory, Arc::new(NeverSessionManager::default()), config),
        )
    };
    let auth = Authenticator {
        verifier,
        challenge: challenge(options.resource_metadata.as_deref()),
    };
    mcp.layer(axum::Extension(options.state.clone()))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(auth),
            authenticate,
        ))
}

struct Authenticator {
    verifier: Arc<dyn TokenVerifier>,
    challenge: String,
}

/// The `WWW-Authenticate` value of a `401` (RFC 6750 §3; RFC 9728 §5.1).
fn challenge(resource_metadata: Option<&str>) -> String {
    match resource_metadata {
        Some(url) => format!(r#"Bearer realm="mcp", resource_metadata="{url}""#),
        None => r#"Bearer realm="mcp""#.to_owned(),
    }
}

async fn authenticate(
    State(auth): State<Arc<Authenticator>>,
    mut request: Request,
    next: Next,
) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| {
            let (scheme, token) = value.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .filter(|token| !token.is_empty());
    let unauthorized = |error: Option<&str>| {
        let value = match error {
            Some(error) => format!(r#"{}, error="{error}""#, auth.challenge),
            None => auth.challenge.clone(),
        };
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, value)],
            "a bearer token is required",
        )
            .into_response()
    };
    let Some(token) = token else {
        return unauthorized(None);
    };
    match auth.verifier.verify(token).await {
        Ok(Some(identity)) => {
            request.extensions_mut().insert(identity);
            next.run(request).await
        }
        Ok(None) => unauthorized(Some("invalid_token")),
        Err(error) => {
            tracing::error!(%error, "token verifier failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "token verification is unavailable",
            )
                .into_response()
        }
    }
}

/// Serves `server` over streamable HTTP on `listener` until `shutdown` completes, then
/// waits up to [`crate::SHUTDOWN_GRACE`] for running writes (as [`crate::serve`] does).
///
/// # Errors
/// A broken tool definition ([`crate::RegistryError`]), an unusable configured server key,
/// or the listener's I/O error.
pub async fn serve_http<S>(
    server: S,
    listener: tokio::net::TcpListener,
    verifier: Arc<dyn TokenVerifier>,
    options: HttpOptions,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>>
where
    S: ToolSet + ServerHandler + ServerClone,
{
    let registry = prepare::<S>()?;
    axum::serve(listener, router(server, verifier, &options))
        .with_graceful_shutdown(shutdown)
        .await?;
    drain(registry).await;
    Ok(())
}
