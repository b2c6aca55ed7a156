//! A client's `notifications/cancelled` over stateless streamable HTTP, brought to the call
//! it names wherever that call runs ([`CancelBus`]).
//!
//! Over stdio and in a stateful HTTP session, rmcp matches a cancel to the request it names
//! within the session and cancels that request's token (`RequestContext::ct`). Served
//! statelessly, a cancel is a POST of its own, with no session to match it in, and it may
//! reach another instance than the one running the call. So:
//!
//! - a call served outside a session registers its token under its caller
//!   ([`Identity::key`](crate::Identity::key), the verified identity the HTTP edge attached)
//!   and its JSON-RPC request id, on its instance's bus, for as long as it runs;
//! - the HTTP edge hands each `notifications/cancelled` POST (outside a session) to the bus
//!   of the instance that got it, with the identity of its own bearer token: the bus cancels
//!   the matching calls of this instance and, when it spans instances (PostgreSQL), sends the
//!   cancel to the others, which cancel theirs;
//! - cancelling is cancelling the call's `ct`, the path every cancel takes: a call that has
//!   not started never starts, a read stops, a write that has not reached its run never
//!   runs, and a write that runs goes to its end and reports its outcome.
//!
//! A cancel from another caller, or for an id that runs nowhere, matches nothing.
//!
//! Without the feature `http` no call registers and nothing cancels: the bus is the inert
//! default every [`State`](crate::State) carries.
#![cfg_attr(not(feature = "http"), allow(dead_code))]

#[cfg(feature = "postgres")]
mod postgres;

use std::{
    collections::HashMap,
    fmt,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};

use rmcp::model::RequestId;
use tokio_util::sync::CancellationToken;

/// Where the calls of one instance that a client may cancel by a `notifications/cancelled`
/// POST are found (streamable HTTP served without sessions, [`crate::http`]), and how a
/// cancel reaches the other instances of a deployment.
///
/// - [`CancelBus::local`] (every [`State`](crate::State)'s default): this instance only.
///   Enough for one instance, or a SQLite deployment (one file, one host; give every server
///   of the process the same bus).
/// - [`SqlStores::cancel_bus`](crate::sql::SqlStores::cancel_bus) on PostgreSQL: every
///   instance on that database. Each bus listens on one PostgreSQL channel (`LISTEN`, one
///   connection of its own) and sends each cancel there (`pg_notify`); the payload names a
///   call by a hash of its caller and request id, never the identity itself.
///
/// Cheap to clone; clones are one bus. Hand it to the instance with
/// [`State::with_cancel_bus`](crate::State::with_cancel_bus).
#[derive(Clone, Default)]
pub struct CancelBus {
    inner: Arc<Bus>,
}

#[derive(Default)]
struct Bus {
    /// The calls running here, by their number on the bus: a registration and its end
    /// touch one entry and hash no name; a cancel, which is rare, looks through them all
    /// for its name (as many as run at once on this instance).
    running: Mutex<HashMap<u64, Running>>,
    next: AtomicU64,
    /// The other instances, if this bus reaches them.
    #[cfg(feature = "postgres")]
    remote: Option<postgres::PgRemote>,
}

impl CancelBus {
    /// A bus of this instance only: a cancel reaches the calls this instance runs.
    pub fn local() -> Self {
        Self::default()
    }

    /// A bus that spans every instance on the PostgreSQL database of `pool`
    /// ([`SqlStores::cancel_bus`](crate::sql::SqlStores::cancel_bus)).
    ///
    /// # Errors
    /// The listening connection cannot be opened.
    #[cfg(feature = "postgres")]
    pub(crate) async fn on_postgres(
        pool: &sqlx::AnyPool,
    ) -> Result<Self, crate::store::StoreError> {
        postgres::connect(pool).await
    }

    /// Whether a cancel sent to this bus reaches other instances too.
    pub fn spans_instances(&self) -> bool {
        #[cfg(feature = "postgres")]
        return self.inner.remote.is_some();
        #[cfg(not(feature = "postgres"))]
        false
    }

    /// Registers the call of `caller` (an [`Identity::key`](crate::Identity::key)) with
    /// JSON-RPC id `request`, cancelled by `token`, until the returned guard drops.
    pub(crate) fn register(
        &self,
        caller: &str,
        request: &RequestId,
        token: CancellationToken,
    ) -> Registered {
        let name = self.inner.name(caller, request);
        let number = self.inner.next.fetch_add(1, Ordering::Relaxed);
        self.inner.running().insert(number, Running { name, token });
        Registered {
            bus: Arc::downgrade(&self.inner),
            number,
        }
    }

    /// Cancels the calls of `caller` with id `request`: those of this instance at once,
    /// and, when the bus spans instances, those of the others (sent before this returns).
    pub(crate) async fn cancel(&self, caller: &str, request: &RequestId) {
        let name = self.inner.name(caller, request);
        let here = self.inner.cancel_local(&name);
        tracing::debug!(request = %request, here, "notifications/cancelled");
        #[cfg(feature = "postgres")]
        if let Some(remote) = &self.inner.remote {
            remote.send(&name).await;
        }
    }

    /// How many calls are registered (tests).
    #[cfg(test)]
    fn registered(&self) -> usize {
        self.inner.running().len()
    }
}

