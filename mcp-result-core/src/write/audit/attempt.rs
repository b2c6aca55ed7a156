//! One write attempt's audit event: its intent, outcome, refusal and replay records.

use std::{sync::Arc, time::Duration};

use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::{
    result::build::error_result,
    store::StoreError,
    wire::{envelope::ToolError, keys::REDACTION_APPLIED, status::AuditEventId},
    write::{
        audit::{now_rfc3339, AuditRecord, AuditSink, Phase},
        context::WriteContext,
    },
};

/// One write attempt's audit event: its sink and its base record (boxed: a record is over
/// 400 bytes, and the attempt is moved through a write's phases, into its run's future).
#[derive(Clone)]
pub(crate) struct Audit {
    pub(crate) sink: Arc<dyn AuditSink>,
    pub(crate) record: Box<AuditRecord>,
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
        self.sink.record(&self.record_of(phase, result)).await
    }

    /// The `phase` record, with what `result` says when there is one (`took`: how long the
    /// tool ran).
    pub(crate) fn record_of(
        &self,
        phase: Phase,
        result: Option<(&CallToolResult, Duration)>,
    ) -> AuditRecord {
        let mut record = (*self.record).clone();
        stamp(&mut record, phase, result);
        record
    }

    /// The `phase` record made from the base record in place, for an attempt that makes
    /// no record after it (the outcome of a write that ran): no copy.
    pub(crate) fn stamp(&mut self, phase: Phase, result: Option<(&CallToolResult, Duration)>) {
        stamp(&mut self.record, phase, result);
    }

    /// Records the intent, before the tool runs. If the sink cannot record it, the write
    /// does not run: the answer is a retry-safe `upstream_unavailable`.
    pub(crate) async fn intent(&mut self) -> Result<(), CallToolResult> {
        // The base record is the intent: given its time and recorded as it is.
        self.stamp(Phase::Intent, None);
        self.sink
            .record(&self.record)
            .await
            .map_err(|error| audit_failed(&error))
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
        let mut record = (*self.record).clone();
        record.phase = Phase::Replay;
        record.time = now_rfc3339();
        record.replay_of = original;
        if let Err(error) = self.sink.record(&record).await {
            return audit_failed(&error);
        }
        replay(stored)
    }
}

/// `record` as its `phase` record, now, with what `result` says when there is one (`took`:
/// how long the tool ran): every field an outcome takes from the result is set, to `None`
/// where the result has no such field.
fn stamp(record: &mut AuditRecord, phase: Phase, result: Option<(&CallToolResult, Duration)>) {
    record.phase = phase;
    record.time = now_rfc3339();
    let Some((result, took)) = result else {
        return;
    };
    fn parse<'v, T: serde::Deserialize<'v>>(value: &'v Value) -> Option<T> {
        T::deserialize(value).ok()
    }
    let text = |value: &Value| value.as_str().map(str::to_owned);
    record.status = None;
    record.error_kind = None;
    record.external_id = None;
    record.requires_human_review = None;
    record.approval_id = None;
    record.redaction_applied = None;
    record.correlation_id = None;
    // One pass over the result's fields, not a lookup per field.
    if let Some(Value::Object(fields)) = &result.structured_content {
        for (key, value) in fields {
            match key.as_str() {
                "status" => record.status = parse(value),
                "errorKind" => record.error_kind = parse(value),
                "externalId" => record.external_id = text(value),
                "requiresHumanReview" => record.requires_human_review = parse(value),
                "approvalId" => record.approval_id = text(value),
                REDACTION_APPLIED => record.redaction_applied = parse(value),
                "correlationId" => record.correlation_id = text(value),
                _ => {}
            }
        }
    }
    record.duration_ms = Some(u64::try_from(took.as_millis()).unwrap_or(u64::MAX));
}

pub(crate) fn new_event_id() -> String {
    let mut buffer = uuid::Uuid::encode_buffer();
    // The hyphenated lower-case form `to_string` writes, without the formatter.
    (*uuid::Uuid::now_v7().hyphenated().encode_lower(&mut buffer)).to_owned()
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

/// A stored answer, read back.
fn replay(stored: Value) -> CallToolResult {
    serde_json::from_value(stored).unwrap_or_else(|error| {
        error_result(&ToolError::internal_logged(format_args!(
            "a stored idempotent result does not parse: {error}"
        )))
    })
}
