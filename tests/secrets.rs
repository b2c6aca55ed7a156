//! `#[secret]` / `Secret<T>`: a secret value never leaves the process. A sentinel is put into
//! every secret position of eleven shapes, and of the `#[derive(Redact)]` shapes (a list, an
//! `Option`, an enum variant, a map two levels down); the complete JSON-RPC responses read
//! from a real transport (an rmcp server on one end of a duplex stream, raw JSON lines on the
//! other) must not contain it, and no schema may list a secret field. `redactionApplied` is
//! decided per value: `true` exactly when the returned value withheld a secret.

use crate::common;

use std::collections::BTreeMap;

use mcp_result::{
    mcp_handler, mcp_tools, rmcp::ServerHandler, Redact, Secret, ToolError, ToolResult,
};
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

const SENTINEL: &str = "SENTINEL-7b1e-do-not-leak";

fn secret() -> Secret<String> {
    Secret::new(SENTINEL.to_owned())
}

/// A nested record holding a credential.
#[allow(dead_code)] // the secrets are held, never read: that is the point
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Account {
    name: String,
    #[serde(skip)]
    password: Secret<String>,
}

fn account() -> Account {
    Account {
        name: "ops".into(),
        password: secret(),
    }
}

/// A credential kind, as an enum with a secret in a variant.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Credential {
    ApiKey {
        label: String,
        #[serde(skip)]
        key: Secret<String>,
    },
    None,
}

/// Shape 1 and 10: a top-level `#[secret]` field beside the summary's fields.
#[allow(dead_code)]
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Connected as {user} to {host}")]
struct Plain {
    user: String,
    #[secret]
    #[serde(skip)]
    api_token: Secret<String>,
    host: String,
    redaction_applied: bool,
}

/// Shapes 2 to 7: nested, `Vec`, `Option`, map value, flattened, enum variant.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Nested {
    owner: Account,
    accounts: Vec<Account>,
    backup: Option<Account>,
    by_region: BTreeMap<String, Account>,
    #[serde(flatten)]
    primary: Account2,
    credential: Credential,
}

/// Flattened into `Nested`.
#[allow(dead_code)]
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Account2 {
    primary_name: String,
    #[serde(skip_serializing)]
    primary_secret: Secret<String>,
}

/// Shape 8: a generic result whose parameter carries a secret.
#[allow(dead_code)]
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
struct Page<T: Serialize + JsonSchema + 'static> {
    items: Vec<T>,
    #[secret]
    #[serde(skip)]
    cursor_key: Secret<String>,
}

/// Nothing.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
struct Nothing {
    ok: bool,
}

/// An upstream a result lists, with its credential: `#[secret]` on a nested struct's field
/// through `#[derive(Redact)]`.
#[allow(dead_code)] // the secret is held, never read
#[derive(Debug, Serialize, JsonSchema, Redact)]
struct Upstream {
    name: String,
    #[secret]
    #[serde(skip)]
    token: Secret<String>,
}

fn upstream(name: &str) -> Upstream {
    Upstream {
        name: name.into(),
        token: secret(),
    }
}

/// Upstreams in a list: `redactionApplied` when the list is not empty.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Upstreams {
    items: Vec<Upstream>,
    redaction_applied: bool,
}

/// An optional upstream: `None` withholds nothing.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Fallback {
    upstream: Option<Upstream>,
    redaction_applied: bool,
}

/// How a session logged in: only the `bearer` variant holds a secret.
#[derive(Debug, Serialize, JsonSchema, Redact)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Login {
    Bearer {
        user: String,
        #[secret]
        #[serde(skip)]
        token: Secret<String>,
    },
    Anonymous,
}

/// A session: `redactionApplied` follows the variant.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Session {
    login: Login,
    redaction_applied: bool,
}

/// A region of upstreams, two levels down and behind a map, with an admin key left unmarked:
/// a `Secret` is withheld wherever it stands, `#[secret]` or not.
#[derive(Debug, Serialize, JsonSchema, Redact)]
struct Region {
    name: String,
    upstreams: BTreeMap<String, Upstream>,
    #[serde(skip)]
    admin_key: Option<Secret<String>>,
}

/// Regions of upstreams.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Cluster {
    regions: Vec<Region>,
    redaction_applied: bool,
}

