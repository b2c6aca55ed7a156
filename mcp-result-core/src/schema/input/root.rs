//! The root of an `inputSchema`: MCP sends a tool's arguments as a JSON object (MCP
//! "Tools": `inputSchema` is an object schema), and the argument types Rust authors write
//! are not all plain structs. Each shape that can only ever be an object gets an object
//! root here, in the validated schema ([`object_root`]), and a portable form in the
//! advertised one ([`portable_root`]):
//!
//! | arguments type | validated root | advertised root |
//! |---|---|---|
//! | `serde_json::Value`, `Map<String, Value>` | `{"type": "object"}` | the same |
//! | `#[serde(transparent)]` newtype over a struct | the struct's schema | the same |
//! | `Option<Args>` (absent or `{}` is `None`) | `anyOf: [Args, {}-only]` | `Args` with nothing `required` |
//! | internally or adjacently tagged enum | `type: object` + `oneOf` | one object: every variant's properties, the tag's values as an `enum`, only what every variant requires `required`, the variants in the description |
//!
//! A shape that is not always an object (an untagged enum with a scalar variant, a
//! sequence) keeps its root, and the registry refuses it, naming the type and the fix.

use rmcp::model::JsonObject;
use serde_json::Value;

use crate::schema::{resolve::Resolver, RemoveKey};

/// The branch of `Option<Args>`'s root that stands for `None`: an object with no
/// properties (what a client sends for no arguments, or the `{}` the router reads for
/// absent ones).
fn no_arguments() -> Value {
    let mut object = JsonObject::new();
    object.insert("type".into(), "object".into());
    object.insert("maxProperties".into(), 0.into());
    Value::Object(object)
}

/// Whether the validated schema is that of `Option<Args>` ([`object_root`]): then `{}`
/// deserializes as `None`.
pub(crate) fn empty_means_none(schema: &Value) -> bool {
    schema
        .get("anyOf")
        .and_then(Value::as_array)
        .is_some_and(|branches| branches.contains(&no_arguments()))
}

/// Gives `schema` (a validated input schema as schemars generates it: one root `$defs`) an
/// object root where the type can only ever be an object; see the module docs.
pub(crate) fn object_root(schema: &mut JsonObject) {
    // `true`: any JSON value (`serde_json::Value`). Arguments are always an object.
    if schema.keys().all(|key| key == "$defs" || key == "title") {
        schema.insert("type".into(), "object".into());
        return;
    }
    // A root `$ref` (a `#[serde(transparent)]` newtype): the definition itself.
    if let Some(Value::String(reference)) = schema.get("$ref").cloned() {
        let target = Resolver::new(&Value::Object(schema.clone()))
            .target(&serde_json::json!({"$ref": reference}))
            .and_then(Value::as_object)
            .cloned();
        if let Some(target) = target {
            schema.remove_key("$ref");
            for (key, value) in target {
                schema.entry(key).or_insert(value);
            }
        }
    }
    // A nullable root (`Option<Args>`): `None` is the empty object.
    let nullable_type = match schema.get("type") {
        Some(Value::Array(types)) if types.iter().any(|t| t == "null") => {
            let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
            Some(kept)
        }
        _ => None,
    };
    // Only an `Option` of something that is always an object (`Option<u64>` keeps its root,
    // and the registry refuses it, naming the type).
    let only_objects = |some: &Value, defs: Option<&Value>| {
        let mut probe = some.as_object().cloned().unwrap_or_default();
        if let Some(defs) = defs {
            probe.insert("$defs".into(), defs.clone());
        }
        let probe = Value::Object(probe);
        Resolver::new(&probe).admits_only_objects(&probe)
    };
    let nullable_type = nullable_type.filter(|kept| {
        let mut some = schema.clone();
        let kind = match kept.as_slice() {
            [one] => one.clone(),
            _ => Value::Array(kept.clone()),
        };
        some.insert("type".into(), kind);
        let defs = some.remove_key("$defs");
        only_objects(&Value::Object(some), defs.as_ref())
    });
    if let Some(kept) = nullable_type {
        let mut some = std::mem::take(schema);
        let defs = some.remove_key("$defs");
        let title = some.remove_key("title");
        match kept.as_slice() {
            [one] => {
                some.insert("type".into(), one.clone());
            }
            _ => {
                some.insert("type".into(), Value::Array(kept));
            }
        }
        *schema = nullable_root(Value::Object(some), defs, title);
    } else if let Some(Value::Array(branches)) = schema.get("anyOf") {
        let some = branches
            .iter()
            .find(|b| !crate::schema::is_null(b))
            .cloned()
            .unwrap_or_default();
        if branches.len() == 2
            && branches.iter().any(crate::schema::is_null)
            && only_objects(&some, schema.get("$defs"))
        {
            let defs = schema.remove_key("$defs");
            let title = schema.remove_key("title");
            *schema = nullable_root(some, defs, title);
        }
    }
    // A composition whose every branch is an object (a tagged enum): an object root.
    if !schema.contains_key("type") {
        let probe = Value::Object(schema.clone());
        if Resolver::new(&probe).admits_only_objects(&probe) {
            schema.insert("type".into(), "object".into());
        }
    }
}

