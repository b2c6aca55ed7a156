//! A test harness for your server's own tests (feature `testing`): the server in-process,
//! rmcp's real client on the other end of an in-memory duplex stream, every answer checked
//! the way strict clients and hosts check it.
//!
//! What FastMCP's in-memory `Client` and the TypeScript SDK's `InMemoryTransport` are for
//! their users: rmcp's `Peer` has no public constructor, so a unit test cannot build the
//! `RequestContext` a tool call needs; a [`TestServer`] runs the whole protocol instead (the
//! handshake, `tools/list`, `tools/call` with its argument validation, the write path,
//! `_meta`), with nothing mocked.
//!
//! ```
//! # async fn run() {
//! # use mcp_result_core::rmcp::{ServerHandler, model::{ServerInfo, ServerCapabilities}};
//! # #[derive(Clone)] struct Desk;
//! # impl ServerHandler for Desk {
//! #     fn get_info(&self) -> ServerInfo { ServerInfo::new(ServerCapabilities::builder().enable_tools().build()) }
//! # }
//! use mcp_result_core::testing::TestServer;
//! use serde_json::json;
//!
//! let desk = TestServer::start(Desk).await; // handshake, tools/list, host lint
//! # if false {
//! let view = desk.call("search_tickets", json!({"query": "printer"})).await;
//! assert!(view.error().is_none());
//! # }
//! desk.close().await;
//! # }
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(run());
//! ```
//!
//! Every answer is checked before your test sees it, and a failed check panics naming the
//! tool:
//!
//! - `tools/list` passes the host lint for [`Host::PORTABLE`]
//!   ([`crate::lint::assert_portable`]; [`TestServer::start_for`] chooses other hosts);
//! - every result's `structuredContent` (an error envelope too) is valid against its tool's
//!   advertised `outputSchema`, and a success result keeps the schema's promise as the
//!   client view reads it ([`ResultView::check_schema`]).
//!
//! Snapshots use `insta` ([`assert_result_snapshot!`](crate::assert_result_snapshot) and
//! [`assert_tools_snapshot!`](crate::assert_tools_snapshot)), with the values that change
//! from run to run (minted audit event ids, correlation ids, approval ids, page cursors)
//! replaced by stable placeholders ([`result_snapshot`]); review them with `cargo insta
//! review`.

use std::{collections::HashMap, fmt};

use rmcp::{
    model::{CallToolRequestParams, CallToolResult, Tool},
    service::{Peer, RoleClient, RunningService},
    ServerHandler, ServiceError, ServiceExt,
};
use serde_json::{Map, Value};

use crate::{
    lint::{assert_portable, Host},
    serve::transport::WithState,
    state::State,
    view::{ResultView, ToolCatalog},
};

/// `insta`, for the snapshot macros (which expand in your test, so the snapshots live
/// beside it). Not public API.
#[doc(hidden)]
pub use insta as __insta;

/// A server under test, in-process, with rmcp's client connected to it over an in-memory
/// duplex stream. See the [module docs](self).
pub struct TestServer {
    client: RunningService<RoleClient, ()>,
    catalog: ToolCatalog,
    tools: Vec<Tool>,
    validators: HashMap<String, jsonschema::Validator>,
    serving: tokio::task::JoinHandle<()>,
}

impl TestServer {
    /// Serves `server` and connects rmcp's client: the MCP handshake, then `tools/list`,
    /// linted for [`Host::PORTABLE`] (every host but OpenAI's strict mode).
    ///
    /// # Panics
    /// When the handshake fails (a server that refuses to start: a tool definition the
    /// registry rejects), when `tools/list` fails, or when a tool breaks a portable host rule
    /// (the panic is the lint's table of findings).
    pub async fn start<S: ServerHandler>(server: S) -> Self {
        Self::start_for(server, Host::PORTABLE).await
    }

    /// [`Self::start`], linting `tools/list` for `hosts` instead (`&[]`: no lint).
    ///
    /// # Panics
    /// As [`Self::start`].
    pub async fn start_for<S: ServerHandler>(server: S, hosts: &[Host]) -> Self {
        Self::start_with_state(server, hosts, State::new()).await
    }

