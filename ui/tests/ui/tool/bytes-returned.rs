// A tool that returns bytes as they are (`Vec<u8>`, through `Result` or `Option` too): serde
// would send an array of numbers the summary only counts; each return type is reported at the
// type, with the ways out.
use mcp_result::{mcp_tools, ToolError};

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Reads a file.
    #[mcp_tool(read_only)]
    fn read(&self) -> Vec<u8> {
        b"hello".to_vec()
    }

    /// Reads a file, or fails.
    #[mcp_tool(read_only)]
    fn try_read(&self) -> Result<Option<Vec<u8>>, ToolError> {
        Ok(None)
    }
}

fn main() {}
