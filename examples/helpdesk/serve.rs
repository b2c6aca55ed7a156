//! Serving: the desk a `--store` URL opens (every store, the notes and the locks in one
//! database), and streamable HTTP with bearer tokens or OAuth (`--http`).

use std::sync::Arc;

use mcp_result::audit::{AuditSink, JsonLinesSink, TracingSink};

use crate::{cli::Access, desk::Helpdesk};

impl Helpdesk {
    /// The desk that `serve` runs: in memory, or with every store in the database at
    /// `store` (`sqlite:PATH`, `postgres://...`); audit records also to `audit_log`.
    pub(crate) async fn open(
        store: Option<&str>,
        audit_log: Option<JsonLinesSink>,
    ) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        let mut desk = Self::seeded();
        let mut sinks: Vec<Arc<dyn AuditSink>> = Vec::new();
        match store {
            None => {}
            #[cfg(any(feature = "sqlite", feature = "postgres"))]
            Some(url) => {
                let stores = mcp_result::sql::SqlStores::connect(url).await?;
                for table in [
                    "CREATE TABLE IF NOT EXISTS helpdesk_notes (ticket_id TEXT NOT NULL, \
                     n BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (ticket_id, n))",
                    "CREATE TABLE IF NOT EXISTS helpdesk_locks (ticket_id TEXT PRIMARY KEY)",
                ] {
                    mcp_result::sql::sqlx::query(table)
                        .execute(stores.pool())
                        .await?;
                }
                desk.artifacts = Arc::new(stores.artifacts(Default::default()));
                desk.idempotency = Arc::new(stores.idempotency());
                desk.approvals = Arc::new(stores.approvals());
                desk.tasks = Arc::new(stores.tasks());
                sinks.push(Arc::new(stores.audit()));
                desk.sql = Some(stores);
            }
            #[cfg(not(any(feature = "sqlite", feature = "postgres")))]
            Some(_) => {
                return Err("--store needs the `sqlite` or `postgres` feature: \
                            cargo run --features sqlite --example helpdesk -- --store sqlite:desk.db"
                    .into())
            }
        }
        if let Some(file) = audit_log {
            sinks.push(Arc::new(file));
        }
        // The log when nothing else records.
        desk.audit = match sinks.len() {
            0 => Arc::new(TracingSink),
            1 => sinks.remove(0),
            _ => Arc::new(sinks),
        };
        Ok(desk)
    }
}

/// `--http ADDRESS`: streamable HTTP at `http://ADDRESS/mcp`, statelessly (any instance
/// answers any request), each request's caller the identity of its bearer token: from the
/// `--tokens PATH` table (JSON: `{"token": {"subject": ..., "tenant": ..., "scopes":
/// [...]}}`) or the demo table printed at start, or, with `--oauth-issuer URL --resource
/// URL`, a JWT access token of that authorization server for that resource (introspected
/// with `--introspect CLIENT_ID`). Stops on Ctrl-C or SIGTERM after running writes finish.
#[cfg(feature = "http")]
pub(crate) async fn serve_http(
    desk: Helpdesk,
    address: &str,
    access: Access,
    state: mcp_result::State,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use mcp_result::http::{HttpOptions, TokenVerifier};
    let listener = tokio::net::TcpListener::bind(address).await?;
    let local = listener.local_addr()?;
    let mut options = HttpOptions {
        allowed_origins: access.origins.clone(),
        state,
        ..HttpOptions::default()
    };
    // How long a task's instance holds it without renewing (tests shorten it to take a
    // killed instance's tasks over sooner).
    if let Some(ms) = std::env::var("HELPDESK_TASK_LEASE_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        let policy = mcp_result::task::TaskPolicy::default()
            .with_lease(std::time::Duration::from_millis(ms));
        options.state = options.state.with(policy);
    }
    // How long the instance keeps serving after SIGTERM, its readiness already `503`, so
    // that a balancer polling `/readyz` stops sending first (`HELPDESK_DRAIN_DELAY_MS`; as
    // long as the balancer's probe period, in production).
    if let Some(ms) = std::env::var("HELPDESK_DRAIN_DELAY_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        options.health = options
            .health
            .map(|health| health.drain_delay(std::time::Duration::from_millis(ms)));
    }
    // A client's `notifications/cancelled` reaches its call on whichever instance of the
    // `--store` database runs it (PostgreSQL; on SQLite, this instance's).
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    if let Some(sql) = &desk.sql {
        options.state = options.state.with_cancel_bus(sql.cancel_bus().await?);
    }
    // The approvals page at /approvals, deciding the requests of the desk's approval store
    // (`sign-in-link` prints an approver's link).
    #[cfg(feature = "approvals-page")]
    {
        options.state = options
            .state
            .with_approval_store(Arc::clone(&desk.approvals));
        options = options.with_approvals_page(crate::cli::approvals_page(&access.approvers));
        tracing::info!("approvals page at http://{local}/approvals");
    }
    let verifier: Arc<dyn TokenVerifier> = match (&access.issuer, &access.resource) {
        (Some(issuer), Some(resource)) => {
            let (verifier, resource) =
                oauth(issuer, resource, access.introspect.as_deref()).await?;
            options.resource = Some(resource);
            verifier
        }
        (None, None) => Arc::new(static_tokens(access.tokens.as_deref())?),
        _ => return Err("--oauth-issuer and --resource go together".into()),
    };
    tracing::info!("serving MCP at http://{local}/mcp");
    let shutdown = async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    };
    mcp_result::http::serve_http(desk, listener, verifier, options, shutdown).await
}

