use std::collections::BTreeMap;

use mcp_result::{mcp_tools, rmcp::ServerHandler, mcp_handler, Structured, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Literal text is fine on any shape")]
enum Outcome {
    Done { id: String },
    Skipped,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct Ids(Vec<String>);

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(transparent)]
struct Count {
    value: u64,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct Nothing;

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// An enum.
    #[mcp_tool(read_only)]
    fn outcome(&self) -> Outcome {
        Outcome::Done { id: "1".into() }
    }

    /// A newtype.
    #[mcp_tool(read_only)]
    fn ids(&self) -> Ids {
        Ids(vec![])
    }

    /// Transparent.
    #[mcp_tool(read_only)]
    fn count(&self) -> Count {
        Count { value: 1 }
    }

    /// A unit struct.
    #[mcp_tool(read_only)]
    fn nothing(&self) -> Nothing {
        let _ = Outcome::Skipped;
        Nothing
    }

    /// Standard types.
    #[mcp_tool(read_only)]
    fn map(&self) -> BTreeMap<String, Vec<u16>> {
        BTreeMap::new()
    }

    /// A foreign type.
    #[mcp_tool(read_only)]
    fn addr(&self) -> Structured<std::net::IpAddr> {
        Structured(std::net::Ipv4Addr::LOCALHOST.into())
    }

    /// Unit.
    #[mcp_tool(read_only)]
    fn unit(&self) {}
}

#[mcp_handler]
impl ServerHandler for Server {}

fn main() {}
