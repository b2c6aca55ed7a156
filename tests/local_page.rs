//! Approvals where servers run (issue 48 item 1): the notes server of `tests/defaults.rs`,
//! served over stdio with its approvals page on a loopback port beside it (one builder call,
//! `State::with_local_approvals_page("127.0.0.1:0")`, here through `NOTES_PAGE`), each
//! session driven by the TypeScript SDK client (`tests/clients/stdio-session.mjs`), the
//! person at the client in Debian's Chromium:
//!
//! - a client without elicitation gets `blocked`, its text naming a one-time sign-in link
//!   to the request; the person opens it, lands on the request signed in as the caller, and
//!   approves; the call again runs the delete once; the link signs in once;
//! - a client that declared URL-mode elicitation only is sent that link in an
//!   `elicitation/create` of mode `url`, the person approves, and the call that asked runs
//!   the delete once.
//!
//! In process: the page's address must be a loopback socket address, and `serve_http`
//! refuses a state that asks for it; each with its exact message.

use std::{path::Path, process::Stdio};

use mcp_result::{http::HttpOptions, rmcp::ServerHandler, State};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::{
    approval_browser::{client_says, exits_well, Chromium},
    common::pinned::{install_npm, CLIENTS_DIR},
};

/// One stdio session of the SDK client with the notes server on a fresh SQLite file, its
/// approvals page beside it; `url`: the client declares URL-mode elicitation only.
struct Session {
    node: tokio::process::Child,
    calls: tokio::process::ChildStdin,
    said: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    dir: std::path::PathBuf,
}

