use mcp_result::ToolResult;

#[derive(ToolResult)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
