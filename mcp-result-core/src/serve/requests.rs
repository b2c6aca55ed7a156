//! What `#[mcp_handler]` answers beside the tools: the tasks extension's requests
//! (`tasks/get`, `tasks/update`, `tasks/cancel`), change notifications
//! (`subscriptions/listen`, `resources/subscribe` and `unsubscribe`), and the requests rmcp
//! could not parse ([`custom_request`]). Re-exported by [`super::handler`].

use rmcp::{
    model::{CustomRequest, CustomResult, ErrorCode, ProtocolVersion},
    service::RequestContext,
    ErrorData, RoleServer,
};

use crate::router::{def::registry_error, set::ToolSet, telemetry::observe};

/// The `tasks/get` answer of a [`ToolSet`] (used by `#[mcp_handler]`;
/// [`ToolRegistry::get_task`]). rmcp answers `-32601` first when the server declares no
/// tasks extension, and `-32021` when the request does not declare it.
///
/// # Errors
/// `-32602` for a task id the caller has no task of; `-32603` when the task store fails.
pub async fn get_task<S: ToolSet>(
    server: &S,
    request: rmcp::model::GetTaskParams,
    context: RequestContext<RoleServer>,
) -> Result<rmcp::model::GetTaskResult, ErrorData> {
    let registry = S::tool_registry().map_err(registry_error)?;
    let state = registry.state_for(&context);
    observe("tasks/get", None, &state, &context.clone(), async {
        registry.get_task(server, request, context).await
    })
    .await
}

/// The `tasks/update` answer of a [`ToolSet`] (used by `#[mcp_handler]`;
/// [`ToolRegistry::update_task`]).
///
/// # Errors
/// As [`get_task`].
pub async fn update_task<S: ToolSet>(
    server: &S,
    request: rmcp::model::UpdateTaskParams,
    context: RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    let registry = S::tool_registry().map_err(registry_error)?;
    let state = registry.state_for(&context);
    observe("tasks/update", None, &state, &context.clone(), async {
        registry.update_task(server, request, context).await
    })
    .await
}

/// The `tasks/cancel` answer of a [`ToolSet`] (used by `#[mcp_handler]`;
/// [`ToolRegistry::cancel_task`]).
///
/// # Errors
/// As [`get_task`].
pub async fn cancel_task<S: ToolSet>(
    server: &S,
    request: rmcp::model::CancelTaskParams,
    context: RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    let registry = S::tool_registry().map_err(registry_error)?;
    let state = registry.state_for(&context);
    observe("tasks/cancel", None, &state, &context.clone(), async {
        registry.cancel_task(server, request, context).await
    })
    .await
}

/// What a `subscriptions/listen` stream may follow (used by `#[mcp_handler]` for
/// `ServerHandler::accepted_subscription_filter`): its resources (the first
/// [`MAX_FOLLOWED`](crate::subscriptions::MAX_FOLLOWED)) and the resource list; rmcp keeps
/// of it what [`server_info`] advertises (`resources.subscribe`, `resources.listChanged`).
pub fn accepted_subscription_filter(
    requested: &rmcp::model::SubscriptionFilter,
) -> Option<rmcp::model::SubscriptionFilter> {
    crate::router::listen::accepted_filter(requested)
}

/// One `subscriptions/listen` stream of a [`ToolSet`] (MCP 2026-07-28, SEP-2575; used by
/// `#[mcp_handler]` for `ServerHandler::listen`): the instance's
/// [`Subscriptions`](crate::Subscriptions) and the followed tasks' statuses, until the
/// client cancels it.
///
/// # Errors
/// JSON-RPC `-32603` with the [`RegistryError`] of a server that cannot serve.
pub async fn listen<S: ToolSet>(
    server: &S,
    subscription: rmcp::service::SubscriptionContext,
) -> Result<(), ErrorData> {
    let registry = S::tool_registry().map_err(registry_error)?;
    let context = subscription.request_context().clone();
    let state = registry.state_for(&context);
    observe("subscriptions/listen", None, &state, &context, async {
        registry.listen(server, subscription).await
    })
    .await
}

/// `resources/subscribe` of a [`ToolSet`] (before MCP 2026-07-28; used by `#[mcp_handler]`):
/// the session hears `notifications/resources/updated` for `uri` from the instance's
/// [`Subscriptions`](crate::Subscriptions).
///
/// # Errors
/// `-32602` past [`MAX_FOLLOWED`](crate::subscriptions::MAX_FOLLOWED) resources in a
/// session.
pub fn subscribe<S: ToolSet>(
    request: rmcp::model::SubscribeRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    let registry = S::tool_registry().map_err(registry_error)?;
    registry.subscribe(request, context)
}

/// `resources/unsubscribe` of a [`ToolSet`] (before MCP 2026-07-28; used by
/// `#[mcp_handler]`).
///
/// # Errors
/// None but the [`RegistryError`] of a server that cannot serve.
pub fn unsubscribe<S: ToolSet>(
    request: &rmcp::model::UnsubscribeRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    let registry = S::tool_registry().map_err(registry_error)?;
    registry.unsubscribe(request, context)
}

/// The answer to a request rmcp could not parse as any MCP request (used by
/// `#[mcp_handler]` for `ServerHandler::on_custom_request`).
///
/// A request for an MCP method that reaches here had malformed params (a `tools/call`
/// without `name`, a `resources/read` or `initialize` with `{}`): JSON-RPC `-32602` invalid
/// params with a short reason, as JSON-RPC 2.0 prescribes, rather than rmcp's default
/// `-32601` "method not found". Any other method is `-32601`, and so is a method the
/// request's protocol revision removed (on MCP 2026-07-28 and later: `initialize`,
/// `logging/setLevel`, `resources/subscribe` and `unsubscribe`, the tasks extension's
/// `tasks/result` and `tasks/list`), which rmcp's streamable HTTP answers with status `404`.
///
/// # Errors
/// Always: this is the error path.
pub fn custom_request(
    request: CustomRequest,
    context: &RequestContext<RoleServer>,
) -> Result<CustomResult, ErrorData> {
    let method = request.method.as_str();
    let removed = REMOVED_IN_2026_07_28.contains(&method)
        && context
            .protocol_version()
            .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    if removed {
        return Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("{method} is not a method of MCP 2026-07-28 and later"),
            None,
        ));
    }
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
            crate::wire::text::cap(&request.method),
            None,
        )),
    }
}

/// The methods MCP 2026-07-28 removed (SEP-2567 stateless requests: no handshake, no
/// per-session log level or subscriptions) and those the tasks extension removed then.
const REMOVED_IN_2026_07_28: &[&str] = &[
    "initialize",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "tasks/result",
    "tasks/list",
];

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

#[cfg(doc)]
use crate::{
    router::{def::RegistryError, registry::ToolRegistry},
    serve::handler::server_info,
};
