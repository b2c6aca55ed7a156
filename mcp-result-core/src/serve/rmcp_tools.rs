//! An rmcp [`ToolRouter`] served beside a server's `#[mcp_tools]` tools, so a server moves
//! to mcp-result one tool at a time: `#[mcp_handler(rmcp_router)]` (the router of
//! `Self::tool_router()`, as rmcp's `#[tool_handler]`) or
//! `#[mcp_handler(rmcp_router = <expression>)]` (as `#[tool_handler(router = ...)]`).
//!
//! `tools/list` lists both (the `#[mcp_tools]` tools first, in declaration order, then the
//! router's, by name); `tools/call` goes to whichever has the name. A name in both is
//! refused: the handshake fails with a [`RegistryError`] naming both tools, and so does
//! every `tools/list` and `tools/call` of a session that skipped it. The router's tools
//! answer exactly as rmcp answers them; the mcp-result contract holds for the
//! `#[mcp_tools]` tools.

use rmcp::{
    handler::server::{router::tool::ToolRouter, tool::ToolCallContext},
    model::{
        CallToolRequestParams, InitializeRequestParams, InitializeResult, ListToolsResult, Tool,
    },
    service::RequestContext,
    ErrorData, RoleServer, ServerHandler,
};

use crate::{
    router::def::registry_error,
    router::{def::RegistryError, registry::ToolRegistry, set::ToolSet},
    serve::handler::initialize,
};

/// The server's registry, once its tools and the rmcp router's are known to have no name
/// in common. `router` names the router in messages (`Self::tool_router()`).
///
/// # Errors
/// The registry's own [`RegistryError`]; or one naming the first tool (by name) that both
/// define.
pub(crate) fn check_rmcp_router<S: ToolSet>(
    tools: &ToolRouter<S>,
    router: &str,
) -> Result<&'static ToolRegistry<S>, RegistryError> {
    let registry = S::tool_registry().map_err(Clone::clone)?;
    let mut clashes: Vec<(&'static str, &str)> = tools
        .map
        .keys()
        .filter_map(|name| registry.origin(name))
        .collect();
    clashes.sort_unstable();
    if let Some((tool, origin)) = clashes.first() {
        return Err(RegistryError {
            tool,
            message: format!(
                "served twice, by {origin} and by the rmcp router `{router}`: tool names are \
                 unique within a server; once a tool moves to `#[mcp_tools]`, delete its \
                 `#[tool]` method from the router (or give one of the two another name)"
            ),
        });
    }
    Ok(registry)
}

/// The `initialize` answer of a server with an rmcp router (used by
/// `#[mcp_handler(rmcp_router)]`): [`initialize`], after checking the rmcp router beside the framework's tools.
///
/// # Errors
/// JSON-RPC `-32603` with the [`RegistryError`]; as [`initialize`].
pub fn initialize_with_rmcp<S: ToolSet + ServerHandler>(
    server: &S,
    tools: &ToolRouter<S>,
    router: &str,
    request: InitializeRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<InitializeResult, ErrorData> {
    check_rmcp_router(tools, router).map_err(|error| registry_error(&error))?;
    initialize(server, request, context)
}

/// The `tools/list` answer of a server with an rmcp router: its `#[mcp_tools]` tools, then
/// the router's.
///
/// # Errors
/// JSON-RPC `-32603` with the [`RegistryError`].
pub fn list_tools_with_rmcp<S: ToolSet>(
    tools: &ToolRouter<S>,
    router: &str,
    request: Option<&rmcp::model::PaginatedRequestParams>,
) -> Result<ListToolsResult, ErrorData> {
    crate::serve::handler::no_cursor(request)?;
    let registry = check_rmcp_router(tools, router).map_err(|error| registry_error(&error))?;
    let mut all = registry.tools().to_vec();
    all.extend(tools.list_all());
    Ok(ListToolsResult::with_all_items(all))
}

/// The `tools/call` answer of a server with an rmcp router: the `#[mcp_tools]` tool of that
/// name, else the router's, else JSON-RPC `-32602` as for any unknown tool.
///
/// # Errors
/// JSON-RPC `-32603` with the [`RegistryError`]; what the tool's side answers.
pub fn call_tool_with_rmcp<'a, S: ToolSet>(
    server: &'a S,
    tools: &'a ToolRouter<S>,
    router: &'a str,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> crate::serve::handler::CallFuture<'a> {
    // Boxed as `handler::call_tool`'s answer is: rmcp moves a pointer, not the call.
    Box::pin(async move {
        let registry = check_rmcp_router(tools, router).map_err(|error| registry_error(&error))?;
        if !registry.contains(&request.name) && tools.has_route(&request.name) {
            return tools
                .call(ToolCallContext::new(server, request, context))
                .await;
        }
        registry.call(server, request, context).await
    })
}

/// One tool's definition, from either side (`ServerHandler::get_tool`).
pub fn tool_with_rmcp<S: ToolSet>(tools: &ToolRouter<S>, name: &str) -> Option<Tool> {
    match S::tool_registry().ok()?.tool(name) {
        Some(tool) => Some(tool.clone()),
        None => tools.get(name).cloned(),
    }
}
