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
//! - MCP 2026-07-28 (raw JSON-RPC over streamable HTTP, the capabilities in each request's
//!   `_meta`): the same question as an input-required round (`inputRequests.approval`, an
//!   `elicitation/create` of mode `url`, and a sealed `requestState`); the call again with
//!   `accept` waits for the page and runs the write once (the same round again: used);
//!   `decline` and `cancel` reject the request, and a request the page rejected runs
//!   nothing; `accept` before the page decides answers
//!   `blocked` with the request's id after the wait; a form-mode client keeps its form
//!   round.

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
    http::{ApprovalsPage, HttpOptions, StaticTokens},
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
        ClientHandler, ErrorData,
    },
    AskPolicy, Identity, State,
};
use serde_json::{json, Value};

use crate::common::approvals::{self, call_2026, meta_2026};

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
    serve_waiting(name, callers_confirm, AskPolicy::default()).await
}

/// [`serve`] with `policy`: how long a call waits for the page's decision.
async fn serve_waiting(name: &str, callers_confirm: bool, policy: AskPolicy) -> Served {
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
            .with(policy)
            .with_approval_store(Arc::new(approvals.clone()))
            .with_audit_sink(Arc::new(JsonLinesSink::open(&audit).unwrap()))
            .allow_mixed_stores(),
        sessions: true,
        ..HttpOptions::default()
    }
    .with_approvals_page(page);
    let closed = approvals::serve(listener, Arc::new(tokens), options);
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

    /// Follows the elicitation's link: the session cookie and where it leads (the
    /// `Refresh` of the page it answers).
    async fn sign_in(&self, url: &str) -> (String, String) {
        let response = crate::common::approvals::use_sign_in_link(&browser(), url).await;
        let status = response.status().as_u16();
        let location = response
            .headers()
            .get("refresh")
            .map(|l| l.to_str().unwrap().trim_start_matches("0; url=").to_owned())
            .unwrap_or_default();
        let cookie = response
            .headers()
            .get("set-cookie")
            .map(|c| c.to_str().unwrap().split(';').next().unwrap().to_owned())
            .unwrap_or_default();
        self.saw("sign-in", status, location.clone());
        // A second use of the same link.
        let again = crate::common::approvals::use_sign_in_link(&browser(), url).await;
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
    // The sign-in leads to that request's page (a page that moves on by itself), once.
    assert_eq!(
        seen_now.page("sign-in"),
        (
            200,
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

    // The request: approved by its caller, and used by this one write, whose intent
    // carries the approval and its approver.
    used_once_by_alice(&served, &elicitation_id, &approval_id).await;

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
    assert_eq!(seen.page("sign-in").0, 200);
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

/// Request `id` was approved by its caller alice and used, under `approval_id`, by the one
/// write that ran, whose audit intent carries the approval and its approver.
async fn used_once_by_alice(served: &Served, id: &str, approval_id: &str) {
    assert_eq!(
        served.approvals.get(id).await.unwrap().unwrap().decision,
        Decision::Used {
            approval_id: approval_id.to_owned(),
            approver: "acme:alice".into()
        }
    );
    let intents: Vec<_> = read_records(&served.audit)
        .unwrap()
        .into_iter()
        .filter(|r| r.tool == "close_ticket" && r.phase == Phase::Intent)
        .collect();
    assert_eq!(intents.len(), 1, "{intents:?}");
    assert_eq!(intents[0].approval_id.as_deref(), Some(approval_id));
    assert_eq!(intents[0].approver.as_deref(), Some("acme:alice"));
}

/// `close_ticket` of `ticket` on MCP 2026-07-28 as the holder of `token`, over streamable
/// HTTP with raw JSON-RPC, its client declaring `elicitation`; `round` adds the
/// `inputResponses` and `requestState` of a call that comes again. The JSON-RPC `result`.
async fn close_2026(
    served: &Served,
    token: &str,
    ticket: &str,
    elicitation: Value,
    round: Option<(Value, &str)>,
) -> Value {
    let mut params = json!({"name": "close_ticket",
        "arguments": {"ticketId": ticket, "token": SECRET},
        "_meta": meta_2026(elicitation)});
    if let Some((answer, state)) = round {
        params["inputResponses"] = json!({ "approval": answer });
        params["requestState"] = json!(state);
    }
    call_2026(&format!("http://{}/mcp", served.address), token, params).await
}

/// The URL-mode round of a URL-only 2026-07-28 client: checked to be exactly the page's
/// question; its link, its request id (`elicitationId`) and its sealed state.
async fn url_round(served: &Served, ticket: &str) -> (String, String, String) {
    let round = close_2026(served, "alice-token", ticket, json!({"url": {}}), None).await;
    assert_eq!(round["resultType"], "input_required", "{round}");
    let asked = &round["inputRequests"]["approval"];
    let url = asked["params"]["url"].as_str().expect("a url").to_owned();
    let id = asked["params"]["elicitationId"]
        .as_str()
        .expect("the request's id")
        .to_owned();
    assert_eq!(
        round["inputRequests"],
        json!({"approval": {"method": "elicitation/create", "params": {
            "mode": "url",
            "message": format!("Approve this write? Close ticket {ticket} Open the link to \
                review and confirm it, signed in as alice (acme)."),
            "url": url,
            "elicitationId": id}}}),
    );
    let prefix = format!("http://{}/approvals/sign-in?token=", served.address);
    assert!(url.starts_with(&prefix), "{url}");
    let state = round["requestState"]
        .as_str()
        .expect("a sealed state")
        .to_owned();
    let request = served.approvals.get(&id).await.unwrap().expect("stored");
    assert_eq!(request.decision, Decision::Pending);
    assert_eq!(request.caller, "acme:alice");
    (url, id, state)
}

/// The person at the browser: follows `url` (the one-time sign-in), reads the request's
/// page and approves it with its CSRF token. The approving page.
async fn approve_in_browser(served: &Served, url: &str, id: &str) -> String {
    decide_in_browser(served, url, id, &[("decision", "approve")]).await
}

/// [`approve_in_browser`] with the decision's `fields` (`decision`, and a `reason`).
async fn decide_in_browser(
    served: &Served,
    url: &str,
    id: &str,
    fields: &[(&str, &str)],
) -> String {
    let browser = browser();
    let signed_in = crate::common::approvals::use_sign_in_link(&browser, url).await;
    assert_eq!(signed_in.status(), 200);
    let location = signed_in.headers()["refresh"]
        .to_str()
        .unwrap()
        .trim_start_matches("0; url=")
        .to_owned();
    assert_eq!(location, format!("/approvals/requests/{id}"));
    let cookie = signed_in.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let page = format!("http://{}{location}", served.address);
    let shown = browser
        .get(&page)
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(shown.status(), 200);
    let shown = shown.text().await.unwrap();
    assert!(shown.contains("signed in as alice (acme)"), "{shown}");
    assert!(!shown.contains(SECRET), "{shown}");
    let decided = browser
        .post(&page)
        .header("cookie", &cookie)
        .header("origin", format!("http://{}", served.address))
        .form(
            &[("csrf", csrf(&shown).as_str())]
                .into_iter()
                .chain(fields.iter().copied())
                .collect::<Vec<_>>(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(decided.status(), 200);
    decided.text().await.unwrap()
}

/// A result's `structuredContent` with its `auditEventId` checked to be a string and
/// replaced by `"<id>"`.
fn without_event_id(result: &Value) -> Value {
    let mut answer = result["structuredContent"].clone();
    assert!(answer["auditEventId"].is_string(), "{result}");
    answer["auditEventId"] = json!("<id>");
    answer
}

/// MCP 2026-07-28: the URL-only client's gated write answers an input-required round whose
/// question is the page's link; the caller approves there; the call again with `accept`
/// runs the write once, under that approval; the same round sent again runs nothing.
#[tokio::test]
async fn a_2026_round_sends_the_caller_to_the_page_and_the_write_runs_once() {
    let served = serve("round-approve", true).await;
    let (url, id, state) = url_round(&served, "T-21").await;
    assert_eq!(served.closed.load(Ordering::SeqCst), 0, "nothing ran yet");

    // The client calls again with `accept` as soon as the user consented to open the link
    // (2026-07-28 "Elicitation", URL mode), and the call waits for the page, where the
    // user approves meanwhile.
    let accept = || Some((json!({"action": "accept"}), state.as_str()));
    let (done, page) = tokio::join!(
        close_2026(&served, "alice-token", "T-21", json!({"url": {}}), accept()),
        async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            approve_in_browser(&served, &url, &id).await
        }
    );
    let Decision::Used { approval_id, .. } =
        served.approvals.get(&id).await.unwrap().unwrap().decision
    else {
        panic!("approved on the page, and used");
    };
    assert!(
        page.contains(&format!("under approval {approval_id}")),
        "{page}"
    );
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(done["isError"], false, "{done}");
    assert_eq!(
        without_event_id(&done),
        json!({"ticketId": "T-21", "status": "succeeded", "retrySafe": false,
               "auditEventId": "<id>", "approvalId": approval_id})
    );
    assert_eq!(
        served.closed.load(Ordering::SeqCst),
        1,
        "the write ran once"
    );
    used_once_by_alice(&served, &id, &approval_id).await;

    // The same round again: the approval is used; nothing runs.
    let again = close_2026(&served, "alice-token", "T-21", json!({"url": {}}), accept()).await;
    assert_eq!(again["isError"], true, "{again}");
    assert_eq!(
        without_event_id(&again),
        json!({"status": "failed", "errorKind": "conflict", "retrySafe": true,
               "message": "The approval was used already; each approval runs one write.",
               "auditEventId": "<id>"})
    );
    assert_eq!(served.closed.load(Ordering::SeqCst), 1, "not run again");
}

/// MCP 2026-07-28: `decline` (and `cancel`) of the URL-mode round runs nothing and rejects
/// the request, answered as a declined form is; `accept` of a round whose request the page
/// rejected runs nothing, refused with the rejection's reason.
#[tokio::test]
async fn a_2026_round_declined_or_rejected_runs_nothing() {
    let served = serve("round-decline", true).await;
    for action in ["decline", "cancel"] {
        let (_, id, state) = url_round(&served, "T-22").await;
        let answer = json!({ "action": action });
        let declined = close_2026(
            &served,
            "alice-token",
            "T-22",
            json!({"url": {}}),
            Some((answer, &state)),
        )
        .await;
        assert_eq!(declined["isError"], true, "{declined}");
        assert_eq!(
            without_event_id(&declined),
            json!({"status": "blocked", "errorKind": "policy_blocked", "retrySafe": true,
                   "message": "Blocked by policy: declined by the user. Do not retry or \
                       work around it.",
                   "reason": "declined by the user", "auditEventId": "<id>"}),
            "{action}"
        );
        assert_eq!(
            served.approvals.get(&id).await.unwrap().unwrap().decision,
            Decision::Rejected {
                approver: "acme:alice".into(),
                reason: "declined by the user".into()
            }
        );
    }
    // Rejected on the page with a reason, then accepted in the client.
    let (url, id, state) = url_round(&served, "T-22").await;
    let fields = [("decision", "reject"), ("reason", "not this one")];
    let page = decide_in_browser(&served, &url, &id, &fields).await;
    assert!(page.contains("Rejected"), "{page}");
    let refused = close_2026(
        &served,
        "alice-token",
        "T-22",
        json!({"url": {}}),
        Some((json!({"action": "accept"}), &state)),
    )
    .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        without_event_id(&refused),
        json!({"status": "failed", "errorKind": "conflict", "retrySafe": true,
               "message": "The approval request was rejected: not this one.",
               "auditEventId": "<id>"})
    );
    assert_eq!(served.closed.load(Ordering::SeqCst), 0, "nothing ran");
}

/// MCP 2026-07-28: `accept` while the page has not decided waits (the policy's wait, here
/// 1 s) and answers `blocked` with the request's id, which stays pending; an answer shaped
/// like an approving form is no approval either. Approved later on the page, a call with
/// that id runs the write once.
#[tokio::test]
async fn a_2026_round_accepted_before_the_page_decides_is_blocked_with_its_request() {
    let wait = Duration::from_secs(1);
    let policy = AskPolicy {
        wait,
        ..AskPolicy::default()
    };
    let served = serve_waiting("round-pending", true, policy).await;
    let (url, id, state) = url_round(&served, "T-23").await;
    for answer in [
        json!({"action": "accept"}),
        json!({"action": "accept", "content": {"approve": true}}),
    ] {
        let started = std::time::Instant::now();
        let blocked = close_2026(
            &served,
            "alice-token",
            "T-23",
            json!({"url": {}}),
            Some((answer.clone(), &state)),
        )
        .await;
        let waited = started.elapsed();
        assert!(
            waited >= wait - Duration::from_millis(250) && waited < Duration::from_secs(10),
            "{waited:?}"
        );
        assert_eq!(blocked["isError"], true, "{blocked}");
        assert_eq!(
            without_event_id(&blocked),
            json!({"status": "blocked", "errorKind": "policy_blocked", "retrySafe": true,
                   "message": format!("This write needs a human approval: Close ticket T-23. \
                       Nothing ran. Once it is approved, call again with approvalRequestId \
                       `{id}`."),
                   "reason": "requires human approval", "auditEventId": "<id>",
                   "requiresHumanReview": true, "approvalRequestId": id}),
            "{answer}"
        );
        assert_eq!(
            blocked["content"][2],
            json!({"type": "resource_link", "uri": format!("mcp-result://approvals/{id}"),
                   "name": "approval-request", "title": "Approval request: Close ticket T-23",
                   "mimeType": "application/json"}),
            "{blocked}"
        );
        assert_eq!(
            served.approvals.get(&id).await.unwrap().unwrap().decision,
            Decision::Pending
        );
    }
    assert_eq!(served.closed.load(Ordering::SeqCst), 0);

    // The page decides later; the call with the request's id runs once.
    approve_in_browser(&served, &url, &id).await;
    let mut meta = meta_2026(json!({"url": {}}));
    meta["io.github.mcp-result/approvalRequestId"] = json!(id);
    let ran = call_2026(
        &format!("http://{}/mcp", served.address),
        "alice-token",
        json!({"name": "close_ticket", "arguments": {"ticketId": "T-23", "token": SECRET},
               "_meta": meta}),
    )
    .await;
    assert_eq!(ran["structuredContent"]["status"], "succeeded", "{ran}");
    assert_eq!(served.closed.load(Ordering::SeqCst), 1);
}

/// MCP 2026-07-28: a client that declared form mode still gets the form round, with the
/// page's `callers_confirm` on.
#[tokio::test]
async fn a_2026_form_client_still_gets_its_form_round() {
    let served = serve("round-form", true).await;
    let round = close_2026(&served, "alice-token", "T-24", json!({"form": {}}), None).await;
    assert_eq!(round["resultType"], "input_required", "{round}");
    assert_eq!(
        round["inputRequests"],
        json!({"approval": {"method": "elicitation/create", "params": {
            "mode": "form",
            "message": "Approve this write? Close ticket T-24",
            "requestedSchema": {"$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object", "title": "ApprovalForm",
                "description": "What the elicitation form asks: approve or not.",
                "properties": {"approve": {
                    "type": "boolean", "description": "Approve this write?"}},
                "required": ["approve"]}}}})
    );
    let state = round["requestState"].as_str().unwrap().to_owned();
    let answer = json!({"action": "accept", "content": {"approve": true}});
    let done = close_2026(
        &served,
        "alice-token",
        "T-24",
        json!({"form": {}}),
        Some((answer, &state)),
    )
    .await;
    assert_eq!(done["structuredContent"]["status"], "succeeded", "{done}");
    assert!(
        done["structuredContent"]["approvalId"].is_string(),
        "{done}"
    );
    assert_eq!(served.closed.load(Ordering::SeqCst), 1);
}
