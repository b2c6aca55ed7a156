//! The schema walker of the docs: one self-contained schema into [`FieldDoc`] rows (paths,
//! types in words, constraints, descriptions). `$ref`s, unions and `null` branches are
//! followed with the one [`Resolver`] and its one depth limit ([`MAX_DEPTH`]).

use serde_json::{Map, Value};

use super::model::FieldDoc;
use crate::schema::{def_name, is_null, union, Resolver, MAX_DEPTH};

/// The JSON Schema keywords shown as constraints, in display order.
pub(super) const CONSTRAINT_KEYWORDS: [&str; 20] = [
    "const",
    "enum",
    "format",
    "pattern",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Walks one self-contained schema (whose `$ref`s point into itself) into [`FieldDoc`]
/// rows.
pub(super) struct Walker<'a> {
    resolver: Resolver<'a>,
    /// Output side: `writeOnly` properties (what a client sends, never gets back) are left
    /// out.
    output: bool,
    rows: Vec<FieldDoc>,
    /// Paths of `format: "uri"` fields met so far.
    pub(super) artifacts: Vec<String>,
    /// The definitions being expanded, to stop at a recursive type.
    stack: Vec<String>,
}

impl<'a> Walker<'a> {
    /// A walker of schemas whose `$ref`s point into `root`; `output` leaves `writeOnly`
    /// properties out.
    pub(super) fn new(root: &'a Value, output: bool) -> Self {
        Self {
            resolver: Resolver::new(root),
            output,
            rows: Vec::new(),
            artifacts: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// The resolver of the walked schema.
    pub(super) fn resolver(&self) -> Resolver<'a> {
        self.resolver
    }

    /// The rows of every field of `schema`, nested ones included.
    pub(super) fn rows_of(&mut self, schema: &Value) -> Vec<FieldDoc> {
        self.expand(schema, "", 0);
        std::mem::take(&mut self.rows)
    }

    fn expand(&mut self, schema: &Value, path: &str, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let (core, name) = self.resolver.non_null(schema);
        if let Some(name) = &name {
            if self.stack.contains(name) {
                return;
            }
            self.stack.push(name.clone());
        }
        let prefix = if path.is_empty() {
            String::new()
        } else {
            format!("{path}.")
        };
        if let Some(branches) = union(core) {
            let variants: Vec<&Value> = branches.iter().filter(|b| !is_null(b)).collect();
            for (index, branch) in variants.iter().enumerate() {
                let (branch, branch_name) = self.resolver.deref(branch);
                if has_properties(branch) {
                    let label = variant_label(branch, branch_name, index);
                    self.object_rows(branch, &prefix, Some(&label), depth);
                }
            }
        } else if has_properties(core) {
            self.object_rows(core, &prefix, None, depth);
        } else if let Some(items) = core.get("items").filter(|i| i.is_object()) {
            self.expand(items, &format!("{path}[]"), depth + 1);
        } else if let Some(values) = core.get("additionalProperties").filter(|v| v.is_object()) {
            self.expand(values, &format!("{prefix}*"), depth + 1);
        }
        if name.is_some() {
            self.stack.pop();
        }
    }

    /// The properties of an object schema (its own and those of its `allOf` branches, each
    /// object's in name order), with whether each is required.
    ///
    /// Name order, not the schema's: the order of a schema's `properties` is serde_json's map
    /// order, declaration order with its `preserve_order` feature and name order without, and
    /// that feature is the binary's (any crate may turn it on). The docs are the same in every
    /// build.
    fn properties<'s>(
        &self,
        object: &'s Value,
        out: &mut Vec<(String, &'s Value, bool)>,
        depth: usize,
    ) where
        'a: 's,
    {
        let object = self.resolver.deref(object).0;
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(properties) = object.get("properties").and_then(Value::as_object) {
            for (name, schema) in by_name(properties) {
                if !out.iter().any(|(seen, _, _)| seen == name) {
                    out.push((name.clone(), schema, required.contains(&name.as_str())));
                }
            }
        }
        if depth < MAX_DEPTH {
            for branch in object
                .get("allOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                self.properties(branch, out, depth + 1);
            }
        }
    }

    fn object_rows(&mut self, object: &Value, prefix: &str, variant: Option<&str>, depth: usize) {
        let mut properties = Vec::new();
        self.properties(object, &mut properties, 0);
        for (name, schema, required) in properties {
            let constraints = self.constraints(schema);
            if self.output && constraints.get("writeOnly") == Some(&Value::Bool(true)) {
                continue;
            }
            let path = format!("{prefix}{name}");
            let uri =
                |c: &Map<String, Value>| c.get("format").and_then(Value::as_str) == Some("uri");
            if uri(&constraints) {
                self.artifacts.push(path.clone());
            } else if let Some(Value::Object(items)) = constraints.get("items") {
                if uri(items) {
                    self.artifacts.push(format!("{path}[]"));
                }
            }
            self.rows.push(FieldDoc {
                path: path.clone(),
                type_name: self.type_name(schema, 0),
                required,
                constraints,
                description: self.description(schema),
                variant: variant.map(str::to_owned),
            });
            self.expand(schema, &path, depth + 1);
        }
    }

    /// The type of `schema` in words.
    fn type_name(&self, schema: &Value, depth: usize) -> String {
        let Value::Object(object) = schema else {
            return if schema == &Value::Bool(false) {
                "nothing".into()
            } else {
                "any".into()
            };
        };
        if depth > MAX_DEPTH {
            return "any".into();
        }
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            return def_name(reference);
        }
        if let Some(branches) = union(schema) {
            let names: Vec<String> = if branches.iter().all(|b| b.get("const").is_some()) {
                branches
                    .iter()
                    .map(|b| json_type(&b["const"]).into())
                    .collect()
            } else {
                branches
                    .iter()
                    .map(|b| self.type_name(b, depth + 1))
                    .collect()
            };
            return join_unique(names, " or ");
        }
        if let Some(all) = object.get("allOf").and_then(Value::as_array) {
            let names = all.iter().map(|b| self.type_name(b, depth + 1)).collect();
            return join_unique(names, " and ");
        }
        let types: Vec<String> = match object.get("type") {
            Some(Value::String(t)) => vec![t.clone()],
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ if object.contains_key("properties") => vec!["object".into()],
            _ if object.contains_key("items") => vec!["array".into()],
            _ => match (object.get("const"), object.get("enum")) {
                (Some(value), _) => vec![json_type(value).into()],
                (None, Some(Value::Array(values))) => {
                    values.iter().map(|v| json_type(v).to_owned()).collect()
                }
                _ => vec!["any".into()],
            },
        };
        let names = types
            .into_iter()
            .map(|t| match t.as_str() {
                "array" => match object.get("items") {
                    Some(items) => format!("array of {}", self.type_name(items, depth + 1)),
                    None => t,
                },
                "object" => match object.get("additionalProperties") {
                    Some(values @ Value::Object(_)) if !object.contains_key("properties") => {
                        format!("map of {}", self.type_name(values, depth + 1))
                    }
                    _ => t,
                },
                _ => t,
            })
            .collect();
        join_unique(names, " or ")
    }

