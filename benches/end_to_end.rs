//! The whole server, end to end: requests per second over stdio for a read-only 5-field
//! tool and for a write tool with the contract fields, mcp-result against a plain rmcp
//! server with the same tools, both release builds in the same run.
//!
//! `cargo bench --features sqlite --bench end_to_end` (not `--all-features`: that turns on
//! `validate-results`, which checks every result against its schema in release builds) starts this binary four times as a
//! server (environment `E2E_ROLE`): plain rmcp (`#[tool_router]`, `Json<T>`), and mcp-result
//! with its audit records going to the `tracing` sink (the default), to a JSON Lines file
//! (`fsync` per record) and to SQLite. Each server runs over `stdio_pipes()` (what
//! `serve_stdio` uses). A fifth role, `same-transport` (used by `scripts/call-cost.sh`, not
//! by this load), serves mcp-result with the tracing sink on rmcp's own `stdio_pipes()`
//! transport, as plain rmcp is served, instead of `serve_stdio`'s line reader and writer. With
//! the feature `http`, roles `http-rmcp` and `http-mcp-result` serve both over streamable HTTP
//! on a loopback port, stateless with JSON responses, and role `http-client` calls them (also
//! `scripts/call-cost.sh`'s). The load generator keeps 32 `tools/call` requests in flight per
//! server and alternates the servers in rounds (`E2E_ROUNDS`, default 6, of `E2E_CALLS`,
//! default 2,000, calls each), so that each ratio compares runs made under the same load;
//! the table gives the median of the per-round ratios. It also gives the mean bytes of a
//! response line.

use std::{
    process::Stdio,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::Instant,
};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    process::{Child, ChildStdin, ChildStdout, Command},
};

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TicketArgs {
    ticket_id: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct NoteArgs {
    ticket_id: String,
    body: String,
}

/// The plain rmcp server.
mod plain {
    use super::*;
    use mcp_result::rmcp::{
        handler::server::{router::tool::ToolRouter, wrapper::Parameters},
        tool, tool_handler, tool_router, Json, ServerHandler,
    };

    #[derive(Serialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct Ticket {
        id: String,
        title: String,
        severity: String,
        locked: bool,
        notes: u32,
    }

    #[derive(Serialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct NoteAdded {
        note_id: String,
        status: String,
        retry_safe: bool,
        audit_event_id: String,
    }

    #[derive(Clone)]
    pub struct Desk {
        notes: Arc<AtomicU64>,
        tool_router: ToolRouter<Self>,
    }

    #[tool_router]
    impl Desk {
        pub fn new() -> Self {
            Self {
                notes: Arc::default(),
                tool_router: Self::tool_router(),
            }
        }

        /// Reads a ticket.
        #[tool(annotations(read_only_hint = true))]
        async fn get_ticket(&self, Parameters(args): Parameters<TicketArgs>) -> Json<Ticket> {
            Json(Ticket {
                id: args.ticket_id,
                title: "Login fails with SSO".into(),
                severity: "high".into(),
                locked: false,
                notes: 2,
            })
        }

        /// Adds a note.
        #[tool(annotations(destructive_hint = false))]
        async fn add_note(&self, Parameters(args): Parameters<NoteArgs>) -> Json<NoteAdded> {
            let _ = args.body;
            let n = self.notes.fetch_add(1, Ordering::Relaxed);
            Json(NoteAdded {
                note_id: format!("{}-N{n}", args.ticket_id),
                status: "succeeded".into(),
                retry_safe: false,
                audit_event_id: uuid::Uuid::now_v7().to_string(),
            })
        }
    }

    // The stored router (rmcp's default builds it again on every request).
    #[tool_handler(router = self.tool_router)]
    impl ServerHandler for Desk {}
}

/// The same tools with mcp-result.
mod framework {
    use super::*;
    use mcp_result::{
        audit::AuditSink, extract::WriteContext, mcp_handler, mcp_tools, rmcp::ServerHandler,
        AuditEventId, ServerServices, Status, ToolResult,
    };

