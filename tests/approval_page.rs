//! The approvals page (issue 40, first slice): a person decides, in a browser, the approval
//! request of a write whose caller could not be asked. A server written as the README
//! teaches, served by `serve_http` on a real TCP port with the page beside `/mcp`; the MCP
//! calls are raw POSTs of a client that cannot elicit (so the write is blocked with an
//! `approvalRequestId`), the browser is reqwest with the session cookie carried by hand.
//!
//! Each refusal is asserted with its exact status and a line of its page: a used or forged
//! sign-in link, no session, a missing or forged CSRF token, a second decision, another
//! tenant's request, an expired request, a rejection without a reason; and the framing
//! headers of every page.

use std::{
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::{SystemTime, UNIX_EPOCH},
};

use mcp_result::{
    approval::{ApprovalRequest, ApprovalStore, Decision, MemoryApprovals, Review},
    audit::JsonLinesSink,
    http::{ApprovalsPage, HttpOptions, StaticTokens},
    Identity, State,
};
use serde_json::{json, Value};

use crate::common::approvals;

const SECRET: &str = "s3cret-upstream-credential";

struct Served {
    address: String,
    page: ApprovalsPage,
    approvals: MemoryApprovals,
    closed: Arc<AtomicUsize>,
    /// The JSON Lines audit file, when the desk has one.
    audit: Option<std::path::PathBuf>,
}

/// The desk on a free loopback port, its approvals page deciders `acme:carol`; callers
/// `alice-token` (acme:alice) and `bob-token` (globex:bob); its audit records in a JSON Lines
/// file of its own, which the page reads a decided request's trail from.
async fn serve() -> Served {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("approval_page")
        .join(format!("{}-{}.jsonl", std::process::id(), now_nanos()));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let sink = Arc::new(JsonLinesSink::open(&path).unwrap());
    Served {
        audit: Some(path),
        ..serve_with(State::new().with_audit_sink(sink)).await
    }
}

/// [`serve`] with `state`'s audit sink.
async fn serve_with(state: State) -> Served {
    serve_page(state, ApprovalsPage::new().deciders(["acme:carol"])).await
}

/// [`serve`] with `state`'s audit sink and `page`.
async fn serve_page(state: State, page: ApprovalsPage) -> Served {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let tokens = StaticTokens::new()
        .with("alice-token", Identity::new("alice").with_tenant("acme"))
        .with("bob-token", Identity::new("bob").with_tenant("globex"));
    let approvals = MemoryApprovals::default();
    let options = HttpOptions {
        state: state
            .with_approval_store(Arc::new(approvals.clone()))
            .allow_mixed_stores(),
        ..HttpOptions::default()
    }
    .with_approvals_page(page.clone());
    let closed = approvals::serve(listener, Arc::new(tokens), options);
    Served {
        address,
        page,
        approvals,
        closed,
        audit: None,
    }
}

fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// `close_ticket` of `ticket` as the holder of `token` (a client that cannot elicit), with
/// `request` as its approval request id: the result.
async fn close(address: &str, token: &str, ticket: &str, request: Option<&str>) -> Value {
    let mut arguments = json!({"ticketId": ticket, "note": "n".repeat(300), "token": SECRET});
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
        .bearer_auth(token)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    answer["result"].clone()
}

/// A call blocked for approval: its `approvalRequestId`.
async fn blocked(address: &str, token: &str, ticket: &str) -> String {
    let result = close(address, token, ticket, None).await;
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(result["structuredContent"]["status"], "blocked", "{result}");
    result["structuredContent"]["approvalRequestId"]
        .as_str()
        .expect("an approvalRequestId")
        .to_owned()
}

/// Signs in with a fresh link for `who`: the session cookie (`name=value`).
async fn sign_in(served: &Served, who: &str) -> String {
    let link = served
        .page
        .sign_in_link(&served.approvals, &Identity::parse(who).unwrap())
        .await
        .unwrap();
    let response = crate::common::approvals::use_sign_in_link(
        &browser(),
        &format!("http://{}{link}", served.address),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["refresh"], "0; url=/approvals");
    let cookie = response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_owned();
    cookie.split(';').next().unwrap().to_owned()
}

/// carol (a decider of acme) signed in and on request `id`'s page: her session cookie and
/// the page's CSRF token.
async fn on_the_request(served: &Served, id: &str) -> (String, String) {
    let cookie = sign_in(served, "acme:carol").await;
    let (_, body) = get(served, &format!("/approvals/requests/{id}"), Some(&cookie)).await;
    (cookie, csrf(&body))
}

/// carol approves request `id` from its page: her session cookie, and the answer's status
/// and page.
async fn approve_on_page(served: &Served, id: &str) -> (String, u16, String) {
    let (cookie, token) = on_the_request(served, id).await;
    let (status, body) = post(
        served,
        id,
        &cookie,
        &[("csrf", &token), ("decision", "approve")],
    )
    .await;
    (cookie, status, body)
}

/// A page: its status, its headers and its HTML.
async fn page(request: reqwest::RequestBuilder) -> (u16, reqwest::header::HeaderMap, String) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.text().await.unwrap())
}