    /// The constraint keywords of `schema`, its `$ref` target and its only non-null branch
    /// (nearest first); a union of `const`s becomes `enum`; array item constraints under
    /// `items`.
    fn constraints(&self, schema: &Value) -> Map<String, Value> {
        let mut found = Map::new();
        self.collect_constraints(schema, &mut found, 0);
        let mut out = Map::new();
        for keyword in CONSTRAINT_KEYWORDS {
            if let Some(value) = found.remove(keyword) {
                out.insert(keyword.into(), value);
            }
        }
        let (core, _) = self.resolver.non_null(schema);
        if let Some(items) = core.get("items").filter(|i| i.is_object()) {
            let items = self.constraints(items);
            if !items.is_empty() {
                out.insert("items".into(), Value::Object(items));
            }
        }
        out
    }

    fn collect_constraints(&self, schema: &Value, out: &mut Map<String, Value>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for keyword in CONSTRAINT_KEYWORDS {
            if let Some(value) = schema.get(keyword) {
                out.entry(keyword).or_insert_with(|| value.clone());
            }
        }
        if let Some(target) = self.resolver.target(schema) {
            self.collect_constraints(target, out, depth + 1);
        }
        if let Some(branches) = union(schema) {
            let rest: Vec<&Value> = branches.iter().filter(|b| !is_null(b)).collect();
            if !rest.is_empty() && rest.iter().all(|b| b.get("const").is_some()) {
                let values = rest.iter().map(|b| b["const"].clone()).collect();
                out.entry("enum").or_insert(Value::Array(values));
            } else if let [only] = rest.as_slice() {
                self.collect_constraints(only, out, depth + 1);
            }
        }
    }

    /// The `description` of `schema`, else of its `$ref` target or only non-null branch.
    /// A type's description lends only its first paragraph (the rest, such as
    /// "Serialized as ...", is about the type, not the field).
    pub(super) fn description(&self, schema: &Value) -> Option<String> {
        let mut schema = schema;
        for depth in 0..MAX_DEPTH {
            if let Some(text) = schema.get("description").and_then(Value::as_str) {
                let text = match depth {
                    0 => text,
                    _ => text.split("\n\n").next().unwrap_or(text),
                };
                return Some(collapse(text));
            }
            if let Some(target) = self.resolver.target(schema) {
                schema = target;
                continue;
            }
            let rest: Vec<&Value> = union(schema)?.iter().filter(|b| !is_null(b)).collect();
            let [only] = rest.as_slice() else {
                return None;
            };
            schema = only;
        }
        None
    }
}

fn has_properties(schema: &Value) -> bool {
    schema.get("properties").is_some() || schema.get("allOf").is_some()
}

/// The entries of a JSON object in name order, whatever serde_json's map order.
fn by_name(object: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = object.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    entries
}

/// How a union branch is named: by its tag (`kind = "api_key"`: a property with a string
/// `const`, the first by name), its `title`, its definition name, or its position.
fn variant_label(branch: &Value, name: Option<String>, index: usize) -> String {
    let tag = branch
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|properties| {
            by_name(properties).into_iter().find_map(|(key, schema)| {
                let value = schema.get("const")?;
                value.is_string().then(|| format!("{key} = {value}"))
            })
        });
    tag.or_else(|| {
        branch
            .get("title")
            .and_then(Value::as_str)
            .map(str::to_owned)
    })
    .or(name)
    .unwrap_or_else(|| format!("#{}", index + 1))
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn join_unique(names: Vec<String>, separator: &str) -> String {
    let mut unique: Vec<String> = Vec::with_capacity(names.len());
    for name in names {
        if !unique.contains(&name) {
            unique.push(name);
        }
    }
    unique.join(separator)
}

/// Doc-comment text on one line: lines trimmed and joined by spaces.
pub(super) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
