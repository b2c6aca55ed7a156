//! The guide's tutorial (`docs/guide/00-tutorial.md`) is true, step by step.
//!
//! - `guide_tutorial/quickstart.rs` is README.md's quickstart word for word, and
//!   `guide_tutorial/step{2,3,4,5,7}.rs` are the reader's `src/main.rs` after each step: step 2
//!   is the chapter's whole block, and every other Rust block of the chapter is a run of
//!   lines of its step's file. Each file is compiled here (`include!`, so not one character
//!   is rustfmt's), and the tests the chapter has the reader write run with this suite.
//! - Every JSON block of the chapter is what the server answers, ids, times and process ids
//!   aside: the `outputSchema` of step 1, the results of steps 2 to 4 (in-process, the
//!   approvals handed in), and over streamable HTTP, with rmcp's client, the SQLite stores of
//!   step 5 and a restart between the blocked round and the approved call, the records of
//!   step 6 as `sqlite3` prints them.
//! - Each of those blocks writes its keys in the order the reader's server sends them, key
//!   for key: a default build, serde_json without `preserve_order`, so every JSON value
//!   (`structuredContent`, the JSON-compat text, the schema) with its keys sorted and rmcp's
//!   and the audit log's own structs in their declaration order ([`sent`], [`sent_result`]).
//!   This binary may have the feature `preserve-order` on (`--all-features`), so the order is
//!   rebuilt from the answer, not read from it, and the chapter's text is read as text
//!   ([`keys_in_order`]).
//! - The compiler error the chapter quotes is the one the framework's diagnostic writes, and
//!   points at the line of step 2 it names; the features the chapter's `Cargo.toml` turns on
//!   are the ones this test is built with.

// The chapter's `main` functions are compiled, not run; its tools' fields are read by serde.
#![allow(dead_code)]

use std::{collections::BTreeMap, sync::Arc};

use mcp_result::{
    approval::MemoryApprovals,
    rmcp::{
        model::{CallToolRequestParams, CallToolResult, ContentBlock},
        service::{RoleClient, RunningService},
        transport::{
            streamable_http_client::StreamableHttpClientTransportConfig,
            StreamableHttpClientTransport,
        },
        ServerHandler, ServiceExt,
    },
    sql::{sqlx, SqlStores},
    State,
};
use serde_json::{json, Value};

mod quickstart {
    include!("guide_tutorial/quickstart.rs");
}

mod step2 {
    include!("guide_tutorial/step2.rs");
}

mod step3 {
    include!("guide_tutorial/step3.rs");
}

mod step4 {
    include!("guide_tutorial/step4.rs");
}

mod step7 {
    include!("guide_tutorial/step7.rs");
}

mod step5 {
    include!("guide_tutorial/step5.rs");

    /// The chapter's `serve`, for the tests below.
    pub(crate) async fn serve_on(
        stores: SqlStores,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), Error> {
        serve(stores, listener, shutdown).await
    }

    /// The chapter's `approve`, for the tests below.
    pub(crate) async fn approve_as(
        stores: &SqlStores,
        request: &str,
        approver: &str,
    ) -> Result<(), Error> {
        approve(stores, request, approver).await
    }
}

const CHAPTER: &str = include_str!("../docs/guide/00-tutorial.md");

/// The fenced blocks of `markdown`: (info string, content without the fences).
fn blocks(markdown: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut open: Option<(String, Vec<&str>)> = None;
    for line in markdown.lines() {
        match open.as_mut() {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    open = Some((info.to_owned(), Vec::new()));
                }
            }
            Some((_, lines)) if line == "```" => {
                let (info, lines) = open.take().unwrap();
                found.push((info, lines.join("\n")));
            }
            Some((_, lines)) => lines.push(line),
        }
    }
    assert!(open.is_none(), "a fenced block is not closed");
    found
}

/// The chapter's blocks whose info string starts with `language`.
fn chapter_blocks(language: &str) -> Vec<(String, String)> {
    blocks(CHAPTER)
        .into_iter()
        .filter(|(info, _)| info.split(',').next() == Some(language))
        .collect()
}

