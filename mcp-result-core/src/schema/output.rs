//! A tool's `outputSchema`, typed and owned here in both directions: [`output_shape`] makes
//! a result type's success schema, [`ToolOutputSchema::write`] serves it (with the error
//! envelope and the wrap `_meta`), and [`ToolOutputSchema::read`] takes a served tool apart
//! again for the docs and the client view. Nothing else builds or splits this structure.

use std::sync::{Arc, LazyLock};

use rmcp::model::{JsonObject, MetaObject, Tool};
use schemars::JsonSchema;
use serde_json::Value;

use super::{
    cached,
    resolve::{union, Resolver},
    serialized_schema, Cache, RemoveKey,
};
use crate::wire::{
    envelope::ToolError,
    keys::{WRAP_META_KEY, WRAP_PROPERTY},
};

/// The `$defs` name a self-referencing result type's own schema moves to, so that its
/// `{"$ref": "#"}` keeps meaning the type once the schema is nested in a tool's
/// `outputSchema`. No Rust type can be named `Self`, so no user definition collides.
const SELF_DEF: &str = "Self";

/// A result type's `structuredContent` schema and whether the value is wrapped under
/// [`WRAP_PROPERTY`].
#[derive(Debug, Clone, PartialEq)]
pub struct OutputShape {
    /// The schema of `structuredContent`: object root, self-contained.
    pub schema: Arc<JsonObject>,
    /// `true` when the serialized value is not always an object and is wrapped.
    pub wrapped: bool,
}

/// The [`OutputShape`] of `T`, generated once per type and cached.
///
/// A schema that admits only objects (`type: "object"`, or `oneOf`/`anyOf` whose every
/// branch does, following `$ref`s: internally and adjacently tagged enums) is used as is,
/// with `"type": "object"` made explicit at the root. Anything else (primitives, arrays,
/// `Option`, `()`, externally tagged or untagged enums that can serialize to a string) is
/// wrapped: `{"type": "object", "properties": {"result": <schema>}, "required": ["result"]}`
/// with the definitions kept at the root. A type that refers to itself (`{"$ref": "#"}`)
/// has its own schema moved into `$defs` first, so every `$ref` keeps its meaning.
pub fn output_shape<T: JsonSchema + ?Sized + 'static>() -> Arc<OutputShape> {
    static CACHE: Cache<OutputShape> = LazyLock::new(Default::default);
    cached::<T, _>(&CACHE, || shape_of(&serialized_schema::<T>()))
}

pub(super) fn shape_of(raw: &JsonObject) -> OutputShape {
    // The root `title` is the Rust type name: noise to a client, and never the contract.
    let mut raw = raw.clone();
    raw.remove_key("title");
    let mut defs = match raw.remove_key("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => JsonObject::new(),
    };
    if refers_to_root(&Value::Object(raw.clone())) || defs.values().any(refers_to_root) {
        let mut own = Value::Object(std::mem::take(&mut raw));
        retarget_root_refs(&mut own);
        for def in defs.values_mut() {
            retarget_root_refs(def);
        }
        defs.insert(SELF_DEF.into(), own);
        raw.insert("$ref".into(), format!("#/$defs/{SELF_DEF}").into());
    }
    let mut probe = raw.clone();
    if !defs.is_empty() {
        probe.insert("$defs".into(), Value::Object(defs.clone()));
    }
    let probe = Value::Object(probe);
    let only_objects = Resolver::new(&probe).admits_only_objects(&probe);
    let mut schema = JsonObject::new();
    schema.insert("type".into(), "object".into());
    let wrapped = if only_objects {
        if raw.contains_key("$ref") {
            // Draft-07 ignores keywords beside a `$ref`: keep `type` meaningful in both.
            let reference = raw.remove_key("$ref").unwrap_or_default();
            raw.insert("allOf".into(), Value::Array(vec![ref_object(reference)]));
        }
        raw.remove_key("type");
        schema.extend(raw);
        false
    } else {
        let mut properties = JsonObject::new();
        properties.insert(WRAP_PROPERTY.into(), Value::Object(raw));
        schema.insert("properties".into(), Value::Object(properties));
        schema.insert("required".into(), Value::Array(vec![WRAP_PROPERTY.into()]));
        true
    };
    if !defs.is_empty() {
        schema.insert("$defs".into(), Value::Object(defs));
    }
    OutputShape {
        schema: Arc::new(schema),
        wrapped,
    }
}

