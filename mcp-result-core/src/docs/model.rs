//! The data model of tool docs: what extraction fills in and the renderers read.

use rmcp::model::{Tool, ToolAnnotations};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::lint::{Finding, Host};

/// The documentation of a server's tools: what [`ServerDocs::to_markdown`] and
/// [`ServerDocs::to_json`] render.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ServerDocs {
    /// The server's name, used in the Markdown heading and the JSON `server` key.
    pub server: String,
    /// One entry per tool, sorted by name.
    pub tools: Vec<ToolDoc>,
    /// The hosts each tool is linted for ([`ToolDoc::host_findings`]):
    /// [`Host::PORTABLE`] unless [`ServerDocs::with_hosts`] says otherwise.
    pub hosts: Vec<Host>,
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
    /// order: [`crate::keys::CONTRACT_KEYS`], then [`crate::keys::COMPANION_KEYS`].
    pub write_contract_fields: Vec<String>,
    /// The time limit in milliseconds (`#[mcp_tool(timeout_ms = N)]`), when known and set.
    pub time_limit_ms: Option<u64>,
    /// Where a write's idempotency key goes and how long it is kept, when the tool says.
    pub idempotency: Option<crate::idempotency::Advertised>,
    /// A human approves each call first (`#[mcp_tool(approval = "...")]`).
    pub requires_approval: bool,
    /// The OAuth scopes a caller needs (`#[mcp_tool(scopes = "...")]`; the tool's `_meta`
    /// [`crate::keys::SCOPES_META`]); empty for none.
    pub scopes: Vec<String>,
    /// How the tool pages its result (a `Pager` parameter: `cursor`, `pageSize`,
    /// `nextCursor`), when it does.
    pub paging: Option<crate::pagination::Advertised>,
    /// How a non-object result is wrapped (the `wrapped` of
    /// [`crate::schema::ToolOutputSchema`]).
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
    /// What the hosts of [`ServerDocs::hosts`] reject or degrade in this tool
    /// ([`crate::lint`]); empty when every one of them accepts it.
    pub host_findings: Vec<Finding>,
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

/// A tool whose non-object result is wrapped under one property of `structuredContent`
/// (MCP 2025-06-18 and 2025-11-25 require an object root), as its `_meta` says.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Wrap {
    /// The `_meta` key that says so: [`crate::keys::WRAP_META_KEY`].
    pub meta_key: String,
    /// Its value: the property holding the result, e.g. `"result"`.
    pub value: String,
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
    /// When the framework itself returns it for this tool (invalid arguments, the time
    /// limit, a panic): `None` for kinds only the tool's own code returns. Which kinds the
    /// framework returns comes from [`crate::ToolRegistry::framework_error_kinds`] when
    /// the docs are built from a registry.
    pub framework: Option<String>,
}
