//! The error view: an `isError` result, kept apart from normal results.

use std::{sync::LazyLock, time::Duration};

use jsonschema::Validator;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{block::one_line, StructuredSource};
use crate::{
    schema::serialized_schema,
    wire::{
        envelope::{ErrorKind, FieldError, ToolErrorEnvelope},
        status::Status,
    },
};

/// The envelope key that marks an object as a tool error envelope.
const ERROR_KIND: &str = "errorKind";

/// At most this many rejected values are left out of a foreign envelope.
const MAX_LEFT_OUT: usize = 64;

/// An `isError: true` result: a tool execution error (MCP 2025-11-25 "Error Handling":
/// the tool ran, or its arguments were checked, and the call failed in a way the model can
/// act on), kept apart from normal results.
///
/// A plain-text error result gives a view with its text and no [`details`](Self::details).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ErrorView {
    /// The best one-paragraph explanation: the envelope's `message`, else the text blocks,
    /// else a fixed sentence saying the tool gave no explanation.
    pub message: String,
    /// Every text block that is not a JSON copy of structured data, joined with newlines: the
    /// server's own wording (for mcp-result servers, `Error (kind): message`). Empty when
    /// the result has no such text.
    pub text: String,
    /// The structured error envelope, when `structuredContent` (or a JSON text block) holds
    /// one: an object with a string `errorKind`.
    pub details: Option<ErrorDetails>,
    /// Where [`details`](Self::details) came from.
    pub details_source: Option<StructuredSource>,
}

/// The structured details of a tool error: mcp-result's [`ToolErrorEnvelope`]
/// `{status, errorKind, retrySafe, message, fieldErrors, retryAfterMs, requiredScope,
/// reason, correlationId, auditEventId}`, read through the envelope's own `Deserialize` (the
/// one parser of it).
///
/// Envelopes of other servers with the same keys are read the same way, leniently: the
/// values the envelope's schema rejects are left out first (a `fieldErrors` entry without a
/// string `pointer` and `message`, a `retryAfterMs` that is not a count), and an `errorKind`
/// mcp-result does not define is kept as sent in [`error_kind`](Self::error_kind). When
/// the rest still does not deserialize (a required key such as `status` or `retrySafe` is
/// missing), only [`error_kind`](Self::error_kind) is known and every other field is
/// `None` (or empty).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ErrorDetails {
    /// `errorKind` as sent, e.g. `"validation_error"`; see [`kind`](Self::kind).
    pub error_kind: String,
    /// `status` as sent (`"failed"`, `"blocked"`, ...); see [`status`](Self::status).
    pub status: Option<String>,
    /// `retrySafe`: may the same call run again unchanged? `None` when not said, which a
    /// retry controller must treat as `false` ([`ErrorView::retry_safe`] does).
    pub retry_safe: Option<bool>,
    /// `message`: what went wrong and how to fix the call.
    pub message: Option<String>,
    /// `fieldErrors`: every invalid argument, each a JSON Pointer into the arguments and a
    /// message. Entries without a string `pointer` and `message` are skipped.
    pub field_errors: Vec<FieldError>,
    /// `retryAfterMs`: how long to wait before retrying, in milliseconds.
    pub retry_after_ms: Option<u64>,
    /// `requiredScope`: the permission the call needs (`permission_denied`).
    pub required_scope: Option<String>,
    /// `reason`: why a policy blocked the call (`policy_blocked`).
    pub reason: Option<String>,
    /// `correlationId`: the id the server logged the details under (`internal`).
    pub correlation_id: Option<String>,
    /// `auditEventId`: the audit event a failed or blocked write recorded.
    pub audit_event_id: Option<String>,
    /// `externalId`: the tool's own id for what failed (an upstream's record).
    pub external_id: Option<String>,
}

impl From<ToolErrorEnvelope> for ErrorDetails {
    fn from(envelope: ToolErrorEnvelope) -> Self {
        Self {
            error_kind: envelope.error_kind.as_str().to_owned(),
            status: Some(envelope.status.as_str().to_owned()),
            retry_safe: Some(envelope.retry_safe),
            message: Some(envelope.message),
            field_errors: envelope.field_errors,
            retry_after_ms: envelope.retry_after_ms,
            required_scope: envelope.required_scope,
            reason: envelope.reason,
            correlation_id: envelope.correlation_id,
            audit_event_id: envelope.audit_event_id.map(|id| id.as_str().to_owned()),
            external_id: envelope.external_id,
        }
    }
}

