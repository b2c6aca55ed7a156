//! A task's run on this instance: the task stored ([`create`]), the call driven to its end
//! with its lease renewed meanwhile ([`drive`], `renew`), and its answer settled into the
//! task unless another instance took it over (`settle`).

use std::{sync::Arc, time::Duration};

use rmcp::{
    model::{MetaObject, RequestMetaObject},
    service::RequestContext,
    RoleServer,
};
use serde_json::Map;
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

use super::wire::{millis, requests_of};
use crate::{
    result::build::error_result,
    router::answer::Early,
    state::State,
    store::{clock::now_ms, StoreError},
    task::runs::NothingRan,
    task::{TaskPolicy, TaskRecord, TaskState, TaskStore},
    wire::envelope::ToolError,
};

/// The request context a task's run uses: the request's (its transport, identity and
/// state), with the task's `_meta` and cancellation, and the mark of a run without effect.
pub(super) fn run_context(
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

/// Stores a new task; the answer for the call when it cannot be stored.
pub(super) async fn create(
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
pub(super) async fn drive<F>(
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
