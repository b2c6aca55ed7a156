//! The tools of one server type, built once: the `tools/list` payload, a name index and
//! each tool's compiled argument validator.

use std::{
    borrow::Cow,
    collections::HashMap,
    fmt,
    future::Future,
    panic::AssertUnwindSafe,
    pin::Pin,
    sync::{atomic::Ordering, Arc},
    time::Duration,
};

use futures::FutureExt;
use rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, InputRequiredResult, JsonObject,
        Tool, ToolAnnotations,
    },
    service::RequestContext,
    ErrorData, RoleServer,
};
use serde_json::Value;
use tracing::Instrument;

use crate::{
    server::{
        approval::gated_input_schema,
        arguments::ArgumentSchema,
        audit::{argument_digest, AuditRecord, Phase},
        extract::{extend_input, ToolCall, ToolExtension},
        handler::{services_of, ToolSet},
        idempotency::{
            fingerprints, Advertised, Claim, IdempotencyStore, KeyScope, DEFAULT_TTL, DEFAULT_WAIT,
        },
        key::ServerKey,
        panics::{self, Guarded},
        result::error_result,
        schema::{portable_input, OutputShape, ToolOutputSchema},
        telemetry,
        write::{
            approval_request_id, audit_failed, gate, idempotency_key, new_event_id, store_failed,
            Audit, InFlight, Round, Running,
        },
    },
    wire::envelope::{ErrorKind, ToolError},
};

/// The future a tool's generated call glue returns: it owns its clone of the server, so it
/// can outlive the request (a write runs to its end).
pub type ToolFuture = Pin<Box<dyn Future<Output = CallToolResult> + Send + 'static>>;

/// The call glue `#[mcp_tools]` generates for one tool: extracts the parameters from the
/// call, runs the method on `server` (a synchronous one on a blocking thread) and builds its
/// result.
pub type CallFn<S> = fn(S, ToolCall) -> ToolFuture;

/// One tool as `#[mcp_tool]` describes it: the static facts plus the call glue. Built by
/// generated code; [`ToolRegistry::new`] turns the schema thunks into schemas once.
pub struct ToolDef<S> {
    /// Tool name (checked at compile time: `^[a-zA-Z0-9_-]{1,64}$`, or with
    /// `#[mcp_tool(spec_name)]` 1 to 128 of `A-Z a-z 0-9 _ - .`).
    pub name: &'static str,
    /// The method that implements the tool (`search_tickets`), for messages that must tell
    /// two tools of one name apart.
    pub method: &'static str,
    /// Human-readable title, if any.
    pub title: Option<&'static str>,
    /// Description (the method's doc comment or `description = "..."`).
    pub description: &'static str,
    /// Tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`).
    pub annotations: ToolAnnotations,
    /// The full input schema of the argument type: the one calls are validated against.
    /// `tools/list` advertises its portable profile ([`crate::schema::portable_input`]).
    pub input_schema: fn() -> Arc<JsonObject>,
    /// What the other parameters add to the tool: arguments they read themselves and
    /// `_meta` entries ([`crate::extract::ToolExtension`]; a `Pager`'s `cursor` and
    /// `pageSize`).
    pub extensions: fn() -> Vec<ToolExtension>,
    /// The success type's `structuredContent` schema and wrapping.
    pub output: fn() -> Arc<OutputShape>,
    /// `#[mcp_tool(timeout_ms = N)]`: past this a read-only call is abandoned and answered
    /// `upstream_timeout`; a write is answered with an unknown outcome and runs to its end.
    pub timeout: Option<Duration>,
    /// `#[mcp_tool(idempotency_key = "field")]`: the argument that carries the idempotency
    /// key, for hosts whose models cannot set `_meta` (a top-level string property).
    pub idempotency_key: Option<&'static str>,
    /// `#[mcp_tool(requires_approval)]` (`Some("")`) or `approval = "Close {ticketId}"`: the
    /// write needs a human decision first ([`crate::approval`]); the approval text.
    pub approval: Option<&'static str>,
    /// Extracts the parameters, runs the method and builds its result.
    pub call: CallFn<S>,
}

