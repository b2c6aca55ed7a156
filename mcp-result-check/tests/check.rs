//! `mcp-result-check` run as users run it, as a process, against real servers over real
//! transports: the `mcp-result` crate's example (clean, over stdio and over streamable HTTP),
//! its broken example server, and a Python FastMCP server and a TypeScript McpServer written
//! for these tests (`tests/check/`, on the SDKs the real-client suite pins in the workspace's
//! `tests/clients/`). Each planted violation must be reported, and nothing else: the exact
//! set of (tool, check) findings.

mod common;

use std::{collections::BTreeSet, path::Path, process::Command, sync::OnceLock, time::Duration};

use common::pinned::{install_npm, install_venv, run, Finished, CLIENTS_DIR};
use mcp_result::serde_json::{self, Value};

const CHECK: &str = env!("CARGO_BIN_EXE_mcp-result-check");
const CHECK_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/check");
/// One run of the check, the server's start included.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// What the check of the example's write tools calls them with (real ticket ids, so the
/// success paths are checked, not only the not-found ones).
const HELPDESK_SAMPLES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/check/helpdesk-samples.json"
);

// ---------------------------------------------------------------------------------------
// What each planted server must be reported for, and nothing else
// ---------------------------------------------------------------------------------------

/// `examples/broken_server.rs --all-plants`.
const BROKEN: &[(&str, &str)] = &[
    ("", "tools-capability"),
    ("", "tools-list-empty-cursor"),
    ("get_order_broken", "output-schema"),
    ("get_order_unstructured", "structured-content"),
    ("get_order_summary", "json-compat-text"),
    ("list_orders_text", "output-schema-missing"),
    ("cancel_order", "write-contract"),
    ("get_invoice", "error-status"),
    ("get_invoice", "error-retry-safe"),
    ("find_orders", "bad-arguments"),
    ("get_order_lax", "bad-arguments"),
    ("check_address", "error-field-errors"),
    ("export_orders", "large-output"),
    ("get_order_discount", "meta-business-data"),
    ("get_integration", "secret"),
    ("track_shipment", "call-error"),
    ("get_order_report", "internal-error"),
    ("get_order_v2", "schema-dialect"),
    ("get_customer", "schema-ref"),
    ("orders.lookup", "lint/claude-name"),
    ("orders.lookup", "lint/openai-name"),
    ("orders.lookup", "lint/copilot-name"),
];

/// `examples/broken_server.rs --no-tools`.
const BROKEN_NO_TOOLS: &[(&str, &str)] = &[("", "tools-capability"), ("", "tools-list")];

/// `examples/broken_server.rs --looping-list`: its plants, and a `tools/list` whose every
/// page points at itself.
const BROKEN_LOOPING: &[(&str, &str)] = &[("", "tools-list-cursor")];

/// `tests/check/fastmcp_server.py` (its docstring says why each is there).
const FASTMCP: &[(&str, &str)] = &[
    ("", "unknown-tool"),
    ("get_book", "error-status"),
    ("get_book", "error-retry-safe"),
    ("get_book", "error-field-errors"),
    ("list_genres", "output-schema-missing"),
    ("export_catalog", "large-output"),
    ("borrow_book", "write-contract"),
    ("get_reading_list", "meta-business-data"),
    ("list_isbns", "output-object-root"),
];

/// `tests/check/ts_server.mjs` (its header says why each is there).
const TYPESCRIPT: &[(&str, &str)] = &[
    ("", "unknown-tool"),
    ("lookup_city", "error-status"),
    ("lookup_city", "error-retry-safe"),
    ("lookup_city", "error-field-errors"),
    ("get_conditions", "json-compat-text"),
    ("get_radar", "output-schema-missing"),
    ("reset_thermostat", "write-contract"),
    ("get_station_token", "secret"),
];

// ---------------------------------------------------------------------------------------
// Running the check
// ---------------------------------------------------------------------------------------

