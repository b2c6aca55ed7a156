//! `?` on any error: [`ResultExt`] names the kind of a failed call's error where it happens,
//! and logs its cause under a correlation id that the answer carries instead of the cause.
//!
//! ```
//! use mcp_result_core::{ErrorKind, ResultExt, ToolError};
//!
//! fn read_ticket(path: &str) -> Result<String, ToolError> {
//!     // An `io::Error` has no kind a client can act on, and the orphan rule forbids
//!     // `From<io::Error> for ToolError` in your crate: say the kind here.
//!     let text = std::fs::read_to_string(path).not_found(format!("No ticket file `{path}`."))?;
//!     let _parsed: u32 = text.trim().parse().or_tool_error(ErrorKind::Conflict)?;
//!     Ok(text)
//! }
//! # let error = read_ticket("/nonexistent/T-9").unwrap_err();
//! # assert_eq!(error.error_kind, ErrorKind::NotFound);
//! # assert!(error.correlation_id.is_some());
//! # assert!(!error.message.contains("No such file"));
//! ```
//!
//! With the feature `anyhow`, `anyhow::Error` and `Box<dyn Error + Send + Sync>` also
//! convert into a [`ToolError`] by `?` (or as a tool's error type): an `internal` error, the
//! cause logged the same way.

use std::error::Error;

use crate::wire::envelope::{new_correlation_id, ErrorKind, FieldError, ToolError};

/// A boxed cause: what every error [`ResultExt`] takes is turned into (any
/// `std::error::Error + Send + Sync`, `anyhow::Error`, a `Box<dyn Error + Send + Sync>`, a
/// `String`).
type Cause = Box<dyn Error + Send + Sync + 'static>;

/// Names the kind of a failed call's error at the call site, for `?` in a tool that returns
/// `Result<T, ToolError>`:
///
/// ```
/// # use mcp_result_core::{ErrorKind, ResultExt, ToolError};
/// # fn fetch(id: &str) -> Result<String, std::io::Error> { Err(std::io::Error::other("connection reset")) }
/// # fn tool(id: &str) -> Result<String, ToolError> {
/// let ticket = fetch(id).or_tool_error(ErrorKind::UpstreamUnavailable)?;
/// let ticket = fetch(id).not_found(format!("No ticket `{id}`."))?;
/// let ticket = fetch(id).permission_denied("tickets:read")?;
/// let ticket = fetch(id).internal()?;
/// # Ok(ticket) }
/// ```
///
/// Every method logs the cause (the error's `Display` and its `source()` chain) under a
/// fresh correlation id (a UUIDv7) and answers a [`ToolError`] that carries that id as
/// `correlationId`, never the cause: an upstream's message may hold hostnames, queries or
/// personal data, and the model cannot act on it anyway. The log line is at `error` level
/// for `internal`, `warn` for `upstream_timeout`, `upstream_unavailable` and
/// `outcome_unknown`, and `info` for the kinds that describe the call rather than a fault
/// (`not_found`, `conflict`, `validation_error`, `permission_denied`, `policy_blocked`,
/// `in_progress`); its fields are `correlation_id` and `error_kind`.
///
/// `retrySafe` is the kind's default ([`ErrorKind::default_retry_safe`]: `false` only for
/// `upstream_timeout`, `internal` and `outcome_unknown`, where the call may have taken
/// effect; the framework answers `true` for every error of a read-only tool); change it with
/// [`ToolError::with_retry_safe`] through [`ResultExt::or_tool_error_with`].
///
/// Implemented for `Result<T, E>` of every error type that converts into a
/// `Box<dyn Error + Send + Sync>`: any `std::error::Error + Send + Sync + 'static`,
/// `anyhow::Error`, a boxed error, and text. (A tool may still not *return* text or an
/// `rmcp::ErrorData` as its error: this trait is the fix that error names.)
pub trait ResultExt<T, E>: Sized + sealed::Sealed {
    /// An error of `kind` with the kind's generic message ([`ToolError::of_kind`]), or for
    /// `internal` the `internal` error.
    ///
    /// # Errors
    /// The [`ToolError`] when `self` is an error, its cause logged.
    fn or_tool_error(self, kind: ErrorKind) -> Result<T, ToolError>;

    /// The error `build` makes from the typed cause (to choose the kind by the error:
    /// `|e| match e.kind() { io::ErrorKind::NotFound => ToolError::not_found(..), .. }`);
    /// the cause is logged and the id set as its `correlationId`.
    ///
    /// # Errors
    /// The built [`ToolError`] when `self` is an error.
    fn or_tool_error_with(self, build: impl FnOnce(&E) -> ToolError) -> Result<T, ToolError>;

    /// `internal`: a server fault the caller cannot act on. Answers only `Internal error
    /// (correlation id …)`.
    ///
    /// # Errors
    /// The `internal` [`ToolError`] when `self` is an error.
    fn internal(self) -> Result<T, ToolError>;

    /// `not_found`: `message` says what does not exist (`No ticket `T-9`.`).
    ///
    /// # Errors
    /// The `not_found` [`ToolError`] when `self` is an error.
    fn not_found(self, message: impl Into<String>) -> Result<T, ToolError>;

