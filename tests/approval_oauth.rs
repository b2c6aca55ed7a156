//! The approvals page of an OAuth resource server signs people in through the same
//! authorization server (issue 40, third slice): authorization code with PKCE (`S256`),
//! the page a confidential client, `state` and `nonce` checked, the person the identity an
//! MCP call with the resulting access token would be.
//!
//! With `callers_confirm`, the caller of a URL-mode elicitation signs in the same way: the
//! link it is sent is the request's page with no credential in it; opened without a
//! session it starts the sign-in and comes back to the request, which only its caller may
//! confirm (another person of the tenant is refused "Not your request").
//!
//! The authorization server is real: `oidc-provider` (`tests/clients/oauth-server.mjs`,
//! pinned), with the page's client registered and its development interactions on (a login
//! form taking any login, then a consent form). reqwest is the browser: it follows the
//! redirects, carries the authorization server's cookies and submits its forms as a person
//! would. Two tests (with `elicitation` too, which the browser tests need) drive headless
//! Chromium through the same sign-in instead, with the helper of `approval_browser`: a
//! decider's, and a caller's from the link a URL-only TypeScript SDK client is sent during
//! its call (MCP 2025-11-25).

use crate::common;

use std::{
    collections::HashMap,
    io::{BufRead, BufReader},
    path::Path,
    process::Stdio,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
};

use common::pinned::{command, install_npm, KillOnDrop, CLIENTS_DIR};
#[cfg(feature = "elicitation")]
use mcp_result::approval::{ApprovalStore, Decision};
use mcp_result::{
    approval::MemoryApprovals,
    http::{ApprovalsPage, HttpOptions, ProtectedResource},
    oauth::JwtVerifier,
    State,
};
use serde_json::{json, Value};

use crate::common::approvals;

const SECRET: &str = "s3cret-upstream-credential";

/// The authorization server, and the desk served behind it with its approvals page.
struct Setup {
    issuer: String,
    /// `127.0.0.1:PORT` of the desk.
    address: String,
    closed: Arc<AtomicUsize>,
    approvals: MemoryApprovals,
    _server: KillOnDrop,
}

impl Setup {
    /// The desk as the resource `http://ADDRESS/mcp` of a fresh authorization server, its
    /// page signing in with the client `mcp-approvals`; deciders `acme:alice` and
    /// `globex:eve`.
    async fn start() -> Setup {
        Self::start_with(ApprovalsPage::new().deciders(["acme:alice", "globex:eve"])).await
    }

    /// [`Setup::start`] whose callers confirm their own requests on the page
    /// (`callers_confirm`), where only `globex:eve` decides: alice and carol (acme) are no
    /// deciders, each may confirm only her own request.
    #[cfg(feature = "elicitation")]
    async fn callers_confirm() -> Setup {
        Self::start_with(
            ApprovalsPage::new()
                .deciders(["globex:eve"])
                .callers_confirm(),
        )
        .await
    }

    /// [`Setup::start`] with `page` (its deciders, `callers_confirm`), signing in with the
    /// client `mcp-approvals`.
    async fn start_with(page: ApprovalsPage) -> Setup {
        install_npm().expect("npm ci in tests/clients");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let mut node = command("node", &["oauth-server.mjs"], Path::new(CLIENTS_DIR));
        node.env(
            "OAUTH_APPROVALS_REDIRECT_URI",
            format!("http://{address}/approvals/callback"),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
        std::os::unix::process::CommandExt::process_group(&mut node, 0);
        let mut child = node.spawn().expect("start oauth-server.mjs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .expect("the authorization server's ready line");
        let server = KillOnDrop(child);
        let ready: Value = serde_json::from_str(&line).expect("a JSON ready line");
        let issuer = ready["issuer"].as_str().unwrap().to_owned();
        let resource = format!("http://{address}/mcp");
        let verifier = JwtVerifier::discover(&issuer, resource.clone())
            .await
            .expect("the authorization server's metadata");
        let page = page.oauth_client("mcp-approvals", "approvals-secret");
        let approvals = MemoryApprovals::default();
        // Callers confirming on the page keep sessions: a 2025-11-25 client is sent the
        // elicitation during its call.
        let options = HttpOptions {
            resource: Some(ProtectedResource::new(resource, [issuer.clone()])),
            state: State::new().with_approval_store(Arc::new(approvals.clone())),
            sessions: page.confirms_callers(),
            ..HttpOptions::default()
        }
        .with_approvals_page(page);
        let closed = approvals::serve(listener, Arc::new(verifier), options);
        Setup {
            issuer,
            address,
            closed,
            approvals,
            _server: server,
        }
    }

    /// A client credentials token of `mcp-client` (tenant `acme`) for the desk.
    async fn caller_token(&self) -> String {
        let answer: Value = reqwest::Client::new()
            .post(format!("{}/token", self.issuer))
            .basic_auth("mcp-client", Some("client-secret"))
            .form(&[
                ("grant_type", "client_credentials"),
                ("resource", &format!("http://{}/mcp", self.address)),
            ])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        answer["access_token"].as_str().expect("a token").to_owned()
    }

    /// `close_ticket` of `ticket` as `token` (a client that cannot elicit): the result.
    async fn close(&self, token: &str, ticket: &str, request: Option<&str>) -> Value {
        let mut arguments = json!({"ticketId": ticket, "token": SECRET});
        if let Some(id) = request {
            arguments["approvalRequestId"] = json!(id);
        }
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "close_ticket", "arguments": arguments}});
        let response = reqwest::Client::new()
            .post(format!("http://{}/mcp", self.address))
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

