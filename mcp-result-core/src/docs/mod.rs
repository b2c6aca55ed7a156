//! Documentation of every tool a server exposes, rendered from its `tools/list` payload.
//!
//! The source is the data clients get: each rmcp [`Tool`] (`name`, `title`, `description`,
//! `inputSchema`, `outputSchema`, `annotations`, `_meta`), as [`ToolRegistry::tools`] serves
//! it, plus the one fact `tools/list` does not carry, each tool's time limit
//! ([`ToolRegistry::timeout`]). Nothing is read from Rust types directly, so the docs say what
//! a client sees: a `#[secret]` field is absent from every schema by construction
//! ([`crate::Secret`]), hence from the docs too.
//!
//! Two renderings of one [`ServerDocs`] value:
//!
//! - [`ServerDocs::to_markdown`]: a table of contents, then per tool its title, description,
//!   annotations (MCP defaults applied where a hint is absent), the write contract, input
//!   parameters, output fields, error kinds and artifacts; then the error envelope.
//! - [`ServerDocs::to_json`]: `{"server", "tools", "docs", "errorEnvelope"}` where `tools` is
//!   the `tools/list` payload and `docs` maps each tool name to its [`ToolDoc`].
//!
//! Both are deterministic: tools are sorted by name; properties keep the order of their
//! schema (the serialization order of the Rust type); `$ref`s are resolved inside each
//! schema (schemas are self-contained, MCP 2025-11-25 "JSON Schema Usage").
//!
//! ```
//! use std::sync::Arc;
//! use mcp_result_core::{docs::ServerDocs, rmcp::model::{Tool, ToolAnnotations}, serde_json::json};
//!
//! let input = json!({
//!     "type": "object",
//!     "properties": {"query": {"type": "string", "minLength": 1, "description": "Words to find."}},
//!     "required": ["query"]
//! });
//! let tool = Tool::new("search", "Search things.", Arc::new(input.as_object().unwrap().clone()))
//!     .with_annotations(ToolAnnotations::new().read_only(true));
//! let docs = ServerDocs::from_tools("demo", &[tool]);
//! let markdown = docs.to_markdown();
//! assert!(markdown.contains("| `query` | string | yes | minLength: `1` | Words to find. |"));
//! assert_eq!(docs.to_json()["docs"]["search"]["hints"]["destructive"]["declared"], false);
//! ```

use std::{collections::HashMap, fmt::Write as _, time::Duration};

use rmcp::model::{Tool, ToolAnnotations};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::server::{
    handler::ToolSet,
    registry::{RegistryError, ToolRegistry},
};

/// The write-contract keys every write tool's success result serializes (see
/// [`crate::contract`]).
const CONTRACT_FIELDS: [&str; 3] = ["status", "retrySafe", "auditEventId"];
/// The optional write-contract companions, type-checked when present.
const COMPANION_FIELDS: [&str; 3] = ["externalId", "requiresHumanReview", "redactionApplied"];

/// The JSON Schema keywords shown as constraints, in display order.
const CONSTRAINT_KEYWORDS: [&str; 20] = [
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

/// The headings of each tool's sections, in order.
const TOOL_SECTIONS: [&str; 3] = ["Input parameters", "Output fields", "Errors"];
/// The heading of the error envelope section.
const ENVELOPE_HEADING: &str = "Error envelope";

/// How deep nested types are expanded (a recursive type stops at its first repetition).
const MAX_DEPTH: usize = 12;

/// The documentation of a server's tools: what [`ServerDocs::to_markdown`] and
/// [`ServerDocs::to_json`] render.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerDocs {
    /// The server's name, used in the Markdown heading and the JSON `server` key.
    pub server: String,
    /// One entry per tool, sorted by name.
    pub tools: Vec<ToolDoc>,
    /// The fields of the `ToolError` envelope every error result carries (taken from the
    /// first tool whose `outputSchema` has one); empty when no tool has it.
    pub error_envelope: Vec<FieldDoc>,
}

