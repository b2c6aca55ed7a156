//! Calls that run as tasks (MCP tasks extension `io.modelcontextprotocol/tasks`, SEP-2663):
//! the task stored before its `CreateTaskResult`, the call run as any call is
//! ([`ToolRegistry::answer`]), its answer settled into the task, and `tasks/get`,
//! `tasks/update` and `tasks/cancel`, each written once here above every [`TaskStore`].
//!
//! The rules, in one place:
//!
//! - A task belongs to its caller ([`Identity::key`]): anyone else is told `-32602`, as for
//!   an id that never existed (and so is everyone, once the task expired).
//! - A task is stored before its `CreateTaskResult` is sent, so a `tasks/get` at once, on
//!   any instance of the store, finds it (SEP-2663 "durable create").
//! - The instance running a task renews its lease; a `tasks/get` that finds the lease
//!   lapsed (its instance was killed) takes the task over: runs it again when that is safe
//!   ([`TaskRecord::rerunnable`]), fails it otherwise with an error that says the outcome
//!   is unknown. Never a second run of a write that may have run.
//! - A call that asks its client (an input-required round) parks the task in
//!   `input_required`; `tasks/update` collects the answers, and when the last is in, the
//!   call runs again with them (on the instance that got it), as a round does.
//! - `tasks/cancel` of a task that waits for input cancels it (nothing runs); of a working
//!   one, cancels its run (on whichever instance runs it): the task ends `cancelled` when
//!   nothing of it took effect (a read, a write that had not started, a transactional write
//!   rolled back), and with its outcome when the write ran.

use std::{sync::Arc, time::Duration};

use rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities,
        CreateTaskResult, DetailedTask, GetTaskParams, GetTaskResult, InputRequests, MetaObject,
        RequestMetaObject, Task, TaskPayload, TaskStatus, UpdateTaskParams,
    },
    service::RequestContext,
    ErrorData, RoleServer,
};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use crate::{
    result::build::error_result,
    router::{
        answer::Early,
        registry::{Route, ToolRegistry},
        set::{services_of, ToolSet},
        state::State,
    },
    store::{clock::now_ms, StoreError},
    task::runs::NothingRan,
    task::{TaskPolicy, TaskRecord, TaskState, TaskStore, TaskSupport},
    wire::{envelope::ToolError, identity::Identity},
    write::idempotency::idempotency_key,
};

/// Whether the request declared the tasks extension and speaks MCP 2026-07-28 or later,
/// the revision SEP-2663's task shape is defined for. A session of an earlier revision gets
/// plain calls even when its client declared the extension at `initialize` (the MCP
/// Inspector 2.12 does, and reads a `CreateTaskResult` there as a result without content).
fn declares_tasks(context: &RequestContext<RoleServer>) -> bool {
    crate::call::client::asks_by_round(context)
        && context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks())
}

/// The `-32021` of a request without the tasks extension (SEP-2575 "Missing Required
/// Capabilities": `data.requiredCapabilities` names it).
fn tasks_required() -> ErrorData {
    ErrorData::missing_required_client_capability(
        ClientCapabilities::builder().enable_tasks().build(),
    )
}

/// The `-32602` of a task id that names nothing this caller may see.
fn unknown_task() -> ErrorData {
    ErrorData::invalid_params("unknown task: no task of this id for this caller", None)
}

/// How a store failure reaches a `tasks/*` request: `-32603` naming no driver text.
fn store_error(error: &StoreError) -> ErrorData {
    let id = uuid::Uuid::now_v7();
    tracing::error!(correlation_id = %id, %error, "task store failed");
    ErrorData::internal_error(
        format!("The task store is unavailable; retry later (correlation id {id})."),
        None,
    )
}