/// Uses the sign-in link at `path` as a person does (with `host` as the `Host` header, when
/// given): its `GET` shows one button and opens no session, its `POST` uses the link; the
/// `POST`'s status, headers and page (or the `GET`'s, when it refused).
async fn spend(
    served: &Served,
    path: &str,
    host: Option<&str>,
) -> (u16, reqwest::header::HeaderMap, String) {
    let url = format!("http://{}{path}", served.address);
    let with_host = |request: reqwest::RequestBuilder| match host {
        Some(host) => request.header("host", host),
        None => request,
    };
    let (status, headers, body) = page(with_host(browser().get(&url))).await;
    assert_framed(&headers, path);
    if status != 200 {
        return (status, headers, body);
    }
    assert!(headers.get("set-cookie").is_none(), "{headers:?}");
    assert!(body.contains("<h1>Sign in</h1>"), "{body}");
    let token = path.split("token=").nth(1).unwrap();
    let action = format!("http://{}/approvals/sign-in", served.address);
    page(with_host(browser().post(action)).form(&[("token", token)])).await
}

async fn get(served: &Served, path: &str, cookie: Option<&str>) -> (u16, String) {
    let mut request = browser().get(format!("http://{}{path}", served.address));
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    let (status, headers, body) = page(request).await;
    assert_framed(&headers, path);
    (status, body)
}

async fn post(served: &Served, id: &str, cookie: &str, form: &[(&str, &str)]) -> (u16, String) {
    let request = browser()
        .post(format!("http://{}/approvals/requests/{id}", served.address))
        .header("cookie", cookie)
        .header("origin", format!("http://{}", served.address))
        .form(form);
    let (status, headers, body) = page(request).await;
    assert_framed(&headers, id);
    (status, body)
}

/// The framing headers every page response carries.
fn assert_framed(headers: &reqwest::header::HeaderMap, what: &str) {
    let csp = headers["content-security-policy"].to_str().unwrap();
    for directive in [
        "default-src 'none'",
        "style-src 'sha256-",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(csp.contains(directive), "{what}: {csp}");
    }
    assert_eq!(headers["x-frame-options"], "DENY", "{what}");
    assert_eq!(headers["referrer-policy"], "no-referrer", "{what}");
    assert_eq!(headers["cache-control"], "no-store", "{what}");
}

