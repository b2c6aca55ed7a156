//! A tool's arguments, from the `tools/call` request to the Rust type: validated against
//! the `inputSchema` (every failing field at once), integral numbers normalized, then
//! deserialized with the failing field's JSON Pointer. Error text never echoes a caller's
//! value wholesale: values are cut to a short prefix and their length
//! ([`crate::wire::text::echo`]), and the value of a secret field (`writeOnly` in the
//! schema: [`crate::Secret`]) is never echoed at all.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{
    schema::Resolver,
    wire::{
        envelope::{FieldError, ToolError},
        text,
    },
};

/// At most this many field errors are reported for one call (the rest are counted).
pub(crate) const MAX_FIELD_ERRORS: usize = 20;

/// The compiled `inputSchema` of one tool.
pub struct ArgumentSchema {
    schema: Value,
    validator: jsonschema::Validator,
    /// Some schema in it is `writeOnly` (a secret): only then are pointers resolved.
    has_secrets: bool,
    /// The arguments type is `Option<Args>`: no arguments (`{}`) are `None`.
    empty_means_none: bool,
}

impl std::fmt::Debug for ArgumentSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArgumentSchema")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl ArgumentSchema {
    /// Compiles `schema`.
    ///
    /// # Errors
    /// When the schema does not compile (an invalid `pattern` from `#[schemars(regex(...))]`
    /// or `#[validate(regex(...))]`): where in the schema, the validator's message, and the
    /// fix.
    pub fn new(schema: Value) -> Result<Self, String> {
        let validator = jsonschema::validator_for(&schema).map_err(|e| {
            let at = e.instance_path().as_str().to_owned();
            let keyword = at.rsplit('/').next().unwrap_or_default().to_owned();
            let fix = if keyword == "pattern" {
                "a `pattern` must be a regular expression in the ECMA-262 dialect JSON \
                 Schema uses (MCP clients compile it with JavaScript's `RegExp`): fix the \
                 `#[schemars(regex(pattern = ...))]` or `#[validate(regex(...))]` of that field"
            } else {
                "fix the schema attribute of that field"
            };
            format!("its inputSchema does not compile: `{at}`: {e}; {fix}")
        })?;
        let has_secrets = any_write_only(&schema);
        let empty_means_none = crate::schema::input::root::empty_means_none(&schema);
        Ok(Self {
            schema,
            validator,
            has_secrets,
            empty_means_none,
        })
    }

    /// Whether any schema in it is `writeOnly` (so some argument may be a secret). `false`
    /// lets callers skip the per-field [`Self::is_secret`] walk.
    pub fn has_secrets(&self) -> bool {
        self.has_secrets
    }

    /// Every schema violation of `arguments` (at most [`MAX_FIELD_ERRORS`]), as field errors
    /// with JSON Pointers to the field (for a missing required property: the pointer of the
    /// property itself), and how many there were in all.
    pub fn errors(&self, arguments: &Value) -> (Vec<FieldError>, usize) {
        // Valid arguments, the usual case, are checked without building errors.
        if self.validator.is_valid(arguments) {
            return (Vec::new(), 0);
        }
        let mut fields = Vec::new();
        let mut total = 0;
        for error in self.validator.iter_errors(arguments) {
            total += 1;
            if fields.len() == MAX_FIELD_ERRORS {
                continue;
            }
            let mut pointer = error.instance_path().as_str().to_owned();
            if let jsonschema::error::ValidationErrorKind::Required { property } = error.kind() {
                if let Value::String(name) = property {
                    pointer.push('/');
                    pointer.push_str(&crate::wire::pointer::escape(name));
                }
                fields.push(FieldError::new(
                    text::escaped(&pointer),
                    "required field is missing",
                ));
                continue;
            }
            let instance = error.instance();
            let message = error.to_string();
            let shown = if self.has_secrets && self.is_secret(&pointer) {
                "the value".to_owned()
            } else {
                text::echo(instance)
            };
            let message = message.replacen(&instance.to_string(), &shown, 1);
            fields.push(FieldError::new(
                text::escaped(&pointer),
                text::cap_message(&message),
            ));
        }
        (fields, total)
    }

    /// Whether the value at `pointer` is a secret: some schema on the way to it, or it
    /// itself, is `writeOnly` (what [`crate::Secret`]'s schema says).
    pub fn is_secret(&self, pointer: &str) -> bool {
        let resolver = Resolver::new(&self.schema);
        let write_only = |schema: &Value| schema.get("writeOnly") == Some(&Value::Bool(true));
        let mut schema = &self.schema;
        let segments = pointer.split('/').skip(1);
        for segment in segments {
            let (core, _) = resolver.non_null(schema);
            if write_only(schema) || write_only(core) {
                return true;
            }
            let key = crate::wire::pointer::unescape(segment);
            let next = core
                .get("properties")
                .and_then(|p| p.get(&key))
                .or_else(|| core.get("items").filter(|_| key.parse::<usize>().is_ok()))
                .or_else(|| core.get("additionalProperties").filter(|v| v.is_object()));
            match next {
                Some(next) => schema = next,
                None => return false,
            }
        }
        write_only(schema) || write_only(resolver.non_null(schema).0)
    }

    /// The JSON Pointers of `arguments`' properties no schema declares (the first
    /// [`MAX_FIELD_ERRORS`] met, sorted; and how many there were in all), but those `top_level_added`
    /// says the framework adds: a property of an object whose schema lists `properties`
    /// without naming it and has no `additionalProperties` or `patternProperties` (a map,
    /// or a type that keeps what it does not name, admits it); followed into declared properties and array items. Where the schema is a union
    /// (an enum of objects, say) nothing under it is judged: which branch a value takes is
    /// the type's to say.
    ///
    /// JSON Schema admits such properties and serde ignores them, so a tool never reads
    /// them: what a gated write's approver is shown must not list them either.
    pub fn undeclared(
        &self,
        arguments: &Value,
        top_level_added: impl Fn(&str) -> bool,
    ) -> (Vec<String>, usize) {
        let resolver = Resolver::new(&self.schema);
        let mut found = (Vec::new(), 0);
        let mut pointer = String::new();
        undeclared_in(
            &resolver,
            &self.schema,
            arguments,
            &mut pointer,
            &top_level_added,
            0,
            &mut found,
        );
        found.0.sort();
        found
    }

    /// Deserializes validated `arguments` into `T`.
    ///
    /// # Errors
    /// A `validation_error` naming the field serde rejected (its JSON Pointer), for values
    /// the `inputSchema` accepted but the type did not; a secret field's value is not echoed.
    pub fn deserialize<T: DeserializeOwned>(&self, arguments: Value) -> Result<T, ToolError> {
        let arguments = match arguments {
            Value::Object(map) if map.is_empty() && self.empty_means_none => Value::Null,
            other => other,
        };
        deserialize_with(arguments, |pointer| self.is_secret(pointer))
    }
}