fn nullable_root(some: Value, defs: Option<Value>, title: Option<Value>) -> JsonObject {
    let mut root = JsonObject::new();
    if let Some(title) = title {
        root.insert("title".into(), title);
    }
    root.insert("type".into(), "object".into());
    root.insert("anyOf".into(), Value::Array(vec![some, no_arguments()]));
    if let Some(defs) = defs {
        root.insert("$defs".into(), defs);
    }
    root
}

/// Before the portable rewrite: `Option<Args>`'s root becomes `Args`'s, with a marker that
/// [`portable_root`] reads to drop `required` (every argument may be absent).
pub(super) fn before_portable(root: &mut JsonObject) -> bool {
    let Some(Value::Array(branches)) = root.get("anyOf") else {
        return false;
    };
    if !branches.contains(&no_arguments()) {
        return false;
    }
    let some = branches
        .iter()
        .find(|b| **b != no_arguments())
        .cloned()
        .unwrap_or_default();
    root.remove_key("anyOf");
    root.insert("allOf".into(), Value::Array(vec![some]));
    true
}

/// After the portable rewrite of the root (definitions inlined): the one object a host can
/// take, or `None` when a composition remains that is no union of objects.
pub(super) fn portable_root(mut out: JsonObject, optional: bool) -> Option<JsonObject> {
    if optional {
        out.remove_key("required");
    }
    for keyword in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = out.get(keyword) else {
            continue;
        };
        let merged = merge_objects(branches)?;
        out.remove_key(keyword);
        let description = [
            out.get("description").and_then(Value::as_str),
            Some(merged.1.as_str()),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("\n\n");
        // The root's own properties (beside a flattened enum) stay, with the variants'.
        let (merged, _) = merged;
        if let Some(Value::Object(properties)) = merged.get("properties") {
            let own = out
                .entry("properties")
                .or_insert_with(|| Value::Object(JsonObject::new()));
            if let Value::Object(own) = own {
                for (name, schema) in properties {
                    own.entry(name.clone()).or_insert_with(|| schema.clone());
                }
            }
        }
        if let Some(Value::Array(required)) = merged.get("required") {
            let own = out
                .entry("required")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(own) = own {
                for name in required {
                    if !own.contains(name) {
                        own.push(name.clone());
                    }
                }
            }
        }
        out.insert("description".into(), description.into());
    }
    Some(out)
}

