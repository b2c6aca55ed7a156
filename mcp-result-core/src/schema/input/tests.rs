//! The portable input profile's own tests.

use serde_json::json;

use super::*;

fn portable(schema: Value) -> Value {
    Value::Object(portable_input(schema.as_object().unwrap()).unwrap())
}

#[test]
fn nullable_refs_are_inlined_and_lose_their_null() {
    let full = json!({"title": "Args", "type": "object", "properties": {
        "sev": {"description": "Minimum.", "anyOf": [{"$ref": "#/$defs/Sev"}, {"type": "null"}], "default": null},
        "limit": {"type": ["integer", "null"], "minimum": 1, "default": null}},
        "$defs": {"Sev": {"description": "How bad.", "oneOf": [
            {"type": "string", "const": "low", "description": "Minor."},
            {"type": "string", "const": "high"}]}}});
    assert_eq!(
        portable(full),
        json!({"type": "object", "properties": {
            "sev": {"type": "string", "enum": ["low", "high"],
                "description": "Minimum.\n\nHow bad.\n\n- `low`: Minor.\n- `high`"},
            "limit": {"type": "integer", "minimum": 1}}})
    );
}

#[test]
fn recursive_definitions_keep_their_ref() {
    let full = json!({"type": "object", "properties": {"tree": {"$ref": "#/$defs/Node"}},
        "$defs": {"Node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            "leaf": {"anyOf": [{"$ref": "#/$defs/Leaf"}, {"type": "null"}]}}},
            "Leaf": {"type": "boolean"}}});
    assert_eq!(
        portable(full),
        json!({"type": "object", "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                "leaf": {"type": "boolean"}}}}})
    );
}

#[test]
fn maps_booleans_and_consts() {
    let full = json!({"type": "object", "properties": {
        "byId": {"type": "object", "additionalProperties": false,
            "patternProperties": {"^\\d+$": {"type": "string"}}},
        "any": true,
        "kind": {"const": "fixed"}}});
    assert_eq!(
        portable(full),
        json!({"type": "object", "properties": {
            "byId": {"type": "object", "additionalProperties": {"type": "string"},
                "description": "Keys match `^\\d+$`."},
            "any": {},
            "kind": {"enum": ["fixed"]}}})
    );
}

#[test]
fn a_root_composition_is_refused_with_the_type_name() {
    let full = json!({"title": "Archive", "type": "object",
        "properties": {"reason": {"type": "string"}},
        "oneOf": [{"properties": {"kind": {"const": "a"}}}, {"properties": {"kind": {"const": "b"}, "x": {"type": "string"}}}]});
    let error = portable_input(full.as_object().unwrap()).unwrap_err();
    assert_eq!(error.keyword, "oneOf");
    assert!(error
        .to_string()
        .starts_with("the arguments type `Archive` has `oneOf`"));
}