/// The tools of one `#[mcp_tools]` impl block: the server's main block (`#[mcp_tools]`, the
/// one that implements [`ToolSet`]) or a named block it includes
/// (`#[mcp_tools(block = billing)]`, listed in `#[mcp_tools(include(billing))]` on the main
/// block). Built by generated code; [`ToolRegistry::from_blocks`] makes one registry of all
/// of a server's blocks.
pub struct ToolBlock<S> {
    /// The server type as written (`Desk`), for messages.
    pub server: &'static str,
    /// `None` for the main block, `Some("billing")` for `#[mcp_tools(block = billing)]`.
    pub block: Option<&'static str>,
    /// The block's tools, in declaration order.
    pub tools: Vec<ToolDef<S>>,
}

impl<S> ToolBlock<S> {
    /// Where a tool of this block comes from, as messages name it:
    /// `` `Desk::refund` (`#[mcp_tools(block = billing)]`) ``.
    fn origin(&self, method: &str) -> String {
        match self.block {
            None => format!("`{}::{method}` (`#[mcp_tools]`)", self.server),
            Some(block) => format!(
                "`{}::{method}` (`#[mcp_tools(block = {block})]`)",
                self.server
            ),
        }
    }
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
    name: &'static str,
    /// Its method and block, as [`ToolBlock::origin`] names them.
    origin: String,
    arguments: Arc<ArgumentSchema>,
    timeout: Option<Duration>,
    read_only: bool,
    idempotent: bool,
    takes_arguments: bool,
    key_field: Option<&'static str>,
    approval: Option<&'static str>,
    /// The arguments the tool's parameters read themselves ([`ToolExtension`]).
    extension_arguments: Vec<String>,
    call: CallFn<S>,
}

/// The tools of one server type: the `tools/list` payload and a name index, built once.
///
/// `tools/list` clones the stored list (schemas are `Arc`s); `tools/call` is one hash
/// lookup, independent of the number of tools.
pub struct ToolRegistry<S> {
    tools: Vec<Tool>,
    routes: HashMap<&'static str, Route<S>>,
    in_flight: Arc<InFlight>,
}

impl<S> ToolRegistry<S> {
    /// Builds the registry: generates each schema once, serves each success schema with
    /// the [`ToolError`] envelope ([`ToolOutputSchema`]), and compiles each `inputSchema`
    /// into a validator.
    ///
    /// Each tool lists the portable profile of its input schema
    /// ([`crate::schema::portable_input`]) and validates calls against the full one.
    ///
    /// # Errors
    /// A [`RegistryError`] naming the tool when an `inputSchema` root is not
    /// `type: "object"` (MCP requires it) or is a composition with no portable form (a
    /// `#[serde(flatten)]` enum: [`crate::schema::RootComposition`] names the type and the
    /// fix), or a schema does not compile.
    pub fn new(defs: Vec<ToolDef<S>>) -> Result<Self, RegistryError> {
        Self::from_blocks(vec![ToolBlock {
            server: std::any::type_name::<S>(),
            block: None,
            tools: defs,
        }])
    }

