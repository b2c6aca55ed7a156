use std::{fmt, time::Duration};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::wire::error_kind::ErrorKind;
use crate::wire::{
    status::{AuditEventId, Status},
    text::{cap_error_text, capped, error_text_within, escaped, push_escaped, ERROR_MESSAGE_CHARS},
};

/// One invalid argument field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "mcp-result.FieldError")]
pub struct FieldError {
    /// JSON Pointer (RFC 6901) to the field inside the arguments object, e.g. `/limit`;
    /// `""` for the arguments object itself.
    pub pointer: String,
    /// What is wrong, e.g. `"\"ten\" is not of type \"integer\""`. At most 1,024
    /// characters (`ToolError::MAX_MESSAGE_CHARS`): a longer one is cut, its full length
    /// stated.
    pub message: String,
}

impl FieldError {
    /// A field error at `pointer` (JSON Pointer into the arguments) with `message`, cut to
    /// [`ToolError::MAX_MESSAGE_CHARS`] characters as [`ToolError`]'s messages are.
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        let mut message = message.into();
        cap_error_text(&mut message);
        Self {
            pointer: pointer.into(),
            message,
        }
    }
}

/// A tool execution error: the tool ran (or its arguments were checked) and the call
/// failed in a way the model should see and can act on.
///
/// It becomes a `CallToolResult` with `isError: true`, a short text for the model and
/// `structuredContent` holding this envelope (MCP 2025-11-25 "Error Handling": tool
/// execution errors are results, protocol errors are JSON-RPC errors):
///
/// ```json
/// {"status": "failed", "errorKind": "validation_error", "retrySafe": false,
///  "message": "2 arguments are invalid",
///  "fieldErrors": [{"pointer": "/limit", "message": "..."}]}
/// ```
///
/// Optional keys appear only when set: `fieldErrors`, `retryAfterMs` (milliseconds),
/// `requiredScope`, `reason`, `correlationId`, `auditEventId`, `externalId`.
///
/// Every message is at most [`ToolError::MAX_MESSAGE_CHARS`] (1,024) characters: `message`,
/// `reason` and each field error's `message`, cut where the error is made (and again as its
/// result is built, for one changed since), wherever it goes (`content`, `structuredContent`,
/// its `Display`). A longer one keeps its start and ends with its full length, `… (1048586
/// characters in all)`, so no echoed value (an id, an upstream's answer) can blow up the
/// answer and none is cut silently.
///
/// `ToolError` is a `Box` of this envelope (8 bytes, so `Result<T, ToolError>` stays small:
/// no clippy `result_large_err` in tool code); its fields are reached through `Deref`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError(Box<ToolErrorEnvelope>);

/// A tool execution error (`isError: true`): what failed, whether an automatic retry is
/// safe, and how to fix the call. Branch on `status` and `errorKind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "mcp-result.ToolError")]
#[non_exhaustive]
pub struct ToolErrorEnvelope {
    /// `failed`, or `blocked` for `policy_blocked`.
    pub status: Status,
    /// The kind of error.
    pub error_kind: ErrorKind,
    /// May an automatic retry run the same call again unchanged?
    pub retry_safe: bool,
    /// A short, actionable sentence: what went wrong and how to fix the call. At most 1,024
    /// characters (`ToolError::MAX_MESSAGE_CHARS`): a longer one is cut, its full length
    /// stated.
    pub message: String,
    /// Every invalid argument (for `validation_error`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub field_errors: Vec<FieldError>,
    /// How long to wait before retrying, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// The permission scope the call needs (for `permission_denied`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_scope: Option<String>,
    /// Why a policy blocked the call (for `policy_blocked`). At most 1,024 characters, as
    /// `message`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The id under which the server logged the details (for `internal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    /// The audit-log event a failed or blocked write recorded, when it recorded one (the
    /// error path of the write contract).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_event_id: Option<AuditEventId>,
    /// An id of the tool's own for what failed: the upstream system's record, or an audit id
    /// a write tool set on its error, kept here because `auditEventId` names the record the
    /// framework made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    /// The write waits for a human decision (with `approvalRequestId`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_human_review: Option<bool>,
    /// The pending approval request: call again with it once a human approved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_request_id: Option<String>,
    /// `retry_safe` was said by whoever built the error ([`ToolError::with_retry_safe`], or a
    /// constructor that takes it), not the kind's default: the framework keeps it as said.
    #[serde(skip)]
    pub(crate) retry_safe_said: bool,
    /// Not a tool execution error at all: the call answers a JSON-RPC error or an
    /// input-required round instead ([`ToolError::protocol`], [`crate::Ask`]).
    #[serde(skip)]
    pub(crate) escape: Option<Escape>,
}

