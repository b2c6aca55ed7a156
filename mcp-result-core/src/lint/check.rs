//! How each [`Check`] reads one tool of a `tools/list` payload: the places (JSON Pointers
//! into the tool object) that break it, each with what is wrong there.

use serde_json::Value;

use super::rules::{Chars, Check, PREFIXED_NAME_BUDGET, SERVER_NAME_ALLOWANCE};
use crate::schema::keywords::{SCHEMA, SCHEMA_LIST, SCHEMA_MAP};

/// Where a foreign schema keeps its definitions (2020-12 and draft-07): walked like
/// [`SCHEMA_MAP`], since a lint checks every schema a host receives.
const DEFINITIONS: &[&str] = &["$defs", "definitions"];

/// How deep a schema is walked (a hostile or broken payload cannot make the lint recurse
/// without end).
const MAX_SCHEMA_DEPTH: usize = 64;

/// One place that breaks a check.
pub(crate) struct Hit {
    pub pointer: String,
    pub problem: String,
}

fn hit(pointer: impl Into<String>, problem: impl Into<String>) -> Hit {
    Hit {
        pointer: pointer.into(),
        problem: problem.into(),
    }
}

pub(crate) use crate::wire::pointer::escape;

/// Every place of `tool` that breaks `check`; `earlier` holds the names of the tools listed
/// before it.
pub(crate) fn hits(check: Check, tool: &Value, earlier: &[&str]) -> Vec<Hit> {
    let name = tool.get("name").and_then(Value::as_str);
    match check {
        // The payload's shape is checked once, by `lint_json`.
        Check::ToolsList => Vec::new(),
        Check::Name { first, rest, max } => name_hits(name, first, rest, max),
        Check::PrefixedName => match name {
            Some(name) if name.chars().count() > PREFIXED_NAME_BUDGET => vec![hit(
                "/name",
                format!(
                    "`{name}` has {} characters; `mcp__<server>__` leaves {PREFIXED_NAME_BUDGET} \
                     for a server name of {SERVER_NAME_ALLOWANCE}",
                    name.chars().count()
                ),
            )],
            _ => Vec::new(),
        },
        Check::UniqueName => match name {
            Some(name) if earlier.contains(&name) => vec![hit(
                "/name",
                format!("`{name}` is also the name of a tool listed before it"),
            )],
            _ => Vec::new(),
        },
        Check::Description => match tool.get("description").and_then(Value::as_str) {
            Some(text) if !text.trim().is_empty() => Vec::new(),
            _ => vec![hit("/description", "the tool has no description")],
        },
        Check::DescriptionLength(max) => match tool.get("description").and_then(Value::as_str) {
            Some(text) if text.chars().count() > max => vec![hit(
                "/description",
                format!("the description has {} characters", text.chars().count()),
            )],
            _ => Vec::new(),
        },
        Check::RootObject => root_object_hits(tool.get("inputSchema")),
        Check::RootKeywords(keywords) => {
            let Some(root) = tool.get("inputSchema").and_then(Value::as_object) else {
                return Vec::new();
            };
            keywords
                .iter()
                .filter(|keyword| root.contains_key(**keyword))
                .map(|keyword| {
                    hit(
                        format!("/inputSchema/{}", escape(keyword)),
                        format!("`{keyword}` at the root of `inputSchema`"),
                    )
                })
                .collect()
        }
        Check::Keywords(keywords) => schema_hits(tool, |schema, _, out, pointer| {
            if let Value::Object(object) = schema {
                for keyword in keywords {
                    if object.contains_key(*keyword) {
                        out.push(hit(
                            format!("{pointer}/{}", escape(keyword)),
                            format!("`{keyword}` in `inputSchema`"),
                        ));
                    }
                }
            }
        }),
        Check::TypeList => schema_hits(tool, |schema, _, out, pointer| {
            if let Some(types @ Value::Array(_)) = schema.get("type") {
                out.push(hit(
                    format!("{pointer}/type"),
                    format!("`type` is the list `{types}`"),
                ));
            }
        }),
        Check::BooleanSchema => schema_hits(tool, |schema, keyword, out, pointer| {
            if let Value::Bool(value) = schema {
                if keyword != Some("additionalProperties") {
                    out.push(hit(
                        pointer,
                        format!("`{value}` in place of a schema object"),
                    ));
                }
            }
        }),
        Check::ClosedObjects => schema_hits(tool, |schema, _, out, pointer| {
            if is_object_schema(schema)
                && schema.get("additionalProperties") != Some(&Value::Bool(false))
            {
                out.push(hit(
                    pointer,
                    "an object schema without `additionalProperties: false`",
                ));
            }
        }),
        Check::AllRequired => schema_hits(tool, |schema, _, out, pointer| {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|list| list.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for property in properties.keys() {
                if !required.contains(&property.as_str()) {
                    out.push(hit(
                        format!("{pointer}/properties/{}", escape(property)),
                        format!("`{property}` is not required"),
                    ));
                }
            }
        }),
    }
}

