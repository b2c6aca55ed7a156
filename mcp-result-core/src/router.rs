use std::{
    borrow::Cow, collections::HashMap, fmt, future::Future, panic::AssertUnwindSafe, pin::Pin,
    sync::Arc, time::Duration,
};

use futures::FutureExt;
use rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, CustomRequest, CustomResult,
        ErrorCode, JsonObject, ListToolsResult, Tool, ToolAnnotations,
    },
    service::RequestContext,
    ErrorData, RoleServer,
};
use serde_json::Value;

use crate::{result::error_result, schema, FieldError, ToolError};

/// The future a tool's generated call glue returns.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = CallToolResult> + Send + 'a>>;

/// One tool as `#[mcp_tool]` describes it: the static facts plus the call glue. Built by
/// generated code; [`ToolRouter::new`] turns the schema thunks into schemas once.
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
    pub output: fn() -> Arc<schema::OutputShape>,
    /// `#[mcp_tool(timeout_ms = N)]`: past this the call is abandoned and answered with an
    /// `upstream_timeout` error whose `retrySafe` is the tool's `idempotent` declaration.
    pub timeout: Option<Duration>,
    /// Deserializes the arguments, runs the method and builds its result.
    pub call: for<'a> fn(
        &'a S,
        Value,
        RequestContext<RoleServer>,
        Option<crate::SpillScope<'a>>,
    ) -> ToolFuture<'a>,
}

/// A problem with a server's tool definitions found when its router is built (at server
/// start, on the first `tools/list` or `tools/call`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterError {
    /// The tool whose definition is broken.
    pub tool: &'static str,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for RouterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tool `{}`: {}", self.tool, self.message)
    }
}

impl std::error::Error for RouterError {}

struct Route<S> {
    validator: jsonschema::Validator,
    timeout: Option<Duration>,
    idempotent: bool,
    call: for<'a> fn(
        &'a S,
        Value,
        RequestContext<RoleServer>,
        Option<crate::SpillScope<'a>>,
    ) -> ToolFuture<'a>,
}

/// The tools of one server type: the `tools/list` payload and a name index, built once.
///
/// `tools/list` clones the stored list (schemas are `Arc`s); `tools/call` is one hash
/// lookup, independent of the number of tools.
pub struct ToolRouter<S> {
    tools: Vec<Tool>,
    routes: HashMap<&'static str, Route<S>>,
}

