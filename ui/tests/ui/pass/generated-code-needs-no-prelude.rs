//! The generated code names everything by absolute path: it compiles in a module where the
//! prelude's names mean something else (the serde_derive `test_gen` habit).
#![allow(dead_code, non_camel_case_types)]

mod shadowed {
    struct Result;
    struct Ok;
    struct Err;
    struct Option;
    struct Some;
    struct None;
    struct Box;
    struct Vec;
    struct String;
    struct Default;
    struct Send;
    struct Sync;
    struct Sized;
    trait Clone {}
    trait Into {}
    trait From {}

    use mcp_result::{mcp_tools, rmcp::ServerHandler, mcp_handler, AuditEventId, Status};

    #[derive(::serde::Serialize, ::schemars::JsonSchema, mcp_result::ToolResult)]
    #[serde(rename_all = "camelCase")]
    #[tool_result(summary = "Saved {name}", summary_priority = 0.8)]
    pub struct Saved {
        name: ::std::string::String,
        status: Status,
        retry_safe: bool,
        audit_event_id: AuditEventId,
        link: mcp_result::content::Artifact,
        #[secret]
        #[serde(skip)]
        token: mcp_result::Secret<::std::string::String>,
    }

    #[derive(::serde::Deserialize, ::schemars::JsonSchema)]
    pub struct Args {
        name: ::std::string::String,
    }

    #[derive(Clone)]
    pub struct Server;

    #[mcp_tools]
    impl Server {
        /// Save.
        #[mcp_tool(timeout_ms = 100)]
        async fn save(&self, args: Args) -> ::core::result::Result<Saved, mcp_result::ToolError> {
            ::core::result::Result::Ok(Saved {
                name: args.name,
                status: Status::Succeeded,
                retry_safe: false,
                audit_event_id: AuditEventId::new("a"),
                link: mcp_result::content::Artifact::new("https://x.example/a", "a"),
                token: mcp_result::Secret::new(::std::string::String::new()),
            })
        }

        /// Count.
        #[mcp_tool(read_only)]
        fn count(&self) -> ::std::vec::Vec<u16> {
            ::std::vec::Vec::new()
        }
    }

    #[mcp_handler]
    impl ServerHandler for Server {}

    // A generic server of two blocks, with an rmcp router beside them.
    pub trait Store:
        ::core::clone::Clone + ::core::marker::Send + ::core::marker::Sync + 'static
    {
    }

    #[derive(Clone)]
    pub struct Generic<Db: Store> {
        db: Db,
    }

    #[mcp_tools(include(more))]
    impl<Db: Store> Generic<Db> {
        /// Look.
        #[mcp_tool(read_only)]
        fn look(&self, args: Args) -> ::std::vec::Vec<u16> {
            let _ = (&self.db, args.name);
            ::std::vec::Vec::new()
        }
    }

    #[mcp_tools(block = more)]
    impl<Db: Store> Generic<Db> {
        /// More.
        #[mcp_tool(read_only)]
        async fn more(&self) -> bool {
            true
        }

        fn legacy() -> mcp_result::rmcp::handler::server::router::tool::ToolRouter<Self> {
            mcp_result::rmcp::handler::server::router::tool::ToolRouter::new()
        }
    }

    #[mcp_handler(rmcp_router = Self::legacy())]
    impl<Db: Store> ServerHandler for Generic<Db> {}
}

fn main() {}
