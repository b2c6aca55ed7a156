//! A tool that panics (issue 15, item 10): the answer carries only a correlation id, the
//! cause is logged once, under that id, and the process's panic hook does not print it a
//! second time without the id. A panic outside tool code still reaches the hook that was
//! there before. (Its own test binary: it installs a panic hook and a `tracing` subscriber.)

use std::{
    io::Write,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
};

use mcp_result::{
    mcp_handler, mcp_tools,
    rmcp::{model::CallToolRequestParams, ServerHandler, ServiceExt},
    ToolResult,
};
use schemars::JsonSchema;
use serde::Serialize;

/// Never answered.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Never {
    value: u32,
}

#[derive(Clone)]
struct Crashy;

#[mcp_tools]
impl Crashy {
    /// Panics with a detail that must stay in the log.
    #[mcp_tool(read_only)]
    async fn crash(&self) -> Never {
        panic!("the cause: db password is hunter2")
    }

    /// Panics on a blocking thread.
    #[mcp_tool(read_only)]
    fn crash_sync(&self) -> Never {
        panic!("the sync cause")
    }
}

#[mcp_handler]
impl ServerHandler for Crashy {}

#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

static HOOK_CALLS: AtomicUsize = AtomicUsize::new(0);

#[tokio::test]
async fn a_panic_is_logged_once_under_its_correlation_id() {
    let log = Log::default();
    let writer = log.clone();
    tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .init();
    // The process's hook before the server installs its own: it counts what reaches it.
    std::panic::set_hook(Box::new(|_| {
        HOOK_CALLS.fetch_add(1, Ordering::SeqCst);
    }));

    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = Crashy.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("initialize");
    for (tool, cause) in [
        ("crash", "the cause: db password is hunter2"),
        ("crash_sync", "the sync cause"),
    ] {
        let result = client
            .call_tool(CallToolRequestParams::new(tool))
            .await
            .unwrap();
        let id = result.structured_content.as_ref().unwrap()["correlationId"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(!serde_json::to_string(&result).unwrap().contains(cause));
        let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().filter(|l| l.contains(cause)).collect();
        assert_eq!(lines.len(), 1, "{tool}: the cause once: {text}");
        assert!(lines[0].contains(&id), "{tool}: under its id: {}", lines[0]);
        assert!(
            lines[0].contains("tests/panics.rs:"),
            "{tool}: with where it happened: {}",
            lines[0]
        );
    }
    // Tool panics never reached the process's hook...
    assert_eq!(HOOK_CALLS.load(Ordering::SeqCst), 0);
    // ...and a panic anywhere else still does.
    let _ = std::thread::spawn(|| panic!("not a tool")).join();
    assert_eq!(HOOK_CALLS.load(Ordering::SeqCst), 1);
    client.cancel().await.unwrap();
}