impl<S> ToolRouter<S> {
    /// Builds the router: generates each schema once, combines each success schema with the
    /// [`ToolError`] envelope, and compiles each `inputSchema` into a validator.
    ///
    /// # Errors
    /// A [`RouterError`] naming the tool when an `inputSchema` root is not `type: "object"`
    /// (MCP requires it), a schema does not compile, or schema definitions collide.
    pub fn new(defs: Vec<ToolDef<S>>) -> Result<Self, RouterError> {
        let envelope = schema::serialized_schema::<ToolError>();
        let mut tools = Vec::with_capacity(defs.len());
        let mut routes = HashMap::with_capacity(defs.len());
        for def in defs {
            let error = |message: String| RouterError {
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
            let validator = jsonschema::validator_for(&Value::Object((*input).clone()))
                .map_err(|e| error(format!("inputSchema does not compile: {e}")))?;
            let mut wrap_meta = None;
            let output = {
                let shape = (def.output)();
                if shape.wrapped {
                    let mut meta = rmcp::model::MetaObject::default();
                    meta.0.insert(
                        schema::WRAP_META_KEY.into(),
                        Value::String(schema::WRAP_PROPERTY.into()),
                    );
                    wrap_meta = Some(meta);
                }
                schema::tool_output_schema(&shape.schema, &envelope).map_err(error)?
            };
            let mut tool = Tool::new(
                Cow::Borrowed(def.name),
                Cow::Borrowed(def.description),
                input,
            )
            .with_raw_output_schema(Arc::new(output))
            .with_annotations(def.annotations.clone());
            if let Some(title) = def.title {
                tool = tool.with_title(title);
            }
            if let Some(meta) = wrap_meta {
                tool = tool.with_meta(meta);
            }
            tools.push(tool);
            routes.insert(
                def.name,
                Route {
                    validator,
                    timeout: def.timeout,
                    idempotent: def.annotations.is_idempotent(),
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
    /// of the `tools/list` payload; [`crate::docs`] documents it.
    pub fn timeout(&self, name: &str) -> Option<Duration> {
        self.routes.get(name)?.timeout
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
    pub async fn call<'a>(
        &self,
        server: &'a S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        scope: Option<crate::SpillScope<'a>>,
    ) -> Result<CallToolResult, ErrorData> {
        let Some(route) = self.routes.get(request.name.as_ref()) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let field_errors = argument_errors(&route.validator, &arguments);
        if !field_errors.is_empty() {
            return Ok(error_result(&ToolError::validation(field_errors)));
        }
        let name = request.name;
        let run = AssertUnwindSafe((route.call)(server, arguments, context, scope)).catch_unwind();
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

/// Every schema violation of `arguments`, as field errors with JSON Pointers to the field
/// (for a missing required property: the pointer of the property itself).
fn argument_errors(validator: &jsonschema::Validator, arguments: &Value) -> Vec<FieldError> {
    validator
        .iter_errors(arguments)
        .map(|error| {
            let mut pointer = error.instance_path().as_str().to_owned();
            if let jsonschema::error::ValidationErrorKind::Required { property } = error.kind() {
                if let Value::String(name) = property {
                    pointer.push('/');
                    pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
                }
                return FieldError::new(pointer, "required field is missing");
            }
            FieldError::new(pointer, error.to_string())
        })
        .collect()
}

/// A server type whose tools were declared with `#[mcp_tools]`; implemented by that macro.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no tools",
    label = "no `#[mcp_tools]` impl block for this type",
    note = "annotate an `impl {Self} {{ ... }}` block holding `#[mcp_tool]` methods with `#[mcp_tools]`"
)]
pub trait ToolSet: Sized + Send + Sync + 'static {
    /// The router, built on first use and stored for the life of the process.
    ///
    /// # Errors
    /// The [`RouterError`] of a broken tool definition, every time it is asked for.
    fn tool_router() -> Result<&'static ToolRouter<Self>, &'static RouterError>;

    /// The server's artifact store and access rules, when it spills payloads
    /// (`#[mcp_tools(artifacts)]` returns `Some(self)`, requiring `Self: ArtifactAccess`).
    fn artifact_access(&self) -> Option<&dyn crate::ArtifactAccess> {
        None
    }
}

/// The `tools/list` answer of a [`ToolSet`] (used by `#[tool_handler]`).
///
/// # Errors
/// JSON-RPC internal error (`-32603`) carrying the [`RouterError`] text.
pub fn list_tools<S: ToolSet>() -> Result<ListToolsResult, ErrorData> {
    let router = S::tool_router().map_err(router_error)?;
    Ok(ListToolsResult::with_all_items(router.tools().to_vec()))
}

/// The `tools/call` answer of a [`ToolSet`] (used by `#[tool_handler]`).
///
/// # Errors
/// JSON-RPC `-32602` for an unknown tool; `-32603` for a broken tool definition.
pub async fn call_tool<S: ToolSet>(
    server: &S,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let router = S::tool_router().map_err(router_error)?;
    let scope = server.artifact_access().map(|access| crate::SpillScope {
        store: access.artifact_store(),
        owner: access.artifact_owner(&context),
    });
    router
        .call(server, request, context, scope)
        .await
        .map(CallToolResponse::from)
}

/// One tool's definition (used by `#[tool_handler]` for `ServerHandler::get_tool`).
pub fn tool_for<S: ToolSet>(name: &str) -> Option<Tool> {
    S::tool_router().ok()?.tool(name).cloned()
}

/// The answer to a request rmcp could not parse as any MCP request (used by
/// `#[tool_handler]` for `ServerHandler::on_custom_request`).
///
/// A `tools/call` or `tools/list` that reaches here had malformed params (say, no `name`):
/// JSON-RPC `-32602` invalid params, as JSON-RPC 2.0 prescribes, rather than rmcp's default
/// `-32601` "method not found" for a method the server does implement. Any other method is
/// `-32601`.
///
/// # Errors
/// Always: this is the error path.
pub fn custom_request(request: CustomRequest) -> Result<CustomResult, ErrorData> {
    match request.method.as_str() {
        "tools/call" => Err(ErrorData::invalid_params(
            "invalid tools/call params: expected {\"name\": string, \"arguments\"?: object}",
            None,
        )),
        "tools/list" => Err(ErrorData::invalid_params(
            "invalid tools/list params: expected {\"cursor\"?: string}",
            None,
        )),
        _ => Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            request.method,
            None,
        )),
    }
}

/// The `resources/read` answer of a [`ToolSet`] (used by `#[tool_handler]`): the artifacts
/// its tools stored, checked by [`crate::ArtifactAccess::may_read`].
///
/// # Errors
/// `-32601` when the server has no artifact store; resource-not-found for an unknown or
/// denied URI ([`crate::store::read_artifact`]).
pub fn read_resource<S: ToolSet>(
    server: &S,
    request: rmcp::model::ReadResourceRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
    match server.artifact_access() {
        Some(access) => crate::store::read_artifact(access, &request, &context),
        None => Err(ErrorData::method_not_found::<
            rmcp::model::ReadResourceRequestMethod,
        >()),
    }
}

fn router_error(error: &RouterError) -> ErrorData {
    ErrorData::internal_error(error.to_string(), None)
}