impl Bus {
    /// A call's key in `running`: on a bus that spans instances, [`call_hash`] (what the
    /// others send); on one that does not, the caller's key (length-prefixed) and the id as
    /// they are, a number after `#` and a string after `"`, with no hashing, unless the two
    /// are longer than [`Bus::PLAIN_NAME`] bytes (a client's string id may be as long as a
    /// body): then [`call_hash`] too.
    fn name(&self, caller: &str, request: &RequestId) -> String {
        #[cfg(feature = "postgres")]
        if self.remote.is_some() {
            return call_hash(caller, request);
        }
        // Written piece by piece (a `format!` costs more than the rest of a registration).
        let mut digits = itoa::Buffer::new();
        let (mark, id) = match request {
            RequestId::Number(number) if caller.len() <= Self::PLAIN_NAME => {
                ('#', digits.format(*number))
            }
            RequestId::String(text) if caller.len() + text.len() <= Self::PLAIN_NAME => {
                ('"', &**text)
            }
            _ => return call_hash(caller, request),
        };
        let mut length = itoa::Buffer::new();
        let length = length.format(caller.len());
        let mut name = String::with_capacity(length.len() + caller.len() + id.len() + 2);
        name.push_str(length);
        name.push(':');
        name.push_str(caller);
        name.push(mark);
        name.push_str(id);
        name
    }

    /// Bytes of a caller's key and request id a local bus names a call by as they are.
    const PLAIN_NAME: usize = 256;

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Cancels the calls registered under `name` here: how many.
    fn cancel_local(&self, name: &str) -> usize {
        let running = self.running();
        let mut cancelled = 0;
        for call in running.values().filter(|call| call.name == name) {
            call.token.cancel();
            cancelled += 1;
        }
        cancelled
    }
}

impl fmt::Debug for CancelBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CancelBus")
            .field("spans_instances", &self.spans_instances())
            .finish_non_exhaustive()
    }
}

/// A call running on a bus: its name and what cancels it.
struct Running {
    name: String,
    token: CancellationToken,
}

/// A call's place on its bus, given back when the call ends.
pub(crate) struct Registered {
    bus: std::sync::Weak<Bus>,
    number: u64,
}

impl Drop for Registered {
    fn drop(&mut self) {
        let Some(bus) = self.bus.upgrade() else {
            return;
        };
        // Dropped after the lock is released.
        let _call = bus.running().remove(&self.number);
    }
}

/// The name of a call on the bus: SHA-256 of its caller's key (length-prefixed) and its
/// request id as JSON (`1` and `"1"` differ), hex. What crosses instances: no identity in
/// the clear.
fn call_hash(caller: &str, request: &RequestId) -> String {
    use sha2::{Digest as _, Sha256};
    let id = serde_json::to_string(request).unwrap_or_default();
    let mut hasher = Sha256::new();
    hasher.update((caller.len() as u64).to_be_bytes());
    hasher.update(caller.as_bytes());
    hasher.update(id.as_bytes());
    crate::wire::text::hex(&hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_named_by_its_caller_and_its_exact_id() {
        let number = RequestId::Number(1);
        let text = RequestId::String("1".into());
        assert_ne!(call_hash("alice", &number), call_hash("alice", &text));
        assert_ne!(call_hash("alice", &number), call_hash("bob", &number));
        assert_eq!(call_hash("alice", &number), call_hash("alice", &number));
        assert_eq!(call_hash("alice", &number).len(), 64);
        // The name other instances read: lower-case hex of the digest, as it was written.
        use sha2::{Digest as _, Sha256};
        let mut hasher = Sha256::new();
        hasher.update(5u64.to_be_bytes());
        hasher.update(b"alice");
        hasher.update(b"1");
        let expected: String = hasher
            .finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        assert_eq!(call_hash("alice", &number), expected);
    }

    #[test]
    fn a_local_bus_names_each_call_apart_without_hashing() {
        let bus = Bus::default();
        let names = [
            bus.name("alice", &RequestId::Number(1)),
            bus.name("alice", &RequestId::String("1".into())),
            bus.name("bob", &RequestId::Number(1)),
            // A caller's key that ends as another's begins: the length keeps them apart.
            bus.name("al", &RequestId::String("ice\"1".into())),
            bus.name("alice#1", &RequestId::Number(1)),
        ];
        let distinct: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
        assert_eq!(names[0], "5:alice#1");
        assert_eq!(names[1], "5:alice\"1");
        assert_eq!(bus.name("alice", &RequestId::Number(-3)), "5:alice#-3");
        // A long id is named by its hash, not kept whole.
        let long = RequestId::String("x".repeat(10_000).into());
        assert_eq!(bus.name("alice", &long), call_hash("alice", &long));
    }

    #[tokio::test]
    async fn a_cancel_reaches_the_matching_calls_only_while_they_run() {
        let bus = CancelBus::local();
        let (mine, other, later) = (
            CancellationToken::new(),
            CancellationToken::new(),
            CancellationToken::new(),
        );
        let registered = bus.register("alice", &RequestId::Number(7), mine.clone());
        let _other = bus.register("bob", &RequestId::Number(7), other.clone());
        bus.cancel("alice", &RequestId::Number(8)).await;
        bus.cancel("bob", &RequestId::String("7".into())).await;
        assert!(!mine.is_cancelled() && !other.is_cancelled());
        bus.cancel("alice", &RequestId::Number(7)).await;
        assert!(mine.is_cancelled());
        assert!(!other.is_cancelled());
        drop(registered);
        assert_eq!(bus.registered(), 1);
        let _later = bus.register("alice", &RequestId::Number(9), later.clone());
        bus.cancel("alice", &RequestId::Number(7)).await;
        assert!(!later.is_cancelled());
    }
}
