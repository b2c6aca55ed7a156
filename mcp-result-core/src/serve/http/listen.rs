//! Accepting connections for [`serve_http`](super::serve_http): hyper's HTTP/1 server with
//! the bounds of [`HttpLimits`] (axum's `serve` sets no timer, so it reads headers forever
//! and keeps every connection it accepts).

use std::{future::Future, sync::Arc, time::Duration};

use hyper_util::{
    rt::{TokioIo, TokioTimer},
    server::graceful::GracefulShutdown,
    service::TowerToHyperService,
};
use tokio::{
    io::AsyncWriteExt as _,
    net::{TcpListener, TcpStream},
    sync::Semaphore,
};

use super::options::HttpLimits;

/// Serves `app` on `listener` until `shutdown` completes: each connection is closed when it
/// sends no request headers within [`HttpLimits::header_read`], and past
/// [`HttpLimits::max_connections`] a new one gets `503` and is closed. Then waits up to
/// `grace` for the connections still open to finish their responses.
pub(crate) async fn serve_connections(
    listener: TcpListener,
    app: axum::Router,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) {
    let open = Arc::new(Semaphore::new(
        limits.max_connections.clamp(1, Semaphore::MAX_PERMITS),
    ));
    // At most this many refusals are being written at once; past them a surplus connection
    // is closed at once.
    let refusing = Arc::new(Semaphore::new(BUSY_AT_ONCE));
    let header_read = limits.header_read.min(Duration::from_secs(24 * 3600));
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => stream,
                Err(error) => {
                    // Out of descriptors, say: wait a little rather than spin.
                    tracing::warn!(%error, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(permit) = Arc::clone(&open).try_acquire_owned() else {
            tracing::warn!(
                max = limits.max_connections,
                "connection refused: too many open connections"
            );
            match Arc::clone(&refusing).try_acquire_owned() {
                Ok(slot) => {
                    tokio::spawn(async move {
                        busy(stream).await;
                        drop(slot);
                    });
                }
                Err(_) => drop(stream),
            }
            continue;
        };
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(header_read)
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    if tokio::time::timeout(grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections still open at shutdown were cut off");
    }
}

/// How many surplus connections are answered `503` at once.
const BUSY_AT_ONCE: usize = 64;

/// The answer to a connection over the limit: `503` with a JSON-RPC error and
/// `Retry-After: 1`, then closed; what the client sent first is read (up to 16 KiB, 500 ms),
/// so that closing does not reset the connection before the client reads the answer. All
/// of it within 1.5 s, or not at all.
async fn busy(mut stream: TcpStream) {
    use tokio::io::AsyncReadExt as _;
    const BODY: &str = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,\"message\":\
                        \"Server busy: too many open connections. Retry in a second.\"}}";
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: \
         1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    let mut sent = vec![0; 16 * 1024];
    let _ = tokio::time::timeout(Duration::from_millis(500), stream.read(&mut sent)).await;
    let written = async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await?;
        // Drain what else arrives until the client closes (a reset would lose the answer).
        while stream.read(&mut sent).await? > 0 {}
        Ok::<_, std::io::Error>(())
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), written).await;
}
