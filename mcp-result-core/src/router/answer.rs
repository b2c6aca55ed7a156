//! A `tools/call`, from the request to its answer: the order of the phases, written once.

use std::{borrow::Cow, panic::AssertUnwindSafe, time::Duration};

use futures::FutureExt;
use rmcp::{
    model::{CallToolRequestParams, CallToolResponse, CallToolResult, InputRequiredResult},
    service::RequestContext,
    ErrorData, RoleServer,
};
use tracing::Instrument;

use crate::{
    call::progress::Progress,
    result::answer::ToolAnswer,
    result::build::error_result,
    router::{
        registry::{Route, ToolRegistry},
        set::{services_of, ServerServices, ToolSet},
        telemetry,
    },
    tool::{extract::ToolCall, panics, panics::Guarded},
    wire::{envelope::ToolError, identity::Identity},
    write::approval::Round,
};

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
    /// The phases that take no time (the tool, the caller, the arguments, a cancel before
    /// the start) are taken when the future is made, to be awaited at once; the future is
    /// the run.
    ///
    /// # Errors
    /// JSON-RPC `-32602` for an unknown tool.
    pub fn call<'a>(
        &'a self,
        server: &'a S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl std::future::Future<Output = Result<CallToolResponse, ErrorData>> + Send + 'a {
        // 0. A tool that runs as a task: stored, then run on its own (`router::tasks`).
        let task = self
            .routes
            .get(request.name.as_ref())
            .is_some_and(|route| route.task.is_some());
        if task {
            return futures::future::Either::Left(Box::pin(async move {
                {
                    // Found by the client's cancel until the task is stored (`call_now`
                    // registers a plain call of its own).
                    let _cancellable = crate::state::register_call(&context);
                    if let Some(answer) = self.call_as_task(server, &request, &context).await {
                        return answer;
                    }
                }
                self.call_now(server, request, context).await
            }));
        }
        futures::future::Either::Right(self.call_now(server, request, context))
    }

    /// [`Self::call`] of a call that is no task. Its answer's phases up to the tool's run
    /// are taken as the future is made (the future is awaited where it is made), so the
    /// future holds what the run needs, not the request and the context at every level
    /// (a call's future is boxed once: over a kilobyte, it would not come from the
    /// allocator's cache of small blocks).
    fn call_now<'a>(
        &'a self,
        server: &'a S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl std::future::Future<Output = Result<CallToolResponse, ErrorData>> + Send + 'a {
        // A call served over HTTP outside a session: found by the `notifications/cancelled`
        // its client POSTs, on any instance of its cancel bus, until it is answered.
        let cancellable = crate::state::register_call(&context);
        let span = telemetry::call_span(
            &request.name,
            self.routes.contains_key(request.name.as_ref()),
            &context,
        );
        let started = std::time::Instant::now();
        #[cfg(feature = "opentelemetry")]
        let metered = crate::state::State::of(&context)
            .unwrap_or(&self.fallback)
            .metrics()
            .cloned()
            .map(|metrics| {
                let tool = self
                    .routes
                    .get_key_value(request.name.as_ref())
                    .map(|(name, _)| *name);
                (metrics, tool, context.clone())
            });
        // The phases taken now run in the call's span, as its run does.
        let answer = {
            let _entered = span.enter();
            self.answer(server, request, context)
        };
        let answer = Instrument::instrument(answer, span.clone());
        // A `map`, not an `async` block that awaits `answer`: such a block keeps the future it
        // captured beside the one it awaits (twice the size), and a call's future over a
        // kilobyte is not served from the allocator's cache of small blocks.
        answer.map(move |answer| {
            let _cancellable = cancellable;
            let (answer, question) = match answer {
                Ok(result) | Err(Early::Answer(result)) => (Ok(result), None),
                Err(Early::Protocol(error)) => (Err(error), None),
                Err(Early::Ask(question)) => {
                    (Ok(CallToolResult::success(Vec::new())), Some(question))
                }
            };
            telemetry::record_answer(&span, answer.as_ref(), started);
            #[cfg(feature = "opentelemetry")]
            if let Some((metrics, tool, context)) = metered {
                metrics.record_call(tool, answer.as_ref(), started, &context);
            }
            let result = answer?;
            Ok(match question {
                Some(question) => CallToolResponse::InputRequired(question),
                None => CallToolResponse::Complete(result),
            })
        })
    }

    /// A call's answer, as its phases give it: the call's one progress reporter (its
    /// tool's `Progress` and the heartbeat of a question are clones) made first and closed
    /// with the answer, so nothing of the call follows it. A call without a
    /// `progressToken` has a reporter that reports nothing, which its tool's `Progress`
    /// makes the same: none is kept in the context.
    ///
    /// The phases up to the tool's run are taken as the future is made ([`Self::phases`]).
    pub(crate) fn answer<'a>(
        &'a self,
        server: &'a S,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> impl std::future::Future<Output = Result<CallToolResult, Early>> + Send + 'a {
        let state = self.state_for(&context);
        let policy = state.get().copied().unwrap_or_default();
        let progress = Progress::of_call(&context, policy);
        if progress.enabled() {
            context.extensions.insert(progress.clone());
        }
        let phases = self.phases(server, request, context, state);
        // `then`, not an `async` block that awaits `phases` (see `call_now`).
        phases.then(move |answer| async move {
            progress.close().await;
            answer
        })
    }

    /// [`Self::answer`] as a future of its own (a task's run), with its own server clone.
    pub(crate) fn answer_owned(
        &'static self,
        server: S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl std::future::Future<Output = Result<CallToolResult, Early>> + Send + 'static {
        async move { self.answer(&server, request, context).await }
    }

    /// A call's answer as rmcp sends it (an input-required round, a result, or a JSON-RPC
    /// error).
    pub(crate) fn respond(
        &self,
        answer: Result<CallToolResult, Early>,
    ) -> Result<CallToolResponse, ErrorData> {
        match answer {
            Ok(result) | Err(Early::Answer(result)) => Ok(CallToolResponse::Complete(result)),
            Err(Early::Protocol(error)) => Err(error),
            Err(Early::Ask(question)) => Ok(CallToolResponse::InputRequired(question)),
        }
    }

    /// The order of a `tools/call`, written once: each phase either hands the next what it
    /// needs or ends the call ([`Early`]). A read-only tool leaves after phase 4; a write goes
    /// through every phase, and its records follow the same order (intent before the run,
    /// a replay record for an answer from the store, no intent for a declined approval).
    ///
    /// Phases 1 to 4 take no time (no store, no wait): they are taken as the future is made,
    /// which its caller awaits at once; the future is the run, or the write's phases.
    fn phases<'a>(
        &'a self,
        server: &'a S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        state: crate::state::State,
    ) -> impl std::future::Future<Output = Result<CallToolResult, Early>> + Send + 'a {
        use futures::future::Either;
        match self.phases_to_run(server, request, context, state) {
            Err(early) => Either::Left(std::future::ready(Err(early))),
            Ok(Either::Left(read)) => Either::Right(Either::Left(read)),
            Ok(Either::Right(write)) => Either::Right(Either::Right(write)),
        }
    }

    /// Phases 1 to 4 of [`Self::phases`], and what comes next: a read-only tool's run, or a
    /// write's phases 5 to 9.
    #[allow(clippy::type_complexity)]
    fn phases_to_run<'a>(
        &'a self,
        server: &'a S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        state: crate::state::State,
    ) -> Result<
        futures::future::Either<
            impl std::future::Future<Output = Result<CallToolResult, Early>> + Send + 'a,
            std::pin::Pin<
                Box<dyn std::future::Future<Output = Result<CallToolResult, Early>> + Send + 'a>,
            >,
        >,
        Early,
    > {
        let round = Round {
            responses: request.input_responses.clone(),
            state: request.request_state.clone(),
        };
        // 1. The tool: an unknown name is a protocol error (-32602).
        let route = self.route(&request.name)?;
        let services = services_of(server);
        // 2. The caller: no identity, no access; nothing is validated, claimed or run.
        let identity = caller(server.services(), &context, route.name)?;
        //    with every scope the tool declares (HTTP answered `403` before this).
        scoped(&identity, route)?;
        // 3. The arguments, against the full inputSchema: every failing field at once.
        let arguments = route.validate(request.arguments)?;
        let refuses_nul = services.idempotency_store(&state).refuses_nul()
            || (route.approval.is_some() && services.approval_store(&state).refuses_nul());
        if refuses_nul {
            route.storable(&arguments)?;
        }
        // 4. A call cancelled before it started never starts.
        not_cancelled(&context)?;
        if route.read_only {
            //    Within the caller's limits (a write's, once its key is known: 6).
            let admitted = admit(&state, route, &identity)
                .map_err(|refused| Early::Answer(error_result(&refused)))?;
            let call = ToolCall::of(arguments, route.arguments.clone(), context, identity, state)
                .for_tool(route.name, &route.extension_arguments, route.binds)
                .with_round(round);
            return Ok(futures::future::Either::Left(
                self.run_read(route, server, call, admitted),
            ));
        }
        // 5.–9. A write: boxed, so that its state (the claim, the gate, the audit records)
        //    is allocated for writes only and never inflates the future of a read, which
        //    every layer above moves whole.
        Ok(futures::future::Either::Right(Box::pin(self.write_phases(
            route, server, context, arguments, identity, state, round,
        ))))
    }

    /// Phase 1: the route of tool `name`.
    fn route(&self, name: &str) -> Result<&Route<S>, Early> {
        self.routes.get(name).ok_or_else(|| {
            Early::Protocol(ErrorData::invalid_params(
                format!("unknown tool: {}", crate::wire::text::cap(name)),
                None,
            ))
        })
    }

    /// A read-only call: inline, dropped at its time limit or when cancelled. Its errors are
    /// `retrySafe: true` (a read-only tool has no effect to repeat). The tool's future is
    /// made here, with the call it takes; `admitted`, the caller's limit permit, is held to
    /// the run's end.
    fn run_read<'a>(
        &'a self,
        route: &'a Route<S>,
        server: &'a S,
        call: ToolCall,
        admitted: Option<tokio::sync::OwnedSemaphorePermit>,
    ) -> impl std::future::Future<Output = Result<CallToolResult, Early>> + Send + 'a {
        let cancelled = call.context().ct.clone();
        let nothing_ran = crate::task::runs::mark_of(call.context());
        let run =
            AssertUnwindSafe(Guarded((route.call)(server.clone_for_call(), call))).catch_unwind();
        let limit = route.timeout.unwrap_or(Duration::MAX);
        async move {
            let _admitted = admitted;
            Ok(tokio::select! {
                // The run first: a tool that answers at once never waits on its token (and
                // no random start is drawn).
                biased;
                outcome = tokio::time::timeout(limit, run) => match outcome {
                    Ok(Ok(answer)) => return answer.into_early(),
                    Ok(Err(panic)) => error_result(&panicked(route.name, &*panic).with_retry_safe(true)),
                    Err(_elapsed) => {
                        tracing::warn!(tool = route.name, limit_ms = limit.as_millis(), "tool timed out");
                        error_result(&ToolError::upstream_timeout(limit, true))
                    }
                },
                () = cancelled.cancelled() => {
                    // Not delivered (the client cancelled), but the tool stops here.
                    if let Some(mark) = &nothing_ran {
                        mark.set();
                    }
                    error_result(&ToolError::conflict("The call was cancelled."))
                }
            })
        }
    }
}