fn check(args: &[&str]) -> Finished {
    let mut command = Command::new(CHECK);
    command.args(args);
    run("mcp-result-check", command, RUN_TIMEOUT).unwrap_or_else(|e| panic!("{e}"))
}

fn exit_code(finished: &Finished) -> i32 {
    finished.status.code().expect("exited, not killed")
}

/// Runs the check with `--format json`, expects exit status `code`, returns the report.
fn check_json(args: &[&str], code: i32) -> Value {
    let mut all = vec!["--format", "json"];
    all.extend(args);
    let finished = check(&all);
    assert_eq!(
        exit_code(&finished),
        code,
        "mcp-result-check {all:?}\n--- stdout\n{}\n--- stderr\n{}",
        finished.stdout,
        finished.stderr
    );
    serde_json::from_str(&finished.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", finished.stdout))
}

fn found(report: &Value) -> BTreeSet<(String, String)> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["tool"].as_str().unwrap().to_owned(),
                f["check"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn expected(plants: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    plants
        .iter()
        .map(|(t, c)| (t.to_string(), c.to_string()))
        .collect()
}

/// The report's findings are exactly `plants`, each with a severity, a message and a fix.
fn assert_exactly(report: &Value, plants: &[(&str, &str)]) {
    let found = found(report);
    let expected = expected(plants);
    let missed: Vec<_> = expected.difference(&found).collect();
    let extra: Vec<_> = found.difference(&expected).collect();
    assert!(
        missed.is_empty() && extra.is_empty(),
        "planted but not reported: {missed:?}\nreported but not planted: {extra:?}\n\n{:#}",
        report["findings"]
    );
    for finding in report["findings"].as_array().unwrap() {
        assert!(
            matches!(finding["severity"].as_str(), Some("error" | "warning")),
            "{finding}"
        );
        assert!(
            !finding["message"].as_str().unwrap().is_empty(),
            "{finding}"
        );
        assert!(!finding["fix"].as_str().unwrap().is_empty(), "{finding}");
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// The report's row of tool `name`.
fn tool_row<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool `{name}` in {:#}", report["tools"]))
}

/// The example's `close_ticket` (`#[mcp_tool(approval = ...)]`) as the check meets it: this
/// client declares no elicitation, so the approval gate answers `blocked` with a fresh
/// `approvalRequestId` and nothing runs. Called, never `ok`, and no finding.
fn assert_close_ticket_blocked(report: &Value) {
    let row = tool_row(report, "close_ticket");
    assert_eq!(row["status"], "blocked", "{row}");
    assert_eq!(row["called"], true, "{row}");
    let id = row["approvalRequestId"]
        .as_str()
        .expect("approvalRequestId");
    assert_eq!(id.len(), 36, "a UUID: {id}");
    assert_eq!(
        row["notRun"],
        format!(
            "the call with sample arguments was answered `blocked` (reason: requires human \
             approval), approvalRequestId `{id}`: nothing ran, so no result of a run was \
             checked"
        )
    );
    assert_eq!(report["summary"]["blocked"], 1);
    let blocked: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] == "blocked")
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(blocked, ["close_ticket"]);
}

// ---------------------------------------------------------------------------------------
// The example: clean
// ---------------------------------------------------------------------------------------

#[test]
fn the_example_is_clean_and_its_writes_are_not_called_by_default() {
    let helpdesk = common::example_path("helpdesk");
    let report = check_json(&["--", path(&helpdesk)], 0);
    assert_exactly(&report, &[]);
    assert_eq!(report["server"]["name"], "helpdesk");
    assert_eq!(report["server"]["protocolVersion"], "2025-11-25");
    let not_called: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["called"] == false)
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        not_called,
        ["add_internal_note", "close_ticket", "email_transcript"]
    );
    for tool in report["tools"].as_array().unwrap() {
        assert_eq!(tool["called"] == false, tool["readOnly"] == false, "{tool}");
        let status = if tool["called"] == true {
            "called"
        } else {
            "not-called"
        };
        assert_eq!(tool["status"], status, "{tool}");
    }
    assert_eq!(report["summary"]["blocked"], 0);
}

