//! `x-mcp-header`: an argument mirrored into an HTTP header (SEP-2243, MCP 2026-07-28
//! "Streamable HTTP", custom headers). A property annotated
//! `#[schemars(extend("x-mcp-header" = "Region"))]` is sent by 2026 clients as
//! `Mcp-Param-Region` beside the body, so load balancers and gateways can route on it; the
//! server's HTTP transport (rmcp's) checks each such header against the body and answers a
//! mismatch with HTTP 400 and `-32020` (HeaderMismatch).
//!
//! Clients drop a tool whose annotations break the rules (SEP-2243: "Clients MUST reject"),
//! so the registry refuses them before the server serves anything ([`check`]): the value is
//! a non-empty RFC 9110 token, unique case-insensitively within the tool, on a `string`,
//! `integer` or `boolean` property reached from the root through `properties` alone.

use rmcp::model::JsonObject;
use serde_json::Value;

/// The annotation keyword.
pub(crate) const X_MCP_HEADER: &str = "x-mcp-header";

/// RFC 9110 §5.6.2 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Checks every `x-mcp-header` of an advertised `inputSchema`.
///
/// # Errors
/// What is wrong, naming the property and the fix.
pub(crate) fn check(schema: &JsonObject) -> Result<(), String> {
    if schema.contains_key(X_MCP_HEADER) {
        return Err(
            "`x-mcp-header` is on the schema root; it goes on an argument field".to_owned(),
        );
    }
    let mut seen = Vec::new();
    walk(schema.get("properties"), &mut Vec::new(), &mut seen)?;
    if off_chain(&Value::Object(schema.clone()), true) {
        return Err(
            "an `x-mcp-header` sits inside a list, a map, a union or a definition; SEP-2243 \
             mirrors only properties reached from the root through `properties`: move it to \
             such a field"
                .to_owned(),
        );
    }
    Ok(())
}

fn walk<'a>(
    properties: Option<&'a Value>,
    path: &mut Vec<&'a str>,
    seen: &mut Vec<String>,
) -> Result<(), String> {
    let Some(Value::Object(properties)) = properties else {
        return Ok(());
    };
    for (name, property) in properties {
        path.push(name);
        if let Some(header) = property.get(X_MCP_HEADER) {
            let at = path.join(".");
            let header = header.as_str().unwrap_or_default();
            if header.is_empty() || !header.chars().all(is_tchar) {
                return Err(format!(
                    "argument `{at}`: `x-mcp-header = {header:?}` is not an HTTP header name \
                     token (RFC 9110: letters, digits and !#$%&'*+-.^_`|~, no spaces or \
                     colons); clients drop the tool (SEP-2243): name it like `Region`"
                ));
            }
            let lower = header.to_ascii_lowercase();
            if seen.contains(&lower) {
                return Err(format!(
                    "argument `{at}`: `x-mcp-header = \"{header}\"` is used twice (header names \
                     are case-insensitive); clients drop the tool (SEP-2243): give each \
                     argument its own"
                ));
            }
            seen.push(lower);
            // One type, or one beside `null` (an `Option` field in a full schema).
            let kind = match property.get("type") {
                Some(Value::String(kind)) => Some(kind.as_str()),
                Some(Value::Array(kinds)) => match kinds
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|k| *k != "null")
                    .collect::<Vec<_>>()
                    .as_slice()
                {
                    [one] => Some(*one),
                    _ => None,
                },
                _ => None,
            };
            match kind {
                Some("string" | "integer" | "boolean") => {}
                other => {
                    return Err(format!(
                        "argument `{at}`: `x-mcp-header` is on a {} argument; SEP-2243 mirrors \
                         only strings, integers and booleans, and clients drop the tool: move \
                         it to such a field",
                        other.unwrap_or("composite")
                    ))
                }
            }
        }
        walk(property.get("properties"), path, seen)?;
        path.pop();
    }
    Ok(())
}

/// Whether an annotation sits anywhere but on a `properties` chain from the root.
fn off_chain(schema: &Value, on_chain: bool) -> bool {
    match schema {
        Value::Object(object) => object.iter().any(|(key, value)| match key.as_str() {
            X_MCP_HEADER => !on_chain,
            "properties" => value
                .as_object()
                .is_some_and(|map| map.values().any(|s| off_chain(s, on_chain))),
            "default" | "const" | "enum" | "examples" | "required" => false,
            _ => off_chain(value, false),
        }),
        Value::Array(items) => items.iter().any(|item| off_chain(item, false)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn of(value: Value) -> Result<(), String> {
        check(value.as_object().unwrap())
    }

    #[test]
    fn annotations_follow_sep_2243() {
        let ok = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "filter": {"type": "object", "properties": {
                "tenant": {"type": "integer", "x-mcp-header": "Tenant"}}}}});
        assert_eq!(of(ok), Ok(()));
        let bad = |property: Value| {
            of(json!({"type": "object", "properties": {"a": property}})).unwrap_err()
        };
        assert!(bad(json!({"type": "string", "x-mcp-header": "My Region"}))
            .starts_with("argument `a`: `x-mcp-header = \"My Region\"` is not an HTTP header"));
        assert!(bad(json!({"type": "string", "x-mcp-header": ""})).contains("not an HTTP"));
        assert!(bad(json!({"type": "number", "x-mcp-header": "Score"}))
            .contains("is on a number argument"));
        let twice = of(json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "Region"},
            "b": {"type": "string", "x-mcp-header": "region"}}}));
        assert!(twice.unwrap_err().contains("is used twice"));
        let listed = of(
            json!({"type": "object", "properties": {"a": {"type": "array",
            "items": {"type": "string", "x-mcp-header": "Item"}}}}),
        );
        assert!(listed.unwrap_err().contains("inside a list"));
    }
}
