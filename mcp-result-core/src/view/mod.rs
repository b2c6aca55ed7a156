//! The client half: a view of a received `CallToolResult` that splits what the model sees
//! from what the user sees.
//!
//! A host that calls MCP tools has four things to get out of each result (MCP 2025-06-18
//! and later, "Tools"; DESIGN.md "The client side"):
//!
//! | you want | call | what you get |
//! |---|---|---|
//! | the data | [`ResultView::structured`] / [`structured_value`](ResultView::structured_value) | `structuredContent`, or for older servers the JSON text block, checked against the tool's `outputSchema` and unwrapped from `{"result": ...}` when the tool's `_meta` says so |
//! | what the model reads | [`ResultView::model_context`] | text for the assistant; media as a handle and one line, never base64; resource links as references; embedded resources summarized; `audience: ["user"]` blocks left out |
//! | what the user sees | [`ResultView::user_display`] | every block, user-only ones included, collapsed by `priority` to fit a character budget |
//! | the failure | [`ResultView::error`] | for `isError` results: the message and the parsed error envelope (kind, retry safety, field errors, retry-after, required scope, reason) |
//!
//! plus [`ResultView::resource_links`], the `resource_link`s to fetch with `resources/read`
//! on demand (a link is not guaranteed to be in `resources/list`).
//!
//! Build a [`ToolCatalog`] once from `tools/list`; it compiles each `outputSchema` on first
//! use and reuses it. A result whose structured value violates the schema still has a model
//! context, a user display and (if `isError`) an error view; only the structured accessors
//! return the [`ViewError::Invalid`] naming the JSON path and the reason. Nothing here
//! panics on what a server sends.
//!
//! ```
//! use mcp_result_core::rmcp::model::{
//!     Annotations, CallToolResult, ContentBlock, Role, TextContent, Tool,
//! };
//! use mcp_result_core::schema::empty_input_schema;
//! use mcp_result_core::view::{DisplayOptions, ToolCatalog};
//! use serde::Deserialize;
//! use serde_json::json;
//!
//! #[derive(Deserialize)]
//! struct Weather { celsius: f64 }
//!
//! let schema = json!({"type": "object", "properties": {"celsius": {"type": "number"}},
//!                     "required": ["celsius"]});
//! let tool = Tool::new("weather", "Current weather.", empty_input_schema())
//!     .with_raw_output_schema(schema.as_object().unwrap().clone().into());
//! let catalog = ToolCatalog::new([tool]);
//!
//! let mut result = CallToolResult::success(vec![
//!     ContentBlock::text("It is 21.5 °C."),
//!     ContentBlock::image("iVBORw0KGgo=", "image/png"),
//!     ContentBlock::Text(
//!         TextContent::new("Forecast chart attached.")
//!             .with_annotations(Annotations::default().with_audience(vec![Role::User])),
//!     ),
//! ]);
//! result.structured_content = Some(json!({"celsius": 21.5}));
//!
//! let view = catalog.view("weather", result);
//! assert_eq!(view.structured::<Weather>().unwrap().celsius, 21.5);
//!
//! let model = view.model_context().to_text();
//! assert!(model.contains("It is 21.5 °C."));
//! assert!(model.contains("[image content[1]: image/png, 8 B, data withheld]"));
//! assert!(!model.contains("iVBOR") && !model.contains("Forecast chart"));
//!
//! let user = view.user_display(&DisplayOptions::budget(500)).to_text();
//! assert!(user.contains("Forecast chart attached."));
//! assert!(view.error().is_none());
//! ```

mod block;
mod catalog;
mod display;
mod error;
mod model;

use std::{borrow::Cow, fmt, sync::atomic::AtomicUsize};

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use block::{priority, Audience, BlockHandle, MediaKind, ResourceRef};
pub use catalog::{SchemaViolation, ToolCatalog};
pub use display::{
    DisplayBody, DisplayItem, DisplayOptions, DisplayOrder, UserDisplay, DEFAULT_PRIORITY,
};
pub use error::{ErrorDetails, ErrorView};
pub use model::{ModelContext, ModelOptions, ModelPart};

use catalog::{violations, ToolEntry};

/// Where a result's structured value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StructuredSource {
    /// The result's `structuredContent`.
    StructuredContent,
    /// A text block holding serialized JSON: the backwards-compatible copy that MCP asks
    /// servers to send (2025-06-18 and later, "Structured Content"), read when there is no
    /// `structuredContent` (older servers).
    TextBlock(BlockHandle),
}

