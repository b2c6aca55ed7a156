//! A write's part of a `tools/call` (phases 5 to 9 of [`ToolRegistry::phases`]): its facts,
//! its key, the human, the intent and the run on its own task, in the order written once
//! here. Boxed by the caller, so a read's future never carries this state.

use std::{panic::AssertUnwindSafe, time::Duration};

use futures::FutureExt;
use rmcp::{model::CallToolResult, service::RequestContext, RoleServer};
use tracing::Instrument;

use super::answer::{panicked, Early};
use crate::{
    result::answer::ToolAnswer,
    result::build::error_result,
    router::{
        in_flight::Running,
        registry::{Route, ToolRegistry},
        set::{services_of, ToolSet},
    },
    tool::{extract::ToolCall, panics::Guarded},
    wire::keys::APPROVAL_REQUEST_ARGUMENT,
    wire::{envelope::ToolError, identity::Identity},
    write::{
        approval::{approval_request_id, gate, ApprovalNote, Gate, Review, Round},
        audit::{
            attempt::{new_event_id, Audit},
            AuditRecord, Phase,
        },
        idempotency::{
            answer_held, claim, digest_and_fingerprints, idempotency_key, lease_of, store_failed,
            Begin, Claimed, CommitFailure, KeyScope, Opened, TxHandle, WriteTransaction,
            DEFAULT_TTL,
        },
    },
};

