//! Opaque access tokens, asked about at the authorization server's introspection endpoint
//! (RFC 7662), with a bounded cache of the answers.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Mutex, PoisonError},
    time::{Duration, Instant},
};

use serde_json::Value;
use sha2::{Digest as _, Sha256};

use super::{
    claims::ClaimMapping,
    discovery::AuthorizationServer,
    fetch::{default_client, post_form, ClientCredentials},
};
use crate::{
    serve::http::TokenVerifier,
    store::{clock::unix_now, StoreError, StoreFuture},
    wire::identity::Identity,
};

/// The default time an answer is kept: a revoked token is refused at most this long after
/// its revocation.
pub const DEFAULT_CACHE_TTL: Duration = Duration::from_secs(60);
/// The default number of answers kept (the oldest goes first).
pub const DEFAULT_CACHE_CAPACITY: usize = 10_000;

/// A [`TokenVerifier`] that asks the authorization server (RFC 7662 §2.1, as the resource
/// server's own client, `client_secret_basic`): a token is accepted when the answer is
/// `active`, its `aud` holds this server's resource URI (RFC 8707; required), its `iss` is
/// the issuer (when known), and its `exp` has not passed. The claims make the [`Identity`]
/// ([`ClaimMapping`]).
///
/// Answers are cached, keyed by the token's SHA-256 (the token itself is not kept), for
/// [`DEFAULT_CACHE_TTL`] or until the token's `exp` if sooner, at most
/// [`DEFAULT_CACHE_CAPACITY`] of them; refusals are cached too (an inactive token never
/// becomes active), so a client repeating a bad token does not reach the authorization
/// server each time. An endpoint that cannot be asked makes the request `503`.
pub struct IntrospectionVerifier {
    endpoint: String,
    credentials: ClientCredentials,
    audience: String,
    issuer: Option<String>,
    claims: ClaimMapping,
    client: reqwest::Client,
    ttl: Duration,
    capacity: usize,
    cache: Mutex<Cache>,
}

impl std::fmt::Debug for IntrospectionVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IntrospectionVerifier")
            .field("endpoint", &self.endpoint)
            .field("credentials", &self.credentials)
            .field("audience", &self.audience)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Cache {
    answers: HashMap<[u8; 32], (Option<Identity>, Instant)>,
    order: VecDeque<[u8; 32]>,
}

impl Cache {
    fn get(&mut self, digest: &[u8; 32], now: Instant) -> Option<Option<Identity>> {
        match self.answers.get(digest) {
            // An expired answer stays until it is replaced or evicted, so that `order`
            // holds each digest once.
            Some((answer, until)) if now < *until => Some(answer.clone()),
            _ => None,
        }
    }

    fn put(&mut self, digest: [u8; 32], answer: Option<Identity>, until: Instant, capacity: usize) {
        while self.answers.len() >= capacity.max(1) {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            self.answers.remove(&oldest);
        }
        // `order` may hold digests already gone (expired, replaced); keep it from growing
        // past the live answers by much.
        if self.order.len() > 2 * capacity.max(1) {
            let answers = &self.answers;
            self.order.retain(|digest| answers.contains_key(digest));
        }
        if self.answers.insert(digest, (answer, until)).is_none() {
            self.order.push_back(digest);
        }
    }
}

impl IntrospectionVerifier {
    /// Tokens for `resource` (this server's canonical URI, the `aud` they must carry),
    /// asked about at `endpoint` as `credentials`.
    pub fn new(
        endpoint: impl Into<String>,
        credentials: ClientCredentials,
        resource: impl Into<String>,
    ) -> Self {
        Self {
            endpoint: endpoint.into(),
            credentials,
            audience: resource.into(),
            issuer: None,
            claims: ClaimMapping::default(),
            client: default_client(),
            ttl: DEFAULT_CACHE_TTL,
            capacity: DEFAULT_CACHE_CAPACITY,
            cache: Mutex::default(),
        }
    }

    /// [`Self::new`] with the `introspection_endpoint` of `issuer`'s metadata, and answers
    /// whose `iss` (when they carry one) must be `issuer`.
    ///
    /// # Errors
    /// The metadata could not be fetched, names another issuer, or has no
    /// `introspection_endpoint`.
    pub async fn discover(
        issuer: &str,
        credentials: ClientCredentials,
        resource: impl Into<String>,
    ) -> Result<Self, StoreError> {
        let server = AuthorizationServer::discover(issuer).await?;
        let endpoint = server.introspection_endpoint.ok_or_else(|| {
            StoreError::Invalid(format!(
                "the metadata of `{issuer}` has no `introspection_endpoint`: verify its tokens as \
                 JWTs (`JwtVerifier`)"
            ))
        })?;
        let mut verifier = Self::new(endpoint, credentials, resource);
        verifier.issuer = Some(server.issuer);
        Ok(verifier)
    }

    /// Answers whose `iss` (when present) must be `issuer`.
    #[must_use]
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Keep answers `ttl` (zero: ask every time), at most `capacity` of them.
    #[must_use]
    pub fn cache(mut self, ttl: Duration, capacity: usize) -> Self {
        self.ttl = ttl;
        self.capacity = capacity;
        self
    }

    /// Which claims make the identity.
    #[must_use]
    pub fn claims(mut self, claims: ClaimMapping) -> Self {
        self.claims = claims;
        self
    }

