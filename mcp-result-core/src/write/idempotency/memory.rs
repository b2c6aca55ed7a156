//! memory
use super::store::*;

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, SystemTime},
};

use serde_json::Value;
use tokio::sync::Notify;

use crate::store::StoreFuture;

#[derive(Debug)]
pub(super) enum State {
    Claimed { token: u64, lease_until: SystemTime },
    Started { token: u64, lease_until: SystemTime },
    Completed(Value),
}

/// The records and how many each caller holds (live or not yet purged), kept together so a
/// claim checks a caller's quota without a scan.
#[derive(Debug, Default)]
pub(super) struct Records {
    map: HashMap<KeyScope, Record>,
    held: HashMap<String, usize>,
}

impl Records {
    pub(super) fn len(&self) -> usize {
        self.map.len()
    }

    fn get(&self, scope: &KeyScope) -> Option<&Record> {
        self.map.get(scope)
    }

    fn get_mut(&mut self, scope: &KeyScope) -> Option<&mut Record> {
        self.map.get_mut(scope)
    }

    fn insert(&mut self, scope: &KeyScope, record: Record) {
        if self.map.insert(scope.clone(), record).is_none() {
            *self.held.entry(scope.caller.clone()).or_default() += 1;
        }
    }

    fn remove(&mut self, scope: &KeyScope) {
        if self.map.remove(scope).is_some() {
            self.forget(&scope.caller);
        }
    }

    fn forget(&mut self, caller: &str) {
        if let Some(held) = self.held.get_mut(caller) {
            *held -= 1;
            if *held == 0 {
                self.held.remove(caller);
            }
        }
    }

    /// Deletes the records expired at `now`.
    fn purge(&mut self, now: SystemTime) {
        let Records { map, held } = self;
        map.retain(|scope, record| {
            let live = record.expires > now;
            if !live {
                if let Some(count) = held.get_mut(&scope.caller) {
                    *count -= 1;
                }
            }
            live
        });
        held.retain(|_, count| *count > 0);
    }

    /// How many records `caller` holds (expired ones not yet purged included).
    fn held_by(&self, caller: &str) -> usize {
        self.held.get(caller).copied().unwrap_or(0)
    }
}

#[derive(Debug)]
pub(super) struct Record {
    fingerprint: String,
    state: State,
    expires: SystemTime,
}

/// The in-memory [`IdempotencyStore`]: one process. Records expire after their `ttl` and
/// are then forgotten: a claim deletes the expired ones whenever the store has doubled
/// since it last did (at least [`MEMORY_PURGE_FLOOR`] records), so memory stays within
/// twice what is live, and the live keys are bounded by [`KeyLimits`] (a new key past a
/// bound is [`Claim::Refused`]). Waiters are woken as soon as the running call completes.
#[derive(Debug, Default)]
pub struct MemoryIdempotencyStore {
    records: Mutex<Records>,
    next: std::sync::atomic::AtomicU64,
    completed: Notify,
    purge_at: std::sync::atomic::AtomicUsize,
    limits: KeyLimits,
}

/// How many live idempotency keys the in-memory store keeps: a new key past a bound is
/// refused (`policy_blocked`, status `blocked`: the write does not run) until older keys expire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyLimits {
    /// Live keys of one caller identity. Default 10,000 (a day of a write every 9 s).
    pub per_caller: usize,
    /// Live keys in all. Default 100,000 (a completed record holds its answer: at a few
    /// KB each, some hundreds of MB at most).
    pub total: usize,
}

impl Default for KeyLimits {
    fn default() -> Self {
        Self {
            per_caller: 10_000,
            total: 100_000,
        }
    }
}

/// The in-memory idempotency store deletes expired records once it holds this many (and
/// again each time it has doubled since).
pub const MEMORY_PURGE_FLOOR: usize = 1024;

