fn main() {
    let _key = mcp_result::meta_key!("io.modelcontextprotocol/trace");
}