/// The chapter's JSON blocks, in order, each parsed (a block of JSON lines is an array).
fn json_blocks() -> Vec<Value> {
    chapter_blocks("json")
        .into_iter()
        .map(|(_, text)| {
            let mut values: Vec<Value> = serde_json::Deserializer::from_str(&text)
                .into_iter::<Value>()
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| {
                    panic!("a JSON block of the chapter does not parse: {e}\n{text}")
                });
            if values.len() == 1 {
                values.pop().unwrap()
            } else {
                Value::Array(values)
            }
        })
        .collect()
}

const STEP2: &str = include_str!("guide_tutorial/step2.rs");
const STEP3: &str = include_str!("guide_tutorial/step3.rs");
const STEP4: &str = include_str!("guide_tutorial/step4.rs");
const STEP5: &str = include_str!("guide_tutorial/step5.rs");
const STEP7: &str = include_str!("guide_tutorial/step7.rs");

/// Whether `part`'s lines are a run of `file`'s lines.
fn is_run_of(part: &str, file: &str) -> bool {
    let part: Vec<&str> = part.lines().collect();
    let file: Vec<&str> = file.lines().collect();
    !part.is_empty() && file.windows(part.len()).any(|window| window == part)
}

#[test]
fn the_files_here_are_the_chapters_code() {
    let readme = include_str!("../README.md");
    let from = readme.find("## Quickstart").unwrap();
    let quickstart = blocks(&readme[from..])
        .into_iter()
        .find(|(info, _)| info == "rust,no_run")
        .unwrap()
        .1;
    assert_eq!(
        format!("{quickstart}\n"),
        include_str!("guide_tutorial/quickstart.rs"),
        "guide_tutorial/quickstart.rs is README.md's quickstart"
    );

    // Step 2 is a whole file; every other block is a run of lines of its step's file.
    let expected: [(&str, &str, bool); 12] = [
        ("step2.rs", STEP2, true),
        ("step3.rs", STEP3, false), // CloseArgs with its key
        ("step3.rs", STEP3, false), // the tool, keyed
        ("step3.rs", STEP3, false), // the test
        ("step4.rs", STEP4, false), // the result's approvalId
        ("step4.rs", STEP4, false), // the tool, approved
        ("step4.rs", STEP4, false), // the test
        ("step5.rs", STEP5, false), // the imports
        ("step5.rs", STEP5, false), // main, serve, approve
        ("step7.rs", STEP7, false), // the table's migration and the notes' types
        ("step7.rs", STEP7, false), // the two tools
        ("step7.rs", STEP7, false), // main's connect
    ];
    let rust = chapter_blocks("rust");
    assert_eq!(
        rust.len(),
        expected.len(),
        "the chapter has {} Rust blocks; this test knows {}: map the new one to its step's file",
        rust.len(),
        expected.len()
    );
    for (index, ((info, code), (name, file, whole))) in rust.iter().zip(expected).enumerate() {
        if whole {
            assert_eq!(info, "rust,no_run", "Rust block {index}");
            assert_eq!(
                format!("{code}\n"),
                file,
                "Rust block {index} of the chapter is guide_tutorial/{name}, whole"
            );
        } else {
            // A piece of a file: rustdoc cannot compile it alone; this test does, in place.
            assert_eq!(info, "rust,ignore", "Rust block {index}");
            assert!(
                is_run_of(code, file),
                "Rust block {index} of the chapter is not a run of lines of \
                 guide_tutorial/{name}:\n{code}"
            );
        }
    }
}

#[test]
fn the_features_the_chapter_turns_on_are_this_tests() {
    let toml = chapter_blocks("toml");
    assert_eq!(
        toml.len(),
        2,
        "the dev-dependencies of step 3, the dependencies of step 5"
    );
    assert!(
        toml[0]
            .1
            .contains(r#"mcp-result = { version = "0.1", features = ["testing"] }"#),
        "{}",
        toml[0].1
    );
    assert!(
        toml[1]
            .1
            .contains(r#"mcp-result = { version = "0.1", features = ["http", "sqlite"] }"#),
        "{}",
        toml[1].1
    );
    // The chapter's features, and this test's `required-features`, are on.
    assert!(cfg!(feature = "testing") && cfg!(feature = "http") && cfg!(feature = "sqlite"));
    for feature in ["net", "signal", "macros", "rt-multi-thread"] {
        assert!(
            toml[1].1.contains(&format!("\"{feature}\"")),
            "tokio's {feature}"
        );
    }
}

/// The Rust source files under `dir`, read.
fn sources(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(std::fs::read_to_string(path).unwrap());
        }
    }
    found
}

