//! One human answer authorizes one write by the caller who asked, over streamable HTTP, on
//! every approval store (memory, SQLite, PostgreSQL): the example served with `--http`
//! (stateless, as deployed), rmcp's client over streamable HTTP as alice and as bob, each
//! with their own bearer token.
//!
//! - MCP 2026-07-28: the accepted round sent twice runs the write once; sent by bob, it
//!   does not run.
//! - Out of band (MCP 2025-06-18, no elicitation): the `approvalRequestId` alice was given
//!   is unknown to bob, approved or not; approved, it runs alice's write once.
//! - The audit log has one intent per human answer.

use crate::common;

use std::{process::Stdio, time::Duration};

use common::postgres::TestDatabase;
use mcp_result::{
    audit::{read_records, Phase},
    rmcp::{
        model::{
            CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities,
            ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, Implementation,
            InputResponses, ProtocolVersion, RequestMetaObject,
        },
        service::{
            serve_client_with_lifecycle, ClientLifecycleMode, RequestContext, RoleClient,
            RunningService,
        },
        transport::{
            streamable_http_client::StreamableHttpClientTransportConfig,
            StreamableHttpClientTransport,
        },
        ClientHandler, ErrorData,
    },
};
use serde_json::{json, Value};
use tokio::process::{Child, Command};

const SERVER_KEY: &str = "YXBwcm92YWwtaHR0cC10ZXN0LXNlcnZlci1rZXktMzItYnl0ZXM=";

/// A client that can answer form elicitation (what a 2026-07-28 round asks), and accepts
/// when it is asked during a call (before 2026-07-28).
#[derive(Clone)]
struct Host;

impl ClientHandler for Host {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("approval-http-host", "0.1.0"),
        )
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": true})))
    }
}

struct Served {
    url: String,
    audit: std::path::PathBuf,
    store: Option<String>,
    _child: Child,
}

async fn serve(name: &str, store: Option<&str>) -> Served {
    let port = common::free_port();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("approval_http");
    std::fs::create_dir_all(&dir).unwrap();
    let audit = dir.join(format!("{name}-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&audit);
    let mut command = Command::new(common::example_path("helpdesk"));
    command
        .args(["--http", &format!("127.0.0.1:{port}")])
        .args(["--audit-log", audit.to_str().unwrap()])
        .env("MCP_RESULT_SERVER_KEY", SERVER_KEY)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    if let Some(store) = store {
        command.args(["--store", store]);
    }
    let child = command.spawn().expect("start the example");
    assert!(
        common::wait_listening(port).await,
        "the example listens on {port}"
    );
    Served {
        url: format!("http://127.0.0.1:{port}/mcp"),
        audit,
        store: store.map(str::to_owned),
        _child: child,
    }
}

type Client = RunningService<RoleClient, Host>;

async fn connect(url: &str, token: &str, version: ProtocolVersion) -> Client {
    let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(token);
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    serve_client_with_lifecycle(
        Host,
        transport,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![version],
        },
    )
    .await
    .expect("connect")
}

fn close(ticket: &str, request: Option<&str>) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new("close_ticket")
        .with_arguments(json!({"ticketId": ticket}).as_object().unwrap().clone());
    if let Some(id) = request {
        let mut meta = RequestMetaObject::default();
        meta.0
            .insert("io.github.mcp-result/approvalRequestId".into(), json!(id));
        params.meta = Some(meta);
    }
    params
}

fn structured(result: &CallToolResult) -> Value {
    result
        .structured_content
        .clone()
        .expect("structuredContent")
}

/// The `close_ticket` intents in the audit log: one per write that ran.
fn intents(audit: &std::path::Path) -> usize {
    read_records(audit)
        .unwrap_or_default()
        .into_iter()
        .filter(|r| r.tool == "close_ticket" && r.phase == Phase::Intent)
        .count()
}

async fn complete(client: &Client, params: CallToolRequestParams) -> CallToolResult {
    match client.call_tool_once(params).await.unwrap() {
        CallToolResponse::Complete(result) => result,
        other => panic!("expected a complete result, got {other:?}"),
    }
}