/// The documentation of one tool, derived from its `tools/list` entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolDoc {
    /// The `tools/list` entry itself (in the JSON rendering it is the `tools` array entry,
    /// not repeated under `docs`).
    #[serde(skip)]
    pub tool: Tool,
    /// The tool's name.
    pub name: String,
    /// `title`, or else `annotations.title`.
    pub title: Option<String>,
    /// The tool's description.
    pub description: String,
    /// The behaviour hints in effect.
    pub hints: Hints,
    /// Whether the tool is a write tool: not `readOnlyHint` (absent means `false`, so a tool
    /// that does not say is a write tool; the mcp-result write contract fails closed).
    pub write_tool: bool,
    /// The write-contract keys its success result serializes at the top level, in contract
    /// order: `status`, `retrySafe`, `auditEventId`, then the companions `externalId`,
    /// `requiresHumanReview`, `redactionApplied`.
    pub write_contract_fields: Vec<String>,
    /// The time limit in milliseconds (`#[mcp_tool(timeout_ms = N)]`), when known and set.
    pub time_limit_ms: Option<u64>,
    /// How a non-object result is wrapped, from the tool's `_meta`.
    pub wrap: Option<Wrap>,
    /// The success result's type name (the `title` of its schema), if any.
    pub result_type: Option<String>,
    /// The success result's description, if any.
    pub result_description: Option<String>,
    /// The argument fields, nested ones included (paths such as `filter.since`).
    pub inputs: Vec<FieldDoc>,
    /// The success result's fields, nested ones included (paths such as `findings[].id`).
    pub outputs: Vec<FieldDoc>,
    /// The `errorKind` values of the error envelope, with which the framework produces.
    pub error_kinds: Vec<ErrorKindDoc>,
    /// Paths of output fields whose schema has `format: "uri"` (links to artifacts).
    pub artifacts: Vec<String>,
}

/// The four MCP tool behaviour hints, each with the value in effect.
///
/// Defaults when a hint is absent (MCP 2025-11-25, `ToolAnnotations`): `readOnlyHint` false,
/// `destructiveHint` true, `idempotentHint` false, `openWorldHint` true.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Hints {
    /// `readOnlyHint`: the tool does not modify its environment.
    pub read_only: Hint,
    /// `destructiveHint`: the tool may destroy or overwrite (meaningful for write tools).
    pub destructive: Hint,
    /// `idempotentHint`: repeating a call has no further effect (meaningful for write tools).
    pub idempotent: Hint,
    /// `openWorldHint`: the tool reaches entities outside the server.
    pub open_world: Hint,
}

impl Hints {
    /// The hints in effect for `annotations` (absent annotations: all defaults).
    pub fn of(annotations: Option<&ToolAnnotations>) -> Self {
        let hint = |declared: Option<bool>, default: bool| Hint {
            value: declared.unwrap_or(default),
            declared: declared.is_some(),
        };
        let a = annotations.cloned().unwrap_or_default();
        Self {
            read_only: hint(a.read_only_hint, false),
            destructive: hint(a.destructive_hint, true),
            idempotent: hint(a.idempotent_hint, false),
            open_world: hint(a.open_world_hint, true),
        }
    }
}

/// One behaviour hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Hint {
    /// The value in effect: the declared one, or the MCP default.
    pub value: bool,
    /// `true` when the tool's annotations carry the hint, `false` when `value` is the
    /// default.
    pub declared: bool,
}

/// A `_meta` entry saying that a non-object result is wrapped under one property of
/// `structuredContent` (MCP 2025-06-18 and 2025-11-25 require an object root).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Wrap {
    /// The `_meta` key, one whose last segment is `wrap` or `wrapped` (e.g.
    /// `io.github.mcp-result/wrapped`).
    pub meta_key: String,
    /// Its value, e.g. `"result"`: the property holding the value.
    pub value: Value,
}

/// One field of an input or output schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FieldDoc {
    /// Where the field is: property names joined by `.`, `[]` for array items, `*` for map
    /// values; e.g. `findings[].severity`.
    pub path: String,
    /// The type in words: `string`, `integer or null`, `array of Finding`, a definition
    /// name for a `$ref`.
    #[serde(rename = "type")]
    pub type_name: String,
    /// Listed in its object's `required` (for outputs: always present).
    pub required: bool,
    /// JSON Schema constraints (`minimum`, `maxLength`, `enum`, `pattern`, `format`,
    /// `default`, ...) of the field, its `$ref` target or its non-null branch; those of
    /// array items under `items`.
    pub constraints: Map<String, Value>,
    /// The field's `description` (from its doc comment), or that of its type.
    pub description: Option<String>,
    /// For a field of one variant of a union (a tagged enum): which variant, e.g.
    /// `kind = "api_key"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
}