impl fmt::Display for StructuredSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StructuredSource::StructuredContent => f.write_str("structuredContent"),
            StructuredSource::TextBlock(handle) => write!(f, "the JSON text block {handle}"),
        }
    }
}

/// Why a result has no usable structured value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ViewError {
    /// The structured value does not conform to the tool's `outputSchema` (servers MUST
    /// send conforming results and clients SHOULD validate them: MCP 2025-06-18 and later,
    /// "Output Schema"). `violations` is never empty; each names a JSON Pointer into the
    /// value and the reason.
    Invalid {
        /// The tool's name.
        tool: String,
        /// The value that was checked.
        source: StructuredSource,
        /// Every violation found (at most 20), most specific first.
        violations: Vec<SchemaViolation>,
    },
    /// The tool advertises an `outputSchema`, but the result has neither
    /// `structuredContent` nor a JSON text block (MCP: "Servers MUST provide structured
    /// results that conform to this schema").
    Missing {
        /// The tool's name.
        tool: String,
    },
    /// The result carries no structured value and the tool promises none: a text-only
    /// result.
    NoStructuredContent {
        /// The tool's name, when known.
        tool: Option<String>,
    },
    /// The tool's `outputSchema` does not compile (an unresolvable `$ref`, an invalid
    /// keyword value), so nothing can be checked against it.
    UnusableSchema {
        /// The tool's name.
        tool: String,
        /// The compiler's message.
        message: String,
    },
    /// The result is a tool execution error (`isError: true`): read [`ResultView::error`].
    ToolFailed {
        /// The tool's name, when known.
        tool: Option<String>,
        /// The error's message ([`ErrorView::message`]).
        message: String,
    },
    /// The (valid) structured value does not deserialize into the requested type.
    Deserialize {
        /// The tool's name, when known.
        tool: Option<String>,
        /// The Rust type asked for.
        type_name: &'static str,
        /// serde's message (it names the field).
        message: String,
    },
}

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let named = |tool: &Option<String>| match tool {
            Some(tool) => format!(" of `{tool}`"),
            None => String::new(),
        };
        match self {
            ViewError::Invalid {
                tool,
                source,
                violations,
            } => {
                write!(f, "{source} of `{tool}` does not match its outputSchema")?;
                let mut separator = ": ";
                for violation in violations.iter().take(3) {
                    write!(f, "{separator}{violation}")?;
                    separator = "; ";
                }
                if violations.len() > 3 {
                    write!(f, "; and {} more", violations.len() - 3)?;
                }
                Ok(())
            }
            ViewError::Missing { tool } => write!(
                f,
                "`{tool}` advertises an outputSchema, but its result has neither \
                 structuredContent nor a JSON text block"
            ),
            ViewError::NoStructuredContent { tool } => write!(
                f,
                "the result{} carries no structured value (no structuredContent, no JSON \
                 text block)",
                named(tool)
            ),
            ViewError::UnusableSchema { tool, message } => {
                write!(
                    f,
                    "the outputSchema of `{tool}` does not compile: {message}"
                )
            }
            ViewError::ToolFailed { tool, message } => {
                write!(f, "the call{} failed (isError): {message}", named(tool))
            }
            ViewError::Deserialize {
                tool,
                type_name,
                message,
            } => write!(
                f,
                "the structured value{} does not deserialize into `{type_name}`: {message}",
                named(tool)
            ),
        }
    }
}

impl std::error::Error for ViewError {}

/// A received `CallToolResult`, split into the views a host needs: the checked structured
/// value, the [`ModelContext`], the [`UserDisplay`], the [`ErrorView`] and the resource
/// links. It owns the result; [`block`](Self::block) gives back any original block (e.g.
/// an image's data) by [`BlockHandle`].
///
/// Make one with [`ToolCatalog::view`] (schemas compiled once per tool), or with
/// [`with_tool`](Self::with_tool) / [`new`](Self::new) for a one-off. The structured value
/// is found and checked when the view is made; the other views are computed on request.
#[derive(Debug, Clone)]
pub struct ResultView {
    tool: Option<String>,
    result: CallToolResult,
    structured: Result<Option<Found>, ViewError>,
    error: Option<ErrorView>,
}

#[derive(Debug, Clone)]
struct Found {
    /// The value, unwrapped from the wrap property when the tool is wrapped.
    value: Value,
    source: StructuredSource,
    checked: bool,
}

