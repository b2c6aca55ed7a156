//! The result surface beyond text (issue: artifacts, binary content, annotations, `_meta`),
//! over a real rmcp transport (a duplex stream between an rmcp server and rmcp's client):
//! the exact JSON of every block type and its annotations, payload spilling, and
//! `resources/read` with its access check.

use std::time::{Duration, SystemTime};

use mcp_result::{
    content::Payload,
    content::{Artifact, Audio, BlockAnnotations, EmbeddedBlob, EmbeddedText, Image},
    mcp_handler, mcp_tools,
    meta::{MetaKey, ResultMeta, WithMeta},
    meta_key,
    rmcp::{
        model::{
            CallToolRequestParams, ErrorCode, ReadResourceRequestParams, RequestMetaObject,
            ServerCapabilities, ServerConfig,
        },
        ServerHandler, ServiceError, ServiceExt,
    },
    store::{ArtifactAccess, ArtifactStore, MemoryStore},
    Audience, ToolResult,
};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

/// Every kind of block.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(
    summary = "Report ready",
    summary_audience = "user",
    summary_priority = 0.9,
    json_audience = "assistant",
    json_priority = 0.2
)]
struct Everything {
    report: Artifact,
    notes: EmbeddedText,
    chart: Image,
    memo: Option<Audio>,
    extra_links: Vec<Artifact>,
}

/// Spilled.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "{rows} rows")]
struct Export {
    rows: u32,
    csv: Payload,
}

/// Small.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Small {
    ok: bool,
}

#[derive(Clone)]
struct Surface {
    store: MemoryStore,
}

const TENANT: &str = "com.example/tenant";

impl ArtifactAccess for Surface {
    fn artifact_store(&self) -> &dyn ArtifactStore {
        &self.store
    }
}

#[mcp_tools(artifacts)]
impl Surface {
    /// Every block type.
    #[mcp_tool(read_only)]
    fn everything(&self) -> Everything {
        let modified = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        Everything {
            report: Artifact::new("https://reports.example/q3.pdf", "q3.pdf")
                .with_title("Q3 report")
                .with_description("Quarterly numbers")
                .with_mime_type("application/pdf")
                .with_size(123_456)
                .with_annotations(
                    BlockAnnotations::new()
                        .audience(Audience::USER)
                        .priority(0.3)
                        .unwrap()
                        .last_modified(modified),
                ),
            notes: EmbeddedText::new("notes://q3", "text/markdown", "# Notes\nAll good."),
            chart: Image::new(vec![1u8, 2, 3], "image/png"),
            memo: Some(Audio::new(vec![9u8; 4], "audio/wav")),
            extra_links: vec![Artifact::new("https://reports.example/raw.csv", "raw.csv")],
        }
    }

    /// A large export, spilled.
    #[mcp_tool(read_only)]
    fn export(&self) -> Export {
        Export {
            rows: 3,
            csv: Payload::text("export.csv", "text/csv", "a,b\n1,2\n3,4\n5,6\n"),
        }
    }

    /// With `_meta`.
    #[mcp_tool(read_only)]
    fn traced(&self) -> WithMeta<Small> {
        const CACHE: MetaKey = meta_key!("com.example/cache-hint");
        let meta = ResultMeta::new()
            .traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            .unwrap()
            .insert(CACHE, json!({"ttlSeconds": 60}))
            .unwrap();
        WithMeta {
            value: Small { ok: true },
            meta,
        }
    }
}

#[mcp_handler]
impl ServerHandler for Surface {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
    }
}

/// No artifact store: a payload cannot be stored.
#[derive(Clone)]
struct NoStore;

#[mcp_tools]
impl NoStore {
    /// A payload on a server without a store.
    #[mcp_tool(read_only)]
    fn export(&self) -> Export {
        Export {
            rows: 1,
            csv: Payload::text("x.csv", "text/csv", "a\n"),
        }
    }
}

#[mcp_handler]
impl ServerHandler for NoStore {}

/// A text file: its text is the result's one text block.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(text = "content")]
struct FileText {
    path: String,
    content: String,
}

/// A small binary file, embedded.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Read {path}")]
struct FileBytes {
    path: String,
    file: EmbeddedBlob,
}

#[derive(Clone)]
struct Files;

#[mcp_tools]
impl Files {
    /// Reads a text file.
    #[mcp_tool(read_only)]
    fn read_text(&self) -> FileText {
        FileText {
            path: "/srv/notes.md".into(),
            content: "# Notes\nline \"two\"\n\ttabbed\n".into(),
        }
    }

    /// Reads a binary file inline.
    #[mcp_tool(read_only)]
    fn read_bytes(&self) -> FileBytes {
        FileBytes {
            path: "/srv/logo.bin".into(),
            file: EmbeddedBlob::new(
                "file:///srv/logo.bin",
                "application/octet-stream",
                [1u8, 2, 3],
            ),
        }
    }