    #[derive(Serialize, JsonSchema, ToolResult)]
    #[serde(rename_all = "camelCase")]
    #[tool_result(summary = "{id}: {title} (severity {severity})")]
    pub struct Ticket {
        id: String,
        title: String,
        severity: String,
        locked: bool,
        notes: u32,
    }

    #[derive(Serialize, JsonSchema, ToolResult)]
    #[serde(rename_all = "camelCase")]
    #[tool_result(summary = "Added note {note_id} ({status}).")]
    pub struct NoteAdded {
        note_id: String,
        status: Status,
        retry_safe: bool,
        audit_event_id: AuditEventId,
    }

    #[derive(Clone)]
    pub struct Desk {
        pub notes: Arc<AtomicU64>,
        pub audit: Arc<dyn AuditSink>,
    }

    impl ServerServices for Desk {
        fn audit_sink(&self, _state: &mcp_result::State) -> Arc<dyn AuditSink> {
            self.audit.clone()
        }
    }

    #[mcp_tools(services)]
    impl Desk {
        /// Reads a ticket.
        #[mcp_tool(read_only)]
        async fn get_ticket(&self, args: TicketArgs) -> Ticket {
            Ticket {
                id: args.ticket_id,
                title: "Login fails with SSO".into(),
                severity: "high".into(),
                locked: false,
                notes: 2,
            }
        }

        /// Adds a note.
        #[mcp_tool(destructive = false)]
        async fn add_note(&self, args: NoteArgs, write: WriteContext) -> NoteAdded {
            let _ = args.body;
            let n = self.notes.fetch_add(1, Ordering::Relaxed);
            NoteAdded {
                note_id: format!("{}-N{n}", args.ticket_id),
                status: Status::Succeeded,
                retry_safe: false,
                audit_event_id: write.audit_event_id().clone(),
            }
        }
    }

    #[mcp_handler]
    impl ServerHandler for Desk {}
}

/// Both servers over streamable HTTP (feature `http`), stateless with JSON responses: plain
/// rmcp on rmcp's `StreamableHttpService` with `NeverSessionManager` and `json_response`,
/// configured as mcp-result's `serve_http` configures it, and mcp-result's own
/// `http::router` (that service behind the framework's edge: origin, bearer and message
/// checks, with an `Anonymous` verifier); both served by `axum::serve` on a loopback port,
/// written on stdout, until stdin closes. The client is another process (role
/// `http-client`).
#[cfg(feature = "http")]
mod over_http {
    use super::*;
    use mcp_result::rmcp::transport::streamable_http_server::{
        session::never::NeverSessionManager, StreamableHttpServerConfig, StreamableHttpService,
    };
    use tokio::io::AsyncReadExt as _;

