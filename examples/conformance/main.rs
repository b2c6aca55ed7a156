//! The fixture server of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), written the way the README teaches: every tool an
//! mcp-result tool (`#[mcp_tools]`), served by the framework's HTTP router, with sessions
//! for the stateful revisions (server requests during a call) and stateless MCP 2026-07-28
//! on the same endpoint. Prompts, resources and completion are `ServerHandler` methods
//! beside `#[mcp_handler]` (guide, "Beside the framework").
//!
//! ```text
//! cargo run --features http --example conformance -- --port 3001
//! npx @modelcontextprotocol/conformance server --url http://127.0.0.1:3001/mcp --requirements 2026-07-28
//! ```
//!
//! `tests/conformance.rs` runs the suite against it for both revisions.

#![allow(deprecated)] // rmcp marks sampling, roots and logging deprecated (SEP-2577).

use std::{sync::Arc, time::Duration};

use mcp_result::{
    http::{serve_http, Anonymous, HttpOptions},
    mcp_handler, mcp_tools,
    rmcp::{
        model::{
            ClientCapabilities, CompleteRequestParams, CompleteResult, ContentBlock,
            CreateMessageRequestParams, ElicitationSchema, ErrorCode, GetPromptRequestParams,
            GetPromptResponse, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
            PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
            ResourceContents, ServerConfig,
        },
        service::RequestContext,
        ErrorData, RoleServer, ServerHandler,
    },
    serde_json::{self, json, Value},
    Ask, Elicited, Identity, Log, Progress, Question, ToolError, Unstructured,
};
use serde::{de::DeserializeOwned, Deserialize};

mod beside;
mod tasks;

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV header with no samples.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

#[derive(Clone)]
struct Fixture;

/// `{prompt}` of `test_sampling`.
#[derive(Deserialize, schemars::JsonSchema)]
struct SamplingArguments {
    /// The prompt to send to the client's model.
    prompt: String,
}

/// `{message}` of `test_elicitation`.
#[derive(Deserialize, schemars::JsonSchema)]
struct ElicitationArguments {
    /// The message shown to the user.
    message: String,
}

/// A name.
#[derive(Deserialize, schemars::JsonSchema)]
struct Name {
    /// The name.
    name: String,
}

/// A yes or no.
#[derive(Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Confirmed?
    ok: bool,
}

/// A colour.
#[derive(Deserialize, schemars::JsonSchema)]
struct Color {
    /// The colour.
    color: String,
}

/// A value.
#[derive(Deserialize, schemars::JsonSchema)]
struct Provided {
    /// The value.
    value: String,
}

/// A value of rmcp's model from its wire JSON (the fixture's payloads are the suite's JSON).
fn wire<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("fixture JSON matches rmcp's model")
}

fn text_of(result: &Value) -> String {
    result
        .pointer("/content/text")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn sampling(text: &str, max_tokens: u32) -> CreateMessageRequestParams {
    wire(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        "maxTokens": max_tokens,
    }))
}

/// `{name}` of `greet`.
#[derive(Deserialize, schemars::JsonSchema)]
struct GreetArguments {
    /// Who to greet.
    name: String,
}

/// `{seconds, label}` of `slow_compute`.
#[derive(Deserialize, schemars::JsonSchema)]
struct ComputeArguments {
    /// How long the computation takes, in seconds.
    seconds: u64,
    /// A label echoed in the result.
    #[serde(default)]
    label: Option<String>,
}

/// `{filename}` of `confirm_delete`.
#[derive(Deserialize, schemars::JsonSchema)]
struct DeleteArguments {
    /// The file to delete.
    filename: String,
}

/// A confirmation.
#[derive(Deserialize, schemars::JsonSchema)]
struct Confirmation {
    /// Go ahead?
    confirm: bool,
}

