//! The server key: one secret that every instance of a server shares and that survives
//! restarts. It keys the hash of secret arguments in idempotency fingerprints, and signs
//! what the server hands out and must recognise later (sealed request state, page cursors).
//!
//! Configured from the environment:
//!
//! - `MCP_RESULT_SERVER_KEY`: one or more keys separated by `,` (each at least 32 bytes of
//!   text; its SHA-256 is the HMAC key). The first signs; every one verifies, so a key is
//!   rotated by putting the new one first and keeping the old one after it until what it
//!   signed has expired.
//! - `MCP_RESULT_SERVER_KEY_FILE`: a file holding the same, one key per line.
//!
//! With neither, a random key is generated for the process and a warning says so: fine for
//! development, wrong for several instances or restarts (their signatures do not verify
//! across processes). The keys are [`Secret`]s: never logged, never serialized.

use std::sync::OnceLock;

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::wire::secret::Secret;

type HmacSha256 = Hmac<Sha256>;

/// Why the configured server key was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// Key number `index` (1 is the signing key) is shorter than [`ServerKey::MIN_LEN`].
    #[error("server key #{index} has {len} bytes; a server key has at least {min}")]
    TooShort {
        /// Which key (1-based, in the setting's order).
        index: usize,
        /// Its length in bytes.
        len: usize,
        /// The shortest accepted ([`ServerKey::MIN_LEN`]).
        min: usize,
    },
    /// The file named by [`ServerKey::FILE_ENV`] could not be read.
    #[error("{env} names {path}: {source}", env = ServerKey::FILE_ENV)]
    File {
        /// The file's path.
        path: String,
        /// Why it could not be read.
        #[source]
        source: std::io::Error,
    },
    /// The setting holds no key at all.
    #[error("the server key setting holds no key")]
    Empty,
}

/// The server key (see the module docs): HMAC-SHA256 keys, the first signing.
pub struct ServerKey {
    keys: Vec<Secret<[u8; 32]>>,
    generated: bool,
}

impl std::fmt::Debug for ServerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerKey")
            .field("keys", &self.keys.len())
            .field("generated", &self.generated)
            .finish()
    }
}

static GLOBAL: OnceLock<std::sync::Arc<ServerKey>> = OnceLock::new();

impl ServerKey {
    /// The environment variable holding the keys.
    pub const ENV: &'static str = "MCP_RESULT_SERVER_KEY";
    /// The environment variable naming a file that holds the keys.
    pub const FILE_ENV: &'static str = "MCP_RESULT_SERVER_KEY_FILE";
    /// The shortest key accepted, in bytes.
    pub const MIN_LEN: usize = 32;

