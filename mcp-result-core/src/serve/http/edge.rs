//! The edge: `Origin` validation (MCP "Transports", Security Warning: servers MUST
//! validate `Origin`, `403` for an invalid one) and CORS for the origins a server allows,
//! then the MCP endpoint's own layer ([`endpoint`]: bearer check, body check, refusals as
//! JSON-RPC errors).

use std::{convert::Infallible, sync::Arc, time::Duration};

use axum::{
    extract::Request,
    http::{header, HeaderName, HeaderValue, Method, StatusCode},
    response::Response,
};
use serde_json::json;
use tower_http::cors::{AllowOrigin, CorsLayer};

/// An allowed origin: `scheme://host[:port|:*]`, or `null`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pattern {
    Null,
    Tuple {
        scheme: String,
        host: String,
        /// `None`: any port (`:*`).
        port: Option<u16>,
    },
}

/// The loopback origins every router accepts (not CORS: they are allowed to call, as
/// `allowed_hosts` allows loopback `Host`s, not to read cross-origin answers).
const LOOPBACK: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// Which origins may call, and which of them get CORS answers.
#[derive(Debug)]
pub(crate) struct Origins {
    loopback: Vec<Pattern>,
    listed: Vec<Pattern>,
}

impl Origins {
    /// The loopback origins and `listed` ([`super::HttpOptions::allowed_origins`]).
    ///
    /// # Errors
    /// An entry that is not an origin, named.
    pub(crate) fn new(listed: &[String]) -> Result<Self, String> {
        let parse = |entry: &str| {
            pattern(entry).ok_or_else(|| {
                format!(
                    "`HttpOptions::allowed_origins`: `{}` is not an origin: write \
                     `scheme://host`, with `:port` or `:*` for any port (`https://app.example.com`, \
                     `http://localhost:*`)",
                    entry.escape_debug()
                )
            })
        };
        Ok(Self {
            loopback: LOOPBACK
                .iter()
                .map(|entry| parse(entry))
                .collect::<Result<_, _>>()?,
            listed: listed
                .iter()
                .map(|entry| parse(entry))
                .collect::<Result<_, _>>()?,
        })
    }

    fn listed(&self, origin: &[u8]) -> bool {
        matches_any(&self.listed, origin)
    }

    fn allowed(&self, origin: &[u8]) -> bool {
        matches_any(&self.loopback, origin) || self.listed(origin)
    }

    /// The CORS layer of the origins that may call (the listed ones, and loopback ones when
    /// `loopback`: a server that asks for tokens, so a page must hold one; a server without
    /// authentication answers loopback pages only when listed): preflights are answered
    /// here, before authentication; the
    /// headers an MCP client sends (those of MCP 2026-07-28, `Mcp-Method` and `Mcp-Name`,
    /// included) are allowed and those it reads are exposed.
    pub(crate) fn cors(self: &Arc<Self>, loopback: bool) -> CorsLayer {
        let origins = Arc::clone(self);
        CorsLayer::new()
            .allow_origin(AllowOrigin::predicate(move |origin: &HeaderValue, _| {
                let origin = origin.as_bytes();
                origins.listed(origin) || (loopback && matches_any(&origins.loopback, origin))
            }))
            .allow_methods([Method::GET, Method::POST, Method::DELETE])
            .allow_headers([
                header::AUTHORIZATION,
                header::CONTENT_TYPE,
                header::ACCEPT,
                HeaderName::from_static("mcp-session-id"),
                HeaderName::from_static("mcp-protocol-version"),
                HeaderName::from_static("mcp-method"),
                HeaderName::from_static("mcp-name"),
                HeaderName::from_static("last-event-id"),
            ])
            .expose_headers([
                header::WWW_AUTHENTICATE,
                HeaderName::from_static("mcp-session-id"),
                HeaderName::from_static("mcp-protocol-version"),
            ])
            .max_age(Duration::from_secs(600))
    }
}

