//! Connecting to the server as an MCP client: a child process over stdio, or streamable
//! HTTP.

use std::{
    collections::HashMap,
    process::Stdio,
    sync::{Arc, Mutex},
    time::Duration,
};

use rmcp::{
    model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion},
    service::{serve_client_with_lifecycle, ClientLifecycleMode, RoleClient, RunningService},
    transport::{
        streamable_http_client::StreamableHttpClientTransportConfig, StreamableHttpClientTransport,
        TokioChildProcess,
    },
};
use tokio::io::AsyncReadExt;

use crate::cli::Target;

pub type Client = RunningService<RoleClient, ClientConfig>;

/// The last bytes a stdio server wrote to its stderr: shown when it cannot be connected.
const STDERR_TAIL: usize = 4096;

pub struct Connection {
    pub client: Client,
    /// What the server is, for the report: its command or URL.
    pub shown: String,
}

/// Starts (or reaches) the server and runs the handshake: `initialize` for the 2024/2025
/// protocol versions, `server/discover` for 2026-07-28.
pub async fn connect(
    target: &Target,
    protocol: &ProtocolVersion,
    timeout: Duration,
    verbose: bool,
) -> Result<Connection, String> {
    let info = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("mcp-result-check", env!("CARGO_PKG_VERSION")),
    )
    .with_protocol_version(protocol.clone());
    let lifecycle = if protocol.has_initialize() {
        ClientLifecycleMode::Initialize
    } else {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![protocol.clone()],
        }
    };
    match target {
        Target::Stdio(command) => {
            let shown = command
                .iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" ");
            let mut child = tokio::process::Command::new(&command[0]);
            child.args(&command[1..]);
            let stderr = if verbose {
                Stdio::inherit()
            } else {
                Stdio::piped()
            };
            let (transport, pipe) = TokioChildProcess::builder(child)
                .stderr(stderr)
                .spawn()
                .map_err(|e| format!("cannot start `{shown}`: {e}"))?;
            let tail = Arc::new(Mutex::new(Vec::<u8>::new()));
            if let Some(mut pipe) = pipe {
                let tail = tail.clone();
                tokio::spawn(async move {
                    let mut buffer = [0u8; 4096];
                    while let Ok(n @ 1..) = pipe.read(&mut buffer).await {
                        let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                        tail.extend_from_slice(&buffer[..n]);
                        let excess = tail.len().saturating_sub(STDERR_TAIL);
                        tail.drain(..excess);
                    }
                });
            }
            let handshake = serve_client_with_lifecycle(info, transport, lifecycle);
            let client = match tokio::time::timeout(timeout, handshake).await {
                Ok(Ok(client)) => client,
                outcome => {
                    let why = match outcome {
                        Ok(Err(e)) => e.to_string(),
                        _ => format!("no answer within {timeout:?}"),
                    };
                    // Give the server a moment to write why it stopped.
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    let tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                    let stderr = String::from_utf8_lossy(&tail);
                    let stderr = stderr.trim();
                    return Err(if stderr.is_empty() {
                        format!("cannot connect to `{shown}` over stdio: {why}")
                    } else {
                        format!(
                            "cannot connect to `{shown}` over stdio: {why}\n--- its stderr \
                             (tail)\n{stderr}"
                        )
                    });
                }
            };
            Ok(Connection { client, shown })
        }
        Target::Http { url, headers } => {
            let headers: HashMap<_, _> = headers.iter().cloned().collect();
            let config =
                StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(headers);
            let transport =
                StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
            let handshake = serve_client_with_lifecycle(info, transport, lifecycle);
            let client = match tokio::time::timeout(timeout, handshake).await {
                Ok(Ok(client)) => client,
                Ok(Err(e)) => return Err(format!("cannot connect to {url}: {e}")),
                Err(_) => {
                    return Err(format!(
                        "cannot connect to {url}: no answer within {timeout:?}"
                    ))
                }
            };
            Ok(Connection {
                client,
                shown: url.clone(),
            })
        }
    }
}