/// Deserializes `arguments` into `T`, turning a serde error into a `validation_error` at the
/// failing field's JSON Pointer (`serde_path_to_error`); `is_secret` says which pointers
/// must not be echoed.
///
/// # Errors
/// As [`ArgumentSchema::deserialize`].
pub(crate) fn deserialize_with<T: DeserializeOwned>(
    mut arguments: Value,
    is_secret: impl Fn(&str) -> bool,
) -> Result<T, ToolError> {
    normalize_integers(&mut arguments);
    // Read first from the borrowed value, without tracking the path (which every field of
    // every call would pay for): the arguments passed their schema, so this almost always
    // succeeds. A failure is read again, tracking the path, for its pointer and message.
    if let Ok(value) = T::deserialize(&arguments) {
        return Ok(value);
    }
    serde_path_to_error::deserialize(arguments).map_err(|error| {
        let pointer = pointer_of(error.path());
        let message = if is_secret(&pointer) {
            "has an invalid value".to_owned()
        } else {
            text::cap_message(&error.inner().to_string())
        };
        ToolError::validation(vec![FieldError::new(text::escaped(&pointer), message)])
    })
}

/// Rewrites every number written with a zero fraction (`100000.0`) that fits an `i64` or
/// `u64` as that integer: JSON Schema counts it as an integer, and so must serde.
pub(crate) fn normalize_integers(value: &mut Value) {
    match value {
        Value::Number(number) if number.is_f64() => {
            if let Some(float) = number.as_f64() {
                if float.fract() == 0.0 {
                    if (0.0..18_446_744_073_709_551_616.0).contains(&float) {
                        *value = Value::from(float as u64);
                    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&float) {
                        *value = Value::from(float as i64);
                    }
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_integers),
        Value::Object(map) => map.values_mut().for_each(normalize_integers),
        _ => {}
    }
}

fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => {
                pointer.push('/');
                pointer.push_str(&index.to_string());
            }
            Segment::Map { key } | Segment::Enum { variant: key } => {
                pointer.push('/');
                pointer.push_str(&crate::wire::pointer::escape(key));
            }
            Segment::Unknown => {}
        }
    }
    pointer
}