/// The compiled validator of `T`'s `structuredContent` schema ([`output_shape`]), compiled
/// once per type; `Err` with the compiler's message when the schema does not compile.
pub fn output_validator<T: JsonSchema + ?Sized + 'static>(
) -> Arc<Result<jsonschema::Validator, String>> {
    static CACHE: Cache<Result<jsonschema::Validator, String>> = LazyLock::new(Default::default);
    cached::<T, _>(&CACHE, || {
        let schema = Value::Object((*output_shape::<T>().schema).clone());
        jsonschema::validator_for(&schema).map_err(|error| error.to_string())
    })
}

fn ref_object(reference: Value) -> Value {
    let mut object = JsonObject::new();
    object.insert("$ref".into(), reference);
    Value::Object(object)
}

fn refers_to_root(schema: &Value) -> bool {
    match schema {
        Value::Object(object) => object.iter().any(|(key, value)| {
            (key == "$ref" && value.as_str().is_some_and(is_root_ref)) || refers_to_root(value)
        }),
        Value::Array(items) => items.iter().any(refers_to_root),
        _ => false,
    }
}

/// `#`, or a pointer into the root that is not into `$defs` (`#/properties/x`).
fn is_root_ref(reference: &str) -> bool {
    reference == "#" || (reference.starts_with("#/") && !reference.starts_with("#/$defs/"))
}

