//! Identity, not assertions (issue 18): over streamable HTTP, the caller is the identity of
//! a verified bearer token; what a client writes in `_meta` changes nothing; no identity
//! means no access; artifact URIs are unguessable; every artifact store is bounded.
//!
//! The server is written the way the README teaches and served with
//! `mcp_result::http::serve_http` on a real TCP port; the clients are rmcp's streamable
//! HTTP client.

use std::sync::Arc;

use mcp_result::{
    content::Payload,
    http::{serve_http, HttpOptions, StaticTokens},
    mcp_handler, mcp_tools,
    rmcp::{
        model::{CallToolRequestParams, ErrorCode, ReadResourceRequestParams, RequestMetaObject},
        service::{RequestContext, RoleClient, RoleServer, RunningService},
        transport::{
            streamable_http_client::StreamableHttpClientTransportConfig,
            StreamableHttpClientTransport,
        },
        ServerHandler, ServiceError, ServiceExt,
    },
    store::{ArtifactAccess, ArtifactLimits, ArtifactStore, MemoryStore},
    Identity, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A report of `rows` rows, spilled behind a `resource_link`.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Exported {rows} rows.")]
struct Export {
    rows: u32,
    csv: Payload,
}

#[derive(Deserialize, JsonSchema)]
struct ExportArgs {
    /// How many rows.
    rows: u32,
}

/// Who the server thinks calls.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "You are {subject}.")]
struct WhoAmI {
    subject: String,
    tenant: Option<String>,
}

#[derive(Clone)]
struct Reports {
    store: Arc<MemoryStore>,
}

impl ArtifactAccess for Reports {
    fn artifact_store(&self) -> &dyn ArtifactStore {
        &*self.store
    }
}

#[mcp_tools(artifacts)]
impl Reports {
    /// Exports rows as CSV.
    #[mcp_tool(read_only)]
    fn export(&self, args: ExportArgs) -> Export {
        let csv: String = (0..args.rows).map(|i| format!("{i},{}\n", i * 2)).collect();
        Export {
            rows: args.rows,
            csv: Payload::text("export.csv", "text/csv", csv),
        }
    }

    /// The caller's identity, as the framework hands it to a tool.
    #[mcp_tool(read_only)]
    fn whoami(&self, identity: Identity) -> WhoAmI {
        WhoAmI {
            subject: identity.subject,
            tenant: identity.tenant,
        }
    }

    /// The HTTP headers a tool can see: never the bearer token.
    #[mcp_tool(read_only)]
    fn headers(&self, context: RequestContext<RoleServer>) -> Vec<String> {
        let parts = context
            .extensions
            .get::<http::request::Parts>()
            .expect("HTTP parts");
        parts
            .headers
            .keys()
            .map(|name| name.as_str().to_owned())
            .collect()
    }
}

#[mcp_handler]
impl ServerHandler for Reports {}

struct Served {
    url: String,
    store: Arc<MemoryStore>,
}

async fn serve(limits: ArtifactLimits) -> Served {
    serve_with(limits, HttpOptions::default()).await
}

async fn serve_with(limits: ArtifactLimits, options: HttpOptions) -> Served {
    let store = Arc::new(MemoryStore::with_limits(limits));
    let tokens = StaticTokens::new()
        .with("alice-token", Identity::new("alice").with_tenant("acme"))
        .with("bob-token", Identity::new("bob").with_tenant("globex"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = Reports {
        store: store.clone(),
    };
    tokio::spawn(async move {
        serve_http(
            server,
            listener,
            Arc::new(tokens),
            options,
            std::future::pending(),
        )
        .await
        .unwrap();
    });
    Served { url, store }
}

type Client = RunningService<RoleClient, ()>;

async fn connect(url: &str, token: Option<&str>) -> Result<Client, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    ().serve(transport).await.map_err(|error| error.to_string())
}

fn meta_tenant(value: Value) -> RequestMetaObject {
    let mut meta = serde_json::Map::new();
    meta.insert("com.example/tenant".into(), value);
    RequestMetaObject::from(meta)
}

async fn export(client: &Client, rows: u32, meta: Option<RequestMetaObject>) -> Value {
    let mut params = CallToolRequestParams::new("export")
        .with_arguments(serde_json::Map::from_iter([("rows".into(), json!(rows))]));
    params.meta = meta;
    serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap()
}

async fn read(
    client: &Client,
    uri: &str,
    meta: Option<RequestMetaObject>,
) -> Result<Value, String> {
    let mut params = ReadResourceRequestParams::new(uri);
    params.meta = meta;
    match client.read_resource(params).await {
        Ok(contents) => Ok(serde_json::to_value(contents).unwrap()),
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND);
            assert!(error.data.is_none(), "a denial leaks nothing");
            Err(error.message.to_string())
        }
        Err(other) => panic!("read {uri}: {other}"),
    }
}