fn region(upstreams: &[&str], admin_key: Option<Secret<String>>) -> Region {
    Region {
        name: "eu".into(),
        upstreams: upstreams
            .iter()
            .map(|name| ((*name).to_owned(), upstream(name)))
            .collect(),
        admin_key,
    }
}

/// A generic listing: `redactionApplied` follows the items, whatever their type (each must
/// say whether it withheld a secret).
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Listing<T: Serialize + JsonSchema + mcp_result::Redacts + 'static> {
    items: Vec<T>,
    redaction_applied: bool,
}

/// Named upstreams as pairs, and a value of another crate's type said to hold no secret.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Pairs {
    pairs: Vec<(String, Upstream)>,
    note: mcp_result::NoSecrets<std::net::Ipv4Addr>,
    redaction_applied: bool,
}

#[derive(Clone)]
struct Vault;

#[mcp_tools]
impl Vault {
    /// Plain secret field.
    #[mcp_tool(read_only)]
    fn plain(&self) -> Plain {
        Plain {
            user: "ada".into(),
            api_token: secret(),
            host: "db1".into(),
            redaction_applied: false,
        }
    }

    /// Secrets in nested positions.
    #[mcp_tool(read_only)]
    fn nested(&self) -> Nested {
        Nested {
            owner: account(),
            accounts: vec![account(), account()],
            backup: Some(account()),
            by_region: BTreeMap::from([("eu".to_owned(), account())]),
            primary: Account2 {
                primary_name: "p".into(),
                primary_secret: secret(),
            },
            credential: Credential::ApiKey {
                label: "ci".into(),
                key: secret(),
            },
        }
    }

    /// Generic result.
    #[mcp_tool(read_only)]
    fn page(&self) -> Page<Account> {
        Page {
            items: vec![account()],
            cursor_key: secret(),
        }
    }

    /// Shape 9: the error path; a message built with `Debug` of a record shows the marker.
    #[mcp_tool(read_only)]
    fn refuse(&self) -> Result<Nothing, ToolError> {
        Err(ToolError::conflict(format!(
            "account {:?} is disabled",
            account()
        )))
    }

    /// Shape 11: a panic whose message holds the secret.
    #[mcp_tool(read_only)]
    fn crash(&self) -> Nothing {
        panic!("upstream rejected token {}", secret().expose())
    }

    /// An enum without payload, for completeness.
    #[mcp_tool(read_only)]
    fn no_credential(&self) -> Nothing {
        let _ = Credential::None;
        Nothing { ok: true }
    }

    /// Two upstreams.
    #[mcp_tool(read_only)]
    fn upstreams(&self) -> Upstreams {
        Upstreams {
            items: vec![upstream("a"), upstream("b")],
            redaction_applied: false,
        }
    }

    /// No upstream.
    #[mcp_tool(read_only)]
    fn no_upstreams(&self) -> Upstreams {
        Upstreams {
            items: Vec::new(),
            redaction_applied: false,
        }
    }

    /// A fallback upstream.
    #[mcp_tool(read_only)]
    fn fallback(&self) -> Fallback {
        Fallback {
            upstream: Some(upstream("f")),
            redaction_applied: false,
        }
    }

    /// No fallback upstream.
    #[mcp_tool(read_only)]
    fn no_fallback(&self) -> Fallback {
        Fallback {
            upstream: None,
            redaction_applied: false,
        }
    }

    /// A session logged in with a bearer credential.
    #[mcp_tool(read_only)]
    fn bearer_session(&self) -> Session {
        Session {
            login: Login::Bearer {
                user: "ada".into(),
                token: secret(),
            },
            redaction_applied: false,
        }
    }

    /// An anonymous session.
    #[mcp_tool(read_only)]
    fn anonymous_session(&self) -> Session {
        Session {
            login: Login::Anonymous,
            redaction_applied: false,
        }
    }

    /// A region with an upstream.
    #[mcp_tool(read_only)]
    fn cluster(&self) -> Cluster {
        Cluster {
            regions: vec![region(&[], None), region(&["a"], None)],
            redaction_applied: false,
        }
    }

    /// A region with an admin key and no upstream.
    #[mcp_tool(read_only)]
    fn keyed_cluster(&self) -> Cluster {
        Cluster {
            regions: vec![region(&[], Some(secret()))],
            redaction_applied: false,
        }
    }

    /// A region with nothing secret.
    #[mcp_tool(read_only)]
    fn bare_cluster(&self) -> Cluster {
        Cluster {
            regions: vec![region(&[], None)],
            redaction_applied: false,
        }
    }

