//! Tool documentation (`mcp_result::docs`): rendered from the `tools/list` payload, in
//! Markdown and JSON. The example server's docs are committed under `docs/` and checked for
//! staleness; a server defined here checks secrets, doc comments, hints, the write
//! contract, error kinds, artifacts, nested types and the Markdown's well-formedness (parsed
//! with pulldown-cmark).

use crate::common;

use std::{collections::HashMap, path::Path, process::Command, sync::Arc};

use mcp_result::{
    docs::{FieldDoc, Hints, ServerDocs, ToolDoc},
    keys::WRAP_META_KEY,
    lint::Host,
    mcp_tools,
    rmcp::model::{Tool, ToolAnnotations},
    schema::ToolOutputSchema,
    AuditEventId, Secret, Status, ToolError, ToolResult, ToolSet,
};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------------------
// A server with every shape the docs must handle
// ---------------------------------------------------------------------------------------

/// Signing algorithms.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Algorithm {
    Ed25519,
    Rsa4096,
}

/// Who approves a rotation.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Approver {
    /// The approver's e-mail address.
    email: String,
}

/// Arguments of `rotate_key`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct RotateArgs {
    /// The key to rotate, e.g. `K-7`.
    #[schemars(pattern(r"^K-[0-9]+$"))]
    key_id: String,
    /// Days until the old key stops working.
    #[serde(default)]
    #[schemars(range(min = 1, max = 90))]
    grace_days: Option<u32>,
    /// Why the key is rotated (kept in the audit log).
    #[schemars(length(min = 3, max = 200))]
    reason: String,
    /// The algorithm of the new key.
    algorithm: Algorithm,
    /// Who approved the rotation.
    approver: Approver,
}

/// A file attached to a rotation report.
#[allow(dead_code)]
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Attachment {
    /// Where the attachment can be downloaded.
    #[schemars(url)]
    href: String,
    /// One-time download code, never returned.
    #[serde(skip)]
    download_code: Secret<String>,
}

/// A key was rotated.
#[allow(dead_code)]
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct KeyRotated {
    /// The new key's id.
    new_key_id: String,
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
    external_id: Option<String>,
    requires_human_review: bool,
    /// The rotation report.
    #[schemars(url)]
    report_url: String,
    attachments: Vec<Attachment>,
    /// The new key itself: it stays on the server.
    #[secret]
    #[serde(skip)]
    new_key_material: Secret<String>,
}

/// An account holding a recovery code.
#[allow(dead_code)]
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Account {
    /// The account's login name.
    login: String,
    #[serde(skip)]
    recovery_code: Secret<String>,
}

/// How the credential authenticates.
#[allow(dead_code)]
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Method {
    /// A password.
    Password {
        /// When it was last changed.
        changed: String,
    },
    /// A hardware token.
    Token {
        /// The token's serial number.
        serial: String,
    },
}

/// A folder of credentials; folders nest.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Folder {
    /// The folder's name.
    name: String,
    /// Sub-folders.
    children: Vec<Folder>,
}

/// A credential from the vault.
#[allow(dead_code)]
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Credential {
    /// A label humans recognise the credential by.
    label: String,
    /// The accounts that use it.
    accounts: Vec<Account>,
    /// How it authenticates.
    method: Method,
    /// Where it is filed.
    folder: Folder,
    /// The passphrase that unlocks it.
    #[secret]
    #[serde(skip)]
    vault_passphrase: Secret<String>,
    redaction_applied: bool,
}

/// The vault's health.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Health {
    /// Whether the vault is sealed.
    sealed: bool,
}

/// Arguments of `read_credential`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct ReadArgs {
    /// The credential's label.
    label: String,
}

#[derive(Clone)]
struct Vault;

#[mcp_tools]
impl Vault {
    /// Rotate a signing key. Each call creates a new key.
    #[mcp_tool(title = "Rotate key", open_world = false)]
    fn rotate_key(&self, _args: RotateArgs) -> Result<KeyRotated, ToolError> {
        Err(ToolError::conflict("not in this test"))
    }

    /// Read one credential. Answered within 250 ms or not at all.
    #[mcp_tool(read_only, timeout_ms = 250)]
    async fn read_credential(&self, _args: ReadArgs) -> Result<Credential, ToolError> {
        Err(ToolError::not_found("not in this test"))
    }