    /// Reads a binary file past the inline bound.
    #[mcp_tool(read_only)]
    fn read_huge(&self) -> FileBytes {
        FileBytes {
            path: "/srv/huge.bin".into(),
            file: EmbeddedBlob::new(
                "file:///srv/huge.bin",
                "application/octet-stream",
                vec![0u8; EmbeddedBlob::MAX_BYTES + 1],
            ),
        }
    }
}

#[mcp_handler]
impl ServerHandler for Files {}

type Client = mcp_result::rmcp::service::RunningService<mcp_result::rmcp::RoleClient, ()>;

async fn serve<S: ServerHandler>(server: S) -> Client {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("initialize")
}

fn tenant(name: &str) -> RequestMetaObject {
    let mut meta = serde_json::Map::new();
    meta.insert(TENANT.into(), json!(name));
    RequestMetaObject::from(meta)
}

/// The result as JSON. rmcp decodes `priority` into an `f32`, which re-serializes widened
/// (0.9 → 0.8999999761581421); rounding floats to 6 places restores what the wire said.
async fn call_as(client: &Client, name: &str, who: Option<&str>) -> Value {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.meta = who.map(tenant);
    let mut value = serde_json::to_value(client.call_tool(params).await.unwrap()).unwrap();
    round_floats(&mut value);
    value
}

fn round_floats(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            let rounded = (n.as_f64().unwrap() * 1e6).round() / 1e6;
            *value = json!(rounded);
        }
        Value::Array(items) => items.iter_mut().for_each(round_floats),
        Value::Object(map) => map.values_mut().for_each(round_floats),
        _ => {}
    }
}