/// [`ArgumentSchema::undeclared`] under `value`, at `pointer`, whose schema is `schema`,
/// `depth` levels down (a walk stops at [`crate::schema::resolve::MAX_DEPTH`]).
fn undeclared_in(
    resolver: &Resolver<'_>,
    schema: &Value,
    value: &Value,
    pointer: &mut String,
    added: &dyn Fn(&str) -> bool,
    depth: usize,
    found: &mut (Vec<String>, usize),
) {
    if depth > crate::schema::resolve::MAX_DEPTH {
        return;
    }
    let (core, _) = resolver.non_null(schema);
    match value {
        Value::Object(object) => {
            let Some(properties) = core.get("properties").and_then(Value::as_object) else {
                return;
            };
            let open = core.get("patternProperties").is_some()
                || core
                    .get("additionalProperties")
                    .is_some_and(|more| more != &Value::Bool(false));
            for (name, item) in object {
                let at = pointer.len();
                pointer.push('/');
                pointer.push_str(&crate::wire::pointer::escape(name));
                match properties.get(name) {
                    Some(declared) => {
                        undeclared_in(resolver, declared, item, pointer, added, depth + 1, found);
                    }
                    None if open || (depth == 0 && added(name)) => {}
                    None => {
                        found.1 += 1;
                        if found.0.len() < MAX_FIELD_ERRORS {
                            found.0.push(text::escaped(pointer));
                        }
                    }
                }
                pointer.truncate(at);
            }
        }
        Value::Array(items) => {
            let Some(item_schema) = core.get("items").filter(|s| s.is_object()) else {
                return;
            };
            for (index, item) in items.iter().enumerate() {
                let at = pointer.len();
                pointer.push_str(&format!("/{index}"));
                undeclared_in(
                    resolver,
                    item_schema,
                    item,
                    pointer,
                    added,
                    depth + 1,
                    found,
                );
                pointer.truncate(at);
            }
        }
        _ => {}
    }
}

/// Whether `schema` has `"writeOnly": true` anywhere.
fn any_write_only(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            map.get("writeOnly") == Some(&Value::Bool(true)) || map.values().any(any_write_only)
        }
        Value::Array(items) => items.iter().any(any_write_only),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn integral_numbers_become_integers() {
        let mut value = json!({"rows": 100000.0, "ratio": 0.5, "list": [-3.0]});
        normalize_integers(&mut value);
        assert_eq!(value, json!({"rows": 100000, "ratio": 0.5, "list": [-3]}));
    }

    #[test]
    fn secrets_are_found_through_refs_and_arrays() {
        let schema = ArgumentSchema::new(json!({"type": "object", "properties": {
            "token": {"type": "string", "writeOnly": true},
            "logins": {"type": "array", "items": {"$ref": "#/$defs/Login"}}},
            "$defs": {"Login": {"type": "object", "properties": {
                "password": {"writeOnly": true, "type": "string"}}}}}))
        .unwrap();
        assert!(schema.is_secret("/token"));
        assert!(schema.is_secret("/logins/3/password"));
        assert!(!schema.is_secret("/logins/3"));
        assert!(!schema.is_secret("/other"));
    }

    #[test]
    fn undeclared_properties_are_found_through_refs_options_and_arrays() {
        let schema = ArgumentSchema::new(json!({"type": "object", "properties": {
            "relations": {"type": "array", "items": {"$ref": "#/$defs/Relation"}},
            "target": {"anyOf": [{"$ref": "#/$defs/Relation"}, {"type": "null"}]},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "either": {"oneOf": [{"$ref": "#/$defs/Relation"}, {"type": "string"}]}},
            "$defs": {"Relation": {"type": "object", "properties": {
                "from": {"type": "string"}, "to": {"type": "string"}}}}}))
        .unwrap();
        let arguments = json!({
            "relations": [{"from": "a", "to": "b"}, {"from": "a", "to": "b", "via": "c"}],
            "target": {"from": "a", "extra": 1},
            "labels": {"any": "name"},
            "either": {"from": "a", "unknown": true},
            "approvalRequestId": "r-1",
            "note": "x"
        });
        let (found, total) = schema.undeclared(&arguments, |name| name == "approvalRequestId");
        assert_eq!(found, ["/note", "/relations/1/via", "/target/extra"]);
        assert_eq!(total, 3);
        let (_, total) = schema.undeclared(&arguments, |_| false);
        assert_eq!(total, 4);
    }
}
