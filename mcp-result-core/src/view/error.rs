//! The error view: an `isError` result, kept apart from normal results.

use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Map, Value};

use super::{block::one_line, StructuredSource};
use crate::{ErrorKind, FieldError, Status};

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

/// The structured details of a tool error: mcp-result's [`crate::ToolError`] envelope
/// `{status, errorKind, retrySafe, message, fieldErrors, retryAfterMs, requiredScope,
/// reason, correlationId, auditEventId}`, read leniently so envelopes from other servers
/// with the same keys parse too: a key that is missing or of another JSON type is `None`
/// (or empty), never an error.
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
}

impl ErrorDetails {
    /// Reads an envelope from `object`: `None` unless it has a string `errorKind`.
    pub fn from_object(object: &Map<String, Value>) -> Option<Self> {
        let string = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
        let error_kind = string("errorKind")?;
        let field_errors = object
            .get("fieldErrors")
            .and_then(Value::as_array)
            .map(|entries| {
                entries
                    .iter()
                    .filter_map(|entry| {
                        let pointer = entry.get("pointer")?.as_str()?;
                        let message = entry.get("message")?.as_str()?;
                        Some(FieldError::new(pointer, message))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Self {
            error_kind,
            status: string("status"),
            retry_safe: object.get("retrySafe").and_then(Value::as_bool),
            message: string("message"),
            field_errors,
            retry_after_ms: object.get("retryAfterMs").and_then(Value::as_u64),
            required_scope: string("requiredScope"),
            reason: string("reason"),
            correlation_id: string("correlationId"),
            audit_event_id: string("auditEventId"),
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