#[test]
fn the_example_is_clean_with_every_tool_called() {
    let helpdesk = common::example_path("helpdesk");
    let finished = check(&[
        "--call-writes",
        "--samples",
        HELPDESK_SAMPLES,
        "--",
        path(&helpdesk),
    ]);
    assert_eq!(
        exit_code(&finished),
        0,
        "{}{}",
        finished.stdout,
        finished.stderr
    );
    // The table for people: one `ok` row per tool but the one whose approval nobody gave
    // (`close_ticket`, answered `blocked`: not run, and not `ok`), the summary last.
    let rows: Vec<&str> = finished.stdout.lines().collect();
    assert!(
        rows[0].starts_with("tool ") && rows[0].contains("check") && rows[0].ends_with("detail")
    );
    let ok_rows: Vec<&str> = rows
        .iter()
        .filter(|r| r.contains("  all  ") && r.contains("  ok  "))
        .map(|r| r.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(ok_rows.len(), 8, "{}", finished.stdout);
    assert!(!ok_rows.contains(&"close_ticket"), "{}", finished.stdout);
    let blocked: Vec<&str> = rows
        .iter()
        .copied()
        .filter(|r| r.starts_with("close_ticket "))
        .collect();
    assert_eq!(blocked.len(), 1, "{}", finished.stdout);
    let cells: Vec<&str> = blocked[0].split_whitespace().take(3).collect();
    assert_eq!(cells, ["close_ticket", "calls", "blocked"]);
    let detail = blocked[0]
        .split_once("  blocked  ")
        .map(|(_, detail)| detail.trim_start())
        .unwrap();
    let (before, after) = detail
        .split_once("approvalRequestId `")
        .unwrap_or_else(|| panic!("{detail}"));
    assert_eq!(
        before,
        "not run: the call with sample arguments was answered `blocked` (reason: requires \
         human approval), "
    );
    let (id, rest) = after.split_once('`').unwrap();
    assert_eq!(id.len(), 36, "a UUID: {id}");
    assert_eq!(rest, ": nothing ran, so no result of a run was checked");
    assert!(
        finished
            .stdout
            .contains("9 tools, 9 called (1 blocked: not run); hosts: ")
            && finished.stdout.ends_with("0 errors, 0 warnings\n"),
        "{}",
        finished.stdout
    );
    // Not a terminal: no progress line.
    assert!(!finished.stderr.contains('\r'), "{}", finished.stderr);
}

#[test]
fn the_example_is_clean_at_2026_07_28() {
    let helpdesk = common::example_path("helpdesk");
    let report = check_json(
        &[
            "--protocol",
            "2026-07-28",
            "--call-writes",
            "--samples",
            HELPDESK_SAMPLES,
            "--",
            path(&helpdesk),
        ],
        0,
    );
    assert_exactly(&report, &[]);
    assert_eq!(report["server"]["protocolVersion"], "2026-07-28");
    // No elicitation declared: no input-required round either, the same `blocked`.
    assert_close_ticket_blocked(&report);
}

/// The example over streamable HTTP, with a bearer token; without one it cannot connect.
/// (Skipped, and said so, when the example was built without the `http` feature, as
/// `cargo test --workspace` with default features builds it.)
#[test]
fn the_example_is_clean_over_streamable_http() {
    use std::{
        io::{BufRead, BufReader},
        os::unix::process::CommandExt,
        process::Stdio,
    };

    use common::pinned::KillOnDrop;

    let helpdesk = common::example_path("helpdesk");
    let mut server = Command::new(&helpdesk);
    server
        .args(["--http", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    server.process_group(0);
    let mut server = KillOnDrop(server.spawn().expect("start the example with --http"));
    let stderr = server.0.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(at) = line.find("serving MCP at ") {
                let _ = tx.send(Ok(line[at + "serving MCP at ".len()..].trim().to_owned()));
            } else if line.contains("needs the `http` feature") {
                let _ = tx.send(Err(line));
            }
        }
    });
    let url = match rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the example says where it serves")
    {
        Ok(url) => url,
        Err(without_http) => {
            eprintln!("skipped: {} ({without_http})", helpdesk.display());
            return;
        }
    };
    let report = check_json(
        &[
            "--url",
            &url,
            "--header",
            "Authorization: Bearer alice-token",
            "--call-writes",
            "--samples",
            HELPDESK_SAMPLES,
        ],
        0,
    );
    assert_exactly(&report, &[]);
    assert_eq!(report["target"], url.as_str());
    assert_eq!(report["summary"]["called"], 9);
    assert_close_ticket_blocked(&report);

    let refused = check(&["--url", &url]);
    assert_eq!(exit_code(&refused), 2, "{}", refused.stdout);
    assert!(
        refused
            .stderr
            .starts_with(&format!("mcp-result-check: cannot connect to {url}")),
        "{}",
        refused.stderr
    );
}