/// The CSRF token of a request's page.
fn csrf(html: &str) -> String {
    let at = html.find(r#"name="csrf" value=""#).expect("a CSRF field") + 19;
    html[at..].split('"').next().unwrap().to_owned()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn now_nanos() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

#[tokio::test]
async fn a_person_approves_in_the_browser_and_the_retry_runs_once() {
    let served = serve().await;
    let first = close(&served.address, "alice-token", "T-1", None).await;
    let id = first["structuredContent"]["approvalRequestId"]
        .as_str()
        .expect("an approvalRequestId")
        .to_owned();
    let blocked_event = first["structuredContent"]["auditEventId"].as_str().unwrap();

    // The link signs in once: a session cookie (HttpOnly, SameSite=Strict; on loopback, no
    // Secure: plain HTTP), then a clear 410.
    let link = served
        .page
        .sign_in_link(&served.approvals, &Identity::parse("acme:carol").unwrap())
        .await
        .unwrap();
    assert!(link.starts_with("/approvals/sign-in?token="), "{link}");
    // Signed in on a page that moves on to the list by itself (`Refresh`, and a link), not
    // a redirect: a link opened from another site's page would land signed out after a
    // redirect, without the `SameSite=Strict` cookie (`approval_browser.rs`).
    let (status, headers, body) = spend(&served, &link, None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(headers["refresh"], "0; url=/approvals");
    assert!(headers.get("location").is_none(), "{headers:?}");
    assert!(
        body.contains(
            "<h1>Signed in</h1>\n<p class=\"status\">HTTP 200</p>\n\
             <p>Signed in as carol (acme).</p>\n\n<p><a href=\"/approvals\">Continue</a></p>\n"
        ),
        "{body}"
    );
    assert_framed(&headers, "sign-in");
    let set = headers["set-cookie"].to_str().unwrap();
    assert!(set.starts_with("mcp_result_approvals="), "{set}");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/approvals"] {
        assert!(set.contains(attribute), "{set}");
    }
    assert!(!set.contains("Secure"), "{set}");
    let cookie = set.split(';').next().unwrap().to_owned();
    let (status, _, body) = spend(&served, &link, None).await;
    assert_eq!(status, 410, "{body}");
    assert!(
        body.contains("This sign-in link was used already"),
        "{body}"
    );

    // The list shows the request.
    let (status, body) = get(&served, "/approvals", Some(&cookie)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Pending approval requests"), "{body}");
    assert!(
        body.contains(&format!("/approvals/requests/{id}")),
        "{body}"
    );
    assert!(body.contains("Close ticket T-1"), "{body}");
    assert!(body.contains("alice (acme)"), "{body}");

    // The request: its title, text, arguments (the secret withheld, the long note cut with
    // its length), who asked.
    let (status, body) = get(&served, &format!("/approvals/requests/{id}"), Some(&cookie)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<h1>Close a ticket</h1>"), "{body}");
    assert!(body.contains("Close ticket T-1"), "{body}");
    assert!(body.contains("<code>token</code>"), "{body}");
    assert!(body.contains("withheld (secret)"), "{body}");
    assert!(!body.contains(SECRET), "{body}");
    assert!(
        body.contains(&format!(
            "300 characters in all: <a href=\"/approvals/requests/{id}/value?at=%2Fnote\">show \
             all of it</a>"
        )),
        "{body}"
    );
    assert!(body.contains("alice (acme)"), "{body}");
    assert!(body.contains("signed in as carol (acme)"), "{body}");
    let token = csrf(&body);

    // No CSRF token, a forged one: 403, nothing changed.
    let (status, body) = post(&served, &id, &cookie, &[("decision", "approve")]).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("CSRF token is missing or wrong"), "{body}");
    let forged = "A".repeat(token.len());
    let (status, body) = post(
        &served,
        &id,
        &cookie,
        &[("csrf", &forged), ("decision", "approve")],
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("CSRF token is missing or wrong"), "{body}");
    // Without a session: 401.
    let (status, body) = get(&served, "/approvals", None).await;
    assert_eq!(status, 401, "{body}");
    assert!(body.contains("You are not signed in"), "{body}");
    let still = served.approvals.get(&id).await.unwrap().unwrap();
    assert_eq!(still.decision, Decision::Pending);

    // Approve: recorded once, with the approver's identity.
    let (status, body) = post(
        &served,
        &id,
        &cookie,
        &[("csrf", &token), ("decision", "approve")],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<h1>Approved</h1>"), "{body}");
    let decided = served.approvals.get(&id).await.unwrap().unwrap();
    let Decision::Approved {
        approval_id,
        approver,
    } = decided.decision
    else {
        panic!("{:?}", decided.decision)
    };
    assert_eq!(approver, "acme:carol");

    // A second decision: 409, nothing changed.
    let (status, body) = post(
        &served,
        &id,
        &cookie,
        &[("csrf", &token), ("decision", "reject"), ("reason", "late")],
    )
    .await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body.contains(&format!(
            "This approval request was decided already. Approved by carol (acme): approval \
             {approval_id}, not used yet."
        )),
        "{body}"
    );

    // Another identity presenting the request: it names nothing to bob, runs nothing, and
    // stays out of the request's trail (checked exactly below).
    let bobs = close(&served.address, "bob-token", "T-1", Some(&id)).await;
    assert_eq!(
        bobs["structuredContent"]["message"], "No such approval request.",
        "{bobs}"
    );

    // The MCP call's retry runs once, under the approval.
    let result = close(&served.address, "alice-token", "T-1", Some(&id)).await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["structuredContent"]["approvalId"],
        json!(approval_id)
    );
    assert_eq!(served.closed.load(Ordering::SeqCst), 1);
    let again = close(&served.address, "alice-token", "T-1", Some(&id)).await;
    assert_eq!(again["isError"], true, "{again}");
    assert_eq!(served.closed.load(Ordering::SeqCst), 1);
    // Used: its page shows the request, its decision and its audit trail (the blocked
    // round, the approval, the attempt and its outcome, the refused second retry, each with
    // its audit event id), and no forms.
    let (status, body) = get(&served, &format!("/approvals/requests/{id}"), Some(&cookie)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<h1>Close a ticket</h1>"), "{body}");
    assert!(body.contains("withheld (secret)"), "{body}");
    assert!(!body.contains(SECRET), "{body}");
    assert!(!body.contains("name=\"decision\""), "{body}");
    assert!(
        body.contains(&format!(
            "<p class=\"decision\">Approved by carol (acme): approval {approval_id}, used by the \
             write it was for.</p>"
        )),
        "{body}"
    );
    let write_event = result["structuredContent"]["auditEventId"]
        .as_str()
        .unwrap();
    let again_event = again["structuredContent"]["auditEventId"].as_str().unwrap();
    let trail = trail(&body);
    // The decision's record, as the log holds it: its event, the decider, the call's digest.
    let records = mcp_result::audit::read_records(served.audit.as_ref().unwrap()).unwrap();
    let decision = records
        .iter()
        .find(|r| r.phase == mcp_result::audit::Phase::Approved)
        .expect("the decision's audit record");
    let decision_event = decision.event_id.clone();
    assert_eq!(decision.approver.as_deref(), Some("acme:carol"));
    assert_eq!(decision.approval_id.as_deref(), Some(approval_id.as_str()));
    assert_eq!(decision.approval_request_id.as_deref(), Some(id.as_str()));
    assert_eq!(decision.argument_digest, records[0].argument_digest);
    assert_eq!(decision.caller, "acme:alice");
    let approved = format!("approved by carol (acme); approval {approval_id}");
    assert_eq!(
        trail,
        [
            ["blocked", blocked_event, "blocked (policy_blocked)", ""],
            [
                "approved",
                &decision_event,
                "",
                &format!("by carol (acme); approval {approval_id}")
            ],
            ["attempt", write_event, "", &approved],
            ["outcome", write_event, "succeeded", &approved],
            ["outcome", again_event, "failed (conflict)", ""],
        ]
        .map(|row| row.map(str::to_owned)),
        "{body}"
    );
}

/// The rows of a decided request's audit trail: step, audit event id, status, detail (the
/// time left out).
fn trail(html: &str) -> Vec<[String; 4]> {
    let table = html
        .split("<h2>Audit trail</h2>")
        .nth(1)
        .expect("an audit trail");
    let body = &table[table.find("<tbody>").expect("a table") + 7..table.find("</tbody>").unwrap()];
    body.split("<tr>")
        .filter(|row| !row.trim().is_empty())
        .map(|row| {
            let cells: Vec<String> = row
                .split("<td>")
                .skip(1)
                .map(|cell| {
                    let cell = &cell[..cell.find("</td>").unwrap()];
                    cell.replace("<code>", "").replace("</code>", "")
                })
                .collect();
            assert_eq!(cells.len(), 5, "{row}");
            [
                cells[1].clone(),
                cells[2].clone(),
                cells[3].clone(),
                cells[4].clone(),
            ]
        })
        .collect()
}

#[tokio::test]
async fn a_rejection_with_its_reason_answers_the_retry_as_a_declined_approval() {
    let served = serve().await;
    let id = blocked(&served.address, "alice-token", "T-2").await;
    let (cookie, token) = on_the_request(&served, &id).await;

    // A rejection needs a reason.
    let (status, body) = post(
        &served,
        &id,
        &cookie,
        &[("csrf", &token), ("decision", "reject"), ("reason", "  ")],
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("A rejection needs a reason"), "{body}");

    let (status, body) = post(
        &served,
        &id,
        &cookie,
        &[
            ("csrf", &token),
            ("decision", "reject"),
            ("reason", "not <b>this</b> week"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<h1>Rejected</h1>"), "{body}");
    // Escaped, as every value.
    assert!(
        body.contains("not &#60;b&#62;this&#60;/b&#62; week")
            || body.contains("not &lt;b&gt;this&lt;/b&gt; week"),
        "{body}"
    );
    let decided = served.approvals.get(&id).await.unwrap().unwrap();
    assert_eq!(
        decided.decision,
        Decision::Rejected {
            approver: "acme:carol".into(),
            reason: "not <b>this</b> week".into()
        }
    );

    // The retry: refused with the reason, nothing runs.
    let result = close(&served.address, "alice-token", "T-2", Some(&id)).await;
    assert_eq!(result["isError"], true, "{result}");
    let message = result["structuredContent"]["message"].as_str().unwrap();
    assert!(
        message.contains("The approval request was rejected: not <b>this</b> week."),
        "{result}"
    );
    assert_eq!(served.closed.load(Ordering::SeqCst), 0);

    // Its page: the rejection with its reason, and the trail (the blocked round, the
    // rejection, the refused retry).
    let (status, body) = get(&served, &format!("/approvals/requests/{id}"), Some(&cookie)).await;
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains("name=\"decision\""), "{body}");
    assert!(
        body.contains("<p class=\"decision\">Rejected by carol (acme): not &#60;b&#62;this&#60;/b&#62; week</p>")
            || body.contains("<p class=\"decision\">Rejected by carol (acme): not &lt;b&gt;this&lt;/b&gt; week</p>"),
        "{body}"
    );
    let steps: Vec<String> = trail(&body).into_iter().map(|[step, ..]| step).collect();
    assert_eq!(steps, ["blocked", "rejected", "outcome"], "{body}");
    let retry = &trail(&body)[2];
    assert_eq!(
        [&retry[1], &retry[2]],
        [
            result["structuredContent"]["auditEventId"]
                .as_str()
                .unwrap(),
            "failed (conflict)"
        ],
        "{body}"
    );

    // The list no longer shows it.
    let (status, body) = get(&served, "/approvals", Some(&cookie)).await;
    assert_eq!(status, 200);
    assert!(!body.contains(&id), "{body}");
    assert!(
        body.contains("No approval request is waiting for you."),
        "{body}"
    );
}

#[tokio::test]
async fn a_decided_request_on_a_sink_that_cannot_be_read_says_where_its_trail_is() {
    // The default sink, tracing: the page cannot read it back, and says what to look for.
    let served = serve_with(State::new()).await;
    let id = blocked(&served.address, "alice-token", "T-5").await;
    served
        .approvals
        .approve(&id, "acme:carol")
        .expect("approved in code");
    let cookie = sign_in(&served, "acme:carol").await;
    let (status, body) = get(&served, &format!("/approvals/requests/{id}"), Some(&cookie)).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("<p class=\"decision\">Approved by carol (acme): approval "),
        "{body}"
    );
    assert!(
        body.contains(&format!(
            "<p>This server's audit sink cannot be read back here: its records of this request \
             carry <code>approvalRequestId</code> <code>{id}</code>.</p>"
        )),
        "{body}"
    );
}

#[tokio::test]
async fn a_trail_leaves_out_pending_polls_and_says_when_the_log_holds_more() {
    let served = serve().await;
    let id = blocked(&served.address, "alice-token", "T-7").await;
    // Asking again while it is pending: refused, and not part of its trail.
    for _ in 0..3 {
        let polled = close(&served.address, "alice-token", "T-7", Some(&id)).await;
        assert_eq!(
            polled["structuredContent"]["message"],
            "The approval request is still waiting for a human.",
            "{polled}"
        );
    }
    let (cookie, status, body) = approve_on_page(&served, &id).await;
    assert_eq!(status, 200, "{body}");
    let ran = close(&served.address, "alice-token", "T-7", Some(&id)).await;
    assert_eq!(ran["structuredContent"]["status"], "succeeded", "{ran}");
    // 100 retries after it was used: each refused, each in its trail, past what the page
    // shows.
    for _ in 0..100 {
        let again = close(&served.address, "alice-token", "T-7", Some(&id)).await;
        assert_eq!(again["isError"], true, "{again}");
    }
    let (status, body) = get(&served, &format!("/approvals/requests/{id}"), Some(&cookie)).await;
    assert_eq!(status, 200, "{body}");
    let steps = trail(&body);
    assert_eq!(steps.len(), 100, "{body}");
    let first: Vec<&str> = steps.iter().take(5).map(|s| s[0].as_str()).collect();
    assert_eq!(
        first,
        ["blocked", "approved", "attempt", "outcome", "outcome"],
        "no pending poll among them: {body}"
    );
    assert!(
        body.contains(&format!(
            "<p>The first 100 records are shown; the audit log holds more about this request \
             (<code>approvalRequestId</code> <code>{id}</code>).</p>"
        )),
        "{body}"
    );
}

/// An audit sink that keeps the write attempts' records and refuses the rest: a decision's
/// record, and reading back.
#[derive(Default)]
struct RefusesDecisions(std::sync::Mutex<Vec<mcp_result::audit::AuditRecord>>);

impl mcp_result::audit::AuditSink for RefusesDecisions {
    fn record<'a>(
        &'a self,
        record: &'a mcp_result::audit::AuditRecord,
    ) -> mcp_result::store::StoreFuture<'a, ()> {
        use mcp_result::audit::Phase;
        Box::pin(async move {
            if matches!(record.phase, Phase::Approved | Phase::Rejected) {
                return Err(mcp_result::store::StoreError::Invalid(
                    "the log is down".into(),
                ));
            }
            self.0.lock().unwrap().push(record.clone());
            Ok(())
        })
    }

    fn approval_records<'a>(
        &'a self,
        _: &'a str,
        _: usize,
    ) -> mcp_result::store::StoreFuture<'a, Option<Vec<mcp_result::audit::AuditRecord>>> {
        Box::pin(async {
            Err(mcp_result::store::StoreError::Invalid(
                "the log is down".into(),
            ))
        })
    }
}