    /// Report whether the vault is sealed.
    #[mcp_tool(read_only, idempotent, title = "Vault health")]
    fn health(&self) -> Health {
        Health { sealed: false }
    }
}

fn vault_docs() -> ServerDocs {
    ServerDocs::for_tool_set::<Vault>("vault").expect("router builds")
}

fn tool_doc<'a>(docs: &'a ServerDocs, name: &str) -> &'a ToolDoc {
    docs.tools
        .iter()
        .find(|doc| doc.name == name)
        .unwrap_or_else(|| panic!("no docs for `{name}`"))
}

fn field<'a>(fields: &'a [FieldDoc], path: &str) -> &'a FieldDoc {
    fields.iter().find(|f| f.path == path).unwrap_or_else(|| {
        let paths: Vec<&str> = fields.iter().map(|f| f.path.as_str()).collect();
        panic!("no field `{path}` among {paths:?}")
    })
}

/// The Markdown table row of field `path` (its first cell is the path in a code span).
fn markdown_row<'a>(markdown: &'a str, section_start: &str, path: &str) -> &'a str {
    let section = &markdown[markdown.find(section_start).expect("section")..];
    let prefix = format!("| `{path}` |");
    section
        .lines()
        .find(|line| line.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no row for `{path}` after {section_start:?}"))
}

// ---------------------------------------------------------------------------------------
// The committed docs of the example server
// ---------------------------------------------------------------------------------------

const REFRESH: &str = "refresh them with `cargo run --example helpdesk -- docs docs/helpdesk.md` \
    and `cargo run --example helpdesk -- docs --json docs/helpdesk.json` (or `cargo build \
    --example helpdesk && UPDATE_DOCS=1 cargo test --features docs --test suite -- docs::`), review the diff and commit it";

fn repo_file(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn run_example_docs(args: &[&str]) -> String {
    let output = Command::new(common::example_path("helpdesk"))
        .args(args)
        .output()
        .expect("run the helpdesk example");
    assert!(
        output.status.success(),
        "`helpdesk {}` failed: {}{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr),
        staleness_note()
    );
    String::from_utf8(output.stdout).expect("UTF-8 docs")
}

/// A note for failures when the example binary is older than a source it is built from:
/// `cargo test --features docs --test suite -- docs::` alone does not rebuild examples (`cargo test --workspace` does).
fn staleness_note() -> String {
    fn newest(path: &Path) -> Option<std::time::SystemTime> {
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_dir() {
            return meta.modified().ok();
        }
        std::fs::read_dir(path)
            .ok()?
            .filter_map(|entry| newest(&entry.ok()?.path()))
            .max()
    }
    let built = newest(&common::example_path("helpdesk"));
    let sources = [
        "examples/helpdesk",
        "src",
        "mcp-result-core/src",
        "mcp-result-derive/src",
    ]
    .iter()
    .filter_map(|dir| newest(&repo_file(dir)))
    .max();
    if sources > built {
        "\nNote: the helpdesk example binary is older than its sources; `cargo test --features \
         docs --test suite -- docs::` does not rebuild examples: run `cargo build --example helpdesk` first, or \
         `cargo test --workspace`."
            .into()
    } else {
        String::new()
    }
}

#[test]
fn committed_example_docs_match_the_example_server() {
    for (args, file) in [
        (&["docs"][..], "docs/helpdesk.md"),
        (&["docs", "--json"][..], "docs/helpdesk.json"),
    ] {
        let rendered = run_example_docs(args);
        let path = repo_file(file);
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &rendered).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{file} is missing ({e}): {REFRESH}"));
        if committed != rendered {
            let line = committed
                .lines()
                .zip(rendered.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| committed.lines().count().min(rendered.lines().count()));
            panic!(
                "{file} is stale: it differs from `helpdesk {}` from line {}:\n  committed: {:?}\n  \
                 rendered:  {:?}\n{REFRESH}{}",
                args.join(" "),
                line + 1,
                committed.lines().nth(line).unwrap_or("<end of file>"),
                rendered.lines().nth(line).unwrap_or("<end of file>"),
                staleness_note(),
            );
        }
    }
}

