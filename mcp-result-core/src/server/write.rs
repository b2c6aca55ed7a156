//! The write path's parts: a write attempt's audit event ([`Audit`]), the idempotency key
//! of a call, and the answers given when the framework's own stores fail. The registry
//! ([`crate::server::registry`]) runs them in order: key, claim, intent, run, outcome.

use std::{sync::Arc, time::Duration};

#[cfg(feature = "elicitation")]
use rmcp::service::ElicitationError;
use rmcp::{model::CallToolResult, service::RequestContext, RoleServer};
use serde_json::Value;

use crate::{
    server::{
        approval::{
            approval_text, unix_now, ApprovalRequest, ApprovalStore, Decision, APPROVAL_TTL,
        },
        arguments::ArgumentSchema,
        audit::{now_rfc3339, AuditRecord, AuditSink, Phase},
        extract::WriteContext,
        idempotency::{check_key, StoreError},
        result::error_result,
    },
    wire::{
        envelope::{FieldError, ToolError},
        keys::{
            APPROVAL_REQUEST_ARGUMENT, APPROVAL_REQUEST_META, IDEMPOTENCY_KEY_META,
            REDACTION_APPLIED,
        },
        status::AuditEventId,
    },
};

/// One write attempt's audit event: its sink and its base record.
#[derive(Clone)]
pub(crate) struct Audit {
    pub(crate) sink: Arc<dyn AuditSink>,
    pub(crate) record: AuditRecord,
}

impl Audit {
    pub(crate) fn event_id(&self) -> AuditEventId {
        AuditEventId::new(self.record.event_id.clone())
    }

    pub(crate) fn write_context(&self, retry_safe: bool) -> WriteContext {
        WriteContext::new(
            self.event_id(),
            self.record.idempotency_key.clone(),
            retry_safe,
        )
        .with_approval(
            self.record
                .approval_id
                .clone()
                .zip(self.record.approver.clone()),
        )
    }

    /// Records the `phase` record, with what `result` says when there is one.
    pub(crate) async fn record(
        &self,
        phase: Phase,
        result: Option<(&CallToolResult, Duration)>,
    ) -> Result<(), StoreError> {
        let mut record = self.record.clone();
        record.phase = phase;
        record.time = now_rfc3339();
        if let Some((result, took)) = result {
            let structured = result.structured_content.as_ref();
            let field = |key: &str| structured.and_then(|s| s.get(key)).cloned();
            fn parse<T: serde::de::DeserializeOwned>(value: Option<Value>) -> Option<T> {
                value.and_then(|v| serde_json::from_value(v).ok())
            }
            record.status = parse(field("status"));
            record.error_kind = parse(field("errorKind"));
            record.external_id = field("externalId").and_then(|v| v.as_str().map(str::to_owned));
            record.requires_human_review = parse(field("requiresHumanReview"));
            record.approval_id = field("approvalId").and_then(|v| v.as_str().map(str::to_owned));
            record.redaction_applied = parse(field(REDACTION_APPLIED));
            record.correlation_id =
                field("correlationId").and_then(|v| v.as_str().map(str::to_owned));
            record.duration_ms = Some(u64::try_from(took.as_millis()).unwrap_or(u64::MAX));
        }
        self.sink.record(&record).await
    }

    /// A call answered with `error` (refused before it ran, or past its time limit): the
    /// error carries this event's id, and its outcome is recorded before the answer.
    pub(crate) async fn refuse(&self, error: ToolError) -> CallToolResult {
        let result = error_result(&error.with_audit_event_id(self.event_id()));
        if let Err(error) = self
            .record(Phase::Outcome, Some((&result, Duration::ZERO)))
            .await
        {
            return audit_failed(&error);
        }
        result
    }

    /// A call answered from the idempotency store: the original answer, and a `replay`
    /// record of its own pointing at the original event.
    pub(crate) async fn replay(&self, stored: Value) -> CallToolResult {
        let original = stored
            .pointer("/structuredContent/auditEventId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut record = self.record.clone();
        record.phase = Phase::Replay;
        record.time = now_rfc3339();
        record.replay_of = original;
        if let Err(error) = self.sink.record(&record).await {
            return audit_failed(&error);
        }
        replay(stored)
    }
}

pub(crate) fn new_event_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

pub(crate) fn audit_failed(error: &dyn std::fmt::Display) -> CallToolResult {
    tracing::error!(%error, "audit sink failed");
    error_result(
        &ToolError::upstream_unavailable(
            "The audit log is unavailable, so nothing ran. Retry later.",
            true,
        )
        .with_retry_after(Duration::from_secs(1)),
    )
}

/// The idempotency key of a call: `_meta`'s, else the argument `key_field` names.
///
/// # Errors
/// A `validation_error` at the key's place when it is not 1 to 255 printable characters.
pub(crate) fn idempotency_key(
    key_field: Option<&str>,
    context: &RequestContext<RoleServer>,
    arguments: &Value,
) -> Result<Option<String>, ToolError> {
    let from_meta = context.meta.get(IDEMPOTENCY_KEY_META);
    let (value, pointer) = match (from_meta, key_field) {
        (Some(value), _) => (value, format!("_meta/{IDEMPOTENCY_KEY_META}")),
        (None, Some(field)) => match arguments.get(field) {
            Some(Value::Null) | None => return Ok(None),
            Some(value) => (value, format!("/{field}")),
        },
        (None, None) => return Ok(None),
    };
    let key = value.as_str().ok_or_else(|| {
        ToolError::validation(vec![FieldError::new(
            pointer.clone(),
            "an idempotency key is a string",
        )])
    })?;
    check_key(key)
        .map(|()| Some(key.to_owned()))
        .map_err(|message| ToolError::validation(vec![FieldError::new(pointer, message)]))
}

pub(crate) fn replay(stored: Value) -> CallToolResult {
    serde_json::from_value(stored).unwrap_or_else(|error| {
        error_result(&ToolError::internal_logged(format_args!(
            "a stored idempotent result does not parse: {error}"
        )))
    })
}

pub(crate) fn store_failed(error: &dyn std::fmt::Display) -> CallToolResult {
    tracing::error!(%error, "idempotency store failed");
    error_result(
        &ToolError::upstream_unavailable(
            "The idempotency store is unavailable; nothing ran. Retry later with the same key.",
            true,
        )
        .with_retry_after(Duration::from_secs(1)),
    )
}

/// What the elicitation form asks: approve or not.
#[cfg(feature = "elicitation")]
#[derive(Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct ApprovalForm {
    /// Approve this write?
    approve: bool,
}

