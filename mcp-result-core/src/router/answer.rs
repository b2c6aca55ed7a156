//! A `tools/call`, from the request to its answer: the order of the phases, written once.

use std::{panic::AssertUnwindSafe, time::Duration};

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
        in_flight::Running,
        registry::{Route, ToolRegistry},
        set::{services_of, ServerServices, ToolSet},
        telemetry,
    },
    tool::{extract::ToolCall, panics, panics::Guarded},
    wire::{envelope::ToolError, identity::Identity},
    write::{
        approval::{approval_request_id, gate, Gate, Round},
        audit::{
            argument_digest,
            attempt::{new_event_id, Audit},
            AuditRecord, Phase,
        },
        idempotency::{
            answer_held, claim, fingerprints, idempotency_key, lease_of, store_failed, Begin,
            Claimed, CommitFailure, KeyScope, Opened, TxHandle, WriteTransaction, DEFAULT_TTL,
        },
    },
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
    /// # Errors
    /// JSON-RPC `-32602` for an unknown tool.
    pub async fn call(
        &self,
        server: &S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // 0. A tool that runs as a task: stored, then run on its own (`router::tasks`).
        if let Some(answer) = self.call_as_task(server, &request, &context).await {
            return answer;
        }
        let span = telemetry::call_span(
            &request.name,
            self.routes.contains_key(request.name.as_ref()),
            &context,
        );
        let started = std::time::Instant::now();
        // Instrumented in place: `instrument` takes the future by value, so the answer is
        // built inside the span's wrapper once instead of moved into it.
        let answer =
            Instrument::instrument(self.answer(server, request, context), span.clone()).await;
        let (answer, question) = match answer {
            Ok(result) | Err(Early::Answer(result)) => (Ok(result), None),
            Err(Early::Protocol(error)) => (Err(error), None),
            Err(Early::Ask(question)) => (Ok(CallToolResult::success(Vec::new())), Some(question)),
        };
        telemetry::record_answer(&span, answer.as_ref(), started);
        let result = answer?;
        Ok(match question {
            Some(question) => CallToolResponse::InputRequired(question),
            None => CallToolResponse::Complete(result),
        })
    }

    /// A call's answer, as its phases give it: the call's one progress reporter (its
    /// tool's `Progress` and the heartbeat of a question are clones) made first and closed
    /// with the answer, so nothing of the call follows it.
    pub(crate) async fn answer(
        &self,
        server: &S,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, Early> {
        let policy = self.state_for(&context).get().copied().unwrap_or_default();
        let progress = Progress::of_call(&context, policy);
        context.extensions.insert(progress.clone());
        let answer = self.phases(server, request, context).await;
        progress.close().await;
        answer
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
    async fn phases(
        &self,
        server: &S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, Early> {
        let round = Round {
            responses: request.input_responses.clone(),
            state: request.request_state.clone(),
        };
        // 1. The tool: an unknown name is a protocol error (-32602).
        let route = self.route(&request.name)?;
        let services = services_of(server);
        let state = self.state_for(&context);
        // 2. The caller: no identity, no access; nothing is validated, claimed or run.
        let identity = caller(services, &context, route.name)?;
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
            let call = ToolCall::new(arguments, route.arguments.clone(), context, identity, state)
                .for_tool(route.name, &route.extension_arguments, route.binds)
                .with_round(round);
            return self.run_read(route, server, call).await;
        }
        // 5.–9. A write: boxed, so that its state (the claim, the gate, the audit records)
        //    is allocated for writes only and never inflates the future of a read, which
        //    every layer above moves whole.
        Box::pin(self.write_phases(route, server, context, arguments, identity, state, round)).await
    }

    /// Phases 5 to 9 of [`Self::phases`]: a write's facts, its key, the human, the intent
    /// and the run (the order is written once, here and in [`Self::phases`]).
    #[allow(clippy::too_many_arguments)]
    async fn write_phases(
        &self,
        route: &Route<S>,
        server: &S,
        context: RequestContext<RoleServer>,
        mut arguments: serde_json::Value,
        identity: Identity,
        state: crate::router::state::State,
        round: Round,
    ) -> Result<CallToolResult, Early> {
        let services = services_of(server);
        // 5. The write's facts: its approval request id, idempotency key, audit event and
        //    (for a keyed or gated write) argument fingerprints.
        let approval_request = route
            .approval
            .and_then(|_| approval_request_id(&context, &mut arguments));
        let key = idempotency_key(route.key_field, &context, &arguments)
            .map_err(|error| error_result(&error))?;
        let retry_safe = key.is_some() || route.idempotent;
        let mut audit = Audit {
            sink: services.audit_sink(&state),
            record: AuditRecord::intent(
                new_event_id(),
                route.name,
                identity.key(),
                key.clone(),
                argument_digest(&arguments, &route.arguments),
            ),
        };
        let fingerprints = if key.is_some() || route.approval.is_some() {
            fingerprints(route.name, &arguments, &route.arguments, state.server_key())
        } else {
            Vec::new()
        };
        // 6. The key: a repeat of a write that ran (or runs) is answered from the store. A
        //    write no human gates records its intent and starts with the claim, in one unit
        //    (one commit on the SQL stores); a gated one asks first (7) and starts after.
        let begin = match route.approval {
            Some(_) => Begin::Claim,
            None => Begin::Started,
        };
        // A tool whose statements go into the stores' transaction (`sql::Tx`): the claim and
        //    the intent are written in it, uncommitted (None: the stores cannot; it runs as
        //    any other write).
        let (limit, lease) = lease_of(route.timeout);
        let mut open = None;
        if route.transactional {
            let store = services.idempotency_store(&state);
            let scope = key.clone().map(|key| KeyScope {
                tool: route.name.to_owned(),
                caller: audit.record.caller.clone(),
                key,
            });
            let intent = audit.record_of(Phase::Intent, None);
            let held = scope
                .as_ref()
                .map(|scope| (scope, &fingerprints[..], lease, DEFAULT_TTL));
            match store
                .open_transaction(held, audit.sink.as_ref(), &intent)
                .await
                .map_err(|error| store_failed(&error))?
            {
                Some(Opened::Open(write)) => open = Some(write),
                Some(Opened::Held(claim)) => {
                    let answer = match &scope {
                        Some(scope) => {
                            Box::pin(answer_held(claim, store.as_ref(), scope, limit, &audit)).await
                        }
                        None => store_failed(&"an unkeyed write's key was held"),
                    };
                    return Err(answer.into());
                }
                None => {}
            }
        }
        let claimed = match key {
            _ if open.is_some() => None,
            Some(key) => {
                let scope = KeyScope {
                    tool: route.name.to_owned(),
                    caller: audit.record.caller.clone(),
                    key,
                };
                let store = services.idempotency_store(&state);
                // Boxed, as every phase only some writes take: its state stays out of
                // every call's future (a future is moved whole through each layer).
                let claimed = claim(store, scope, &fingerprints, route.timeout, &audit, begin);
                Some(Box::pin(claimed).await?)
            }
            None => None,
        };
        let started = open.is_some() || (claimed.is_some() && begin == Begin::Started);
        // 7. The human: a gated write runs only on an approval; a question, a refusal or a
        //    decline ends the call and gives the claim back.
        if let Some(template) = route.approval {
            let gate_input = Gate {
                template,
                request_id: approval_request,
                round: round.clone(),
                arguments: &arguments,
                fingerprints: &fingerprints,
                context: &context,
                store: services.approval_store(&state),
                key: state.server_key(),
                schema: &route.arguments,
                policy: state.get().copied().unwrap_or_default(),
            };
            // Boxed: the gate's state machine (the question, its wait, the store) is the
            // largest of the write path, and only gated writes take it.
            match Box::pin(gate(gate_input, &audit)).await {
                Ok((approval_id, approver)) => {
                    audit.record.approval_id = Some(approval_id);
                    audit.record.approver = Some(approver);
                }
                Err(answer) => {
                    release(claimed).await;
                    return Err(answer.into());
                }
            }
        }
        let tool_round = round;
        // 8. The intent, recorded before the tool runs; then the key is marked started
        //    (unless the claim did both, 6). A call its client cancelled by now (while a
        //    human decided, say) never runs: decided here, once; past this point a write
        //    runs to its end.
        if context.ct.is_cancelled() {
            crate::task::runs::nothing_ran(&context);
            // A transactional write's claim and intent roll back with its transaction.
            drop(open);
            release(claimed).await;
            return Err(audit
                .refuse(ToolError::cancelled_before_running())
                .await
                .into());
        }
        if !started {
            if let Err(answer) = audit.intent().await {
                release(claimed).await;
                return Err(answer.into());
            }
            if let Some(held) = &claimed {
                if let Err(answer) = held.start().await {
                    release(claimed).await;
                    return Err(answer.into());
                }
            }
        }
        // 9. The run, its outcome recorded and stored under the key before the answer.
        let mut context = context;
        if let Some(write) = &open {
            context.extensions.insert(TxHandle(write.handle()));
        }
        let call = ToolCall::new(arguments, route.arguments.clone(), context, identity, state)
            .for_tool(route.name, &route.extension_arguments, route.binds)
            .with_round(tool_round)
            .for_write(audit.write_context(retry_safe));
        self.run_write(route, server, call, audit, (claimed, open))
            .await
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
    /// `retrySafe: true` (a read-only tool has no effect to repeat).
    async fn run_read(
        &self,
        route: &Route<S>,
        server: &S,
        call: ToolCall,
    ) -> Result<CallToolResult, Early> {
        let cancelled = call.context().ct.clone();
        let nothing_ran = crate::task::runs::mark_of(call.context());
        let run =
            AssertUnwindSafe(Guarded((route.call)(server.clone_for_call(), call))).catch_unwind();
        let limit = route.timeout.unwrap_or(Duration::MAX);
        Ok(tokio::select! {
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

    /// A write: on its own task, run to its end whatever happens to the request; its
    /// outcome audited, and stored under its idempotency key, if any, before it is answered.
    async fn run_write(
        &self,
        route: &Route<S>,
        server: &S,
        call: ToolCall,
        audit: Audit,
        (claimed, open): (Option<Claimed>, Option<Box<dyn WriteTransaction>>),
    ) -> Result<CallToolResult, Early> {
        let running = Running::new(&self.in_flight);
        let name = route.name;
        let has_key = claimed.is_some();
        let transactional = open.is_some();
        let cancelled = call.context().ct.clone();
        let nothing_ran = crate::task::runs::mark_of(call.context());
        // Who ends a transactional write: its task by committing, or the time limit and the
        // client by rolling it back, whichever decides first (never a commit answered as a
        // rollback).
        let end = std::sync::Arc::new(std::sync::Mutex::new(End::Running));
        let task_end = end.clone();
        let started = std::time::Instant::now();
        let future = Guarded((route.call)(server.clone_for_call(), call));
        let final_audit = audit.clone();
        let task = tokio::spawn(
            async move {
                let answer = match AssertUnwindSafe(future).catch_unwind().await {
                    Ok(answer) => answer,
                    Err(panic) => error_result(&panicked(name, &*panic)).into(),
                };
                // A JSON-RPC error or a question: the tool ended before acting (its
                // promise), so the attempt is recorded as ended without effect and the key
                // is given back for the call that comes again.
                let recorded = match &answer {
                    ToolAnswer::Result(result) => result.clone(),
                    ToolAnswer::Protocol(_) | ToolAnswer::Ask(_) => {
                        error_result(&ToolError::conflict(
                            "The write ended before acting: it answered a protocol error or \
                             asked the client first.",
                        ))
                    }
                };
                let outcome =
                    final_audit.record_of(Phase::Outcome, Some((&recorded, started.elapsed())));
                if let Some(write) = open {
                    // One commit: the claim, the intent, the tool's statements (rolled back
                    // when it failed), the outcome and the stored answer. A question or a
                    // protocol error drops the transaction: nothing of the write stays.
                    let answer = match answer {
                        ToolAnswer::Result(result) => {
                            {
                                let mut end = task_end.lock().unwrap_or_else(|e| e.into_inner());
                                if *end == End::RolledBack {
                                    // Dropped uncommitted: nothing of the write stays.
                                    return ToolAnswer::Result(result);
                                }
                                *end = End::Committing;
                            }
                            let stored = serde_json::to_value(&result).unwrap_or_default();
                            let failed = result.is_error == Some(true);
                            match write.commit(&stored, &outcome, failed).await {
                                Ok(()) => ToolAnswer::Result(result),
                                Err(CommitFailure::Before(error)) => {
                                    tracing::error!(tool = name, %error, "a write rolled back before its commit");
                                    store_failed(&error).into()
                                }
                                Err(CommitFailure::AtCommit(error)) => {
                                    // The database may have committed: with a key, the retry
                                    // is answered the committed result or runs fresh.
                                    tracing::error!(tool = name, %error, "a write's commit failed");
                                    error_result(&ToolError::write_unconfirmed(has_key)).into()
                                }
                            }
                        }
                        other => other,
                    };
                    drop(running);
                    return answer;
                }
                match (&answer, claimed) {
                    // The outcome and the stored answer, together where the stores can.
                    (ToolAnswer::Result(result), Some(claimed)) => {
                        claimed.complete(name, result, &final_audit, &outcome).await
                    }
                    (_, claimed) => {
                        if let Err(error) = final_audit.sink.record(&outcome).await {
                            tracing::error!(tool = name, %error, "audit sink failed to record an outcome");
                        }
                        release(claimed).await
                    }
                }
                drop(running);
                answer
            }
            .in_current_span(),
        );
        let mut task = task;
        if transactional {
            // A transactional write stops at its time limit or when cancelled: aborted, its
            // transaction drops and rolls back, and nothing of it happened.
            let limit = route.timeout.unwrap_or(Duration::MAX);
            let ended = tokio::select! {
                joined = tokio::time::timeout(limit, &mut task) => match joined {
                    Ok(joined) => Ok(joined),
                    Err(_elapsed) => Err(Some(limit)),
                },
                () = cancelled.cancelled() => Err(None),
            };
            return match ended {
                Ok(joined) => joined
                    .unwrap_or_else(|error| {
                        error_result(&ToolError::internal_logged(format_args!(
                            "tool `{name}` task failed: {error}"
                        )))
                        .into()
                    })
                    .into_early(),
                Err(limit) => {
                    let committing = {
                        let mut end = end.lock().unwrap_or_else(|e| e.into_inner());
                        if *end == End::Committing {
                            true
                        } else {
                            *end = End::RolledBack;
                            false
                        }
                    };
                    if committing {
                        // The tool ended in time and its commit is under way: its answer.
                        return task
                            .await
                            .unwrap_or_else(|error| {
                                error_result(&ToolError::internal_logged(format_args!(
                                    "tool `{name}` task failed: {error}"
                                )))
                                .into()
                            })
                            .into_early();
                    }
                    task.abort();
                    if let (None, Some(mark)) = (limit, &nothing_ran) {
                        mark.set();
                    }
                    tracing::warn!(tool = name, "transactional write stopped and rolled back");
                    Ok(audit.refuse(ToolError::rolled_back(limit)).await)
                }
            };
        }
        let joined = match route.timeout {
            Some(limit) => match tokio::time::timeout(limit, task).await {
                Ok(joined) => joined,
                Err(_elapsed) => {
                    tracing::warn!(
                        tool = name,
                        limit_ms = limit.as_millis(),
                        "write passed its time limit; it runs on"
                    );
                    return Ok(audit.refuse(ToolError::write_timeout(limit, has_key)).await);
                }
            },
            None => task.await,
        };
        joined
            .unwrap_or_else(|error| {
                error_result(&ToolError::internal_logged(format_args!(
                    "tool `{name}` task failed: {error}"
                )))
                .into()
            })
            .into_early()
    }
}

/// The `internal` error of a tool that panicked (the panic logged under its correlation
/// id).
fn panicked(name: &str, panic: &(dyn std::any::Any + Send)) -> ToolError {
    let detail = panics::message(panic);
    let at = panics::take_location().unwrap_or_else(|| "an unknown place".to_owned());
    ToolError::internal_logged(format_args!("tool `{name}` panicked at {at}: {detail}"))
}

/// Where a transactional write's end stands ([`ToolRegistry::run_write`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// The tool runs.
    Running,
    /// Its task commits: the answer is the task's.
    Committing,
    /// The time limit or the client ended it first: it rolls back.
    RolledBack,
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
    fn into_early(self) -> Result<CallToolResult, Early> {
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
fn caller(
    services: &dyn ServerServices,
    context: &RequestContext<RoleServer>,
    tool: &str,
) -> Result<Identity, Early> {
    services.caller_identity(context).ok_or_else(|| {
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

/// Phase 4: a call cancelled before it started never starts (the answer is not delivered).
fn not_cancelled(context: &RequestContext<RoleServer>) -> Result<(), Early> {
    if context.ct.is_cancelled() {
        crate::task::runs::nothing_ran(context);
        return Err(error_result(&ToolError::cancelled_before_running()).into());
    }
    Ok(())
}

/// Gives back the claim of a write that does not run now.
async fn release(claimed: Option<Claimed>) {
    if let Some(claimed) = claimed {
        claimed.release().await;
    }
}
