//! Deciding approval requests from another process: [`decide`] (the one place a decision is
//! made and recorded, for the approvals page and for code) and [`run_command`] (a server
//! binary's `approvals` subcommand, so that a stdio server's `blocked` writes can be decided
//! with no page and no code of the application's).

use crate::{
    error_text::ErrorText,
    state::State,
    store::StoreError,
    write::{
        approval::{ApprovalRequest, ApprovalStore, Decision, Refusal},
        audit::AuditSink,
    },
};

/// How many pending requests `approvals list` prints, at most.
pub const LIST_LIMIT: usize = 100;

/// Decides `request` in `store` and records the decision's audit record
/// ([`ApprovalRequest::decision_record`]) to `audit`: the approved or rejected request, or why
/// it could not be decided.
///
/// The record is made (and timed) before the store decides, and recorded once the decision
/// stands; a sink that fails then leaves the decision in the store and is logged (`error`),
/// since a decision recorded first could be one a concurrent decider then won.
///
/// # Errors
/// The store failed to read or to decide.
pub async fn decide(
    store: &dyn ApprovalStore,
    audit: &dyn AuditSink,
    request: &ApprovalRequest,
    decision: Decision,
) -> Result<Result<ApprovalRequest, Refusal>, StoreError> {
    let record = ApprovalRequest {
        decision: decision.clone(),
        ..request.clone()
    }
    .decision_record();
    let decided = store.decide(&request.id, decision).await?;
    if let (Ok(decided), Some(record)) = (&decided, record) {
        if let Err(error) = audit.record(&record).await {
            tracing::error!(
                %error,
                request = %decided.id,
                "an approval request was decided and its audit record failed"
            );
        }
    }
    Ok(decided)
}

/// What `approvals` prints for `--help` and after a wrong use.
pub const USAGE: &str = "\
usage:
  PROGRAM approvals list [TENANT]             the pending requests (oldest first, at most 100)
  PROGRAM approvals show ID                   one request: its tool, caller, text, arguments
  PROGRAM approvals approve ID --as APPROVER  approve it: the caller's call again runs the write
  PROGRAM approvals reject ID --as APPROVER REASON...
                                              reject it: the write never runs under it
  PROGRAM approvals revoke IDENTITY           end that identity's sessions of the approvals page";

/// A server binary's `approvals` subcommand, run against `state`'s approval store and audit
/// sink: `None` when `args` (the process's arguments after the program name:
/// `std::env::args().skip(1)`) do not start with `approvals`, so the binary serves as usual.
///
/// ```no_run
/// # use mcp_result_core::State;
/// # async fn serve(_: State) -> Result<(), Box<dyn std::error::Error + Send + Sync>> { Ok(()) }
/// # async fn main_() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
/// # let state = State::new();
/// // `notes approvals approve 01932c6e-… --as alice` decides; `notes` serves.
/// if let Some(done) = mcp_result_core::approval::run_command(&state, std::env::args().skip(1)).await {
///     return done;
/// }
/// serve(state).await
/// # }
/// ```
///
/// The approval store must be one that other processes share ([`State::connect`] on a
/// SQLite file or PostgreSQL): a store in this process's memory is refused with that said,
/// since the server deciding nothing would never see the decision.
///
/// - `approvals list [TENANT]`: one line per pending request, `ID  TOOL  CALLER  TEXT`.
/// - `approvals show ID`: the request's tool, caller, text, state and arguments (JSON, its
///   secrets withheld).
/// - `approvals approve ID --as APPROVER`: prints `approved ID: approval APPROVAL_ID`.
/// - `approvals reject ID --as APPROVER REASON...`: prints `rejected ID`.
/// - `approvals revoke IDENTITY`: ends every session of that identity on the approvals page
///   ([`revoke_sessions`](super::revoke_sessions)), on every instance sharing the store.
///
/// A decision goes through [`decide`] (its audit record included). The approver is the
/// person's name as the audit records carry it; the command trusts whoever can run it
/// (the server's own binary, on a machine that holds the store's credentials). An approval
/// by the request's own caller (its identity key, or the subject of it) is refused: only
/// the page's `callers_confirm` lets a caller confirm a request of their own. A caller may
/// reject, that is withdraw, a request of their own.
///
/// # Errors
/// Inside the `Some`, a [`ErrorText`]: a wrong use ([`USAGE`]), an approval store in
/// memory, a request that does not exist or cannot be decided (why, in words), an approval
/// by its own caller, the store's failure.
pub async fn run_command(
    state: &State,
    args: impl IntoIterator<Item = String>,
) -> Option<Result<(), Box<dyn std::error::Error + Send + Sync>>> {
    let mut args = args.into_iter();
    if args.next().as_deref() != Some("approvals") {
        return None;
    }
    let args: Vec<String> = args.collect();
    Some(match command(state, &args).await {
        Ok(text) => {
            println!("{text}");
            Ok(())
        }
        Err(error) => Err(error.into()),
    })
}

/// A store's failure, as the command says it.
fn store_failed(error: StoreError) -> ErrorText {
    ErrorText(format!("approvals: the approval store failed: {error}"))
}

