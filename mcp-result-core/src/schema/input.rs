//! The portable profile of an `inputSchema`: what `tools/list` advertises, so that every
//! host accepts it (the rules and their sources: [`crate::lint`]).
//!
//! Two schemas per tool, with two jobs:
//!
//! - the **validated** schema is the full 2020-12 schema of the arguments type
//!   ([`super::input_schema`]); the router checks every call against it before
//!   deserializing, so it says exactly what serde accepts (`null` for an `Option` field,
//!   integer map keys, the branches of an enum);
//! - the **advertised** schema is [`portable_input`] of it: one `type` per schema, no
//!   composition at the root, no `$ref` where the definition can be inlined, no boolean
//!   schemas, no `const`, no `patternProperties`. Hosts that reject the full dialect
//!   (Gemini, the Claude API's root, Codex and Copilot's `$ref`) accept it.
//!
//! The rewrite, node by node:
//!
//! | full schema | advertised | why |
//! |---|---|---|
//! | `"type": ["integer", "null"]`, `anyOf: [X, {"type": "null"}]` | `"type": "integer"`, `X` (and no `"default": null`) | Gemini takes one type; an optional field is simply not `required` |
//! | `{"$ref": "#/$defs/Filter"}` | the definition, inlined (descriptions of both joined) | Codex and Copilot do not follow `$ref` |
//! | `oneOf` of `const`s (a unit enum with doc-commented variants) | `"enum": [...]`, each variant's doc in the description | Gemini has neither `oneOf` nor `const` |
//! | any other `oneOf` (an enum with data, in a field) | `anyOf` (serde's tagged variants exclude each other) | Gemini has `anyOf` only |
//! | `"const": v` | `"enum": [v]` | Gemini has no `const` |
//! | `true` / `false` as a schema | `{}` / `{"not": {}}` | Gemini rejects boolean schemas |
//! | `patternProperties`, `propertyNames` (maps with non-string keys) | `additionalProperties`, the key rule in the description | Gemini rejects both |
//! | root `title` | removed | the Rust type's name is noise to the model |
//!
//! Relaxations, all checked by the validated schema on every call: `null` is not advertised
//! where serde takes it as absent (an `Option` field, an `Option` element of a list), and a
//! map's key rule is a description rather than a keyword. A recursive definition keeps its
//! `$ref` (it has no finite inline form). A root composition has no portable form at all
//! (the Claude API rejects every request that lists such a tool): [`portable_input`]
//! refuses it, and the registry refuses to start ([`crate::RegistryError`]).

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt,
};

use rmcp::model::JsonObject;
use serde_json::Value;

use super::keywords::{ANNOTATIONS, SCHEMA, SCHEMA_LIST, SCHEMA_MAP};
use super::{
    resolve::{def_name, is_null},
    RemoveKey,
};

/// How deep definitions are inlined; past it a `$ref` stays (with its definition kept).
const MAX_INLINE_DEPTH: usize = 48;

/// An input schema with a composition keyword at its root: no portable form (the Claude API
/// rejects every request listing such a tool, MCP "Tools" requires an object root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootComposition {
    /// `oneOf`, `anyOf` or `allOf`.
    pub keyword: &'static str,
    /// The arguments type's schema name (its Rust name unless renamed), when known.
    pub type_name: Option<String>,
}

impl fmt::Display for RootComposition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let type_name = match &self.type_name {
            Some(name) => format!("the arguments type `{name}`"),
            None => "the arguments type".to_owned(),
        };
        write!(
            f,
            "{type_name} has `{}` at the root of its input schema (a `#[serde(flatten)]` enum, \
             or an enum as the arguments type), which has no portable form: the Claude API \
             (also on Bedrock and Vertex) rejects every request that lists such a tool. Put \
             the enum in a named field (`target: Target`), make it a unit enum beside \
             `Option` fields for the variants' data, or split the tool into one tool per \
             variant; or, if every client of the server takes full JSON Schema, advertise it \
             whole with `#[mcp_tool(full_input_schema)]`",
            self.keyword
        )
    }
}

