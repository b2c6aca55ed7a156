//! A tool definition the registry refuses (here an arguments type whose schema is not an
//! object) stops the server when it starts, over every way of serving, before any client
//! message: never a `-32603` answered to each request later.

use std::sync::Arc;

use mcp_result::{
    http::{Anonymous, HttpOptions},
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    Identity, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A ticket id: a newtype, so its schema is a string, not an object.
#[derive(Deserialize, JsonSchema)]
struct Id(#[allow(dead_code)] String);

/// Found.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    ok: bool,
}

#[derive(Clone)]
struct Broken;

#[mcp_tools]
impl Broken {
    /// Looks a ticket up.
    #[mcp_tool(read_only)]
    fn by_id(&self, _id: Id) -> Found {
        Found { ok: true }
    }
}

#[mcp_handler]
impl ServerHandler for Broken {}

const REFUSAL: &str = "tool `by_id`: the arguments type `Id` has a schema root of \
                       `type: \"string\"`, not an object; MCP sends a tool's arguments as a \
                       JSON object: put the value in a named field of a struct that derives \
                       `Deserialize` and `JsonSchema` (`struct Args { value: ... }`), or tag \
                       the enum (`#[serde(tag = \"kind\")]`); any JSON object is \
                       `serde_json::Value`";

#[tokio::test]
async fn serve_returns_the_refusal_before_any_message() {
    let (server_io, _client_io) = tokio::io::duplex(1 << 10);
    let stopped = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        mcp_result::serve(Broken, server_io),
    )
    .await
    .expect("serve returns at once, without waiting for a client")
    .unwrap_err();
    assert_eq!(stopped.to_string(), REFUSAL);
}

#[tokio::test]
async fn serve_http_returns_the_refusal_before_listening_is_used() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let stopped = mcp_result::http::serve_http(
        Broken,
        listener,
        Arc::new(Anonymous::new(Identity::new("local"))),
        HttpOptions::default(),
        std::future::pending(),
    )
    .await
    .unwrap_err();
    assert_eq!(stopped.to_string(), REFUSAL);
}

#[test]
fn the_http_router_refuses_to_be_built() {
    let built = std::panic::catch_unwind(|| {
        mcp_result::http::router(
            Broken,
            Arc::new(Anonymous::new(Identity::new("local"))),
            &HttpOptions::default(),
        )
    });
    let panic = built.expect_err("the router is not built");
    let message = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default();
    assert_eq!(message, REFUSAL);
}
