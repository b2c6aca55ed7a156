//! A stored task as the wire shows it (SEP-2663 `Task`, `DetailedTask`), and back: the
//! `_meta` it keeps of its call, the `tools/call` it runs (again), the error of a run that
//! stopped.

use std::time::Duration;

use rmcp::{
    model::{CallToolRequestParams, DetailedTask, InputRequests, Task, TaskPayload, TaskStatus},
    service::RequestContext,
    RoleServer,
};
use serde_json::{json, Map, Value};

use crate::task::{TaskPolicy, TaskRecord, TaskState};

pub(super) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn iso(ms: u64) -> String {
    chrono::DateTime::from_timestamp_millis(i64::try_from(ms).unwrap_or(i64::MAX))
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The task as the wire shows it (SEP-2663 `Task`).
pub(super) fn task_of(record: &TaskRecord, policy: TaskPolicy, status: TaskStatus) -> Task {
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
pub(super) fn detailed(record: &TaskRecord, policy: TaskPolicy) -> DetailedTask {
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

pub(super) fn requests_of(requests: InputRequests) -> Map<String, Value> {
    match serde_json::to_value(requests) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}

/// The error of a task whose instance stopped while it ran and which is not safe to run
/// again (JSON-RPC `-32603`, `data.retrySafe: false`).
pub(super) fn stopped_error(record: &TaskRecord) -> Value {
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
pub(super) fn task_meta(context: &RequestContext<RoleServer>) -> Map<String, Value> {
    let mut meta = context.meta.0 .0.clone();
    meta.remove("progressToken");
    meta
}

/// The `tools/call` a task runs (again): its tool and arguments, with the answers of its
/// last round.
pub(super) fn request_of(
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