    /// Builds one registry of every block of a server (its main `#[mcp_tools]` block and
    /// the named blocks it includes), each tool as [`Self::new`] does; `tools/list` lists
    /// them block by block, in declaration order.
    ///
    /// # Errors
    /// As [`Self::new`]; and a [`RegistryError`] naming both tools and both blocks when two
    /// blocks define a tool of the same name (tool names are unique within a server; within
    /// one block that is a compile error already).
    pub fn from_blocks(blocks: Vec<ToolBlock<S>>) -> Result<Self, RegistryError> {
        let count = blocks.iter().map(|block| block.tools.len()).sum();
        let mut tools = Vec::with_capacity(count);
        let mut routes: HashMap<&'static str, Route<S>> = HashMap::with_capacity(count);
        for (block, def) in blocks
            .iter()
            .flat_map(|block| block.tools.iter().map(move |def| (block, def)))
        {
            let error = |message: String| RegistryError {
                tool: def.name,
                message,
            };
            let origin = block.origin(def.method);
            if let Some(first) = routes.get(def.name) {
                return Err(error(format!(
                    "defined twice, by {} and by {origin}: tool names are unique within a \
                     server; rename one with `#[mcp_tool(name = \"...\")]`",
                    first.origin
                )));
            }
            let input = (def.input_schema)();
            if input.get("type") != Some(&Value::String("object".into())) {
                return Err(error(
                    "the argument type's schema root is not `type: \"object\"`; MCP requires \
                     arguments to be an object: use a struct with named fields"
                        .into(),
                ));
            }
            if let Some(field) = def.idempotency_key {
                let property = input
                    .get("properties")
                    .and_then(|p| p.get(field))
                    .and_then(|p| p.get("type"));
                let string = match property {
                    Some(Value::String(t)) => t == "string",
                    Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
                    _ => false,
                };
                if !string {
                    return Err(error(format!(
                        "`idempotency_key = \"{field}\"` names no string argument: add \
                         `{field}: Option<String>` (serialized as `{field}`) to the arguments \
                         type, or remove the key"
                    )));
                }
            }
            let input = match def.approval {
                Some(template) => gated_input_schema(input, template).map_err(error)?,
                None => input,
            };
            let (input, extension_arguments, extension_meta) =
                extend_input(input, (def.extensions)()).map_err(error)?;
            let takes_arguments = input.contains_key("required")
                || input
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| !p.is_empty());
            let advertised = portable_input(&input).map_err(|e| error(e.to_string()))?;
            let arguments = ArgumentSchema::new(Value::Object((*input).clone()))
                .map_err(|e| error(format!("inputSchema does not compile: {e}")))?;
            let hints = explicit_hints(def.annotations.clone());
            let read_only = hints.read_only_hint == Some(true);
            let idempotent = hints.is_idempotent();
            let mut tool = Tool::new(
                Cow::Borrowed(def.name),
                Cow::Borrowed(def.description),
                Arc::new(advertised),
            )
            .with_annotations(hints);
            if let Some(title) = def.title {
                tool = tool.with_title(title);
            }
            let mut tool = ToolOutputSchema::new(&(def.output)()).write(tool);
            if !read_only {
                Advertised::new(def.idempotency_key).write(&mut tool);
            }
            if !extension_meta.is_empty() {
                let mut meta = tool.meta.take().unwrap_or_default();
                meta.0.extend(extension_meta);
                tool.meta = Some(meta);
            }
            tools.push(tool);
            routes.insert(
                def.name,
                Route {
                    name: def.name,
                    origin,
                    arguments: Arc::new(arguments),
                    timeout: def.timeout,
                    read_only,
                    idempotent,
                    takes_arguments,
                    key_field: def.idempotency_key,
                    approval: def.approval,
                    extension_arguments,
                    call: def.call,
                },
            );
        }
        panics::install_hook();
        Ok(Self {
            tools,
            routes,
            in_flight: Arc::default(),
        })
    }

    /// Whether a tool needs human approval (the server then serves approval requests
    /// through `resources/read`).
    pub fn has_approvals(&self) -> bool {
        self.routes.values().any(|route| route.approval.is_some())
    }

    /// Every tool, in declaration order (the `tools` of a `tools/list` result).
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Looks a tool up by name.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|tool| tool.name == name)
    }

    /// Whether the server has a tool named `name` (one hash lookup).
    pub fn contains(&self, name: &str) -> bool {
        self.routes.contains_key(name)
    }

    /// Tool `name` as the registry keeps it, and where it is defined, as messages name it:
    /// `` `Desk::refund` (`#[mcp_tools(block = billing)]`) ``.
    pub(crate) fn origin(&self, name: &str) -> Option<(&'static str, &str)> {
        self.routes
            .get(name)
            .map(|route| (route.name, route.origin.as_str()))
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

    /// Waits until no write runs on its own task any more, at most `grace`; the number of
    /// writes still running then (used by [`crate::server::handler::serve`] at shutdown).
    pub async fn drain(&self, grace: Duration) -> usize {
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let idle = self.in_flight.idle.notified();
            tokio::pin!(idle);
            idle.as_mut().enable();
            let running = self.in_flight.count.load(Ordering::SeqCst);
            if running == 0 {
                return 0;
            }
            if tokio::time::timeout_at(deadline, idle).await.is_err() {
                return self.in_flight.count.load(Ordering::SeqCst);
            }
        }
    }
}

