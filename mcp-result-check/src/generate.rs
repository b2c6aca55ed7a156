//! Arguments from an input schema: one valid set to call a tool with, and one its schema
//! rejects.
//!
//! The valid set holds every `required` property (optional ones are left out) with a value
//! of its type: `const`, else the first of `enum`, `examples` or `default`, else a value of
//! the `type` (`"example"`, a string of the `format` for `date-time`, `date`, `time`,
//! `email`, `uri`, `uuid`, `ipv4`, `ipv6`, `hostname`; the smallest number the bounds and
//! `multipleOf` allow, else 1; `false`; arrays of `minItems` items; objects of their
//! required properties). `$ref`s are followed, the first non-null branch of an
//! `anyOf`/`oneOf` is taken, `allOf` branches are merged. What it cannot make: a string for a
//! `pattern` that `"example"` does not match, anything under `not`, `if`/`then`/`else`,
//! `dependentRequired`/`dependentSchemas`, `uniqueItems` of one-valued items, and values a
//! server accepts only when they name something real (an id). The caller validates what it
//! made against the schema and gives tools it cannot serve to `--samples`.

use mcp_result::serde_json::{json, Map, Value};

use crate::schema::{deref, type_of};

const MAX_DEPTH: usize = 12;

/// A set of arguments `schema` (a tool's `inputSchema`) accepts, or why none can be made.
pub fn arguments(schema: &Value) -> Result<Value, String> {
    value(schema, schema, 0)
}

fn value(root: &Value, schema: &Value, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err("the schema nests (or recurses) too deep".into());
    }
    let schema = deref(root, schema);
    let map = match schema {
        Value::Bool(true) => return Ok(json!("example")),
        Value::Bool(false) => return Err("a `false` schema accepts nothing".into()),
        Value::Object(map) => map,
        _ => return Err("a schema that is not an object".into()),
    };
    if let Some(constant) = map.get("const") {
        return Ok(constant.clone());
    }
    for keyword in ["enum", "examples"] {
        if let Some(first) = map
            .get(keyword)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            return Ok(first.clone());
        }
    }
    if let Some(default) = map.get("default") {
        return Ok(default.clone());
    }
    if let Some(branches) = map.get("allOf").and_then(Value::as_array) {
        let merged = merge(root, map, branches);
        return value(root, &merged, depth + 1);
    }
    if map.get("type").is_none() {
        for keyword in ["anyOf", "oneOf"] {
            if let Some(branches) = map.get(keyword).and_then(Value::as_array) {
                let branch = branches
                    .iter()
                    .find(|b| type_of(deref(root, b)) != Some("null"))
                    .or(branches.first())
                    .ok_or_else(|| format!("an empty `{keyword}`"))?;
                return value(root, branch, depth + 1);
            }
        }
    }
    let kind = type_of(schema).or_else(|| map.contains_key("properties").then_some("object"));
    match kind {
        Some("object") => object(root, map, depth),
        Some("array") => {
            let count = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let items = map.get("items").unwrap_or(&Value::Bool(true));
            (0..count.min(16))
                .map(|_| value(root, items, depth + 1))
                .collect::<Result<Vec<_>, _>>()
                .map(Value::Array)
        }
        Some("string") => string(map),
        Some("integer") => Ok(number(map, true)),
        Some("number") => Ok(number(map, false)),
        Some("boolean") => Ok(json!(false)),
        Some("null") => Ok(Value::Null),
        Some(other) => Err(format!("an unknown type `{other}`")),
        None => Ok(json!("example")),
    }
}

/// The object of `map`'s required properties.
fn object(root: &Value, map: &Map<String, Value>, depth: usize) -> Result<Value, String> {
    let empty = Map::new();
    let properties = map
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut out = Map::new();
    for name in map
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let property = properties
            .get(name)
            .or_else(|| map.get("additionalProperties").filter(|a| a.is_object()))
            .unwrap_or(&Value::Bool(true));
        let generated =
            value(root, property, depth + 1).map_err(|why| format!("`{name}`: {why}"))?;
        out.insert(name.to_owned(), generated);
    }
    Ok(Value::Object(out))
}

/// `allOf` as one schema: the keys of every branch, `properties` and `required` united.
fn merge(root: &Value, map: &Map<String, Value>, branches: &[Value]) -> Value {
    let mut merged = map.clone();
    merged.remove("allOf");
    for branch in branches {
        let Some(branch) = deref(root, branch).as_object() else {
            continue;
        };
        for (key, value) in branch {
            match (key.as_str(), merged.get_mut(key)) {
                ("properties", Some(Value::Object(into))) => {
                    if let Some(from) = value.as_object() {
                        into.extend(from.clone());
                    }
                }
                ("required", Some(Value::Array(into))) => {
                    if let Some(from) = value.as_array() {
                        into.extend(from.iter().cloned());
                    }
                }
                (_, Some(_)) => {}
                (_, None) => {
                    merged.insert(key.clone(), value.clone());
                }
            }
        }
    }
    Value::Object(merged)
}

