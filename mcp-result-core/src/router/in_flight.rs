//! Writes running on their own tasks, counted for the drain at shutdown.

use std::sync::Arc;

/// Writes running on their own tasks, for the drain at shutdown.
#[derive(Default)]
pub(crate) struct InFlight {
    pub(crate) count: std::sync::atomic::AtomicUsize,
    pub(crate) idle: tokio::sync::Notify,
}

pub(crate) struct Running(Arc<InFlight>);

impl Running {
    pub(crate) fn new(in_flight: &Arc<InFlight>) -> Self {
        in_flight
            .count
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Self(in_flight.clone())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self
            .0
            .count
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst)
            == 1
        {
            self.0.idle.notify_waiters();
        }
    }
}
