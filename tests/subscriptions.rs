//! Change notifications (issue 49 item 5): the MCP 2026-07-28 `subscriptions/listen`
//! stream (SEP-2575) and, before it, `resources/subscribe`, served by `#[mcp_handler]` from
//! the instance's `Subscriptions` and its task store, to the TypeScript SDK v2 client
//! (`tests/clients/listen.mjs`, which reads the server's messages raw):
//!
//! - over stdio, the notes server of `tests/defaults.rs` (a README server, its approvals
//!   page beside it): an approval request decided on the page is
//!   `notifications/resources/updated` of `mcp-result://approvals/{id}`, on the stream (its
//!   subscription id in `_meta`) and, on 2025-11-25, on the session after
//!   `resources/subscribe`;
//! - over stdio, the helpdesk, and over streamable HTTP, the conformance fixture: a call
//!   that runs as a task is `notifications/tasks` on a stream that lists its id in
//!   `taskIds`, the acknowledgement listing it, up to `completed` with the result inlined;
//!   a task id of nobody's is acknowledged and never told;
//! - over streamable HTTP without sessions, `resources/subscribe` is refused with its
//!   exact error.

use std::{
    path::Path,
    process::Stdio,
    sync::{atomic::Ordering, Arc},
};

use mcp_result::{
    approval::MemoryApprovals,
    http::{ApprovalsPage, HttpOptions, StaticTokens},
    Identity, State,
};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::{
    approval_browser::{client_says, exits_well},
    common::{
        self,
        pinned::{install_npm, KillOnDrop, CLIENTS_DIR},
    },
};

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// One TypeScript SDK v2 client, driven a command at a time (`tests/clients/listen.mjs`).
pub(crate) struct Listener {
    node: tokio::process::Child,
    commands: tokio::process::ChildStdin,
    said: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Listener {
    /// Connects over `connection` (`{"stdio": …}` or `{"http": …}`, see the script).
    pub(crate) async fn connect(connection: Value) -> Self {
        tokio::task::spawn_blocking(install_npm)
            .await
            .unwrap()
            .expect("npm ci in tests/clients");
        let mut node = tokio::process::Command::new("node");
        node.arg("listen.mjs")
            .arg(connection.to_string())
            .current_dir(Path::new(CLIENTS_DIR))
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut node = node.spawn().expect("start node listen.mjs");
        let commands = node.stdin.take().unwrap();
        let said = BufReader::new(node.stdout.take().unwrap()).lines();
        Self {
            node,
            commands,
            said,
        }
    }

    /// Sends `command`; the value of the answer's `key`.
    pub(crate) async fn ask(&mut self, command: Value, key: &str) -> Value {
        let line = format!("{command}\n");
        self.commands.write_all(line.as_bytes()).await.unwrap();
        self.commands.flush().await.unwrap();
        client_says(&mut self.said, key).await
    }

    /// Calls `name` with `arguments`: the result, raw.
    pub(crate) async fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.ask(json!({"call": [name, arguments]}), "result").await
    }

    /// Opens the stream with `filter`: the acknowledgement's params.
    pub(crate) async fn listen(&mut self, filter: Value) -> Value {
        self.ask(json!({"listen": filter}), "acknowledged").await
    }

    /// The first `count` notifications of `method` since the stream (or subscription)
    /// opened, within 60 s.
    pub(crate) async fn received(&mut self, method: &str, count: usize) -> Vec<Value> {
        let answer = self
            .ask(json!({"wait": [method, count, 60_000]}), "received")
            .await;
        answer.as_array().unwrap().clone()
    }

    /// The notifications of `method` since the stream opened, after `ms` more in which no
    /// more than the `seen` already received may come.
    pub(crate) async fn quiet(&mut self, method: &str, seen: usize, ms: u64) -> Vec<Value> {
        let answer = self
            .ask(json!({"wait": [method, seen + 1, ms]}), "timeout")
            .await;
        answer.as_array().unwrap().clone()
    }

    /// Closes the stream, then the client, which exits well.
    pub(crate) async fn end(mut self) {
        let closed = self.ask(json!({"close": true}), "closed").await;
        assert_eq!(closed, "local");
        drop(self.commands);
        exits_well(&mut self.node).await;
    }
}