#[tokio::test]
async fn json_docs_carry_the_tools_list_payload_a_client_receives() {
    let client = common::connect("helpdesk").await;
    let mut listed = client.list_all_tools().await.expect("tools/list");
    client.cancel().await.expect("close");
    listed.sort_by(|a, b| a.name.cmp(&b.name));
    let docs: Value = serde_json::from_str(&run_example_docs(&["docs", "--json"])).unwrap();
    assert_eq!(docs["tools"], serde_json::to_value(&listed).unwrap());
    let names: Vec<&str> = listed.iter().map(|t| t.name.as_ref()).collect();
    let documented: Vec<&str> = docs["docs"]
        .as_object()
        .expect("docs object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(documented, names);
}

#[test]
fn committed_markdown_is_well_formed_and_covers_every_tool() {
    let markdown = std::fs::read_to_string(repo_file("docs/helpdesk.md")).expect(REFRESH);
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(repo_file("docs/helpdesk.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"search_tickets") && names.contains(&"add_internal_note"));
    let report = check_markdown(&markdown).unwrap_or_else(|e| panic!("docs/helpdesk.md: {e}"));
    report.assert_covers(&names);
}

// ---------------------------------------------------------------------------------------
// Secrets, doc comments, hints, contract, errors, artifacts, shapes
// ---------------------------------------------------------------------------------------

#[test]
fn secret_fields_appear_in_neither_format() {
    let docs = vault_docs();
    let markdown = docs.to_markdown();
    let json = docs.to_json_pretty();
    for secret in [
        "vaultPassphrase",
        "vault_passphrase",
        "newKeyMaterial",
        "new_key_material",
        "recoveryCode",
        "recovery_code",
        "downloadCode",
        "download_code",
    ] {
        assert!(!markdown.contains(secret), "Markdown names `{secret}`");
        assert!(!json.contains(secret), "JSON names `{secret}`");
    }
    // The types holding them are documented: their other fields are there.
    let read = tool_doc(&docs, "read_credential");
    field(&read.outputs, "label");
    field(&read.outputs, "accounts[].login");
    field(&read.outputs, "redactionApplied");
    let rotate = tool_doc(&docs, "rotate_key");
    field(&rotate.outputs, "newKeyId");
    field(&rotate.outputs, "attachments[].href");
    assert!(markdown.contains("| `accounts[].login` |"));
    assert!(json.contains("\"accounts[].login\""));
}

#[test]
fn field_doc_comments_are_descriptions_in_the_schema_and_the_docs() {
    let router = Vault::tool_registry().unwrap();
    let docs = vault_docs();
    let markdown = docs.to_markdown();
    let json = docs.to_json();
    let rotate = router.tool("rotate_key").unwrap();

    let key_id = "The key to rotate, e.g. `K-7`.";
    assert_eq!(
        rotate.input_schema["properties"]["keyId"]["description"],
        key_id
    );
    assert_eq!(
        field(&tool_doc(&docs, "rotate_key").inputs, "keyId")
            .description
            .as_deref(),
        Some(key_id)
    );
    let inputs = json["docs"]["rotate_key"]["inputs"].as_array().unwrap();
    let input = inputs.iter().find(|i| i["path"] == "keyId").unwrap();
    assert_eq!(input["description"], key_id);
    let row = markdown_row(&markdown, "## `rotate_key`", "keyId");
    assert!(row.ends_with(&format!("| {key_id} |")), "{row}");

    // A nested output field: the doc comment of `Attachment::href`.
    let href = "Where the attachment can be downloaded.";
    let output = rotate.output_schema.as_ref().unwrap();
    assert_eq!(
        output["$defs"]["Attachment"]["properties"]["href"]["description"],
        href
    );
    assert_eq!(
        field(&tool_doc(&docs, "rotate_key").outputs, "attachments[].href")
            .description
            .as_deref(),
        Some(href)
    );
    let row = markdown_row(&markdown, "## `rotate_key`", "attachments[].href");
    assert!(row.ends_with(&format!("| {href} |")), "{row}");
}

#[test]
fn hints_take_their_mcp_defaults_when_absent() {
    let docs = vault_docs();
    // The registry writes every hint out (some host directories require it): each is
    // declared, with the MCP default where the tool said nothing.
    let rotate = tool_doc(&docs, "rotate_key").hints;
    let all = |h: Hints| [h.read_only, h.destructive, h.idempotent, h.open_world];
    assert_eq!(
        all(rotate).map(|h| (h.value, h.declared)),
        [(false, true), (true, true), (false, true), (false, true)]
    );
    let health = tool_doc(&docs, "health").hints;
    assert_eq!(
        all(health).map(|h| (h.value, h.declared)),
        [(true, true), (false, true), (true, true), (true, true)]
    );
    let markdown = docs.to_markdown();
    let section = &markdown[markdown.find("## `rotate_key`").unwrap()..];
    assert!(section.contains("| destructive | yes | declared: `destructiveHint: true` |"));
    assert!(section.contains("| open-world | no | declared: `openWorldHint: false` |"));

    // A listed tool that leaves hints out: those take their MCP defaults, and say so.
    let partial = Tool::new("partial", "Some hints.", Arc::new(serde_json::Map::new()))
        .with_annotations(ToolAnnotations::new().read_only(false).open_world(false));
    let docs = ServerDocs::from_tools("s", &[partial]);
    let markdown = docs.to_markdown();
    assert!(markdown.contains("| destructive | yes | MCP default (`destructiveHint` absent) |"));
    assert!(markdown.contains("| open-world | no | declared: `openWorldHint: false` |"));

    // A tool with no annotations at all: every default.
    let bare = Tool::new("bare", "No annotations.", Arc::new(serde_json::Map::new()));
    let hints = ServerDocs::from_tools("s", &[bare]).tools[0].hints;
    assert_eq!(
        [
            hints.read_only,
            hints.destructive,
            hints.idempotent,
            hints.open_world
        ]
        .map(|h| (h.value, h.declared)),
        [(false, false), (true, false), (false, false), (true, false)]
    );
}

#[test]
fn write_tools_list_the_contract_fields_they_return() {
    let docs = vault_docs();
    let rotate = tool_doc(&docs, "rotate_key");
    assert!(rotate.write_tool);
    assert_eq!(
        rotate.write_contract_fields,
        [
            "status",
            "retrySafe",
            "auditEventId",
            "externalId",
            "requiresHumanReview"
        ]
    );
    let read = tool_doc(&docs, "read_credential");
    assert!(!read.write_tool);
    assert_eq!(read.write_contract_fields, ["redactionApplied"]);
    assert!(tool_doc(&docs, "health").write_contract_fields.is_empty());
    let markdown = docs.to_markdown();
    assert!(markdown.contains(
        "| write-contract fields | `status`, `retrySafe`, `auditEventId`, `externalId`, \
         `requiresHumanReview` |"
    ));
}

#[test]
fn error_kinds_are_the_envelope_enum_and_say_which_the_framework_returns() {
    let docs = vault_docs();
    let all = [
        "validation_error",
        "upstream_timeout",
        "upstream_unavailable",
        "permission_denied",
        "policy_blocked",
        "not_found",
        "conflict",
        "internal",
        "in_progress",
        "outcome_unknown",
    ];
    let registry = Vault::tool_registry().unwrap();
    let listed = ServerDocs::from_tools("vault", registry.tools());
    let framework_of = |doc: &ToolDoc| -> Vec<String> {
        doc.error_kinds
            .iter()
            .filter(|k| k.framework.is_some())
            .map(|k| k.kind.clone())
            .collect()
    };
    for doc in &docs.tools {
        let kinds: Vec<&str> = doc.error_kinds.iter().map(|k| k.kind.as_str()).collect();
        assert_eq!(kinds, all, "{}", doc.name);
        // The registry says which kinds the framework itself returns.
        let framework = framework_of(doc);
        let from_registry: Vec<&str> = registry
            .framework_error_kinds(&doc.name)
            .into_iter()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(framework, from_registry, "{}", doc.name);
        match doc.name.as_str() {
            "read_credential" => {
                assert_eq!(doc.time_limit_ms, Some(250));
                assert_eq!(
                    framework,
                    ["validation_error", "upstream_timeout", "internal"]
                );
            }
            // No arguments: nothing to fail the inputSchema.
            "health" => assert_eq!(framework, ["internal"]),
            _ => assert_eq!(framework, ["validation_error", "internal"], "{}", doc.name),
        }
        // From a bare tools/list payload: the same, except the time limit it does not carry.
        let bare = framework_of(tool_doc(&listed, &doc.name));
        let expected: Vec<&str> = from_registry
            .iter()
            .copied()
            .filter(|k| *k != "upstream_timeout")
            .collect();
        assert_eq!(bare, expected, "{}", doc.name);
    }
    let markdown = docs.to_markdown();
    let read = &markdown[markdown.find("## `read_credential`").unwrap()..];
    // Read-only, so the registry declares it idempotent: a timed-out call may be retried.
    assert!(read.contains(
        "| `upstream_timeout` | the call runs past its time limit of 250 ms; \
         `retrySafe: true` (the tool is idempotent) |"
    ));
    let envelope: Vec<&str> = docs
        .error_envelope
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    for field in ["status", "errorKind", "retrySafe", "message", "fieldErrors"] {
        assert!(envelope.contains(&field), "{field}: {envelope:?}");
    }
}

#[test]
fn uri_output_fields_are_listed_as_artifacts() {
    let docs = vault_docs();
    assert_eq!(
        tool_doc(&docs, "rotate_key").artifacts,
        ["attachments[].href", "reportUrl"]
    );
    assert!(tool_doc(&docs, "read_credential").artifacts.is_empty());
    let markdown = docs.to_markdown();
    assert!(markdown.contains("| artifacts | `attachments[].href`, `reportUrl` |"));
    assert!(markdown.contains("| artifacts | none |"));
}

#[test]
fn constraints_of_inputs_are_documented() {
    let docs = vault_docs();
    let inputs = &tool_doc(&docs, "rotate_key").inputs;
    assert_eq!(
        Value::Object(field(inputs, "keyId").constraints.clone()),
        json!({"pattern": "^K-[0-9]+$"})
    );
    assert_eq!(
        Value::Object(field(inputs, "graceDays").constraints.clone()),
        json!({"minimum": 1, "maximum": 90})
    );
    assert!(!field(inputs, "graceDays").required);
    assert_eq!(
        Value::Object(field(inputs, "reason").constraints.clone()),
        json!({"minLength": 3, "maxLength": 200})
    );
    let algorithm = field(inputs, "algorithm");
    // The advertised (portable) schema inlines the definition: no `$ref`, no type name.
    assert_eq!(algorithm.type_name, "string");
    assert_eq!(algorithm.constraints["enum"], json!(["ed25519", "rsa4096"]));
    assert_eq!(
        algorithm.description.as_deref(),
        Some("The algorithm of the new key. Signing algorithms.")
    );
    assert!(field(inputs, "approver.email").required);
    let markdown = docs.to_markdown();
    let row = markdown_row(&markdown, "## `rotate_key`", "graceDays");
    assert!(
        row.contains("| integer | no | minimum: `1`; maximum: `90` |"),
        "{row}"
    );
    assert!(markdown_row(&markdown, "## `rotate_key`", "algorithm")
        .contains("one of `\"ed25519\"`, `\"rsa4096\"`"));
}

#[test]
fn nested_unions_and_recursive_types_are_expanded_once() {
    let docs = vault_docs();
    let outputs = &tool_doc(&docs, "read_credential").outputs;
    let paths: Vec<&str> = outputs.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "accounts",
            "accounts[].login",
            "folder",
            "folder.children",
            "folder.name",
            "label",
            "method",
            "method.changed",
            "method.kind",
            "method.kind",
            "method.serial",
            "redactionApplied",
        ]
    );
    assert_eq!(field(outputs, "accounts").type_name, "array of Account");
    assert_eq!(
        field(outputs, "folder.children").type_name,
        "array of Folder"
    );
    let serial = field(outputs, "method.serial");
    assert_eq!(serial.variant.as_deref(), Some("kind = \"token\""));
    assert_eq!(
        serial.description.as_deref(),
        Some("The token's serial number.")
    );
    // The success result's description heads its table.
    let markdown = docs.to_markdown();
    assert!(markdown.contains("in `structuredContent`: A credential from the vault."));
    assert!(
        markdown_row(&markdown, "## `read_credential`", "method.serial")
            .contains("in variant `kind = \"token\"`")
    );
}

#[test]
fn docs_are_sorted_and_deterministic() {
    let router = Vault::tool_registry().unwrap();
    let mut tools = router.tools().to_vec();
    let forward = ServerDocs::from_tools("vault", &tools);
    tools.reverse();
    let backward = ServerDocs::from_tools("vault", &tools);
    assert_eq!(forward.to_markdown(), backward.to_markdown());
    assert_eq!(forward.to_json_pretty(), backward.to_json_pretty());
    let names: Vec<&str> = forward.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["health", "read_credential", "rotate_key"]);
    assert_eq!(vault_docs().to_markdown(), vault_docs().to_markdown());
}

