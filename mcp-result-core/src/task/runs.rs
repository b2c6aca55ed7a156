//! What this instance runs of its tasks ([`Runs`]) and the mark of a task's call that
//! ended without effect ([`NothingRan`]): the router's bookkeeping, kept in the instance's
//! [`State`](crate::State) and in a task's request.

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
};

use rmcp::{service::RequestContext, RoleServer};
use tokio_util::sync::CancellationToken;

/// The tasks this instance runs: its id (a task's `runner`) and each run's cancellation.
#[derive(Debug)]
pub(crate) struct Runs {
    pub(crate) instance: String,
    tokens: Mutex<HashMap<String, CancellationToken>>,
}

impl Default for Runs {
    fn default() -> Self {
        Self {
            instance: uuid::Uuid::now_v7().to_string(),
            tokens: Mutex::default(),
        }
    }
}

impl Runs {
    pub(crate) fn tokens(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.tokens.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Put into a task's call: set when the call ended without effect because it was
/// cancelled (before it ran, a read stopped, a transactional write rolled back), so its
/// task ends `cancelled` and not with that answer.
#[derive(Debug, Clone, Default)]
pub(crate) struct NothingRan(Arc<AtomicBool>);

impl NothingRan {
    /// Marks the call as ended without effect.
    pub(crate) fn set(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// The mark of the call of `context`, if it is a task's.
pub(crate) fn mark_of(context: &RequestContext<RoleServer>) -> Option<NothingRan> {
    context.extensions.get::<NothingRan>().cloned()
}

/// Marks the call of `context`, if it is a task's, as ended without effect.
pub(crate) fn nothing_ran(context: &RequestContext<RoleServer>) {
    if let Some(mark) = context.extensions.get::<NothingRan>() {
        mark.set();
    }
}

impl NothingRan {
    /// Whether the call was marked.
    pub(crate) fn is_set(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}