    fn page_url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }
}

fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// The `name=value` of each `Set-Cookie` of `response`.
fn set_cookies(headers: &reqwest::header::HeaderMap) -> Vec<(String, String)> {
    headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split(';').next()?.split_once('='))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect()
}

/// A browser's cookies for one site, by name (the authorization server's are few and
/// distinctly named, so paths are not tracked).
#[derive(Default)]
struct Jar(HashMap<String, String>);

impl Jar {
    fn take(&mut self, headers: &reqwest::header::HeaderMap) {
        for (name, value) in set_cookies(headers) {
            if value.is_empty() {
                self.0.remove(&name);
            } else {
                self.0.insert(name, value);
            }
        }
    }

    fn header(&self) -> String {
        self.0
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The value of `name="..."` in `tag`.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[at..].split('"').next()
}

/// The first form of `html`: its action and its fields, `login` and `password` filled in
/// with `login`, every other input with its value.
fn form(html: &str, login: &str) -> (String, Vec<(String, String)>) {
    let start = html.find("<form").expect("a form");
    let end = html[start..].find("</form>").expect("the form's end") + start;
    let body = &html[start..end];
    let action = attribute(&body[..body.find('>').unwrap()], "action")
        .expect("the form's action")
        .replace("&amp;", "&");
    let mut fields = Vec::new();
    for input in body.split("<input").skip(1) {
        let tag = &input[..input.find('>').unwrap()];
        let Some(name) = attribute(tag, "name") else {
            continue;
        };
        let value = match name {
            "login" | "password" => login.to_owned(),
            _ => attribute(tag, "value").unwrap_or_default().to_owned(),
        };
        fields.push((name.to_owned(), value));
    }
    (action, fields)
}

/// Starts a sign-in on the page: the authorization request's URL and the page's sign-in
/// cookie (`name=value`).
async fn start_sign_in(setup: &Setup) -> (String, String) {
    let response = browser()
        .get(setup.page_url("/approvals/login"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 303);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    let cookie = set_cookies(response.headers())
        .into_iter()
        .find(|(name, _)| name == "mcp_result_approvals_login")
        .map(|(name, value)| format!("{name}={value}"))
        .expect("the sign-in cookie");
    (location, cookie)
}

/// Signs `login` in at the authorization server from `authorize` (its login form, then its
/// consent form, following every redirect): the URL it sends the browser back to.
async fn at_the_authorization_server(setup: &Setup, authorize: &str, login: &str) -> String {
    let callback = setup.page_url("/approvals/callback");
    let http = browser();
    let mut jar = Jar::default();
    let mut next = http.get(authorize);
    for _ in 0..20 {
        let response = next.header("cookie", jar.header()).send().await.unwrap();
        jar.take(response.headers());
        let status = response.status().as_u16();
        if (300..400).contains(&status) {
            let location = response.headers()["location"].to_str().unwrap().to_owned();
            if location.starts_with(&callback) {
                return location;
            }
            let location = if location.starts_with('/') {
                format!("{}{location}", setup.issuer)
            } else {
                location
            };
            next = http.get(location);
            continue;
        }
        let html = response.text().await.unwrap();
        assert_eq!(status, 200, "{html}");
        let (action, fields) = form(&html, login);
        let action = if action.starts_with('/') {
            format!("{}{action}", setup.issuer)
        } else {
            action
        };
        next = http.post(action).form(&fields);
    }
    panic!("the authorization server never sent the browser back");
}

/// A page of the desk: its status and its HTML (and headers).
async fn get(
    setup: &Setup,
    path: &str,
    cookie: Option<&str>,
) -> (u16, reqwest::header::HeaderMap, String) {
    let mut request = browser().get(setup.page_url(path));
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.text().await.unwrap())
}

/// Signs `login` in, the whole way: the page's session cookie (`name=value`).
async fn sign_in(setup: &Setup, login: &str) -> String {
    let (authorize, login_cookie) = start_sign_in(setup).await;
    let back = at_the_authorization_server(setup, &authorize, login).await;
    let path = back.strip_prefix(&setup.page_url("")).unwrap();
    let (status, headers, body) = get(setup, path, Some(&login_cookie)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(headers["refresh"], "0; url=/approvals");
    let cookies = set_cookies(&headers);
    assert!(
        cookies.contains(&("mcp_result_approvals_login".to_owned(), String::new())),
        "the sign-in cookie is cleared: {cookies:?}"
    );
    let (name, value) = cookies
        .into_iter()
        .find(|(name, _)| name == "mcp_result_approvals")
        .expect("the session cookie");
    let set = headers
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap())
        .find(|v| v.starts_with("mcp_result_approvals="))
        .unwrap();
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/approvals"] {
        assert!(set.contains(attribute), "{set}");
    }
    format!("{name}={value}")
}