#[tokio::test]
async fn a_decision_stands_when_its_audit_record_fails_and_the_page_says_the_trail_could_not_be_read(
) {
    let sink = Arc::new(RefusesDecisions::default());
    let served = serve_with(State::new().with_audit_sink(sink.clone())).await;
    let id = blocked(&served.address, "alice-token", "T-6").await;
    // The store decides; the sink refuses the decision's record: the page reports the
    // decision (the failure is logged), and the approval stands.
    let (cookie, status, body) = approve_on_page(&served, &id).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<h1>Approved</h1>"), "{body}");
    assert!(matches!(
        served.approvals.get(&id).await.unwrap().unwrap().decision,
        Decision::Approved { .. }
    ));
    // Its page: the decision, and the trail that could not be read.
    let (status, body) = get(&served, &format!("/approvals/requests/{id}"), Some(&cookie)).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("<p class=\"decision\">Approved by carol (acme): approval "),
        "{body}"
    );
    assert!(
        body.contains("<p>The audit log could not be read; try again.</p>"),
        "{body}"
    );
    // The write runs once under it, its attempt recorded as ever.
    let result = close(&served.address, "alice-token", "T-6", Some(&id)).await;
    assert_eq!(
        result["structuredContent"]["status"], "succeeded",
        "{result}"
    );
    assert_eq!(served.closed.load(Ordering::SeqCst), 1);
    let phases: Vec<_> = sink.0.lock().unwrap().iter().map(|r| r.phase).collect();
    use mcp_result::audit::Phase;
    assert_eq!(phases, [Phase::Outcome, Phase::Intent, Phase::Outcome]);
}

