//! Every bad line gets an answer over stdio (issue 34, item 4): the example served as the
//! README teaches (`serve_stdio`), in a child process, fed raw bytes no SDK client sends.
//! A line that is not JSON is answered `-32700` (with its `id` when the line shows it),
//! JSON that is no message `-32600`, a request whose `params` do not fit `-32602`; a
//! notification or response before `initialize` is dropped; and the process serves on.

use crate::common;

use std::process::Stdio;

use common::raw::RawClient;
use serde_json::{json, Value};
use tokio::process::Command;

fn start() -> (RawClient, tokio::process::Child) {
    let mut child = Command::new(common::example_path("helpdesk"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the example");
    let read = child.stdout.take().unwrap();
    let write = child.stdin.take().unwrap();
    (RawClient::new(read, write), child)
}

/// Sends `bytes` as one line and returns the next message.
async fn answer_to(client: &mut RawClient, bytes: &[u8]) -> Value {
    client.send_raw(bytes).await;
    client.next().await
}

#[tokio::test]
async fn every_line_that_cannot_be_read_gets_an_answer() {
    let (mut client, mut child) = start();
    // Before initialize: a notification and a response are dropped, not the end.
    client
        .send(&[
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 99, "result": {}}),
        ])
        .await;
    // A discovery before initialize, then a notification: rmcp still waits for the
    // handshake, and the notification does not end it.
    let discovered = answer_to(
        &mut client,
        br#"{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}}}"#,
    )
    .await;
    assert_eq!(discovered["id"], "d", "{discovered}");
    client
        .send(&[json!({"jsonrpc": "2.0", "method": "notifications/initialized"})])
        .await;
    // A ping carrying complete 2026-07-28 metadata, then a notification: rmcp answers the
    // ping in its handshake and waits on; the notification does not end it.
    let pong = answer_to(
        &mut client,
        br#"{"jsonrpc":"2.0","id":"p","method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}}}"#,
    )
    .await;
    assert_eq!(pong["id"], "p", "{pong}");
    client
        .send(&[json!({"jsonrpc": "2.0", "method": "notifications/initialized"})])
        .await;
    // Responses of the client's that cannot be read get no answer (their ids are the
    // server's): the next answer is the one to the request after them.
    client
        .send_raw(br#"{"jsonrpc":"2.0","id":5,"result":{"n":1e400}}"#)
        .await;
    client
        .send_raw(br#"{"jsonrpc":"2.0","id":6,"error":"not an object"}"#)
        .await;
    // A request before initialize: an error, and the process serves on.
    let early = answer_to(
        &mut client,
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    )
    .await;
    assert_eq!(early["id"], 1, "{early}");
    assert!(early["error"]["code"].is_i64(), "{early}");

    let parse_error = |id: Value| {
        move |answer: &Value| {
            assert_eq!(answer["id"], id, "{answer}");
            assert_eq!(answer["error"]["code"], -32700, "{answer}");
            assert!(
                answer["error"]["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("Parse error: the line is not valid JSON ("),
                "{answer}"
            );
        }
    };
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{}{}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let cases: Vec<(Vec<u8>, Value)> = vec![
        (
            br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{"n":1e400}}}"#.to_vec(),
            json!(2),
        ),
        (
            br#"{"jsonrpc":"2.0","id":"s-3","method":"ping","params":{"s":"\ud800"}}"#.to_vec(),
            json!("s-3"),
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"s\":\"\xff\xfe\"}}"
                .to_vec(),
            json!(4),
        ),
        (deep.into_bytes(), json!(6)),
        (b"{\"jsonrpc\":\"2.0\",\"method\":".to_vec(), Value::Null),
        (b"\x00\x01garbage".to_vec(), Value::Null),
    ];
    for (line, id) in cases {
        let answer = answer_to(&mut client, &line).await;
        parse_error(id)(&answer);
    }
    // JSON that is no message; a request whose params do not fit.
    let invalid = answer_to(&mut client, br#"{"jsonrpc":"2.0","id":7}"#).await;
    assert_eq!(invalid["id"], 7, "{invalid}");
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");
    let invalid = answer_to(
        &mut client,
        br#"{"jsonrpc":"1.0","id":11,"method":"tools/call","params":{"name":7}}"#,
    )
    .await;
    assert_eq!(invalid["id"], 11, "{invalid}");
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");
    let invalid = answer_to(&mut client, b"[1,2,3]").await;
    assert_eq!(invalid["id"], Value::Null, "{invalid}");
    assert_eq!(invalid["error"]["code"], -32600, "{invalid}");

    // The session opens and works after all of it.
    let [initialize, initialized] = common::raw::handshake("2025-11-25");
    let answers = client.exchange(&[initialize]).await;
    assert!(
        answers[0]["result"]["serverInfo"].is_object(),
        "{answers:?}"
    );
    client.send(&[initialized]).await;
    let params = answer_to(
        &mut client,
        br#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":7}}"#,
    )
    .await;
    assert_eq!(params["id"], 8, "{params}");
    assert_eq!(params["error"]["code"], -32602, "{params}");
    // Duplicate keys: one answer, never silence.
    let duplicate = answer_to(
        &mut client,
        br#"{"jsonrpc":"2.0","id":10,"method":"tools/list","method":"ping"}"#,
    )
    .await;
    assert_eq!(
        duplicate,
        json!({"jsonrpc": "2.0", "id": 10, "error": {"code": -32600, "message":
            "Invalid Request: the message repeats a key; JSON-RPC messages have each key once"}})
    );
    let listed = client
        .exchange(&[json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"})])
        .await;
    assert!(listed[0]["result"]["tools"].as_array().unwrap().len() > 3);
    assert!(child.try_wait().unwrap().is_none(), "the server still runs");
}