/// What a [`ToolError`] carries when the call's answer is not an `isError` result.
#[derive(Debug, Clone)]
pub(crate) enum Escape {
    /// A JSON-RPC error: the request was not a valid call (nothing ran).
    Protocol(rmcp::ErrorData),
    /// An input-required round (MCP 2026-07-28): the tool asks the client first.
    #[cfg_attr(not(feature = "elicitation"), allow(dead_code))]
    Ask(rmcp::model::InputRequiredResult),
}

impl PartialEq for Escape {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Escape::Protocol(a), Escape::Protocol(b)) => a == b,
            (Escape::Ask(a), Escape::Ask(b)) => {
                serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
            }
            _ => false,
        }
    }
}

impl ToolError {
    /// The most characters an error message has: `message`, `reason` and each field
    /// error's `message` ([`FieldError::new`]). A longer one is cut where the error is made,
    /// to its first characters and `… (N characters in all)`, N its full length, this many
    /// characters in all. The one limit of every message a tool or the framework builds,
    /// whatever it echoes (an id the caller sent, an upstream's answer).
    pub const MAX_MESSAGE_CHARS: usize = ERROR_MESSAGE_CHARS;

    // The envelope every constructor starts from (boxed into a `ToolError` by the caller).
    #[allow(clippy::new_ret_no_self)]
    pub(super) fn new(
        kind: ErrorKind,
        retry_safe: bool,
        message: impl Into<String>,
    ) -> ToolErrorEnvelope {
        ToolErrorEnvelope {
            status: Status::Failed,
            error_kind: kind,
            retry_safe,
            message: message.into(),
            field_errors: Vec::new(),
            retry_after_ms: None,
            required_scope: None,
            reason: None,
            correlation_id: None,
            audit_event_id: None,
            external_id: None,
            requires_human_review: None,
            approval_request_id: None,
            retry_safe_said: false,
            escape: None,
        }
    }

    /// A JSON-RPC error instead of a tool result: the request is not a valid call of this
    /// tool, and nothing ran. For what the protocol itself defines as a request error, such
    /// as a client capability the call needs (MCP 2026-07-28 `-32021`:
    /// `ErrorData::missing_required_client_capability`); anything the model can act on is
    /// a tool execution error (MCP "Error Handling"), built with the other constructors.
    ///
    /// A write answering one records its attempt as ended without effect and gives its
    /// idempotency key back (the call may run again).
    pub fn protocol(error: rmcp::ErrorData) -> Self {
        ToolErrorEnvelope {
            escape: Some(Escape::Protocol(error)),
            ..Self::new(
                ErrorKind::ValidationError,
                true,
                "The request was refused by the protocol.",
            )
        }
        .boxed()
    }

    /// An input-required round instead of a tool result ([`crate::Ask`]).
    #[cfg_attr(not(feature = "elicitation"), allow(dead_code))]
    pub(crate) fn asking(question: rmcp::model::InputRequiredResult) -> Self {
        ToolErrorEnvelope {
            escape: Some(Escape::Ask(question)),
            ..Self::new(
                ErrorKind::ValidationError,
                true,
                "The tool needs the client's input first.",
            )
        }
        .boxed()
    }

    /// The JSON-RPC error or question this error stands for, taken out.
    pub(crate) fn take_escape(&mut self) -> Option<Escape> {
        self.0.escape.take()
    }

    /// An error of `kind` with `message`, its `status` ([`ErrorKind::status`]) and its
    /// default retry safety ([`ErrorKind::default_retry_safe`]; change it with
    /// [`Self::with_retry_safe`]). The kind's own constructor says more where the kind has
    /// more to say (`permission_denied`'s scope, `policy_blocked`'s reason, `internal`'s
    /// correlation id).
    pub fn of_kind(kind: ErrorKind, message: impl Into<String>) -> Self {
        ToolErrorEnvelope {
            status: kind.status(),
            ..Self::new(kind, kind.default_retry_safe(), message)
        }
        .boxed()
    }

    /// `validation_error`: the arguments are invalid; `fields` lists every failing field.
    pub fn validation(fields: Vec<FieldError>) -> Self {
        let total = fields.len();
        Self::validation_of(fields, total)
    }

