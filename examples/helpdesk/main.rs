//! A small support-desk MCP server built with mcp-result.
//!
//! - `cargo run --example helpdesk` serves MCP over stdio (for any MCP client).
//! - `cargo run --example helpdesk -- demo` starts this same binary as a child process,
//!   connects rmcp's client to it over stdio and prints the `tools/list` result and a few
//!   `tools/call` results as JSON: the whole contract in one command.
//! - `cargo run --example helpdesk -- docs [--json] [PATH]` prints (or writes to `PATH`) the
//!   docs of every tool, rendered from the `tools/list` payload (`docs/helpdesk.md`).
//!
//! - `--store sqlite:PATH` or `--store postgres://...` (features `sqlite`, `postgres`) keeps
//!   every store and the desk's notes and locks in that database; `--http ADDRESS`
//!   (feature `http`) serves streamable HTTP with bearer tokens (`--tokens PATH`), so that
//!   several instances can share one database; with `--oauth-issuer URL --resource URL`
//!   (feature `oauth`) it is an OAuth 2.1 protected resource instead, its JWT access tokens
//!   issued by that authorization server for that resource URI (`--introspect CLIENT_ID`
//!   with `MCP_RESULT_CLIENT_SECRET` verifies opaque tokens by introspection instead), and
//!   `--allow-origin ORIGIN` lets a browser page of that origin call it (CORS). `approve --store URL ID APPROVER` and
//!   `reject --store URL ID APPROVER REASON` decide an approval request from another
//!   process. With the `approvals-page` feature, `--http` also serves the approvals page at
//!   `/approvals` (deciders: `--approver IDENTITY`, else the demo identities), and
//!   `sign-in-link --store URL [--http ADDRESS] IDENTITY` prints a one-time link that signs
//!   that approver in.
//!
//! With `--store`, `add_internal_note` writes its note in the write's transaction
//! (`mcp_result::Tx`): the note, its idempotency key and its audit records commit together,
//! once. `HELPDESK_NOTE_DELAY_MS` (for the kill tests, `tests/scale_out.rs`) makes it wait
//! that long after inserting, before the commit.
//!
//! The tickets are seeded (five of them); everything else is the real thing.
//!
//! The example reads in rooms: `tools.rs` the tools (their arguments, results and the
//! `#[mcp_tools]` block), `desk.rs` the desk they work on (tickets, notes, locks, the stores),
//! and apart from them the operations: `serve.rs` (the stores a `--store` URL opens, and
//! streamable HTTP), `cli.rs` (flags, `--help`, `approve`/`reject`, `docs`) and `demo.rs`
//! (rmcp's client against this binary).

mod cli;
mod demo;
mod desk;
mod serve;
// OTLP export of the desk's spans and metrics, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set.
#[cfg(feature = "opentelemetry")]
mod telemetry;
// Public, as the types of a library's tools are: fields that only serde and the framework
// read (`requestId`, a `#[secret]`) are no dead code.
pub mod tools;

use mcp_result::audit::JsonLinesSink;

use crate::{
    cli::{decide, docs, sign_in_link, take_flag, take_flags, Access, HELP},
    desk::Helpdesk,
    serve::serve_http,
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // The flags may stand anywhere; the rest is the command.
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    #[cfg(feature = "opentelemetry")]
    let telemetry = telemetry::Telemetry::from_env()?;
    init_logs(
        args.first().is_some_and(|a| a == "demo"),
        #[cfg(feature = "opentelemetry")]
        telemetry.as_ref(),
    );
    if args.iter().any(|a| a == "--help" || a == "-h") || args.first().is_some_and(|a| a == "help")
    {
        print!("{HELP}");
        return Ok(());
    }
    let audit_log = match take_flag(&mut args, "--audit-log")? {
        Some(path) => Some(JsonLinesSink::open(path)?),
        None => None,
    };
    let store = take_flag(&mut args, "--store")?;
    let http = take_flag(&mut args, "--http")?;
    let access = Access {
        tokens: take_flag(&mut args, "--tokens")?,
        issuer: take_flag(&mut args, "--oauth-issuer")?,
        resource: take_flag(&mut args, "--resource")?,
        introspect: take_flag(&mut args, "--introspect")?,
        origins: take_flags(&mut args, "--allow-origin")?,
        approvers: take_flags(&mut args, "--approver")?,
    };
    match args.first().map(String::as_str) {
        None | Some("serve") => {
            // `--audit-log` without `--store`: the audit log in a file, the other stores in
            // memory, a mix the operator chose.
            let mut state = mcp_result::State::new();
            if audit_log.is_some() && store.is_none() {
                state = state.allow_mixed_stores();
            }
            #[cfg(feature = "opentelemetry")]
            if let Some(telemetry) = &telemetry {
                state = state.with_meter(telemetry.meter());
            }
            let desk = Helpdesk::open(store.as_deref(), audit_log).await?;
            let served = match http {
                None => mcp_result::serve_stdio_with_state(desk, state).await,
                Some(address) => serve_http(desk, &address, access, state).await,
            };
            #[cfg(feature = "opentelemetry")]
            if let Some(telemetry) = &telemetry {
                telemetry.shutdown();
            }
            served
        }
        Some("demo") => demo::demo().await,
        Some(decision @ ("approve" | "reject")) => {
            decide(store.as_deref(), decision, &args[1..]).await
        }
        Some("sign-in-link") => {
            sign_in_link(
                store.as_deref(),
                http.as_deref(),
                &access.approvers,
                &args[1..],
            )
            .await
        }
        Some("docs") => docs(args.into_iter().skip(1)),
        Some(other) => Err(format!(
            "unknown command `{other}`: expected `serve`, `demo`, `docs`, `approve`, \
             `reject` or `sign-in-link` (`--help` says more)"
        )
        .into()),
    }
}

/// Logs go to stderr (stdout is the MCP channel), as `RUST_LOG` chooses: a level or a list
/// of `target=level` (`RUST_LOG=debug`, `RUST_LOG=warn,mcp_result=debug`). Without it a
/// server logs at `info`, and `demo` logs nothing, nor does the server it starts
/// (`RUST_LOG=off` for the child), so it prints only what it demonstrates.
fn init_logs(
    demo: bool,
    #[cfg(feature = "opentelemetry")] telemetry: Option<&telemetry::Telemetry>,
) {
    use tracing_subscriber::{filter::Targets, layer::SubscriberExt, util::SubscriberInitExt};
    let info = || Targets::new().with_default(tracing::Level::INFO);
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) => directives.parse::<Targets>().unwrap_or_else(|error| {
            eprintln!("RUST_LOG `{directives}`: {error}; logging at info");
            info()
        }),
        Err(_) if demo => return,
        Err(_) => info(),
    };
    let registry = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false),
        )
        .with(filter);
    // With the feature `opentelemetry` and an OTLP endpoint: the spans exported too.
    #[cfg(feature = "opentelemetry")]
    let registry = registry.with(telemetry.map(telemetry::Telemetry::layer));
    registry.init();
}