/// One `errorKind` a tool can return.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ErrorKindDoc {
    /// The serialized kind, e.g. `validation_error`.
    pub kind: String,
    /// What it means (the envelope schema's description of the value).
    pub description: Option<String>,
    /// When the framework itself returns it for this tool (`ToolRegistry::call`): invalid
    /// arguments, a panic, the time limit; `None` for kinds only the tool's own code
    /// returns.
    pub framework: Option<String>,
}

impl ServerDocs {
    /// The docs of a [`ToolSet`]'s tools, time limits included.
    ///
    /// # Errors
    /// The [`RegistryError`] of a broken tool definition.
    pub fn for_tool_set<S: ToolSet>(
        server: impl Into<String>,
    ) -> Result<Self, &'static RegistryError> {
        Ok(Self::from_router(server, S::tool_registry()?))
    }

    /// The docs of a router's tools, time limits included.
    pub fn from_router<S>(server: impl Into<String>, router: &ToolRegistry<S>) -> Self {
        Self::build(server.into(), router.tools(), |name| router.timeout(name))
    }

    /// The docs of any `tools/list` payload (time limits unknown: not documented).
    pub fn from_tools(server: impl Into<String>, tools: &[Tool]) -> Self {
        Self::build(server.into(), tools, |_| None)
    }

    fn build(server: String, tools: &[Tool], timeout: impl Fn(&str) -> Option<Duration>) -> Self {
        let mut sorted: Vec<&Tool> = tools.iter().collect();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        let mut error_envelope = Vec::new();
        let tools = sorted
            .into_iter()
            .map(|tool| {
                let (doc, envelope) = ToolDoc::build(tool, timeout(&tool.name));
                if error_envelope.is_empty() {
                    error_envelope = envelope;
                }
                doc
            })
            .collect();
        Self {
            server,
            tools,
            error_envelope,
        }
    }

    /// The JSON rendering: the `tools/list` payload plus the derived metadata.
    ///
    /// ```json
    /// {"server": "helpdesk",
    ///  "tools": [<each Tool exactly as tools/list serves it, sorted by name>],
    ///  "docs": {"<tool name>": <ToolDoc: hints, writeTool, inputs, outputs, errorKinds, ...>},
    ///  "errorEnvelope": [<FieldDoc>, ...]}
    /// ```
    pub fn to_json(&self) -> Value {
        let mut docs = Map::new();
        for doc in &self.tools {
            docs.insert(doc.name.clone(), to_value(doc));
        }
        let mut root = Map::new();
        root.insert("server".into(), Value::String(self.server.clone()));
        root.insert(
            "tools".into(),
            Value::Array(self.tools.iter().map(|doc| to_value(&doc.tool)).collect()),
        );
        root.insert("docs".into(), Value::Object(docs));
        root.insert("errorEnvelope".into(), to_value(&self.error_envelope));
        Value::Object(root)
    }

    /// [`ServerDocs::to_json`] pretty-printed (two-space indent) with a final newline.
    pub fn to_json_pretty(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.to_json()).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The Markdown rendering (GitHub-flavoured: tables; heading anchors as GitHub computes
    /// them, which the table of contents links to).
    ///
    /// Layout: `# Tools of <server>`, `## Contents`, then `## <tool name>` per tool with
    /// `### Input parameters`, `### Output fields`, `### Errors`; last `## Error envelope`.
    pub fn to_markdown(&self) -> String {
        // Every heading in document order, so each anchor is known before it is linked.
        let mut anchors = Anchors::default();
        let title = format!("Tools of {}", self.server);
        anchors.add(&title);
        anchors.add("Contents");
        let mut tool_anchors = Vec::with_capacity(self.tools.len());
        for doc in &self.tools {
            tool_anchors.push(anchors.add(&doc.name));
            for section in TOOL_SECTIONS {
                anchors.add(section);
            }
        }
        let envelope_anchor = anchors.add(ENVELOPE_HEADING);

        let mut out = format!("# {title}\n\n");
        out.push_str(
            "<!-- Generated by mcp_result::docs::ServerDocs from the tools/list payload. \
             Do not edit by hand. -->\n\n",
        );
        let _ = writeln!(
            out,
            "{} tools, documented from the server's `tools/list` payload. A behaviour hint \
             absent from a tool's annotations takes its MCP default: `readOnlyHint` false, \
             `destructiveHint` true, `idempotentHint` false, `openWorldHint` true. Secret \
             fields are in no schema, so they are not listed here.\n",
            self.tools.len()
        );
        out.push_str("## Contents\n\n");
        for (doc, anchor) in self.tools.iter().zip(&tool_anchors) {
            let kind = if doc.write_tool {
                "write tool"
            } else {
                "read-only"
            };
            let summary = match &doc.title {
                Some(title) => format!("{} ({kind})", collapse(title)),
                None => format!("({kind})"),
            };
            let _ = writeln!(out, "- [{}](#{anchor}): {summary}", code(&doc.name));
        }
        if !self.error_envelope.is_empty() {
            let _ = writeln!(out, "- [{ENVELOPE_HEADING}](#{envelope_anchor})");
        }
        out.push('\n');
        for doc in &self.tools {
            doc.markdown(&mut out, &envelope_anchor);
        }
        if !self.error_envelope.is_empty() {
            let _ = writeln!(out, "## {ENVELOPE_HEADING}\n");
            out.push_str(
                "Every error result (`isError: true`) carries this object in \
                 `structuredContent`, and every tool's `outputSchema` accepts it \
                 (`{\"type\": \"object\", \"anyOf\": [<success>, <this envelope>]}`). \
                 Protocol errors (an unknown tool, a malformed `tools/call`) are JSON-RPC \
                 errors instead.\n\n",
            );
            fields_table(&mut out, &self.error_envelope);
            let kinds = self
                .tools
                .iter()
                .map(|doc| &doc.error_kinds)
                .find(|k| !k.is_empty());
            if let Some(kinds) = kinds {
                out.push_str("The error kinds (`errorKind`):\n\n");
                out.push_str("| errorKind | meaning |\n|---|---|\n");
                for kind in kinds {
                    let _ = writeln!(
                        out,
                        "| {} | {} |",
                        cell(&code(&kind.kind)),
                        cell(kind.description.as_deref().unwrap_or_default()),
                    );
                }
                out.push('\n');
            }
        }
        while out.ends_with("\n\n") {
            out.pop();
        }
        out
    }
}