/// The query of `url`, by name.
fn query(url: &str) -> HashMap<String, String> {
    reqwest::Url::parse(url)
        .expect("a URL")
        .query_pairs()
        .into_owned()
        .collect()
}

#[tokio::test]
async fn the_sign_in_redirect_carries_pkce_s256_state_and_nonce() {
    let setup = Setup::start().await;

    // Not signed in: 401, with where to sign in.
    let (status, _, body) = get(&setup, "/approvals", None).await;
    assert_eq!(status, 401, "{body}");
    assert!(
        body.contains(r#"<a href="/approvals/login">Sign in</a>"#),
        "{body}"
    );

    let response = browser()
        .get(setup.page_url("/approvals/login"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 303);
    let location = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        location.starts_with(&format!("{}/auth?", setup.issuer)),
        "the discovered authorization endpoint: {location}"
    );
    let asked = query(&location);
    assert_eq!(asked["response_type"], "code");
    assert_eq!(asked["client_id"], "mcp-approvals");
    assert_eq!(asked["redirect_uri"], setup.page_url("/approvals/callback"));
    assert_eq!(asked["code_challenge_method"], "S256");
    assert_eq!(asked["resource"], setup.page_url("/mcp"));
    assert!(asked["scope"].split(' ').any(|s| s == "openid"));
    // A SHA-256, base64url: 43 characters.
    assert_eq!(asked["code_challenge"].len(), 43);
    assert!(asked["state"].len() >= 43 && asked["nonce"].len() >= 43);
    assert_ne!(asked["state"], asked["nonce"]);
    let set = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|v| v.starts_with("mcp_result_approvals_login="))
        .expect("the sign-in cookie");
    for attribute in ["HttpOnly", "SameSite=Lax", "Path=/approvals", "Max-Age=600"] {
        assert!(set.contains(attribute), "{set}");
    }

    // Each sign-in its own state, nonce and verifier.
    let (again, _) = start_sign_in(&setup).await;
    let again = query(&again);
    assert_ne!(again["state"], asked["state"]);
    assert_ne!(again["nonce"], asked["nonce"]);
    assert_ne!(again["code_challenge"], asked["code_challenge"]);
}

#[tokio::test]
async fn a_callback_with_a_wrong_state_signs_nobody_in() {
    let setup = Setup::start().await;
    let (authorize, login_cookie) = start_sign_in(&setup).await;
    let back = at_the_authorization_server(&setup, &authorize, "alice").await;
    let returned = query(&back);
    assert_eq!(returned["state"], query(&authorize)["state"]);
    assert!(returned.contains_key("code"));

    // The right code with another state: 400, no session.
    let forged = reqwest::Url::parse_with_params(
        &setup.page_url("/approvals/callback"),
        &[
            ("code", returned["code"].as_str()),
            ("state", &format!("forged-{}", returned["state"])),
            ("iss", &setup.issuer),
        ],
    )
    .unwrap();
    let path = format!("{}?{}", forged.path(), forged.query().unwrap());
    let (status, headers, body) = get(&setup, &path, Some(&login_cookie)).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("<h1>Sign-in failed</h1>"), "{body}");
    assert!(body.contains("<p class=\"status\">HTTP 400</p>"), "{body}");
    assert!(
        body.contains(
            "<p>The sign-in&#39;s state is not the one this page sent; nobody was signed in. \
             Sign in again.</p>"
        ),
        "{body}"
    );
    assert!(headers.get("set-cookie").is_none(), "{headers:?}");
    assert_eq!(headers["cache-control"], "no-store");

    // A callback without the sign-in cookie (not started in this browser): 400.
    let (status, _, body) = get(&setup, &path, None).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("This sign-in was not started here"), "{body}");
}