fn matches_any(patterns: &[Pattern], origin: &[u8]) -> bool {
    let Some(origin) = std::str::from_utf8(origin).ok().and_then(parse) else {
        return false;
    };
    patterns.iter().any(|allowed| match (allowed, &origin) {
        (Pattern::Null, Pattern::Null) => true,
        (
            Pattern::Tuple { scheme, host, port },
            Pattern::Tuple {
                scheme: s,
                host: h,
                port: p,
            },
        ) => scheme == s && host == h && (port.is_none() || port == p),
        _ => false,
    })
}

/// An origin as a browser sends it (RFC 6454 §7): `null`, or `scheme://host[:port]` with
/// the port filled in from the scheme when absent. Lowercased.
fn parse(origin: &str) -> Option<Pattern> {
    if origin == "null" {
        return Some(Pattern::Null);
    }
    let (scheme, rest) = origin.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme.is_empty() || rest.is_empty() || rest.contains(['/', '?', '#', '@']) {
        return None;
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') => (host, Some(port.parse::<u16>().ok()?)),
        _ => (rest, None),
    };
    let port = port.or(match scheme.as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    });
    Some(Pattern::Tuple {
        scheme,
        host: host.to_ascii_lowercase(),
        port,
    })
}

/// An entry of an allow-list: an origin, or one ending in `:*` for any port.
fn pattern(entry: &str) -> Option<Pattern> {
    match entry.strip_suffix(":*") {
        Some(base) => match parse(base)? {
            Pattern::Tuple { scheme, host, .. } => Some(Pattern::Tuple {
                scheme,
                host,
                port: None,
            }),
            Pattern::Null => None,
        },
        None => parse(entry),
    }
}

/// Answers `400` for a request with more than one `Authorization`, `Origin` or `Host`
/// header (which one a proxy, the checks and rmcp would each read is anyone's guess), and
/// `403` (with a JSON-RPC error, as MCP "Transports" describes) for a request whose
/// `Origin` is not allowed; the origin itself is not echoed.
///
/// A refused request never reaches the service beneath, whose readiness it asked for:
/// right for axum's routes, which are always ready and reserve nothing (a limit that
/// reserves a slot in `poll_ready` would hold it until this clone drops).
///
/// The router clones it for each request: what it holds is two reference counts and what it
/// wraps; the CORS service is built for the requests CORS answers.
#[derive(Clone)]
pub(crate) struct CheckOrigin<S> {
    origins: Arc<Origins>,
    cors: Arc<CorsLayer>,
    inner: S,
}

impl<S> tower_layer::Layer<S> for CheckOriginLayer {
    type Service = CheckOrigin<S>;

    fn layer(&self, inner: S) -> CheckOrigin<S> {
        CheckOrigin {
            origins: Arc::clone(&self.origins),
            cors: Arc::clone(&self.cors),
            inner,
        }
    }
}

/// The layer of [`CheckOrigin`]: `Origin` and repeated headers checked, then CORS
/// ([`Origins::cors`]) for every request but a `POST` without an `Origin` (no browser sends
/// one, and no cache keeps its answer: it needs neither CORS headers nor `Vary`). A plain
/// tower layer, whose check answers without boxing or cloning what it wraps, as
/// `axum::middleware::from_fn` would for every request.
#[derive(Clone)]
pub(crate) struct CheckOriginLayer {
    origins: Arc<Origins>,
    cors: Arc<CorsLayer>,
}

impl CheckOriginLayer {
    /// Checks against `origins`, CORS answered as [`Origins::cors`] says for `loopback`.
    pub(crate) fn new(origins: Arc<Origins>, loopback: bool) -> Self {
        Self {
            cors: Arc::new(origins.cors(loopback)),
            origins,
        }
    }
}