/// The fixture server of the official conformance suite (`examples/conformance/`) is
/// clean too, checked against the spec's own rules (`--host mcp`: its tool names are the
/// suite's, longer than some hosts take) with its plain-content tools allowed (the suite
/// asks for text, image and audio blocks, which have no `structuredContent` to describe)
/// and the one tool that answers a JSON-RPC error on purpose (`protocol_error_job`: the
/// `tasks-*` scenarios ask for a task that ends `failed`).
/// Its tools that ask the client are answered `-32021` for the capabilities this client
/// does not declare: listed as not called, not as findings.
#[test]
fn the_conformance_fixture_is_clean() {
    use std::{os::unix::process::CommandExt, process::Stdio};

    use common::pinned::KillOnDrop;

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    let mut server = Command::new(common::example_path("conformance"));
    server
        .args(["--port", &port.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    server.process_group(0);
    let _server = KillOnDrop(server.spawn().expect("start the conformance fixture"));
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the fixture listens"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    let report = check_json(
        &[
            "--url",
            &url,
            "--host",
            "mcp",
            "--allow",
            "output-schema-missing",
            "--allow",
            "call-error",
        ],
        0,
    );
    assert_exactly(&report, &[]);
    let tools = report["tools"].as_array().unwrap();
    // Every tool's missing schema, and the one protocol error the suite asks for.
    assert_eq!(report["summary"]["allowed"], tools.len() + 1);
    let call_errors: Vec<&Value> = report["allowed"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|finding| finding["check"] == "call-error")
        .collect();
    assert_eq!(call_errors.len(), 1, "{call_errors:?}");
    assert_eq!(call_errors[0]["tool"], "protocol_error_job");
    assert_eq!(
        call_errors[0]["message"],
        "called with {}, the server answered JSON-RPC error -32603: the job's backend broke"
    );
    let not_called: Vec<&str> = tools
        .iter()
        .filter(|tool| tool["called"] == false)
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    // 13 of the suite's tools ask the client; 4 of the task tools ask it or need it to
    // declare the tasks extension (`task = "required"`); the checker makes no arguments for
    // the hand-written 2020-12 schema (`if`/`then`/`else`: see `generate.rs`). The
    // `x-mcp-header` tool is called (over HTTP, with its header).
    assert_eq!(not_called.len(), 18, "{not_called:?}");
    assert!(
        not_called.contains(&"json_schema_2020_12_tool")
            && !not_called.contains(&"test_custom_headers"),
        "{not_called:?}"
    );
    assert!(
        not_called.contains(&"test_missing_capability"),
        "{not_called:?}"
    );
    let reason = |name: &str| {
        tools.iter().find(|tool| tool["name"] == name).unwrap()["notCalled"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        reason("failing_job"),
        "it needs the client capabilities \
         {\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}, which mcp-result-check \
         does not declare (JSON-RPC -32021)"
    );

    let unknown = check(&["--allow", "no-such-check", "--url", &url]);
    assert_eq!(exit_code(&unknown), 2, "{}", unknown.stdout);
    assert_eq!(
        unknown.stderr.trim_end(),
        "mcp-result-check: --allow: `no-such-check` is no check id (see --list-checks; lint \
         rules are `lint/<rule>`)"
    );
}

// ---------------------------------------------------------------------------------------
// Planted servers: every plant reported, nothing else
// ---------------------------------------------------------------------------------------

#[test]
fn every_plant_of_the_broken_server_is_reported() {
    let broken = common::example_path("broken_server");
    let report = check_json(&["--call-writes", "--", path(&broken), "--all-plants"], 1);
    assert_exactly(&report, BROKEN);

    // The JSON for CI: where, which call, how bad, which hosts, and the fix.
    let finding = |tool: &str, check: &str| -> Value {
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["tool"] == tool && f["check"] == check)
            .cloned()
            .unwrap()
    };
    let schema = finding("get_order_broken", "output-schema");
    assert_eq!(schema["severity"], "error");
    assert_eq!(schema["call"], "arguments");
    assert_eq!(schema["pointer"], "/structuredContent");
    let dialect = finding("get_order_v2", "schema-dialect");
    assert_eq!(dialect["pointer"], "/outputSchema/properties/total/minimum");
    assert!(dialect.get("call").is_none());
    let reference = finding("get_customer", "schema-ref");
    assert_eq!(
        reference["pointer"],
        "/outputSchema/properties/customer/$ref"
    );
    let lint = finding("orders.lookup", "lint/claude-name");
    assert_eq!(
        lint["hosts"],
        serde_json::json!(["claude-api", "claude-desktop", "claude-code"])
    );
    assert_eq!(lint["pointer"], "/name");
    assert!(lint["source"].as_str().unwrap().starts_with("https://"));
    let meta = finding("get_order_discount", "meta-business-data");
    assert_eq!(meta["severity"], "warning");
    assert_eq!(meta["pointer"], "/_meta/com.example~1discountCode");
    let summary_only = finding("get_order_summary", "json-compat-text");
    assert_eq!(
        summary_only["message"],
        "no text block holds the JSON of structuredContent, and the text leaves out `total`: \
         hosts that read only `content` (Claude Desktop and claude.ai connectors, Claude Code, \
         clients older than MCP 2025-06-18) never see them"
    );
    let field = finding("check_address", "error-field-errors");
    assert_eq!(field["call"], "bad-arguments");
    let empty_cursor = finding("", "tools-list-empty-cursor");
    assert_eq!(empty_cursor["severity"], "warning");
    assert_eq!(empty_cursor["pointer"], "/nextCursor");
    assert_eq!(
        empty_cursor["message"],
        "tools/list page 1 answered an empty nextCursor (\"\"): an absent nextCursor ends the \
         walk (MCP \"Pagination\"), an empty one leaves each client to stop or to ask again \
         with it and loop; the check read it as the last page"
    );
    let secret = finding("get_integration", "secret");
    assert!(
        !secret["message"].as_str().unwrap().contains("4f9a8b7c6d5e"),
        "the secret is not repeated: {secret}"
    );
    // A server fault for valid arguments: a finding, naming the tool and where its log
    // says what broke.
    let internal = finding("get_order_report", "internal-error");
    assert_eq!(internal["severity"], "error");
    assert_eq!(internal["call"], "arguments");
    assert_eq!(internal["pointer"], "/structuredContent/errorKind");
    assert_eq!(
        internal["message"],
        "called with {\"orderId\":\"example\"}, `get_order_report` answered errorKind \
         `internal`, a server fault: its log under correlationId `c-7f3a9e` says what broke"
    );
    // A write waiting for a human approval, answered `blocked`: no finding, not `ok` either.
    let refund = tool_row(&report, "refund_order");
    assert_eq!(refund["status"], "blocked");
    assert_eq!(refund["called"], true);
    assert_eq!(refund["badArguments"], true);
    assert_eq!(
        refund["approvalRequestId"],
        "0193a0c2-5e1f-7a3b-9c4d-6e7f8a9b0c1d"
    );
    assert_eq!(
        refund["notRun"],
        "the call with generated arguments was answered `blocked` (reason: requires human \
         approval), approvalRequestId `0193a0c2-5e1f-7a3b-9c4d-6e7f8a9b0c1d`: nothing ran, so \
         no result of a run was checked"
    );
    assert_eq!(tool_row(&report, "get_order")["status"], "called");
    assert!(tool_row(&report, "get_order").get("notRun").is_none());
    assert_eq!(report["summary"]["called"], 19);
    assert_eq!(report["summary"]["blocked"], 1);

    let report = check_json(&["--", path(&broken), "--no-tools"], 1);
    assert_exactly(&report, BROKEN_NO_TOOLS);

    // A tools/list that never ends: the walk stops at the repeated cursor, with a finding,
    // and the tools it listed are checked as before (each once).
    let started = std::time::Instant::now();
    let report = check_json(&["--call-writes", "--", path(&broken), "--looping-list"], 1);
    let all_plants_only = [
        "tools-capability",
        "tools-list-empty-cursor",
        "schema-dialect",
        "schema-ref",
        "internal-error",
    ];
    let plants: Vec<(&str, &str)> = BROKEN
        .iter()
        .filter(|(_, check)| !all_plants_only.contains(check) && !check.starts_with("lint/"))
        .chain(BROKEN_LOOPING)
        .copied()
        .collect();
    assert_exactly(&report, &plants);
    let walk = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "tools-list-cursor")
        .unwrap();
    assert_eq!(
        walk["message"],
        "tools/list page 2 answered nextCursor `page-2`, a cursor it answered before: a \
         client following it would loop forever (MCP \"Pagination\": the cursor must advance)"
    );
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn write_tools_of_the_broken_server_are_only_checked_as_listed_without_call_writes() {
    let broken = common::example_path("broken_server");
    let report = check_json(&["--", path(&broken)], 1);
    let cancel: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["tool"] == "cancel_order")
        .collect();
    assert_eq!(cancel.len(), 1, "{cancel:?}");
    assert_eq!(cancel[0]["pointer"], "/outputSchema");
    let row = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "cancel_order")
        .unwrap();
    assert_eq!(row["called"], false);
    assert_eq!(row["status"], "not-called");
    assert!(row["notCalled"].as_str().unwrap().contains("--call-writes"));
}

