//! What `#[mcp_handler]` fills into a user's `impl rmcp::ServerHandler`: the answers to
//! `tools/list`, `tools/call`, `resources/read` and malformed requests, from the server
//! type's [`ToolSet`].

use std::time::Duration;

use rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, Implementation, InitializeRequestParams,
        InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
        ServerConfig, Tool,
    },
    service::RequestContext,
    transport::IntoTransport,
    ErrorData, RoleServer, ServerHandler, ServiceExt,
};

use crate::{
    error_text::ErrorText,
    router::{
        def::{registry_error, RegistryError},
        registry::ToolRegistry,
        set::{services_of, ToolSet},
        telemetry::observe,
    },
    serve::resources::read_artifact,
    serve::transport::WithState,
    state::State,
    write::approval::APPROVAL_URI_PREFIX,
};

/// The `initialize` (and, on MCP 2026-07-28, `server/discover`) answer of a [`ToolSet`]
/// (used by `#[mcp_handler]` for `ServerHandler::get_info` when the user writes none): the
/// `tools` capability (MCP "Tools: Capabilities": a server that offers tools MUST declare
/// it), `resources` when the server serves artifacts or approval requests (with
/// `subscribe` and `listChanged`: the framework serves subscriptions, [`listen`]), the
/// tasks extension when a tool runs as a task, and `serverInfo` named after the
/// user's crate (`name` and `version` are its `CARGO_PKG_NAME` and `CARGO_PKG_VERSION`, read
/// where the macro expands).
pub fn server_info<S: ToolSet>(name: &'static str, version: &'static str) -> ServerConfig {
    server_info_of::<S>(name, version, false)
}

/// [`server_info`], with the `resources` capability also when `own_resources` (the server
/// wrote `read_resource` or `list_resources`: `#[mcp_handler]` knows).
pub fn server_info_of<S: ToolSet>(
    name: &'static str,
    version: &'static str,
    own_resources: bool,
) -> ServerConfig {
    let Ok(registry) = S::tool_registry() else {
        return build_server_info::<S>(name, version, own_resources);
    };
    let asked = (name, version, own_resources);
    let (built_for, info) = registry
        .info
        .get_or_init(|| (asked, build_server_info::<S>(name, version, own_resources)));
    if *built_for == asked {
        info.clone()
    } else {
        build_server_info::<S>(name, version, own_resources)
    }
}

#[allow(deprecated)] // `logging`: rmcp marks it deprecated (SEP-2577); MCP still has it.
fn build_server_info<S: ToolSet>(
    name: &'static str,
    version: &'static str,
    own_resources: bool,
) -> ServerConfig {
    let capabilities = ServerCapabilities::builder()
        .enable_tools()
        .enable_logging();
    let approvals = S::tool_registry().is_ok_and(|registry| registry.has_approvals());
    let tasks = S::tool_registry().is_ok_and(|registry| registry.has_tasks());
    // Resources the framework serves change (an approval request is decided) and the
    // server's own may: subscriptions are served (`resources/subscribe` before 2026-07-28,
    // `subscriptions/listen` on it).
    let mut capabilities = if S::ARTIFACTS || approvals || own_resources {
        capabilities
            .enable_resources()
            .enable_resources_subscribe()
            .enable_resources_list_changed()
            .build()
    } else {
        capabilities.build()
    };
    if tasks {
        // SEP-2663: the tasks extension, under `capabilities.extensions`.
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(
                rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                Default::default(),
            );
    }
    ServerConfig::new(capabilities).with_server_info(Implementation::new(name, version))
}

/// The `server/discover` answer (MCP 2026-07-28; used by `#[mcp_handler]` when the user
/// writes none): rmcp's, from `get_info`, without the capability of a method 2026-07-28
/// removed (`logging`, whose level is now per request). `resources.subscribe` stays: on
/// 2026-07-28 it says a `subscriptions/listen` stream follows resources.
#[allow(deprecated)]
pub fn discover<S: ServerHandler>(server: &S) -> rmcp::model::DiscoverResult {
    let mut info = server.get_info();
    info.capabilities.logging = None;
    rmcp::model::DiscoverResult::from_server_info(
        server.supported_protocol_versions().into_owned(),
        info,
    )
}