/// One object schema accepting what every object branch accepts: every branch's properties
/// (a property whose branches differ: their `enum`s joined when each is an `enum` of one
/// type, else `anyOf` of the distinct schemas), `required` only what every branch requires;
/// and a description naming each branch's required properties (for a tag, its value), so
/// the model knows which sets go together. `None` when a branch is not an object with
/// `properties`.
fn merge_objects(branches: &[Value]) -> Option<(JsonObject, String)> {
    let mut properties: Vec<(String, Vec<Value>)> = Vec::new();
    let mut required: Option<Vec<Value>> = None;
    let mut variants = Vec::new();
    for branch in branches {
        let branch = branch.as_object()?;
        if branch.get("type").and_then(Value::as_str) != Some("object") {
            return None;
        }
        let own = branch
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let own_required: Vec<Value> = branch
            .get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut words = Vec::new();
        for name in own_required.iter().filter_map(Value::as_str) {
            let tag = own
                .get(name)
                .and_then(|p| p.get("enum"))
                .and_then(Value::as_array);
            match tag.map(Vec::as_slice) {
                Some([Value::String(value)]) => words.push(format!("`{name}` = \"{value}\"")),
                _ => words.push(format!("`{name}`")),
            }
        }
        let optional: Vec<String> = own
            .keys()
            .filter(|k| !own_required.iter().any(|r| r == *k))
            .map(|k| format!("`{k}`"))
            .collect();
        let mut line = format!("- {}", words.join(", "));
        if !optional.is_empty() {
            line.push_str(&format!(" (optional: {})", optional.join(", ")));
        }
        if let Some(text) = branch.get("description").and_then(Value::as_str) {
            line.push_str(&format!(": {text}"));
        }
        variants.push(line);
        for (name, schema) in own {
            match properties.iter_mut().find(|(n, _)| *n == name) {
                Some((_, schemas)) => {
                    if !schemas.contains(&schema) {
                        schemas.push(schema);
                    }
                }
                None => properties.push((name, vec![schema])),
            }
        }
        required = Some(match required {
            None => own_required,
            Some(before) => before
                .into_iter()
                .filter(|r| own_required.contains(r))
                .collect(),
        });
    }
    let mut merged_properties = JsonObject::new();
    for (name, schemas) in properties {
        merged_properties.insert(name, join_schemas(schemas));
    }
    let mut out = JsonObject::new();
    out.insert("properties".into(), Value::Object(merged_properties));
    if let Some(required) = required.filter(|r| !r.is_empty()) {
        out.insert("required".into(), Value::Array(required));
    }
    let description = format!(
        "Send one of these sets of arguments:\n{}",
        variants.join("\n")
    );
    Some((out, description))
}

fn join_schemas(mut schemas: Vec<Value>) -> Value {
    if schemas.len() == 1 {
        return schemas.remove(0);
    }
    // Each an `enum` of one `type` (a tag's values): one `enum` of them all.
    let enum_of = |schema: &Value| -> Option<(Option<Value>, Vec<Value>)> {
        let object = schema.as_object()?;
        let values = object.get("enum")?.as_array()?.clone();
        if object
            .keys()
            .any(|k| !matches!(k.as_str(), "enum" | "type" | "description"))
        {
            return None;
        }
        Some((object.get("type").cloned(), values))
    };
    let enums: Option<Vec<_>> = schemas.iter().map(enum_of).collect();
    if let Some(enums) = enums {
        let types: Vec<&Option<Value>> = enums.iter().map(|(t, _)| t).collect();
        if types.iter().all(|t| *t == types[0]) {
            let mut values = Vec::new();
            for (_, own) in &enums {
                for value in own {
                    if !values.contains(value) {
                        values.push(value.clone());
                    }
                }
            }
            let mut out = JsonObject::new();
            if let Some(ty) = types[0].clone() {
                out.insert("type".into(), ty);
            }
            out.insert("enum".into(), Value::Array(values));
            return Value::Object(out);
        }
    }
    let mut out = JsonObject::new();
    out.insert("anyOf".into(), Value::Array(schemas));
    Value::Object(out)
}