/// The notes server over stdio on a fresh SQLite file, its page on a loopback port.
fn notes(name: &str) -> (Value, std::path::PathBuf) {
    let binary = crate::DEFAULTS::notes_binary();
    let dir = std::env::temp_dir().join(format!(
        "mcp-result-subscriptions-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let _ = std::fs::remove_file(dir.join("notes.db"));
    let connection = json!({"stdio": {
        "command": binary,
        "env": {
            "NOTES_DB": format!("sqlite:{}", dir.join("notes.db").display()),
            "NOTES_PAGE": "127.0.0.1:0",
        },
    }});
    (connection, dir)
}

/// A delete blocked for approval: the request's id and the page's sign-in link, from the
/// answer's text.
fn blocked(result: &Value) -> (String, String) {
    assert_eq!(result["structuredContent"]["status"], "blocked", "{result}");
    let id = result["structuredContent"]["approvalRequestId"]
        .as_str()
        .expect("an approvalRequestId")
        .to_owned();
    let text = result["content"][0]["text"].as_str().unwrap();
    let at = text.find("http://127.0.0.1:").expect("the page's link");
    let link = text[at..]
        .split(|c: char| c.is_whitespace() || c == ')')
        .next()
        .unwrap()
        .to_owned();
    (id, link)
}

/// A person approves request `id` on the approvals page: signs in with `link` (on the local
/// page, the caller's, bound to the request), then approves on the request's page.
async fn approve_on_page(link: &str, id: &str) {
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let signed_in = common::approvals::use_sign_in_link(&browser, link).await;
    assert_eq!(signed_in.status(), 200);
    let cookie = signed_in.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let origin = link.split("/approvals").next().unwrap().to_owned();
    let page = browser
        .get(format!("{origin}/approvals/requests/{id}"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let at = page.find(r#"name="csrf" value=""#).expect("a CSRF field") + 19;
    let csrf = page[at..].split('"').next().unwrap();
    let decided = browser
        .post(format!("{origin}/approvals/requests/{id}"))
        .header("cookie", &cookie)
        .header("origin", &origin)
        .form(&[("csrf", csrf), ("decision", "approve")])
        .send()
        .await
        .unwrap();
    assert_eq!(decided.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_on_stdio_hears_the_approval_it_follows_decided_on_the_page() {
    let (connection, dir) = tokio::task::spawn_blocking(|| notes("listen"))
        .await
        .unwrap();
    let mut client = Listener::connect(connection).await;
    let (id, link) = blocked(&client.call("delete_note", json!({"id": "n-1"})).await);
    let uri = format!("mcp-result://approvals/{id}");
    let acknowledged = client
        .listen(
            json!({"resourceSubscriptions": [uri, "mcp-result://approvals/other"],
            "toolsListChanged": true}),
        )
        .await;
    // The tools of a `#[mcp_tools]` server do not change: not honoured.
    assert_eq!(
        acknowledged["notifications"],
        json!({"resourceSubscriptions": [uri, "mcp-result://approvals/other"]}),
        "{acknowledged}"
    );
    let subscription = acknowledged["_meta"][SUBSCRIPTION_ID].clone();
    assert!(subscription.is_string(), "{acknowledged}");
    approve_on_page(&link, &id).await;
    let updated = client.received("notifications/resources/updated", 1).await;
    assert_eq!(updated[0]["params"]["uri"], uri, "{updated:?}");
    assert_eq!(
        updated[0]["params"]["_meta"][SUBSCRIPTION_ID], subscription,
        "{updated:?}"
    );
    client.end().await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_session_on_stdio_hears_the_approval_it_subscribed_to() {
    let (mut connection, dir) = tokio::task::spawn_blocking(|| notes("subscribe"))
        .await
        .unwrap();
    connection["legacy"] = json!(true);
    let mut client = Listener::connect(connection).await;
    let (id, link) = blocked(&client.call("delete_note", json!({"id": "n-1"})).await);
    let uri = format!("mcp-result://approvals/{id}");
    assert_eq!(
        client.ask(json!({"subscribe": uri}), "subscribed").await,
        true
    );
    approve_on_page(&link, &id).await;
    let updated = client.received("notifications/resources/updated", 1).await;
    assert_eq!(updated[0]["params"], json!({"uri": uri}), "{updated:?}");
    drop(client.commands);
    exits_well(&mut client.node).await;
    let _ = std::fs::remove_dir_all(dir);
}

/// A stream that follows task `task` (and one nobody has): the acknowledgement lists both,
/// and the task is told until it completed, its result inlined; nothing of the other, and
/// nothing more of the task in the half second after: its result.
async fn follows_the_task_until_it_completed(client: &mut Listener, task: &str) -> Value {
    let acknowledged = client
        .listen(json!({"taskIds": [task, "no-such-task"]}))
        .await;
    assert_eq!(
        acknowledged["notifications"],
        json!({"taskIds": [task, "no-such-task"]}),
        "{acknowledged}"
    );
    let subscription = acknowledged["_meta"][SUBSCRIPTION_ID].clone();
    let mut told = client.received("notifications/tasks", 1).await;
    if told[0]["params"]["status"] != "completed" {
        told = client.received("notifications/tasks", 2).await;
    }
    let last = told.last().unwrap();
    for notification in &told {
        assert_eq!(notification["params"]["taskId"], task, "{told:?}");
        assert_eq!(
            notification["params"]["_meta"][SUBSCRIPTION_ID], subscription,
            "{told:?}"
        );
    }
    assert_eq!(last["params"]["status"], "completed", "{told:?}");
    let after = client.quiet("notifications/tasks", told.len(), 500).await;
    assert_eq!(
        after.len(),
        told.len(),
        "told once of an ended task: {after:?}"
    );
    last["params"]["result"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_on_stdio_hears_its_task_complete() {
    let mut client = Listener::connect(json!({"stdio": {
        "command": common::example_path("helpdesk"),
    }}))
    .await;
    let created = client
        .call(
            "add_internal_note",
            json!({"ticketId": "T-1001", "body": "Followed on a stream.", "requestId": "listen-1"}),
        )
        .await;
    assert_eq!(created["resultType"], "task", "{created}");
    let task = created["taskId"].as_str().unwrap().to_owned();
    let result = follows_the_task_until_it_completed(&mut client, &task).await;
    assert_eq!(
        result["structuredContent"]["status"], "succeeded",
        "{result}"
    );
    client.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_over_streamable_http_hears_its_task_complete() {
    let port = common::free_port();
    let mut server = std::process::Command::new(common::example_path("conformance"));
    server
        .args(["--port", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let _server = KillOnDrop(server.spawn().expect("start examples/conformance"));
    assert!(common::wait_listening(port).await, "the fixture listens");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut client = Listener::connect(json!({"http": {"url": url}})).await;
    let created = client
        .call("slow_compute", json!({"seconds": 1, "label": "listened"}))
        .await;
    assert_eq!(created["resultType"], "task", "{created}");
    let task = created["taskId"].as_str().unwrap().to_owned();
    let result = follows_the_task_until_it_completed(&mut client, &task).await;
    assert_eq!(result["isError"], false, "{result}");
    client.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_over_stateless_http_hears_an_approval_decided_on_the_page() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let tokens =
        StaticTokens::new().with("alice-token", Identity::new("alice").with_tenant("acme"));
    let approvals = MemoryApprovals::default();
    let page = ApprovalsPage::new().deciders(["acme:carol"]);
    let options = HttpOptions {
        state: State::new()
            .with_approval_store(Arc::new(approvals.clone()))
            .allow_mixed_stores(),
        ..HttpOptions::default()
    }
    .with_approvals_page(page.clone());
    let closed = common::approvals::serve(listener, Arc::new(tokens), options);
    let url = format!("http://{address}/mcp");
    let mut client = Listener::connect(json!({"http": {"url": url, "token": "alice-token"}})).await;
    let result = client
        .call(
            "close_ticket",
            json!({"ticketId": "T-9", "token": "upstream"}),
        )
        .await;
    assert_eq!(result["structuredContent"]["status"], "blocked", "{result}");
    let id = result["structuredContent"]["approvalRequestId"]
        .as_str()
        .unwrap()
        .to_owned();
    let uri = format!("mcp-result://approvals/{id}");
    let acknowledged = client
        .listen(json!({"resourceSubscriptions": [uri], "resourcesListChanged": true}))
        .await;
    assert_eq!(
        acknowledged["notifications"],
        json!({"resourceSubscriptions": [uri], "resourcesListChanged": true}),
        "{acknowledged}"
    );
    let link = page
        .sign_in_link(&approvals, &Identity::parse("acme:carol").unwrap())
        .await
        .unwrap();
    approve_on_page(&format!("http://{address}{link}"), &id).await;
    let updated = client.received("notifications/resources/updated", 1).await;
    assert_eq!(updated[0]["params"]["uri"], uri, "{updated:?}");
    assert_eq!(
        updated[0]["params"]["_meta"][SUBSCRIPTION_ID], acknowledged["_meta"][SUBSCRIPTION_ID],
        "{updated:?}"
    );
    client.end().await;
    assert_eq!(closed.load(Ordering::SeqCst), 0, "a decision runs nothing");

    // `resources/subscribe` outside a session: nothing would carry its notifications.
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "resources/subscribe",
        "params": {"uri": uri}});
    let answer: Value = reqwest::Client::new()
        .post(&url)
        .bearer_auth("alice-token")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32600, "message":
            "resources/subscribe needs a session, and this server serves streamable HTTP \
             without sessions: on MCP 2026-07-28, follow the resource with \
             subscriptions/listen (resourceSubscriptions)"}})
    );
}