#[tokio::test]
async fn another_tenants_and_expired_requests_get_clear_pages_and_change_nothing() {
    let served = serve().await;
    let theirs = blocked(&served.address, "bob-token", "T-3").await;
    let cookie = sign_in(&served, "acme:carol").await;

    // Another tenant's request: not listed, 404 to see or decide.
    let (_, body) = get(&served, "/approvals", Some(&cookie)).await;
    assert!(!body.contains(&theirs), "{body}");
    let (status, body) = get(
        &served,
        &format!("/approvals/requests/{theirs}"),
        Some(&cookie),
    )
    .await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("No such approval request."), "{body}");

    // An expired request of the decider's tenant.
    let expired = ApprovalRequest {
        id: "01930000-0000-7000-8000-000000000001".into(),
        tool: "close_ticket".into(),
        text: "Close ticket T-4".into(),
        caller: "acme:alice".into(),
        fingerprints: vec!["f".into()],
        expires_at: now() - 1,
        decision: Decision::Pending,
        review: Some(Review::of(&json!({"ticketId": "T-4"}), |_| false)),
    };
    served.approvals.create(&expired).await.unwrap();
    let (status, body) = get(
        &served,
        &format!("/approvals/requests/{}", expired.id),
        Some(&cookie),
    )
    .await;
    assert_eq!(status, 410, "{body}");
    assert!(body.contains("This approval request expired"), "{body}");
    let (_, body) = get(&served, "/approvals", Some(&cookie)).await;
    assert!(!body.contains(&expired.id), "{body}");

    // Deciding either, with a valid CSRF token (from a pending request's page): 404, 410.
    let mine = blocked(&served.address, "alice-token", "T-5").await;
    let (_, body) = get(
        &served,
        &format!("/approvals/requests/{mine}"),
        Some(&cookie),
    )
    .await;
    let token = csrf(&body);
    let approve = [("csrf", token.as_str()), ("decision", "approve")];
    let (status, body) = post(&served, &theirs, &cookie, &approve).await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("No such approval request."), "{body}");
    let (status, body) = post(&served, &expired.id, &cookie, &approve).await;
    assert_eq!(status, 410, "{body}");
    assert!(body.contains("This approval request expired"), "{body}");
    for id in [&theirs, &expired.id] {
        let request = served.approvals.get(id).await.unwrap().unwrap();
        assert_eq!(request.decision, Decision::Pending, "{id}");
    }

    // A CSRF token is bound to its session: another session's is refused.
    let other = sign_in(&served, "acme:carol").await;
    let (status, body) = post(&served, &mine, &other, &approve).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("CSRF token is missing or wrong"), "{body}");
}

