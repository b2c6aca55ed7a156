//! A tool that panics becomes an `internal` error result whose correlation id is the one
//! the cause is logged under, once. The process's panic hook would print the message a
//! second time, without the id (and on stderr, where a stdio server's logs go): while a
//! tool runs, the hook only notes where the panic happened, for that one log line. Panics
//! anywhere else reach the hook that was installed before, unchanged.

use std::{
    cell::{Cell, RefCell},
    future::Future,
    pin::Pin,
    sync::Once,
    task::{Context, Poll},
};

thread_local! {
    static IN_TOOL: Cell<bool> = const { Cell::new(false) };
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs the hook (once per process), wrapping the one in place.
pub(crate) fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_TOOL.with(Cell::get) {
                let location = info.location().map(ToString::to_string);
                LOCATION.with(|slot| *slot.borrow_mut() = location);
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `f` as tool code: a panic in it is noted, not printed.
pub(crate) fn as_tool<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            IN_TOOL.with(|flag| flag.set(self.0));
        }
    }
    let _reset = Reset(IN_TOOL.with(|flag| flag.replace(true)));
    f()
}

/// Where the last panic in tool code on this thread happened (taken).
pub(crate) fn take_location() -> Option<String> {
    LOCATION.with(|slot| slot.borrow_mut().take())
}

/// A tool's future, polled as tool code.
pub(crate) struct Guarded<F>(pub(crate) F);

impl<F: Future + Unpin> Future for Guarded<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let inner = Pin::new(&mut self.0);
        as_tool(|| inner.poll(cx))
    }
}

/// The panic's message, for the log.
pub(crate) fn message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "non-string panic payload".to_owned())
}
