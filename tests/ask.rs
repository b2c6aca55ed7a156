//! A tool's own questions (`Ask`), log messages (`Log`), plain content (`Unstructured`) and
//! protocol errors (`ToolError::protocol`), written as the guide teaches and served by rmcp:
//!
//! - rmcp's own client answers a form on MCP 2026-07-28 (an input-required round, the tool
//!   run again) and on 2025-11-25 (elicitation during the call): the same answer both ways;
//! - raw 2026-07-28 requests give each input its exact answer: the first round, a state
//!   altered by the client (`-32602`), an answer of the wrong shape (asked again), a
//!   state replayed for other arguments, a client without the capability (`-32021`);
//! - `Log` sends nothing without the call's `logLevel`, and only what reaches it;
//! - a tool gated by a human approval cannot also ask: the server does not start.

use crate::common;

use std::sync::{Arc, Mutex};

use common::raw::{handshake, RawClient};
use mcp_result::{
    mcp_handler, mcp_tools,
    rmcp::{
        model::{
            CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams,
            ElicitResult, ElicitationAction, Implementation, ProtocolVersion,
        },
        service::{serve_client_with_lifecycle, ClientLifecycleMode, RequestContext},
        ClientHandler, ErrorData, RoleClient, ServerHandler, ServiceExt,
    },
    Ask, Elicited, Log, ToolError, Unstructured, WriteReceipt,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// The user's name.
#[derive(Deserialize, JsonSchema)]
struct Name {
    /// Your name.
    name: String,
}

/// Whom to greet.
#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// How to greet.
    greeting: String,
}

/// A note was added.
#[derive(serde::Serialize, JsonSchema, mcp_result::ToolResult)]
#[serde(rename_all = "camelCase")]
struct Noted {
    note: String,
    status: mcp_result::Status,
    retry_safe: bool,
    audit_event_id: mcp_result::AuditEventId,
}

#[derive(Clone, Default)]
struct Greeter {
    notes: Arc<std::sync::atomic::AtomicU64>,
}

#[mcp_tools]
impl Greeter {
    /// Greets the user by the name they give.
    #[mcp_tool(read_only)]
    async fn greet(&self, args: GreetArgs, mut ask: Ask) -> Result<Unstructured, ToolError> {
        match ask
            .elicit::<Name>("user_name", "What is your name?")
            .await?
        {
            Elicited::Accepted(Name { name }) => {
                Ok(Unstructured::text(format!("{}, {name}!", args.greeting)))
            }
            _ => Ok(Unstructured::text(format!("{}, stranger!", args.greeting))),
        }
    }

    /// Needs a client that samples.
    #[mcp_tool(read_only)]
    fn needs_sampling(&self) -> Result<Unstructured, ToolError> {
        let mut required = ClientCapabilities::default();
        required.sampling = Some(Default::default());
        Err(ToolError::protocol(
            ErrorData::missing_required_client_capability(required),
        ))
    }

    /// Adds a note, once the user named its title. A write that asks: each round ends
    /// without effect and gives its idempotency key back.
    #[mcp_tool(destructive = false)]
    async fn titled_note(
        &self,
        mut ask: Ask,
        write: mcp_result::extract::WriteContext,
    ) -> Result<Noted, ToolError> {
        let title = match ask.elicit::<Name>("title", "Which title?").await? {
            Elicited::Accepted(Name { name }) => name,
            _ => "untitled".to_owned(),
        };
        let n = self.notes.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        Ok(Noted {
            note: format!("{title}-{n}"),
            status: mcp_result::Status::Succeeded,
            retry_safe: false,
            audit_event_id: write.audit_event_id().clone(),
        })
    }

    /// Logs at two levels.
    #[mcp_tool(read_only)]
    async fn chatty(&self, log: Log) -> Unstructured {
        log.debug("details").await;
        log.info("started").await;
        Unstructured::text("done")
    }
}

#[mcp_handler]
impl ServerHandler for Greeter {}

/// A user who answers every form with a name.
#[derive(Clone, Default)]
struct User {
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_elicitation().build(),
            Implementation::new("user", "0.1.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked.lock().unwrap().push(message.clone());
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": "Ada"})))
    }
}

fn greet(greeting: &str) -> CallToolRequestParams {
    CallToolRequestParams::new("greet")
        .with_arguments(json!({"greeting": greeting}).as_object().unwrap().clone())
}

#[tokio::test]
async fn rmcp_s_client_answers_the_question_on_both_revisions() {
    for lifecycle in [
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        ClientLifecycleMode::Initialize,
    ] {
        let user = User::default();
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(running) = Greeter::default().serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = serve_client_with_lifecycle(user.clone(), client_io, lifecycle)
            .await
            .expect("connect");
        let result = client.call_tool(greet("Hello")).await.unwrap();
        assert_eq!(result.is_error, Some(false), "{result:?}");
        assert_eq!(common::text(&result, 0), "Hello, Ada!");
        assert_eq!(result.structured_content, None);
        assert_eq!(*user.asked.lock().unwrap(), ["What is your name?"]);
        // A plain-content tool has no outputSchema.
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(common::tool(&tools, "greet").output_schema, None);
        client.cancel().await.unwrap();
    }
}

