//! What `#[mcp_handler]` fills into a user's `impl rmcp::ServerHandler`: the answers to
//! `tools/list`, `tools/call`, `resources/read` and malformed requests, from the server
//! type's [`ToolSet`].

use std::{sync::Arc, time::Duration};

use rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode,
        Implementation, InitializeRequestParams, InitializeResult, ListToolsResult,
        ServerCapabilities, ServerConfig, Tool,
    },
    service::RequestContext,
    transport::IntoTransport,
    ErrorData, RoleServer, ServerHandler, ServiceExt,
};

use crate::server::{
    approval::{ApprovalStore, MemoryApprovals, APPROVAL_URI_PREFIX},
    audit::{AuditSink, TracingSink},
    idempotency::{IdempotencyStore, MemoryIdempotencyStore},
    identity::Identity,
    registry::{RegistryError, ToolBlock, ToolRegistry},
    store::{read_artifact, ArtifactAccess},
};

/// A server type whose tools were declared with `#[mcp_tools]`; implemented by that macro,
/// on the server's main block (the one without `block = ...`), with the tools of that block
/// and of every block it names in `#[mcp_tools(include(...))]`. A generic server type
/// (`impl<Db: Store> Server<Db>`) gets one registry per concrete type.
///
/// The server is `Clone`: every call runs on a clone of it (keep shared state behind an
/// `Arc`), so that a synchronous tool runs on a blocking thread, and a write outlives a
/// request that was cancelled or passed its time limit and still records its outcome.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no tools",
    label = "no `#[mcp_tools]` impl block for this type",
    note = "annotate an `impl {Self} {{ ... }}` block holding `#[mcp_tool]` methods with `#[mcp_tools]`"
)]
pub trait ToolSet: Sized + Send + Sync + 'static {
    /// A clone of the server for one call (`#[mcp_tools]` implements it with `Clone`).
    fn clone_for_call(&self) -> Self;

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

    /// The server's own services (`#[mcp_tools(services)]` returns `Some(self)`, requiring
    /// `Self: ServerServices`); `None`: the defaults of [`ServerServices`].
    fn services(&self) -> Option<&dyn ServerServices> {
        None
    }
}

/// The tools of `Self`'s block `#[mcp_tools(block = name)]`, for the main block that
/// includes it. `BLOCK` is a hash of the block's name (FNV-1a, 64 bits), computed by
/// `#[mcp_tools]` on both sides.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `#[mcp_tools(block = ...)]` impl block of this name",
    label = "no block of this name",
    note = "a block is an `impl {Self} {{ ... }}` of `#[mcp_tool]` methods under `#[mcp_tools(block = name)]`; `include(...)` lists the names of such blocks"
)]
pub trait ToolBlockOf<const BLOCK: u64>: Sized {
    /// The block's tool definitions.
    fn tool_block() -> ToolBlock<Self>;
}

/// Implemented by the main `#[mcp_tools]` block of `Self` for each block it includes, so that
/// a block nobody includes is a compile error, not tools silently never served.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "this `#[mcp_tools(block = ...)]` block of `{Self}` is never served",
    label = "not listed in `include(...)` of the main `#[mcp_tools]` block",
    note = "list it on the server's main block: `#[mcp_tools(include(name))] impl {Self} {{ ... }}` (the one `#[mcp_tools]` block without `block = ...`)"
)]
pub trait IncludesBlock<const BLOCK: u64> {}

/// Compile-time check that the main block of `S` includes block `BLOCK`.
#[doc(hidden)]
pub const fn assert_included<S: IncludesBlock<BLOCK>, const BLOCK: u64>() {}

/// Where a server's write-safety state lives and who calls it. Implement it (every method
/// has a default) and declare `#[mcp_tools(services)]` to replace a default.
pub trait ServerServices: Send + Sync {
    /// Where idempotency records live. Default: one in-memory store for the process.
    fn idempotency_store(&self) -> Arc<dyn IdempotencyStore> {
        static DEFAULT: std::sync::LazyLock<Arc<MemoryIdempotencyStore>> =
            std::sync::LazyLock::new(Default::default);
        DEFAULT.clone()
    }

    /// Where approval requests live. Default: [`MemoryApprovals::global`].
    fn approval_store(&self) -> Arc<dyn ApprovalStore> {
        Arc::new(MemoryApprovals::global().clone())
    }