#[tokio::test]
async fn a_person_signs_in_at_the_authorization_server_and_decides() {
    let setup = Setup::start().await;
    let caller = setup.caller_token().await;
    let blocked = setup.close(&caller, "T-7", None).await;
    assert_eq!(
        blocked["structuredContent"]["status"], "blocked",
        "{blocked}"
    );
    let id = blocked["structuredContent"]["approvalRequestId"]
        .as_str()
        .unwrap()
        .to_owned();

    // alice (tenant acme, the caller's) signs in: the list shows the request.
    let alice = sign_in(&setup, "alice").await;
    let (status, _, body) = get(&setup, "/approvals", Some(&alice)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("signed in as alice (acme)"), "{body}");
    assert!(
        body.contains(&format!("/approvals/requests/{id}")),
        "{body}"
    );
    assert!(body.contains("Close ticket T-7"), "{body}");

    // The request, its secret withheld; approved.
    let (status, _, body) = get(&setup, &format!("/approvals/requests/{id}"), Some(&alice)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("withheld (secret)"), "{body}");
    assert!(!body.contains(SECRET), "{body}");
    let at = body.find(r#"name="csrf" value=""#).unwrap() + 19;
    let csrf = body[at..].split('"').next().unwrap().to_owned();
    let response = browser()
        .post(setup.page_url(&format!("/approvals/requests/{id}")))
        .header("cookie", &alice)
        .header("origin", setup.page_url(""))
        .form(&[("csrf", csrf.as_str()), ("decision", "approve")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);

    // The caller's retry runs the write once.
    let result = setup.close(&caller, "T-7", Some(&id)).await;
    assert_eq!(
        result["structuredContent"]["status"], "succeeded",
        "{result}"
    );
    assert_eq!(setup.closed.load(Ordering::SeqCst), 1);

    // eve (tenant globex) signs in too: none of acme's requests, not even by its id.
    let other = setup.close(&caller, "T-8", None).await;
    let other_id = other["structuredContent"]["approvalRequestId"]
        .as_str()
        .unwrap()
        .to_owned();
    let eve = sign_in(&setup, "eve").await;
    let (status, _, body) = get(&setup, "/approvals", Some(&eve)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("signed in as eve (globex)"), "{body}");
    assert!(!body.contains(&other_id), "{body}");
    assert!(!body.contains("Close ticket T-8"), "{body}");
    let (status, _, body) = get(
        &setup,
        &format!("/approvals/requests/{other_id}"),
        Some(&eve),
    )
    .await;
    assert_eq!(status, 404, "{body}");

    // mallory signs in at the authorization server but is no decider here: 403.
    let (authorize, login_cookie) = start_sign_in(&setup).await;
    let back = at_the_authorization_server(&setup, &authorize, "mallory").await;
    let path = back.strip_prefix(&setup.page_url("")).unwrap();
    let (status, headers, body) = get(&setup, path, Some(&login_cookie)).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("mallory may not decide"), "{body}");
    assert!(headers.get("set-cookie").is_none(), "{headers:?}");
}

// URL-mode elicitation (the test below and its helpers) needs the `elicitation` feature
// too; this area is built with `oauth` and `approvals-page`.

/// An access token for the desk of the person `login` (a browser's authorization code
/// flow with PKCE at the authorization server, the test exchanging the code itself): the
/// token an MCP client of that person's would call with, its subject the login, its tenant
/// the person's. (The code is asked for with the page's client, the one client registered
/// for the authorization code here; the identity the verifier derives is the person's,
/// whatever the client.)
#[cfg(feature = "elicitation")]
async fn person_token(setup: &Setup, login: &str) -> String {
    use base64::Engine as _;
    use sha2::Digest as _;
    let verifier = format!("{}-a-pkce-code-verifier-of-this-test-0123456789", login);
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(sha2::Sha256::digest(verifier.as_bytes()));
    let redirect = setup.page_url("/approvals/callback");
    let resource = setup.page_url("/mcp");
    let authorize = reqwest::Url::parse_with_params(
        &format!("{}/auth", setup.issuer),
        &[
            ("response_type", "code"),
            ("client_id", "mcp-approvals"),
            ("redirect_uri", redirect.as_str()),
            ("scope", "openid"),
            ("state", "a-state-of-this-test"),
            ("nonce", "a-nonce-of-this-test"),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("resource", resource.as_str()),
        ],
    )
    .unwrap();
    let back = at_the_authorization_server(setup, authorize.as_str(), login).await;
    let code = query(&back)["code"].clone();
    let answer: Value = reqwest::Client::new()
        .post(format!("{}/token", setup.issuer))
        .basic_auth("mcp-approvals", Some("approvals-secret"))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", redirect.as_str()),
            ("code_verifier", verifier.as_str()),
            ("resource", resource.as_str()),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("an access token: {answer}"))
        .to_owned()
}