/// The 2026-07-28 round: asked of alice, answered by bob (nothing runs), by alice (runs),
/// by alice again (used).
async fn rounds(served: &Served) {
    let alice = connect(&served.url, "alice-token", ProtocolVersion::V_2026_07_28).await;
    let bob = connect(&served.url, "bob-token", ProtocolVersion::V_2026_07_28).await;
    let CallToolResponse::InputRequired(round) =
        alice.call_tool_once(close("T-1002", None)).await.unwrap()
    else {
        panic!("the first round asks");
    };
    let mut answer = InputResponses::new();
    answer.insert(
        "approval".into(),
        json!({"action": "accept", "content": {"approve": true}}),
    );
    let answered = close("T-1002", None)
        .with_input_responses(answer)
        .with_request_state(round.request_state.clone().expect("sealed state"));
    let CallToolResponse::InputRequired(_) = bob.call_tool_once(answered.clone()).await.unwrap()
    else {
        panic!("bob's presentation of alice's round is asked again, never run");
    };
    assert_eq!(intents(&served.audit), 0, "nothing ran for bob");
    let done = complete(&alice, answered.clone()).await;
    assert_eq!(done.is_error, Some(false), "{done:?}");
    assert!(structured(&done)["approvalId"].is_string());
    let again = complete(&alice, answered).await;
    assert_eq!(structured(&again)["errorKind"], "conflict", "{again:?}");
    assert_eq!(
        structured(&again)["message"],
        "The approval was used already; each approval runs one write."
    );
    assert_eq!(intents(&served.audit), 1, "one human answer, one intent");
}

/// Two instances on one database: the round asked on one, answered on the other (it runs),
/// replayed on the first (used): one write for one human answer wherever the requests land.
async fn rounds_across(a: &Served, b: &Served) {
    let on_a = connect(&a.url, "alice-token", ProtocolVersion::V_2026_07_28).await;
    let on_b = connect(&b.url, "alice-token", ProtocolVersion::V_2026_07_28).await;
    let before = intents(&a.audit) + intents(&b.audit);
    let CallToolResponse::InputRequired(round) =
        on_a.call_tool_once(close("T-1005", None)).await.unwrap()
    else {
        panic!("the first round asks");
    };
    let mut answer = InputResponses::new();
    answer.insert(
        "approval".into(),
        json!({"action": "accept", "content": {"approve": true}}),
    );
    let answered = close("T-1005", None)
        .with_input_responses(answer)
        .with_request_state(round.request_state.clone().expect("sealed state"));
    let done = complete(&on_b, answered.clone()).await;
    assert_eq!(
        done.is_error,
        Some(false),
        "answered on the other instance: {done:?}"
    );
    let again = complete(&on_a, answered).await;
    assert_eq!(
        structured(&again)["message"],
        "The approval was used already; each approval runs one write.",
        "{again:?}"
    );
    assert_eq!(intents(&a.audit) + intents(&b.audit), before + 1);
}