/// Properties by name, constraints in one keyword order and JSON keys by name, whatever order
/// the schema's maps keep (serde_json's `preserve_order`, which any crate of a binary may turn
/// on, keeps the order they were written in): the docs are the same in every build.
#[test]
fn docs_do_not_depend_on_the_order_of_the_schema_maps() {
    let input = json!({
        "type": "object",
        "properties": {
            "zone": {"type": "integer", "maximum": 9, "minimum": 1},
            "area": {"type": "string", "default": {"b": 2, "a": 1}}
        },
        "required": ["zone"]
    });
    let tool = Tool::new(
        "place",
        "Place.",
        Arc::new(input.as_object().unwrap().clone()),
    );
    let docs = ServerDocs::from_tools("demo", &[tool]);
    let paths: Vec<&str> = docs.tools[0]
        .inputs
        .iter()
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(paths, ["area", "zone"]);
    let markdown = docs.to_markdown();
    assert!(
        markdown.contains("| `zone` | integer | yes | minimum: `1`; maximum: `9` |  |"),
        "{markdown}"
    );
    assert!(
        markdown.contains(r#"| `area` | string | no | default: `{"a":1,"b":2}` |  |"#),
        "{markdown}"
    );
    let json = docs.to_json_pretty();
    let at = |key: &str| json.find(key).unwrap();
    assert!(at("\"area\"") < at("\"zone\""), "{json}");
    assert!(at("\"maximum\"") < at("\"minimum\""), "{json}");
}

#[test]
fn a_wrapped_result_is_shown() {
    let success = json!({
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"type": "string"}}},
        "required": ["result"]
    });
    let output = ToolOutputSchema {
        success: Arc::new(success.as_object().unwrap().clone()),
        envelope: None,
        wrapped: Some("result".into()),
    };
    let tool = output.write(
        Tool::new("ids", "List ids.", Arc::new(serde_json::Map::new()))
            .with_annotations(ToolAnnotations::new().read_only(true)),
    );
    let docs = ServerDocs::from_tools("s", &[tool]);
    let wrap = docs.tools[0].wrap.as_ref().expect("wrap documented");
    assert_eq!(wrap.meta_key, WRAP_META_KEY);
    assert_eq!(docs.to_json()["docs"]["ids"]["wrap"]["value"], "result");
    let markdown = docs.to_markdown();
    assert!(markdown.contains(&format!(
        "| result wrapping | the value is wrapped under the property `result` | `_meta` key \
         `{WRAP_META_KEY}` |"
    )));
    assert_eq!(
        field(&docs.tools[0].outputs, "result").type_name,
        "array of string"
    );
    // Without it: nothing about wrapping.
    let plain = vault_docs();
    assert!(plain.tools.iter().all(|t| t.wrap.is_none()));
    assert!(!plain.to_markdown().contains("wrapped under"));
}

