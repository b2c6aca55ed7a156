//! Conformance against released MCP clients: the example server over stdio, driven by
//! the TypeScript SDK v1 client, the TypeScript v2 client, the Python SDK 1.x and 2.x, the
//! MCP Inspector CLI and rmcp's own client, on protocol 2025-06-18, 2025-11-25 and
//! 2026-07-28.
//!
//! The clients are pinned by lock files under `tests/clients/` and installed there by this
//! test (`npm ci`, and one virtualenv per Python SDK from hashed requirements); an install
//! is skipped while its lock file and toolchain are unchanged and the install completed.
//! Each client runs a small driver script (`tests/clients/*.mjs`, `py_driver.py`) that
//! performs the calls of `tests/clients/plan.json` and records what the client library
//! returned or raised; all the checking happens here, the same way for every client.
//!
//! The table of results is printed and written to `tests/clients/RESULTS.md`.
//!
//! `examples/broken_server.rs` is the negative control: a server whose results break their
//! own outputSchema. The same checks must fail on it, with the clients themselves reporting
//! the violation (`broken_server_is_caught`).

use crate::common;

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt::Write as _,
    fs,
    io::Write as _,
    path::{Path, PathBuf},
    sync::OnceLock,
    thread,
    time::{Duration, Instant},
};

use mcp_result::rmcp::{
    model::{
        CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
    },
    service::{serve_client_with_lifecycle, ClientLifecycleMode},
    transport::TokioChildProcess,
    ServiceError,
};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use common::pinned::{command, install_npm, install_venv, run_ok, tail, Installed, CLIENTS_DIR};

const PROTOCOLS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// Per request (connect, tools/list, one tools/call) inside a driver.
const STEP_TIMEOUT: Duration = Duration::from_secs(20);
/// One driver process, all its runs.
const DRIVER_TIMEOUT: Duration = Duration::from_secs(240);
/// The server key (`MCP_RESULT_SERVER_KEY`) of the servers a driver starts per call.
const SUITE_SERVER_KEY: &str = "the real-client suite's server key: tests only; not a secret";

// ---------------------------------------------------------------------------------------
// The clients and how each one reaches each protocol version
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Client {
    TsSdk1,
    TsClient2,
    PyMcp1,
    PyMcp2,
    Inspector,
    Rmcp,
}

const CLIENTS: [Client; 6] = [
    Client::TsSdk1,
    Client::TsClient2,
    Client::PyMcp1,
    Client::PyMcp2,
    Client::Inspector,
    Client::Rmcp,
];

/// How a client comes to run a session at a protocol version.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum How {
    /// The client offers that version in `initialize` itself (by default or by an option).
    Offers,
    /// The client only offers 2025-11-25; `pin-version.mjs` rewrites its offer.
    Pinned,
    /// The 2026-07-28 lifecycle: `server/discover`, then per-request `_meta`.
    Modern,
}

impl Client {
    fn name(self) -> &'static str {
        match self {
            Client::TsSdk1 => "TypeScript SDK client",
            Client::TsClient2 => "TypeScript client",
            Client::PyMcp1 => "Python SDK 1.x",
            Client::PyMcp2 => "Python SDK 2.x",
            Client::Inspector => "MCP Inspector CLI",
            Client::Rmcp => "rmcp client (Rust)",
        }
    }

    /// `None`: the client cannot speak that version.
    fn how(self, protocol: &str) -> Option<How> {
        use Client::*;
        match (self, protocol) {
            (TsSdk1 | PyMcp1, "2026-07-28") => None,
            (TsSdk1 | PyMcp1 | PyMcp2 | Inspector, "2025-06-18") => Some(How::Pinned),
            (_, "2026-07-28") => Some(How::Modern),
            _ => Some(How::Offers),
        }
    }

    /// The driver command, run in `tests/clients/`; `None` for rmcp (in process).
    fn driver(self) -> Option<(String, &'static str)> {
        let venv_python = |n: u8| format!("{CLIENTS_DIR}/.venv-mcp{n}/bin/python");
        Some(match self {
            Client::TsSdk1 => ("node".into(), "ts-sdk-1.mjs"),
            Client::TsClient2 => ("node".into(), "ts-client-2.mjs"),
            Client::PyMcp1 => (venv_python(1), "py_driver.py"),
            Client::PyMcp2 => (venv_python(2), "py_driver.py"),
            Client::Inspector => ("node".into(), "inspector.mjs"),
            Client::Rmcp => return None,
        })
    }

    fn slug(self) -> &'static str {
        match self {
            Client::TsSdk1 => "ts-sdk-1",
            Client::TsClient2 => "ts-client-2",
            Client::PyMcp1 => "py-mcp-1",
            Client::PyMcp2 => "py-mcp-2",
            Client::Inspector => "inspector",
            Client::Rmcp => "rmcp",
        }
    }
}

// ---------------------------------------------------------------------------------------
// The plan: tests/clients/plan.json (helpdesk) and plan-broken.json (broken_server)
// ---------------------------------------------------------------------------------------

#[derive(Deserialize)]
struct Plan {
    server: String,
    calls: Vec<PlanCall>,
}

