//! Per-request cost against the number of tools: `tools/call` and `tools/list` through each
//! server's real `ServerHandler` methods, on servers with 10 and with 1,000 tools.
//!
//! - `mcp-result`: a `ToolSet` whose `ToolRegistry` is built programmatically from
//!   `ToolDef`s (what `#[mcp_tools]` generates, with call glue written as the macro writes
//!   it) and stored, and this crate's `#[mcp_handler]`;
//! - `rmcp-default`: rmcp's `ToolRouter` with one route per tool (what `#[tool_router]`
//!   generates) and rmcp's default `#[tool_handler]`, whose `Self::tool_router()` builds the
//!   router again on every request;
//! - `rmcp-stored`: the same router built once and stored in a field
//!   (`#[tool_handler(router = self.router)]`), for reference.
//!
//! Every tool is the same `search` (arguments `{query, limit?}`, a 5-field result), so the
//! servers differ only in how many tools they route. The handlers take a real
//! `RequestContext<RoleServer>`: its `Peer` comes from an rmcp server that completed the
//! initialize handshake with rmcp's client over `tokio::io::duplex`, so nothing about the
//! request path is stubbed; the transport itself is left out (it is the same for every
//! server and would only add noise to the ratios).

mod support;

use std::{
    hint::black_box,
    sync::OnceLock,
    time::{Duration, SystemTime},
};

use criterion::{BatchSize, BenchmarkId, Criterion};
use mcp_result::{
    __private::ToolDef,
    extract::{FromToolCall, ToolCall},
    rmcp::{
        handler::server::{
            common::schema_for_input, router::tool::ToolRouter as RmcpRouter,
            tool::schema_for_output, wrapper::Parameters,
        },
        model::{CallToolRequestParams, JsonObject, Tool, ToolAnnotations},
        service::{RequestContext, RunningService},
        RoleClient, RoleServer, ServerHandler, ServiceExt,
    },
    schema, IntoToolOutput, RegistryError, ToolRegistry, ToolSet,
};
use rmcp::model::RequestId;
use serde_json::Value;
use support::{Ratio, SearchArgs, Target, Ticket};

const GROUP_CALL: &str = "tools_call";
const GROUP_LIST: &str = "tools_list";
/// The tool every `tools/call` asks for (present in both the 10- and 1,000-tool servers).
const CALLED: &str = "search_0005";
const DESCRIPTION: &str = "Search support tickets by words in their title or body.";

/// Tool names `search_0000` ... `search_0999`, leaked once (`ToolDef::name` is
/// `&'static str`).
fn names(count: usize) -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    &NAMES.get_or_init(|| {
        (0..1_000)
            .map(|i| &*Box::leak(format!("search_{i:04}").into_boxed_str()))
            .collect()
    })[..count]
}

/// The one tool body both frameworks run.
fn search(args: SearchArgs) -> Ticket {
    let mut ticket = support::ticket();
    ticket.title = args.query;
    ticket.priority = args.limit.unwrap_or(2) as u8;
    ticket
}

// ---------------------------------------------------------------------------------------
// mcp-result
// ---------------------------------------------------------------------------------------

#[derive(Clone)]
pub struct McpTools<const N: usize>;

impl<const N: usize> McpTools<N> {
    fn search(&self, args: SearchArgs) -> Ticket {
        search(args)
    }
}

/// The call glue `#[mcp_tools]` generates for `fn search(&self, args: SearchArgs) -> Ticket`.
fn search_glue<const N: usize>(
    server: McpTools<N>,
    mut call: ToolCall,
) -> mcp_result::__private::ToolFuture
where
    McpTools<N>: ToolSet,
{
    Box::pin(async move {
        let args = match <SearchArgs as FromToolCall<_>>::from_tool_call(&mut call) {
            Ok(args) => args,
            Err(error) => return mcp_result::__private::ToolAnswer::of_error(error),
        };
        // Inline, as `#[mcp_tools]` glue runs an `async fn` tool: a synchronous tool's
        // blocking-pool handoff needs a runtime, which `support::ready` (one poll) has not.
        let output = server.search(args);
        let scope = call.scope(mcp_result::ToolSet::artifact_access(&server));
        output.into_answer_in(&scope)
    })
}