impl<S: ToolSet> ToolRegistry<S> {
    /// Runs a `tools/call`.
    ///
    /// - An unknown tool name is a protocol error: JSON-RPC `-32602` (MCP 2025-11-25,
    ///   "Error Handling").
    /// - Arguments are validated against the `inputSchema` before deserializing; every
    ///   failing field is reported at once in one `validation_error` result
    ///   (`isError: true`, MCP 2025-11-25: invalid arguments are tool execution errors).
    /// - A call cancelled (`notifications/cancelled`) before its tool starts never starts.
    /// - A read-only tool is dropped at its time limit (`upstream_timeout`) or when cancelled.
    /// - A write runs on its own task to its end, whatever happens to the request: past its
    ///   time limit the answer says the outcome is unknown (never `failed`); under an
    ///   idempotency key its outcome is stored, and a retry with the key gets it back
    ///   ([`crate::idempotency`]).
    /// - A panicking tool becomes an `internal` error result with a correlation id; the
    ///   panic message is logged, not returned.
    ///
    /// # Errors
    /// JSON-RPC `-32602` for an unknown tool.
    pub async fn call(
        &self,
        server: &S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let span = telemetry::call_span(
            &request.name,
            self.routes.contains_key(request.name.as_ref()),
            &context,
        );
        let started = std::time::Instant::now();
        let mut question = None;
        let answer = self
            .answer(server, request, context, &mut question)
            .instrument(span.clone())
            .await;
        telemetry::record_answer(&span, answer.as_ref(), started);
        let result = answer?;
        Ok(match question {
            Some(question) => CallToolResponse::InputRequired(question),
            None => CallToolResponse::Complete(result),
        })
    }

