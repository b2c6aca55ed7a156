//! The types Rust authors write every day, as tools that every client reads right: 64-bit
//! ids past 2^53 as decimal strings, bytes as an image block instead of a number array,
//! free-form JSON arguments, a tagged-enum command, optional arguments, a nested secret.
//!
//! ```console
//! npx @modelcontextprotocol/inspector cargo run --example shapes
//! ```
//!
//! `tests/shapes.rs` drives it with the TypeScript and Python SDK clients.

use std::collections::BTreeMap;

use mcp_result::{
    content::Image, mcp_handler, mcp_tools, rmcp::ServerHandler, DecimalString, Redact, Secret,
    ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An order, found by its 64-bit id.
#[derive(Serialize, Deserialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Order {id}: {total_cents} cents")]
pub struct Order {
    /// The order's id: any `u64`, sent as its decimal digits.
    #[serde(with = "DecimalString")]
    pub id: u64,
    /// A count that stays far below 2^53: a plain number.
    pub total_cents: u64,
}

#[derive(Deserialize, JsonSchema)]
pub struct OrderArgs {
    /// The order's id, as its decimal digits.
    #[serde(with = "DecimalString")]
    pub id: u64,
}

/// A count that may not fit: a plain `u64` the server checks before it sends it.
#[derive(Serialize, JsonSchema, ToolResult)]
pub struct Counter {
    pub value: u64,
}

#[derive(Deserialize, JsonSchema)]
pub struct CounterArgs {
    pub value: u64,
}

/// A rendered badge.
#[derive(Serialize, JsonSchema, ToolResult)]
pub struct Badge {
    pub label: String,
    /// The picture, as an image block (never as numbers in the model's context).
    pub picture: Image,
}

#[derive(Deserialize, JsonSchema)]
pub struct BadgeArgs {
    pub label: String,
}

/// What a free-form call received.
#[derive(Serialize, JsonSchema, ToolResult)]
pub struct Echo {
    /// The names of the arguments, sorted.
    pub keys: Vec<String>,
}

/// A ticket command, internally tagged by `action`.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Command {
    /// Open a ticket.
    Open { title: String },
    /// Close a ticket, saying why.
    Close { id: String, reason: Option<String> },
}

/// A setting, adjacently tagged.
#[derive(Deserialize, JsonSchema)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Setting {
    Limit(u32),
    Retries(u32),
}

/// The arguments of a listing, wrapped in a newtype of their own.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct ListArgs(pub ListFilter);

#[derive(Deserialize, JsonSchema)]
pub struct ListFilter {
    /// How many to list.
    pub limit: u32,
}

/// What a command, a setting or a listing did.
#[derive(Serialize, JsonSchema, ToolResult)]
pub struct Done {
    pub what: String,
}

/// Upstream credentials, two levels down.
#[derive(Serialize, JsonSchema, Redact)]
pub struct Credentials {
    pub user: String,
    #[secret]
    #[serde(skip)]
    pub token: Secret<String>,
}

#[derive(Serialize, JsonSchema, Redact)]
pub struct Upstream {
    pub name: String,
    pub credentials: Option<Credentials>,
}

/// The upstreams a server talks to.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
pub struct Upstreams {
    pub by_region: BTreeMap<String, Vec<Upstream>>,
    pub redaction_applied: bool,
}

#[derive(Clone)]
pub struct Shapes;

#[mcp_tools]
impl Shapes {
    /// Look an order up by its id (a decimal string: ids pass 2^53).
    #[mcp_tool(read_only)]
    async fn get_order(&self, args: OrderArgs) -> Result<Order, ToolError> {
        Ok(Order {
            id: args.id,
            total_cents: 1250,
        })
    }

    /// Echo a count back as a plain number (refused past 2^53 - 1: it would arrive rounded).
    #[mcp_tool(read_only)]
    async fn count(&self, args: CounterArgs) -> Result<Counter, ToolError> {
        Ok(Counter {
            value: args.value.saturating_mul(2),
        })
    }

    /// Render a badge for a label.
    #[mcp_tool(read_only)]
    async fn badge(&self, args: BadgeArgs) -> Result<Badge, ToolError> {
        // A 1x1 PNG; a real server renders one.
        const PNG: &[u8] = &[
            0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
        ];
        Ok(Badge {
            label: args.label,
            picture: Image::new(PNG, "image/png"),
        })
    }

    /// Take any JSON object and name its keys.
    #[mcp_tool(read_only)]
    async fn echo(&self, args: Value) -> Result<Echo, ToolError> {
        let mut keys: Vec<String> = args
            .as_object()
            .map(|object| object.keys().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        Ok(Echo { keys })
    }

    /// Run a ticket command: `open` with a title, or `close` with an id.
    #[mcp_tool(read_only)]
    async fn ticket(&self, command: Command) -> Result<Done, ToolError> {
        Ok(Done {
            what: match command {
                Command::Open { title } => format!("opened {title}"),
                Command::Close { id, reason } => {
                    format!("closed {id} ({})", reason.as_deref().unwrap_or("no reason"))
                }
            },
        })
    }

    /// Change a setting.
    #[mcp_tool(read_only)]
    async fn set(&self, setting: Setting) -> Result<Done, ToolError> {
        Ok(Done {
            what: match setting {
                Setting::Limit(limit) => format!("limit {limit}"),
                Setting::Retries(retries) => format!("retries {retries}"),
            },
        })
    }

    /// List things, up to a limit.
    #[mcp_tool(read_only)]
    async fn list(&self, args: ListArgs) -> Result<Done, ToolError> {
        Ok(Done {
            what: format!("listed {}", args.0.limit),
        })
    }

    /// Show the status, optionally of one ticket.
    #[mcp_tool(read_only)]
    async fn status(&self, args: Option<ListFilter>) -> Result<Done, ToolError> {
        Ok(Done {
            what: match args {
                Some(filter) => format!("status of {}", filter.limit),
                None => "status of everything".to_owned(),
            },
        })
    }

    /// Name the upstreams, their credentials withheld.
    #[mcp_tool(read_only)]
    async fn upstreams(&self) -> Result<Upstreams, ToolError> {
        let credentials = Credentials {
            user: "svc".into(),
            token: Secret::new("tok-123".into()),
        };
        let upstream = Upstream {
            name: "db1".into(),
            credentials: Some(credentials),
        };
        Ok(Upstreams {
            by_region: BTreeMap::from([("eu".to_owned(), vec![upstream])]),
            redaction_applied: false,
        })
    }
}

#[mcp_handler]
impl ServerHandler for Shapes {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    mcp_result::serve_stdio(Shapes).await
}
