//! A write's arguments in their canonical form (RFC 8785, JSON Canonicalization Scheme),
//! hashed as they are written: the argument digest of its audit records, and what its
//! idempotency fingerprint is made from (`write/idempotency/fingerprint.rs`).
//!
//! The arguments are read once and never copied whole: short pieces gather in a buffer,
//! and a long string goes to SHA-256 as it is, so a write with a 1 MiB argument hashes it
//! once, in place.

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::schema::arguments::ArgumentSchema;

/// SHA-256 (hex) of `arguments` canonicalized per RFC 8785 (after integral numbers are
/// normalized: `100000.0` is `100000`) with every secret field of `schema` removed: an
/// audit record's `argumentDigest`, 64 lower-case hex characters.
pub fn argument_digest(arguments: &Value, schema: &ArgumentSchema) -> String {
    crate::wire::text::hex(&argument_sha256(arguments, schema))
}

/// [`argument_digest`] in its 32 bytes.
pub(crate) fn argument_sha256(arguments: &Value, schema: &ArgumentSchema) -> [u8; 32] {
    // Without secrets to remove, arguments whose canonical form `write_canonical` writes
    // are already normalized (it refuses every float, and `normalize_integers` changes
    // only floats): hashed from the borrowed value, not from a copy.
    if !schema.has_secrets() {
        let mut hasher = CanonicalHasher::default();
        if write_canonical(arguments, &mut hasher) {
            return hasher.finish();
        }
    }
    let mut arguments = arguments.clone();
    crate::schema::arguments::normalize_integers(&mut arguments);
    if schema.has_secrets() {
        remove_secrets(&mut arguments, "", schema);
    }
    canonical_sha256(&arguments)
}

/// SHA-256 of `value`'s RFC 8785 form, a value normalized already.
pub(crate) fn canonical_sha256(value: &Value) -> [u8; 32] {
    let mut hasher = CanonicalHasher::default();
    if write_canonical(value, &mut hasher) {
        return hasher.finish();
    }
    Sha256::digest(serde_jcs::to_vec(value).unwrap_or_default()).into()
}

/// Where [`write_canonical`] writes: a buffer (the bytes themselves), or a
/// [`CanonicalHasher`] (only their SHA-256).
pub(crate) trait CanonicalOut {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);
}

impl CanonicalOut for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// SHA-256 of what is written to it. Pieces shorter than [`CanonicalHasher::DIRECT`]
/// gather in a buffer (a hasher's update costs more than a copy of a few bytes); a longer
/// piece goes to the hasher as it is, after what the buffer holds.
#[derive(Default)]
pub(crate) struct CanonicalHasher {
    hasher: Sha256,
    pending: Vec<u8>,
}

impl CanonicalHasher {
    /// Bytes: a piece this long or longer is hashed in place, not copied.
    const DIRECT: usize = 4096;

    /// The SHA-256 of everything written.
    pub(crate) fn finish(mut self) -> [u8; 32] {
        self.hasher.update(&self.pending);
        self.hasher.finalize().into()
    }
}

impl CanonicalOut for CanonicalHasher {
    fn put(&mut self, bytes: &[u8]) {
        if bytes.len() < Self::DIRECT {
            if self.pending.capacity() == 0 {
                self.pending.reserve(128);
            }
            self.pending.extend_from_slice(bytes);
            return;
        }
        self.hasher.update(&self.pending);
        self.pending.clear();
        self.hasher.update(bytes);
    }
}

/// `std::io::Write` over a [`CanonicalOut`], for serde_json's string escaping.
struct Writer<'a, O: ?Sized>(&'a mut O);

impl<O: CanonicalOut + ?Sized> std::io::Write for Writer<'_, O> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.put(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// RFC 8785 (JCS) of `value` into `out`, for the values whose canonical form needs no more
/// than sorting and serde_json's own writing: property names of ASCII only (their UTF-16
/// order, which JCS sorts by, is their byte order) and integers within ±(2^53 − 1) (which
/// ECMAScript writes as their digits). `false` for anything else (a float, a non-ASCII
/// name), and the caller canonicalizes with serde_jcs instead; the bytes are the same
/// either way (tested). Arguments are almost always of this kind, and this path allocates
/// nothing for a map whose keys are in order.
pub(crate) fn write_canonical<O: CanonicalOut + ?Sized>(value: &Value, out: &mut O) -> bool {
    match value {
        Value::Null => out.put(b"null"),
        Value::Bool(true) => out.put(b"true"),
        Value::Bool(false) => out.put(b"false"),
        Value::Number(number) => {
            let safe = crate::wire::number::MAX_SAFE_INTEGER;
            match (number.as_i64(), number.as_u64()) {
                (Some(i), _) if (-safe..=safe).contains(&i) => {
                    use std::io::Write as _;
                    let _ = write!(Writer(out), "{i}");
                }
                _ => return false,
            }
        }
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.put(b"[");
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.put(b",");
                }
                if !write_canonical(item, out) {
                    return false;
                }
            }
            out.put(b"]");
        }
        Value::Object(map) => {
            if map.keys().any(|name| !name.is_ascii()) {
                return false;
            }
            // Without `preserve-order` a map iterates in byte order already: no sorted copy.
            let sorted;
            let entries: &mut dyn Iterator<Item = (&String, &Value)> = if map.keys().is_sorted() {
                &mut map.iter()
            } else {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                sorted = entries;
                &mut sorted.iter().copied()
            };
            out.put(b"{");
            for (index, (name, item)) in entries.enumerate() {
                if index > 0 {
                    out.put(b",");
                }
                write_string(name, out);
                out.put(b":");
                if !write_canonical(item, out) {
                    return false;
                }
            }
            out.put(b"}");
        }
    }
    true
}