/// The `logging/setLevel` answer (before MCP 2026-07-28; used by `#[mcp_handler]` when the
/// user writes none): the session's level, which its [`Log`](crate::Log) messages
/// follow from then on.
///
/// # Errors
/// None: every level is accepted.
#[allow(deprecated)]
pub fn set_level<S: ToolSet>(
    request: rmcp::model::SetLevelRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    let state = S::tool_registry()
        .map_err(registry_error)?
        .state_for(context);
    state.set_log_level(crate::tool::log::session_of(context), request.level);
    Ok(())
}

/// The `initialize` answer (used by `#[mcp_handler]` when the user writes none): rmcp's,
/// after checking that the server's tools are sound and that a configured server key is
/// usable, so a server that cannot serve fails its handshake with the tool's name and the
/// fix (or the key's problem) instead of answering later requests with `-32603`.
///
/// # Errors
/// JSON-RPC `-32603` with the [`RegistryError`]; rmcp's own version negotiation errors.
pub fn initialize<S: ToolSet + ServerHandler>(
    server: &S,
    request: InitializeRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<InitializeResult, ErrorData> {
    S::tool_registry().map_err(registry_error)?;
    // A configured server key that is unusable fails the handshake, not the first keyed
    // write.
    crate::store::key::ServerKey::from_env()
        .map_err(|error| ErrorData::internal_error(format!("invalid server key: {error}"), None))?;
    context.peer.set_peer_info(request.clone());
    server.negotiate_initialize(&request)
}

/// How long [`serve`] waits, after the transport closed, for writes still running.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Serves `server` on `transport` until the client disconnects, then drains: writes still
/// running finish and record their outcome, for up to [`SHUTDOWN_GRACE`]. A write still
/// running after that is logged as outcome unknown (its idempotency key answers
/// `outcome_unknown` once its lease ends), never dropped silently.
///
/// The tools and the server key are checked before anything is served: a broken tool
/// definition is an error naming the tool and the fix, a configured server key that is
/// unusable (`MCP_RESULT_SERVER_KEY`) an error saying why.
///
/// # Errors
/// The [`RegistryError`]; the server key's `KeyError`; rmcp's handshake or transport
/// error.
pub async fn serve<S, T, E, A>(
    server: S,
    transport: T,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>>
where
    S: ToolSet + ServerHandler,
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    serve_with_state(server, transport, State::new()).await
}

/// [`serve`], with `state` handed to every call: the stores, server key and values of this
/// instance ([`State`]).
///
/// # Errors
/// As [`serve`].
pub async fn serve_with_state<S, T, E, A>(
    server: S,
    transport: T,
    state: State,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>>
where
    S: ToolSet + ServerHandler,
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    #[cfg(feature = "approvals-page")]
    let local_page = state.local_approvals_page().is_some();
    #[cfg(not(feature = "approvals-page"))]
    let local_page = false;
    let no_page = "this transport serves no approvals page";
    let registry = prepare(&server, &state, (!local_page).then_some(no_page))?;
    #[cfg(feature = "approvals-page")]
    let (state, page) = {
        let services = services_of(&server);
        let stores = (services.approval_store(&state), services.audit_sink(&state));
        crate::http::serve_local(state, stores, registry.tools()).await?
    };
    let transport = WithState {
        inner: transport.into_transport(),
        state,
    };
    #[cfg(feature = "opentelemetry")]
    let metrics = transport.state.metrics().cloned();
    let running = server.serve(transport).await?;
    #[cfg(feature = "opentelemetry")]
    let session = (
        std::time::Instant::now(),
        running
            .peer()
            .peer_info()
            .map(|info| info.protocol_version.to_string()),
    );
    let ended = running.waiting().await;
    // `mcp.server.session.duration`: the connection is the session.
    #[cfg(feature = "opentelemetry")]
    if let Some(metrics) = metrics {
        metrics.record_session(session.0, session.1, ended.is_err());
    }
    drain(registry).await;
    #[cfg(feature = "approvals-page")]
    if let Some(page) = page {
        page.abort();
    }
    ended?;
    Ok(())
}

/// What every way of serving checks first: the tools are sound, a server whose tools run
/// as tasks declares the tasks extension (a `get_info` of its own may leave it out: rmcp
/// would then answer every `tasks/get` `-32601`), and a configured server key is usable
/// (it stops the server here, not at the first keyed write).
///
/// It also makes sure what the server logs reaches someone (a stderr subscriber when the
/// application installed none: `serve::logs`), refuses a state whose stores mix durable and
/// in-memory ones unless the mix is allowed (`State::allow_mixed_stores`, logging the allowed
/// mix), and, where `no_page` says why no approvals page is served, checks that its gated
/// tools can be approved ([`check_approvable`]).
pub(crate) fn prepare<S: ToolSet + ServerHandler>(
    server: &S,
    state: &State,
    no_page: Option<&str>,
) -> Result<&'static ToolRegistry<S>, Box<dyn std::error::Error + Send + Sync>> {
    crate::serve::logs::ensure_subscriber();
    let services = services_of(server);
    let stores = [
        (
            "idempotency keys",
            services.idempotency_store(state).durable(),
        ),
        (
            "approval requests",
            services.approval_store(state).durable(),
        ),
        ("audit records", services.audit_sink(state).durable()),
        ("tasks", services.task_store(state).durable()),
    ];
    match state.check_store_mix(stores) {
        Ok(None) => {}
        Ok(Some(warning)) => tracing::warn!("{warning}"),
        Err(refusal) => return Err(ErrorText(refusal).into()),
    }
    let registry = S::tool_registry().map_err(|error| error.clone())?;
    if let Some(tool) = registry.task_tool() {
        if !server.get_info().capabilities.supports_tasks() {
            return Err(RegistryError {
                tool,
                message: "it runs as a task (`task = ...`), and the server's `get_info` does \
                          not declare the tasks extension: add `.enable_tasks()` to its \
                          `ServerCapabilities::builder()`, or start from \
                          `mcp_result::handler::server_info::<Self>(..)`"
                    .to_owned(),
            }
            .into());
        }
    }
    if let Some(key) = crate::store::key::ServerKey::from_env()? {
        let _ = crate::store::key::ServerKey::install(key);
    }
    let _ = crate::store::key::ServerKey::global();
    if let Some(no_page) = no_page {
        check_approvable(server, registry, state, no_page)?;
    }
    Ok(registry)
}