impl ToolDoc {
    /// The docs of one tool; `time_limit` is its `timeout_ms`, when known.
    pub fn from_tool(tool: &Tool, time_limit: Option<Duration>) -> Self {
        Self::build(tool, time_limit).0
    }

    fn build(tool: &Tool, time_limit: Option<Duration>) -> (Self, Vec<FieldDoc>) {
        let hints = Hints::of(tool.annotations.as_ref());
        let title = tool
            .title
            .clone()
            .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()));
        let input_root = Value::Object((*tool.input_schema).clone());
        let inputs = Walker::new(&input_root, false).rows_of(&input_root);

        let output_root = tool
            .output_schema
            .as_ref()
            .map(|schema| Value::Object((**schema).clone()));
        let mut outputs = Vec::new();
        let mut artifacts = Vec::new();
        let mut envelope_rows = Vec::new();
        let mut error_kinds = Vec::new();
        let mut result_type = None;
        let mut result_description = None;
        let mut write_contract_fields = Vec::new();
        if let Some(root) = &output_root {
            let (successes, envelope) = split_output(root);
            let walker = Walker::new(root, true);
            let success = match successes.as_slice() {
                [one] => (*one).clone(),
                many => serde_json::json!({ "anyOf": many }),
            };
            let mut success_walker = Walker::new(root, true);
            outputs = success_walker.rows_of(&success);
            artifacts = success_walker.artifacts;
            let (core, name) = walker.deref(&success);
            result_type = core
                .get("title")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or(name);
            result_description = core
                .get("description")
                .and_then(Value::as_str)
                .map(collapse);
            let top: Vec<&str> = outputs
                .iter()
                .filter(|f| !f.path.contains(['.', '[']))
                .map(|f| f.path.as_str())
                .collect();
            write_contract_fields = CONTRACT_FIELDS
                .iter()
                .chain(&COMPANION_FIELDS)
                .filter(|name| top.contains(name))
                .map(|name| (*name).to_owned())
                .collect();
            if let Some(envelope) = envelope {
                envelope_rows = Walker::new(root, true).rows_of(envelope);
                error_kinds = walker.error_kinds(envelope, time_limit, hints.idempotent.value);
            }
        }
        let wrap = tool.meta.as_ref().and_then(|meta| {
            meta.0
                .iter()
                .find(|(key, _)| key.ends_with("/wrap") || key.ends_with("/wrapped"))
                .map(|(key, value)| Wrap {
                    meta_key: key.clone(),
                    value: value.clone(),
                })
        });
        let doc = Self {
            tool: tool.clone(),
            name: tool.name.to_string(),
            title,
            description: tool.description.as_deref().unwrap_or_default().to_owned(),
            hints,
            write_tool: !hints.read_only.value,
            write_contract_fields,
            time_limit_ms: time_limit.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            wrap,
            result_type,
            result_description,
            inputs,
            outputs,
            error_kinds,
            artifacts,
        };
        (doc, envelope_rows)
    }

    fn markdown(&self, out: &mut String, envelope_anchor: &str) {
        let _ = writeln!(out, "## {}\n", code(&self.name));
        let description = self.description.trim();
        if !description.is_empty() {
            let _ = writeln!(out, "{description}\n");
        }
        out.push_str("| fact | value | source |\n|---|---|---|\n");
        let mut fact = |name: &str, value: String, source: String| {
            let _ = writeln!(out, "| {name} | {} | {} |", cell(&value), cell(&source));
        };
        let source_of_title = if self.tool.title.is_some() {
            "`title`"
        } else {
            "`annotations.title`"
        };
        match &self.title {
            Some(title) => fact("title", title.clone(), source_of_title.into()),
            None => fact("title", "none".into(), "`title`".into()),
        }
        for (name, keyword, hint) in [
            ("read-only", "readOnlyHint", self.hints.read_only),
            ("destructive", "destructiveHint", self.hints.destructive),
            ("idempotent", "idempotentHint", self.hints.idempotent),
            ("open-world", "openWorldHint", self.hints.open_world),
        ] {
            let mut source = if hint.declared {
                format!("declared: `{keyword}: {}`", hint.value)
            } else {
                format!("MCP default (`{keyword}` absent)")
            };
            if !self.write_tool && matches!(keyword, "destructiveHint" | "idempotentHint") {
                source.push_str("; meaningful for write tools only");
            }
            fact(name, yes_no(hint.value).into(), source);
        }
        fact(
            "write tool",
            yes_no(self.write_tool).into(),
            "every tool that is not read-only (mcp-result write contract)".into(),
        );
        fact(
            "write-contract fields",
            list_or_none(self.write_contract_fields.iter().map(|f| code(f))),
            "top-level success fields among `status`, `retrySafe`, `auditEventId`, \
             `externalId`, `requiresHumanReview`, `redactionApplied`"
                .into(),
        );
        fact(
            "time limit",
            self.time_limit_ms
                .map_or_else(|| "none".into(), |ms| format!("{ms} ms")),
            "`#[mcp_tool(timeout_ms = N)]`".into(),
        );
        let wrap = match &self.wrap {
            None => ("none".into(), "`_meta` has no `.../wrap` key".into()),
            Some(wrap) => {
                let value = match &wrap.value {
                    Value::String(property) => {
                        format!("the value is wrapped under the property {}", code(property))
                    }
                    other => format!("wrapped: {}", code(&other.to_string())),
                };
                (value, format!("`_meta` key {}", code(&wrap.meta_key)))
            }
        };
        fact("result wrapping", wrap.0, wrap.1);
        fact(
            "artifacts",
            list_or_none(self.artifacts.iter().map(|a| code(a))),
            "output fields with `format: \"uri\"`".into(),
        );
        out.push('\n');

        let _ = writeln!(out, "### {}\n", TOOL_SECTIONS[0]);
        if self.inputs.is_empty() {
            out.push_str("None: the arguments object is empty.\n\n");
        } else {
            fields_table(out, &self.inputs);
        }

        let _ = writeln!(out, "### {}\n", TOOL_SECTIONS[1]);
        if self.tool.output_schema.is_none() {
            out.push_str("No `outputSchema`: the result is text only.\n\n");
        } else {
            let mut intro = String::from("The success result");
            if let Some(name) = &self.result_type {
                let _ = write!(intro, " {}", code(name));
            }
            intro.push_str(" in `structuredContent`");
            match &self.result_description {
                Some(description) => {
                    let _ = write!(intro, ": {description}");
                    if !description.ends_with(['.', '!', '?']) {
                        intro.push('.');
                    }
                }
                None => intro.push('.'),
            }
            let _ = writeln!(out, "{intro}\n");
            if self.outputs.is_empty() {
                out.push_str("It has no fields.\n\n");
            } else {
                fields_table(out, &self.outputs);
            }
        }

        let _ = writeln!(out, "### {}\n", TOOL_SECTIONS[2]);
        if self.error_kinds.is_empty() {
            out.push_str("The `outputSchema` declares no error envelope.\n\n");
        } else {
            let kinds: Vec<String> = self.error_kinds.iter().map(|k| code(&k.kind)).collect();
            let _ = write!(
                out,
                "An error result has `isError: true` and the [error envelope](#{envelope_anchor}) \
                 in `structuredContent`. Its `errorKind` is one of {}; the tool's own code may \
                 return any of them.",
                kinds.join(", ")
            );
            let framework: Vec<&ErrorKindDoc> = self
                .error_kinds
                .iter()
                .filter(|k| k.framework.is_some())
                .collect();
            if !framework.is_empty() {
                out.push_str(" The framework itself returns:\n\n");
                out.push_str("| errorKind | returned by the framework when |\n|---|---|\n");
                for kind in framework {
                    let _ = writeln!(
                        out,
                        "| {} | {} |",
                        cell(&code(&kind.kind)),
                        cell(kind.framework.as_deref().unwrap_or_default()),
                    );
                }
            }
            out.push('\n');
        }
    }
}

