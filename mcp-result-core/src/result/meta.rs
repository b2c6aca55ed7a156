//! `_meta` on a tool result: the control plane (trace ids, cache hints, rendering hints).
//! Business data belongs in `structuredContent`, never only here.
//!
//! Keys follow MCP 2025-11-25 "General fields: `_meta`": an optional prefix (dot-separated
//! labels, each starting with a letter and ending with a letter or digit, with letters,
//! digits and hyphens inside, followed by `/`) and a name (starting and ending with a letter
//! or digit, with letters, digits, `-`, `_` and `.` inside). A prefix whose second label is
//! `modelcontextprotocol` or `mcp` is reserved (`io.modelcontextprotocol/`, `dev.mcp/`).
//! MCP 2026-07-28 also reserves `traceparent`, `tracestate` and `baggage` for W3C Trace
//! Context and Baggage: set those through [`ResultMeta::traceparent`] and friends.

use rmcp::model::{CallToolResult, MetaObject};
use serde::Serialize;
use serde_json::Value;

use crate::result::{
    build::{build_result_in, error_result, ResultScope, ToolResult},
    output::{IntoToolError, IntoToolOutput},
};

pub use crate::wire::meta_key::{check_meta_key, MetaError, MetaKey, MetaKeyRule};

/// The `_meta` object of a result, built with checked keys.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultMeta(MetaObject);

impl ResultMeta {
    /// Empty.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `key` to `value`.
    ///
    /// # Errors
    /// A [`MetaError`] when `value` does not serialize to JSON.
    pub fn insert(mut self, key: MetaKey, value: impl Serialize) -> Result<Self, MetaError> {
        let value = serde_json::to_value(value)
            .map_err(|e| MetaError(format!("`_meta` value for `{}`: {e}", key.as_str())))?;
        self.0 .0.insert(key.0.into_owned(), value);
        Ok(self)
    }

    /// Sets `traceparent` (W3C Trace Context: `version-traceid-parentid-flags`, lowercase
    /// hex, e.g. `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`).
    ///
    /// # Errors
    /// A [`MetaError`] when `value` is not a valid `traceparent` (wrong field lengths,
    /// uppercase or non-hex digits, version `ff`, an all-zero trace id or parent id).
    pub fn traceparent(mut self, value: &str) -> Result<Self, MetaError> {
        check_traceparent(value)?;
        self.0
             .0
            .insert("traceparent".into(), Value::String(value.into()));
        Ok(self)
    }

    /// Sets `tracestate` (W3C Trace Context, passed through as given).
    pub fn tracestate(mut self, value: impl Into<String>) -> Self {
        self.0
             .0
            .insert("tracestate".into(), Value::String(value.into()));
        self
    }

    /// The `_meta` object.
    pub fn into_object(self) -> MetaObject {
        self.0
    }
}

fn check_traceparent(value: &str) -> Result<(), MetaError> {
    let fail = |why: &str| {
        Err(MetaError(format!(
            "`traceparent` `{value}` is not W3C Trace Context: {why}"
        )))
    };
    let parts: Vec<&str> = value.split('-').collect();
    let lowercase_hex = |s: &str| {
        s.chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    };
    if parts.len() != 4
        || [2, 32, 16, 2]
            != [
                parts[0].len(),
                parts[1].len(),
                parts[2].len(),
                parts[3].len(),
            ]
    {
        return fail("expected `version-traceid-parentid-flags` with 2, 32, 16 and 2 hex digits");
    }
    if !parts.iter().all(|p| lowercase_hex(p)) {
        return fail("only lowercase hex digits are allowed");
    }
    if parts[0] == "ff" {
        return fail("version `ff` is invalid");
    }
    if parts[1].chars().all(|c| c == '0') || parts[2].chars().all(|c| c == '0') {
        return fail("the trace id and parent id must not be all zeros");
    }
    Ok(())
}

/// A tool output with `_meta` attached: return `WithMeta<T>` (or
/// `Result<WithMeta<T>, E>`) from a tool to send control-plane data beside the result.
#[derive(Debug, Clone, PartialEq)]
pub struct WithMeta<T> {
    /// The result (a [`ToolResult`]).
    pub value: T,
    /// Its `_meta`.
    pub meta: ResultMeta,
}

impl<T: ToolResult> IntoToolOutput for WithMeta<T> {
    type Output = T;
    const BYTES_AS_NUMBERS: &'static [&'static str] = T::BYTES_AS_NUMBERS;
    fn output_shape() -> Option<std::sync::Arc<crate::schema::OutputShape>> {
        <T as IntoToolOutput>::output_shape()
    }
    fn into_result_in(self, scope: &ResultScope<'_>) -> CallToolResult {
        let mut result = build_result_in(&self.value, scope);
        if !self.meta.0 .0.is_empty() {
            result.meta = Some(self.meta.into_object());
        }
        result
    }
}

impl<T: ToolResult, E: IntoToolError> IntoToolOutput for Result<WithMeta<T>, E> {
    type Output = T;
    const BYTES_AS_NUMBERS: &'static [&'static str] = T::BYTES_AS_NUMBERS;
    fn output_shape() -> Option<std::sync::Arc<crate::schema::OutputShape>> {
        <T as IntoToolOutput>::output_shape()
    }
    fn into_result_in(self, scope: &ResultScope<'_>) -> CallToolResult {
        match self {
            Ok(value) => value.into_result_in(scope),
            Err(error) => error_result(&scope.stamp(error.into_tool_error())),
        }
    }
    fn into_answer_in(self, scope: &ResultScope<'_>) -> crate::result::answer::ToolAnswer {
        crate::result::output::answer_of(self, scope)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparent_follows_w3c() {
        let good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        assert!(ResultMeta::new().traceparent(good).is_ok());
        for bad in [
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "not a traceparent",
        ] {
            assert!(ResultMeta::new().traceparent(bad).is_err(), "{bad}");
        }
    }
}