/// The arguments of `json_schema_2020_12_tool`: a contact, in a schema written by hand in
/// JSON Schema 2020-12 (`$schema`, `$defs` with an `$anchor`, `allOf`/`anyOf`,
/// `if`/`then`/`else`, `additionalProperties: false`), advertised exactly as written
/// (`full_input_schema`) and validated on every call.
#[derive(Deserialize)]
#[serde(transparent)]
struct ContactArguments(#[allow(dead_code)] serde_json::Map<String, Value>);

impl schemars::JsonSchema for ContactArguments {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ContactArguments".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {
                "street": {"type": "string"}, "city": {"type": "string"}}}},
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        })
    }
}

/// `{region, query}` of `test_custom_headers`: `region` mirrored into the
/// `Mcp-Param-Region` header (SEP-2243), which the transport checks against the body.
#[derive(Deserialize, schemars::JsonSchema)]
struct RegionArguments {
    /// Where to run the query.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
    /// The query.
    query: String,
}

fn form(message: &str, schema: Value) -> Question {
    Question::Elicit {
        message: message.to_owned(),
        schema: wire::<ElicitationSchema>(schema),
    }
}

#[mcp_tools(include(tasks))]
impl Fixture {
    /// Returns a text block.
    #[mcp_tool(read_only)]
    fn test_simple_text(&self) -> Unstructured {
        Unstructured::text("This is a simple text response for testing.")
    }

    /// Returns an image block.
    #[mcp_tool(read_only)]
    fn test_image_content(&self) -> Unstructured {
        Unstructured::new([ContentBlock::image(PNG, "image/png")])
    }

    /// Returns an audio block.
    #[mcp_tool(read_only)]
    fn test_audio_content(&self) -> Unstructured {
        Unstructured::new([ContentBlock::audio(WAV, "audio/wav")])
    }

    /// Returns an embedded resource.
    #[mcp_tool(read_only)]
    fn test_embedded_resource(&self) -> Unstructured {
        Unstructured::new([ContentBlock::resource(
            ResourceContents::text(
                "This is an embedded resource content.",
                "test://embedded-resource",
            )
            .with_mime_type("text/plain"),
        )])
    }

    /// Returns text, an image and an embedded resource.
    #[mcp_tool(read_only)]
    fn test_multiple_content_types(&self) -> Unstructured {
        Unstructured::new([
            ContentBlock::text("Multiple content types test:"),
            ContentBlock::image(PNG, "image/png"),
            ContentBlock::resource(
                ResourceContents::text(
                    r#"{"test":"data","value":123}"#,
                    "test://mixed-content-resource",
                )
                .with_mime_type("application/json"),
            ),
        ])
    }

    /// Takes a contact described in JSON Schema 2020-12, its schema advertised as written.
    #[mcp_tool(read_only, full_input_schema)]
    fn json_schema_2020_12_tool(&self, _contact: ContactArguments) -> Unstructured {
        Unstructured::text("Contact received.")
    }

    /// Runs a query in a region; the region travels in the `Mcp-Param-Region` header too.
    #[mcp_tool(read_only)]
    fn test_custom_headers(&self, args: RegionArguments) -> Unstructured {
        Unstructured::text(format!("Ran `{}` in {}.", args.query, args.region))
    }

    /// Logs three messages while it runs.
    #[mcp_tool(read_only)]
    async fn test_tool_with_logging(&self, log: Log) -> Unstructured {
        log.info("Tool execution started").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        log.info("Tool processing data").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        log.info("Tool execution completed").await;
        Unstructured::text("Logging test completed")
    }

    /// Logs only at the level the call asked for.
    #[mcp_tool(read_only)]
    async fn test_logging_tool(&self, log: Log) -> Unstructured {
        log.info("test_logging_tool ran").await;
        Unstructured::text("Logging tool completed")
    }

    /// Always fails.
    #[mcp_tool(read_only)]
    fn test_error_handling(&self) -> Result<Unstructured, ToolError> {
        Err(ToolError::conflict(
            "This tool intentionally returns an error for testing",
        ))
    }

    /// Reports progress 0, 50 and 100.
    #[mcp_tool(read_only)]
    async fn test_tool_with_progress(&self, progress: Progress) -> Unstructured {
        progress.report(0, 100, "Starting").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        progress.report(50, 100, "Halfway").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        progress.report(100, 100, "Complete").await;
        Unstructured::text("Progress test completed")
    }