/// `close_ticket` of `ticket` on MCP 2026-07-28 as the holder of `token`, over streamable
/// HTTP with raw JSON-RPC, its client declaring only URL-mode elicitation; `round` adds
/// the `inputResponses` and `requestState` of a call that comes again. The JSON-RPC
/// `result`.
#[cfg(feature = "elicitation")]
async fn close_2026(
    setup: &Setup,
    token: &str,
    ticket: &str,
    round: Option<(Value, &str)>,
) -> Value {
    let mut params = json!({"name": "close_ticket",
        "arguments": {"ticketId": ticket, "token": SECRET},
        "_meta": approvals::meta_2026(json!({"url": {}}))});
    if let Some((answer, state)) = round {
        params["inputResponses"] = json!({ "approval": answer });
        params["requestState"] = json!(state);
    }
    approvals::call_2026(&setup.page_url("/mcp"), token, params).await
}

/// A person opens `path` (the link of a URL-mode elicitation) with no session and signs in
/// as `login` at the authorization server, the whole way: the sign-in's answer when the
/// browser comes back (its status, headers and page) and the session cookie
/// (`name=value`).
#[cfg(feature = "elicitation")]
async fn open_signed_out(
    setup: &Setup,
    path: &str,
    login: &str,
) -> ((u16, reqwest::header::HeaderMap, String), String) {
    let response = browser().get(setup.page_url(path)).send().await.unwrap();
    assert_eq!(response.status(), 303, "a sign-in starts");
    let authorize = response.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        authorize.starts_with(&format!("{}/auth?", setup.issuer)),
        "{authorize}"
    );
    let login_cookie = set_cookies(response.headers())
        .into_iter()
        .find(|(name, _)| name == "mcp_result_approvals_login")
        .map(|(name, value)| format!("{name}={value}"))
        .expect("the sign-in cookie");
    let back = at_the_authorization_server(setup, &authorize, login).await;
    let back = back.strip_prefix(&setup.page_url("")).unwrap().to_owned();
    let answer = get(setup, &back, Some(&login_cookie)).await;
    let session = set_cookies(&answer.1)
        .into_iter()
        .find(|(name, _)| name == "mcp_result_approvals")
        .map(|(name, value)| format!("{name}={value}"))
        .unwrap_or_default();
    (answer, session)
}

