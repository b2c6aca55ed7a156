use mcp_result::{Secret, ToolError};

fn refuse(token: &Secret<String>) -> ToolError {
    ToolError::conflict(format!("token {} was revoked", token))
}

fn main() {
    let _ = refuse(&Secret::new("t".to_owned()));
}