impl<S: ToolSet> ToolRegistry<S> {
    /// Phases 5 to 9 of [`Self::phases`]: a write's facts, its key, the human, the intent
    /// and the run (the order is written once, here and in [`Self::phases`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write_phases<'a>(
        &'a self,
        route: &'a Route<S>,
        server: &'a S,
        context: RequestContext<RoleServer>,
        arguments: serde_json::Value,
        identity: std::borrow::Cow<'static, Identity>,
        state: crate::state::State,
        round: Round,
    ) -> impl std::future::Future<Output = Result<CallToolResult, Early>> + Send + 'a {
        // An `async` block, not an `async fn`: an `async fn` keeps its arguments twice.
        async move {
            let mut arguments = arguments;
            let services = services_of(server);
            // 5. The write's facts: its approval request id, idempotency key, audit event and
            //    (for a keyed or gated write) argument fingerprints.
            let approval_request = route
                .approval
                .and_then(|_| approval_request_id(&context, &mut arguments));
            let key = idempotency_key(route.key_field, &context, &arguments)
                .map_err(|error| error_result(&error))?;
            let retry_safe = key.is_some() || route.idempotent;
            // The argument digest and, for a keyed or gated write, the fingerprints: the
            // arguments written canonically once for both.
            let (digest, fingerprints) = digest_and_fingerprints(
                route.name,
                &arguments,
                &route.arguments,
                (key.is_some() || route.approval.is_some()).then(|| state.server_key().as_ref()),
            );
            let mut audit = Audit {
                sink: metered(services.audit_sink(&state), &state),
                record: Box::new(AuditRecord::unstamped(
                    new_event_id(),
                    route.name,
                    identity.key(),
                    key.clone(),
                    digest,
                )),
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
                                Box::pin(answer_held(claim, store.as_ref(), scope, limit, &audit))
                                    .await
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
            // The caller's limits, now that a replay has been answered from the store (never
            //    counted): a refusal gives the claim back (a transaction's rolls back), audited.
            let admitted = match super::answer::admit(&state, route, &identity) {
                Ok(admitted) => admitted,
                Err(refused) => {
                    drop(open);
                    release(claimed).await;
                    return Err(audit.refuse(refused).await.into());
                }
            };
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
                match Box::pin(gate(gate_input, &mut audit)).await {
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
            // A tool that asks for its approval from its body: what its approver is shown (the
            //    arguments as it receives them, secrets withheld), and where its question's end
            //    is noted for the outcome record and the key.
            let note = route.asks_approval.then(|| {
                let schema = &route.arguments;
                let mut review =
                    Review::of(&arguments, |p| schema.has_secrets() && schema.is_secret(p));
                if let Some(shown) = review.arguments.as_object_mut() {
                    shown.remove(APPROVAL_REQUEST_ARGUMENT);
                }
                review
                    .hidden
                    .retain(|p| p != &format!("/{APPROVAL_REQUEST_ARGUMENT}"));
                review.argument_digest = audit.record.argument_digest.clone();
                ApprovalNote::new(review, services.approval_store(&state))
            });
            let call = ToolCall::of(arguments, route.arguments.clone(), context, identity, state)
                .for_tool(route.name, &route.extension_arguments, route.binds)
                .with_round(tool_round)
                .for_write(audit.write_context(retry_safe).with_note(note.clone()));
            self.run_write(route, server, call, audit, (claimed, open, note), admitted)
                .await
        }
    }

    /// A write: run to its end whatever happens to the request (on its own task as soon as
    /// it waits; one that ends within its first poll, which nothing can interrupt, needs
    /// none); its outcome audited, and stored under its idempotency key, if any, before it
    /// is answered.
    fn run_write<'a>(
        &'a self,
        route: &'a Route<S>,
        server: &'a S,
        call: ToolCall,
        audit: Audit,
        held: (
            Option<Claimed>,
            Option<Box<dyn WriteTransaction>>,
            Option<ApprovalNote>,
        ),
        admitted: Option<tokio::sync::OwnedSemaphorePermit>,
    ) -> impl std::future::Future<Output = Result<CallToolResult, Early>> + Send + 'a {
        async move {
            let (claimed, open, note) = held;
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
            // The outer call needs the attempt after the run starts only to answer a time limit
            // or a rolled-back transaction; else the run takes it, and makes its outcome
            // record from it in place.
            let (mut final_audit, audit) = if transactional || route.timeout.is_some() {
                (audit.clone(), Some(audit))
            } else {
                (audit, None)
            };
            let work = async move {
                let answer = match AssertUnwindSafe(future).catch_unwind().await {
                    Ok(answer) => answer,
                    Err(panic) => error_result(&panicked(name, &*panic)).into(),
                };
                // A JSON-RPC error or a question: the tool ended before acting (its
                // promise), so the attempt is recorded as ended without effect and the key
                // is given back for the call that comes again.
                // The outcome is read from the answer where it is one (no copy of it).
                let ended_before;
                let recorded = match &answer {
                    ToolAnswer::Result(result) => result,
                    ToolAnswer::Protocol(_) | ToolAnswer::Ask(_) => {
                        ended_before = error_result(&ToolError::conflict(
                            "The write ended before acting: it answered a protocol error or \
                             asked the client first.",
                        ));
                        &ended_before
                    }
                };
                final_audit.stamp(Phase::Outcome, Some((recorded, started.elapsed())));
                // A question asked from the tool's body: its request and approval in the
                // record; when it ended the write (its error is the answer), the key goes
                // back as for a write gated before it runs.
                let blocked = note.as_ref().is_some_and(|note| {
                    note.apply(&mut final_audit.record);
                    note.ended() && recorded.is_error == Some(true)
                });
                let outcome = &final_audit.record;
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
                            match write.commit(&stored, outcome, failed).await {
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
                    (ToolAnswer::Result(result), Some(claimed)) if !blocked => {
                        claimed.complete(name, result, &final_audit, outcome).await
                    }
                    (_, claimed) => {
                        if let Err(error) = final_audit.sink.record(outcome).await {
                            tracing::error!(tool = name, %error, "audit sink failed to record an outcome");
                        }
                        release(claimed).await
                    }
                }
                drop(running);
                // The caller's slot of its concurrency limit, held to the write's end.
                drop(admitted);
                answer
            }
            .in_current_span();
            let deadline = route
                .timeout
                .and_then(|limit| tokio::time::Instant::now().checked_add(limit));
            let task_failed = |error: &dyn std::fmt::Display| -> CallToolResult {
                error_result(&ToolError::internal_logged(format_args!(
                    "tool `{name}` task failed: {error}"
                )))
            };
            if !transactional {
                // Polled once here first: a write that ends without waiting (nothing can stop
                // it inside one poll) needs no task of its own. One that waits is moved onto
                // its own task, to run to its end whatever happens to the request.
                let mut work = Box::pin(work);
                let first = std::future::poll_fn(|cx| {
                    std::task::Poll::Ready(std::panic::catch_unwind(AssertUnwindSafe(|| {
                        std::future::Future::poll(work.as_mut(), cx)
                    })))
                })
                .await;
                let task = match first {
                    Ok(std::task::Poll::Ready(answer)) => return answer.into_early(),
                    Ok(std::task::Poll::Pending) => tokio::spawn(work),
                    Err(panic) => {
                        return Ok(task_failed(&crate::tool::panics::message(&*panic)));
                    }
                };
                let joined = match (deadline, &audit) {
                    (Some(deadline), Some(audit)) => {
                        match tokio::time::timeout_at(deadline, task).await {
                            Ok(joined) => joined,
                            Err(_elapsed) => {
                                let limit = route.timeout.unwrap_or_default();
                                tracing::warn!(
                                    tool = name,
                                    limit_ms = limit.as_millis(),
                                    "write passed its time limit; it runs on"
                                );
                                return Ok(audit
                                    .refuse(ToolError::write_timeout(limit, has_key))
                                    .await);
                            }
                        }
                    }
                    _ => task.await,
                };
                return joined
                    .unwrap_or_else(|error| task_failed(&error).into())
                    .into_early();
            }
            let Some(audit) = audit else {
                return Ok(task_failed(&"a transactional write lost its audit attempt"));
            };
            // A transactional write runs on its own task from the start: it stops at its time
            // limit or when cancelled, aborted, its transaction dropped and rolled back, and
            // nothing of it happened.
            let mut task = tokio::spawn(work);
            let limit = route.timeout.unwrap_or(Duration::MAX);
            let ended = tokio::select! {
                joined = tokio::time::timeout(limit, &mut task) => match joined {
                    Ok(joined) => Ok(joined),
                    Err(_elapsed) => Err(Some(limit)),
                },
                () = cancelled.cancelled() => Err(None),
            };
            match ended {
                Ok(joined) => joined
                    .unwrap_or_else(|error| task_failed(&error).into())
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
                            .unwrap_or_else(|error| task_failed(&error).into())
                            .into_early();
                    }
                    task.abort();
                    if let (None, Some(mark)) = (limit, &nothing_ran) {
                        mark.set();
                    }
                    tracing::warn!(tool = name, "transactional write stopped and rolled back");
                    Ok(audit.refuse(ToolError::rolled_back(limit)).await)
                }
            }
        }
    }
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

/// `sink`, its records counted when the instance has metrics (feature `opentelemetry`).
fn metered(
    sink: std::sync::Arc<dyn crate::audit::AuditSink>,
    state: &crate::state::State,
) -> std::sync::Arc<dyn crate::audit::AuditSink> {
    #[cfg(feature = "opentelemetry")]
    return crate::call::metrics::metered(sink, state.metrics());
    #[cfg(not(feature = "opentelemetry"))]
    {
        let _ = state;
        sink
    }
}

/// Gives back the claim of a write that does not run now.
pub(super) async fn release(claimed: Option<Claimed>) {
    if let Some(claimed) = claimed {
        claimed.release().await;
    }
}
