//! The approval text of a write and the `approvalRequestId` argument of a gated tool.

use std::sync::Arc;

use serde_json::Value;

use crate::wire::keys::APPROVAL_REQUEST_ARGUMENT;

/// The approval text of a write: `template` with each `{field}` replaced by the argument
/// (strings as they are, other values as compact JSON; cut to their first 40 characters,
/// the echo limit of error messages, with `… (N characters)` after them when longer; escaped
/// onto one line; a secret argument shows as `[secret]`, an absent one as `none`). An empty
/// template gives "Run `<tool>`".
///
/// ```
/// use mcp_result_core::approval::approval_text;
/// use serde_json::json;
///
/// let long = "x".repeat(50);
/// let arguments = json!({"ticketId": long});
/// let text = approval_text("Close {ticketId}", "close_ticket", &arguments, |_| false);
/// assert_eq!(text, format!("Close {}… (50 characters)", "x".repeat(40)));
/// ```
pub fn approval_text(
    template: &str,
    tool: &str,
    arguments: &Value,
    is_secret: impl Fn(&str) -> bool,
) -> String {
    if template.is_empty() {
        return format!("Run `{tool}`");
    }
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let name = &rest[open + 1..open + close];
        let pointer = format!("/{name}");
        let shown = match arguments.get(name) {
            _ if is_secret(&pointer) => "[secret]".to_owned(),
            Some(Value::String(text)) => crate::wire::text::cap(text),
            Some(other) => crate::wire::text::cap(&other.to_string()),
            None => "none".to_owned(),
        };
        out.push_str(&shown);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// Whether a listed tool is approval-gated: its `inputSchema` has the `approvalRequestId`
/// the registry adds to such tools (the one reader of that fact).
pub fn is_gated(tool: &rmcp::model::Tool) -> bool {
    tool.input_schema
        .get("properties")
        .and_then(|p| p.get(APPROVAL_REQUEST_ARGUMENT))
        .is_some()
}

/// The `{placeholders}` of an approval template.
pub fn placeholders(template: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        names.push(&rest[open + 1..open + close]);
        rest = &rest[open + close + 1..];
    }
    names
}

/// The `inputSchema` of an approval-gated tool: the arguments' own, plus the optional
/// `approvalRequestId` (for hosts whose models cannot set `_meta`).
///
/// # Errors
/// When the approval text names an argument the schema does not have, or the arguments
/// already have an `approvalRequestId`: the message names it and the fix.
pub(crate) fn gated_input_schema(
    input: Arc<rmcp::model::JsonObject>,
    template: &str,
) -> Result<Arc<rmcp::model::JsonObject>, String> {
    let properties = input.get("properties").and_then(Value::as_object);
    for name in placeholders(template) {
        if !properties.is_some_and(|p| p.contains_key(name)) {
            return Err(format!(
                "the approval text names `{{{name}}}`, which is no argument: use the \
                 serialized name of a field of the arguments type"
            ));
        }
    }
    if properties.is_some_and(|p| p.contains_key(APPROVAL_REQUEST_ARGUMENT)) {
        return Err(format!(
            "the arguments already have `{APPROVAL_REQUEST_ARGUMENT}`, which the framework adds \
             to approval-gated tools: rename the field"
        ));
    }
    let mut input = (*input).clone();
    let properties = input
        .entry("properties")
        .or_insert_with(|| Value::Object(rmcp::model::JsonObject::new()));
    if let Value::Object(properties) = properties {
        properties.insert(
            APPROVAL_REQUEST_ARGUMENT.into(),
            serde_json::json!({
                "type": "string",
                "description": "After an answer `blocked` with `requiresHumanReview`, the \
                    `approvalRequestId` it gave, once a human approved."
            }),
        );
    }
    Ok(Arc::new(input))
}
