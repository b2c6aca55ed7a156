//! A deliberately broken MCP server: the negative control of the client conformance suite
//! (`tests/clients.rs`, `tests/clients/`).
//!
//! It is written by hand on rmcp (no mcp-result macros) and breaks the tool-result contract
//! on purpose, so the suite can show that real clients, and the harness around them, catch
//! a server whose results do not match what it advertises:
//!
//! - `get_order` is correct: `structuredContent` matches its `outputSchema` (the control);
//! - `get_order_broken` advertises the same `outputSchema` but answers with
//!   `{"orderId": 42}`: `orderId` is not a string and `total` is missing;
//! - `get_order_unstructured` advertises the same `outputSchema` but answers without
//!   `structuredContent` at all.
//!
//! `cargo run --example broken_server` serves MCP over stdio; nothing else.

use std::sync::Arc;

use mcp_result::rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
        JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
        Tool,
    },
    service::RequestContext,
    ErrorData, RoleServer, ServerHandler, ServiceExt,
};
use serde_json::{json, Value};

struct Broken;

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => unreachable!("not an object: {other}"),
    }
}

/// The promise every tool makes: an order id (string) and a total (integer cents).
fn output_schema() -> Arc<JsonObject> {
    Arc::new(object(json!({
        "type": "object",
        "properties": {
            "orderId": {"type": "string"},
            "total": {"type": "integer", "minimum": 0}
        },
        "required": ["orderId", "total"]
    })))
}

fn tools() -> Vec<Tool> {
    let input = Arc::new(object(json!({
        "type": "object",
        "properties": {"orderId": {"type": "string"}},
        "required": ["orderId"]
    })));
    [
        ("get_order", "Read one order (correct: the control)."),
        (
            "get_order_broken",
            "Read one order (broken: structuredContent violates the outputSchema).",
        ),
        (
            "get_order_unstructured",
            "Read one order (broken: outputSchema advertised, no structuredContent).",
        ),
    ]
    .into_iter()
    .map(|(name, description)| {
        Tool::new(name, description, input.clone()).with_raw_output_schema(output_schema())
    })
    .collect()
}

/// A result with the summary text, the JSON-compat text and (optionally) `structuredContent`.
fn result(structured: Value, with_structured: bool) -> CallToolResult {
    let mut result = CallToolResult::success(vec![
        ContentBlock::text("Order found."),
        ContentBlock::text(structured.to_string()),
    ]);
    if with_structured {
        result.structured_content = Some(structured);
    }
    result
}

impl ServerHandler for Broken {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("broken_server", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let order_id = request
            .arguments
            .as_ref()
            .and_then(|args| args.get("orderId"))
            .and_then(Value::as_str)
            .unwrap_or("O-1")
            .to_owned();
        let result = match request.name.as_ref() {
            "get_order" => result(json!({"orderId": order_id, "total": 4200}), true),
            // The violation: a number where the schema says string, and no `total`.
            "get_order_broken" => result(json!({"orderId": 42}), true),
            "get_order_unstructured" => result(json!({"orderId": order_id, "total": 4200}), false),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool: {other}"),
                    None,
                ))
            }
        };
        Ok(result.into())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let service = Broken.serve(mcp_result::rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