fn mcp_defs<const N: usize>() -> Vec<ToolDef<McpTools<N>>>
where
    McpTools<N>: ToolSet,
{
    names(N)
        .iter()
        .map(|&name| ToolDef {
            name,
            method: "search",
            title: None,
            description: DESCRIPTION,
            annotations: ToolAnnotations::new().read_only(true),
            input_schema: schema::input_schema::<SearchArgs>,
            extensions: Vec::new,
            output: <Ticket as mcp_result::IntoToolOutput>::output_shape,
            bytes_as_numbers: &[],
            timeout: None,
            idempotency_key: None,
            approval: None,
            scopes: &[],
            full_input_schema: false,
            task: None,
            call: search_glue::<N>,
        })
        .collect()
}

macro_rules! mcp_server {
    ($n:literal) => {
        impl ToolSet for McpTools<$n> {
            fn clone_for_call(&self) -> Self {
                self.clone()
            }

            fn tool_registry() -> Result<&'static ToolRegistry<Self>, &'static RegistryError> {
                static REGISTRY: OnceLock<Result<ToolRegistry<McpTools<$n>>, RegistryError>> =
                    OnceLock::new();
                REGISTRY
                    .get_or_init(|| ToolRegistry::new(mcp_defs::<$n>()))
                    .as_ref()
            }
        }

        #[mcp_result::mcp_handler]
        impl ServerHandler for McpTools<$n> {}
    };
}

mcp_server!(10);
mcp_server!(1000);

// ---------------------------------------------------------------------------------------
// rmcp
// ---------------------------------------------------------------------------------------

/// What `#[tool]` generates as `search_tool_attr()`, under each name.
fn rmcp_tool(name: &'static str) -> Tool {
    Tool::new_with_raw(
        name,
        Some(DESCRIPTION.into()),
        schema_for_input::<SearchArgs>().unwrap_or_else(|e| panic!("{e}")),
    )
    .with_raw_output_schema(schema_for_output::<Ticket>())
    .with_annotations(ToolAnnotations::from_raw(
        None,
        Some(true),
        None,
        None,
        None,
    ))
}

/// What `#[tool_router]` generates: `ToolRouter::new().with_route((attr, Self::method))...`.
fn rmcp_router<S: Send + Sync + 'static>(
    method: fn(&S, Parameters<SearchArgs>) -> rmcp::Json<Ticket>,
    count: usize,
) -> RmcpRouter<S> {
    let mut router = RmcpRouter::<S>::new();
    for &name in names(count) {
        router = router.with_route((rmcp_tool(name), method));
    }
    router
}

/// rmcp's default: `#[tool_handler]` calls `Self::tool_router()` on every request.
pub struct RmcpTools<const N: usize>;

impl<const N: usize> RmcpTools<N> {
    fn tool_router() -> RmcpRouter<Self> {
        rmcp_router(Self::search, N)
    }

    fn search(&self, Parameters(args): Parameters<SearchArgs>) -> rmcp::Json<Ticket> {
        rmcp::Json(search(args))
    }
}

#[rmcp::tool_handler]
impl ServerHandler for RmcpTools<10> {}

#[rmcp::tool_handler]
impl ServerHandler for RmcpTools<1000> {}

/// rmcp with the router built once and stored in a field.
pub struct RmcpStored<const N: usize> {
    router: RmcpRouter<Self>,
}

impl<const N: usize> RmcpStored<N> {
    fn new() -> Self {
        Self {
            router: rmcp_router(Self::search, N),
        }
    }

    fn search(&self, Parameters(args): Parameters<SearchArgs>) -> rmcp::Json<Ticket> {
        rmcp::Json(search(args))
    }
}

#[rmcp::tool_handler(router = self.router)]
impl ServerHandler for RmcpStored<1000> {}

// ---------------------------------------------------------------------------------------
// Driving the handlers
// ---------------------------------------------------------------------------------------

/// A server-side `RequestContext` as rmcp builds it for a request: its `Peer` is the one of
/// a server that completed the initialize handshake with rmcp's client over a duplex
/// stream (`Peer` has no public constructor). The sessions are kept for the process's life.
fn request_context(runtime: &tokio::runtime::Runtime) -> RequestContext<RoleServer> {
    type Sessions = (
        RunningService<RoleServer, McpTools<10>>,
        RunningService<RoleClient, ()>,
    );
    static SESSIONS: OnceLock<Sessions> = OnceLock::new();
    let (server, _client) = SESSIONS.get_or_init(|| {
        runtime.block_on(async {
            let (server_io, client_io) = tokio::io::duplex(1 << 16);
            let server = tokio::spawn(McpTools::<10>.serve(server_io));
            let client = ().serve(client_io).await.expect("initialize handshake");
            let server = server.await.unwrap().expect("server side of the handshake");
            (server, client)
        })
    });
    RequestContext::new(RequestId::Number(1), server.peer().clone())
}

