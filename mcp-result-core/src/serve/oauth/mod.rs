//! An OAuth 2.1 resource server (MCP "Authorization"; feature `oauth`): the
//! [`TokenVerifier`](crate::http::TokenVerifier)s for the two ways authorization servers
//! issue access tokens, and the discovery of their endpoints.
//!
//! - [`JwtVerifier`]: JWT access tokens (RFC 9068), checked locally against the
//!   authorization server's keys. The common case (Auth0, Entra ID, Okta, Keycloak, WorkOS,
//!   oidc-provider with resource indicators): no round trip per request.
//! - [`IntrospectionVerifier`]: opaque tokens, asked about at the introspection endpoint
//!   (RFC 7662) with a bounded cache.
//!
//! Serve them with [`HttpOptions::resource`](crate::http::HttpOptions::resource) set, so
//! that hosts find the authorization server (RFC 9728) and step up on `403
//! insufficient_scope`; the guide's "Serving behind an authorization server" has a working
//! configuration.
//!
//! JOSE is `jsonwebtoken` (its RustCrypto backend, no C toolchain); keys and introspection
//! are fetched with reqwest over rustls (aws-lc-rs, reqwest's default).

mod claims;
mod discovery;
pub(crate) mod fetch;
mod introspection;
mod jwks;
mod jwt;

pub use claims::ClaimMapping;
pub use discovery::AuthorizationServer;
pub use fetch::ClientCredentials;
pub use introspection::{IntrospectionVerifier, DEFAULT_CACHE_CAPACITY, DEFAULT_CACHE_TTL};
pub use jsonwebtoken::Algorithm;
pub use jwks::{DEFAULT_TTL as DEFAULT_JWKS_TTL, MAX_TTL as MAX_JWKS_TTL, MIN_TTL as MIN_JWKS_TTL};
pub use jwt::{JwtVerifier, DEFAULT_ALGORITHMS, DEFAULT_LEEWAY, DEFAULT_MIN_REFETCH, MAX_LEEWAY};