    /// `conflict`: the call conflicts with the current state; `message` says how.
    ///
    /// # Errors
    /// The `conflict` [`ToolError`] when `self` is an error.
    fn conflict(self, message: impl Into<String>) -> Result<T, ToolError>;

    /// `upstream_unavailable`, retry-safe: the upstream was down or refused the request, so
    /// the call had no effect. If the request may have reached it, use
    /// [`Self::upstream_timeout`] (or [`Self::or_tool_error_with`] and
    /// `.with_retry_safe(false)`).
    ///
    /// # Errors
    /// The `upstream_unavailable` [`ToolError`] when `self` is an error.
    fn upstream_unavailable(self, message: impl Into<String>) -> Result<T, ToolError>;

    /// `upstream_timeout`, not retry-safe: the upstream did not answer in time and the call
    /// may have taken effect.
    ///
    /// # Errors
    /// The `upstream_timeout` [`ToolError`] when `self` is an error.
    fn upstream_timeout(self, message: impl Into<String>) -> Result<T, ToolError>;

    /// `permission_denied`: the caller lacks `required_scope` (`requiredScope`).
    ///
    /// # Errors
    /// The `permission_denied` [`ToolError`] when `self` is an error.
    fn permission_denied(self, required_scope: impl Into<String>) -> Result<T, ToolError>;

    /// `policy_blocked`, status `blocked`: a policy refused the call for `reason`.
    ///
    /// # Errors
    /// The `policy_blocked` [`ToolError`] when `self` is an error.
    fn policy_blocked(self, reason: impl Into<String>) -> Result<T, ToolError>;

    /// `validation_error` for one argument: `pointer` (a JSON Pointer into the arguments,
    /// e.g. `/ticketId`) and what is wrong with it.
    ///
    /// # Errors
    /// The `validation_error` [`ToolError`] when `self` is an error.
    fn invalid_argument(
        self,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<T, ToolError>;
}

mod sealed {
    pub trait Sealed {}
    impl<T, E: Into<super::Cause>> Sealed for Result<T, E> {}
}

impl<T, E: Into<Cause>> ResultExt<T, E> for Result<T, E> {
    fn or_tool_error(self, kind: ErrorKind) -> Result<T, ToolError> {
        self.or_tool_error_with(|_| match kind {
            ErrorKind::Internal => ToolError::internal(String::new()),
            ErrorKind::PermissionDenied => ToolError::of_kind(
                kind,
                "Permission denied: the caller may not do this. Do not retry until it may.",
            ),
            ErrorKind::PolicyBlocked => ToolError::policy_blocked("refused by policy"),
            ErrorKind::ValidationError => {
                ToolError::validation(vec![FieldError::new("", "the arguments were refused")])
            }
            _ => ToolError::of_kind(kind, generic_message(kind)),
        })
    }

    fn or_tool_error_with(self, build: impl FnOnce(&E) -> ToolError) -> Result<T, ToolError> {
        self.map_err(|error| {
            let built = build(&error);
            logged(built, &*error.into())
        })
    }

    fn internal(self) -> Result<T, ToolError> {
        self.or_tool_error(ErrorKind::Internal)
    }

    fn not_found(self, message: impl Into<String>) -> Result<T, ToolError> {
        self.or_tool_error_with(|_| ToolError::not_found(message))
    }

    fn conflict(self, message: impl Into<String>) -> Result<T, ToolError> {
        self.or_tool_error_with(|_| ToolError::conflict(message))
    }

    fn upstream_unavailable(self, message: impl Into<String>) -> Result<T, ToolError> {
        self.or_tool_error_with(|_| ToolError::of_kind(ErrorKind::UpstreamUnavailable, message))
    }

    fn upstream_timeout(self, message: impl Into<String>) -> Result<T, ToolError> {
        self.or_tool_error_with(|_| ToolError::of_kind(ErrorKind::UpstreamTimeout, message))
    }

    fn permission_denied(self, required_scope: impl Into<String>) -> Result<T, ToolError> {
        self.or_tool_error_with(|_| ToolError::permission_denied(required_scope))
    }

    fn policy_blocked(self, reason: impl Into<String>) -> Result<T, ToolError> {
        self.or_tool_error_with(|_| ToolError::policy_blocked(reason))
    }

    fn invalid_argument(
        self,
        pointer: impl Into<String>,
        message: impl Into<String>,
    ) -> Result<T, ToolError> {
        self.or_tool_error_with(|_| ToolError::validation(vec![FieldError::new(pointer, message)]))
    }
}

/// The message of [`ResultExt::or_tool_error`] for a kind without a constructor of its own.
fn generic_message(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::UpstreamTimeout => "The upstream did not answer in time.",
        ErrorKind::UpstreamUnavailable => "The upstream is unavailable.",
        ErrorKind::NotFound => "Not found.",
        ErrorKind::Conflict => "The call conflicts with the current state.",
        ErrorKind::InProgress => "The operation is still running. Call again later.",
        ErrorKind::OutcomeUnknown => {
            "Whether the call took effect is unknown. Check before calling again."
        }
        _ => "The call failed.",
    }
}