    /// [`Self::call`]'s answer; `question` receives an input-required round instead
    /// (MCP 2026-07-28 approval), which then replaces the returned result.
    async fn answer(
        &self,
        server: &S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        question: &mut Option<InputRequiredResult>,
    ) -> Result<CallToolResult, ErrorData> {
        let round = Round {
            responses: request.input_responses.clone(),
            state: request.request_state.clone(),
        };
        let Some(route) = self.routes.get(request.name.as_ref()) else {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        };
        // No identity, no access: nothing is validated, claimed or run for an anonymous call.
        let Some(identity) = services_of(server).caller_identity(&context) else {
            tracing::warn!(
                tool = route.name,
                "tools/call without a verified identity: refused"
            );
            return Ok(error_result(&ToolError::unauthenticated()));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let (field_errors, total) = route.arguments.errors(&arguments);
        if !field_errors.is_empty() {
            return Ok(error_result(&ToolError::validation_of(field_errors, total)));
        }
        if context.ct.is_cancelled() {
            // Cancelled before it started: it never starts (the answer is not delivered).
            return Ok(error_result(&ToolError::conflict(
                "The call was cancelled before it started; nothing ran.",
            )));
        }
        if route.read_only {
            let call = ToolCall::new(arguments, route.arguments.clone(), context, identity)
                .for_tool(route.name, &route.extension_arguments);
            return Ok(self.run_read(route, server, call).await);
        }
        let mut arguments = arguments;
        let approval_request = route
            .approval
            .and_then(|_| approval_request_id(&context, &mut arguments));
        let key = match idempotency_key(route.key_field, &context, &arguments) {
            Ok(key) => key,
            Err(error) => return Ok(error_result(&error)),
        };
        let retry_safe = key.is_some() || route.idempotent;
        let mut audit = Audit {
            sink: services_of(server).audit_sink(),
            record: AuditRecord::intent(
                new_event_id(),
                route.name,
                identity.key(),
                key.clone(),
                argument_digest(&arguments, &route.arguments),
            ),
        };
        // Only a keyed or approval-gated write needs the fingerprint.
        let fingerprints = if key.is_some() || route.approval.is_some() {
            fingerprints(
                route.name,
                &arguments,
                &route.arguments,
                ServerKey::global(),
            )
        } else {
            Vec::new()
        };
        // A keyed write first claims its key: a repeat of a write that ran (or runs) is
        // answered from the store, before any approval is asked for or used again.
        let mut keyed = None;
        if let Some(key) = key {
            let store = services_of(server).idempotency_store();
            let scope = KeyScope {
                tool: route.name.to_owned(),
                caller: audit.record.caller.clone(),
                key,
            };
            let lease = route.timeout.unwrap_or(DEFAULT_WAIT) * 4 + Duration::from_secs(60);
            let claim = match store.claim(&scope, &fingerprints, lease, DEFAULT_TTL).await {
                Ok(claim) => claim,
                Err(error) => return Ok(store_failed(&error)),
            };
            let token = match claim {
                Claim::Claimed(token) => token,
                Claim::Completed(stored) => return Ok(audit.replay(stored).await),
                Claim::Conflict => {
                    return Ok(audit.refuse(ToolError::idempotency_key_reused()).await)
                }
                Claim::Interrupted => return Ok(audit.refuse(ToolError::outcome_unknown()).await),
                Claim::Refused(reason) => {
                    let advice = "The write did not run; call again once earlier keys expire \
                                  (24 hours after their call).";
                    return Ok(audit
                        .refuse(ToolError::quota_exceeded(reason, advice))
                        .await);
                }
                Claim::InProgress => {
                    let limit = route.timeout.unwrap_or(DEFAULT_WAIT);
                    return Ok(match store.wait(&scope, limit).await {
                        Ok(Some(stored)) => audit.replay(stored).await,
                        Ok(None) => audit.refuse(ToolError::in_progress(limit)).await,
                        Err(error) => store_failed(&error),
                    });
                }
            };
            keyed = Some((store, scope, token));
        }
        // Gives back the claim of a write that does not run now (never started).
        let release = |keyed: Option<(Arc<dyn IdempotencyStore>, KeyScope, u64)>| async move {
            if let Some((store, scope, token)) = keyed {
                let _ = store.release(&scope, token).await;
            }
        };
        if let Some(template) = route.approval {
            let approvals = services_of(server).approval_store();
            match gate(
                template,
                approval_request,
                &round,
                &arguments,
                &fingerprints,
                &context,
                approvals,
                &route.arguments,
                &audit,
            )
            .await
            {
                Ok((approval_id, approver)) => {
                    audit.record.approval_id = Some(approval_id);
                    audit.record.approver = Some(approver);
                }
                Err(answer) => {
                    release(keyed).await;
                    return Ok(match answer {
                        CallToolResponse::InputRequired(ask) => {
                            *question = Some(ask);
                            CallToolResult::success(Vec::new())
                        }
                        CallToolResponse::Complete(result) => result,
                        other => {
                            tracing::error!(?other, "approval gate answered a task");
                            error_result(&ToolError::internal_logged(
                                "approval gate answered a task",
                            ))
                        }
                    });
                }
            }
        }
        if let Err(error) = audit.record(Phase::Intent, None).await {
            release(keyed).await;
            return Ok(audit_failed(&error));
        }
        if let Some((store, scope, token)) = &keyed {
            if let Err(error) = store.start(scope, *token).await {
                release(keyed).await;
                return Ok(store_failed(&error));
            }
        }
        let call = ToolCall::new(arguments, route.arguments.clone(), context, identity)
            .for_tool(route.name, &route.extension_arguments)
            .for_write(audit.write_context(retry_safe));
        Ok(self.run_write(route, server, call, audit, keyed).await)
    }

    /// A read-only call: inline, dropped at its time limit or when cancelled.
    async fn run_read(&self, route: &Route<S>, server: &S, call: ToolCall) -> CallToolResult {
        let cancelled = call.context().ct.clone();
        let run =
            AssertUnwindSafe(Guarded((route.call)(server.clone_for_call(), call))).catch_unwind();
        let limit = route.timeout.unwrap_or(Duration::MAX);
        tokio::select! {
            outcome = tokio::time::timeout(limit, run) => match outcome {
                Ok(Ok(result)) => result,
                Ok(Err(panic)) => panicked(route.name, &*panic),
                Err(_elapsed) => {
                    tracing::warn!(tool = route.name, limit_ms = limit.as_millis(), "tool timed out");
                    error_result(&ToolError::upstream_timeout(limit, route.idempotent))
                }
            },
            () = cancelled.cancelled() => {
                // Not delivered (the client cancelled), but the tool stops here.
                error_result(&ToolError::conflict("The call was cancelled."))
            }
        }
    }

    /// A write: on its own task, run to its end whatever happens to the request; its
    /// outcome audited, and stored under its idempotency key, if any, before it is answered.
    async fn run_write(
        &self,
        route: &Route<S>,
        server: &S,
        call: ToolCall,
        audit: Audit,
        keyed: Option<(Arc<dyn IdempotencyStore>, KeyScope, u64)>,
    ) -> CallToolResult {
        let running = Running::new(&self.in_flight);
        let name = route.name;
        let has_key = keyed.is_some();
        let started = std::time::Instant::now();
        let future = Guarded((route.call)(server.clone_for_call(), call));
        let final_audit = audit.clone();
        let task = tokio::spawn(async move {
            let result = match AssertUnwindSafe(future).catch_unwind().await {
                Ok(result) => result,
                Err(panic) => panicked(name, &*panic),
            };
            if let Err(error) = final_audit
                .record(Phase::Outcome, Some((&result, started.elapsed())))
                .await
            {
                tracing::error!(tool = name, %error, "audit sink failed to record an outcome");
            }
            if let Some((store, scope, token)) = keyed {
                let stored = serde_json::to_value(&result).unwrap_or(Value::Null);
                if let Err(error) = store.complete(&scope, token, &stored).await {
                    tracing::error!(tool = name, %error, "idempotency store failed to record an outcome");
                }
            }
            drop(running);
            result
        }
        .in_current_span());
        let joined = match route.timeout {
            Some(limit) => match tokio::time::timeout(limit, task).await {
                Ok(joined) => joined,
                Err(_elapsed) => {
                    tracing::warn!(
                        tool = name,
                        limit_ms = limit.as_millis(),
                        "write passed its time limit; it runs on"
                    );
                    return audit.refuse(ToolError::write_timeout(limit, has_key)).await;
                }
            },
            None => task.await,
        };
        joined.unwrap_or_else(|error| {
            error_result(&ToolError::internal_logged(format_args!(
                "tool `{name}` task failed: {error}"
            )))
        })
    }
}

/// The registry of a generic server type (`impl<Db: Store> ToolSet for Server<Db>`), built
/// by `build` on first use and kept for the life of the process, one per concrete type.
///
/// A `static` cannot name a type parameter, so the registries of generic servers live in
/// one map keyed by [`TypeId`](std::any::TypeId); a non-generic server keeps its registry
/// in a `static` of its own (what `#[mcp_tools]` generates for it).
///
/// # Errors
/// The [`RegistryError`] of a broken tool definition, every time.
pub fn registry_per_type<S: Send + Sync + 'static>(
    build: impl FnOnce() -> Result<ToolRegistry<S>, RegistryError>,
) -> Result<&'static ToolRegistry<S>, &'static RegistryError> {
    per_type::<Result<ToolRegistry<S>, RegistryError>>(build).as_ref()
}