fn arguments() -> JsonObject {
    match serde_json::json!({"query": "checkout timeout", "limit": 3}) {
        Value::Object(object) => object,
        _ => unreachable!(),
    }
}

/// Checks that `server` answers `tools/call` and `tools/list` like the others.
fn check_server<S: ServerHandler>(
    server: &S,
    tools: usize,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) {
    let response = support::ready(server.call_tool(request.clone(), context.clone()))
        .expect("tools/call answers");
    let line = support::jsonrpc_line(response);
    assert!(line.contains("checkout timeout"), "{line}");
    assert!(!line.contains("\"isError\":true"), "{line}");
    let listed =
        support::ready(server.list_tools(None, context.clone())).expect("tools/list answers");
    assert_eq!(listed.tools.len(), tools);
}

/// Criterion: the request and context are cloned outside the measured calls.
fn bench_server<S: ServerHandler>(
    c: &mut Criterion,
    label: &str,
    tools: usize,
    server: &S,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) {
    c.benchmark_group(GROUP_CALL)
        .bench_function(BenchmarkId::new(label, tools), |b| {
            b.iter_batched(
                || (request.clone(), context.clone()),
                |(request, context)| support::ready(black_box(server).call_tool(request, context)),
                BatchSize::SmallInput,
            )
        });
    c.benchmark_group(GROUP_LIST)
        .bench_function(BenchmarkId::new(label, tools), |b| {
            b.iter_batched(
                || context.clone(),
                |context| support::ready(black_box(server).list_tools(None, context)),
                BatchSize::SmallInput,
            )
        });
}

type Routine<'a> = (String, Box<dyn FnMut() + 'a>);

/// The same two requests for the interleaved pass and `BENCH_PROFILE` (here the clones of
/// the request and context, a few hundred ns, are part of each call).
fn routines<'a, S: ServerHandler>(
    label: &str,
    tools: usize,
    server: &'a S,
    request: &'a CallToolRequestParams,
    context: &'a RequestContext<RoleServer>,
) -> [Routine<'a>; 2] {
    [
        (
            format!("{GROUP_CALL}/{label}/{tools}"),
            Box::new(move || {
                black_box(
                    support::ready(black_box(server).call_tool(request.clone(), context.clone()))
                        .is_ok(),
                );
            }),
        ),
        (
            format!("{GROUP_LIST}/{label}/{tools}"),
            Box::new(move || {
                black_box(
                    support::ready(black_box(server).list_tools(None, context.clone())).is_ok(),
                );
            }),
        ),
    ]
}

