//! The checks of one listed tool and of the results its calls returned.

use std::collections::BTreeSet;

// The calls a server must refuse: bad arguments, an unknown tool.
mod refused;
mod values;

pub use refused::{bad_arguments, unknown_tool, Answer};

use values::{control_plane, first_text, leaves, names, texts};

use mcp_result::serde_json::Value;

use crate::{
    checks::{Call, Finding},
    report::Refusal,
    schema::{self, escape},
    secrets,
};

/// The write contract's fields (mcp-result's `CONTRACT_KEYS`).
const CONTRACT: [&str; 3] = ["status", "retrySafe", "auditEventId"];

/// The first protocol version whose `outputSchema` may have any root.
const ANY_OUTPUT_ROOT: &str = "2026-07-28";
/// The first protocol version in which bad arguments are a tool execution error.
const ARGUMENTS_AS_RESULTS: &str = "2025-11-25";

/// A listed tool, as far as checking its results needs it.
pub struct Tool {
    pub name: String,
    /// `annotations.readOnlyHint` is not `true`: MCP's default is `false`.
    pub write: bool,
    pub input_schema: Value,
    pub output_schema: Option<Value>,
    pub input_validator: Option<jsonschema::Validator>,
    /// `None` when there is no outputSchema or it cannot be compiled (reported already).
    pub output_validator: Option<jsonschema::Validator>,
}

/// The checks of the tool as listed: its schemas, the output schema's presence and the
/// write contract in it.
pub fn listed(tool: &Value, index: usize, protocol: &str, out: &mut Vec<Finding>) -> Tool {
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .map_or_else(|| format!("tools[{index}]"), str::to_owned);
    let write = tool
        .pointer("/annotations/readOnlyHint")
        .and_then(Value::as_bool)
        != Some(true);
    let input_schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
    let output_schema = tool.get("outputSchema").cloned();

    let mut read = |schema: &Value, at: &str| -> Option<jsonschema::Validator> {
        let checked = schema::check(schema, at);
        for (check, pointer, message) in checked.problems {
            out.push(Finding::new(&name, check, pointer, message));
        }
        checked.validator
    };
    let input_validator = read(&input_schema, "/inputSchema");
    let output_validator = output_schema
        .as_ref()
        .and_then(|s| read(s, "/outputSchema"));

    match &output_schema {
        None => out.push(Finding::new(
            &name,
            "output-schema-missing",
            "",
            "the tool advertises no outputSchema: what it returns is only text for a client \
             or agent to parse",
        )),
        Some(schema) => {
            if protocol < ANY_OUTPUT_ROOT && schema.get("type") != Some(&Value::from("object")) {
                let root = schema
                    .get("type")
                    .map_or_else(|| "no `type`".to_owned(), |t| format!("`type: {t}`"));
                out.push(Finding::new(
                    &name,
                    "output-object-root",
                    "/outputSchema/type",
                    format!(
                        "the outputSchema root has {root}; protocol {protocol} requires \
                         `type: \"object\"`"
                    ),
                ));
            }
        }
    }
    if write {
        let declared = output_schema
            .as_ref()
            .map(schema::declared_properties)
            .unwrap_or_default();
        let missing: Vec<&str> = CONTRACT
            .iter()
            .copied()
            .filter(|k| !declared.contains(*k))
            .collect();
        if !missing.is_empty() {
            out.push(Finding::new(
                &name,
                "write-contract",
                "/outputSchema",
                format!(
                    "a write tool (readOnlyHint is not true) whose outputSchema declares no {}",
                    names(&missing)
                ),
            ));
        }
    }
    Tool {
        name,
        write,
        input_schema,
        output_schema,
        input_validator,
        output_validator,
    }
}

