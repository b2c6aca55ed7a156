//! outputSchema fidelity: a corpus of return types covering every shape and every serde
//! attribute that changes the serialized form. For each type and each sample value:
//!
//! - the schema has an object root, is valid JSON Schema 2020-12, declares no `$schema`,
//!   uses no non-standard keyword or `format`, and every `$ref` resolves inside it;
//! - the `structuredContent` that `build_result` makes validates under a 2020-12 validator
//!   **and** a draft-07 validator (Ajv's default in many clients), and the JSON-compat text
//!   is byte-equal to it;
//! - the value is wrapped under `"result"` exactly when it is not a JSON object.
//!
//! The schemas are committed under `tests/snapshots/schemas/`; a change shows in the diff.
//! Refresh them with `UPDATE_SNAPSHOTS=1 cargo test --test schema_corpus` and review.

use std::collections::{BTreeMap, HashMap};

use mcp_result::{build_result, Structured, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

// ----- named structs and serde attributes -------------------------------------------------

/// A plain struct.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Plain {
    /// A count.
    count: u32,
    label: String,
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct RenameAll {
    first_name: String,
    retry_after_ms: u64,
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
struct RenameAllScreaming {
    max_value: i64,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct RenameField {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct RenameSerializeOnly {
    #[serde(rename(serialize = "out", deserialize = "in"))]
    value: bool,
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all(serialize = "kebab-case"))]
struct RenameAllSerializeOnly {
    dash_case: u8,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct Skips {
    kept: u8,
    #[serde(skip)]
    #[allow(dead_code)]
    skipped: String,
    #[serde(skip_serializing)]
    #[allow(dead_code)]
    never_written: String,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct ConditionalSkip {
    #[serde(skip_serializing_if = "Option::is_none")]
    maybe: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    items: Vec<u8>,
    always: Option<u8>,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct Defaults {
    #[serde(default)]
    count: u32,
    #[serde(default = "default_name")]
    name: String,
}

fn default_name() -> String {
    "n".into()
}

#[derive(Serialize, JsonSchema)]
struct Inner {
    a: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    b: Option<u8>,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct Flattened {
    id: String,
    #[serde(flatten)]
    inner: Inner,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct FlattenedMap {
    id: String,
    #[serde(flatten)]
    extra: BTreeMap<String, u32>,
}

fn as_string<S: serde::Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&value.to_string())
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct SerializeWith {
    #[serde(serialize_with = "as_string")]
    #[schemars(with = "String")]
    big: u64,
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(deny_unknown_fields)]
struct DenyUnknown {
    only: bool,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct Nesting {
    plain: Plain,
    list: Vec<Inner>,
    deep: Option<Box<Nesting>>,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct Numbers {
    small: u8,
    signed: i32,
    big: i64,
    unsigned: u64,
    float: f64,
    single: f32,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct Collections {
    tags: Vec<String>,
    by_key: HashMap<String, u32>,
    sorted: BTreeMap<String, Vec<bool>>,
    pair: (u8, String),
    fixed: [u8; 3],
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct Generic<T: Serialize + JsonSchema + 'static> {
    value: T,
    items: Vec<T>,
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(into = "Plain")]
#[derive(Clone)]
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

#[derive(Serialize, JsonSchema, ToolResult)]
struct Newtype(Vec<u32>);

#[derive(Serialize, JsonSchema, ToolResult)]
struct NewtypeObject(Plain);

#[derive(Serialize, JsonSchema, ToolResult)]
struct Tuple(u8, String, bool);

#[derive(Serialize, JsonSchema, ToolResult)]
struct Unit;

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(transparent)]
struct Transparent {
    inner: Vec<String>,
}

// ----- enums ------------------------------------------------------------------------------

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "lowercase")]
enum UnitOnly {
    Open,
    Closed,
}

#[derive(Serialize, JsonSchema, ToolResult)]
enum External {
    Unit,
    Newtype(u32),
    Tuple(u8, u8),
    Struct { a: String },
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Internal {
    Created { id: String },
    Deleted { id: String, soft: bool },
    Noop,
    Wrapped(Inner),
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Unit,
    Num(i32),
    Pair(u8, u8),
    Named { x: f64 },
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(untagged)]
enum Untagged {
    Object { a: u8 },
    Number(f64),
    Text(String),
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(untagged)]
enum UntaggedObjects {
    A { a: u8 },
    B { b: String },
}

#[derive(Serialize, JsonSchema, ToolResult)]
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
    }
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
                retry_after_ms: u64::MAX,
            }],
        ),
        case(
            "rename_all_screaming",
            vec![RenameAllScreaming {
                max_value: i64::MIN,
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
                    big: i64::MAX,
                    unsigned: u64::MAX,
                    float: -1.5e300,
                    single: f32::MAX,
                },
                Numbers {
                    small: u8::MAX,
                    signed: 0,
                    big: i64::MIN,
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
        case("integer", vec![i64::MIN, 0, i64::MAX]),
        case("unsigned", vec![u64::MAX, 0]),
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
         `UPDATE_SNAPSHOTS=1 cargo test --test schema_corpus`"
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