    /// [`Self::start_for`], with `state` handed to every call (its stores, server key and
    /// values, [`State`]): keep clones of its stores to look into them from the test.
    ///
    /// # Panics
    /// As [`Self::start`].
    pub async fn start_with_state<S: ServerHandler>(
        server: S,
        hosts: &[Host],
        state: State,
    ) -> Self {
        use rmcp::transport::IntoTransport;
        let (server_io, client_io) = tokio::io::duplex(1 << 22);
        let transport = WithState {
            inner: IntoTransport::<rmcp::RoleServer, _, _>::into_transport(server_io),
            state,
        };
        let serving = tokio::spawn(async move {
            if let Ok(running) = server.serve(transport).await {
                let _ = running.waiting().await;
            }
        });
        let client = match ().serve(client_io).await {
            Ok(client) => client,
            Err(error) => panic!("the server did not complete the MCP handshake: {error}"),
        };
        let tools = client
            .list_all_tools()
            .await
            .unwrap_or_else(|error| panic!("tools/list failed: {error}"));
        if !hosts.is_empty() {
            assert_portable(&tools, hosts);
        }
        let validators = tools
            .iter()
            .filter_map(|tool| {
                let schema = Value::Object(tool.output_schema.as_deref()?.clone());
                let validator = jsonschema::draft202012::new(&schema).unwrap_or_else(|error| {
                    panic!(
                        "tool `{}`: its outputSchema does not compile: {error}",
                        tool.name
                    )
                });
                Some((tool.name.to_string(), validator))
            })
            .collect();
        Self {
            catalog: ToolCatalog::new(tools.clone()),
            client,
            tools,
            validators,
            serving,
        }
    }

    /// The tools as `tools/list` listed them.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Tool `name` as listed.
    ///
    /// # Panics
    /// When the server has no tool `name`.
    pub fn tool(&self, name: &str) -> &Tool {
        self.tools
            .iter()
            .find(|tool| tool.name == name)
            .unwrap_or_else(|| panic!("the server lists no tool `{name}`"))
    }

    /// rmcp's client, for anything else (`resources/read` of a returned link, a request with
    /// your own options).
    pub fn client(&self) -> &Peer<RoleClient> {
        self.client.peer()
    }

    /// Calls tool `name` with `arguments` (a JSON object) and returns the client's view of
    /// the result: the checked structured value, what the model reads, what the user sees,
    /// and the error view of an `isError` result.
    ///
    /// # Panics
    /// When the call is answered with a JSON-RPC error (use [`Self::try_call`] to test
    /// one), when `arguments` is not an object, or when the result breaks its tool's
    /// `outputSchema`.
    pub async fn call(&self, name: &str, arguments: Value) -> ResultView {
        let Value::Object(arguments) = arguments else {
            panic!("the arguments of `{name}` must be a JSON object, got {arguments}");
        };
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        self.call_with(params).await
    }

    /// [`Self::call`] with request parameters of your own (`_meta`, an idempotency key).
    ///
    /// # Panics
    /// As [`Self::call`].
    pub async fn call_with(&self, params: CallToolRequestParams) -> ResultView {
        let name = params.name.to_string();
        match self.try_call_with(params).await {
            Ok(view) => view,
            Err(error) => panic!("`{name}` was answered with a JSON-RPC error: {error}"),
        }
    }

