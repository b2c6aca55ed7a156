//! Reading a foreign server's schemas: their dialect, their `$ref`s, the properties they
//! declare. (mcp-result's own schemas are read by `mcp_result::schema`; these come from any
//! server, so they are read as the JSON Schema they claim to be.)

use std::{
    collections::BTreeSet,
    panic::{catch_unwind, AssertUnwindSafe},
};

use mcp_result::serde_json::Value;

/// Keywords whose values are data, not schemas: a `$ref` key inside them is not a reference.
const DATA_KEYWORDS: &[&str] = &["enum", "const", "default", "examples", "example"];

/// A schema read: what is wrong with it, `(check id, JSON Pointer, message)` with the
/// pointer under `at` (`/inputSchema`, `/outputSchema`), and its validator when it compiles.
pub struct Checked {
    pub problems: Vec<(&'static str, String, String)>,
    pub validator: Option<jsonschema::Validator>,
}

/// Meta-validation against the schema's dialect, then compilation (by the `jsonschema`
/// crate, which resolves `$ref`s inside the schema only: no file or network retrieval). A
/// `$ref` is a finding when the schema does not compile and this module cannot resolve it
/// either (a JSON Pointer, an `$anchor` or an `$id` inside the schema).
pub fn check(schema: &Value, at: &str) -> Checked {
    let mut problems = Vec::new();
    let meta_valid = match meta_errors(schema) {
        Err(message) => {
            problems.push(("schema-dialect", format!("{at}/$schema"), message));
            false
        }
        Ok(errors) => {
            let valid = errors.is_empty();
            for (path, message) in errors.into_iter().take(5) {
                problems.push(("schema-dialect", format!("{at}{path}"), message));
            }
            valid
        }
    };
    let compiled = if meta_valid {
        compile(schema)
    } else {
        Err(String::new())
    };
    let validator = match compiled {
        Ok(validator) => Some(validator),
        Err(error) => {
            let mut refs = Vec::new();
            collect_refs(schema, String::new(), &mut refs);
            let unresolved: Vec<(String, String)> = refs
                .into_iter()
                .filter(|(_, reference)| resolve(schema, reference).is_none())
                .collect();
            for (pointer, reference) in &unresolved {
                problems.push((
                    "schema-ref",
                    format!("{at}{pointer}/$ref"),
                    format!("`$ref: \"{reference}\"` does not resolve inside the schema"),
                ));
            }
            if meta_valid && unresolved.is_empty() {
                problems.push(("schema-dialect", at.to_owned(), error));
            }
            None
        }
    };
    Checked {
        problems,
        validator,
    }
}

/// Every way `schema` breaks its dialect's meta-schema, as `(pointer, message)`; `Err` when
/// the dialect is not one of the drafts (4, 6, 7, 2019-09, 2020-12).
fn meta_errors(schema: &Value) -> Result<Vec<(String, String)>, String> {
    if let Some(dialect) = schema.get("$schema") {
        let known = dialect.as_str().is_some_and(|uri| {
            let uri = uri.trim_end_matches('#');
            [
                "http://json-schema.org/draft-04/schema",
                "http://json-schema.org/draft-06/schema",
                "http://json-schema.org/draft-07/schema",
                "https://json-schema.org/draft/2019-09/schema",
                "https://json-schema.org/draft/2020-12/schema",
            ]
            .contains(&uri)
        });
        if !known {
            return Err(format!(
                "`$schema: {dialect}` names no JSON Schema draft this check knows (4, 6, 7, \
                 2019-09, 2020-12)"
            ));
        }
    }
    let validator = catch_unwind(AssertUnwindSafe(|| jsonschema::meta::validator_for(schema)))
        .map_err(|_| "the schema's dialect cannot be detected".to_owned())?
        .map_err(|e| format!("the schema's meta-schema cannot be loaded: {e}"))?;
    Ok(validator
        .iter_errors(schema)
        .map(|e| (e.instance_path().to_string(), e.to_string()))
        .collect())
}

/// A validator for `schema` (its own dialect), or why it cannot be built.
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    catch_unwind(AssertUnwindSafe(|| jsonschema::options().build(schema)))
        .map_err(|_| "the schema cannot be compiled".to_owned())?
        .map_err(|e| e.to_string())
}