/// Whether the server's approval-gated tools could be approved, served where `no_page` says
/// no approvals page is: a client that supports elicitation asks its user during the call,
/// but a client that cannot be asked gets `blocked` with an `approvalRequestId`, and only
/// another process can decide that request, through a store it shares
/// ([`crate::approval::run_command`]). With an approval store in this process's memory and
/// no page, nothing ever can:
///
/// - without the feature `elicitation`, no client can have the tool approved: an error
///   naming the tool and the ways out;
/// - with it, clients that cannot be asked cannot: the same words, as a `warn` line at start.
///
/// The store is the one the server's calls use (its [`ServerServices`](crate::ServerServices)
/// when it declares `services`, else the state's).
fn check_approvable<S: ToolSet>(
    server: &S,
    registry: &ToolRegistry<S>,
    state: &State,
    no_page: &str,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let Some(tool) = registry.gated_tool() else {
        return Ok(());
    };
    if services_of(server).approval_store(state).durable() {
        return Ok(());
    }
    let ways_out = "ways out: make the approval store durable in one call \
         (`State::connect(\"sqlite:app.db\")`, features `sqlite`/`postgres`) and decide from \
         another process with your binary's `approvals` subcommand \
         (`mcp_result::approval::run_command`), or serve the approvals page (feature \
         `approvals-page`: on a loopback port beside stdio, \
         `State::with_local_approvals_page(\"127.0.0.1:0\")`, or over HTTP)";
    if cfg!(feature = "elicitation") {
        tracing::warn!(
            "`{tool}` needs a human approval: a client that supports elicitation asks its \
             user, but one that cannot be asked gets `blocked` with a request nothing can \
             decide: the approval store is in this process's memory and {no_page}; {ways_out}"
        );
        return Ok(());
    }
    Err(ErrorText(format!(
        "`{tool}` needs a human approval and nobody could give one: this build asks no \
         client (feature `elicitation` is off), the approval store is in this process's \
         memory and {no_page}; {ways_out}"
    ))
    .into())
}

/// What every way of serving does last: waits up to [`SHUTDOWN_GRACE`] for running writes,
/// and logs those still running as outcome unknown.
pub(crate) async fn drain<S: ToolSet>(registry: &ToolRegistry<S>) {
    let unfinished = registry.drain(SHUTDOWN_GRACE).await;
    if unfinished > 0 {
        tracing::error!(
            unfinished,
            grace_ms = SHUTDOWN_GRACE.as_millis(),
            "writes still running at shutdown: their outcome is unknown"
        );
    }
}

