//! Byte sequences that would cross the wire as arrays of numbers, found in a schema: where
//! no derive sees the type (a plain struct nested in a result, an arguments struct, a
//! result type of another crate's), the server refuses them when it starts, naming the
//! tool, the JSON Pointer and the way out (`router/registry.rs`).

use std::collections::HashSet;

use rmcp::model::JsonObject;
use serde_json::Value;

use super::resolve::{Resolver, MAX_DEPTH};

/// The JSON Pointers, in the value the schema describes, of every byte sequence in
/// `schema`: an array whose items are integers from 0 to 255 (`u8`: `Vec<u8>`, `[u8; N]`,
/// `Box<[u8]>`, `VecDeque<u8>`...), as serde_json writes them, an array of numbers. `*` stands for any item of an array or any key of a map. Each place
/// once, in the schema's order; `$ref`s followed (a recursive type once).
pub fn byte_sequences(schema: &JsonObject) -> Vec<String> {
    let root = Value::Object(schema.clone());
    let resolver = Resolver::new(&root);
    let mut found = Vec::new();
    walk(
        &resolver,
        &root,
        String::new(),
        &mut HashSet::new(),
        0,
        &mut found,
    );
    found
}

fn walk<'a>(
    resolver: &Resolver<'a>,
    schema: &'a Value,
    pointer: String,
    following: &mut HashSet<&'a str>,
    depth: usize,
    found: &mut Vec<String>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(object) = schema.as_object() else {
        return;
    };
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        // A type that contains itself is walked once along each path.
        if following.insert(reference) {
            if let Some(target) = resolver.target(schema) {
                walk(
                    resolver,
                    target,
                    pointer.clone(),
                    following,
                    depth + 1,
                    found,
                );
            }
            following.remove(reference);
        }
    }
    if let Some(items) = object.get("items") {
        if is_u8(resolver, items) {
            if !found.contains(&pointer) {
                found.push(pointer.clone());
            }
        } else {
            walk(
                resolver,
                items,
                format!("{pointer}/*"),
                following,
                depth + 1,
                found,
            );
        }
    }
    if let Some(Value::Array(items)) = object.get("prefixItems") {
        for (index, item) in items.iter().enumerate() {
            walk(
                resolver,
                item,
                format!("{pointer}/{index}"),
                following,
                depth + 1,
                found,
            );
        }
    }
    if let Some(Value::Object(properties)) = object.get("properties") {
        for (name, property) in properties {
            let escaped = name.replace('~', "~0").replace('/', "~1");
            walk(
                resolver,
                property,
                format!("{pointer}/{escaped}"),
                following,
                depth + 1,
                found,
            );
        }
    }
    if let Some(values) = object.get("additionalProperties") {
        walk(
            resolver,
            values,
            format!("{pointer}/*"),
            following,
            depth + 1,
            found,
        );
    }
    for union in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = object.get(union) {
            for branch in branches {
                walk(
                    resolver,
                    branch,
                    pointer.clone(),
                    following,
                    depth + 1,
                    found,
                );
            }
        }
    }
}

/// Whether `schema` (its `$ref`s followed) describes a `u8`: an integer from 0 to 255, as
/// schemars writes one (its `"format": "uint8"` is dropped for portability: `generate`).
fn is_u8(resolver: &Resolver<'_>, schema: &Value) -> bool {
    let (schema, _) = resolver.deref(schema);
    schema.get("type").and_then(Value::as_str) == Some("integer")
        && schema.get("minimum").and_then(Value::as_u64) == Some(0)
        && schema.get("maximum").and_then(Value::as_u64) == Some(255)
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;

    use super::byte_sequences;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Attachment {
        name: String,
        data: Vec<u8>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Mail {
        subject: String,
        attachments: Vec<Attachment>,
        digest: [u8; 4],
        by_name: std::collections::BTreeMap<String, Box<[u8]>>,
        levels: Vec<u16>,
        small: u8,
        again: Option<Box<Mail>>,
    }

    #[test]
    fn every_byte_sequence_is_found_at_its_pointer() {
        let schema = crate::schema::serialized_schema::<Mail>();
        let mut found = byte_sequences(&schema);
        // Keys come sorted or in declaration order (`preserve-order`): compare as sets.
        found.sort();
        assert_eq!(
            found,
            [
                "/again/attachments/*/data",
                "/again/by_name/*",
                "/again/digest",
                "/attachments/*/data",
                "/by_name/*",
                "/digest",
            ]
        );
    }
}
