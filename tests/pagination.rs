//! Large result sets in pages (issue 22): a server written the way the README teaches seeds
//! its own 500-ticket desk and pages its searches with `Pager`/`Page`; rmcp's client walks
//! them over a real transport (a duplex stream). Every page is there once, in order; the
//! last has no `nextCursor`; every way a cursor can be wrong is the same exact
//! `validation_error` naming `cursor`.

use std::{sync::Arc, time::Duration};

use mcp_result::{
    mcp_handler, mcp_tools,
    pagination::{Page, PagePolicy, Pager},
    rmcp::{
        model::{CallToolRequestParams, CallToolResult, ClientConfig, Implementation, Tool},
        service::{RequestContext, RoleClient, RunningService, ServiceExt},
        RoleServer, ServerHandler,
    },
    Identity, ServerServices, ToolError,
};
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

type Client = RunningService<RoleClient, ClientConfig>;

/// One ticket as a search shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Ticket {
    id: String,
    title: String,
    severity: u8,
}

/// The desk: its tickets, in id order.
#[derive(Clone)]
struct Desk {
    tickets: Arc<Vec<Ticket>>,
}

impl Desk {
    fn seeded(count: usize) -> Self {
        let words = ["login", "export", "billing", "sso", "latency"];
        Self::of((0..count).map(|i| Ticket {
            id: format!("T-{:05}", i + 1),
            title: format!("{} problem #{}", words[i % words.len()], i + 1),
            severity: (i % 4) as u8,
        }))
    }

    fn of(tickets: impl IntoIterator<Item = Ticket>) -> Self {
        Self {
            tickets: Arc::new(tickets.into_iter().collect()),
        }
    }

    fn matching<'a>(&'a self, args: &'a SearchArgs) -> impl Iterator<Item = &'a Ticket> + 'a {
        self.tickets.iter().filter(move |t| {
            t.title.contains(&args.query) && args.min_severity.is_none_or(|min| t.severity >= min)
        })
    }
}

/// Arguments of every search. `deny_unknown_fields`: `cursor` and `pageSize` never reach it.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SearchArgs {
    /// Words the title contains (`""`: every ticket).
    query: String,
    /// Only tickets at or above this severity.
    #[serde(default)]
    min_severity: Option<u8>,
}

/// Cursors that last 50 ms, pages of 3 (at most 5).
enum Brief {}
impl PagePolicy for Brief {
    const DEFAULT_PAGE_SIZE: usize = 3;
    const MAX_PAGE_SIZE: usize = 5;
    const CURSOR_LIFETIME: Duration = Duration::from_millis(50);
}

#[mcp_tools(services)]
impl Desk {
    /// Search tickets by title, in id order, a page at a time (offset positions).
    #[mcp_tool(read_only)]
    fn search_tickets(&self, args: SearchArgs, pages: Pager<usize>) -> Page<Ticket> {
        let matches: Vec<Ticket> = self.matching(&args).cloned().collect();
        pages.slice(&matches)
    }

    /// The same search, keyset paging: the position is the last id shown.
    #[mcp_tool(read_only)]
    async fn tickets_after(
        &self,
        pages: Pager<String>,
        args: SearchArgs,
    ) -> Result<Page<Ticket>, ToolError> {
        let after = pages.position();
        let mut items: Vec<Ticket> = self
            .matching(&args)
            .filter(|t| after.as_ref().is_none_or(|after| t.id > *after))
            .take(pages.page_size() + 1)
            .cloned()
            .collect();
        let more = items.len() > pages.page_size();
        items.truncate(pages.page_size());
        let next = more.then(|| items.last().map(|t| t.id.clone())).flatten();
        Ok(pages.page(items, next, None))
    }

    /// The same search with short-lived cursors and small pages.
    #[mcp_tool(read_only)]
    fn search_brief(&self, args: SearchArgs, pages: Pager<usize, Brief>) -> Page<Ticket> {
        let matches: Vec<Ticket> = self.matching(&args).cloned().collect();
        pages.slice(&matches)
    }

