//! The approvals page in a real browser (issue 40): Debian's Chromium, headless, driven over
//! WebDriver by chromedriver on a loopback port. A person signs in with a one-time link,
//! opens the pending request an MCP call created, reads its arguments (the secret
//! withheld), approves, and the MCP call's retry runs once.
//!
//! Chromium and chromedriver are Debian's `chromium` and `chromium-driver`, installed here
//! with `apt-get` when missing (as root); a machine that cannot install them fails the test
//! with the reason, never skips it.
//!
//! The test regenerates the approval chapter's screenshots: `docs/guide/img/approvals-list.png`,
//! `approvals-request.png` and `approvals-decided.png`.

mod common;

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
};

use common::pinned::KillOnDrop;
use fantoccini::{ClientBuilder, Locator};
use mcp_result::{
    approval::{ApprovalStore, Decision, MemoryApprovals},
    extract::WriteContext,
    http::{serve_http, ApprovalsPage, HttpOptions, StaticTokens},
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    AuditEventId, Identity, Secret, State, Status, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Clone)]
struct Desk {
    closed: Arc<AtomicUsize>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CloseArgs {
    ticket_id: String,
    /// The note left on the ticket.
    note: String,
    /// Credentials for the ticketing upstream.
    token: Secret<String>,
}

/// Closed.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Closed {
    ticket_id: String,
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
}

#[mcp_tools]
impl Desk {
    /// Closes a ticket, once a human approved.
    #[mcp_tool(title = "Close a ticket", approval = "Close ticket {ticketId}")]
    async fn close_ticket(
        &self,
        args: CloseArgs,
        write: WriteContext,
    ) -> Result<Closed, ToolError> {
        let _ = args.token;
        let _ = args.note;
        self.closed.fetch_add(1, Ordering::SeqCst);
        Ok(Closed {
            ticket_id: args.ticket_id,
            status: Status::Succeeded,
            retry_safe: false,
            audit_event_id: write.audit_event_id().clone(),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

const SECRET: &str = "s3cret-upstream-credential";
const NOTE: &str = "Printer on floor 3 replaced; the user confirmed it prints.";

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|path| path.is_file())
    })
}

