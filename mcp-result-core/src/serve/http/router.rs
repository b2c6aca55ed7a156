//! The axum router of an HTTP MCP server, its layers in the order a request meets them.

use std::{future::Future, sync::Arc};

use axum::{
    http::{header, HeaderValue},
    response::{IntoResponse, Response},
    routing::get,
};
use rmcp::{
    transport::streamable_http_server::{
        session::{local::LocalSessionManager, never::NeverSessionManager},
        StreamableHttpServerConfig, StreamableHttpService,
    },
    ServerHandler,
};
use serde_json::Value;
use tower_layer::Layer as _;

use super::{
    auth::{Authenticator, Challenge, TokenVerifier},
    calls::Calls,
    edge::{CheckOriginLayer, EndpointLayer, Origins},
    listen::serve_connections,
    metadata::WELL_KNOWN,
    options::HttpOptions,
    sessions::{bind_session, Sessions},
};
use crate::{
    router::{
        registry::ToolRegistry,
        set::{ServerClone, ToolSet},
    },
    serve::handler::{drain, prepare, SHUTDOWN_GRACE},
};

/// An [`axum::Router`] serving `server`'s tools at [`HttpOptions::path`], every request
/// authenticated by `verifier` (and, with `HttpOptions::approvals_page`, the approvals
/// page beside it). Each request (stateless) or session gets a clone of
/// `server`.
///
/// A request meets, in order:
/// 1. the header check (`400` for two `Authorization`, `Origin` or `Host` headers), the
///    `Origin` check (`403` for a foreign origin) and, for the origins that pass (the
///    listed ones, and loopback ones unless the server is anonymous), CORS (a preflight is
///    answered here);
/// 2. the protected resource metadata ([`HttpOptions::resource`]), served without a token;
/// 3. the bearer check (`401` with the challenge, `400` for a token in the URL);
/// 4. the message check: one JSON-RPC message (`400` with `-32700` or `-32600`), and a
///    `tools/call` with every scope its tool declares (`403 insufficient_scope`);
/// 5. with [`HttpOptions::sessions`], the session's owner (`404` for another identity);
/// 6. rmcp's streamable HTTP service (its `Host` check, then MCP); its plain-text refusals
///    (`406`, `415`, …) are turned into JSON-RPC errors, their text capped.
///
/// # Panics
/// An entry of [`HttpOptions::allowed_origins`] that is not an origin (the message names it
/// and the form), an approvals page that is misconfigured (`ApprovalsPage::check`), a
/// broken tool definition ([`crate::RegistryError`], naming the tool and
/// the fix) or an unusable configured server key: configuration errors, found when the
/// server starts, not at its first request.
pub fn router<S>(server: S, verifier: Arc<dyn TokenVerifier>, options: &HttpOptions) -> axum::Router
where
    S: ToolSet + ServerHandler + ServerClone,
{
    let registry = checked(&server, options).unwrap_or_else(|error| panic!("{error}"));
    build(server, verifier, options, registry, Arc::default())
}

/// What [`router`] and [`serve_http`] check before they serve, once: the server
/// ([`prepare`], with or without an approvals page), the origins and the approvals page.
fn checked<S>(
    server: &S,
    options: &HttpOptions,
) -> Result<&'static ToolRegistry<S>, Box<dyn std::error::Error + Send + Sync>>
where
    S: ToolSet + ServerHandler,
{
    #[cfg(feature = "approvals-page")]
    if let Some(page) = &options.approvals_page {
        page.check(&options.path)?;
        page.check_sign_in(options.resource.as_ref())?;
    }
    #[cfg(feature = "approvals-page")]
    if let Some(address) = options.state.local_approvals_page() {
        return Err(crate::ErrorText(format!(
            "`State::with_local_approvals_page(\"{address}\")` is for a server on stdio: \
             over HTTP the approvals page is served beside the endpoint, \
             `HttpOptions::approvals_page` (with `ApprovalsPage::callers_confirm` for callers \
             confirming their own requests)"
        ))
        .into());
    }
    #[cfg(feature = "approvals-page")]
    let page = options.approvals_page.is_some();
    #[cfg(not(feature = "approvals-page"))]
    let page = false;
    if let Some(health) = &options.health {
        health.check(&options.path)?;
    }
    let no_page = "no approvals page is served (`HttpOptions::approvals_page`)";
    let registry = prepare(server, &options.state, (!page).then_some(no_page))?;
    Origins::new(&options.allowed_origins)?;
    Ok(registry)
}