/// Out of band: alice is `blocked` with a request id at once (default HTTP is stateless: a
/// question during the call could never be answered, so none is sent, although her client
/// would accept); bob presenting the id is told it does not exist, before and after it is
/// approved; alice runs once.
async fn out_of_band(served: &Served) {
    let alice = connect(&served.url, "alice-token", ProtocolVersion::V_2025_11_25).await;
    let bob = connect(&served.url, "bob-token", ProtocolVersion::V_2025_11_25).await;
    let started = std::time::Instant::now();
    let blocked = alice.call_tool(close("T-1003", None)).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "answered without waiting for an answer that cannot come: {:?}",
        started.elapsed()
    );
    let envelope = structured(&blocked);
    assert_eq!(envelope["status"], "blocked", "{envelope}");
    let id = envelope["approvalRequestId"].as_str().unwrap().to_owned();
    let unknown = |result: &CallToolResult| {
        let envelope = structured(result);
        assert_eq!(envelope["errorKind"], "conflict", "{envelope}");
        assert_eq!(
            envelope["message"], "No such approval request.",
            "{envelope}"
        );
    };
    unknown(&bob.call_tool(close("T-1003", Some(&id))).await.unwrap());
    let Some(store) = &served.store else {
        // The memory store lives in the server: nobody outside it can approve.
        return;
    };
    let decided = std::process::Command::new(common::example_path("helpdesk"))
        .args(["approve", "--store", store, &id, "carol"])
        .output()
        .unwrap();
    assert!(
        decided.status.success(),
        "{}",
        String::from_utf8_lossy(&decided.stderr)
    );
    unknown(&bob.call_tool(close("T-1003", Some(&id))).await.unwrap());
    let ran = alice.call_tool(close("T-1003", Some(&id))).await.unwrap();
    assert_eq!(structured(&ran)["status"], "succeeded", "{ran:?}");
    let again = alice.call_tool(close("T-1003", Some(&id))).await.unwrap();
    assert_eq!(structured(&again)["errorKind"], "conflict", "{again:?}");
    assert_eq!(
        intents(&served.audit),
        2,
        "one more human answer, one more intent"
    );
    // The command's decision is in the server's audit log, and every record about the
    // request names it: what the approvals page shows as its trail.
    use mcp_result::audit::{AuditSink as _, Phase};
    let trail = mcp_result::sql::SqlStores::connect(store)
        .await
        .unwrap()
        .audit()
        .approval_records(&id, 100)
        .await
        .unwrap()
        .expect("the SQL log is read back");
    // Bob's presentations of it name nothing to him, and are not in its trail.
    let phases: Vec<Phase> = trail.iter().map(|r| r.phase).collect();
    assert_eq!(
        phases,
        [
            Phase::Outcome,  // alice's call, blocked: it created the request
            Phase::Approved, // the command
            Phase::Intent,   // alice's write, under the approval
            Phase::Outcome,
            Phase::Outcome, // alice again: used
        ],
        "{trail:#?}"
    );
    assert!(trail.iter().all(|r| r.caller == trail[0].caller));
    assert_eq!(
        trail[0].event_id,
        envelope["auditEventId"].as_str().unwrap()
    );
    assert_eq!(trail[1].approver.as_deref(), Some("carol"));
    let approval_id = structured(&ran)["approvalId"]
        .as_str()
        .expect("the approval in the result")
        .to_owned();
    assert_eq!(trail[1].approval_id.as_deref(), Some(approval_id.as_str()));
    assert_eq!(trail[1].argument_digest, trail[0].argument_digest);
    assert_eq!(
        trail[2].event_id,
        structured(&ran)["auditEventId"].as_str().unwrap()
    );
    // The example's approvals page shows that trail: it reads the desk's audit sink (its
    // services), not the HTTP state's default.
    let address = served
        .url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let link = std::process::Command::new(common::example_path("helpdesk"))
        .args([
            "sign-in-link",
            "--store",
            store,
            "--http",
            &address,
            "acme:carol",
        ])
        .output()
        .unwrap();
    assert!(
        link.status.success(),
        "{}",
        String::from_utf8_lossy(&link.stderr)
    );
    let link = String::from_utf8(link.stdout).unwrap().trim().to_owned();
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let signed_in = crate::common::approvals::use_sign_in_link(&browser, &link).await;
    assert_eq!(signed_in.status(), 200);
    let cookie = signed_in.headers()["set-cookie"].to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_owned();
    let page = browser
        .get(format!("http://{address}/approvals/requests/{id}"))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let page = page.text().await.unwrap();
    let shown = page.split("<h2>Audit trail</h2>").nth(1).expect("a trail");
    for record in &trail {
        assert!(
            shown.contains(&record.event_id),
            "{} in {page}",
            record.event_id
        );
    }
}

/// Resource URIs and arguments holding U+0000: not found, and (on PostgreSQL, which cannot
/// store it) a `validation_error` naming the field; never database text.
async fn nul(served: &Served, postgres: bool) {
    use mcp_result::rmcp::model::ReadResourceRequestParams;
    let alice = connect(&served.url, "alice-token", ProtocolVersion::V_2025_11_25).await;
    for uri in [
        "mcp-result://artifacts/a\u{0}b",
        "mcp-result://approvals/a\u{0}b",
    ] {
        let error = alice
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains("resource not found"), "{uri}: {error}");
    }
    // An approval request id holding it: no such request, on every store.
    let unknown = alice
        .call_tool(close("T-1001", Some("a\u{0}b")))
        .await
        .unwrap();
    assert_eq!(structured(&unknown)["errorKind"], "conflict", "{unknown:?}");
    assert_eq!(structured(&unknown)["message"], "No such approval request.");
    if postgres {
        let refused = alice.call_tool(close("T-1\u{0}", None)).await.unwrap();
        let envelope = structured(&refused);
        assert_eq!(envelope["errorKind"], "validation_error", "{envelope}");
        assert_eq!(envelope["fieldErrors"][0]["pointer"], "/ticketId");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approvals_over_http_in_memory() {
    let served = serve("memory", None).await;
    rounds(&served).await;
    out_of_band(&served).await;
    nul(&served, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approvals_over_http_in_sqlite() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("approval_http");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("desk-{}.db", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let served = serve("sqlite", Some(&format!("sqlite:{}", path.display()))).await;
    rounds(&served).await;
    out_of_band(&served).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approvals_over_http_in_postgres() {
    let database = TestDatabase::create().await;
    let served = serve("postgres", Some(database.url())).await;
    rounds(&served).await;
    out_of_band(&served).await;
    nul(&served, true).await;
    let other = serve("postgres-b", Some(database.url())).await;
    rounds_across(&served, &other).await;
}
