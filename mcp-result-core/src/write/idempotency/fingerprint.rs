//! fingerprint

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::wire::text::hex;
use crate::{schema::arguments::ArgumentSchema, store::key::ServerKey};

/// The fingerprints of a call: one per server key (the signing key's first), since a
/// secret argument enters as its keyed hash and a rotation must not turn a retry into a
/// conflict. See the module docs for what is hashed.
pub fn fingerprints(
    tool: &str,
    arguments: &Value,
    schema: &ArgumentSchema,
    key: &ServerKey,
) -> Vec<String> {
    let mut arguments = arguments.clone();
    crate::schema::arguments::normalize_integers(&mut arguments);
    (0..key.len())
        .map(|index| {
            let mut keyed = arguments.clone();
            hash_secrets(&mut keyed, "", schema, key, index);
            let canonical = serde_jcs::to_vec(&keyed).unwrap_or_default();
            let mut hasher = Sha256::new();
            hasher.update(tool.as_bytes());
            hasher.update([0]);
            hasher.update(&canonical);
            hex(&hasher.finalize())
        })
        .collect()
}

/// A write's argument digest ([`argument_digest`](crate::audit::argument_digest)) and,
/// when `key` is given, its fingerprints ([`fingerprints`]), the same values as those two
/// functions give, with the arguments written canonically once: without a secret argument,
/// both hash the same canonical form (the fingerprints after the tool's name), and every
/// server key gives the same fingerprint (a key only enters through a secret). Arguments
/// the single writing does not cover (a secret, a float, a non-ASCII name) go through the
/// two functions.
pub(crate) fn digest_and_fingerprints(
    tool: &str,
    arguments: &Value,
    schema: &ArgumentSchema,
    key: Option<&ServerKey>,
) -> (String, Vec<String>) {
    let mut canonical = Vec::with_capacity(128);
    if !schema.has_secrets() && crate::write::audit::write_canonical(arguments, &mut canonical) {
        let digest = hex(&Sha256::digest(&canonical));
        let fingerprints = key.map_or_else(Vec::new, |key| {
            let mut hasher = Sha256::new();
            hasher.update(tool.as_bytes());
            hasher.update([0]);
            hasher.update(&canonical);
            vec![hex(&hasher.finalize()); key.len()]
        });
        return (digest, fingerprints);
    }
    (
        crate::write::audit::argument_digest(arguments, schema),
        key.map_or_else(Vec::new, |key| fingerprints(tool, arguments, schema, key)),
    )
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