#[tokio::test]
async fn the_caller_is_the_verified_token_not_what_meta_says() {
    let served = serve(ArtifactLimits::default()).await;
    let alice = connect(&served.url, Some("alice-token")).await.unwrap();
    let bob = connect(&served.url, Some("bob-token")).await.unwrap();

    let who = alice
        .call_tool(CallToolRequestParams::new("whoami"))
        .await
        .unwrap();
    assert_eq!(
        who.structured_content,
        Some(json!({"subject": "alice", "tenant": "acme"}))
    );

    let made = export(&alice, 3, None).await;
    let uri = made["structuredContent"]["csv"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        read(&alice, &uri, None).await.unwrap()["contents"][0]["text"],
        "0,0\n1,2\n2,4\n"
    );

    // Bob writes alice's tenant into `_meta`: an assertion, not an identity.
    let denied = format!("resource not found: {uri}");
    assert_eq!(
        read(&bob, &uri, Some(meta_tenant(json!("acme")))).await,
        Err(denied.clone())
    );
    // A tenant that is not a string (the old store then kept the artifact unowned).
    let unowned = export(&bob, 1, Some(meta_tenant(json!(5)))).await;
    let bobs = unowned["structuredContent"]["csv"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(read(&bob, &bobs, None).await.is_ok(), "bob reads his own");
    assert_eq!(
        read(&alice, &bobs, Some(meta_tenant(json!(5)))).await,
        Err(format!("resource not found: {bobs}")),
        "owned by bob, never by nobody"
    );
    assert_eq!(read(&bob, &uri, None).await, Err(denied));
}

#[tokio::test]
async fn no_identity_means_no_access() {
    let served = serve(ArtifactLimits::default()).await;
    for token in [None, Some("forged-token")] {
        let error = connect(&served.url, token).await.unwrap_err();
        // rmcp's client reports the `401` it got to the `initialize` request.
        assert!(
            error.ends_with("error: Auth required, when send initialize request"),
            "{token:?}: {error}"
        );
    }
    // The challenge a client gets (RFC 6750 §3).
    let response = reqwest::Client::new()
        .post(&served.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .bearer_auth("forged-token")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(
        response.headers()["www-authenticate"],
        r#"Bearer realm="mcp", error="invalid_token""#
    );
}

#[tokio::test]
async fn artifact_uris_are_128_random_bits_and_a_guess_finds_nothing() {
    let served = serve(ArtifactLimits::default()).await;
    let alice = connect(&served.url, Some("alice-token")).await.unwrap();
    let first = export(&alice, 1, None).await["structuredContent"]["csv"]
        .as_str()
        .unwrap()
        .to_owned();
    let second = export(&alice, 1, None).await["structuredContent"]["csv"]
        .as_str()
        .unwrap()
        .to_owned();
    for uri in [&first, &second] {
        let random = uri.strip_prefix("mcp-result://artifacts/").unwrap();
        assert!(
            random.len() == 32 && random.bytes().all(|b| b.is_ascii_hexdigit()),
            "{uri}"
        );
    }
    // Same content, same owner, one call apart: nothing in common to guess from.
    let shared = first
        .bytes()
        .zip(second.bytes())
        .skip("mcp-result://artifacts/".len())
        .take_while(|(a, b)| a == b)
        .count();
    assert!(
        shared < 8,
        "{first} and {second} share a {shared}-digit prefix"
    );
    // The next URI of the old counter scheme, and a neighbour of a real one.
    let mut neighbour = first.clone().into_bytes();
    let last = neighbour.len() - 1;
    neighbour[last] = if neighbour[last] == b'0' { b'1' } else { b'0' };
    for guess in [
        "mcp-result://artifacts/3-000000000000".to_owned(),
        String::from_utf8(neighbour).unwrap(),
    ] {
        assert_eq!(
            read(&alice, &guess, None).await,
            Err(format!("resource not found: {guess}"))
        );
    }
}

#[tokio::test]
async fn a_call_over_the_quota_gets_a_clear_error_and_stores_nothing() {
    let served = serve(ArtifactLimits {
        per_owner_bytes: 100,
        max_artifacts_per_owner: 2,
        total_bytes: 130,
        ..ArtifactLimits::default()
    })
    .await;
    let alice = connect(&served.url, Some("alice-token")).await.unwrap();
    let bob = connect(&served.url, Some("bob-token")).await.unwrap();

    // The CSV of 10 rows is 45 bytes, of 12 rows 57, of 1 row 4.
    let fits = export(&alice, 10, None).await;
    assert_ne!(fits["isError"], true, "{fits}");
    assert_eq!(served.store.total_bytes(), 45);

    let over = export(&alice, 12, None).await;
    assert_eq!(over["isError"], true);
    assert_eq!(
        over["structuredContent"],
        json!({
            "status": "blocked",
            "errorKind": "policy_blocked",
            "retrySafe": true,
            "message": "Quota exceeded: this caller holds 45 of its 100 bytes of artifacts (`ArtifactLimits::per_owner_bytes`) and the result needs 57 more. Nothing was stored. Ask for a smaller result, or call again after earlier results expire.",
            "reason": "this caller holds 45 of its 100 bytes of artifacts (`ArtifactLimits::per_owner_bytes`) and the result needs 57 more"
        })
    );
    assert!(
        !over.to_string().contains("mcp-result://artifacts/"),
        "no URI of an unstored artifact is handed out: {over}"
    );
    assert_eq!(served.store.total_bytes(), 45, "nothing was stored");

    // Bob has a quota of his own; the store's total is shared.
    assert_ne!(export(&bob, 12, None).await["isError"], true);
    assert_eq!(served.store.total_bytes(), 102);
    let full = export(&alice, 10, None).await;
    assert_eq!(
        full["structuredContent"]["reason"],
        "the artifact store holds its limit of 130 bytes (`ArtifactLimits::total_bytes`)"
    );
    assert_eq!(served.store.total_bytes(), 102, "nothing was stored");

    // The number of artifacts is bounded too.
    assert_ne!(export(&alice, 1, None).await["isError"], true);
    assert_eq!(
        export(&alice, 1, None).await["structuredContent"]["reason"],
        "this caller holds 2 of its 2 artifacts (`ArtifactLimits::max_artifacts_per_owner`) and the \
         result needs 1 more"
    );
    assert_eq!(served.store.total_bytes(), 106);
}

use crate::common;

/// The example over stdio as the process identity `identity` (`MCP_RESULT_IDENTITY`), its
/// audit log at `log`.
async fn stdio_as(identity: &str, log: &std::path::Path) -> Client {
    let mut command = tokio::process::Command::new(common::example_path("helpdesk"));
    command
        .arg("--audit-log")
        .arg(log)
        .env("MCP_RESULT_IDENTITY", identity)
        .kill_on_drop(true);
    ().serve(mcp_result::rmcp::transport::TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn over_stdio_the_caller_is_the_configured_process_identity() {
    let dir = std::env::temp_dir().join(format!("identity-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("audit.jsonl");
    let client = stdio_as("acme:carol", &log).await;
    let note = common::call(
        &client,
        "add_internal_note",
        json!({"ticketId": "T-1001", "body": "from carol", "requestId": "r-1"}),
    )
    .await
    .unwrap();
    assert_ne!(note.is_error, Some(true), "{note:?}");
    client.cancel().await.unwrap();
    let records = mcp_result::audit::read_records(&log).unwrap();
    assert!(!records.is_empty());
    assert!(
        records.iter().all(|r| r.caller == "acme:carol"),
        "{records:?}"
    );

    // An identity that does not parse: every call is refused, none runs as someone else.
    let client = stdio_as(":carol", &dir.join("refused.jsonl")).await;
    let refused = common::call(&client, "get_ticket", json!({"ticketId": "T-1001"}))
        .await
        .unwrap();
    assert_eq!(
        refused.structured_content,
        Some(json!({
            "status": "failed",
            "errorKind": "permission_denied",
            "retrySafe": true,
            "message": "Permission denied: the call carries no verified identity, so nothing ran. Connect with valid credentials."
        }))
    );
    client.cancel().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

/// A raw POST of `body` to `url` as the holder of `token`, with `headers`: the status, the
/// `Mcp-Session-Id` answered, and the body.
async fn post(
    url: &str,
    token: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Option<String>, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    (
        response.status().as_u16(),
        session,
        response.text().await.unwrap(),
    )
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

#[tokio::test]
async fn a_session_belongs_to_the_identity_that_created_it() {
    let options = HttpOptions {
        sessions: true,
        ..HttpOptions::default()
    };
    let served = serve_with(ArtifactLimits::default(), options).await;
    let (status, session, _) = post(&served.url, "alice-token", &[], INITIALIZE).await;
    assert_eq!(status, 200);
    let session = session.expect("a session id");
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let in_session = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    assert_eq!(
        post(&served.url, "alice-token", &in_session, initialized)
            .await
            .0,
        202
    );
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    assert_eq!(
        post(&served.url, "alice-token", &in_session, list).await.0,
        200
    );

    // Bob, holding a valid token of his own and alice's session id: as if it did not exist.
    let (status, _, body) = post(&served.url, "bob-token", &in_session, list).await;
    assert_eq!(status, 404);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"jsonrpc": "2.0", "id": null,
               "error": {"code": -32001, "message": "Session not found: start a new one with initialize"}})
    );
    let delete = reqwest::Client::new()
        .delete(&served.url)
        .bearer_auth("bob-token")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), 404, "bob cannot end it either");
    assert_eq!(
        post(&served.url, "alice-token", &in_session, list).await.0,
        200,
        "still alice's"
    );

    // Alice ends it; then it is gone for her too.
    let delete = reqwest::Client::new()
        .delete(&served.url)
        .bearer_auth("alice-token")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert!(delete.status().is_success(), "{}", delete.status());
    assert_eq!(
        post(&served.url, "alice-token", &in_session, list).await.0,
        404
    );
}

#[tokio::test]
async fn static_tokens_serve_no_metadata_and_no_tool_sees_the_token() {
    let served = serve(ArtifactLimits::default()).await;
    let base = served.url.trim_end_matches("/mcp");
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let response = reqwest::get(format!("{base}{path}")).await.unwrap();
        assert_eq!(
            response.status(),
            404,
            "{path}: no authorization server, no metadata"
        );
    }
    let alice = connect(&served.url, Some("alice-token")).await.unwrap();
    let result = alice
        .call_tool(CallToolRequestParams::new("headers"))
        .await
        .unwrap();
    let seen = result.structured_content.unwrap()["result"].clone();
    let names: Vec<&str> = seen
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(names.contains(&"content-type"), "{names:?}");
    assert!(
        !names.contains(&"authorization"),
        "the token never reaches a tool: {names:?}"
    );
}

#[tokio::test]
async fn methods_2026_07_28_removed_are_404_with_method_not_found() {
    let served = serve(ArtifactLimits::default()).await;
    for method in [
        "initialize",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "tasks/result",
        "tasks/list",
    ] {
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {},
                          "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}});
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": {"_meta": meta}})
            .to_string();
        let headers = [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
        ];
        let (status, _, answer) = post(&served.url, "alice-token", &headers, &body).await;
        let answer: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(
            (status, &answer["error"]["code"]),
            (404, &json!(-32601)),
            "{method}: {answer}"
        );
    }
    // On 2025-06-18 `initialize` is a method: malformed params are -32602, not a 404.
    let body =
        json!({"jsonrpc": "2.0", "id": 7, "method": "logging/setLevel", "params": {}}).to_string();
    let (status, _, answer) = post(
        &served.url,
        "alice-token",
        &[("mcp-protocol-version", "2025-06-18")],
        &body,
    )
    .await;
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(
        (status, &answer["error"]["code"]),
        (200, &json!(-32602)),
        "{answer}"
    );
}

#[tokio::test]
async fn anonymous_http_is_an_explicit_choice() {
    use mcp_result::http::Anonymous;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = Reports {
        store: Arc::new(MemoryStore::with_limits(ArtifactLimits::default())),
    };
    tokio::spawn(async move {
        serve_http(
            server,
            listener,
            Arc::new(Anonymous::new(Identity::new("dev"))),
            HttpOptions::default(),
            std::future::pending(),
        )
        .await
        .unwrap();
    });
    // No token at all: served, as `dev`.
    let client = connect(&url, None).await.unwrap();
    let result = client
        .call_tool(CallToolRequestParams::new("whoami"))
        .await
        .unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"subject": "dev", "tenant": null}))
    );
}