/// [`serve`] over standard input and output, with rmcp's `stdio_pipes()` (non-blocking
/// pipes where both streams are FIFOs, as MCP clients launch servers; rmcp falls back to
/// blocking stdio elsewhere). stdout is the MCP channel: log to stderr.
///
/// Every bad line gets an answer: `-32700` for a line that is not JSON (with the request's
/// `id` when the line shows it), `-32600`/`-32602` for JSON that is no message or whose
/// `params` do not fit; a notification or response before `initialize` is dropped, never
/// the end of the session.
///
/// # Errors
/// As [`serve`].
#[cfg(feature = "transport-io")]
pub async fn serve_stdio<S: ToolSet + ServerHandler>(
    server: S,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (read, write) = rmcp::transport::io::stdio_pipes();
    let versions = ServerHandler::supported_protocol_versions(&server);
    serve(
        server,
        crate::serve::lines::Lines::new(read, write, versions, follows_tasks::<S>()),
    )
    .await
}

/// [`serve_stdio`], with `state` handed to every call ([`State`]).
///
/// # Errors
/// As [`serve`].
#[cfg(feature = "transport-io")]
pub async fn serve_stdio_with_state<S: ToolSet + ServerHandler>(
    server: S,
    state: State,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (read, write) = rmcp::transport::io::stdio_pipes();
    let versions = ServerHandler::supported_protocol_versions(&server);
    serve_with_state(
        server,
        crate::serve::lines::Lines::new(read, write, versions, follows_tasks::<S>()),
        state,
    )
    .await
}

/// Whether a `subscriptions/listen` stream of `S` follows tasks (`taskIds`): when a tool of
/// it runs as a task.
#[cfg(feature = "transport-io")]
pub(crate) fn follows_tasks<S: ToolSet>() -> bool {
    S::tool_registry().is_ok_and(|registry| registry.has_tasks())
}

/// The `tools/list` answer of a [`ToolSet`] (used by `#[mcp_handler]`): every tool, in one
/// page.
///
/// # Errors
/// JSON-RPC `-32602` for a `cursor` (this server issues none: MCP "Pagination", invalid
/// cursors SHOULD get `-32602`); internal error (`-32603`) carrying the [`RegistryError`]
/// text.
pub fn list_tools<S: ToolSet>(
    request: Option<&PaginatedRequestParams>,
) -> Result<ListToolsResult, ErrorData> {
    no_cursor(request)?;
    let registry = S::tool_registry().map_err(registry_error)?;
    Ok(ListToolsResult::with_all_items(registry.tools().to_vec()))
}

/// [`list_tools`] in the request's span, its duration on the instance's meter (used by
/// `#[mcp_handler]`).
///
/// # Errors
/// As [`list_tools`].
pub async fn list_tools_observed<S: ToolSet>(
    request: Option<&PaginatedRequestParams>,
    context: &RequestContext<RoleServer>,
) -> Result<ListToolsResult, ErrorData> {
    let state = S::tool_registry()
        .map_err(registry_error)?
        .state_for(context);
    observe("tools/list", None, &state, context, async {
        list_tools::<S>(request)
    })
    .await
}

/// A `tools/call` answer in the making: boxed, so that each layer that moves it (rmcp moves
/// a request's future through its service loop and into a task of its own) moves a pointer,
/// not the call's state machine.
pub type CallFuture<'a> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<CallToolResponse, ErrorData>> + Send + 'a>,
>;

/// The `tools/call` answer of a [`ToolSet`] (used by `#[mcp_handler]`, whose `call_tool`
/// returns this future as it is: one allocation a call, and nothing large moved).
///
/// # Errors
/// JSON-RPC `-32602` for an unknown tool; `-32603` for a broken tool definition.
pub fn call_tool<S: ToolSet>(
    server: &S,
    request: CallToolRequestParams,
    context: RequestContext<RoleServer>,
) -> CallFuture<'_> {
    match S::tool_registry() {
        Ok(registry) => Box::pin(registry.call(server, request, context)),
        Err(error) => Box::pin(std::future::ready(Err(registry_error(error)))),
    }
}

pub use super::requests::{
    accepted_subscription_filter, cancel_task, custom_request, get_task, listen, subscribe,
    unsubscribe, update_task,
};

/// One tool's definition (used by `#[mcp_handler]` for `ServerHandler::get_tool`).
pub fn tool_for<S: ToolSet>(name: &str) -> Option<Tool> {
    S::tool_registry().ok()?.tool(name).cloned()
}