/// The `internal` error of a tool that panicked (the panic logged under its correlation
/// id).
pub(super) fn panicked(name: &str, panic: &(dyn std::any::Any + Send)) -> ToolError {
    let detail = panics::message(panic);
    let at = panics::take_location().unwrap_or_else(|| "an unknown place".to_owned());
    ToolError::internal_logged(format_args!("tool `{name}` panicked at {at}: {detail}"))
}

/// How a phase ends a call before the tool runs.
pub(crate) enum Early {
    /// A JSON-RPC error: the request is not a call of a tool of this server.
    Protocol(ErrorData),
    /// A tool result: a refusal, a replay, a store failure.
    Answer(CallToolResult),
    /// An input-required round (MCP 2026-07-28): the approval question.
    Ask(InputRequiredResult),
}

impl ToolAnswer {
    /// The answer as the phases carry it: a result goes on, a JSON-RPC error or a question
    /// ends the call.
    pub(super) fn into_early(self) -> Result<CallToolResult, Early> {
        match self {
            ToolAnswer::Result(result) => Ok(result),
            ToolAnswer::Protocol(error) => Err(Early::Protocol(error)),
            ToolAnswer::Ask(question) => Err(Early::Ask(question)),
        }
    }
}

impl From<CallToolResult> for Early {
    fn from(result: CallToolResult) -> Self {
        Early::Answer(result)
    }
}