#[test]
fn rendered_markdown_is_well_formed() {
    let docs = vault_docs();
    let report = check_markdown(&docs.to_markdown()).unwrap_or_else(|e| panic!("{e}"));
    report.assert_covers(&["health", "read_credential", "rotate_key"]);
}

#[test]
fn the_markdown_check_catches_broken_tables_and_links() {
    let good = "# T\n\n## `a`\n\n- [a](#a)\n\n| x | y |\n|---|---|\n| 1 | 2 |\n";
    assert!(check_markdown(good).is_ok());
    let extra_cell = good.replace("| 1 | 2 |", "| 1 | 2 | 3 |");
    assert!(check_markdown(&extra_cell).unwrap_err().contains("cells"));
    let pipe = good.replace("| 1 | 2 |", "| `a|b` | 2 |");
    assert!(check_markdown(&pipe).unwrap_err().contains("cells"));
    let dangling = good.replace("(#a)", "(#b)");
    assert!(check_markdown(&dangling).unwrap_err().contains("#b"));
    let stray = format!("{good}\ntext\n| not | a table |\n");
    assert!(check_markdown(&stray).unwrap_err().contains("outside"));
}

// ---------------------------------------------------------------------------------------
// Markdown checks (pulldown-cmark, GitHub-flavoured tables)
// ---------------------------------------------------------------------------------------

