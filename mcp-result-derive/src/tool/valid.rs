//! Rules of `#[mcp_tools]`: tool names (portable by default, MCP 2025-11-25 "Tool Names"
//! by choice), unique names, descriptions. (`read_only` against `destructive` is an
//! attribute conflict, reported while parsing.)

use std::collections::HashMap;

use super::ast::Server;
use crate::ctxt::Ctxt;

pub fn validate(server: &Server) -> syn::Result<()> {
    let cx = Ctxt::default();
    blocks(&cx, server);
    let mut seen: HashMap<String, ()> = HashMap::new();
    for tool in &server.tools {
        let name = tool.name();
        let value = name.value();
        if let Some(problem) = name_problem(&value, tool.spec_name(&server.attrs)) {
            let rename = if tool.attrs.name.is_some() {
                "change it"
            } else {
                "rename the method or set `#[mcp_tool(name = \"...\")]`"
            };
            let message = if tool.spec_name(&server.attrs) {
                format!(
                    "invalid tool name `{value}`: {problem}; a tool name has 1 to 128 of A-Z, \
                     a-z, 0-9, `_`, `-` and `.` (MCP 2025-11-25, Tool Names): {rename}"
                )
            } else {
                format!(
                    "invalid tool name `{value}`: {problem}; Claude Desktop (which then drops \
                     every tool of the server), Claude Code, and the OpenAI and Copilot APIs \
                     accept only names matching `^[a-zA-Z0-9_-]{{1,64}}$`: {rename}, or opt \
                     into the MCP spec's wider rule (1 to 128 characters, dots allowed) with \
                     `#[mcp_tool(spec_name)]` on this tool or `#[mcp_tools(spec_names)]` on \
                     the server"
                )
            };
            cx.error_spanned_by(&name, message);
        }
        if seen.insert(value.clone(), ()).is_some() {
            cx.error_spanned_by(
                &name,
                format!(
                    "duplicate tool name `{value}`: tool names are unique within a server; \
                     rename one with `#[mcp_tool(name = \"...\")]`"
                ),
            );
        }
        let has_description = tool
            .attrs
            .description
            .as_ref()
            .is_some_and(|d| !d.value().trim().is_empty())
            || tool.doc.is_some();
        if !has_description {
            cx.error_spanned_by(
                &tool.method,
                format!(
                    "tool `{value}` has no description: the model chooses tools by it; add a \
                     doc comment (`/// Searches tickets by ...`) or \
                     `#[mcp_tool(description = \"...\")]`"
                ),
            );
        }
        if let (true, Some(text)) = (tool.is_read_only(), &tool.attrs.approval) {
            cx.error_spanned_by(
                text,
                "`approval` is for write tools: a `read_only` tool changes nothing, so it needs \
                 no human decision; remove it",
            );
        }
        if let (true, Some(true)) = (tool.is_read_only(), tool.attrs.requires_approval) {
            cx.error_spanned_by(
                &tool.method,
                "`requires_approval` is for write tools: a `read_only` tool changes nothing, so \
                 it needs no human decision; remove it",
            );
        }
        if let (true, Some(key)) = (tool.is_read_only(), &tool.attrs.idempotency_key) {
            cx.error_spanned_by(
                key,
                "`idempotency_key` is for write tools: a `read_only` tool changes nothing, so \
                 running it twice is safe; remove the key",
            );
        }
        if let Some(scopes) = &tool.attrs.scopes {
            if let Some(problem) = scope_problem(&scopes.value()) {
                cx.error_spanned_by(scopes, problem);
            }
        }
        if let Some(problem) = crate::shapes::return_type_problem(&tool.output, &value) {
            cx.error_spanned_by(&tool.output, problem);
        }
        for param in &tool.params {
            if let Some(shape) = not_an_object(param) {
                cx.error_spanned_by(
                    param,
                    format!(
                        "tool `{value}` takes {shape} as its arguments, and MCP sends a tool's \
                         arguments as a JSON object (MCP \"Tools\": `inputSchema` has an object \
                         root): put it in a named field of a struct that derives `Deserialize` \
                         and `JsonSchema` (`struct Args {{ value: ... }}`); to take any JSON \
                         object, use `serde_json::Value`"
                    ),
                );
            }
        }
    }
    cx.check()
}