impl MemoryIdempotencyStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store bounded by `limits`.
    pub fn with_limits(limits: KeyLimits) -> Self {
        Self {
            limits,
            ..Self::default()
        }
    }

    pub(super) fn records(&self) -> std::sync::MutexGuard<'_, Records> {
        self.records.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl IdempotencyStore for MemoryIdempotencyStore {
    fn claim<'a>(
        &'a self,
        scope: &'a KeyScope,
        fingerprints: &'a [String],
        lease: Duration,
        ttl: Duration,
    ) -> StoreFuture<'a, Claim> {
        Box::pin(async move {
            let now = SystemTime::now();
            let mut records = self.records();
            let purge_at = self.purge_at.load(std::sync::atomic::Ordering::Relaxed);
            if records.len() >= purge_at.max(MEMORY_PURGE_FLOOR) {
                records.purge(now);
                self.purge_at
                    .store(records.len() * 2, std::sync::atomic::Ordering::Relaxed);
            }
            let claim = |records: &mut Records| {
                let token = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                records.insert(
                    scope,
                    Record {
                        fingerprint: fingerprints[0].clone(),
                        state: State::Claimed {
                            token,
                            lease_until: now + lease,
                        },
                        expires: now + ttl,
                    },
                );
                Claim::Claimed(token)
            };
            let live = |record: Option<&Record>| record.is_some_and(|r| r.expires > now);
            if !live(records.get(scope)) {
                // A new key: within the bounds, counting only live keys.
                if records.len() >= self.limits.total {
                    records.purge(now);
                }
                if records.len() >= self.limits.total {
                    return Ok(Claim::Refused(format!(
                        "the idempotency store holds its limit of {} live keys",
                        self.limits.total
                    )));
                }
                // Counted, not scanned; at the bound, the expired records are purged first
                // so only live keys count.
                if records.held_by(&scope.caller) >= self.limits.per_caller {
                    records.purge(now);
                }
                let held = records.held_by(&scope.caller);
                if held >= self.limits.per_caller {
                    return Ok(Claim::Refused(format!(
                        "this caller holds {held} live idempotency keys, its limit"
                    )));
                }
                return Ok(claim(&mut records));
            }
            let Some(record) = records.get(scope) else {
                return Ok(claim(&mut records));
            };
            if !fingerprints.contains(&record.fingerprint) {
                return Ok(Claim::Conflict);
            }
            Ok(match &record.state {
                State::Completed(result) => Claim::Completed(result.clone()),
                State::Claimed { lease_until, .. } if *lease_until <= now => claim(&mut records),
                State::Claimed { .. } => Claim::InProgress,
                State::Started { lease_until, .. } if *lease_until <= now => Claim::Interrupted,
                State::Started { .. } => Claim::InProgress,
            })
        })
    }

    fn start<'a>(&'a self, scope: &'a KeyScope, token: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if let Some(record) = self.records().get_mut(scope) {
                if let State::Claimed {
                    token: held,
                    lease_until,
                } = record.state
                {
                    if held == token {
                        record.state = State::Started { token, lease_until };
                    }
                }
            }
            Ok(())
        })
    }

    fn complete<'a>(
        &'a self,
        scope: &'a KeyScope,
        token: u64,
        result: &'a Value,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if let Some(record) = self.records().get_mut(scope) {
                let held = match record.state {
                    State::Claimed { token, .. } | State::Started { token, .. } => Some(token),
                    State::Completed(_) => None,
                };
                if held == Some(token) {
                    record.state = State::Completed(result.clone());
                }
            }
            self.completed.notify_waiters();
            Ok(())
        })
    }

    fn release<'a>(&'a self, scope: &'a KeyScope, token: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut records = self.records();
            if matches!(
                records.get(scope),
                Some(Record { state: State::Claimed { token: held, .. } | State::Started { token: held, .. }, .. })
                    if *held == token
            ) {
                records.remove(scope);
            }
            drop(records);
            self.completed.notify_waiters();
            Ok(())
        })
    }

    fn wait<'a>(&'a self, scope: &'a KeyScope, limit: Duration) -> StoreFuture<'a, Option<Value>> {
        Box::pin(async move {
            let deadline = tokio::time::Instant::now() + limit;
            loop {
                let notified = self.completed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if let Some(result) = self.peek(scope).await? {
                    return Ok(Some(result));
                }
                if tokio::time::timeout_at(deadline, notified).await.is_err() {
                    return self.peek(scope).await;
                }
            }
        })
    }

    fn peek<'a>(&'a self, scope: &'a KeyScope) -> StoreFuture<'a, Option<Value>> {
        Box::pin(async move {
            Ok(match self.records().get(scope) {
                Some(Record {
                    state: State::Completed(result),
                    expires,
                    ..
                }) if *expires > SystemTime::now() => Some(result.clone()),
                _ => None,
            })
        })
    }

    /// `false`: this process's memory.
    fn durable(&self) -> bool {
        false
    }
}