    /// `validation_error` listing `fields`, the first of `total` failing fields (the
    /// framework reports at most 20 per call, so that one huge bad argument or a long list
    /// of bad items cannot blow up the answer).
    pub fn validation_of(fields: Vec<FieldError>, total: usize) -> Self {
        let message = match (fields.len(), total) {
            (1, 1) => format!(
                "Invalid argument {}: {}. Fix it and call again.",
                display_pointer(&fields[0].pointer),
                fields[0].message
            ),
            (shown, total) if shown < total => format!(
                "{total} arguments are invalid (the first {shown} are listed). Fix all of them \
                 and call again."
            ),
            (_, total) => format!("{total} arguments are invalid. Fix all of them and call again."),
        };
        ToolErrorEnvelope {
            field_errors: fields,
            ..Self::new(ErrorKind::ValidationError, true, message)
        }
        .boxed()
    }

    /// `upstream_timeout`: an upstream did not answer within `limit`. `retry_safe` says
    /// whether the call may run again: `true` for a read-only or idempotent tool, `false`
    /// when the call may have taken effect.
    pub fn upstream_timeout(limit: Duration, retry_safe: bool) -> Self {
        ToolErrorEnvelope {
            retry_safe_said: true,
            ..Self::new(
                ErrorKind::UpstreamTimeout,
                retry_safe,
                format!(
                    "The upstream did not answer within {} ms.",
                    limit.as_millis()
                ),
            )
        }
        .boxed()
    }

    /// `upstream_unavailable`: an upstream is down.
    pub fn upstream_unavailable(message: impl Into<String>, retry_safe: bool) -> Self {
        ToolErrorEnvelope {
            retry_safe_said: true,
            ..Self::new(ErrorKind::UpstreamUnavailable, retry_safe, message)
        }
        .boxed()
    }

    /// `permission_denied`: the caller lacks `required_scope`.
    pub fn permission_denied(required_scope: impl Into<String>) -> Self {
        let scope = required_scope.into();
        ToolErrorEnvelope {
            message: format!("Permission denied: this call needs the `{scope}` scope."),
            required_scope: Some(scope),
            ..Self::new(ErrorKind::PermissionDenied, true, String::new())
        }
        .boxed()
    }

    /// `permission_denied` for a call that carries no verified identity (an HTTP request
    /// whose token verifier established none, a process with an unusable
    /// `MCP_RESULT_IDENTITY`): no identity means no access. Nothing ran.
    pub fn unauthenticated() -> Self {
        Self::new(
            ErrorKind::PermissionDenied,
            true,
            "Permission denied: the call carries no verified identity, so nothing ran. \
             Connect with valid credentials.",
        )
        .boxed()
    }

    /// `policy_blocked`, status `blocked`, for a bound of a store: `reason` names the bound
    /// and what was asked, `advice` what to do (the call may succeed once the caller holds
    /// less: the store removes expired items), so the retry advice differs from
    /// [`Self::policy_blocked`]'s. Nothing was stored.
    pub fn quota_exceeded(reason: impl Into<String>, advice: &str) -> Self {
        let reason = reason.into();
        ToolErrorEnvelope {
            status: Status::Blocked,
            message: framed(
                "Quota exceeded: ",
                &reason,
                &format!(". Nothing was stored. {advice}"),
            ),
            reason: Some(reason),
            ..Self::new(ErrorKind::PolicyBlocked, true, String::new())
        }
        .boxed()
    }

    /// `policy_blocked`, status `blocked`: a policy refused the call for `reason`.
    pub fn policy_blocked(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        ToolErrorEnvelope {
            status: Status::Blocked,
            message: framed(
                "Blocked by policy: ",
                &reason,
                ". Do not retry or work around it.",
            ),
            reason: Some(reason),
            ..Self::new(ErrorKind::PolicyBlocked, true, String::new())
        }
        .boxed()
    }

