//! The tools of one server type, built once: the `tools/list` payload, a name index and
//! each tool's compiled argument validator.

use std::{
    borrow::Cow, collections::HashMap, fmt, future::Future, panic::AssertUnwindSafe, pin::Pin,
    sync::Arc, time::Duration,
};

use futures::FutureExt;
use rmcp::{
    model::{CallToolRequestParams, CallToolResult, JsonObject, Tool, ToolAnnotations},
    service::RequestContext,
    ErrorData, RoleServer,
};
use serde_json::Value;

use crate::{
    server::{
        arguments::ArgumentSchema,
        extract::ToolCall,
        result::error_result,
        schema::{OutputShape, ToolOutputSchema},
        store::SpillScope,
    },
    wire::envelope::{ErrorKind, ToolError},
};

/// The future a tool's generated call glue returns.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = CallToolResult> + Send + 'a>>;

/// The call glue `#[mcp_tools]` generates for one tool: extracts the parameters from the
/// call, runs the method and builds its result.
pub type CallFn<S> = for<'a> fn(&'a S, ToolCall, Option<SpillScope<'a>>) -> ToolFuture<'a>;

/// One tool as `#[mcp_tool]` describes it: the static facts plus the call glue. Built by
/// generated code; [`ToolRegistry::new`] turns the schema thunks into schemas once.
pub struct ToolDef<S> {
    /// Tool name (checked at compile time: 1 to 128 of `A-Z a-z 0-9 _ - .`).
    pub name: &'static str,
    /// Human-readable title, if any.
    pub title: Option<&'static str>,
    /// Description (the method's doc comment or `description = "..."`).
    pub description: &'static str,
    /// Tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`).
    pub annotations: ToolAnnotations,
    /// The `inputSchema` of the argument type.
    pub input_schema: fn() -> Arc<JsonObject>,
    /// The success type's `structuredContent` schema and wrapping.
    pub output: fn() -> Arc<OutputShape>,
    /// `#[mcp_tool(timeout_ms = N)]`: past this the call is abandoned and answered with an
    /// `upstream_timeout` error whose `retrySafe` is the tool's `idempotent` declaration.
    pub timeout: Option<Duration>,
    /// Extracts the parameters, runs the method and builds its result.
    pub call: CallFn<S>,
}

/// A problem with a server's tool definitions found when its registry is built (at server
/// start, on the first `tools/list` or `tools/call`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryError {
    /// The tool whose definition is broken.
    pub tool: &'static str,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tool `{}`: {}", self.tool, self.message)
    }
}

impl std::error::Error for RegistryError {}

struct Route<S> {
    arguments: Arc<ArgumentSchema>,
    timeout: Option<Duration>,
    idempotent: bool,
    takes_arguments: bool,
    call: CallFn<S>,
}

/// The tools of one server type: the `tools/list` payload and a name index, built once.
///
/// `tools/list` clones the stored list (schemas are `Arc`s); `tools/call` is one hash
/// lookup, independent of the number of tools.
pub struct ToolRegistry<S> {
    tools: Vec<Tool>,
    routes: HashMap<&'static str, Route<S>>,
}