#[derive(Deserialize)]
struct PlanCall {
    id: String,
    tool: String,
    arguments: Value,
    /// The request's `_meta` (an idempotency key), when the call sends one.
    #[serde(default)]
    meta: Option<Value>,
    /// How a client that elicits answers the server's question during this call: `accept`,
    /// `decline` or `cancel`.
    #[serde(default)]
    elicit: Option<String>,
    /// The id of an earlier call whose `structuredContent.nextCursor` (as this client
    /// returned it) the driver sends as this call's `cursor` argument: a walk through pages.
    #[serde(default, rename = "cursorFrom")]
    cursor_from: Option<String>,
    expect: Expect,
    /// In plan-broken.json: this call must make the checks fail.
    #[serde(default)]
    broken: bool,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Expect {
    is_error: Option<bool>,
    /// Key/value pairs `structuredContent` must contain.
    #[serde(default)]
    structured: Map<String, Value>,
    /// Keys `structuredContent` must have.
    #[serde(default)]
    has_keys: Vec<String>,
    /// Keys `structuredContent` must not have (`nextCursor` on a last page).
    #[serde(default)]
    absent_keys: Vec<String>,
    /// Arrays of `structuredContent` and the number of elements each must have.
    #[serde(default)]
    array_lengths: BTreeMap<String, usize>,
    /// Earlier calls (ids) none of whose `structuredContent.items` this call's `items`
    /// repeat: the pages of a walk never show an item twice.
    #[serde(default)]
    items_disjoint_from: Vec<String>,
    /// `structuredContent.fieldErrors[*].pointer` must contain each of these.
    #[serde(default)]
    field_error_pointers: Vec<String>,
    /// The content block types, in order (when given).
    content_types: Option<Vec<String>>,
    /// A JSON-RPC error with this code instead of a result.
    jsonrpc_error: Option<i64>,
    /// The id of an earlier call whose `structuredContent` this one must equal (a replay
    /// under the same idempotency key).
    same_structured_as: Option<String>,
    /// Clients (by name) that start a server per call: for them `sameStructuredAs` is a
    /// fresh execution in a fresh server instead (another `auditEventId`).
    #[serde(default)]
    fresh_server_per_call: Vec<String>,
    /// What is expected instead when the server asked the client's user (the driver
    /// records `elicited`): the clients that elicit, on protocol versions that allow it.
    if_elicited: Option<Box<Expect>>,
}

fn load_plan(file: &str) -> Result<Plan, String> {
    let path = Path::new(CLIENTS_DIR).join(file);
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

impl Plan {
    /// The tools the plan calls on their success path: every tool the server lists must
    /// be one of them. For an approval-gated tool, whose success needs a human, its path to
    /// a human (`blocked` with `requiresHumanReview`: none of the clients here elicits) counts.
    fn success_tools(&self) -> BTreeSet<&str> {
        self.calls
            .iter()
            .filter(|c| {
                c.expect.jsonrpc_error.is_none()
                    && (c.expect.is_error == Some(false)
                        || c.expect.structured.get("requiresHumanReview")
                            == Some(&Value::Bool(true)))
            })
            .map(|c| c.tool.as_str())
            .collect()
    }

    fn file(&self) -> &'static str {
        if self.server == "helpdesk" {
            "plan.json"
        } else {
            "plan-broken.json"
        }
    }

    fn calls_json(&self) -> Value {
        self.calls
            .iter()
            .map(|c| json!({"id": c.id, "tool": c.tool, "arguments": c.arguments, "meta": c.meta, "elicit": c.elicit, "cursorFrom": c.cursor_from}))
            .collect()
    }
}

// ---------------------------------------------------------------------------------------
// Running the clients
// ---------------------------------------------------------------------------------------

struct RunSpec {
    key: String,
    server: String,
    protocol: &'static str,
    how: How,
}

fn run_specs(client: Client, helpdesk: &Plan, broken: &Plan) -> Vec<RunSpec> {
    let mut specs: Vec<RunSpec> = PROTOCOLS
        .iter()
        .filter_map(|&protocol| {
            client.how(protocol).map(|how| RunSpec {
                key: format!("{}@{protocol}", helpdesk.server),
                server: helpdesk.server.clone(),
                protocol,
                how,
            })
        })
        .collect();
    specs.push(RunSpec {
        key: format!("{}@2025-11-25", broken.server),
        server: broken.server.clone(),
        protocol: "2025-11-25",
        how: How::Offers,
    });
    specs
}

fn job_run(spec: &RunSpec, plan: &Plan) -> Value {
    let server = common::example_path(&spec.server)
        .to_string_lossy()
        .into_owned();
    let (command, args) = match spec.how {
        How::Pinned => (
            "node".to_owned(),
            vec![
                format!("{CLIENTS_DIR}/pin-version.mjs"),
                spec.protocol.to_owned(),
                server,
            ],
        ),
        How::Offers | How::Modern => (server, vec![]),
    };
    json!({
        "key": spec.key,
        "protocol": spec.protocol,
        "connect": if spec.how == How::Modern { "modern" } else { "legacy" },
        "command": command,
        "args": args,
        // For drivers that start a server per call (the Inspector CLI): every server of a run
        // shares this key, so a page cursor one issued is read by the next.
        "serverEnv": {"MCP_RESULT_SERVER_KEY": SUITE_SERVER_KEY},
        "calls": plan.calls_json(),
    })
}

/// What one driver process reported: the client's name and version, one entry per run.
struct Report {
    client: String,
    runs: Vec<Value>,
    took: Duration,
}

fn run_driver(
    client: Client,
    work: &Path,
    helpdesk: &Plan,
    broken: &Plan,
) -> Result<Report, String> {
    let (program, script) = client.driver().expect("a driver");
    let specs = run_specs(client, helpdesk, broken);
    let runs: Vec<Value> = specs
        .iter()
        .map(|s| {
            job_run(
                s,
                if s.server == broken.server {
                    broken
                } else {
                    helpdesk
                },
            )
        })
        .collect();
    let job = json!({
        "timeoutMs": STEP_TIMEOUT.as_millis() as u64,
        "workDir": work.join(format!("{}-home", client.slug())),
        "concurrency": 4,
        "runs": runs,
    });
    let job_path = work.join(format!("{}-job.json", client.slug()));
    let report_path = work.join(format!("{}-report.json", client.slug()));
    let _ = fs::remove_file(&report_path);
    fs::write(&job_path, serde_json::to_string_pretty(&job).unwrap())
        .map_err(|e| format!("{}: {e}", job_path.display()))?;
    let mut cmd = command(
        &program,
        &[
            script,
            &job_path.to_string_lossy(),
            &report_path.to_string_lossy(),
        ],
        Path::new(CLIENTS_DIR),
    );
    cmd.env("PYTHONDONTWRITEBYTECODE", "1").env("NO_COLOR", "1");
    let label = format!("{} driver ({script})", client.name());
    let started = Instant::now();
    let finished = run_ok(&label, cmd, DRIVER_TIMEOUT)?;
    // The client's and the servers' stderr, for reading when a check fails.
    let log = work.join(format!("{}-stderr.log", client.slug()));
    let _ = fs::write(&log, &finished.stderr);
    let text = fs::read_to_string(&report_path).map_err(|e| {
        format!(
            "{label}: no report at {} ({e})\n--- stderr (tail)\n{}",
            report_path.display(),
            tail(&finished.stderr, 6000)
        )
    })?;
    let report: Value =
        serde_json::from_str(&text).map_err(|e| format!("{label}: unreadable report: {e}"))?;
    Ok(Report {
        client: report["client"].as_str().unwrap_or("?").to_owned(),
        runs: report["runs"].as_array().cloned().unwrap_or_default(),
        took: started.elapsed(),
    })
}

/// rmcp's client, in process: `initialize` for the 2025 versions (offering the version),
/// `ClientLifecycleMode::Discover` for 2026-07-28. Reports in the drivers' shape.
fn run_rmcp(helpdesk: &Plan, broken: &Plan) -> Result<Report, String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    let specs = run_specs(Client::Rmcp, helpdesk, broken);
    let started = Instant::now();
    let runs = runtime.block_on(async {
        let mut tasks = Vec::new();
        for spec in specs {
            let plan = if spec.server == broken.server { broken } else { helpdesk };
            let calls: Vec<RmcpCall> = plan
                .calls
                .iter()
                .map(|c| RmcpCall {
                    id: c.id.clone(),
                    tool: c.tool.clone(),
                    arguments: c.arguments.clone(),
                    meta: c.meta.clone(),
                    cursor_from: c.cursor_from.clone(),
                })
                .collect();
            tasks.push(tokio::spawn(rmcp_run(spec, calls)));
        }
        let mut runs = Vec::new();
        for task in tasks {
            runs.push(task.await.unwrap_or_else(|e| json!({"connectError": {"kind": "panic", "code": null, "message": e.to_string()}})));
        }
        runs
    });
    Ok(Report {
        client: format!("rmcp {}", locked_version("rmcp")),
        runs,
        took: started.elapsed(),
    })
}

