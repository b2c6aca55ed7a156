#![doc = include_str!("../README.md")]

pub use mcp_result_core::*;
pub use mcp_result_derive::{mcp_handler, mcp_tool, mcp_tools, Redact, ToolResult};
