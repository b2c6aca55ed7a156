//! The approvals page in a real browser (issue 40): Debian's Chromium, headless, driven over
//! WebDriver by chromedriver on a loopback port, against the desk served by `serve_http` on
//! a real TCP port.
//!
//! - A person signs in with a one-time link, opens the pending request an MCP call created,
//!   reads its arguments (the secret withheld), approves, and the MCP call's retry runs once.
//! - Each refusal as the browser shows it, with the exact status of its document and its
//!   page, and the store unchanged: a rejection with its reason (then the retry is refused
//!   with it), a second decision from a stale page, another tenant's request, an expired
//!   request, a forged or missing CSRF token, a form of another origin carrying the real
//!   token, and the page framed by another origin (not rendered there; the headers that
//!   forbid it).
//! - A client of the TypeScript SDK that declared only URL-mode elicitation
//!   (`tests/clients/url-elicitation.mjs`) calls the gated write over streamable HTTP
//!   (2025-11-25), is sent the page's link, and the caller confirms there in Chromium; the
//!   SDK's call returns the write's result, run once. The same with the TypeScript SDK v2
//!   client on MCP 2026-07-28 (`tests/clients/url-elicitation-2.mjs`), the link sent in an
//!   input-required round that the SDK's multi-round-trip driver answers.
//!
//! Chromium and chromedriver are Debian's `chromium` and `chromium-driver`, installed here
//! with `apt-get` when missing (as root); a machine that cannot install them fails the test
//! with the reason, never skips it.
//!
//! Only the first test writes the approval chapter's screenshots:
//! `docs/guide/img/approvals-list.png`, `approvals-request.png` and `approvals-decided.png`.

use crate::common;

use std::{
    cell::Cell,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use common::pinned::{install_npm, KillOnDrop, CLIENTS_DIR};
use fantoccini::{error::CmdError, ClientBuilder, Locator};
use mcp_result::{
    approval::{ApprovalStore, Decision, MemoryApprovals},
    audit::JsonLinesSink,
    http::{ApprovalsPage, HttpOptions, StaticTokens},
    Identity, State,
};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::common::approvals;

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

/// A headless Chromium of its own (a fresh profile, its own chromedriver on a free loopback
/// port), driven over WebDriver, and the step it is at: a WebDriver command that fails
/// fails the test naming it.
/// A headless Chromium session of its own (profile, chromedriver), for this area and
/// others of the suite (`approval_oauth` signs in through the authorization server with it).
pub(crate) struct Chromium {
    pub(crate) client: fantoccini::Client,
    step: Cell<&'static str>,
    _driver: KillOnDrop,
    _profile: Profile,
}

impl Chromium {
    pub(crate) async fn start() -> Self {
        let (chromium, chromedriver) = chromium();
        let profile = Profile::new();
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
        Self {
            client,
            step: Cell::new("start"),
            _driver: driver,
            _profile: profile,
        }
    }

    /// Names the step the browser is at.
    pub(crate) fn at(&self, step: &'static str) {
        self.step.set(step);
    }

    /// Ends the browser session; a command that failed fails the test, naming its step.
    pub(crate) async fn finish(self, result: Result<(), CmdError>) {
        let step = self.step.get();
        let _ = self.client.clone().close().await;
        if let Err(error) = result {
            panic!("the browser failed at `{step}`: {error:?}");
        }
    }

    /// Signs `who` in with a fresh one-time link: the browser lands on the list (the
    /// "Signed in" page moves on to it by itself).
    async fn sign_in(&self, served: &Served, who: &str) -> Result<(), CmdError> {
        let link = served
            .page
            .sign_in_link(&served.approvals, &Identity::parse(who).unwrap())
            .await
            .unwrap();
        self.at("open the sign-in link");
        self.open_link(
            &format!("http://{}{link}", served.address),
            "Pending approval requests",
        )
        .await?;
        assert_eq!(self.client.current_url().await?.path(), "/approvals");
        Ok(())
    }

    /// Opens sign-in link `link` (a page with one button, which spends nothing) and signs
    /// in with its button: the browser lands on the page whose heading is `then`.
    pub(crate) async fn open_link(&self, link: &str, then: &str) -> Result<(), CmdError> {
        self.client.goto(link).await?;
        heading(&self.client, "Sign in").await?;
        self.click("Sign in", then).await
    }

    /// Opens the page of request `id`, pending: its heading is the tool's title.
    async fn open(&self, served: &Served, id: &str) -> Result<(), CmdError> {
        self.at("open the request");
        self.client
            .goto(&format!(
                "http://{}/approvals/requests/{id}",
                served.address
            ))
            .await?;
        heading(&self.client, "Close a ticket").await
    }

    /// Writes `reason` in the page's reason field.
    async fn reason(&self, reason: &str) -> Result<(), CmdError> {
        self.at("write the reason");
        self.client
            .find(Locator::Css("#reason"))
            .await?
            .send_keys(reason)
            .await
    }

    /// Clicks the button `label`, then waits for the page whose heading is `then`.
    pub(crate) async fn click(&self, label: &str, then: &str) -> Result<(), CmdError> {
        self.client
            .find(Locator::XPath(&format!(r#"//button[text()="{label}"]"#)))
            .await?
            .click()
            .await?;
        heading(&self.client, then).await
    }

    /// The HTTP status of the document shown: its navigation's response.
    pub(crate) async fn status(&self) -> Result<u64, CmdError> {
        let status = self
            .client
            .execute(
                "return performance.getEntriesByType('navigation')[0].responseStatus;",
                vec![],
            )
            .await?;
        Ok(status.as_u64().unwrap_or_default())
    }

    /// The text of the page's `main`, as the browser renders it.
    pub(crate) async fn main(&self) -> Result<String, CmdError> {
        self.client.find(Locator::Css("main")).await?.text().await
    }

    /// The document shown is the page of one message, `heading`, with `status` (the page
    /// states it, and so does the navigation's response) and exactly `line`.
    pub(crate) async fn message(
        &self,
        status: u64,
        heading_text: &str,
        line: &str,
    ) -> Result<(), CmdError> {
        heading(&self.client, heading_text).await?;
        assert_eq!(self.status().await?, status, "{heading_text}");
        assert_eq!(
            self.main().await?,
            format!("{heading_text}\nHTTP {status}\n{line}\nBack to the pending requests")
        );
        Ok(())
    }

    /// Runs `script` in the page (the forms' fields, as a person with the browser's
    /// developer tools could change them): what it returns.
    pub(crate) async fn script(&self, script: &str) -> Result<Value, CmdError> {
        self.client.execute(script, vec![]).await
    }
}

struct Served {
    address: String,
    page: ApprovalsPage,
    approvals: MemoryApprovals,
    closed: Arc<AtomicUsize>,
}

/// The desk on a free loopback port, its approvals page deciders `acme:carol`; callers
/// `alice-token` (acme:alice) and `bob-token` (globex:bob). With `callers_confirm`, callers
/// confirm their own requests on the page (URL-mode elicitation) and the MCP endpoint keeps
/// sessions, so that the elicitation reaches the client during its call.
async fn serve(callers_confirm: bool) -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let tokens = StaticTokens::new()
        .with("alice-token", Identity::new("alice").with_tenant("acme"))
        .with("bob-token", Identity::new("bob").with_tenant("globex"));
    let approvals = MemoryApprovals::default();
    let mut page = ApprovalsPage::new().deciders(["acme:carol"]);
    if callers_confirm {
        page = page.callers_confirm();
    }
    // The audit records in a JSON Lines file of this desk's own: a decided request's page
    // shows its trail from it.
    let audit = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("approval_browser")
        .join(format!(
            "{}-{}.jsonl",
            std::process::id(),
            address.replace(':', "-")
        ));
    std::fs::create_dir_all(audit.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&audit);
    let options = HttpOptions {
        state: State::new()
            .with_approval_store(Arc::new(approvals.clone()))
            .with_audit_sink(Arc::new(JsonLinesSink::open(&audit).unwrap()))
            .allow_mixed_stores(),
        sessions: callers_confirm,
        ..HttpOptions::default()
    }
    .with_approvals_page(page.clone());
    let closed = approvals::serve(listener, Arc::new(tokens), options);
    Served {
        address,
        page,
        approvals,
        closed,
    }
}

/// `close_ticket` of `ticket` as the holder of `token` (a client that cannot elicit), with
/// `request` as its approval request id: the result.
async fn close(address: &str, token: &str, ticket: &str, request: Option<&str>) -> Value {
    let mut arguments = json!({"ticketId": ticket, "note": NOTE, "token": SECRET});
    if let Some(id) = request {
        arguments["approvalRequestId"] = json!(id);
    }
    close_with(address, token, arguments).await
}

/// `close_ticket` with `arguments` as the holder of `token`: the result.
async fn close_with(address: &str, token: &str, arguments: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "close_ticket", "arguments": arguments}});
    let response = reqwest::Client::new()
        .post(format!("http://{address}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .bearer_auth(token)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    answer["result"].clone()
}

/// A call of `token`'s blocked for approval: its `approvalRequestId`.
async fn blocked(served: &Served, token: &str, ticket: &str) -> String {
    let result = close(&served.address, token, ticket, None).await;
    assert_eq!(result["structuredContent"]["status"], "blocked", "{result}");
    result["structuredContent"]["approvalRequestId"]
        .as_str()
        .expect("an approvalRequestId")
        .to_owned()
}

/// A retry with a request that cannot be used: exactly this answer, `message` its reason
/// (a `conflict`; nothing ran, so retrying is safe, but not unchanged).
fn assert_refused_retry(result: &Value, message: &str) {
    let audit = result["structuredContent"]["auditEventId"]
        .as_str()
        .unwrap_or_else(|| panic!("an auditEventId: {result}"));
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"],
        json!({
            "status": "failed",
            "errorKind": "conflict",
            "retrySafe": true,
            "message": message,
            "auditEventId": audit,
        })
    );
    assert_eq!(
        result["content"][0]["text"],
        format!("Error (conflict): {message} Safe to retry; unchanged, it gets the same answer. Audit event `{audit}`.")
    );
}

async fn decision(served: &Served, id: &str) -> Decision {
    served.approvals.get(id).await.unwrap().unwrap().decision
}

/// Saves the browser's screenshot as `docs/guide/img/{name}`, of request `id`'s pages.
///
/// Only when the page changed: beside each PNG is the page's HTML as Chromium holds it
/// (`{stem}.html`, its style included), with what changes on every run masked (the
/// request's id, the CSRF token, the times). The PNG is written again only when that HTML
/// differs from the committed one (or the PNG is missing), so a run that changes nothing
/// on the page leaves both files as they are, and a change to the page shows in review in
/// both. (A new Chromium that draws the same page otherwise is not noticed: delete the PNG
/// to redraw it.)
async fn screenshot(client: &fantoccini::Client, name: &str, id: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide/img");
    std::fs::create_dir_all(&dir).unwrap();
    let page = masked(&client.source().await.expect("the page's source"), id);
    let html = dir.join(Path::new(name).with_extension("html"));
    let png_path = dir.join(name);
    if png_path.exists() && std::fs::read_to_string(&html).is_ok_and(|old| old == page) {
        return;
    }
    let png = client.screenshot().await.expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "{name} is a PNG");
    std::fs::write(png_path, png).unwrap();
    std::fs::write(html, page).unwrap();
}