/// The success branches and the `ToolError` envelope branch of a tool `outputSchema`
/// (`{"type": "object", "anyOf": [success, envelope]}`, see [`crate::schema`]). A schema of
/// another shape is all success.
fn split_output(root: &Value) -> (Vec<&Value>, Option<&Value>) {
    let is_envelope = |branch: &Value| {
        branch.get("title").and_then(Value::as_str) == Some("ToolError")
            || branch.pointer("/properties/errorKind").is_some()
    };
    match root.get("anyOf").and_then(Value::as_array) {
        Some(branches) if root.get("properties").is_none() => {
            let envelope = branches.iter().find(|b| is_envelope(b));
            let successes = branches.iter().filter(|b| !is_envelope(b)).collect();
            (successes, envelope)
        }
        _ => (vec![root], None),
    }
}

/// Walks one self-contained schema (`root`, whose `$ref`s point into itself) into
/// [`FieldDoc`] rows.
struct Walker<'a> {
    root: &'a Value,
    /// Output side: `writeOnly` properties (what a client sends, never gets back) are left
    /// out.
    output: bool,
    rows: Vec<FieldDoc>,
    artifacts: Vec<String>,
    /// The definitions being expanded, to stop at a recursive type.
    stack: Vec<String>,
}

impl<'a> Walker<'a> {
    fn new(root: &'a Value, output: bool) -> Self {
        Self {
            root,
            output,
            rows: Vec::new(),
            artifacts: Vec::new(),
            stack: Vec::new(),
        }
    }

