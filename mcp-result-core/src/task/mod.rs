//! Durable tasks (MCP tasks extension `io.modelcontextprotocol/tasks`, SEP-2663, on MCP
//! 2026-07-28): a `tools/call` answered with a task the client polls (`tasks/get`), feeds
//! input (`tasks/update`) and may cancel (`tasks/cancel`).
//!
//! A tool opts in with `#[mcp_tool(task = "optional")]` (a task when the request declares
//! the extension, a plain call otherwise) or `task = "required"` (a request without the
//! extension gets JSON-RPC `-32021` naming it). The router does the rest (guide, "Durable
//! tasks"): it stores the task ([`TaskStore`]) before it answers `CreateTaskResult`, runs
//! the call as it runs any call (the write path's order, audit records and idempotency
//! keys unchanged), and settles the task with the call's answer.
//!
//! This room holds what a task *is* and where it lives: [`TaskRecord`] and its
//! [`TaskState`], the store trait [`TaskStore`] with its in-memory implementation
//! [`MemoryTasks`] (the SQL ones are [`crate::sql::SqlTasks`]), the server's
//! [`TaskPolicy`] and a tool's [`TaskSupport`]. Beneath it: the store vocabulary. Above
//! it: the router, which runs tasks.

mod memory;
mod record;
pub(crate) mod runs;

pub use memory::MemoryTasks;
pub use record::{TaskRecord, TaskState, TaskStore};

use std::time::Duration;

/// How a tool runs as a task (`#[mcp_tool(task = "optional" | "required",
/// task_after_ms = N)]`). Built by generated code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskSupport {
    /// `task = "required"`: a request that does not declare the tasks extension is refused
    /// with JSON-RPC `-32021` (SEP-2663 "Required Capabilities"); `"optional"`: it runs as
    /// a plain call.
    pub required: bool,
    /// `task_after_ms = N`: the call becomes a task only when it has not ended after this
    /// long; an answer before (a result, or the question of an input-required round) is
    /// sent as it is (SEP-2663 immediate-result shortcut, and SEP-2322 rounds before the
    /// task). Zero (the default): the task is stored before the tool starts.
    pub after: Duration,
}

impl TaskSupport {
    /// `task = "optional"`.
    pub const fn optional() -> Self {
        Self {
            required: false,
            after: Duration::ZERO,
        }
    }

    /// `task = "required"`.
    pub const fn required() -> Self {
        Self {
            required: true,
            after: Duration::ZERO,
        }
    }

    /// `task_after_ms = N`.
    pub const fn after_ms(mut self, ms: u64) -> Self {
        self.after = Duration::from_millis(ms);
        self
    }
}

/// A served instance's rules for tasks; a [`State`](crate::State) value, the defaults
/// without one. The struct is `#[non_exhaustive]`, so outside this crate it is built from
/// [`TaskPolicy::default`] and changed with its `with_*` methods (or by assigning its
/// fields):
///
/// ```
/// use std::time::Duration;
/// use mcp_result_core::{task::TaskPolicy, State};
///
/// let policy = TaskPolicy::default()
///     .with_ttl(Duration::from_secs(600))
///     .with_per_caller(20);
/// let state = State::new().with(policy);
/// # let _ = state;
///
/// let mut quick = TaskPolicy::default();
/// quick.lease = Duration::from_secs(2);
/// assert_eq!((policy.per_caller, quick.ttl), (20, Duration::from_secs(3600)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskPolicy {
    /// How long a task can be read after it was created (`ttlMs`): 1 hour. A task is never
    /// expired earlier (SEP-2663); after it, `tasks/get` answers `-32602` as for an id that
    /// never existed.
    pub ttl: Duration,
    /// The poll interval suggested to clients (`pollIntervalMs`): 500 ms.
    pub poll_interval: Duration,
    /// How many unexpired tasks one caller may hold: 100. Past it a task-creating call is
    /// answered `policy_blocked` (status `blocked`, "Quota exceeded: …"; nothing runs)
    /// until older tasks expire. Exact in memory and on SQLite (one writer at a time); on
    /// PostgreSQL the count and the insert are one statement under READ COMMITTED, so calls
    /// of one caller racing on two instances may pass it by the number racing (the bound of
    /// approvals works the same way).
    pub per_caller: usize,
    /// How long a running task's instance holds it without renewing: 8 s. The instance
    /// renews it every quarter of this; a task whose instance stopped renewing (killed) is
    /// taken over by the next `tasks/get`: run again when that is safe, failed otherwise.
    pub lease: Duration,
}

impl Default for TaskPolicy {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(3600),
            poll_interval: Duration::from_millis(500),
            per_caller: 100,
            lease: Duration::from_secs(8),
        }
    }
}

impl TaskPolicy {
    /// The policy with `ttl` (builder for the `#[non_exhaustive]` struct).
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The policy with `per_caller` tasks at most.
    pub fn with_per_caller(mut self, per_caller: usize) -> Self {
        self.per_caller = per_caller;
        self
    }

    /// The policy with `lease`.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// The policy with `poll_interval`.
    pub fn with_poll_interval(mut self, poll_interval: Duration) -> Self {
        self.poll_interval = poll_interval;
        self
    }
}
