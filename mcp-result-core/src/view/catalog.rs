//! The tools of a server as a client knows them, with each `outputSchema` compiled once.

use std::{
    collections::HashMap,
    fmt,
    sync::{
        atomic::{AtomicUsize, Ordering},
        OnceLock,
    },
};

use jsonschema::{error::ValidationErrorKind, ValidationError, Validator};
use rmcp::model::{CallToolResult, Tool};
use serde_json::Value;

use super::ResultView;
use crate::schema::ToolOutputSchema;

/// At most this many violations are kept per invalid value.
const MAX_VIOLATIONS: usize = 20;
/// A violation message is cut to this many characters (it may quote the offending value).
const MAX_MESSAGE_CHARS: usize = 300;

/// The tools of one server (a `tools/list` result), keyed by name, each tool's
/// `outputSchema` compiled into a validator on first use and reused for every later result.
///
/// Build it from `Peer::list_all_tools` and rebuild it (or [`insert`](Self::insert)) when
/// the server sends `notifications/tools/list_changed`. A schema that does not compile
/// breaks only its own tool: its results report
/// [`ViewError::UnusableSchema`](super::ViewError::UnusableSchema)
/// (real clients that reject a whole `tools/list` over one bad schema lose every tool).
///
/// Schemas are JSON Schema 2020-12 unless they declare another draft with `$schema` (MCP
/// 2025-11-25 "JSON Schema Usage"). References are resolved inside the schema only; nothing
/// is fetched over the network.
///
/// ```
/// use mcp_result_core::schema::empty_input_schema;
/// use mcp_result_core::view::ToolCatalog;
/// use mcp_result_core::rmcp::model::{CallToolResult, ContentBlock, Tool};
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"total": {"type": "integer"}},
///                     "required": ["total"]});
/// let tool = Tool::new("count", "Counts things.", empty_input_schema())
///     .with_raw_output_schema(schema.as_object().unwrap().clone().into());
/// let catalog = ToolCatalog::new([tool]);
///
/// let mut result = CallToolResult::success(vec![ContentBlock::text("Counted 3 things.")]);
/// result.structured_content = Some(json!({"total": 3}));
/// let view = catalog.view("count", result);
/// assert_eq!(view.structured_value().unwrap()["total"], 3);
/// assert!(view.schema_checked());
/// ```
#[derive(Default)]
pub struct ToolCatalog {
    tools: HashMap<String, ToolEntry>,
    compiled: AtomicUsize,
}

impl ToolCatalog {
    /// A catalog of `tools` (a later tool of the same name replaces an earlier one).
    /// Nothing is compiled yet.
    pub fn new(tools: impl IntoIterator<Item = Tool>) -> Self {
        let mut catalog = Self::default();
        for tool in tools {
            catalog.insert(tool);
        }
        catalog
    }

    /// Adds `tool`, or replaces the tool of the same name (and drops its compiled
    /// validator).
    pub fn insert(&mut self, tool: Tool) {
        self.tools
            .insert(tool.name.to_string(), ToolEntry::new(tool));
    }

    /// The definition of tool `name`, as `tools/list` gave it.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.get(name).map(|entry| &entry.tool)
    }

    /// The names of the tools, in no particular order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// How many `outputSchema`s this catalog has compiled so far: at most one per tool,
    /// however many results it has viewed.
    ///
    /// A test hook (feature `test-hooks`, no semver guarantees).
    #[cfg(feature = "test-hooks")]
    pub fn compiled_validators(&self) -> usize {
        self.compiled.load(Ordering::Relaxed)
    }

    /// The view of `result`, returned by a call of tool `name`: checked against that tool's
    /// `outputSchema` and unwrapped when the tool's output is wrapped
    /// ([`ToolOutputSchema::read`]).
    ///
    /// A tool the catalog does not know gives a view like [`ResultView::new`]: nothing to
    /// check against ([`ResultView::schema_checked`] is `false`).
    pub fn view(&self, name: &str, result: CallToolResult) -> ResultView {
        match self.tools.get(name) {
            Some(entry) => ResultView::build(Some(name), Some((entry, &self.compiled)), result),
            None => ResultView::build(Some(name), None, result),
        }
    }
}

