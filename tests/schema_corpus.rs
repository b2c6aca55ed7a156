//! outputSchema fidelity: a corpus of return types covering every shape and every serde
//! attribute that changes the serialized form. For each type and each sample value:
//!
//! - the schema has an object root, is valid JSON Schema 2020-12, declares no `$schema`,
//!   uses no non-standard keyword or `format`, and every `$ref` resolves inside it;
//! - the `structuredContent` that `build_result` makes validates under a 2020-12 validator
//!   **and** a draft-07 validator (Ajv's default in many clients), and the JSON-compat text
//!   is byte-equal to it;
//! - the value is wrapped under `"result"` exactly when it is not a JSON object;
//! - in the tool `outputSchema` as served and read back ([`ToolOutputSchema`]), error
//!   envelopes fail the success branch (also nested where a child of the type belongs) and
//!   success values fail the envelope branch;
//! - random values of the corpus types (proptest) serialize to values their schema accepts.
//!
//! The schemas are committed under `tests/snapshots/schemas/`; a change shows in the diff.
//! Refresh them with `UPDATE_SNAPSHOTS=1 cargo test --features preserve-order --test
//! schema_corpus` and review.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use mcp_result::rmcp::model::Tool;
use mcp_result::schema::{output_shape, ToolOutputSchema};
use mcp_result::{build_result, AuditEventId, FieldError, Structured, ToolError, ToolResult};
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

// ----- named structs and serde attributes -------------------------------------------------