impl ResultView {
    /// A view of `result` without the tool's definition: nothing to check the structured
    /// value against and no unwrapping ([`schema_checked`](Self::schema_checked) is
    /// `false`).
    pub fn new(result: CallToolResult) -> Self {
        Self::build(None, None, result)
    }

    /// A view of `result`, returned by a call of `tool`. Compiles the tool's
    /// `outputSchema` for this one result: use a [`ToolCatalog`] to compile it once.
    pub fn with_tool(tool: &Tool, result: CallToolResult) -> Self {
        let entry = ToolEntry::new(tool.clone());
        let compiled = AtomicUsize::new(0);
        Self::build(Some(&tool.name), Some((&entry, &compiled)), result)
    }

    pub(crate) fn build(
        name: Option<&str>,
        entry: Option<(&ToolEntry, &AtomicUsize)>,
        result: CallToolResult,
    ) -> Self {
        let error = ErrorView::of(&result);
        let structured = match &error {
            Some(error) => Err(ViewError::ToolFailed {
                tool: name.map(str::to_owned),
                message: error.message.clone(),
            }),
            None => find_structured(name, entry, &result),
        };
        Self {
            tool: name.map(str::to_owned),
            result,
            structured,
            error,
        }
    }

    /// The name of the tool the result came from, when the view was given one.
    pub fn tool_name(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// The result as received.
    pub fn result(&self) -> &CallToolResult {
        &self.result
    }

    /// The result as received, giving up the view.
    pub fn into_result(self) -> CallToolResult {
        self.result
    }

    /// `isError: true` (absent means `false`).
    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }

    /// The original content block at `handle`, with its data.
    pub fn block(&self, handle: BlockHandle) -> Option<&ContentBlock> {
        self.result.content.get(handle.0)
    }

    /// The structured value: `structuredContent`, or (when absent) the first JSON text
    /// block that passes the schema, checked against the tool's `outputSchema` and, for a
    /// tool whose output is wrapped (its `_meta` names the property, read by
    /// [`crate::schema::ToolOutputSchema::read`]), the value under that property.
    ///
    /// # Errors
    /// [`ViewError::Invalid`] (with the JSON path and reason of each violation),
    /// [`ViewError::Missing`], [`ViewError::UnusableSchema`],
    /// [`ViewError::NoStructuredContent`] for a text-only result of a tool without an
    /// `outputSchema`, [`ViewError::ToolFailed`] for an `isError` result.
    pub fn structured_value(&self) -> Result<&Value, ViewError> {
        match &self.structured {
            Ok(Some(found)) => Ok(&found.value),
            Ok(None) => Err(ViewError::NoStructuredContent {
                tool: self.tool.clone(),
            }),
            Err(error) => Err(error.clone()),
        }
    }

    /// The structured value deserialized into `T` (see
    /// [`structured_value`](Self::structured_value)).
    ///
    /// # Errors
    /// Those of [`structured_value`](Self::structured_value), and
    /// [`ViewError::Deserialize`] when the value does not fit `T`.
    pub fn structured<T: DeserializeOwned>(&self) -> Result<T, ViewError> {
        let value = self.structured_value()?;
        T::deserialize(value).map_err(|error| ViewError::Deserialize {
            tool: self.tool.clone(),
            type_name: std::any::type_name::<T>(),
            message: error.to_string(),
        })
    }

    /// Where the structured value came from, when there is a usable one.
    pub fn structured_source(&self) -> Option<StructuredSource> {
        match &self.structured {
            Ok(Some(found)) => Some(found.source),
            _ => None,
        }
    }

    /// Whether the structured value was checked against an `outputSchema` (and passed).
    /// `false` for a view without the tool's definition, a tool without `outputSchema`, or
    /// a result without a usable structured value.
    pub fn schema_checked(&self) -> bool {
        matches!(&self.structured, Ok(Some(found)) if found.checked)
    }

    /// Whether the result keeps the tool's `outputSchema` promise, as strict clients check
    /// it (the TypeScript SDK rejects the call otherwise). `Ok` also for text-only results
    /// of tools without a schema and for `isError` results (their `structuredContent` is
    /// the error envelope, not the success value).
    ///
    /// # Errors
    /// [`ViewError::Invalid`], [`ViewError::Missing`] or [`ViewError::UnusableSchema`].
    pub fn check_schema(&self) -> Result<(), ViewError> {
        match &self.structured {
            Err(
                error @ (ViewError::Invalid { .. }
                | ViewError::Missing { .. }
                | ViewError::UnusableSchema { .. }),
            ) => Err(error.clone()),
            _ => Ok(()),
        }
    }