    fn rows_of(&mut self, schema: &Value) -> Vec<FieldDoc> {
        self.expand(schema, "", 0);
        std::mem::take(&mut self.rows)
    }

    /// The target of a local `$ref` (`#/$defs/Name`, any JSON Pointer into the root).
    fn target(&self, schema: &Value) -> Option<&'a Value> {
        let reference = schema.get("$ref")?.as_str()?;
        self.root.pointer(reference.strip_prefix('#')?)
    }

    /// Follows `$ref`s: the schema they end at and the last definition name followed.
    fn deref<'s>(&self, schema: &'s Value) -> (&'s Value, Option<String>)
    where
        'a: 's,
    {
        let mut schema = schema;
        let mut name = None;
        for _ in 0..MAX_DEPTH {
            let Some(target) = self.target(schema) else {
                break;
            };
            name = schema.get("$ref").and_then(Value::as_str).map(def_name);
            schema = target;
        }
        (schema, name)
    }

    /// The schema without its `null` alternative (`anyOf: [X, {"type": "null"}]` → X),
    /// `$ref`s followed; and the definition name reached, if any.
    fn core<'s>(&self, schema: &'s Value) -> (&'s Value, Option<String>)
    where
        'a: 's,
    {
        let (mut schema, mut name) = self.deref(schema);
        for _ in 0..MAX_DEPTH {
            let Some(branches) = union(schema) else {
                break;
            };
            let rest: Vec<&Value> = branches.iter().filter(|b| !is_null(b)).collect();
            let [only] = rest.as_slice() else {
                break;
            };
            let (next, next_name) = self.deref(only);
            schema = next;
            name = next_name.or(name);
        }
        (schema, name)
    }

    fn expand(&mut self, schema: &Value, path: &str, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let (core, name) = self.core(schema);
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
                let (branch, branch_name) = self.deref(branch);
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

    /// The properties of an object schema (its own and those of its `allOf` branches), in
    /// schema order, with whether each is required.
    fn properties<'s>(
        &self,
        object: &'s Value,
        out: &mut Vec<(String, &'s Value, bool)>,
        depth: usize,
    ) where
        'a: 's,
    {
        let object = self.deref(object).0;
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(properties) = object.get("properties").and_then(Value::as_object) {
            for (name, schema) in properties {
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
            let write_only = self.constraints(schema).get("writeOnly") == Some(&Value::Bool(true));
            if self.output && write_only {
                continue;
            }
            let path = format!("{prefix}{name}");
            let constraints = self.constraints(schema);
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
        let (core, _) = self.core(schema);
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
        if let Some(target) = self.target(schema) {
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
    fn description(&self, schema: &Value) -> Option<String> {
        let mut schema = schema;
        for depth in 0..MAX_DEPTH {
            if let Some(text) = schema.get("description").and_then(Value::as_str) {
                let text = match depth {
                    0 => text,
                    _ => text.split("\n\n").next().unwrap_or(text),
                };
                return Some(collapse(text));
            }
            if let Some(target) = self.target(schema) {
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

    /// The `errorKind` values of the envelope, with what the framework returns them for.
    fn error_kinds(
        &self,
        envelope: &Value,
        time_limit: Option<Duration>,
        idempotent: bool,
    ) -> Vec<ErrorKindDoc> {
        let Some(kind) = self.deref(envelope).0.pointer("/properties/errorKind") else {
            return Vec::new();
        };
        let (kind, _) = self.core(kind);
        let values: Vec<(String, Option<String>)> = match union(kind) {
            Some(branches) => branches
                .iter()
                .filter_map(|b| {
                    let value = b.get("const")?.as_str()?.to_owned();
                    Some((
                        value,
                        b.get("description").and_then(Value::as_str).map(collapse),
                    ))
                })
                .collect(),
            None => kind
                .get("enum")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| Some((v.as_str()?.to_owned(), None)))
                .collect(),
        };
        values
            .into_iter()
            .map(|(kind, description)| {
                let framework = match kind.as_str() {
                    "validation_error" => Some(
                        "the arguments fail the `inputSchema`: every failing field is in \
                         `fieldErrors`; `retrySafe: false`"
                            .to_owned(),
                    ),
                    "internal" => Some(
                        "the tool panics: the panic is logged and only a `correlationId` is \
                         returned; `retrySafe: false`"
                            .to_owned(),
                    ),
                    "upstream_timeout" => time_limit.map(|limit| {
                        format!(
                            "the call runs past its time limit of {} ms; `retrySafe: {idempotent}` \
                             (the tool is {}idempotent)",
                            limit.as_millis(),
                            if idempotent { "" } else { "not " }
                        )
                    }),
                    _ => None,
                };
                ErrorKindDoc {
                    kind,
                    description,
                    framework,
                }
            })
            .collect()
    }
}

/// The branches of an `anyOf` or `oneOf`.
fn union(schema: &Value) -> Option<&Vec<Value>> {
    schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
}

fn is_null(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

fn has_properties(schema: &Value) -> bool {
    schema.get("properties").is_some() || schema.get("allOf").is_some()
}

/// How a union branch is named: by its tag (`kind = "api_key"`: a property with a string
/// `const`), its `title`, its definition name, or its position.
fn variant_label(branch: &Value, name: Option<String>, index: usize) -> String {
    let tag = branch
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|properties| {
            properties.iter().find_map(|(key, schema)| {
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

/// The name a `$ref` points at: its last JSON Pointer segment, unescaped.
fn def_name(reference: &str) -> String {
    let last = reference.rsplit('/').next().unwrap_or(reference);
    last.replace("~1", "/").replace("~0", "~")
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
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn yes_no(value: bool) -> &'static str {
    if value {
        "yes"
    } else {
        "no"
    }
}

fn list_or_none(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// A Markdown code span holding `text` exactly, whatever backticks it contains.
fn code(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// Text for a table cell: one line, `|` escaped (GitHub-flavoured Markdown tables split
/// cells at unescaped pipes, inside code spans too).
fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous = ' ';
    for c in collapse(text).chars() {
        if c == '|' && previous != '\\' {
            out.push('\\');
        }
        out.push(c);
        previous = c;
    }
    out
}

/// The constraints of a field as a table cell, e.g. ``minimum: `1`; maximum: `50` ``.
fn constraints_text(constraints: &Map<String, Value>, variant: Option<&str>) -> String {
    let mut parts = Vec::new();
    if let Some(variant) = variant {
        parts.push(format!("in variant {}", code(variant)));
    }
    for (keyword, value) in constraints {
        let text = match (keyword.as_str(), value) {
            ("items", Value::Object(items)) => {
                format!("items: {}", constraints_text(items, None))
            }
            ("format" | "pattern", Value::String(raw)) => format!("{keyword}: {}", code(raw)),
            ("enum", Value::Array(values)) => format!(
                "one of {}",
                values
                    .iter()
                    .map(|v| code(&v.to_string()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => format!("{keyword}: {}", code(&value.to_string())),
        };
        parts.push(text);
    }
    parts.join("; ")
}

fn fields_table(out: &mut String, fields: &[FieldDoc]) {
    out.push_str("| name | type | required | constraints | description |\n");
    out.push_str("|---|---|---|---|---|\n");
    for field in fields {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            cell(&code(&field.path)),
            cell(&field.type_name),
            yes_no(field.required),
            cell(&constraints_text(
                &field.constraints,
                field.variant.as_deref()
            )),
            cell(field.description.as_deref().unwrap_or_default()),
        );
    }
    out.push('\n');
}

/// Heading anchors as GitHub computes them: lower case, characters other than letters,
/// digits, `-`, `_` and spaces removed, spaces turned into `-`; a repeated anchor gets
/// `-1`, `-2`, ...
#[derive(Default)]
struct Anchors {
    seen: HashMap<String, usize>,
}

impl Anchors {
    /// Registers a heading (its text as rendered, without Markdown markup) and returns its
    /// anchor.
    fn add(&mut self, heading: &str) -> String {
        let base: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let count = self.seen.entry(base.clone()).or_insert(0);
        let anchor = if *count == 0 {
            base.clone()
        } else {
            format!("{base}-{count}")
        };
        *count += 1;
        anchor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_follow_github() {
        let mut anchors = Anchors::default();
        assert_eq!(anchors.add("search_tickets"), "search_tickets");
        assert_eq!(anchors.add("Error envelope"), "error-envelope");
        assert_eq!(anchors.add("Errors"), "errors");
        assert_eq!(anchors.add("Errors"), "errors-1");
        assert_eq!(anchors.add("tickets.search"), "ticketssearch");
    }

    #[test]
    fn code_spans_and_cells_survive_backticks_and_pipes() {
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        assert_eq!(cell("a|b\nc"), "a\\|b c");
    }
}
