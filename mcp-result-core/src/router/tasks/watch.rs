//! The tasks a `subscriptions/listen` stream follows (SEP-2663 `notifications/tasks`, on the
//! SEP-2575 stream): read from the task store every instance shares, at the instance's
//! poll interval, so a stream hears a task that runs on any instance.
//!
//! A stream hears each task it follows once when it starts (a task that ended between its
//! `CreateTaskResult` and the stream's start is not missed), then at each change of what
//! `tasks/get` would show but its `lastUpdatedAt` (a lease renewal is no change), and
//! stops following it once it ended. A task id that names no task of the stream's caller
//! is followed, silently, until it does (another caller's task is never shown, and not
//! told apart from one that does not exist, as `tasks/get` does).

use std::time::Duration;

use rmcp::{
    model::{DetailedTask, TaskStatusNotificationParams},
    service::RequestContext,
    RoleServer,
};
use serde_json::Value;

use super::{policy_of, wire::detailed};
use crate::{
    router::{
        registry::ToolRegistry,
        set::{services_of, ToolSet},
    },
    state::State,
    task::TaskPolicy,
    wire::identity::Identity,
};

/// What a stream follows of its tasks: the ids still followed, with what it last showed of
/// each.
pub(crate) struct TaskWatch {
    caller: Option<String>,
    followed: Vec<(String, Option<Value>)>,
    policy: TaskPolicy,
}

impl TaskWatch {
    /// How often the store is read: the poll interval the tasks suggest to clients.
    pub(crate) fn interval(&self) -> Duration {
        self.policy.poll_interval.max(Duration::from_millis(10))
    }

    /// Whether it follows nothing (any more).
    pub(crate) fn is_empty(&self) -> bool {
        self.followed.is_empty()
    }
}

impl<S: ToolSet> ToolRegistry<S> {
    /// The watch of the tasks `ids`, for the stream of `context`'s caller.
    pub(crate) fn watch_tasks(
        &self,
        server: &S,
        state: &State,
        ids: Vec<String>,
        context: &RequestContext<RoleServer>,
    ) -> TaskWatch {
        TaskWatch {
            caller: services_of(server)
                .caller_identity(context)
                .as_ref()
                .map(Identity::key),
            followed: ids.into_iter().map(|id| (id, None)).collect(),
            policy: policy_of(state),
        }
    }

    /// The notifications of the tasks that changed since the watch last looked (all of
    /// them, the first time). A store that fails is logged and read again next time.
    pub(crate) async fn changed_tasks(
        &self,
        server: &S,
        state: &State,
        watch: &mut TaskWatch,
    ) -> Vec<TaskStatusNotificationParams> {
        let Some(caller) = watch.caller.clone() else {
            // No caller, no task of theirs: follow nothing.
            watch.followed.clear();
            return Vec::new();
        };
        let store = services_of(server).task_store(state);
        let mut changed = Vec::new();
        let mut ended = Vec::new();
        for (index, (id, shown)) in watch.followed.iter_mut().enumerate() {
            let record = match store.get(id).await {
                Ok(record) => record.filter(|record| record.caller == caller),
                Err(error) => {
                    tracing::warn!(%error, "reading a followed task failed; read again later");
                    continue;
                }
            };
            let Some(record) = record else { continue };
            let task = detailed(&record, watch.policy);
            let now = without_update_time(&task);
            if shown.as_ref() != Some(&now) {
                *shown = Some(now);
                changed.push(TaskStatusNotificationParams::new(task));
            }
            if record.state.is_terminal() {
                ended.push(index);
            }
        }
        for index in ended.into_iter().rev() {
            watch.followed.remove(index);
        }
        changed
    }
}

/// What a change is: the task as `tasks/get` shows it, but when it was last touched.
fn without_update_time(task: &DetailedTask) -> Value {
    let mut value = serde_json::to_value(task).unwrap_or(Value::Null);
    if let Some(object) = value.as_object_mut() {
        object.remove("lastUpdatedAt");
    }
    value
}