/// `text` as serde_json (and RFC 8785) write a string: one with nothing to escape put whole
/// after a scan, any other escaped by serde_json.
fn write_string<O: CanonicalOut + ?Sized>(text: &str, out: &mut O) {
    if crate::wire::text::json_plain(text.as_bytes()) {
        out.put(b"\"");
        out.put(text.as_bytes());
        out.put(b"\"");
    } else {
        // Writing into a `CanonicalOut` does not fail.
        let _ = serde_json::to_writer(Writer(out), text);
    }
}

fn remove_secrets(value: &mut Value, pointer: &str, schema: &ArgumentSchema) {
    match value {
        Value::Object(map) => {
            map.retain(|name, _| {
                let child = format!("{pointer}/{}", crate::wire::pointer::escape(name));
                !schema.is_secret(&child)
            });
            for (name, child) in map.iter_mut() {
                let child_pointer = format!("{pointer}/{}", crate::wire::pointer::escape(name));
                remove_secrets(child, &child_pointer, schema);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                remove_secrets(child, &format!("{pointer}/{i}"), schema);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_fast_canonical_form_is_rfc_8785() {
        let samples = [
            json!({"b": 1, "a": [true, null, "x\u{1}\n\"\\/é\u{2028}"], "A": {"z": -5, "": {}}}),
            json!({"ticketId": "T-1001", "body": "Checked the logs.", "n": 9007199254740991u64}),
            json!({"long": "y".repeat(10_000), "escaped": format!("\"{}", "z".repeat(5_000))}),
            json!([]),
            json!("plain"),
        ];
        for sample in samples {
            let mut fast = Vec::new();
            assert!(write_canonical(&sample, &mut fast), "{sample}");
            let jcs = serde_jcs::to_vec(&sample).unwrap();
            assert_eq!(
                String::from_utf8(fast).unwrap(),
                String::from_utf8(jcs.clone()).unwrap()
            );
            // Hashed as it is written: the SHA-256 of the same bytes.
            let mut hasher = CanonicalHasher::default();
            assert!(write_canonical(&sample, &mut hasher));
            assert_eq!(hasher.finish(), <[u8; 32]>::from(Sha256::digest(&jcs)));
            assert_eq!(
                canonical_sha256(&sample),
                <[u8; 32]>::from(Sha256::digest(&jcs))
            );
        }
        // What it does not cover goes to serde_jcs.
        for other in [
            json!({"ratio": 0.5}),
            json!({"ünï": 1}),
            json!({"n": 9007199254740993u64}),
        ] {
            assert!(!write_canonical(&other, &mut Vec::new()), "{other}");
            let jcs = serde_jcs::to_vec(&other).unwrap();
            assert_eq!(
                canonical_sha256(&other),
                <[u8; 32]>::from(Sha256::digest(&jcs))
            );
        }
    }

    #[test]
    fn the_digest_leaves_secrets_out() {
        let schema = ArgumentSchema::new(json!({"type": "object", "properties": {
            "to": {"type": "string"}, "token": {"type": "string", "writeOnly": true}}}))
        .unwrap();
        let a = argument_digest(&json!({"to": "x", "token": "one"}), &schema);
        let b = argument_digest(&json!({"token": "two", "to": "x"}), &schema);
        let c = argument_digest(&json!({"to": "y", "token": "one"}), &schema);
        assert_eq!(a, b);
        assert_ne!(a, c);
        // The digest is SHA-256 of the canonical form without the secret.
        assert_eq!(a, crate::wire::text::hex(&Sha256::digest(br#"{"to":"x"}"#)));
        // Integral numbers are normalized first.
        let plain = ArgumentSchema::new(json!({"type": "object"})).unwrap();
        assert_eq!(
            argument_digest(&json!({"rows": 100000.0}), &plain),
            argument_digest(&json!({"rows": 100000}), &plain)
        );
    }
}
