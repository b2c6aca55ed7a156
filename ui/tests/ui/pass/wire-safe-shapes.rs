// The ways out of the wire-shape rules compile: wide integers as decimal strings, bytes
// said to be numbers, bytes under an explicit encoding, bytes as an image block; a result
// nested in a result (its secret reaching the outer `redactionApplied`); a recursive
// `#[derive(Redact)]` type; arguments as any JSON object and as an optional struct.
use base64::Engine as _;
use mcp_result::{
    content::Image, mcp_handler, mcp_tools, rmcp::ServerHandler, DecimalString, Redact, Redacts,
    Secret, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

fn base64<S: serde::Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// Integers of any width, as decimal strings; bytes three ways.
#[derive(Serialize, JsonSchema, ToolResult)]
struct Snapshot {
    #[serde(with = "mcp_result::DecimalString")]
    id: u64,
    #[serde(with = "mcp_result::DecimalString")]
    total: u128,
    #[serde(with = "DecimalString")]
    delta: i128,
    #[mcp_result(bytes_as_numbers)]
    levels: Vec<u8>,
    #[serde(serialize_with = "base64")]
    #[schemars(with = "String")]
    digest: Vec<u8>,
    picture: Image,
}

/// The arguments may use it too.
#[derive(Deserialize, JsonSchema)]
struct SnapshotArgs {
    #[serde(with = "mcp_result::DecimalString")]
    id: u64,
}

/// A result with a secret of its own...
#[derive(Serialize, JsonSchema, ToolResult)]
struct Login {
    user: String,
    #[secret]
    #[serde(skip)]
    token: Secret<String>,
}

/// ...nested in a result that declares `redactionApplied`.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Session {
    login: Option<Login>,
    redaction_applied: bool,
}

/// A recursive type: its own field needs no `Redacts` bound.
#[derive(Serialize, JsonSchema, Redact)]
struct Node {
    name: String,
    children: Vec<Node>,
}

#[derive(Deserialize, JsonSchema)]
struct Filter {
    limit: u32,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// A snapshot by id.
    #[mcp_tool(read_only)]
    fn snapshot(&self, args: SnapshotArgs) -> Snapshot {
        snapshot(args.id)
    }

    /// Any JSON object.
    #[mcp_tool(read_only)]
    fn echo(&self, args: serde_json::Value) -> Session {
        let _ = args;
        Session { login: None, redaction_applied: false }
    }

    /// Optional arguments.
    #[mcp_tool(read_only)]
    fn status(&self, args: Option<Filter>) -> Session {
        let _ = args.map(|filter| filter.limit);
        Session { login: None, redaction_applied: false }
    }
}

#[mcp_handler]
impl ServerHandler for Server {}

fn snapshot(id: u64) -> Snapshot {
    Snapshot {
        id,
        total: u128::MAX,
        delta: i128::MIN,
        levels: vec![1, 2, 3],
        digest: vec![0xde, 0xad],
        picture: Image::new(vec![0x89, 0x50, 0x4e, 0x47], "image/png"),
    }
}

fn main() {
    let snapshot = mcp_result::build_result(&snapshot(u64::MAX)).structured_content.unwrap();
    assert_eq!(snapshot["id"], serde_json::json!(u64::MAX.to_string()));
    assert_eq!(snapshot["total"], serde_json::json!(u128::MAX.to_string()));
    assert_eq!(snapshot["delta"], serde_json::json!(i128::MIN.to_string()));
    assert_eq!(snapshot["levels"], serde_json::json!([1, 2, 3]));
    assert_eq!(snapshot["digest"], serde_json::json!("3q0="));

    let session = |login| {
        let session = Session { login, redaction_applied: false };
        mcp_result::build_result(&session).structured_content.unwrap()["redactionApplied"].clone()
    };
    assert_eq!(session(None), serde_json::json!(false));
    let login = Login { user: "u".into(), token: Secret::new("t".into()) };
    assert_eq!(session(Some(login)), serde_json::json!(true));

    let leaf = Node { name: "leaf".into(), children: Vec::new() };
    let tree = Node { name: "root".into(), children: vec![leaf] };
    assert!(!tree.withholds_secrets());
}
