pub use mcp_result_core::*;
