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
//!
//! The parts: [`start`] makes a `tools/call` a task (phase 0 of a call), [`run`] drives a
//! task's run on this instance (stored, its lease renewed, its answer settled), [`requests`]
//! answers `tasks/get`, `tasks/update` and `tasks/cancel`, [`watch`] reads the tasks a
//! `subscriptions/listen` stream follows, and [`wire`] turns a stored task
//! into what the wire shows and back into the call it runs.
//!
//! [`ToolRegistry::answer`]: crate::router::registry::ToolRegistry::answer
//! [`TaskStore`]: crate::task::TaskStore
//! [`Identity::key`]: crate::wire::identity::Identity::key
//! [`TaskRecord::rerunnable`]: crate::task::TaskRecord::rerunnable

mod requests;
mod run;
mod start;
mod watch;
mod wire;

use crate::{state::State, task::TaskPolicy};

fn policy_of(state: &State) -> TaskPolicy {
    state.get::<TaskPolicy>().copied().unwrap_or_default()
}