fn run(command: &mut Command) -> Result<(), String> {
    let shown = format!("{command:?}");
    let output = command
        .output()
        .map_err(|e| format!("{shown}: cannot run: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{shown}: {}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// Chromium and chromedriver, installed from Debian's `chromium` and `chromium-driver`
/// when missing: their paths.
fn chromium() -> (PathBuf, PathBuf) {
    let found = || Some((which("chromium")?, which("chromedriver")?));
    if let Some(found) = found() {
        return found;
    }
    let hint = "this test needs Debian's `chromium` and `chromium-driver` (apt-get install -y \
                chromium chromium-driver, as root)";
    assert!(
        which("apt-get").is_some(),
        "no chromium or chromedriver, and no apt-get on this machine: {hint}"
    );
    let install = || {
        run(Command::new("apt-get")
            .args(["-o", "DPkg::Lock::Timeout=600", "install", "-y", "-q"])
            .args(["chromium", "chromium-driver"])
            .env("DEBIAN_FRONTEND", "noninteractive"))
    };
    if install().is_err() {
        run(Command::new("apt-get").args(["-o", "DPkg::Lock::Timeout=600", "update", "-q"]))
            .unwrap_or_else(|why| panic!("apt-get update: {why}; {hint}"));
        install().unwrap_or_else(|why| panic!("apt-get install: {why}; {hint}"));
    }
    found().unwrap_or_else(|| panic!("installed, yet chromium or chromedriver is missing: {hint}"))
}

/// A fresh directory for Chromium's profile, removed on drop.
struct Profile(PathBuf);

impl Profile {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!(
            "mcp-result-chromium-{}-{}",
            std::process::id(),
            uuid::Uuid::now_v7()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for Profile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// chromedriver on a free loopback port, and a headless Chromium session of it.
async fn browser(profile: &Profile) -> (fantoccini::Client, KillOnDrop) {
    let (chromium, chromedriver) = chromium();
    let port = common::free_port();
    let mut driver = Command::new(chromedriver);
    driver
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut driver, 0);
    let driver = KillOnDrop(driver.spawn().expect("start chromedriver"));
    assert!(
        common::wait_listening(port).await,
        "chromedriver listens on {port}"
    );
    let args = [
        "--no-sandbox",
        "--headless",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1000,1100",
        &format!("--user-data-dir={}", profile.0.display()),
    ];
    let capabilities = json!({
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": chromium, "args": args},
    });
    let Value::Object(capabilities) = capabilities else {
        unreachable!()
    };
    let client = ClientBuilder::rustls()
        .expect("the WebDriver client")
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .expect("a Chromium session");
    (client, driver)
}

struct Served {
    address: String,
    page: ApprovalsPage,
    approvals: MemoryApprovals,
    closed: Arc<AtomicUsize>,
}

/// The desk on a free loopback port, its approvals page deciders `acme:carol`; caller
/// `alice-token` (acme:alice).
async fn serve() -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let tokens =
        StaticTokens::new().with("alice-token", Identity::new("alice").with_tenant("acme"));
    let approvals = MemoryApprovals::default();
    let page = ApprovalsPage::new().deciders(["acme:carol"]);
    let options = HttpOptions {
        state: State::new().with_approval_store(Arc::new(approvals.clone())),
        ..HttpOptions::default()
    }
    .with_approvals_page(page.clone());
    let closed = Arc::new(AtomicUsize::new(0));
    let desk = Desk {
        closed: Arc::clone(&closed),
    };
    tokio::spawn(async move {
        serve_http(
            desk,
            listener,
            Arc::new(tokens),
            options,
            std::future::pending(),
        )
        .await
        .unwrap();
    });
    Served {
        address,
        page,
        approvals,
        closed,
    }
}

/// `close_ticket` of `ticket` as alice (a client that cannot elicit): the result.
async fn close(address: &str, ticket: &str, request: Option<&str>) -> Value {
    let mut arguments = json!({"ticketId": ticket, "note": NOTE, "token": SECRET});
    if let Some(id) = request {
        arguments["approvalRequestId"] = json!(id);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "close_ticket", "arguments": arguments}});
    let response = reqwest::Client::new()
        .post(format!("http://{address}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .bearer_auth("alice-token")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    answer["result"].clone()
}

/// Saves the browser's screenshot as `docs/guide/img/{name}`.
async fn screenshot(client: &fantoccini::Client, name: &str) {
    let png = client.screenshot().await.expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "{name} is a PNG");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/img");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), png).unwrap();
}

/// Waits until the page's heading is `text` (the navigation a click started has
/// ended). Errors while the browser is between two documents are retried; the last
/// is returned after 30 seconds.
async fn heading(
    client: &fantoccini::Client,
    text: &str,
) -> Result<(), fantoccini::error::CmdError> {
    let xpath = format!(r#"//h1[text()="{text}"]"#);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        match client.find(Locator::XPath(&xpath)).await {
            Ok(_) => return Ok(()),
            Err(error) if std::time::Instant::now() > deadline => return Err(error),
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_approves_in_chromium_and_the_retry_runs_once() {
    let served = serve().await;
    let blocked = close(&served.address, "T-42", None).await;
    assert_eq!(
        blocked["structuredContent"]["status"], "blocked",
        "{blocked}"
    );
    let id = blocked["structuredContent"]["approvalRequestId"]
        .as_str()
        .unwrap()
        .to_owned();

    let profile = Profile::new();
    let (client, _driver) = browser(&profile).await;
    let mut step = "start";
    let result = async {
        // The one-time link signs carol in and lands on the list.
        let link = served
            .page
            .sign_in_link(&served.approvals, &Identity::parse("acme:carol").unwrap())
            .await
            .unwrap();
        step = "open the sign-in link";
        client
            .goto(&format!("http://{}{link}", served.address))
            .await?;
        assert_eq!(client.current_url().await?.path(), "/approvals");
        let list = client.source().await?;
        assert!(list.contains("Pending approval requests"), "{list}");
        assert!(list.contains("signed in as carol (acme)"), "{list}");
        assert!(list.contains("Close ticket T-42"), "{list}");
        screenshot(&client, "approvals-list.png").await;

        // The request: its arguments, the secret withheld.
        step = "open the request from the list";
        client
            .find(Locator::Css(&format!(
                r#"a[href="/approvals/requests/{id}"]"#
            )))
            .await?
            .click()
            .await?;
        step = "wait for the request page";
        heading(&client, "Close a ticket").await?;
        assert_eq!(
            client.current_url().await?.path(),
            format!("/approvals/requests/{id}")
        );
        assert_eq!(
            client.find(Locator::Css("h1")).await?.text().await?,
            "Close a ticket"
        );
        step = "read the arguments";
        let rows = client.find_all(Locator::Css("tbody tr")).await?;
        let mut shown = Vec::new();
        for row in rows {
            shown.push(row.text().await?);
        }
        assert!(
            shown
                .iter()
                .any(|r| r.contains("ticketId") && r.contains("T-42")),
            "{shown:?}"
        );
        assert!(
            shown.iter().any(|r| r.contains("note") && r.contains(NOTE)),
            "{shown:?}"
        );
        assert!(
            shown
                .iter()
                .any(|r| r.contains("token") && r.contains("withheld (secret)")),
            "{shown:?}"
        );
        let request = client.source().await?;
        assert!(!request.contains(SECRET), "{request}");
        screenshot(&client, "approvals-request.png").await;

        // Approve: the decided page.
        step = "approve";
        client
            .find(Locator::XPath(r#"//button[text()="Approve"]"#))
            .await?
            .click()
            .await?;
        step = "wait for the decided page";
        heading(&client, "Approved").await?;
        let decided = client.source().await?;
        assert!(decided.contains("<h1>Approved</h1>"), "{decided}");
        assert!(
            decided.contains("the caller's next call with this request runs once"),
            "{decided}"
        );
        screenshot(&client, "approvals-decided.png").await;
        Ok::<_, fantoccini::error::CmdError>(())
    }
    .await;
    let _ = client.close().await;
    if let Err(error) = result {
        panic!("the browser failed at `{step}`: {error:?}");
    }

    let stored = served.approvals.get(&id).await.unwrap().unwrap();
    assert!(
        matches!(&stored.decision, Decision::Approved { approver, .. } if approver == "acme:carol"),
        "{:?}",
        stored.decision
    );
    // The MCP call's retry runs the write once; a second retry does not run it again.
    let retried = close(&served.address, "T-42", Some(&id)).await;
    assert_eq!(
        retried["structuredContent"]["status"], "succeeded",
        "{retried}"
    );
    assert_eq!(served.closed.load(Ordering::SeqCst), 1);
    let again = close(&served.address, "T-42", Some(&id)).await;
    assert_ne!(again["structuredContent"]["status"], "succeeded", "{again}");
    assert_eq!(served.closed.load(Ordering::SeqCst), 1);
}
