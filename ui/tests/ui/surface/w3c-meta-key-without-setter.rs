fn main() {
    let _key = mcp_result::meta_key!("traceparent");
}