    /// Where the audit records of write attempts go. Default: [`TracingSink`] (the log,
    /// target `mcp_result::audit`).
    fn audit_sink(&self) -> Arc<dyn AuditSink> {
        Arc::new(TracingSink)
    }

    /// The caller's identity, which artifacts, idempotency keys, audit records, approval
    /// requests and page cursors are scoped to. It comes from the transport, never from
    /// what a client writes in `_meta` (mcp-result rule 14). `None` refuses the call
    /// (`permission_denied`) and every `resources/read`: no identity, no access.
    ///
    /// Default: [`Identity::of`]: the verified bearer token's identity over streamable
    /// HTTP, the process identity (`MCP_RESULT_IDENTITY`, else `local`) over stdio.
    fn caller_identity(&self, context: &RequestContext<RoleServer>) -> Option<Identity> {
        Identity::of(context)
    }
}

/// The services of a server that declares none.
struct Defaults;
impl ServerServices for Defaults {}

/// A [`ToolSet`]'s services: its own, or the defaults.
pub(crate) fn services_of<S: ToolSet>(server: &S) -> &dyn ServerServices {
    server.services().unwrap_or(&Defaults)
}

/// How `#[mcp_tools]` clones the server for a call: `Clone`, with a message that says why
/// when the server type is not.
#[diagnostic::on_unimplemented(
    message = "`{Self}` serves tools, so it must be `Clone`",
    label = "add `#[derive(Clone)]` to this type",
    note = "every tool call runs on a clone of the server (a synchronous tool on a blocking thread, a write past its time limit to its end): keep shared state behind an `Arc`"
)]
pub trait ServerClone: Sized {
    /// `Clone::clone`.
    fn clone_server(&self) -> Self;
}

impl<T: Clone> ServerClone for T {
    fn clone_server(&self) -> Self {
        self.clone()
    }
}

/// The `initialize` (and, on MCP 2026-07-28, `server/discover`) answer of a [`ToolSet`]
/// (used by `#[mcp_handler]` for `ServerHandler::get_info` when the user writes none): the
/// `tools` capability (MCP "Tools: Capabilities": a server that offers tools MUST declare
/// it), `resources` when the server serves artifacts, and `serverInfo` named after the
/// user's crate (`name` and `version` are its `CARGO_PKG_NAME` and `CARGO_PKG_VERSION`, read
/// where the macro expands).
pub fn server_info<S: ToolSet>(name: &'static str, version: &'static str) -> ServerConfig {
    let capabilities = ServerCapabilities::builder().enable_tools();
    let approvals = S::tool_registry().is_ok_and(|registry| registry.has_approvals());
    let capabilities = if S::ARTIFACTS || approvals {
        capabilities.enable_resources().build()
    } else {
        capabilities.build()
    };
    ServerConfig::new(capabilities).with_server_info(Implementation::new(name, version))
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
    crate::server::key::ServerKey::from_env()
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
    let registry = prepare::<S>()?;
    let running = server.serve(transport).await?;
    running.waiting().await?;
    drain(registry).await;
    Ok(())
}

/// What every way of serving checks first: the tools are sound, and a configured server
/// key is usable (it stops the server here, not at the first keyed write).
pub(crate) fn prepare<S: ToolSet>(
) -> Result<&'static ToolRegistry<S>, Box<dyn std::error::Error + Send + Sync>> {
    let registry = S::tool_registry().map_err(|error| error.clone())?;
    if let Some(key) = crate::server::key::ServerKey::from_env()? {
        let _ = crate::server::key::ServerKey::install(key);
    }
    let _ = crate::server::key::ServerKey::global();
    Ok(registry)
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
/// # Errors
/// As [`serve`].
#[cfg(feature = "transport-io")]
pub async fn serve_stdio<S: ToolSet + ServerHandler>(
    server: S,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    serve(server, rmcp::transport::io::stdio_pipes()).await
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
    // Boxed: the call's state machine (validation, idempotency, approval, audit) is large,
    // and rmcp moves the request's future into a task of its own; a pointer moves cheaply.
    Box::pin(registry.call(server, request, context)).await
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
pub async fn read_resource<S: ToolSet>(
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
    let not_found = || ErrorData::resource_not_found(format!("resource not found: {uri}"), None);
    let request = services
        .approval_store()
        .get(id)
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
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

pub(crate) fn registry_error(error: &RegistryError) -> ErrorData {
    ErrorData::internal_error(error.to_string(), None)
}
