//! The page's HTML: its askama templates and how values are shown in them.

use super::*;

#[derive(Template)]
#[template(path = "approvals/message.html")]
pub(super) struct Message<'a> {
    pub(super) style: &'a str,
    pub(super) base: &'a str,
    pub(super) who: Option<String>,
    pub(super) status: u16,
    pub(super) heading: &'a str,
    pub(super) line: &'a str,
    pub(super) back: bool,
    /// Where to sign in, on a `401` of a page that signs in with OAuth.
    pub(super) sign_in: Option<String>,
    /// Where a page that moves on by itself (`Refresh`) goes: its link, for a browser
    /// that does not refresh.
    pub(super) next: Option<&'a str>,
}

pub(super) struct Row {
    pub(super) id: String,
    pub(super) title: String,
    pub(super) text: String,
    pub(super) caller: String,
    pub(super) asked: String,
    pub(super) expires: String,
}

#[derive(Template)]
#[template(path = "approvals/list.html")]
pub(super) struct List<'a> {
    pub(super) style: &'a str,
    pub(super) base: &'a str,
    pub(super) who: Option<String>,
    pub(super) rows: Vec<Row>,
}

pub(super) struct Argument {
    pub(super) name: String,
    pub(super) value: String,
    /// The value's length in characters, when it was cut.
    pub(super) cut: Option<usize>,
    pub(super) withheld: bool,
}

#[derive(Template)]
#[template(path = "approvals/request.html")]
pub(super) struct Detail<'a> {
    pub(super) style: &'a str,
    pub(super) base: &'a str,
    pub(super) who: Option<String>,
    pub(super) id: &'a str,
    pub(super) tool: &'a str,
    pub(super) title: &'a str,
    pub(super) text: &'a str,
    pub(super) caller: String,
    pub(super) asked: String,
    pub(super) expires: String,
    pub(super) arguments: Vec<Argument>,
    pub(super) csrf: &'a str,
    /// A decided request: its decision, as a sentence, and its audit trail; no forms.
    pub(super) decided: Option<Decided>,
}

/// What a decided request's page shows instead of its forms.
pub(super) struct Decided {
    pub(super) decision: String,
    pub(super) trail: Trail,
}

/// A decided request's audit trail: the records about it
/// ([`AuditSink::approval_records`](crate::audit::AuditSink::approval_records)).
pub(super) enum Trail {
    /// The records, oldest first; whether the log holds more than are shown.
    Records(Vec<Step>, bool),
    /// The server's audit sink cannot be read back (tracing).
    NotReadable,
    /// Reading it failed (logged).
    Failed,
}

/// One audit record of a request's trail, as a table row.
pub(super) struct Step {
    pub(super) time: String,
    /// `blocked`, `approved`, `rejected`, `attempt` or `outcome`.
    pub(super) step: &'static str,
    pub(super) event_id: String,
    /// The record's `status`, with its `errorKind` in brackets.
    pub(super) status: String,
    /// Who decided, the approval's id, the upstream id.
    pub(super) detail: String,
}

