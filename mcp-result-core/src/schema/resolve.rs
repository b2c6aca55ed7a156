//! The one reader of schema structure: `$ref`s, `anyOf`/`oneOf` unions and their `null`
//! branches, followed with one depth limit. The docs and the client view walk schemas with
//! it; nothing else follows a `$ref` by hand.

use serde_json::Value;

/// How deep any walk follows `$ref`s and nested unions before it stops (a recursive type
/// stops well before; this bounds hostile or broken schemas).
pub const MAX_DEPTH: usize = 32;

/// Resolves local references (`#`, `#/$defs/Name`, any JSON Pointer into `root`) inside one
/// self-contained schema.
#[derive(Debug, Clone, Copy)]
pub struct Resolver<'a> {
    root: &'a Value,
}

impl<'a> Resolver<'a> {
    /// A resolver for schemas whose `$ref`s point into `root`.
    pub fn new(root: &'a Value) -> Self {
        Self { root }
    }

    /// The schema `root` itself.
    pub fn root(&self) -> &'a Value {
        self.root
    }

    /// The target of `schema`'s local `$ref`, if it has one that resolves.
    pub fn target(&self, schema: &Value) -> Option<&'a Value> {
        let reference = schema.get("$ref")?.as_str()?;
        self.root.pointer(reference.strip_prefix('#')?)
    }

    /// Follows `$ref`s: the schema they end at, and the name of the last definition followed
    /// (the last JSON Pointer segment of its `$ref`, unescaped).
    pub fn deref<'s>(&self, schema: &'s Value) -> (&'s Value, Option<String>)
    where
        'a: 's,
    {
        let mut schema = schema;
        let mut name = None;
        for _ in 0..MAX_DEPTH {
            let Some(target) = self.target(schema) else {
                break;
            };
            name = schema.get("$ref").and_then(Value::as_str).map(def_name);
            schema = target;
        }
        (schema, name)
    }

    /// The schema without its `null` alternative (`anyOf: [X, {"type": "null"}]` → X), with
    /// `$ref`s followed; and the definition name reached, if any.
    pub fn non_null<'s>(&self, schema: &'s Value) -> (&'s Value, Option<String>)
    where
        'a: 's,
    {
        let (mut schema, mut name) = self.deref(schema);
        for _ in 0..MAX_DEPTH {
            let Some(branches) = union(schema) else {
                break;
            };
            let rest: Vec<&Value> = branches.iter().filter(|b| !is_null(b)).collect();
            let [only] = rest.as_slice() else {
                break;
            };
            let (next, next_name) = self.deref(only);
            schema = next;
            name = next_name.or(name);
        }
        (schema, name)
    }

    /// Whether every instance `schema` accepts is a JSON object (conservative: `false` when
    /// unsure).
    pub fn admits_only_objects(&self, schema: &Value) -> bool {
        self.only_objects(schema, 0)
    }

    fn only_objects(&self, schema: &Value, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let Value::Object(object) = schema else {
            return false;
        };
        match object.get("type") {
            Some(Value::String(t)) => return t == "object",
            Some(Value::Array(types)) => {
                return !types.is_empty() && types.iter().all(|t| t == "object");
            }
            _ => {}
        }
        if object.contains_key("$ref") {
            return self
                .target(schema)
                .is_some_and(|t| self.only_objects(t, depth + 1));
        }
        if let Some(branches) = union(schema) {
            return !branches.is_empty()
                && branches.iter().all(|b| self.only_objects(b, depth + 1));
        }
        if let Some(Value::Array(parts)) = object.get("allOf") {
            return parts.iter().any(|b| self.only_objects(b, depth + 1));
        }
        false
    }
}

/// The branches of an `anyOf` or `oneOf`.
pub fn union(schema: &Value) -> Option<&Vec<Value>> {
    schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
}

/// `{"type": "null"}`.
pub fn is_null(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// The name a `$ref` points at: its last JSON Pointer segment, unescaped.
pub fn def_name(reference: &str) -> String {
    let last = reference.rsplit('/').next().unwrap_or(reference);
    crate::wire::pointer::unescape(last)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn follows_refs_and_null_branches() {
        let root = json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"type": "object"}},
            "properties": {"x": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]}}});
        let resolver = Resolver::new(&root);
        let (core, name) = resolver.non_null(&root["properties"]["x"]);
        assert_eq!(core, &json!({"type": "object"}));
        assert_eq!(name.as_deref(), Some("B"));
        assert!(resolver.admits_only_objects(&json!({"$ref": "#/$defs/A"})));
        assert!(!resolver.admits_only_objects(&root["properties"]["x"]));
        // A reference cycle ends at the depth limit instead of looping.
        let cycle = json!({"$defs": {"L": {"$ref": "#/$defs/L"}}});
        assert!(!Resolver::new(&cycle).admits_only_objects(&json!({"$ref": "#/$defs/L"})));
    }
}