impl From<CallToolResponse> for Early {
    fn from(response: CallToolResponse) -> Self {
        match response {
            CallToolResponse::InputRequired(question) => Early::Ask(question),
            CallToolResponse::Complete(result) => Early::Answer(result),
            other => {
                tracing::error!(?other, "approval gate answered a task");
                Early::Answer(error_result(&ToolError::internal_logged(
                    "approval gate answered a task",
                )))
            }
        }
    }
}

/// Phase 2: the caller's identity, from the transport. None refuses the call
/// (`permission_denied`).
///
/// The server's own services (`own`) say who calls; the defaults' answer,
/// [`Identity::of`], is taken without a clone of the process identity.
fn caller(
    own: Option<&dyn ServerServices>,
    context: &RequestContext<RoleServer>,
    tool: &str,
) -> Result<Cow<'static, Identity>, Early> {
    let identity = match own {
        Some(services) => services.caller_identity(context).map(Cow::Owned),
        None => Identity::of_call(context),
    };
    identity.ok_or_else(|| {
        tracing::warn!(tool, "tools/call without a verified identity: refused");
        error_result(&ToolError::unauthenticated()).into()
    })
}

/// Phase 2, its second half: a caller without one of the tool's scopes is refused
/// (`permission_denied` naming the first missing one as `requiredScope`).
fn scoped<S>(identity: &Identity, route: &Route<S>) -> Result<(), Early> {
    match route.scopes.iter().find(|scope| !identity.has_scope(scope)) {
        None => Ok(()),
        Some(missing) => {
            tracing::info!(
                tool = route.name,
                scope = missing,
                "tools/call without a required scope: refused"
            );
            Err(error_result(&ToolError::permission_denied(*missing)).into())
        }
    }
}

/// The caller's limits of the instance ([`CallLimits`](crate::CallLimits)): the permit a
/// call holds while it runs, or its refusal, before anything of it ran.
pub(super) fn admit<S>(
    state: &crate::state::State,
    route: &Route<S>,
    identity: &crate::wire::identity::Identity,
) -> Result<Option<tokio::sync::OwnedSemaphorePermit>, ToolError> {
    match state.call_limits() {
        None => Ok(None),
        Some(limits) => limits.admit(route.name, &identity.key()),
    }
}

/// Phase 4: a call cancelled before it started never starts (the answer is not delivered).
fn not_cancelled(context: &RequestContext<RoleServer>) -> Result<(), Early> {
    if context.ct.is_cancelled() {
        crate::task::runs::nothing_ran(context);
        return Err(error_result(&ToolError::cancelled_before_running()).into());
    }
    Ok(())
}
