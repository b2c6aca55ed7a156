//! The types Rust authors write every day, served so that every client reads them right:
//! the example `examples/shapes.rs`, over stdio to the TypeScript SDK v1 and v2 clients and
//! the Python SDK 1.x and 2.x (the pinned drivers of `tests/clients/`), over HTTP and in
//! process to rmcp's client.
//!
//! - a `u64` id past 2^53 as a decimal string round-trips exactly (2^63 + 1), through
//!   `structuredContent`, the JSON text, the summary and `mcp_result::view`;
//! - a plain `u64` result field past 2^53 − 1 is refused as the result is built, naming the
//!   field and the way out, never sent rounded; its schema states the range that crosses;
//! - `serde_json::Value`, internally and adjacently tagged enums, a `#[serde(transparent)]`
//!   newtype and `Option<Args>` are callable arguments;
//! - a secret two levels down (map → list → option) sets `redactionApplied`;
//! - an argument past its Rust type's range (`f32` from `1e40`, a `u8` from 300) is a
//!   `validation_error` naming the field and the range;
//! - a schema only schemars can see is broken (an invalid `pattern`, an untagged enum of
//!   scalars) stops the server before it serves anything, with the tool, the place and the fix.

use crate::common;

#[allow(dead_code, unreachable_pub)]
#[path = "../examples/shapes.rs"]
mod shapes;

use std::{
    path::{Path, PathBuf},
    sync::Arc,
    thread,
    time::Duration,
};

