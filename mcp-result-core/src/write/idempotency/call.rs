//! The idempotency key of a call, a stored answer read back, and the answer when the store fails.

use std::time::Duration;

use rmcp::{model::CallToolResult, service::RequestContext, RoleServer};
use serde_json::Value;

use crate::{
    result::build::error_result,
    wire::{
        envelope::{FieldError, ToolError},
        keys::IDEMPOTENCY_KEY_META,
    },
    write::idempotency::check_key,
};

/// The idempotency key of a call: `_meta`'s, else the argument `key_field` names.
///
/// # Errors
/// A `validation_error` at the key's place when it is not 1 to 255 printable characters.
pub(crate) fn idempotency_key(
    key_field: Option<&str>,
    context: &RequestContext<RoleServer>,
    arguments: &Value,
) -> Result<Option<String>, ToolError> {
    let from_meta = context.meta.get(IDEMPOTENCY_KEY_META);
    let (value, pointer) = match (from_meta, key_field) {
        (Some(value), _) => (value, format!("_meta/{IDEMPOTENCY_KEY_META}")),
        (None, Some(field)) => match arguments.get(field) {
            Some(Value::Null) | None => return Ok(None),
            Some(value) => (value, format!("/{field}")),
        },
        (None, None) => return Ok(None),
    };
    let key = value.as_str().ok_or_else(|| {
        ToolError::validation(vec![FieldError::new(
            pointer.clone(),
            "an idempotency key is a string",
        )])
    })?;
    check_key(key)
        .map(|()| Some(key.to_owned()))
        .map_err(|message| ToolError::validation(vec![FieldError::new(pointer, message)]))
}

pub(crate) fn replay(stored: Value) -> CallToolResult {
    serde_json::from_value(stored).unwrap_or_else(|error| {
        error_result(&ToolError::internal_logged(format_args!(
            "a stored idempotent result does not parse: {error}"
        )))
    })
}

pub(crate) fn store_failed(error: &dyn std::fmt::Display) -> CallToolResult {
    tracing::error!(%error, "idempotency store failed");
    error_result(
        &ToolError::upstream_unavailable(
            "The idempotency store is unavailable; nothing ran. Retry later with the same key.",
            true,
        )
        .with_retry_after(Duration::from_secs(1)),
    )
}
