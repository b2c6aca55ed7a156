//! JWT access tokens (RFC 9068) verified against the authorization server's keys.

use std::time::Duration;

use jsonwebtoken::{decode, decode_header, Algorithm, AlgorithmFamily, Validation};
use serde_json::{Map, Value};

use super::{
    claims::ClaimMapping, discovery::AuthorizationServer, fetch::default_client, jwks::KeySet,
};
use crate::{
    serve::http::TokenVerifier,
    store::{StoreError, StoreFuture},
    wire::identity::Identity,
};

/// The default allow-list: the asymmetric algorithms of RFC 7518 and EdDSA. Never `none`
/// (not representable) and never HMAC (a resource server holds no shared secret; an HMAC
/// token "signed" with a public key is the classic confusion attack).
pub const DEFAULT_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The default allowance for clocks that disagree, on `exp` and `nbf`.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);

/// The largest allowance for clocks that disagree: beyond it, `exp` means little.
pub const MAX_LEEWAY: Duration = Duration::from_secs(3600);

/// The default shortest time between two key fetches caused by unknown `kid`s.
pub const DEFAULT_MIN_REFETCH: Duration = Duration::from_secs(10);

/// A [`TokenVerifier`] for JWT access tokens (RFC 9068): the signature against the
/// authorization server's JWK Set (fetched, cached by its `Cache-Control`, fetched again on
/// an unknown `kid` at most once per [`DEFAULT_MIN_REFETCH`]), the algorithm against an
/// allow-list ([`DEFAULT_ALGORITHMS`]), `iss` equal to the issuer, `aud` holding this
/// server's resource URI (RFC 8707; MCP "Authorization", Token Audience Binding), `exp`
/// required and `nbf` honoured with [`DEFAULT_LEEWAY`], and the `typ` header `at+jwt`
/// (RFC 9068 §4), or `JWT` or none, which several servers still send (see
/// [`Self::require_at_jwt`]). The claims make the [`Identity`] ([`ClaimMapping`]).
///
/// A token that fails any check is `401 invalid_token`; the reason is logged at `debug`
/// level, the token never.
///
/// ```no_run
/// # async fn run() -> Result<(), mcp_result_core::store::StoreError> {
/// use mcp_result_core::oauth::JwtVerifier;
///
/// let verifier = JwtVerifier::discover("https://auth.example.com", "https://mcp.example.com/mcp").await?;
/// # let _ = verifier; Ok(()) }
/// ```
pub struct JwtVerifier {
    issuer: String,
    audience: String,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    claims: ClaimMapping,
    at_jwt_only: bool,
    keys: KeySet,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("jwks_uri", &self.keys.uri)
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
}

impl JwtVerifier {
    /// Tokens of `issuer` for `resource` (this server's canonical URI, the `aud` they must
    /// carry), signed by the keys at `jwks_uri`. Nothing is fetched until the first token.
    pub fn new(
        issuer: impl Into<String>,
        resource: impl Into<String>,
        jwks_uri: impl Into<String>,
    ) -> Self {
        let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
        Self {
            issuer: issuer.into(),
            audience: resource.into(),
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            leeway: DEFAULT_LEEWAY,
            claims: ClaimMapping::default(),
            at_jwt_only: false,
            keys: KeySet::new(jwks_uri.into(), default_client(), DEFAULT_MIN_REFETCH),
        }
    }

    /// [`Self::new`] with the `jwks_uri` of `issuer`'s metadata
    /// ([`AuthorizationServer::discover`]).
    ///
    /// # Errors
    /// The metadata could not be fetched, names another issuer, or has no `jwks_uri`.
    pub async fn discover(issuer: &str, resource: impl Into<String>) -> Result<Self, StoreError> {
        let server = AuthorizationServer::discover(issuer).await?;
        let jwks_uri = server.jwks_uri.ok_or_else(|| {
            StoreError::Invalid(format!(
                "the metadata of `{issuer}` has no `jwks_uri`: it does not publish signing keys; \
                 verify its tokens by introspection (`IntrospectionVerifier`)"
            ))
        })?;
        Ok(Self::new(server.issuer, resource, jwks_uri))
    }

