#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod guide;

pub use mcp_result_core::*;
pub use mcp_result_derive::{mcp_handler, mcp_tool, mcp_tools, Redact, ToolResult};
