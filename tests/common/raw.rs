//! A raw JSON-RPC line client, for what no SDK client sends (a call without a progress
//! token, malformed requests, a stream read byte for byte): one message a line, over any
//! byte stream (a child's stdio, an in-memory duplex).

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, Lines};

/// The two messages that open a session on `protocol`: `initialize` (id 0) and
/// `notifications/initialized`.
pub fn handshake(protocol: &str) -> [Value; 2] {
    [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": protocol, "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
}

/// One end of a line-delimited JSON-RPC stream.
pub struct RawClient {
    write: Box<dyn AsyncWrite + Unpin + Send>,
    lines: Lines<BufReader<Box<dyn AsyncRead + Unpin + Send>>>,
}

impl RawClient {
    /// A client writing to `write` and reading `read`.
    pub fn new(
        read: impl AsyncRead + Unpin + Send + 'static,
        write: impl AsyncWrite + Unpin + Send + 'static,
    ) -> Self {
        let read: Box<dyn AsyncRead + Unpin + Send> = Box::new(read);
        Self {
            write: Box::new(write),
            lines: BufReader::new(read).lines(),
        }
    }

    /// `server` served by rmcp on an in-memory duplex, this client on the other end.
    pub fn serve<S: mcp_result::rmcp::ServerHandler>(server: S) -> Self {
        use mcp_result::rmcp::ServiceExt as _;
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let (read, write) = tokio::io::split(client_io);
        Self::new(read, write)
    }

    /// Sends `messages`, one a line.
    pub async fn send(&mut self, messages: &[Value]) {
        for message in messages {
            self.write
                .write_all(format!("{message}\n").as_bytes())
                .await
                .unwrap();
        }
    }

    /// Sends `bytes` as they are, then a newline (for lines no JSON value prints).
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.write.write_all(bytes).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    /// The next line as the server wrote it (10 s at most).
    pub async fn next_line(&mut self) -> String {
        tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("the stream stays open")
    }

    /// The next message.
    pub async fn next(&mut self) -> Value {
        serde_json::from_str(&self.next_line().await).unwrap()
    }

    /// Reads up to the answer to request `id`: the answer, and every message before it.
    pub async fn answer(&mut self, id: u64) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let message = self.next().await;
            if message["id"] == id {
                return (message, before);
            }
            before.push(message);
        }
    }

    /// Sends `requests` and returns the answers to those that have an id, in arrival order.
    pub async fn exchange(&mut self, requests: &[Value]) -> Vec<Value> {
        self.send(requests).await;
        let expected = requests.iter().filter(|r| r.get("id").is_some()).count();
        let mut answers = Vec::new();
        while answers.len() < expected {
            let message = self.next().await;
            if message.get("id").is_some() {
                answers.push(message);
            }
        }
        answers
    }
}