    /// A key set: `current` signs, `previous` still verify.
    ///
    /// # Errors
    /// A [`KeyError`] when a key is shorter than [`Self::MIN_LEN`] bytes.
    pub fn new<'a>(
        current: &'a str,
        previous: impl IntoIterator<Item = &'a str>,
    ) -> Result<Self, KeyError> {
        let keys = std::iter::once(current)
            .chain(previous)
            .enumerate()
            .map(|(i, key)| {
                let key = key.trim();
                if key.len() < Self::MIN_LEN {
                    return Err(KeyError::TooShort {
                        index: i + 1,
                        len: key.len(),
                        min: Self::MIN_LEN,
                    });
                }
                Ok(Secret::new(Sha256::digest(key.as_bytes()).into()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            keys,
            generated: false,
        })
    }

    /// The key set from [`Self::ENV`] or [`Self::FILE_ENV`]; `Ok(None)` when neither is set.
    ///
    /// # Errors
    /// A [`KeyError`] when the file cannot be read or a key is too short.
    pub fn from_env() -> Result<Option<Self>, KeyError> {
        let text = match (std::env::var(Self::ENV), std::env::var_os(Self::FILE_ENV)) {
            (Ok(text), _) => text.replace(',', "\n"),
            (Err(_), Some(path)) => {
                std::fs::read_to_string(&path).map_err(|source| KeyError::File {
                    path: std::path::Path::new(&path).display().to_string(),
                    source,
                })?
            }
            (Err(_), None) => return Ok(None),
        };
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        let current = lines.next().ok_or(KeyError::Empty)?;
        Self::new(current, lines).map(Some)
    }

    /// A random key for this process only (development).
    pub fn generated() -> Self {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).expect("the operating system's random source");
        Self {
            keys: vec![Secret::new(key)],
            generated: true,
        }
    }

    /// The process's server key: the one [`Self::install`]ed, else the environment's, else
    /// a generated one (with a warning in the log that it is one).
    ///
    /// # Panics
    /// When the environment's key setting is invalid (too short, unreadable file): a server
    /// must not start with a key other than the one it was given.
    pub fn global() -> &'static ServerKey {
        Self::global_shared()
    }

    /// [`Self::global`], shared: what a [`State`](crate::State) holds unless given a key.
    pub(crate) fn global_shared() -> &'static std::sync::Arc<ServerKey> {
        GLOBAL.get_or_init(|| {
            std::sync::Arc::new(match Self::from_env() {
                Ok(Some(key)) => key,
                Ok(None) => {
                    tracing::warn!(
                        "no server key configured ({} or {}): using a random key for this process \
                     only; idempotency fingerprints of secret arguments, approvals and page \
                     cursors will not carry over to other instances or restarts",
                        Self::ENV,
                        Self::FILE_ENV
                    );
                    Self::generated()
                }
                Err(error) => panic!("invalid server key: {error}"),
            })
        })
    }

    /// Makes `key` the process's server key.
    ///
    /// # Errors
    /// Gives `key` back when a server key is already in use.
    pub fn install(key: ServerKey) -> Result<(), ServerKey> {
        let mut given = Some(key);
        GLOBAL.get_or_init(|| std::sync::Arc::new(given.take().unwrap_or_else(Self::generated)));
        given.map_or(Ok(()), Err)
    }

    /// Whether this key was generated for this process (development).
    pub fn is_generated(&self) -> bool {
        self.generated
    }

    fn mac(key: &Secret<[u8; 32]>) -> HmacSha256 {
        HmacSha256::new_from_slice(key.expose()).expect("HMAC takes any key length")
    }

    /// HMAC-SHA256 of `data` under the signing key.
    pub fn sign(&self, data: &[u8]) -> [u8; 32] {
        let mut mac = Self::mac(&self.keys[0]);
        mac.update(data);
        mac.finalize().into_bytes().into()
    }

    /// Whether `tag` is the HMAC-SHA256 of `data` under any of the keys (constant time).
    pub fn verify(&self, data: &[u8], tag: &[u8]) -> bool {
        self.keys.iter().any(|key| {
            let mut mac = Self::mac(key);
            mac.update(data);
            mac.verify_slice(tag).is_ok()
        })
    }

    /// The HMAC-SHA256 of `data` under each key, the signing key's first (to match a
    /// stored keyed hash across a rotation).
    pub fn keyed_hashes<'a>(&'a self, data: &'a [u8]) -> impl Iterator<Item = [u8; 32]> + 'a {
        self.keys.iter().map(move |key| {
            let mut mac = Self::mac(key);
            mac.update(data);
            mac.finalize().into_bytes().into()
        })
    }

    /// `body` sealed under the signing key, for a client to echo back unchanged (an
    /// input-required round's `requestState`, MCP 2026-07-28): `<base64url JSON>.<hex
    /// HMAC-SHA256>`. Integrity only: the client can read the body, so it holds nothing
    /// secret. [`Self::open`] reads it back.
    pub fn seal(&self, body: &serde_json::Value) -> String {
        use base64::Engine as _;
        let body = body.to_string();
        let tag = crate::wire::text::hex(&self.sign(body.as_bytes()));
        format!(
            "{}.{tag}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(body)
        )
    }

    /// The body of `sealed` when any of the keys sealed it ([`Self::seal`]); `None` for
    /// anything else (altered, truncated, another server's, not a sealed value at all).
    pub fn open(&self, sealed: &str) -> Option<serde_json::Value> {
        use base64::Engine as _;
        let (body, hex) = sealed.split_once('.')?;
        let body = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(body)
            .ok()?;
        let tag: Option<Vec<u8>> = (0..hex.len())
            .step_by(2)
            .map(|i| {
                hex.get(i..i + 2)
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
            })
            .collect();
        if !self.verify(&body, &tag?) {
            return None;
        }
        serde_json::from_slice(&body).ok()
    }

    /// How many keys verify (the signing key and the ones rotated out).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Never true: a key set has its signing key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_new_key_signs_and_the_old_one_still_verifies() {
        let old = ServerKey::new("an old key that is long enough to be used!", []).unwrap();
        let tag = old.sign(b"cursor");
        let rotated = ServerKey::new(
            "a new key that is also long enough to be used",
            ["an old key that is long enough to be used!"],
        )
        .unwrap();
        assert!(rotated.verify(b"cursor", &tag));
        assert_ne!(rotated.sign(b"cursor"), tag);
        assert!(!rotated.verify(b"cursor!", &tag));
        assert_eq!(rotated.keyed_hashes(b"cursor").nth(1), Some(tag));
        let short = ServerKey::new("short", []).unwrap_err();
        assert_eq!(
            short.to_string(),
            "server key #1 has 5 bytes; a server key has at least 32"
        );
        assert!(!format!("{rotated:?}").contains("long enough"));
    }
}