#[derive(Debug)]
struct MarkdownReport {
    /// (level, text, anchor) of every heading, in order.
    headings: Vec<(HeadingLevel, String, String)>,
    /// Every in-page link target (without `#`).
    links: Vec<String>,
    tables: usize,
}

impl MarkdownReport {
    /// One H1, a `Contents` H2 linking every tool, each tool an H2 (its name) followed by
    /// its four H3 sections.
    fn assert_covers(&self, tools: &[&str]) {
        let h1 = self
            .headings
            .iter()
            .filter(|h| h.0 == HeadingLevel::H1)
            .count();
        assert_eq!(h1, 1, "one H1");
        assert!(self
            .headings
            .iter()
            .any(|h| h.0 == HeadingLevel::H2 && h.1 == "Contents"));
        for tool in tools {
            let at = self
                .headings
                .iter()
                .position(|h| h.0 == HeadingLevel::H2 && h.1 == *tool)
                .unwrap_or_else(|| panic!("no heading for `{tool}`"));
            let sections: Vec<&str> = self.headings[at + 1..]
                .iter()
                .take_while(|h| h.0 == HeadingLevel::H3)
                .map(|h| h.1.as_str())
                .collect();
            assert_eq!(
                sections,
                [
                    "Input parameters",
                    "Output fields",
                    "Errors",
                    "Host compatibility"
                ],
                "{tool}"
            );
            assert!(
                self.links.contains(&self.headings[at].2),
                "no TOC link to `{tool}`"
            );
        }
        assert!(self.tables >= tools.len() * 3, "{} tables", self.tables);
    }
}