use mcp_result::{
    http::{Anonymous, HttpOptions},
    mcp_handler, mcp_tools,
    rmcp::{
        model::CallToolRequestParams,
        transport::{
            streamable_http_client::StreamableHttpClientTransportConfig,
            StreamableHttpClientTransport,
        },
        ServerHandler, ServiceExt,
    },
    testing::TestServer,
    Identity, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use common::pinned::{command, install_npm, install_venv, run_ok, CLIENTS_DIR};

/// 2^63 + 1: far past what a double holds exactly.
const BIG_ID: &str = "9223372036854775809";

fn exactly(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// `structuredContent` as sent, error results included.
fn sent(view: &mcp_result::view::ResultView) -> Value {
    view.result()
        .structured_content
        .clone()
        .expect("structuredContent")
}

// ---------------------------------------------------------------------------------------
// In process: exact answers
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_wide_id_round_trips_as_a_decimal_string() {
    let server = TestServer::start(shapes::Shapes).await;
    let view = server.call("get_order", json!({"id": BIG_ID})).await;
    assert!(!view.is_error());
    assert_eq!(
        view.structured_value().unwrap(),
        &json!({"id": BIG_ID, "totalCents": 1250})
    );
    let order: shapes::Order = view.structured().unwrap();
    assert_eq!(order.id, (1u64 << 63) + 1);
    assert_eq!(
        common::text(view.result(), 0),
        format!("Order {BIG_ID}: 1250 cents")
    );
    assert_eq!(
        exactly(common::text(view.result(), 1)),
        json!({"id": BIG_ID, "totalCents": 1250})
    );
    // The schema says so, in arguments and in the result.
    let tool = server.tool("get_order");
    assert_eq!(
        tool.input_schema["properties"]["id"],
        json!({"type": "string", "pattern": "^-?(0|[1-9][0-9]*)$",
               "description": "The order's id, as its decimal digits."})
    );
    let output = serde_json::to_value(tool.output_schema.as_deref().unwrap()).unwrap();
    assert!(
        output
            .to_string()
            .contains(r#""pattern":"^-?(0|[1-9][0-9]*)$""#),
        "{output}"
    );

    // Not digits: a validation error at the field, before the tool runs.
    let view = server.call("get_order", json!({"id": "12e3"})).await;
    assert_eq!(view.error().unwrap().error_kind(), Some("validation_error"));
    assert_eq!(sent(&view)["fieldErrors"][0]["pointer"], json!("/id"));
    server.close().await;
}

#[tokio::test]
async fn a_plain_u64_past_the_safe_range_is_refused_not_rounded() {
    let server = TestServer::start(shapes::Shapes).await;
    let tool = server.tool("count");
    assert_eq!(
        tool.input_schema["properties"]["value"],
        json!({"type": "integer", "minimum": 0, "maximum": 9007199254740991u64})
    );
    let output = serde_json::to_value(tool.output_schema.as_deref().unwrap()).unwrap();
    assert!(
        !output.to_string().contains("18446744073709551615"),
        "{output}"
    );

    // 2^52 doubled is 2^53: one past the largest safe integer.
    let view = server
        .call("count", json!({"value": 4503599627370496u64}))
        .await;
    assert!(view.is_error());
    let structured = sent(&view);
    assert_eq!(structured["errorKind"], json!("internal"));
    let id = structured["correlationId"].as_str().unwrap();
    assert_eq!(
        structured["message"],
        json!(format!(
            "Internal error (correlation id {id}): the result field `/value` holds an integer \
             beyond ±9007199254740991 (2^53 − 1), which JSON clients would read rounded, so no \
             result was sent. The server must send this field as a decimal string \
             (`#[serde(with = \"mcp_result::DecimalString\")]`)."
        ))
    );
    // One below: answered as it is.
    let view = server
        .call("count", json!({"value": 4503599627370495u64}))
        .await;
    assert_eq!(
        view.structured_value().unwrap(),
        &json!({"value": 9007199254740990u64})
    );
    // An argument past the safe range never reaches the tool.
    let view = server
        .call("count", json!({"value": 9007199254740993u64}))
        .await;
    assert_eq!(view.error().unwrap().error_kind(), Some("validation_error"));
    assert_eq!(
        sent(&view)["fieldErrors"][0],
        json!({"pointer": "/value",
               "message": "9007199254740993 is greater than the maximum of 9007199254740991"})
    );
    server.close().await;
}

#[tokio::test]
async fn arguments_that_are_not_a_plain_struct_are_served() {
    let server = TestServer::start(shapes::Shapes).await;
    let what = |view: mcp_result::view::ResultView| {
        assert!(!view.is_error(), "{:?}", view.structured_value());
        view.structured_value().unwrap()["what"].clone()
    };
    assert_eq!(
        server.tool("echo").input_schema.as_ref(),
        &mcp_result::serde_json::Map::from_iter([("type".to_owned(), json!("object"))])
    );
    let view = server.call("echo", json!({"b": 1, "a": [2]})).await;
    assert_eq!(
        view.structured_value().unwrap(),
        &json!({"keys": ["a", "b"]})
    );
    let view = server.call("echo", json!({})).await;
    assert_eq!(view.structured_value().unwrap(), &json!({"keys": []}));

    // Internally tagged: advertised as one object, the tag's values an `enum`.
    let ticket = &server.tool("ticket").input_schema;
    assert_eq!(ticket["type"], json!("object"));
    assert_eq!(
        ticket["properties"]["action"],
        json!({"type": "string", "enum": ["open", "close"]})
    );
    assert_eq!(ticket["required"], json!(["action"]));
    assert!(!ticket.contains_key("oneOf") && !ticket.contains_key("anyOf"));
    assert_eq!(
        what(
            server
                .call("ticket", json!({"action": "open", "title": "Printer"}))
                .await
        ),
        json!("opened Printer")
    );
    assert_eq!(
        what(
            server
                .call("ticket", json!({"action": "close", "id": "T-1"}))
                .await
        ),
        json!("closed T-1 (no reason)")
    );
    // Validated against the full union: a close without its id is refused.
    let view = server.call("ticket", json!({"action": "close"})).await;
    assert_eq!(view.error().unwrap().error_kind(), Some("validation_error"));

    // Adjacently tagged.
    assert_eq!(
        what(
            server
                .call("set", json!({"kind": "limit", "value": 5}))
                .await
        ),
        json!("limit 5")
    );
    assert_eq!(
        what(
            server
                .call("set", json!({"kind": "retries", "value": 3}))
                .await
        ),
        json!("retries 3")
    );
    // A transparent newtype over a struct.
    assert_eq!(
        server.tool("list").input_schema["required"],
        json!(["limit"])
    );
    assert_eq!(
        what(server.call("list", json!({"limit": 3})).await),
        json!("listed 3")
    );
    // `Option<Args>`: absent or `{}` is `None`; nothing is advertised as required.
    assert!(!server.tool("status").input_schema.contains_key("required"));
    let none = server
        .client()
        .call_tool(CallToolRequestParams::new("status"))
        .await
        .unwrap();
    assert_eq!(
        none.structured_content,
        Some(json!({"what": "status of everything"}))
    );
    assert_eq!(
        what(server.call("status", json!({})).await),
        json!("status of everything")
    );
    assert_eq!(
        what(server.call("status", json!({"limit": 2})).await),
        json!("status of 2")
    );
    server.close().await;
}

#[tokio::test]
async fn a_secret_two_levels_down_sets_redaction_applied() {
    let server = TestServer::start(shapes::Shapes).await;
    let view = server.call("upstreams", json!({})).await;
    assert_eq!(
        view.structured_value().unwrap(),
        &json!({"byRegion": {"eu": [{"name": "db1", "credentials": {"user": "svc"}}]},
                "redactionApplied": true})
    );
    assert!(!serde_json::to_string(view.structured_value().unwrap())
        .unwrap()
        .contains("tok-123"));
    server.close().await;
}

/// Numbers past their Rust type.
#[derive(Deserialize, JsonSchema)]
struct Narrow {
    ratio: f32,
    level: u8,
}

/// Measured.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Measured {
    ratio: f32,
}

/// The arguments of `ids`.
#[derive(Deserialize, JsonSchema)]
struct IdsArgs {
    last: u64,
}

/// Pages of ids.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Listed {
    pages: Vec<IdPage>,
}

#[derive(Serialize, JsonSchema)]
struct IdPage {
    ids: Vec<u64>,
}

#[derive(Clone)]
struct Meter;

#[mcp_tools]
impl Meter {
    /// Lists ids: a sync tool with optional arguments and the ids two levels down.
    #[mcp_tool(read_only)]
    fn ids(&self, args: Option<IdsArgs>) -> Listed {
        Listed {
            pages: vec![IdPage {
                ids: vec![1, args.map_or(2, |args| args.last)],
            }],
        }
    }

    /// Measures.
    #[mcp_tool(read_only)]
    async fn measure(&self, args: Narrow) -> Result<Measured, ToolError> {
        Ok(Measured {
            ratio: args.ratio * f32::from(args.level),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Meter {}

#[tokio::test]
async fn a_sync_tool_with_optional_arguments_refuses_a_nested_wide_integer() {
    let server = TestServer::start(Meter).await;
    for _ in 0..2 {
        let view = server.call("ids", json!({})).await;
        assert_eq!(
            view.structured_value().unwrap(),
            &json!({"pages": [{"ids": [1, 2]}]})
        );
    }
    // 2^53 − 1 crosses; the argument's own range stops anything larger before the tool.
    let view = server
        .call("ids", json!({"last": 9007199254740991u64}))
        .await;
    assert_eq!(
        view.structured_value().unwrap(),
        &json!({"pages": [{"ids": [1, 9007199254740991u64]}]})
    );
    server.close().await;

    // Built outside a call: the same refusal, at the nested field.
    let refused = mcp_result::build_result(&Listed {
        pages: vec![IdPage {
            ids: vec![1, 1 << 53],
        }],
    });
    assert_eq!(refused.is_error, Some(true));
    let message = refused.structured_content.unwrap()["message"].clone();
    assert!(
        message
            .as_str()
            .unwrap()
            .contains("the result field `/pages/0/ids/1` holds an integer beyond"),
        "{message}"
    );
}

#[tokio::test]
async fn an_argument_past_its_type_is_a_validation_error() {
    let server = TestServer::start(Meter).await;
    let view = server
        .call("measure", json!({"ratio": 1e40, "level": 300}))
        .await;
    assert_eq!(view.error().unwrap().error_kind(), Some("validation_error"));
    assert_eq!(
        sent(&view)["fieldErrors"],
        json!([
            {"pointer": "/ratio",
             "message": "1e+40 is greater than the maximum of 3.4028234663852886e+38"},
            {"pointer": "/level", "message": "300 is greater than the maximum of 255"},
        ])
    );
    let view = server
        .call("measure", json!({"ratio": 0.5, "level": 2}))
        .await;
    assert_eq!(view.structured_value().unwrap(), &json!({"ratio": 1.0}));
    server.close().await;
}

// ---------------------------------------------------------------------------------------
// Broken schemas stop the server before it serves
// ---------------------------------------------------------------------------------------

#[derive(Deserialize, JsonSchema)]
struct Coded {
    #[schemars(regex(pattern = "[A-Z"))]
    #[allow(dead_code)]
    code: String,
}

/// Found.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    ok: bool,
}

#[derive(Clone)]
struct BadPattern;

#[mcp_tools]
impl BadPattern {
    /// Looks a code up.
    #[mcp_tool(read_only)]
    async fn lookup(&self, _args: Coded) -> Result<Found, ToolError> {
        Ok(Found { ok: true })
    }
}

#[mcp_handler]
impl ServerHandler for BadPattern {}

/// A number or a word: an untagged enum of scalars, never an object.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum NumberOrWord {
    Number(u32),
    Word(String),
}

#[derive(Clone)]
struct Scalars;

#[mcp_tools]
impl Scalars {
    /// Takes a number or a word.
    #[mcp_tool(read_only)]
    async fn take(&self, _args: NumberOrWord) -> Result<Found, ToolError> {
        Ok(Found { ok: true })
    }
}

#[mcp_handler]
impl ServerHandler for Scalars {}

#[derive(Deserialize, JsonSchema)]
struct Routed {
    #[schemars(extend("x-mcp-header" = "My Region"))]
    #[allow(dead_code)]
    region: String,
}

#[derive(Clone)]
struct OptionalNumber;

#[mcp_tools]
impl OptionalNumber {
    /// Takes a number, or nothing.
    #[mcp_tool(read_only)]
    fn take(&self, _args: Option<u32>) -> Found {
        Found { ok: true }
    }
}

#[mcp_handler]
impl ServerHandler for OptionalNumber {}

#[derive(Clone)]
struct BadHeader;

#[mcp_tools]
impl BadHeader {
    /// Runs in a region.
    #[mcp_tool(read_only)]
    async fn run(&self, _args: Routed) -> Result<Found, ToolError> {
        Ok(Found { ok: true })
    }
}

#[mcp_handler]
impl ServerHandler for BadHeader {}

#[tokio::test]
async fn a_broken_argument_schema_stops_the_server_before_it_serves() {
    // `Option` of what is never an object keeps its root: refused, not made `{}`-only.
    let (server_io, _client) = tokio::io::duplex(1 << 10);
    let stopped = mcp_result::serve(OptionalNumber, server_io)
        .await
        .unwrap_err();
    assert!(
        stopped.to_string().starts_with(
            "tool `take`: the arguments type `Nullable_uint32` has a schema root of \
             `type: [\"integer\",\"null\"]`, not an object"
        ),
        "{stopped}"
    );
    let (server_io, _client) = tokio::io::duplex(1 << 10);
    let stopped = mcp_result::serve(BadHeader, server_io).await.unwrap_err();
    assert_eq!(
        stopped.to_string(),
        "tool `run`: argument `region`: `x-mcp-header = \"My Region\"` is not an HTTP header \
         name token (RFC 9110: letters, digits and !#$%&'*+-.^_`|~, no spaces or colons); \
         clients drop the tool (SEP-2243): name it like `Region`"
    );

    let refusal = |stopped: Box<dyn std::error::Error + Send + Sync>| stopped.to_string();
    let (server_io, _client) = tokio::io::duplex(1 << 10);
    let stopped = tokio::time::timeout(
        Duration::from_secs(5),
        mcp_result::serve(BadPattern, server_io),
    )
    .await
    .expect("refused at once, not after a message")
    .unwrap_err();
    assert_eq!(
        refusal(stopped),
        "tool `lookup`: its inputSchema does not compile: `/properties/code/pattern`: \"[A-Z\" \
         is not a \"regex\"; a `pattern` must be a regular expression in the ECMA-262 dialect \
         JSON Schema uses (MCP clients compile it with JavaScript's `RegExp`): fix the \
         `#[schemars(regex(pattern = ...))]` or `#[validate(regex(...))]` of that field"
    );

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let stopped = mcp_result::http::serve_http(
        Scalars,
        listener,
        Arc::new(Anonymous::new(Identity::new("local"))),
        HttpOptions::default(),
        std::future::pending(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        refusal(stopped),
        "tool `take`: the arguments type `NumberOrWord` has a schema root of a union with a \
         branch that is not an object (an untagged enum with a scalar variant), not an \
         object; MCP sends a tool's arguments as a JSON object: put the value in a named \
         field of a struct that derives `Deserialize` and `JsonSchema` (`struct Args { value: \
         ... }`), or tag the enum (`#[serde(tag = \"kind\")]`); any JSON object is \
         `serde_json::Value`"
    );
}

// ---------------------------------------------------------------------------------------
// Over HTTP, to rmcp's client
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn over_http_the_shapes_answer_the_same() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        mcp_result::http::serve_http(
            shapes::Shapes,
            listener,
            Arc::new(Anonymous::new(Identity::new("local"))),
            HttpOptions::default(),
            std::future::pending(),
        )
        .await
        .unwrap();
    });
    let transport = StreamableHttpClientTransport::with_client(
        reqwest::Client::new(),
        StreamableHttpClientTransportConfig::with_uri(url.as_str()),
    );
    let client = ().serve(transport).await.unwrap();
    let call = |name: &'static str, arguments: Value| {
        let client = &client;
        async move {
            let mut params = CallToolRequestParams::new(name);
            if let Value::Object(arguments) = arguments {
                params = params.with_arguments(arguments);
            }
            serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap()
        }
    };
    let order = call("get_order", json!({"id": BIG_ID})).await;
    assert_eq!(order["structuredContent"]["id"], json!(BIG_ID));
    assert_eq!(
        exactly(order["content"][1]["text"].as_str().unwrap()),
        json!({"id": BIG_ID, "totalCents": 1250})
    );
    let refused = call("count", json!({"value": 4503599627370496u64})).await;
    assert_eq!(refused["isError"], json!(true));
    assert!(refused["structuredContent"]["message"]
        .as_str()
        .unwrap()
        .contains("`/value`"));
    let ticket = call(
        "ticket",
        json!({"action": "close", "id": "T-9", "reason": "done"}),
    )
    .await;
    assert_eq!(
        ticket["structuredContent"],
        json!({"what": "closed T-9 (done)"})
    );
    let status = call("status", Value::Null).await;
    assert_eq!(
        status["structuredContent"],
        json!({"what": "status of everything"})
    );
    let echo = call("echo", json!({"z": null})).await;
    assert_eq!(echo["structuredContent"], json!({"keys": ["z"]}));
    let upstreams = call("upstreams", json!({})).await;
    assert_eq!(
        upstreams["structuredContent"]["redactionApplied"],
        json!(true)
    );
    client.cancel().await.unwrap();
}

