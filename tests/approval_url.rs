//! URL-mode elicitation to the approvals page (issue 40, second slice): a caller whose
//! client declared only URL-mode elicitation (`{"elicitation": {"url": {}}}`, MCP
//! 2025-11-25) is sent, for a gated write, to its request's page, signs in through the
//! one-time link bound to its identity, and confirms there; the waiting call then runs the
//! write once under that approval. A server written as the README teaches, served by
//! `serve_http` (with sessions: the elicitation goes to the client during the call) on a
//! real TCP port; rmcp's client over streamable HTTP, whose `create_elicitation` plays the
//! browser with reqwest.
//!
//! - Approved on the page: the write runs once, its result and its audit intent carry the
//!   approval (approver: the caller), the link is used, `notifications/elicitation/complete`
//!   names the elicitation.
//! - Another identity, signed in to its own request, opening the caller's request: `403`,
//!   for the page and for the form; the caller's request stays pending.
//! - The client declines: the write does not run (`policy_blocked`, as a declined form),
//!   and the request is rejected, so its page cannot approve it later.
//! - A page without `callers_confirm`: the same client is answered out of band (`blocked`
//!   with an `approvalRequestId`), as before; a client that declared form mode is asked
//!   with a form.

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::Duration,
};

use mcp_result::{
    approval::{ApprovalRequest, ApprovalStore, Decision, MemoryApprovals, Review},
    audit::{read_records, JsonLinesSink, Phase},
    extract::WriteContext,
    http::{serve_http, ApprovalsPage, HttpOptions, StaticTokens},
    mcp_handler, mcp_tools,
    rmcp::{
        model::{
            CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities,
            ClientConfig, CustomNotification, ElicitRequestParams, ElicitResult, ElicitationAction,
            ElicitationCapability, FormElicitationCapability, Implementation,
            UrlElicitationCapability,
        },
        service::{
            serve_client_with_lifecycle, ClientLifecycleMode, NotificationContext, RequestContext,
            RoleClient, RunningService,
        },
        transport::{
            streamable_http_client::StreamableHttpClientTransportConfig,
            StreamableHttpClientTransport,
        },
        ClientHandler, ErrorData, ServerHandler,
    },
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
    approval_id: Option<String>,
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
        self.closed.fetch_add(1, Ordering::SeqCst);
        Ok(Closed {
            ticket_id: args.ticket_id,
            status: Status::Succeeded,
            retry_safe: false,
            audit_event_id: write.audit_event_id().clone(),
            approval_id: None,
        })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

const SECRET: &str = "s3cret-upstream-credential";

struct Served {
    address: String,
    approvals: MemoryApprovals,
    closed: Arc<AtomicUsize>,
    audit: std::path::PathBuf,
}

/// The desk on a free loopback port with sessions, its page at `/approvals` (deciders
/// `acme:carol`; callers confirm their own requests when `callers_confirm`); callers
/// `alice-token` (acme:alice) and `dave-token` (acme:dave).
async fn serve(name: &str, callers_confirm: bool) -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let tokens = StaticTokens::new()
        .with("alice-token", Identity::new("alice").with_tenant("acme"))
        .with("dave-token", Identity::new("dave").with_tenant("acme"));
    let approvals = MemoryApprovals::default();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("approval_url");
    std::fs::create_dir_all(&dir).unwrap();
    let audit = dir.join(format!("{name}-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&audit);
    let mut page = ApprovalsPage::new().deciders(["acme:carol"]);
    if callers_confirm {
        page = page.callers_confirm();
    }
    let options = HttpOptions {
        state: State::new()
            .with_approval_store(Arc::new(approvals.clone()))
            .with_audit_sink(Arc::new(JsonLinesSink::open(&audit).unwrap())),
        sessions: true,
        ..HttpOptions::default()
    }
    .with_approvals_page(page);
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
        approvals,
        closed,
        audit,
    }
}

/// What the person at the browser does with the link.
#[derive(Clone)]
enum Act {
    /// Signs in, approves with the page's CSRF token, then accepts.
    Approve,
    /// Signs in, then opens (and posts to) another request's page; then declines.
    Intrude(String),
    /// Declines without opening the link.
    Decline,
    /// Fills the approval form (a client that declared form mode).
    Form,
}

/// What the browser saw: each step's name, status and page.
#[derive(Default)]
struct Seen {
    asked: Vec<ElicitRequestParams>,
    pages: Vec<(&'static str, u16, String)>,
    notifications: Vec<CustomNotification>,
}

impl Seen {
    fn page(&self, step: &str) -> (u16, &str) {
        let (_, status, body) = self
            .pages
            .iter()
            .find(|(name, ..)| *name == step)
            .unwrap_or_else(|| panic!("no step {step}: {:?}", self.steps()));
        (*status, body)
    }
    fn steps(&self) -> Vec<(&'static str, u16)> {
        self.pages.iter().map(|(n, s, _)| (*n, *s)).collect()
    }
}

/// A host that declared only URL-mode elicitation (or only form mode, for [`Act::Form`]);
/// its user's browser is reqwest, the session cookie carried by hand.
#[derive(Clone)]
struct Host {
    address: String,
    act: Act,
    seen: Arc<Mutex<Seen>>,
}

fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// The CSRF token of a request's page.
fn csrf(html: &str) -> String {
    let at = html.find(r#"name="csrf" value=""#).expect("a CSRF field") + 19;
    html[at..].split('"').next().unwrap().to_owned()
}

impl Host {
    fn saw(&self, step: &'static str, status: u16, body: String) {
        self.seen.lock().unwrap().pages.push((step, status, body));
    }

    async fn get(&self, step: &'static str, path: &str, cookie: &str) -> String {
        let response = browser()
            .get(format!("http://{}{path}", self.address))
            .header("cookie", cookie)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let body = response.text().await.unwrap();
        self.saw(step, status, body.clone());
        body
    }

    async fn post(&self, step: &'static str, path: &str, cookie: &str, csrf: &str) {
        let response = browser()
            .post(format!("http://{}{path}", self.address))
            .header("cookie", cookie)
            .header("origin", format!("http://{}", self.address))
            .form(&[("csrf", csrf), ("decision", "approve")])
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        self.saw(step, status, response.text().await.unwrap());
    }

    /// Follows the elicitation's link: the session cookie and where it leads.
    async fn sign_in(&self, url: &str) -> (String, String) {
        let response = browser().get(url).send().await.unwrap();
        let status = response.status().as_u16();
        let location = response
            .headers()
            .get("location")
            .map(|l| l.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let cookie = response
            .headers()
            .get("set-cookie")
            .map(|c| c.to_str().unwrap().split(';').next().unwrap().to_owned())
            .unwrap_or_default();
        self.saw("sign-in", status, location.clone());
        // A second use of the same link.
        let again = browser().get(url).send().await.unwrap();
        let status = again.status().as_u16();
        self.saw("sign-in again", status, again.text().await.unwrap());
        (cookie, location)
    }
}

impl ClientHandler for Host {
    fn get_info(&self) -> ClientConfig {
        let modes = match self.act {
            Act::Form => ElicitationCapability::new().with_form(FormElicitationCapability::new()),
            _ => ElicitationCapability::new().with_url(UrlElicitationCapability::new()),
        };
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(modes);
        ClientConfig::new(
            capabilities,
            Implementation::new("approval-url-host", "0.1.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.seen.lock().unwrap().asked.push(request.clone());
        let url = match &request {
            ElicitRequestParams::UrlElicitationParams { url, .. } => url.clone(),
            _ => {
                return Ok(ElicitResult::new(ElicitationAction::Accept)
                    .with_content(json!({"approve": true})))
            }
        };
        match &self.act {
            Act::Decline | Act::Form => Ok(ElicitResult::new(ElicitationAction::Decline)),
            Act::Approve => {
                let (cookie, location) = self.sign_in(&url).await;
                let body = self.get("request", &location, &cookie).await;
                self.get("list", "/approvals", &cookie).await;
                self.post("approve", &location, &cookie, &csrf(&body)).await;
                Ok(ElicitResult::new(ElicitationAction::Accept))
            }
            Act::Intrude(other) => {
                let (cookie, location) = self.sign_in(&url).await;
                let own = self.get("own request", &location, &cookie).await;
                let theirs = format!("/approvals/requests/{other}");
                self.get("other request", &theirs, &cookie).await;
                self.post("other approve", &theirs, &cookie, &csrf(&own))
                    .await;
                self.get("list", "/approvals", &cookie).await;
                Ok(ElicitResult::new(ElicitationAction::Decline))
            }
        }
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        self.seen.lock().unwrap().notifications.push(notification);
    }
}

type Client = RunningService<RoleClient, Host>;

async fn connect(served: &Served, token: &str, act: Act) -> (Client, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let host = Host {
        address: served.address.clone(),
        act,
        seen: Arc::clone(&seen),
    };
    let url = format!("http://{}/mcp", served.address);
    let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(token);
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    let client = serve_client_with_lifecycle(host, transport, ClientLifecycleMode::Initialize)
        .await
        .expect("connect");
    (client, seen)
}

async fn close(client: &Client, ticket: &str) -> CallToolResult {
    let params = CallToolRequestParams::new("close_ticket").with_arguments(
        json!({"ticketId": ticket, "token": SECRET})
            .as_object()
            .unwrap()
            .clone(),
    );
    match tokio::time::timeout(Duration::from_secs(60), client.call_tool_once(params))
        .await
        .expect("the call answers")
        .unwrap()
    {
        CallToolResponse::Complete(result) => result,
        other => panic!("expected a complete result, got {other:?}"),
    }
}

fn structured(result: &CallToolResult) -> Value {
    result
        .structured_content
        .clone()
        .expect("structuredContent")
}

/// The URL-mode elicitation the host was sent: its url and elicitationId.
fn url_asked(seen: &Seen) -> (String, String, String) {
    assert_eq!(seen.asked.len(), 1, "{:?}", seen.asked);
    match &seen.asked[0] {
        ElicitRequestParams::UrlElicitationParams {
            url,
            elicitation_id,
            message,
            ..
        } => (url.clone(), elicitation_id.clone(), message.clone()),
        other => panic!("expected a URL-mode elicitation, got {other:?}"),
    }
}

#[tokio::test]
async fn the_caller_confirms_on_the_page_and_the_write_runs_once() {
    let served = serve("approve", true).await;
    let (alice, seen) = connect(&served, "alice-token", Act::Approve).await;
    let result = close(&alice, "T-1").await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let approval_id = structured(&result)["approvalId"]
        .as_str()
        .expect("the approval id in the result")
        .to_owned();
    assert_eq!(
        served.closed.load(Ordering::SeqCst),
        1,
        "the write ran once"
    );

    let seen_now = seen.lock().unwrap();
    let (url, elicitation_id, message) = url_asked(&seen_now);
    // The link: the page's sign-in on the server's own (loopback) base URL.
    let prefix = format!("http://{}/approvals/sign-in?token=", served.address);
    assert!(url.starts_with(&prefix), "{url}");
    assert!(message.contains("Close ticket T-1"), "{message}");
    assert!(message.contains("alice (acme)"), "{message}");
    // The sign-in leads to that request's page, once.
    assert_eq!(
        seen_now.page("sign-in"),
        (
            303,
            format!("/approvals/requests/{elicitation_id}").as_str()
        )
    );
    let (status, body) = seen_now.page("sign-in again");
    assert_eq!(status, 410, "{body}");
    assert!(
        body.contains("This sign-in link was used already"),
        "{body}"
    );
    let (status, body) = seen_now.page("request");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Close ticket T-1"), "{body}");
    assert!(body.contains("signed in as alice (acme)"), "{body}");
    assert!(!body.contains(SECRET), "{body}");
    let (status, body) = seen_now.page("list");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(&elicitation_id), "{body}");
    let (status, body) = seen_now.page("approve");
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains(&format!("under approval {approval_id}")),
        "{body}"
    );
    drop(seen_now);

    // The request: approved by its caller, and used by this one write.
    let request = served
        .approvals
        .get(&elicitation_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        request.decision,
        Decision::Used {
            approval_id: approval_id.clone(),
            approver: "acme:alice".into()
        }
    );
    // The audit intent of the write carries the approval and its approver.
    let intents: Vec<_> = read_records(&served.audit)
        .unwrap()
        .into_iter()
        .filter(|r| r.tool == "close_ticket" && r.phase == Phase::Intent)
        .collect();
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(
        intents[0].approval_id.as_deref(),
        Some(approval_id.as_str())
    );
    assert_eq!(intents[0].approver.as_deref(), Some("acme:alice"));

    // The client is told the elicitation is complete.
    let mut complete = None;
    for _ in 0..50 {
        complete = seen.lock().unwrap().notifications.first().cloned();
        if complete.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let complete = complete.expect("notifications/elicitation/complete");
    assert_eq!(complete.method, "notifications/elicitation/complete");
    assert_eq!(
        complete.params,
        Some(json!({"elicitationId": elicitation_id}))
    );
}

#[tokio::test]
async fn another_identity_cannot_open_the_callers_request_and_a_decline_runs_nothing() {
    let served = serve("intrude", true).await;
    // Alice's request, pending on the page.
    let alice_request = ApprovalRequest {
        id: "0190a0b0-0000-7000-8000-00000000a11c".into(),
        tool: "close_ticket".into(),
        text: "Close ticket T-7".into(),
        caller: "acme:alice".into(),
        fingerprints: vec!["fp".into()],
        expires_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
            + 600,
        decision: Decision::Pending,
        review: Some(Review::of(&json!({"ticketId": "T-7"}), |_| false)),
    };
    served.approvals.create(&alice_request).await.unwrap();

    // Dave (same tenant, not a decider) signs in through his own link, then opens Alice's.
    let (dave, seen) = connect(
        &served,
        "dave-token",
        Act::Intrude(alice_request.id.clone()),
    )
    .await;
    let result = close(&dave, "T-8").await;
    let seen = seen.lock().unwrap();
    let (_url, dave_request, _) = url_asked(&seen);
    assert_eq!(seen.page("sign-in").0, 303);
    assert_eq!(seen.page("own request").0, 200);
    let (status, body) = seen.page("other request");
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("Not your request"), "{body}");
    assert!(!body.contains("Close ticket T-7"), "{body}");
    let (status, body) = seen.page("other approve");
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("Not your request"), "{body}");
    let (status, body) = seen.page("list");
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains(&alice_request.id), "{body}");
    assert!(body.contains(&dave_request), "{body}");
    assert_eq!(
        served
            .approvals
            .get(&alice_request.id)
            .await
            .unwrap()
            .unwrap()
            .decision,
        Decision::Pending,
        "alice's request is untouched"
    );

    // Dave's client declined: answered as a declined form is, nothing ran, and his
    // request is rejected (its page can no longer approve it).
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let answer = structured(&result);
    assert_eq!(answer["errorKind"], "policy_blocked", "{answer}");
    assert!(
        answer["message"]
            .as_str()
            .unwrap()
            .contains("declined by the user"),
        "{answer}"
    );
    assert_eq!(served.closed.load(Ordering::SeqCst), 0);
    assert_eq!(
        served
            .approvals
            .get(&dave_request)
            .await
            .unwrap()
            .unwrap()
            .decision,
        Decision::Rejected {
            approver: "acme:dave".into(),
            reason: "declined by the user".into()
        }
    );
}

#[tokio::test]
async fn a_decline_without_opening_the_link_runs_nothing() {
    let served = serve("decline", true).await;
    let (alice, seen) = connect(&served, "alice-token", Act::Decline).await;
    let result = close(&alice, "T-2").await;
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert_eq!(structured(&result)["errorKind"], "policy_blocked");
    assert_eq!(served.closed.load(Ordering::SeqCst), 0);
    let (_, id, _) = url_asked(&seen.lock().unwrap());
    assert!(matches!(
        served.approvals.get(&id).await.unwrap().unwrap().decision,
        Decision::Rejected { .. }
    ));
}

#[tokio::test]
async fn without_callers_confirm_the_url_only_client_is_answered_out_of_band() {
    let served = serve("off", false).await;
    let (alice, seen) = connect(&served, "alice-token", Act::Approve).await;
    let result = close(&alice, "T-3").await;
    assert_eq!(result.is_error, Some(true), "{result:?}");
    let answer = structured(&result);
    assert_eq!(answer["status"], "blocked", "{answer}");
    assert!(answer["approvalRequestId"].is_string(), "{answer}");
    assert!(seen.lock().unwrap().asked.is_empty(), "never elicited");
    assert_eq!(served.closed.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_client_that_declared_form_mode_is_asked_with_a_form() {
    let served = serve("form", true).await;
    let (alice, seen) = connect(&served, "alice-token", Act::Form).await;
    let result = close(&alice, "T-4").await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert!(structured(&result)["approvalId"].is_string());
    let seen = seen.lock().unwrap();
    assert!(
        matches!(
            seen.asked.as_slice(),
            [ElicitRequestParams::FormElicitationParams { .. }]
        ),
        "{:?}",
        seen.asked
    );
    assert_eq!(served.closed.load(Ordering::SeqCst), 1);
}