impl<S> ToolRegistry<S> {
    /// Builds the registry: generates each schema once, serves each success schema with
    /// the [`ToolError`] envelope ([`ToolOutputSchema`]), and compiles each `inputSchema`
    /// into a validator.
    ///
    /// # Errors
    /// A [`RegistryError`] naming the tool when an `inputSchema` root is not
    /// `type: "object"` (MCP requires it), a schema does not compile, or schema definitions
    /// collide.
    pub fn new(defs: Vec<ToolDef<S>>) -> Result<Self, RegistryError> {
        let mut tools = Vec::with_capacity(defs.len());
        let mut routes = HashMap::with_capacity(defs.len());
        for def in defs {
            let error = |message: String| RegistryError {
                tool: def.name,
                message,
            };
            let input = (def.input_schema)();
            if input.get("type") != Some(&Value::String("object".into())) {
                return Err(error(
                    "the argument type's schema root is not `type: \"object\"`; MCP requires \
                     arguments to be an object: use a struct with named fields"
                        .into(),
                ));
            }
            let takes_arguments = input.contains_key("required")
                || input
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| !p.is_empty());
            let arguments = ArgumentSchema::new(Value::Object((*input).clone()))
                .map_err(|e| error(format!("inputSchema does not compile: {e}")))?;
            let mut tool = Tool::new(
                Cow::Borrowed(def.name),
                Cow::Borrowed(def.description),
                input,
            )
            .with_annotations(explicit_hints(def.annotations.clone()));
            if let Some(title) = def.title {
                tool = tool.with_title(title);
            }
            let tool = ToolOutputSchema::new(&(def.output)())
                .write(tool)
                .map_err(error)?;
            tools.push(tool);
            routes.insert(
                def.name,
                Route {
                    arguments: Arc::new(arguments),
                    timeout: def.timeout,
                    idempotent: explicit_hints(def.annotations.clone()).is_idempotent(),
                    takes_arguments,
                    call: def.call,
                },
            );
        }
        Ok(Self { tools, routes })
    }

    /// Every tool, in declaration order (the `tools` of a `tools/list` result).
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Looks a tool up by name.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|tool| tool.name == name)
    }

    /// The time limit of tool `name` (`#[mcp_tool(timeout_ms = N)]`), if it has one. Not part
    /// of the `tools/list` payload; the docs document it.
    pub fn timeout(&self, name: &str) -> Option<Duration> {
        self.routes.get(name)?.timeout
    }

    /// The error kinds the framework itself may answer a call of tool `name` with, whatever
    /// the tool's own code does: `validation_error` (it takes arguments, checked against
    /// its `inputSchema`), `upstream_timeout` (it has a time limit) and `internal` (a panic
    /// or a result that does not serialize). Empty for an unknown tool.
    pub fn framework_error_kinds(&self, name: &str) -> Vec<ErrorKind> {
        let Some(route) = self.routes.get(name) else {
            return Vec::new();
        };
        let mut kinds = Vec::with_capacity(3);
        if route.takes_arguments {
            kinds.push(ErrorKind::ValidationError);
        }
        if route.timeout.is_some() {
            kinds.push(ErrorKind::UpstreamTimeout);
        }
        kinds.push(ErrorKind::Internal);
        kinds
    }

    /// Runs a `tools/call`.
    ///
    /// - An unknown tool name is a protocol error: JSON-RPC `-32602` (MCP 2025-11-25,
    ///   "Error Handling").
    /// - Arguments are validated against the `inputSchema` before deserializing; every
    ///   failing field is reported at once in one `validation_error` result
    ///   (`isError: true`, MCP 2025-11-25: invalid arguments are tool execution errors).
    /// - A tool that runs past its `timeout_ms` becomes an `upstream_timeout` error result,
    ///   `retrySafe` only when the tool is declared `idempotent`.
    /// - A panicking tool becomes an `internal` error result with a correlation id; the
    ///   panic message is logged, not returned.
    /// - Payloads in the result are stored through `scope` (`None`: the server has no
    ///   artifact store, and a result holding a `Payload` becomes an `internal` error).
    ///
    /// # Errors
    /// JSON-RPC `-32602` for an unknown tool.
    pub async fn call<'a>(
        &self,
        server: &'a S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        scope: Option<SpillScope<'a>>,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(route) = self.routes.get(request.name.as_ref()) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let (field_errors, total) = route.arguments.errors(&arguments);
        if !field_errors.is_empty() {
            return Ok(error_result(&ToolError::validation_of(field_errors, total)));
        }
        let name = request.name;
        let call = ToolCall::new(arguments, route.arguments.clone(), context);
        let run = AssertUnwindSafe((route.call)(server, call, scope)).catch_unwind();
        let outcome = match route.timeout {
            Some(limit) => match tokio::time::timeout(limit, run).await {
                Ok(outcome) => outcome,
                Err(_elapsed) => {
                    tracing::warn!(tool = %name, limit_ms = limit.as_millis(), "tool timed out");
                    return Ok(error_result(&ToolError::upstream_timeout(
                        limit,
                        route.idempotent,
                    )));
                }
            },
            None => run.await,
        };
        Ok(outcome.unwrap_or_else(|panic| {
            let detail = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "non-string panic payload".to_owned());
            error_result(&ToolError::internal_logged(format_args!(
                "tool `{name}` panicked: {detail}"
            )))
        }))
    }
}

/// Every hint written out: some host directories reject a tool without an explicit
/// `destructiveHint`. Where the tool said nothing, the spec's defaults (MCP 2025-11-25
/// "ToolAnnotations": `readOnlyHint` false, `destructiveHint` true, `idempotentHint` false,
/// `openWorldHint` true), except that a read-only tool is neither destructive nor anything
/// but idempotent (`destructiveHint: false`, `idempotentHint: true`).
fn explicit_hints(mut hints: ToolAnnotations) -> ToolAnnotations {
    let read_only = *hints.read_only_hint.get_or_insert(false);
    hints.destructive_hint.get_or_insert(!read_only);
    hints.idempotent_hint.get_or_insert(read_only);
    hints.open_world_hint.get_or_insert(true);
    hints
}