// ---------------------------------------------------------------------------------------
// Real clients over stdio
// ---------------------------------------------------------------------------------------

/// The calls every client makes, and what `structuredContent` must be (exactly).
fn plan() -> Vec<(&'static str, &'static str, Value, Value)> {
    vec![
        (
            "wide id",
            "get_order",
            json!({"id": BIG_ID}),
            json!({"id": BIG_ID, "totalCents": 1250}),
        ),
        (
            "free-form",
            "echo",
            json!({"b": 1, "a": [2]}),
            json!({"keys": ["a", "b"]}),
        ),
        (
            "internally tagged",
            "ticket",
            json!({"action": "close", "id": "T-1"}),
            json!({"what": "closed T-1 (no reason)"}),
        ),
        (
            "adjacently tagged",
            "set",
            json!({"kind": "limit", "value": 5}),
            json!({"what": "limit 5"}),
        ),
        (
            "transparent",
            "list",
            json!({"limit": 3}),
            json!({"what": "listed 3"}),
        ),
        (
            "optional, none",
            "status",
            json!({}),
            json!({"what": "status of everything"}),
        ),
        (
            "optional, some",
            "status",
            json!({"limit": 2}),
            json!({"what": "status of 2"}),
        ),
        (
            "nested secret",
            "upstreams",
            json!({}),
            json!({"byRegion": {"eu": [{"name": "db1", "credentials": {"user": "svc"}}]},
                   "redactionApplied": true}),
        ),
    ]
}