    /// `not_found`: `message` says what was not found.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, true, message).boxed()
    }

    /// `conflict`: the call conflicts with the current state.
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, true, message).boxed()
    }

    /// `internal`: a server fault. Only `correlation_id` reaches the client; log the
    /// details under that id yourself.
    pub fn internal(correlation_id: impl Into<String>) -> Self {
        let id = correlation_id.into();
        ToolErrorEnvelope {
            message: format!("Internal error (correlation id {id})."),
            correlation_id: Some(id),
            ..Self::new(ErrorKind::Internal, false, String::new())
        }
        .boxed()
    }

    /// Sets `retryAfterMs` from `delay` (rounded down to milliseconds).
    pub fn with_retry_after(mut self, delay: Duration) -> Self {
        self.retry_after_ms = Some(u64::try_from(delay.as_millis()).unwrap_or(u64::MAX));
        self
    }

    /// Sets `retrySafe`: whether an automatic retry may run the same call again unchanged.
    pub fn with_retry_safe(mut self, retry_safe: bool) -> Self {
        self.retry_safe = retry_safe;
        self.retry_safe_said = true;
        self
    }

    /// `retrySafe: false` unless whoever built the error said otherwise: for the error a
    /// write tool returned when running it again may repeat an effect (no idempotency key,
    /// not declared `idempotent`). The kind's default (`true` for a refusal) describes
    /// refusals before anything ran; a write that ran and then failed may have done part of
    /// its work, which only the tool knows ([`Self::with_retry_safe`]).
    pub(crate) fn unsafe_unless_said(mut self) -> Self {
        if !self.retry_safe_said {
            self.retry_safe = false;
        }
        self
    }

    /// Sets `correlationId`: the id under which the server logged what caused the error.
    pub fn with_correlation_id(mut self, id: impl Into<String>) -> Self {
        self.correlation_id = Some(id.into());
        self
    }

    /// Sets `auditEventId`: the audit event a failed or blocked write recorded.
    ///
    /// On the error of a write tool the framework records the attempt itself, so the
    /// answer's `auditEventId` is the id it minted, the one its audit record has. The id set
    /// here is not lost: it becomes the envelope's `externalId` (and the outcome record's
    /// `externalId`), unless the error already has one ([`Self::with_external_id`]), which
    /// is kept, and then the id set here is dropped with a warning in the log. Outside a
    /// write tool's call (a read-only tool, a result built by hand) it is the `auditEventId`.
    pub fn with_audit_event_id(mut self, id: AuditEventId) -> Self {
        self.audit_event_id = Some(id);
        self
    }

    /// Sets `externalId`: an id of the tool's own for what failed (the upstream system's
    /// record of the attempt, a ledger entry), in the envelope and in the write's outcome
    /// audit record.
    pub fn with_external_id(mut self, id: impl Into<String>) -> Self {
        self.external_id = Some(id.into());
        self
    }

    /// Logs `detail` at error level under a fresh correlation id and returns the
    /// `internal` error that carries only that id.
    pub fn internal_logged(detail: impl fmt::Display) -> Self {
        let id = new_correlation_id();
        tracing::error!(correlation_id = %id, "tool failed: {detail}");
        Self::internal(id)
    }

    /// The text for the model (the first content block of the error result): what
    /// happened and what the model must know to act, because several hosts forward only
    /// `content[0]` of an `isError` result and drop `structuredContent`:
    ///
    /// `Error (upstream_timeout): The upstream did not answer within 500 ms. Do not retry
    /// automatically: the call may have taken effect.` — then, where set, the scope to ask
    /// for, the audit event, and each field error on its own line. Text from callers and
    /// upstreams is escaped onto one line.
    pub fn summary(&self) -> String {
        let mut out = String::with_capacity(self.message.len() + 96);
        out.push_str("Error (");
        out.push_str(self.error_kind.as_str());
        out.push_str("): ");
        push_escaped(&mut out, &self.message);
        let message_end = out.len();
        // What to do next, unless the message already says it: whether an unchanged call
        // can help (the kind), then whether running it again is safe (`retrySafe`).
        let kind = self.error_kind;
        match (
            kind.unchanged_retry_may_help(),
            self.retry_safe,
            self.retry_after_ms,
        ) {
            (_, true, Some(ms)) => out.push_str(&format!(" Safe to retry after {ms} ms.")),
            (false, ..) => match kind {
                ErrorKind::ValidationError | ErrorKind::PolicyBlocked => {}
                ErrorKind::PermissionDenied => {
                    out.push_str(" Do not retry until the caller has that scope.");
                }
                // Refused as it is: the text says whether running it again is safe
                // (`retrySafe`) and that, unchanged, it helps nothing; never "do not retry"
                // beside `retrySafe: true`.
                _ if self.retry_safe => {
                    out.push_str(" Safe to retry; unchanged, it gets the same answer.");
                }
                _ => out.push_str(" Do not retry unchanged."),
            },
            (true, true, None) => out.push_str(" Safe to retry."),
            (true, false, _) => {
                out.push_str(" Do not retry automatically: the call may have taken effect.");
            }
        }
        if let Some(scope) = &self.required_scope {
            if !self.message.contains(scope.as_str()) {
                out.push_str(" Ask for the `");
                push_escaped(&mut out, scope);
                out.push_str("` scope.");
            }
        }
        if let Some(id) = &self.audit_event_id {
            out.push_str(" Audit event `");
            push_escaped(&mut out, id.as_str());
            out.push_str("`.");
        }
        if let Some(id) = &self.external_id {
            out.push_str(" External id `");
            push_escaped(&mut out, id);
            out.push_str("`.");
        }
        if self.field_errors.len() > 1 {
            for field in &self.field_errors {
                out.push_str("\n- ");
                out.push_str(&display_pointer(&field.pointer));
                out.push_str(": ");
                push_escaped(&mut out, &field.message);
            }
        }
        // A sentence follows the message: the message ends as one ("Entity X not found." and
        // not "Entity X not found Safe to retry").
        let ended = out[..message_end].ends_with(['.', '!', '?', ':', '\n']);
        if out.len() > message_end && !ended && out[message_end..].starts_with(' ') {
            out.insert(message_end, '.');
        }
        out
    }
}