#[test]
fn the_quoted_error_is_the_frameworks() {
    let (_, error) = chapter_blocks("text")
        .into_iter()
        .find(|(_, text)| text.starts_with("error[E0277]"))
        .expect("the quoted compiler error");
    let lines: Vec<&str> = error.lines().collect();
    // The message and the note are the diagnostic's, with the type's name in.
    let core = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp-result-core/src");
    let code = sources(&core).join("\n");
    let message = lines[0]
        .strip_prefix("error[E0277]: ")
        .unwrap()
        .replace("TicketClosed", "{Self}");
    assert!(code.contains(&message), "no diagnostic says {message:?}");
    let note = lines
        .iter()
        .find_map(|line| line.trim_start().strip_prefix("= note: "))
        .expect("the note");
    // As the source writes it, in a string literal.
    let note = note.replace('"', "\\\"");
    assert!(code.contains(&note), "no diagnostic notes {note:?}");
    let label = lines[4].trim_start_matches([' ', '|', '^']);
    assert!(
        code.contains(&format!("label = \"{label}\"")),
        "no diagnostic labels {label:?}"
    );
    // It points at step 2's `close_ticket` with `audit_event_id` left out (one line up).
    let at = lines[1]
        .trim_start()
        .strip_prefix("--> src/main.rs:")
        .unwrap();
    let (line, column) = at.split_once(':').unwrap();
    let line: usize = line.parse().unwrap();
    let field = STEP2
        .lines()
        .position(|l| l.trim() == "pub audit_event_id: AuditEventId,")
        .unwrap()
        + 1;
    assert!(field < line);
    let source = STEP2.lines().nth(line).unwrap(); // `line` of the file without the field
    assert_eq!(lines[3], format!("{line} | {source}"));
    assert_eq!(
        column.parse::<usize>().unwrap(),
        source.find("TicketClosed").unwrap() + 1
    );
}

/// `value` with what changes from run to run made stable: every UUID, wherever it is (a
/// message too), becomes `<id N>` in the order of first appearance (keys walked sorted, so
/// equal ids stay equal and distinct ones distinct); `time`, `instance` and `durationMs`
/// become placeholders; a text block that is JSON (the JSON-compat text) is parsed.
fn normalize(value: &Value) -> Value {
    let mut ids: BTreeMap<String, usize> = BTreeMap::new();
    normalize_with(value, &mut ids)
}

fn normalize_with(value: &Value, ids: &mut BTreeMap<String, usize>) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = serde_json::Map::new();
            for key in keys {
                let field = &map[key];
                let normalized = match (key.as_str(), field) {
                    ("time", _) => json!("<time>"),
                    ("instance", _) => json!("<instance>"),
                    ("durationMs", _) => json!("<duration>"),
                    ("text", Value::String(text)) if text.starts_with('{') => {
                        let parsed: Value = serde_json::from_str(text).unwrap();
                        json!({"json": normalize_with(&parsed, ids)})
                    }
                    _ => normalize_with(field, ids),
                };
                out.insert(key.clone(), normalized);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| normalize_with(v, ids)).collect()),
        Value::String(text) => Value::String(replace_ids(text, ids)),
        other => other.clone(),
    }
}