#[test]
fn released_clients_read_every_shape_exactly() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("shapes");
    std::fs::create_dir_all(&work).unwrap();
    let installs = thread::scope(|s| {
        let npm = s.spawn(install_npm);
        let py1 = s.spawn(|| install_venv(1));
        let py2 = s.spawn(|| install_venv(2));
        [npm, py1, py2].map(|h| h.join().expect("installer thread"))
    });
    for install in installs {
        install.expect("installing the pinned MCP clients");
    }
    let server = common::example_path("shapes")
        .to_string_lossy()
        .into_owned();
    let calls: Vec<Value> = plan()
        .iter()
        .map(|(id, tool, arguments, _)| json!({"id": id, "tool": tool, "arguments": arguments}))
        .chain([json!({"id": "past 2^53", "tool": "count",
                       "arguments": {"value": 4503599627370496u64}})])
        .collect();
    let venv = |n: u8| format!("{CLIENTS_DIR}/.venv-mcp{n}/bin/python");
    let drivers = [
        ("TypeScript SDK 1", "node".to_owned(), "ts-sdk-1.mjs"),
        ("TypeScript client 2", "node".to_owned(), "ts-client-2.mjs"),
        ("Python mcp 1", venv(1), "py_driver.py"),
        ("Python mcp 2", venv(2), "py_driver.py"),
    ];
    for (name, program, script) in &drivers {
        let slug = script.trim_end_matches(".mjs").trim_end_matches(".py");
        let slug = format!("{slug}-{}", program.len());
        let job = json!({
            "timeoutMs": 20_000,
            "workDir": work.join(format!("{slug}-home")),
            "concurrency": 1,
            "runs": [{
                "key": "shapes",
                "protocol": "2025-11-25",
                "connect": "legacy",
                "command": server,
                "args": [],
                "serverEnv": {},
                "calls": calls,
            }],
        });
        let job_path = work.join(format!("{slug}-job.json"));
        let report_path = work.join(format!("{slug}-report.json"));
        let _ = std::fs::remove_file(&report_path);
        std::fs::write(&job_path, serde_json::to_string_pretty(&job).unwrap()).unwrap();
        let mut cmd = command(
            program,
            &[
                script,
                &job_path.to_string_lossy(),
                &report_path.to_string_lossy(),
            ],
            Path::new(CLIENTS_DIR),
        );
        cmd.env("PYTHONDONTWRITEBYTECODE", "1").env("NO_COLOR", "1");
        run_ok(name, cmd, Duration::from_secs(180)).unwrap();
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
        let run = &report["runs"][0];
        assert_eq!(run["connectError"], Value::Null, "{name}: {run}");
        assert_eq!(run["listError"], Value::Null, "{name}: {run}");
        let recorded = run["calls"].as_array().unwrap();
        for (id, _, _, expected) in plan() {
            let call = recorded
                .iter()
                .find(|c| c["id"] == id)
                .unwrap_or_else(|| panic!("{name}: no record of `{id}`: {run}"));
            let result = &call["result"];
            assert_eq!(result["isError"], json!(false), "{name} `{id}`: {call}");
            assert_eq!(
                result["structuredContent"], expected,
                "{name} `{id}`: {call}"
            );
            // The JSON text, parsed by the client's own JSON, says the same.
            let texts: Vec<&str> = result["content"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|block| block["text"].as_str())
                .collect();
            assert_eq!(exactly(texts[1]), expected, "{name} `{id}`");
        }
        let refused = recorded.iter().find(|c| c["id"] == "past 2^53").unwrap();
        assert_eq!(
            refused["result"]["isError"],
            json!(true),
            "{name}: {refused}"
        );
        assert!(
            refused["result"]["structuredContent"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("the result field `/value` holds an integer")),
            "{name}: {refused}"
        );
        eprintln!("{name} ({}): every shape read exactly", report["client"]);
    }
}