/// `before`, `text` and `after`, `text` cut so that the whole is within
/// [`ToolError::MAX_MESSAGE_CHARS`]: the advice around an echoed value is never the part cut.
fn framed(before: &str, text: &str, after: &str) -> String {
    let room = ERROR_MESSAGE_CHARS.saturating_sub(before.chars().count() + after.chars().count());
    format!("{before}{}{after}", capped(text, room))
}

fn display_pointer(pointer: &str) -> String {
    if pointer.is_empty() {
        "(arguments)".to_owned()
    } else {
        format!("`{}`", escaped(pointer))
    }
}

/// A correlation id unique across processes and instances: a UUIDv7 (RFC 9562, time-ordered),
/// so ids sort by time and never repeat after a restart.
pub(crate) fn new_correlation_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

impl ToolErrorEnvelope {
    /// Boxes the envelope, its messages cut to [`ToolError::MAX_MESSAGE_CHARS`]: every
    /// constructor ends here. Not a `From` impl, so that the one `From` a user error needs
    /// (`From<TheirError> for ToolError`) is the only one a compiler hint can suggest.
    pub(super) fn boxed(mut self) -> ToolError {
        self.cap_texts();
        ToolError(Box::new(self))
    }

    /// Cuts `message`, `reason` and each field error's message to
    /// [`ToolError::MAX_MESSAGE_CHARS`] characters, each stating its full length.
    pub(crate) fn cap_texts(&mut self) {
        cap_error_text(&mut self.message);
        if let Some(reason) = &mut self.reason {
            cap_error_text(reason);
        }
        for field in &mut self.field_errors {
            cap_error_text(&mut field.message);
        }
    }

    /// Whether every message is within [`ToolError::MAX_MESSAGE_CHARS`].
    pub(crate) fn texts_within(&self) -> bool {
        error_text_within(&self.message)
            && self.reason.as_deref().is_none_or(error_text_within)
            && self
                .field_errors
                .iter()
                .all(|f| error_text_within(&f.message))
    }
}

impl std::ops::Deref for ToolError {
    type Target = ToolErrorEnvelope;
    fn deref(&self) -> &ToolErrorEnvelope {
        &self.0
    }
}

impl std::ops::DerefMut for ToolError {
    fn deref_mut(&mut self) -> &mut ToolErrorEnvelope {
        &mut self.0
    }
}

impl Serialize for ToolError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolError {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        ToolErrorEnvelope::deserialize(deserializer).map(ToolErrorEnvelope::boxed)
    }
}

impl JsonSchema for ToolError {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        ToolErrorEnvelope::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        ToolErrorEnvelope::schema_id()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        ToolErrorEnvelope::json_schema(generator)
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.error_kind.as_str(), self.message)
    }
}

impl std::error::Error for ToolError {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refusal's text agrees with its `retrySafe`: safe, but not unchanged.
    #[test]
    fn a_refusal_says_what_its_retry_safe_says() {
        let reused = ToolError::conflict(
            "Idempotency key reused with different arguments. Use a new key for a different call.",
        );
        assert!(reused.retry_safe);
        assert_eq!(
            reused.summary(),
            "Error (conflict): Idempotency key reused with different arguments. Use a new key \
             for a different call. Safe to retry; unchanged, it gets the same answer."
        );
        assert_eq!(
            ToolError::not_found("No ticket `T-9`.").summary(),
            "Error (not_found): No ticket `T-9`. Safe to retry; unchanged, it gets the same answer."
        );
        // A message that is no sentence is ended as one before the next.
        assert_eq!(
            ToolError::not_found("Entity with name Z not found").summary(),
            "Error (not_found): Entity with name Z not found. Safe to retry; unchanged, it gets \
             the same answer."
        );
        // A conflict that is not safe to run again (a write that ran) says not to.
        let ran = ToolError::conflict("The ledger refused the close.").with_retry_safe(false);
        assert_eq!(
            ran.summary(),
            "Error (conflict): The ledger refused the close. Do not retry unchanged."
        );
    }
}