    /// Upstreams in a generic listing.
    #[mcp_tool(read_only)]
    fn listing(&self) -> Listing<Upstream> {
        Listing {
            items: vec![upstream("a")],
            redaction_applied: false,
        }
    }

    /// An empty generic listing.
    #[mcp_tool(read_only)]
    fn no_listing(&self) -> Listing<Upstream> {
        Listing {
            items: vec![],
            redaction_applied: false,
        }
    }

    /// Upstreams as pairs.
    #[mcp_tool(read_only)]
    fn pairs(&self) -> Pairs {
        Pairs {
            pairs: vec![("x".into(), upstream("a"))],
            note: mcp_result::NoSecrets(std::net::Ipv4Addr::LOCALHOST),
            redaction_applied: false,
        }
    }
}

#[mcp_handler]
impl ServerHandler for Vault {}

/// Serves `Vault` on one end of a duplex stream and drives it with raw JSON-RPC lines on the
/// other: returns every line the server wrote.
async fn raw_session(calls: &[&str]) -> Vec<String> {
    let mut raw = common::raw::RawClient::serve(Vault);
    raw.send(&common::raw::handshake("2025-11-25")).await;
    let mut requests = vec![json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})];
    for (i, name) in calls.iter().enumerate() {
        requests.push(
            json!({"jsonrpc": "2.0", "id": i + 2, "method": "tools/call",
            "params": {"name": name, "arguments": {}}}),
        );
    }
    raw.send(&requests).await;
    let expected = calls.len() + 2;
    let mut out = Vec::new();
    while out
        .iter()
        .filter(|l: &&String| l.contains("\"id\""))
        .count()
        < expected
    {
        out.push(raw.next_line().await);
    }
    out
}

const TOOLS: [&str; 18] = [
    "plain",
    "nested",
    "page",
    "refuse",
    "crash",
    "no_credential",
    "upstreams",
    "no_upstreams",
    "fallback",
    "no_fallback",
    "bearer_session",
    "anonymous_session",
    "cluster",
    "keyed_cluster",
    "bare_cluster",
    "listing",
    "no_listing",
    "pairs",
];

#[tokio::test]
async fn no_secret_reaches_any_response_on_the_wire() {
    let lines = raw_session(&TOOLS).await;
    assert_eq!(lines.len(), TOOLS.len() + 2, "{lines:#?}");
    for line in &lines {
        assert!(!line.contains(SENTINEL), "secret leaked: {line}");
        assert!(!line.contains("7b1e"), "part of the secret leaked: {line}");
    }
    let responses: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Every call answered: results for all but the refusing and the crashing tool.
    for response in &responses[2..] {
        let result = &response["result"];
        let name = TOOLS[response["id"].as_u64().unwrap() as usize - 2];
        let expect_error = matches!(name, "refuse" | "crash");
        assert_eq!(result["isError"], expect_error, "{name}: {response}");
    }
    // The error path built with Debug shows the redaction marker, not the value.
    let refuse = &responses.iter().find(|r| r["id"] == 5).unwrap()["result"];
    assert!(refuse["structuredContent"]["message"]
        .as_str()
        .unwrap()
        .contains("Secret([redacted])"));
}

#[tokio::test]
async fn schemas_list_no_secret_field() {
    let lines = raw_session(&[]).await;
    let list: Value = serde_json::from_str(&lines[1]).unwrap();
    let text = list.to_string();
    for name in [
        "apiToken",
        "api_token",
        "password",
        "primarySecret",
        "primary_secret",
        "cursorKey",
        "cursor_key",
        "\"key\"",
        "\"token\"",
        "adminKey",
        "admin_key",
    ] {
        assert!(!text.contains(name), "schema lists secret field {name}");
    }
    for tool in list["result"]["tools"].as_array().unwrap() {
        let schema = &tool["outputSchema"];
        for branch in schema["anyOf"].as_array().unwrap() {
            if let Some(required) = branch.get("required") {
                assert!(!required.to_string().contains("Token"), "{required}");
            }
        }
    }
}

#[tokio::test]
async fn redaction_is_reported_and_neighbours_survive() {
    let lines = raw_session(&["plain"]).await;
    let response: Value = serde_json::from_str(&lines[2]).unwrap();
    let result = &response["result"];
    assert_eq!(
        result["structuredContent"],
        json!({"user": "ada", "host": "db1", "redactionApplied": true})
    );
    assert_eq!(result["content"][0]["text"], "Connected as ada to db1");
}