impl fmt::Debug for ToolCatalog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self.names().collect();
        names.sort_unstable();
        f.debug_struct("ToolCatalog")
            .field("tools", &names)
            .field(
                "compiled_validators",
                &self.compiled.load(Ordering::Relaxed),
            )
            .finish()
    }
}

/// One tool and its validator, compiled on first use.
pub(crate) struct ToolEntry {
    pub(crate) tool: Tool,
    /// The property the result is wrapped under ([`ToolOutputSchema::wrapped`]).
    pub(crate) wrap_property: Option<String>,
    validator: OnceLock<Result<Validator, String>>,
}

impl ToolEntry {
    pub(crate) fn new(tool: Tool) -> Self {
        let wrap_property = ToolOutputSchema::read(&tool).and_then(|schema| schema.wrapped);
        Self {
            tool,
            wrap_property,
            validator: OnceLock::new(),
        }
    }

    /// The compiled `outputSchema`; `None` when the tool advertises none, `Err` with the
    /// compiler's message when it does not compile.
    pub(crate) fn validator(&self, compiled: &AtomicUsize) -> Option<Result<&Validator, &str>> {
        let schema = self.tool.output_schema.as_ref()?;
        let validator = self.validator.get_or_init(|| {
            compiled.fetch_add(1, Ordering::Relaxed);
            jsonschema::validator_for(&Value::Object((**schema).clone()))
                .map_err(|error| error.to_string())
        });
        Some(validator.as_ref().map_err(String::as_str))
    }
}

/// One way a value fails a tool's `outputSchema`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SchemaViolation {
    /// JSON Pointer (RFC 6901) to the offending value inside the structured value, e.g.
    /// `/findings/0/severity`; `""` for the value itself. For a missing required property
    /// it points at the property that should be there.
    pub instance_path: String,
    /// JSON Pointer to the schema keyword that failed, e.g. `/anyOf/0/properties/total/type`.
    pub schema_path: String,
    /// What is wrong, e.g. `"three" is not of type "integer"` (at most 300 characters).
    pub message: String,
}

impl SchemaViolation {
    pub(crate) fn new(instance_path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            instance_path: instance_path.into(),
            schema_path: String::new(),
            message: message.into(),
        }
    }
}

impl fmt::Display for SchemaViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.instance_path.is_empty() {
            "(root)"
        } else {
            &self.instance_path
        };
        write!(f, "at {path}: {}", self.message)
    }
}

/// Every way `value` fails `validator`, most specific first.
///
/// An `anyOf`/`oneOf` that no branch accepts is reported through the branch the value came
/// closest to (the fewest violations at the value itself, then the fewest overall): for
/// mcp-result's `{"anyOf": [success, ToolError]}` that is the success branch, so the path
/// names the bad field instead of the root.
pub(crate) fn violations(validator: &Validator, value: &Value) -> Vec<SchemaViolation> {
    let mut out = Vec::new();
    for error in validator.iter_errors(value) {
        flatten(&error, &mut out);
    }
    if out.is_empty() {
        // `is_valid` said no but no error was reported: never leave the caller without one.
        out.push(SchemaViolation::new(
            "",
            "the value does not match the schema",
        ));
    }
    out.truncate(MAX_VIOLATIONS);
    out
}

fn flatten(error: &ValidationError<'_>, out: &mut Vec<SchemaViolation>) {
    if let ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } =
        error.kind()
    {
        let here = error.instance_path().as_str();
        let closest = context
            .iter()
            .filter(|branch| !branch.is_empty())
            .min_by_key(|branch| {
                let at_root = branch
                    .iter()
                    .filter(|e| e.instance_path().as_str() == here)
                    .count();
                (at_root, branch.len())
            });
        if let Some(branch) = closest {
            for error in branch {
                flatten(error, out);
            }
            return;
        }
    }
    out.push(violation(error));
}

fn violation(error: &ValidationError<'_>) -> SchemaViolation {
    let mut pointer = error.instance_path().as_str().to_owned();
    if let ValidationErrorKind::Required {
        property: Value::String(name),
    } = error.kind()
    {
        pointer.push('/');
        pointer.push_str(&crate::wire::pointer::escape(name));
    }
    SchemaViolation {
        instance_path: pointer,
        schema_path: error.schema_path().as_str().to_owned(),
        message: super::block::truncate_chars(&error.to_string(), MAX_MESSAGE_CHARS),
    }
}