/// GitHub's heading anchors: lower case; letters, digits, `-` and `_` kept, spaces become
/// `-`, everything else dropped; repeats get `-1`, `-2`, ...
fn github_anchor(text: &str, seen: &mut HashMap<String, usize>) -> String {
    let mut base = String::new();
    for c in text.trim().to_lowercase().chars() {
        if c == ' ' {
            base.push('-');
        } else if c.is_alphanumeric() || c == '-' || c == '_' {
            base.push(c);
        }
    }
    let n = seen.entry(base.clone()).or_default();
    let anchor = if *n == 0 {
        base.clone()
    } else {
        format!("{base}-{n}")
    };
    *n += 1;
    anchor
}

/// The cells of one raw table line, split at unescaped pipes (as GitHub does, code spans
/// included).
fn raw_cells(line: &str) -> usize {
    let line = line.trim();
    let line = line.strip_prefix('|').unwrap_or(line);
    let line = match line.strip_suffix('|') {
        Some(rest) if !rest.ends_with('\\') => rest,
        _ => line,
    };
    let mut cells = 1;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '|' => cells += 1,
            _ => {}
        }
    }
    cells
}

/// Parses `text` as GitHub-flavoured Markdown and checks that every table row has as many
/// cells as its header (in the parse and in the source line), that no table-like line lies
/// outside a table, and that every in-page link resolves to a heading.
fn check_markdown(text: &str) -> Result<MarkdownReport, String> {
    let mut report = MarkdownReport {
        headings: Vec::new(),
        links: Vec::new(),
        tables: 0,
    };
    let mut anchors = HashMap::new();
    let mut heading: Option<(HeadingLevel, String)> = None;
    let mut columns = 0;
    let mut cells = 0;
    let mut table_ranges = Vec::new();
    for (event, range) in Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level, String::new())),
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, h)) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let (level, text) = heading.take().unwrap();
                if text.trim().is_empty() {
                    return Err("an empty heading".into());
                }
                let anchor = github_anchor(&text, &mut anchors);
                report.headings.push((level, text, anchor));
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                if let Some(target) = dest_url.strip_prefix('#') {
                    report.links.push(target.to_owned());
                }
            }
            Event::Start(Tag::Table(alignments)) => {
                columns = alignments.len();
                report.tables += 1;
                table_ranges.push(range);
            }
            Event::Start(Tag::TableHead | Tag::TableRow) => {
                cells = 0;
                let line = text[range].lines().next().unwrap_or_default();
                if raw_cells(line) != columns {
                    return Err(format!(
                        "{} cells in a {columns}-column table: {line}",
                        raw_cells(line)
                    ));
                }
            }
            Event::Start(Tag::TableCell) => cells += 1,
            Event::End(TagEnd::TableHead | TagEnd::TableRow) if cells != columns => {
                return Err(format!("{cells} parsed cells in a {columns}-column table"));
            }
            _ => {}
        }
    }
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let inside = table_ranges
            .iter()
            .any(|r| r.start <= offset && offset < r.end);
        if line.trim_start().starts_with('|') && !inside {
            return Err(format!("a table row outside any table: {line}"));
        }
        offset += line.len();
    }
    let known: Vec<&str> = report.headings.iter().map(|h| h.2.as_str()).collect();
    if let Some(dangling) = report.links.iter().find(|l| !known.contains(&l.as_str())) {
        return Err(format!("link #{dangling} resolves to no heading"));
    }
    Ok(report)
}

