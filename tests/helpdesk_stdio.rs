//! The example server, spawned as a child process, answering rmcp's client over stdio.

use crate::common;

use common::*;
use std::sync::Arc;

use mcp_result::{
    rmcp::{model::CallToolRequestParams, model::ErrorCode, ServiceError},
    schema::ToolOutputSchema,
};
use serde_json::{json, Value};

/// Every success and error result the server produces for `tools/call`s that reach a tool.
fn calls() -> Vec<(&'static str, Value, bool)> {
    vec![
        ("search_tickets", json!({"query": "login"}), false),
        (
            "search_tickets",
            json!({"query": "nothing matches this"}),
            false,
        ),
        (
            "search_tickets",
            json!({"query": "", "minSeverity": "critical", "pageSize": 1}),
            false,
        ),
        ("list_ticket_ids", json!({}), false),
        ("get_ticket", json!({"ticketId": "T-1002"}), false),
        ("get_ticket", json!({"ticketId": "T-0000"}), true),
        (
            "add_internal_note",
            json!({"ticketId": "T-1003", "body": "Looked at the p95."}),
            false,
        ),
        (
            "add_internal_note",
            json!({"ticketId": "T-1004", "body": "x"}),
            true,
        ),
        ("search_tickets", json!({"query": 7}), true),
        ("lookup_customer", json!({"customerId": "C-200"}), false),
        ("lookup_customer", json!({"customerId": "C-404"}), true),
        ("lookup_customer", json!({"customerId": "C-SLOW"}), true),
        ("billing_import_dry_run", json!({"rows": 10}), false),
        ("get_attachment", json!({"ticketId": "T-1001"}), false),
        ("get_attachment", json!({"ticketId": "T-0"}), true),
    ]
}

#[tokio::test]
async fn every_output_schema_is_a_valid_2020_12_object_schema() {
    let client = connect("helpdesk").await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "search_tickets",
            "list_ticket_ids",
            "get_ticket",
            "lookup_customer",
            "add_internal_note",
            "close_ticket",
            "email_transcript",
            "billing_import_dry_run",
            "get_attachment"
        ]
    );
    for tool in &tools {
        let schema = output_schema(tool);
        assert_eq!(
            schema["type"], "object",
            "{}: root must be an object",
            tool.name
        );
        assert!(schema.get("$schema").is_none(), "{}: no $schema", tool.name);
        if let Err(error) = jsonschema::draft202012::meta::validate(&schema) {
            panic!("{}: outputSchema is not valid 2020-12: {error}", tool.name);
        }
        let input = serde_json::to_value(&*tool.input_schema).unwrap();
        assert_eq!(input["type"], "object", "{}: inputSchema root", tool.name);
        jsonschema::draft202012::meta::validate(&input).unwrap();
        assert!(tool.description.as_deref().is_some_and(|d| !d.is_empty()));
    }
    let search = tool(&tools, "search_tickets");
    assert_eq!(
        search.annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );
    let note = tool(&tools, "add_internal_note");
    assert_eq!(
        note.annotations.as_ref().unwrap().read_only_hint,
        Some(false)
    );
    assert_eq!(
        note.annotations.as_ref().unwrap().destructive_hint,
        Some(false)
    );
    client.cancel().await.unwrap();
}