/// Before 2025-11-25 the spec's example answers invalid arguments with a JSON-RPC error:
/// `find_orders` is no finding there; `get_order_lax`, which takes them, still is.
#[test]
fn bad_arguments_may_be_a_json_rpc_error_before_2025_11_25() {
    let broken = common::example_path("broken_server");
    let report = check_json(&["--protocol", "2025-06-18", "--", path(&broken)], 1);
    assert_eq!(report["server"]["protocolVersion"], "2025-06-18");
    let bad: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["check"] == "bad-arguments")
        .map(|f| f["tool"].as_str().unwrap())
        .collect();
    assert_eq!(bad, ["get_order_lax"]);
}

static VENV: OnceLock<Result<(), String>> = OnceLock::new();
static NPM: OnceLock<Result<(), String>> = OnceLock::new();

#[test]
fn every_plant_of_the_fastmcp_server_is_reported_and_nothing_else() {
    VENV.get_or_init(|| install_venv(1).map(drop))
        .as_ref()
        .unwrap_or_else(|e| panic!("{e}"));
    let python = format!("{CLIENTS_DIR}/.venv-mcp1/bin/python");
    let server = format!("{CHECK_DIR}/fastmcp_server.py");
    let report = check_json(&["--call-writes", "--", &python, &server], 1);
    assert_exactly(&report, FASTMCP);
    assert_eq!(report["server"]["name"], "library");
}