/// The checks of a result of `tool` called with `arguments`, samples or generated ones its
/// inputSchema accepts.
pub fn result(
    tool: &Tool,
    arguments: &Value,
    result: &Value,
    max_output: usize,
    out: &mut Vec<Finding>,
) {
    let call = Call::Arguments;
    let is_error = result.get("isError") == Some(&Value::Bool(true));
    let structured = result.get("structuredContent");
    if !is_error && tool.output_schema.is_some() && structured.is_none() {
        out.push(
            Finding::new(
                &tool.name,
                "structured-content",
                "/structuredContent",
                "the tool advertises an outputSchema but its result has no structuredContent",
            )
            .in_call(call),
        );
    }
    if !is_error && tool.write {
        let missing: Vec<&str> = match structured {
            Some(Value::Object(map)) => CONTRACT
                .iter()
                .copied()
                .filter(|k| !map.contains_key(*k))
                .collect(),
            _ => CONTRACT.to_vec(),
        };
        if !missing.is_empty() {
            out.push(
                Finding::new(
                    &tool.name,
                    "write-contract",
                    "/structuredContent",
                    format!("the write tool's result has no {}", names(&missing)),
                )
                .in_call(call),
            );
        }
    }
    if is_error {
        envelope(tool, call, result, out);
        internal(tool, arguments, result, out);
    }
    common(tool, call, result, max_output, out);
}

/// A call with sample or generated arguments answered `errorKind: "internal"`: a server
/// fault (mcp-result's `ErrorKind::Internal`: "only a `correlationId` is returned; the
/// details stay in the log"), where arguments the tool cannot serve are `validation_error`
/// or `not_found`, and an upstream's failure `upstream_*`.
fn internal(tool: &Tool, arguments: &Value, result: &Value, out: &mut Vec<Finding>) {
    let Some(structured) = result.get("structuredContent") else {
        return;
    };
    if structured.get("errorKind").and_then(Value::as_str) != Some("internal") {
        return;
    }
    let log = match structured.get("correlationId").and_then(Value::as_str) {
        Some(id) => format!(": its log under correlationId `{id}` says what broke"),
        None => ", with no correlationId to look it up by in its log".to_owned(),
    };
    out.push(
        Finding::new(
            &tool.name,
            "internal-error",
            "/structuredContent/errorKind",
            format!(
                "called with {arguments}, `{}` answered errorKind `internal`, a server fault{log}",
                tool.name
            ),
        )
        .in_call(Call::Arguments),
    );
}

/// The refusal in `result` when it is `blocked`: an `isError` result whose
/// `structuredContent.status` is `"blocked"` (mcp-result's `Status::Blocked`: nothing ran,
/// because a policy or a human approval it waits for refused it), with its
/// `approvalRequestId` and `reason` when they are strings.
pub fn blocked(result: &Value) -> Option<Refusal> {
    if result.get("isError") != Some(&Value::Bool(true)) {
        return None;
    }
    let structured = result.get("structuredContent")?;
    if structured.get("status").and_then(Value::as_str) != Some("blocked") {
        return None;
    }
    let text = |key: &str| {
        structured
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    Some(Refusal {
        approval_request_id: text("approvalRequestId"),
        reason: text("reason"),
    })
}

/// The error envelope of an `isError` result: `status` and `retrySafe`.
fn envelope(tool: &Tool, call: Call, result: &Value, out: &mut Vec<Finding>) {
    let structured = result.get("structuredContent");
    let text = first_text(result);
    if !structured.is_some_and(|s| s.get("status").is_some_and(Value::is_string)) {
        let what = match structured {
            None => "no structuredContent".to_owned(),
            Some(_) => "structuredContent without a `status` string".to_owned(),
        };
        out.push(
            Finding::new(
                &tool.name,
                "error-status",
                "/structuredContent/status",
                format!("the isError result has {what} (its text: {text})"),
            )
            .in_call(call),
        );
    }
    if !structured.is_some_and(|s| s.get("retrySafe").is_some_and(Value::is_boolean)) {
        out.push(
            Finding::new(
                &tool.name,
                "error-retry-safe",
                "/structuredContent/retrySafe",
                "the isError result does not say whether a retry is safe (no boolean \
                 `retrySafe`)",
            )
            .in_call(call),
        );
    }
}

/// The checks every result gets: the outputSchema, the JSON-compat text, the size, `_meta`
/// and secrets.
fn common(tool: &Tool, call: Call, result: &Value, max_output: usize, out: &mut Vec<Finding>) {
    let structured = result.get("structuredContent");
    if let (Some(structured), Some(validator), Some(schema)) =
        (structured, &tool.output_validator, &tool.output_schema)
    {
        if let Some((path, messages)) = schema_errors(schema, validator, structured) {
            let kind = if result.get("isError") == Some(&Value::Bool(true)) {
                "the isError result's structuredContent (clients validate error results too)"
            } else {
                "structuredContent"
            };
            out.push(
                Finding::new(
                    &tool.name,
                    "output-schema",
                    format!("/structuredContent{path}"),
                    format!("{kind} does not match the outputSchema: {messages}"),
                )
                .in_call(call),
            );
        }
    }
    if let Some(structured) = structured {
        let compat = texts(result).any(|(_, text)| {
            mcp_result::serde_json::from_str::<Value>(text).is_ok_and(|v| &v == structured)
        });
        if !compat {
            let left_out = left_out_of_texts(result, structured);
            let message = if left_out.is_empty() {
                "no text block holds the JSON of structuredContent".to_owned()
            } else {
                format!(
                    "no text block holds the JSON of structuredContent, and the text leaves out \
                     {}: hosts that read only `content` (Claude Desktop and claude.ai \
                     connectors, Claude Code, clients older than MCP 2025-06-18) never see \
                     them",
                    left_out.join(", ")
                )
            };
            out.push(
                Finding::new(&tool.name, "json-compat-text", "/content", message).in_call(call),
            );
        }
    }

    let text_bytes: usize = texts(result).map(|(_, t)| t.len()).sum();
    let structured_bytes = structured.map_or(0, |s| s.to_string().len());
    let linked = result
        .get("content")
        .and_then(Value::as_array)
        .is_some_and(|blocks| {
            blocks
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("resource_link"))
        });
    if text_bytes.max(structured_bytes) > max_output && !linked {
        out.push(
            Finding::new(
                &tool.name,
                "large-output",
                "/content",
                format!(
                    "the result carries {} bytes of text and {} bytes of structuredContent \
                     (over {max_output}) and no resource_link",
                    text_bytes, structured_bytes
                ),
            )
            .in_call(call),
        );
    }

    meta_business_data(tool, call, result, out);

    for hit in secrets::scan(result) {
        out.push(
            Finding::new(
                &tool.name,
                "secret",
                hit.pointer,
                format!("the result holds {}", hit.what),
            )
            .in_call(call),
        );
    }
}