fn is_uuid(candidate: &[u8]) -> bool {
    candidate.len() == 36
        && candidate.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

fn replace_ids(text: &str, ids: &mut BTreeMap<String, usize>) -> String {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut at = 0;
    while at < bytes.len() {
        if at + 36 <= bytes.len() && is_uuid(&bytes[at..at + 36]) {
            let next = ids.len() + 1;
            let n = *ids.entry(text[at..at + 36].to_owned()).or_insert(next);
            out.push_str(&format!("<id {n}>"));
            at += 36;
        } else {
            let c = text[at..].chars().next().unwrap();
            out.push(c);
            at += c.len_utf8();
        }
    }
    out
}

/// `value` with the keys of every object sorted, at any depth: how serde_json without
/// `preserve_order` (the default) holds, and writes, every JSON value.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|key| (key.clone(), sorted(&map[key])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The text a default build sends for a JSON value the server holds as one (a
/// `structuredContent`, an `outputSchema`): its keys sorted.
fn sent(value: &Value) -> String {
    serde_json::to_string(&sorted(value)).unwrap()
}

/// The text a default build sends for `result`: rmcp's structs (the result, its content
/// blocks and their annotations) field by field in their declaration order, whatever the
/// features, and the JSON values in them with their keys sorted: `structuredContent`, and the
/// JSON-compat text, which the server writes from that same value.
fn sent_result(result: &CallToolResult) -> String {
    let mut result = result.clone();
    result.structured_content = result.structured_content.as_ref().map(sorted);
    for block in &mut result.content {
        if let ContentBlock::Text(block) = block {
            if block.text.starts_with('{') {
                let value: Value = serde_json::from_str(&block.text).unwrap();
                block.text = sent(&value);
            }
        }
    }
    serde_json::to_string(&result).unwrap()
}

/// The keys of `text`'s objects in the order the text writes them, depth first; a string
/// value that is itself a JSON object (the JSON-compat text) gives its keys where it stands.
/// Read from the text, not from a parsed map, whose order depends on `preserve_order`.
fn keys_in_order(text: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut chars = text.char_indices();
    while let Some((start, c)) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut end = text.len();
        let mut escaped = false;
        for (at, c) in chars.by_ref() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => {
                    end = at;
                    break;
                }
                _ => {}
            }
        }
        let string: String = serde_json::from_str(&text[start..=end])
            .unwrap_or_else(|e| panic!("a string of {text:?} does not parse: {e}"));
        if text[end + 1..].trim_start().starts_with(':') {
            keys.push(string);
        } else if string.starts_with('{') {
            keys.extend(keys_in_order(&string));
        }
    }
    keys
}

/// JSON block `index` of the chapter writes its keys in the order of `sent`, the text a
/// default build sends.
fn assert_key_order(index: usize, sent: &str) {
    let (_, shown) = &chapter_blocks("json")[index];
    assert_eq!(
        keys_in_order(shown),
        keys_in_order(sent),
        "JSON block {index} of the chapter does not write its keys in the order a default \
         build (serde_json without `preserve_order`) sends them:\n{sent}"
    );
}

/// `actual` is what JSON block `index` of the chapter shows, modulo [`normalize`], its keys
/// in the order a default build sends them ([`sent`]).
fn assert_shows(index: usize, actual: &Value) {
    assert_same_value(index, actual);
    assert_key_order(index, &sent(actual));
}

/// `result` is what JSON block `index` of the chapter shows, as [`assert_shows`], its keys
/// in the order a default build sends them ([`sent_result`]).
fn assert_shows_result(index: usize, result: &CallToolResult) {
    assert_same_value(index, &serde_json::to_value(result).unwrap());
    assert_key_order(index, &sent_result(result));
}

/// `actual` is what JSON block `index` of the chapter shows, modulo [`normalize`] (key
/// order aside).
fn assert_same_value(index: usize, actual: &Value) {
    let shown = &json_blocks()[index];
    assert_eq!(
        normalize(actual),
        normalize(shown),
        "JSON block {index} of the chapter is not what the server answers; it answers\n{}",
        serde_json::to_string_pretty(actual).unwrap()
    );
}

#[test]
fn keys_are_read_in_the_order_written() {
    let text = r#"{"b": 1, "a": {"d": "x:y", "c": "{\"f\":1,\"e\":\"\\\"\"}"}, "s": ["g"]}"#;
    assert_eq!(keys_in_order(text), ["b", "a", "d", "c", "f", "e", "s"]);
    let value: Value = serde_json::from_str(text).unwrap();
    // Sorted at every depth; a string stays as it is.
    assert_eq!(
        keys_in_order(&sent(&value)),
        ["a", "c", "f", "e", "d", "b", "s"]
    );
}