/// The byte budget of the error envelope in `tools/list` (issues 21 and 50): each tool's
/// `outputSchema` grows by at most 250 bytes of compact JSON for accepting error results
/// (against the same tool served with its success schema alone), and the whole list is at
/// most 1.2× the success-only list.
#[tokio::test]
async fn the_error_envelope_costs_at_most_250_bytes_a_tool_in_tools_list() {
    let client = connect("helpdesk").await;
    let tools = client.list_all_tools().await.unwrap();
    fn bytes(value: &impl serde::Serialize) -> usize {
        serde_json::to_vec(value).unwrap().len()
    }
    let mut success_only = Vec::new();
    for tool in &tools {
        let served = ToolOutputSchema::read(tool).expect("an outputSchema");
        assert!(served.envelope.is_some(), "{}: no envelope", tool.name);
        let (bare, _) = ToolOutputSchema {
            envelope: None,
            ..served
        }
        .to_served();
        let cost = bytes(&**tool.output_schema.as_ref().unwrap()) - bytes(&bare);
        assert!(
            cost <= 250,
            "{}: the envelope adds {cost} bytes to the outputSchema",
            tool.name
        );
        let mut bare_tool = tool.clone();
        bare_tool.output_schema = Some(Arc::new(bare));
        success_only.push(bare_tool);
    }
    // The guide's contract chapter shows the advertised envelope as it is served.
    let chapter = include_str!("../docs/guide/01-contract.md");
    let section = &chapter[chapter
        .find("## The error envelope, advertised lean")
        .unwrap()..];
    let block = &section[section.find("```json\n").unwrap() + 8..];
    let shown: Value = serde_json::from_str(&block[..block.find("```").unwrap()]).unwrap();
    for tool in &tools {
        assert_eq!(output_schema(tool)["anyOf"][1], shown, "{}", tool.name);
    }
    let (listed, bare) = (bytes(&tools), bytes(&success_only));
    assert!(
        listed * 10 <= bare * 12,
        "tools/list is {listed} bytes, {:.2}× the {bare} bytes with success-only schemas",
        listed as f64 / bare as f64
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn structured_content_validates_and_compat_text_equals_it() {
    let client = connect("helpdesk").await;
    let tools = client.list_all_tools().await.unwrap();
    for (name, arguments, is_error) in calls() {
        let result = call(&client, name, arguments.clone()).await.unwrap();
        let label = format!("{name} {arguments}");
        assert_eq!(result.is_error, Some(is_error), "{label}");
        let structured = result
            .structured_content
            .clone()
            .expect("structuredContent");
        assert!(structured.is_object(), "{label}");
        let errors = schema_errors(&output_schema(tool(&tools, name)), &structured);
        assert!(errors.is_empty(), "{label}: {errors:?}");
        // Summary first, JSON-compat text second (the default content mode), then the
        // blocks of artifacts and media, if any.
        assert!(result.content.len() >= 2, "{label}");
        assert!(
            result.content[..2].iter().all(|b| b.as_text().is_some()),
            "{label}"
        );
        let extra = result.content.len() - 2;
        let expected_extra =
            usize::from(matches!(name, "billing_import_dry_run" | "get_attachment") && !is_error);
        assert_eq!(extra, expected_extra, "{label}");
        let compat = text(&result, 1);
        let parsed: Value = serde_json::from_str(compat).unwrap();
        assert_eq!(parsed, structured, "{label}");
        // Key order included: the compat text is byte-identical to re-serializing the value.
        assert_eq!(
            compat,
            serde_json::to_string(&structured).unwrap(),
            "{label}"
        );
        assert!(!text(&result, 0).is_empty());
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn summaries_contain_the_values_their_templates_name() {
    let client = connect("helpdesk").await;
    let search = call(&client, "search_tickets", json!({"query": "login"}))
        .await
        .unwrap();
    let structured = search.structured_content.clone().unwrap();
    assert_eq!(structured["items"][0]["severity"], "high");
    assert_eq!(structured["totalEstimate"], 2);
    assert_eq!(text(&search, 0), "Showing 1–2 of 2; this is the last page.");

    let none = call(&client, "search_tickets", json!({"query": "zzz"}))
        .await
        .unwrap();
    assert_eq!(text(&none, 0), "No items.");

    let note = call(
        &client,
        "add_internal_note",
        json!({"ticketId": "T-1002", "body": "b"}),
    )
    .await
    .unwrap();
    let s = note.structured_content.clone().unwrap();
    let summary = text(&note, 0);
    for key in ["noteId", "ticketId", "status", "auditEventId"] {
        let value = s[key].as_str().unwrap();
        assert!(
            summary.contains(value),
            "summary {summary:?} lacks {key} = {value}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn unknown_tool_is_json_rpc_invalid_params() {
    let client = connect("helpdesk").await;
    let error = client
        .call_tool(CallToolRequestParams::new("drop_tables"))
        .await
        .expect_err("an unknown tool is a protocol error, not a result");
    match error {
        ServiceError::McpError(data) => {
            assert_eq!(data.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(data.code.0, -32602);
            assert_eq!(data.message, "unknown tool: drop_tables");
        }
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn wrong_argument_type_is_a_validation_error_result_naming_the_field() {
    let client = connect("helpdesk").await;
    let result = call(&client, "get_ticket", json!({"ticketId": 1004}))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result.structured_content.clone().unwrap(),
        json!({
            "status": "failed",
            "errorKind": "validation_error",
            "retrySafe": true,
            "message": "Invalid argument `/ticketId`: 1004 is not of type \"string\". Fix it and call again.",
            "fieldErrors": [{"pointer": "/ticketId", "message": "1004 is not of type \"string\""}]
        })
    );
    assert_eq!(
        text(&result, 0),
        "Error (validation_error): Invalid argument `/ticketId`: 1004 is not of type \"string\". Fix it and call again."
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn missing_argument_is_a_validation_error_result_naming_the_field() {
    let client = connect("helpdesk").await;
    let result = call(&client, "add_internal_note", json!({"body": "orphan note"}))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result.structured_content.unwrap(),
        json!({
            "status": "failed",
            "errorKind": "validation_error",
            "retrySafe": true,
            "message": "Invalid argument `/ticketId`: required field is missing. Fix it and call again.",
            "fieldErrors": [{"pointer": "/ticketId", "message": "required field is missing"}]
        })
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn every_failing_argument_is_reported_at_once() {
    let client = connect("helpdesk").await;
    let result = call(
        &client,
        "search_tickets",
        json!({"query": 3, "minSeverity": "urgent", "pageSize": 0}),
    )
    .await
    .unwrap();
    assert_eq!(result.is_error, Some(true));
    let structured = result.structured_content.unwrap();
    let pointers: Vec<&str> = structured["fieldErrors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["pointer"].as_str().unwrap())
        .collect();
    assert_eq!(pointers, ["/query", "/minSeverity", "/pageSize"]);
    assert_eq!(
        structured["message"],
        "3 arguments are invalid. Fix all of them and call again."
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn write_tools_return_and_require_the_write_contract() {
    let client = connect("helpdesk").await;
    let tools = client.list_all_tools().await.unwrap();
    let write_tools: Vec<_> = tools
        .iter()
        .filter(|t| t.annotations.as_ref().and_then(|a| a.read_only_hint) != Some(true))
        .collect();
    assert_eq!(write_tools.len(), 3, "the example has three write tools");
    for tool in write_tools {
        let schema = output_schema(tool);
        let success = &schema["anyOf"][0];
        let required: Vec<&str> = success["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for key in ["status", "retrySafe", "auditEventId"] {
            assert!(
                required.contains(&key),
                "{}: `{key}` not required in {required:?}",
                tool.name
            );
        }
        assert_eq!(success["properties"]["retrySafe"]["type"], "boolean");
        assert_eq!(success["properties"]["auditEventId"]["type"], "string");
    }
    let result = call(
        &client,
        "add_internal_note",
        json!({"ticketId": "T-1005", "body": "ok"}),
    )
    .await
    .unwrap();
    let structured = result.structured_content.unwrap();
    assert_eq!(structured["status"], "succeeded");
    assert_eq!(structured["retrySafe"], false);
    // The framework's audit event: a UUIDv7.
    let audit_event_id = structured["auditEventId"].as_str().unwrap();
    assert_eq!(audit_event_id.len(), 36, "{audit_event_id}");
    assert_eq!(&audit_event_id[14..15], "7", "{audit_event_id}");
    // A locked ticket: the policy blocks the write; the error envelope says `blocked`.
    let blocked = call(
        &client,
        "add_internal_note",
        json!({"ticketId": "T-1004", "body": "x"}),
    )
    .await
    .unwrap();
    assert_eq!(blocked.is_error, Some(true));
    let envelope = blocked.structured_content.unwrap();
    assert_eq!(envelope["status"], "blocked");
    assert_eq!(envelope["errorKind"], "policy_blocked");
    // The tool's own refusal, from a write without an idempotency key: `false` unless the
    // tool says (the framework cannot know that nothing was written).
    assert_eq!(envelope["retrySafe"], false);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_crm_token_is_withheld_and_the_result_says_so() {
    let client = connect("helpdesk").await;
    let tools = client.list_all_tools().await.unwrap();
    let schema = output_schema(tool(&tools, "lookup_customer")).to_string();
    assert!(
        !schema.contains("apiToken") && !schema.contains("api_token"),
        "{schema}"
    );
    let result = call(&client, "lookup_customer", json!({"customerId": "C-100"}))
        .await
        .unwrap();
    let wire = serde_json::to_string(&result).unwrap();
    assert!(!wire.contains("crm-token"), "the token leaked: {wire}");
    assert_eq!(result.structured_content.unwrap()["redactionApplied"], true);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_non_object_result_is_wrapped_and_the_tool_says_so() {
    let client = connect("helpdesk").await;
    let tools = client.list_all_tools().await.unwrap();
    let ids = tool(&tools, "list_ticket_ids");
    let meta = ids.meta.as_ref().expect("_meta on a wrapped tool");
    assert_eq!(
        meta.0.get("io.github.mcp-result/wrapped"),
        Some(&json!("result"))
    );
    assert!(
        tool(&tools, "search_tickets")
            .meta
            .as_ref()
            .is_none_or(|meta| !meta.0.contains_key("io.github.mcp-result/wrapped")),
        "objects are not wrapped"
    );
    let schema = output_schema(ids);
    assert_eq!(schema["anyOf"][0]["required"], json!(["result"]));
    let result = call(&client, "list_ticket_ids", json!({})).await.unwrap();
    assert_eq!(
        result.structured_content.clone().unwrap(),
        json!({"result": ["T-1001", "T-1002", "T-1003", "T-1004", "T-1005"]})
    );
    assert_eq!(text(&result, 0), "Result: 5 items");
    client.cancel().await.unwrap();
}

/// The example over stdio with `--store sqlite:PATH`.
#[cfg(feature = "sqlite")]
async fn connect_with_store(url: &str) -> Client {
    let mut command = tokio::process::Command::new(example_path("helpdesk"));
    command.args(["--store", url]).kill_on_drop(true);
    use mcp_result::rmcp::ServiceExt as _;
    ().serve(mcp_result::rmcp::transport::TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
}

#[cfg(feature = "sqlite")]
#[tokio::test]
async fn with_a_sqlite_store_the_desk_keeps_its_state_across_restarts() {
    let dir = std::env::temp_dir().join(format!("helpdesk-sqlite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite:{}", dir.join("desk.db").display());
    let note = json!({"ticketId": "T-1002", "body": "Kept.", "requestId": "keep-1"});

    let client = connect_with_store(&url).await;
    let first = call(&client, "add_internal_note", note.clone())
        .await
        .unwrap();
    assert_eq!(
        first.structured_content.as_ref().unwrap()["status"],
        "succeeded"
    );
    client.cancel().await.unwrap();

    // A new process on the same file: the note is there, the keyed retry is its replay.
    let client = connect_with_store(&url).await;
    let again = call(&client, "add_internal_note", note).await.unwrap();
    assert_eq!(again.structured_content, first.structured_content);
    let ticket = call(&client, "get_ticket", json!({"ticketId": "T-1002"}))
        .await
        .unwrap();
    assert_eq!(
        ticket.structured_content.unwrap()["notes"],
        json!(["Kept."]),
        "one note, kept across the restart, not added twice"
    );
    client.cancel().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

/// `demo` prints only what it demonstrates: `tools/list` and the calls, and no log line of its
/// own or of the server it starts (logs only with `RUST_LOG`).
#[test]
fn the_demo_prints_only_the_demo() {
    let demo = std::process::Command::new(example_path("helpdesk"))
        .arg("demo")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(
        demo.status.success(),
        "{}",
        String::from_utf8_lossy(&demo.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&demo.stderr), "");
    let out = String::from_utf8(demo.stdout).unwrap();
    assert!(
        out.starts_with("=== tools/list\n"),
        "{}",
        &out[..out.len().min(200)]
    );
    assert!(out.contains("=== tools/call get_ticket {\"ticketId\":\"T-9999\"}"));
}

/// `--help` says how to run the example, and exits 0; an unknown command points at it.
#[test]
fn the_example_says_how_to_run_it() {
    let help = std::process::Command::new(example_path("helpdesk"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(help.status.success());
    let text = String::from_utf8(help.stdout).unwrap();
    for part in [
        "Usage:",
        "helpdesk demo",
        "--store URL",
        "--http ADDRESS",
        "MCP_RESULT_SERVER_KEY",
    ] {
        assert!(text.contains(part), "{part} in:\n{text}");
    }
    let unknown = std::process::Command::new(example_path("helpdesk"))
        .arg("srve")
        .output()
        .unwrap();
    assert!(!unknown.status.success());
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("unknown command `srve`"),
        "{}",
        String::from_utf8_lossy(&unknown.stderr)
    );
}
