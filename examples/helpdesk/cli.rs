//! The command line: its flags, `--help`, `approve` and `reject` (an approver's decision
//! through the shared store) and `docs` (the docs of every tool).

#[cfg(feature = "docs")]
use crate::desk::Helpdesk;

/// What `--help` prints.
pub(crate) const HELP: &str = "\
helpdesk: a small support-desk MCP server built with mcp-result.

Usage:
  helpdesk [serve] [FLAGS]         serve MCP over stdio (the default), or HTTP with --http
  helpdesk demo                    run this binary as a child over stdio, connect rmcp's
                                   client, print tools/list and a few tools/call results
  helpdesk docs [--json] [PATH]    print (or write to PATH) the docs of every tool
  helpdesk approve --store URL ID APPROVER
  helpdesk reject --store URL ID APPROVER REASON
                                   decide a pending approval request through the store
  helpdesk sign-in-link --store URL [--http ADDRESS] IDENTITY
                                   print a one-time link (10 minutes) that signs IDENTITY
                                   (tenant:subject, one of the --approver) in to the
                                   approvals page of the server on that store
  helpdesk --help                  this text

Flags:
  --store URL            keep every store, the notes and the locks in one database:
                         sqlite:PATH or postgres://... (features sqlite, postgres)
  --audit-log PATH       also write the audit log as JSON Lines to PATH
  --http ADDRESS         serve streamable HTTP on ADDRESS, e.g. 127.0.0.1:8080 (feature http)
  --tokens PATH          bearer tokens of --http, a JSON table {token: {subject, tenant?,
                         scopes?}}; without it the demo tokens alice-token and bob-token
  --oauth-issuer URL     an OAuth 2.1 protected resource instead: JWT access tokens of this
  --resource URL           authorization server for this resource URI (feature oauth)
  --introspect CLIENT_ID verify opaque tokens by introspection (MCP_RESULT_CLIENT_SECRET)
  --allow-origin ORIGIN  let a browser page of ORIGIN call (CORS; repeatable)
  --approver IDENTITY    who may decide on the approvals page that --http serves at
                         /approvals (tenant:subject; repeatable; feature approvals-page);
                         without it the demo deciders acme:carol and globex:dave

Environment:
  MCP_RESULT_SERVER_KEY  the server key shared by every instance (base64, 32 bytes or more)
  MCP_RESULT_INSTANCE    this instance's name in the audit log
  RUST_LOG               which logs: a level or target=level list, e.g. warn,mcp_result=debug
                         (default: info when serving, none for demo)

Logs go to stderr: stdout is the MCP channel.
";

/// `approve --store URL ID APPROVER` / `reject --store URL ID APPROVER REASON`: an
/// approver's decision on a pending approval request, from another process than the
/// server's, through the shared store.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) async fn decide(
    store: Option<&str>,
    decision: &str,
    args: &[String],
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let usage =
        "usage: helpdesk approve --store URL ID APPROVER | reject --store URL ID APPROVER REASON";
    use mcp_result::approval::{decide, ApprovalStore as _, Decision, Refusal};
    let store = store.ok_or(usage)?;
    let stores = mcp_result::sql::SqlStores::connect(store).await?;
    let decision = match (decision, args) {
        ("approve", [_, approver]) => Decision::Approved {
            approval_id: uuid::Uuid::now_v7().to_string(),
            approver: approver.clone(),
        },
        ("reject", [_, approver, reason]) => Decision::Rejected {
            approver: approver.clone(),
            reason: reason.clone(),
        },
        _ => return Err(usage.into()),
    };
    let id = &args[0];
    let approvals = stores.approvals();
    let request = approvals
        .get(id)
        .await?
        .ok_or_else(|| Refusal::Unknown.message())?;
    // The decision, and its audit record in the store's audit log, as the approvals page
    // records it (the request's page shows it in its trail).
    match decide(&approvals, &stores.audit(), &request, decision).await? {
        Ok(decided) => {
            match decided.decision {
                Decision::Approved { approval_id, .. } => {
                    println!("approved {id}: approval {approval_id}")
                }
                _ => println!("rejected {id}"),
            }
            Ok(())
        }
        Err(refusal) => Err(refusal.message().into()),
    }
}

#[cfg(not(any(feature = "sqlite", feature = "postgres")))]
pub(crate) async fn decide(
    _store: Option<&str>,
    _decision: &str,
    _args: &[String],
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Err("approve and reject need a shared store: cargo run --features sqlite --example helpdesk -- approve --store sqlite:desk.db ID APPROVER".into())
}

