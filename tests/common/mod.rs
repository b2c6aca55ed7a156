//! Helpers shared by the integration tests: spawn the example server as a child process
//! and talk to it with rmcp's client over stdio.

#![allow(dead_code)]

#[cfg(feature = "approvals-page")]
pub mod approvals;
pub mod http1;
pub mod pinned;
pub mod postgres;
pub mod raw;

use std::path::PathBuf;

use mcp_result::rmcp::{
    model::{CallToolRequestParams, CallToolResult, Tool},
    service::{RoleClient, RunningService},
    transport::TokioChildProcess,
    ServiceError, ServiceExt,
};
use serde_json::Value;

/// The example binary `cargo test` built beside this test (`target/<profile>/examples/`).
pub fn example_path(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target dir");
    let path = profile_dir.join("examples").join(name);
    assert!(
        path.exists(),
        "example `{name}` not built at {}; run the tests with `cargo test` (which builds examples)",
        path.display()
    );
    path
}

/// A free TCP port on 127.0.0.1 (bound, then released for a child process to bind).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until something listens on 127.0.0.1:`port`, for up to 15 s; whether it did.
pub async fn wait_listening(port: u16) -> bool {
    for _ in 0..300 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    false
}

pub type Client = RunningService<RoleClient, ()>;

/// Spawns `examples/<name>` and connects rmcp's client over its stdio.
pub async fn connect(name: &str) -> Client {
    let command = tokio::process::Command::new(example_path(name));
    ().serve(TokioChildProcess::new(command).expect("spawn example server"))
        .await
        .expect("MCP initialize handshake")
}

pub fn object(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("expected a JSON object, got {other}"),
    }
}

pub async fn call(
    client: &Client,
    name: &str,
    arguments: Value,
) -> Result<CallToolResult, ServiceError> {
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(object(arguments)))
        .await
}

pub fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool `{name}`"))
}

pub fn output_schema(tool: &Tool) -> Value {
    Value::Object(
        tool.output_schema
            .as_ref()
            .expect("outputSchema")
            .as_ref()
            .clone(),
    )
}

/// Every way `structured` fails `schema`, under a JSON Schema 2020-12 validator.
pub fn schema_errors(schema: &Value, structured: &Value) -> Vec<String> {
    let validator = jsonschema::draft202012::new(schema).expect("schema compiles");
    validator
        .iter_errors(structured)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// The text of content block `index`.
pub fn text(result: &CallToolResult, index: usize) -> &str {
    &result.content[index].as_text().expect("a text block").text
}
