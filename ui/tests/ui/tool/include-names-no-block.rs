use mcp_result::mcp_tools;

#[derive(Clone)]
struct Desk;

#[mcp_tools(include(billing, biling))]
impl Desk {
    /// Lists tickets.
    #[mcp_tool(read_only)]
    fn tickets(&self) -> Vec<String> {
        Vec::new()
    }
}

#[mcp_tools(block = billing)]
impl Desk {
    /// Lists invoices.
    #[mcp_tool(read_only)]
    fn invoices(&self) -> Vec<u32> {
        Vec::new()
    }
}

fn main() {}