#[test]
fn every_plant_of_the_typescript_server_is_reported_and_nothing_else() {
    NPM.get_or_init(|| install_npm().map(drop))
        .as_ref()
        .unwrap_or_else(|e| panic!("{e}"));
    let server = format!("{CHECK_DIR}/ts_server.mjs");
    let report = check_json(&["--call-writes", "--", "node", &server], 1);
    assert_exactly(&report, TYPESCRIPT);
    assert_eq!(report["server"]["name"], "weather");
}

/// Each check of `--list-checks` has a plant in one of the servers above.
#[test]
fn every_check_is_planted_somewhere() {
    let listed = check(&["--list-checks"]);
    assert_eq!(exit_code(&listed), 0);
    let checks: BTreeSet<&str> = listed
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|id| !id.starts_with("lint/"))
        .collect();
    let planted: BTreeSet<&str> = [BROKEN, BROKEN_NO_TOOLS, BROKEN_LOOPING, FASTMCP, TYPESCRIPT]
        .iter()
        .flat_map(|plants| plants.iter().map(|(_, check)| *check))
        .filter(|check| !check.starts_with("lint/"))
        .collect();
    assert_eq!(checks, planted);
    // ... and a row in the table of checks of this crate's README.
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let section = readme
        .split("\n## Checks\n")
        .nth(1)
        .expect("the README's section `## Checks`");
    let documented: BTreeSet<&str> = section
        .lines()
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
        .filter(|id| *id != "lint/<rule>")
        .collect();
    assert_eq!(checks, documented);
    assert!(listed.stdout.contains("lint/gemini-type-list"));
    assert!(
        !listed.stdout.contains("lint/openai-strict-required"),
        "not a default host"
    );
}

