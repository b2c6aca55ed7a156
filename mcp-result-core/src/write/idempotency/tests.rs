//! The in-memory store's own tests.

use std::time::Duration;

use crate::{schema::arguments::ArgumentSchema, store::key::ServerKey};
use serde_json::json;

use super::*;

fn scope(key: &str) -> KeyScope {
    KeyScope {
        tool: "add_note".into(),
        caller: "process".into(),
        key: key.into(),
    }
}

#[tokio::test]
async fn one_claim_wins_and_the_rest_replay_or_conflict() {
    let store = MemoryIdempotencyStore::new();
    let k = scope("k1");
    let fp = vec!["a".to_owned()];
    let other = vec!["b".to_owned()];
    let lease = Duration::from_secs(60);
    let Claim::Claimed(token) = store.claim(&k, &fp, lease, DEFAULT_TTL).await.unwrap() else {
        panic!("first claim wins")
    };
    assert_eq!(
        store.claim(&k, &fp, lease, DEFAULT_TTL).await.unwrap(),
        Claim::InProgress
    );
    assert_eq!(
        store.claim(&k, &other, lease, DEFAULT_TTL).await.unwrap(),
        Claim::Conflict
    );
    store.start(&k, token).await.unwrap();
    let waiter = store.wait(&k, Duration::from_secs(5));
    let result = json!({"structuredContent": {"noteId": "n-1"}});
    let (waited, ()) = tokio::join!(waiter, async {
        tokio::time::sleep(Duration::from_millis(20)).await;
        store.complete(&k, token, &result).await.unwrap();
    });
    assert_eq!(waited.unwrap(), Some(result.clone()));
    assert_eq!(
        store.claim(&k, &fp, lease, DEFAULT_TTL).await.unwrap(),
        Claim::Completed(result)
    );
}

#[tokio::test]
async fn an_expired_claim_is_retaken_only_if_it_never_started() {
    let store = MemoryIdempotencyStore::new();
    let fp = vec!["a".to_owned()];
    let short = Duration::from_millis(1);
    let (never, started) = (scope("never"), scope("started"));
    assert!(matches!(
        store.claim(&never, &fp, short, DEFAULT_TTL).await.unwrap(),
        Claim::Claimed(_)
    ));
    let Claim::Claimed(token) = store
        .claim(&started, &fp, short, DEFAULT_TTL)
        .await
        .unwrap()
    else {
        panic!()
    };
    store.start(&started, token).await.unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert!(matches!(
        store.claim(&never, &fp, short, DEFAULT_TTL).await.unwrap(),
        Claim::Claimed(_)
    ));
    assert_eq!(
        store
            .claim(&started, &fp, short, DEFAULT_TTL)
            .await
            .unwrap(),
        Claim::Interrupted
    );
}

#[tokio::test]
async fn expired_records_are_forgotten_once_the_store_has_grown() {
    let store = MemoryIdempotencyStore::new();
    let fp = vec!["a".to_owned()];
    let short = Duration::from_millis(1);
    for i in 0..MEMORY_PURGE_FLOOR {
        let k = scope(&format!("k{i}"));
        store.claim(&k, &fp, short, short).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(5)).await;
    store
        .claim(&scope("last"), &fp, DEFAULT_TTL, DEFAULT_TTL)
        .await
        .unwrap();
    assert_eq!(store.records().len(), 1);
}

#[test]
fn fingerprints_normalize_numbers_and_hide_secrets() {
    let schema = ArgumentSchema::new(json!({"type": "object", "properties": {
        "rows": {"type": "integer"}, "token": {"type": "string", "writeOnly": true}}}))
    .unwrap();
    let key = ServerKey::new("a server key of at least thirty-two bytes", []).unwrap();
    let a = fingerprints(
        "t",
        &json!({"rows": 100000.0, "token": "s3cret"}),
        &schema,
        &key,
    );
    let b = fingerprints(
        "t",
        &json!({"token": "s3cret", "rows": 100000}),
        &schema,
        &key,
    );
    let c = fingerprints(
        "t",
        &json!({"token": "other", "rows": 100000}),
        &schema,
        &key,
    );
    let d = fingerprints(
        "u",
        &json!({"token": "s3cret", "rows": 100000}),
        &schema,
        &key,
    );
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_ne!(a, d);
    assert_eq!(a[0].len(), 64);
    assert!(check_key("order-42").is_ok());
    assert!(check_key("").is_err());
    assert!(check_key("a\nb").is_err());
    assert!(check_key(&"x".repeat(256)).is_err());
}

#[test]
fn a_fingerprint_is_made_from_the_argument_digest() {
    use sha2::{Digest as _, Sha256};
    let plain = ArgumentSchema::new(json!({"type": "object"})).unwrap();
    let key = ServerKey::new("a server key of at least thirty-two bytes", []).unwrap();
    // A 1 MiB argument: hashed once, the fingerprint from the digest's 32 bytes.
    let arguments = json!({"ticketId": "T-1001", "body": "a".repeat(1 << 20)});
    let (digest, fingerprints) =
        digest_and_fingerprints("add_note", &arguments, &plain, Some(&key));
    let canonical = format!(
        r#"{{"body":"{}","ticketId":"T-1001"}}"#,
        "a".repeat(1 << 20)
    );
    let inner = Sha256::digest(canonical.as_bytes());
    assert_eq!(digest, crate::wire::text::hex(&inner));
    let mut outer = b"add_note\0".to_vec();
    outer.extend_from_slice(&inner);
    assert_eq!(
        fingerprints,
        vec![crate::wire::text::hex(&Sha256::digest(&outer))]
    );
}

#[test]
fn one_canonical_writing_gives_the_digest_and_fingerprints_of_both_functions() {
    let plain = ArgumentSchema::new(json!({"type": "object", "properties": {
        "rows": {"type": "integer"}, "body": {"type": "string"}}}))
    .unwrap();
    let secret = ArgumentSchema::new(json!({"type": "object", "properties": {
        "rows": {"type": "integer"}, "token": {"type": "string", "writeOnly": true}}}))
    .unwrap();
    let one = ServerKey::new("a server key of at least thirty-two bytes", []).unwrap();
    let two = ServerKey::new(
        "a server key of at least thirty-two bytes",
        ["an older server key of thirty-two bytes!"],
    )
    .unwrap();
    let samples = [
        (&plain, json!({"rows": 100000, "body": "Checked the logs."})),
        (&plain, json!({"body": "x".repeat(70_000), "rows": -3})),
        (
            &plain,
            json!({"body": "a \"quote\", a \\ and a\nline é \u{2028}"}),
        ),
        (
            &plain,
            json!({"rows": 100000.0, "body": "a float goes the other way"}),
        ),
        (
            &plain,
            json!({"ünï": 1, "body": [1, {"b": null, "a": true}]}),
        ),
        (&secret, json!({"rows": 1, "token": "s3cret"})),
    ];
    for (schema, arguments) in samples {
        for key in [&one, &two] {
            let (digest, fingerprints) =
                digest_and_fingerprints("add_note", &arguments, schema, Some(key));
            assert_eq!(
                digest,
                crate::write::audit::argument_digest(&arguments, schema),
                "{arguments}"
            );
            assert_eq!(
                fingerprints,
                super::fingerprints("add_note", &arguments, schema, key),
                "{arguments}"
            );
        }
        let (digest, none) = digest_and_fingerprints("add_note", &arguments, schema, None);
        assert_eq!(
            digest,
            crate::write::audit::argument_digest(&arguments, schema)
        );
        assert!(none.is_empty());
    }
}
