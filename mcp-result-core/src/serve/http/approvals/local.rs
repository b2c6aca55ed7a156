//! The local approvals page: served on a loopback port beside a server that speaks MCP over
//! stdio ([`State::with_local_approvals_page`]), where the person at the client confirms
//! the gated writes they asked for.

use super::*;
use crate::state::State;

/// Starts the local approvals page `state` asks for, if it does: binds its loopback
/// address, serves the page there (callers confirm their own requests, decided in the
/// server's own stores `(store, audit)`, each tool's title from `tools`), logs where, and
/// puts the page into the state its calls get, where a gated write finds it. The page is
/// served until the returned task is aborted (the server's session ended).
///
/// # Errors
/// An address that is no socket address or not a loopback one, or that cannot be bound: an
/// [`ErrorText`](crate::ErrorText) naming it.
pub(crate) async fn serve_local(
    state: State,
    (store, audit): (Arc<dyn ApprovalStore>, Arc<dyn AuditSink>),
    tools: &[rmcp::model::Tool],
) -> Result<(State, Option<tokio::task::JoinHandle<()>>), crate::ErrorText> {
    let Some(address) = state.local_approvals_page() else {
        return Ok((state, None));
    };
    let refused = |why: String| {
        crate::ErrorText(format!(
            "`State::with_local_approvals_page(\"{address}\")`: {why}"
        ))
    };
    let parsed = address
        .parse::<std::net::SocketAddr>()
        .map_err(|_| refused("not a socket address: give one such as `127.0.0.1:0`".into()))?;
    if !parsed.ip().is_loopback() {
        return Err(refused(
            "the local approvals page listens on a loopback address only (plain HTTP, \
             signed in by a link): give one such as `127.0.0.1:0`, or serve over HTTP with \
             `HttpOptions::approvals_page`"
                .into(),
        ));
    }
    let listener = tokio::net::TcpListener::bind(parsed)
        .await
        .map_err(|error| refused(format!("cannot listen there: {error}")))?;
    let bound = listener
        .local_addr()
        .map_err(|error| refused(format!("cannot listen there: {error}")))?;
    let config = ApprovalsPage::new()
        .callers_confirm()
        .public_url(format!("http://{bound}"));
    let verifier: Arc<dyn super::super::TokenVerifier> =
        Arc::new(super::super::StaticTokens::new());
    let router = routes(&config, (store, audit), &state, tools, &verifier, None);
    tracing::info!(
        "approvals page: http://{bound}{} (a gated write's `blocked` answer names a one-time \
         link to its request, where its caller confirms it)",
        config.path()
    );
    let served = tokio::spawn(async move {
        if let Err(error) = axum::serve(listener, router).await {
            tracing::error!(%error, "the local approvals page stopped");
        }
    });
    Ok((state.with(UrlConfirmation::new(&config)), Some(served)))
}