/// The approvals page `--http` serves: its deciders the `--approver` identities, else the
/// demo deciders acme:carol and globex:dave.
#[cfg(feature = "approvals-page")]
pub(crate) fn approvals_page(approvers: &[String]) -> mcp_result::http::ApprovalsPage {
    let page = mcp_result::http::ApprovalsPage::new();
    if approvers.is_empty() {
        // Not the demo callers (acme:alice, globex:bob): another person approves a write.
        page.deciders(["acme:carol", "globex:dave"])
    } else {
        page.deciders(approvers)
    }
}

/// `sign-in-link --store URL [--http ADDRESS] IDENTITY`: a one-time sign-in link to the
/// approvals page of the server on that store (its record kept in the store's approvals, so
/// the server, another process, finds it), printed.
#[cfg(all(
    feature = "approvals-page",
    any(feature = "sqlite", feature = "postgres")
))]
pub(crate) async fn sign_in_link(
    store: Option<&str>,
    http: Option<&str>,
    approvers: &[String],
    args: &[String],
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let usage = "usage: helpdesk sign-in-link --store URL [--http ADDRESS] IDENTITY";
    let (Some(store), [identity]) = (store, args) else {
        return Err(usage.into());
    };
    let identity = mcp_result::Identity::parse(identity)?;
    let approvals = mcp_result::sql::SqlStores::connect(store)
        .await?
        .approvals();
    let link = approvals_page(approvers)
        .sign_in_link(&approvals, &identity)
        .await?;
    match http {
        Some(address) => println!("http://{address}{link}"),
        None => println!("{link}"),
    }
    Ok(())
}

#[cfg(not(all(
    feature = "approvals-page",
    any(feature = "sqlite", feature = "postgres")
)))]
pub(crate) async fn sign_in_link(
    _store: Option<&str>,
    _http: Option<&str>,
    _approvers: &[String],
    _args: &[String],
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Err("sign-in-link needs the approvals page and a shared store: cargo run --features approvals-page,sqlite --example helpdesk -- sign-in-link --store sqlite:desk.db acme:carol".into())
}

/// Removes every `--flag VALUE` from `args`: the values.
pub(crate) fn take_flags(
    args: &mut Vec<String>,
    flag: &str,
) -> Result<Vec<String>, Box<dyn std::error::Error + Send + Sync>> {
    let mut values = Vec::new();
    while let Some(value) = take_flag(args, flag)? {
        values.push(value);
    }
    Ok(values)
}

/// Who may call over HTTP: `--tokens PATH`, or `--oauth-issuer URL --resource URL`
/// [`--introspect CLIENT_ID`], and `--allow-origin ORIGIN` (repeatable).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct Access {
    pub(crate) tokens: Option<String>,
    pub(crate) issuer: Option<String>,
    pub(crate) resource: Option<String>,
    pub(crate) introspect: Option<String>,
    pub(crate) origins: Vec<String>,
    /// `--approver IDENTITY`: who may decide on the approvals page.
    pub(crate) approvers: Vec<String>,
}

/// Removes `--flag VALUE` from `args`: the value, if the flag is there.
pub(crate) fn take_flag(
    args: &mut Vec<String>,
    flag: &str,
) -> Result<Option<String>, Box<dyn std::error::Error + Send + Sync>> {
    let Some(at) = args.iter().position(|a| a == flag) else {
        return Ok(None);
    };
    let value = args
        .get(at + 1)
        .cloned()
        .ok_or_else(|| format!("{flag} needs a value"))?;
    args.drain(at..=at + 1);
    Ok(Some(value))
}

/// `docs [--json] [PATH]`: the Markdown (or JSON) docs of every tool, to stdout or `PATH`.
/// The committed `docs/helpdesk.md` and `docs/helpdesk.json` are this output.
#[cfg(feature = "docs")]
pub(crate) fn docs(
    args: impl Iterator<Item = String>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (flags, paths): (Vec<String>, Vec<String>) = args.partition(|a| a.starts_with("--"));
    let json = match flags.as_slice() {
        [] => false,
        [flag] if flag == "--json" => true,
        _ => return Err(format!("usage: helpdesk docs [--json] [PATH], got {flags:?}").into()),
    };
    let docs = mcp_result::docs::ServerDocs::for_tool_set::<Helpdesk>("helpdesk")?;
    let text = if json {
        docs.to_json_pretty()
    } else {
        docs.to_markdown()
    };
    match paths.as_slice() {
        [] => print!("{text}"),
        [path] => std::fs::write(path, text)?,
        _ => return Err("usage: helpdesk docs [--json] [PATH]".into()),
    }
    Ok(())
}

#[cfg(not(feature = "docs"))]
pub(crate) fn docs(
    _args: impl Iterator<Item = String>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Err("the docs command needs the `docs` feature: cargo run --features docs --example helpdesk -- docs".into())
}
