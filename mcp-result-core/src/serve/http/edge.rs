//! The browser edge: `Origin` validation (MCP "Transports", Security Warning: servers MUST
//! validate `Origin`, `403` for an invalid one) and CORS for the origins a server allows.

use std::{sync::Arc, time::Duration};

use axum::{
    extract::{Request, State},
    http::{header, HeaderName, HeaderValue, Method, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
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

    /// The CORS layer of the listed origins, `None` when none is listed: preflights are
    /// answered here, before authentication; the headers an MCP client sends are allowed
    /// and those it reads are exposed.
    pub(crate) fn cors(self: &Arc<Self>) -> Option<CorsLayer> {
        if self.listed.is_empty() {
            return None;
        }
        let origins = Arc::clone(self);
        Some(
            CorsLayer::new()
                .allow_origin(AllowOrigin::predicate(move |origin: &HeaderValue, _| {
                    origins.listed(origin.as_bytes())
                }))
                .allow_methods([Method::GET, Method::POST, Method::DELETE])
                .allow_headers([
                    header::AUTHORIZATION,
                    header::CONTENT_TYPE,
                    header::ACCEPT,
                    HeaderName::from_static("mcp-session-id"),
                    HeaderName::from_static("mcp-protocol-version"),
                    HeaderName::from_static("last-event-id"),
                ])
                .expose_headers([
                    header::WWW_AUTHENTICATE,
                    HeaderName::from_static("mcp-session-id"),
                    HeaderName::from_static("mcp-protocol-version"),
                ])
                .max_age(Duration::from_secs(600)),
        )
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

/// Answers `403` (with a JSON-RPC error, as MCP "Transports" describes) for a request whose
/// `Origin` is not allowed; the origin itself is not echoed.
pub(crate) async fn check_origin(
    State(origins): State<Arc<Origins>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        if !origins.allowed(origin.as_bytes()) {
            tracing::warn!("request with a foreign Origin refused");
            return (
                StatusCode::FORBIDDEN,
                axum::Json(json!({
                    "jsonrpc": "2.0",
                    "id": null,
                    "error": {
                        "code": -32600,
                        "message": "Forbidden: this Origin may not call the server (MCP \
                                    Transports); the server lists the origins it allows in \
                                    HttpOptions::allowed_origins",
                    },
                })),
            )
                .into_response();
        }
    }
    next.run(request).await
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
