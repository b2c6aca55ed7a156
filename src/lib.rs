#![doc = include_str!("../README.md")]

pub use mcp_result_core::*;
pub use mcp_result_derive::{mcp_tool, mcp_tools, tool_handler, ToolResult};

/// A `_meta` key checked at compile time: `meta_key!("com.example/cache")` is a
/// [`MetaKey`]; a malformed or reserved literal (`dev.mcp/x`, `traceparent`) stops
/// compilation with the rule it breaks (MCP 2025-11-25 "General fields: `_meta`").
///
/// ```
/// let key = mcp_result::meta_key!("com.example/cache-hint");
/// assert_eq!(key.as_str(), "com.example/cache-hint");
/// ```
#[macro_export]
macro_rules! meta_key {
    ($key:literal) => {{
        const KEY: $crate::MetaKey = $crate::MetaKey::from_static($key);
        KEY
    }};
}