    pub async fn serve(role: &str) {
        let app = match role {
            "http-rmcp" => {
                let config = StreamableHttpServerConfig::default()
                    .with_legacy_session_mode(false)
                    .with_json_response(true);
                // Each request gets a clone of the server, as `serve_http` gives mcp-result's.
                let desk = plain::Desk::new();
                let service = StreamableHttpService::new(
                    move || Ok(desk.clone()),
                    Arc::new(NeverSessionManager::default()),
                    config,
                );
                axum::Router::new().route_service("/mcp", service)
            }
            "http-mcp-result" => {
                let desk = framework::Desk {
                    notes: Arc::default(),
                    audit: Arc::new(mcp_result::audit::TracingSink),
                };
                let verifier = Arc::new(mcp_result::http::Anonymous::new(
                    mcp_result::Identity::new("bench"),
                ));
                mcp_result::http::router(desk, verifier, &mcp_result::http::HttpOptions::default())
            }
            other => panic!("unknown E2E_ROLE {other}"),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut stdout = tokio::io::stdout();
        let port = listener.local_addr().unwrap().port();
        stdout
            .write_all(format!("{port}\n").as_bytes())
            .await
            .unwrap();
        stdout.flush().await.unwrap();
        let closed = async {
            let mut rest = Vec::new();
            let _ = tokio::io::stdin().read_to_end(&mut rest).await;
        };
        axum::serve(listener, app)
            .with_graceful_shutdown(closed)
            .await
            .unwrap();
    }
}

/// `E2E_CALLS` calls of `E2E_TOOL` (with `E2E_ARGUMENTS` and `E2E_META` when given) to the
/// streamable HTTP server on `E2E_PORT`, one at a time on one kept-alive connection; each
/// answer is checked to be a result with `structuredContent` and no error.
async fn http_client() {
    let env = |name: &str| std::env::var(name).unwrap_or_default();
    let port: u16 = env("E2E_PORT").parse().unwrap();
    let calls: u64 = env("E2E_CALLS").parse().unwrap_or(1);
    let tool = env("E2E_TOOL");
    let arguments: Value = match env("E2E_ARGUMENTS").as_str() {
        "" if tool == "get_ticket" => json!({"ticketId": "T-1001"}),
        "" => json!({"ticketId": "T-1001", "body": "Checked the logs."}),
        given => serde_json::from_str(given).unwrap(),
    };
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    stream.set_nodelay(true).unwrap();
    let (read, mut write) = stream.into_split();
    let mut read = BufReader::new(read);
    let mut line = String::new();
    for id in 1..=calls {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}})
        .to_string();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        write.write_all(request.as_bytes()).await.unwrap();
        line.clear();
        read.read_line(&mut line).await.unwrap();
        assert!(line.starts_with("HTTP/1.1 200"), "{line}");
        let mut length = 0;
        loop {
            line.clear();
            read.read_line(&mut line).await.unwrap();
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap();
                }
            }
        }
        let mut answer = vec![0; length];
        tokio::io::AsyncReadExt::read_exact(&mut read, &mut answer)
            .await
            .unwrap();
        let answer = String::from_utf8(answer).unwrap();
        assert!(
            answer.contains("\"structuredContent\"") && !answer.contains("\"isError\":true"),
            "{answer}"
        );
    }
}

async fn serve(role: &str) {
    use mcp_result::rmcp::ServiceExt as _;
    match role {
        #[cfg(feature = "http")]
        "http-rmcp" | "http-mcp-result" => over_http::serve(role).await,
        "http-client" => http_client().await,
        "rmcp" => {
            let running = plain::Desk::new()
                .serve(mcp_result::rmcp::transport::io::stdio_pipes())
                .await
                .unwrap();
            let _ = running.waiting().await;
        }
        sink => {
            // `same-transport`: the tracing sink, served on rmcp's `stdio_pipes()` as plain
            // rmcp is, not through `serve_stdio`'s line reader and batched writer.
            let same_transport = sink == "same-transport";
            let audit: Arc<dyn mcp_result::audit::AuditSink> = match sink {
                "tracing" | "same-transport" => Arc::new(mcp_result::audit::TracingSink),
                "file" => Arc::new(
                    mcp_result::audit::JsonLinesSink::open(std::env::var("E2E_PATH").unwrap())
                        .unwrap(),
                ),
                "sqlite" => Arc::new(
                    mcp_result::sql::SqlStores::connect(&format!(
                        "sqlite:{}",
                        std::env::var("E2E_PATH").unwrap()
                    ))
                    .await
                    .unwrap()
                    .audit(),
                ),
                other => panic!("unknown E2E_ROLE {other}"),
            };
            let desk = framework::Desk {
                notes: Arc::default(),
                audit,
            };
            if same_transport {
                mcp_result::serve(desk, mcp_result::rmcp::transport::io::stdio_pipes())
                    .await
                    .unwrap();
            } else {
                mcp_result::serve_stdio(desk).await.unwrap();
            }
        }
    }
}