impl std::error::Error for RootComposition {}

/// The portable profile of `full`, an `inputSchema` as [`super::input_schema`] generates it
/// (object root, one root `$defs`): see the module docs for every rewrite.
///
/// # Errors
/// [`RootComposition`] when a `oneOf`, `anyOf` or `allOf` remains at the root once every
/// rewrite ran (a nullable or single-branch one is rewritten away).
pub fn portable_input(full: &JsonObject) -> Result<JsonObject, RootComposition> {
    let defs = match full.get("$defs") {
        Some(Value::Object(defs)) => defs.clone(),
        _ => JsonObject::new(),
    };
    let profile = Profile {
        recursive: recursive_defs(&defs),
        defs,
        kept: Default::default(),
    };
    let composed = ["oneOf", "anyOf", "allOf"]
        .into_iter()
        .find(|k| full.contains_key(*k));
    let mut root = full.clone();
    let type_name = match root.remove_key("title") {
        Some(Value::String(name)) => Some(name),
        _ => None,
    };
    root.remove_key("$schema");
    root.remove_key("$defs");
    let optional = root::before_portable(&mut root);
    let Value::Object(mut out) = profile.node(&Value::Object(root), 0) else {
        unreachable!("an object schema stays an object");
    };
    // A union of objects (a tagged enum) becomes one object; `Option<Args>` requires nothing.
    if let Some(merged) = root::portable_root(out.clone(), optional) {
        out = merged;
    }
    if let Some(left) = ["oneOf", "anyOf", "allOf"]
        .into_iter()
        .find(|k| out.contains_key(*k))
    {
        // Named as the author's type wrote it (a `oneOf` is advertised as `anyOf`).
        let keyword = composed.unwrap_or(left);
        return Err(RootComposition { keyword, type_name });
    }
    let kept = profile.kept_defs();
    if !kept.is_empty() {
        out.insert("$defs".into(), Value::Object(kept));
    }
    Ok(out)
}

struct Profile {
    defs: JsonObject,
    /// Definitions that reach themselves through `$ref`s: kept, never inlined.
    recursive: BTreeSet<String>,
    /// Definitions a `$ref` of the output still points at.
    kept: std::cell::RefCell<BTreeSet<String>>,
}

impl Profile {
    fn node(&self, schema: &Value, depth: usize) -> Value {
        let object = match schema {
            Value::Bool(true) => return Value::Object(JsonObject::new()),
            Value::Bool(false) => return not_anything(),
            Value::Object(object) => object,
            other => return other.clone(),
        };
        if let Some(target) = self.inlinable(object, depth) {
            let mut siblings = object.clone();
            siblings.remove_key("$ref");
            let Value::Object(siblings) = self.node(&Value::Object(siblings), depth) else {
                unreachable!("an object schema stays an object");
            };
            let Value::Object(inner) = self.node(target, depth + 1) else {
                unreachable!("a definition is an object schema");
            };
            return Value::Object(merge_or_all_of(siblings, inner));
        }
        if let Some(name) = object
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(local_def)
        {
            self.kept.borrow_mut().insert(name);
        }
        let mut out = JsonObject::new();
        for (key, value) in object {
            let value = match value {
                Value::Array(list) if SCHEMA_LIST.contains(&key.as_str()) => {
                    Value::Array(list.iter().map(|s| self.node(s, depth + 1)).collect())
                }
                Value::Object(map) if SCHEMA_MAP.contains(&key.as_str()) => Value::Object(
                    map.iter()
                        .map(|(name, s)| (name.clone(), self.node(s, depth + 1)))
                        .collect(),
                ),
                // `additionalProperties: false` is the one boolean every host takes.
                Value::Bool(false) if key == "additionalProperties" => Value::Bool(false),
                Value::Bool(true) if key == "additionalProperties" => continue,
                Value::Object(_) | Value::Bool(_) if SCHEMA.contains(&key.as_str()) => {
                    self.node(value, depth + 1)
                }
                Value::Array(list) if key == "items" => {
                    Value::Array(list.iter().map(|s| self.node(s, depth + 1)).collect())
                }
                other => other.clone(),
            };
            out.insert(key.clone(), value);
        }
        Value::Object(simplify(out))
    }