/// The top-level fields of `structured` that no text block of `result` names, by key or by
/// its value (a summary that says "3 tickets" names `total: 3`), as `` `key` ``.
fn left_out_of_texts(result: &Value, structured: &Value) -> Vec<String> {
    let Some(object) = structured.as_object() else {
        return Vec::new();
    };
    let all: Vec<&str> = texts(result).map(|(_, text)| text).collect();
    object
        .iter()
        .filter(|(key, value)| {
            let shown = match value {
                Value::String(text) => Some(text.clone()),
                Value::Number(number) => Some(number.to_string()),
                Value::Bool(flag) => Some(flag.to_string()),
                _ => None,
            };
            !all.iter().any(|text| {
                text.contains(key.as_str())
                    || shown
                        .as_deref()
                        .is_some_and(|shown| !shown.is_empty() && text.contains(shown))
            })
        })
        .map(|(key, _)| format!("`{key}`"))
        .collect()
}

/// Where and how `instance` fails `schema`: the first three errors; for a root `anyOf` /
/// `oneOf` (a success shape or the error envelope, say), those of the branch it comes
/// closest to, since "not valid under any of the schemas" names nothing to fix.
fn schema_errors(
    schema: &Value,
    validator: &jsonschema::Validator,
    instance: &Value,
) -> Option<(String, String)> {
    let describe = |errors: Vec<(String, String)>| {
        let path = errors.first()?.0.clone();
        let messages: Vec<String> = errors
            .iter()
            .map(|(p, m)| format!("{m} at `{}`", if p.is_empty() { "/" } else { p }))
            .collect();
        Some((path, messages.join("; ")))
    };
    let errors_of = |validator: &jsonschema::Validator| -> Vec<(String, String)> {
        validator
            .iter_errors(instance)
            .map(|e| (e.instance_path().to_string(), e.to_string()))
            .collect()
    };
    let errors = errors_of(validator);
    if errors.is_empty() {
        return None;
    }
    let branches = ["anyOf", "oneOf"]
        .iter()
        .find_map(|k| Some((*k, schema.get(*k)?.as_array()?)));
    if let (Some((keyword, branches)), [(root, _)]) = (branches, errors.as_slice()) {
        if root.is_empty() {
            // Each branch checked alone, in the root schema (so `$ref`s still resolve).
            let closest = branches
                .iter()
                .enumerate()
                .filter_map(|(i, branch)| {
                    let mut alone = schema.clone();
                    let map = alone.as_object_mut()?;
                    map.remove(keyword);
                    map.insert("allOf".into(), Value::Array(vec![branch.clone()]));
                    let errors = schema::compile(&alone).ok().map(|v| errors_of(&v))?;
                    Some((i, errors))
                })
                .filter(|(_, errors)| !errors.is_empty())
                .min_by_key(|(_, errors)| errors.len());
            if let Some((i, errors)) = closest {
                let (path, messages) = describe(errors.into_iter().take(3).collect())?;
                return Some((
                    path,
                    format!(
                        "it matches none of the `{keyword}` branches; against the closest \
                         (branch {i}): {messages}"
                    ),
                ));
            }
        }
    }
    describe(errors.into_iter().take(3).collect())
}

