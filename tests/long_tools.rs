//! Long tools (issue 20): `Progress` sends `notifications/progress` with the call's
//! `progressToken`, rate-limited and in order, and every `tools/call` is one `tracing` span
//! with OpenTelemetry-friendly fields. (Cancellation: `tests/writes.rs`.)
//! A server written the way the README teaches, over a real transport (a duplex stream
//! between an rmcp server and rmcp's client, whose `ClientHandler::on_progress` records
//! what arrives).

mod common;

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use mcp_result::{
    mcp_handler, mcp_tools,
    progress::Progress,
    rmcp::{
        model::{CallToolRequestParams, ProgressNotificationParam},
        service::{NotificationContext, RoleClient},
        ClientHandler, ServerHandler, ServiceExt,
    },
    ResultExt, ToolError, ToolResult, WriteReceipt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// An import finished.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Imported {
    rows: u64,
}

#[derive(Deserialize, JsonSchema)]
struct ImportArgs {
    /// How many rows to import.
    rows: u64,
}

/// A note was added.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct NoteAdded {
    note_id: String,
    #[serde(flatten)]
    receipt: WriteReceipt,
}

#[derive(Clone)]
struct Importer;

#[mcp_tools]
impl Importer {
    /// Imports rows, reporting after every one (a row takes 1 ms).
    #[mcp_tool(read_only)]
    async fn import_rows(&self, args: ImportArgs, progress: Progress) -> Imported {
        for done in 1..=args.rows {
            tokio::time::sleep(Duration::from_millis(1)).await;
            progress
                .report(
                    done,
                    args.rows,
                    format!("imported {done} of {} rows", args.rows),
                )
                .await;
        }
        Imported { rows: args.rows }
    }

    /// Reports 0, 50 and 100 of 100, 50 ms apart (the conformance suite's
    /// `test_tool_with_progress`): closer than the interval, and none of it lost.
    #[mcp_tool(read_only)]
    async fn three_steps(&self, progress: Progress) -> Imported {
        for done in [0, 50, 100] {
            progress.report(done, 100, format!("step {done}")).await;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Imported { rows: 3 }
    }

    /// Adds a note.
    #[mcp_tool]
    async fn add_note(&self) -> NoteAdded {
        tracing::info!("writing the note");
        NoteAdded {
            note_id: "N-1".into(),
            receipt: WriteReceipt::succeeded(),
        }
    }

    /// Looks a ticket up in a store that does not have it.
    #[mcp_tool(read_only)]
    async fn find_ticket(&self) -> Result<Imported, ToolError> {
        let rows = std::fs::read_to_string("/nonexistent/T-9")
            .not_found("No ticket `T-9`.")?
            .len() as u64;
        Ok(Imported { rows })
    }
}

#[mcp_handler]
impl ServerHandler for Importer {}

/// A client that records every progress notification, with when it arrived.
#[derive(Clone, Default)]
struct Recorder {
    seen: Arc<Mutex<Vec<(Instant, ProgressNotificationParam)>>>,
}

impl ClientHandler for Recorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.seen.lock().unwrap().push((Instant::now(), params));
    }
}

async fn connect(
    recorder: Recorder,
) -> mcp_result::rmcp::service::RunningService<RoleClient, Recorder> {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = Importer.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    recorder.serve(client_io).await.expect("initialize")
}

fn import(rows: u64) -> CallToolRequestParams {
    CallToolRequestParams::new("import_rows")
        .with_arguments(json!({"rows": rows}).as_object().unwrap().clone())
}

#[tokio::test]
async fn progress_reaches_the_client_in_order_and_at_most_ten_a_second() {
    let recorder = Recorder::default();
    // rmcp's client sends a `progressToken` with every request.
    let client = connect(recorder.clone()).await;
    let started = Instant::now();
    let result = client.call_tool(import(400)).await.unwrap();
    let elapsed = started.elapsed();
    assert_eq!(result.structured_content, Some(json!({"rows": 400})));
    // The final notification is sent before the result; give the client's loop a moment.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let seen = recorder.seen.lock().unwrap().clone();
    assert!(seen.len() >= 2, "the first and the final report: {seen:?}");
    // One per 100 ms, the first, and the final one right after the one waiting.
    let limit = (elapsed.as_millis() / 100) as usize + 3;
    assert!(
        seen.len() <= limit,
        "{} notifications in {elapsed:?}: more than one per 100 ms plus the final one",
        seen.len()
    );
    assert!(seen.len() < 400, "intermediate reports were dropped");
    let token = &seen[0].1.progress_token;
    for (_, param) in &seen {
        assert_eq!(&param.progress_token, token, "the request's own token");
        assert_eq!(param.total, Some(400.0));
        let done = param.progress as u64;
        assert_eq!(
            param.message.as_deref(),
            Some(format!("imported {done} of 400 rows").as_str())
        );
    }
    // In order, strictly increasing (MCP: progress MUST increase), the final one last.
    for pair in seen.windows(2) {
        assert!(pair[0].1.progress < pair[1].1.progress, "{seen:?}");
    }
    assert_eq!(seen.first().unwrap().1.progress, 1.0);
    assert_eq!(seen.last().unwrap().1.progress, 400.0);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn reports_closer_than_the_interval_wait_and_the_final_one_follows_them() {
    let recorder = Recorder::default();
    let client = connect(recorder.clone()).await;
    let result = client
        .call_tool(CallToolRequestParams::new("three_steps"))
        .await
        .unwrap();
    assert_eq!(result.structured_content, Some(json!({"rows": 3})));
    tokio::time::sleep(Duration::from_millis(50)).await;
    let seen = recorder.seen.lock().unwrap().clone();
    let progress: Vec<f64> = seen.iter().map(|(_, p)| p.progress).collect();
    assert_eq!(
        progress,
        [0.0, 50.0, 100.0],
        "every report arrives, in order"
    );
    // The one that came 50 ms after the first waited for the 100 ms interval.
    let gap = seen[1].0.duration_since(seen[0].0);
    assert!(gap >= Duration::from_millis(90), "{gap:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn without_a_progress_token_nothing_is_sent() {
    // A raw JSON-RPC client: its `tools/call` carries no `_meta.progressToken`.
    let mut raw = common::raw::RawClient::serve(Importer);
    raw.send(&common::raw::handshake("2025-11-25")).await;
    raw.send(&[json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "import_rows", "arguments": {"rows": 50}}})])
        .await;
    let (answer, before) = raw.answer(2).await;
    for message in &before {
        assert_ne!(message["method"], "notifications/progress", "{message}");
    }
    assert_eq!(answer["result"]["structuredContent"], json!({"rows": 50}));
}