/// One value of type `T` for the life of the process, built by `init` on first use.
fn per_type<T: Send + Sync + 'static>(init: impl FnOnce() -> T) -> &'static T {
    use std::{
        any::{Any, TypeId},
        sync::{OnceLock, PoisonError, RwLock},
    };
    type Cells = HashMap<TypeId, &'static (dyn Any + Send + Sync)>;
    static CELLS: std::sync::LazyLock<RwLock<Cells>> = std::sync::LazyLock::new(Default::default);
    let id = TypeId::of::<T>();
    let found = CELLS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&id)
        .copied();
    let cell = found.unwrap_or_else(|| {
        *CELLS
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(id)
            .or_insert_with(|| Box::leak(Box::new(OnceLock::<T>::new())))
    });
    // The lock is not held while `init` runs: building one registry may need another cell.
    cell.downcast_ref::<OnceLock<T>>()
        .expect("the cell of a TypeId holds that type")
        .get_or_init(init)
}

fn panicked(name: &str, panic: &(dyn std::any::Any + Send)) -> CallToolResult {
    let detail = panics::message(panic);
    let at = panics::take_location().unwrap_or_else(|| "an unknown place".to_owned());
    error_result(&ToolError::internal_logged(format_args!(
        "tool `{name}` panicked at {at}: {detail}"
    )))
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