    /// The definition `object`'s `$ref` names, when it is inlined here.
    fn inlinable(&self, object: &JsonObject, depth: usize) -> Option<&Value> {
        let name = local_def(object.get("$ref")?.as_str()?)?;
        if self.recursive.contains(&name) || depth >= MAX_INLINE_DEPTH {
            return None;
        }
        self.defs.get(&name)
    }

    /// The definitions still referenced, each in its portable form, closed under the
    /// references they make themselves.
    fn kept_defs(&self) -> JsonObject {
        let mut done = BTreeMap::new();
        loop {
            let pending: Vec<String> = self
                .kept
                .borrow()
                .iter()
                .filter(|name| !done.contains_key(*name))
                .cloned()
                .collect();
            if pending.is_empty() {
                break;
            }
            for name in pending {
                let def = self.defs.get(&name).map_or(Value::Bool(true), |def| {
                    // A recursive definition is never inlined into itself.
                    self.node(def, 0)
                });
                done.insert(name, def);
            }
        }
        // In `$defs` order, so the output is deterministic and reads like the input.
        self.defs
            .keys()
            .filter_map(|name| done.remove(name).map(|def| (name.clone(), def)))
            .collect()
    }
}

/// `#/$defs/Name` → `Name` (unescaped); other references are not definitions.
fn local_def(reference: &str) -> Option<String> {
    let rest = reference.strip_prefix("#/$defs/")?;
    (!rest.contains('/')).then(|| def_name(rest))
}

/// The definitions that reach themselves through `$ref`s.
fn recursive_defs(defs: &JsonObject) -> BTreeSet<String> {
    let edges: BTreeMap<&str, BTreeSet<String>> = defs
        .iter()
        .map(|(name, def)| {
            let mut refs = BTreeSet::new();
            collect_refs(def, &mut refs);
            (name.as_str(), refs)
        })
        .collect();
    let mut recursive = BTreeSet::new();
    for start in defs.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<String> = edges[start.as_str()].iter().cloned().collect();
        while let Some(next) = stack.pop() {
            if next == *start {
                recursive.insert(start.clone());
                break;
            }
            if seen.insert(next.clone()) {
                if let Some(more) = edges.get(next.as_str()) {
                    stack.extend(more.iter().cloned());
                }
            }
        }
    }
    recursive
}

