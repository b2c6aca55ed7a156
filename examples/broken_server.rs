//! A deliberately broken MCP server: the negative control of the client conformance suite
//! (`tests/clients.rs`, `tests/clients/`) and of `mcp-result-check` (`mcp-result-check/tests/check.rs`).
//!
//! It is written by hand on rmcp (no mcp-result macros) and breaks the tool-result contract
//! on purpose, so the suites can show that real clients, `mcp-result-check`, and the
//! harness around them catch a server whose results do not match what it advertises. Each
//! tool plants one violation (the `mcp-result-check` check that reports it in brackets):
//!
//! - `get_order` is correct: `structuredContent` matches its `outputSchema`, bad arguments
//!   get an `isError` envelope naming the field (the control);
//! - `get_order_broken` advertises the same `outputSchema` but answers with
//!   `{"orderId": 42}`: `orderId` is not a string and `total` is missing (`output-schema`);
//! - `get_order_unstructured` advertises the same `outputSchema` but answers without
//!   `structuredContent` at all (`structured-content`);
//! - `get_order_summary`: `structuredContent` with no text block holding its JSON
//!   (`json-compat-text`);
//! - `list_orders_text`: no `outputSchema`, the orders only as text (`output-schema-missing`);
//! - `cancel_order`, a write tool: `status` and `retrySafe` but no `auditEventId`
//!   (`write-contract`);
//! - `get_invoice`: always an `isError` result whose envelope has neither `status` nor
//!   `retrySafe` (`error-status`, `error-retry-safe`);
//! - `find_orders`: bad arguments answered with a JSON-RPC error, and `get_order_lax` takes
//!   them as if they were right (`bad-arguments`);
//! - `check_address`: bad arguments answered with an envelope that names no field
//!   (`error-field-errors`);
//! - `export_orders`: a 100 KiB CSV inline, no `resource_link` (`large-output`);
//! - `get_order_discount`: the discount code only in `_meta` (`meta-business-data`);
//! - `get_integration`: an API key in the result (`secret`);
//! - `track_shipment`: a JSON-RPC error for arguments its schema accepts (`call-error`).
//!
//! With `--all-plants` it also breaks what makes some clients refuse the whole tool list
//! (which is why the client suite runs it without): no `tools` capability
//! (`tools-capability`), an `outputSchema` its meta-schema rejects (`get_order_v2`,
//! `schema-dialect`), a `$ref` to a missing definition (`get_customer`, `schema-ref`), a
//! dotted tool name (`orders.lookup`, the host lint's name rules), and a `tools/list` whose
//! one page answers `nextCursor: ""` where a last page has none (`tools-list-empty-cursor`;
//! rmcp's `list_all_tools` would ask again with it and loop); and it serves two tools the
//! checker must not call `ok`: `get_order_report` answers a server fault (`errorKind:
//! internal`, a `correlationId`) for any order (`internal-error`), and `refund_order`, a
//! write waiting for a human approval, answers every call `blocked` with an
//! `approvalRequestId`, as mcp-result's approval gate answers a client that cannot be asked
//! (no finding: the checker lists it as blocked, not run). (An array `outputSchema`
//! root cannot be planted here: rmcp's server drops it for peers before 2026-07-28; the
//! FastMCP server of `mcp-result-check/tests/check/` plants it.) With `--no-tools` it declares no `tools`
//! capability and answers `tools/list` with a JSON-RPC error (`tools-list`). With
//! `--looping-list` every `tools/list` page answers the same `nextCursor`, so a client that
//! follows cursors without a guard never ends its walk (`tools-list-cursor`).
//!
//! `cargo run --example broken_server [-- --all-plants | --no-tools | --looping-list]` serves MCP over
//! stdio; nothing else.

use std::sync::Arc;

use mcp_result::rmcp::{
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
        Implementation, JsonObject, ListToolsResult, MetaObject, PaginatedRequestParams,
        ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
    },
    service::RequestContext,
    ErrorData, RoleServer, ServerHandler, ServiceExt,
};
use serde_json::{json, Value};

struct Broken {
    /// `--all-plants`: also the plants that make some clients refuse the whole list.
    all_plants: bool,
    /// `--no-tools`: no `tools` capability, and `tools/list` refused.
    no_tools: bool,
    /// `--looping-list`: every `tools/list` page points at itself.
    looping_list: bool,
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => unreachable!("not an object: {other}"),
    }
}

/// What an order tool promises: an order id (string) and a total (integer cents).
fn order_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "orderId": {"type": "string"},
            "total": {"type": "integer", "minimum": 0}
        },
        "required": ["orderId", "total"]
    })
}

