//! An authorization server's signing keys (a JWK Set, RFC 7517 §5), fetched from its
//! `jwks_uri`, kept for as long as its `Cache-Control` says, and fetched again at once (at
//! most once per [`KeySet::min_refetch`]) when a token names a key it does not hold: keys
//! rotate without a restart, and a flood of made-up `kid`s cannot turn into a flood of
//! fetches.

use std::{
    sync::atomic::{AtomicU64, Ordering},
    time::{Duration, Instant},
};

use jsonwebtoken::{
    jwk::{Jwk, PublicKeyUse},
    Algorithm, DecodingKey,
};
use serde_json::Value;

use super::fetch::get_json;
use crate::store::StoreError;

/// JWK Sets are kept this long when the answer has no `Cache-Control: max-age`.
pub const DEFAULT_TTL: Duration = Duration::from_secs(300);
/// Kept at least this long whatever the answer says (`no-store` included): one fetch per
/// request would make the authorization server part of every call.
pub const MIN_TTL: Duration = Duration::from_secs(30);
/// Kept at most this long.
pub const MAX_TTL: Duration = Duration::from_secs(24 * 3600);
/// After a failed fetch with keys in hand, they are used this long before the next try.
const RETRY_AFTER: Duration = Duration::from_secs(30);

/// One verification key.
#[derive(Clone)]
pub(crate) struct Key {
    kid: Option<String>,
    /// The JWK's `alg`, when it names one the crate knows.
    alg: Option<Algorithm>,
    pub(crate) key: DecodingKey,
}

impl Key {
    fn fits(&self, alg: Algorithm) -> bool {
        self.key.family() == alg.family() && self.alg.is_none_or(|own| own == alg)
    }
}

#[derive(Default)]
struct Cached {
    keys: Vec<Key>,
    /// `None`: never fetched.
    fresh_until: Option<Instant>,
    /// The last fetch an unknown `kid` caused.
    last_refetch: Option<Instant>,
    /// When the keys in hand were fetched.
    fetched_at: Option<Instant>,
}

/// The keys of one `jwks_uri`.
pub(crate) struct KeySet {
    pub(crate) uri: String,
    pub(crate) client: reqwest::Client,
    /// The shortest time between two fetches caused by unknown `kid`s.
    pub(crate) min_refetch: Duration,
    cached: tokio::sync::Mutex<Cached>,
    fetches: AtomicU64,
}

impl KeySet {
    pub(crate) fn new(uri: String, client: reqwest::Client, min_refetch: Duration) -> Self {
        Self {
            uri,
            client,
            min_refetch,
            cached: tokio::sync::Mutex::default(),
            fetches: AtomicU64::new(0),
        }
    }

    /// How many times the keys were fetched.
    pub(crate) fn fetches(&self) -> u64 {
        self.fetches.load(Ordering::Relaxed)
    }

