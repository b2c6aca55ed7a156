use mcp_result::{mcp_tools, rmcp::ServerHandler, mcp_handler, AuditEventId, Status, ToolError, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

/// Rust field names already in camelCase.
#[allow(non_snake_case)]
#[derive(Serialize, JsonSchema, ToolResult)]
struct CamelFields {
    status: Status,
    retrySafe: bool,
    auditEventId: AuditEventId,
}

/// snake_case Rust names renamed by `rename_all`.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Renamed {
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
}

/// Explicit per-field renames onto the contract names.
#[derive(Serialize, JsonSchema, ToolResult)]
struct PerField {
    #[serde(rename = "status")]
    outcome: Status,
    #[serde(rename = "retrySafe")]
    may_retry: bool,
    #[serde(rename = "auditEventId")]
    audit: AuditEventId,
}

/// With every optional companion.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct WithCompanions {
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
    external_id: Option<String>,
    requires_human_review: bool,
    redaction_applied: bool,
}

/// A read-only result may use the contract names with any type.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct ReadOnly {
    status: String,
    #[serde(skip)]
    retry_safe: bool,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// One.
    #[mcp_tool]
    fn one(&self) -> CamelFields {
        CamelFields { status: Status::Succeeded, retrySafe: true, auditEventId: AuditEventId::new("a") }
    }

    /// Two.
    #[mcp_tool(destructive)]
    async fn two(&self) -> Result<Renamed, ToolError> {
        Err(ToolError::conflict("x"))
    }

    /// Three.
    #[mcp_tool(idempotent)]
    fn three(&self) -> PerField {
        PerField { outcome: Status::Partial, may_retry: false, audit: AuditEventId::new("b") }
    }

    /// Four.
    #[mcp_tool(destructive = false, open_world = false)]
    fn four(&self) -> WithCompanions {
        WithCompanions {
            status: Status::Blocked,
            retry_safe: false,
            audit_event_id: AuditEventId::new("c"),
            external_id: None,
            requires_human_review: true,
            redaction_applied: false,
        }
    }

    /// Five.
    #[mcp_tool(read_only)]
    fn five(&self) -> ReadOnly {
        ReadOnly { status: "fine".into(), retry_safe: false }
    }
}

#[mcp_handler]
impl ServerHandler for Server {}

fn main() {}