/// `_meta` of a 2026-07-28 request from a client with `capabilities`.
fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    })
}

fn call(id: u64, name: &str, mut params: Value) -> Value {
    params["name"] = json!(name);
    if params.get("_meta").is_none() {
        params["_meta"] = meta(json!({"elicitation": {}}));
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

#[tokio::test]
async fn each_round_input_gets_its_exact_answer() {
    let mut client = RawClient::serve(Greeter::default());
    let arguments = json!({"greeting": "Hi"});
    let first = client
        .exchange(&[call(1, "greet", json!({"arguments": arguments}))])
        .await
        .remove(0);
    let asked = &first["result"];
    assert_eq!(asked["resultType"], "input_required", "{first}");
    assert_eq!(
        asked["inputRequests"]["user_name"],
        json!({"method": "elicitation/create", "params": {
            "mode": "form",
            "message": "What is your name?",
            "requestedSchema": {"$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object", "title": "Name", "description": "The user's name.",
                "properties": {"name": {"type": "string", "description": "Your name."}},
                "required": ["name"]}}})
    );
    let state = asked["requestState"].as_str().unwrap().to_owned();
    let answer = |id: u64, state: &str, response: Value, arguments: &Value| {
        call(
            id,
            "greet",
            json!({"arguments": arguments, "requestState": state,
                   "inputResponses": {"user_name": response}}),
        )
    };
    let accepted = json!({"action": "accept", "content": {"name": "Ada"}});
    let answers = client
        .exchange(&[
            // The client altered the state.
            answer(
                2,
                &format!("{state}-TAMPERED"),
                accepted.clone(),
                &arguments,
            ),
            // The state of this call, replayed for other arguments.
            answer(3, &state, accepted.clone(), &json!({"greeting": "Bye"})),
            // An answer of the wrong shape is asked again.
            answer(4, &state, json!(12345), &arguments),
            // The answer.
            answer(5, &state, accepted, &arguments),
        ])
        .await;
    let by_id = |id: u64| answers.iter().find(|a| a["id"] == id).unwrap().clone();
    let refused = json!({"code": -32602, "message":
        "requestState failed integrity verification: it is not this server's state for this \
         caller, tool and arguments, or it expired"});
    assert_eq!(by_id(2)["error"], refused);
    assert_eq!(by_id(3)["error"], refused);
    assert_eq!(by_id(4)["result"]["resultType"], "input_required");
    assert_eq!(
        by_id(4)["result"]["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    assert_eq!(
        by_id(5)["result"],
        json!({"content": [{"type": "text", "text": "Hi, Ada!"}], "isError": false,
               "resultType": "complete"})
    );
    // A client that cannot elicit is told what is missing; so is one without sampling.
    let answers = client
        .exchange(&[
            call(
                6,
                "greet",
                json!({"arguments": arguments, "_meta": meta(json!({}))}),
            ),
            call(7, "needs_sampling", json!({"arguments": {}})),
        ])
        .await;
    let by_id = |id: u64| answers.iter().find(|a| a["id"] == id).unwrap().clone();
    assert_eq!(
        by_id(6)["error"],
        json!({"code": -32021, "message": "Missing required client capability",
               "data": {"requiredCapabilities": {"elicitation": {}}}})
    );
    assert_eq!(
        by_id(7)["error"],
        json!({"code": -32021, "message": "Missing required client capability",
               "data": {"requiredCapabilities": {"sampling": {}}}})
    );
}

#[tokio::test]
async fn log_messages_follow_the_level_the_client_asked_for() {
    let mut client = RawClient::serve(Greeter::default());
    // 2026-07-28 without `logLevel`: nothing.
    client
        .send(&[call(1, "chatty", json!({"arguments": {}}))])
        .await;
    let (answer, before) = client.answer(1).await;
    assert_eq!(answer["result"]["content"][0]["text"], "done");
    assert_eq!(before, Vec::<Value>::new());
    // With `logLevel: info`: the info message, not the debug one.
    let mut with_level = meta(json!({}));
    with_level["io.modelcontextprotocol/logLevel"] = json!("info");
    client
        .send(&[call(
            2,
            "chatty",
            json!({"arguments": {}, "_meta": with_level}),
        )])
        .await;
    let (_, before) = client.answer(2).await;
    assert_eq!(
        before,
        [json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "logger": "chatty", "data": "started"}})]
    );
    // 2025-11-25: `info` until the session sets a level; then the level it set.
    let mut client = RawClient::serve(Greeter::default());
    client.send(&handshake("2025-11-25")).await;
    client.answer(0).await;
    let plain = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "chatty", "arguments": {}}})
    };
    client.send(&[plain(1)]).await;
    let (_, before) = client.answer(1).await;
    let levels = |messages: &[Value]| -> Vec<Value> {
        messages
            .iter()
            .map(|m| m["params"]["level"].clone())
            .collect()
    };
    assert_eq!(levels(&before), [json!("info")]);
    let set = json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
                     "params": {"level": "debug"}});
    assert_eq!(client.exchange(&[set]).await[0]["result"], json!({}));
    client.send(&[plain(3)]).await;
    let (_, before) = client.answer(3).await;
    assert_eq!(levels(&before), [json!("debug"), json!("info")]);
}

