//! The nine tools, with the reference's names, titles, descriptions, annotations and
//! argument shapes, and the graph as a resource, `memory://knowledge-graph`, that a client
//! may subscribe to (the framework serves the subscriptions; each write tells them).

use mcp_result::{
    approval::Approval,
    mcp_handler, mcp_tools,
    rmcp::{
        model::{
            ListResourcesResult, PaginatedRequestParams, ReadResourceRequestParams,
            ReadResourceResponse, ReadResourceResult, Resource, ResourceContents,
        },
        service::RequestContext,
        ErrorData, RoleServer, ServerHandler,
    },
    Subscriptions, ToolError, ToolResult, WriteReceipt,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::graph::{Entity, Graph, GraphFile, Relation};

const GRAPH_URI: &str = "memory://knowledge-graph";

// ---------------------------------------------------------------------------------------
// Arguments: the reference's `inputSchema`s
// ---------------------------------------------------------------------------------------

#[derive(Deserialize, JsonSchema)]
pub struct EntitiesArgs {
    pub entities: Vec<Entity>,
}

#[derive(Deserialize, JsonSchema)]
pub struct RelationsArgs {
    pub relations: Vec<Relation>,
}

#[derive(Deserialize, JsonSchema)]
pub struct ObservationsArgs {
    pub observations: Vec<NewObservations>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewObservations {
    /// The name of the entity to add the observations to
    pub entity_name: String,
    /// An array of observation contents to add
    pub contents: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntityNamesArgs {
    /// An array of entity names to delete
    pub entity_names: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct DeletionsArgs {
    pub deletions: Vec<Deletion>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Deletion {
    /// The name of the entity containing the observations
    pub entity_name: String,
    /// An array of observations to delete
    pub observations: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct DeleteRelationsArgs {
    /// An array of relations to delete
    pub relations: Vec<Relation>,
}

#[derive(Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// The search query to match against entity names, types, and observation content
    pub query: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct NamesArgs {
    /// An array of entity names to retrieve
    pub names: Vec<String>,
}

// ---------------------------------------------------------------------------------------
// Results: the reference's `structuredContent`, and a write's receipt beside it
// ---------------------------------------------------------------------------------------

/// The entities created (those whose name was new).
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Entities created: {entities}")]
pub struct EntitiesCreated {
    pub entities: Vec<Entity>,
    #[serde(flatten)]
    pub receipt: WriteReceipt,
}

/// The relations created (those that were new).
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Relations created: {relations}")]
pub struct RelationsCreated {
    pub relations: Vec<Relation>,
    #[serde(flatten)]
    pub receipt: WriteReceipt,
}

/// The observations added, per entity.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Observations added to entities: {results}")]
pub struct ObservationsAdded {
    pub results: Vec<Added>,
    #[serde(flatten)]
    pub receipt: WriteReceipt,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Added {
    pub entity_name: String,
    pub added_observations: Vec<String>,
}

/// What was deleted.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "{message}")]
pub struct Deleted {
    pub success: bool,
    pub message: String,
    #[serde(flatten)]
    pub receipt: WriteReceipt,
}

impl Deleted {
    fn said(message: &str, approval_id: Option<String>) -> Self {
        // The approval asked from the tool's body: the framework does not fill it in.
        let receipt = WriteReceipt {
            approval_id,
            ..WriteReceipt::succeeded()
        };
        Self {
            success: true,
            message: message.to_owned(),
            receipt,
        }
    }
}

// ---------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------

#[derive(Clone)]
pub struct Memory {
    file: GraphFile,
}

impl Memory {
    pub fn new(file: GraphFile) -> Self {
        Self { file }
    }

    /// Deletes what `delete` deletes, once a person approved it (asked only when it deletes
    /// something, naming what): the file is read, the question asked, and the delete made
    /// only if it still deletes exactly what was approved. The approval's id, if one was
    /// asked for.
    async fn delete(
        &self,
        approval: &mut Approval,
        subscriptions: &Subscriptions,
        delete: impl Fn(&mut Graph) + Send + 'static,
    ) -> Result<Option<String>, ToolError> {
        let before = self.file.read().await?;
        let mut after = before.clone();
        delete(&mut after);
        let question = before.deleted_in(&after);
        let approved = match &question {
            Some(text) => Some(approval.require(text).await?.approval_id),
            None => None,
        };
        self.file
            .change(move |graph| {
                let before = graph.clone();
                delete(graph);
                if before.deleted_in(graph) == question {
                    return Ok(());
                }
                Err(ToolError::conflict(
                    "The graph changed while the delete waited for its approval; nothing was \
                     deleted. Call again.",
                ))
            })
            .await?;
        subscriptions.resource_updated(GRAPH_URI);
        Ok(approved)
    }
}

#[mcp_tools]
impl Memory {
    /// Create multiple new entities in the knowledge graph
    #[mcp_tool(title = "Create Entities", destructive = false, open_world = false)]
    async fn create_entities(
        &self,
        args: EntitiesArgs,
        subscriptions: Subscriptions,
    ) -> Result<EntitiesCreated, ToolError> {
        let entities = (self.file)
            .change(|graph| Ok(graph.create_entities(args.entities)))
            .await?;
        subscriptions.resource_updated(GRAPH_URI);
        let receipt = WriteReceipt::succeeded();
        Ok(EntitiesCreated { entities, receipt })
    }

    /// Create multiple new relations between entities in the knowledge graph. Relations should be in active voice
    #[mcp_tool(title = "Create Relations", destructive = false, open_world = false)]
    async fn create_relations(
        &self,
        args: RelationsArgs,
        subscriptions: Subscriptions,
    ) -> Result<RelationsCreated, ToolError> {
        let relations = (self.file)
            .change(|graph| Ok(graph.create_relations(args.relations)))
            .await?;
        subscriptions.resource_updated(GRAPH_URI);
        let receipt = WriteReceipt::succeeded();
        Ok(RelationsCreated { relations, receipt })
    }

    /// Add new observations to existing entities in the knowledge graph
    #[mcp_tool(title = "Add Observations", destructive = false, open_world = false)]
    async fn add_observations(
        &self,
        args: ObservationsArgs,
        subscriptions: Subscriptions,
    ) -> Result<ObservationsAdded, ToolError> {
        let additions = (args.observations.into_iter())
            .map(|o| (o.entity_name, o.contents))
            .collect();
        let added = (self.file)
            .change(|graph| {
                // Nothing is written when one entity is missing.
                graph.add_observations(additions).map_err(|name| {
                    let missing = format!("Entity with name {name} not found");
                    ToolError::not_found(missing).with_retry_safe(true)
                })
            })
            .await?;
        subscriptions.resource_updated(GRAPH_URI);
        let results = (added.into_iter())
            .map(|(entity_name, added_observations)| Added {
                entity_name,
                added_observations,
            })
            .collect();
        let receipt = WriteReceipt::succeeded();
        Ok(ObservationsAdded { results, receipt })
    }

    /// Delete multiple entities and their associated relations from the knowledge graph
    #[mcp_tool(title = "Delete Entities", idempotent, open_world = false)]
    async fn delete_entities(
        &self,
        args: EntityNamesArgs,
        mut approval: Approval,
        subscriptions: Subscriptions,
    ) -> Result<Deleted, ToolError> {
        let names = args.entity_names;
        let delete = move |graph: &mut Graph| graph.delete_entities(&names);
        let approved = self.delete(&mut approval, &subscriptions, delete).await?;
        Ok(Deleted::said("Entities deleted successfully", approved))
    }

    /// Delete specific observations from entities in the knowledge graph
    #[mcp_tool(title = "Delete Observations", idempotent, open_world = false)]
    async fn delete_observations(
        &self,
        args: DeletionsArgs,
        mut approval: Approval,
        subscriptions: Subscriptions,
    ) -> Result<Deleted, ToolError> {
        let deletions: Vec<(String, Vec<String>)> = (args.deletions.into_iter())
            .map(|d| (d.entity_name, d.observations))
            .collect();
        let delete = move |graph: &mut Graph| graph.delete_observations(&deletions);
        let approved = self.delete(&mut approval, &subscriptions, delete).await?;
        Ok(Deleted::said("Observations deleted successfully", approved))
    }

    /// Delete multiple relations from the knowledge graph
    #[mcp_tool(title = "Delete Relations", idempotent, open_world = false)]
    async fn delete_relations(
        &self,
        args: DeleteRelationsArgs,
        mut approval: Approval,
        subscriptions: Subscriptions,
    ) -> Result<Deleted, ToolError> {
        let relations = args.relations;
        let delete = move |graph: &mut Graph| graph.delete_relations(&relations);
        let approved = self.delete(&mut approval, &subscriptions, delete).await?;
        Ok(Deleted::said("Relations deleted successfully", approved))
    }

    /// Read the entire knowledge graph
    #[mcp_tool(title = "Read Graph", read_only, open_world = false)]
    async fn read_graph(&self) -> Result<Graph, ToolError> {
        self.file.read().await
    }

    /// Search for nodes in the knowledge graph based on a query
    #[mcp_tool(title = "Search Nodes", read_only, open_world = false)]
    async fn search_nodes(&self, args: SearchArgs) -> Result<Graph, ToolError> {
        Ok(self.file.read().await?.search(&args.query))
    }

    /// Open specific nodes in the knowledge graph by their names
    #[mcp_tool(title = "Open Nodes", read_only, open_world = false)]
    async fn open_nodes(&self, args: NamesArgs) -> Result<Graph, ToolError> {
        Ok(self.file.read().await?.open(&args.names))
    }
}

// ---------------------------------------------------------------------------------------
// The graph as a resource, beside the framework's
// ---------------------------------------------------------------------------------------

#[mcp_handler]
impl ServerHandler for Memory {
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let graph = Resource::new(GRAPH_URI, "knowledge-graph")
            .with_title("Knowledge Graph")
            .with_description("The full knowledge graph with all entities and relations")
            .with_mime_type("application/json");
        Ok(ListResourcesResult::with_all_items(vec![graph]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if mcp_result::handler::is_framework_uri(&request.uri) {
            return mcp_result::handler::read_resource(self, request, context).await;
        }
        if request.uri != GRAPH_URI {
            let unknown = format!("Resource {} not found", request.uri);
            return Err(ErrorData::resource_not_found(unknown, None));
        }
        // A file it cannot read: "Internal error (correlation id …).", the cause logged.
        let graph = (self.file.read().await)
            .map_err(|error| ErrorData::internal_error(error.message.clone(), None))?;
        let text = serde_json::to_string_pretty(&graph)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        let contents = ResourceContents::text(text, GRAPH_URI).with_mime_type("application/json");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}