/// The JSON blocks the tests below check, in the chapter's order.
const OUTPUT_SCHEMA: usize = 0;
const CLOSED: usize = 1;
const KEYED: usize = 2;
const CONFLICT: usize = 3;
const BLOCKED: usize = 4;
const APPROVED: usize = 5;
const AUDIT: usize = 6;

#[test]
fn every_json_block_is_checked() {
    assert_eq!(json_blocks().len(), AUDIT + 1);
}

/// `server` served in-process with `state`, to rmcp's client.
async fn connect<S>(server: S, state: State) -> RunningService<RoleClient, ()>
where
    S: ServerHandler + mcp_result::ToolSet + Clone + Send + Sync + 'static,
{
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Err(error) = mcp_result::serve_with_state(server, server_io, state).await {
            panic!("the chapter's server does not start: {error}");
        }
    });
    ().serve(client_io).await.unwrap()
}

fn close(arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new("close_ticket")
        .with_arguments(arguments.as_object().unwrap().clone())
}

fn structured(result: &CallToolResult) -> Value {
    result
        .structured_content
        .clone()
        .expect("structuredContent")
}

#[tokio::test]
async fn step_1_the_quickstart_advertises_the_schema_shown() {
    let client = connect(quickstart::Desk, State::new()).await;
    let tools = client.list_all_tools().await.unwrap();
    let search = tools.iter().find(|t| t.name == "search_tickets").unwrap();
    let schema = Value::Object(search.output_schema.as_deref().unwrap().clone());
    assert_shows(OUTPUT_SCHEMA, &schema);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn step_2_a_write_answers_what_is_shown() {
    let desk = step2::Desk::default();
    let client = connect(desk.clone(), State::new()).await;
    let result = client
        .call_tool(close(json!({"ticketId": "T-1"})))
        .await
        .unwrap();
    assert_shows_result(CLOSED, &result);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn step_3_a_retry_is_the_first_answer_and_another_call_is_refused() {
    let client = connect(step3::Desk::default(), State::new()).await;
    let keyed = json!({"ticketId": "T-1", "requestId": "close-T-1"});
    let first = client.call_tool(close(keyed.clone())).await.unwrap();
    let retry = client.call_tool(close(keyed)).await.unwrap();
    assert_eq!(retry, first, "the retry is the first answer, replayed");
    assert_shows(KEYED, &structured(&first));
    let other = client
        .call_tool(close(json!({"ticketId": "T-2", "requestId": "close-T-1"})))
        .await
        .unwrap();
    assert_eq!(other.is_error, Some(true));
    assert_shows(CONFLICT, &structured(&other));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn step_4_blocked_approved_and_run_once() {
    let approvals = MemoryApprovals::default();
    let state = State::new().with_approval_store(Arc::new(approvals.clone()));
    let client = connect(step4::Desk::default(), state).await;
    let keyed = json!({"ticketId": "T-1", "requestId": "close-T-1"});
    let blocked = client.call_tool(close(keyed.clone())).await.unwrap();
    assert_eq!(blocked.is_error, Some(true));
    assert_shows(BLOCKED, &structured(&blocked));
    let request = structured(&blocked)["approvalRequestId"]
        .as_str()
        .unwrap()
        .to_owned();
    let approval = approvals.approve(&request, "alice").unwrap();
    let mut approved = keyed.clone();
    approved["approvalRequestId"] = json!(request);
    let closed = client.call_tool(close(approved)).await.unwrap();
    assert_eq!(structured(&closed)["approvalId"], approval);
    assert_shows(APPROVED, &structured(&closed));
    client.cancel().await.unwrap();
}

/// One run of step 5's server (the chapter's `serve`) on `url`, on a port of its own.
struct Running {
    url: String,
    stop: tokio::sync::oneshot::Sender<()>,
    served: tokio::task::JoinHandle<Result<(), Box<dyn std::error::Error + Send + Sync>>>,
}

async fn start(database: &str) -> Running {
    let stores = SqlStores::connect(database).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(step5::serve_on(stores, listener, async {
        let _ = stopped.await;
    }));
    Running { url, stop, served }
}

impl Running {
    async fn client(&self, token: &str) -> RunningService<RoleClient, ()> {
        let config =
            StreamableHttpClientTransportConfig::with_uri(self.url.clone()).auth_header(token);
        let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
        ().serve(transport)
            .await
            .expect("connect over streamable HTTP")
    }

    async fn stop(self) {
        let _ = self.stop.send(());
        self.served.await.unwrap().unwrap();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn steps_5_and_6_over_http_on_sqlite_across_a_restart() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("guide_tutorial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let database = format!("sqlite:{}", dir.join("desk.db").display());
    let keyed = json!({"ticketId": "T-1", "requestId": "close-T-1"});

    // Bob's call is blocked, as in step 4; the server stops.
    let first = start(&database).await;
    let bob = first.client("bob-token").await;
    let blocked = bob.call_tool(close(keyed.clone())).await.unwrap();
    assert_shows(BLOCKED, &structured(&blocked));
    let request = structured(&blocked)["approvalRequestId"]
        .as_str()
        .unwrap()
        .to_owned();
    bob.cancel().await.unwrap();
    first.stop().await;

    // Alice approves from another connection to the database (the chapter's `approve`).
    let approver = SqlStores::connect(&database).await.unwrap();
    step5::approve_as(&approver, &request, "alice")
        .await
        .unwrap();

    // A new server on the same database runs bob's call again, once; a retry replays it.
    let second = start(&database).await;
    let bob = second.client("bob-token").await;
    let mut approved = keyed.clone();
    approved["approvalRequestId"] = json!(request);
    let closed = bob.call_tool(close(approved)).await.unwrap();
    assert_shows(APPROVED, &structured(&closed));
    let retry = bob.call_tool(close(keyed)).await.unwrap();
    assert_eq!(structured(&retry), structured(&closed), "replayed");
    // No token, no call.
    let stranger = StreamableHttpClientTransport::with_client(
        reqwest::Client::new(),
        StreamableHttpClientTransportConfig::with_uri(second.url.clone()),
    );
    assert!(
        ().serve(stranger).await.is_err(),
        "a client without a token is refused"
    );
    bob.cancel().await.unwrap();
    second.stop().await;

    // Step 6: the records as `sqlite3` prints them, the same statement.
    let console = chapter_blocks("console");
    let sql = "SELECT record FROM mcp_result_audit ORDER BY seq";
    assert!(
        console
            .iter()
            .any(|(_, text)| text.contains(&format!("sqlite3 desk.db \"{sql}\""))),
        "the chapter's sqlite3 command runs {sql:?}"
    );
    let rows: Vec<String> = sqlx::query_scalar::<_, String>(sql)
        .fetch_all(approver.pool())
        .await
        .unwrap();
    // The rows' text is what any build writes (an `AuditRecord` is serialized field by
    // field, in its declaration order): the chapter's lines have its keys in that order.
    assert_key_order(AUDIT, &rows.join("\n"));
    let records: Vec<Value> = rows
        .iter()
        .map(|row| serde_json::from_str(row).unwrap())
        .collect();
    // alice's decision, then the intent and outcome of the write bob was answered about;
    // the replay points at it.
    assert_eq!(
        records[1]["phase"], "approved",
        "alice's decision, recorded by `approve`"
    );
    assert_eq!(records[2]["eventId"], structured(&closed)["auditEventId"]);
    // Normalized together, so the ids the records share with the answer must match too.
    let shown = json!({"answer": json_blocks()[APPROVED], "records": json_blocks()[AUDIT]});
    assert_eq!(
        normalize(&json!({"answer": structured(&closed), "records": records})),
        normalize(&shown),
        "the audit records the chapter shows; the log holds\n{}",
        records
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
    approver.close().await;
    let _ = std::fs::remove_dir_all(dir);
}