/// The router of a server [`checked`] gave `registry` for; its readiness `503` once
/// `draining` is set.
fn build<S>(
    server: S,
    verifier: Arc<dyn TokenVerifier>,
    options: &HttpOptions,
    registry: &'static ToolRegistry<S>,
    draining: Arc<std::sync::atomic::AtomicBool>,
) -> axum::Router
where
    S: ToolSet + ServerHandler + ServerClone,
{
    let origins =
        Arc::new(Origins::new(&options.allowed_origins).unwrap_or_else(|error| panic!("{error}")));
    // The approvals page decides in the stores the server's writes use (its services).
    #[cfg(feature = "approvals-page")]
    let page_stores = {
        let services = crate::router::set::services_of(&server);
        let audit = services.audit_sink(&options.state);
        // Decisions counted on the instance's metrics (feature `opentelemetry`).
        #[cfg(feature = "opentelemetry")]
        let audit = crate::call::metrics::metered(audit, options.state.metrics());
        (services.approval_store(&options.state), audit)
    };
    // Loopback pages get CORS from a server that asks for tokens; an anonymous one lists
    // the pages it serves (any local page could call its tools otherwise).
    let loopback_cors = verifier.anonymous().is_none();
    if let Some(identity) = verifier.anonymous() {
        tracing::warn!(
            identity = %identity,
            "serving HTTP without authentication: every request is this identity"
        );
    }
    let declared: Vec<&'static str> = registry.scopes();
    let challenge = Challenge {
        resource_metadata: options.resource.as_ref().map(|r| r.metadata_url()),
        scope: options
            .resource
            .as_ref()
            .map(|r| {
                r.challenge_scopes
                    .clone()
                    .unwrap_or_else(|| r.all_scopes(&declared))
                    .join(" ")
            })
            .unwrap_or_default(),
    };
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(options.sessions)
        .with_json_response(!options.sessions)
        .with_allowed_hosts(options.allowed_hosts.clone());
    let factory = move || Ok(server.clone_server());
    let calls = Calls {
        scopes: Box::new(move |name| registry.required_scopes(name)),
        challenge: challenge.clone(),
        body_read: options.limits.body_read,
        stateless: !options.sessions,
        follows_tasks: registry.has_tasks(),
        scoped: !declared.is_empty(),
    };
    let endpoint = Arc::new(super::edge::Endpoint {
        authenticator: Authenticator {
            verifier: Arc::clone(&verifier),
            challenge,
        },
        state: options.state.clone(),
        calls,
    });
    // The endpoint's per-request layer (`edge::endpoint`: the bearer check, the instance's
    // state, the message check, the refusals turned into JSON-RPC errors), then the
    // session's owner, then rmcp's service.
    let edge = EndpointLayer(endpoint);
    let mut mcp = if options.sessions {
        let service = Shared::new(StreamableHttpService::new(
            factory,
            Arc::new(LocalSessionManager::default()),
            config,
        ));
        axum::Router::new().route_service(
            &options.path,
            edge.layer(
                axum::middleware::from_fn_with_state(Arc::new(Sessions::default()), bind_session)
                    .layer(service),
            ),
        )
    } else {
        let service = Shared::new(StreamableHttpService::new(
            factory,
            Arc::new(NeverSessionManager::default()),
            config,
        ));
        axum::Router::new().route_service(&options.path, edge.layer(service))
    };
    // URL-mode elicitation to the approvals page: the page a gated write may send its
    // caller to (`ApprovalsPage::callers_confirm`).
    #[cfg(all(feature = "approvals-page", feature = "elicitation"))]
    if let Some(page) = options
        .approvals_page
        .as_ref()
        .filter(|page| page.confirms_callers())
    {
        mcp = mcp.route_layer(axum::Extension(super::approvals::UrlConfirmation::new(
            page,
        )));
    }
    if let Some(resource) = &options.resource {
        let document = Arc::new(resource.document(&declared));
        let serve = move || {
            let document = Arc::clone(&document);
            async move { metadata_response(&document) }
        };
        // At the root, under this router's path, and under the resource URI's path (the one
        // every challenge names; it differs behind a proxy that strips a prefix).
        let mut paths = vec![
            WELL_KNOWN.to_owned(),
            format!("{WELL_KNOWN}{}", options.path.trim_end_matches('/')),
        ];
        if let Ok(uri) = resource.resource.parse::<http::Uri>() {
            paths.push(format!("{WELL_KNOWN}{}", uri.path().trim_end_matches('/')));
        }
        paths.sort();
        paths.dedup();
        for path in paths {
            mcp = mcp.route(&path, get(serve.clone()));
        }
    }
    // The probes: outside the bearer check, for a balancer that has no token.
    if let Some(health) = &options.health {
        mcp = mcp.merge(super::health::routes(health, &options.state, draining));
    }
    let app = mcp.layer(CheckOriginLayer::new(origins, loopback_cors));
    // The approvals page: its own headers and checks (a same-origin form, CSRF, session),
    // outside the MCP endpoint's CORS and bearer layers.
    #[cfg(feature = "approvals-page")]
    if let Some(page) = &options.approvals_page {
        page.check(&options.path)
            .unwrap_or_else(|error| panic!("{error}"));
        return app.merge(super::approvals::routes(
            page,
            page_stores,
            &options.state,
            registry.tools(),
            &verifier,
            options.resource.as_ref(),
        ));
    }
    app
}