/// The error envelope every tool but the planted ones answers bad arguments with.
fn envelope_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "status": {"enum": ["failed"]},
            "errorKind": {"type": "string"},
            "retrySafe": {"type": "boolean"},
            "message": {"type": "string"},
            "fieldErrors": {"type": "array"}
        },
        "required": ["status", "errorKind", "retrySafe", "message"]
    })
}

/// `success` or the error envelope, the way mcp-result advertises it: clients validate
/// `isError` results against the outputSchema too.
fn or_error(success: Value) -> Arc<JsonObject> {
    Arc::new(object(json!({
        "type": "object",
        "anyOf": [success, envelope_schema()]
    })))
}

fn order_id_input() -> Arc<JsonObject> {
    Arc::new(object(json!({
        "type": "object",
        "properties": {"orderId": {"type": "string"}},
        "required": ["orderId"]
    })))
}

fn read_only() -> ToolAnnotations {
    ToolAnnotations::new().read_only(true)
}

fn tools(all_plants: bool) -> Vec<Tool> {
    let order = |name: &'static str, description: &'static str| {
        Tool::new(name, description, order_id_input())
            .with_raw_output_schema(or_error(order_schema()))
            .annotate(read_only())
    };
    let mut tools = vec![
        order("get_order", "Read one order (correct: the control)."),
        order(
            "get_order_broken",
            "Read one order (broken: structuredContent violates the outputSchema).",
        ),
        order(
            "get_order_unstructured",
            "Read one order (broken: outputSchema advertised, no structuredContent).",
        ),
        order(
            "get_order_summary",
            "Read one order (broken: no text block with the JSON of structuredContent).",
        ),
        Tool::new(
            "list_orders_text",
            "List open orders (broken: no outputSchema; the orders only as text).",
            Arc::new(object(json!({"type": "object", "properties": {}}))),
        )
        .annotate(read_only()),
        Tool::new(
            "cancel_order",
            "Cancel an order (broken: a write without auditEventId).",
            order_id_input(),
        )
        .with_raw_output_schema(or_error(json!({
            "type": "object",
            "properties": {
                "orderId": {"type": "string"},
                "status": {"enum": ["succeeded", "failed"]},
                "retrySafe": {"type": "boolean"}
            },
            "required": ["orderId", "status", "retrySafe"]
        })))
        .annotate(ToolAnnotations::new().read_only(false).destructive(true)),
        Tool::new(
            "get_invoice",
            "Read an order's invoice (broken: error results without status and retrySafe).",
            order_id_input(),
        )
        .with_raw_output_schema(or_error(json!({
            "type": "object",
            "properties": {
                "invoiceId": {"type": "string"},
                "errorKind": {"type": "string"},
                "message": {"type": "string"}
            }
        })))
        .annotate(read_only()),
        order(
            "find_orders",
            "Find an order (broken: bad arguments are a JSON-RPC error).",
        ),
        order(
            "get_order_lax",
            "Read one order (broken: bad arguments are taken as right).",
        ),
        Tool::new(
            "check_address",
            "Check a delivery address (broken: bad arguments name no field).",
            Arc::new(object(json!({
                "type": "object",
                "properties": {"postcode": {"type": "string"}},
                "required": ["postcode"]
            }))),
        )
        .with_raw_output_schema(or_error(json!({
            "type": "object",
            "properties": {"deliverable": {"type": "boolean"}},
            "required": ["deliverable"]
        })))
        .annotate(read_only()),
        Tool::new(
            "export_orders",
            "Export every order as CSV (broken: 100 KiB inline, no resource_link).",
            Arc::new(object(json!({"type": "object", "properties": {}}))),
        )
        .with_raw_output_schema(or_error(json!({
            "type": "object",
            "properties": {"rows": {"type": "integer"}},
            "required": ["rows"]
        })))
        .annotate(read_only()),
        order(
            "get_order_discount",
            "Read one order (broken: the discount code only in _meta).",
        ),
        Tool::new(
            "get_integration",
            "Read the billing integration's settings (broken: returns its API key).",
            Arc::new(object(json!({"type": "object", "properties": {}}))),
        )
        .with_raw_output_schema(or_error(json!({
            "type": "object",
            "properties": {"integration": {"type": "string"}, "apiKey": {"type": "string"}},
            "required": ["integration"]
        })))
        .annotate(read_only()),
        Tool::new(
            "track_shipment",
            "Track the latest shipment (broken: a JSON-RPC error for valid arguments).",
            Arc::new(object(json!({"type": "object", "properties": {}}))),
        )
        .with_raw_output_schema(or_error(json!({
            "type": "object",
            "properties": {"carrier": {"type": "string"}},
            "required": ["carrier"]
        })))
        .annotate(read_only()),
    ];
    if all_plants {
        tools.extend([
            // `minimum` must be a number: the 2020-12 meta-schema rejects the schema.
            Tool::new(
                "get_order_v2",
                "Read one order (broken: an outputSchema its meta-schema rejects).",
                order_id_input(),
            )
            .with_raw_output_schema(Arc::new(object(json!({
                "type": "object",
                "properties": {"total": {"type": "integer", "minimum": "zero"}}
            }))))
            .annotate(read_only()),
            Tool::new(
                "get_customer",
                "Read an order's customer (broken: a $ref to a missing definition).",
                order_id_input(),
            )
            .with_raw_output_schema(Arc::new(object(json!({
                "type": "object",
                "properties": {"customer": {"$ref": "#/$defs/Customer"}},
                "$defs": {}
            }))))
            .annotate(read_only()),
            Tool::new(
                "orders.lookup",
                "Look an order up (broken: a dot in the name).",
                order_id_input(),
            )
            .with_raw_output_schema(or_error(order_schema()))
            .annotate(read_only()),
            order(
                "get_order_report",
                "Read an order's report (broken: a server fault, errorKind internal, for any \
                 order).",
            ),
            Tool::new(
                "refund_order",
                "Refund an order once a human approves (correct: a client that cannot be asked \
                 is answered blocked, and nothing runs).",
                Arc::new(object(json!({
                    "type": "object",
                    "properties": {
                        "orderId": {"type": "string"},
                        "approvalRequestId": {"type": "string"}
                    },
                    "required": ["orderId"]
                }))),
            )
            .with_raw_output_schema(Arc::new(object(json!({
                "type": "object",
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {
                            "orderId": {"type": "string"},
                            "status": {"enum": ["succeeded", "failed"]},
                            "retrySafe": {"type": "boolean"},
                            "auditEventId": {"type": "string"},
                            "approvalId": {"type": "string"}
                        },
                        "required": ["orderId", "status", "retrySafe", "auditEventId"]
                    },
                    blocked_envelope_schema()
                ]
            }))))
            .annotate(ToolAnnotations::new().read_only(false).destructive(true)),
        ]);
    }
    tools
}