/// `--tokens PATH`, or the demo tokens.
#[cfg(feature = "http")]
fn static_tokens(
    path: Option<&str>,
) -> Result<mcp_result::http::StaticTokens, Box<dyn std::error::Error + Send + Sync>> {
    use mcp_result::{http::StaticTokens, Identity};
    Ok(match path {
        Some(path) => StaticTokens::from_json(&std::fs::read_to_string(path)?)?,
        None => {
            tracing::warn!(
                "no --tokens: demo tokens `alice-token` (acme:alice) and `bob-token` (globex:bob)"
            );
            let scopes = ["tickets:read", "tickets:write"];
            StaticTokens::new()
                .with(
                    "alice-token",
                    Identity::new("alice")
                        .with_tenant("acme")
                        .with_scopes(scopes),
                )
                .with(
                    "bob-token",
                    Identity::new("bob")
                        .with_tenant("globex")
                        .with_scopes(scopes),
                )
        }
    })
}

/// The verifier of `issuer`'s tokens for `resource`, and the protected resource the server
/// is: JWT access tokens checked against the issuer's keys, or, with `--introspect
/// CLIENT_ID` (its secret in `MCP_RESULT_CLIENT_SECRET`), opaque ones by introspection.
#[cfg(feature = "oauth")]
async fn oauth(
    issuer: &str,
    resource: &str,
    introspect: Option<&str>,
) -> Result<
    (
        Arc<dyn mcp_result::http::TokenVerifier>,
        mcp_result::http::ProtectedResource,
    ),
    Box<dyn std::error::Error + Send + Sync>,
> {
    use mcp_result::{
        http::ProtectedResource,
        oauth::{ClientCredentials, IntrospectionVerifier, JwtVerifier},
    };
    let verifier: Arc<dyn mcp_result::http::TokenVerifier> = match introspect {
        None => Arc::new(JwtVerifier::discover(issuer, resource).await?),
        Some(client_id) => {
            let secret = std::env::var("MCP_RESULT_CLIENT_SECRET")
                .map_err(|_| "--introspect needs the client secret in MCP_RESULT_CLIENT_SECRET")?;
            let credentials = ClientCredentials::new(client_id, secret);
            Arc::new(IntrospectionVerifier::discover(issuer, credentials, resource).await?)
        }
    };
    let mut protected = ProtectedResource::new(resource, [issuer]);
    protected.resource_name = Some("Helpdesk".to_owned());
    Ok((verifier, protected))
}

#[cfg(all(feature = "http", not(feature = "oauth")))]
async fn oauth(
    _issuer: &str,
    _resource: &str,
    _introspect: Option<&str>,
) -> Result<
    (
        Arc<dyn mcp_result::http::TokenVerifier>,
        mcp_result::http::ProtectedResource,
    ),
    Box<dyn std::error::Error + Send + Sync>,
> {
    Err("--oauth-issuer needs the `oauth` feature: cargo run --features oauth --example helpdesk -- --http 127.0.0.1:8080 --oauth-issuer URL --resource URL".into())
}

#[cfg(not(feature = "http"))]
pub(crate) async fn serve_http(
    _desk: Helpdesk,
    _address: &str,
    _access: Access,
    _state: mcp_result::State,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Err("--http needs the `http` feature: cargo run --features http --example helpdesk -- --http 127.0.0.1:8080".into())
}