fn string(map: &Map<String, Value>) -> Result<Value, String> {
    let mut text = match map.get("format").and_then(Value::as_str) {
        Some("date-time") => "2025-01-01T00:00:00Z",
        Some("date") => "2025-01-01",
        Some("time") => "00:00:00Z",
        Some("email") => "user@example.com",
        Some("uri" | "url" | "iri") => "https://example.com/",
        Some("uuid") => "00000000-0000-4000-8000-000000000000",
        Some("ipv4") => "192.0.2.1",
        Some("ipv6") => "2001:db8::1",
        Some("hostname") => "example.com",
        _ => "example",
    }
    .to_owned();
    let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    while text.chars().count() < min {
        text.push('x');
    }
    if let Some(max) = map.get("maxLength").and_then(Value::as_u64) {
        text = text.chars().take(max as usize).collect();
    }
    if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
        // ECMA 262 and Rust's regex agree on the common subset; a pattern Rust cannot read
        // is left to the schema validation that follows.
        if let Ok(regex) = regex::Regex::new(pattern) {
            if !regex.is_match(&text) {
                return Err(format!("a string matching `{pattern}`"));
            }
        }
    }
    Ok(Value::String(text))
}

fn number(map: &Map<String, Value>, integer: bool) -> Value {
    let get = |k: &str| map.get(k).and_then(Value::as_f64);
    let step = if integer { 1.0 } else { 0.5 };
    let low = get("minimum").or(get("exclusiveMinimum").map(|m| m + step));
    let high = get("maximum").or(get("exclusiveMaximum").map(|m| m - step));
    let mut n = low.unwrap_or(1.0);
    if let Some(high) = high {
        if low.is_none() && n > high {
            n = high;
        }
    }
    if let Some(multiple) = get("multipleOf").filter(|m| *m > 0.0) {
        n = (n / multiple).ceil() * multiple;
    }
    if integer {
        let n = n.ceil();
        if n >= 0.0 {
            json!(n as u64)
        } else {
            json!(n as i64)
        }
    } else if n.fract() == 0.0 && n.abs() < 1e15 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

/// Arguments `schema` rejects, made from `good` by getting one property wrong.
pub struct Bad {
    pub arguments: Value,
    /// The property made wrong (or left out).
    pub field: String,
    /// What was done to it, for messages.
    pub how: String,
}

/// A required property (else any typed one) of the wrong type, or a required untyped
/// property left out. `None` when the schema has no property to get wrong.
pub fn bad_arguments(schema: &Value, good: &Value) -> Vec<Bad> {
    let root = deref(schema, schema);
    let Some(properties) = root.get("properties").and_then(Value::as_object) else {
        return required_names(root)
            .first()
            .map(|name| missing(good, name))
            .into_iter()
            .collect();
    };
    let required = required_names(root);
    let mut names: Vec<&str> = required.clone();
    names.extend(
        properties
            .keys()
            .map(String::as_str)
            .filter(|n| !required.contains(n)),
    );
    let mut out = Vec::new();
    for name in names {
        let property = properties.get(name).map(|p| deref(schema, p));
        match property.and_then(type_of) {
            Some(kind) => {
                let (wrong, said) = match kind {
                    "string" => (json!(12345), "the number 12345"),
                    "integer" | "number" => (json!("not a number"), "a string"),
                    "boolean" => (json!("not a boolean"), "a string"),
                    "array" => (json!("not an array"), "a string"),
                    "object" => (json!("not an object"), "a string"),
                    _ => continue,
                };
                let mut arguments = good.clone();
                if let Some(map) = arguments.as_object_mut() {
                    map.insert(name.to_owned(), wrong);
                }
                out.push(Bad {
                    arguments,
                    field: name.to_owned(),
                    how: format!("`{name}` as {said} where the schema says {kind}"),
                });
            }
            None if required.contains(&name) => out.push(missing(good, name)),
            None => {}
        }
    }
    out
}

fn required_names(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

fn missing(good: &Value, name: &str) -> Bad {
    let mut arguments = good.clone();
    if let Some(map) = arguments.as_object_mut() {
        map.remove(name);
    }
    Bad {
        arguments,
        field: name.to_owned(),
        how: format!("without the required `{name}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_properties_get_values_of_their_type_within_bounds() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "minLength": 10},
                "kind": {"enum": ["b", "a"]},
                "size": {"type": "integer", "minimum": 5, "multipleOf": 4},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
                "when": {"type": "string", "format": "date-time"},
                "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "filter": {"$ref": "#/$defs/Filter"},
                "maybe": {"anyOf": [{"type": "null"}, {"type": "boolean"}]},
                "optional": {"type": "string"}
            },
            "required": ["id", "kind", "size", "ratio", "when", "tags", "filter", "maybe"],
            "$defs": {"Filter": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}
        });
        assert_eq!(
            arguments(&schema).unwrap(),
            json!({"id": "examplexxx", "kind": "b", "size": 8, "ratio": 0.5,
                   "when": "2025-01-01T00:00:00Z", "tags": ["example"], "filter": {"q": "example"},
                   "maybe": false})
        );
    }

    #[test]
    fn a_pattern_example_does_not_match_is_not_generated() {
        let schema = json!({"type": "object", "properties": {"id": {"type": "string", "pattern": "^T-[0-9]+$"}}, "required": ["id"]});
        assert_eq!(
            arguments(&schema).unwrap_err(),
            "`id`: a string matching `^T-[0-9]+$`"
        );
    }

    #[test]
    fn bad_arguments_get_a_required_property_wrong_first() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}, "required": ["s"]});
        let good = arguments(&schema).unwrap();
        let bad = bad_arguments(&schema, &good);
        assert_eq!(bad[0].arguments, json!({"s": 12345}));
        assert_eq!(bad[0].field, "s");
        assert_eq!(
            bad[1].arguments,
            json!({"s": "example", "n": "not a number"})
        );
        let untyped = json!({"type": "object", "required": ["x"]});
        assert_eq!(
            bad_arguments(&untyped, &json!({"x": 1}))[0].arguments,
            json!({})
        );
        assert!(bad_arguments(&json!({"type": "object"}), &json!({})).is_empty());
    }
}