// ---------------------------------------------------------------------------------------
// Usage errors: exit status 2 and what is wrong
// ---------------------------------------------------------------------------------------

#[test]
fn usage_errors_exit_2_and_say_what_is_wrong() {
    let usage = |args: &[&str], message: &str| {
        let finished = check(args);
        assert_eq!(exit_code(&finished), 2, "{args:?}: {}", finished.stdout);
        assert!(finished.stdout.is_empty(), "{args:?}: {}", finished.stdout);
        assert!(
            finished.stderr.starts_with("mcp-result-check: ") && finished.stderr.contains(message),
            "{args:?}: {}",
            finished.stderr
        );
    };
    usage(
        &[],
        "nothing to check: give a server command after `--`, or --url",
    );
    usage(&["--host", "gpt", "--", "x"], "unknown host `gpt`");
    usage(
        &["--format", "yaml", "--", "x"],
        "--format: `yaml`: expected table or json",
    );
    usage(&["--frobnicate"], "unknown option `--frobnicate`");
    usage(
        &["--url", "https://example.com/mcp"],
        "plain http:// only (no TLS)",
    );
    usage(
        &["--samples", "/nonexistent/samples.json", "--", "x"],
        "--samples /nonexistent/samples.json",
    );
    usage(
        &["--", "/nonexistent/mcp-server"],
        "cannot start `/nonexistent/mcp-server`",
    );
    usage(
        &[
            "--timeout",
            "5",
            "--",
            "sh",
            "-c",
            "echo the server cannot open its database >&2; exit 3",
        ],
        "the server cannot open its database",
    );

    let help = check(&["--help"]);
    assert_eq!(exit_code(&help), 0);
    assert!(help
        .stdout
        .contains("mcp-result-check [OPTIONS] -- <server command>"));
}
