//! What the checks read out of a result's JSON: its texts, its leaves, the names of a
//! structured value's fields, and which `_meta` keys are control plane.

use std::collections::BTreeSet;

use mcp_result::serde_json::Value;

use crate::schema::escape;

/// Keys `_meta` is for: W3C trace context, progress, the reserved MCP prefixes, and names
/// of trace ids, cache keys, timings, rendering hints, versions, audit and paging handles.
pub(super) fn control_plane(key: &str) -> bool {
    if matches!(
        key,
        "traceparent" | "tracestate" | "baggage" | "progressToken"
    ) {
        return true;
    }
    let (prefix, name) = key.rsplit_once('/').unwrap_or(("", key));
    let second_label = prefix.split('.').nth(1);
    if matches!(second_label, Some("modelcontextprotocol" | "mcp")) {
        return true;
    }
    let name = name.to_ascii_lowercase();
    const WORDS: &[&str] = &[
        "trace",
        "span",
        "requestid",
        "request_id",
        "request-id",
        "correlation",
        "cache",
        "etag",
        "idempoten",
        "timing",
        "duration",
        "elapsed",
        "latency",
        "render",
        "display",
        "hint",
        "version",
        "audit",
        "replay",
        "wrapped",
        "cursor",
        "session",
        "debug",
        "handle",
        "paging",
        "schema",
        "deprecat",
        "ratelimit",
        "rate-limit",
        "retry",
        "approval",
        "ui",
    ];
    WORDS.iter().any(|w| {
        if w.len() <= 2 {
            name == *w || name.starts_with(&format!("{w}.")) || name.starts_with(&format!("{w}-"))
        } else {
            name.contains(w)
        }
    })
}

/// Strings and numbers of `value`, as text.
pub(super) fn leaves(value: &Value, into: &mut BTreeSet<String>) {
    match value {
        Value::String(s) if !s.is_empty() => {
            into.insert(s.clone());
        }
        Value::Number(n) => {
            into.insert(n.to_string());
        }
        Value::Array(items) => items.iter().for_each(|v| leaves(v, into)),
        Value::Object(map) => map.values().for_each(|v| leaves(v, into)),
        _ => {}
    }
}

/// Whether some string of `structured` names `field`: the name itself, a JSON Pointer or a
/// dotted path ending in it, or an array path (`["arguments", "field"]`) ending in it.
pub(super) fn names_field(structured: &Value, field: &str) -> bool {
    match structured {
        Value::String(s) => {
            s == field
                || s.ends_with(&format!("/{}", escape(field)))
                || s.ends_with(&format!(".{field}"))
        }
        Value::Array(items) => {
            items.last().and_then(Value::as_str) == Some(field)
                || items.iter().any(|v| names_field(v, field))
        }
        Value::Object(map) => map.values().any(|v| names_field(v, field)),
        _ => false,
    }
}

/// The text blocks of a result: `(index, text)`.
pub(super) fn texts(result: &Value) -> impl Iterator<Item = (usize, &str)> {
    result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter(|(_, b)| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|(i, b)| b.get("text").and_then(Value::as_str).map(|t| (i, t)))
}

pub(super) fn first_text(result: &Value) -> String {
    match texts(result).next() {
        Some((_, text)) => {
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            let short: String = text.chars().take(80).collect();
            if short.len() < text.len() {
                format!("\"{short}…\"")
            } else {
                format!("\"{short}\"")
            }
        }
        None => "none".into(),
    }
}

pub(super) fn names(keys: &[&str]) -> String {
    let quoted: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    match quoted.as_slice() {
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
        [] => String::new(),
    }
}