/// Whether `uri` is one of the framework's own resources (a stored artifact,
/// `mcp-result://artifacts/…`, or a pending approval request, `mcp-result://approvals/…`):
/// a server that writes its own `read_resource` hands these to [`read_resource`], so the
/// framework's reads keep working beside its own (guide, "Beside the framework").
pub fn is_framework_uri(uri: &str) -> bool {
    uri.starts_with(crate::store::artifact::ARTIFACT_URI_PREFIX)
        || uri.starts_with(APPROVAL_URI_PREFIX)
}

/// The `resources/read` answer of a [`ToolSet`] (used by `#[mcp_handler]`): the artifacts
/// its tools stored, checked by [`ArtifactAccess::may_read`](crate::store::ArtifactAccess::may_read).
///
/// # Errors
/// `-32601` when the server has no artifact store; resource-not-found for an unknown or
/// denied URI (the same error for both).
pub async fn read_resource<S: ToolSet>(
    server: &S,
    request: rmcp::model::ReadResourceRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
    let state = S::tool_registry()
        .map_err(registry_error)?
        .state_for(&context);
    let uri = request.uri.clone();
    observe(
        "resources/read",
        Some(&uri),
        &state,
        &context.clone(),
        async { read_resource_unobserved(server, request, context).await },
    )
    .await
}

/// [`read_resource`]'s answer.
async fn read_resource_unobserved<S: ToolSet>(
    server: &S,
    request: rmcp::model::ReadResourceRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
    if let Some(id) = request.uri.strip_prefix(APPROVAL_URI_PREFIX) {
        return read_approval(server, id, &request.uri, &context).await;
    }
    match server.artifact_access() {
        Some(access) => {
            read_artifact(
                access,
                &request,
                services_of(server).caller_identity(&context),
            )
            .await
        }
        None => Err(ErrorData::method_not_found::<
            rmcp::model::ReadResourceRequestMethod,
        >()),
    }
}

/// A pending approval request as JSON, for its caller only (anyone else: not found).
async fn read_approval<S: ToolSet>(
    server: &S,
    id: &str,
    uri: &str,
    context: &RequestContext<RoleServer>,
) -> Result<rmcp::model::ReadResourceResponse, ErrorData> {
    let services = services_of(server);
    let state = S::tool_registry()
        .map_err(registry_error)?
        .state_for(context);
    let not_found = || {
        ErrorData::resource_not_found(
            format!(
                "resource not found: {}",
                crate::wire::text::cap_message(uri)
            ),
            None,
        )
    };
    if id.contains('\0') {
        // No id holds it, and some databases cannot even be asked.
        return Err(not_found());
    }
    let request = services
        .approval_store(&state)
        .get(id)
        .await
        .map_err(|e| crate::serve::resources::store_error("approval store", &e))?
        .ok_or_else(not_found)?;
    if services.caller_identity(context).map(|caller| caller.key()) != Some(request.caller.clone())
    {
        return Err(not_found());
    }
    let mut shown = serde_json::to_value(&request).unwrap_or_default();
    if let Some(object) = shown.as_object_mut() {
        object.remove("fingerprints");
    }
    Ok(rmcp::model::ReadResourceResult::new(vec![
        rmcp::model::ResourceContents::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: Some("application/json".into()),
            text: shown.to_string(),
            meta: None,
        },
    ])
    .into())
}

/// The answer of a list method the server leaves to the framework (`resources/list`,
/// `resources/templates/list`, `prompts/list`; used by `#[mcp_handler]`): `-32601` when the
/// server does not declare the capability (`declared`), as rmcp answers; else `-32602` for a
/// `cursor` (a one-page list issued none: MCP "Pagination"), else the empty list.
///
/// # Errors
/// As above.
pub fn empty_list<R: Default, M: rmcp::model::ConstString>(
    declared: bool,
    request: Option<&PaginatedRequestParams>,
) -> Result<R, ErrorData> {
    if !declared {
        return Err(ErrorData::method_not_found::<M>());
    }
    no_cursor(request)?;
    Ok(R::default())
}

/// Refuses a list request's `cursor`: the framework lists everything in one page, so it
/// issued none, and a cursor it never issued is invalid (MCP "Pagination": `-32602`). The
/// cursor itself is not echoed.
pub(crate) fn no_cursor(request: Option<&PaginatedRequestParams>) -> Result<(), ErrorData> {
    match request.and_then(|request| request.cursor.as_ref()) {
        Some(_) => Err(ErrorData::invalid_params(
            "invalid cursor: this server lists everything in one page and issued no cursor; \
             list again without `cursor`",
            None,
        )),
        None => Ok(()),
    }
}
