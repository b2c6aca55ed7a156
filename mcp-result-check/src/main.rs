//! `mcp-result-check`: checks any MCP server, in any language, as a client would meet it.
//!
//! It starts the server (`-- <command>`, stdio) or reaches it (`--url`, streamable HTTP),
//! lists its tools and
//!
//! 1. lints the list as advertised against the hosts' rules (`mcp_result::lint`);
//! 2. checks each tool's schemas (valid in their dialect, every `$ref` resolving, an object
//!    `outputSchema` root before 2026-07-28);
//! 3. calls each read-only tool (and each write tool under `--call-writes`) with sample or
//!    generated arguments, then with arguments its inputSchema rejects, and a tool that does
//!    not exist, and checks the answers against the spec (`structuredContent` present and
//!    matching the `outputSchema`, the JSON-compat text, `isError` for bad arguments, a
//!    JSON-RPC error for an unknown tool) and the tool-result review (write contract, error
//!    envelopes, field errors, large outputs, `_meta`, secrets).
//!
//! The checks are listed, with their fixes, in `checks::CHECKS`. Exit status: 0 clean, 1
//! findings, 2 usage errors. See `mcp-result-check --help` and this crate's README.

mod checks;
mod cli;
mod connect;
mod generate;
mod report;
mod review;
mod schema;
mod secrets;

use std::{io::Write, process::ExitCode, time::Duration};

use mcp_result::{
    lint,
    serde_json::{self, Map, Value},
};
use rmcp::{model::CallToolRequestParams, ServiceError};

use crate::{
    checks::Finding,
    cli::{Format, Options, Parsed},
    connect::{Client, Connection},
    report::{Calls, Progress, Report, ToolRow},
    review::Answer,
};