fn collect_refs(value: &Value, pointer: String, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                out.push((pointer.clone(), reference.clone()));
            }
            for (key, child) in map {
                if DATA_KEYWORDS.contains(&key.as_str()) {
                    continue;
                }
                collect_refs(child, format!("{pointer}/{}", escape(key)), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                collect_refs(child, format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The subschema `reference` names inside `root`: `#`, `#/json/pointer`, `#anchor`, or an
/// `$id` of a subschema (with an optional fragment). `None` when it points elsewhere.
pub fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let (base, fragment) = reference.split_once('#').unwrap_or((reference, ""));
    let document = if base.is_empty() {
        root
    } else {
        find(root, &|v| {
            v.get("$id").and_then(Value::as_str) == Some(base)
        })?
    };
    if fragment.is_empty() {
        Some(document)
    } else if fragment.starts_with('/') {
        document.pointer(&percent_decode(fragment))
    } else {
        find(document, &|v| {
            v.get("$anchor").and_then(Value::as_str) == Some(fragment)
        })
    }
}

fn find<'a>(value: &'a Value, matches: &dyn Fn(&Value) -> bool) -> Option<&'a Value> {
    if matches(value) {
        return Some(value);
    }
    match value {
        Value::Object(map) => map
            .iter()
            .filter(|(k, _)| !DATA_KEYWORDS.contains(&k.as_str()))
            .find_map(|(_, v)| find(v, matches)),
        Value::Array(items) => items.iter().find_map(|v| find(v, matches)),
        _ => None,
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
            if let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A JSON Pointer token for `key`.
pub fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// `schema` itself, or what its `$ref` names (followed up to 32 times).
pub fn deref<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..32 {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => match resolve(root, reference) {
                Some(target) => schema = target,
                None => break,
            },
            None => break,
        }
    }
    schema
}

/// The property names a schema declares: its own `properties` and those of every schema it
/// reaches through `$ref`, `allOf`, `anyOf` and `oneOf` (a name declared in any branch).
pub fn declared_properties(root: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut stack = vec![(root, 0usize)];
    while let Some((schema, depth)) = stack.pop() {
        if depth > 32 {
            continue;
        }
        let schema = deref(root, schema);
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            names.extend(properties.keys().cloned());
        }
        for keyword in ["allOf", "anyOf", "oneOf"] {
            if let Some(branches) = schema.get(keyword).and_then(Value::as_array) {
                stack.extend(branches.iter().map(|b| (b, depth + 1)));
            }
        }
    }
    names
}

/// The `type` of a schema when it names one (the first non-null one of a list).
pub fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(t) => Some(t),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .or_else(|| types.first().and_then(Value::as_str)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use mcp_result::serde_json::json;

    use super::*;

    #[test]
    fn refs_resolve_by_pointer_anchor_and_id() {
        let schema = json!({
            "$defs": {"A": {"type": "string", "$anchor": "a"}, "B~/": {"$id": "urn:b", "type": "integer"}},
            "properties": {
                "p": {"$ref": "#/$defs/A"}, "q": {"$ref": "#a"}, "r": {"$ref": "urn:b"},
                "s": {"$ref": "#/$defs/B~0~1"}, "t": {"$ref": "#/$defs/Missing"},
                "u": {"$ref": "https://example.com/x.json"}, "v": {"const": {"$ref": "#/nope"}}
            }
        });
        let unresolved: Vec<String> = check(&schema, "/outputSchema")
            .problems
            .into_iter()
            .filter(|p| p.0 == "schema-ref")
            .map(|p| p.1)
            .collect();
        assert_eq!(
            unresolved,
            [
                "/outputSchema/properties/t/$ref",
                "/outputSchema/properties/u/$ref"
            ]
        );
    }

    #[test]
    fn a_ref_the_validator_resolves_is_no_finding() {
        let schema = json!({
            "$id": "https://example.com/root.json",
            "$defs": {"item": {"$id": "https://example.com/item.json", "type": "string"}},
            "properties": {"x": {"$ref": "item.json"}}
        });
        let checked = check(&schema, "/outputSchema");
        assert!(checked.problems.is_empty(), "{:?}", checked.problems);
        assert!(checked.validator.is_some());
    }

    #[test]
    fn meta_validation_points_at_the_keyword() {
        let schema =
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": "zero"}}});
        let found = check(&schema, "/outputSchema").problems;
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "schema-dialect");
        assert_eq!(found[0].1, "/outputSchema/properties/n/minimum");
        let unknown = check(&json!({"$schema": "https://example.com/s"}), "/inputSchema").problems;
        assert_eq!(unknown[0].1, "/inputSchema/$schema");
    }

    #[test]
    fn declared_properties_follow_refs_and_branches() {
        let schema = json!({"type": "object", "anyOf": [{"$ref": "#/$defs/Ok"}, {"properties": {"status": {}}}],
            "$defs": {"Ok": {"properties": {"id": {}, "auditEventId": {}}}}});
        let names: Vec<String> = declared_properties(&schema).into_iter().collect();
        assert_eq!(names, ["auditEventId", "id", "status"]);
    }
}
