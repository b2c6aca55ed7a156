//! The example as an OAuth 2.1 protected resource (MCP "Authorization") behind a real
//! authorization server: `oidc-provider` (npm, pinned in `tests/clients/`), started by the
//! test with client credentials, resource indicators (RFC 8707) and RFC 9068 JWT access
//! tokens, introspection and revocation (`tests/clients/oauth-server.mjs`).
//!
//! A real MCP client (the TypeScript SDK's `ClientCredentialsProvider`) signs in by itself:
//! `401` → protected resource metadata → authorization server metadata → token → call. Then
//! every refusal, each with its exact status and challenge.

use crate::common;

use std::{
    io::{BufRead, BufReader},
    path::Path,
    process::{Command, Stdio},
    time::Duration,
};

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine as _};
use common::pinned::{command, install_npm, run_ok, KillOnDrop, CLIENTS_DIR};
use hmac::{Hmac, KeyInit as _, Mac as _};
use serde_json::{json, Value};

/// The authorization server, and the example served behind it.
struct Setup {
    issuer: String,
    url: String,
    port: u16,
    http: reqwest::Client,
    _server: KillOnDrop,
    _desk: KillOnDrop,
}

fn authorization_server() -> (String, KillOnDrop) {
    install_npm().expect("npm ci in tests/clients");
    let mut node = command("node", &["oauth-server.mjs"], Path::new(CLIENTS_DIR));
    node.stdout(Stdio::piped()).stderr(Stdio::null());
    std::os::unix::process::CommandExt::process_group(&mut node, 0);
    let mut child = node.spawn().expect("start oauth-server.mjs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .expect("the authorization server's ready line");
    let ready: Value = serde_json::from_str(&line).expect("a JSON ready line");
    (
        ready["issuer"].as_str().unwrap().to_owned(),
        KillOnDrop(child),
    )
}

impl Setup {
    /// The example on a free port as the resource `http://127.0.0.1:PORT/mcp` of the issuer,
    /// with `extra` flags (`--introspect`, `--allow-origin`).
    async fn start(extra: &[&str], env: &[(&str, &str)]) -> Setup {
        let (issuer, server) = authorization_server();
        let port = common::free_port();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let address = format!("127.0.0.1:{port}");
        let mut desk = Command::new(common::example_path("helpdesk"));
        desk.args([
            "--http",
            &address,
            "--oauth-issuer",
            &issuer,
            "--resource",
            &url,
        ])
        .args(extra)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
        std::os::unix::process::CommandExt::process_group(&mut desk, 0);
        let desk = KillOnDrop(desk.spawn().expect("start the example"));
        assert!(
            common::wait_listening(port).await,
            "the example listens on {port}"
        );
        Setup {
            issuer,
            url,
            port,
            http: reqwest::Client::new(),
            _server: server,
            _desk: desk,
        }
    }

    fn metadata_url(&self) -> String {
        format!(
            "http://127.0.0.1:{}/.well-known/oauth-protected-resource/mcp",
            self.port
        )
    }

    /// A client credentials token of `client` for `resource` (this server when `None`).
    async fn token(&self, client: &str, secret: &str, resource: Option<&str>) -> String {
        let resource = resource.unwrap_or(&self.url).to_owned();
        let answer = json_of(
            self.http
                .post(format!("{}/token", self.issuer))
                .basic_auth(client, Some(secret))
                .form(&[
                    ("grant_type", "client_credentials"),
                    ("resource", &resource),
                ]),
        )
        .await;
        answer["access_token"]
            .as_str()
            .expect("an access token")
            .to_owned()
    }

    /// A token signed by the authorization server's current key with `header` overrides.
    async fn signed(&self, header: Value, payload: Value) -> String {
        let answer = json_of(
            self.http
                .post(format!("{}/test/sign", self.issuer))
                .json(&json!({"header": header, "payload": payload})),
        )
        .await;
        answer["token"].as_str().unwrap().to_owned()
    }

    async fn jwks_fetches(&self) -> u64 {
        let answer = json_of(self.http.get(format!("{}/test/jwks-fetches", self.issuer))).await;
        answer["count"].as_u64().unwrap()
    }

    /// A stateless `tools/call` of `tool` as `token`: the status, the challenge and the body.
    async fn call(
        &self,
        token: Option<&str>,
        tool: &str,
        arguments: Value,
    ) -> (u16, String, Value) {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": tool, "arguments": arguments}});
        self.post(token, &body.to_string()).await
    }

    /// `body` POSTed as a stateless MCP 2025-06-18 client sends it, as `token`: the status,
    /// the challenge and the body.
    async fn post(&self, token: Option<&str>, body: &str) -> (u16, String, Value) {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18")
            .body(body.to_owned());
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        answer(request.send().await.unwrap()).await
    }

    /// The payload of a token this server accepts, with `changes`.
    fn claims(&self, changes: Value) -> Value {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let mut claims = json!({
            "iss": self.issuer, "sub": "mcp-client", "aud": self.url, "tenant": "acme",
            "scope": "tickets:read tickets:write", "iat": now, "exp": now + 300,
        });
        for (key, value) in changes.as_object().unwrap() {
            match value {
                Value::Number(offset) if key == "exp" || key == "nbf" => {
                    claims[key] = json!(now.checked_add_signed(offset.as_i64().unwrap()).unwrap());
                }
                _ => claims[key] = value.clone(),
            }
        }
        claims
    }
}

/// The JSON answer of `request`.
async fn json_of(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

async fn answer(response: reqwest::Response) -> (u16, String, Value) {
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let bytes = response.bytes().await.unwrap();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
    (status, challenge, body)
}

fn search() -> Value {
    json!({"query": "printer"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_client_signs_in_at_a_real_authorization_server_and_every_bad_token_is_refused() {
    let setup = Setup::start(&["--allow-origin", "https://app.example.com"], &[]).await;
    let metadata = setup.metadata_url();
    let invalid = format!(
        r#"Bearer realm="mcp", error="invalid_token", scope="tickets:read tickets:write", resource_metadata="{metadata}""#
    );

    // Without a token: 401 naming the metadata and the scopes to start with.
    let (status, challenge, body) = setup.call(None, "search_tickets", search()).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        format!(
            r#"Bearer realm="mcp", scope="tickets:read tickets:write", resource_metadata="{metadata}""#
        )
    );
    assert_eq!(body["error"], "unauthorized");

    // The metadata, without a token, at the path-suffixed and the root well-known URLs.
    let expected = json!({
        "resource": setup.url,
        "authorization_servers": [setup.issuer],
        "scopes_supported": ["tickets:read", "tickets:write"],
        "bearer_methods_supported": ["header"],
        "resource_name": "Helpdesk",
    });
    for url in [
        metadata.clone(),
        format!(
            "http://127.0.0.1:{}/.well-known/oauth-protected-resource",
            setup.port
        ),
    ] {
        let (status, _, body) = answer(setup.http.get(&url).send().await.unwrap()).await;
        assert_eq!((status, &body), (200, &expected), "{url}");
    }

    // A real MCP client follows the discovery by itself and calls a tool.
    let client = run_ok(
        "oauth-client.mjs",
        {
            let mut node = command(
                "node",
                &[
                    "oauth-client.mjs",
                    &setup.url,
                    "mcp-client",
                    "client-secret",
                    "search_tickets",
                    &search().to_string(),
                ],
                Path::new(CLIENTS_DIR),
            );
            node.env("OAUTH_EXPECTED_ISSUER", &setup.issuer);
            node
        },
        Duration::from_secs(60),
    )
    .expect("the TypeScript SDK signs in and calls a tool");
    let report: Value = serde_json::from_str(client.stdout.trim()).unwrap();
    let requests: Vec<&str> = report["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    let issuer = &setup.issuer;
    assert_eq!(
        requests[..4],
        [
            format!("POST {} -> 401", setup.url),
            format!("GET {metadata} -> 200"),
            format!("GET {issuer}/.well-known/oauth-authorization-server -> 200"),
            format!("POST {issuer}/token -> 200"),
        ],
        "{requests:#?}"
    );
    assert_eq!(
        report["tokenRequests"][0]["params"]["resource"], setup.url,
        "RFC 8707"
    );
    assert_eq!(report["result"]["isError"], false, "{}", report["result"]);
    assert!(report["tools"]
        .as_array()
        .unwrap()
        .contains(&json!("close_ticket")));

    // A token of the authorization server: accepted; the caller is its subject and tenant.
    let good = setup.token("mcp-client", "client-secret", None).await;
    let (status, _, body) = setup.call(Some(&good), "search_tickets", search()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["isError"], false, "{body}");

    // Every bad token: 401 invalid_token, exactly this challenge.
    let other_audience = setup
        .token(
            "mcp-client",
            "client-secret",
            Some("http://127.0.0.1:9/mcp"),
        )
        .await;
    let expired = setup
        .signed(json!({}), setup.claims(json!({"exp": -120})))
        .await;
    let immature = setup
        .signed(json!({}), setup.claims(json!({"nbf": 600})))
        .await;
    let other_issuer = setup
        .signed(
            json!({}),
            setup.claims(json!({"iss": "http://127.0.0.1:9"})),
        )
        .await;
    let id_token_type = setup
        .signed(json!({"typ": "id_token+jwt"}), setup.claims(json!({})))
        .await;
    let unsigned = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"at+jwt"}"#),
        URL_SAFE_NO_PAD.encode(setup.claims(json!({})).to_string())
    );
    // HMAC "signed" with the authorization server's public key (the key confusion attack).
    let jwks = json_of(setup.http.get(format!("{}/jwks", setup.issuer))).await;
    let public_key = jwks["keys"][0].to_string();
    let message = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(format!(
            r#"{{"alg":"HS256","typ":"at+jwt","kid":{}}}"#,
            jwks["keys"][0]["kid"]
        )),
        URL_SAFE_NO_PAD.encode(setup.claims(json!({})).to_string())
    );
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(public_key.as_bytes()).unwrap();
    mac.update(message.as_bytes());
    let hmac = format!(
        "{message}.{}",
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    );
    for (what, token) in [
        ("another audience", other_audience),
        ("expired", expired),
        ("not valid yet", immature),
        ("another issuer", other_issuer),
        ("a typ that is no access token's", id_token_type),
        ("alg none", unsigned),
        ("HS256 with the public key", hmac),
        ("garbage", "not-a-jwt".to_owned()),
    ] {
        let (status, challenge, body) = setup.call(Some(&token), "search_tickets", search()).await;
        assert_eq!(
            (status, challenge.as_str()),
            (401, invalid.as_str()),
            "{what}: {body}"
        );
        assert_eq!(body["error"], "invalid_token", "{what}");
    }

    // The token in the query string: 400 invalid_request, even a good one.
    let response = setup
        .http
        .post(format!("{}?access_token={good}", setup.url))
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    let (status, challenge, body) = answer(response).await;
    assert_eq!(status, 400);
    assert_eq!(
        challenge,
        format!(
            r#"Bearer realm="mcp", error="invalid_request", scope="tickets:read tickets:write", resource_metadata="{metadata}""#
        )
    );
    assert_eq!(body["error"], "invalid_request");

    // The keys rotate: a token of the new key is accepted after exactly one refetch.
    setup
        .http
        .post(format!("{}/test/rotate", setup.issuer))
        .send()
        .await
        .unwrap();
    let fetches = setup.jwks_fetches().await;
    let rotated = setup.token("mcp-client", "client-secret", None).await;
    let (status, _, body) = setup.call(Some(&rotated), "search_tickets", search()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        setup.jwks_fetches().await,
        fetches + 1,
        "one refetch for the new kid"
    );
    // A kid the authorization server never had, right after: refused without a fetch (at
    // most one refetch per 10 s, so made-up kids cannot make the server hammer the keys).
    let made_up = setup
        .signed(json!({"kid": "made-up"}), setup.claims(json!({})))
        .await;
    let (status, challenge, _) = setup.call(Some(&made_up), "search_tickets", search()).await;
    assert_eq!((status, challenge.as_str()), (401, invalid.as_str()));
    assert_eq!(
        setup.jwks_fetches().await,
        fetches + 1,
        "no refetch within the minimum interval"
    );

    // A missing scope: 403 insufficient_scope before the tool runs.
    let reader = setup.token("mcp-reader", "reader-secret", None).await;
    let (status, challenge, body) = setup
        .call(
            Some(&reader),
            "add_internal_note",
            json!({"ticketId": "T-1001", "body": "x"}),
        )
        .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        challenge,
        format!(
            r#"Bearer realm="mcp", error="insufficient_scope", scope="tickets:write", resource_metadata="{metadata}""#
        )
    );
    assert_eq!(
        body,
        json!({"error": "insufficient_scope",
               "error_description": "this tool needs the scope `tickets:write`: ask the authorization server for a token with it (step-up authorization)"})
    );
    let (status, _, body) = setup.call(Some(&reader), "search_tickets", search()).await;
    assert_eq!(status, 200, "{body}");
    // The name as rmcp reads it, escapes and all; a name given twice is refused, never
    // read one way here and another way there.
    for (body, expected) in [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add\u005finternal_note","arguments":{"ticketId":"T-1001","body":"x"}}}"#,
            403,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_tickets","name":"add_internal_note","arguments":{}}}"#,
            400,
        ),
    ] {
        let (status, _, answer) = setup.post(Some(&reader), body).await;
        assert_eq!(status, expected, "{body}: {answer}");
        if expected == 400 {
            assert_eq!(answer["error"]["code"], -32602, "{answer}");
        }
    }

    // The browser edge: a preflight of an allowed origin is answered without a token; a
    // foreign origin gets 403, preflight or not.
    let preflight = setup
        .http
        .request(reqwest::Method::OPTIONS, &setup.url)
        .header("origin", "https://app.example.com")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization, content-type, mcp-protocol-version",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status(), 200);
    let header = |name: &str| {
        preflight
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    assert_eq!(
        header("access-control-allow-origin").as_deref(),
        Some("https://app.example.com")
    );
    assert!(header("access-control-allow-headers")
        .unwrap()
        .contains("authorization"));
    let (status, _, body) = answer(
        setup
            .http
            .post(&setup.url)
            .header("origin", "https://app.example.com")
            .header("content-type", "application/json")
            .body("{}")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 401, "{body}");
    for request in [
        setup
            .http
            .request(reqwest::Method::OPTIONS, &setup.url)
            .header("access-control-request-method", "POST"),
        setup
            .http
            .post(&setup.url)
            .bearer_auth(&good)
            .header("content-type", "application/json")
            .body(json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}).to_string()),
        setup.http.get(&metadata),
    ] {
        let (status, _, body) = answer(
            request
                .header("origin", "https://evil.example")
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 403);
        assert_eq!(body["error"]["code"], -32600, "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opaque_tokens_are_introspected_and_a_revoked_one_is_refused() {
    let setup = Setup::start(
        &["--introspect", "mcp-server"],
        &[("MCP_RESULT_CLIENT_SECRET", "server-secret")],
    )
    .await;
    let active = setup.token("mcp-opaque", "opaque-secret", None).await;
    assert_eq!(active.split('.').count(), 1, "an opaque token, not a JWT");
    let (status, _, body) = setup.call(Some(&active), "search_tickets", search()).await;
    assert_eq!(status, 200, "{body}");

    let revoked = setup.token("mcp-opaque", "opaque-secret", None).await;
    let response = setup
        .http
        .post(format!("{}/token/revocation", setup.issuer))
        .basic_auth("mcp-opaque", Some("opaque-secret"))
        .form(&[("token", revoked.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let (status, challenge, _) = setup.call(Some(&revoked), "search_tickets", search()).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        format!(
            r#"Bearer realm="mcp", error="invalid_token", scope="tickets:read tickets:write", resource_metadata="{}""#,
            setup.metadata_url()
        )
    );
    // A token for another resource, introspected as active, is still not for this server.
    let elsewhere = setup
        .token(
            "mcp-opaque",
            "opaque-secret",
            Some("http://127.0.0.1:9/mcp"),
        )
        .await;
    let (status, ..) = setup
        .call(Some(&elsewhere), "search_tickets", search())
        .await;
    assert_eq!(status, 401);
}