fn collect_refs(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(object) => {
            if let Some(name) = object
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(local_def)
            {
                out.insert(name);
            }
            object.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(list) => list.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

fn not_anything() -> Value {
    let mut not = JsonObject::new();
    not.insert("not".into(), Value::Object(JsonObject::new()));
    Value::Object(not)
}

/// The rewrites of one node whose children are already portable.
fn simplify(mut out: JsonObject) -> JsonObject {
    let mut dropped_null = false;
    if let Some(Value::Array(types)) = out.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        dropped_null = kept.len() < types.len();
        match kept.as_slice() {
            [] => {}
            [one] => {
                out.insert("type".into(), one.clone());
            }
            _ => out = split_types(out, kept),
        }
    }
    if dropped_null {
        if let Some(Value::Array(values)) = out.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
    }
    if out.get("default") == Some(&Value::Null) {
        out.remove_key("default");
    }
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = out.get(keyword) else {
            continue;
        };
        let rest: Vec<Value> = branches.iter().filter(|b| !is_null(b)).cloned().collect();
        match rest.as_slice() {
            [] => {
                out.remove_key(keyword);
            }
            [one] => {
                out.remove_key(keyword);
                let branch = one.as_object().cloned().unwrap_or_default();
                out = merge_or_all_of(out, branch);
            }
            _ => {
                out.remove_key(keyword);
                match unit_enum(&rest) {
                    Some(folded) => {
                        let description = join(
                            out.get("description").and_then(Value::as_str),
                            folded.description.as_deref(),
                        );
                        out = merge_or_all_of(out, folded.schema);
                        if let Some(description) = description {
                            out.insert("description".into(), description.into());
                        }
                    }
                    // serde's tagged variants exclude each other: `anyOf` accepts the same.
                    None => {
                        out.insert("anyOf".into(), Value::Array(rest));
                    }
                }
            }
        }
    }
    if let Some(Value::Array(parts)) = out.get("allOf") {
        let parts = parts.clone();
        out.remove_key("allOf");
        let mut unmerged = Vec::new();
        for part in parts {
            let part = part.as_object().cloned().unwrap_or_default();
            match merge(out.clone(), part.clone()) {
                Some(merged) => out = merged,
                None => unmerged.push(Value::Object(part)),
            }
        }
        if !unmerged.is_empty() {
            out.insert("allOf".into(), Value::Array(unmerged));
        }
    }
    if let Some(value) = out.remove_key("const") {
        out.entry("enum")
            .or_insert_with(|| Value::Array(vec![value]));
    }
    map_keys(&mut out);
    out
}

/// `{"type": ["string", "integer"], ...}` → `anyOf` of one type each, every other
/// validation keyword copied into each (a keyword for another type is ignored there).
fn split_types(out: JsonObject, types: Vec<Value>) -> JsonObject {
    let mut annotations = JsonObject::new();
    let mut rest = JsonObject::new();
    for (key, value) in out {
        if key == "type" {
            continue;
        }
        if ANNOTATIONS.contains(&key.as_str()) {
            annotations.insert(key, value);
        } else {
            rest.insert(key, value);
        }
    }
    let branches = types
        .into_iter()
        .map(|t| {
            let mut branch = JsonObject::new();
            branch.insert("type".into(), t);
            branch.extend(rest.clone());
            Value::Object(branch)
        })
        .collect();
    annotations.insert("anyOf".into(), Value::Array(branches));
    annotations
}

struct Folded {
    schema: JsonObject,
    /// The variants' docs, one line each, when any variant has one.
    description: Option<String>,
}

/// Branches that are each one constant of the same type (a unit enum whose variants have
/// docs: schemars writes `oneOf` of `{"const": ..., "description": ...}`), as one `enum`.
fn unit_enum(branches: &[Value]) -> Option<Folded> {
    let mut values = Vec::new();
    let mut lines = Vec::new();
    let mut any_doc = false;
    let mut ty: Option<&Value> = None;
    for branch in branches {
        let object = branch.as_object()?;
        if object.keys().any(|k| {
            !matches!(
                k.as_str(),
                "type" | "enum" | "const" | "description" | "title"
            )
        }) {
            return None;
        }
        if let Some(t) = object.get("type") {
            if ty.is_some_and(|seen| seen != t) || !t.is_string() {
                return None;
            }
            ty = Some(t);
        }
        let constants = match (object.get("const"), object.get("enum")) {
            (Some(value), None) => vec![value.clone()],
            (None, Some(Value::Array(list))) => list.clone(),
            _ => return None,
        };
        let doc = object.get("description").and_then(Value::as_str);
        any_doc |= doc.is_some();
        for value in constants {
            let shown = match &value {
                Value::String(s) => format!("`{s}`"),
                other => format!("`{other}`"),
            };
            lines.push(match doc {
                Some(doc) => format!("- {shown}: {doc}"),
                None => format!("- {shown}"),
            });
            values.push(value);
        }
    }
    let mut schema = JsonObject::new();
    if let Some(t) = ty {
        schema.insert("type".into(), t.clone());
    }
    schema.insert("enum".into(), Value::Array(values));
    Some(Folded {
        schema,
        description: any_doc.then(|| lines.join("\n")),
    })
}