impl<S> tower_service::Service<Request> for CheckOrigin<S>
where
    S: tower_service::Service<Request, Response = Response> + Clone,
{
    type Response = Response;
    type Error = S::Error;
    type Future = futures::future::Either<
        std::future::Ready<Result<Self::Response, S::Error>>,
        futures::future::Either<S::Future, tower_http::cors::ResponseFuture<S::Future>>,
    >;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        use futures::future::Either;
        if let Some(refused) = origin_refusal(&self.origins, request.headers()) {
            return Either::Left(std::future::ready(Ok(refused)));
        }
        if request.method() == Method::POST && !request.headers().contains_key(header::ORIGIN) {
            Either::Right(Either::Left(self.inner.call(request)))
        } else {
            let mut cors = tower_layer::Layer::layer(&*self.cors, take_ready(&mut self.inner));
            Either::Right(Either::Right(cors.call(request)))
        }
    }
}

/// The service that was polled ready, to take the request at hand; a clone of it, not yet
/// polled, stays for the next request (tower's rule for a service a future takes along).
fn take_ready<S: Clone>(service: &mut S) -> S {
    let ready = service.clone();
    std::mem::replace(service, ready)
}

fn origin_refusal(origins: &Origins, headers: &axum::http::HeaderMap) -> Option<Response> {
    for name in [header::AUTHORIZATION, header::ORIGIN, header::HOST] {
        let count = headers.get_all(&name).iter().count();
        if count > 1 {
            tracing::warn!(header = %name, count, "request with a repeated header refused");
            return Some(super::calls::refusal(
                StatusCode::BAD_REQUEST,
                -32600,
                &format!(
                    "Invalid Request: {count} `{name}` headers; send one",
                    name = canonical(&name)
                ),
            ));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        if !origins.allowed(origin.as_bytes()) {
            tracing::warn!("request with a foreign Origin refused");
            return Some(super::calls::refusal(
                StatusCode::FORBIDDEN,
                -32600,
                "Forbidden: this Origin may not call the server (MCP Transports); the server \
                 lists the origins it allows in HttpOptions::allowed_origins",
            ));
        }
    }
    None
}

/// A header's name as specifications write it (`Authorization`).
fn canonical(name: &HeaderName) -> &'static str {
    match name.as_str() {
        "authorization" => "Authorization",
        "origin" => "Origin",
        "host" => "Host",
        _ => "a security",
    }
}

/// What the endpoint's layer ([`endpoint`]) holds.
pub(crate) struct Endpoint {
    pub(crate) authenticator: super::auth::Authenticator,
    /// The instance's state, put in each request's extensions for the tools.
    pub(crate) state: crate::state::State,
    pub(crate) calls: super::calls::Calls,
}

/// The MCP endpoint's checks, in the order a request meets them: the bearer check
/// ([`authenticate`](super::auth::authenticate)), the instance's state and whether it serves
/// without sessions put in its extensions ([`Served`](crate::state::Served)), the look at its body
/// ([`check_call`](super::calls::check_call)), then `inner` (the layers beneath), whose
/// refusals turn into JSON-RPC errors ([`json_rpc_refusals`]).
async fn endpoint<S>(endpoint: Arc<Endpoint>, mut request: Request, mut inner: S) -> Response
where
    S: tower_service::Service<Request, Response = Response, Error = Infallible>,
{
    if let Err(refused) = super::auth::authenticate(&endpoint.authenticator, &mut request).await {
        return refused;
    }
    request.extensions_mut().insert(crate::state::Served {
        state: endpoint.state.clone(),
        stateless: endpoint.calls.stateless,
    });
    super::calls::check_call(&endpoint.calls, request, |request| async move {
        let Ok(response) = inner.call(request).await;
        json_rpc_refusals(response).await
    })
    .await
}

/// The layer of the MCP endpoint's checks ([`endpoint`]): one layer, not one each, and a
/// plain tower one, which boxes the request's future once (every
/// `axum::middleware::from_fn` layer clones and boxes all it wraps for each request, and
/// boxes its `Next` again).
#[derive(Clone)]
pub(crate) struct EndpointLayer(pub(crate) Arc<Endpoint>);

impl<S> tower_layer::Layer<S> for EndpointLayer {
    type Service = EndpointService<S>;

    fn layer(&self, inner: S) -> EndpointService<S> {
        EndpointService {
            endpoint: Arc::clone(&self.0),
            inner,
        }
    }
}

