//! The compile-time checks `#[mcp_tools]` emits for a tool's return type, spanned at the
//! user's code: the success type (through [`Probe`] and [`assert_tool_output`] /
//! [`assert_tool_result`]) and the error type (through [`ErrorProbe`], whose messages name
//! the fix for the kind of error type it is). Generated code reaches them through
//! `mcp_result::__private`; no semver guarantees.

use std::sync::Arc;

use crate::{
    result::answer::ToolAnswer,
    result::{
        build::{error_result, ResultScope, ToolResult},
        output::IntoToolOutput,
    },
    wire::envelope::ToolError,
};

/// Compile-time check, spanned by the macro at a tool's return type: the one place an
/// unusable return type is reported.
#[doc(hidden)]
pub const fn assert_tool_output<R: IntoToolOutput>() {}

/// Compile-time check for a tool returning `Result<T, E>` written out: checks `T`. `E` is
/// checked apart, at its own span, by [`ErrorProbe`], whose message names the fix for the
/// kind of error type it is.
#[doc(hidden)]
pub const fn assert_tool_result<T: SuccessOutput, E>() {}

/// `T` and `E` of a return type spelled through a one-parameter alias of `Result`
/// (`anyhow::Result<T>`, `io::Result<T>`, a crate's own `Result<T>`), so the macro checks
/// them apart as it does a written-out `Result<T, E>`.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[mcp_tool]` method",
    label = "a tool returns a type deriving `ToolResult`, or `Result<T, ToolError>` of one",
    note = "return your data in a type with `#[derive(Serialize, JsonSchema, ToolResult)]`, or `Result<T, mcp_result::ToolError>` of one"
)]
pub trait ResultParts {
    /// The success type.
    type Ok;
    /// The error type.
    type Err;
}

impl<T, E> ResultParts for Result<T, E> {
    type Ok = T;
    type Err = E;
}

/// What may stand as `T` in a tool's `Result<T, E>`: a [`ToolResult`], or one with `_meta`
/// attached ([`crate::result::meta::WithMeta`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool result",
    label = "a tool returns a type deriving `ToolResult`, or `Result<T, ToolError>` of one",
    note = "return your data in a type with `#[derive(Serialize, JsonSchema, ToolResult)]`: mcp-result builds the `CallToolResult` (`structuredContent`, `content`, `isError`) from it; for a `Serialize + JsonSchema` type from another crate, return `Structured<T>`"
)]
pub trait SuccessOutput {
    /// The result type itself.
    type Output;
}

impl<T: ToolResult> SuccessOutput for T {
    type Output = T;
}

impl<T: ToolResult> SuccessOutput for crate::result::meta::WithMeta<T> {
    type Output = T;
}

impl SuccessOutput for crate::result::unstructured::Unstructured {
    type Output = crate::result::unstructured::Unstructured;
}

/// Autoref dispatch for generated code: `(&Probe::<R>::new()).finish(value)` resolves to
/// [`IntoToolOutput`] when `R` implements it and to an inert fallback otherwise, so a bad
/// return type yields only the error of [`assert_tool_output`], not a cascade.
#[doc(hidden)]
pub struct Probe<R>(std::marker::PhantomData<fn() -> R>);

impl<R> ::std::fmt::Debug for Probe<R> {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str("Probe")
    }
}

impl<R> Probe<R> {
    #[doc(hidden)]
    pub const fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

#[doc(hidden)]
pub trait ViaToolOutput<R> {
    fn output_shape(&self) -> fn() -> Option<Arc<crate::schema::OutputShape>>;
    fn bytes_as_numbers(&self) -> &'static [&'static str];
    fn finish(&self, value: R, scope: &ResultScope<'_>) -> ToolAnswer;
}

impl<R: IntoToolOutput> ViaToolOutput<R> for Probe<R> {
    fn output_shape(&self) -> fn() -> Option<Arc<crate::schema::OutputShape>> {
        R::output_shape
    }
    fn bytes_as_numbers(&self) -> &'static [&'static str] {
        R::BYTES_AS_NUMBERS
    }
    fn finish(&self, value: R, scope: &ResultScope<'_>) -> ToolAnswer {
        value.into_answer_in(scope)
    }
}

#[doc(hidden)]
pub trait ViaFallback<R> {
    fn output_shape(&self) -> fn() -> Option<Arc<crate::schema::OutputShape>>;
    fn bytes_as_numbers(&self) -> &'static [&'static str];
    fn finish(&self, value: R, scope: &ResultScope<'_>) -> ToolAnswer;
}

impl<R> ViaFallback<R> for &Probe<R> {
    fn output_shape(&self) -> fn() -> Option<Arc<crate::schema::OutputShape>> {
        || None
    }
    fn bytes_as_numbers(&self) -> &'static [&'static str] {
        &[]
    }
    fn finish(&self, _value: R, _scope: &ResultScope<'_>) -> ToolAnswer {
        error_result(&ToolError::internal_logged(
            "tool return type is not a tool result",
        ))
        .into()
    }
}

/// Compile-time check of a tool's error type `E`, emitted by `#[mcp_tools]` at `E`'s span
/// as `(&&&ErrorProbe::<E>::new()).check_error()`. Autoref picks the first level that
/// applies: `E` converts into a [`ToolError`] (nothing to report); `E` is an error type the
/// user cannot give that conversion (text, a protocol error, a boxed `dyn Error`), reported
/// with the fix for that kind; anything else, reported with the general fix. Each report is
/// an unmet bound on the error type itself, so rustc shows the message written for it, not
/// `From`'s.
#[doc(hidden)]
pub struct ErrorProbe<E>(std::marker::PhantomData<fn() -> E>);

