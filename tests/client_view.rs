//! The client half (`mcp_result::view`): a received `CallToolResult` split into the
//! checked structured value, the model context, the user display and the error view.
//!
//! Results come from this framework's servers (an in-process `#[mcp_tools]` server over a
//! duplex stream, and the example binary over stdio) and, hand-written, in the shapes other
//! servers produce: text only, structured without compat text, compat text without
//! structured content, images, audio, embedded resources, resource links, annotations,
//! errors with and without details.

mod common;

use std::{sync::Arc, time::Duration};

use common::*;
use mcp_result::{
    mcp_handler, mcp_tools,
    rmcp::{
        model::{
            Annotations, AudioContent, CallToolResult, ContentBlock, EmbeddedResource,
            ImageContent, JsonObject, Resource, ResourceContents, Role, TextContent, Tool,
        },
        ServerHandler, ServiceExt,
    },
    schema::{empty_input_schema, ToolOutputSchema},
    view::{
        DisplayBody, DisplayOptions, DisplayOrder, MediaKind, ModelOptions, ModelPart, ResultView,
        StructuredSource, ToolCatalog, ViewError,
    },
    ErrorKind, Status, ToolError, ToolResult, ToolSet,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------
// An in-process mcp-result server
// ---------------------------------------------------------------------------------------

/// How bad an order problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Level {
    Low,
    High,
}

/// One matching order.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Hit {
    order_id: String,
    level: Level,
    uri: String,
}

/// Order search results.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Found {total} orders")]
struct Orders {
    total: u32,
    hits: Vec<Hit>,
}

/// What a client reads `Orders` as.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct OrdersSeen {
    total: u32,
    hits: Vec<HitSeen>,
}

#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct HitSeen {
    order_id: String,
    level: String,
}

/// A refund was issued.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Refund {refund_id} {status}")]
struct Refunded {
    refund_id: String,
    status: Status,
    retry_safe: bool,
    audit_event_id: mcp_result::AuditEventId,
}

#[derive(Deserialize, JsonSchema)]
struct Query {
    /// Words to look for; `""`, `"secret"`, `"down"` and `"boom"` fail in their own ways.
    text: String,
    /// At most this many hits.
    #[serde(default)]
    limit: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct RefundArgs {
    order_id: String,
}

#[derive(Clone)]
struct Shop;

#[mcp_tools]
impl Shop {
    /// Search orders.
    #[mcp_tool(read_only)]
    fn search_orders(&self, query: Query) -> Result<Orders, ToolError> {
        match query.text.as_str() {
            "" => Err(ToolError::not_found(
                "Nothing to search for: give some text.",
            )),
            "secret" => Err(ToolError::permission_denied("orders:read-secret")),
            "down" => Err(
                ToolError::upstream_unavailable("The order index is down.", true)
                    .with_retry_after(Duration::from_secs(30)),
            ),
            "boom" => Err(ToolError::internal("corr-77")),
            _ => Ok(Orders {
                total: 2,
                hits: vec![
                    Hit {
                        order_id: "O-1".into(),
                        level: Level::High,
                        uri: "shop://orders/O-1".into(),
                    },
                    Hit {
                        order_id: "O-2".into(),
                        level: Level::Low,
                        uri: "shop://orders/O-2".into(),
                    },
                ]
                .into_iter()
                .take(query.limit.unwrap_or(10) as usize)
                .collect(),
            }),
        }
    }

    /// Every order id (a JSON array, so the result is wrapped under `result`).
    #[mcp_tool(read_only)]
    fn order_ids(&self) -> Vec<String> {
        vec!["O-1".into(), "O-2".into()]
    }

