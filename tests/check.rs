//! mcp-result-check against real servers (in progress).
