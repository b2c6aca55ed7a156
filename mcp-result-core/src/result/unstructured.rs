//! A result of plain content blocks: [`Unstructured`].

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock};

use crate::result::{
    answer::ToolAnswer,
    build::{error_result, ResultScope},
    output::{answer_of, IntoToolError, IntoToolOutput},
};

/// A tool result of plain content blocks (text, image, audio, embedded resources,
/// resource links) with no `structuredContent`, so the tool has no `outputSchema`: MCP
/// "Tools", Tool Result (unstructured content).
///
/// For tools whose result is media or prose for the model, not data for a program: a tool
/// that returns data returns a [`ToolResult`](crate::ToolResult), which gives the client a
/// schema and the model a summary. A write tool cannot return it: the write contract
/// (`status`, `retrySafe`, `auditEventId`) lives in `structuredContent`.
///
/// A tool returns it from its method (`fn logo(&self) -> Unstructured`; guide, "Asking,
/// logging, plain content"):
///
/// ```
/// use mcp_result_core::{rmcp::model::ContentBlock, IntoToolOutput, Unstructured};
///
/// let logo = Unstructured::new([
///     ContentBlock::text("The logo:"),
///     ContentBlock::image("iVBORw0KGgo=", "image/png"),
/// ]);
/// assert!(<Unstructured as IntoToolOutput>::output_shape().is_none()); // no outputSchema
/// let result = logo.into_call_tool_result();
/// assert_eq!(result.content.len(), 2);
/// assert_eq!(result.structured_content, None);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Unstructured {
    /// The blocks of the result's `content`, in order.
    pub content: Vec<ContentBlock>,
}

impl Unstructured {
    /// A result of `content`, in order.
    pub fn new(content: impl IntoIterator<Item = ContentBlock>) -> Self {
        Self {
            content: content.into_iter().collect(),
        }
    }

    /// A result of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new([ContentBlock::text(text.into())])
    }
}

impl From<Vec<ContentBlock>> for Unstructured {
    fn from(content: Vec<ContentBlock>) -> Self {
        Self { content }
    }
}

impl IntoToolOutput for Unstructured {
    type Output = Unstructured;
    fn output_shape() -> Option<Arc<crate::schema::OutputShape>> {
        None
    }
    fn into_result_in(self, _scope: &ResultScope<'_>) -> CallToolResult {
        CallToolResult::success(self.content)
    }
}

impl<E: IntoToolError> IntoToolOutput for Result<Unstructured, E> {
    type Output = Unstructured;
    fn output_shape() -> Option<Arc<crate::schema::OutputShape>> {
        None
    }
    fn into_result_in(self, scope: &ResultScope<'_>) -> CallToolResult {
        match self {
            Ok(value) => value.into_result_in(scope),
            Err(error) => error_result(&scope.stamp(error.into_tool_error())),
        }
    }
    fn into_answer_in(self, scope: &ResultScope<'_>) -> ToolAnswer {
        answer_of(self, scope)
    }
}
