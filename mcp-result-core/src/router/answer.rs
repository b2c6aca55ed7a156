//! A `tools/call`, from the request to its answer: the order of the phases, written once.

use std::{panic::AssertUnwindSafe, sync::Arc, time::Duration};

use futures::FutureExt;
use rmcp::{
    model::{CallToolRequestParams, CallToolResponse, CallToolResult, InputRequiredResult},
    service::RequestContext,
    ErrorData, RoleServer,
};
use serde_json::Value;
use tracing::Instrument;

use crate::{
    result::build::error_result,
    router::{
        in_flight::Running,
        registry::{Route, ToolRegistry},
        set::{services_of, ToolSet},
        telemetry,
    },
    store::key::ServerKey,
    tool::{extract::ToolCall, panics, panics::Guarded},
    wire::envelope::ToolError,
    write::{
        approval::{approval_request_id, gate, Round},
        audit::{
            argument_digest,
            attempt::{audit_failed, new_event_id, Audit},
            AuditRecord, Phase,
        },
        idempotency::{
            fingerprints, idempotency_key, store_failed, Claim, IdempotencyStore, KeyScope,
            DEFAULT_TTL, DEFAULT_WAIT,
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

fn panicked(name: &str, panic: &(dyn std::any::Any + Send)) -> CallToolResult {
    let detail = panics::message(panic);
    let at = panics::take_location().unwrap_or_else(|| "an unknown place".to_owned());
    error_result(&ToolError::internal_logged(format_args!(
        "tool `{name}` panicked at {at}: {detail}"
    )))
}