fn retarget_root_refs(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            for (key, value) in object.iter_mut() {
                match value {
                    Value::String(reference) if key == "$ref" && is_root_ref(reference) => {
                        *reference = format!("#/$defs/{SELF_DEF}{}", &reference[1..]);
                    }
                    other => retarget_root_refs(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(retarget_root_refs),
        _ => {}
    }
}

/// The error envelope as every tool's `outputSchema` advertises it, in `tools/list`: the
/// lean form of the full schema of [`ToolError`]. Built once.
///
/// `{"properties": {"status": {"type": "string"}, "errorKind": {"type": "string"},
/// "retrySafe": {"type": "boolean"}, "message": {"type": "string"}}, "required": ["status",
/// "errorKind", "retrySafe", "message"]}` (188 bytes of compact JSON): the four fields every
/// envelope has, each with its JSON type; no `type` at its root, since it is a branch of an
/// `outputSchema` whose root says `"type": "object"`. It is in every tool of every
/// `tools/list`, so it says what a validator and a client that branches on `status` and
/// `errorKind` need, and no more: it sets no `additionalProperties`, so it accepts every
/// envelope the framework writes, `fieldErrors`, `retryAfterMs`, `auditEventId`,
/// `approvalRequestId` and the rest included. The full schema, every field and each
/// `status` and `errorKind` value described, is
/// [`serialized_schema::<ToolError>()`](serialized_schema); the tool docs (feature `docs`)
/// render it, and [`ToolOutputSchema::read`] gives it back for a listed tool.
pub fn advertised_envelope() -> Arc<JsonObject> {
    static ADVERTISED: LazyLock<Arc<JsonObject>> =
        LazyLock::new(|| Arc::new(advertise(&serialized_schema::<ToolError>())));
    ADVERTISED.clone()
}

/// The lean form of an envelope schema: its required properties, each with its JSON type
/// ([`json_type`]).
fn advertise(envelope: &JsonObject) -> JsonObject {
    let root = Value::Object(envelope.clone());
    let resolver = Resolver::new(&root);
    let (core, _) = resolver.deref(&root);
    let required: Vec<&str> = core
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut properties = JsonObject::new();
    for name in &required {
        let schema = core
            .get("properties")
            .and_then(|properties| properties.get(*name));
        let mut typed = JsonObject::new();
        if let Some(kind) = schema.and_then(|schema| json_type(&resolver, schema)) {
            typed.insert("type".into(), kind);
        }
        properties.insert((*name).to_owned(), Value::Object(typed));
    }
    // No `type`: the branch sits under the tool's root `type: "object"`.
    let mut lean = JsonObject::new();
    lean.insert("properties".into(), Value::Object(properties));
    lean.insert(
        "required".into(),
        Value::Array(required.into_iter().map(Value::from).collect()),
    );
    lean
}

/// The one JSON type an envelope property's schema allows: its `type` without `"null"`
/// (the envelope skips every absent field, it never writes `null`), or the type of its
/// values when it is an `enum` or a union of `const`s; `$ref`s followed.
fn json_type(resolver: &Resolver<'_>, schema: &Value) -> Option<Value> {
    let (schema, _) = resolver.non_null(schema);
    let values: Vec<Value> = match (schema.get("type"), union(schema)) {
        (Some(Value::String(kind)), _) => return Some(Value::String(kind.clone())),
        (Some(Value::Array(types)), _) => {
            let mut types = types.iter().filter(|t| *t != "null");
            return match (types.next(), types.next()) {
                (Some(only), None) => Some(only.clone()),
                _ => None,
            };
        }
        (_, Some(branches)) => branches
            .iter()
            .map(|branch| branch.get("const").cloned())
            .collect::<Option<_>>()?,
        _ => schema.get("enum")?.as_array()?.clone(),
    };
    let kind = |value: &Value| match value {
        Value::String(_) => "string",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::Null => "null",
    };
    let first = kind(values.first()?);
    values
        .iter()
        .all(|value| kind(value) == first)
        .then(|| Value::String(first.to_owned()))
}

/// A tool's `outputSchema` as mcp-result serves it, typed.
///
/// Served as `{"type": "object", "anyOf": [<success>, <envelope>], "$defs": {...}}`: real
/// clients validate the `structuredContent` of `isError` results against the advertised
/// `outputSchema` too (TypeScript SDK 1.x, MCP Inspector), so it must accept both; the root
/// stays `type: "object"` (MCP 2025-06-18 and 2025-11-25 require it). The envelope branch
/// is the lean [`advertised_envelope`] (188 bytes, in every tool), inline, so the
/// root `$defs` are the success type's alone. A wrapped result also gets `_meta:
/// {"io.github.mcp-result/wrapped": "result"}` on its `tools/list` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutputSchema {
    /// The schema of a success `structuredContent`: object root, self-contained.
    pub success: Arc<JsonObject>,
    /// The full schema of the error envelope (self-contained, every field and every kind
    /// described: [`serialized_schema::<ToolError>()`](serialized_schema)), which `tools/list`
    /// advertises in its lean form ([`advertised_envelope`]); `None` for a tool that was not
    /// served by mcp-result (its whole `outputSchema` is then `success`).
    pub envelope: Option<Arc<JsonObject>>,
    /// The property a non-object success value is wrapped under ([`WRAP_PROPERTY`]).
    pub wrapped: Option<String>,
}

impl ToolOutputSchema {
    /// The output schema of a tool whose success type has `shape`, with mcp-result's error
    /// envelope ([`ToolError`]).
    pub fn new(shape: &OutputShape) -> Self {
        Self {
            success: shape.schema.clone(),
            envelope: Some(serialized_schema::<ToolError>()),
            wrapped: shape.wrapped.then(|| WRAP_PROPERTY.to_owned()),
        }
    }

    /// The served `outputSchema` and the tool's `_meta` (the wrap key, when wrapped).
    pub fn to_served(&self) -> (JsonObject, Option<MetaObject>) {
        let mut success = (*self.success).clone();
        let defs = success.remove_key("$defs");
        let mut root = JsonObject::new();
        root.insert("type".into(), "object".into());
        match &self.envelope {
            Some(envelope) => {
                let advertised = if Arc::ptr_eq(envelope, &serialized_schema::<ToolError>()) {
                    (*advertised_envelope()).clone()
                } else {
                    advertise(envelope)
                };
                root.insert(
                    "anyOf".into(),
                    Value::Array(vec![Value::Object(success), Value::Object(advertised)]),
                );
            }
            None => {
                success.remove_key("type");
                root.extend(success);
            }
        }
        if let Some(defs) = defs {
            root.insert("$defs".into(), defs);
        }
        let meta = self.wrapped.as_ref().map(|property| {
            let mut meta = MetaObject::default();
            meta.0
                .insert(WRAP_META_KEY.into(), Value::String(property.clone()));
            meta
        });
        (root, meta)
    }

    /// `tool` with this `outputSchema` and its `_meta` set (see [`Self::to_served`]).
    pub fn write(&self, tool: Tool) -> Tool {
        let (schema, meta) = self.to_served();
        let mut tool = tool.with_raw_output_schema(Arc::new(schema));
        if let Some(meta) = meta {
            tool = tool.with_meta(meta);
        }
        tool
    }

    /// Reads a served tool's output schema back: the inverse of [`Self::write`] for tools
    /// mcp-result served (an `anyOf` of the success schema and [`advertised_envelope`],
    /// which reads back as the full envelope, descriptions included), and the whole schema
    /// as `success` (no envelope) for any other: another server's, or one whose envelope
    /// branch is not this version's. `None` when the tool advertises no `outputSchema`.
    pub fn read(tool: &Tool) -> Option<Self> {
        let root = tool.output_schema.as_ref()?;
        let wrapped = tool
            .meta
            .as_ref()
            .and_then(|meta| meta.0.get(WRAP_META_KEY))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let served = match root
            .get("anyOf")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            Some([Value::Object(success), Value::Object(envelope)])
                if *envelope == *advertised_envelope() =>
            {
                Some(success.clone())
            }
            _ => None,
        };
        Some(match served {
            Some(mut success) => {
                if let Some(defs) = root.get("$defs") {
                    success.insert("$defs".into(), defs.clone());
                }
                Self {
                    success: Arc::new(success),
                    envelope: Some(serialized_schema::<ToolError>()),
                    wrapped,
                }
            }
            None => Self {
                success: root.clone(),
                envelope: None,
                wrapped,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde_json::json;

    use super::*;

    fn shape(value: Value) -> OutputShape {
        shape_of(value.as_object().unwrap())
    }

    #[test]
    fn object_only_schemas_are_not_wrapped_and_others_are() {
        assert!(!shape(json!({"type": "object", "properties": {}})).wrapped);
        let tagged = shape(json!({"oneOf": [{"$ref": "#/$defs/A"}, {"type": "object"}],
            "$defs": {"A": {"type": "object"}}}));
        assert!(!tagged.wrapped);
        assert_eq!(tagged.schema["type"], "object");
        for other in [
            json!({"type": "string"}),
            json!({"type": ["object", "null"]}),
            json!({"anyOf": [{"type": "object"}, {"type": "null"}]}),
            json!({"oneOf": [{"type": "string", "enum": ["A"]}, {"type": "object"}]}),
            json!({}),
        ] {
            let shape = shape(other.clone());
            assert!(shape.wrapped, "{other}");
            assert_eq!(shape.schema["required"], json!(["result"]));
        }
    }

    #[test]
    fn a_self_reference_keeps_meaning_the_type() {
        let node = shape(json!({"type": "object", "properties": {
            "child": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}}}));
        assert_eq!(
            Value::Object((*node.schema).clone()),
            json!({"type": "object", "allOf": [{"$ref": "#/$defs/Self"}], "$defs": {"Self": {
                "type": "object", "properties": {
                    "child": {"anyOf": [{"$ref": "#/$defs/Self"}, {"type": "null"}]}}}}})
        );
    }

    #[test]
    fn served_schemas_read_back_to_what_was_written() {
        let written = ToolOutputSchema::new(&shape(json!({"type": "string"})));
        let tool = written.write(Tool::new(
            Cow::Borrowed("t"),
            Cow::Borrowed("d"),
            Arc::new(JsonObject::new()),
        ));
        let read = ToolOutputSchema::read(&tool).unwrap();
        assert_eq!(read, written);
        // The full envelope reads back, with every kind's description.
        assert!(
            read.envelope.unwrap()["$defs"]["mcp-result.ErrorKind"]["oneOf"][0]
                .get("description")
                .is_some()
        );
        // A foreign schema is all success.
        let foreign = Tool::new(
            Cow::Borrowed("f"),
            Cow::Borrowed("d"),
            Arc::new(JsonObject::new()),
        )
        .with_raw_output_schema(Arc::new(
            json!({"type": "object", "anyOf": [{}, {}]})
                .as_object()
                .unwrap()
                .clone(),
        ));
        let read = ToolOutputSchema::read(&foreign).unwrap();
        assert!(read.envelope.is_none());
    }

    #[test]
    fn the_advertised_envelope_is_lean() {
        let advertised = Value::Object((*advertised_envelope()).clone());
        assert_eq!(
            advertised,
            json!({"properties": {
                "status": {"type": "string"},
                "errorKind": {"type": "string"},
                "retrySafe": {"type": "boolean"},
                "message": {"type": "string"}},
                "required": ["status", "errorKind", "retrySafe", "message"]})
        );
        assert_eq!(serde_json::to_string(&advertised).unwrap().len(), 188);
        // Every advertised property is one the envelope has, of the type the full one says.
        let full = serialized_schema::<ToolError>();
        for name in advertised["properties"].as_object().unwrap().keys() {
            assert!(full["properties"].get(name).is_some(), "{name}");
        }
    }

    #[test]
    fn every_envelope_the_framework_writes_fits_the_advertised_one() {
        use std::time::Duration;

        use crate::wire::{envelope::FieldError, status::AuditEventId};
        let mut advertised = (*advertised_envelope()).clone();
        advertised.insert("type".into(), "object".into());
        let validator = jsonschema::validator_for(&Value::Object(advertised)).unwrap();
        let second = Duration::from_secs(1);
        let errors = [
            ToolError::validation(vec![FieldError::new("/a", "x"), FieldError::new("", "y")]),
            ToolError::upstream_timeout(second, false),
            ToolError::upstream_unavailable("down", true),
            ToolError::permission_denied("tickets:write"),
            ToolError::unauthenticated(),
            ToolError::quota_exceeded("too many", "Wait."),
            ToolError::policy_blocked("locked"),
            ToolError::not_found("no"),
            ToolError::conflict("no"),
            ToolError::internal("c-1"),
            ToolError::write_timeout(second, true),
            ToolError::in_progress(second),
            ToolError::outcome_unknown(),
            ToolError::idempotency_key_reused(),
            ToolError::approval_required("a-1", "close T-1")
                .with_audit_event_id(AuditEventId::new("e-1")),
            ToolError::not_found("no ticket T-1")
                .with_audit_event_id(AuditEventId::new("e-2"))
                .with_external_id("ledger-42"),
        ];
        for error in errors {
            let value = serde_json::to_value(&error).unwrap();
            assert!(validator.is_valid(&value), "{value}");
            assert!(
                !value.as_object().unwrap().values().any(Value::is_null),
                "{value}"
            );
        }
    }
}
