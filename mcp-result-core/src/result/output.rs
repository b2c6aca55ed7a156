//! What a `#[mcp_tool]` method may return ([`IntoToolOutput`]), its error types
//! ([`IntoToolError`]), and how either becomes the call's [`ToolAnswer`]. The result itself
//! is built in [`build`](super::build).

use std::sync::Arc;

use rmcp::model::CallToolResult;

use crate::{
    result::{
        answer::ToolAnswer,
        build::{build_result_in, error_result, ResultScope, ToolResult},
    },
    wire::envelope::ToolError,
};

/// What a `#[mcp_tool]` method may return: a [`ToolResult`] `T`, or `Result<T, E>` where
/// `E` converts into a [`ToolError`] ([`IntoToolError`]).
///
/// The messages speak to every type a user may have written here, their own and other
/// crates' (`rmcp::model::CallToolResult` above all): a tool returns its data, and
/// mcp-result builds the `CallToolResult` from it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a `#[mcp_tool]` method",
    label = "a tool returns a type deriving `ToolResult`, or `Result<T, ToolError>` of one",
    note = "return your data in a type with `#[derive(Serialize, JsonSchema, ToolResult)]`: mcp-result builds the `CallToolResult` (`structuredContent`, `content`, `isError`) from it; for a `Serialize + JsonSchema` type from another crate, return `Structured<T>`; an error type must convert into `mcp_result::ToolError`"
)]
pub trait IntoToolOutput {
    /// The success type, whose schema is the success branch of the tool's `outputSchema`
    /// (a [`ToolResult`], or [`Unstructured`](crate::Unstructured), which has none).
    type Output;

    /// The tool's `structuredContent` shape; `None`: no `outputSchema` (plain content).
    fn output_shape() -> Option<Arc<crate::schema::OutputShape>>;

    /// The success type's [`ToolResult::BYTES_AS_NUMBERS`]. Not public API.
    #[doc(hidden)]
    const BYTES_AS_NUMBERS: &'static [&'static str] = &[];

    /// Turns the returned value into the result sent to the client.
    fn into_call_tool_result(self) -> CallToolResult
    where
        Self: Sized,
    {
        self.into_result_in(&ResultScope::default())
    }

    /// The same inside a tool call, storing payloads in `scope`.
    fn into_result_in(self, scope: &ResultScope<'_>) -> CallToolResult;

    /// The call's answer inside a tool call: the result, or the JSON-RPC error or question
    /// an error stands for ([`ToolError::protocol`], [`crate::Ask`]).
    fn into_answer_in(self, scope: &ResultScope<'_>) -> ToolAnswer
    where
        Self: Sized,
    {
        self.into_result_in(scope).into()
    }
}

impl<T: ToolResult> IntoToolOutput for T {
    type Output = T;
    const BYTES_AS_NUMBERS: &'static [&'static str] = T::BYTES_AS_NUMBERS;
    fn output_shape() -> Option<Arc<crate::schema::OutputShape>> {
        Some(crate::schema::output_shape::<T>())
    }
    fn into_result_in(self, scope: &ResultScope<'_>) -> CallToolResult {
        build_result_in(&self, scope)
    }
}

impl<T: ToolResult, E: IntoToolError> IntoToolOutput for Result<T, E> {
    type Output = T;
    const BYTES_AS_NUMBERS: &'static [&'static str] = T::BYTES_AS_NUMBERS;
    fn output_shape() -> Option<Arc<crate::schema::OutputShape>> {
        Some(crate::schema::output_shape::<T>())
    }
    fn into_result_in(self, scope: &ResultScope<'_>) -> CallToolResult {
        match self {
            Ok(value) => build_result_in(&value, scope),
            Err(error) => error_result(&scope.stamp(error.into_tool_error())),
        }
    }

    fn into_answer_in(self, scope: &ResultScope<'_>) -> ToolAnswer {
        answer_of(self, scope)
    }
}

impl ToolAnswer {
    /// The answer for `error`: its JSON-RPC error or question when it stands for one, else
    /// its `isError` result.
    pub fn of_error(mut error: ToolError) -> Self {
        use crate::wire::envelope::Escape;
        match error.take_escape() {
            Some(Escape::Protocol(error)) => ToolAnswer::Protocol(error),
            Some(Escape::Ask(question)) => ToolAnswer::Ask(question),
            None => ToolAnswer::Result(error_result(&error)),
        }
    }
}

/// The answer of a tool that returned `Result<O, E>`: the success's result, or the error's
/// (stamped with the call's facts; a JSON-RPC error or question when it stands for one).
pub(crate) fn answer_of<O: IntoToolOutput, E: IntoToolError>(
    returned: Result<O, E>,
    scope: &ResultScope<'_>,
) -> ToolAnswer {
    match returned {
        Ok(value) => value.into_answer_in(scope),
        Err(error) => ToolAnswer::of_error(scope.stamp(error.into_tool_error())),
    }
}

/// Converts a tool's error type into a [`ToolError`].
///
/// Implemented for every `E` where `ToolError: From<E>`: implement
/// `From<YourError> for mcp_result::ToolError` and a tool may return
/// `Result<T, YourError>`. A type from another crate (`io::Error`, `String`,
/// `rmcp::ErrorData`, ...) cannot get that impl: such a tool returns `Result<T, ToolError>`
/// and names the kind where the error happens with [`crate::ResultExt`]
/// (`.not_found("...")?`, `.internal()?`) or builds the error with a constructor
/// ([`ToolError::not_found`], ...). With the feature `anyhow`, `anyhow::Error` and
/// `Box<dyn Error + Send + Sync>` convert (an `internal` error).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned as a tool execution error",
    label = "no conversion into `mcp_result::ToolError`",
    note = "return `Result<T, ToolError>` and name the kind where the error happens with `mcp_result::ResultExt` (`.not_found(..)?`, `.or_tool_error(ErrorKind::UpstreamUnavailable)?`, `.internal()?`: the cause is logged, never returned), or build it with a constructor (`ToolError::not_found(..)`, ...); if your crate defines `{Self}`, you may instead implement `From<{Self}> for mcp_result::ToolError`, choosing an error kind per variant"
)]
pub trait IntoToolError {
    /// Performs the conversion.
    fn into_tool_error(self) -> ToolError;
}

impl<E> IntoToolError for E
where
    ToolError: From<E>,
{
    fn into_tool_error(self) -> ToolError {
        ToolError::from(self)
    }
}