fn metadata_response(document: &Value) -> Response {
    let mut response = axum::Json(document).into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("max-age=3600"),
    );
    response
}

/// Serves `server` over streamable HTTP on `listener` until `shutdown` completes, then
/// waits up to [`crate::SHUTDOWN_GRACE`] for open responses and running writes (as
/// [`crate::serve`] does). Connections are bounded by [`HttpOptions::limits`]: closed when
/// they send no request headers within [`HttpLimits::header_read`](super::HttpLimits), at
/// most [`HttpLimits::max_connections`](super::HttpLimits) open (`503` past it).
///
/// # Errors
/// A broken tool definition ([`crate::RegistryError`]), an unusable configured server key,
/// an entry of [`HttpOptions::allowed_origins`] that is not an origin, or the listener's
/// I/O error.
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
    let registry = checked(&server, &options)?;
    let draining = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let app = build(server, verifier, &options, registry, Arc::clone(&draining));
    // Shutdown begins: readiness `503` at once, then serving on for the drain delay, so a
    // balancer's probes see the instance go before it stops accepting.
    let delay = options
        .health
        .as_ref()
        .map(super::Health::delay)
        .unwrap_or_default();
    let shutdown = async move {
        shutdown.await;
        draining.store(true, std::sync::atomic::Ordering::SeqCst);
        tracing::info!(
            delay_ms = delay.as_millis(),
            "shutting down: readiness answers 503; serving on for the drain delay"
        );
        tokio::time::sleep(delay).await;
    };
    serve_connections(listener, app, options.limits, shutdown, SHUTDOWN_GRACE).await;
    drain(registry).await;
    Ok(())
}

/// rmcp's service behind an [`Arc`], its answer's body an axum `Body`: the router clones a
/// route for each request, and each layer of it clones what it wraps to call a ready
/// service; rmcp's service clones its configuration with it (its allowed hosts, a `Vec` of
/// `String`s), where this clone is a reference count.
struct Shared<S, M>(Arc<StreamableHttpService<S, M>>);

impl<S, M> Shared<S, M> {
    fn new(service: StreamableHttpService<S, M>) -> Self {
        Self(Arc::new(service))
    }
}

impl<S, M> Clone for Shared<S, M> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<S, M> tower_service::Service<axum::extract::Request> for Shared<S, M>
where
    S: ServerHandler + Send + 'static,
    M: rmcp::transport::streamable_http_server::SessionManager,
{
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future = std::pin::Pin<
        Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send + 'static>,
    >;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        // As rmcp's: always ready.
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: axum::extract::Request) -> Self::Future {
        let service = Arc::clone(&self.0);
        Box::pin(async move { Ok(service.handle(request).await.map(axum::body::Body::new)) })
    }
}
