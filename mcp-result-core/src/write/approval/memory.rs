//! The in-memory approval store.
use super::request::*;

use std::{
    collections::HashMap,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
};

use crate::{
    store::{clock::unix_now, StoreError, StoreFuture},
    write::idempotency::MEMORY_PURGE_FLOOR,
};

/// The in-memory [`ApprovalStore`]: one process. Clones share it: keep a clone of the one you
/// hand a [`State`](crate::State) to approve requests out of band.
///
/// Expired requests are deleted when a new one is created and the store has doubled since
/// it last did (at least [`MEMORY_PURGE_FLOOR`] requests), as the SQL store's purge does:
/// an expired request answers [`Refusal::Expired`] until then, [`Refusal::Unknown`] after,
/// and memory stays within twice what is live.
#[derive(Debug, Default, Clone)]
pub struct MemoryApprovals {
    requests: Arc<Mutex<HashMap<String, ApprovalRequest>>>,
    /// How many requests the store held after its last purge.
    purged_at: Arc<AtomicUsize>,
}

impl MemoryApprovals {
    /// `approver` approves request `id` (out of band: an admin API, a CLI).
    ///
    /// # Errors
    /// Why the request cannot be approved (unknown, decided, expired).
    pub fn approve(&self, id: &str, approver: &str) -> Result<String, Refusal> {
        let approval_id = uuid::Uuid::now_v7().to_string();
        self.decide_now(
            id,
            Decision::Approved {
                approval_id: approval_id.clone(),
                approver: approver.to_owned(),
            },
        )
        .map(|_| approval_id)
    }

    /// `approver` rejects request `id` for `reason`.
    ///
    /// # Errors
    /// Why the request cannot be rejected.
    pub fn reject(&self, id: &str, approver: &str, reason: &str) -> Result<(), Refusal> {
        self.decide_now(
            id,
            Decision::Rejected {
                approver: approver.to_owned(),
                reason: reason.to_owned(),
            },
        )
        .map(|_| ())
    }

    fn decide_now(&self, id: &str, decision: Decision) -> Result<ApprovalRequest, Refusal> {
        let mut requests = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        let request = requests.get_mut(id).ok_or(Refusal::Unknown)?;
        if request.expired() {
            return Err(Refusal::Expired);
        }
        if request.decision != Decision::Pending {
            return Err(Refusal::Used);
        }
        request.decision = decision;
        Ok(request.clone())
    }
}

impl ApprovalStore for MemoryApprovals {
    fn create<'a>(&'a self, request: &'a ApprovalRequest) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut requests = self
                .requests
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let bound = MEMORY_PURGE_FLOOR.max(2 * self.purged_at.load(Ordering::Relaxed));
            if requests.len() >= bound {
                let now = unix_now();
                requests.retain(|_, request| request.expires_at > now);
                self.purged_at.store(requests.len(), Ordering::Relaxed);
            }
            let now = unix_now();
            let pending = requests
                .values()
                .filter(|held| {
                    held.caller == request.caller
                        && held.expires_at > now
                        && matches!(held.decision, Decision::Pending)
                })
                .take(PENDING_PER_CALLER)
                .count();
            if pending >= PENDING_PER_CALLER {
                return Err(StoreError::Refused(format!(
                    "this caller has {pending} pending approval requests, its limit"
                )));
            }
            requests.insert(request.id.clone(), request.clone());
            Ok(())
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ApprovalRequest>> {
        Box::pin(async move {
            Ok(self
                .requests
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(id)
                .cloned())
        })
    }

    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
    ) -> StoreFuture<'a, Result<ApprovalRequest, Refusal>> {
        Box::pin(async move { Ok(self.decide_now(id, decision)) })
    }

    fn pending<'a>(
        &'a self,
        tenant: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Vec<ApprovalRequest>> {
        Box::pin(async move {
            let now = unix_now();
            let mut pending: Vec<ApprovalRequest> = self
                .requests
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .values()
                .filter(|request| {
                    request.review.is_some()
                        && request.decision == Decision::Pending
                        && request.expires_at > now
                        && in_tenant(&request.caller, tenant)
                })
                .cloned()
                .collect();
            pending.sort_by(|a, b| a.id.cmp(&b.id));
            pending.truncate(limit);
            Ok(pending)
        })
    }

    fn consume<'a>(
        &'a self,
        id: &'a str,
        caller: &'a str,
        fingerprints: &'a [String],
    ) -> StoreFuture<'a, Result<(String, String), Refusal>> {
        Box::pin(async move {
            let mut requests = self
                .requests
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let Some(request) = requests.get_mut(id) else {
                return Ok(Err(Refusal::Unknown));
            };
            let (approval_id, approver) = match request.usable_by(caller, fingerprints) {
                Ok((id, approver)) => (id.to_owned(), approver.to_owned()),
                Err(refusal) => return Ok(Err(refusal)),
            };
            request.decision = Decision::Used {
                approval_id: approval_id.clone(),
                approver: approver.clone(),
            };
            Ok(Ok((approval_id, approver)))
        })
    }

    /// `false`: this process's memory.
    fn durable(&self) -> bool {
        false
    }
}
