//! A crate that re-exports mcp-result names it with `crate = "..."`: every path the macros
//! emit goes through that path (`#[mcp_result(crate = "...")]` on the derive,
//! `#[mcp_tools(crate = "...")]`, `#[mcp_handler(crate = "...")]`).

extern crate mcp_result as renamed;

/// What a framework built on mcp-result offers its users.
mod framework {
    pub use ::mcp_result as results;
}

mod through_a_module {
    use crate::framework::results::{self, AuditEventId, Secret, Status};

    #[derive(::serde::Serialize, ::schemars::JsonSchema, results::ToolResult)]
    #[mcp_result(crate = "crate::framework::results")]
    #[serde(rename_all = "camelCase")]
    #[tool_result(summary = "Saved {name}", summary_audience = "user")]
    pub struct Saved {
        name: String,
        status: Status,
        retry_safe: bool,
        audit_event_id: AuditEventId,
        external_id: Option<String>,
        #[secret]
        #[serde(skip)]
        token: Secret<String>,
    }

    #[derive(::serde::Deserialize, ::schemars::JsonSchema)]
    pub struct Args {
        name: String,
    }

    #[derive(Clone)]
    pub struct Server;

    #[results::mcp_tools(crate = "crate::framework::results")]
    impl Server {
        /// Saves.
        #[mcp_tool(destructive)]
        async fn save(&self, args: Args) -> Result<Saved, results::ToolError> {
            Ok(Saved {
                name: args.name,
                status: Status::Succeeded,
                retry_safe: false,
                audit_event_id: AuditEventId::new("a"),
                external_id: None,
                token: Secret::new(String::new()),
            })
        }
    }

    #[results::mcp_handler(crate = "crate::framework::results")]
    impl results::rmcp::ServerHandler for Server {}
}

mod through_extern_crate {
    #[derive(::serde::Serialize, ::schemars::JsonSchema, renamed::ToolResult)]
    #[mcp_result(crate = "::renamed")]
    pub struct Count {
        total: u32,
    }

    #[derive(Clone)]
    pub struct Server;

    #[renamed::mcp_tools(crate = "::renamed")]
    impl Server {
        /// Counts.
        #[mcp_tool(read_only)]
        fn count(&self) -> Count {
            Count { total: 0 }
        }
    }

    #[renamed::mcp_handler(crate = "::renamed")]
    impl renamed::rmcp::ServerHandler for Server {}
}

fn main() {
    let _ = (through_a_module::Server, through_extern_crate::Server);
}