    /// Every match at once (the unpaged call the pages must add up to).
    #[mcp_tool(read_only)]
    fn search_all(&self, args: SearchArgs) -> Vec<Ticket> {
        self.matching(&args).cloned().collect()
    }

    /// A broken walk: after the first page, every page is empty and points at itself.
    #[mcp_tool(read_only)]
    fn stuck_search(&self, args: SearchArgs, pages: Pager<usize>) -> Page<Ticket> {
        let _ = args;
        pages.page(Vec::new(), Some(pages.position().unwrap_or(0)), None)
    }
}

/// The caller is the client's name from its `initialize` (this test's transport: one
/// client per connection, as a verified login would be).
impl ServerServices for Desk {
    fn caller_identity(&self, context: &RequestContext<RoleServer>) -> Option<Identity> {
        let peer = context.peer.peer_info()?;
        Some(Identity::new(peer.client_info.name.clone()))
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

/// rmcp's client named `caller`, connected to `desk` over a duplex stream.
async fn connect(desk: Desk, caller: &str) -> Client {
    let (server_io, client_io) = tokio::io::duplex(1 << 22);
    tokio::spawn(async move {
        if let Ok(running) = desk.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let info = ClientConfig::new(Default::default(), Implementation::new(caller, "1.0"));
    info.serve(client_io).await.expect("initialize")
}

async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await
        .expect("a tools/call result")
}

fn structured(result: &CallToolResult) -> &Value {
    result
        .structured_content
        .as_ref()
        .expect("structuredContent")
}

fn summary(result: &CallToolResult) -> &str {
    &result.content[0].as_text().expect("a text block").text
}

fn with(arguments: &Value, key: &str, value: Value) -> Value {
    let mut arguments = arguments.clone();
    arguments[key] = value;
    arguments
}

/// Walks every page of `tool` with `arguments`, the page size of each call taken in turn
/// from `sizes` (none: the default). Returns the pages' results.
async fn walk(client: &Client, tool: &str, arguments: Value, sizes: &[u64]) -> Vec<CallToolResult> {
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut args = arguments.clone();
        if !sizes.is_empty() {
            args["pageSize"] = json!(sizes[pages.len() % sizes.len()]);
        }
        if let Some(cursor) = &cursor {
            args["cursor"] = json!(cursor);
        }
        let result = call(client, tool, args).await;
        assert_eq!(result.is_error, Some(false), "{result:?}");
        cursor = structured(&result)["nextCursor"]
            .as_str()
            .map(str::to_owned);
        pages.push(result);
        if cursor.is_none() {
            return pages;
        }
        assert!(pages.len() <= 1000, "the walk does not end");
    }
}

fn items(pages: &[CallToolResult]) -> Vec<Ticket> {
    pages
        .iter()
        .flat_map(|page| {
            serde_json::from_value::<Vec<Ticket>>(structured(page)["items"].clone()).unwrap()
        })
        .collect()
}

fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools.iter().find(|t| t.name == name).expect("listed")
}

/// The one refusal every bad cursor gets: `validation_error` at `/cursor`, saying why and to
/// start again without it.
fn refusal(reason: &str) -> Value {
    json!({
        "status": "failed",
        "errorKind": "validation_error",
        "retrySafe": true,
        "message": format!(
            "Invalid argument `cursor`: {reason}. Call again without `cursor` to start from the first page."
        ),
        "fieldErrors": [{
            "pointer": "/cursor",
            "message": format!("{reason}; call again without `cursor` to start from the first page"),
        }],
    })
}

fn assert_refused(result: &CallToolResult, reason: &str) {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert_eq!(structured(result), &refusal(reason));
    assert_eq!(
        summary(result),
        format!(
            "Error (validation_error): Invalid argument `cursor`: {reason}. Call again without \
             `cursor` to start from the first page."
        )
    );
}

#[tokio::test]
async fn a_walk_shows_every_ticket_once_in_order_and_ends_without_a_cursor() {
    let desk = Desk::seeded(500);
    let client = connect(desk.clone(), "alice").await;
    let pages = walk(&client, "search_tickets", json!({"query": ""}), &[]).await;
    assert_eq!(pages.len(), 10, "500 tickets in pages of 50 (the default)");
    assert_eq!(items(&pages), *desk.tickets);
    for (i, page) in pages.iter().enumerate() {
        let page_value = structured(page);
        assert_eq!(page_value["offset"], i * 50);
        assert_eq!(page_value["totalEstimate"], 500);
        let cursor = page_value["nextCursor"].as_str();
        match cursor {
            Some(cursor) => {
                assert!(cursor.len() < 200, "a small cursor: {cursor}");
                assert!(cursor
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
                assert_eq!(
                    summary(page),
                    format!(
                        "Showing {}–{} of about 500; call again with the same arguments and \
                         cursor \"{cursor}\" to continue.",
                        i * 50 + 1,
                        i * 50 + 50
                    )
                );
            }
            None => {
                assert_eq!(i, 9);
                assert_eq!(
                    summary(page),
                    "Showing 451–500 of 500; this is the last page."
                );
            }
        }
        // The JSON-compat block is the same object.
        let compat: Value = serde_json::from_str(&page.content[1].as_text().unwrap().text).unwrap();
        assert_eq!(&compat, page_value);
    }

    // The page size may change in the middle of a walk; a filter narrows it.
    let narrowed = walk(
        &client,
        "search_tickets",
        json!({"query": "login", "minSeverity": 2}),
        &[7, 30, 1],
    )
    .await;
    let expected: Vec<Ticket> = desk
        .tickets
        .iter()
        .filter(|t| t.title.contains("login") && t.severity >= 2)
        .cloned()
        .collect();
    assert_eq!(expected.len(), 50);
    assert_eq!(items(&narrowed), expected);
    assert_eq!(
        narrowed
            .iter()
            .map(|p| structured(p)["items"].as_array().unwrap().len())
            .collect::<Vec<_>>(),
        [7, 30, 1, 7, 5]
    );

    // Keyset paging (`Result<Page<T>, ToolError>`, a last-seen id as the position).
    let keyset = walk(&client, "tickets_after", json!({"query": "sso"}), &[33]).await;
    assert_eq!(keyset.len(), 4);
    let sso: Vec<Ticket> = desk
        .tickets
        .iter()
        .filter(|t| t.title.contains("sso"))
        .cloned()
        .collect();
    assert_eq!(items(&keyset), sso);
    assert_eq!(
        summary(&keyset[3]),
        "Showing 100–100 of 100; this is the last page."
    );
    assert_eq!(
        summary(&keyset[0]).split(" cursor ").next(),
        Some("Showing 1–33; call again with the same arguments and")
    );

    // Nothing matches: one page, no cursor.
    let none = call(&client, "search_tickets", json!({"query": "nothing"})).await;
    assert_eq!(
        structured(&none),
        &json!({"items": [], "offset": 0, "totalEstimate": 0})
    );
    assert_eq!(summary(&none), "No items.");
}

/// A page that does not advance is never answered: a client following its `nextCursor`
/// would get it forever. The same position gives the same cursor, so loop guards see it.
#[tokio::test]
async fn a_page_that_does_not_advance_is_refused_naming_the_tool() {
    let client = connect(Desk::seeded(5), "alice").await;
    let arguments = json!({"query": ""});
    let first = call(&client, "stuck_search", arguments.clone()).await;
    let again = call(&client, "stuck_search", arguments.clone()).await;
    let cursor = structured(&first)["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(structured(&again)["nextCursor"], cursor.as_str());
    // A walk of a good tool: the same page twice, the same cursor.
    let good = call(
        &client,
        "search_tickets",
        json!({"query": "", "pageSize": 2}),
    )
    .await;
    let good_again = call(
        &client,
        "search_tickets",
        json!({"query": "", "pageSize": 2}),
    )
    .await;
    assert_eq!(
        structured(&good)["nextCursor"],
        structured(&good_again)["nextCursor"]
    );

    let stuck = call(
        &client,
        "stuck_search",
        with(&arguments, "cursor", json!(cursor)),
    )
    .await;
    assert_eq!(stuck.is_error, Some(true));
    let envelope = structured(&stuck);
    assert_eq!(envelope["errorKind"], "internal", "{envelope}");
    assert_eq!(
        envelope["message"],
        "Tool `stuck_search`: the page did not advance (its next position is the one it was \
         asked for), so following nextCursor would return it forever. This is a fault of the \
         tool, not of the call."
    );
    assert!(envelope["correlationId"].is_string());
    assert_eq!(envelope["retrySafe"], false);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn cursor_and_page_size_are_in_the_input_schema_and_the_paging_meta() {
    let client = connect(Desk::seeded(3), "alice").await;
    let tools = client.list_all_tools().await.unwrap();
    let search = tool(&tools, "search_tickets");
    let input = Value::Object((*search.input_schema).clone());
    assert_eq!(
        input["properties"]["pageSize"],
        json!({"type": "integer", "minimum": 1, "maximum": 200, "default": 50,
               "description": "Items per page: 1 to 200, default 50."})
    );
    assert_eq!(
        input["properties"]["cursor"],
        json!({"type": "string", "description": "Omit for the first page. For the next page, \
               the `nextCursor` of the previous result, with the same other arguments \
               (`pageSize` may change). Opaque; valid for 24 hours; at most 1024 characters."})
    );
    assert_eq!(input["required"], json!(["query"]));
    assert_eq!(input["additionalProperties"], json!(false));
    let meta = search.meta.as_ref().expect("_meta").0.clone();
    assert_eq!(
        meta["io.github.mcp-result/paging"],
        json!({"cursorIn": "arguments/cursor", "pageSizeIn": "arguments/pageSize",
               "nextCursorIn": "structuredContent/nextCursor", "defaultPageSize": 50,
               "maxPageSize": 200, "cursorTtlSeconds": 86400})
    );
    let brief = Value::Object((*tool(&tools, "search_brief").input_schema).clone());
    assert_eq!(brief["properties"]["pageSize"]["maximum"], 5);
    assert_eq!(brief["properties"]["pageSize"]["default"], 3);
    let unpaged = tool(&tools, "search_all").meta.as_ref().unwrap();
    assert!(
        !unpaged.0.contains_key("io.github.mcp-result/paging"),
        "a tool that does not page"
    );
    // The output schema: the page object, with the error envelope beside it.
    let output = Value::Object((**search.output_schema.as_ref().unwrap()).clone());
    let page = &output["anyOf"][0];
    let page = match page.get("$ref").and_then(Value::as_str) {
        Some(reference) => &output["$defs"][reference.trim_start_matches("#/$defs/")],
        None => page,
    };
    assert_eq!(page["type"], "object");
    assert_eq!(page["required"], json!(["items", "offset"]));
    assert_eq!(page["properties"]["nextCursor"]["type"], "string");
    assert_eq!(page["properties"]["totalEstimate"]["type"], "integer");
}

#[tokio::test]
async fn every_bad_cursor_is_the_same_exact_refusal() {
    let desk = Desk::seeded(500);
    let alice = connect(desk.clone(), "alice").await;
    let args = json!({"query": "login"});
    let first = call(&alice, "search_tickets", args.clone()).await;
    let cursor = structured(&first)["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    let page = |cursor: &str| with(&args, "cursor", json!(cursor));

    // The cursor works, on another connection of the same caller too (no server state).
    let again = connect(desk.clone(), "alice").await;
    let second = call(&again, "search_tickets", page(&cursor)).await;
    assert_eq!(structured(&second)["offset"], 50);

    // Tampered: one character replaced.
    let mut tampered: Vec<char> = cursor.chars().collect();
    tampered[20] = if tampered[20] == 'A' { 'B' } else { 'A' };
    let tampered: String = tampered.into_iter().collect();
    assert_refused(
        &call(&alice, "search_tickets", page(&tampered)).await,
        "the cursor was altered: its signature does not match",
    );

    // One flipped bit, in each of the cursor's characters but the last (whose low bits are
    // padding): every one is caught.
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for at in [0, 1, 2, 10, 30, cursor.len() - 10, cursor.len() - 2] {
        let mut bytes = cursor.clone().into_bytes();
        let index = ALPHABET.iter().position(|c| *c == bytes[at]).unwrap();
        bytes[at] = ALPHABET[index ^ 1];
        let flipped = String::from_utf8(bytes).unwrap();
        let result = call(&alice, "search_tickets", page(&flipped)).await;
        let reason = if at == 0 {
            // The version byte.
            "the cursor is not one this server issued"
        } else {
            "the cursor was altered: its signature does not match"
        };
        assert_refused(&result, reason);
    }

    // Reused with other arguments (pageSize alone may change).
    assert_refused(
        &call(
            &alice,
            "search_tickets",
            json!({"query": "sso", "cursor": cursor}),
        )
        .await,
        "the cursor was issued for other arguments (only `pageSize` may change between pages)",
    );
    assert_refused(
        &call(
            &alice,
            "search_tickets",
            json!({"query": "login", "minSeverity": 0, "cursor": cursor}),
        )
        .await,
        "the cursor was issued for other arguments (only `pageSize` may change between pages)",
    );
    let resized = call(
        &alice,
        "search_tickets",
        with(&page(&cursor), "pageSize", json!(7)),
    )
    .await;
    assert_eq!(structured(&resized)["offset"], 50);
    assert_eq!(structured(&resized)["items"].as_array().unwrap().len(), 7);

    // Presented by another identity.
    let bob = connect(desk.clone(), "bob").await;
    assert_refused(
        &call(&bob, "search_tickets", page(&cursor)).await,
        "the cursor was issued to another caller",
    );

    // Presented to another tool (of the same position type).
    assert_refused(
        &call(&alice, "search_brief", page(&cursor)).await,
        "the cursor was issued by another tool",
    );

    // Expired: `search_brief`'s cursors last 50 ms.
    let brief = call(&alice, "search_brief", args.clone()).await;
    let brief_cursor = structured(&brief)["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_refused(
        &call(&alice, "search_brief", page(&brief_cursor)).await,
        "the cursor has expired (cursors are valid for 50 ms)",
    );

    // Oversize: refused before it is decoded.
    assert_refused(
        &call(&alice, "search_tickets", page(&"A".repeat(5000))).await,
        "the cursor has 5000 characters; a cursor has at most 1024",
    );

    // Garbage: not base64url, too short, or a position of another type.
    for garbage in ["not a cursor!", "AAAA", "", "eyJvZmZzZXQiOjEwfQ"] {
        assert_refused(
            &call(&alice, "search_tickets", page(garbage)).await,
            "the cursor is not one this server issued",
        );
    }
    let keyset = call(&alice, "tickets_after", args.clone()).await;
    let key_cursor = structured(&keyset)["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_refused(
        &call(&alice, "search_tickets", page(&key_cursor)).await,
        "the cursor was issued by another tool",
    );
}

/// Strict-mode hosts send `null` for every optional property they leave unset: the
/// arguments the framework adds (`cursor`, `pageSize`) take `null` as absent, as the user's
/// own `Option` fields do.
#[tokio::test]
async fn null_for_the_cursor_and_the_page_size_is_the_first_page_at_the_default_size() {
    let client = connect(Desk::seeded(60), "alice").await;
    let nulls = call(
        &client,
        "search_tickets",
        json!({"query": "", "cursor": null, "pageSize": null}),
    )
    .await;
    assert_eq!(nulls.is_error, Some(false), "{nulls:?}");
    let absent = call(&client, "search_tickets", json!({"query": ""})).await;
    assert_eq!(structured(&nulls)["items"], structured(&absent)["items"]);
    assert_eq!(structured(&nulls)["offset"], 0);
    assert_eq!(structured(&nulls)["items"].as_array().unwrap().len(), 50);
}

#[tokio::test]
async fn a_bad_page_size_or_a_cursor_of_the_wrong_type_is_a_validation_error() {
    let client = connect(Desk::seeded(10), "alice").await;
    let cases = [
        (json!(0), "/pageSize", "0 is less than the minimum of 1"),
        (
            json!(201),
            "/pageSize",
            "201 is greater than the maximum of 200",
        ),
        (
            json!("ten"),
            "/pageSize",
            "\"ten\" is not of type \"integer\"",
        ),
        (json!(2.5), "/pageSize", "2.5 is not of type \"integer\""),
    ];
    for (size, pointer, message) in cases {
        let result = call(
            &client,
            "search_tickets",
            json!({"query": "", "pageSize": size}),
        )
        .await;
        assert_eq!(result.is_error, Some(true));
        assert_eq!(
            structured(&result),
            &json!({
                "status": "failed", "errorKind": "validation_error", "retrySafe": true,
                "message": format!("Invalid argument `{pointer}`: {message}. Fix it and call again."),
                "fieldErrors": [{"pointer": pointer, "message": message}],
            }),
            "pageSize {size}"
        );
    }
    // An integral float is the integer it is.
    let two = call(
        &client,
        "search_tickets",
        json!({"query": "", "pageSize": 2.0}),
    )
    .await;
    assert_eq!(structured(&two)["items"].as_array().unwrap().len(), 2);
    // Above a policy's own maximum.
    let six = call(&client, "search_brief", json!({"query": "", "pageSize": 6})).await;
    assert_eq!(
        structured(&six)["fieldErrors"],
        json!([{"pointer": "/pageSize", "message": "6 is greater than the maximum of 5"}])
    );
    let number = call(
        &client,
        "search_tickets",
        json!({"query": "", "cursor": 42}),
    )
    .await;
    assert_eq!(
        structured(&number)["fieldErrors"],
        json!([{"pointer": "/cursor", "message": "42 is not of type \"string\""}])
    );
    // `deny_unknown_fields` still refuses what is neither an argument nor a paging one.
    let unknown = call(&client, "search_tickets", json!({"query": "", "page": 2})).await;
    assert_eq!(unknown.is_error, Some(true));
}

/// An arguments type with its own `cursor` field on a paging tool: the server does not start.
#[derive(Clone)]
struct Clash;

#[derive(Deserialize, JsonSchema)]
struct ClashArgs {
    cursor: Option<String>,
}

#[mcp_tools]
impl Clash {
    /// Pages, and has its own `cursor`.
    #[mcp_tool(read_only)]
    fn clash(&self, args: ClashArgs, pages: Pager<usize>) -> Page<String> {
        let _ = args.cursor;
        pages.page(Vec::new(), None, None)
    }
}

#[mcp_handler]
impl ServerHandler for Clash {}

#[tokio::test]
async fn an_arguments_field_named_cursor_stops_the_server() {
    let (server_io, _client_io) = tokio::io::duplex(1 << 16);
    let error = mcp_result::serve(Clash, server_io).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "tool `clash`: the arguments already have `cursor`, which a parameter of the tool (a \
         `Pager` adds `cursor` and `pageSize`) reads itself: rename that field of the \
         arguments type"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random data sets and page sizes (changing from call to call): the pages hold the same
    /// items, in the same order, as one unpaged call, for offset and keyset positions alike.
    #[test]
    fn pages_add_up_to_the_unpaged_result(
        severities in proptest::collection::vec(0u8..4, 0..120),
        sizes in proptest::collection::vec(1u64..=25, 1..5),
        min_severity in proptest::option::of(0u8..4),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let desk = Desk::of(severities.iter().enumerate().map(|(i, s)| Ticket {
                id: format!("T-{i:04}"),
                title: format!("ticket {i}"),
                severity: *s,
            }));
            let client = connect(desk, "prop").await;
            let args = json!({"query": "ticket", "minSeverity": min_severity});
            let unpaged = call(&client, "search_all", args.clone()).await;
            let all: Vec<Ticket> =
                serde_json::from_value(structured(&unpaged)["result"].clone()).unwrap();
            for tool in ["search_tickets", "tickets_after"] {
                let pages = walk(&client, tool, args.clone(), &sizes).await;
                prop_assert_eq!(items(&pages), all.clone(), "{}", tool);
                let offsets: Vec<u64> = pages.iter().map(|p| structured(p)["offset"].as_u64().unwrap()).collect();
                let mut shown = 0;
                for (page, offset) in pages.iter().zip(offsets) {
                    prop_assert_eq!(offset, shown);
                    shown += structured(page)["items"].as_array().unwrap().len() as u64;
                }
            }
            let _ = client.cancel().await;
            Ok(())
        })?;
    }
}