/// What a parameter type is, when it can never be an object (so never the arguments, and no
/// extractor either): a scalar, a string, a sequence, a tuple. Seen from the type as
/// written; a type whose shape only schemars knows (an untagged enum of scalars) is refused
/// when the server is built.
fn not_an_object(ty: &syn::Type) -> Option<&'static str> {
    match ty {
        syn::Type::Group(group) => not_an_object(&group.elem),
        syn::Type::Paren(paren) => not_an_object(&paren.elem),
        syn::Type::Array(_) | syn::Type::Slice(_) => Some("an array"),
        syn::Type::Tuple(tuple) if tuple.elems.is_empty() => Some("`()` (JSON `null`)"),
        syn::Type::Tuple(_) => Some("a tuple (a JSON array)"),
        syn::Type::Reference(reference) => match &*reference.elem {
            syn::Type::Path(path) if path.path.is_ident("str") => Some("a string"),
            syn::Type::Slice(_) => Some("an array"),
            _ => None,
        },
        syn::Type::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last()?;
            Some(match last.ident.to_string().as_str() {
                "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64"
                | "i128" | "isize" | "f32" | "f64" => "a number",
                "bool" => "a boolean",
                "String" | "char" | "str" => "a string",
                "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "LinkedList" => "a sequence",
                _ => return None,
            })
        }
        _ => None,
    }
}

/// What is wrong with `scopes = "..."`, if anything: one or more scope tokens separated by
/// spaces, each of printable ASCII other than `"` and `\\` (RFC 6749 §3.3, `scope-token`),
/// as an access token's `scope` and a `WWW-Authenticate` challenge carry them.
fn scope_problem(scopes: &str) -> Option<String> {
    let fix = "`scopes` lists the OAuth scopes a caller needs, separated by spaces, each of \
               printable ASCII without `\"` or `\\` (RFC 6749 §3.3): \
               `scopes = \"tickets:read tickets:write\"`";
    if scopes.split(' ').all(str::is_empty) {
        return Some(format!("`scopes` is empty: {fix}"));
    }
    let token = |t: &str| {
        t.bytes()
            .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b))
    };
    scopes
        .split(' ')
        .filter(|t| !t.is_empty())
        .find(|t| !token(t))
        .map(|bad| format!("invalid scope `{bad}`: {fix}"))
}

/// Named blocks: the server-wide keys (`artifacts`, `services`, `include`) belong to the
/// main block, which implements `ToolSet`; a name is included once.
fn blocks(cx: &Ctxt, server: &Server) {
    if let Some(block) = &server.attrs.block {
        for (key, span) in &server.attrs.server_wide {
            cx.error_at(
                *span,
                format!(
                    "`{key}` is for the server's main `#[mcp_tools]` block (the one without \
                     `block = ...`), which serves every block: move it there; block `{}` only \
                     contributes its tools",
                    block.name()
                ),
            );
        }
    }
    let mut seen = HashMap::new();
    for name in &server.attrs.include {
        if seen.insert(name.name(), ()).is_some() {
            cx.error_spanned_by(
                &name.ident,
                format!("block `{}` is included twice: list it once", name.name()),
            );
        }
    }
}

/// What is wrong with tool name `name`, if anything: by default against the portable rule
/// `^[a-zA-Z0-9_-]{1,64}$` (what Claude Desktop, Claude Code and the OpenAI and Copilot APIs
/// accept); with `spec` against MCP 2025-11-25's 1 to 128 of `A-Z a-z 0-9 _ - .`. A name
/// longer than the host prefixes leave room for is not an error here but a finding of
/// `mcp_result::lint` (a proc macro cannot warn on stable Rust).
fn name_problem(name: &str, spec: bool) -> Option<String> {
    let max = if spec { 128 } else { 64 };
    let length = name.chars().count();
    if length == 0 {
        return Some("it is empty".to_owned());
    }
    if length > max {
        return Some(format!("it has {length} characters, more than {max}"));
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-' || (spec && c == '.');
    let mut bad: Vec<char> = Vec::new();
    for c in name.chars().filter(|c| !allowed(*c)) {
        if !bad.contains(&c) {
            bad.push(c);
        }
    }
    match bad.as_slice() {
        [] => None,
        [one] => Some(format!("`{}` is not allowed", one.escape_debug())),
        more => {
            let shown: Vec<String> = more
                .iter()
                .map(|c| format!("`{}`", c.escape_debug()))
                .collect();
            Some(format!("{} are not allowed", shown.join(", ")))
        }
    }
}