#[tokio::test]
async fn every_block_type_has_its_exact_json() {
    let client = serve(Surface {
        store: MemoryStore::new(),
    })
    .await;
    let result = call_as(&client, "everything", None).await;
    let image_handle = "sha256:039058c6f2c0cb49";
    let audio_handle = result["structuredContent"]["memo"]["handle"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        result["content"],
        json!([
            {"type": "text", "text": "Report ready",
             "annotations": {"audience": ["user"], "priority": 0.9}},
            {"type": "text", "text": serde_json::to_string(&result["structuredContent"]).unwrap(),
             "annotations": {"audience": ["assistant"], "priority": 0.2}},
            {"type": "resource_link", "uri": "https://reports.example/q3.pdf", "name": "q3.pdf",
             "title": "Q3 report", "description": "Quarterly numbers",
             "mimeType": "application/pdf", "size": 123456,
             "annotations": {"audience": ["user"], "priority": 0.3,
                             "lastModified": "2023-11-14T22:13:20Z"}},
            {"type": "resource", "resource": {"uri": "notes://q3", "mimeType": "text/markdown",
                                              "text": "# Notes\nAll good."}},
            {"type": "image", "data": "AQID", "mimeType": "image/png",
             "_meta": {"io.github.mcp-result/handle": image_handle}},
            {"type": "audio", "data": "CQkJCQ==", "mimeType": "audio/wav",
             "_meta": {"io.github.mcp-result/handle": audio_handle}},
            {"type": "resource_link", "uri": "https://reports.example/raw.csv", "name": "raw.csv"}
        ])
    );
    // structuredContent: URIs and metadata only, never the bytes.
    assert_eq!(
        result["structuredContent"],
        json!({
            "report": "https://reports.example/q3.pdf",
            "notes": "notes://q3",
            "chart": {"mimeType": "image/png", "size": 3, "handle": image_handle},
            "memo": {"mimeType": "audio/wav", "size": 4, "handle": audio_handle},
            "extraLinks": ["https://reports.example/raw.csv"]
        })
    );
    let tools = client.list_all_tools().await.unwrap();
    let schema = tools
        .iter()
        .find(|t| t.name == "everything")
        .unwrap()
        .output_schema
        .clone()
        .unwrap();
    let success = &schema["anyOf"][0]["properties"];
    assert_eq!(success["report"]["format"], "uri");
    assert_eq!(success["extraLinks"]["items"]["format"], "uri");
    let validator = jsonschema::draft202012::new(&Value::Object((*schema).clone())).unwrap();
    assert!(validator.is_valid(&result["structuredContent"]));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn default_annotations_of_the_text_blocks() {
    let client = serve(Surface {
        store: MemoryStore::new(),
    })
    .await;
    let result = call_as(&client, "traced", None).await;
    assert_eq!(
        result["content"][0]["annotations"],
        json!({"audience": ["user", "assistant"], "priority": 1.0})
    );
    assert_eq!(
        result["content"][1]["annotations"],
        json!({"audience": ["assistant"], "priority": 0.5})
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn meta_carries_checked_keys_and_a_w3c_traceparent() {
    let client = serve(Surface {
        store: MemoryStore::new(),
    })
    .await;
    let result = call_as(&client, "traced", None).await;
    assert_eq!(
        result["_meta"],
        json!({
            "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "com.example/cache-hint": {"ttlSeconds": 60}
        })
    );
    assert_eq!(
        result["structuredContent"],
        json!({"ok": true}),
        "business data stays here"
    );
    client.cancel().await.unwrap();
}

#[test]
fn runtime_meta_keys_are_checked() {
    let error = MetaKey::new("io.modelcontextprotocol/x".to_owned())
        .unwrap_err()
        .to_string();
    assert!(error.contains("reserved for MCP itself"), "{error}");
    assert!(ResultMeta::new().traceparent("00-abc").is_err());
    assert!(BlockAnnotations::new().priority(1.5).is_err());
    assert!(BlockAnnotations::new().priority(f32::NAN).is_err());
}

#[tokio::test]
async fn a_payload_is_spilled_linked_and_read_back_by_its_owner_whatever_meta_says() {
    let client = serve(Surface {
        store: MemoryStore::new(),
    })
    .await;
    let result = call_as(&client, "export", Some("acme")).await;
    let uri = result["structuredContent"]["csv"]
        .as_str()
        .unwrap()
        .to_owned();
    let random = uri.strip_prefix("mcp-result://artifacts/").unwrap();
    assert!(
        random.len() == 32 && random.bytes().all(|b| b.is_ascii_hexdigit()),
        "128 random bits, nothing else: {uri}"
    );
    assert_eq!(result["structuredContent"], json!({"rows": 3, "csv": uri}));
    assert_eq!(
        result["content"][2],
        json!({"type": "resource_link", "uri": uri, "name": "export.csv", "mimeType": "text/csv", "size": 16})
    );
    assert!(
        !result.to_string().contains("3,4"),
        "the payload was inlined"
    );

    let mut read = ReadResourceRequestParams::new(uri.clone());
    read.meta = Some(tenant("acme"));
    let contents = serde_json::to_value(client.read_resource(read).await.unwrap()).unwrap();
    assert_eq!(
        contents["contents"],
        json!([{"uri": uri, "mimeType": "text/csv", "text": "a,b\n1,2\n3,4\n5,6\n"}])
    );

    // Over stdio (here a duplex) the caller is the process's one identity: `_meta` is an
    // assertion and changes nothing; a URI the store never made is not found. Readers of
    // other identities are refused in tests/identity.rs, over HTTP.
    let other = call_as(&client, "export", Some("globex")).await;
    assert_ne!(other["structuredContent"]["csv"], json!(uri));
    for (who, target) in [
        (
            Some("acme"),
            "mcp-result://artifacts/00000000000000000000000000000000".to_owned(),
        ),
        (Some("acme"), "mcp-result://artifacts/999-0".to_owned()),
    ] {
        let mut read = ReadResourceRequestParams::new(target.clone());
        read.meta = who.map(tenant);
        match client.read_resource(read).await {
            Err(ServiceError::McpError(error)) => {
                assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND);
                assert_eq!(error.message, format!("resource not found: {target}"));
                assert!(error.data.is_none(), "a denial leaks nothing");
            }
            other => panic!("{who:?} read {target}: {other:?}"),
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_payload_on_a_server_without_a_store_is_an_internal_error() {
    let client = serve(NoStore).await;
    let result = call_as(&client, "export", None).await;
    assert_eq!(result["isError"], true);
    assert_eq!(result["structuredContent"]["errorKind"], "internal");
    let read = client
        .read_resource(ReadResourceRequestParams::new("mcp-result://artifacts/1-0"))
        .await;
    match read {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND),
        other => panic!("{other:?}"),
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_text_result_reaches_the_model_as_its_text_once() {
    let client = serve(Files).await;
    let read = call_as(&client, "read_text", None).await;
    assert_eq!(
        read,
        json!({
            "content": [{
                "type": "text",
                "text": "# Notes\nline \"two\"\n\ttabbed\n",
                "annotations": {"audience": ["user", "assistant"], "priority": 1.0},
            }],
            "structuredContent": {
                "path": "/srv/notes.md",
                "content": "# Notes\nline \"two\"\n\ttabbed\n",
            },
            "isError": false,
        })
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn an_embedded_blob_is_a_resource_block_and_too_large_is_an_internal_error() {
    let client = serve(Files).await;
    let read = call_as(&client, "read_bytes", None).await;
    assert_eq!(
        read["structuredContent"],
        json!({"path": "/srv/logo.bin", "file": "file:///srv/logo.bin"})
    );
    assert_eq!(
        read["content"][2],
        json!({
            "type": "resource",
            "resource": {
                "uri": "file:///srv/logo.bin",
                "mimeType": "application/octet-stream",
                "blob": "AQID",
            },
        })
    );
    let huge = call_as(&client, "read_huge", None).await;
    assert_eq!(huge["isError"], true, "{huge}");
    assert_eq!(huge["structuredContent"]["errorKind"], "internal", "{huge}");
    client.cancel().await.unwrap();
}