    /// What the model sees, with the default [`ModelOptions`].
    pub fn model_context(&self) -> ModelContext {
        model::build(self, &ModelOptions::default())
    }

    /// What the model sees, with `options`.
    pub fn model_context_with(&self, options: &ModelOptions) -> ModelContext {
        model::build(self, options)
    }

    /// What the user sees, fitted to `options.budget_chars`.
    pub fn user_display(&self, options: &DisplayOptions) -> UserDisplay {
        display::build(self, options)
    }

    /// The error view of an `isError: true` result; `None` for a normal result.
    pub fn error(&self) -> Option<&ErrorView> {
        self.error.as_ref()
    }

    /// Every `resource_link` block, in `content` order, to fetch with `resources/read` when
    /// needed ([`ResourceRef::read_request`]). Links are not guaranteed to be in
    /// `resources/list` (MCP 2025-06-18 and later, "Resource Links"), so read them by URI.
    pub fn resource_links(&self) -> Vec<ResourceRef> {
        self.result
            .content
            .iter()
            .enumerate()
            .filter_map(|(index, block)| match block {
                ContentBlock::ResourceLink(link) => {
                    Some(ResourceRef::new(BlockHandle(index), link))
                }
                _ => None,
            })
            .collect()
    }

    /// `structuredContent` when no text block that `visible` selects carries a JSON copy of
    /// it, and it did not fail its schema.
    pub(crate) fn uncopied_structured(
        &self,
        visible: impl Fn(&ContentBlock) -> bool,
    ) -> Option<&Value> {
        let raw = self
            .result
            .structured_content
            .as_ref()
            .filter(|v| !v.is_null())?;
        if self.check_schema().is_err() {
            return None;
        }
        let copied = self.result.content.iter().any(|block| match block {
            ContentBlock::Text(text) if visible(block) => {
                error::parse_json_text(&text.text).as_ref() == Some(raw)
            }
            _ => false,
        });
        (!copied).then_some(raw)
    }
}

fn find_structured(
    name: Option<&str>,
    entry: Option<(&ToolEntry, &AtomicUsize)>,
    result: &CallToolResult,
) -> Result<Option<Found>, ViewError> {
    let candidates: Vec<(Cow<'_, Value>, StructuredSource)> = match &result.structured_content {
        Some(value) => vec![(Cow::Borrowed(value), StructuredSource::StructuredContent)],
        None => result
            .content
            .iter()
            .enumerate()
            .filter_map(|(index, block)| {
                let value = error::parse_json_text(&block.as_text()?.text)?;
                Some((
                    Cow::Owned(value),
                    StructuredSource::TextBlock(BlockHandle(index)),
                ))
            })
            .collect(),
    };
    let tool = || name.unwrap_or_default().to_owned();
    let validator = entry.and_then(|(entry, compiled)| entry.validator(compiled));
    let (value, source, checked) = match validator {
        None => match candidates.into_iter().next() {
            Some((value, source)) => (value, source, false),
            None => return Ok(None),
        },
        Some(Err(message)) => {
            return Err(ViewError::UnusableSchema {
                tool: tool(),
                message: message.to_owned(),
            })
        }
        Some(Ok(validator)) => {
            let Some(first) = candidates.first() else {
                return Err(ViewError::Missing { tool: tool() });
            };
            match candidates.iter().position(|(v, _)| validator.is_valid(v)) {
                Some(valid) => {
                    let (value, source) = candidates.into_iter().nth(valid).expect("in range");
                    (value, source, true)
                }
                None => {
                    return Err(ViewError::Invalid {
                        tool: tool(),
                        source: first.1,
                        violations: violations(validator, &first.0),
                    })
                }
            }
        }
    };
    let wrap = entry.and_then(|(entry, _)| entry.wrap_property.as_deref());
    let value = match wrap {
        None => value.into_owned(),
        Some(property) => match value.as_object().and_then(|o| o.get(property)) {
            Some(inner) => inner.clone(),
            None => {
                return Err(ViewError::Invalid {
                    tool: tool(),
                    source,
                    violations: vec![SchemaViolation::new(
                        format!("/{property}"),
                        format!(
                            "the tool's _meta says the result is wrapped under `{property}`, \
                             but the value has no such property"
                        ),
                    )],
                })
            }
        },
    };
    Ok(Some(Found {
        value,
        source,
        checked,
    }))
}