/// A plain struct.
#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct Plain {
    /// A count.
    count: u32,
    label: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct RenameAll {
    first_name: String,
    retry_after_ms: u64,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
struct RenameAllScreaming {
    max_value: i64,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct RenameField {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct RenameSerializeOnly {
    #[serde(rename(serialize = "out", deserialize = "in"))]
    value: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all(serialize = "kebab-case"))]
struct RenameAllSerializeOnly {
    dash_case: u8,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct Skips {
    kept: u8,
    #[serde(skip)]
    #[allow(dead_code)]
    skipped: String,
    #[serde(skip_serializing)]
    #[allow(dead_code)]
    never_written: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct ConditionalSkip {
    #[serde(skip_serializing_if = "Option::is_none")]
    maybe: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[mcp_result(bytes_as_numbers)]
    items: Vec<u8>,
    always: Option<u8>,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct Defaults {
    #[serde(default)]
    count: u32,
    #[serde(default = "default_name")]
    name: String,
}

fn default_name() -> String {
    "n".into()
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
struct Inner {
    a: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    b: Option<u8>,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct Flattened {
    id: String,
    #[serde(flatten)]
    inner: Inner,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct FlattenedMap {
    id: String,
    #[serde(flatten)]
    extra: BTreeMap<String, u32>,
}

fn as_string<S: serde::Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&value.to_string())
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct SerializeWith {
    #[serde(serialize_with = "as_string")]
    #[schemars(with = "String")]
    big: u64,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
#[serde(deny_unknown_fields)]
struct DenyUnknown {
    only: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct Nesting {
    plain: Plain,
    list: Vec<Inner>,
    deep: Option<Box<Nesting>>,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct Numbers {
    small: u8,
    signed: i32,
    big: i64,
    unsigned: u64,
    float: f64,
    single: f32,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct Collections {
    tags: Vec<String>,
    by_key: HashMap<String, u32>,
    sorted: BTreeMap<String, Vec<bool>>,
    pair: (u8, String),
    #[mcp_result(bytes_as_numbers)]
    fixed: [u8; 3],
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct Generic<T: Serialize + JsonSchema + 'static> {
    value: T,
    items: Vec<T>,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
#[serde(into = "Plain")]
struct IntoPlain {
    n: u32,
}

impl From<IntoPlain> for Plain {
    fn from(value: IntoPlain) -> Self {
        Plain {
            count: value.n,
            label: format!("#{}", value.n),
        }
    }
}

// ----- other struct shapes ----------------------------------------------------------------

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct Newtype(Vec<u32>);

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct NewtypeObject(Plain);

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct Tuple(u8, String, bool);

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
struct Unit;

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
#[serde(transparent)]
struct Transparent {
    inner: Vec<String>,
}

// ----- enums ------------------------------------------------------------------------------

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "lowercase")]
enum UnitOnly {
    Open,
    Closed,
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
enum External {
    Unit,
    Newtype(u32),
    Tuple(u8, u8),
    Struct { a: String },
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Internal {
    Created { id: String },
    Deleted { id: String, soft: bool },
    Noop,
    Wrapped(Inner),
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Unit,
    Num(i32),
    Pair(u8, u8),
    Named { x: f64 },
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
#[serde(untagged)]
enum Untagged {
    Object { a: u8 },
    Number(f64),
    Text(String),
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
#[serde(untagged)]
enum UntaggedObjects {
    A { a: u8 },
    B { b: String },
}

#[derive(Debug, Clone, Serialize, JsonSchema, ToolResult)]
enum RenamedVariants {
    #[serde(rename = "first-one")]
    First,
    #[serde(rename(serialize = "second_out"))]
    Second { v: u8 },
    #[serde(skip)]
    #[allow(dead_code)]
    Hidden,
}

// ----- the corpus -------------------------------------------------------------------------

struct Case {
    name: &'static str,
    schema: std::sync::Arc<serde_json::Map<String, Value>>,
    wrapped: bool,
    samples: Vec<(Value, mcp_result::rmcp::model::CallToolResult)>,
    /// The tool `outputSchema` of a tool returning the type, as served and read back.
    served: ToolOutputSchema,
}

fn case<T: ToolResult>(name: &'static str, samples: Vec<T>) -> Case {
    Case {
        name,
        schema: T::output_schema(),
        wrapped: T::is_wrapped(),
        samples: samples
            .iter()
            .map(|s| (serde_json::to_value(s).unwrap(), build_result(s)))
            .collect(),
        served: served::<T>(),
    }
}

/// The `outputSchema` a tool returning `T` serves (success and error envelope), written on
/// a `Tool` and read back the way the docs and the client view read it.
fn served<T: ToolResult>() -> ToolOutputSchema {
    let tool = Tool::new("corpus_tool", "", Arc::new(serde_json::Map::new()));
    let written = ToolOutputSchema::new(&output_shape::<T>()).write(tool);
    ToolOutputSchema::read(&written).expect("a written outputSchema reads back")
}

fn corpus() -> Vec<Case> {
    vec![
        case(
            "plain",
            vec![
                Plain {
                    count: 0,
                    label: String::new(),
                },
                Plain {
                    count: u32::MAX,
                    label: "ü".into(),
                },
            ],
        ),
        case(
            "rename_all",
            vec![RenameAll {
                first_name: "a".into(),
                retry_after_ms: MAX_SAFE as u64,
            }],
        ),
        case(
            "rename_all_screaming",
            vec![RenameAllScreaming {
                max_value: -MAX_SAFE,
            }],
        ),
        case("rename_field", vec![RenameField { kind: "x".into() }]),
        case(
            "rename_serialize_only",
            vec![RenameSerializeOnly { value: true }],
        ),
        case(
            "rename_all_serialize_only",
            vec![RenameAllSerializeOnly { dash_case: 1 }],
        ),
        case(
            "skips",
            vec![Skips {
                kept: 1,
                skipped: "s".into(),
                never_written: "n".into(),
            }],
        ),
        case(
            "conditional_skip",
            vec![
                ConditionalSkip {
                    maybe: None,
                    items: vec![],
                    always: None,
                },
                ConditionalSkip {
                    maybe: Some("m".into()),
                    items: vec![1],
                    always: Some(2),
                },
            ],
        ),
        case(
            "defaults",
            vec![Defaults {
                count: 0,
                name: default_name(),
            }],
        ),
        case(
            "flattened",
            vec![
                Flattened {
                    id: "i".into(),
                    inner: Inner { a: 1, b: None },
                },
                Flattened {
                    id: "i".into(),
                    inner: Inner { a: 1, b: Some(2) },
                },
            ],
        ),
        case(
            "flattened_map",
            vec![
                FlattenedMap {
                    id: "i".into(),
                    extra: BTreeMap::new(),
                },
                FlattenedMap {
                    id: "i".into(),
                    extra: BTreeMap::from([("k".into(), 1)]),
                },
            ],
        ),
        case("serialize_with", vec![SerializeWith { big: u64::MAX }]),
        case("deny_unknown", vec![DenyUnknown { only: false }]),
        case(
            "nesting",
            vec![
                Nesting {
                    plain: Plain {
                        count: 1,
                        label: "l".into(),
                    },
                    list: vec![],
                    deep: None,
                },
                Nesting {
                    plain: Plain {
                        count: 1,
                        label: "l".into(),
                    },
                    list: vec![Inner { a: 1, b: Some(2) }],
                    deep: Some(Box::new(Nesting {
                        plain: Plain {
                            count: 2,
                            label: "m".into(),
                        },
                        list: vec![],
                        deep: Some(Box::new(Nesting {
                            plain: Plain {
                                count: 3,
                                label: "n".into(),
                            },
                            list: vec![],
                            deep: None,
                        })),
                    })),
                },
            ],
        ),
        case(
            "numbers",
            vec![
                Numbers {
                    small: 0,
                    signed: i32::MIN,
                    big: MAX_SAFE,
                    unsigned: MAX_SAFE as u64,
                    float: -1.5e300,
                    single: f32::MAX,
                },
                Numbers {
                    small: u8::MAX,
                    signed: 0,
                    big: -MAX_SAFE,
                    unsigned: 0,
                    float: 0.0,
                    single: f32::MIN_POSITIVE,
                },
            ],
        ),
        case(
            "collections",
            vec![
                Collections {
                    tags: vec![],
                    by_key: HashMap::new(),
                    sorted: BTreeMap::new(),
                    pair: (0, String::new()),
                    fixed: [0; 3],
                },
                Collections {
                    tags: vec!["a".into()],
                    by_key: HashMap::from([("k".into(), 1)]),
                    sorted: BTreeMap::from([("s".into(), vec![true, false])]),
                    pair: (255, "x".into()),
                    fixed: [1, 2, 3],
                },
            ],
        ),
        case(
            "generic_u8",
            vec![Generic {
                value: 1u8,
                items: vec![2, 3],
            }],
        ),
        case(
            "generic_struct",
            vec![Generic {
                value: Inner { a: 1, b: None },
                items: vec![],
            }],
        ),
        case("into_plain", vec![IntoPlain { n: 7 }]),
        case("newtype", vec![Newtype(vec![]), Newtype(vec![1, 2])]),
        case(
            "newtype_object",
            vec![NewtypeObject(Plain {
                count: 1,
                label: "l".into(),
            })],
        ),
        case("tuple_struct", vec![Tuple(1, "a".into(), true)]),
        case("unit_struct", vec![Unit]),
        case(
            "transparent",
            vec![Transparent {
                inner: vec!["a".into()],
            }],
        ),
        case("unit_only_enum", vec![UnitOnly::Open, UnitOnly::Closed]),
        case(
            "external_enum",
            vec![
                External::Unit,
                External::Newtype(1),
                External::Tuple(1, 2),
                External::Struct { a: "a".into() },
            ],
        ),
        case(
            "internal_enum",
            vec![
                Internal::Created { id: "1".into() },
                Internal::Deleted {
                    id: "1".into(),
                    soft: true,
                },
                Internal::Noop,
                Internal::Wrapped(Inner { a: 1, b: Some(1) }),
            ],
        ),
        case(
            "adjacent_enum",
            vec![
                Adjacent::Unit,
                Adjacent::Num(-1),
                Adjacent::Pair(1, 2),
                Adjacent::Named { x: 0.5 },
            ],
        ),
        case(
            "untagged_enum",
            vec![
                Untagged::Object { a: 1 },
                Untagged::Number(1.5),
                Untagged::Text("t".into()),
            ],
        ),
        case(
            "untagged_objects",
            vec![
                UntaggedObjects::A { a: 1 },
                UntaggedObjects::B { b: "b".into() },
            ],
        ),
        case(
            "renamed_variants",
            vec![RenamedVariants::First, RenamedVariants::Second { v: 1 }],
        ),
        case("vec", vec![Vec::<u32>::new(), vec![1, 2, 3]]),
        case(
            "vec_of_structs",
            vec![vec![Plain {
                count: 1,
                label: "x".into(),
            }]],
        ),
        case("array", vec![[1u8, 2, 3]]),
        case("tuple", vec![(1u8, "a".to_owned()), (0, String::new())]),
        case("triple", vec![(true, 1.5f64, vec![1u8])]),
        case(
            "btree_map",
            vec![
                BTreeMap::<String, u32>::new(),
                BTreeMap::from([("a".to_owned(), 1)]),
            ],
        ),
        case(
            "hash_map",
            vec![HashMap::from([("a".to_owned(), vec![1u8])])],
        ),
        case(
            "option_struct",
            vec![
                None,
                Some(Plain {
                    count: 1,
                    label: "x".into(),
                }),
            ],
        ),
        case("option_number", vec![None, Some(1u32)]),
        case("string", vec![String::new(), "text".to_owned()]),
        case("bool", vec![true, false]),
        case("integer", vec![-MAX_SAFE, 0, MAX_SAFE]),
        case("unsigned", vec![MAX_SAFE as u64, 0]),
        case("float", vec![f64::MIN, 0.0, f64::MAX]),
        case("unit", vec![()]),
        case(
            "json_value",
            vec![json!(null), json!({"any": [1, "x"]}), json!(3)],
        ),
        case(
            "structured_ip",
            vec![Structured("127.0.0.1".parse::<std::net::IpAddr>().unwrap())],
        ),
        case(
            "structured_duration",
            vec![Structured(std::time::Duration::from_millis(1500))],
        ),
        case(
            "boxed",
            vec![Box::new(Plain {
                count: 1,
                label: "b".into(),
            })],
        ),
    ]
}

fn refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                if k == "$ref" {
                    out.push(v.as_str().unwrap().to_owned());
                }
                refs(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

fn keyword_present(value: &Value, key: &str) -> bool {
    match value {
        Value::Object(map) => {
            map.contains_key(key) || map.values().any(|v| keyword_present(v, key))
        }
        Value::Array(items) => items.iter().any(|v| keyword_present(v, key)),
        _ => false,
    }
}

#[test]
fn corpus_has_at_least_forty_types() {
    assert!(corpus().len() >= 40, "{}", corpus().len());
}

#[test]
fn every_schema_is_a_portable_self_contained_object_schema() {
    for case in corpus() {
        let schema = Value::Object((*case.schema).clone());
        let name = case.name;
        assert_eq!(schema["type"], "object", "{name}: root");
        jsonschema::draft202012::meta::validate(&schema)
            .unwrap_or_else(|e| panic!("{name}: not valid 2020-12: {e}"));
        assert!(schema.get("$schema").is_none(), "{name}: $schema");
        assert!(!keyword_present(&schema, "nullable"), "{name}: nullable");
        let text = schema.to_string();
        for format in [
            "uint", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float", "double",
        ] {
            assert!(
                !text.contains(&format!("\"format\":\"{format}\"")),
                "{name}: format {format}"
            );
        }
        let mut found = Vec::new();
        refs(&schema, &mut found);
        for reference in found {
            assert!(
                schema.pointer(reference.trim_start_matches('#')).is_some(),
                "{name}: unresolved {reference}"
            );
        }
    }
}

#[test]
fn every_sample_validates_under_2020_12_and_draft_07() {
    for case in corpus() {
        let schema = Value::Object((*case.schema).clone());
        let modern = jsonschema::draft202012::new(&schema).unwrap();
        let draft7 = jsonschema::draft7::new(&schema).unwrap();
        for (raw, result) in &case.samples {
            let name = case.name;
            let structured = result.structured_content.clone().unwrap();
            assert_eq!(result.is_error, Some(false), "{name}: {raw}");
            let errors: Vec<String> = modern
                .iter_errors(&structured)
                .map(|e| e.to_string())
                .collect();
            assert!(
                errors.is_empty(),
                "{name}: {structured} fails 2020-12: {errors:?}"
            );
            let errors: Vec<String> = draft7
                .iter_errors(&structured)
                .map(|e| e.to_string())
                .collect();
            assert!(
                errors.is_empty(),
                "{name}: {structured} fails draft-07: {errors:?}"
            );
            let compat = result.content[1].as_text().unwrap().text.clone();
            assert_eq!(
                compat,
                serde_json::to_string(&structured).unwrap(),
                "{name}"
            );
            // Wrapped exactly when the value is not an object; never otherwise changed.
            if case.wrapped {
                assert_eq!(structured, json!({"result": raw}), "{name}");
            } else {
                assert!(
                    raw.is_object(),
                    "{name}: an unwrapped type serialized {raw}"
                );
                assert_eq!(&structured, raw, "{name}");
            }
        }
    }
}

#[test]
fn objects_are_not_wrapped_and_everything_else_is() {
    let wrapped: Vec<&str> = corpus()
        .iter()
        .filter(|c| c.wrapped)
        .map(|c| c.name)
        .collect();
    assert_eq!(
        wrapped,
        [
            "newtype",
            "tuple_struct",
            "unit_struct",
            "transparent",
            "unit_only_enum",
            "external_enum",
            "untagged_enum",
            "renamed_variants",
            "vec",
            "vec_of_structs",
            "array",
            "tuple",
            "triple",
            "option_struct",
            "option_number",
            "string",
            "bool",
            "integer",
            "unsigned",
            "float",
            "unit",
            "json_value",
            "structured_ip",
        ]
    );
}

/// The one documented difference between the validators: 2020-12 checks tuple positions
/// with `prefixItems`, a keyword draft-07 does not know, so a draft-07 validator accepts a
/// wrong tuple that 2020-12 rejects. Every value the server produces passes both (above).
#[test]
fn draft_07_does_not_check_tuple_positions() {
    let schema = Value::Object((*<(u8, String)>::output_schema()).clone());
    let wrong = json!({"result": ["not a number", 1]});
    assert!(!jsonschema::draft202012::new(&schema)
        .unwrap()
        .is_valid(&wrong));
    assert!(jsonschema::draft7::new(&schema).unwrap().is_valid(&wrong));
}

/// Draft-07 ignores keywords beside a `$ref`; the schemas move such `$ref`s into `allOf`,
/// so both drafts reject what the schema rules out (here: an unknown tag on the variant
/// that reuses `Inner`'s definition).
#[test]
fn draft_07_checks_keywords_beside_refs() {
    let schema = Value::Object((*Internal::output_schema()).clone());
    let wrong = json!({"kind": "bogus", "a": 1});
    assert!(!jsonschema::draft202012::new(&schema)
        .unwrap()
        .is_valid(&wrong));
    assert!(!jsonschema::draft7::new(&schema).unwrap().is_valid(&wrong));
    let right = json!({"kind": "wrapped", "a": 1});
    assert!(jsonschema::draft7::new(&schema).unwrap().is_valid(&right));
}

#[test]
fn schemas_match_the_committed_snapshots() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/schemas");
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut stale = Vec::new();
    for case in corpus() {
        let path = dir.join(format!("{}.json", case.name));
        let rendered = serde_json::to_string_pretty(&*case.schema).unwrap() + "\n";
        if update {
            std::fs::write(&path, &rendered).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(rendered.as_str()) {
            stale.push(case.name);
        }
    }
    assert!(
        stale.is_empty(),
        "schemas changed for {stale:?}: review, then refresh with \
         `UPDATE_SNAPSHOTS=1 cargo test --features preserve-order --test suite -- schema_corpus::`"
    );
}

#[test]
fn wrapped_tools_say_so_in_their_meta() {
    assert!(<Vec<u8>>::is_wrapped() && !Plain::is_wrapped());
    assert_eq!(mcp_result::keys::WRAP_PROPERTY, "result");
    assert_eq!(
        mcp_result::keys::WRAP_META_KEY,
        "io.github.mcp-result/wrapped"
    );
}

// ----- success and error branches of the served outputSchema (issue 15, item 4) -----------

/// Error envelopes as a tool sends them: every kind, with and without the optional keys.
fn envelope_samples() -> Vec<Value> {
    [
        ToolError::not_found("no ticket T-1"),
        ToolError::conflict("ticket T-1 is closed"),
        ToolError::validation(vec![FieldError::new("/ticketId", "must not be empty")]),
        ToolError::validation_of(
            vec![
                FieldError::new("/a", "too long"),
                FieldError::new("/b/0", "not an integer"),
            ],
            3,
        ),
        ToolError::upstream_timeout(Duration::from_millis(500), true),
        ToolError::upstream_unavailable("crm is down", false),
        ToolError::permission_denied("tickets:write"),
        ToolError::policy_blocked("refunds over 500 EUR need a human"),
        ToolError::internal("0190a5f2-7c3e-7d4e-9a1b-2c3d4e5f6a7b"),
        ToolError::write_timeout(Duration::from_secs(2), true),
        ToolError::in_progress(Duration::from_millis(250)),
        ToolError::outcome_unknown(),
        ToolError::idempotency_key_reused(),
        ToolError::conflict("retry later")
            .with_retry_after(Duration::from_secs(3))
            .with_audit_event_id(AuditEventId::new("evt-42")),
    ]
    .iter()
    .map(|error| serde_json::to_value(error).unwrap())
    .collect()
}

fn compile(name: &str, schema: &serde_json::Map<String, Value>) -> jsonschema::Validator {
    jsonschema::draft202012::new(&Value::Object(schema.clone()))
        .unwrap_or_else(|e| panic!("{name}: served schema does not compile: {e}"))
}

/// Every object inside `value` (not `value` itself), as JSON Pointers.
fn nested_objects(value: &Value, pointer: &str, out: &mut Vec<String>) {
    let children: Vec<(String, &Value)> = match value {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k.replace('~', "~0").replace('/', "~1"), v))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => return,
    };
    for (key, child) in children {
        let at = format!("{pointer}/{key}");
        if child.is_object() {
            out.push(at.clone());
        }
        nested_objects(child, &at, out);
    }
}

#[test]
fn served_schemas_read_back_with_both_branches() {
    for case in corpus() {
        let name = case.name;
        assert!(case.served.envelope.is_some(), "{name}: no envelope branch");
        assert_eq!(
            case.served.wrapped.is_some(),
            case.wrapped,
            "{name}: wrap read back"
        );
        // The success branch means what the type's own schema means.
        let success = compile(name, &case.served.success);
        for (_, result) in &case.samples {
            let structured = result.structured_content.as_ref().unwrap();
            assert!(success.is_valid(structured), "{name}: {structured}");
        }
    }
}

#[test]
fn error_envelopes_fail_every_success_branch() {
    let envelopes = envelope_samples();
    for case in corpus() {
        let name = case.name;
        let success = compile(name, &case.served.success);
        let envelope = compile(name, case.served.envelope.as_ref().unwrap());
        for sample in &envelopes {
            assert!(
                envelope.is_valid(sample),
                "{name}: the envelope branch rejects {sample}"
            );
            assert!(
                !success.is_valid(sample),
                "{name}: the success branch accepts the error envelope {sample}"
            );
        }
    }
}

#[test]
fn success_values_fail_the_envelope_branch() {
    for case in corpus() {
        let name = case.name;
        let envelope = compile(name, case.served.envelope.as_ref().unwrap());
        for (_, result) in &case.samples {
            let structured = result.structured_content.as_ref().unwrap();
            assert!(
                !envelope.is_valid(structured),
                "{name}: the envelope branch accepts the success value {structured}"
            );
        }
    }
}

/// An error envelope put where a child of the type belongs (a recursive type's child, a
/// list item, a nested struct, a variant's payload) is no success value: every `$ref` of the
/// served success branch means the Rust type it came from, never the tool's whole
/// `anyOf` of success and envelope. Positions typed as any JSON (`serde_json::Value`) are
/// the one exception, and only `json_value` has them.
#[test]
fn an_error_envelope_in_place_of_a_child_fails_the_success_branch() {
    let envelope = envelope_samples().remove(0);
    let mut checked = 0;
    for case in corpus() {
        let name = case.name;
        if name == "json_value" {
            continue;
        }
        let success = compile(name, &case.served.success);
        for (_, result) in &case.samples {
            let structured = result.structured_content.as_ref().unwrap();
            let mut positions = Vec::new();
            nested_objects(structured, "", &mut positions);
            for position in positions {
                let mut forged = structured.clone();
                *forged.pointer_mut(&position).unwrap() = envelope.clone();
                assert!(
                    !success.is_valid(&forged),
                    "{name}: an error envelope at {position} passes: {forged}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "only {checked} nested positions checked");
}

/// The recursive result of the issue (`{"$ref": "#"}` in schemars' output): a child that is
/// an error envelope fails, at every depth.
#[test]
fn a_recursive_child_is_the_type_not_the_tool_output() {
    let served = served::<Nesting>();
    let success = compile("nesting", &served.success);
    let node = |deep: Value| json!({"plain": {"count": 1, "label": "l"}, "list": [], "deep": deep});
    for envelope in envelope_samples() {
        assert!(!success.is_valid(&node(envelope.clone())), "{envelope}");
        assert!(
            !success.is_valid(&node(node(envelope.clone()))),
            "{envelope}"
        );
    }
    assert!(success.is_valid(&node(node(Value::Null))));
}

// ----- random values validate against their schema (issue 15, item 5) --------------------

/// The served success branch of `T`'s tool, compiled once per type.
fn success_validator<T: ToolResult>() -> Arc<jsonschema::Validator> {
    use std::any::TypeId;
    use std::sync::{LazyLock, Mutex};
    static CACHE: LazyLock<Mutex<HashMap<TypeId, Arc<jsonschema::Validator>>>> =
        LazyLock::new(Default::default);
    let mut cache = CACHE.lock().unwrap();
    cache
        .entry(TypeId::of::<T>())
        .or_insert_with(|| Arc::new(compile(std::any::type_name::<T>(), &served::<T>().success)))
        .clone()
}

/// `value` serializes to a value its tool's success branch accepts, and `build_result`
/// sends exactly that value as a success.
fn conforms<T: ToolResult>(value: &T) -> Result<(), TestCaseError> {
    let raw = serde_json::to_value(value).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let structured = if T::is_wrapped() {
        json!({ "result": raw })
    } else {
        raw
    };
    let validator = success_validator::<T>();
    let errors: Vec<String> = validator
        .iter_errors(&structured)
        .map(|e| format!("at `{}`: {e}", e.instance_path().as_str()))
        .collect();
    prop_assert!(
        errors.is_empty(),
        "{}: {} breaks its schema: {:?}",
        std::any::type_name::<T>(),
        structured,
        errors
    );
    let result = build_result(value);
    prop_assert_eq!(result.is_error, Some(false));
    prop_assert_eq!(result.structured_content, Some(structured));
    Ok(())
}

/// Any `f64` serde_json writes as a number: non-finite values serialize to `null` (see
/// [`a_non_finite_float_is_an_internal_error_not_a_success`]).
fn finite_f64() -> impl Strategy<Value = f64> {
    prop::num::f64::NORMAL
        | prop::num::f64::SUBNORMAL
        | prop::num::f64::ZERO
        | prop::num::f64::POSITIVE
        | prop::num::f64::NEGATIVE
}

fn finite_f32() -> impl Strategy<Value = f32> {
    prop::num::f32::NORMAL
        | prop::num::f32::SUBNORMAL
        | prop::num::f32::ZERO
        | prop::num::f32::POSITIVE
        | prop::num::f32::NEGATIVE
}

fn text() -> impl Strategy<Value = String> {
    any::<String>()
}

fn plain() -> impl Strategy<Value = Plain> {
    (any::<u32>(), text()).prop_map(|(count, label)| Plain { count, label })
}

fn inner() -> impl Strategy<Value = Inner> {
    (any::<u8>(), any::<Option<u8>>()).prop_map(|(a, b)| Inner { a, b })
}

fn rename_all() -> impl Strategy<Value = RenameAll> {
    (text(), safe_u64()).prop_map(|(first_name, retry_after_ms)| RenameAll {
        first_name,
        retry_after_ms,
    })
}

fn skips() -> impl Strategy<Value = Skips> {
    (any::<u8>(), text(), text()).prop_map(|(kept, skipped, never_written)| Skips {
        kept,
        skipped,
        never_written,
    })
}

fn conditional_skip() -> impl Strategy<Value = ConditionalSkip> {
    (
        proptest::option::of(text()),
        proptest::collection::vec(any::<u8>(), 0..4),
        any::<Option<u8>>(),
    )
        .prop_map(|(maybe, items, always)| ConditionalSkip {
            maybe,
            items,
            always,
        })
}

fn flattened() -> impl Strategy<Value = Flattened> {
    (text(), inner()).prop_map(|(id, inner)| Flattened { id, inner })
}

/// The flattened map's keys may not collide with `id`: serde would write `id` twice.
fn flattened_map() -> impl Strategy<Value = FlattenedMap> {
    (
        text(),
        proptest::collection::btree_map(
            text().prop_filter("not `id`", |k| k != "id"),
            any::<u32>(),
            0..4,
        ),
    )
        .prop_map(|(id, extra)| FlattenedMap { id, extra })
}

/// Recursive: `deep` holds another `Nesting`, up to four levels.
fn nesting() -> impl Strategy<Value = Nesting> {
    let leaf =
        (plain(), proptest::collection::vec(inner(), 0..3)).prop_map(|(plain, list)| Nesting {
            plain,
            list,
            deep: None,
        });
    leaf.prop_recursive(4, 8, 1, |deeper| {
        (
            plain(),
            proptest::collection::vec(inner(), 0..3),
            proptest::option::of(deeper),
        )
            .prop_map(|(plain, list, deep)| Nesting {
                plain,
                list,
                deep: deep.map(Box::new),
            })
    })
}

/// The integers that cross JSON intact (±(2^53 − 1)): a result holding a larger one is
/// refused as it is built (tested in `tests/shapes.rs`), so the corpus samples these.
const MAX_SAFE: i64 = mcp_result::MAX_SAFE_INTEGER;

fn safe_u64() -> impl Strategy<Value = u64> {
    0..=MAX_SAFE as u64
}

fn safe_i64() -> impl Strategy<Value = i64> {
    -MAX_SAFE..=MAX_SAFE
}

fn numbers() -> impl Strategy<Value = Numbers> {
    (
        any::<u8>(),
        any::<i32>(),
        safe_i64(),
        safe_u64(),
        finite_f64(),
        finite_f32(),
    )
        .prop_map(|(small, signed, big, unsigned, float, single)| Numbers {
            small,
            signed,
            big,
            unsigned,
            float,
            single,
        })
}

fn collections() -> impl Strategy<Value = Collections> {
    (
        proptest::collection::vec(text(), 0..4),
        proptest::collection::hash_map(text(), any::<u32>(), 0..4),
        proptest::collection::btree_map(
            text(),
            proptest::collection::vec(any::<bool>(), 0..3),
            0..3,
        ),
        (any::<u8>(), text()),
        any::<[u8; 3]>(),
    )
        .prop_map(|(tags, by_key, sorted, pair, fixed)| Collections {
            tags,
            by_key,
            sorted,
            pair,
            fixed,
        })
}

fn unit_only() -> impl Strategy<Value = UnitOnly> {
    prop_oneof![Just(UnitOnly::Open), Just(UnitOnly::Closed)]
}

fn external() -> impl Strategy<Value = External> {
    prop_oneof![
        Just(External::Unit),
        any::<u32>().prop_map(External::Newtype),
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| External::Tuple(a, b)),
        text().prop_map(|a| External::Struct { a }),
    ]
}

fn internal() -> impl Strategy<Value = Internal> {
    prop_oneof![
        text().prop_map(|id| Internal::Created { id }),
        (text(), any::<bool>()).prop_map(|(id, soft)| Internal::Deleted { id, soft }),
        Just(Internal::Noop),
        inner().prop_map(Internal::Wrapped),
    ]
}

fn adjacent() -> impl Strategy<Value = Adjacent> {
    prop_oneof![
        Just(Adjacent::Unit),
        any::<i32>().prop_map(Adjacent::Num),
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Adjacent::Pair(a, b)),
        finite_f64().prop_map(|x| Adjacent::Named { x }),
    ]
}

fn untagged() -> impl Strategy<Value = Untagged> {
    prop_oneof![
        any::<u8>().prop_map(|a| Untagged::Object { a }),
        finite_f64().prop_map(Untagged::Number),
        text().prop_map(Untagged::Text),
    ]
}

fn untagged_objects() -> impl Strategy<Value = UntaggedObjects> {
    prop_oneof![
        any::<u8>().prop_map(|a| UntaggedObjects::A { a }),
        text().prop_map(|b| UntaggedObjects::B { b }),
    ]
}

/// Not `Hidden`: a `#[serde(skip)]` variant does not serialize at all (`build_result`
/// answers it with an `internal` error).
fn renamed_variants() -> impl Strategy<Value = RenamedVariants> {
    prop_oneof![
        Just(RenamedVariants::First),
        any::<u8>().prop_map(|v| RenamedVariants::Second { v }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_plain_structs_conform(value in plain()) {
        conforms(&value)?;
    }

    #[test]
    fn random_renamed_structs_conform(value in rename_all()) {
        conforms(&value)?;
    }

    #[test]
    fn random_structs_with_skipped_fields_conform(value in skips()) {
        conforms(&value)?;
    }

    #[test]
    fn random_structs_with_optional_fields_conform(value in conditional_skip()) {
        conforms(&value)?;
    }

    #[test]
    fn random_flattened_structs_conform(value in flattened()) {
        conforms(&value)?;
    }

    #[test]
    fn random_flattened_maps_conform(value in flattened_map()) {
        conforms(&value)?;
    }

    #[test]
    fn random_recursive_structs_conform(value in nesting()) {
        conforms(&value)?;
    }

    #[test]
    fn random_numbers_conform(value in numbers()) {
        conforms(&value)?;
    }

    #[test]
    fn random_collections_conform(value in collections()) {
        conforms(&value)?;
    }

    #[test]
    fn random_generic_structs_conform(
        small in (any::<u8>(), proptest::collection::vec(any::<u8>(), 0..4)),
        nested in (inner(), proptest::collection::vec(inner(), 0..3)),
    ) {
        conforms(&Generic { value: small.0, items: small.1 })?;
        conforms(&Generic { value: nested.0, items: nested.1 })?;
    }

    #[test]
    fn random_unit_enums_conform(value in unit_only()) {
        conforms(&value)?;
    }

    #[test]
    fn random_externally_tagged_enums_conform(value in external()) {
        conforms(&value)?;
    }

    #[test]
    fn random_internally_tagged_enums_conform(value in internal()) {
        conforms(&value)?;
    }

    #[test]
    fn random_adjacently_tagged_enums_conform(value in adjacent()) {
        conforms(&value)?;
    }

    #[test]
    fn random_untagged_enums_conform(value in untagged(), objects in untagged_objects()) {
        conforms(&value)?;
        conforms(&objects)?;
    }

    #[test]
    fn random_renamed_variants_conform(value in renamed_variants()) {
        conforms(&value)?;
    }

    #[test]
    fn random_options_conform(
        plain in proptest::option::of(plain()),
        number in any::<Option<u32>>(),
    ) {
        conforms(&plain)?;
        conforms(&number)?;
    }

    #[test]
    fn random_vecs_conform(
        numbers in proptest::collection::vec(any::<u32>(), 0..6),
        structs in proptest::collection::vec(plain(), 0..4),
    ) {
        conforms(&numbers)?;
        conforms(&structs)?;
        conforms(&Newtype(numbers))?;
    }

    #[test]
    fn random_maps_conform(
        btree in proptest::collection::btree_map(text(), any::<u32>(), 0..4),
        hash in proptest::collection::hash_map(text(), proptest::collection::vec(any::<u8>(), 0..3), 0..4),
    ) {
        conforms(&btree)?;
        conforms(&hash)?;
    }

    #[test]
    fn random_tuples_and_scalars_conform(
        pair in (any::<u8>(), text()),
        triple in (any::<bool>(), finite_f64(), proptest::collection::vec(any::<u8>(), 0..3)),
        integer in safe_i64(),
        unsigned in safe_u64(),
        float in finite_f64(),
        string in text(),
    ) {
        conforms(&pair)?;
        conforms(&triple)?;
        conforms(&Tuple(pair.0, pair.1.clone(), triple.0))?;
        conforms(&integer)?;
        conforms(&unsigned)?;
        conforms(&float)?;
        conforms(&string)?;
    }

    #[test]
    fn random_wrapper_structs_conform(
        plain in plain(),
        inner in proptest::collection::vec(text(), 0..4),
        big in any::<u64>(),
        n in any::<u32>(),
    ) {
        conforms(&NewtypeObject(plain))?;
        conforms(&Transparent { inner })?;
        conforms(&SerializeWith { big })?;
        conforms(&IntoPlain { n })?;
        conforms(&Box::new(IntoPlain { n }))?;
    }
}

/// The one way a corpus type's `Serialize` leaves its schema for some values: serde_json
/// writes a non-finite float as `null`, which `{"type": "number"}` rejects. Such a value is
/// answered with an `internal` error (in debug builds and with `validate-results`), never
/// a non-conforming success.
#[cfg(debug_assertions)]
#[test]
fn a_non_finite_float_is_an_internal_error_not_a_success() {
    for float in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let value = Numbers {
            small: 0,
            signed: 0,
            big: 0,
            unsigned: 0,
            float,
            single: 0.0,
        };
        assert_eq!(serde_json::to_value(&value).unwrap()["float"], Value::Null);
        let result = build_result(&value);
        assert_eq!(result.is_error, Some(true), "{float}");
        assert_eq!(
            result.structured_content.unwrap()["errorKind"],
            "internal",
            "{float}"
        );
    }
}