#[tokio::test]
async fn sign_in_links_are_single_use_bound_and_cookies_secure_off_loopback() {
    let served = serve().await;
    // Forged: 403.
    let (status, _, body) = spend(&served, "/approvals/sign-in?token=forged", None).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("This sign-in link is not valid"), "{body}");
    // Not a decider: no link.
    let refused = served
        .page
        .sign_in_link(&served.approvals, &Identity::parse("acme:mallory").unwrap())
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("may not decide"), "{refused}");
    // Expired: 410 (a link's record, by its token's SHA-256, made past its time).
    let token = "an-expired-sign-in-token";
    let id = {
        use sha2::Digest as _;
        sha2::Sha256::digest(token.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let link = served
        .page
        .sign_in_link(&served.approvals, &Identity::parse("acme:carol").unwrap())
        .await
        .unwrap();
    let fresh = link.split("token=").nth(1).unwrap();
    let fresh_id = {
        use sha2::Digest as _;
        sha2::Sha256::digest(fresh.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let mut record = served
        .approvals
        .get(&fresh_id)
        .await
        .unwrap()
        .expect("the link's record, by its token's hash");
    assert_eq!(record.caller, "acme:carol");
    assert!(record.review.is_none(), "a link is no request to decide");
    record.id = id;
    record.expires_at = now() - 1;
    served.approvals.create(&record).await.unwrap();
    let (status, _, body) =
        spend(&served, &format!("/approvals/sign-in?token={token}"), None).await;
    assert_eq!(status, 410, "{body}");
    assert!(body.contains("This sign-in link expired"), "{body}");
    // Off loopback the cookie is Secure.
    let (status, headers, _) = spend(&served, &link, Some("approvals.example.com")).await;
    assert_eq!(status, 200);
    let set = headers["set-cookie"].to_str().unwrap();
    assert!(set.contains("; Secure"), "{set}");
}

/// What browsers send with a form (Fetch Metadata): a form of another site is refused by its
/// `Sec-Fetch-Site`; the `Origin: null` a browser sends for a form of this page (its
/// `Referrer-Policy: no-referrer`) passes beside `Sec-Fetch-Site: same-origin` only.
#[tokio::test]
async fn forms_from_another_site_are_refused_by_their_fetch_metadata() {
    let served = serve().await;
    let id = blocked(&served.address, "alice-token", "T-9").await;
    let (cookie, token) = on_the_request(&served, &id).await;
    let form = [("csrf", token.as_str()), ("decision", "approve")];
    let send = |origin: &'static str, site: Option<&'static str>| {
        let mut request = browser()
            .post(format!("http://{}/approvals/requests/{id}", served.address))
            .header("cookie", &cookie)
            .header("origin", origin)
            .form(&form);
        if let Some(site) = site {
            request = request.header("sec-fetch-site", site);
        }
        page(request)
    };
    for (origin, site) in [
        ("null", Some("cross-site")),
        ("null", Some("same-site")),
        ("null", None),
        ("https://evil.example", Some("same-origin")),
    ] {
        let (status, _, body) = send(origin, site).await;
        assert_eq!(status, 403, "{origin} {site:?}: {body}");
        assert!(body.contains("CSRF token is missing or wrong"), "{body}");
    }
    let still = served.approvals.get(&id).await.unwrap().unwrap();
    assert_eq!(still.decision, Decision::Pending);

    // The browser's own form: `Origin: null`, `Sec-Fetch-Site: same-origin`.
    let (status, _, body) = send("null", Some("same-origin")).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("<h1>Approved</h1>"), "{body}");
}

/// The blocked request of `close_ticket` of `ticket` by alice on `served`: its id.
async fn blocked_by_alice(served: &Served, ticket: &str) -> String {
    let blocked = close(&served.address, "alice-token", ticket, None).await;
    blocked["structuredContent"]["approvalRequestId"]
        .as_str()
        .expect("an approvalRequestId")
        .to_owned()
}

const NOT_YOURS: &str = "You made this request, and a write that needs a human approval is \
                         approved by another person: ask another approver. You may reject it \
                         to withdraw it.";

#[tokio::test]
async fn a_decider_cannot_approve_their_own_request_unless_the_page_allows_it() {
    let page = ApprovalsPage::new().deciders(["acme:alice", "acme:carol"]);
    let served = serve_page(State::new(), page.clone()).await;
    let id = blocked_by_alice(&served, "T-4E").await;
    let alice = sign_in(&served, "acme:alice").await;
    let (status, body) = get(&served, &format!("/approvals/requests/{id}"), Some(&alice)).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("You made this request: another approver approves it."),
        "{body}"
    );
    let (status, body) = post(
        &served,
        &id,
        &alice,
        &[("csrf", &csrf(&body)), ("decision", "approve")],
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("<h1>Not yours to approve</h1>"), "{body}");
    assert!(body.contains(&format!("<p>{NOT_YOURS}</p>")), "{body}");
    assert_eq!(
        served.approvals.get(&id).await.unwrap().unwrap().decision,
        Decision::Pending
    );
    // carol, another person, approves it.
    let carol = sign_in(&served, "acme:carol").await;
    let (_, body) = get(&served, &format!("/approvals/requests/{id}"), Some(&carol)).await;
    assert!(!body.contains("You made this request"), "{body}");
    let (status, body) = post(
        &served,
        &id,
        &carol,
        &[("csrf", &csrf(&body)), ("decision", "approve")],
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // The caller withdraws a request of their own.
    let id = blocked_by_alice(&served, "T-4F").await;
    let (_, body) = get(&served, &format!("/approvals/requests/{id}"), Some(&alice)).await;
    let (status, body) = post(
        &served,
        &id,
        &alice,
        &[
            ("csrf", &csrf(&body)),
            ("decision", "reject"),
            ("reason", "not needed"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{body}");

    // A page that allows it, by name.
    let served = serve_page(State::new(), page.allow_self_approval()).await;
    let id = blocked_by_alice(&served, "T-4G").await;
    let alice = sign_in(&served, "acme:alice").await;
    let (_, body) = get(&served, &format!("/approvals/requests/{id}"), Some(&alice)).await;
    let (status, body) = post(
        &served,
        &id,
        &alice,
        &[("csrf", &csrf(&body)), ("decision", "approve")],
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn opening_a_sign_in_link_spends_nothing_and_only_its_own_form_signs_in() {
    let served = serve().await;
    let link = served
        .page
        .sign_in_link(&served.approvals, &Identity::parse("acme:carol").unwrap())
        .await
        .unwrap();
    let url = format!("http://{}{link}", served.address);
    // A previewer's GET and HEAD: a page with one button, no session, nothing spent.
    for _ in 0..2 {
        let (status, headers, body) = page(browser().get(&url)).await;
        assert_eq!(status, 200, "{body}");
        assert!(headers.get("set-cookie").is_none(), "{headers:?}");
        assert!(body.contains("<h1>Sign in</h1>"), "{body}");
    }
    let head = browser().head(&url).send().await.unwrap();
    assert_eq!(head.status(), 200);
    assert!(head.headers().get("set-cookie").is_none());
    // A form of another site carrying the token is refused, and spends nothing.
    let token = link.split("token=").nth(1).unwrap();
    let (status, headers, body) = page(
        browser()
            .post(format!("http://{}/approvals/sign-in", served.address))
            .header("sec-fetch-site", "cross-site")
            .form(&[("token", token)]),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(headers.get("set-cookie").is_none(), "{headers:?}");
    assert!(
        body.contains(
            "This sign-in came from another site; nobody was signed in. Open the link itself."
        ),
        "{body}"
    );
    // The button's POST signs in, once.
    let (status, headers, _) = spend(&served, &link, None).await;
    assert_eq!(status, 200);
    assert!(headers["set-cookie"]
        .to_str()
        .unwrap()
        .starts_with("mcp_result_approvals="));
    let (status, _, body) = spend(&served, &link, None).await;
    assert_eq!(status, 410, "{body}");
}

/// Posts the sign-out form with `cookie` and its CSRF token `csrf`.
async fn sign_out(
    served: &Served,
    cookie: &str,
    csrf: &str,
) -> (u16, reqwest::header::HeaderMap, String) {
    page(
        browser()
            .post(format!("http://{}/approvals/sign-out", served.address))
            .header("cookie", cookie)
            .header("origin", format!("http://{}", served.address))
            .form(&[("csrf", csrf)]),
    )
    .await
}

#[tokio::test]
async fn a_sign_out_ends_its_session_and_a_revocation_every_session_of_the_identity() {
    let served = serve().await;
    let first = sign_in(&served, "acme:carol").await;
    let second = sign_in(&served, "acme:carol").await;
    let (status, list) = get(&served, "/approvals", Some(&first)).await;
    assert_eq!(status, 200);
    assert!(
        list.contains(r#"<button type="submit">Sign out</button>"#),
        "{list}"
    );
    // Without its CSRF token: refused, the session stays.
    let (status, _, body) = sign_out(&served, &first, "forged").await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(get(&served, "/approvals", Some(&first)).await.0, 200);
    // With it: signed out, the cookie cleared, the session refused from then on.
    let (status, headers, body) = sign_out(&served, &first, &csrf(&list)).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("<p>You are signed out of the approvals page.</p>"),
        "{body}"
    );
    let cleared = headers["set-cookie"].to_str().unwrap();
    assert!(
        cleared.starts_with("mcp_result_approvals=;") && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
    let (status, body) = get(&served, "/approvals", Some(&first)).await;
    assert_eq!(status, 401, "{body}");
    // The other session is carol's too, and lives on until her sessions are revoked.
    assert_eq!(get(&served, "/approvals", Some(&second)).await.0, 200);
    let carol = Identity::parse("acme:carol").unwrap();
    assert_eq!(
        mcp_result::approval::revoke_sessions(&served.approvals, &carol)
            .await
            .unwrap(),
        1
    );
    let (status, body) = get(&served, "/approvals", Some(&second)).await;
    assert_eq!(status, 401, "{body}");
    assert!(
        body.contains("You are not signed in to the approvals page"),
        "{body}"
    );
    // Signing in again works.
    let third = sign_in(&served, "acme:carol").await;
    assert_eq!(get(&served, "/approvals", Some(&third)).await.0, 200);
}

#[tokio::test]
async fn a_session_ends_when_left_unused() {
    let page = ApprovalsPage::new()
        .deciders(["acme:carol"])
        .session_limits(
            std::time::Duration::from_secs(2),
            std::time::Duration::from_secs(3600),
        );
    let served = serve_page(State::new(), page).await;
    let carol = sign_in(&served, "acme:carol").await;
    assert_eq!(get(&served, "/approvals", Some(&carol)).await.0, 200);
    tokio::time::sleep(std::time::Duration::from_millis(3100)).await;
    let (status, body) = get(&served, "/approvals", Some(&carol)).await;
    assert_eq!(status, 401, "{body}");
}

#[tokio::test]
async fn characters_that_change_reading_are_shown_marked_with_a_warning() {
    let served = serve().await;
    let blocked = close(
        &served.address,
        "alice-token",
        "\u{202e}1001-T\u{200b}",
        None,
    )
    .await;
    let message = blocked["structuredContent"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.starts_with(
            "This write needs a human approval: Close ticket [U+202E]1001-T[U+200B]. Warning: \
             /ticketId holds characters that change how text reads, shown as [U+…]. Nothing ran."
        ),
        "{message}"
    );
    let id = blocked["structuredContent"]["approvalRequestId"]
        .as_str()
        .unwrap()
        .to_owned();
    let carol = sign_in(&served, "acme:carol").await;
    let (status, body) = get(&served, &format!("/approvals/requests/{id}"), Some(&carol)).await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains(
            "<p class=\"warning\">Warning: characters that change how text reads (direction \
             overrides, zero-width or other invisible characters, control characters) are in \
             <code>/ticketId</code>."
        ),
        "{body}"
    );
    assert!(body.contains("<pre>[U+202E]1001-T[U+200B]</pre>"), "{body}");
    assert!(
        !body.contains('\u{202e}') && !body.contains('\u{200b}'),
        "{body}"
    );
    // The whole of a cut value, one click away.
    let (status, value) = get(
        &served,
        &format!("/approvals/requests/{id}/value?at=%2Fnote"),
        Some(&carol),
    )
    .await;
    assert_eq!(status, 200, "{value}");
    assert!(value.contains("Characters 1 to 300 of 300."), "{value}");
    assert!(
        value.contains(&format!("<pre>{}</pre>", "n".repeat(300))),
        "{value}"
    );
    let (status, _) = get(
        &served,
        &format!("/approvals/requests/{id}/value?at=%2Ftoken"),
        Some(&carol),
    )
    .await;
    assert_eq!(status, 404, "a withheld secret is not kept");
}

#[tokio::test]
async fn twenty_thousand_undeclared_arguments_are_refused_before_any_request() {
    let served = serve().await;
    let mut arguments = json!({"ticketId": "T-5", "token": SECRET});
    for n in 0..20_000 {
        arguments[format!("extra{n}")] = json!(n);
    }
    let response = browser()
        .post(format!("http://{}/mcp", served.address))
        .header("authorization", "Bearer alice-token")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "close_ticket", "arguments": arguments}}))
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    let refused = &body["result"]["structuredContent"];
    assert_eq!(refused["errorKind"], "validation_error", "{body}");
    assert_eq!(
        refused["message"],
        "20000 arguments are invalid (the first 20 are listed). Fix all of them and call again."
    );
    assert!(served.approvals.pending(None, 10).await.unwrap().is_empty());
}

/// Two instances of the page on one PostgreSQL (their approval store, and one server key):
/// a session opened on one is good on the other until its identity's sessions are
/// revoked (the `approvals revoke` command's function), then both refuse it.
#[cfg(feature = "postgres")]
#[tokio::test]
async fn a_revocation_on_postgres_ends_the_session_on_every_instance() {
    let database = crate::common::postgres::TestDatabase::create().await;
    let stores = mcp_result::sql::SqlStores::connect(database.url())
        .await
        .unwrap();
    let page = ApprovalsPage::new().deciders(["acme:carol"]);
    let mut addresses = Vec::new();
    for _ in 0..2 {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        addresses.push(listener.local_addr().unwrap().to_string());
        let options = HttpOptions {
            state: State::with_sql_stores(stores.clone()),
            ..HttpOptions::default()
        }
        .with_approvals_page(page.clone());
        approvals::serve(listener, Arc::new(StaticTokens::new()), options);
    }
    let store = stores.approvals();
    let carol = Identity::parse("acme:carol").unwrap();
    let link = page.sign_in_link(&store, &carol).await.unwrap();
    let signed_in = crate::common::approvals::use_sign_in_link(
        &browser(),
        &format!("http://{}{link}", addresses[0]),
    )
    .await;
    assert_eq!(signed_in.status(), 200);
    let cookie = signed_in.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let list = |address: String, cookie: String| async move {
        browser()
            .get(format!("http://{address}/approvals"))
            .header("cookie", cookie)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    };
    for address in &addresses {
        assert_eq!(
            list(address.clone(), cookie.clone()).await,
            200,
            "{address}"
        );
    }
    assert_eq!(
        mcp_result::approval::revoke_sessions(&store, &carol)
            .await
            .unwrap(),
        1
    );
    for address in &addresses {
        assert_eq!(
            list(address.clone(), cookie.clone()).await,
            401,
            "{address}"
        );
    }
    stores.close().await;
    drop(database);
}
