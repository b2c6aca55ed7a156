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