/// A map whose keys are not plain strings: `patternProperties` (integer keys) and
/// `propertyNames` become `additionalProperties`, with the key rule in the description.
fn map_keys(out: &mut JsonObject) {
    let mut rules = Vec::new();
    if let Some(Value::Object(patterns)) = out.remove_key("patternProperties") {
        let mut values: Vec<Value> = Vec::new();
        for (pattern, schema) in patterns {
            rules.push(format!("`{pattern}`"));
            values.push(schema);
        }
        let value = match values.len() {
            1 => values.remove(0),
            _ => {
                let mut any = JsonObject::new();
                any.insert("anyOf".into(), Value::Array(values));
                Value::Object(any)
            }
        };
        out.insert("additionalProperties".into(), value);
    }
    let mut names = None;
    if let Some(names_schema) = out.remove_key("propertyNames") {
        names = Some(match &names_schema {
            Value::Object(o) if o.get("pattern").is_some() => {
                format!("match `{}`", o["pattern"].as_str().unwrap_or_default())
            }
            Value::Object(o) if o.get("enum").is_some() => {
                format!("are one of {}", o["enum"])
            }
            other => format!("match the schema `{other}`"),
        });
    }
    let rule = match (rules.as_slice(), names) {
        ([], None) => return,
        ([], Some(names)) => format!("Keys {names}."),
        ([one], None) => format!("Keys match {one}."),
        (many, None) => format!("Keys match one of {}.", many.join(", ")),
        (many, Some(names)) => format!("Keys match {} and {names}.", many.join(", ")),
    };
    let description = join(out.get("description").and_then(Value::as_str), Some(&rule));
    if let Some(description) = description {
        out.insert("description".into(), description.into());
    }
}

/// Two descriptions as one: the outer (the field's doc) first, then the inner (the type's)
/// when it says something else.
fn join(outer: Option<&str>, inner: Option<&str>) -> Option<String> {
    match (
        outer.filter(|s| !s.is_empty()),
        inner.filter(|s| !s.is_empty()),
    ) {
        (Some(outer), Some(inner)) if outer.contains(inner) => Some(outer.to_owned()),
        (Some(outer), Some(inner)) => Some(format!("{outer}\n\n{inner}")),
        (Some(one), None) | (None, Some(one)) => Some(one.to_owned()),
        (None, None) => None,
    }
}

/// `outer` and `inner` as one schema: `inner`'s keywords, then `outer`'s (its annotations
/// win, descriptions are joined). `None` when a validation keyword differs in both.
fn merge(outer: JsonObject, inner: JsonObject) -> Option<JsonObject> {
    let description = join(
        outer.get("description").and_then(Value::as_str),
        inner.get("description").and_then(Value::as_str),
    );
    let mut merged = inner;
    for (key, value) in outer {
        match merged.get(&key) {
            Some(existing) if *existing == value => {}
            Some(_) if ANNOTATIONS.contains(&key.as_str()) => {
                merged.insert(key, value);
            }
            Some(_) => return None,
            None => {
                merged.insert(key, value);
            }
        }
    }
    if let Some(description) = description {
        merged.insert("description".into(), description.into());
    }
    Some(merged)
}

/// [`merge`], or `outer` with `inner` under `allOf` when they conflict.
fn merge_or_all_of(outer: JsonObject, inner: JsonObject) -> JsonObject {
    match merge(outer.clone(), inner.clone()) {
        Some(merged) => merged,
        None => {
            let mut out = outer;
            out.insert("allOf".into(), Value::Array(vec![Value::Object(inner)]));
            out
        }
    }
}

pub(crate) mod root;
#[cfg(test)]
mod tests;