/// `error` with a fresh correlation id, under which `cause` is logged (an `internal` error
/// gets its message from that id).
pub(crate) fn logged(error: ToolError, cause: &(dyn Error + 'static)) -> ToolError {
    let id = new_correlation_id();
    let chain = chain(cause);
    let kind = error.error_kind.as_str();
    match error.error_kind {
        ErrorKind::Internal => {
            tracing::error!(correlation_id = %id, error_kind = kind, "tool failed: {chain}");
        }
        ErrorKind::UpstreamTimeout | ErrorKind::UpstreamUnavailable | ErrorKind::OutcomeUnknown => {
            tracing::warn!(correlation_id = %id, error_kind = kind, "tool failed: {chain}");
        }
        _ => tracing::info!(correlation_id = %id, error_kind = kind, "tool failed: {chain}"),
    }
    if error.error_kind == ErrorKind::Internal {
        ToolError::internal(id)
    } else {
        error.with_correlation_id(id)
    }
}

/// `cause` and its `source()` chain, `outer: inner: innermost` (a source whose text the
/// outer message already holds is not repeated).
fn chain(cause: &(dyn Error + 'static)) -> String {
    let mut out = cause.to_string();
    let mut next = cause.source();
    while let Some(source) = next {
        let text = source.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        next = source.source();
    }
    out
}

/// `anyhow::Error` is an `internal` error (feature `anyhow`): `?` on it in a tool that
/// returns `Result<T, ToolError>`, or `Result<T, anyhow::Error>` as a tool's return type.
/// The cause and its context chain are logged under the correlation id the answer carries.
#[cfg(feature = "anyhow")]
impl From<anyhow::Error> for ToolError {
    fn from(error: anyhow::Error) -> Self {
        let cause: Cause = error.into();
        logged(ToolError::internal(String::new()), &*cause)
    }
}

/// A `Box<dyn Error + Send + Sync>` is an `internal` error (feature `anyhow`), as
/// `anyhow::Error` is.
#[cfg(feature = "anyhow")]
impl From<Cause> for ToolError {
    fn from(error: Cause) -> Self {
        logged(ToolError::internal(String::new()), &*error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Outer(std::io::Error);
    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("fetching ticket T-9")
        }
    }
    impl Error for Outer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn the_chain_is_the_message_and_every_source() {
        let error = Outer(std::io::Error::other("connection reset by db-7.internal"));
        assert_eq!(
            chain(&error),
            "fetching ticket T-9: connection reset by db-7.internal"
        );
    }

    #[test]
    fn each_method_names_its_kind_and_keeps_the_cause_out() {
        let failed = || -> Result<(), std::io::Error> { Err(std::io::Error::other("secret host")) };
        let cases: Vec<(ToolError, ErrorKind, bool)> = vec![
            (failed().internal().unwrap_err(), ErrorKind::Internal, false),
            (
                failed().not_found("No ticket `T-9`.").unwrap_err(),
                ErrorKind::NotFound,
                true,
            ),
            (
                failed().conflict("Closed.").unwrap_err(),
                ErrorKind::Conflict,
                true,
            ),
            (
                failed().upstream_unavailable("Down.").unwrap_err(),
                ErrorKind::UpstreamUnavailable,
                true,
            ),
            (
                failed().upstream_timeout("Slow.").unwrap_err(),
                ErrorKind::UpstreamTimeout,
                false,
            ),
            (
                failed().permission_denied("tickets:write").unwrap_err(),
                ErrorKind::PermissionDenied,
                true,
            ),
            (
                failed().policy_blocked("frozen").unwrap_err(),
                ErrorKind::PolicyBlocked,
                true,
            ),
            (
                failed().invalid_argument("/id", "unknown").unwrap_err(),
                ErrorKind::ValidationError,
                true,
            ),
        ];
        for (error, kind, retry_safe) in cases {
            assert_eq!(error.error_kind, kind);
            assert_eq!(error.retry_safe, retry_safe, "{kind:?}");
            assert!(error.correlation_id.is_some(), "{kind:?}");
            let json = serde_json::to_string(&error).unwrap();
            assert!(!json.contains("secret host"), "{json}");
        }
    }

    #[test]
    fn or_tool_error_uses_the_kind_defaults() {
        for kind in [
            ErrorKind::ValidationError,
            ErrorKind::UpstreamTimeout,
            ErrorKind::UpstreamUnavailable,
            ErrorKind::PermissionDenied,
            ErrorKind::PolicyBlocked,
            ErrorKind::NotFound,
            ErrorKind::Conflict,
            ErrorKind::Internal,
            ErrorKind::InProgress,
            ErrorKind::OutcomeUnknown,
        ] {
            let error = Err::<(), _>("boom").or_tool_error(kind).unwrap_err();
            assert_eq!(error.error_kind, kind);
            assert_eq!(error.status, kind.status());
            assert_eq!(error.retry_safe, kind.default_retry_safe(), "{kind:?}");
            assert!(!error.message.contains("boom"));
        }
    }
}