struct Server {
    name: &'static str,
    _child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    async fn start(name: &'static str, role: &str, path: Option<&std::path::Path>) -> Server {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .env("E2E_ROLE", role)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        if let Some(path) = path {
            command.env("E2E_PATH", path);
        }
        let mut child = command.spawn().unwrap();
        let mut server = Server {
            name,
            stdin: child.stdin.take().unwrap(),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            _child: child,
            next_id: 1,
        };
        let hello = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "e2e", "version": "1"}}});
        server.send(&hello).await;
        let mut line = String::new();
        server.stdout.read_line(&mut line).await.unwrap();
        assert!(line.contains("\"result\""), "{name}: {line}");
        server
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        server
    }

    async fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).await.unwrap();
    }

    /// `calls` calls of `tool`, 32 in flight: the calls per second and the mean bytes of a
    /// response line.
    async fn run(&mut self, tool: &str, calls: u64) -> (f64, f64) {
        const IN_FLIGHT: u64 = 32;
        let arguments = match tool {
            "get_ticket" => json!({"ticketId": "T-1001"}),
            _ => json!({"ticketId": "T-1001", "body": "Checked the logs."}),
        };
        let request = |id: u64| {
            let mut line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}})
            .to_string();
            line.push('\n');
            line
        };
        let started = Instant::now();
        let (mut sent, mut received, mut bytes) = (0u64, 0u64, 0u64);
        let mut line = String::new();
        while received < calls {
            let mut batch = String::new();
            while sent < calls && sent - received < IN_FLIGHT {
                batch.push_str(&request(self.next_id));
                self.next_id += 1;
                sent += 1;
            }
            if !batch.is_empty() {
                self.stdin.write_all(batch.as_bytes()).await.unwrap();
            }
            line.clear();
            self.stdout.read_line(&mut line).await.unwrap();
            assert!(
                line.contains("\"structuredContent\"") && !line.contains("\"isError\":true"),
                "{}: {line}",
                self.name
            );
            bytes += line.len() as u64;
            received += 1;
        }
        (
            calls as f64 / started.elapsed().as_secs_f64(),
            bytes as f64 / calls as f64,
        )
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    if let Ok(role) = std::env::var("E2E_ROLE") {
        serve(&role).await;
        return;
    }
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (rounds, calls) = (env("E2E_ROUNDS", 6), env("E2E_CALLS", 2_000));
    let dir = std::env::temp_dir().join(format!("end-to-end-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut servers = vec![
        Server::start("rmcp", "rmcp", None).await,
        Server::start("mcp-result", "tracing", None).await,
        Server::start(
            "mcp-result, JSON Lines sink",
            "file",
            Some(&dir.join("audit.jsonl")),
        )
        .await,
        Server::start(
            "mcp-result, SQLite sink",
            "sqlite",
            Some(&dir.join("audit.db")),
        )
        .await,
    ];
    println!(
        "| tool | server | calls/s (median) | vs rmcp (median of rounds) | bytes per response |"
    );
    println!("|---|---|---|---|---|");
    for tool in ["get_ticket", "add_note"] {
        // rates[server][round]
        let mut rates = vec![Vec::new(); servers.len()];
        let mut sizes = vec![0.0; servers.len()];
        for round in 0..rounds {
            for offset in 0..servers.len() {
                // Each round starts at the next server, so no server always goes first.
                let i = (offset + round as usize) % servers.len();
                let (rate, size) = servers[i].run(tool, calls).await;
                rates[i].push(rate);
                sizes[i] = size;
            }
        }
        for (i, server) in servers.iter().enumerate() {
            if tool == "get_ticket" && i > 1 {
                continue; // the audit sink plays no part in a read
            }
            let ratios: Vec<f64> = rates[i].iter().zip(&rates[0]).map(|(a, b)| a / b).collect();
            println!(
                "| {tool} | {} | {:.0} | {:.2}× | {:.0} |",
                server.name,
                median(rates[i].clone()),
                median(ratios),
                sizes[i]
            );
        }
    }
    println!("\n{rounds} rounds of {calls} calls per server and tool, 32 in flight, over stdio");
    drop(servers);
    let _ = std::fs::remove_dir_all(dir);
}
