//! One suite for every store: the idempotency, approval, artifact and task stores behave alike in
//! memory, in SQLite (a temporary file) and in PostgreSQL (a throwaway database,
//! `common::postgres`); the SQL stores also keep their promises across a reopening and keep
//! an append-only audit log. Each behaviour is one generic async fn below, run once per
//! store by `suite!` at the bottom.

use crate::common;

use std::{
    path::PathBuf,
    sync::Arc,
    time::{Duration, SystemTime},
};

use mcp_result::{
    approval::{ApprovalRequest, ApprovalStore, Decision, MemoryApprovals, Refusal},
    audit::{AuditRecord, AuditSink, Phase},
    idempotency::{Claim, IdempotencyStore, KeyScope, MemoryIdempotencyStore},
    sql::{Dialect, SqlStores},
    store::{
        ArtifactContent, ArtifactLimits, ArtifactRefusal, ArtifactStore, MemoryStore,
        StoredArtifact,
    },
    task::{MemoryTasks, TaskRecord, TaskState, TaskStore},
    ErrorKind, Status,
};
use serde_json::{json, Value};

use common::postgres::TestDatabase;

const LEASE: Duration = Duration::from_secs(60);
const TTL: Duration = Duration::from_secs(24 * 60 * 60);
/// A lease or ttl that passes within a test, in every store's clock resolution, yet outlasts
/// the few statements a test makes before it means to see it lapse, on a loaded 2-core
/// machine too (150 ms did not: a claim, a start and a claim on PostgreSQL took longer).
const SHORT: Duration = Duration::from_millis(600);

/// The stores under test, and for a SQL one what it lives in.
struct Store {
    idempotency: Arc<dyn IdempotencyStore>,
    approvals: Arc<dyn ApprovalStore>,
    tasks: Arc<dyn TaskStore>,
    sql: Option<Sql>,
}

struct Sql {
    stores: SqlStores,
    url: String,
    _place: Place,
}

