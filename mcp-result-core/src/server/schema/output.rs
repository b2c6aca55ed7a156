//! A tool's `outputSchema`, typed and owned here in both directions: [`output_shape`] makes
//! a result type's success schema, [`ToolOutputSchema::write`] serves it (with the error
//! envelope and the wrap `_meta`), and [`ToolOutputSchema::read`] takes a served tool apart
//! again for the docs and the client view. Nothing else builds or splits this structure.

use std::sync::{Arc, LazyLock};

use rmcp::model::{JsonObject, MetaObject, Tool};
use schemars::JsonSchema;
use serde_json::Value;

use super::{cached, resolve::Resolver, serialized_schema, Cache};
use crate::wire::{
    envelope::ToolError,
    keys::{ENVELOPE_DEF, WRAP_META_KEY, WRAP_PROPERTY},
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
    raw.shift_remove("title");
    let mut defs = match raw.shift_remove("$defs") {
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
            let reference = raw.shift_remove("$ref").unwrap_or_default();
            raw.insert("allOf".into(), Value::Array(vec![ref_object(reference)]));
        }
        raw.shift_remove("type");
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

/// A tool's `outputSchema` as mcp-result serves it, typed.
///
/// Served as `{"type": "object", "anyOf": [<success>, {"$ref": "#/$defs/mcp-result.ToolError"}],
/// "$defs": {...}}`: real clients validate the `structuredContent` of `isError` results
/// against the advertised `outputSchema` too (TypeScript SDK 1.x, MCP Inspector), so it
/// must accept both; the root stays `type: "object"` (MCP 2025-06-18 and 2025-11-25 require
/// it). A wrapped result also gets `_meta: {"io.github.mcp-result/wrapped": "result"}` on
/// its `tools/list` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutputSchema {
    /// The schema of a success `structuredContent`: object root, self-contained.
    pub success: Arc<JsonObject>,
    /// The schema of the error envelope (self-contained); `None` for a tool that was not
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
    ///
    /// # Errors
    /// When the success schema defines a `$defs` entry that the envelope defines too, with
    /// other content: the message names the definition. (The envelope's definitions are
    /// namespaced `mcp-result.*`, so only a `#[schemars(rename = "mcp-result.…")]` can.)
    pub fn to_served(&self) -> Result<(JsonObject, Option<MetaObject>), String> {
        let mut defs = JsonObject::new();
        let mut merge = |own: Option<&Value>| -> Result<(), String> {
            for (name, def) in own.and_then(Value::as_object).into_iter().flatten() {
                match defs.get(name) {
                    Some(existing) if existing != def => {
                        return Err(format!(
                            "two different types share the schema definition name `{name}`; \
                             rename one with `#[schemars(rename = \"...\")]`"
                        ));
                    }
                    Some(_) => {}
                    None => {
                        defs.insert(name.clone(), def.clone());
                    }
                }
            }
            Ok(())
        };
        let mut success = (*self.success).clone();
        merge(success.shift_remove("$defs").as_ref())?;
        let mut root = JsonObject::new();
        root.insert("type".into(), "object".into());
        match &self.envelope {
            Some(envelope) => {
                let mut envelope = (**envelope).clone();
                merge(envelope.shift_remove("$defs").as_ref())?;
                envelope.shift_remove("title");
                let mut single = JsonObject::new();
                single.insert(ENVELOPE_DEF.into(), Value::Object(envelope));
                merge(Some(&Value::Object(single)))?;
                let envelope_ref = ref_object(format!("#/$defs/{ENVELOPE_DEF}").into());
                root.insert(
                    "anyOf".into(),
                    Value::Array(vec![Value::Object(success), envelope_ref]),
                );
            }
            None => {
                success.shift_remove("type");
                root.extend(success);
            }
        }
        if !defs.is_empty() {
            root.insert("$defs".into(), Value::Object(defs));
        }
        let meta = self.wrapped.as_ref().map(|property| {
            let mut meta = MetaObject::default();
            meta.0
                .insert(WRAP_META_KEY.into(), Value::String(property.clone()));
            meta
        });
        Ok((root, meta))
    }

    /// `tool` with this `outputSchema` and its `_meta` set (see [`Self::to_served`]).
    ///
    /// # Errors
    /// As [`Self::to_served`].
    pub fn write(&self, tool: Tool) -> Result<Tool, String> {
        let (schema, meta) = self.to_served()?;
        let mut tool = tool.with_raw_output_schema(Arc::new(schema));
        if let Some(meta) = meta {
            tool = tool.with_meta(meta);
        }
        Ok(tool)
    }

    /// Reads a served tool's output schema back: the inverse of [`Self::write`] for tools
    /// mcp-result served, and the whole schema as `success` (no envelope) for any other.
    /// `None` when the tool advertises no `outputSchema`.
    pub fn read(tool: &Tool) -> Option<Self> {
        let root = tool.output_schema.as_ref()?;
        let wrapped = tool
            .meta
            .as_ref()
            .and_then(|meta| meta.0.get(WRAP_META_KEY))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let defs = root.get("$defs");
        let envelope_ref = format!("#/$defs/{ENVELOPE_DEF}");
        let served = match root.get("anyOf").and_then(Value::as_array) {
            Some(branches) if branches.len() == 2 => match (&branches[0], &branches[1]) {
                (Value::Object(success), Value::Object(envelope))
                    if envelope.get("$ref").and_then(Value::as_str)
                        == Some(envelope_ref.as_str()) =>
                {
                    defs.and_then(|d| d.get(ENVELOPE_DEF))
                        .and_then(Value::as_object)
                        .map(|envelope| (success.clone(), envelope.clone()))
                }
                _ => None,
            },
            _ => None,
        };
        let with_defs = |mut schema: JsonObject| {
            if let Some(defs) = defs {
                schema.insert("$defs".into(), defs.clone());
            }
            Arc::new(schema)
        };
        Some(match served {
            Some((success, envelope)) => Self {
                success: with_defs(success),
                envelope: Some(with_defs(envelope)),
                wrapped,
            },
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
        let tool = written
            .write(Tool::new(
                Cow::Borrowed("t"),
                Cow::Borrowed("d"),
                Arc::new(JsonObject::new()),
            ))
            .unwrap();
        let read = ToolOutputSchema::read(&tool).unwrap();
        assert_eq!(read.wrapped.as_deref(), Some("result"));
        assert_eq!(read.success["properties"], written.success["properties"]);
        assert!(read.envelope.unwrap()["properties"]
            .get("errorKind")
            .is_some());
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
    fn conflicting_definitions_are_reported() {
        let mut success = JsonObject::new();
        success.insert("$defs".into(), json!({ENVELOPE_DEF: {"type": "string"}}));
        let schema = ToolOutputSchema {
            success: Arc::new(success),
            envelope: Some(serialized_schema::<ToolError>()),
            wrapped: None,
        };
        let error = schema.to_served().unwrap_err();
        assert!(error.contains(ENVELOPE_DEF), "{error}");
    }
}
