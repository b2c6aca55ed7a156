//! Ending approvers' sessions of the approvals page server-side, in the approval store, so
//! that every instance sharing the store refuses them: one session at its sign-out, or
//! every session of one identity ([`revoke_sessions`], the `approvals revoke` command).
//!
//! A session is a cookie sealed with the server key, which no instance can take back; so
//! each session carries a random id and its identity's *revocation count* at sign-in, and
//! every request of the page looks in the store for a record ending it: its own sign-out's,
//! or a revocation of its identity made since it signed in.

use sha2::Digest as _;

use crate::{
    store::{clock::unix_now, StoreError},
    wire::identity::Identity,
    write::approval::{ApprovalRequest, ApprovalStore, Decision},
};

/// The tool name of a revocation record in the approval store: no tool has a `/` in its
/// name, so no request of a call is one.
const REVOKED_TOOL: &str = "mcp-result/approvals-revoked";

/// How long a revocation record is kept: longer than any session lives.
const KEPT_SECS: u64 = 10 * 365 * 24 * 60 * 60;

/// How many revocations of one identity are counted at most (a bound on the walk).
const MAX_REVOCATIONS: u64 = 10_000;

fn digest(text: &str) -> String {
    crate::wire::text::hex(&sha2::Sha256::digest(text.as_bytes()))
}

/// The store id of the `n`th revocation of `identity`'s sessions.
fn identity_record(identity: &str, n: u64) -> String {
    format!("revoked-identity:{}:{n}", digest(identity))
}

/// The store id of session `sid`'s sign-out.
#[cfg_attr(not(feature = "approvals-page"), allow(dead_code))]
fn session_record(sid: &str) -> String {
    format!("revoked-session:{}", digest(sid))
}

/// A revocation record: decided already (`rejected`), so it is never pending, never listed
/// and never counted against a caller's pending requests.
fn record(id: String, caller: &str, reason: &str) -> ApprovalRequest {
    ApprovalRequest {
        id,
        tool: REVOKED_TOOL.to_owned(),
        text: reason.to_owned(),
        caller: caller.to_owned(),
        fingerprints: Vec::new(),
        expires_at: unix_now() + KEPT_SECS,
        decision: Decision::Rejected {
            approver: caller.to_owned(),
            reason: reason.to_owned(),
        },
        review: None,
    }
}

/// How many times `identity`'s sessions were revoked so far (what a session signed in now
/// carries, [`sessions_ended`]).
///
/// # Errors
/// The store failed.
pub async fn revocations(
    store: &dyn ApprovalStore,
    identity: &Identity,
) -> Result<u64, StoreError> {
    let key = identity.key();
    let mut n = 0;
    while n < MAX_REVOCATIONS && store.get(&identity_record(&key, n + 1)).await?.is_some() {
        n += 1;
    }
    Ok(n)
}

/// Ends every session of the approvals page that `identity` holds now, on every instance
/// whose approval store is `store` (feature `approvals-page`; the `approvals revoke WHO`
/// command, [`run_command`](super::run_command)): their next request is answered `401`,
/// and signing in again works as before. Returns how many revocations of that identity
/// there were, this one included.
///
/// # Errors
/// The store failed.
pub async fn revoke_sessions(
    store: &dyn ApprovalStore,
    identity: &Identity,
) -> Result<u64, StoreError> {
    let key = identity.key();
    // Two revocations at once: the second one's record exists already; count again.
    for _ in 0..8 {
        let n = revocations(store, identity).await? + 1;
        let id = identity_record(&key, n);
        match store
            .create(&record(id.clone(), &key, "sessions revoked"))
            .await
        {
            Ok(()) => return Ok(n),
            Err(_) if store.get(&id).await?.is_some() => continue,
            Err(error) => return Err(error),
        }
    }
    Err(StoreError::Invalid(
        "the sessions' revocation kept meeting another: try again".to_owned(),
    ))
}

/// Ends the one session `sid` of `identity` (its sign-out), on every instance sharing
/// `store`.
///
/// # Errors
/// The store failed.
#[cfg_attr(not(feature = "approvals-page"), allow(dead_code))]
pub(crate) async fn end_session(
    store: &dyn ApprovalStore,
    identity: &Identity,
    sid: &str,
) -> Result<(), StoreError> {
    let id = session_record(sid);
    match store
        .create(&record(id.clone(), &identity.key(), "signed out"))
        .await
    {
        Ok(()) => Ok(()),
        Err(_) if store.get(&id).await?.is_some() => Ok(()),
        Err(error) => Err(error),
    }
}

/// Whether session `sid` of `identity`, signed in after `revoked` revocations of its
/// identity, was ended since: signed out, or its identity's sessions revoked.
///
/// # Errors
/// The store failed.
#[cfg_attr(not(feature = "approvals-page"), allow(dead_code))]
pub(crate) async fn sessions_ended(
    store: &dyn ApprovalStore,
    identity: &Identity,
    sid: &str,
    revoked: u64,
) -> Result<bool, StoreError> {
    if store.get(&session_record(sid)).await?.is_some() {
        return Ok(true);
    }
    Ok(store
        .get(&identity_record(&identity.key(), revoked + 1))
        .await?
        .is_some())
}