/// One planned call, for rmcp's in-process client.
struct RmcpCall {
    id: String,
    tool: String,
    arguments: Value,
    meta: Option<Value>,
    cursor_from: Option<String>,
}

async fn rmcp_run(spec: RunSpec, calls: Vec<RmcpCall>) -> Value {
    use tokio::time::timeout;
    let mut out = json!({
        "key": spec.key, "protocol": spec.protocol,
        "connect": if spec.how == How::Modern { "discover" } else { "initialize" },
        "negotiated": null, "connectError": null, "listError": null, "tools": null, "calls": [],
    });
    let error =
        |kind: &str, message: String| json!({"kind": kind, "code": null, "message": message});
    let version: ProtocolVersion = serde_json::from_value(json!(spec.protocol)).unwrap();
    let info = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("mcp-result-conformance", "0.1.0"),
    )
    .with_protocol_version(version.clone());
    let lifecycle = match spec.how {
        How::Modern => ClientLifecycleMode::Discover {
            preferred_versions: vec![version],
        },
        _ => ClientLifecycleMode::Initialize,
    };
    let mut server = tokio::process::Command::new(common::example_path(&spec.server));
    server.kill_on_drop(true);
    let transport = match TokioChildProcess::new(server) {
        Ok(t) => t,
        Err(e) => {
            out["connectError"] = error("spawn", e.to_string());
            return out;
        }
    };
    let client = match timeout(
        STEP_TIMEOUT,
        serve_client_with_lifecycle(info, transport, lifecycle),
    )
    .await
    {
        Ok(Ok(client)) => client,
        Ok(Err(e)) => {
            out["connectError"] = error("ClientInitializeError", e.to_string());
            return out;
        }
        Err(_) => {
            out["connectError"] =
                error("timeout", format!("connect: no answer in {STEP_TIMEOUT:?}"));
            return out;
        }
    };
    out["negotiated"] = json!(client.peer_info().map(|i| i.protocol_version.to_string()));
    match timeout(STEP_TIMEOUT, client.list_all_tools()).await {
        Ok(Ok(tools)) => out["tools"] = serde_json::to_value(tools).unwrap(),
        Ok(Err(e)) => out["listError"] = error("ServiceError", e.to_string()),
        Err(_) => out["listError"] = error("timeout", "tools/list".into()),
    }
    let mut records: Vec<Value> = Vec::new();
    for RmcpCall {
        id,
        tool,
        arguments,
        meta,
        cursor_from,
    } in calls
    {
        let mut arguments = match arguments {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        if let Some(earlier) = cursor_from {
            let cursor = records
                .iter()
                .find(|r| r["id"] == earlier.as_str())
                .and_then(|r| r["result"]["structuredContent"]["nextCursor"].as_str());
            match cursor {
                Some(cursor) => {
                    arguments.insert("cursor".into(), json!(cursor));
                }
                None => {
                    records.push(json!({"id": id, "error": error("plan", format!("`{earlier}` returned no nextCursor"))}));
                    continue;
                }
            }
        }
        let mut request = CallToolRequestParams::new(tool).with_arguments(arguments);
        if let Some(Value::Object(meta)) = meta {
            request.meta = Some(mcp_result::rmcp::model::RequestMetaObject(
                mcp_result::rmcp::model::MetaObject(meta),
            ));
        }
        let record = match timeout(STEP_TIMEOUT, client.call_tool(request)).await {
            Ok(Ok(result)) => json!({"id": id, "result": result}),
            Ok(Err(ServiceError::McpError(e))) => json!({"id": id, "error": {
                "kind": "McpError", "code": e.code.0, "message": e.message}}),
            Ok(Err(e)) => json!({"id": id, "error": error("ServiceError", e.to_string())}),
            Err(_) => json!({"id": id, "error": error("timeout", "tools/call".into())}),
        };
        records.push(record);
    }
    out["calls"] = Value::Array(records);
    let _ = timeout(Duration::from_secs(5), client.cancel()).await;
    out
}

