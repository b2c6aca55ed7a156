//! A call's idempotency fingerprints ([`fingerprints`]), made from the hash of its
//! canonical arguments (`write/audit/canonical.rs`).

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::wire::text::hex;
use crate::{schema::arguments::ArgumentSchema, store::key::ServerKey};

/// The fingerprints of a call: one per server key (the signing key's first), since a
/// secret argument enters as its keyed hash and a rotation must not turn a retry into a
/// conflict. Each is 64 lower-case hex characters: SHA-256 over the tool's name, a zero
/// byte and the 32 bytes of SHA-256 over the arguments' RFC 8785 form (integral numbers
/// normalized, each secret as its HMAC under that key). Without a secret argument the inner
/// hash is the argument digest ([`argument_digest`](crate::audit::argument_digest)), so a
/// write hashes its arguments once (issue 50: single pass, however large they are).
pub fn fingerprints(
    tool: &str,
    arguments: &Value,
    schema: &ArgumentSchema,
    key: &ServerKey,
) -> Vec<String> {
    if !schema.has_secrets() {
        let digest = crate::write::audit::argument_sha256(arguments, schema);
        return vec![fingerprint(tool, &digest); key.len()];
    }
    let mut arguments = arguments.clone();
    crate::schema::arguments::normalize_integers(&mut arguments);
    (0..key.len())
        .map(|index| {
            let mut keyed = arguments.clone();
            hash_secrets(&mut keyed, "", schema, key, index);
            fingerprint(tool, &crate::write::audit::canonical_sha256(&keyed))
        })
        .collect()
}

/// SHA-256 (hex) over `tool`, a zero byte and `arguments`, the SHA-256 of the arguments'
/// canonical form.
fn fingerprint(tool: &str, arguments: &[u8; 32]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(tool.as_bytes());
    hasher.update([0]);
    hasher.update(arguments);
    hex(&hasher.finalize())
}

/// A write's argument digest ([`argument_digest`](crate::audit::argument_digest)) and,
/// when `key` is given, its fingerprints ([`fingerprints`]), the same values as those two
/// functions give, with the arguments hashed once when none is secret: the fingerprints
/// are then made from the digest.
pub(crate) fn digest_and_fingerprints(
    tool: &str,
    arguments: &Value,
    schema: &ArgumentSchema,
    key: Option<&ServerKey>,
) -> (String, Vec<String>) {
    let digest = crate::write::audit::argument_sha256(arguments, schema);
    let fingerprints = match key {
        None => Vec::new(),
        Some(key) if !schema.has_secrets() => vec![fingerprint(tool, &digest); key.len()],
        Some(key) => fingerprints(tool, arguments, schema, key),
    };
    (hex(&digest), fingerprints)
}

fn hash_secrets(
    value: &mut Value,
    pointer: &str,
    schema: &ArgumentSchema,
    key: &ServerKey,
    index: usize,
) {
    if !pointer.is_empty() && schema.is_secret(pointer) {
        let data = serde_jcs::to_vec(&*value).unwrap_or_default();
        let tag = key.keyed_hashes(&data).nth(index).unwrap_or_default();
        *value = Value::String(format!("hmac-sha256:{}", hex(&tag)));
        return;
    }
    match value {
        Value::Object(map) => {
            for (name, child) in map.iter_mut() {
                let child_pointer = format!("{pointer}/{}", crate::wire::pointer::escape(name));
                hash_secrets(child, &child_pointer, schema, key, index);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                hash_secrets(child, &format!("{pointer}/{i}"), schema, key, index);
            }
        }
        _ => {}
    }
}