impl ErrorDetails {
    /// Reads an envelope from `object`: `None` unless it has a string `errorKind`.
    pub fn from_object(object: &Map<String, Value>) -> Option<Self> {
        let error_kind = object.get(ERROR_KIND)?.as_str()?.to_owned();
        let details = read_envelope(object).map(Self::from).unwrap_or_default();
        Some(Self {
            error_kind,
            ..details
        })
    }

    /// The error kind, when it is one mcp-result knows; `None` for other servers' kinds
    /// ([`error_kind`](Self::error_kind) keeps the string).
    pub fn kind(&self) -> Option<ErrorKind> {
        serde_json::from_value(Value::String(self.error_kind.clone())).ok()
    }

    /// The status, when it is one of `succeeded`, `partial`, `blocked`, `failed`.
    pub fn status(&self) -> Option<Status> {
        let status = self.status.clone()?;
        serde_json::from_value(Value::String(status)).ok()
    }

    /// [`retry_after_ms`](Self::retry_after_ms) as a duration.
    pub fn retry_after(&self) -> Option<Duration> {
        self.retry_after_ms.map(Duration::from_millis)
    }
}

impl ErrorView {
    /// The error view of `result`; `None` unless `isError` is `true` (absent means `false`,
    /// MCP 2025-11-25 "CallToolResult").
    pub(crate) fn of(result: &CallToolResult) -> Option<Self> {
        if result.is_error != Some(true) {
            return None;
        }
        let mut details = None;
        if let Some(Value::Object(object)) = &result.structured_content {
            details =
                ErrorDetails::from_object(object).map(|d| (d, StructuredSource::StructuredContent));
        }
        let mut prose = Vec::new();
        for (index, block) in result.content.iter().enumerate() {
            let ContentBlock::Text(text) = block else {
                continue;
            };
            match parse_json_object(&text.text) {
                Some(object) if details.is_none() => {
                    details = ErrorDetails::from_object(&object)
                        .map(|d| (d, StructuredSource::TextBlock(super::BlockHandle(index))));
                }
                Some(_) => {}
                None if !text.text.trim().is_empty() => prose.push(text.text.trim()),
                None => {}
            }
        }
        let text = prose.join("\n");
        let (details, details_source) = match details {
            Some((details, source)) => (Some(details), Some(source)),
            None => (None, None),
        };
        let message = details
            .as_ref()
            .and_then(|d| d.message.clone())
            .filter(|m| !m.trim().is_empty())
            .or_else(|| (!text.is_empty()).then(|| text.clone()))
            .unwrap_or_else(|| "The tool reported an error and gave no explanation.".into());
        Some(Self {
            message,
            text,
            details,
            details_source,
        })
    }

    /// May an automatic retry run the same call again unchanged? `true` only when the
    /// envelope says `retrySafe: true`; unknown means no (fail closed).
    pub fn retry_safe(&self) -> bool {
        self.details.as_ref().and_then(|d| d.retry_safe) == Some(true)
    }

    /// The error kind string (`errorKind`), when the result carried an envelope.
    pub fn error_kind(&self) -> Option<&str> {
        self.details.as_ref().map(|d| d.error_kind.as_str())
    }

    /// The error for a UI or a log, one fact per line: the kind and message, each field
    /// error, then retry safety, retry-after, required scope, reason, correlation id and
    /// audit event when present.
    pub fn render(&self) -> String {
        let Some(details) = &self.details else {
            return format!("Error: {}", self.message);
        };
        let mut out = format!("Error ({}): {}", details.error_kind, self.message);
        for field in &details.field_errors {
            let pointer = if field.pointer.is_empty() {
                "(arguments)"
            } else {
                &field.pointer
            };
            out.push_str(&format!(
                "\n  - {pointer}: {}",
                one_line(&field.message, 200)
            ));
        }
        let retry = match details.retry_safe {
            Some(true) => "yes",
            Some(false) => "no",
            None => "not said (treat as no)",
        };
        out.push_str(&format!("\n  retry safe: {retry}"));
        let extras = [
            (
                "retry after",
                details.retry_after_ms.map(|ms| format!("{ms} ms")),
            ),
            ("required scope", details.required_scope.clone()),
            ("reason", details.reason.clone()),
            ("correlation id", details.correlation_id.clone()),
            ("audit event", details.audit_event_id.clone()),
            ("external id", details.external_id.clone()),
        ];
        for (label, value) in extras {
            if let Some(value) = value {
                out.push_str(&format!("\n  {label}: {value}"));
            }
        }
        out
    }
}

