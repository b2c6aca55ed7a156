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
    let open = Arc::new(Semaphore::new(limits.max_connections.max(1)));
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
            tokio::spawn(busy(stream));
            continue;
        };
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_read)
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

/// The answer to a connection over the limit: `503` with a JSON-RPC error and
/// `Retry-After: 1`, then closed (written within 1 s, or not at all).
async fn busy(mut stream: TcpStream) {
    const BODY: &str = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,\"message\":\
                        \"Server busy: too many open connections. Retry in a second.\"}}";
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: \
         1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{BODY}",
        BODY.len()
    );
    let written = async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), written).await;
}