    /// Ask with `client` (its TLS, proxy and time limit settings).
    #[must_use]
    pub fn client(mut self, client: reqwest::Client) -> Self {
        self.client = client;
        self
    }

    fn cache_lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The identity of an introspection `answer`, or why there is none; and the `exp` it
    /// states.
    fn decide(&self, answer: &Value) -> (Result<Identity, &'static str>, Option<u64>) {
        let exp = answer.get("exp").and_then(Value::as_u64);
        let Some(claims) = answer.as_object() else {
            return (Err("the answer is not an object"), exp);
        };
        if answer.get("active") != Some(&Value::Bool(true)) {
            return (Err("inactive (revoked, expired or unknown)"), exp);
        }
        if exp.is_some_and(|exp| exp <= unix_now()) {
            return (Err("expired"), exp);
        }
        let audience = match answer.get("aud") {
            Some(Value::String(aud)) => aud == &self.audience,
            Some(Value::Array(auds)) => auds.iter().any(|aud| aud.as_str() == Some(&self.audience)),
            _ => false,
        };
        if !audience {
            return (Err("`aud` is not this server"), exp);
        }
        if answer.get("cnf").is_some() {
            return (
                Err("sender-constrained (`cnf`: DPoP or mTLS), not a bearer token"),
                exp,
            );
        }
        if answer
            .get("token_type")
            .and_then(Value::as_str)
            .is_some_and(|kind| !kind.eq_ignore_ascii_case("bearer") && kind != "access_token")
        {
            return (Err("`token_type` is not a bearer access token"), exp);
        }
        if let (Some(issuer), Some(stated)) =
            (&self.issuer, answer.get("iss").and_then(Value::as_str))
        {
            if stated.trim_end_matches('/') != issuer.trim_end_matches('/') {
                return (Err("`iss` is not the issuer"), exp);
            }
        }
        (self.claims.identity(claims).ok_or("no subject claim"), exp)
    }
}

impl TokenVerifier for IntrospectionVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> StoreFuture<'a, Option<Identity>> {
        Box::pin(async move {
            let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
            let now = Instant::now();
            if let Some(answer) = self.cache_lock().get(&digest, now) {
                return Ok(answer);
            }
            let answer = post_form(
                &self.client,
                &self.endpoint,
                &self.credentials,
                &[("token", token), ("token_type_hint", "access_token")],
            )
            .await?;
            let (decision, exp) = self.decide(&answer);
            let identity = decision
                .inspect_err(|reason| tracing::debug!(reason, "introspected token refused"))
                .ok();
            let mut until = now.checked_add(self.ttl).unwrap_or(now);
            if let (Some(exp), Some(_)) = (exp, &identity) {
                let left = Duration::from_secs(exp.saturating_sub(unix_now()));
                until = until.min(now.checked_add(left).unwrap_or(until));
            }
            if until > now {
                self.cache_lock()
                    .put(digest, identity.clone(), until, self.capacity);
            }
            Ok(identity)
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn verifier() -> IntrospectionVerifier {
        IntrospectionVerifier::new(
            "http://127.0.0.1:9/introspect",
            ClientCredentials::new("rs", "s"),
            "https://h/mcp",
        )
        .issuer("https://auth")
    }

    #[test]
    fn an_answer_is_accepted_only_when_active_for_this_server_and_unexpired() {
        let v = verifier();
        let exp = unix_now() + 600;
        let good = json!({"active": true, "sub": "alice", "aud": ["https://h/mcp"], "iss": "https://auth", "scope": "a", "exp": exp});
        assert_eq!(
            v.decide(&good).0,
            Ok(Identity::new("alice").with_scopes(["a"]))
        );
        let with = |key: &str, value: Value| {
            let mut answer = good.clone();
            answer[key] = value;
            v.decide(&answer).0
        };
        assert_eq!(
            with("active", json!(false)),
            Err("inactive (revoked, expired or unknown)")
        );
        assert_eq!(
            with("aud", json!("https://other/mcp")),
            Err("`aud` is not this server")
        );
        assert_eq!(with("aud", Value::Null), Err("`aud` is not this server"));
        assert_eq!(
            with("iss", json!("https://evil")),
            Err("`iss` is not the issuer")
        );
        assert_eq!(with("exp", json!(unix_now() - 1)), Err("expired"));
        assert_eq!(
            with("cnf", json!({"jkt": "abc"})),
            Err("sender-constrained (`cnf`: DPoP or mTLS), not a bearer token")
        );
        assert_eq!(
            with("token_type", json!("refresh_token")),
            Err("`token_type` is not a bearer access token")
        );
        assert_eq!(
            with("exp", json!(u64::MAX)).map(|i| i.subject),
            Ok("alice".to_owned())
        );
    }

    #[test]
    fn the_cache_is_bounded_and_answers_expire() {
        let mut cache = Cache::default();
        let now = Instant::now();
        for i in 0..10u8 {
            cache.put([i; 32], None, now + Duration::from_secs(60), 4);
        }
        assert_eq!(cache.answers.len(), 4);
        assert!(cache.get(&[0; 32], now).is_none(), "the oldest went");
        assert_eq!(cache.get(&[9; 32], now), Some(None));
        cache.put(
            [20; 32],
            Some(Identity::new("a")),
            now + Duration::from_millis(1),
            4,
        );
        assert!(
            cache.get(&[20; 32], now + Duration::from_secs(1)).is_none(),
            "expired"
        );
    }
}
