//! What `#[mcp_handler]` fills into a user's `impl rmcp::ServerHandler`: the answers to
//! `tools/list`, `tools/call`, `resources/read` and malformed requests, from the server
//! type's [`ToolSet`].

use rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode,
        Implementation, ListToolsResult, ServerCapabilities, ServerConfig, Tool,
    },
    service::RequestContext,
    ErrorData, RoleServer,
};

use crate::server::{
    registry::{RegistryError, ToolRegistry},
    store::{read_artifact, ArtifactAccess, SpillScope},
};

/// A server type whose tools were declared with `#[mcp_tools]`; implemented by that macro.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no tools",
    label = "no `#[mcp_tools]` impl block for this type",
    note = "annotate an `impl {Self} {{ ... }}` block holding `#[mcp_tool]` methods with `#[mcp_tools]`"
)]
pub trait ToolSet: Sized + Send + Sync + 'static {
    /// The registry, built on first use and stored for the life of the process.
    ///
    /// # Errors
    /// The [`RegistryError`] of a broken tool definition, every time it is asked for.
    fn tool_registry() -> Result<&'static ToolRegistry<Self>, &'static RegistryError>;

    /// The server's artifact store and access rules, when it spills payloads
    /// (`#[mcp_tools(artifacts)]` returns `Some(self)`, requiring `Self: ArtifactAccess`).
    fn artifact_access(&self) -> Option<&dyn ArtifactAccess> {
        None
    }

    /// `true` when the server serves stored artifacts through `resources/read`
    /// (`#[mcp_tools(artifacts)]`): it then declares the `resources` capability.
    const ARTIFACTS: bool = false;
}

/// The `initialize` (and, on MCP 2026-07-28, `server/discover`) answer of a [`ToolSet`]
/// (used by `#[mcp_handler]` for `ServerHandler::get_info` when the user writes none): the
/// `tools` capability (MCP "Tools: Capabilities": a server that offers tools MUST declare
/// it), `resources` when the server serves artifacts, and `serverInfo` named after the
/// user's crate (`name` and `version` are its `CARGO_PKG_NAME` and `CARGO_PKG_VERSION`, read
/// where the macro expands).
pub fn server_info<S: ToolSet>(name: &'static str, version: &'static str) -> ServerConfig {
    let capabilities = ServerCapabilities::builder().enable_tools();
    let capabilities = if S::ARTIFACTS {
        capabilities.enable_resources().build()
    } else {
        capabilities.build()
    };
    ServerConfig::new(capabilities).with_server_info(Implementation::new(name, version))
}

/// The `tools/list` answer of a [`ToolSet`] (used by `#[mcp_handler]`).
///
/// # Errors
/// JSON-RPC internal error (`-32603`) carrying the [`RegistryError`] text.
pub fn list_tools<S: ToolSet>() -> Result<ListToolsResult, ErrorData> {
    let registry = S::tool_registry().map_err(registry_error)?;
    Ok(ListToolsResult::with_all_items(registry.tools().to_vec()))
}

/// The `tools/call` answer of a [`ToolSet`] (used by `#[mcp_handler]`).
///
/// # Errors
/// JSON-RPC `-32602` for an unknown tool; `-32603` for a broken tool definition.
pub async fn call_tool<S: ToolSet>(
    server: &S,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let registry = S::tool_registry().map_err(registry_error)?;
    let scope = server.artifact_access().map(|access| SpillScope {
        store: access.artifact_store(),
        owner: access.artifact_owner(&context),
    });
    registry
        .call(server, request, context, scope)
        .await
        .map(CallToolResponse::from)
}

/// One tool's definition (used by `#[mcp_handler]` for `ServerHandler::get_tool`).
pub fn tool_for<S: ToolSet>(name: &str) -> Option<Tool> {
    S::tool_registry().ok()?.tool(name).cloned()
}

/// The answer to a request rmcp could not parse as any MCP request (used by
/// `#[mcp_handler]` for `ServerHandler::on_custom_request`).
///
/// A request for an MCP method that reaches here had malformed params (a `tools/call`
/// without `name`, a `resources/read` or `initialize` with `{}`): JSON-RPC `-32602` invalid
/// params with a short reason, as JSON-RPC 2.0 prescribes, rather than rmcp's default
/// `-32601` "method not found". Any other method is `-32601`.
///
/// # Errors
/// Always: this is the error path.
pub fn custom_request(request: CustomRequest) -> Result<CustomResult, ErrorData> {
    let method = request.method.as_str();
    match method {
        "tools/call" => Err(ErrorData::invalid_params(
            "invalid tools/call params: expected {\"name\": string, \"arguments\"?: object}",
            None,
        )),
        "tools/list" => Err(ErrorData::invalid_params(
            "invalid tools/list params: expected {\"cursor\"?: string}",
            None,
        )),
        "resources/read" => Err(ErrorData::invalid_params(
            "invalid resources/read params: expected {\"uri\": string}",
            None,
        )),
        "initialize" => Err(ErrorData::invalid_params(
            "invalid initialize params: expected {\"protocolVersion\": string, \
             \"capabilities\": object, \"clientInfo\": {\"name\": string, \"version\": string}}",
            None,
        )),
        _ if MCP_REQUEST_METHODS.contains(&method) => Err(ErrorData::invalid_params(
            format!("invalid {method} params: see the MCP specification for this method"),
            None,
        )),
        _ => Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            request.method,
            None,
        )),
    }
}

/// The request methods of MCP (2025-06-18 to 2026-07-28). A request for one of these that
/// reaches [`custom_request`] had params rmcp could not parse: `-32602`, not `-32601`.
const MCP_REQUEST_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "tasks/list",
    "tasks/cancel",
    "tasks/result",
];

/// The `resources/read` answer of a [`ToolSet`] (used by `#[mcp_handler]`): the artifacts
/// its tools stored, checked by [`ArtifactAccess::may_read`].
///
/// # Errors
/// `-32601` when the server has no artifact store; resource-not-found for an unknown or
/// denied URI ([`read_artifact`]).
pub fn read_resource<S: ToolSet>(
    server: &S,
    request: rmcp::model::ReadResourceRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
    match server.artifact_access() {
        Some(access) => read_artifact(access, &request, &context),
        None => Err(ErrorData::method_not_found::<
            rmcp::model::ReadResourceRequestMethod,
        >()),
    }
}

fn registry_error(error: &RegistryError) -> ErrorData {
    ErrorData::internal_error(error.to_string(), None)
}
