//! Rules of `#[mcp_tools]`: tool names (MCP 2025-11-25 "Tool Names"), unique names,
//! descriptions. (`read_only` against `destructive` is an attribute conflict, reported
//! while parsing.)

use std::collections::HashMap;

use super::ast::Server;
use crate::ctxt::Ctxt;

pub fn validate(server: &Server) -> syn::Result<()> {
    let cx = Ctxt::default();
    let mut seen: HashMap<String, ()> = HashMap::new();
    for tool in &server.tools {
        let name = tool.name();
        let value = name.value();
        if value.is_empty() || value.len() > 128 {
            cx.error_spanned_by(
                &name,
                format!(
                    "invalid tool name `{value}`: a tool name has 1 to 128 characters \
                     (MCP 2025-11-25, Tool Names); it has {}",
                    value.len()
                ),
            );
        } else if let Some(bad) = value
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        {
            cx.error_spanned_by(
                &name,
                format!(
                    "invalid tool name `{value}`: `{bad}` is not allowed; use only A-Z, a-z, \
                     0-9, `_`, `-` and `.` (MCP 2025-11-25, Tool Names)"
                ),
            );
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
    }
    cx.check()
}