/// `approvals ARGS...`: the text to print.
async fn command(state: &State, args: &[String]) -> Result<String, ErrorText> {
    let store = state.approval_store();
    if !store.durable() {
        return Err(ErrorText(
            "approvals: this server's approval requests live in its process's memory, \
                    so no other process can decide them: make the approval store durable \
                    (`State::connect(\"sqlite:app.db\")`, features `sqlite`/`postgres`) and \
                    serve with that state"
                .to_owned(),
        ));
    }
    let usage = || ErrorText(USAGE.to_owned());
    match args.first().map(String::as_str) {
        Some("list") if args.len() <= 2 => {
            let pending = store
                .pending(args.get(1).map(String::as_str), LIST_LIMIT)
                .await
                .map_err(store_failed)?;
            if pending.is_empty() {
                return Ok("no pending approval requests".to_owned());
            }
            Ok(pending
                .iter()
                .map(|r| format!("{}  {}  {}  {}", r.id, r.tool, r.caller, r.text))
                .collect::<Vec<_>>()
                .join("\n"))
        }
        Some("show") if args.len() == 2 => {
            let request = find(store.as_ref(), &args[1]).await?;
            // Characters that change what a reader sees, as their code points.
            let arguments = request
                .review
                .as_ref()
                .map(|review| super::marked(&review.arguments.to_string(), &[]).into_owned())
                .unwrap_or_else(|| "(not kept)".to_owned());
            let mut shown = format!(
                "request {}\ntool: {}\ncaller: {}\ntext: {}\nstate: {}\narguments: {}",
                request.id,
                request.tool,
                super::marked(&request.caller, &[]),
                request.text,
                state_of(&request),
                arguments
            );
            if let Some(review) = request.review.as_ref().filter(|r| !r.hidden.is_empty()) {
                shown.push_str(&format!(
                    "\nwarning: characters that change how text reads, shown as [U+...], are \
                     in {}",
                    super::marked(&review.hidden.join(", "), &[])
                ));
            }
            Ok(shown)
        }
        Some("revoke") if args.len() == 2 => {
            let identity = crate::Identity::parse(&args[1])
                .map_err(|error| ErrorText(format!("approvals: {}: {error}", args[1])))?;
            crate::approval::revoke_sessions(store.as_ref(), &identity)
                .await
                .map_err(store_failed)?;
            Ok(format!(
                "revoked the approvals page sessions of {}",
                identity.key()
            ))
        }
        Some(verb @ ("approve" | "reject")) if args.len() >= 4 && args[2] == "--as" => {
            let (id, approver) = (&args[1], args[3].clone());
            let reason = args[4..].join(" ");
            let request = find(store.as_ref(), id).await?;
            let decision = match verb {
                "approve" if reason.is_empty() => {
                    if approver == request.caller || is_subject_of(&approver, &request.caller) {
                        return Err(ErrorText(format!(
                            "approvals: {approver} made request {id} and cannot approve it: \
                             another person approves a write"
                        )));
                    }
                    Decision::Approved {
                        approval_id: uuid::Uuid::now_v7().to_string(),
                        approver,
                    }
                }
                "reject" if !reason.is_empty() => Decision::Rejected { approver, reason },
                _ => return Err(usage()),
            };
            let audit = state.audit_sink();
            #[cfg(feature = "opentelemetry")]
            let audit = crate::call::metrics::metered(audit.clone(), state.metrics());
            match decide(store.as_ref(), audit.as_ref(), &request, decision)
                .await
                .map_err(store_failed)?
            {
                Ok(decided) => Ok(match decided.decision {
                    Decision::Approved { approval_id, .. } => {
                        format!("approved {id}: approval {approval_id}")
                    }
                    _ => format!("rejected {id}"),
                }),
                Err(refusal) => Err(ErrorText(format!("approvals: {id}: {}", refusal.message()))),
            }
        }
        _ => Err(usage()),
    }
}

/// Request `id`, or an error saying there is none.
async fn find(store: &dyn ApprovalStore, id: &str) -> Result<ApprovalRequest, ErrorText> {
    store
        .get(id)
        .await
        .map_err(store_failed)?
        .ok_or_else(|| ErrorText(format!("approvals: no approval request {id}")))
}

/// Whether `name` is the subject of `caller`, an [`Identity::key`](crate::Identity::key)
/// (`tenant:subject`): an approver may name a person either way.
fn is_subject_of(name: &str, caller: &str) -> bool {
    caller
        .rsplit_once(':')
        .is_some_and(|(_, subject)| subject == name)
}

/// A request's decision in a word or two.
fn state_of(request: &ApprovalRequest) -> String {
    match &request.decision {
        Decision::Pending if request.expired() => "expired".to_owned(),
        Decision::Pending => "pending".to_owned(),
        Decision::Approved { approver, .. } => format!("approved by {approver}"),
        Decision::Used { approver, .. } => format!("approved by {approver}, used"),
        Decision::Rejected { approver, reason } => format!("rejected by {approver}: {reason}"),
    }
}
