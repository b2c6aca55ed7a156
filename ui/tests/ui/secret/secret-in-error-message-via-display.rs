use mcp_result::{Secret, ToolError};

fn refuse(token: &Secret<String>) -> ToolError {
    ToolError::internal_logged(token)
}

fn main() {
    let _ = refuse(&Secret::new("t".to_owned()));
}