/// [`EndpointLayer`]'s service.
#[derive(Clone)]
pub(crate) struct EndpointService<S> {
    endpoint: Arc<Endpoint>,
    inner: S,
}

impl<S> tower_service::Service<Request> for EndpointService<S>
where
    S: tower_service::Service<Request, Response = Response, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
{
    type Response = Response;
    type Error = Infallible;
    type Future =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let inner = take_ready(&mut self.inner);
        let endpoint = Arc::clone(&self.endpoint);
        Box::pin(async move { Ok(self::endpoint(endpoint, request, inner).await) })
    }
}

/// The largest refusal body of rmcp's read (a header echoed in it is bounded by hyper's
/// header limit, well below).
const MAX_REFUSAL: usize = 1024 * 1024;

/// The largest `error.data` of a refusal kept.
const MAX_ERROR_DATA: usize = 1024;

/// Turns every `4xx` of rmcp's into the same status with a JSON-RPC error whose message is
/// capped as every value the framework echoes ([`crate::wire::text::cap_message`]): a
/// plain-text refusal (`406` for `Accept`, `415` for `Content-Type`, …) becomes `-32600`
/// with its text, `id` null; a JSON-RPC error (a header that does not match the body, which
/// rmcp echoes whole) keeps its code, `id` and `data` (dropped past 1 KiB), its message
/// capped. Other statuses pass.
pub(crate) async fn json_rpc_refusals(response: Response) -> Response {
    let status = response.status();
    if !status.is_client_error() {
        return response;
    }
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_REFUSAL)
        .await
        .unwrap_or_default();
    let (id, code, text, data) = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(mut body) if body["error"].is_object() => (
            body["id"].take(),
            body["error"]["code"].as_i64().unwrap_or(-32600),
            body["error"]["message"].as_str().unwrap_or("").to_owned(),
            // What clients act on (`supported` versions, `requiredCapabilities`), unless it
            // is large enough to be an echo.
            body["error"]
                .get_mut("data")
                .map(serde_json::Value::take)
                .filter(|data| data.to_string().len() <= MAX_ERROR_DATA),
        ),
        _ => (
            serde_json::Value::Null,
            -32600,
            String::from_utf8_lossy(&bytes).into_owned(),
            None,
        ),
    };
    let message = match text.trim() {
        "" => format!(
            "Invalid Request: {}",
            status.canonical_reason().unwrap_or("client error")
        ),
        text if code == -32600 && !text.starts_with("Invalid Request") => {
            format!("Invalid Request: {}", crate::wire::text::cap_message(text))
        }
        text => crate::wire::text::cap_message(text),
    };
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    let mut refused = super::calls::error_response(status, id, error);
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            refused.headers_mut().append(name, value.clone());
        }
    }
    refused
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_and_listed_origins_pass_and_others_do_not() {
        let origins =
            Origins::new(&["https://app.example.com".into(), "http://dev.test:*".into()]).unwrap();
        for ok in [
            "http://localhost:6274",
            "http://127.0.0.1",
            "http://[::1]:3000",
            "https://app.example.com",
            "https://app.example.com:443",
            "HTTPS://APP.example.com",
            "http://dev.test:81",
        ] {
            assert!(origins.allowed(ok.as_bytes()), "{ok}");
        }
        for refused in [
            "https://evil.example",
            "https://app.example.com:8443",
            "http://app.example.com",
            "null",
            "http://localhost.evil.example",
            "https://app.example.com/path",
            "garbage",
        ] {
            assert!(!origins.allowed(refused.as_bytes()), "{refused}");
        }
        assert!(origins.listed(b"https://app.example.com"));
        assert!(!origins.listed(b"http://localhost:6274"));
    }

    #[test]
    fn an_entry_that_is_no_origin_is_named() {
        assert_eq!(
            Origins::new(&["app.example.com".into()]).unwrap_err(),
            "`HttpOptions::allowed_origins`: `app.example.com` is not an origin: write \
             `scheme://host`, with `:port` or `:*` for any port (`https://app.example.com`, \
             `http://localhost:*`)"
        );
    }
}
