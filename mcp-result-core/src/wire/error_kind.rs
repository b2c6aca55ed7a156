//! `errorKind`: what kind of tool execution error happened, and what each kind says a
//! client may do next (the vocabulary of the error envelope, [`super::envelope`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::wire::status::Status;

/// What kind of tool execution error happened (`errorKind` in the error envelope).
///
/// Serialized in `snake_case` (`"validation_error"`, `"upstream_timeout"`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "mcp-result.ErrorKind")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The arguments are invalid; `fieldErrors` lists every failing field. Fix the call.
    ValidationError,
    /// An upstream system did not answer in time.
    UpstreamTimeout,
    /// An upstream system is down or refused the request.
    UpstreamUnavailable,
    /// The caller lacks a permission; `requiredScope` names it.
    PermissionDenied,
    /// A policy refused the call; `reason` says why. Status `blocked`: stop, do not work
    /// around it.
    PolicyBlocked,
    /// The thing the call names does not exist.
    NotFound,
    /// The call conflicts with the current state (a version mismatch, a duplicate).
    Conflict,
    /// A server fault. Only a `correlationId` is returned; the details stay in the log.
    Internal,
    /// A call with the same idempotency key is still running: retry after `retryAfterMs`
    /// with the same key to get its outcome. Status `unknown`, `retrySafe: true`.
    InProgress,
    /// A write under this idempotency key started and was interrupted (its server stopped);
    /// whether it took effect is unknown and it is never run again under this key. Check
    /// the upstream system before acting. Status `unknown`.
    OutcomeUnknown,
}

impl ErrorKind {
    /// Whether an error of this kind is retry-safe unless said otherwise (the default of
    /// [`ToolError::of_kind`](crate::ToolError::of_kind) and of [`crate::ResultExt::or_tool_error`]). `retrySafe` answers
    /// one question, *is it safe to run the call again* (nothing ran, or nothing that can
    /// harm twice); whether an unchanged retry can *help* is what `errorKind`, `status`,
    /// `retryAfterMs` and the text say:
    ///
    /// | kind | `retrySafe` | why | an unchanged retry |
    /// |---|---|---|---|
    /// | `validation_error`, `not_found`, `conflict`, `permission_denied`, `policy_blocked` | `true` | the call was refused: nothing ran, or the tool changed nothing | gets the same answer: change the call, the caller's scopes or the state first |
    /// | `upstream_unavailable` | `true` | the upstream was down or refused the request: the call had no effect | may succeed later |
    /// | `in_progress` | `true` | the first call is still running; the same idempotency key returns its outcome | after `retryAfterMs` |
    /// | `upstream_timeout`, `internal`, `outcome_unknown` | `false` | the call may have taken effect: an automatic retry could run a write twice | check the outcome first |
    ///
    /// Every error of a read-only tool is `retrySafe: true`, whatever its kind: a read-only
    /// tool has no effect to repeat. A write's time limit under an idempotency key is
    /// retry-safe too (the key returns the outcome). An error a write tool returns itself,
    /// without an idempotency key and not declared `idempotent`, is `false` unless the tool
    /// said otherwise ([`ToolError::with_retry_safe`](crate::ToolError::with_retry_safe)): it ran, and may have done part of its
    /// work.
    pub const fn default_retry_safe(self) -> bool {
        !matches!(
            self,
            ErrorKind::UpstreamTimeout | ErrorKind::Internal | ErrorKind::OutcomeUnknown
        )
    }

    /// Whether calling again unchanged can get another answer: not for the kinds that refuse
    /// the call as it is (`validation_error`, `not_found`, `conflict`, `permission_denied`,
    /// `policy_blocked`).
    pub const fn unchanged_retry_may_help(self) -> bool {
        !matches!(
            self,
            ErrorKind::ValidationError
                | ErrorKind::NotFound
                | ErrorKind::Conflict
                | ErrorKind::PermissionDenied
                | ErrorKind::PolicyBlocked
        )
    }

    /// The `status` an error of this kind reports: `blocked` for `policy_blocked`,
    /// `unknown` for `in_progress` and `outcome_unknown` (it may still take effect), `failed`
    /// for the others.
    pub const fn status(self) -> Status {
        match self {
            ErrorKind::PolicyBlocked => Status::Blocked,
            ErrorKind::InProgress | ErrorKind::OutcomeUnknown => Status::Unknown,
            _ => Status::Failed,
        }
    }

    /// The serialized form, e.g. `"validation_error"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::ValidationError => "validation_error",
            ErrorKind::UpstreamTimeout => "upstream_timeout",
            ErrorKind::UpstreamUnavailable => "upstream_unavailable",
            ErrorKind::PermissionDenied => "permission_denied",
            ErrorKind::PolicyBlocked => "policy_blocked",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Internal => "internal",
            ErrorKind::InProgress => "in_progress",
            ErrorKind::OutcomeUnknown => "outcome_unknown",
        }
    }
}