fn main() {
    let since = SystemTime::now();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let context = request_context(&runtime);
    let request = CallToolRequestParams::new(CALLED).with_arguments(arguments());
    // Build the stored routers (and every schema) before measuring.
    McpTools::<10>::tool_registry().expect("router builds");
    McpTools::<1000>::tool_registry().expect("router builds");
    let stored = RmcpStored::<1000>::new();
    check_server(&McpTools::<10>, 10, &request, &context);
    check_server(&McpTools::<1000>, 1000, &request, &context);
    check_server(&RmcpTools::<10>, 10, &request, &context);
    check_server(&RmcpTools::<1000>, 1000, &request, &context);
    check_server(&stored, 1000, &request, &context);

    let [mcp10_call, mcp10_list] = routines("mcp-result", 10, &McpTools::<10>, &request, &context);
    let [mcp1000_call, mcp1000_list] =
        routines("mcp-result", 1000, &McpTools::<1000>, &request, &context);
    let [rmcp10_call, rmcp10_list] =
        routines("rmcp-default", 10, &RmcpTools::<10>, &request, &context);
    let [rmcp1000_call, rmcp1000_list] =
        routines("rmcp-default", 1000, &RmcpTools::<1000>, &request, &context);
    let [stored_call, stored_list] = routines("rmcp-stored", 1000, &stored, &request, &context);
    let mut calls = vec![
        mcp10_call,
        mcp1000_call,
        rmcp10_call,
        rmcp1000_call,
        stored_call,
    ];
    let mut lists = vec![
        mcp10_list,
        mcp1000_list,
        rmcp10_list,
        rmcp1000_list,
        stored_list,
    ];
    if support::profile(
        calls
            .iter_mut()
            .chain(lists.iter_mut())
            .map(|(id, routine)| (id.clone(), routine)),
    ) {
        return;
    }

    let mut c = support::criterion();
    bench_server(
        &mut c,
        "mcp-result",
        10,
        &McpTools::<10>,
        &request,
        &context,
    );
    bench_server(
        &mut c,
        "mcp-result",
        1000,
        &McpTools::<1000>,
        &request,
        &context,
    );
    bench_server(
        &mut c,
        "rmcp-default",
        10,
        &RmcpTools::<10>,
        &request,
        &context,
    );
    bench_server(
        &mut c,
        "rmcp-default",
        1000,
        &RmcpTools::<1000>,
        &request,
        &context,
    );
    bench_server(&mut c, "rmcp-stored", 1000, &stored, &request, &context);
    c.final_summary();

    let interleaved = if support::interleave_wanted() {
        let sample = Duration::from_millis(20);
        support::Interleaved::merge(vec![
            support::Interleaved::run(&mut calls, sample, Duration::from_secs(8), 15),
            support::Interleaved::run(&mut lists, sample, Duration::from_secs(6), 15),
        ])
    } else {
        support::Interleaved::merge(Vec::new())
    };

    let call = |label: &str, tools: usize| format!("{GROUP_CALL}/{label}/{tools}");
    let list = |label: &str, tools: usize| format!("{GROUP_LIST}/{label}/{tools}");
    let ratio = |row: &str, numerator: String, denominator: String, target: Target| Ratio {
        row: row.into(),
        column: "1,000 vs 10 tools".into(),
        numerator,
        denominator,
        target,
    };
    let ratios = [
        ratio(
            "tools/call, mcp-result: 1,000 tools / 10 tools",
            call("mcp-result", 1000),
            call("mcp-result", 10),
            Target::AtMost(1.1),
        ),
        ratio(
            "tools/list, 1,000 tools: mcp-result / rmcp default",
            list("mcp-result", 1000),
            list("rmcp-default", 1000),
            Target::AtMost(0.5),
        ),
        ratio(
            "tools/call, rmcp default: 1,000 tools / 10 tools",
            call("rmcp-default", 1000),
            call("rmcp-default", 10),
            Target::None,
        ),
        ratio(
            "tools/call, 1,000 tools: rmcp default / mcp-result",
            call("rmcp-default", 1000),
            call("mcp-result", 1000),
            Target::None,
        ),
        ratio(
            "tools/call, 1,000 tools: rmcp default / rmcp stored",
            call("rmcp-default", 1000),
            call("rmcp-stored", 1000),
            Target::None,
        ),
        ratio(
            "tools/call, 1,000 tools: mcp-result / rmcp stored",
            call("mcp-result", 1000),
            call("rmcp-stored", 1000),
            Target::None,
        ),
        ratio(
            "tools/list, mcp-result: 1,000 tools / 10 tools",
            list("mcp-result", 1000),
            list("mcp-result", 10),
            Target::None,
        ),
        ratio(
            "tools/list, 1,000 tools: rmcp default / rmcp stored",
            list("rmcp-default", 1000),
            list("rmcp-stored", 1000),
            Target::None,
        ),
        ratio(
            "tools/list, 1,000 tools: mcp-result / rmcp stored",
            list("mcp-result", 1000),
            list("rmcp-stored", 1000),
            Target::None,
        ),
    ];
    let mut medians = Vec::new();
    for (label, tools) in [
        ("mcp-result", 10),
        ("mcp-result", 1000),
        ("rmcp-default", 10),
        ("rmcp-default", 1000),
        ("rmcp-stored", 1000),
    ] {
        let row = format!("{label}, {tools} tools");
        medians.push((row.clone(), "tools/call".to_string(), call(label, tools)));
        medians.push((row, "tools/list".to_string(), list(label, tools)));
    }
    interleaved.print_ratios(
        &format!(
            "Routing, interleaved ({} rounds of tools/call, {} of tools/list): median of \
             per-round ratios (interquartile range)",
            interleaved.rounds_of(&call("mcp-result", 10)),
            interleaved.rounds_of(&list("mcp-result", 10)),
        ),
        &ratios,
    );
    support::print_ratios("Routing, criterion: ratio of medians", since, &ratios);
    support::print_medians("Routing, criterion medians", since, &medians);
}