    /// Calls tool `name`; a JSON-RPC error (an unknown tool, a malformed call) is an `Err`.
    ///
    /// # Errors
    /// rmcp's [`ServiceError`] for a JSON-RPC error or a broken connection.
    ///
    /// # Panics
    /// When `arguments` is not an object, or a result breaks its tool's `outputSchema`.
    pub async fn try_call(&self, name: &str, arguments: Value) -> Result<ResultView, ServiceError> {
        let Value::Object(arguments) = arguments else {
            panic!("the arguments of `{name}` must be a JSON object, got {arguments}");
        };
        self.try_call_with(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
            .await
    }

    async fn try_call_with(
        &self,
        params: CallToolRequestParams,
    ) -> Result<ResultView, ServiceError> {
        let name = params.name.to_string();
        let result = self.client.call_tool(params).await?;
        self.check(&name, &result);
        let view = self.catalog.view(&name, result);
        if let Err(error) = view.check_schema() {
            panic!("tool `{name}`: {error}");
        }
        Ok(view)
    }

    /// Every result's `structuredContent`, an error envelope too, against the tool's whole
    /// advertised `outputSchema` (strict clients validate `isError` results as well).
    fn check(&self, name: &str, result: &CallToolResult) {
        if let (Some(validator), Some(structured)) =
            (self.validators.get(name), &result.structured_content)
        {
            let errors: Vec<String> = validator
                .iter_errors(structured)
                .take(20)
                .map(|error| format!("at `{}`: {error}", error.instance_path().as_str()))
                .collect();
            assert!(
                errors.is_empty(),
                "tool `{name}`: structuredContent breaks the advertised outputSchema:\n  {}\n{}",
                errors.join("\n  "),
                serde_json::to_string_pretty(structured).unwrap_or_default()
            );
        }
    }

    /// `tools/list` as JSON, for a snapshot ([`assert_tools_snapshot!`](crate::assert_tools_snapshot)),
    /// object keys sorted (the same with and without serde_json's `preserve_order`).
    pub fn tools_snapshot(&self) -> Value {
        sorted(serde_json::to_value(&self.tools).unwrap_or(Value::Null))
    }

    /// Closes the connection and waits until the server stopped (writes still running get
    /// the server's shutdown grace).
    pub async fn close(self) {
        let _ = self.client.cancel().await;
        let _ = self.serving.await;
    }
}

impl fmt::Debug for TestServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestServer")
            .field("tools", &self.catalog.names().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// The keys whose values change from run to run, and their placeholders in snapshots.
const VOLATILE: [(&str, &str); 5] = [
    ("auditEventId", "[auditEventId]"),
    ("correlationId", "[correlationId]"),
    ("approvalRequestId", "[approvalRequestId]"),
    ("approvalId", "[approvalId]"),
    ("nextCursor", "[nextCursor]"),
];

/// A result as JSON for a snapshot: the `CallToolResult` as it went over the wire (object keys
/// sorted, as [`TestServer::tools_snapshot`]'s), with the values that change from run to run (`auditEventId`, `correlationId`,
/// `approvalRequestId`, `approvalId`, `nextCursor`) replaced, wherever they appear (in
/// `structuredContent`, the JSON text block and the summary), by `[auditEventId]` and so on.
pub fn result_snapshot(view: &ResultView) -> Value {
    let result = view.result();
    let mut volatile = Vec::new();
    if let Some(Value::Object(structured)) = &result.structured_content {
        collect_volatile(structured, &mut volatile);
    }
    let mut text = serde_json::to_string(&sorted(serde_json::to_value(result).unwrap_or_default()))
        .unwrap_or_default();
    // Longest first, so that no value is a prefix of another being replaced.
    volatile.sort_by_key(|(value, _)| std::cmp::Reverse(value.len()));
    for (value, placeholder) in volatile {
        text = text.replace(&value, placeholder);
    }
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// `value` with every object's keys in sorted order, whether or not serde_json keeps
/// insertion order (its `preserve_order` feature is process-wide): snapshots stay the same.
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut entries: Vec<(String, Value)> = object.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

fn collect_volatile(object: &Map<String, Value>, out: &mut Vec<(String, &'static str)>) {
    for (key, value) in object {
        match value {
            Value::String(text) if !text.is_empty() => {
                if let Some((_, placeholder)) = VOLATILE.iter().find(|(name, _)| name == key) {
                    out.push((text.clone(), placeholder));
                }
            }
            Value::Object(inner) => collect_volatile(inner, out),
            Value::Array(items) => {
                for item in items {
                    if let Value::Object(inner) = item {
                        collect_volatile(inner, out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Snapshots a result with `insta` ([`result_snapshot`]: volatile ids replaced), in your
/// test's `snapshots/` folder: `assert_result_snapshot!(view)` or
/// `assert_result_snapshot!("name", view)`. Feature `testing`.
#[macro_export]
macro_rules! assert_result_snapshot {
    ($view:expr $(,)?) => {
        $crate::testing::__insta::assert_json_snapshot!($crate::testing::result_snapshot(&$view))
    };
    ($name:expr, $view:expr $(,)?) => {
        $crate::testing::__insta::assert_json_snapshot!(
            $name,
            $crate::testing::result_snapshot(&$view)
        )
    };
}

/// Snapshots a [`TestServer`]'s `tools/list` with `insta`:
/// `assert_tools_snapshot!(server)` or `assert_tools_snapshot!("name", server)`. Feature
/// `testing`.
#[macro_export]
macro_rules! assert_tools_snapshot {
    ($server:expr $(,)?) => {
        $crate::testing::__insta::assert_json_snapshot!($server.tools_snapshot())
    };
    ($name:expr, $server:expr $(,)?) => {
        $crate::testing::__insta::assert_json_snapshot!($name, $server.tools_snapshot())
    };
}