    /// Only these algorithms.
    ///
    /// # Panics
    /// `algorithms` is empty or names an HMAC algorithm: a resource server verifies with
    /// public keys only.
    #[must_use]
    pub fn algorithms(mut self, algorithms: &[Algorithm]) -> Self {
        assert!(
            !algorithms.is_empty()
                && algorithms
                    .iter()
                    .all(|alg| alg.family() != AlgorithmFamily::Hmac),
            "JwtVerifier::algorithms: name at least one algorithm and no HMAC one (HS256, HS384, \
             HS512): access tokens are verified with the authorization server's public keys"
        );
        self.algorithms = algorithms.to_vec();
        self
    }

    /// The allowance for clocks that disagree, on `exp` and `nbf` (whole seconds, at most
    /// [`MAX_LEEWAY`]).
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway.min(MAX_LEEWAY);
        self
    }

    /// Which claims make the identity.
    #[must_use]
    pub fn claims(mut self, claims: ClaimMapping) -> Self {
        self.claims = claims;
        self
    }

    /// Accept only tokens whose `typ` header is `at+jwt` (RFC 9068 §4), refusing `JWT` and
    /// none: right for authorization servers that issue RFC 9068 tokens (it keeps ID tokens
    /// and other JWTs of the same issuer out even where their audience would match).
    #[must_use]
    pub fn require_at_jwt(mut self) -> Self {
        self.at_jwt_only = true;
        self
    }

    /// Fetch keys with `client` (its TLS, proxy and time limit settings).
    #[must_use]
    pub fn client(mut self, client: reqwest::Client) -> Self {
        self.keys.client = client;
        self
    }

    /// The shortest time between two key fetches caused by unknown `kid`s.
    #[must_use]
    pub fn min_refetch(mut self, interval: Duration) -> Self {
        self.keys.min_refetch = interval;
        self
    }

    /// How many times the keys were fetched so far (for metrics and tests).
    pub fn key_fetches(&self) -> u64 {
        self.keys.fetches()
    }

    async fn check(&self, token: &str) -> Result<Result<Identity, &'static str>, StoreError> {
        let Ok(header) = decode_header(token) else {
            return Ok(Err(
                "not a signed JWT, or an algorithm no verifier accepts (`none`)",
            ));
        };
        if !self.algorithms.contains(&header.alg) {
            return Ok(Err("algorithm not in the allow-list"));
        }
        let typ = header.typ.as_deref().map(str::to_ascii_lowercase);
        let typ_ok = match typ.as_deref() {
            Some("at+jwt" | "application/at+jwt") => true,
            Some("jwt") | None => !self.at_jwt_only,
            Some(_) => false,
        };
        if !typ_ok {
            return Ok(Err("`typ` is not an access token's"));
        }
        let Some(key) = self.keys.key(header.kid.as_deref(), header.alg).await? else {
            return Ok(Err(
                "no key of the authorization server matches the token's `kid`",
            ));
        };
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.leeway.as_secs();
        match decode::<Map<String, Value>>(token, &key.key, &validation) {
            // A sender-constrained token (DPoP, mTLS: RFC 9449, RFC 8705) is not a bearer
            // token: without its proof, refused.
            Ok(data) if data.claims.contains_key("cnf") => {
                Ok(Err("sender-constrained (`cnf`), not a bearer token"))
            }
            Ok(data) => Ok(self.claims.identity(&data.claims).ok_or("no subject claim")),
            Err(error) => {
                use jsonwebtoken::errors::ErrorKind;
                Ok(Err(match error.kind() {
                    ErrorKind::ExpiredSignature => "expired",
                    ErrorKind::ImmatureSignature => "not valid yet (`nbf`)",
                    ErrorKind::InvalidAudience => "`aud` is not this server",
                    ErrorKind::InvalidIssuer => "`iss` is not the issuer",
                    ErrorKind::InvalidSignature => "bad signature",
                    ErrorKind::MissingRequiredClaim(_) => "a required claim is missing",
                    _ => "malformed",
                }))
            }
        }
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> StoreFuture<'a, Option<Identity>> {
        Box::pin(async move {
            match self.check(token).await? {
                Ok(identity) => Ok(Some(identity)),
                Err(reason) => {
                    tracing::debug!(reason, "access token refused");
                    Ok(None)
                }
            }
        })
    }
}
