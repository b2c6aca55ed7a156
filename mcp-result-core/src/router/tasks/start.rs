//! Phase 0 of a `tools/call` of a tool that runs as a task: whether the request makes it
//! one, and the task stored (at once, or past the tool's head start) with its run started.

use rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, ClientCapabilities, CreateTaskResult, TaskStatus,
    },
    service::RequestContext,
    ErrorData, RoleServer,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{
    policy_of,
    run::{create, drive, run_context},
    wire::{millis, task_meta, task_of},
};
use crate::{
    result::build::error_result,
    router::{
        answer::Early,
        registry::{Route, ToolRegistry},
        set::{services_of, ToolSet},
    },
    store::clock::now_ms,
    task::{TaskRecord, TaskState, TaskSupport},
    wire::envelope::ToolError,
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
        let registry = S::tool_registry().map_err(crate::router::def::registry_error)?;
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
}
