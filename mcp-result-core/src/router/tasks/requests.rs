//! `tasks/get`, `tasks/update` and `tasks/cancel`: each finds the caller's task, and
//! `tasks/get` takes over a task whose instance stopped renewing it.

use rmcp::{
    model::{CancelTaskParams, GetTaskParams, GetTaskResult, UpdateTaskParams},
    service::RequestContext,
    ErrorData, RoleServer,
};
use tokio_util::sync::CancellationToken;

use super::{
    policy_of,
    run::{drive, run_context},
    wire::{detailed, millis, request_of, stopped_error},
};
use crate::{
    router::{
        registry::ToolRegistry,
        set::{services_of, ToolSet},
    },
    state::State,
    store::{clock::now_ms, StoreError},
    task::{TaskRecord, TaskState},
    wire::identity::Identity,
};

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

impl<S: ToolSet> ToolRegistry<S> {
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
        let registry = S::tool_registry().map_err(crate::router::def::registry_error)?;
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
        let registry = S::tool_registry().map_err(crate::router::def::registry_error)?;
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