fn name_hits(name: Option<&str>, first: Chars, rest: Chars, max: usize) -> Vec<Hit> {
    let Some(name) = name else {
        return vec![hit("/name", "the tool has no name")];
    };
    let length = name.chars().count();
    let mut hits = Vec::new();
    if length == 0 {
        hits.push(hit("/name", "the name is empty"));
    }
    if length > max {
        hits.push(hit("/name", format!("`{name}` has {length} characters")));
    }
    let mut bad: Vec<char> = Vec::new();
    for (i, c) in name.chars().enumerate() {
        let allowed = if i == 0 {
            first.allows(c)
        } else {
            rest.allows(c)
        };
        if !allowed && !bad.contains(&c) {
            if i == 0 && rest.allows(c) {
                hits.push(hit("/name", format!("`{name}` starts with `{c}`")));
            } else {
                bad.push(c);
            }
        }
    }
    if !bad.is_empty() {
        let shown: Vec<String> = bad
            .iter()
            .map(|c| format!("`{}`", c.escape_debug()))
            .collect();
        hits.push(hit("/name", format!("`{name}` has {}", shown.join(", "))));
    }
    hits
}

fn root_object_hits(root: Option<&Value>) -> Vec<Hit> {
    match root {
        None => vec![hit("/inputSchema", "the tool has no `inputSchema`")],
        Some(Value::Object(object)) => match object.get("type") {
            Some(Value::String(t)) if t == "object" => Vec::new(),
            Some(other) => vec![hit(
                "/inputSchema/type",
                format!("`inputSchema` has `type: {other}`"),
            )],
            None => vec![hit(
                "/inputSchema",
                "`inputSchema` has no `type: \"object\"`",
            )],
        },
        Some(other) => vec![hit(
            "/inputSchema",
            format!(
                "`inputSchema` is `{}`, not a schema object",
                truncate(&other.to_string())
            ),
        )],
    }
}

fn truncate(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

fn is_object_schema(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => schema.get("properties").is_some(),
    }
}

/// Runs `visit` on every subschema of the tool's `inputSchema` (the root included) with
/// the keyword it is the value of (`None` for the root and for members of schema maps and
/// lists) and its JSON Pointer into the tool object.
fn schema_hits(
    tool: &Value,
    mut visit: impl FnMut(&Value, Option<&str>, &mut Vec<Hit>, &str),
) -> Vec<Hit> {
    let mut out = Vec::new();
    if let Some(root) = tool.get("inputSchema") {
        if root.is_object() {
            walk(
                root,
                None,
                "/inputSchema",
                0,
                &mut |schema, keyword, pointer| visit(schema, keyword, &mut out, pointer),
            );
        }
    }
    out
}

fn walk(
    schema: &Value,
    keyword: Option<&str>,
    pointer: &str,
    depth: usize,
    visit: &mut impl FnMut(&Value, Option<&str>, &str),
) {
    visit(schema, keyword, pointer);
    let Value::Object(object) = schema else {
        return;
    };
    if depth >= MAX_SCHEMA_DEPTH {
        return;
    }
    for (key, value) in object {
        let at = format!("{pointer}/{}", escape(key));
        let key = key.as_str();
        match value {
            Value::Array(list) if SCHEMA_LIST.contains(&key) => {
                for (i, member) in list.iter().enumerate() {
                    walk(member, None, &format!("{at}/{i}"), depth + 1, visit);
                }
            }
            Value::Object(map) if SCHEMA_MAP.contains(&key) || DEFINITIONS.contains(&key) => {
                for (name, member) in map {
                    walk(
                        member,
                        None,
                        &format!("{at}/{}", escape(name)),
                        depth + 1,
                        visit,
                    );
                }
            }
            Value::Object(_) | Value::Bool(_) if SCHEMA.contains(&key) => {
                walk(value, Some(key), &at, depth + 1, visit);
            }
            _ => {}
        }
    }
}