/// `page` with request id `id`, the CSRF tokens (`name="csrf" value="..."`), UUIDs, the
/// times (`2026-12-15 10:04:05 UTC`, `10:04:05.123 UTC`) and the minutes left (`in 9 min`)
/// masked.
fn masked(page: &str, id: &str) -> String {
    let mut page = page.replace(id, "{request id}");
    let field = r#"name="csrf" value=""#;
    let mut from = 0;
    while let Some(at) = page[from..].find(field) {
        let start = from + at + field.len();
        let end = start + page[start..].find('"').expect("the value ends");
        page.replace_range(start..end, "{csrf}");
        from = start;
    }
    // `YYYY-MM-DD hh:mm:ss UTC` (with milliseconds in the audit trail), digits where the
    // shape has `9`; UUIDs (the approval's id, the audit event ids), hexadecimal digits
    // where it has `f`.
    let shapes = [
        ("9999-99-99 99:99:99.999 UTC", "{time}"),
        ("9999-99-99 99:99:99 UTC", "{time}"),
        ("ffffffff-ffff-ffff-ffff-ffffffffffff", "{uuid}"),
    ];
    let mut out = String::with_capacity(page.len());
    let mut rest = page.as_str();
    'scan: while !rest.is_empty() {
        for (shape, mask) in shapes {
            let fits = rest.get(..shape.len()).is_some_and(|c| {
                c.bytes().zip(shape.bytes()).all(|(c, s)| match s {
                    b'9' => c.is_ascii_digit(),
                    b'f' => c.is_ascii_hexdigit(),
                    _ => c == s,
                })
            });
            if fits {
                out.push_str(mask);
                rest = &rest[shape.len()..];
                continue 'scan;
            }
        }
        let c = rest.chars().next().unwrap();
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    let mut page = out;
    let mut from = 0;
    while let Some(at) = page[from..].find("(in ").map(|at| from + at) {
        from = at + 1;
        let digits = page[at + 4..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        if digits > 0 && page[at + 4 + digits..].starts_with(" min)") {
            page.replace_range(at..at + 4 + digits + " min)".len(), "(in {n} min)");
        }
    }
    page
}

/// Waits until the page's heading is `text` (the navigation a click started has
/// ended). Errors while the browser is between two documents are retried; the last
/// is returned after 30 seconds.
pub(crate) async fn heading(client: &fantoccini::Client, text: &str) -> Result<(), CmdError> {
    let xpath = format!(r#"//h1[text()="{text}"]"#);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match client.find(Locator::XPath(&xpath)).await {
            Ok(_) => return Ok(()),
            Err(error) if Instant::now() > deadline => return Err(error),
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Another origin on loopback (another port: another origin, the same site), serving
/// `pages` (path, HTML) over HTTP/1.1, one request a connection: its `host:port`.
async fn another_origin(pages: Vec<(&'static str, String)>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let pages = Arc::new(pages);
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let pages = Arc::clone(&pages);
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && head.len() < 16 * 1024 {
                    match stream.read(&mut byte).await {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                let head = String::from_utf8_lossy(&head);
                let path = head.split(' ').nth(1).unwrap_or_default();
                let (status, body) = match pages.iter().find(|(p, _)| *p == path) {
                    Some((_, body)) => ("200 OK", body.clone()),
                    None => ("404 Not Found", String::new()),
                };
                let response = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\n\
                     content-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    address
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_approves_in_chromium_and_the_retry_runs_once() {
    let served = serve(false).await;
    let id = blocked(&served, "alice-token", "T-42").await;

    let chromium = Chromium::start().await;
    let client = &chromium.client;
    let result = async {
        // The one-time link signs carol in and lands on the list.
        chromium.sign_in(&served, "acme:carol").await?;
        let list = client.source().await?;
        assert!(list.contains("Pending approval requests"), "{list}");
        assert!(list.contains("signed in as carol (acme)"), "{list}");
        assert!(list.contains("Close ticket T-42"), "{list}");
        screenshot(client, "approvals-list.png", &id).await;

        // The request: its arguments, the secret withheld.
        chromium.at("open the request from the list");
        client
            .find(Locator::Css(&format!(
                r#"a[href="/approvals/requests/{id}"]"#
            )))
            .await?
            .click()
            .await?;
        chromium.at("wait for the request page");
        heading(client, "Close a ticket").await?;
        assert_eq!(
            client.current_url().await?.path(),
            format!("/approvals/requests/{id}")
        );
        assert_eq!(
            client.find(Locator::Css("h1")).await?.text().await?,
            "Close a ticket"
        );
        chromium.at("read the arguments");
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
        screenshot(client, "approvals-request.png", &id).await;

        // Approve.
        chromium.at("approve");
        chromium.click("Approve", "Approved").await?;
        let approved = client.source().await?;
        assert!(approved.contains("<h1>Approved</h1>"), "{approved}");
        assert!(
            approved.contains("the caller's next call with this request runs once"),
            "{approved}"
        );
        let stored = decision(&served, &id).await;
        let Decision::Approved {
            approval_id,
            approver,
        } = &stored
        else {
            panic!("{stored:?}")
        };
        assert_eq!(approver, "acme:carol");

        // The MCP call's retry runs the write once; a second retry does not run it again.
        let retried = close(&served.address, "alice-token", "T-42", Some(&id)).await;
        assert_eq!(
            retried["structuredContent"]["status"], "succeeded",
            "{retried}"
        );
        assert_eq!(served.closed.load(Ordering::SeqCst), 1);
        let again = close(&served.address, "alice-token", "T-42", Some(&id)).await;
        assert_ne!(again["structuredContent"]["status"], "succeeded", "{again}");
        assert_eq!(served.closed.load(Ordering::SeqCst), 1);

        // The decided request's page: the decision and the audit trail, each step with its
        // audit event id (the write's is the one its result carries).
        chromium.at("open the decided request");
        chromium.open(&served, &id).await?;
        assert_eq!(chromium.status().await?, 200);
        assert_eq!(
            client
                .find(Locator::Css("p.decision"))
                .await?
                .text()
                .await?,
            format!(
                "Approved by carol (acme): approval {approval_id}, used by the write it was for."
            )
        );
        assert!(client.find_all(Locator::Css("main form")).await?.is_empty());
        chromium.at("read the audit trail");
        let mut steps = Vec::new();
        for row in client
            .find_all(Locator::Css("table.trail tbody tr"))
            .await?
        {
            let cells = row.find_all(Locator::Css("td")).await?;
            let mut texts = Vec::new();
            for cell in cells.iter().skip(1).take(3) {
                texts.push(cell.text().await?);
            }
            steps.push(texts);
        }
        let write_event = retried["structuredContent"]["auditEventId"]
            .as_str()
            .unwrap();
        let again_event = again["structuredContent"]["auditEventId"].as_str().unwrap();
        let shown: Vec<(&str, &str)> = steps
            .iter()
            .map(|row| (row[0].as_str(), row[2].as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                ("blocked", "blocked (policy_blocked)"),
                ("approved", ""),
                ("attempt", ""),
                ("outcome", "succeeded"),
                ("outcome", "failed (conflict)"),
            ],
            "{steps:?}"
        );
        assert_eq!(steps[2][1], write_event);
        assert_eq!(steps[3][1], write_event);
        assert_eq!(steps[4][1], again_event);
        // Tall enough for the whole trail.
        client.set_window_size(1000, 1400).await?;
        screenshot(client, "approvals-decided.png", &id).await;
        Ok(())
    }
    .await;
    chromium.finish(result).await;
}

/// A reason with markup in it: the page shows it as text.
const REASON: &str = "Not before the <b>vendor</b> signs off & confirms";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejection_with_its_reason_is_shown_recorded_and_refuses_the_retry() {
    let served = serve(false).await;
    let id = blocked(&served, "alice-token", "T-43").await;
    let chromium = Chromium::start().await;
    let result = async {
        chromium.sign_in(&served, "acme:carol").await?;
        chromium.open(&served, &id).await?;
        chromium.reason(REASON).await?;
        chromium.at("reject");
        chromium.click("Reject", "Rejected").await?;
        // The reason as text, escaped: no `b` element was made of it.
        chromium
            .message(
                200,
                "Rejected",
                &format!("Rejected: the write never runs under this request ({REASON})."),
            )
            .await?;
        assert!(chromium
            .client
            .find_all(Locator::Css("main b"))
            .await?
            .is_empty());
        // The list no longer shows it.
        chromium.at("back to the list");
        chromium
            .client
            .find(Locator::LinkText("Back to the pending requests"))
            .await?
            .click()
            .await?;
        heading(&chromium.client, "Pending approval requests").await?;
        let list = chromium.main().await?;
        assert!(!list.contains("Close ticket T-43"), "{list}");
        assert!(
            list.contains("No approval request is waiting for you."),
            "{list}"
        );
        Ok(())
    }
    .await;
    chromium.finish(result).await;

    assert_eq!(
        decision(&served, &id).await,
        Decision::Rejected {
            approver: "acme:carol".into(),
            reason: REASON.into()
        }
    );
    // The MCP call's retry is refused with the reason; the write does not run.
    let retried = close(&served.address, "alice-token", "T-43", Some(&id)).await;
    assert_refused_retry(
        &retried,
        &format!("The approval request was rejected: {REASON}."),
    );
    assert_eq!(served.closed.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_decision_from_a_stale_page_is_refused_and_changes_nothing() {
    let served = serve(false).await;
    let id = blocked(&served, "alice-token", "T-44").await;
    let chromium = Chromium::start().await;
    let client = &chromium.client;
    let mut approved = None;
    let result = async {
        chromium.sign_in(&served, "acme:carol").await?;
        // The request in a first tab; then in a second, approved there.
        chromium.open(&served, &id).await?;
        let first = client.window().await?;
        chromium.at("open a second tab");
        let second = client.new_window(true).await?;
        client.switch_to_window(second.handle).await?;
        chromium.open(&served, &id).await?;
        chromium.at("approve in the second tab");
        chromium.click("Approve", "Approved").await?;
        let now = decision(&served, &id).await;
        let Decision::Approved { approval_id, .. } = &now else {
            panic!("{now:?}")
        };
        let line = format!(
            "This approval request was decided already. Approved by carol (acme): approval \
             {approval_id}, not used yet."
        );
        approved = Some(now);

        // The first tab's page is stale: its Reject form is refused.
        chromium.at("back to the first tab");
        client.switch_to_window(first).await?;
        heading(client, "Close a ticket").await?;
        chromium.reason("too late").await?;
        chromium.at("reject from the stale page");
        chromium.click("Reject", "Decided already").await?;
        chromium.message(409, "Decided already", &line).await?;
        // Opened again, it is the decided request's page: the decision, no forms.
        chromium.at("open it again");
        client
            .goto(&format!(
                "http://{}/approvals/requests/{id}",
                served.address
            ))
            .await?;
        heading(client, "Close a ticket").await?;
        assert_eq!(chromium.status().await?, 200);
        let decided = client
            .find(Locator::Css("p.decision"))
            .await?
            .text()
            .await?;
        assert!(
            decided.starts_with("Approved by carol (acme): approval ")
                && decided.ends_with(", not used yet."),
            "{decided}"
        );
        assert!(client.find_all(Locator::Css("main form")).await?.is_empty());
        Ok(())
    }
    .await;
    chromium.finish(result).await;

    let approved = approved.expect("approved in the second tab");
    assert!(
        matches!(&approved, Decision::Approved { approver, .. } if approver == "acme:carol"),
        "{approved:?}"
    );
    assert_eq!(decision(&served, &id).await, approved, "nothing changed");
    // The approval stands: the retry runs once.
    let retried = close(&served.address, "alice-token", "T-44", Some(&id)).await;
    assert_eq!(
        retried["structuredContent"]["status"], "succeeded",
        "{retried}"
    );
    assert_eq!(served.closed.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_tenants_request_is_no_such_request_in_the_browser() {
    let served = serve(false).await;
    let theirs = blocked(&served, "bob-token", "T-45").await;
    let mine = blocked(&served, "alice-token", "T-46").await;
    let chromium = Chromium::start().await;
    let result = async {
        chromium.sign_in(&served, "acme:carol").await?;
        let list = chromium.client.source().await?;
        assert!(!list.contains(&theirs), "{list}");
        assert!(list.contains(&mine), "{list}");

        // Its URL, opened by carol (acme): no such request.
        chromium.at("open globex's request");
        chromium
            .client
            .goto(&format!(
                "http://{}/approvals/requests/{theirs}",
                served.address
            ))
            .await?;
        chromium
            .message(404, "No such approval request", "No such approval request.")
            .await?;
        let page = chromium.client.source().await?;
        assert!(!page.contains("Close ticket T-45"), "{page}");

        // A form of carol's own request, its action turned to globex's: no such request.
        chromium.open(&served, &mine).await?;
        chromium.at("turn the form to globex's request");
        let turned = chromium
            .script(&format!(
                "const forms = document.querySelectorAll('main form');
                 for (const form of forms) form.action = '/approvals/requests/{theirs}';
                 return forms.length;"
            ))
            .await?;
        assert_eq!(turned, json!(2));
        chromium.at("approve globex's request");
        chromium
            .click("Approve", "No such approval request")
            .await?;
        chromium
            .message(404, "No such approval request", "No such approval request.")
            .await
    }
    .await;
    chromium.finish(result).await;

    assert_eq!(decision(&served, &theirs).await, Decision::Pending);
    assert_eq!(decision(&served, &mine).await, Decision::Pending);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_request_gets_its_page_in_the_browser() {
    let served = serve(false).await;
    let id = blocked(&served, "alice-token", "T-47").await;
    let chromium = Chromium::start().await;
    let expired = "This approval request expired; nothing was changed. The caller may ask again.";
    let result = async {
        chromium.sign_in(&served, "acme:carol").await?;
        chromium.open(&served, &id).await?;
        // While its page is open, the request expires (its record made past its time).
        let mut request = served.approvals.get(&id).await.unwrap().unwrap();
        request.expires_at = now() - 1;
        served.approvals.create(&request).await.unwrap();

        chromium.at("approve the expired request");
        chromium.click("Approve", "Expired").await?;
        chromium.message(410, "Expired", expired).await?;
        chromium.at("open it again");
        chromium
            .client
            .goto(&format!(
                "http://{}/approvals/requests/{id}",
                served.address
            ))
            .await?;
        chromium.message(410, "Expired", expired).await?;
        chromium.at("the list");
        chromium
            .client
            .goto(&format!("http://{}/approvals", served.address))
            .await?;
        let list = chromium.client.source().await?;
        assert!(!list.contains(&id), "{list}");
        Ok(())
    }
    .await;
    chromium.finish(result).await;

    assert_eq!(decision(&served, &id).await, Decision::Pending);
    let retried = close(&served.address, "alice-token", "T-47", Some(&id)).await;
    assert_refused_retry(
        &retried,
        "The approval request expired; call again without it.",
    );
    assert_eq!(served.closed.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_or_missing_csrf_token_is_refused_and_changes_nothing() {
    let served = serve(false).await;
    let id = blocked(&served, "alice-token", "T-48").await;
    let chromium = Chromium::start().await;
    let refused = "The form's CSRF token is missing or wrong (or it came from another site); \
                   nothing was changed. Open the request again and decide from its page.";
    let result = async {
        chromium.sign_in(&served, "acme:carol").await?;

        // Forged: each form's hidden token replaced by another of its length.
        chromium.open(&served, &id).await?;
        chromium.at("forge the token");
        let forged = chromium
            .script(
                "const fields = document.querySelectorAll('main input[name=csrf]');
                 const genuine = fields[0].value;
                 for (const field of fields) field.value = 'A'.repeat(genuine.length);
                 return [fields.length, genuine.length > 0, fields[0].value !== genuine];",
            )
            .await?;
        assert_eq!(forged, json!([2, true, true]));
        chromium.at("approve with the forged token");
        chromium.click("Approve", "Refused").await?;
        chromium.message(403, "Refused", refused).await?;
        assert_eq!(decision(&served, &id).await, Decision::Pending);

        // Missing: the hidden fields removed.
        chromium.open(&served, &id).await?;
        chromium.at("remove the token");
        let removed = chromium
            .script(
                "const fields = document.querySelectorAll('main input[name=csrf]');
                 for (const field of fields) field.remove();
                 return [fields.length, document.querySelectorAll('main input[name=csrf]').length];",
            )
            .await?;
        assert_eq!(removed, json!([2, 0]));
        chromium.reason("no token").await?;
        chromium.at("reject without a token");
        chromium.click("Reject", "Refused").await?;
        chromium.message(403, "Refused", refused).await?;
        assert_eq!(decision(&served, &id).await, Decision::Pending);

        // The page's own form, untouched, decides.
        chromium.open(&served, &id).await?;
        chromium.at("approve with the page's token");
        chromium.click("Approve", "Approved").await?;
        assert_eq!(chromium.status().await?, 200);
        Ok(())
    }
    .await;
    chromium.finish(result).await;
    assert!(
        matches!(decision(&served, &id).await, Decision::Approved { approver, .. } if approver == "acme:carol")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_form_of_another_origin_is_refused_even_with_the_sessions_token() {
    let served = serve(false).await;
    let id = blocked(&served, "alice-token", "T-49").await;
    let chromium = Chromium::start().await;
    let result = async {
        chromium.sign_in(&served, "acme:carol").await?;
        chromium.open(&served, &id).await?;
        // The session's real token, as if it leaked: a page of another origin (the same
        // site: loopback on another port, so the SameSite=Strict cookie goes along) posts
        // it in a form of its own.
        chromium.at("read the token");
        let token = chromium
            .script("return document.querySelector('input[name=csrf]').value;")
            .await?;
        let token = token.as_str().expect("the token").to_owned();
        let form = format!(
            r#"<!DOCTYPE html><title>Another site</title><h1>Another site</h1>
<form method="post" action="http://{}/approvals/requests/{id}">
<input type="hidden" name="csrf" value="{token}">
<input type="hidden" name="decision" value="approve">
<button type="submit">Approve</button></form>"#,
            served.address
        );
        let other = another_origin(vec![("/form", form)]).await;
        chromium.at("open the other origin's form");
        chromium
            .client
            .goto(&format!("http://{other}/form"))
            .await?;
        heading(&chromium.client, "Another site").await?;
        chromium.at("submit it");
        chromium.click("Approve", "Refused").await?;
        chromium
            .message(
                403,
                "Refused",
                "The form's CSRF token is missing or wrong (or it came from another site); \
                 nothing was changed. Open the request again and decide from its page.",
            )
            .await
    }
    .await;
    chromium.finish(result).await;
    assert_eq!(decision(&served, &id).await, Decision::Pending);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_does_not_render_in_a_frame_of_another_origin() {
    let served = serve(false).await;
    let id = blocked(&served, "alice-token", "T-50").await;
    let chromium = Chromium::start().await;
    let client = &chromium.client;
    let mut cookie = String::new();
    let result = async {
        // Signed in: unframed, the list would show carol's pending request.
        chromium.sign_in(&served, "acme:carol").await?;
        chromium.at("the session cookie");
        let session = client.get_named_cookie("mcp_result_approvals").await?;
        cookie = format!("{}={}", session.name(), session.value());

        let framing = format!(
            r#"<!DOCTYPE html><title>Another site</title><h1>Another site</h1>
<iframe src="http://{}/approvals" width="800" height="400"></iframe>
<iframe src="/own" width="800" height="100"></iframe>"#,
            served.address
        );
        let own = "<!DOCTYPE html><title>Own</title><h1>A frame of this site</h1>".to_owned();
        let other = another_origin(vec![("/framing", framing), ("/own", own)]).await;
        chromium.at("open the framing page");
        client.goto(&format!("http://{other}/framing")).await?;
        heading(client, "Another site").await?;

        // A frame of the framing site's own renders (what entering a frame reads).
        chromium.at("enter the framing site's own frame");
        client.enter_frame(1).await?;
        heading(client, "A frame of this site").await?;
        client.enter_parent_frame().await?;

        // The approvals page's frame: not rendered there.
        chromium.at("enter the approvals page's frame");
        client.enter_frame(0).await?;
        let mut headings = Vec::new();
        for h1 in client.find_all(Locator::Css("h1")).await? {
            headings.push(h1.text().await?);
        }
        assert!(
            !headings.iter().any(|h| h == "Pending approval requests"),
            "{headings:?}"
        );
        let framed = client.source().await?;
        assert!(!framed.contains("signed in as carol"), "{framed}");
        assert!(!framed.contains("Close ticket T-50"), "{framed}");
        // Chromium's own error document stands in the frame.
        let shown = client
            .execute(
                "return [document.location.href, document.body.innerText.trim()];",
                vec![],
            )
            .await?;
        assert_eq!(
            shown,
            json!([
                "chrome-error://chromewebdata/",
                "127.0.0.1 refused to connect."
            ])
        );
        client.enter_parent_frame().await?;
        Ok(())
    }
    .await;
    chromium.finish(result).await;

    // What the frame was answered: the list of carol's requests, with the headers that
    // forbid any framing.
    let response = reqwest::Client::new()
        .get(format!("http://{}/approvals", served.address))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let csp = response.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(response.headers()["x-frame-options"], "DENY");
    let body = response.text().await.unwrap();
    assert!(body.contains("Pending approval requests"), "{body}");
    assert!(body.contains(&id), "{body}");
}

/// The next line the URL-only client prints: a JSON object whose one key is `key`; its
/// value.
pub(crate) async fn client_says(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    key: &str,
) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(120), lines.next_line())
        .await
        .unwrap_or_else(|_| panic!("the client said no `{key}` within 120 s"))
        .expect("the client's stdout")
        .unwrap_or_else(|| panic!("the client ended without saying `{key}`"));
    match serde_json::from_str::<Value>(&line) {
        Ok(Value::Object(mut said)) if said.len() == 1 && said.contains_key(key) => {
            said.remove(key).unwrap()
        }
        _ => panic!("the client said {line}, expected `{key}`"),
    }
}

/// The output of a URL-only SDK client's script, line by line.
type ClientLines = tokio::io::Lines<BufReader<tokio::process::ChildStdout>>;

/// The desk with `callers_confirm`, the pinned npm clients installed, Chromium, and `script`
/// of `tests/clients/` calling `close_ticket` of `ticket` as alice: the node process and its
/// output.
async fn sdk_client(
    script: &str,
    ticket: &str,
) -> (Served, Chromium, tokio::process::Child, ClientLines) {
    let served = serve(true).await;
    tokio::task::spawn_blocking(install_npm)
        .await
        .unwrap()
        .expect("npm ci in tests/clients");
    let chromium = Chromium::start().await;
    let arguments = json!({"ticketId": ticket, "note": NOTE, "token": SECRET});
    let mut node = tokio::process::Command::new("node");
    node.arg(script)
        .current_dir(CLIENTS_DIR)
        .env("MCP_URL", format!("http://{}/mcp", served.address))
        .env("MCP_TOKEN", "alice-token")
        .env("ARGUMENTS", arguments.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let mut node = node
        .spawn()
        .unwrap_or_else(|e| panic!("start node {script}: {e}"));
    let lines = BufReader::new(node.stdout.take().unwrap()).lines();
    (served, chromium, node, lines)
}

/// The caller opens `url` (the page's one-time link an elicitation carried) in Chromium,
/// lands on its request's page signed in as alice (the ticket shown, the secret not), and
/// approves (the browser session ends): the request's id and what the decided page said.
async fn confirm_in_chromium(chromium: Chromium, url: &str, ticket: &str) -> (String, String) {
    let (mut id, mut page_said) = (String::new(), String::new());
    let result = async {
        chromium.at("open the elicitation's link");
        chromium.open_link(url, "Close a ticket").await?;
        let path = chromium.client.current_url().await?.path().to_owned();
        id = path
            .strip_prefix("/approvals/requests/")
            .expect("the request's page")
            .to_owned();
        let page = chromium.client.source().await?;
        assert!(page.contains("signed in as alice (acme)"), "{page}");
        assert!(page.contains(&format!("Close ticket {ticket}")), "{page}");
        assert!(!page.contains(SECRET), "{page}");
        chromium.at("confirm");
        chromium.click("Approve", "Approved").await?;
        assert_eq!(chromium.status().await?, 200);
        page_said = chromium.main().await?;
        Ok(())
    }
    .await;
    chromium.finish(result).await;
    (id, page_said)
}

/// The SDK client's call returned `result`: the write's, run once under the approval the
/// page gave to request `id` (`page_said`), used by alice.
async fn ran_once_under_the_pages_approval(
    served: &Served,
    result: &Value,
    ticket: &str,
    id: &str,
    page_said: &str,
) {
    assert_eq!(result["isError"], false, "{result}");
    let answer = &result["structuredContent"];
    assert_eq!(answer["status"], "succeeded", "{result}");
    assert_eq!(answer["ticketId"], ticket, "{result}");
    let approval_id = answer["approvalId"]
        .as_str()
        .expect("approvalId")
        .to_owned();
    assert_eq!(
        page_said,
        format!(
            "Approved\nHTTP 200\nApproved: go back to your client; the call that asked runs \
             the write once, under approval {approval_id}.\nBack to the pending requests"
        )
    );
    assert_eq!(
        served.closed.load(Ordering::SeqCst),
        1,
        "the write ran once"
    );
    assert_eq!(
        decision(served, id).await,
        Decision::Used {
            approval_id,
            approver: "acme:alice".into()
        }
    );
}

/// The SDK client's script ended well.
pub(crate) async fn exits_well(node: &mut tokio::process::Child) {
    let status = tokio::time::timeout(Duration::from_secs(30), node.wait())
        .await
        .expect("the client exits")
        .unwrap();
    assert!(status.success(), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_only_sdk_client_is_sent_to_the_page_and_its_call_runs_once() {
    let (served, chromium, mut node, mut lines) = sdk_client("url-elicitation.mjs", "T-51").await;
    let connected = client_says(&mut lines, "connected").await;
    assert_eq!(connected["protocolVersion"], "2025-11-25", "{connected}");
    // The elicitation the SDK client was sent: URL mode, the page's one-time link.
    let asked = client_says(&mut lines, "elicitation").await;
    assert_eq!(asked["mode"], "url", "{asked}");
    let id = asked["elicitationId"].as_str().unwrap().to_owned();
    let url = asked["url"].as_str().unwrap().to_owned();
    assert!(
        url.starts_with(&format!(
            "http://{}/approvals/sign-in?token=",
            served.address
        )),
        "{url}"
    );
    assert_eq!(
        asked["message"],
        "Approve this write? Close ticket T-51 Open the link to review and confirm it, \
         signed in as alice (acme).",
    );
    assert_eq!(decision(&served, &id).await, Decision::Pending);

    // The caller opens the link in the browser and confirms.
    let (opened, page_said) = confirm_in_chromium(chromium, &url, "T-51").await;
    assert_eq!(opened, id, "the link lands on the elicitation's request");

    // The SDK client's call returns the write's result, run once under that approval.
    let result = client_says(&mut lines, "result").await;
    ran_once_under_the_pages_approval(&served, &result, "T-51", &id, &page_said).await;
    let complete = client_says(&mut lines, "complete").await;
    assert_eq!(complete, json!({"elicitationId": id}));
    exits_well(&mut node).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_only_sdk_client_on_2026_is_sent_to_the_page_in_a_round_and_its_call_runs_once() {
    let (served, chromium, mut node, mut lines) = sdk_client("url-elicitation-2.mjs", "T-52").await;
    let connected = client_says(&mut lines, "connected").await;
    assert_eq!(connected["protocolVersion"], "2026-07-28", "{connected}");
    // The round's question, as the SDK's multi-round-trip driver handed it to the client's
    // elicitation handler: URL mode, the page's one-time link. (The SDK's 2026-07-28 schema
    // has no `elicitationId`, which that revision removed: it drops the field.)
    let asked = client_says(&mut lines, "elicitation").await;
    let url = asked["url"].as_str().expect("a url").to_owned();
    assert!(
        url.starts_with(&format!(
            "http://{}/approvals/sign-in?token=",
            served.address
        )),
        "{url}"
    );
    assert_eq!(
        asked,
        json!({"mode": "url", "url": url, "message": "Approve this write? Close ticket T-52 \
            Open the link to review and confirm it, signed in as alice (acme)."})
    );

    // The SDK called again with `accept` and the round's state; that call waits for the
    // page, where the caller confirms in the browser.
    let (id, page_said) = confirm_in_chromium(chromium, &url, "T-52").await;

    // The SDK's call returns the write's result, run once under that approval.
    let result = client_says(&mut lines, "result").await;
    ran_once_under_the_pages_approval(&served, &result, "T-52", &id, &page_said).await;
    exits_well(&mut node).await;
}

/// The URL-mode round of `close_ticket` of `ticket` as the holder of `token`, on MCP
/// 2026-07-28 over raw JSON-RPC, its client declaring only URL-mode elicitation: the link
/// the round carries and the request's id (`elicitationId`).
async fn url_round(served: &Served, token: &str, ticket: &str) -> (String, String) {
    let params = json!({"name": "close_ticket",
        "arguments": {"ticketId": ticket, "note": NOTE, "token": SECRET},
        "_meta": approvals::meta_2026(json!({"url": {}}))});
    let url = format!("http://{}/mcp", served.address);
    let result = approvals::call_2026(&url, token, params).await;
    assert_eq!(result["resultType"], "input_required", "{result}");
    let asked = &result["inputRequests"]["approval"]["params"];
    assert_eq!(asked["mode"], "url", "{result}");
    (
        asked["url"].as_str().expect("a url").to_owned(),
        asked["elicitationId"].as_str().expect("an id").to_owned(),
    )
}

/// Clicks the link `#{id}` of the page shown and waits for the page whose heading is
/// `then`; a page with another heading fails the step, naming where the browser landed
/// and what it shows.
async fn follow(chromium: &Chromium, id: &str, then: &str) -> Result<(), CmdError> {
    let client = &chromium.client;
    client.find(Locator::Id(id)).await?.click().await?;
    if let Err(error) = heading(client, then).await {
        let url = client.current_url().await?;
        let main = chromium.main().await.unwrap_or_default();
        let status = chromium.status().await.unwrap_or_default();
        eprintln!("expected `{then}`, landed on {url} ({status}): {main:?}");
        return Err(error);
    }
    Ok(())
}

/// A sign-in link clicked on a page of another site (a chat client's web page, a web mail:
/// here `localhost`, another site than `127.0.0.1`, where the desk is): the navigation
/// started on another site, so Chromium sends no `SameSite=Strict` cookie on a redirect of
/// its chain. The link answers a page that moves on by itself (`Refresh`), a navigation the
/// page's own document starts, which carries the session just set: the decider's link
/// lands on the list, the caller's (URL-mode elicitation) on its request, each signed in,
/// and the caller confirms there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_link_clicked_on_another_site_lands_signed_in() {
    let served = serve(true).await;
    let (caller_link, id) = url_round(&served, "alice-token", "T-53").await;
    assert!(
        caller_link.starts_with(&format!(
            "http://{}/approvals/sign-in?token=",
            served.address
        )),
        "{caller_link}"
    );
    let decider_link = served
        .page
        .sign_in_link(&served.approvals, &Identity::parse("acme:carol").unwrap())
        .await
        .unwrap();
    let chat = format!(
        r#"<!DOCTYPE html><title>Another site</title><h1>Another site</h1>
<p><a id="decider" href="http://{}{decider_link}">Review the pending requests</a></p>
<p><a id="caller" href="{caller_link}">Confirm your request</a></p>"#,
        served.address
    );
    let other = another_origin(vec![("/chat", chat)]).await;
    let port = other.rsplit_once(':').unwrap().1;
    let chat = format!("http://localhost:{port}/chat");

    let chromium = Chromium::start().await;
    let client = &chromium.client;
    let result = async {
        chromium.at("open the other site's page");
        client.goto(&chat).await?;
        heading(client, "Another site").await?;
        chromium.at("click the decider's sign-in link");
        follow(&chromium, "decider", "Sign in").await?;
        chromium
            .click("Sign in", "Pending approval requests")
            .await?;
        assert_eq!(client.current_url().await?.path(), "/approvals");
        let list = client.source().await?;
        assert!(list.contains("signed in as carol (acme)"), "{list}");
        assert!(list.contains("Close ticket T-53"), "{list}");

        // Signed out again; the caller's link, clicked on the same page of another site.
        chromium.at("sign out");
        client.delete_all_cookies().await?;
        client.goto(&chat).await?;
        heading(client, "Another site").await?;
        chromium.at("click the caller's sign-in link");
        follow(&chromium, "caller", "Sign in").await?;
        chromium.click("Sign in", "Close a ticket").await?;
        assert_eq!(
            client.current_url().await?.path(),
            format!("/approvals/requests/{id}")
        );
        let page = client.source().await?;
        assert!(page.contains("signed in as alice (acme)"), "{page}");
        assert!(!page.contains(SECRET), "{page}");
        chromium.at("confirm");
        chromium.click("Approve", "Approved").await?;
        assert_eq!(chromium.status().await?, 200);
        Ok(())
    }
    .await;
    chromium.finish(result).await;
    assert!(
        matches!(
            decision(&served, &id).await,
            Decision::Approved { approver, .. } if approver == "acme:alice"
        ),
        "approved on the page by its caller"
    );
    assert_eq!(
        served.closed.load(Ordering::SeqCst),
        0,
        "no call came again"
    );
}

/// The approver in Chromium (issue 51): a sign-in link fetched first by a previewer (`GET`
/// and `HEAD`) still signs in from its page's button; the request's nested array argument
/// is read item by item, its direction override shown marked under the warning; then the
/// approver signs out, and the session is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_approver_reads_items_one_by_one_and_signs_out_and_a_previewed_link_still_works() {
    let served = serve(false).await;
    let arguments = json!({"ticketId": "T-60", "token": SECRET, "related": [
        {"ticketId": "T-61", "reason": "duplicate"},
        {"ticketId": "T-62", "reason": "\u{202e}etacilpud"}
    ]});
    let result = close_with(&served.address, "alice-token", arguments).await;
    let id = result["structuredContent"]["approvalRequestId"]
        .as_str()
        .expect("blocked")
        .to_owned();
    let link = served
        .page
        .sign_in_link(&served.approvals, &Identity::parse("acme:carol").unwrap())
        .await
        .unwrap();
    let url = format!("http://{}{link}", served.address);
    // A chat client previews the link: nothing spent, no session.
    let previewer = reqwest::Client::new();
    let preview = previewer.get(&url).send().await.unwrap();
    assert_eq!(preview.status(), 200);
    assert!(preview.headers().get("set-cookie").is_none());
    assert_eq!(previewer.head(&url).send().await.unwrap().status(), 200);

    let chromium = Chromium::start().await;
    let client = &chromium.client;
    let result = async {
        chromium.at("sign in from the previewed link");
        chromium
            .open_link(&url, "Pending approval requests")
            .await?;
        chromium.open(&served, &id).await?;
        chromium.at("read the arguments");
        let rows = chromium
            .script(
                "return [...document.querySelectorAll('main tbody tr')].map(row =>
                   [row.querySelector('th').className, row.querySelector('th').innerText,
                    row.querySelector('td').innerText]);",
            )
            .await?;
        let related = [
            json!(["d0", "related", "2 items"]),
            json!(["d1", "item 1", "2 properties"]),
            json!(["d2", "reason", "duplicate"]),
            json!(["d2", "ticketId", "T-61"]),
            json!(["d1", "item 2", "2 properties"]),
            json!(["d2", "reason", "[U+202E]etacilpud"]),
            json!(["d2", "ticketId", "T-62"]),
        ];
        let rows = rows.as_array().unwrap();
        let at = rows
            .iter()
            .position(|row| row[1] == "related")
            .expect("the related row");
        // In the order serde_json keeps the keys (sorted without `preserve_order`).
        let shown: Vec<&Value> = rows[at..at + 7].iter().collect();
        let mut expected: Vec<Value> = related.to_vec();
        if cfg!(feature = "preserve-order") {
            expected.swap(2, 3);
            expected.swap(5, 6);
        }
        assert_eq!(shown, expected.iter().collect::<Vec<_>>());
        let page = chromium.main().await?;
        assert!(
            page.contains(
                "Warning: characters that change how text reads (direction overrides, \
                 zero-width or other invisible characters, control characters) are in \
                 /related/1/reason."
            ),
            "{page}"
        );
        assert!(!page.contains('\u{202e}'), "{page}");
        chromium.at("sign out");
        chromium.click("Sign out", "Signed out").await?;
        assert_eq!(chromium.status().await?, 200);
        assert_eq!(
            chromium.main().await?,
            "Signed out\nHTTP 200\nYou are signed out of the approvals page."
        );
        chromium.at("the list, signed out");
        client
            .goto(&format!("http://{}/approvals", served.address))
            .await?;
        heading(client, "Not signed in").await?;
        assert_eq!(chromium.status().await?, 401);
        Ok(())
    }
    .await;
    chromium.finish(result).await;
    assert_eq!(decision(&served, &id).await, Decision::Pending);
}

/// A notes desk whose `put_note` asks for its approval from its body, only to overwrite
/// (`approval::Approval`): its notes, and how many writes ran.
#[derive(Clone)]
struct Notes {
    notes: Arc<std::sync::Mutex<std::collections::BTreeMap<String, String>>>,
    writes: Arc<AtomicUsize>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PutArgs {
    /// The note's name.
    name: String,
    /// Its text.
    body: String,
}

/// A note was written.
#[derive(serde::Serialize, schemars::JsonSchema, mcp_result::ToolResult)]
#[serde(rename_all = "camelCase")]
struct Put {
    name: String,
    status: mcp_result::Status,
    retry_safe: bool,
    audit_event_id: mcp_result::AuditEventId,
    approval_id: Option<String>,
}

#[mcp_result::mcp_tools]
impl Notes {
    /// Write a note; overwriting one needs a person's approval.
    #[mcp_tool(title = "Write a note")]
    async fn put_note(
        &self,
        args: PutArgs,
        mut approval: mcp_result::approval::Approval,
        write: mcp_result::extract::WriteContext,
    ) -> Result<Put, mcp_result::ToolError> {
        let existing = self.notes.lock().unwrap().get(&args.name).map(String::len);
        let approved = match existing {
            Some(length) => Some(
                approval
                    .require(format!(
                        "Overwrite note {} ({length} characters)",
                        args.name
                    ))
                    .await?,
            ),
            None => None,
        };
        self.writes.fetch_add(1, Ordering::SeqCst);
        self.notes
            .lock()
            .unwrap()
            .insert(args.name.clone(), args.body);
        Ok(Put {
            name: args.name,
            status: mcp_result::Status::Succeeded,
            retry_safe: write.retry_safe(),
            audit_event_id: write.audit_event_id().clone(),
            approval_id: approved.map(|a| a.approval_id),
        })
    }
}

#[mcp_result::mcp_handler]
impl mcp_result::rmcp::ServerHandler for Notes {}

/// `put_note` with `arguments` as alice, on the notes desk at `address`: the result.
async fn put_note(address: &str, arguments: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "put_note", "arguments": arguments}});
    let response = reqwest::Client::new()
        .post(format!("http://{address}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .bearer_auth("alice-token")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    answer["result"].clone()
}

/// The question a tool asks from its body, after its own checks, decided in Chromium: a new
/// note is written without one; an overwrite is blocked with the text the tool resolved,
/// which the decider reads on the request's page beside the arguments and approves; the
/// call again with the id overwrites once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_the_tool_asks_from_its_body_is_decided_in_chromium() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let approvals = MemoryApprovals::default();
    let page = ApprovalsPage::new().deciders(["acme:carol"]);
    let options = HttpOptions {
        state: State::new().with_approval_store(Arc::new(approvals.clone())),
        ..HttpOptions::default()
    }
    .with_approvals_page(page.clone());
    let notes = Notes {
        notes: Arc::default(),
        writes: Arc::default(),
    };
    notes
        .notes
        .lock()
        .unwrap()
        .insert("groceries".into(), "milk".into());
    let served = notes.clone();
    let tokens =
        StaticTokens::new().with("alice-token", Identity::new("alice").with_tenant("acme"));
    tokio::spawn(async move {
        mcp_result::http::serve_http(
            served,
            listener,
            Arc::new(tokens),
            options,
            std::future::pending(),
        )
        .await
        .unwrap();
    });

    // A new note: written, no question.
    let new = put_note(&address, json!({"name": "todo", "body": "call Ann"})).await;
    assert_eq!(new["structuredContent"]["status"], "succeeded", "{new}");
    // An overwrite: blocked with the tool's own text.
    let arguments = json!({"name": "groceries", "body": "oat milk"});
    let blocked = put_note(&address, arguments.clone()).await;
    let id = blocked["structuredContent"]["approvalRequestId"]
        .as_str()
        .unwrap_or_else(|| panic!("blocked: {blocked}"))
        .to_owned();

    let link = page
        .sign_in_link(&approvals, &Identity::parse("acme:carol").unwrap())
        .await
        .unwrap();
    let chromium = Chromium::start().await;
    let result = async {
        chromium
            .open_link(
                &format!("http://{address}{link}"),
                "Pending approval requests",
            )
            .await?;
        chromium.at("open the request");
        chromium
            .client
            .goto(&format!("http://{address}/approvals/requests/{id}"))
            .await?;
        heading(&chromium.client, "Write a note").await?;
        let shown = chromium.main().await?;
        assert!(
            shown.contains("Overwrite note groceries (4 characters)"),
            "{shown}"
        );
        assert!(shown.contains("oat milk"), "{shown}");
        chromium.at("approve");
        chromium.click("Approve", "Approved").await?;
        assert_eq!(chromium.status().await?, 200);
        Ok(())
    }
    .await;
    chromium.finish(result).await;

    let mut again = arguments;
    again["approvalRequestId"] = json!(id);
    let ran = put_note(&address, again).await;
    assert_eq!(ran["structuredContent"]["status"], "succeeded", "{ran}");
    assert!(ran["structuredContent"]["approvalId"].is_string(), "{ran}");
    assert_eq!(notes.notes.lock().unwrap()["groceries"], "oat milk");
    assert_eq!(
        notes.writes.load(Ordering::SeqCst),
        2,
        "todo once, groceries once"
    );
}
