//! The server side of HTTP/1.1, as little as the tests' own servers need (the OTLP receiver
//! of `tests/otlp.rs`, the balancer of `tests/scale_out.rs`): one request read at a time off
//! a kept-alive connection, its body by `Content-Length`.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt};

/// One request: its path, its headers (but `Host`, `Connection` and `Content-Length`), its
/// body.
pub struct Request {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// The next request on `read`, `None` when the peer closed the connection.
pub async fn read_request<R: AsyncBufRead + Unpin>(read: &mut R) -> Option<Request> {
    let mut line = String::new();
    if read.read_line(&mut line).await.unwrap_or(0) == 0 {
        return None;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        read.read_line(&mut header).await.ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim(), value.trim());
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse().ok()?;
        } else if !["host", "connection"]
            .iter()
            .any(|skip| name.eq_ignore_ascii_case(skip))
        {
            headers.push((name.to_owned(), value.to_owned()));
        }
    }
    let mut body = vec![0; length];
    read.read_exact(&mut body).await.ok()?;
    Some(Request {
        path,
        headers,
        body,
    })
}

/// The head of a response of `status` with a body of `length` bytes of `kind`.
pub fn response_head(status: u16, kind: &str, length: usize) -> String {
    format!("HTTP/1.1 {status} X\r\ncontent-type: {kind}\r\ncontent-length: {length}\r\n\r\n")
}