#[cfg(feature = "elicitation")]
rmcp::elicit_safe!(ApprovalForm);

/// How long a human has to answer an elicitation before the call counts as cancelled.
#[cfg(feature = "elicitation")]
const ELICITATION_WAIT: Duration = Duration::from_secs(600);

/// The human's answer through elicitation: `Some(Ok(approved))`, `Some(Err(reason))` for a
/// decline, or `None` when the client cannot be asked during the call.
#[cfg(feature = "elicitation")]
async fn elicit(
    context: &RequestContext<RoleServer>,
    text: &str,
) -> Option<Result<(), &'static str>> {
    let asked = context
        .peer
        .elicit_with_timeout::<ApprovalForm>(
            format!("Approve this write? {text}"),
            Some(ELICITATION_WAIT),
        )
        .await;
    match asked {
        Ok(Some(ApprovalForm { approve: true })) => Some(Ok(())),
        Ok(_) | Err(ElicitationError::UserDeclined | ElicitationError::UserCancelled) => {
            Some(Err("declined by the user"))
        }
        Err(ElicitationError::Service(rmcp::service::ServiceError::Timeout { .. })) => {
            Some(Err("the user did not answer in time"))
        }
        Err(_cannot_elicit) => None,
    }
}

/// Without the `elicitation` feature every client is asked out of band.
#[cfg(not(feature = "elicitation"))]
async fn elicit(
    _context: &RequestContext<RoleServer>,
    _text: &str,
) -> Option<Result<(), &'static str>> {
    None
}

/// The human decision an approval-gated write needs ([`crate::approval`]): `Ok((approvalId,
/// approver))` lets it run now; `Err(answer)` is the answer instead (blocked, declined,
/// refused), already audited as this attempt's outcome.
pub(crate) async fn gate(
    template: &str,
    request_id: Option<String>,
    arguments: &Value,
    fingerprints: &[String],
    context: &RequestContext<RoleServer>,
    store: Arc<dyn ApprovalStore>,
    schema: &ArgumentSchema,
    audit: &Audit,
) -> Result<(String, String), CallToolResult> {
    if let Some(id) = request_id {
        return match store.consume(&id, fingerprints).await {
            Ok(Ok(approved)) => Ok(approved),
            Ok(Err(refusal)) => Err(audit.refuse(ToolError::conflict(refusal.message())).await),
            Err(error) => Err(audit_failed(&error)),
        };
    }
    let text = approval_text(template, &audit.record.tool, arguments, |p| {
        schema.is_secret(p)
    });
    match elicit(context, &text).await {
        Some(Ok(())) => Ok((
            uuid::Uuid::now_v7().to_string(),
            audit.record.caller.clone(),
        )),
        Some(Err(reason)) => Err(audit.refuse(ToolError::policy_blocked(reason)).await),
        None => {
            // The client cannot be asked during the call: an approver decides out of band.
            let request = ApprovalRequest {
                id: uuid::Uuid::now_v7().to_string(),
                tool: audit.record.tool.clone(),
                text: text.clone(),
                caller: audit.record.caller.clone(),
                fingerprints: fingerprints.to_vec(),
                expires_at: unix_now() + APPROVAL_TTL.as_secs(),
                decision: Decision::Pending,
            };
            if let Err(error) = store.create(&request).await {
                return Err(audit_failed(&error));
            }
            let mut answer = audit
                .refuse(ToolError::approval_required(request.id.clone(), &text))
                .await;
            let link = crate::server::content::Artifact::new(request.uri(), "approval-request")
                .with_title(format!("Approval request: {text}"))
                .with_mime_type("application/json");
            answer.content.push(link.to_block());
            Err(answer)
        }
    }
}

/// The approval request id of a call: `_meta`'s, else the framework's argument (taken out
/// of the arguments, which the tool's own type does not have).
pub(crate) fn approval_request_id(
    context: &RequestContext<RoleServer>,
    arguments: &mut Value,
) -> Option<String> {
    let from_argument = arguments
        .as_object_mut()
        .and_then(|a| a.remove(APPROVAL_REQUEST_ARGUMENT))
        .and_then(|v| v.as_str().map(str::to_owned));
    context
        .meta
        .get(APPROVAL_REQUEST_META)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or(from_argument)
}