    /// Asks the client's model.
    #[mcp_tool(read_only)]
    async fn test_sampling(
        &self,
        arguments: SamplingArguments,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        let answer = ask
            .sample("prompt", sampling(&arguments.prompt, 100))
            .await?;
        let answer = serde_json::to_value(answer).unwrap_or_default();
        Ok(Unstructured::text(format!(
            "LLM response: {}",
            text_of(&answer)
        )))
    }

    /// Asks the user for a username and an email.
    #[mcp_tool(read_only)]
    async fn test_elicitation(
        &self,
        arguments: ElicitationArguments,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        let question = form(
            &arguments.message,
            json!({
                "type": "object",
                "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"},
                },
                "required": ["username", "email"],
            }),
        );
        let answer = ask.elicit_form("user_info", question).await?;
        Ok(Unstructured::text(format!("User response: {answer:?}")))
    }

    /// Asks a form whose fields have defaults (SEP-1034).
    #[mcp_tool(read_only)]
    async fn test_elicitation_sep1034_defaults(
        &self,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        let question = form(
            "Please provide values (all have defaults)",
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "default": "John Doe"},
                    "age": {"type": "integer", "default": 30},
                    "score": {"type": "number", "default": 95.5},
                    "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                    "verified": {"type": "boolean", "default": true},
                },
            }),
        );
        let answer = ask.elicit_form("defaults", question).await?;
        Ok(Unstructured::text(format!(
            "Elicitation completed: {answer:?}"
        )))
    }

    /// Asks a form with every enum shape (SEP-1330).
    #[mcp_tool(read_only)]
    async fn test_elicitation_sep1330_enums(
        &self,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        let titled = |titles: [&str; 3]| {
            json!([
                {"const": "value1", "title": titles[0]},
                {"const": "value2", "title": titles[1]},
                {"const": "value3", "title": titles[2]},
            ])
        };
        let question = form(
            "Please choose",
            json!({
                "type": "object",
                "properties": {
                    "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                    "titledSingle": {"type": "string", "oneOf": titled(["First Option", "Second Option", "Third Option"])},
                    "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                    "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                    "titledMulti": {"type": "array", "items": {"anyOf": titled(["First Choice", "Second Choice", "Third Choice"])}},
                },
            }),
        );
        let answer = ask.elicit_form("enums", question).await?;
        Ok(Unstructured::text(format!(
            "Elicitation completed: {answer:?}"
        )))
    }

    /// Needs a client that samples: a JSON-RPC error (`-32021`) for one that does not.
    #[mcp_tool(read_only)]
    fn test_missing_capability(&self, ask: Ask) -> Result<Unstructured, ToolError> {
        if !ask.can(&Question::Sample(sampling("", 1))) {
            let mut required = ClientCapabilities::default();
            required.sampling = Some(Default::default());
            return Err(ToolError::protocol(
                ErrorData::missing_required_client_capability(required),
            ));
        }
        Ok(Unstructured::text("The client samples."))
    }

    /// Asks for a value (on MCP 2026-07-28 an input-required round, never a request).
    #[mcp_tool(read_only)]
    async fn test_streaming_elicitation(&self, mut ask: Ask) -> Result<Unstructured, ToolError> {
        match ask
            .elicit::<Provided>("streaming_elicitation", "Provide a value")
            .await?
        {
            Elicited::Accepted(Provided { value }) => {
                Ok(Unstructured::text(format!("Got {value}")))
            }
            _ => Ok(Unstructured::text("No value.")),
        }
    }

    /// Asks the user's name.
    #[mcp_tool(read_only)]
    async fn test_input_required_result_elicitation(
        &self,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        let name = match ask
            .elicit::<Name>("user_name", "What is your name?")
            .await?
        {
            Elicited::Accepted(Name { name }) => name,
            _ => "stranger".to_owned(),
        };
        Ok(Unstructured::text(format!("Hello, {name}!")))
    }

    /// Asks the client's model a question.
    #[mcp_tool(read_only)]
    async fn test_input_required_result_sampling(
        &self,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        let answer = ask
            .sample(
                "capital_question",
                sampling("What is the capital of France?", 100),
            )
            .await?;
        let answer = serde_json::to_value(answer).unwrap_or_default();
        Ok(Unstructured::text(format!(
            "Sampling response: {}",
            text_of(&answer)
        )))
    }

    /// Asks the client's roots.
    #[mcp_tool(read_only)]
    async fn test_input_required_result_list_roots(
        &self,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        let roots = ask.roots("client_roots").await?;
        let uris: Vec<String> = roots.roots.iter().map(|root| root.uri.clone()).collect();
        Ok(Unstructured::text(format!("Client roots: {uris:?}")))
    }

    /// Asks for a confirmation, with state kept across the round.
    #[mcp_tool(read_only)]
    async fn test_input_required_result_request_state(
        &self,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        confirmed(&mut ask).await
    }

    /// Asks for a confirmation; a state changed by the client is refused.
    #[mcp_tool(read_only)]
    async fn test_input_required_result_tampered_state(
        &self,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        confirmed(&mut ask).await
    }

    /// Asks three questions at once.
    #[mcp_tool(read_only)]
    async fn test_input_required_result_multiple_inputs(
        &self,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        ask.all(vec![
            (
                "user_name".into(),
                Question::form::<Name>("What is your name?")?,
            ),
            (
                "greeting".into(),
                Question::Sample(sampling("Generate a greeting", 50)),
            ),
            ("client_roots".into(), Question::Roots),
        ])
        .await?;
        Ok(Unstructured::text("All inputs received"))
    }

    /// Asks in two rounds, the second after the first is answered.
    #[mcp_tool(read_only)]
    async fn test_input_required_result_multi_round(
        &self,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        ask.elicit::<Name>("step1", "Step 1: What is your name?")
            .await?;
        let color = match ask
            .elicit::<Color>("step2", "Step 2: What is your favorite color?")
            .await?
        {
            Elicited::Accepted(Color { color }) => color,
            _ => "none".to_owned(),
        };
        Ok(Unstructured::text(format!(
            "Multi-round flow complete ({color})"
        )))
    }

    /// Asks only what the client's capabilities allow.
    #[mcp_tool(read_only)]
    async fn test_input_required_result_capabilities(
        &self,
        mut ask: Ask,
    ) -> Result<Unstructured, ToolError> {
        let questions: Vec<(String, Question)> = vec![
            (
                "user_name".into(),
                Question::form::<Name>("What is your name?")?,
            ),
            (
                "greeting".into(),
                Question::Sample(sampling("Generate a greeting", 50)),
            ),
            ("client_roots".into(), Question::Roots),
        ]
        .into_iter()
        .filter(|(_, question)| ask.can(question))
        .collect();
        let asked = questions.len();
        ask.all(questions).await?;
        Ok(Unstructured::text(format!("{asked} inputs received")))
    }
}

async fn confirmed(ask: &mut Ask) -> Result<Unstructured, ToolError> {
    match ask.elicit::<Confirm>("confirm", "Please confirm").await? {
        Elicited::Accepted(Confirm { ok: true }) => Ok(Unstructured::text("Confirmed: state-ok")),
        _ => Ok(Unstructured::text("Not confirmed.")),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let mut port = 3001u16;
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        match argument.as_str() {
            "--port" => {
                port = arguments
                    .next()
                    .and_then(|p| p.parse().ok())
                    .ok_or("--port takes a port number")?;
            }
            other => {
                return Err(
                    format!("unknown argument `{other}`; usage: conformance [--port N]").into(),
                )
            }
        }
    }
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!("conformance fixture listening on http://127.0.0.1:{port}/mcp");
    // A local test server: every caller is one anonymous identity, by choice.
    let verifier = Arc::new(Anonymous::new(Identity::new("conformance")));
    let options = HttpOptions {
        sessions: true,
        ..HttpOptions::default()
    };
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    serve_http(Fixture, listener, verifier, options, shutdown).await
}
