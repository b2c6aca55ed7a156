//! The in-memory store's own tests.

use serde_json::json;

use super::*;

use crate::store::clock::unix_now;

#[test]
fn approval_texts_show_arguments_never_secrets() {
    let args = json!({"ticketId": "T-1\nx", "amount": 12.5, "token": "s3cret"});
    let text = approval_text(
        "Refund {amount} on {ticketId} with {token}",
        "refund",
        &args,
        |p| p == "/token",
    );
    // A control character shows as its code point (a line break or a tab is no warning).
    assert_eq!(text, "Refund 12.5 on T-1[U+000A]x with [secret]");
    // A long array says how many items it has.
    let items: Vec<String> = (0..40).map(|n| format!("entity-{n}")).collect();
    let text = approval_text(
        "",
        "delete_entities",
        &json!({"entityNames": items}),
        |_| false,
    );
    assert!(
        text.starts_with(r#"Run `delete_entities`: entityNames: ["entity-0","entity-1","#)
            && text.ends_with(&format!(
                "… (40 items, {} characters)",
                serde_json::to_string(&items).unwrap().len()
            )),
        "{text}"
    );
    assert_eq!(
        placeholders("Close {ticketId} ({reason})"),
        ["ticketId", "reason"]
    );
}

#[tokio::test]
async fn an_approval_runs_one_write_with_its_arguments() {
    let store = MemoryApprovals::default();
    let request = ApprovalRequest {
        id: "r-1".into(),
        tool: "close".into(),
        text: "Close T-1".into(),
        caller: "local".into(),
        fingerprints: vec!["fp".into()],
        expires_at: unix_now() + 60,
        decision: Decision::Pending,
        review: None,
    };
    store.create(&request).await.unwrap();
    let fp = vec!["fp".to_owned()];
    assert_eq!(
        store.consume("r-1", "local", &fp).await.unwrap(),
        Err(Refusal::Pending)
    );
    let approval = store.approve("r-1", "alice").unwrap();
    assert_eq!(
        store
            .consume("r-1", "local", &["other".to_owned()])
            .await
            .unwrap(),
        Err(Refusal::OtherArguments)
    );
    assert_eq!(
        store.consume("r-1", "local", &fp).await.unwrap(),
        Ok((approval, "alice".to_owned()))
    );
    assert_eq!(
        store.consume("r-1", "local", &fp).await.unwrap(),
        Err(Refusal::Used)
    );
    let mut old = request.clone();
    old.id = "r-2".into();
    old.expires_at = 0;
    store.create(&old).await.unwrap();
    assert_eq!(store.approve("r-2", "alice"), Err(Refusal::Expired));
}

/// The state of a 2026-07-28 approval round opens (giving its nonce and how it asked) only
/// for the caller, tool and arguments it was sealed for, under the key that sealed it.
#[cfg(feature = "elicitation")]
#[test]
fn a_sealed_round_opens_only_for_its_caller_tool_and_arguments() {
    use super::gate::{open_state, seal_state, Mode};
    use crate::store::key::ServerKey;
    let key = ServerKey::new("a server key that is long enough to be used", []).unwrap();
    let other = ServerKey::new("another server key, also long enough to use", []).unwrap();
    let fp = ["fp-1".to_owned()];
    let state = seal_state(&key, "n-1", "acme:alice", "close_ticket", &fp, Mode::Form);
    assert_eq!(
        open_state(&key, &state, "acme:alice", "close_ticket", &fp),
        Some(("n-1".to_owned(), Mode::Form))
    );
    // A URL-mode round's state says so: its answer is never read as a form's.
    let url = seal_state(&key, "r-1", "acme:alice", "close_ticket", &fp, Mode::Url);
    assert_eq!(
        open_state(&key, &url, "acme:alice", "close_ticket", &fp),
        Some(("r-1".to_owned(), Mode::Url))
    );
    let opens = |key: &ServerKey, caller: &str, tool: &str, fp: &[String]| {
        open_state(key, &state, caller, tool, fp).is_some()
    };
    assert!(!opens(&key, "globex:bob", "close_ticket", &fp));
    assert!(!opens(&key, "acme:alice", "delete_ticket", &fp));
    assert!(!opens(
        &key,
        "acme:alice",
        "close_ticket",
        &["fp-2".to_owned()]
    ));
    assert!(!opens(&other, "acme:alice", "close_ticket", &fp));
}

#[tokio::test]
async fn another_callers_approval_id_names_nothing() {
    let store = MemoryApprovals::default();
    let request = ApprovalRequest {
        id: "r-2".into(),
        tool: "close_ticket".into(),
        text: "Close T-2".into(),
        caller: "acme:alice".into(),
        fingerprints: vec!["fp".into()],
        expires_at: unix_now() + 60,
        decision: Decision::Pending,
        review: None,
    };
    store.create(&request).await.unwrap();
    store.approve("r-2", "carol").unwrap();
    let fp = ["fp".to_owned()];
    assert_eq!(
        store.consume("r-2", "globex:bob", &fp).await.unwrap(),
        Err(Refusal::Unknown)
    );
    // Still there, unused, for the caller who asked.
    assert!(store
        .consume("r-2", "acme:alice", &fp)
        .await
        .unwrap()
        .is_ok());
}

#[tokio::test]
async fn expired_requests_are_purged_once_the_store_has_grown() {
    let store = MemoryApprovals::default();
    let request = |id: String, expires_at: u64| ApprovalRequest {
        id,
        tool: "close_ticket".into(),
        text: "Close T-1".into(),
        caller: "local".into(),
        fingerprints: vec!["fp".into()],
        expires_at,
        decision: Decision::Pending,
        review: None,
    };
    let floor = crate::write::idempotency::MEMORY_PURGE_FLOOR;
    for i in 0..floor {
        store.create(&request(format!("old-{i}"), 1)).await.unwrap();
    }
    // Below the floor nothing is purged: an expired request is still there, and expired.
    assert!(store.get("old-0").await.unwrap().is_some());
    let live = request("live".into(), unix_now() + 60);
    store.create(&live).await.unwrap();
    assert_eq!(store.get("old-0").await.unwrap(), None);
    assert_eq!(
        store.get(&format!("old-{}", floor - 1)).await.unwrap(),
        None
    );
    assert_eq!(store.get("live").await.unwrap(), Some(live));
}