impl<E> ::std::fmt::Debug for ErrorProbe<E> {
    fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        f.write_str("ErrorProbe")
    }
}

impl<E> ErrorProbe<E> {
    #[doc(hidden)]
    pub const fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

#[doc(hidden)]
pub trait ErrorViaConversion {
    fn check_error(&self) {}
}

impl<E> ErrorViaConversion for &&ErrorProbe<E> where ToolError: From<E> {}

/// The error types a user reaches for that no crate but this one could convert: text, the
/// JSON-RPC error, a boxed `dyn Error` (with the feature `anyhow`, a
/// `Box<dyn Error + Send + Sync>` converts, so the conversion level answers first). Each
/// kind has its own fix, named by the `on_unimplemented` message of its
/// `ToolErrorInsteadOf*` trait.
mod known_error {
    pub trait Text {}
    impl Text for String {}
    impl Text for &str {}
    impl Text for std::borrow::Cow<'_, str> {}

    pub trait Protocol {}
    impl Protocol for rmcp::ErrorData {}

    pub trait Boxed {}
    impl Boxed for Box<dyn std::error::Error + '_> {}
    impl Boxed for Box<dyn std::error::Error + Send + '_> {}
    impl Boxed for Box<dyn std::error::Error + Send + Sync + '_> {}

    /// The one implementor of each `ToolErrorInsteadOf*` trait and `ConvertsIntoToolError` (uninhabited, and hidden from rustc's
    /// suggestions by `do_not_recommend`): no error type meets the bound, and rustc does not
    /// suggest adding an impl.
    #[allow(dead_code)]
    pub(super) enum Never {}
}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a `{Self}` cannot be a tool's error: return `Result<T, mcp_result::ToolError>`",
    label = "return `Result<T, ToolError>` here",
    note = "text carries no kind the client and the model can act on: build the error with a constructor that names its kind (`ToolError::not_found(message)`, `ToolError::conflict(message)`, `ToolError::policy_blocked(reason)`, ...), or name the kind of a failed call's error where it happens with `mcp_result::ResultExt` (`.not_found(\"No ticket `T-9`.\")?`, `.conflict(..)?`, `.internal()?`)"
)]
pub trait ToolErrorInsteadOfText {}
#[diagnostic::do_not_recommend]
impl ToolErrorInsteadOfText for known_error::Never {}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a protocol error; a tool's execution error is a `mcp_result::ToolError`",
    label = "return `Result<T, ToolError>` here",
    note = "an `ErrorData` fails the JSON-RPC request, and the model never reads it; a `ToolError` is an `isError` result it can act on: build it with `ToolError::not_found(..)`, `ToolError::conflict(..)`, `ToolError::permission_denied(..)`, ..., or name the kind of a failed call's error where it happens with `mcp_result::ResultExt` (`.not_found(..)?`, `.internal()?`)"
)]
pub trait ToolErrorInsteadOfProtocolError {}
#[diagnostic::do_not_recommend]
impl ToolErrorInsteadOfProtocolError for known_error::Never {}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a `{Self}` cannot be a tool's error: return `Result<T, mcp_result::ToolError>`",
    label = "return `Result<T, ToolError>` here",
    note = "name the kind of a failed call's error where it happens with `mcp_result::ResultExt` (`.not_found(..)?`, `.upstream_unavailable(..)?`, or `.internal()?` for a failure the caller cannot act on: the cause is logged under a correlation id), or build the error with a constructor (`ToolError::not_found(..)`, `ToolError::conflict(..)`, ...); with the feature `anyhow`, a `Box<dyn Error + Send + Sync>` and an `anyhow::Error` convert into an `internal` error"
)]
pub trait ToolErrorInsteadOfBoxedError {}
#[diagnostic::do_not_recommend]
impl ToolErrorInsteadOfBoxedError for known_error::Never {}

#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned as a tool execution error",
    label = "no conversion into `mcp_result::ToolError`",
    note = "return `Result<T, ToolError>` and name the kind where the error happens with `mcp_result::ResultExt` (`.not_found(..)?`, `.or_tool_error(ErrorKind::UpstreamUnavailable)?`, `.internal()?`: the cause is logged, never returned), or build it with a constructor (`ToolError::not_found(..)`, ...); if your crate defines `{Self}`, you may instead implement `From<{Self}> for mcp_result::ToolError`, choosing an error kind per variant"
)]
pub trait ConvertsIntoToolError {}
#[diagnostic::do_not_recommend]
impl ConvertsIntoToolError for known_error::Never {}

#[doc(hidden)]
pub trait ErrorViaText<E> {
    fn check_error(&self)
    where
        E: ToolErrorInsteadOfText,
    {
    }
}

impl<E: known_error::Text> ErrorViaText<E> for &ErrorProbe<E> {}

#[doc(hidden)]
pub trait ErrorViaProtocol<E> {
    fn check_error(&self)
    where
        E: ToolErrorInsteadOfProtocolError,
    {
    }
}

impl<E: known_error::Protocol> ErrorViaProtocol<E> for &ErrorProbe<E> {}

#[doc(hidden)]
pub trait ErrorViaBoxed<E> {
    fn check_error(&self)
    where
        E: ToolErrorInsteadOfBoxedError,
    {
    }
}

impl<E: known_error::Boxed> ErrorViaBoxed<E> for &ErrorProbe<E> {}

#[doc(hidden)]
pub trait ErrorViaAnything<E> {
    fn check_error(&self)
    where
        E: ConvertsIntoToolError,
    {
    }
}

impl<E> ErrorViaAnything<E> for ErrorProbe<E> {}