/// Every log line of this test binary: one global subscriber (a thread's own default would
/// miss the lines of other threads, and `tracing` caches a callsite's interest process-wide),
/// so each test finds its lines by what is unique to them (a correlation id, a tool), spans with their fields when they close.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

fn log() -> &'static Log {
    static LOG: std::sync::OnceLock<Log> = std::sync::OnceLock::new();
    LOG.get_or_init(|| {
        let log = Log::default();
        let writer = log.clone();
        tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
            .init();
        log
    })
}

impl Log {
    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

impl std::io::Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn every_tool_call_is_one_span_with_open_telemetry_fields() {
    let log = log();
    let client = connect(Recorder::default()).await;

    let written = client
        .call_tool(CallToolRequestParams::new("add_note"))
        .await
        .unwrap();
    let audit = written.structured_content.as_ref().unwrap()["auditEventId"]
        .as_str()
        .unwrap()
        .to_owned();
    let missing = client
        .call_tool(CallToolRequestParams::new("find_ticket"))
        .await
        .unwrap();
    let correlation = missing.structured_content.as_ref().unwrap()["correlationId"]
        .as_str()
        .unwrap()
        .to_owned();
    let unknown = client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await;
    assert!(unknown.is_err());
    client.cancel().await.unwrap();

    let text = log.text();
    // The span of each call, once, closed (the binary's other tests call other tools).
    let close = |marker: &str| {
        let lines: Vec<&str> = text
            .lines()
            .filter(|line| line.contains("tools/call{") && line.contains(": close "))
            .filter(|line| line.contains(marker))
            .collect();
        assert_eq!(lines.len(), 1, "one span of `{marker}`: {text}");
        lines[0]
    };
    let write = close("gen_ai.tool.name=\"add_note\"");
    for field in [
        "otel.name=\"tools/call add_note\"",
        "otel.kind=\"server\"",
        "mcp.method.name=\"tools/call\"",
        "gen_ai.operation.name=\"execute_tool\"",
        "gen_ai.tool.name=\"add_note\"",
        "jsonrpc.request.id=",
        "mcp.protocol.version=",
        "mcp_result.is_error=false",
        "mcp_result.status=\"succeeded\"",
        &format!("mcp_result.audit_event_id=\"{audit}\""),
        "mcp_result.duration_ms=",
    ] {
        assert!(write.contains(field), "`{field}` in {write}");
    }
    assert!(!write.contains("error.type"), "{write}");
    // The tool's own log line is inside the call's span.
    let inside = text
        .lines()
        .find(|line| line.contains("writing the note"))
        .unwrap();
    assert!(inside.contains("gen_ai.tool.name=\"add_note\""), "{inside}");

    let failed = close("gen_ai.tool.name=\"find_ticket\"");
    for field in [
        "gen_ai.tool.name=\"find_ticket\"",
        "error.type=\"tool_error\"",
        "otel.status_code=\"ERROR\"",
        "mcp_result.is_error=true",
        "mcp_result.error_kind=\"not_found\"",
        "mcp_result.status=\"failed\"",
        &format!("mcp_result.correlation_id=\"{correlation}\""),
    ] {
        assert!(failed.contains(field), "`{field}` in {failed}");
    }

    let protocol = close("unknown tool: no_such_tool");
    for field in [
        "otel.name=\"tools/call\"",
        "error.type=\"-32602\"",
        "rpc.response.status_code=\"-32602\"",
        "otel.status_code=\"ERROR\"",
    ] {
        assert!(protocol.contains(field), "`{field}` in {protocol}");
    }
    // An unknown name is no span name and no tool name (span names stay low-cardinality);
    // the status description is the JSON-RPC error's message.
    assert!(!protocol.contains("gen_ai.tool.name"), "{protocol}");
    assert!(
        protocol.contains("otel.status_description=\"unknown tool: no_such_tool\""),
        "{protocol}"
    );
}
