//! Beside the framework: a server written the way the guide teaches that serves its own
//! prompts and resources and declares its own capabilities, next to the framework's tools and
//! artifact reads, by writing those `ServerHandler` methods itself and handing the rest to
//! `mcp_result::handler`. Served over rmcp's in-memory duplex transport to rmcp's client.

use std::sync::Arc;

use mcp_result::{
    content::Payload,
    mcp_handler, mcp_tools,
    rmcp::{
        model::{
            ListPromptsResult, ListResourcesResult, PaginatedRequestParams, Prompt,
            PromptsCapability, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
            Resource, ResourceContents, ServerConfig,
        },
        service::RequestContext,
        ErrorData, RoleServer, ServerHandler, ServiceExt,
    },
    store::{ArtifactAccess, ArtifactLimits, ArtifactStore, MemoryStore},
    ToolResult,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

/// An export, behind a `resource_link`.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Exported.")]
struct Export {
    csv: Payload,
}

#[derive(Clone)]
struct Desk {
    store: Arc<MemoryStore>,
}

impl ArtifactAccess for Desk {
    fn artifact_store(&self) -> &dyn ArtifactStore {
        &*self.store
    }
}

#[mcp_tools(artifacts)]
impl Desk {
    /// Exports the tickets as CSV.
    #[mcp_tool(read_only)]
    fn export(&self) -> Export {
        Export {
            csv: Payload::text("tickets.csv", "text/csv", "id\nT-1\n".repeat(2000)),
        }
    }
}

#[mcp_handler]
impl ServerHandler for Desk {
    /// The framework's answer (tools, resources), with prompts added.
    fn get_info(&self) -> ServerConfig {
        let mut info = mcp_result::handler::server_info::<Self>("desk", "1.0.0");
        info.capabilities.prompts = Some(PromptsCapability::default());
        info
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "triage",
            Some("Triage a ticket."),
            None,
        )]))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new(
            "desk://handbook",
            "handbook",
        )]))
    }

    /// The server's own resources; the framework's URIs (artifacts, approvals) handed on.
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if mcp_result::handler::is_framework_uri(&request.uri) {
            return mcp_result::handler::read_resource(self, request, context).await;
        }
        match request.uri.as_str() {
            "desk://handbook" => Ok(ReadResourceResult::new(vec![ResourceContents::text(
                "Be kind.",
                "desk://handbook",
            )])
            .into()),
            _ => Err(ErrorData::resource_not_found("no such resource", None)),
        }
    }
}

#[tokio::test]
async fn own_prompts_and_resources_beside_the_framework_s_tools_and_artifacts() {
    let desk = Desk {
        store: Arc::new(MemoryStore::with_limits(ArtifactLimits::default())),
    };
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = desk.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("initialize");
    let capabilities =
        serde_json::to_value(&client.peer_info().expect("server info").capabilities).unwrap();
    for capability in ["tools", "resources", "prompts"] {
        assert!(capabilities.get(capability).is_some(), "{capabilities}");
    }
    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts[0].name, "triage");
    let handbook = client
        .read_resource(ReadResourceRequestParams::new("desk://handbook"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&handbook).unwrap()["contents"][0]["text"],
        "Be kind."
    );
    // The framework's artifact reads still work beside them.
    let export = client
        .call_tool(mcp_result::rmcp::model::CallToolRequestParams::new(
            "export",
        ))
        .await
        .unwrap();
    let uri = export.structured_content.unwrap()["csv"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(mcp_result::handler::is_framework_uri(&uri), "{uri}");
    let artifact = client
        .read_resource(ReadResourceRequestParams::new(uri.clone()))
        .await
        .unwrap();
    let contents: Value = serde_json::to_value(&artifact).unwrap()["contents"][0].clone();
    assert_eq!(contents["uri"], json!(uri));
    assert!(contents["text"].as_str().unwrap().starts_with("id\nT-1\n"));
    client.cancel().await.unwrap();
}