/// Each tool's `structuredContent`, in the order called.
async fn structured(tools: &[&str]) -> Vec<Value> {
    let lines = raw_session(tools).await;
    let mut responses: Vec<Value> = lines[2..]
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    responses.sort_by_key(|r| r["id"].as_u64());
    responses
        .into_iter()
        .map(|r| {
            assert_eq!(r["result"]["isError"], false, "{r}");
            r["result"]["structuredContent"].clone()
        })
        .collect()
}

#[tokio::test]
async fn redaction_applied_follows_nested_secrets_per_value() {
    let answers = structured(&[
        "upstreams",
        "no_upstreams",
        "fallback",
        "no_fallback",
        "bearer_session",
        "anonymous_session",
        "cluster",
        "keyed_cluster",
        "bare_cluster",
        "listing",
        "no_listing",
        "pairs",
    ])
    .await;
    assert_eq!(
        answers,
        [
            json!({"items": [{"name": "a"}, {"name": "b"}], "redactionApplied": true}),
            json!({"items": [], "redactionApplied": false}),
            json!({"upstream": {"name": "f"}, "redactionApplied": true}),
            json!({"upstream": null, "redactionApplied": false}),
            json!({"login": {"kind": "bearer", "user": "ada"}, "redactionApplied": true}),
            json!({"login": {"kind": "anonymous"}, "redactionApplied": false}),
            json!({"regions": [
                {"name": "eu", "upstreams": {}},
                {"name": "eu", "upstreams": {"a": {"name": "a"}}},
            ], "redactionApplied": true}),
            json!({"regions": [{"name": "eu", "upstreams": {}}], "redactionApplied": true}),
            json!({"regions": [{"name": "eu", "upstreams": {}}], "redactionApplied": false}),
            json!({"items": [{"name": "a"}], "redactionApplied": true}),
            json!({"items": [], "redactionApplied": false}),
            json!({"pairs": [["x", {"name": "a"}]], "note": "127.0.0.1",
                   "redactionApplied": true}),
        ]
    );
}

#[test]
fn debug_output_shows_a_redaction_marker() {
    let plain = Plain {
        user: "u".into(),
        api_token: secret(),
        host: "h".into(),
        redaction_applied: false,
    };
    let debug = format!(
        "{plain:?} {:?} {:?}",
        account(),
        Credential::ApiKey {
            label: "l".into(),
            key: secret()
        }
    );
    assert!(!debug.contains(SENTINEL), "{debug}");
    assert_eq!(debug.matches("Secret([redacted])").count(), 3, "{debug}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random secrets beside random neighbouring values: the serialized result (all of it:
    /// content, structuredContent, isError) never contains the secret.
    #[test]
    fn random_secrets_never_serialize(
        secret_tail in "[A-Za-z0-9+/=_-]{8,48}",
        user in "[a-z ]{0,24}",
        host in "[a-z0-9.]{0,24}",
        names in proptest::collection::vec("[a-z]{0,12}", 0..6),
    ) {
        let secret = format!("S3CR3T{secret_tail}");
        let value = Page {
            items: names.iter().map(|n| Account { name: n.clone(), password: Secret::new(secret.clone()) }).collect(),
            cursor_key: Secret::new(secret.clone()),
        };
        let wire = serde_json::to_string(&mcp_result::build_result(&value)).unwrap();
        prop_assert!(!wire.contains(&secret));
        let plain = Plain { user, api_token: Secret::new(secret.clone()), host, redaction_applied: false };
        let result = mcp_result::build_result(&plain);
        let wire = serde_json::to_string(&result).unwrap();
        prop_assert!(!wire.contains(&secret));
        prop_assert_eq!(&result.structured_content.unwrap()["redactionApplied"], &json!(true));
        let upstreams = Upstreams {
            items: names.iter().map(|n| Upstream { name: n.clone(), token: Secret::new(secret.clone()) }).collect(),
            redaction_applied: false,
        };
        let result = mcp_result::build_result(&upstreams);
        let wire = serde_json::to_string(&result).unwrap();
        prop_assert!(!wire.contains(&secret));
        prop_assert_eq!(
            &result.structured_content.unwrap()["redactionApplied"],
            &json!(!names.is_empty())
        );
    }
}