    /// The key that verifies a token of `alg` naming `kid`: with a `kid`, the key of that
    /// id; without one, the only key that fits `alg`. `Ok(None)` when there is none after
    /// the refetch an unknown `kid` may cause.
    ///
    /// # Errors
    /// The keys were never fetched and cannot be now ([`StoreError::Remote`]).
    pub(crate) async fn key(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Option<Key>, StoreError> {
        // One lock for lookups and fetches: concurrent verifications of a cold or rotated
        // set wait for one fetch instead of each making their own.
        let mut cached = self.cached.lock().await;
        let now = Instant::now();
        let mut fetched_now = false;
        if cached.fresh_until.is_none_or(|until| now >= until) {
            match self.fetch().await {
                Ok((keys, ttl)) => {
                    cached.keys = keys;
                    cached.fresh_until = Some(now + ttl);
                    cached.fetched_at = Some(now);
                    fetched_now = true;
                }
                Err(error) => {
                    // Whoever waits next does not fetch again at once: a cold set whose
                    // server is down answers `503` quickly instead of one time limit each.
                    cached.fresh_until = Some(now + RETRY_AFTER);
                    // Keys in hand stay in use, for at most `MAX_TTL` after their fetch: a
                    // key the server removed must not live forever behind an outage.
                    let usable = cached
                        .fetched_at
                        .is_some_and(|at| now.duration_since(at) < MAX_TTL);
                    if !usable {
                        cached.keys.clear();
                        return Err(error);
                    }
                    tracing::warn!(%error, "JWKS refetch failed: the keys in hand stay in use");
                }
            }
        }
        if cached.keys.is_empty() && !fetched_now && cached.fetched_at.is_none() {
            return Err(StoreError::Remote {
                what: format!("JWKS {}", self.uri),
                source: "the keys could not be fetched; retrying shortly".into(),
            });
        }
        if let Some(key) = find(&cached.keys, kid, alg) {
            return Ok(Some(key));
        }
        let may_refetch = kid.is_some()
            && !fetched_now
            && cached
                .last_refetch
                .is_none_or(|last| now.duration_since(last) >= self.min_refetch);
        if !may_refetch {
            return Ok(None);
        }
        cached.last_refetch = Some(now);
        match self.fetch().await {
            Ok((keys, ttl)) => {
                cached.keys = keys;
                cached.fresh_until = Some(now + ttl);
                cached.fetched_at = Some(now);
            }
            Err(error) => tracing::warn!(%error, "JWKS refetch for an unknown kid failed"),
        }
        Ok(find(&cached.keys, kid, alg))
    }

    async fn fetch(&self) -> Result<(Vec<Key>, Duration), StoreError> {
        self.fetches.fetch_add(1, Ordering::Relaxed);
        let (document, max_age) = get_json(&self.client, &self.uri).await?;
        let keys = parse(&document).ok_or_else(|| StoreError::Remote {
            what: format!("JWKS {}", self.uri),
            source: "not a JWK Set: no `keys` array".into(),
        })?;
        let ttl = max_age.unwrap_or(DEFAULT_TTL).clamp(MIN_TTL, MAX_TTL);
        Ok((keys, ttl))
    }
}

/// The signature keys of a JWK Set document; keys of other uses or kinds this crate cannot
/// verify with are skipped, not fatal.
fn parse(document: &Value) -> Option<Vec<Key>> {
    let keys = document.get("keys")?.as_array()?;
    Some(
        keys.iter()
            .filter_map(|value| serde_json::from_value::<Jwk>(value.clone()).ok())
            .filter(|jwk| {
                !matches!(
                    jwk.common.public_key_use,
                    Some(PublicKeyUse::Encryption) | Some(PublicKeyUse::Other(_))
                )
            })
            .filter_map(|jwk| {
                let key = DecodingKey::from_jwk(&jwk).ok()?;
                // A key whose `alg` names no signature algorithm (`RSA-OAEP`, `ECDH-ES`) is an
                // encryption key: never a verification key.
                let alg = match jwk.common.key_algorithm {
                    Some(alg) => Some(alg.to_string().parse::<Algorithm>().ok()?),
                    None => None,
                };

                Some(Key {
                    kid: jwk.common.key_id.clone(),
                    alg,
                    key,
                })
            })
            .collect(),
    )
}

fn find(keys: &[Key], kid: Option<&str>, alg: Algorithm) -> Option<Key> {
    match kid {
        Some(kid) => keys
            .iter()
            .find(|key| key.kid.as_deref() == Some(kid) && key.fits(alg))
            .cloned(),
        None => {
            let mut fitting = keys.iter().filter(|key| key.fits(alg));
            match (fitting.next(), fitting.next()) {
                (Some(only), None) => Some(only.clone()),
                _ => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn set() -> Vec<Key> {
        parse(&json!({"keys": [
            {"kty": "EC", "crv": "P-256", "kid": "ec1", "alg": "ES256", "use": "sig",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "EC", "crv": "P-256", "kid": "enc1", "use": "enc",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "unknown", "kid": "x"},
            {"kty": "EC", "crv": "P-256", "kid": "ecdh", "alg": "ECDH-ES",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}
        ]}))
        .unwrap()
    }

    #[test]
    fn signature_keys_are_kept_and_others_skipped() {
        let keys = set();
        assert_eq!(keys.len(), 1);
        assert!(find(&keys, Some("ec1"), Algorithm::ES256).is_some());
        assert!(
            find(&keys, None, Algorithm::ES256).is_some(),
            "the only key that fits"
        );
        assert!(
            find(&keys, Some("ec1"), Algorithm::ES384).is_none(),
            "the JWK says ES256"
        );
        assert!(
            find(&keys, Some("ec1"), Algorithm::RS256).is_none(),
            "another family"
        );
        assert!(
            find(&keys, Some("enc1"), Algorithm::ES256).is_none(),
            "an encryption key"
        );
        assert!(parse(&json!({"no": "keys"})).is_none());
    }
}