fn policy_of(state: &State) -> TaskPolicy {
    state.get::<TaskPolicy>().copied().unwrap_or_default()
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn iso(ms: u64) -> String {
    chrono::DateTime::from_timestamp_millis(i64::try_from(ms).unwrap_or(i64::MAX))
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The task as the wire shows it (SEP-2663 `Task`).
fn task_of(record: &TaskRecord, policy: TaskPolicy, status: TaskStatus) -> Task {
    Task::new(
        record.id.clone(),
        status,
        iso(record.created_ms),
        iso(record.updated_ms),
    )
    .with_ttl_ms(record.ttl_ms)
    .with_poll_interval_ms(millis(policy.poll_interval).max(1))
}

/// `tasks/get`'s `DetailedTask` of `record`.
fn detailed(record: &TaskRecord, policy: TaskPolicy) -> DetailedTask {
    let object = |value: &Value| value.as_object().cloned().unwrap_or_default();
    let payload = match &record.state {
        TaskState::Working => TaskPayload::Working,
        TaskState::InputRequired { requests, .. } => TaskPayload::InputRequired {
            input_requests: serde_json::from_value(Value::Object(requests.clone()))
                .unwrap_or_default(),
        },
        TaskState::Completed { result } => TaskPayload::Completed {
            result: object(result),
        },
        TaskState::Failed { error } => TaskPayload::Failed {
            error: object(error),
        },
        TaskState::Cancelled => TaskPayload::Cancelled,
    };
    DetailedTask::new(task_of(record, policy, payload.status()), payload)
}

/// What a call's answer makes of its task.
fn settled(answer: Result<rmcp::model::CallToolResult, Early>, cancelled: bool) -> TaskState {
    if cancelled {
        return TaskState::Cancelled;
    }
    match answer {
        Ok(result) | Err(Early::Answer(result)) => TaskState::Completed {
            result: serde_json::to_value(result).unwrap_or_default(),
        },
        Err(Early::Protocol(error)) => TaskState::Failed {
            error: serde_json::to_value(error).unwrap_or_default(),
        },
        Err(Early::Ask(question)) => TaskState::InputRequired {
            requests: requests_of(question.input_requests.unwrap_or_default()),
            answers: Map::new(),
            state: question.request_state,
        },
    }
}

fn requests_of(requests: InputRequests) -> Map<String, Value> {
    match serde_json::to_value(requests) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// The error of a task whose instance stopped while it ran and which is not safe to run
/// again (JSON-RPC `-32603`, `data.retrySafe: false`).
fn stopped_error(record: &TaskRecord) -> Value {
    json!({
        "code": rmcp::model::ErrorCode::INTERNAL_ERROR.0,
        "message": format!(
            "The server instance running this task stopped before it finished (attempt {}); \
             whether `{}` took effect is unknown. Check before calling it again.",
            record.attempts, record.tool
        ),
        "data": {"retrySafe": false},
    })
}

/// A call's `_meta` for its task: without its progress token (a task sends no progress).
fn task_meta(context: &RequestContext<RoleServer>) -> Map<String, Value> {
    let mut meta = context.meta.0 .0.clone();
    meta.remove("progressToken");
    meta
}

/// The request context a task's run uses: the request's (its transport, identity and
/// state), with the task's `_meta` and cancellation, and the mark of a run without effect.
fn run_context(
    mut context: RequestContext<RoleServer>,
    record: &TaskRecord,
    token: CancellationToken,
) -> (RequestContext<RoleServer>, NothingRan) {
    context.ct = token;
    context.meta = RequestMetaObject(MetaObject(record.meta.clone()));
    let mark = NothingRan::default();
    context.extensions.insert(mark.clone());
    (context, mark)
}

/// The `tools/call` a task runs (again): its tool and arguments, with the answers of its
/// last round.
fn request_of(
    record: &TaskRecord,
    round: Option<(Map<String, Value>, Option<String>)>,
) -> CallToolRequestParams {
    let mut request = CallToolRequestParams::new(record.tool.clone());
    request.arguments = record.arguments.clone();
    if let Some((answers, state)) = round {
        request.input_responses = Some(answers.into_iter().collect());
        request.request_state = state;
    }
    request
}

impl<S: ToolSet> ToolRegistry<S> {
    /// Phase 0 of a `tools/call` of a tool that runs as a task: `Some` answer when this
    /// request makes it a task (or is refused for lacking the extension), `None` when it
    /// is a plain call.
    pub(crate) async fn call_as_task(
        &self,
        server: &S,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<CallToolResponse, ErrorData>> {
        let route = self.routes.get(request.name.as_ref())?;
        let support = route.task?;
        if !declares_tasks(context) {
            return support.required.then(|| Err(tasks_required()));
        }
        // Boxed: only calls that become tasks carry the task's state.
        Some(
            Box::pin(self.start_task(server, request.clone(), context.clone(), route, support))
                .await,
        )
    }

    async fn start_task(
        &self,
        server: &S,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        route: &Route<S>,
        support: TaskSupport,
    ) -> Result<CallToolResponse, ErrorData> {
        let registry = S::tool_registry().map_err(super::def::registry_error)?;
        let services = services_of(server);
        let state = self.state_for(&context);
        let policy = policy_of(&state);
        // The caller, before anything is stored: no identity, no task.
        let Some(identity) = services.caller_identity(&context) else {
            return Ok(CallToolResponse::Complete(error_result(
                &ToolError::unauthenticated(),
            )));
        };
        let now = now_ms();
        let rerunnable = route.read_only
            || idempotency_key(
                route.key_field,
                &context,
                &Value::Object(request.arguments.clone().unwrap_or_default()),
            )
            .is_ok_and(|key| key.is_some());
        let mut record = TaskRecord {
            id: uuid::Uuid::now_v7().to_string(),
            caller: identity.key(),
            tool: route.name.to_owned(),
            arguments: request.arguments.clone(),
            meta: task_meta(&context),
            state: TaskState::Working,
            created_ms: now,
            updated_ms: now,
            ttl_ms: millis(policy.ttl),
            cancel_requested: false,
            runner: Some(state.runs().instance.clone()),
            lease_until_ms: now + millis(policy.lease),
            attempts: 1,
            rerunnable,
            version: 1,
        };
        let store = services_of(server).task_store(&state);
        let token = CancellationToken::new();
        let (run_context, mark) = run_context(context.clone(), &record, token.clone());
        let head_start = support.after;
        if head_start.is_zero() {
            // Stored before the tool starts.
            if let Err(refused) = create(store.as_ref(), &record, policy).await {
                return Ok(CallToolResponse::Complete(refused));
            }
            state
                .runs()
                .tokens()
                .insert(record.id.clone(), token.clone());
            let run = registry.answer_owned(server.clone_for_call(), request, run_context);
            tokio::spawn(drive(
                store,
                state,
                record.clone(),
                token,
                mark,
                run,
                policy,
            ));
            return Ok(CallToolResponse::Task(CreateTaskResult::new(task_of(
                &record,
                policy,
                TaskStatus::Working,
            ))));
        }
        // A head start: an answer before it ends is sent as it is.
        let mut run =
            tokio::spawn(registry.answer_owned(server.clone_for_call(), request, run_context));
        tokio::select! {
            joined = &mut run => return registry.respond(joined.unwrap_or_else(|error| {
                Err(Early::Answer(error_result(&ToolError::internal_logged(format_args!(
                    "tool `{}` task failed: {error}", route.name
                )))))
            })),
            () = tokio::time::sleep(head_start) => {}
            () = context.ct.cancelled() => {
                // Its answer, not a guess: the run decides whether it stopped in time.
                token.cancel();
                return registry.respond(run.await.unwrap_or_else(|error| {
                    Err(Early::Answer(error_result(&ToolError::internal_logged(format_args!(
                        "tool `{}` task failed: {error}", route.name
                    )))))
                }));
            }
        }
        // Its times from now, when it is stored.
        let now = now_ms();
        record.created_ms = now;
        record.updated_ms = now;
        record.lease_until_ms = now + millis(policy.lease);
        if let Err(refused) = create(store.as_ref(), &record, policy).await {
            // No task can hold it: the call is answered when it ends, as without tasks.
            tracing::warn!(tool = route.name, "no task for a call past its head start");
            drop(refused);
            return registry.respond(run.await.unwrap_or_else(|error| {
                Err(Early::Answer(error_result(&ToolError::internal_logged(
                    format_args!("tool `{}` task failed: {error}", route.name),
                ))))
            }));
        }
        state
            .runs()
            .tokens()
            .insert(record.id.clone(), token.clone());
        let joined = async move {
            run.await.unwrap_or_else(|error| {
                Err(Early::Answer(error_result(&ToolError::internal_logged(
                    format_args!("a task's call failed: {error}"),
                ))))
            })
        };
        tokio::spawn(drive(
            store,
            state,
            record.clone(),
            token,
            mark,
            joined,
            policy,
        ));
        Ok(CallToolResponse::Task(CreateTaskResult::new(task_of(
            &record,
            policy,
            TaskStatus::Working,
        ))))
    }

    /// `tasks/get`: the caller's task, taken over first when its instance stopped.
    ///
    /// # Errors
    /// `-32602` for a task id this caller has no task of; `-32603` when the store fails.
    pub async fn get_task(
        &self,
        server: &S,
        params: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let (state, record) = self.owned(server, &params.task_id, &context).await?;
        let policy = policy_of(&state);
        let record = match &record.state {
            TaskState::Working if record.lease_until_ms < now_ms() => {
                self.take_over(server, &state, record, context).await?
            }
            _ => record,
        };
        Ok(GetTaskResult::new(detailed(&record, policy)))
    }

    /// `tasks/update`: answers to the questions of a task that waits for input; when the
    /// last is in, the call runs again with them. Answers to keys the task does not wait
    /// for are ignored (SEP-2663); so is an update of a task that waits for nothing.
    ///
    /// # Errors
    /// As [`Self::get_task`].
    pub async fn update_task(
        &self,
        server: &S,
        params: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let registry = S::tool_registry().map_err(super::def::registry_error)?;
        let (state, mut record) = self.owned(server, &params.task_id, &context).await?;
        let policy = policy_of(&state);
        let store = services_of(server).task_store(&state);
        loop {
            let TaskState::InputRequired {
                requests,
                answers,
                state: round_state,
            } = &mut record.state
            else {
                return Ok(());
            };
            let mut changed = false;
            for (key, answer) in &params.input_responses {
                if requests.remove(key).is_some() {
                    answers.insert(key.clone(), answer.clone());
                    changed = true;
                }
            }
            if !changed {
                return Ok(());
            }
            let resume = requests
                .is_empty()
                .then(|| (std::mem::take(answers), round_state.take()));
            let now = now_ms();
            let token = CancellationToken::new();
            if resume.is_some() {
                record.state = TaskState::Working;
                record.runner = Some(state.runs().instance.clone());
                record.lease_until_ms = now + millis(policy.lease);
                record.attempts += 1;
            }
            record.updated_ms = now;
            record.version += 1;
            if store.replace(&record).await.map_err(|e| store_error(&e))? {
                if let Some(round) = resume {
                    state
                        .runs()
                        .tokens()
                        .insert(record.id.clone(), token.clone());
                    let (run_context, mark) = run_context(context, &record, token.clone());
                    let run = registry.answer_owned(
                        server.clone_for_call(),
                        request_of(&record, Some(round)),
                        run_context,
                    );
                    tokio::spawn(drive(store, state, record, token, mark, run, policy));
                }
                return Ok(());
            }
            record = self.owned(server, &params.task_id, &context).await?.1;
        }
    }

    /// `tasks/cancel`: a task waiting for input ends `cancelled` at once; a working one's
    /// run is cancelled where it runs, and it ends `cancelled` when nothing of it took
    /// effect. A task that ended already is left as it is (the same empty acknowledgement,
    /// SEP-2663).
    ///
    /// # Errors
    /// As [`Self::get_task`].
    pub async fn cancel_task(
        &self,
        server: &S,
        params: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let (state, mut record) = self.owned(server, &params.task_id, &context).await?;
        let store = services_of(server).task_store(&state);
        loop {
            match record.state {
                _ if record.state.is_terminal() => return Ok(()),
                TaskState::InputRequired { .. } => record.state = TaskState::Cancelled,
                _ if record.cancel_requested => {}
                _ => record.cancel_requested = true,
            }
            record.updated_ms = now_ms();
            record.version += 1;
            if store.replace(&record).await.map_err(|e| store_error(&e))? {
                break;
            }
            record = self.owned(server, &params.task_id, &context).await?.1;
        }
        if let Some(token) = state.runs().tokens().get(&record.id) {
            token.cancel();
        }
        Ok(())
    }

    /// The caller's task `id` and the state of this request.
    async fn owned(
        &self,
        server: &S,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<(State, TaskRecord), ErrorData> {
        let state = self.state_for(context);
        let caller = services_of(server)
            .caller_identity(context)
            .as_ref()
            .map(Identity::key)
            .ok_or_else(unknown_task)?;
        let record = services_of(server)
            .task_store(&state)
            .get(id)
            .await
            .map_err(|e| store_error(&e))?
            .filter(|record| record.caller == caller)
            .ok_or_else(unknown_task)?;
        Ok((state, record))
    }

    /// A working task whose instance stopped renewing it: run again on this instance when
    /// that is safe and it was not cancelled; otherwise ended (`cancelled` when nothing of
    /// it can have taken effect, `failed` with an unknown outcome when something may have).
    async fn take_over(
        &self,
        server: &S,
        state: &State,
        mut record: TaskRecord,
        context: RequestContext<RoleServer>,
    ) -> Result<TaskRecord, ErrorData> {
        let registry = S::tool_registry().map_err(super::def::registry_error)?;
        let policy = policy_of(state);
        let store = services_of(server).task_store(state);
        let route = self.routes.get(record.tool.as_str());
        // Only a read is sure to have left nothing: a transaction may have committed just
        // before its instance stopped.
        let without_effect = route.is_some_and(|r| r.read_only);
        let now = now_ms();
        let token = CancellationToken::new();
        let rerun = !record.cancel_requested && record.rerunnable && route.is_some();
        record.state = if rerun {
            record.runner = Some(state.runs().instance.clone());
            record.lease_until_ms = now + millis(policy.lease);
            record.attempts += 1;
            TaskState::Working
        } else if record.cancel_requested && without_effect {
            TaskState::Cancelled
        } else {
            TaskState::Failed {
                error: stopped_error(&record),
            }
        };
        if !rerun {
            record.runner = None;
        }
        record.updated_ms = now;
        record.version += 1;
        if !store.replace(&record).await.map_err(|e| store_error(&e))? {
            // Another request took it over first: what it made of it.
            return Ok(self.owned(server, &record.id, &context).await?.1);
        }
        tracing::warn!(
            task = %record.id,
            tool = %record.tool,
            attempt = record.attempts,
            rerun,
            "a task's instance stopped while it ran: taken over"
        );
        if rerun {
            state
                .runs()
                .tokens()
                .insert(record.id.clone(), token.clone());
            let (run_context, mark) = run_context(context, &record, token.clone());
            let run = registry.answer_owned(
                server.clone_for_call(),
                request_of(&record, None),
                run_context,
            );
            tokio::spawn(drive(
                store,
                state.clone(),
                record.clone(),
                token,
                mark,
                run,
                policy,
            ));
        }
        Ok(record)
    }
}

/// Stores a new task; the answer for the call when it cannot be stored.
async fn create(
    store: &dyn TaskStore,
    record: &TaskRecord,
    policy: TaskPolicy,
) -> Result<(), rmcp::model::CallToolResult> {
    match store.create(record, policy.per_caller).await {
        Ok(()) => Ok(()),
        Err(StoreError::Refused(reason)) => Err(error_result(&ToolError::quota_exceeded(
            reason,
            "Wait for older tasks to expire, or call without the tasks extension.",
        ))),
        Err(error) => {
            tracing::error!(%error, "task store failed");
            Err(error_result(&ToolError::upstream_unavailable(
                "The task store is unavailable; nothing ran. Retry later.",
                true,
            )))
        }
    }
}

/// A task's run on this instance, to its end: the call, its lease renewed meanwhile (and a
/// cancel requested on another instance passed to it), then its answer settled into the
/// task.
async fn drive<F>(
    store: Arc<dyn TaskStore>,
    state: State,
    record: TaskRecord,
    token: CancellationToken,
    mark: NothingRan,
    run: F,
    policy: TaskPolicy,
) where
    F: std::future::Future<Output = Result<rmcp::model::CallToolResult, Early>> + Send,
{
    let span = tracing::info_span!("mcp.task", task = %record.id, tool = %record.tool);
    async {
        let run_of = RunOf {
            id: &record.id,
            runner: &state.runs().instance,
            attempt: record.attempts,
        };
        let renew = renew(store.as_ref(), run_of, &token, policy);
        tokio::pin!(run);
        let answer = tokio::select! {
            answer = &mut run => answer,
            () = renew => run.await,
        };
        state.runs().tokens().remove(&record.id);
        // Cancelled, and nothing of it took effect: it ended before acting (a question
        // ends a call before it acts) or stopped without effect.
        let cancelled =
            token.is_cancelled() && (mark.is_set() || matches!(answer, Err(Early::Ask(_))));
        settle(store.as_ref(), run_of, settled(answer, cancelled)).await;
    }
    .instrument(span)
    .await;
}

/// One run of a task: its id, the instance running it and which attempt this is.
#[derive(Clone, Copy)]
struct RunOf<'a> {
    id: &'a str,
    runner: &'a str,
    attempt: u32,
}

impl RunOf<'_> {
    /// Whether `record` is still this run's to renew and settle (not taken over by another
    /// instance, not ended otherwise meanwhile).
    fn holds(&self, record: &TaskRecord) -> bool {
        record.state == TaskState::Working
            && record.runner.as_deref() == Some(self.runner)
            && record.attempts == self.attempt
    }
}

/// Renews the lease of a running task every quarter lease, and cancels its run when a
/// cancel was requested (on any instance). Ends only when the task is no longer this run's
/// (taken over after a lease lapsed, say): then it cancels the run too, which may no
/// longer settle it.
async fn renew(
    store: &dyn TaskStore,
    run: RunOf<'_>,
    token: &CancellationToken,
    policy: TaskPolicy,
) {
    let every = (policy.lease / 4).max(Duration::from_millis(50));
    loop {
        tokio::time::sleep(every).await;
        let id = run.id;
        let mut record = match store.get(id).await {
            Ok(Some(record)) => record,
            Ok(None) => {
                token.cancel();
                return;
            }
            Err(_) => continue,
        };
        if !run.holds(&record) {
            tracing::warn!(
                task = id,
                "a task was taken from its run: its run is cancelled"
            );
            token.cancel();
            return;
        }
        if record.cancel_requested {
            token.cancel();
        }
        record.lease_until_ms = now_ms() + millis(policy.lease);
        record.version += 1;
        if let Err(error) = store.replace(&record).await {
            tracing::warn!(%error, task = id, "renewing a task's lease failed");
        }
    }
}

/// Writes a run's end into its task, unless the task is no longer this run's (it ended
/// otherwise, or another instance took it over). A run that ends asking while a cancel was
/// requested ends the task `cancelled`: nothing of it ran.
async fn settle(store: &dyn TaskStore, run: RunOf<'_>, end: TaskState) {
    let id = run.id;
    for _ in 0..20 {
        let mut record = match store.get(id).await {
            Ok(Some(record)) => record,
            Ok(None) => return,
            Err(error) => {
                tracing::error!(%error, task = id, "task store failed settling a task");
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        };
        if !run.holds(&record) {
            tracing::warn!(
                task = id,
                "a task's run ended after the task was taken from it"
            );
            return;
        }
        record.state = match &end {
            TaskState::InputRequired { .. } if record.cancel_requested => TaskState::Cancelled,
            end => end.clone(),
        };
        record.runner = None;
        record.updated_ms = now_ms();
        record.version += 1;
        match store.replace(&record).await {
            Ok(true) => return,
            Ok(false) => continue,
            Err(error) => {
                tracing::error!(%error, task = id, "task store failed settling a task");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
    tracing::error!(task = id, "a task's end could not be stored");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::MemoryTasks;

    fn running(runner: &str, attempts: u32, cancel_requested: bool) -> TaskRecord {
        let now = now_ms();
        TaskRecord {
            id: "t-1".into(),
            caller: "alice".into(),
            tool: "refund".into(),
            arguments: None,
            meta: Map::new(),
            state: TaskState::Working,
            created_ms: now,
            updated_ms: now,
            ttl_ms: 60_000,
            cancel_requested,
            runner: Some(runner.into()),
            lease_until_ms: now + 8_000,
            attempts,
            rerunnable: false,
            version: 1,
        }
    }

    fn asking() -> TaskState {
        TaskState::InputRequired {
            requests: Map::new(),
            answers: Map::new(),
            state: None,
        }
    }

    const RUN: RunOf<'static> = RunOf {
        id: "t-1",
        runner: "me",
        attempt: 2,
    };

    /// A run that ends asking after a cancel was requested (on another instance, before
    /// its renewal passed the cancel on) ends the task `cancelled`, not `input_required`.
    #[tokio::test]
    async fn a_run_that_asks_after_a_cancel_was_requested_ends_cancelled() {
        let store = MemoryTasks::default();
        store.create(&running("me", 2, true), 10).await.unwrap();
        settle(&store, RUN, asking()).await;
        let settled = store.get("t-1").await.unwrap().unwrap();
        assert_eq!(settled.state, TaskState::Cancelled);
        assert_eq!(settled.runner, None);
        // Without the cancel, the question parks it.
        let store = MemoryTasks::default();
        store.create(&running("me", 2, false), 10).await.unwrap();
        settle(&store, RUN, asking()).await;
        assert_eq!(store.get("t-1").await.unwrap().unwrap().state, asking());
    }

    /// A run settles only its own attempt: a task another instance runs now, or a later
    /// attempt on this one, is left as it is.
    #[tokio::test]
    async fn a_run_settles_only_its_own_attempt() {
        for (runner, attempts) in [("another", 2), ("me", 3)] {
            let store = MemoryTasks::default();
            let record = running(runner, attempts, false);
            store.create(&record, 10).await.unwrap();
            settle(&store, RUN, TaskState::Cancelled).await;
            assert_eq!(store.get("t-1").await.unwrap().unwrap(), record);
        }
    }
}
