//! The HTTP server's liveness and readiness probes (issue 49 item 1), served by
//! `serve_http` on a real port beside a server on SQLite (`State::connect`):
//!
//! - both answer without a token while the MCP endpoint still asks for one;
//! - from the moment shutdown starts, readiness is `503` `not ready: draining` while the
//!   instance keeps serving calls for its drain delay, then it stops accepting; liveness
//!   stays `200`;
//! - a database that does not answer makes readiness `503` `not ready: database`, liveness
//!   staying `200`;
//! - a probe path that is the MCP endpoint's stops the server with its message.

use std::{sync::Arc, time::Duration};

use mcp_result::{
    http::{Health, HttpOptions, StaticTokens},
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    sql::SqlStores,
    Identity, State, ToolError,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[derive(Clone)]
struct Clock;

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

#[mcp_tools]
impl Clock {
    /// Says it is there.
    #[mcp_tool(read_only)]
    async fn ping(&self, _args: NoArgs) -> Result<String, ToolError> {
        Ok("pong".into())
    }
}

#[mcp_handler]
impl ServerHandler for Clock {}

struct Served {
    address: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: tokio::task::JoinHandle<()>,
    state: State,
}

async fn serve(health: Health) -> Served {
    let dir = std::env::temp_dir().join(format!("mcp-result-health-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join(format!("{}.db", uuid::Uuid::now_v7()));
    let state = State::connect(&format!("sqlite:{}", db.display()))
        .await
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let options = HttpOptions {
        state: state.clone(),
        health: Some(health),
        ..HttpOptions::default()
    };
    let tokens = StaticTokens::new().with("t", Identity::new("ops"));
    let done = tokio::spawn(async move {
        mcp_result::http::serve_http(Clock, listener, Arc::new(tokens), options, async {
            let _ = stopped.await;
        })
        .await
        .unwrap();
    });
    Served {
        address,
        stop: Some(stop),
        done,
        state,
    }
}

/// A fresh connection's `GET path`: status and body (no keep-alive reuse, as a probe).
async fn probe(served: &Served, path: &str) -> Result<(u16, String), reqwest::Error> {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let response = client
        .get(format!("http://{}{path}", served.address))
        .send()
        .await?;
    Ok((response.status().as_u16(), response.text().await?))
}

/// A `tools/call` of `ping` with `token`, if any: its HTTP status.
async fn call(served: &Served, token: Option<&str>) -> u16 {
    let mut request = reqwest::Client::new()
        .post(format!("http://{}/mcp", served.address))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "ping", "arguments": {}}}));
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    request.send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn readiness_turns_503_when_shutdown_starts_and_the_instance_serves_its_drain_delay() {
    let mut served = serve(Health::default().drain_delay(Duration::from_millis(1500))).await;
    assert_eq!(
        probe(&served, "/healthz").await.unwrap(),
        (200, "ok\n".into())
    );
    assert_eq!(
        probe(&served, "/readyz").await.unwrap(),
        (200, "ready\n".into())
    );
    // The probes need no token; the endpoint still does.
    assert_eq!(call(&served, None).await, 401);
    assert_eq!(call(&served, Some("t")).await, 200);

    served.stop.take().unwrap().send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        probe(&served, "/readyz").await.unwrap(),
        (503, "not ready: draining\n".into())
    );
    assert_eq!(
        probe(&served, "/healthz").await.unwrap(),
        (200, "ok\n".into())
    );
    // Still serving during the drain delay.
    assert_eq!(call(&served, Some("t")).await, 200);
    // Then it stops accepting.
    tokio::time::timeout(Duration::from_secs(10), &mut served.done)
        .await
        .expect("the server stops after its delay")
        .unwrap();
    assert!(
        probe(&served, "/healthz").await.is_err(),
        "no longer accepting"
    );
}

#[tokio::test]
async fn a_database_that_does_not_answer_makes_readiness_503_and_liveness_stays() {
    let served = serve(Health::default()).await;
    assert_eq!(
        probe(&served, "/readyz").await.unwrap(),
        (200, "ready\n".into())
    );
    served
        .state
        .get::<SqlStores>()
        .unwrap()
        .pool()
        .close()
        .await;
    assert_eq!(
        probe(&served, "/readyz").await.unwrap(),
        (503, "not ready: database\n".into())
    );
    assert_eq!(
        probe(&served, "/healthz").await.unwrap(),
        (200, "ok\n".into())
    );
}

#[tokio::test]
async fn a_probe_on_the_mcp_endpoints_path_stops_the_server() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let options = HttpOptions {
        health: Some(Health::default().at("/mcp", "/readyz")),
        ..HttpOptions::default()
    };
    let refused = mcp_result::http::serve_http(
        Clock,
        listener,
        Arc::new(StaticTokens::new()),
        options,
        std::future::pending(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        refused.to_string(),
        "the health probe's path `/mcp` is the MCP endpoint's: choose another"
    );
}
