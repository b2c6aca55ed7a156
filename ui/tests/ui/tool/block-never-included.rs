use mcp_result::mcp_tools;

#[derive(Clone)]
struct Desk;

#[mcp_tools]
impl Desk {
    /// Lists tickets.
    #[mcp_tool(read_only)]
    fn tickets(&self) -> Vec<String> {
        Vec::new()
    }
}

// No `include(billing)` on the main block: these tools would never be served.
#[mcp_tools(block = billing)]
impl Desk {
    /// Lists invoices.
    #[mcp_tool(read_only)]
    fn invoices(&self) -> Vec<u32> {
        Vec::new()
    }
}

fn main() {}