/// The error envelope of a write that may be `blocked` too, waiting for a human approval
/// (mcp-result's `approvalRequestId`, `requiresHumanReview`, `reason`, `auditEventId`).
fn blocked_envelope_schema() -> Value {
    let mut schema = envelope_schema();
    schema["properties"]["status"] = json!({"enum": ["failed", "blocked"]});
    for (name, kind) in [
        ("reason", "string"),
        ("auditEventId", "string"),
        ("requiresHumanReview", "boolean"),
        ("approvalRequestId", "string"),
    ] {
        schema["properties"][name] = json!({"type": kind});
    }
    schema
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

/// An `isError` result carrying `envelope` (and its JSON as text).
fn error(envelope: Value) -> CallToolResult {
    let message = envelope["message"].as_str().unwrap_or("Failed.").to_owned();
    let mut result = CallToolResult::error(vec![
        ContentBlock::text(message),
        ContentBlock::text(envelope.to_string()),
    ]);
    result.structured_content = Some(envelope);
    result
}

/// The control's answer to arguments its schema rejects.
fn validation_error(field: &str, message: &str) -> CallToolResult {
    error(json!({
        "status": "failed",
        "errorKind": "validation_error",
        "retrySafe": false,
        "message": format!("Invalid arguments: {message}. Correct them and call again."),
        "fieldErrors": [{"pointer": format!("/{field}"), "message": message}]
    }))
}

/// A string argument: `Ok(None)` when absent, `Err` when present and not a string.
fn string_arg(request: &CallToolRequestParams, name: &str) -> Result<Option<String>, String> {
    match request.arguments.as_ref().and_then(|args| args.get(name)) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{name}` must be a string")),
    }
}

impl ServerHandler for Broken {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.all_plants || self.no_tools {
            ServerCapabilities::builder().build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            "broken_server",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if self.no_tools {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "tools/list: this server has no tools",
                None,
            ));
        }
        let mut listed = ListToolsResult::with_all_items(tools(self.all_plants));
        if self.looping_list {
            listed.next_cursor = Some("page-2".to_owned());
        } else if self.all_plants {
            // The last page says "no more" with an empty cursor instead of none.
            listed.next_cursor = Some(String::new());
        }
        Ok(listed)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools(self.all_plants)
            .into_iter()
            .find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.as_ref();
        if self.get_tool(name).is_none() {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {name}"),
                None,
            ));
        }
        // Every tool but the planted ones refuses arguments its schema rejects.
        let order_id = match string_arg(&request, "orderId") {
            Ok(id) => id.unwrap_or_else(|| "O-1".to_owned()),
            Err(message) => match name {
                "find_orders" => return Err(ErrorData::invalid_params(message, None)),
                "get_order_lax" => "O-1".to_owned(),
                _ => return Ok(validation_error("orderId", &message).into()),
            },
        };
        let order = json!({"orderId": order_id, "total": 4200});
        let result = match name {
            "get_order" | "orders.lookup" | "find_orders" | "get_order_lax" => result(order, true),
            // The violation: a number where the schema says string, and no `total`.
            "get_order_broken" => result(json!({"orderId": 42}), true),
            "get_order_unstructured" => result(order, false),
            "get_order_summary" => {
                // A summary that names the order but not its total: a host that reads only
                // `content` never learns it.
                let mut result = CallToolResult::success(vec![ContentBlock::text(format!(
                    "Order {order_id} found."
                ))]);
                result.structured_content = Some(order);
                result
            }
            "list_orders_text" => CallToolResult::success(vec![ContentBlock::text(
                "Open orders: O-1 (42.00), O-2 (17.50).",
            )]),
            "cancel_order" => {
                let cancelled =
                    json!({"orderId": order_id, "status": "succeeded", "retrySafe": false});
                let mut result = result(cancelled, true);
                result.content[0] = ContentBlock::text(format!("Cancelled order {order_id}."));
                result
            }
            "get_invoice" => error(json!({
                "errorKind": "not_found",
                "message": format!("No invoice for order {order_id}.")
            })),
            "check_address" => match string_arg(&request, "postcode") {
                Ok(_) => {
                    let mut result = result(json!({"deliverable": true}), true);
                    result.content[0] = ContentBlock::text("The address is deliverable.");
                    result
                }
                // The violation: the envelope says what is wrong only in prose.
                Err(_) => error(json!({
                    "status": "failed",
                    "errorKind": "validation_error",
                    "retrySafe": false,
                    "message": "The address is not valid."
                })),
            },
            "export_orders" => {
                let mut csv = String::from("order,total\n");
                let mut rows = 0;
                while csv.len() < 100 * 1024 {
                    rows += 1;
                    csv.push_str(&format!("O-{rows:06},{}\n", rows * 7 % 10_000));
                }
                let structured = json!({"rows": rows});
                let mut result = CallToolResult::success(vec![
                    ContentBlock::text(csv),
                    ContentBlock::text(structured.to_string()),
                ]);
                result.structured_content = Some(structured);
                result
            }
            "get_order_discount" => {
                let mut result = result(order, true);
                let discount = object(json!({"com.example/discountCode": "SPRING-42"}));
                result.meta = Some(MetaObject(discount));
                result
            }
            "get_integration" => {
                let settings = json!({
                    "integration": "billing",
                    "apiKey": "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
                });
                result(settings, true)
            }
            "track_shipment" => {
                return Err(ErrorData::internal_error("the carrier API is down", None))
            }
            // The violation: a server fault for an order like any other. The envelope is
            // mcp-result's `ToolError::internal`: only the id the details are logged under.
            "get_order_report" => error(json!({
                "status": "failed",
                "errorKind": "internal",
                "retrySafe": true,
                "message": "Internal error (correlation id c-7f3a9e).",
                "correlationId": "c-7f3a9e"
            })),
            // What mcp-result's approval gate answers a client that cannot be asked (no
            // elicitation capability, as mcp-result-check declares none): `blocked`, nothing
            // run, the request to approve named. Correct: no finding, and never ok.
            "refund_order" => {
                let id = "0193a0c2-5e1f-7a3b-9c4d-6e7f8a9b0c1d";
                error(json!({
                    "status": "blocked",
                    "errorKind": "policy_blocked",
                    "retrySafe": true,
                    "message": format!(
                        "This write needs a human approval: Refund order {order_id}. Nothing \
                         ran. Once it is approved, call again with approvalRequestId `{id}`."
                    ),
                    "reason": "requires human approval",
                    "auditEventId": "0193a0c2-5e1f-7a3b-9c4d-6e7f8a9b0c1e",
                    "requiresHumanReview": true,
                    "approvalRequestId": id
                }))
            }
            "get_order_v2" => result(json!({"total": 4200}), true),
            "get_customer" => result(json!({"customer": {"name": "Ada"}}), true),
            other => unreachable!("listed but not served: {other}"),
        };
        Ok(result.into())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (all_plants, no_tools, looping_list) = match std::env::args().nth(1).as_deref() {
        None => (false, false, false),
        Some("--all-plants") => (true, false, false),
        Some("--no-tools") => (false, true, false),
        Some("--looping-list") => (false, false, true),
        Some(other) => {
            return Err(format!(
                "unknown argument `{other}`: expected --all-plants, --no-tools or --looping-list"
            )
            .into())
        }
    };
    let service = Broken {
        all_plants,
        no_tools,
        looping_list,
    }
    .serve(mcp_result::rmcp::transport::stdio())
    .await?;
    service.waiting().await?;
    Ok(())
}