    /// Refund an order. Order `O-LOCKED` is under review and refuses refunds.
    #[mcp_tool(destructive)]
    fn refund(&self, args: RefundArgs) -> Result<Refunded, ToolError> {
        if args.order_id == "O-LOCKED" {
            return Err(ToolError::policy_blocked("the order is under fraud review"));
        }
        Ok(Refunded {
            refund_id: format!("R-{}", args.order_id),
            status: Status::Succeeded,
            retry_safe: false,
            audit_event_id: mcp_result::AuditEventId::new("audit-1"),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Shop {}

/// rmcp's client connected to `Shop` over an in-process duplex stream.
async fn shop_client() -> Client {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = Shop.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("initialize")
}

fn shop_tools() -> Vec<Tool> {
    Shop::tool_registry()
        .expect("router builds")
        .tools()
        .to_vec()
}

// ---------------------------------------------------------------------------------------
// Hand-written results
// ---------------------------------------------------------------------------------------

fn schema(value: Value) -> Arc<JsonObject> {
    Arc::new(object(value))
}

/// A tool of another server with `outputSchema` `{total: integer, items: [string]}`.
fn counted_tool() -> Tool {
    Tool::new("count_items", "Counts items.", empty_input_schema()).with_raw_output_schema(schema(
        json!({
            "type": "object",
            "properties": {
                "total": {"type": "integer"},
                "items": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["total", "items"]
        }),
    ))
}

fn annotations(audience: &[Role], priority: Option<f32>) -> Annotations {
    let mut annotations = Annotations::default();
    if !audience.is_empty() {
        annotations = annotations.with_audience(audience.to_vec());
    }
    if let Some(priority) = priority {
        annotations = annotations.with_priority(priority);
    }
    annotations
}

fn text_for(text: &str, audience: &[Role], priority: Option<f32>) -> ContentBlock {
    ContentBlock::Text(TextContent::new(text).with_annotations(annotations(audience, priority)))
}

/// A base64 payload of exactly 1 MiB (1,048,576 characters).
fn one_megabyte_base64() -> String {
    "QUJD".repeat(1024 * 1024 / 4)
}

/// Whether any 64-character window of `payload` occurs in `text`.
fn leaks(text: &str, payload: &str) -> bool {
    text.contains(&payload[..64]) || text.contains(&payload[payload.len() - 64..])
}

// ---------------------------------------------------------------------------------------
// Results from this framework's server
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn framework_results_give_the_checked_typed_value_and_the_summary_to_the_model() {
    let client = shop_client().await;
    let catalog = ToolCatalog::new(client.list_all_tools().await.unwrap());
    let result = call(&client, "search_orders", json!({"text": "refund"}))
        .await
        .unwrap();
    let view = catalog.view("search_orders", result);

    assert!(view.error().is_none());
    assert!(view.schema_checked());
    assert_eq!(
        view.structured_source(),
        Some(StructuredSource::StructuredContent)
    );
    assert_eq!(view.check_schema(), Ok(()));
    let seen: OrdersSeen = view.structured().unwrap();
    assert_eq!(seen.total, 2);
    assert_eq!(
        seen.hits[0],
        HitSeen {
            order_id: "O-1".into(),
            level: "high".into()
        }
    );

    // The summary and the JSON copy, nothing added: the copy already carries the data.
    let model = view.model_context();
    assert!(!model.is_error);
    let texts: Vec<&str> = model.texts().collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert_eq!(texts[0], "Found 2 orders");
    assert_eq!(
        serde_json::from_str::<Value>(texts[1]).unwrap(),
        view.result().structured_content.clone().unwrap()
    );
    assert!(!model
        .parts
        .iter()
        .any(|p| matches!(p, ModelPart::Structured { .. })));

    let user = view.user_display(&DisplayOptions::default());
    assert_eq!(user.items.len(), 2);
    assert!(user.to_text().starts_with("Found 2 orders\n{"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn wrapped_results_are_unwrapped_with_the_tool_definition_and_not_without() {
    let client = shop_client().await;
    let catalog = ToolCatalog::new(client.list_all_tools().await.unwrap());
    let result = call(&client, "order_ids", json!({})).await.unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"result": ["O-1", "O-2"]}))
    );

    let view = catalog.view("order_ids", result.clone());
    assert_eq!(view.structured::<Vec<String>>().unwrap(), ["O-1", "O-2"]);
    assert_eq!(view.structured_value().unwrap(), &json!(["O-1", "O-2"]));

    // Without the tools/list entry there is no `_meta` saying so: the value stays wrapped.
    let bare = ResultView::new(result);
    assert!(!bare.schema_checked());
    assert!(matches!(
        bare.structured::<Vec<String>>(),
        Err(ViewError::Deserialize { .. })
    ));
    assert_eq!(bare.structured_value().unwrap()["result"][1], "O-2");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn framework_error_results_give_the_parsed_envelope() {
    let client = shop_client().await;
    let catalog = ToolCatalog::new(client.list_all_tools().await.unwrap());
    let view_of = |name: &'static str, arguments: Value| {
        let client = &client;
        let catalog = &catalog;
        async move { catalog.view(name, call(client, name, arguments).await.unwrap()) }
    };

    let not_found = view_of("search_orders", json!({"text": ""})).await;
    let error = not_found.error().expect("an error view");
    let details = error.details.as_ref().expect("envelope parsed");
    assert_eq!(details.kind(), Some(ErrorKind::NotFound));
    assert_eq!(details.status(), Some(Status::Failed));
    assert!(error.retry_safe(), "a read-only tool's error");
    assert_eq!(error.message, "Nothing to search for: give some text.");
    assert_eq!(
        error.details_source,
        Some(StructuredSource::StructuredContent)
    );
    // The text keeps the server's wording and leaves out the JSON copy of the envelope.
    assert_eq!(
        error.text,
        "Error (not_found): Nothing to search for: give some text. Safe to retry; unchanged, it \
         gets the same answer."
    );
    assert!(matches!(
        not_found.structured::<OrdersSeen>(),
        Err(ViewError::ToolFailed { .. })
    ));
    assert_eq!(not_found.check_schema(), Ok(()));
    assert!(not_found.model_context().is_error);
    assert!(not_found.user_display(&DisplayOptions::default()).is_error);

    let denied = view_of("search_orders", json!({"text": "secret"})).await;
    let details = denied.error().unwrap().details.clone().unwrap();
    assert_eq!(details.kind(), Some(ErrorKind::PermissionDenied));
    assert_eq!(
        details.required_scope.as_deref(),
        Some("orders:read-secret")
    );

    let down = view_of("search_orders", json!({"text": "down"})).await;
    let error = down.error().unwrap();
    assert!(error.retry_safe());
    assert_eq!(
        error.details.as_ref().unwrap().retry_after(),
        Some(Duration::from_secs(30))
    );
    assert!(
        error.render().contains("retry after: 30000 ms"),
        "{}",
        error.render()
    );

    let internal = view_of("search_orders", json!({"text": "boom"})).await;
    let details = internal.error().unwrap().details.clone().unwrap();
    assert_eq!(details.correlation_id.as_deref(), Some("corr-77"));

    let blocked = view_of("refund", json!({"orderId": "O-LOCKED"})).await;
    let details = blocked.error().unwrap().details.clone().unwrap();
    assert_eq!(details.kind(), Some(ErrorKind::PolicyBlocked));
    assert_eq!(details.status(), Some(Status::Blocked));
    assert_eq!(
        details.reason.as_deref(),
        Some("the order is under fraud review")
    );

    // Arguments the inputSchema rejects: every field, each with its JSON Pointer.
    let invalid = view_of("search_orders", json!({"text": 7, "limit": "ten"})).await;
    let details = invalid.error().unwrap().details.clone().unwrap();
    assert_eq!(details.kind(), Some(ErrorKind::ValidationError));
    let mut pointers: Vec<&str> = details
        .field_errors
        .iter()
        .map(|f| f.pointer.as_str())
        .collect();
    pointers.sort_unstable();
    assert_eq!(pointers, ["/limit", "/text"]);
    let rendered = invalid.error().unwrap().render();
    assert!(rendered.contains("  - /limit: "), "{rendered}");

    let refunded = view_of("refund", json!({"orderId": "O-9"})).await;
    assert!(refunded.error().is_none());
    assert_eq!(refunded.structured_value().unwrap()["status"], "succeeded");
    client.cancel().await.unwrap();
}

#[test]
fn the_catalog_compiles_each_output_schema_once() {
    fn shared_across_tasks<T: Send + Sync>() {}
    shared_across_tasks::<ToolCatalog>();
    shared_across_tasks::<ResultView>();

    let catalog = ToolCatalog::new(shop_tools());
    assert_eq!(catalog.compiled_validators(), 0);
    let orders = mcp_result::build_result(&Orders {
        total: 0,
        hits: vec![],
    });
    for _ in 0..3 {
        assert!(catalog
            .view("search_orders", orders.clone())
            .schema_checked());
    }
    assert_eq!(catalog.compiled_validators(), 1);
    let ids = mcp_result::build_result(&vec!["O-1".to_owned()]);
    assert!(catalog.view("order_ids", ids).schema_checked());
    assert_eq!(catalog.compiled_validators(), 2);
}

#[test]
fn structured_content_that_violates_the_schema_names_the_path() {
    let catalog = ToolCatalog::new(shop_tools());
    let mut result = mcp_result::build_result(&Orders {
        total: 1,
        hits: vec![],
    });
    // The framework's schema is `{"anyOf": [Orders, ToolError]}`: the violation is still
    // reported at the field, not at the root.
    result.structured_content = Some(json!({
        "total": "three",
        "hits": [
            {"orderId": "O-1", "level": "urgent", "uri": "shop://orders/O-1"},
            {"orderId": "O-2", "level": "low"}
        ]
    }));
    let view = catalog.view("search_orders", result);
    let Err(ViewError::Invalid {
        tool,
        source,
        violations,
    }) = view.structured_value()
    else {
        panic!(
            "expected a validation error, got {:?}",
            view.structured_value()
        );
    };
    assert_eq!(tool, "search_orders");
    assert_eq!(source, StructuredSource::StructuredContent);
    let paths: Vec<&str> = violations
        .iter()
        .map(|v| v.instance_path.as_str())
        .collect();
    assert!(paths.contains(&"/total"), "{violations:?}");
    assert!(paths.contains(&"/hits/0/level"), "{violations:?}");
    assert!(paths.contains(&"/hits/1/uri"), "{violations:?}");
    let total = violations
        .iter()
        .find(|v| v.instance_path == "/total")
        .unwrap();
    assert!(total.message.contains("integer"), "{total:?}");

    let error = view.check_schema().unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with(
            "structuredContent of `search_orders` does not match its outputSchema: at /"
        ),
        "{message}"
    );
    assert!(message.contains("at /total: "), "{message}");
    assert!(matches!(
        view.structured::<OrdersSeen>(),
        Err(ViewError::Invalid { .. })
    ));
    // The other views still work; the invalid value is not handed to the model as data.
    assert_eq!(view.model_context().texts().next(), Some("Found 1 orders"));
    assert!(!view
        .model_context()
        .parts
        .iter()
        .any(|p| matches!(p, ModelPart::Structured { .. })));
}

// ---------------------------------------------------------------------------------------
// The example server over stdio
// ---------------------------------------------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TicketSearchSeen {
    items: Vec<FindingSeen>,
    offset: u64,
    next_cursor: Option<String>,
    total_estimate: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct FindingSeen {
    id: String,
    uri: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NoteSeen {
    note_id: String,
    status: Status,
    retry_safe: bool,
    audit_event_id: String,
}

#[tokio::test]
async fn every_helpdesk_result_has_a_checked_view_over_stdio() {
    let client = connect("helpdesk").await;
    let catalog = ToolCatalog::new(client.list_all_tools().await.unwrap());
    let view = |name: &'static str, arguments: Value| {
        let client = &client;
        let catalog = &catalog;
        async move { catalog.view(name, call(client, name, arguments).await.unwrap()) }
    };

    let search = view("search_tickets", json!({"query": "login"})).await;
    assert!(search.schema_checked());
    let seen: TicketSearchSeen = search.structured().unwrap();
    assert_eq!((seen.offset, seen.total_estimate), (0, Some(2)));
    assert_eq!(seen.next_cursor, None);
    assert_eq!(seen.items[0].id, "T-1001");
    assert_eq!(seen.items[0].uri, "helpdesk://tickets/T-1001");
    assert!(search
        .model_context()
        .to_text()
        .starts_with("Showing 1–2 of 2; this is the last page."));

    let ids = view("list_ticket_ids", json!({})).await;
    let ids: Vec<String> = ids.structured().unwrap();
    assert_eq!(ids.len(), 5);
    assert_eq!(ids[0], "T-1001");

    let note = view(
        "add_internal_note",
        json!({"ticketId": "T-1002", "body": "VAT checked."}),
    )
    .await;
    let note: NoteSeen = note.structured().unwrap();
    assert_eq!(note.note_id, "T-1002-N1");
    assert_eq!(note.status, Status::Succeeded);
    assert!(!note.retry_safe);
    // The framework's audit event: a UUIDv7.
    assert_eq!(note.audit_event_id.len(), 36, "{}", note.audit_event_id);
    assert_eq!(&note.audit_event_id[14..15], "7");

    let missing = view("get_ticket", json!({"ticketId": "T-9999"})).await;
    let error = missing.error().expect("not_found is an error result");
    assert_eq!(error.error_kind(), Some("not_found"));
    assert!(error.message.contains("T-9999"), "{}", error.message);

    let locked = view(
        "add_internal_note",
        json!({"ticketId": "T-1004", "body": "Checking."}),
    )
    .await;
    let details = locked.error().unwrap().details.clone().unwrap();
    assert_eq!(details.status(), Some(Status::Blocked));
    assert!(details.reason.unwrap().contains("locked"));

    let slow = view("lookup_customer", json!({"customerId": "C-SLOW"})).await;
    let error = slow.error().unwrap();
    assert_eq!(error.error_kind(), Some("upstream_timeout"));
    assert!(error.retry_safe(), "lookup_customer is idempotent");

    let customer = view("lookup_customer", json!({"customerId": "C-100"})).await;
    assert_eq!(
        customer.structured_value().unwrap()["redactionApplied"],
        true
    );

    assert_eq!(catalog.compiled_validators(), 4);
    client.cancel().await.unwrap();
}

// ---------------------------------------------------------------------------------------
// Hand-written results in the shapes other servers produce
// ---------------------------------------------------------------------------------------

#[test]
fn a_text_only_result_goes_whole_to_the_model_and_has_no_structured_value() {
    let text = "It is sunny.\nHigh of 24 °C.";
    let view = ResultView::new(CallToolResult::success(vec![ContentBlock::text(text)]));
    assert_eq!(view.model_context().to_text(), text);
    assert_eq!(
        view.user_display(&DisplayOptions::default()).to_text(),
        text
    );
    assert!(view.error().is_none());
    assert!(matches!(
        view.structured_value(),
        Err(ViewError::NoStructuredContent { tool: None })
    ));
    assert_eq!(view.check_schema(), Ok(()));
}

#[test]
fn structured_content_without_compat_text_reaches_the_model_as_json() {
    let mut result = CallToolResult::success(vec![ContentBlock::text("Counted.")]);
    result.structured_content = Some(json!({"total": 2, "items": ["a", "b"]}));
    let view = ResultView::with_tool(&counted_tool(), result);
    assert!(view.schema_checked());
    assert_eq!(view.structured_value().unwrap()["total"], 2);

    let model = view.model_context();
    assert_eq!(
        model.parts.last(),
        Some(&ModelPart::Structured {
            json: r#"{"total":2,"items":["a","b"]}"#.into()
        })
    );
    assert_eq!(
        model.to_text(),
        "Counted.\n\n{\"total\":2,\"items\":[\"a\",\"b\"]}"
    );
    let off = view.model_context_with(&ModelOptions::default().structured_fallback(false));
    assert_eq!(off.to_text(), "Counted.");

    let user = view.user_display(&DisplayOptions::default());
    assert!(matches!(
        user.items.last().unwrap().body,
        DisplayBody::Structured { json: Some(_), .. }
    ));
}

#[test]
fn compat_text_without_structured_content_is_parsed_and_checked() {
    let result = CallToolResult::success(vec![
        ContentBlock::text("Counted 2 items."),
        ContentBlock::text(r#"{"total": 2, "items": ["a", "b"]}"#),
    ]);
    let catalog = ToolCatalog::new([counted_tool()]);
    let view = catalog.view("count_items", result);
    assert!(view.schema_checked());
    assert!(matches!(
        view.structured_source(),
        Some(StructuredSource::TextBlock(handle)) if handle.index() == 1
    ));
    assert_eq!(view.structured_value().unwrap()["items"][1], "b");
    // The JSON text is what carries the data; nothing is added to the model context.
    assert_eq!(view.model_context().parts.len(), 2);

    let bad = catalog.view(
        "count_items",
        CallToolResult::success(vec![ContentBlock::text(r#"{"total": 2, "items": [1]}"#)]),
    );
    let Err(ViewError::Invalid {
        source, violations, ..
    }) = bad.structured_value()
    else {
        panic!("expected a validation error");
    };
    assert!(matches!(source, StructuredSource::TextBlock(h) if h.index() == 0));
    assert_eq!(violations[0].instance_path, "/items/0");
}

#[test]
fn a_tool_with_an_output_schema_but_no_structured_value_is_missing() {
    let view = ResultView::with_tool(
        &counted_tool(),
        CallToolResult::success(vec![ContentBlock::text("Counted 2 items.")]),
    );
    assert_eq!(
        view.structured_value(),
        Err(ViewError::Missing {
            tool: "count_items".into()
        })
    );
    assert!(view.check_schema().is_err());
    assert_eq!(view.model_context().to_text(), "Counted 2 items.");
}

#[test]
fn a_one_megabyte_image_never_reaches_the_model_context() {
    let payload = one_megabyte_base64();
    assert_eq!(payload.len(), 1024 * 1024);
    let view = ResultView::new(CallToolResult::success(vec![
        ContentBlock::text("Here is the screenshot."),
        ContentBlock::image(payload.clone(), "image/png"),
    ]));

    let model = view.model_context();
    let text = model.to_text();
    assert!(text.len() < 200, "{} characters", text.len());
    assert!(!leaks(&text, &payload));
    assert_eq!(
        text,
        "Here is the screenshot.\n\n[image content[1]: image/png, 768.0 KB, data withheld]"
    );
    let ModelPart::Media {
        handle,
        kind,
        bytes,
        ..
    } = &model.parts[1]
    else {
        panic!("expected a media part, got {:?}", model.parts[1]);
    };
    assert_eq!(*kind, MediaKind::Image);
    assert_eq!(*bytes, 786_432);
    // The handle gives the data back, for the UI.
    assert_eq!(
        view.block(*handle)
            .and_then(|b| b.as_image())
            .unwrap()
            .data
            .len(),
        payload.len()
    );

    let user = view.user_display(&DisplayOptions::default()).to_text();
    assert!(user.len() < 200 && !leaks(&user, &payload), "{user}");
}

#[test]
fn audio_for_the_user_only_is_left_out_of_the_model_context() {
    let payload = one_megabyte_base64();
    let audio = AudioContent::new(payload.clone(), "audio/wav")
        .with_annotations(annotations(&[Role::User], None));
    let shared = AudioContent::new("UklGRg==", "audio/wav");
    let view = ResultView::new(CallToolResult::success(vec![
        ContentBlock::text("Recorded."),
        ContentBlock::Audio(audio),
        ContentBlock::Audio(shared),
    ]));
    let model = view.model_context().to_text();
    assert_eq!(
        model,
        "Recorded.\n\n[audio content[2]: audio/wav, 4 B, data withheld]"
    );
    assert!(!leaks(&model, &payload));

    let user = view.user_display(&DisplayOptions::default());
    assert_eq!(user.items.len(), 3);
    assert!(user.items[1].audience.is_user_only());
    assert!(matches!(
        user.items[1].body,
        DisplayBody::Media {
            kind: MediaKind::Audio,
            bytes: 786_432,
            ..
        }
    ));
}

#[test]
fn embedded_resources_keep_small_text_and_never_a_blob() {
    let blob = one_megabyte_base64();
    let big_text = "row,value\n".repeat(1000);
    let view = ResultView::new(CallToolResult::success(vec![
        ContentBlock::embedded_text("file:///notes.txt", "Small note."),
        ContentBlock::embedded_text("file:///big.csv", big_text.clone()),
        ContentBlock::Resource(EmbeddedResource::new(
            ResourceContents::BlobResourceContents {
                uri: "file:///report.pdf".into(),
                mime_type: Some("application/pdf".into()),
                blob: blob.clone(),
                meta: None,
            },
        )),
    ]));
    let model = view.model_context().to_text();
    assert!(model.contains("[resource content[0] <file:///notes.txt> (text/plain)]\nSmall note."));
    assert!(
        model.contains("[resource content[1] <file:///big.csv> (text/plain, 9.8 KB of text withheld; read it with resources/read if needed)]"),
        "{model}"
    );
    assert!(!model.contains("row,value"));
    assert!(
        model.contains("[resource content[2] <file:///report.pdf> (application/pdf, 768.0 KB binary, data withheld)]"),
        "{model}"
    );
    assert!(model.len() < 600 && !leaks(&model, &blob), "{model}");

    // A larger limit keeps the big text whole.
    let generous =
        view.model_context_with(&ModelOptions::default().embedded_text_max_chars(20_000));
    assert!(generous.to_text().contains(&big_text));

    let user = view
        .user_display(&DisplayOptions::budget(usize::MAX))
        .to_text();
    assert!(user.contains(&big_text) && !leaks(&user, &blob));
}

#[test]
fn resource_links_are_listed_for_resources_read() {
    let link = Resource::new("helpdesk://reports/q3.csv", "q3.csv")
        .with_title("Q3 ticket report")
        .with_mime_type("text/csv")
        .with_size(12 * 1024);
    let view = ResultView::new(CallToolResult::success(vec![
        ContentBlock::text("Report ready."),
        ContentBlock::resource_link(link),
        ContentBlock::resource_link(
            Resource::new("helpdesk://tickets/T-1", "T-1")
                .with_annotations(annotations(&[Role::User], None)),
        ),
    ]));
    let links = view.resource_links();
    assert_eq!(links.len(), 2);
    assert_eq!(links[0].uri, "helpdesk://reports/q3.csv");
    assert_eq!(links[0].name, "q3.csv");
    assert_eq!(links[0].mime_type.as_deref(), Some("text/csv"));
    assert_eq!(links[0].handle.index(), 1);
    assert_eq!(links[0].read_request().uri, "helpdesk://reports/q3.csv");
    assert!(links[1].audience.is_user_only());

    let model = view.model_context().to_text();
    assert_eq!(
        model,
        "Report ready.\n\n[resource_link q3.csv <helpdesk://reports/q3.csv> (text/csv, 12.0 KB): \
         Q3 ticket report; read it with resources/read if needed]"
    );
    let user = view.user_display(&DisplayOptions::default());
    assert!(matches!(&user.items[2].body, DisplayBody::ResourceLink(r) if r.name == "T-1"));
}

#[test]
fn audience_splits_the_model_context_from_the_user_display() {
    let view = ResultView::new(CallToolResult::success(vec![
        text_for("For everyone.", &[], None),
        text_for("Only for the user: 3 photos attached.", &[Role::User], None),
        text_for(
            "Only for the model: use ids, not titles.",
            &[Role::Assistant],
            None,
        ),
        text_for(
            "Both, said explicitly.",
            &[Role::User, Role::Assistant],
            None,
        ),
    ]));
    let model: Vec<String> = view.model_context().texts().map(str::to_owned).collect();
    assert_eq!(
        model,
        [
            "For everyone.",
            "Only for the model: use ids, not titles.",
            "Both, said explicitly."
        ]
    );
    let user = view.user_display(&DisplayOptions::default());
    assert_eq!(user.items.len(), 4, "every block is shown to the user");
    assert!(user
        .to_text()
        .contains("Only for the user: 3 photos attached."));
    assert!(user.items[2].audience.is_assistant_only());
}

#[test]
fn lowest_priority_blocks_collapse_first_under_the_budget() {
    let block = |letter: char| letter.to_string().repeat(500);
    let view = ResultView::new(CallToolResult::success(vec![
        text_for(&block('a'), &[], Some(0.9)),
        text_for(&block('b'), &[], Some(0.1)),
        text_for(&block('c'), &[], None),
        text_for(&block('d'), &[], Some(1.0)),
    ]));

    // Everything fits.
    let roomy = view.user_display(&DisplayOptions::budget(3000));
    assert!(roomy.items.iter().all(|i| !i.collapsed));
    assert_eq!(roomy.used_chars(), 4 * 500 + 3);

    // Room for two whole blocks: `b` (0.1) goes first, then `c` (no priority: 0.5).
    let tight = view.user_display(&DisplayOptions::budget(1300));
    let collapsed: Vec<bool> = tight.items.iter().map(|i| i.collapsed).collect();
    assert_eq!(collapsed, [false, true, true, false]);
    assert!(tight.used_chars() <= 1300);
    assert_eq!(tight.used_chars(), tight.to_text().chars().count());
    assert!(tight.to_text().contains(&block('a')) && tight.to_text().contains(&block('d')));
    assert!(tight.items[1].render().ends_with("[… 420 more characters]"));
    assert_eq!(tight.hidden, 0);

    // Highest priority first on request.
    let ranked = view.user_display(&DisplayOptions::budget(1300).order(DisplayOrder::Priority));
    let order: Vec<usize> = ranked
        .items
        .iter()
        .map(|i| i.handle.unwrap().index())
        .collect();
    assert_eq!(order, [3, 0, 2, 1]);

    // Not even the collapsed blocks fit: the lowest priorities are left out.
    let tiny = view.user_display(&DisplayOptions::budget(110));
    assert!(tiny.used_chars() <= 110);
    assert_eq!(tiny.hidden, 3);
    assert_eq!(tiny.items[0].handle.unwrap().index(), 3);
}

#[test]
fn a_plain_text_error_result_still_gives_an_error_view() {
    let view = ResultView::new(CallToolResult::error(vec![ContentBlock::text(
        "API rate limit exceeded. Try again later.",
    )]));
    let error = view.error().expect("isError result");
    assert_eq!(error.message, "API rate limit exceeded. Try again later.");
    assert!(error.details.is_none());
    assert!(!error.retry_safe(), "unknown retry safety means no");
    assert_eq!(
        error.render(),
        "Error: API rate limit exceeded. Try again later."
    );
    assert!(matches!(
        view.structured_value(),
        Err(ViewError::ToolFailed { .. })
    ));
    assert!(view.model_context().is_error);
}

#[test]
fn an_error_envelope_in_the_json_text_block_is_parsed() {
    // An older server: no structuredContent, the envelope only as JSON text, with an error
    // kind mcp-result does not define.
    let view = ResultView::new(CallToolResult::error(vec![
        ContentBlock::text("Slow down."),
        ContentBlock::text(
            r#"{"status": "failed", "errorKind": "rate_limited", "retrySafe": true,
                "message": "Too many requests.", "retryAfterMs": 1500,
                "fieldErrors": [{"pointer": "/q", "message": "too long"}, {"bad": 1}]}"#,
        ),
    ]));
    let error = view.error().unwrap();
    let details = error.details.as_ref().unwrap();
    assert_eq!(details.error_kind, "rate_limited");
    assert_eq!(details.kind(), None);
    assert_eq!(details.retry_after(), Some(Duration::from_millis(1500)));
    assert_eq!(details.field_errors.len(), 1);
    assert_eq!(details.field_errors[0].pointer, "/q");
    assert!(error.retry_safe());
    assert_eq!(error.message, "Too many requests.");
    assert_eq!(error.text, "Slow down.");
    assert!(matches!(
        error.details_source,
        Some(StructuredSource::TextBlock(h)) if h.index() == 1
    ));
}

#[test]
fn an_error_without_any_content_still_has_a_message() {
    let view = ResultView::new(CallToolResult::error(vec![]));
    let error = view.error().unwrap();
    assert!(
        error.message.contains("no explanation"),
        "{}",
        error.message
    );
    assert!(view.model_context().parts.is_empty());
    // A normal result is never an error view, whatever its text says.
    let fine = ResultView::new(CallToolResult::success(vec![ContentBlock::text(
        r#"{"errorKind": "not_found"}"#,
    )]));
    assert!(fine.error().is_none());
}

#[test]
fn a_wrapped_tool_whose_value_lacks_the_property_is_invalid() {
    // An outputSchema that admits any object, so only the wrap rule can catch it. (The wrap
    // is a fact of the served outputSchema: a tool without one has no wrap.)
    let output = ToolOutputSchema {
        success: schema(json!({"type": "object"})),
        envelope: None,
        wrapped: Some("result".into()),
    };
    let tool = output.write(Tool::new("ids", "Ids.", empty_input_schema()));
    let mut result = CallToolResult::success(vec![]);
    result.structured_content = Some(json!({"ids": ["a"]}));
    let view = ResultView::with_tool(&tool, result);
    let Err(ViewError::Invalid { violations, .. }) = view.structured_value() else {
        panic!("expected a validation error");
    };
    assert_eq!(violations[0].instance_path, "/result");
}

#[test]
fn an_output_schema_that_does_not_compile_is_reported_not_panicked() {
    let tool = Tool::new("odd", "Odd.", empty_input_schema())
        .with_raw_output_schema(schema(json!({"type": "object", "minProperties": "two"})));
    let mut result = CallToolResult::success(vec![ContentBlock::text("ok")]);
    result.structured_content = Some(json!({}));
    let view = ResultView::with_tool(&tool, result);
    let Err(ViewError::UnusableSchema { tool, message }) = view.structured_value() else {
        panic!(
            "expected an unusable schema, got {:?}",
            view.structured_value()
        );
    };
    assert_eq!(tool, "odd");
    assert!(!message.is_empty());
    assert_eq!(view.model_context().to_text(), "ok");
}

#[test]
fn an_invalid_priority_is_ignored() {
    let view = ResultView::new(CallToolResult::success(vec![text_for("x", &[], Some(7.0))]));
    let user = view.user_display(&DisplayOptions::default());
    assert_eq!(user.items[0].priority, None);
    assert_eq!(
        user.items[0].effective_priority(),
        mcp_result::view::DEFAULT_PRIORITY
    );
}

#[test]
fn image_annotations_are_kept_on_display_items() {
    let image = ImageContent::new("iVBORw0KGgo=", "image/png")
        .with_annotations(annotations(&[], Some(0.2)));
    let view = ResultView::new(CallToolResult::success(vec![ContentBlock::Image(image)]));
    let user = view.user_display(&DisplayOptions::default());
    assert_eq!(user.items[0].priority, Some(0.2));
    assert_eq!(user.to_text(), "[image content[0]: image/png, 8 B]");
}