/// Removed when the test ends.
enum Place {
    Directory(PathBuf),
    /// Dropped (with the database) when the test ends.
    Postgres {
        _database: TestDatabase,
    },
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Place::Directory(dir) = self {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Store {
    async fn memory() -> Self {
        Store {
            idempotency: Arc::new(MemoryIdempotencyStore::new()),
            approvals: Arc::new(MemoryApprovals::default()),
            tasks: Arc::new(MemoryTasks::default()),
            sql: None,
        }
    }

    async fn sqlite() -> Self {
        let dir = std::env::temp_dir().join(format!(
            "mcp-result-stores-{}-{}",
            std::process::id(),
            uuid_like()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite:{}", dir.join("stores.db").display());
        Self::over(url, Place::Directory(dir)).await
    }

    async fn postgres() -> Self {
        let db = TestDatabase::create().await;
        let url = db.url().to_owned();
        Self::over(url, Place::Postgres { _database: db }).await
    }

    async fn over(url: String, place: Place) -> Self {
        let stores = SqlStores::connect(&url).await.expect("connect and migrate");
        Store {
            idempotency: Arc::new(stores.idempotency()),
            approvals: Arc::new(stores.approvals()),
            tasks: Arc::new(stores.tasks()),
            sql: Some(Sql {
                stores,
                url,
                _place: place,
            }),
        }
    }

    fn artifacts(&self, limits: ArtifactLimits) -> Arc<dyn ArtifactStore> {
        match &self.sql {
            Some(sql) => Arc::new(sql.stores.artifacts(limits)),
            None => Arc::new(MemoryStore::with_limits(limits)),
        }
    }

    fn sql(&self) -> &Sql {
        self.sql.as_ref().expect("a SQL store")
    }
}

impl Sql {
    /// The same database through a new pool, as after a restart or on another instance.
    async fn reopen(&self) -> SqlStores {
        SqlStores::connect(&self.url).await.expect("reconnect")
    }
}

fn uuid_like() -> String {
    format!(
        "{:x}",
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    )
}

fn scope(key: &str) -> KeyScope {
    KeyScope {
        tool: "add_note".into(),
        caller: "alice".into(),
        key: key.into(),
    }
}

fn fp(text: &str) -> Vec<String> {
    vec![text.to_owned()]
}

fn result(id: &str) -> Value {
    json!({"content": [], "structuredContent": {"noteId": id}, "isError": false})
}

// ---------------------------------------------------------------------------------------
// Idempotency

async fn one_claim_wins_among_100_concurrent_claims(store: Store) {
    let k = scope("k-race");
    let claims = futures::future::join_all((0..100).map(|_| {
        let idempotency = store.idempotency.clone();
        let k = k.clone();
        tokio::spawn(async move { idempotency.claim(&k, &fp("a"), LEASE, TTL).await })
    }))
    .await;
    let claims: Vec<Claim> = claims.into_iter().map(|c| c.unwrap().unwrap()).collect();
    let won: Vec<u64> = claims
        .iter()
        .filter_map(|c| match c {
            Claim::Claimed(token) => Some(*token),
            _ => None,
        })
        .collect();
    assert_eq!(won.len(), 1, "exactly one claim wins: {claims:?}");
    assert!(
        claims
            .iter()
            .all(|c| matches!(c, Claim::Claimed(_) | Claim::InProgress)),
        "the others see it in progress: {claims:?}"
    );
    store.idempotency.start(&k, won[0]).await.unwrap();
    store
        .idempotency
        .complete(&k, won[0], &result("n-1"))
        .await
        .unwrap();
    assert_eq!(
        store
            .idempotency
            .claim(&k, &fp("a"), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Completed(result("n-1"))
    );
}

/// The audit records a sink was given, in order (the memory stores' log).
#[derive(Default)]
struct Collected(std::sync::Mutex<Vec<AuditRecord>>);

impl AuditSink for Collected {
    fn record<'a>(&'a self, record: &'a AuditRecord) -> mcp_result::store::StoreFuture<'a, ()> {
        self.0.lock().unwrap().push(record.clone());
        Box::pin(async { Ok(()) })
    }
}

/// A sink that cannot record.
struct Down;

impl AuditSink for Down {
    fn record<'a>(&'a self, _: &'a AuditRecord) -> mcp_result::store::StoreFuture<'a, ()> {
        Box::pin(async {
            Err(mcp_result::store::StoreError::Invalid(
                "the audit log is down".into(),
            ))
        })
    }
}

/// A write's two units: the claim started with its intent, then the answer stored with its
/// outcome (one transaction each when the audit log is the SQL stores' own). Among 20
/// concurrent writes one claims, and one intent is recorded; a sink that cannot record the
/// intent leaves nothing claimed.
async fn a_write_claims_with_its_intent_and_completes_with_its_outcome(store: Store) {
    let collected = Arc::new(Collected::default());
    let sink: Arc<dyn AuditSink> = match &store.sql {
        Some(sql) => Arc::new(sql.stores.audit()),
        None => collected.clone(),
    };
    let intent = record("e-1", Phase::Intent, "2026-01-01T00:00:00.000Z");
    let outcome = record("e-1", Phase::Outcome, "2026-01-01T00:00:01.000Z");
    let k = scope("k-units");
    let claims = futures::future::join_all((0..20).map(|_| {
        let (idempotency, sink, k, intent) = (
            store.idempotency.clone(),
            sink.clone(),
            k.clone(),
            intent.clone(),
        );
        tokio::spawn(async move {
            idempotency
                .claim_started(&k, &fp("a"), (LEASE, TTL), sink.as_ref(), &intent)
                .await
        })
    }))
    .await;
    let claims: Vec<Claim> = claims.into_iter().map(|c| c.unwrap().unwrap()).collect();
    let won: Vec<u64> = claims
        .iter()
        .filter_map(|c| match c {
            Claim::Claimed(token) => Some(*token),
            _ => None,
        })
        .collect();
    assert_eq!(won.len(), 1, "exactly one claim wins: {claims:?}");
    // Started: a claim after its lease would find it interrupted, never retake it.
    assert_eq!(
        store
            .idempotency
            .claim(&k, &fp("a"), LEASE, TTL)
            .await
            .unwrap(),
        Claim::InProgress
    );
    store
        .idempotency
        .complete_recorded(&k, won[0], &result("n-1"), sink.as_ref(), &outcome)
        .await
        .unwrap();
    assert_eq!(
        store.idempotency.peek(&k).await.unwrap(),
        Some(result("n-1"))
    );
    let records = match &store.sql {
        Some(sql) => sql.stores.audit().records_for("e-1").await.unwrap(),
        None => collected.0.lock().unwrap().clone(),
    };
    assert_eq!(records, [intent.clone(), outcome]);
    // The intent cannot be recorded: nothing stays claimed, the next write claims.
    let k = scope("k-down");
    let refused = store
        .idempotency
        .claim_started(&k, &fp("a"), (LEASE, TTL), &Down, &intent)
        .await;
    assert_eq!(
        refused.map_err(|e| e.to_string()),
        Err("the audit log is down".to_owned())
    );
    assert!(matches!(
        store
            .idempotency
            .claim(&k, &fp("a"), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Claimed(_)
    ));
}

/// A caller past its quota of live keys is refused a new one (the write does not run), with
/// the same words on every store; another caller, and the caller's own keys, are not.
async fn a_caller_past_its_key_quota_is_refused(store: Store) {
    let limits = mcp_result::idempotency::KeyLimits {
        per_caller: 3,
        total: 100,
    };
    let idempotency: Arc<dyn IdempotencyStore> = match &store.sql {
        Some(sql) => Arc::new(sql.stores.idempotency().with_limits(limits)),
        None => Arc::new(MemoryIdempotencyStore::with_limits(limits)),
    };
    for i in 0..3 {
        let claim = idempotency
            .claim(&scope(&format!("q-{i}")), &fp("a"), LEASE, TTL)
            .await
            .unwrap();
        assert!(matches!(claim, Claim::Claimed(_)), "{i}: {claim:?}");
    }
    assert_eq!(
        idempotency
            .claim(&scope("q-3"), &fp("a"), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Refused("this caller holds 3 live idempotency keys, its limit".into())
    );
    // A key the caller holds is still answered as before.
    assert_eq!(
        idempotency
            .claim(&scope("q-0"), &fp("a"), LEASE, TTL)
            .await
            .unwrap(),
        Claim::InProgress
    );
    let mut other = scope("q-3");
    other.caller = "bob".into();
    assert!(matches!(
        idempotency
            .claim(&other, &fp("a"), LEASE, TTL)
            .await
            .unwrap(),
        Claim::Claimed(_)
    ));
}

async fn a_completed_call_is_replayed_and_other_arguments_conflict(store: Store) {
    let s = &store.idempotency;
    let k = scope("k-replay");
    let Claim::Claimed(token) = s.claim(&k, &fp("a"), LEASE, TTL).await.unwrap() else {
        panic!("first claim wins")
    };
    assert_eq!(
        s.claim(&k, &fp("a"), LEASE, TTL).await.unwrap(),
        Claim::InProgress
    );
    assert_eq!(
        s.claim(&k, &fp("b"), LEASE, TTL).await.unwrap(),
        Claim::Conflict
    );
    assert_eq!(s.peek(&k).await.unwrap(), None);
    s.start(&k, token).await.unwrap();
    let waiter = s.wait(&k, Duration::from_secs(10));
    let (waited, ()) = tokio::join!(waiter, async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        s.complete(&k, token, &result("n-2")).await.unwrap();
    });
    assert_eq!(waited.unwrap(), Some(result("n-2")));
    assert_eq!(s.peek(&k).await.unwrap(), Some(result("n-2")));
    // The same arguments, also under a rotated server key's fingerprint list.
    for fingerprints in [fp("a"), vec!["new".to_owned(), "a".to_owned()]] {
        assert_eq!(
            s.claim(&k, &fingerprints, LEASE, TTL).await.unwrap(),
            Claim::Completed(result("n-2"))
        );
    }
    assert_eq!(
        s.claim(&k, &fp("b"), LEASE, TTL).await.unwrap(),
        Claim::Conflict
    );
    // Another caller's or another tool's key is another key.
    let mut other = k.clone();
    other.caller = "bob".into();
    assert!(matches!(
        s.claim(&other, &fp("b"), LEASE, TTL).await.unwrap(),
        Claim::Claimed(_)
    ));
}

async fn a_started_call_whose_holder_died_is_interrupted(store: Store) {
    let s = &store.idempotency;
    let k = scope("k-died");
    let Claim::Claimed(token) = s.claim(&k, &fp("a"), SHORT, TTL).await.unwrap() else {
        panic!()
    };
    s.start(&k, token).await.unwrap();
    assert_eq!(
        s.claim(&k, &fp("a"), SHORT, TTL).await.unwrap(),
        Claim::InProgress
    );
    tokio::time::sleep(SHORT * 2).await;
    for _ in 0..2 {
        assert_eq!(
            s.claim(&k, &fp("a"), SHORT, TTL).await.unwrap(),
            Claim::Interrupted
        );
    }
    assert_eq!(
        s.claim(&k, &fp("b"), SHORT, TTL).await.unwrap(),
        Claim::Conflict
    );
}

async fn an_expired_claim_that_never_started_is_retaken(store: Store) {
    let s = &store.idempotency;
    let k = scope("k-retake");
    let Claim::Claimed(old) = s.claim(&k, &fp("a"), SHORT, TTL).await.unwrap() else {
        panic!()
    };
    tokio::time::sleep(SHORT * 2).await;
    // Other arguments never take it over.
    assert_eq!(
        s.claim(&k, &fp("b"), SHORT, TTL).await.unwrap(),
        Claim::Conflict
    );
    let Claim::Claimed(new) = s.claim(&k, &fp("a"), LEASE, TTL).await.unwrap() else {
        panic!("an expired claim that never started is claimed again")
    };
    assert_ne!(old, new);
    // The first holder's late result does not land.
    s.complete(&k, old, &result("late")).await.unwrap();
    assert_eq!(s.peek(&k).await.unwrap(), None);
    s.start(&k, new).await.unwrap();
    s.complete(&k, new, &result("n-3")).await.unwrap();
    assert_eq!(
        s.claim(&k, &fp("a"), LEASE, TTL).await.unwrap(),
        Claim::Completed(result("n-3"))
    );
    // A released claim (refused before it ran) is free again at once.
    let k2 = scope("k-release");
    let Claim::Claimed(token) = s.claim(&k2, &fp("a"), LEASE, TTL).await.unwrap() else {
        panic!()
    };
    s.release(&k2, token).await.unwrap();
    assert!(matches!(
        s.claim(&k2, &fp("b"), LEASE, TTL).await.unwrap(),
        Claim::Claimed(_)
    ));
}

async fn an_expired_record_is_forgotten(store: Store) {
    let s = &store.idempotency;
    let k = scope("k-ttl");
    let Claim::Claimed(token) = s.claim(&k, &fp("a"), LEASE, SHORT).await.unwrap() else {
        panic!()
    };
    s.start(&k, token).await.unwrap();
    s.complete(&k, token, &result("n-4")).await.unwrap();
    assert_eq!(s.peek(&k).await.unwrap(), Some(result("n-4")));
    tokio::time::sleep(SHORT * 2).await;
    assert_eq!(s.peek(&k).await.unwrap(), None);
    assert!(matches!(
        s.claim(&k, &fp("b"), LEASE, TTL).await.unwrap(),
        Claim::Claimed(_)
    ));
}

async fn completed_results_survive_reopening(store: Store) {
    let s = &store.idempotency;
    let (done, died) = (scope("k-done"), scope("k-died"));
    let Claim::Claimed(token) = s.claim(&done, &fp("a"), LEASE, TTL).await.unwrap() else {
        panic!()
    };
    s.start(&done, token).await.unwrap();
    s.complete(&done, token, &result("n-5")).await.unwrap();
    let Claim::Claimed(token) = s.claim(&died, &fp("a"), SHORT, TTL).await.unwrap() else {
        panic!()
    };
    s.start(&died, token).await.unwrap();
    store.sql().stores.close().await;
    tokio::time::sleep(SHORT * 2).await;
    let reopened = store.sql().reopen().await.idempotency();
    assert_eq!(
        reopened.claim(&done, &fp("a"), LEASE, TTL).await.unwrap(),
        Claim::Completed(result("n-5"))
    );
    assert_eq!(
        reopened.claim(&died, &fp("a"), LEASE, TTL).await.unwrap(),
        Claim::Interrupted
    );
}

// ---------------------------------------------------------------------------------------
// Approvals

fn request(id: &str, expires_in: i64) -> ApprovalRequest {
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    ApprovalRequest {
        id: id.into(),
        tool: "close_ticket".into(),
        text: "Close T-1".into(),
        caller: "alice".into(),
        fingerprints: vec!["fp-1".into(), "fp-2".into()],
        expires_at: (now + expires_in) as u64,
        decision: Decision::Pending,
        review: None,
    }
}

fn approve(approval_id: &str) -> Decision {
    Decision::Approved {
        approval_id: approval_id.into(),
        approver: "carol".into(),
    }
}

/// One caller has at most `PENDING_PER_CALLER` pending requests: the next is refused with the
/// same words on every store, another caller's is not, and a decided request frees a place.
async fn pending_approvals_are_bounded_per_caller(store: Store) {
    use mcp_result::approval::PENDING_PER_CALLER;
    let a = &store.approvals;
    futures::future::try_join_all((0..PENDING_PER_CALLER).map(|i| {
        let a = a.clone();
        async move { a.create(&request(&format!("p-{i}"), 3600)).await }
    }))
    .await
    .unwrap();
    let refused = a.create(&request("p-over", 3600)).await.unwrap_err();
    assert!(
        matches!(&refused, mcp_result::store::StoreError::Refused(_)),
        "{refused:?}"
    );
    assert_eq!(
        refused.to_string(),
        format!("this caller has {PENDING_PER_CALLER} pending approval requests, its limit")
    );
    let mut bob = request("p-bob", 3600);
    bob.caller = "bob".into();
    a.create(&bob).await.unwrap();
    a.decide("p-0", approve("ap-0")).await.unwrap().unwrap();
    a.create(&request("p-over", 3600)).await.unwrap();
}

async fn an_approval_is_used_exactly_once_under_concurrency(store: Store) {
    let a = &store.approvals;
    // One value: two calls of `request` a second apart would differ in `expires_at`.
    let first = request("r-1", 3600);
    a.create(&first).await.unwrap();
    assert_eq!(a.get("r-1").await.unwrap(), Some(first));
    assert_eq!(
        a.consume("r-1", "alice", &fp("fp-1")).await.unwrap(),
        Err(Refusal::Pending)
    );
    let decided = a.decide("r-1", approve("ap-1")).await.unwrap().unwrap();
    assert_eq!(decided.decision, approve("ap-1"));
    assert_eq!(
        a.decide("r-1", approve("ap-2")).await.unwrap(),
        Err(Refusal::Used),
        "a decided request is decided once"
    );
    assert_eq!(
        a.consume("r-1", "alice", &fp("other")).await.unwrap(),
        Err(Refusal::OtherArguments)
    );
    assert_eq!(
        a.consume("r-1", "mallory", &fp("fp-2")).await.unwrap(),
        Err(Refusal::Unknown),
        "another caller's approval id names nothing"
    );
    let uses = futures::future::join_all((0..50).map(|_| {
        let a = a.clone();
        tokio::spawn(async move { a.consume("r-1", "alice", &fp("fp-2")).await })
    }))
    .await;
    let uses: Vec<_> = uses.into_iter().map(|u| u.unwrap().unwrap()).collect();
    let granted: Vec<_> = uses.iter().filter(|u| u.is_ok()).collect();
    assert_eq!(granted, [&Ok(("ap-1".to_owned(), "carol".to_owned()))]);
    assert!(uses.iter().all(|u| u.is_ok() || *u == Err(Refusal::Used)));
    assert!(matches!(
        a.get("r-1").await.unwrap().unwrap().decision,
        Decision::Used { .. }
    ));

    a.create(&request("r-2", 3600)).await.unwrap();
    let rejected = Decision::Rejected {
        approver: "carol".into(),
        reason: "not today".into(),
    };
    a.decide("r-2", rejected).await.unwrap().unwrap();
    assert_eq!(
        a.consume("r-2", "alice", &fp("fp-1")).await.unwrap(),
        Err(Refusal::Rejected("not today".into()))
    );
    assert_eq!(
        a.consume("r-9", "alice", &fp("fp-1")).await.unwrap(),
        Err(Refusal::Unknown)
    );
    assert_eq!(
        a.decide("r-9", approve("ap-9")).await.unwrap(),
        Err(Refusal::Unknown)
    );
}

/// The approvals page's listing (`ApprovalStore::pending`): one tenant's undecided,
/// unexpired requests that carry a review (a sign-in link's record and an input-required
/// round's have none), in id order, at most `limit`; a tenant's prefix never matches
/// another tenant whose name starts the same, and `None` lists the callers of no tenant.
async fn the_pending_listing_is_one_tenants_reviewed_undecided_requests(store: Store) {
    use mcp_result::approval::Review;
    let a = &store.approvals;
    let reviewed = |id: &str, caller: &str, expires_in: i64| {
        let mut r = request(id, expires_in);
        r.caller = caller.into();
        r.review = Some(Review::of(&json!({"ticketId": id}), |_| false));
        r
    };
    for r in [
        reviewed("q-3", "acme:alice", 3600),
        reviewed("q-1", "acme:bob", 3600),
        reviewed("q-2", "acme:alice", 3600),
        reviewed("q-decided", "acme:alice", 3600),
        reviewed("q-short", "acme:alice", 1),
        reviewed("q-other", "acmeco:alice", 3600),
        reviewed("q-colon", "ac%3Ame:alice", 3600),
        reviewed("q-none", "alice", 3600),
        request("q-unreviewed", 3600),
    ] {
        a.create(&r).await.unwrap();
    }
    let mut unreviewed = request("q-acme-unreviewed", 3600);
    unreviewed.caller = "acme:alice".into();
    a.create(&unreviewed).await.unwrap();
    a.decide("q-decided", approve("ap-q"))
        .await
        .unwrap()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let ids = |listed: Vec<ApprovalRequest>| listed.into_iter().map(|r| r.id).collect::<Vec<_>>();
    let acme = a.pending(Some("acme"), 200).await.unwrap();
    assert_eq!(
        acme.first()
            .and_then(|r| r.review.as_ref())
            .map(|r| &r.arguments),
        Some(&json!({"ticketId": "q-1"})),
        "a listed request keeps its review"
    );
    assert_eq!(ids(acme), ["q-1", "q-2", "q-3"]);
    assert_eq!(
        ids(a.pending(Some("acme"), 2).await.unwrap()),
        ["q-1", "q-2"]
    );
    assert_eq!(
        ids(a.pending(Some("acmeco"), 200).await.unwrap()),
        ["q-other"]
    );
    assert_eq!(
        ids(a.pending(Some("ac:me"), 200).await.unwrap()),
        ["q-colon"]
    );
    assert_eq!(ids(a.pending(None, 200).await.unwrap()), ["q-none"]);
    assert!(a.pending(Some("globex"), 200).await.unwrap().is_empty());
}

async fn an_expired_approval_is_refused(store: Store) {
    let a = &store.approvals;
    // Expiry is in whole seconds: 2 s from now is 1 to 2 s away.
    a.create(&request("r-old", 2)).await.unwrap();
    a.decide("r-old", approve("ap-old")).await.unwrap().unwrap();
    a.create(&request("r-undecided", 2)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(
        a.consume("r-old", "alice", &fp("fp-1")).await.unwrap(),
        Err(Refusal::Expired)
    );
    assert_eq!(
        a.decide("r-undecided", approve("ap-late")).await.unwrap(),
        Err(Refusal::Expired)
    );
    assert_eq!(
        a.consume("r-undecided", "alice", &fp("fp-1"))
            .await
            .unwrap(),
        Err(Refusal::Expired)
    );
}

// ---------------------------------------------------------------------------------------
// Artifacts

fn artifact(owner: &str, content: ArtifactContent) -> StoredArtifact {
    StoredArtifact {
        uri: mcp_result::store::new_artifact_uri(),
        name: "report.csv".into(),
        mime_type: "text/csv".into(),
        owner: owner.into(),
        content,
        expires_at: 0,
    }
}

fn text(owner: &str, bytes: usize) -> StoredArtifact {
    artifact(owner, ArtifactContent::Text("x".repeat(bytes)))
}

fn limits() -> ArtifactLimits {
    ArtifactLimits {
        per_owner_bytes: 100,
        max_artifacts_per_owner: 3,
        total_bytes: 150,
        ttl: Duration::from_secs(3600),
    }
}

async fn artifacts_past_a_bound_are_refused_whole(store: Store) {
    let s = store.artifacts(limits());
    let blob = artifact("alice", ArtifactContent::Blob(vec![0, 159, 146, 150]));
    let first = text("alice", 56);
    s.put(&[first.clone(), blob.clone()])
        .await
        .unwrap()
        .unwrap();
    let got = s.get(&blob.uri).await.unwrap().expect("stored");
    assert_eq!(
        (got.content, got.owner),
        (blob.content.clone(), blob.owner.clone())
    );
    assert!(got.expires_at > 0);
    assert_eq!(
        s.get(&first.uri).await.unwrap().unwrap().content,
        first.content
    );

    // 60 held; two of 30 would make 120 > 100: neither is stored.
    let (a, b) = (text("alice", 30), text("alice", 30));
    assert_eq!(
        s.put(&[a.clone(), b.clone()]).await.unwrap(),
        Err(ArtifactRefusal::OwnerQuota {
            limit: 100,
            used: 60,
            requested: 60,
            unit: "bytes"
        })
    );
    assert_eq!(s.get(&a.uri).await.unwrap(), None);
    assert_eq!(s.get(&b.uri).await.unwrap(), None);
    // The count quota: 2 held, 2 more would make 4 > 3.
    assert!(matches!(
        s.put(&[text("alice", 1), text("alice", 1)]).await.unwrap(),
        Err(ArtifactRefusal::OwnerQuota {
            unit: "artifacts",
            ..
        })
    ));
    // Another owner has its own quota, but the total is shared: 60 + 90 = 150 fits, 1 more
    // does not.
    s.put(&[text("bob", 90)]).await.unwrap().unwrap();
    let late = text("carol", 1);
    assert_eq!(
        s.put(std::slice::from_ref(&late)).await.unwrap(),
        Err(ArtifactRefusal::TotalCap { limit: 150 })
    );
    assert_eq!(s.get(&late.uri).await.unwrap(), None);
}

async fn concurrent_puts_never_pass_a_quota(store: Store) {
    let s = store.artifacts(limits());
    let puts = futures::future::join_all((0..10).map(|_| {
        let s = s.clone();
        tokio::spawn(async move { s.put(&[text("alice", 60)]).await })
    }))
    .await;
    let stored = puts
        .into_iter()
        .filter(|p| matches!(p, Ok(Ok(Ok(())))))
        .count();
    assert_eq!(stored, 1, "one 60-byte put fits a 100-byte quota");
}

async fn artifacts_expire_and_free_their_quota(store: Store) {
    // Expiry is in whole seconds: a ttl of 2 s lasts 1 to 2 s.
    let s = store.artifacts(ArtifactLimits {
        ttl: Duration::from_secs(2),
        ..limits()
    });
    let old = text("alice", 100);
    s.put(std::slice::from_ref(&old)).await.unwrap().unwrap();
    assert!(s.get(&old.uri).await.unwrap().is_some());
    assert!(s.put(&[text("alice", 1)]).await.unwrap().is_err());
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(s.get(&old.uri).await.unwrap(), None);
    s.put(&[text("alice", 100)]).await.unwrap().unwrap();
}

// ---------------------------------------------------------------------------------------
// The audit log (SQL)

fn record(event: &str, phase: Phase, time: &str) -> AuditRecord {
    let mut record = AuditRecord::intent(
        event.into(),
        "close_ticket",
        "alice".into(),
        None,
        "digest".into(),
    );
    record.phase = phase;
    record.time = time.into();
    if phase == Phase::Outcome {
        record.status = Some(Status::Succeeded);
    }
    record
}

async fn the_audit_log_is_append_only(store: Store) {
    let sql = store.sql();
    let log = sql.stores.audit();
    let intent = record("e-1", Phase::Intent, "2026-01-01T00:00:00.000Z");
    let outcome = record("e-1", Phase::Outcome, "2026-01-01T00:00:01.000Z");
    log.record(&intent).await.unwrap();
    log.record(&outcome).await.unwrap();
    log.record(&record("e-2", Phase::Intent, "2026-01-01T00:00:02.000Z"))
        .await
        .unwrap();
    assert_eq!(log.records_for("e-1").await.unwrap(), [intent, outcome]);
    for statement in [
        "UPDATE mcp_result_audit SET record = '{}'",
        "DELETE FROM mcp_result_audit",
    ] {
        let refused = sqlx_execute(&sql.stores, statement).await;
        let error = refused.expect_err(statement);
        assert!(error.contains("append-only"), "{statement}: {error}");
    }
    if sql.stores.dialect() == Dialect::Postgres {
        let error = sqlx_execute(&sql.stores, "TRUNCATE mcp_result_audit")
            .await
            .expect_err("TRUNCATE");
        assert!(error.contains("append-only"), "{error}");
    }
    assert_eq!(log.records().await.unwrap().len(), 3);
}

async fn an_approval_requests_records_are_found_by_its_id(store: Store) {
    let log = store.sql().stores.audit();
    let about = |event: &str, phase, request: Option<&str>| {
        let mut record = record(event, phase, "2026-01-01T00:00:00.000Z");
        record.approval_request_id = request.map(str::to_owned);
        record
    };
    let blocked = about("e-1", Phase::Outcome, Some("r-1"));
    let approved = about("e-2", Phase::Approved, Some("r-1"));
    let intent = about("e-3", Phase::Intent, Some("r-1"));
    let outcome = about("e-3", Phase::Outcome, Some("r-1"));
    for record in [
        &blocked,
        &about("e-4", Phase::Outcome, Some("r-2")),
        &approved,
        &about("e-5", Phase::Intent, None),
        &intent,
        &outcome,
    ] {
        log.record(record).await.unwrap();
    }
    assert_eq!(
        log.approval_records("r-1", 10).await.unwrap(),
        Some(vec![blocked.clone(), approved, intent, outcome])
    );
    assert_eq!(
        log.approval_records("r-1", 1).await.unwrap(),
        Some(vec![blocked]),
        "the first `limit`"
    );
    assert_eq!(log.approval_records("r-3", 10).await.unwrap(), Some(vec![]));
    // The store's own statement is answered from the index (migration 20261216000001), not
    // by a scan of the log.
    use mcp_result::sql::sqlx::{Connection as _, Row as _};
    let stores = &store.sql().stores;
    let mut connection = stores.pool().acquire().await.unwrap();
    let mut tx = connection.begin().await.unwrap();
    let explain = match stores.dialect() {
        Dialect::Sqlite => "EXPLAIN QUERY PLAN ",
        Dialect::Postgres => {
            // Six rows: the planner would rather scan them; the question is whether it can
            // use the index. Local to this transaction, which rolls back.
            mcp_result::sql::sqlx::query("SET LOCAL enable_seqscan = off")
                .execute(&mut *tx)
                .await
                .unwrap();
            "EXPLAIN "
        }
    };
    let rows =
        mcp_result::sql::sqlx::query(&format!("{explain}{}", mcp_result::sql::APPROVAL_RECORDS))
            .bind("r-1")
            .bind(10_i64)
            .fetch_all(&mut *tx)
            .await
            .unwrap();
    let column = match stores.dialect() {
        Dialect::Sqlite => 3,
        Dialect::Postgres => 0,
    };
    let plan: Vec<String> = rows
        .iter()
        .map(|row| row.try_get::<String, _>(column).unwrap())
        .collect();
    tx.rollback().await.unwrap();
    assert!(
        plan.iter()
            .any(|line| line.contains("mcp_result_audit_approval_request")),
        "{plan:#?}"
    );
}

async fn sqlx_execute(stores: &SqlStores, statement: &str) -> Result<u64, String> {
    mcp_result::sql::sqlx::query(statement)
        .execute(stores.pool())
        .await
        .map(|done| done.rows_affected())
        .map_err(|e| e.to_string())
}

async fn archive_before_writes_then_deletes_exactly_the_older_records(store: Store) {
    let log = store.sql().stores.audit();
    let old = [
        record("e-old", Phase::Intent, "2025-01-01T00:00:00.000Z"),
        record("e-old", Phase::Outcome, "2025-01-01T00:00:01.000Z"),
    ];
    let new = record("e-new", Phase::Intent, "2026-06-01T00:00:00.000Z");
    for r in old.iter().chain([&new]) {
        log.record(r).await.unwrap();
    }
    let cutoff = SystemTime::UNIX_EPOCH + Duration::from_secs(1_767_225_600); // 2026-01-01
    let mut archive = Vec::new();
    assert_eq!(log.archive_before(cutoff, &mut archive).await.unwrap(), 2);
    let lines: Vec<AuditRecord> = String::from_utf8(archive)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines, old);
    assert_eq!(log.records().await.unwrap(), std::slice::from_ref(&new));
    let mut again = Vec::new();
    assert_eq!(log.archive_before(cutoff, &mut again).await.unwrap(), 0);
    assert!(again.is_empty());

    // A writer that fails: nothing is deleted.
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let later = SystemTime::UNIX_EPOCH + Duration::from_secs(1_798_761_600); // 2027-01-01
    assert!(log.archive_before(later, &mut Broken).await.is_err());
    assert_eq!(log.records().await.unwrap(), [new]);
}

async fn dangling_intents_get_one_unknown_outcome(store: Store) {
    let log = store.sql().stores.audit();
    let long_ago = "2025-01-01T00:00:00.000Z";
    log.record(&record("e-dangling", Phase::Intent, long_ago))
        .await
        .unwrap();
    log.record(&record("e-done", Phase::Intent, long_ago))
        .await
        .unwrap();
    log.record(&record("e-done", Phase::Outcome, long_ago))
        .await
        .unwrap();
    let running = AuditRecord::intent("e-running".into(), "t", "alice".into(), None, "d".into());
    log.record(&running).await.unwrap();
    // Two instances recovering at once write one outcome.
    let other = store.sql().reopen().await.audit();
    let hour = Duration::from_secs(3600);
    let (a, b) = tokio::join!(log.recover_dangling(hour), other.recover_dangling(hour));
    assert_eq!(a.unwrap() + b.unwrap(), 1);
    let records = log.records_for("e-dangling").await.unwrap();
    assert_eq!(records.len(), 2);
    assert_eq!(records[1].phase, Phase::Outcome);
    assert_eq!(records[1].status, Some(Status::Unknown));
    assert_eq!(records[1].error_kind, Some(ErrorKind::OutcomeUnknown));
    assert_eq!(log.recover_dangling(hour).await.unwrap(), 0);
    assert_eq!(log.records_for("e-running").await.unwrap().len(), 1);
}

// ---------------------------------------------------------------------------------------

/// One `#[tokio::test]` per behaviour and store: `memory::…`, `sqlite::…`, `postgres::…`.
// ---------------------------------------------------------------------------------------
// Tasks

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// A new working task of `caller`, readable for `ttl_ms`.
fn task(caller: &str, ttl_ms: u64) -> TaskRecord {
    let now = now_ms();
    serde_json::from_value(json!({
        "id": uuid_like(),
        "caller": caller,
        "tool": "export",
        "arguments": {"body": "a\u{0}b"},
        "meta": {},
        "state": {"status": "working"},
        "createdMs": now,
        "updatedMs": now,
        "ttlMs": ttl_ms,
        "cancelRequested": false,
        "runner": "instance-1",
        "leaseUntilMs": now + 8_000,
        "attempts": 1,
        "rerunnable": true,
        "version": 1,
    }))
    .unwrap()
}

/// A task is read back as stored (arguments holding U+0000 too), and a caller holds at
/// most its bound: the next is refused whole, another caller's is not.
async fn tasks_are_stored_whole_and_bounded_per_caller(store: Store) {
    let first = task("alice", 60_000);
    store.tasks.create(&first, 2).await.unwrap();
    assert_eq!(
        store.tasks.get(&first.id).await.unwrap(),
        Some(first.clone())
    );
    store.tasks.create(&task("alice", 60_000), 2).await.unwrap();
    let refused = store.tasks.create(&task("alice", 60_000), 2).await;
    assert_eq!(
        refused.unwrap_err().to_string(),
        "this caller holds 2 tasks, its limit"
    );
    store.tasks.create(&task("bob", 60_000), 2).await.unwrap();
    assert_eq!(store.tasks.get("no-such-task").await.unwrap(), None);
}

/// Of 20 concurrent changes of one version of a task, exactly one lands; the others read
/// it again.
async fn one_change_of_a_task_wins_among_20(store: Store) {
    let stored = task("alice", 60_000);
    store.tasks.create(&stored, 100).await.unwrap();
    let mut changes = Vec::new();
    for n in 0..20 {
        let tasks = store.tasks.clone();
        let mut changed = stored.clone();
        changed.version += 1;
        changed.state = TaskState::Completed {
            result: json!({"content": [], "n": n}),
        };
        changes.push(tokio::spawn(async move {
            tasks.replace(&changed).await.unwrap()
        }));
    }
    let mut landed = 0;
    for change in changes {
        landed += usize::from(change.await.unwrap());
    }
    assert_eq!(landed, 1);
    let read = store.tasks.get(&stored.id).await.unwrap().unwrap();
    assert_eq!(read.version, 2);
    assert!(matches!(read.state, TaskState::Completed { .. }));
    // A change of a version no longer stored does not land.
    let mut stale = stored.clone();
    stale.version = 2;
    assert!(!store.tasks.replace(&stale).await.unwrap());
}

/// An expired task is gone: not read, not changed, and no longer counted in its caller's
/// bound.
async fn an_expired_task_is_forgotten_and_frees_its_place(store: Store) {
    let short = task("alice", SHORT.as_millis() as u64);
    store.tasks.create(&short, 1).await.unwrap();
    tokio::time::sleep(SHORT * 2).await;
    assert_eq!(store.tasks.get(&short.id).await.unwrap(), None);
    let mut changed = short.clone();
    changed.version += 1;
    assert!(!store.tasks.replace(&changed).await.unwrap());
    store.tasks.create(&task("alice", 60_000), 1).await.unwrap();
}

macro_rules! suite {
    (every store: [$($all:ident),* $(,)?], sql: [$($sql:ident),* $(,)?]) => {
        mod memory {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $all() {
                    super::$all(super::Store::memory().await).await;
                }
            )*
        }
        suite!(@sql sqlite, [$($all),*, $($sql),*]);
        suite!(@sql postgres, [$($all),*, $($sql),*]);
    };
    (@sql $store:ident, [$($test:ident),*]) => {
        mod $store {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $test() {
                    super::$test(super::Store::$store().await).await;
                }
            )*
        }
    };
}

suite!(
    every store: [
        one_claim_wins_among_100_concurrent_claims,
        a_write_claims_with_its_intent_and_completes_with_its_outcome,
        a_caller_past_its_key_quota_is_refused,
        pending_approvals_are_bounded_per_caller,
        a_completed_call_is_replayed_and_other_arguments_conflict,
        a_started_call_whose_holder_died_is_interrupted,
        an_expired_claim_that_never_started_is_retaken,
        an_expired_record_is_forgotten,
        an_approval_is_used_exactly_once_under_concurrency,
        an_expired_approval_is_refused,
        the_pending_listing_is_one_tenants_reviewed_undecided_requests,
        artifacts_past_a_bound_are_refused_whole,
        concurrent_puts_never_pass_a_quota,
        artifacts_expire_and_free_their_quota,
        tasks_are_stored_whole_and_bounded_per_caller,
        one_change_of_a_task_wins_among_20,
        an_expired_task_is_forgotten_and_frees_its_place,
    ],
    sql: [
        completed_results_survive_reopening,
        the_audit_log_is_append_only,
        an_approval_requests_records_are_found_by_its_id,
        archive_before_writes_then_deletes_exactly_the_older_records,
        dangling_intents_get_one_unknown_outcome,
    ]
);
