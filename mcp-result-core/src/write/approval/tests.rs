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
    assert_eq!(text, "Refund 12.5 on T-1\\nx with [secret]");
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
    };
    store.create(&request).await.unwrap();
    let fp = vec!["fp".to_owned()];
    assert_eq!(
        store.consume("r-1", &fp).await.unwrap(),
        Err(Refusal::Pending)
    );
    let approval = store.approve("r-1", "alice").unwrap();
    assert_eq!(
        store.consume("r-1", &["other".to_owned()]).await.unwrap(),
        Err(Refusal::OtherArguments)
    );
    assert_eq!(
        store.consume("r-1", &fp).await.unwrap(),
        Ok((approval, "alice".to_owned()))
    );
    assert_eq!(store.consume("r-1", &fp).await.unwrap(), Err(Refusal::Used));
    let mut old = request.clone();
    old.id = "r-2".into();
    old.expires_at = 0;
    store.create(&old).await.unwrap();
    assert_eq!(store.approve("r-2", "alice"), Err(Refusal::Expired));
}