/// A `_meta` entry (of the result or of a block) whose key is not control-plane vocabulary
/// and whose value appears neither in `structuredContent` nor in a text block.
fn meta_business_data(tool: &Tool, call: Call, result: &Value, out: &mut Vec<Finding>) {
    let mut metas: Vec<(String, &Value)> = Vec::new();
    if let Some(meta) = result.get("_meta") {
        metas.push(("/_meta".into(), meta));
    }
    for (i, block) in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(meta) = block.get("_meta") {
            metas.push((format!("/content/{i}/_meta"), meta));
        }
    }
    if metas.is_empty() {
        return;
    }
    let mut known = BTreeSet::new();
    if let Some(structured) = result.get("structuredContent") {
        leaves(structured, &mut known);
    }
    let texts: Vec<&str> = texts(result).map(|(_, t)| t).collect();
    for (at, meta) in metas {
        let Some(meta) = meta.as_object() else {
            continue;
        };
        for (key, value) in meta {
            if control_plane(key) {
                continue;
            }
            let mut values = BTreeSet::new();
            leaves(value, &mut values);
            let hidden: Vec<&String> = values
                .iter()
                .filter(|v| !known.contains(*v) && !texts.iter().any(|t| t.contains(v.as_str())))
                .collect();
            if let Some(value) = hidden.first() {
                out.push(
                    Finding::new(
                        &tool.name,
                        "meta-business-data",
                        format!("{at}/{}", escape(key)),
                        format!(
                            "`_meta` key `{key}` carries `{value}`, which neither \
                             structuredContent nor the text has"
                        ),
                    )
                    .in_call(call),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use mcp_result::serde_json::json;

    use super::*;

    fn read_tool() -> Tool {
        Tool {
            name: "get_report".into(),
            write: false,
            input_schema: json!({"type": "object"}),
            output_schema: None,
            input_validator: None,
            output_validator: None,
        }
    }

    fn error_result(structured: Value) -> Value {
        json!({
            "isError": true,
            "content": [{"type": "text", "text": structured.to_string()}],
            "structuredContent": structured
        })
    }

    #[test]
    fn an_internal_error_without_a_correlation_id_says_so() {
        let mut out = Vec::new();
        let answer = error_result(json!({
            "status": "failed", "errorKind": "internal", "retrySafe": true,
            "message": "Internal error."
        }));
        result(&read_tool(), &json!({}), &answer, 1 << 16, &mut out);
        let checks: Vec<&str> = out.iter().map(|f| f.check.as_str()).collect();
        assert_eq!(checks, ["internal-error"]);
        assert_eq!(
            out[0].message,
            "called with {}, `get_report` answered errorKind `internal`, a server fault, with \
             no correlationId to look it up by in its log"
        );
        assert_eq!(out[0].call, Some(Call::Arguments));
    }

    #[test]
    fn blocked_is_an_error_result_whose_status_is_blocked() {
        let refusal = blocked(&error_result(json!({
            "status": "blocked", "errorKind": "policy_blocked", "retrySafe": true,
            "message": "Blocked by policy: quota. Do not retry or work around it.",
            "reason": "quota"
        })))
        .expect("blocked");
        assert_eq!(refusal.reason.as_deref(), Some("quota"));
        assert_eq!(refusal.approval_request_id, None);
        // A success that reports `blocked` is no refusal of the call, nor is a failure.
        let success = json!({"structuredContent": {"status": "blocked"}});
        assert!(blocked(&success).is_none());
        let failed = error_result(json!({"status": "failed", "errorKind": "not_found"}));
        assert!(blocked(&failed).is_none());
    }
}