impl Session {
    async fn start(name: &str, url: bool) -> Self {
        let binary = tokio::task::spawn_blocking(crate::DEFAULTS::notes_binary)
            .await
            .unwrap();
        tokio::task::spawn_blocking(install_npm)
            .await
            .unwrap()
            .expect("npm ci in tests/clients");
        let dir = std::env::temp_dir().join(format!(
            "mcp-result-local-page-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let _ = std::fs::remove_file(dir.join("notes.db"));
        let mut node = tokio::process::Command::new("node");
        node.arg("stdio-session.mjs")
            .arg(&binary)
            .current_dir(Path::new(CLIENTS_DIR))
            .env(
                "NOTES_DB",
                format!("sqlite:{}", dir.join("notes.db").display()),
            )
            .env("NOTES_PAGE", "127.0.0.1:0")
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        if url {
            node.env("ELICITATION", "url");
        }
        let mut node = node.spawn().expect("start node stdio-session.mjs");
        let calls = node.stdin.take().unwrap();
        let mut said = BufReader::new(node.stdout.take().unwrap()).lines();
        assert_eq!(client_says(&mut said, "connected").await, json!(true));
        Self {
            node,
            calls,
            said,
            dir,
        }
    }

    /// Asks the client to call `name` with `arguments`.
    async fn call(&mut self, name: &str, arguments: Value) {
        let line = format!("{}\n", json!([name, arguments]));
        self.calls.write_all(line.as_bytes()).await.unwrap();
        self.calls.flush().await.unwrap();
    }

    /// Calls `name` with `arguments`: its result.
    async fn result(&mut self, name: &str, arguments: Value) -> Value {
        self.call(name, arguments).await;
        client_says(&mut self.said, "result").await
    }

    /// Ends the session: the client closes it and exits well.
    async fn end(mut self) {
        drop(self.calls);
        exits_well(&mut self.node).await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The person opens `link` in Chromium, lands on the delete's request signed in as the
/// caller (stdio's `local`), and approves: the request's id, from the page's path.
async fn approve_in_chromium(chromium: &Chromium, link: &str, note: &str) -> String {
    let mut id = String::new();
    let result: Result<(), fantoccini::error::CmdError> = async {
        chromium.at("open the link");
        chromium.open_link(link, "delete_note").await?;
        id = chromium
            .client
            .current_url()
            .await?
            .path()
            .strip_prefix("/approvals/requests/")
            .expect("the request's page")
            .to_owned();
        let page = chromium.client.source().await?;
        assert!(page.contains("signed in as local"), "{page}");
        assert!(page.contains(&format!("Delete note {note}")), "{page}");
        chromium.at("approve");
        chromium.click("Approve", "Approved").await?;
        assert_eq!(chromium.status().await?, 200);
        Ok(())
    }
    .await;
    if let Err(error) = result {
        panic!("the browser failed: {error:?}");
    }
    id
}

/// The delete ran once under the page's approval: `succeeded`, its `approvalId`.
fn deleted_under_an_approval(result: &Value) {
    let answer = &result["structuredContent"];
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(answer["status"], "succeeded", "{result}");
    assert!(answer["approvalId"].is_string(), "{result}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_elicitation_is_named_the_pages_link_and_its_call_again_runs_once() {
    let mut session = Session::start("none", false).await;
    let added = session
        .result("add_note", json!({"id": "n1", "body": "milk"}))
        .await;
    assert_eq!(added["structuredContent"]["status"], "succeeded", "{added}");

    // Blocked: the answer names the one-time link to the request's page.
    let blocked = session.result("delete_note", json!({"id": "n1"})).await;
    let answer = &blocked["structuredContent"];
    assert_eq!(answer["status"], "blocked", "{blocked}");
    let id = answer["approvalRequestId"].as_str().unwrap().to_owned();
    let message = answer["message"].as_str().unwrap();
    let link = message
        .split_once(" at ")
        .and_then(|(_, rest)| rest.split_once(' '))
        .map(|(link, _)| link.to_owned())
        .unwrap_or_else(|| panic!("no link in {message}"));
    assert!(
        link.starts_with("http://127.0.0.1:") && link.contains("/approvals/sign-in?token="),
        "{link}"
    );
    assert_eq!(
        message,
        format!(
            "This write needs a human approval: Delete note n1. Nothing ran. Approve or reject \
             it at {link} (a link for one sign-in, within 10 minutes); once it is approved, \
             call again with approvalRequestId `{id}`."
        )
    );
    // The model reads the same words.
    assert!(
        blocked["content"][0]["text"]
            .as_str()
            .is_some_and(|text| text.contains(&link)),
        "{blocked}"
    );

    // The person approves in the browser; the link signs in once.
    let chromium = Chromium::start().await;
    let opened = approve_in_chromium(&chromium, &link, "n1").await;
    assert_eq!(opened, id, "the link lands on the blocked call's request");
    let again = async {
        chromium.open_link(&link, "Sign-in link used").await?;
        assert_eq!(chromium.status().await?, 410);
        assert_eq!(
            chromium.main().await?,
            "Sign-in link used\nHTTP 410\nThis sign-in link was used already; each link \
             signs in once."
        );
        Ok(())
    }
    .await;
    chromium.finish(again).await;

    // The call again runs the delete once; a repeat is refused.
    let retried = json!({"id": "n1", "approvalRequestId": id});
    deleted_under_an_approval(&session.result("delete_note", retried.clone()).await);
    let listed = session.result("list_notes", json!({})).await;
    assert_eq!(listed["structuredContent"]["ids"], json!([]), "{listed}");
    let repeat = session.result("delete_note", retried).await;
    assert_eq!(
        repeat["structuredContent"]["message"],
        "The approval was used already; each approval runs one write.",
        "{repeat}"
    );
    session.end().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_mode_client_on_stdio_is_sent_to_the_local_page_and_its_call_runs_once() {
    let mut session = Session::start("url", true).await;
    let added = session
        .result(
            "add_note",
            json!({"id": "\u{202e}n2\u{200b}", "body": "eggs"}),
        )
        .await;
    assert_eq!(added["structuredContent"]["status"], "succeeded", "{added}");

    // The delete asks by URL mode: the link to the request's page, on the loopback port.
    // An id holding a direction override and a zero-width space: both shown marked, and
    // warned of, in the elicitation message the TypeScript SDK client receives.
    session
        .call("delete_note", json!({"id": "\u{202e}n2\u{200b}"}))
        .await;
    let asked = client_says(&mut session.said, "elicitation").await;
    assert_eq!(asked["mode"], "url", "{asked}");
    let link = asked["url"].as_str().unwrap().to_owned();
    assert!(
        link.starts_with("http://127.0.0.1:") && link.contains("/approvals/sign-in?token="),
        "{link}"
    );
    assert_eq!(
        asked["message"],
        "Approve this write? Delete note [U+202E]n2[U+200B]. Warning: /id holds characters \
         that change how text reads, shown as [U+…] Open the link to review and confirm it, signed \
         in as local."
    );
    let chromium = Chromium::start().await;
    let id = approve_in_chromium(&chromium, &link, "[U+202E]n2[U+200B]").await;
    chromium.finish(Ok(())).await;
    assert_eq!(asked["elicitationId"], id.as_str(), "{asked}");

    // The call that asked returns the delete's result, run once.
    let result = client_says(&mut session.said, "result").await;
    deleted_under_an_approval(&result);
    let listed = session.result("list_notes", json!({})).await;
    assert_eq!(listed["structuredContent"]["ids"], json!([]), "{listed}");
    session.end().await;
}

/// A server with one read tool: the page's configuration is checked before anything else
/// is served.
#[derive(Clone)]
struct Quiet;

#[mcp_result::mcp_tools]
impl Quiet {
    /// Nothing.
    #[mcp_tool(read_only)]
    async fn nothing(&self) -> Result<String, mcp_result::ToolError> {
        Ok(String::new())
    }
}

#[mcp_result::mcp_handler]
impl ServerHandler for Quiet {}

#[tokio::test]
async fn the_local_page_listens_on_a_loopback_address_and_only_beside_stdio() {
    let refused = |address: &'static str| async move {
        let (server_end, _client_end) = tokio::io::duplex(4096);
        let state = State::new().with_local_approvals_page(address);
        mcp_result::serve_with_state(Quiet, server_end, state)
            .await
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        refused("0.0.0.0:0").await,
        "`State::with_local_approvals_page(\"0.0.0.0:0\")`: the local approvals page listens \
         on a loopback address only (plain HTTP, signed in by a link): give one such as \
         `127.0.0.1:0`, or serve over HTTP with `HttpOptions::approvals_page`"
    );
    assert_eq!(
        refused("localhost").await,
        "`State::with_local_approvals_page(\"localhost\")`: not a socket address: give one \
         such as `127.0.0.1:0`"
    );

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let options = HttpOptions {
        state: State::new().with_local_approvals_page("127.0.0.1:0"),
        ..HttpOptions::default()
    };
    let refused = mcp_result::http::serve_http(
        Quiet,
        listener,
        std::sync::Arc::new(mcp_result::http::Anonymous::new(mcp_result::Identity::new(
            "me",
        ))),
        options,
        std::future::pending(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "`State::with_local_approvals_page(\"127.0.0.1:0\")` is for a server on stdio: over \
         HTTP the approvals page is served beside the endpoint, `HttpOptions::approvals_page` \
         (with `ApprovalsPage::callers_confirm` for callers confirming their own requests)"
    );
}
