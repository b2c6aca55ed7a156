//! The JSON Schema keywords whose values are schemas, and those that only annotate: one list
//! for every walker (the portable input profile, the host lint, `$ref` sibling checks).
//! Draft 2020-12 names plus the draft-07 forms a foreign server may send (`additionalItems`,
//! an `items` array); a walker dispatches on the value's type, so the superset is safe.

/// Keywords whose value is one schema.
pub(crate) const SCHEMA: &[&str] = &[
    "additionalProperties",
    "items",
    "additionalItems",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];

/// Keywords whose value is a list of schemas (`items` as an array: draft-07 tuples).
pub(crate) const SCHEMA_LIST: &[&str] = &["prefixItems", "allOf", "anyOf", "oneOf", "items"];

/// Keywords whose value maps names to schemas.
pub(crate) const SCHEMA_MAP: &[&str] = &["properties", "patternProperties", "dependentSchemas"];

/// Keywords that only annotate a schema: beside another schema (or a `$ref`) they change
/// nothing it accepts.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];