impl Step {
    pub(super) fn of(record: &AuditRecord) -> Self {
        let step = match record.phase {
            Phase::Intent => "attempt",
            // The answer that asked for a human (`approval_required`), not a decline.
            Phase::Outcome if record.requires_human_review == Some(true) => "blocked",
            Phase::Outcome => "outcome",
            // Not in a trail today: a replay's call is answered before the gate.
            Phase::Replay => "replay",
            Phase::Approved => "approved",
            Phase::Rejected => "rejected",
        };
        // The wire's words: `blocked`, `policy_blocked`.
        let kind = record.error_kind.as_ref().map(|kind| {
            serde_json::to_value(kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        });
        let status = match (record.status, kind) {
            (Some(status), Some(kind)) => format!("{status} ({kind})"),
            (Some(status), None) => status.to_string(),
            (None, Some(kind)) => format!("({kind})"),
            (None, None) => String::new(),
        };
        let mut detail = Vec::new();
        if let Some(approver) = &record.approver {
            let by = if matches!(record.phase, Phase::Approved | Phase::Rejected) {
                "by"
            } else {
                "approved by"
            };
            detail.push(format!("{by} {}", shown_caller(approver)));
        }
        if let Some(approval) = &record.approval_id {
            detail.push(format!("approval {approval}"));
        }
        if let Some(external) = &record.external_id {
            detail.push(format!("external id {external}"));
        }
        Step {
            time: chrono::DateTime::parse_from_rfc3339(&record.time).map_or_else(
                |_| record.time.clone(),
                |t| t.format("%Y-%m-%d %H:%M:%S%.3f UTC").to_string(),
            ),
            step,
            event_id: record.event_id.clone(),
            status,
            detail: detail.join("; "),
        }
    }
}

pub(super) fn html(status: StatusCode, body: Result<String, askama::Error>) -> Response {
    match body {
        Ok(body) => (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body,
        )
            .into_response(),
        Err(error) => {
            tracing::error!(%error, "approvals page: a template failed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// `tenant:subject` as people read it: `alice (acme)`.
pub(super) fn shown_identity(identity: &Identity) -> String {
    match &identity.tenant {
        Some(tenant) => format!("{} ({tenant})", identity.subject),
        None => identity.subject.clone(),
    }
}

/// A caller key (`tenant:subject`, encoded) as people read it.
pub(super) fn shown_caller(caller: &str) -> String {
    let decode = |part: &str| part.replace("%3A", ":").replace("%25", "%");
    match caller.split_once(':') {
        Some((tenant, subject)) => format!("{} ({})", decode(subject), decode(tenant)),
        None => decode(caller),
    }
}

/// A Unix time as `2026-12-15 10:04:05 UTC`.
pub(super) fn shown_time(at: u64) -> String {
    i64::try_from(at)
        .ok()
        .and_then(|at| chrono::DateTime::from_timestamp(at, 0))
        .map_or_else(
            || at.to_string(),
            |t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        )
}

/// A decided request's decision as a sentence: `Approved by carol (acme): approval …, not
/// used yet.` (or `used by the write it was for`, or `expired unused`), `Rejected by carol
/// (acme): reason`. Empty while pending.
pub(super) fn shown_decision(request: &ApprovalRequest) -> String {
    match &request.decision {
        Decision::Pending => String::new(),
        Decision::Approved {
            approval_id,
            approver,
        } => {
            let state = if request.expired() {
                "expired unused"
            } else {
                "not used yet"
            };
            format!(
                "Approved by {}: approval {approval_id}, {state}.",
                shown_caller(approver)
            )
        }
        Decision::Used {
            approval_id,
            approver,
        } => format!(
            "Approved by {}: approval {approval_id}, used by the write it was for.",
            shown_caller(approver)
        ),
        Decision::Rejected { approver, reason } => {
            format!("Rejected by {}: {reason}", shown_caller(approver))
        }
    }
}

/// An expiry with how far away it is.
pub(super) fn shown_expiry(at: u64) -> String {
    let now = unix_now();
    if at <= now {
        return format!("{} (expired)", shown_time(at));
    }
    let minutes = (at - now).div_ceil(60);
    format!("{} (in {minutes} min)", shown_time(at))
}

/// The arguments of a review as table rows: each top-level argument (strings as they are,
/// other values as JSON, cut past [`SHOWN_CHARS`] characters with their length stated),
/// then each withheld secret.
pub(super) fn argument_rows(review: &Review) -> Vec<Argument> {
    let mut rows = Vec::new();
    if let Value::Object(arguments) = &review.arguments {
        for (name, value) in arguments {
            let text = match value {
                Value::String(text) => text.clone(),
                other => serde_json::to_string_pretty(other).unwrap_or_default(),
            };
            let length = text.chars().count();
            let (value, cut) = if length > SHOWN_CHARS {
                let shown: String = text.chars().take(SHOWN_CHARS).collect();
                (format!("{shown}…"), Some(length))
            } else {
                (text, None)
            };
            rows.push(Argument {
                name: name.clone(),
                value,
                cut,
                withheld: false,
            });
        }
    }
    for pointer in &review.withheld {
        let name = pointer
            .strip_prefix('/')
            .unwrap_or(pointer)
            .replace("~1", "/")
            .replace("~0", "~");
        rows.push(Argument {
            name,
            value: String::new(),
            cut: None,
            withheld: true,
        });
    }
    rows
}