/// The version of `package` in the workspace's Cargo.lock.
fn locked_version(package: &str) -> String {
    let lock =
        fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap_or_default();
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line == format!("name = \"{package}\"") {
            if let Some(v) = lines.next().and_then(|l| l.strip_prefix("version = \"")) {
                return v.trim_end_matches('"').to_owned();
            }
        }
    }
    "?".into()
}

// ---------------------------------------------------------------------------------------
// The checks: the same for every client
// ---------------------------------------------------------------------------------------

const BLOCK_TYPES: [&str; 5] = ["text", "image", "audio", "resource_link", "resource"];

#[derive(Default)]
struct Outcome {
    calls: usize,
    checks: usize,
    failures: Vec<String>,
    /// Failures per planned call id (for the negative control).
    failed_calls: BTreeMap<String, Vec<String>>,
    notes: BTreeSet<String>,
}

struct Checker<'o> {
    out: &'o mut Outcome,
    label: String,
    call: Option<String>,
}

impl Checker<'_> {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) -> bool {
        self.out.checks += 1;
        if !ok {
            let what = what();
            if let Some(call) = &self.call {
                self.out
                    .failed_calls
                    .entry(call.clone())
                    .or_default()
                    .push(what.clone());
            }
            self.out.failures.push(format!("{}: {what}", self.label));
        }
        ok
    }
}

fn describe_error(error: &Value) -> String {
    let code = error["code"]
        .as_i64()
        .map(|c| format!(" {c}"))
        .or_else(|| error["cliCode"].as_str().map(|c| format!(" {c}")))
        .unwrap_or_default();
    let message = error["message"].as_str().unwrap_or("?");
    // The TypeScript v1 SDK repeats the code in its message: "MCP error -32602: ...".
    let message = message
        .strip_prefix("MCP error ")
        .and_then(|m| m.split_once(": "))
        .map_or(message, |(_, rest)| rest);
    format!(
        "{}{code}: {message}",
        error["kind"].as_str().unwrap_or("error")
    )
}

fn find<'a>(items: &'a Value, key: &str, value: &str) -> Option<&'a Value> {
    items.as_array()?.iter().find(|i| i[key] == value)
}

