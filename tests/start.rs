//! A tool definition the registry refuses (here an arguments type whose schema is not an
//! object) stops the server when it starts, over every way of serving, before any client
//! message: never a `-32603` answered to each request later. So does a byte sequence that
//! no derive sees (nested in a result, in the arguments), with its JSON Pointer.

use std::sync::Arc;

use mcp_result::{
    http::{Anonymous, HttpOptions},
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    Identity, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A ticket id: a newtype, so its schema is a string, not an object.
#[derive(Deserialize, JsonSchema)]
struct Id(#[allow(dead_code)] String);

/// Found.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    ok: bool,
}

#[derive(Clone)]
struct Broken;

#[mcp_tools]
impl Broken {
    /// Looks a ticket up.
    #[mcp_tool(read_only)]
    fn by_id(&self, _id: Id) -> Found {
        Found { ok: true }
    }
}

#[mcp_handler]
impl ServerHandler for Broken {}

const REFUSAL: &str = "tool `by_id`: the arguments type `Id` has a schema root of \
                       `type: \"string\"`, not an object; MCP sends a tool's arguments as a \
                       JSON object: put the value in a named field of a struct that derives \
                       `Deserialize` and `JsonSchema` (`struct Args { value: ... }`), or tag \
                       the enum (`#[serde(tag = \"kind\")]`); any JSON object is \
                       `serde_json::Value`";

#[tokio::test]
async fn serve_returns_the_refusal_before_any_message() {
    let (server_io, _client_io) = tokio::io::duplex(1 << 10);
    let stopped = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        mcp_result::serve(Broken, server_io),
    )
    .await
    .expect("serve returns at once, without waiting for a client")
    .unwrap_err();
    assert_eq!(stopped.to_string(), REFUSAL);
}

#[tokio::test]
async fn serve_http_returns_the_refusal_before_listening_is_used() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let stopped = mcp_result::http::serve_http(
        Broken,
        listener,
        Arc::new(Anonymous::new(Identity::new("local"))),
        HttpOptions::default(),
        std::future::pending(),
    )
    .await
    .unwrap_err();
    assert_eq!(stopped.to_string(), REFUSAL);
}

#[test]
fn the_http_router_refuses_to_be_built() {
    let built = std::panic::catch_unwind(|| {
        mcp_result::http::router(
            Broken,
            Arc::new(Anonymous::new(Identity::new("local"))),
            &HttpOptions::default(),
        )
    });
    let panic = built.expect_err("the router is not built");
    let message = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_default();
    assert_eq!(message, REFUSAL);
}

// ---------------------------------------------------------------------------------------
// Byte sequences no derive sees: refused when the server starts, naming the tool, the
// JSON Pointer and the way out.
// ---------------------------------------------------------------------------------------

/// A file, as a plain struct nested in a result: no derive of ours sees its field.
#[derive(Serialize, JsonSchema)]
struct File {
    name: String,
    data: Vec<u8>,
}

/// Files.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Files {
    files: Vec<File>,
    /// Small numbers, meant as numbers.
    #[mcp_result(bytes_as_numbers)]
    levels: Vec<u8>,
}

#[derive(Deserialize, JsonSchema)]
struct Upload {
    #[allow(dead_code)]
    name: String,
    #[allow(dead_code)]
    data: Vec<u8>,
}

#[derive(Clone)]
struct Nested;

#[mcp_tools]
impl Nested {
    /// Lists files.
    #[mcp_tool(read_only)]
    fn list_files(&self) -> Files {
        Files {
            files: vec![],
            levels: vec![],
        }
    }
}

#[mcp_handler]
impl ServerHandler for Nested {}

#[derive(Clone)]
struct Uploads;

#[mcp_tools]
impl Uploads {
    /// Uploads a file.
    #[mcp_tool(read_only)]
    fn upload(&self, _file: Upload) -> Found {
        Found { ok: true }
    }
}

#[mcp_handler]
impl ServerHandler for Uploads {}

/// `serve`'s refusal of `server`, which must come before any client message.
async fn refusal_of<S>(server: S) -> String
where
    S: mcp_result::ToolSet + ServerHandler,
{
    let (server_io, _client_io) = tokio::io::duplex(1 << 10);
    tokio::time::timeout(
        std::time::Duration::from_secs(5),
        mcp_result::serve(server, server_io),
    )
    .await
    .expect("serve returns at once")
    .unwrap_err()
    .to_string()
}

#[tokio::test]
async fn bytes_nested_in_a_result_stop_the_server_but_bytes_meant_as_numbers_pass() {
    assert_eq!(
        refusal_of(Nested).await,
        "tool `list_files`: its result holds a byte sequence at `/files/*/data` (`*`: any \
         item or key), which serde_json writes as an array of numbers, sent twice (in \
         `structuredContent` and in the JSON text): say what the bytes are: \
         `mcp_result::content::Image` or `Audio` (a media block), \
         `mcp_result::content::Payload::blob` (an artifact behind a `resource_link`), or a \
         base64 string (`#[serde(with = \"...\")]` with `#[schemars(with = \"String\")]` on \
         the field); if the bytes are small numbers meant as numbers, hold them in a field of \
         the result type marked `#[mcp_result(bytes_as_numbers)]`"
    );
}

#[tokio::test]
async fn bytes_in_the_arguments_stop_the_server() {
    assert_eq!(
        refusal_of(Uploads).await,
        "tool `upload`: its arguments hold a byte sequence at `/data` (`*`: any item or key), \
         which the model would be asked to write as an array of numbers: take a base64 string \
         instead (`#[serde(with = \"...\")]` with `#[schemars(with = \"String\")]` on the \
         field), or, if small numbers are meant, a wider integer type (`Vec<u16>`)"
    );
}