/// URL-mode elicitation on a page that signs in through the authorization server: the link
/// sent to the caller is the request's page, with no credential in it (MCP 2025-11-25
/// "Elicitation", URL mode: the server verifies that the person who completes it is the
/// user it was meant for, not whoever holds the link). Opened without a session it starts
/// the sign-in and comes back to the request; another person of the caller's tenant who
/// signs in through it is refused "Not your request" and the request stays pending; the
/// caller signs in, lands on it, confirms, and the call that comes again runs the write
/// once.
#[cfg(feature = "elicitation")]
#[tokio::test]
async fn the_caller_of_a_url_elicitation_signs_in_at_the_authorization_server_to_confirm() {
    let setup = Setup::callers_confirm().await;
    let carol = person_token(&setup, "carol").await;

    // The round's question: the request's page, nothing else.
    let round = close_2026(&setup, &carol, "T-9", None).await;
    assert_eq!(round["resultType"], "input_required", "{round}");
    let id = round["inputRequests"]["approval"]["params"]["elicitationId"]
        .as_str()
        .expect("the request's id")
        .to_owned();
    let path = format!("/approvals/requests/{id}");
    assert_eq!(
        round["inputRequests"],
        json!({"approval": {"method": "elicitation/create", "params": {
            "mode": "url",
            "message": "Approve this write? Close ticket T-9 Open the link and sign in as \
                carol (acme) to review and confirm it.",
            "url": setup.page_url(&path),
            "elicitationId": id}}}),
    );
    let state = round["requestState"].as_str().expect("a state").to_owned();
    let request = setup.approvals.get(&id).await.unwrap().expect("stored");
    assert_eq!(request.caller, "acme:carol");
    assert_eq!(request.decision, Decision::Pending);

    // alice, of the caller's tenant, signs in through the link: back on the request's
    // page, which refuses her.
    let ((status, headers, body), alice) = open_signed_out(&setup, &path, "alice").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(headers["refresh"], format!("0; url={path}"));
    assert!(body.contains("<p>Signed in as alice (acme).</p>"), "{body}");
    assert!(!alice.is_empty(), "a session, of that request only");
    let (status, _, body) = get(&setup, &path, Some(&alice)).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body.contains(
            "<h1>Not your request</h1>\n<p class=\"status\">HTTP 403</p>\n<p>This approval \
             request is not the one you were signed in to confirm; only its caller may \
             confirm it, and only from the link its client was sent.</p>"
        ),
        "{body}"
    );
    assert!(!body.contains("Close ticket T-9"), "{body}");
    assert!(!body.contains("name=\"csrf\""), "{body}");
    let (status, _, body) = get(&setup, "/approvals", Some(&alice)).await;
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains(&id), "{body}");
    assert_eq!(
        setup.approvals.get(&id).await.unwrap().unwrap().decision,
        Decision::Pending
    );

    // carol, the caller, signs in through the same link: on her request, she confirms.
    let ((status, headers, body), session) = open_signed_out(&setup, &path, "carol").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(headers["refresh"], format!("0; url={path}"));
    assert!(body.contains("<p>Signed in as carol (acme).</p>"), "{body}");
    let (status, _, body) = get(&setup, &path, Some(&session)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("signed in as carol (acme)"), "{body}");
    assert!(body.contains("Close ticket T-9"), "{body}");
    assert!(!body.contains(SECRET), "{body}");
    let at = body.find(r#"name="csrf" value=""#).unwrap() + 19;
    let csrf = body[at..].split('"').next().unwrap().to_owned();
    let response = browser()
        .post(setup.page_url(&path))
        .header("cookie", &session)
        .header("origin", setup.page_url(""))
        .form(&[("csrf", csrf.as_str()), ("decision", "approve")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body = response.text().await.unwrap();
    assert!(body.contains("Approved: go back to your client"), "{body}");

    // The call again with `accept`: the write runs once, under carol's approval.
    let accept = || Some((json!({"action": "accept"}), state.as_str()));
    let result = close_2026(&setup, &carol, "T-9", accept()).await;
    assert_eq!(
        result["structuredContent"]["status"], "succeeded",
        "{result}"
    );
    assert_eq!(setup.closed.load(Ordering::SeqCst), 1);
    assert!(
        matches!(
            setup.approvals.get(&id).await.unwrap().unwrap().decision,
            Decision::Used { approver, .. } if approver == "acme:carol"
        ),
        "used, approved by its caller"
    );
    // The same round again runs nothing.
    let again = close_2026(&setup, &carol, "T-9", accept()).await;
    assert_eq!(
        again["structuredContent"]["message"],
        "The approval was used already; each approval runs one write.",
        "{again}"
    );
    assert_eq!(setup.closed.load(Ordering::SeqCst), 1);
}

/// The sign-in in a real browser: Chromium (headless, the browser tests' helper) opens the
/// page signed out, follows its *Sign in* link to the real authorization server, fills its
/// login form as alice (a decider of acme) with any password, passes its consent form, and
/// comes back through the callback signed in, on the list; it opens the request an MCP
/// call left pending, reads its arguments with the secret withheld, approves, and the MCP
/// call's retry runs the write once (a second retry does not run it again).
#[cfg(feature = "elicitation")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_signs_in_at_the_authorization_server_in_chromium_and_approves() {
    use crate::approval_browser::{heading, Chromium};
    use fantoccini::Locator;

    let setup = Setup::start().await;
    let caller = setup.caller_token().await;
    let blocked = setup.close(&caller, "T-17", None).await;
    assert_eq!(
        blocked["structuredContent"]["status"], "blocked",
        "{blocked}"
    );
    let id = blocked["structuredContent"]["approvalRequestId"]
        .as_str()
        .expect("an approval request id")
        .to_owned();
    let desk = setup.page_url("");

    let chromium = Chromium::start().await;
    let client = &chromium.client;
    let result = async {
        // Signed out: the list answers 401 with where to sign in.
        chromium.at("open the list signed out");
        client.goto(&setup.page_url("/approvals")).await?;
        heading(client, "Not signed in").await?;
        assert_eq!(chromium.status().await?, 401);
        assert_eq!(
            chromium.main().await?,
            "Not signed in\nHTTP 401\nYou are not signed in to the approvals page.\nSign in"
        );

        // Sign in at the authorization server, and back on the list.
        chromium.at("follow Sign in");
        client
            .find(Locator::LinkText("Sign in"))
            .await?
            .click()
            .await?;
        let back = ("Pending approval requests", "/approvals");
        sign_in_in_chromium(&chromium, &setup, "alice", back, "alice (acme)").await?;
        let at = client.current_url().await?;
        assert_eq!(at.as_str(), format!("{desk}/approvals"));
        let cookies = client.get_all_cookies().await?;
        let session = cookies
            .iter()
            .find(|c| c.name() == "mcp_result_approvals")
            .unwrap_or_else(|| panic!("the session cookie: {cookies:?}"));
        assert_eq!(session.http_only(), Some(true), "{session:?}");
        assert_eq!(
            session.same_site().map(|s| s.to_string()).as_deref(),
            Some("Strict"),
            "{session:?}"
        );
        assert!(
            !cookies
                .iter()
                .any(|c| c.name() == "mcp_result_approvals_login"),
            "the sign-in's cookie is cleared: {cookies:?}"
        );
        let list = chromium.main().await?;
        assert!(list.contains("Close ticket T-17"), "{list}");

        // The request: its arguments, the secret withheld.
        chromium.at("open the request from the list");
        client
            .find(Locator::Css(&format!(
                r#"a[href="/approvals/requests/{id}"]"#
            )))
            .await?
            .click()
            .await?;
        heading(client, "Close a ticket").await?;
        assert_eq!(
            client.current_url().await?.path(),
            format!("/approvals/requests/{id}")
        );
        chromium.at("read the arguments");
        let mut shown = Vec::new();
        for row in client.find_all(Locator::Css("tbody tr")).await? {
            let name = row.find(Locator::Css("th")).await?.text().await?;
            let value = row.find(Locator::Css("td")).await?.text().await?;
            shown.push((name, value));
        }
        assert_eq!(
            shown,
            [
                ("ticketId".to_owned(), "T-17".to_owned()),
                ("token".to_owned(), "withheld (secret)".to_owned()),
            ],
        );
        let source = client.source().await?;
        assert!(!source.contains(SECRET), "{source}");

        // Approve: the decided page names the approval the store holds.
        chromium.at("approve");
        chromium.click("Approve", "Approved").await?;
        let approval_id = match setup.approvals.get(&id).await.unwrap().unwrap().decision {
            Decision::Approved {
                approval_id,
                approver,
            } if approver == "acme:alice" => approval_id,
            other => panic!("approved by acme:alice: {other:?}"),
        };
        chromium
            .message(
                200,
                "Approved",
                &format!(
                    "Approved: the caller's next call with this request runs once, under \
                     approval {approval_id}."
                ),
            )
            .await
    }
    .await;
    chromium.finish(result).await;

    // The MCP call's retry runs the write once; a second retry does not run it again.
    let retried = setup.close(&caller, "T-17", Some(&id)).await;
    assert_eq!(
        retried["structuredContent"]["status"], "succeeded",
        "{retried}"
    );
    assert_eq!(setup.closed.load(Ordering::SeqCst), 1);
    assert!(
        matches!(
            setup.approvals.get(&id).await.unwrap().unwrap().decision,
            Decision::Used { approver, .. } if approver == "acme:alice"
        ),
        "used, approved by alice"
    );
    let again = setup.close(&caller, "T-17", Some(&id)).await;
    assert_eq!(
        again["structuredContent"]["message"],
        "The approval was used already; each approval runs one write.",
        "{again}"
    );
    assert_eq!(setup.closed.load(Ordering::SeqCst), 1);
}

/// Chromium at the authorization server's login page (oidc-provider's development
/// interaction, on the issuer): fills its login form as `login` with any password, passes
/// its consent form, and comes back through the page's callback ("Signed in", which moves
/// on by itself) to the page `back` (its heading, its path), `200`, signed in as `who`.
#[cfg(feature = "elicitation")]
async fn sign_in_in_chromium(
    chromium: &crate::approval_browser::Chromium,
    setup: &Setup,
    login: &str,
    (heading, path): (&str, &str),
    who: &str,
) -> Result<(), fantoccini::error::CmdError> {
    use fantoccini::Locator;
    let client = &chromium.client;
    // The login form: a form posting `login` and `password` to the issuer.
    crate::approval_browser::heading(client, "Sign-in").await?;
    let at = client.current_url().await?;
    assert_eq!(at.origin().ascii_serialization(), setup.issuer, "{at}");
    assert!(at.path().starts_with("/interaction/"), "{at}");
    assert_eq!(chromium.status().await?, 200);
    let form = client.find(Locator::Css("form")).await?;
    let action = form.attr("action").await?.unwrap_or_default();
    assert!(action.starts_with(&setup.issuer), "{action}");
    let prompt = |client: &fantoccini::Client| {
        let client = client.clone();
        async move {
            client
                .find(Locator::Css(r#"form input[name="prompt"]"#))
                .await?
                .attr("value")
                .await
        }
    };
    assert_eq!(prompt(client).await?.as_deref(), Some("login"));
    chromium.at("fill the login form");
    client
        .find(Locator::Css(r#"form input[name="login"]"#))
        .await?
        .send_keys(login)
        .await?;
    client
        .find(Locator::Css(r#"form input[name="password"]"#))
        .await?
        .send_keys("any password at all")
        .await?;
    // Its consent form, on the issuer too.
    chromium.at("submit the login form");
    chromium.click("Sign-in", "Authorize").await?;
    let at = client.current_url().await?;
    assert_eq!(at.origin().ascii_serialization(), setup.issuer, "{at}");
    assert!(at.path().starts_with("/interaction/"), "{at}");
    assert_eq!(prompt(client).await?.as_deref(), Some("consent"));
    chromium.at("consent");
    chromium.click("Continue", heading).await?;
    assert_eq!(client.current_url().await?.path(), path);
    assert_eq!(chromium.status().await?, 200);
    let signed_in = client
        .find(Locator::Css("header .who"))
        .await?
        .text()
        .await?;
    assert_eq!(signed_in, format!("signed in as {who}"));
    Ok(())
}

/// URL-mode elicitation during the call (MCP 2025-11-25) on a server whose page signs in
/// through the authorization server, the whole way in real clients: the TypeScript SDK's
/// URL-only client (`tests/clients/url-elicitation.mjs`, with carol's access token) calls
/// the gated write and is sent the request's page, with no credential in it; Chromium opens
/// it signed out, is sent to the authorization server, signs in as carol, comes back to the
/// request, and confirms; the SDK's call returns the write's result, run once under carol's
/// approval, and `notifications/elicitation/complete` names the request.
#[cfg(feature = "elicitation")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_only_sdk_clients_caller_signs_in_at_the_authorization_server_in_chromium() {
    use crate::approval_browser::{client_says, exits_well, Chromium};
    use tokio::io::AsyncBufReadExt as _;

    let setup = Setup::callers_confirm().await;
    let carol = person_token(&setup, "carol").await;
    let arguments = json!({"ticketId": "T-23", "token": SECRET});
    let mut node = tokio::process::Command::new("node");
    node.arg("url-elicitation.mjs")
        .current_dir(CLIENTS_DIR)
        .env("MCP_URL", setup.page_url("/mcp"))
        .env("MCP_TOKEN", &carol)
        .env("ARGUMENTS", arguments.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let mut node = node.spawn().expect("start node url-elicitation.mjs");
    let mut lines = tokio::io::BufReader::new(node.stdout.take().unwrap()).lines();
    let connected = client_says(&mut lines, "connected").await;
    assert_eq!(connected["protocolVersion"], "2025-11-25", "{connected}");
    let elicitation = client_says(&mut lines, "elicitation").await;
    assert_eq!(elicitation["mode"], "url", "{elicitation}");
    let id = elicitation["elicitationId"]
        .as_str()
        .expect("the request's id")
        .to_owned();
    let path = format!("/approvals/requests/{id}");
    assert_eq!(
        elicitation["url"],
        json!(setup.page_url(&path)),
        "no credential in it"
    );

    let chromium = Chromium::start().await;
    let client = &chromium.client;
    let result = async {
        chromium.at("open the elicitation's link signed out");
        client.goto(&setup.page_url(&path)).await?;
        let back = ("Close a ticket", path.as_str());
        sign_in_in_chromium(&chromium, &setup, "carol", back, "carol (acme)").await?;
        let page = client.source().await?;
        assert!(page.contains("Close ticket T-23"), "{page}");
        assert!(!page.contains(SECRET), "{page}");
        chromium.at("confirm");
        chromium.click("Approve", "Approved").await?;
        let said = chromium.main().await?;
        assert!(said.contains("Approved: go back to your client"), "{said}");
        Ok(())
    }
    .await;
    chromium.finish(result).await;

    // The SDK's call: the write's result, run once under carol's own approval.
    let result = client_says(&mut lines, "result").await;
    assert_eq!(
        result["structuredContent"]["status"], "succeeded",
        "{result}"
    );
    assert_eq!(setup.closed.load(Ordering::SeqCst), 1);
    let Decision::Used {
        approval_id,
        approver,
    } = setup.approvals.get(&id).await.unwrap().unwrap().decision
    else {
        panic!("used")
    };
    assert_eq!(approver, "acme:carol");
    assert_eq!(
        result["structuredContent"]["approvalId"],
        json!(approval_id)
    );
    let complete = client_says(&mut lines, "complete").await;
    assert_eq!(complete["elicitationId"], json!(id), "{complete}");
    exits_well(&mut node).await;
}