fn block_types(result: &Value) -> Vec<String> {
    result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .map(|b| b["type"].as_str().unwrap_or("?").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Checks one run (one client, one protocol version, one server) against its plan.
/// `reference` is rmcp's run of the same server and version: what the server sent.
fn check_run(
    client: Client,
    report_client: &str,
    plan: &Plan,
    run: &Value,
    reference: Option<&Value>,
) -> Outcome {
    let mut out = Outcome::default();
    let protocol = run["protocol"].as_str().unwrap_or("?").to_owned();
    let label = format!("{report_client} × {protocol} × {}", plan.server);
    let mut c = Checker {
        out: &mut out,
        label: label.clone(),
        call: None,
    };
    if !run["connectError"].is_null() {
        c.check(false, || {
            format!("connect failed: {}", describe_error(&run["connectError"]))
        });
        return out;
    }
    c.check(run["negotiated"] == protocol.as_str(), || {
        format!(
            "negotiated protocol {} instead of {protocol}",
            run["negotiated"]
        )
    });

    // tools/list
    let mut schemas: BTreeMap<String, Value> = BTreeMap::new();
    let mut listed: Option<BTreeSet<String>> = None;
    c.label = format!("{label} × tools/list");
    if c.check(run["listError"].is_null(), || {
        format!("tools/list failed: {}", describe_error(&run["listError"]))
    }) {
        let tools = run["tools"].as_array().cloned().unwrap_or_default();
        let names: BTreeSet<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        let planned = plan.success_tools();
        let unplanned: Vec<&str> = names.difference(&planned).copied().collect();
        c.check(unplanned.is_empty(), || {
            format!(
                "the server lists {unplanned:?}, which tests/clients/{} does not call on a success path: add the calls",
                plan.file()
            )
        });
        listed = Some(names.iter().map(|n| n.to_string()).collect());
        for tool in &tools {
            let name = tool["name"].as_str().unwrap_or("?");
            let schema = &tool["outputSchema"];
            c.check(schema.is_object() && schema["type"] == "object", || {
                format!(
                    "tool {name}: outputSchema missing or its root is not type object: {schema}"
                )
            });
            schemas.insert(name.to_owned(), schema.clone());
        }
    }
    if let Some(lint) = run.get("lint").filter(|l| !l.is_null()) {
        if let Some(summary) = lint["summary"].as_str() {
            c.out.notes.insert(format!(
                "`tools/list --strict` on {}: {summary}",
                plan.server
            ));
        }
    }

    for call in &plan.calls {
        c.label = format!("{label} × {}", call.id);
        c.call = Some(call.id.clone());
        let unlisted = listed.as_ref().is_some_and(|l| !l.contains(&call.tool));
        if call.expect.jsonrpc_error.is_none() && unlisted {
            // A tool the plan knows and this build of the server does not (yet, or any
            // longer): nothing to check, but say so.
            c.out.notes.insert(format!(
                "tests/clients/{} calls `{}`, which this build of `{}` does not list: those calls were skipped",
                plan.file(),
                call.tool,
                plan.server
            ));
            continue;
        }
        let Some(record) = find(&run["calls"], "id", &call.id) else {
            c.check(false, || "the driver recorded no such call".into());
            continue;
        };
        c.out.calls += 1;
        let elicited = record["elicited"] == Value::Bool(true);
        let expect = match (&call.expect.if_elicited, elicited) {
            (Some(instead), true) => {
                c.out.notes.insert(format!(
                    "`{}`: the server asked the client's user (elicitation)",
                    call.id
                ));
                &**instead
            }
            (None, true) => {
                c.check(false, || {
                    "the server elicited, which the plan does not expect".into()
                });
                &call.expect
            }
            (_, false) => &call.expect,
        };
        if let Some(code) = expect.jsonrpc_error {
            if client == Client::Inspector {
                // The CLI looks the name up in tools/list and exits 5 without calling.
                c.check(record["error"]["cliCode"] == "tool_not_found", || {
                    format!("expected the CLI's tool_not_found (exit 5), got {record}")
                });
                c.out.notes.insert(
                    "Inspector: an unknown tool name is refused by the CLI itself (exit 5, \
                     `tool_not_found`) after `tools/list`, so the server's -32602 is not observable there"
                        .into(),
                );
            } else {
                c.check(record["error"]["code"] == code, || {
                    match record.get("result") {
                        Some(result) => {
                            format!("expected JSON-RPC error {code}, got a result: {result}")
                        }
                        None => format!(
                            "expected JSON-RPC error {code}, got {}",
                            describe_error(&record["error"])
                        ),
                    }
                });
            }
            continue;
        }
        let Some(result) = record.get("result") else {
            c.check(false, || {
                format!("the client raised {}", describe_error(&record["error"]))
            });
            continue;
        };
        let is_error = result["isError"].as_bool().unwrap_or(false);
        let expected_error = expect.is_error.unwrap_or(false);
        c.check(is_error == expected_error, || {
            format!("isError is {is_error}, expected {expected_error}")
        });
        if let Some(exit) = record.get("cliExit") {
            let want = if is_error { 5 } else { 0 };
            c.check(*exit == want, || {
                format!("CLI exit {exit}, expected {want}")
            });
        }
        // Content blocks: known types, well-formed, the same the server sent.
        let types = block_types(result);
        for (i, block) in result["content"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let ty = block["type"].as_str().unwrap_or("?");
            let well_formed = match ty {
                "text" => block["text"].is_string(),
                "image" | "audio" => block["data"].is_string() && block["mimeType"].is_string(),
                "resource_link" => block["uri"].is_string() && block["name"].is_string(),
                "resource" => block["resource"]["uri"].is_string(),
                _ => false,
            };
            c.check(BLOCK_TYPES.contains(&ty) && well_formed, || {
                format!("content[{i}] is not a well-formed block of a known type: {block}")
            });
            c.out
                .notes
                .insert(format!("content block types seen: {ty}"));
        }
        if let Some(expected) = &expect.content_types {
            c.check(&types == expected, || {
                format!("content block types {types:?}, expected {expected:?}")
            });
        }
        // Against what the server sent (rmcp's view of the same call): the same blocks,
        // each with every field the server gave it (annotations, _meta, title, size...).
        // (Not when this client was asked: rmcp's harness client does not elicit, so the
        // server answered it otherwise.)
        if let Some(sent) = reference
            .filter(|_| !elicited)
            .and_then(|r| find(&r["calls"], "id", &call.id))
            .and_then(|r| r.get("result"))
        {
            let sent_types = block_types(sent);
            c.check(types == sent_types, || {
                format!("content block types {types:?}, the server sent {sent_types:?}")
            });
            let blocks = result["content"].as_array().cloned().unwrap_or_default();
            let sent_blocks = sent["content"].as_array().cloned().unwrap_or_default();
            for (i, (got, sent)) in blocks.iter().zip(&sent_blocks).enumerate() {
                let missing: Vec<&String> = sent
                    .as_object()
                    .into_iter()
                    .flat_map(|o| o.keys())
                    .filter(|k| got.get(k.as_str()).is_none())
                    .collect();
                c.check(missing.is_empty(), || {
                    format!("content[{i}] lost the fields {missing:?} the server sent: {got}")
                });
            }
        }
        let Some(structured) = result.get("structuredContent").filter(|s| !s.is_null()) else {
            c.check(false, || "no structuredContent".into());
            continue;
        };
        c.check(structured.is_object(), || {
            format!("structuredContent is not an object: {structured}")
        });
        // The harness validates too (rmcp's client does not, Python skips isError results).
        if let Some(schema) = schemas.get(&call.tool).filter(|s| s.is_object()) {
            match jsonschema::draft202012::new(schema) {
                Ok(validator) => {
                    let errors: Vec<String> = validator
                        .iter_errors(structured)
                        .map(|e| match e.instance_path().to_string() {
                            path if path.is_empty() => format!("{e} (at the root)"),
                            path => format!("{e} at {path}"),
                        })
                        .collect();
                    c.check(errors.is_empty(), || {
                        format!(
                            "structuredContent does not match the outputSchema: {}",
                            errors.join("; ")
                        )
                    });
                }
                Err(e) => {
                    c.check(false, || format!("outputSchema does not compile: {e}"));
                }
            }
        }
        for (key, value) in &expect.structured {
            c.check(structured[key] == *value, || {
                format!(
                    "structuredContent.{key} is {}, expected {value}",
                    structured[key]
                )
            });
        }
        for key in &expect.has_keys {
            c.check(structured.get(key).is_some(), || {
                format!("structuredContent has no `{key}`")
            });
        }
        for key in &expect.absent_keys {
            c.check(structured.get(key).is_none(), || {
                format!(
                    "structuredContent has `{key}`, which it must not: {}",
                    structured[key]
                )
            });
        }
        for (key, length) in &expect.array_lengths {
            let got = structured[key].as_array().map(Vec::len);
            c.check(got == Some(*length), || {
                format!("structuredContent.{key} has {got:?} elements, expected {length}")
            });
        }
        for earlier in &expect.items_disjoint_from {
            let before = find(&run["calls"], "id", earlier)
                .and_then(|r| r["result"]["structuredContent"]["items"].as_array())
                .cloned()
                .unwrap_or_default();
            let repeated: Vec<&Value> = structured["items"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|item| before.contains(item))
                .collect();
            c.check(!before.is_empty() && repeated.is_empty(), || {
                format!("items repeated from `{earlier}` (or it had none): {repeated:?}")
            });
        }
        if let Some(earlier) = &expect.same_structured_as {
            let first = find(&run["calls"], "id", earlier)
                .and_then(|r| r["result"].get("structuredContent"))
                .cloned()
                .unwrap_or(Value::Null);
            if expect
                .fresh_server_per_call
                .iter()
                .any(|name| report_client.contains(name.as_str()))
            {
                c.check(
                    structured["auditEventId"] != first["auditEventId"]
                        && structured.get("noteId") == first.get("noteId"),
                    || {
                        format!(
                            "expected a fresh execution in a fresh server: {structured} vs {first}"
                        )
                    },
                );
            } else {
                c.check(*structured == first, || {
                    format!(
                        "structuredContent {structured} is not the replay of `{earlier}`: {first}"
                    )
                });
            }
        }
        for pointer in &expect.field_error_pointers {
            let found = structured["fieldErrors"]
                .as_array()
                .is_some_and(|errors| errors.iter().any(|e| e["pointer"] == pointer.as_str()));
            c.check(found, || {
                format!(
                    "no fieldErrors entry with pointer {pointer}: {}",
                    structured["fieldErrors"]
                )
            });
        }
        // Summary first, the JSON-compat text second: it parses equal to structuredContent.
        let texts: Vec<&str> = result["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect();
        c.check(texts.first().is_some_and(|t| !t.trim().is_empty()), || {
            "the first text block (the summary) is missing or empty".into()
        });
        match texts.get(1) {
            None => {
                c.check(false, || {
                    format!("no second text block (JSON-compat): {types:?}")
                });
            }
            Some(text) => {
                let parsed: Result<Value, _> = serde_json::from_str(text);
                c.check(
                    parsed.as_ref().is_ok_and(|p| p == structured),
                    || match &parsed {
                        Ok(p) => format!(
                            "the JSON-compat text parses to {p}, structuredContent is {structured}"
                        ),
                        Err(e) => format!("the JSON-compat text does not parse ({e}): {text}"),
                    },
                );
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The suite: install, run every client at once, check, write RESULTS.md
// ---------------------------------------------------------------------------------------

struct Cell {
    client: Client,
    protocol: &'static str,
    how: Option<How>,
    outcome: Option<Outcome>,
}

struct BrokenRow {
    client: String,
    kind: Client,
    records: Vec<(String, bool, Option<Value>)>, // (call id, broken?, call record)
    outcome: Outcome,
}

struct Suite {
    /// Client row name (with the exact version) per client.
    names: BTreeMap<Client, String>,
    cells: Vec<Cell>,
    broken: Vec<BrokenRow>,
    /// Problems outside any one run: a driver that crashed, a plan that misses a tool.
    errors: Vec<String>,
    table: String,
}

fn run_suite() -> Result<Suite, String> {
    let started = Instant::now();
    let helpdesk = load_plan("plan.json")?;
    let broken = load_plan("plan-broken.json")?;
    // Both servers must be built: `cargo test` builds the examples before it runs the
    // tests, `cargo test --test suite -- clients::` alone does not.
    for server in [&helpdesk.server, &broken.server] {
        let exe = std::env::current_exe().map_err(|e| format!("test executable: {e}"))?;
        let path = exe
            .parent()
            .and_then(Path::parent)
            .map(|profile| profile.join("examples").join(server))
            .ok_or("no target directory above the test executable")?;
        if !path.exists() {
            return Err(format!(
                "example `{server}` is not built ({}): run `cargo test` (which builds the \
                 examples first), or `cargo build --examples` before `cargo test --test suite -- clients::`",
                path.display()
            ));
        }
    }
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("clients");
    fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;

    // 1. Install the pinned clients, the three installers at once.
    let installs = thread::scope(|s| {
        let npm = s.spawn(install_npm);
        let py1 = s.spawn(|| install_venv(1));
        let py2 = s.spawn(|| install_venv(2));
        [npm, py1, py2].map(|h| {
            h.join()
                .unwrap_or_else(|_| Err("installer thread panicked".into()))
        })
    });
    let mut install_log = String::new();
    let mut install_errors = Vec::new();
    for install in installs {
        match install {
            Ok(Installed {
                what,
                took: Some(t),
            }) => {
                let _ = writeln!(install_log, "installed: {what} in {:.1} s", t.as_secs_f64());
            }
            Ok(Installed { what, took: None }) => {
                let _ = writeln!(install_log, "up to date: {what}");
            }
            Err(e) => install_errors.push(e),
        }
    }
    if !install_errors.is_empty() {
        return Err(format!(
            "installing the pinned MCP clients failed:\n\n{}",
            install_errors.join("\n\n")
        ));
    }
    let installed_at = started.elapsed();

    // 2. Every client at once: the drivers as child processes, rmcp in process.
    let reports: Vec<(Client, Result<Report, String>)> = thread::scope(|s| {
        let handles: Vec<_> = CLIENTS
            .iter()
            .map(|&client| {
                let (work, helpdesk, broken) = (&work, &helpdesk, &broken);
                (
                    client,
                    s.spawn(move || match client {
                        Client::Rmcp => run_rmcp(helpdesk, broken),
                        _ => run_driver(client, work, helpdesk, broken),
                    }),
                )
            })
            .collect();
        handles
            .into_iter()
            .map(|(client, h)| {
                (
                    client,
                    h.join()
                        .unwrap_or_else(|_| Err("driver thread panicked".into())),
                )
            })
            .collect()
    });
    let ran_at = started.elapsed();
    let mut driver_log = String::new();
    for (client, report) in &reports {
        if let Ok(report) = report {
            let _ = writeln!(
                driver_log,
                "ran: {} in {:.1} s",
                report.client,
                report.took.as_secs_f64()
            );
        } else {
            let _ = writeln!(driver_log, "ran: {} (failed)", client.name());
        }
    }

    // 3. Check.
    let mut errors = Vec::new();
    let run_of = |report: &Report, key: &str| report.runs.iter().find(|r| r["key"] == key).cloned();
    let rmcp_report = reports
        .iter()
        .find(|(c, _)| *c == Client::Rmcp)
        .and_then(|(_, r)| r.as_ref().ok());
    let mut names = BTreeMap::new();
    let mut cells = Vec::new();
    let mut broken_rows = Vec::new();
    for (client, report) in &reports {
        let report = match report {
            Ok(report) => report,
            Err(e) => {
                errors.push(format!("{}: {e}", client.name()));
                names.insert(*client, client.name().to_owned());
                for protocol in PROTOCOLS {
                    cells.push(Cell {
                        client: *client,
                        protocol,
                        how: client.how(protocol),
                        outcome: None,
                    });
                }
                continue;
            }
        };
        names.insert(*client, report.client.clone());
        for protocol in PROTOCOLS {
            let how = client.how(protocol);
            let key = format!("{}@{protocol}", helpdesk.server);
            let outcome = how.map(|_| match run_of(report, &key) {
                Some(run) => {
                    let reference = rmcp_report.and_then(|r| run_of(r, &key));
                    check_run(*client, &report.client, &helpdesk, &run, reference.as_ref())
                }
                None => Outcome {
                    failures: vec![format!(
                        "{}: the driver reported no run {key}",
                        report.client
                    )],
                    ..Outcome::default()
                },
            });
            cells.push(Cell {
                client: *client,
                protocol,
                how,
                outcome,
            });
        }
        let key = format!("{}@2025-11-25", broken.server);
        let run = run_of(report, &key).unwrap_or(Value::Null);
        let reference = rmcp_report.and_then(|r| run_of(r, &key));
        let outcome = if run.is_null() {
            Outcome {
                failures: vec![format!(
                    "{}: the driver reported no run {key}",
                    report.client
                )],
                ..Outcome::default()
            }
        } else {
            check_run(*client, &report.client, &broken, &run, reference.as_ref())
        };
        let records = broken
            .calls
            .iter()
            .map(|c| {
                (
                    c.id.clone(),
                    c.broken,
                    find(&run["calls"], "id", &c.id).cloned(),
                )
            })
            .collect();
        broken_rows.push(BrokenRow {
            client: report.client.clone(),
            kind: *client,
            records,
            outcome,
        });
    }

    let mut suite = Suite {
        names,
        cells,
        broken: broken_rows,
        errors,
        table: String::new(),
    };
    suite.table = render(&suite, &helpdesk, &broken);
    fs::write(Path::new(CLIENTS_DIR).join("RESULTS.md"), &suite.table)
        .map_err(|e| format!("writing tests/clients/RESULTS.md: {e}"))?;

    // Printed outside the test harness's capture, so `cargo test` always shows it.
    let mut shown = String::new();
    let _ = writeln!(
        shown,
        "\n==== MCP client conformance (tests/clients/RESULTS.md) ====\n"
    );
    shown.push_str(&suite.table);
    let _ = writeln!(
        shown,
        "\n{install_log}{driver_log}wall time: installs {:.1} s, clients {:.1} s, total {:.1} s\n",
        installed_at.as_secs_f64(),
        (ran_at - installed_at).as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    let _ = std::io::stderr().lock().write_all(shown.as_bytes());
    Ok(suite)
}

fn cell_text(cell: &Cell) -> String {
    let marker = match cell.how {
        Some(How::Pinned) => " ²",
        _ => "",
    };
    match (&cell.how, &cell.outcome) {
        (None, _) => "n/a ¹".into(),
        (Some(_), None) => "FAILED: the driver did not run".into(),
        (Some(_), Some(o)) if o.failures.is_empty() => {
            format!("passed: {} calls, {} checks{marker}", o.calls, o.checks)
        }
        (Some(_), Some(o)) => format!(
            "FAILED: {} of {} checks ({} calls){marker}",
            o.failures.len(),
            o.checks,
            o.calls
        ),
    }
}

fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_owned()
    }
}

fn render(suite: &Suite, helpdesk: &Plan, broken: &Plan) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "# MCP client conformance\n");
    let _ = writeln!(
        t,
        "Written by `cargo test --test suite -- clients::` (part of `cargo test --workspace`): the example \
         server `examples/{}/` over stdio, driven by released MCP clients pinned in \
         `tests/clients/` ({} calls per run: every tool on its success path, every error kind \
         the server shows, a bad argument, an unknown tool, and a search walked through its \
         three pages by following `nextCursor`; see `plan.json`). A cell passes when every \
         check holds: no client-side schema or validation error, `isError` exactly where \
         expected, -32602 for the unknown tool, the JSON-compat text (second text block) \
         parses equal to `structuredContent`, `structuredContent` matches the tool's \
         `outputSchema`, every content block is of a known type and as the server sent it, \
         and each page is the one expected (its offset and size, no item twice, no \
         `nextCursor` on the last).\n",
        helpdesk.server,
        helpdesk.calls.len()
    );
    let _ = writeln!(t, "| client | {} |", PROTOCOLS.join(" | "));
    let _ = writeln!(t, "|---|{}", "---|".repeat(PROTOCOLS.len()));
    for client in CLIENTS {
        let name = suite
            .names
            .get(&client)
            .cloned()
            .unwrap_or_else(|| client.name().into());
        let cells: Vec<String> = PROTOCOLS
            .iter()
            .map(|p| {
                suite
                    .cells
                    .iter()
                    .find(|c| c.client == client && c.protocol == *p)
                    .map(cell_text)
                    .unwrap_or_else(|| "FAILED: not run".into())
            })
            .collect();
        let _ = writeln!(t, "| {} | {} |", row_name(client, &name), cells.join(" | "));
    }
    let _ = writeln!(t);
    let _ = writeln!(
        t,
        "¹ This SDK line has no 2026-07-28 (no `server/discover`, no per-request `_meta`); \
         2026-07-28 is covered by the clients that have it, and by rmcp's client in \
         `ClientLifecycleMode::Discover`.  "
    );
    let _ = writeln!(
        t,
        "² The client offers only 2025-11-25 in `initialize`; `tests/clients/pin-version.mjs`, a \
         stdio pass-through, rewrites that offer to 2025-06-18, the server answers 2025-06-18 and \
         the client (which supports it) runs the session at 2025-06-18. The TypeScript v2 client \
         offers 2025-06-18 itself (`supportedProtocolVersions`).  "
    );
    let _ = writeln!(
        t,
        "Connections: the 2025 versions use the `initialize` handshake; 2026-07-28 is the \
         TypeScript v2 client's `versionNegotiation: {{mode: {{pin: \"2026-07-28\"}}}}`, Python \
         2.x `Client(mode=\"auto\")` (`server/discover` probe), the Inspector's \
         `--protocol-era modern` and rmcp's `ClientLifecycleMode::Discover`. Every cell checks \
         that the negotiated version is the one in its column.\n"
    );
    let mut notes: BTreeSet<String> = BTreeSet::new();
    for cell in &suite.cells {
        if let Some(o) = &cell.outcome {
            notes.extend(o.notes.iter().cloned());
        }
    }
    notes.insert(
        "rmcp's client does not validate `structuredContent`; the harness validates every \
         client's results against the listed `outputSchema` (jsonschema, draft 2020-12)"
            .into(),
    );
    let _ = writeln!(t, "Notes:\n");
    let mut types: BTreeSet<String> = BTreeSet::new();
    for note in &notes {
        match note.strip_prefix("content block types seen: ") {
            Some(ty) => {
                types.insert(format!("`{ty}`"));
            }
            None => {
                let _ = writeln!(t, "- {note}");
            }
        }
    }
    let _ = writeln!(
        t,
        "- content block types the server emitted: {}",
        types.into_iter().collect::<Vec<_>>().join(", ")
    );
    let _ = writeln!(t);

    let _ = writeln!(t, "## Negative control: `examples/{}.rs`\n", broken.server);
    let _ = writeln!(
        t,
        "A hand-written rmcp server whose results break their own `outputSchema`. The same checks \
         run on it (protocol 2025-11-25) and must fail on the broken calls, with each released \
         client raising the violation itself; rmcp's client does not validate, so there the \
         harness's own schema check catches it.\n"
    );
    let headers: Vec<String> = broken.calls.iter().map(|c| format!("`{}`", c.id)).collect();
    let _ = writeln!(t, "| client | {} |", headers.join(" | "));
    let _ = writeln!(t, "|---|{}", "---|".repeat(headers.len()));
    for row in &suite.broken {
        let cells: Vec<String> = row
            .records
            .iter()
            .map(|(id, _, record)| {
                let failures = row.outcome.failed_calls.get(id);
                match (record, failures) {
                    (None, _) => "FAILED: not run".into(),
                    (Some(_), None) => "passed".into(),
                    (Some(r), Some(f)) => match r.get("error") {
                        Some(e) => format!(
                            "caught by the client: {}",
                            first_line(&describe_error(e), 110).replace('|', "\\|")
                        ),
                        None => format!(
                            "caught by the harness: {}",
                            first_line(&f[0], 110).replace('|', "\\|")
                        ),
                    },
                }
            })
            .collect();
        let _ = writeln!(
            t,
            "| {} | {} |",
            row_name(row.kind, &row.client),
            cells.join(" | ")
        );
    }
    if !suite.errors.is_empty() {
        let _ = writeln!(t, "\n## Errors\n");
        for e in &suite.errors {
            let _ = writeln!(t, "```text\n{}\n```", tail(e, 3000));
        }
    }
    t
}

fn row_name(client: Client, reported: &str) -> String {
    match client {
        Client::TsSdk1 | Client::TsClient2 | Client::Inspector => {
            let (package, rest) = reported.split_once(' ').unwrap_or((reported, ""));
            format!("{} `{package}` {rest}", client.name())
        }
        Client::PyMcp1 | Client::PyMcp2 => {
            let version = reported.split_whitespace().nth(1).unwrap_or("?");
            format!("Python SDK `mcp` {version}")
        }
        Client::Rmcp => format!(
            "{} `rmcp` {}",
            client.name(),
            reported.trim_start_matches("rmcp ")
        ),
    }
}

static SUITE: OnceLock<Result<Suite, String>> = OnceLock::new();

fn suite() -> &'static Suite {
    match SUITE.get_or_init(run_suite) {
        Ok(suite) => suite,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn released_clients_conform() {
    let suite = suite();
    let mut failures: Vec<String> = suite.errors.clone();
    for cell in &suite.cells {
        if let Some(outcome) = &cell.outcome {
            failures.extend(outcome.failures.iter().cloned());
        } else if cell.how.is_some() {
            failures.push(format!(
                "{} × {}: not run",
                cell.client.name(),
                cell.protocol
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} conformance check(s) failed:\n\n{}\n\n{}\nEach client's stderr (with the servers'): {}/clients/*-stderr.log",
        failures.len(),
        failures.join("\n"),
        suite.table,
        env!("CARGO_TARGET_TMPDIR")
    );
}

#[test]
fn broken_server_is_caught() {
    let suite = suite();
    let mut problems = Vec::new();
    let mut caught_by_client = BTreeSet::new();
    for row in &suite.broken {
        for (id, is_broken, record) in &row.records {
            let failures = row.outcome.failed_calls.get(id);
            let Some(record) = record else {
                problems.push(format!("{}: `{id}` was not run", row.client));
                continue;
            };
            if !is_broken {
                if let Some(f) = failures {
                    problems.push(format!(
                        "{}: the correct call `{id}` failed: {f:?}",
                        row.client
                    ));
                }
                continue;
            }
            if failures.is_none() {
                problems.push(format!(
                    "{}: `{id}` passed the checks: the suite did not detect the broken result {record}",
                    row.client
                ));
                continue;
            }
            if row.kind == Client::Rmcp {
                continue; // rmcp does not validate; the harness's failure above is the catch
            }
            // A released client must report it itself, naming the output schema or the
            // structured content.
            let reported = record["error"]["message"]
                .as_str()
                .map(str::to_lowercase)
                .is_some_and(|m| {
                    ["schema", "structured content", "required property"]
                        .iter()
                        .any(|w| m.contains(w))
                });
            if reported {
                caught_by_client.insert(row.kind);
            } else {
                problems.push(format!(
                    "{}: `{id}` was not reported by the client as an output-schema violation: {record}",
                    row.client
                ));
            }
        }
    }
    for required in [Client::TsSdk1, Client::PyMcp1] {
        if !caught_by_client.contains(&required) {
            problems.push(format!(
                "{} did not report the broken server",
                required.name()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "the negative control was not caught:\n\n{}\n\n{}",
        problems.join("\n"),
        suite.table
    );
}