/// `text` parsed as a JSON object, when it is one (cheap test first: it must start with `{`).
pub(crate) fn parse_json_object(text: &str) -> Option<Map<String, Value>> {
    match parse_json_text(text)? {
        Value::Object(object) => Some(object),
        _ => None,
    }
}

/// `text` parsed as JSON when it looks like a JSON object or array.
pub(crate) fn parse_json_text(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    serde_json::from_str(trimmed).ok()
}

/// `object` deserialized into the envelope; for another server's envelope, after the values
/// the envelope's schema rejects are left out (see [`ErrorDetails`]).
fn read_envelope(object: &Map<String, Value>) -> Option<ToolErrorEnvelope> {
    static SCHEMA: LazyLock<Option<Validator>> = LazyLock::new(|| {
        let schema = serialized_schema::<ToolErrorEnvelope>();
        jsonschema::validator_for(&Value::Object((*schema).clone())).ok()
    });
    let mut value = Value::Object(object.clone());
    if let Ok(envelope) = ToolErrorEnvelope::deserialize(&value) {
        return Some(envelope);
    }
    // A kind mcp-result does not define: the caller keeps it as sent; any known kind lets
    // the rest be read.
    if ErrorKind::deserialize(&value[ERROR_KIND]).is_err() {
        value[ERROR_KIND] = Value::String(ErrorKind::Internal.as_str().to_owned());
    }
    let schema = SCHEMA.as_ref()?;
    for _ in 0..MAX_LEFT_OUT {
        if let Ok(envelope) = ToolErrorEnvelope::deserialize(&value) {
            return Some(envelope);
        }
        let rejected = schema
            .iter_errors(&value)
            .map(|error| error.instance_path().as_str().to_owned())
            .find(|pointer| !pointer.is_empty())?;
        leave_out(&mut value, &rejected)?;
    }
    None
}

/// Removes the value at JSON Pointer `pointer` (a property or an array item).
fn leave_out(value: &mut Value, pointer: &str) -> Option<()> {
    let (parent, last) = pointer.rsplit_once('/')?;
    let last = last.replace("~1", "/").replace("~0", "~");
    match value.pointer_mut(parent)? {
        Value::Object(object) => object.remove(&last).map(drop),
        Value::Array(items) => {
            let index: usize = last.parse().ok().filter(|i| *i < items.len())?;
            items.remove(index);
            Some(())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::wire::envelope::ToolError;

    fn details(value: Value) -> Option<ErrorDetails> {
        ErrorDetails::from_object(value.as_object().expect("an object"))
    }

    #[test]
    fn mcp_result_envelopes_read_back_whole() {
        let error = ToolError::permission_denied("tickets:write")
            .with_retry_after(Duration::from_millis(40));
        let read = details(serde_json::to_value(&error).unwrap()).unwrap();
        assert_eq!(read, ErrorDetails::from((*error).clone()));
        assert_eq!(read.kind(), Some(ErrorKind::PermissionDenied));
        assert_eq!(read.required_scope.as_deref(), Some("tickets:write"));
        assert_eq!(read.retry_after_ms, Some(40));
    }

    #[test]
    fn foreign_envelopes_keep_what_the_envelope_type_reads() {
        let read = details(json!({"status": "failed", "errorKind": "rate_limited",
            "retrySafe": true, "message": "Slow down.", "retryAfterMs": "soon",
            "fieldErrors": [{"bad": 1}, {"pointer": "/q", "message": "too long"}],
            "vendorCode": 7}))
        .unwrap();
        assert_eq!(read.error_kind, "rate_limited");
        assert_eq!(read.kind(), None);
        assert_eq!(read.retry_safe, Some(true));
        assert_eq!(read.retry_after_ms, None);
        assert_eq!(read.field_errors, [FieldError::new("/q", "too long")]);
        // A required key missing: only the kind is known.
        let partial = details(json!({"errorKind": "conflict", "message": "No."})).unwrap();
        assert_eq!(partial.error_kind, "conflict");
        assert_eq!((partial.message, partial.retry_safe), (None, None));
        // Not an envelope at all.
        assert!(details(json!({"errorKind": 3})).is_none());
        assert!(details(json!({"message": "x"})).is_none());
    }
}
