//! The guide's transactional keyed write (`docs/guide/06-identity-state.md`, "Transactional
//! writes: exactly once") served, not only compiled: the code between the markers is the
//! chapter's block word for word (the first test checks it), and the second serves it on
//! SQLite stores to rmcp's client: the same key twice is one row and one answer, another
//! key another row.

// The key argument is read by the framework, not by the tool.
#![allow(dead_code)]

use std::sync::Arc;

use mcp_result::{
    rmcp::{model::CallToolRequestParams, ServerHandler, ServiceExt},
    sql::{sqlx, SqlStores},
    State,
};
use serde_json::json;

// guide:begin
use mcp_result::{mcp_tools, ResultExt, ToolError, ToolResult, Tx, WriteReceipt};

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
struct NoteArgs {
    /// The note.
    body: String,
    /// The idempotency key: the same for every retry of one note.
    request_id: Option<String>,
}

/// A note was added.
#[derive(serde::Serialize, schemars::JsonSchema, ToolResult)]
struct Added {
    #[serde(flatten)]
    receipt: WriteReceipt,
}

#[derive(Clone)]
struct Desk;

#[mcp_tools]
impl Desk {
    /// Adds a note.
    #[mcp_tool(destructive = false, idempotency_key = "requestId", timeout_ms = 2000)]
    async fn add_note(&self, args: NoteArgs, tx: Tx) -> Result<Added, ToolError> {
        match tx.connection().await {
            Some(mut connection) => {
                mcp_result::sql::sqlx::query("INSERT INTO notes (body) VALUES ($1)")
                    .bind(&args.body)
                    .execute(&mut *connection)
                    .await
                    .internal()?;
            }
            None => { /* in-memory stores: keep the note elsewhere */ }
        }
        Ok(Added {
            receipt: WriteReceipt::succeeded(),
        })
    }
}
// guide:end

#[mcp_result::mcp_handler]
impl ServerHandler for Desk {}

#[test]
fn the_code_above_is_the_guides() {
    let chapter = include_str!("../docs/guide/06-identity-state.md");
    let from = chapter
        .find("### Transactional writes: exactly once")
        .unwrap();
    let start = chapter[from..].find("```rust\n").unwrap() + from + "```rust\n".len();
    let end = chapter[start..].find("\n```").unwrap() + start;
    let guide: Vec<&str> = chapter[start..end]
        .lines()
        .filter(|line| !line.starts_with("# ") && *line != "#")
        .collect();
    let this = include_str!("guide_keyed.rs");
    let begin = this.find("// guide:begin\n").unwrap() + "// guide:begin\n".len();
    let finish = this.find("\n// guide:end").unwrap();
    let here: Vec<&str> = this[begin..finish].lines().collect();
    assert_eq!(here, guide, "copy the chapter's block between the markers");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_guides_keyed_write_runs_once_per_key() {
    let dir = std::env::temp_dir().join(format!("mcp-result-guide-keyed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite:{}", dir.join("desk.db").display());
    let stores = SqlStores::connect(&url).await.unwrap();
    sqlx::query("CREATE TABLE notes (body TEXT NOT NULL)")
        .execute(stores.pool())
        .await
        .unwrap();
    let state = State::new()
        .with_idempotency_store(Arc::new(stores.idempotency()))
        .with_audit_sink(Arc::new(stores.audit()))
        .allow_mixed_stores();
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Err(error) = mcp_result::serve_with_state(Desk, server_io, state).await {
            panic!("the guide's server does not start: {error}");
        }
    });
    let client = ().serve(client_io).await.unwrap();
    let add = |key: &str| {
        CallToolRequestParams::new("add_note").with_arguments(
            json!({"body": "from the guide", "requestId": key})
                .as_object()
                .unwrap()
                .clone(),
        )
    };
    let first = client.call_tool(add("k-1")).await.unwrap();
    assert_eq!(first.is_error, Some(false), "{first:?}");
    let again = client.call_tool(add("k-1")).await.unwrap();
    assert_eq!(again.structured_content, first.structured_content);
    let rows = |stores: &SqlStores| {
        let pool = stores.pool().clone();
        async move {
            sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM notes")
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    assert_eq!(rows(&stores).await, 1);
    let other = client.call_tool(add("k-2")).await.unwrap();
    assert_eq!(other.is_error, Some(false), "{other:?}");
    assert_eq!(rows(&stores).await, 2);
    let structured = first.structured_content.unwrap();
    assert_eq!(structured["status"], "succeeded");
    assert_eq!(structured["retrySafe"], true);
    client.cancel().await.unwrap();
    stores.close().await;
    let _ = std::fs::remove_dir_all(dir);
}