fn main() -> ExitCode {
    let options = match cli::parse(std::env::args_os().skip(1)) {
        Ok(Parsed::Run(options)) => options,
        Ok(Parsed::ListChecks(hosts)) => {
            print!("{}", checks::list(&hosts));
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Help) => {
            print!("{}", cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Version) => {
            println!("mcp-result-check {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(usage) => {
            eprintln!("mcp-result-check: {usage}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("mcp-result-check: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let progress = Progress::new();
    let outcome = runtime.block_on(run(&options, &progress));
    progress.clear();
    // A stdio server that ignores the closed channel must not keep the check waiting.
    runtime.shutdown_timeout(Duration::from_secs(2));
    match outcome {
        Ok(report) => {
            let text = match options.format {
                Format::Table => report.table(),
                Format::Json => {
                    let json = serde_json::to_string_pretty(&report.to_json());
                    json.unwrap_or_default() + "\n"
                }
            };
            // A closed stdout (`| head`) is the reader's choice, not an error to report.
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
            if report.findings.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(usage) => {
            eprintln!("mcp-result-check: {usage}");
            ExitCode::from(2)
        }
    }
}

/// The most pages of `tools/list` the check reads: a walk that goes on past them is a
/// finding (`tools-list-cursor`), not an endless loop.
const MAX_LIST_PAGES: usize = 500;

/// Walks `tools/list` page by page, as a careful client does: a `nextCursor` seen before
/// (the walk would loop) ends it with a `tools-list-cursor` finding, and so does a page that
/// adds no tool with the cursor it was asked for; more than [`MAX_LIST_PAGES`] pages too. An
/// empty `nextCursor` ends it with a `tools-list-empty-cursor` warning, read as the last
/// page. The tools of the pages read are checked (a tool listed twice once).
async fn list_tools(
    client: &connect::Client,
    findings: &mut Vec<Finding>,
) -> Result<Vec<rmcp::model::Tool>, rmcp::ServiceError> {
    let mut tools: Vec<rmcp::model::Tool> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut cursor: Option<String> = None;
    for page in 1..=MAX_LIST_PAGES {
        let params = cursor
            .clone()
            .map(|c| rmcp::model::PaginatedRequestParams::default().with_cursor(Some(c)));
        let listed = client.list_tools(params).await?;
        let before = tools.len();
        for tool in listed.tools {
            if !tools.iter().any(|t| t.name == tool.name) {
                tools.push(tool);
            }
        }
        let Some(next) = listed.next_cursor else {
            return Ok(tools);
        };
        if next.is_empty() {
            findings.push(Finding::new(
                "",
                "tools-list-empty-cursor",
                "/nextCursor",
                format!(
                    "tools/list page {page} answered an empty nextCursor (\"\"): an absent \
                     nextCursor ends the walk (MCP \"Pagination\"), an empty one leaves each \
                     client to stop or to ask again with it and loop; the check read it as the \
                     last page"
                ),
            ));
            return Ok(tools);
        }
        let shown = |c: &str| {
            let mut short: String = c.chars().take(40).collect();
            if short.len() < c.len() {
                short.push('…');
            }
            short
        };
        if !seen.insert(next.clone()) || cursor.as_deref() == Some(next.as_str()) {
            findings.push(Finding::new(
                "",
                "tools-list-cursor",
                "/nextCursor",
                format!(
                    "tools/list page {page} answered nextCursor `{}`, a cursor it answered \
                     before: a client following it would loop forever (MCP \"Pagination\": \
                     the cursor must advance)",
                    shown(&next)
                ),
            ));
            return Ok(tools);
        }
        if tools.len() == before && cursor.is_some() {
            findings.push(Finding::new(
                "",
                "tools-list-cursor",
                "/nextCursor",
                format!(
                    "tools/list page {page} added no tool and answered another nextCursor \
                     (`{}`): a walk that shows nothing new may never end",
                    shown(&next)
                ),
            ));
            return Ok(tools);
        }
        cursor = Some(next);
    }
    findings.push(Finding::new(
        "",
        "tools-list-cursor",
        "/nextCursor",
        format!("tools/list went on past {MAX_LIST_PAGES} pages; the check read no further"),
    ));
    Ok(tools)
}

async fn run(options: &Options, progress: &Progress) -> Result<Report, String> {
    progress.say("connecting");
    let Connection { client, shown } = connect::connect(
        &options.target,
        &options.protocol,
        options.timeout,
        options.verbose,
    )
    .await?;
    let info = client.peer_info();
    let protocol = info
        .as_ref()
        .map_or_else(String::new, |i| i.protocol_version.to_string());
    let mut report = Report {
        target: shown,
        server_name: info
            .as_ref()
            .and_then(|i| i.server_info.as_ref().map(|s| s.name.clone()))
            .unwrap_or_default(),
        server_version: info
            .as_ref()
            .and_then(|i| i.server_info.as_ref().map(|s| s.version.clone()))
            .unwrap_or_default(),
        protocol: protocol.clone(),
        hosts: options.hosts.clone(),
        tools: Vec::new(),
        findings: Vec::new(),
        allowed: Vec::new(),
    };
    let findings = &mut report.findings;
    if info.as_ref().is_none_or(|i| i.capabilities.tools.is_none()) {
        findings.push(Finding::new(
            "",
            "tools-capability",
            "/capabilities/tools",
            "the initialize result does not declare the `tools` capability",
        ));
    }

    progress.say("listing tools");
    let listed = match tokio::time::timeout(options.timeout, list_tools(&client, findings)).await {
        Ok(Ok(tools)) => tools,
        outcome => {
            let why = match outcome {
                Ok(Err(e)) => e.to_string(),
                _ => format!("no answer within {:?}", options.timeout),
            };
            findings.push(Finding::new(
                "",
                "tools-list",
                "",
                format!("tools/list failed: {why}"),
            ));
            let _ = client.cancel().await;
            report.settle();
            return Ok(report);
        }
    };
    let values: Vec<Value> = listed
        .iter()
        .map(|tool| serde_json::to_value(tool).unwrap_or(Value::Null))
        .collect();
    findings.extend(checks::from_lint(lint::lint_json(
        &Value::Array(values.clone()),
        &options.hosts,
    )));
    for name in options.samples.keys() {
        if !listed.iter().any(|t| t.name == name.as_str()) {
            eprintln!("mcp-result-check: --samples names `{name}`, which the server does not list");
        }
    }

    let count = values.len();
    for (index, value) in values.iter().enumerate() {
        let tool = review::listed(value, index, &protocol, findings);
        let step =
            |what: &str| progress.say(&format!("[{}/{count}] {}: {what}", index + 1, tool.name));
        let calls = if tool.write && !options.call_writes {
            Calls::NotCalled(
                "a write tool (readOnlyHint is not true): pass --call-writes to call it".into(),
            )
        } else {
            let sample = options.samples.get(&tool.name).cloned();
            let from_sample = sample.is_some();
            let arguments = match sample {
                Some(arguments) => Ok(arguments),
                None => generate::arguments(&tool.input_schema)
                    .and_then(|arguments| accepted(&tool, arguments)),
            };
            match arguments {
                Err(why) => Calls::NotCalled(format!(
                    "no arguments could be generated ({why}): give them with --samples"
                )),
                Ok(arguments) => {
                    step("calling");
                    let mut refusal = None;
                    match call(&client, &tool.name, &arguments, options.timeout).await {
                        Answer::Result(result) => {
                            review::result(
                                &tool,
                                &arguments,
                                &result,
                                options.max_output,
                                findings,
                            );
                            refusal = review::blocked(&result);
                        }
                        // The server refuses for what this client does not declare (MCP
                        // 2026-07-28 `-32021`): a protocol error by design, and no call.
                        Answer::NeedsCapability(capabilities) => {
                            report.tools.push(ToolRow {
                                name: tool.name,
                                write: tool.write,
                                calls: Calls::NotCalled(format!(
                                    "it needs the client capabilities {capabilities}, which \
                                     mcp-result-check does not declare (JSON-RPC -32021)"
                                )),
                            });
                            continue;
                        }
                        Answer::RpcError(why) | Answer::Failed(why) => findings.push(
                            Finding::new(
                                &tool.name,
                                "call-error",
                                "",
                                format!("called with {arguments}, the server answered {why}"),
                            )
                            .in_call(checks::Call::Arguments),
                        ),
                    }
                    let bad = generate::bad_arguments(&tool.input_schema, &arguments)
                        .into_iter()
                        .find(|bad| {
                            tool.input_validator
                                .as_ref()
                                .is_none_or(|v| !v.is_valid(&bad.arguments))
                        });
                    if let Some(bad) = &bad {
                        step("calling with bad arguments");
                        let answer =
                            call(&client, &tool.name, &bad.arguments, options.timeout).await;
                        review::bad_arguments(
                            &tool,
                            bad,
                            &answer,
                            &protocol,
                            options.max_output,
                            findings,
                        );
                    }
                    // A call answered `blocked` ran nothing: never reported `ok`.
                    match refusal {
                        None => Calls::Called {
                            sample: from_sample,
                            bad_arguments: bad.is_some(),
                        },
                        Some(refusal) => Calls::Blocked {
                            sample: from_sample,
                            bad_arguments: bad.is_some(),
                            refusal,
                        },
                    }
                }
            }
        };
        report.tools.push(ToolRow {
            name: tool.name,
            write: tool.write,
            calls,
        });
    }

    progress.say("calling a tool that does not exist");
    let mut unknown = "mcp-result-check-no-such-tool".to_owned();
    while listed.iter().any(|t| t.name == unknown.as_str()) {
        unknown.push('-');
    }
    let answer = call(
        &client,
        &unknown,
        &Value::Object(Map::new()),
        options.timeout,
    )
    .await;
    review::unknown_tool(&unknown, &answer, &mut report.findings);

    let _ = tokio::time::timeout(Duration::from_secs(5), client.cancel()).await;
    let (allowed, findings) = std::mem::take(&mut report.findings)
        .into_iter()
        .partition(|f| options.allow.contains(&f.check));
    report.findings = findings;
    report.allowed = allowed;
    report.settle();
    Ok(report)
}

/// `arguments` if the tool's inputSchema accepts them (or cannot be compiled); else why not.
fn accepted(tool: &review::Tool, arguments: Value) -> Result<Value, String> {
    match &tool.input_validator {
        Some(validator) => {
            let error = validator
                .iter_errors(&arguments)
                .next()
                .map(|e| format!("{e} at `{}`", e.instance_path()));
            match error {
                Some(error) => Err(format!(
                    "the generated {arguments} fail the inputSchema: {error}"
                )),
                None => Ok(arguments),
            }
        }
        None => Ok(arguments),
    }
}

async fn call(client: &Client, name: &str, arguments: &Value, limit: Duration) -> Answer {
    let mut params = CallToolRequestParams::new(name.to_owned());
    if let Value::Object(map) = arguments {
        params = params.with_arguments(map.clone());
    }
    match tokio::time::timeout(limit, client.call_tool(params)).await {
        Ok(Ok(result)) => Answer::Result(serde_json::to_value(&result).unwrap_or(Value::Null)),
        Ok(Err(ServiceError::McpError(error))) if error.code.0 == -32021 => {
            Answer::NeedsCapability(
                error
                    .data
                    .as_ref()
                    .and_then(|data| data.get("requiredCapabilities"))
                    .map_or_else(|| "{}".to_owned(), Value::to_string),
            )
        }
        Ok(Err(ServiceError::McpError(error))) => Answer::RpcError(format!(
            "JSON-RPC error {}: {}",
            error.code.0, error.message
        )),
        Ok(Err(other)) => Answer::Failed(other.to_string()),
        Err(_) => Answer::Failed(format!("no answer within {limit:?}")),
    }
}