#[test]
fn write_tools_document_their_idempotency_key_and_approval() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/helpdesk.json");
    let docs: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let tool = |name: &str| docs["docs"][name].clone();
    assert_eq!(
        tool("add_internal_note")["idempotency"],
        json!({"keyIn": ["_meta/io.github.mcp-result/idempotencyKey", "arguments/requestId"],
               "ttlSeconds": 86400})
    );
    assert_eq!(tool("search_tickets")["idempotency"], Value::Null);
    assert_eq!(tool("close_ticket")["requiresApproval"], true);
    assert_eq!(tool("add_internal_note")["requiresApproval"], false);
}

#[test]
fn paging_tools_document_cursor_page_size_and_expiry() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/helpdesk.json");
    let docs: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let tool = |name: &str| docs["docs"][name].clone();
    assert_eq!(
        tool("search_tickets")["paging"],
        json!({"cursorIn": "arguments/cursor", "pageSizeIn": "arguments/pageSize",
               "nextCursorIn": "structuredContent/nextCursor", "defaultPageSize": 50,
               "maxPageSize": 200, "cursorTtlSeconds": 86400})
    );
    assert_eq!(tool("get_ticket")["paging"], Value::Null);
    let search = tool("search_tickets");
    let inputs: Vec<&str> = search["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert!(
        inputs.contains(&"cursor") && inputs.contains(&"pageSize"),
        "{inputs:?}"
    );
    let markdown =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/helpdesk.md")).unwrap();
    assert!(markdown.contains(
        "| paging | pages of 50 items by default, at most 200 (`arguments/pageSize`); the next \
         page: the same arguments with `structuredContent/nextCursor` as `arguments/cursor`, \
         absent on the last page; cursors expire after 86400 s |"
    ));
}

#[test]
fn host_compatibility_lists_each_finding_under_its_tool() {
    let input = json!({"type": "object", "properties": {"limit": {"type": ["integer", "null"]}}});
    let dotted = Tool::new(
        "tickets.search",
        "Search tickets.",
        Arc::new(input.as_object().unwrap().clone()),
    );
    let docs = ServerDocs::from_tools("s", &[dotted]);
    assert_eq!(docs.hosts, Host::PORTABLE);
    let findings: Vec<(&str, &str)> = docs.tools[0]
        .host_findings
        .iter()
        .map(|f| (f.rule, f.host.name()))
        .collect();
    assert_eq!(
        findings,
        [
            ("claude-name", "claude-api"),
            ("claude-name", "claude-desktop"),
            ("claude-name", "claude-code"),
            ("openai-name", "openai"),
            ("openai-name", "codex"),
            ("copilot-name", "vscode-copilot"),
            ("gemini-type-list", "gemini"),
        ]
    );
    let markdown = docs.to_markdown();
    check_markdown(&markdown).expect("well-formed");
    assert!(
        markdown.contains("7 findings, each under its tool"),
        "{markdown}"
    );
    assert!(
        markdown.contains(
            "| Gemini | [`gemini-type-list`](https://github.com/github/copilot-cli/issues/4623) \
             | `/inputSchema/properties/limit/type` |"
        ),
        "{markdown}"
    );
    let json = docs.to_json();
    assert_eq!(json["hosts"][0], "mcp");
    assert_eq!(
        json["docs"]["tickets.search"]["hostFindings"][6]["rule"],
        "gemini-type-list"
    );
    // Strict mode on request: the optional `limit` and the open object.
    let strict = docs.with_hosts(&[Host::OpenAiStrict]);
    let rules: Vec<&str> = strict.tools[0]
        .host_findings
        .iter()
        .map(|f| f.rule)
        .collect();
    assert_eq!(
        rules,
        [
            "openai-name",
            "openai-strict-closed-objects",
            "openai-strict-required"
        ]
    );
    // A portable tool: every host checked accepts it.
    let clean = ServerDocs::from_tools(
        "s",
        &[Tool::new(
            "search",
            "Search.",
            mcp_result::schema::empty_input_schema(),
        )],
    );
    assert!(clean
        .to_markdown()
        .contains("### Host compatibility\n\nEvery host checked accepts this tool."));
}
