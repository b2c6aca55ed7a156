//! The approval text of a write and the `approvalRequestId` argument of a gated tool.

use std::{borrow::Cow, fmt::Write as _, sync::Arc};

use serde_json::Value;

use crate::wire::keys::APPROVAL_REQUEST_ARGUMENT;

/// How many characters of an argument's value an approval text shows
/// ([`approval_text`]): the rest is on the approvals page.
pub const APPROVAL_VALUE_CHARS: usize = 200;

/// How many arguments the default approval text lists (a tool without an approval
/// template, [`approval_text`]); it says how many more there are.
pub const APPROVAL_LISTED_ARGUMENTS: usize = 10;

/// The approval text of a write, what its approver reads (in an elicitation, the `blocked`
/// answer, the approvals page and the `approvals` command): `template` with each
/// `{field}` replaced by that argument's value, or, for an empty template, "Run `<tool>`"
/// and each argument as `name: value` (at most [`APPROVAL_LISTED_ARGUMENTS`], then how many
/// more).
///
/// A value shows as a string's text or other values' compact JSON, on one line, cut to
/// its first [`APPROVAL_VALUE_CHARS`] characters with its length after them when longer
/// (`… (1050 characters)`; an array says how many items it has: `… (3 items, 293
/// characters)`); a secret argument as `[secret]`, an absent one as `none`. Characters
/// that change what a reader sees (bidirectional controls, zero-width and other format
/// characters, control characters: [`changes_reading`](super::changes_reading)) show as
/// their code point, `[U+202E]`, and the text ends with a warning naming the arguments
/// that hold them (a string's line breaks and tabs show as their code points too, on this
/// one line, without the warning).
///
/// ```
/// use mcp_result_core::approval::approval_text;
/// use serde_json::json;
///
/// let arguments = json!({"ticketId": "T-1", "relations": ["a", "b", "c"]});
/// assert_eq!(
///     approval_text("Close {ticketId}", "close_ticket", &arguments, |_| false),
///     "Close T-1"
/// );
/// assert_eq!(
///     approval_text("", "delete_relations", &json!({"relations": ["a", "b"]}), |_| false),
///     r#"Run `delete_relations`: relations: ["a","b"]"#
/// );
/// assert_eq!(
///     approval_text("Close {ticketId}", "close_ticket", &json!({"ticketId": "\u{202e}1001-T"}), |_| false),
///     "Close [U+202E]1001-T. Warning: /ticketId holds characters that change how text \
///      reads, shown as [U+…]"
/// );
/// ```
pub fn approval_text(
    template: &str,
    tool: &str,
    arguments: &Value,
    is_secret: impl Fn(&str) -> bool,
) -> String {
    let shown = |name: &str| {
        let pointer = format!("/{}", crate::wire::pointer::escape(name));
        match arguments.get(name) {
            _ if is_secret(&pointer) => "[secret]".to_owned(),
            Some(value) => shown_value(value),
            None => "none".to_owned(),
        }
    };
    let mut out = String::new();
    if template.is_empty() {
        out = format!("Run `{tool}`");
        if let Some(map) = arguments.as_object().filter(|map| !map.is_empty()) {
            for (at, name) in map.keys().take(APPROVAL_LISTED_ARGUMENTS).enumerate() {
                out.push_str(if at == 0 { ": " } else { ", " });
                out.push_str(&super::marked(name, &[]));
                out.push_str(": ");
                out.push_str(&shown(name));
            }
            if map.len() > APPROVAL_LISTED_ARGUMENTS {
                let _ = write!(
                    out,
                    ", and {} more arguments",
                    map.len() - APPROVAL_LISTED_ARGUMENTS
                );
            }
        }
    } else {
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let Some(close) = rest[open..].find('}') else {
                out.push_str(&rest[open..]);
                rest = "";
                break;
            };
            out.push_str(&shown(&rest[open + 1..open + close]));
            rest = &rest[open + close + 1..];
        }
        out.push_str(rest);
    }
    if let Some(warning) = super::visible::warning(&super::visible::hidden_pointers(arguments)) {
        out.push_str(&warning);
    }
    out
}

/// One argument's value as an approval text shows it ([`approval_text`]).
fn shown_value(value: &Value) -> String {
    let (text, items) = match value {
        Value::String(text) => (Cow::Borrowed(text.as_str()), None),
        Value::Array(items) => (
            Cow::Owned(crate::wire::text::json_one_line(value)),
            Some(items.len()),
        ),
        other => (Cow::Owned(crate::wire::text::json_one_line(other)), None),
    };
    let text = super::marked(&text, &[]);
    let Some((cut, _)) = text.char_indices().nth(APPROVAL_VALUE_CHARS) else {
        return text.into_owned();
    };
    let total = APPROVAL_VALUE_CHARS + text[cut..].chars().count();
    let mut out = text[..cut].to_owned();
    match items {
        Some(1) => {
            let _ = write!(out, "… (1 item, {total} characters)");
        }
        Some(n) => {
            let _ = write!(out, "… ({n} items, {total} characters)");
        }
        None => {
            let _ = write!(out, "… ({total} characters)");
        }
    }
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
        properties.insert(APPROVAL_REQUEST_ARGUMENT.into(), approval_request_schema());
    }
    Ok(Arc::new(input))
}

/// The schema of the `approvalRequestId` argument the framework adds to a tool that needs a
/// human approval (before it runs, or from its body: [`Approval`](super::Approval)).
pub(crate) fn approval_request_schema() -> Value {
    serde_json::json!({
        "type": "string",
        "description": "Once approved: the id a `blocked` answer gave."
    })
}
