//! Paging's own tests: summaries, lifetimes, cursors.

use std::time::Duration;

use base64::Engine as _;
use serde_json::{json, Map, Value};

use crate::store::{clock::now_ms, key::ServerKey};

use super::{cursor::*, page::*, policy::*};

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!(),
    }
}

#[test]
fn summaries_say_which_slice_and_how_to_continue() {
    let items = |n: usize| Value::Array(vec![json!(1); n]);
    let cases = [
        (
            json!({"items": items(50), "offset": 50, "nextCursor": "AbC", "totalEstimate": 5000}),
            "Showing 51–100 of about 5,000; call again with the same arguments and cursor \
             \"AbC\" to continue.",
        ),
        (
            json!({"items": items(2), "offset": 0, "nextCursor": "x"}),
            "Showing 1–2; call again with the same arguments and cursor \"x\" to continue.",
        ),
        (
            json!({"items": items(20), "offset": 100, "totalEstimate": 130}),
            "Showing 101–120 of 120; this is the last page.",
        ),
        (json!({"items": [], "offset": 0}), "No items."),
        (
            json!({"items": [], "offset": 1200}),
            "No more items after 1,200; this is the last page.",
        ),
        (
            json!({"items": [], "offset": 4, "nextCursor": "y"}),
            "No items on this page (4 shown before); call again with the same arguments \
             and cursor \"y\" to continue.",
        ),
    ];
    for (page, summary) in cases {
        assert_eq!(render_summary(&object(page)), summary);
    }
    assert_eq!(thousands(1_234_567), "1,234,567");
    assert_eq!(thousands(999), "999");
}

#[test]
fn lifetimes_read_as_words() {
    assert_eq!(lifetime_words(Duration::from_secs(86400)), "24 hours");
    assert_eq!(lifetime_words(Duration::from_secs(3600)), "1 hour");
    assert_eq!(lifetime_words(Duration::from_secs(90)), "90 seconds");
    assert_eq!(lifetime_words(Duration::from_millis(5)), "5 ms");
}

#[test]
fn a_cursor_opens_only_for_its_tool_caller_arguments_and_time() {
    let key = ServerKey::new("a server key that is long enough to be used", []).unwrap();
    let fingerprints = vec!["f-1".to_owned()];
    let key = std::sync::Arc::new(key);
    let seal = Seal::new(&key, "search", "alice", &fingerprints);
    // Sealed under the process key, so open with it too.
    let global = ServerKey::global_shared();
    let seal_global = Seal::new(global, "search", "alice", &fingerprints);
    let (cursor, _) = seal_global.cursor(&42usize, 7, Duration::from_secs(60));
    let now = now_ms();
    let opened = seal_global
        .open(global, &cursor, "alice", &fingerprints, now)
        .ok()
        .unwrap();
    assert_eq!(opened.offset, 7);
    assert_eq!(
        serde_json::from_slice::<usize>(&opened.position).unwrap(),
        42
    );
    let problem = |seal: &Seal, key: &ServerKey, cursor: &str, caller: &str, f: &[String], at| {
        seal.open(key, cursor, caller, f, at).err()
    };
    assert_eq!(
        problem(&seal, &key, &cursor, "alice", &fingerprints, now),
        Some(Problem::Altered),
        "another server key"
    );
    let other_tool = Seal::new(global, "list", "alice", &fingerprints);
    assert_eq!(
        problem(&other_tool, global, &cursor, "alice", &fingerprints, now),
        Some(Problem::OtherTool)
    );
    assert_eq!(
        problem(&seal_global, global, &cursor, "bob", &fingerprints, now),
        Some(Problem::OtherCaller)
    );
    assert_eq!(
        problem(
            &seal_global,
            global,
            &cursor,
            "alice",
            &["f-2".to_owned()],
            now
        ),
        Some(Problem::OtherArguments)
    );
    assert_eq!(
        problem(
            &seal_global,
            global,
            &cursor,
            "alice",
            &fingerprints,
            now + 63_000
        ),
        Some(Problem::Expired)
    );
    // Expiry is rounded up to a 24th of the lifetime (2.5 s here): valid for at least the
    // lifetime, at most a step longer.
    assert_eq!(
        problem(
            &seal_global,
            global,
            &cursor,
            "alice",
            &fingerprints,
            now + 59_999
        ),
        None
    );
    // The same position, shown count and binding: the same cursor (a client's loop guard
    // sees the repeat); another position: another cursor.
    let day = Duration::from_secs(24 * 3600);
    let (first, _) = seal_global.cursor(&42usize, 7, day);
    let (again, _) = seal_global.cursor(&42usize, 7, day);
    let (other, _) = seal_global.cursor(&43usize, 7, day);
    assert_eq!(first, again);
    assert_ne!(first, other);
    assert_eq!(
        problem(
            &seal_global,
            global,
            "not a cursor",
            "alice",
            &fingerprints,
            now
        ),
        Some(Problem::Malformed)
    );
    let long = "A".repeat(MAX_CURSOR_CHARS + 1);
    assert_eq!(
        problem(&seal_global, global, &long, "alice", &fingerprints, now),
        Some(Problem::TooLong(MAX_CURSOR_CHARS + 1))
    );
    // Every single flipped bit is caught.
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(&cursor)
        .unwrap();
    for bit in 0..bytes.len() * 8 {
        let mut flipped = bytes.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        let flipped = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(flipped);
        let problem = problem(&seal_global, global, &flipped, "alice", &fingerprints, now);
        assert!(
            matches!(problem, Some(Problem::Altered | Problem::Malformed)),
            "bit {bit}: {problem:?}"
        );
    }
}

#[test]
fn the_refusal_names_the_cursor_field_and_the_way_out() {
    let error = Problem::Expired.error(Duration::from_secs(86400));
    let envelope = serde_json::to_value(&error).unwrap();
    assert_eq!(
        envelope,
        json!({
            "status": "failed",
            "errorKind": "validation_error",
            "retrySafe": true,
            "message": "Invalid argument `cursor`: the cursor has expired (cursors are valid \
                        for 24 hours). Call again without `cursor` to start from the first page.",
            "fieldErrors": [{
                "pointer": "/cursor",
                "message": "the cursor has expired (cursors are valid for 24 hours); call \
                            again without `cursor` to start from the first page"
            }]
        })
    );
}