/// Whether the gated write asks.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)] // read by the form's schema only
struct Confirm {
    /// Sure?
    sure: bool,
}

/// Purged.
#[derive(serde::Serialize, JsonSchema, mcp_result::ToolResult)]
struct Purged {
    #[serde(flatten)]
    receipt: WriteReceipt,
}

#[derive(Clone)]
struct Gated;

#[mcp_tools]
impl Gated {
    /// Deletes everything, after asking twice.
    #[mcp_tool(requires_approval)]
    async fn purge(&self, mut ask: Ask) -> Result<Purged, ToolError> {
        ask.elicit::<Confirm>("sure", "Sure?").await?;
        Ok(Purged {
            receipt: WriteReceipt::succeeded(),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Gated {}

#[tokio::test]
async fn a_gated_write_that_also_asks_does_not_start() {
    let (server_io, _client_io) = tokio::io::duplex(1 << 10);
    let stopped = mcp_result::serve(Gated, server_io).await.unwrap_err();
    assert_eq!(
        stopped.to_string(),
        "tool `purge`: a tool gated by a human approval (`requires_approval`) cannot also ask \
         the client itself (an `Ask` parameter): both would need the same round; ask in a \
         read-only tool first, or let the approval be the question"
    );
}

/// A keyed write that asks (MCP 2026-07-28): the question round gives the key back, so the
/// same key asks again rather than answering `in_progress`; answered, it runs once, and the
/// same call again is the stored answer.
#[tokio::test]
async fn a_keyed_write_that_asks_runs_once_its_question_is_answered() {
    let mut client = RawClient::serve(Greeter::default());
    let keyed = |id: u64, extra: Value| {
        let mut params = json!({"arguments": {}});
        params["_meta"] = meta(json!({"elicitation": {}}));
        params["_meta"]["io.github.mcp-result/idempotencyKey"] = json!("k-title");
        if let Value::Object(extra) = extra {
            params.as_object_mut().unwrap().extend(extra);
        }
        call(id, "titled_note", params)
    };
    let answers = client.exchange(&[keyed(1, json!({}))]).await;
    assert_eq!(
        answers[0]["result"]["resultType"], "input_required",
        "{}",
        answers[0]
    );
    let again = client.exchange(&[keyed(2, json!({}))]).await;
    assert_eq!(
        again[0]["result"]["resultType"], "input_required",
        "{}",
        again[0]
    );
    let state = again[0]["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_owned();
    let answer = json!({"requestState": state,
        "inputResponses": {"title": {"action": "accept", "content": {"name": "Ops"}}}});
    let done = client.exchange(&[keyed(3, answer.clone())]).await;
    let done = &done[0]["result"]["structuredContent"];
    assert_eq!(done["note"], "Ops-1", "{done}");
    let replayed = client.exchange(&[keyed(4, answer)]).await;
    assert_eq!(&replayed[0]["result"]["structuredContent"], done);
}

/// The round's state is bound to the caller: over HTTP, bob presenting the state alice was
/// given (with her answer) is refused, and nothing runs for him; alice's goes through.
#[cfg(feature = "http")]
#[tokio::test]
async fn another_caller_cannot_use_a_round_s_state() {
    use mcp_result::{
        http::{serve_http, HttpOptions, StaticTokens},
        Identity,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let tokens = StaticTokens::new()
        .with("alice-token", Identity::new("alice"))
        .with("bob-token", Identity::new("bob"));
    tokio::spawn(serve_http(
        Greeter::default(),
        listener,
        Arc::new(tokens),
        HttpOptions::default(),
        std::future::pending(),
    ));
    let http = reqwest::Client::new();
    let send = |token: &'static str, request: Value| {
        let (http, url) = (http.clone(), url.clone());
        async move {
            let text = http
                .post(&url)
                .bearer_auth(token)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "greet")
                .body(request.to_string())
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            // JSON, or one SSE event carrying it.
            let json = text
                .lines()
                .find_map(|line| line.strip_prefix("data: "))
                .unwrap_or(&text)
                .to_owned();
            serde_json::from_str::<Value>(&json).unwrap()
        }
    };
    let arguments = json!({"greeting": "Hi"});
    let first = send(
        "alice-token",
        call(1, "greet", json!({"arguments": arguments})),
    )
    .await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let answered = json!({"arguments": arguments, "requestState": state,
        "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Ada"}}}});
    let bob = send("bob-token", call(2, "greet", answered.clone())).await;
    assert_eq!(bob["error"]["code"], -32602, "{bob}");
    let alice = send("alice-token", call(3, "greet", answered)).await;
    assert_eq!(alice["result"]["content"][0]["text"], "Hi, Ada!", "{alice}");
}
