//! What a stored task is ([`TaskRecord`], [`TaskState`]) and where it lives ([`TaskStore`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::store::StoreFuture;

/// Where a task stands, with what that status carries (SEP-2663 `DetailedTask`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskState {
    /// The call runs (or waits to be taken over, when its instance stopped).
    Working,
    /// The call asked its client (an input-required round, SEP-2322): `requests` are the
    /// questions not answered yet, by key; `answers` the ones answered so far; `state`
    /// the round's sealed `requestState`.
    InputRequired {
        /// The unanswered questions (`inputRequests`), by key.
        requests: Map<String, Value>,
        /// The answers given so far (`inputResponses`), by key.
        answers: Map<String, Value>,
        /// The round's `requestState`, handed back to the tool with the answers.
        state: Option<String>,
    },
    /// The call answered: its `CallToolResult` (a tool error too: `isError: true`).
    Completed {
        /// The result, as sent.
        result: Value,
    },
    /// The call ended with a JSON-RPC error (`{code, message, data?}`), or its instance
    /// stopped and running it again was not safe.
    Failed {
        /// The error object.
        error: Value,
    },
    /// Cancelled (`tasks/cancel`) before anything of it took effect.
    Cancelled,
}

impl TaskState {
    /// `completed`, `failed` or `cancelled`: the task changes no more.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            TaskState::Completed { .. } | TaskState::Failed { .. } | TaskState::Cancelled
        )
    }
}

/// One task, as a [`TaskStore`] keeps it. Times are Unix milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task id (`taskId`): a UUIDv7, minted by the server.
    pub id: String,
    /// The caller it belongs to ([`Identity::key`](crate::Identity::key)); anyone else is
    /// told it does not exist.
    pub caller: String,
    /// The tool called.
    pub tool: String,
    /// The call's arguments.
    pub arguments: Option<Map<String, Value>>,
    /// The call's `_meta`, without its progress token (a task sends no progress): the
    /// idempotency key and the client's capabilities a later run needs.
    pub meta: Map<String, Value>,
    /// Where it stands.
    pub state: TaskState,
    /// When it was created.
    pub created_ms: u64,
    /// When it last changed.
    pub updated_ms: u64,
    /// How long after `created_ms` it can be read.
    pub ttl_ms: u64,
    /// A `tasks/cancel` arrived while it was working: it ends `cancelled` if nothing of it
    /// took effect, with its outcome otherwise.
    pub cancel_requested: bool,
    /// The instance running it, while it is `working`.
    pub runner: Option<String>,
    /// Until when `runner` holds it without renewing.
    pub lease_until_ms: u64,
    /// How many times it was started (1, plus one per take-over and per answered round).
    pub attempts: u32,
    /// Whether running it again after its instance stopped is safe: a read-only tool or a
    /// write under an idempotency key (a second run is answered the first one's outcome). A
    /// transactional write without a key is not: its transaction may have committed before
    /// its instance stopped, and nothing would tell a second run so.
    pub rerunnable: bool,
    /// Bumped by every change; [`TaskStore::replace`] compares it.
    pub version: u64,
}

impl TaskRecord {
    /// When it expires: `created_ms + ttl_ms`.
    pub fn expires_ms(&self) -> u64 {
        self.created_ms.saturating_add(self.ttl_ms)
    }
}

/// Where tasks live. [`MemoryTasks`](super::MemoryTasks) is the default; the SQL stores
/// ([`crate::sql::SqlStores::tasks`]) share tasks between the instances of one database,
/// so a task made on one is read, fed and cancelled on any.
///
/// The store keeps records; the rules (who may read a task, what a status change means)
/// are the router's, written once above every store.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task, when its caller holds fewer than `per_caller` unexpired ones.
    ///
    /// # Errors
    /// [`StoreError::Refused`](crate::store::StoreError::Refused) when the caller holds
    /// `per_caller`; the store's failure.
    fn create<'a>(&'a self, task: &'a TaskRecord, per_caller: usize) -> StoreFuture<'a, ()>;

    /// The unexpired task `id`, if any.
    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>>;

    /// Replaces the stored task by `task` when the stored one's version is
    /// `task.version - 1` (the caller read it, changed it and bumped the version): `false`
    /// when another change came first (read it again) or it expired.
    fn replace<'a>(&'a self, task: &'a TaskRecord) -> StoreFuture<'a, bool>;

    /// Whether what this store holds outlives the process (a database): `true` unless the
    /// store says otherwise; the in-memory stores say `false`. A server whose state mixes
    /// durable and in-memory stores starts only when the mix is explicit
    /// ([`State::allow_mixed_stores`](crate::State::allow_mixed_stores)).
    fn durable(&self) -> bool {
        true
    }
}
