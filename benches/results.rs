//! Building a complete result and writing its JSON-RPC line, side by side in one run:
//!
//! - `mcp-result`: `build_result` (summary, `structuredContent`, compat text), then the line;
//! - `rmcp-json`: `rmcp::Json(value)` through rmcp's `IntoCallToolResult`, then the line;
//! - `floor-rmcp-types`: `to_value` + `serde_json::to_string` of that value, put in rmcp's
//!   `CallToolResult` (one text block), then the line: rmcp's path without `Value`'s
//!   `Display`;
//! - `floor-same-content`: the line mcp-result writes (summary block, compat block, both
//!   annotated, `structuredContent`) made the cheapest way: the summary formatted straight
//!   from `T`'s fields, then `to_value` + `to_string` in rmcp's types;
//! - `floor`: `to_value` + `to_string` + a minimal line holding both (borrowed fields,
//!   nothing else);
//! - `direct-line`: the same minimal line with `T` serialized straight into it and a text
//!   made straight from `T` (no `Value` at all);
//! - `true-floor`: `serde_json::to_string(&T)` alone.
//!
//! for a small result (5 fields), a medium one (100 rows) and a large one (10,000 rows).
//! The `result_only` group measures the same first three without the line (`build_result`,
//! `Json::into_call_tool_result`, `to_value` + `to_string`).
//! Every line is written like rmcp's transport writes it (`to_writer` into a buffer kept
//! between messages, then `\n`). Targets (BENCHMARKS.md): mcp-result ≤ 1.2× `floor` and
//! `rmcp-json` ≥ 1.5× mcp-result, at every size.

mod support;

use std::{
    hint::black_box,
    time::{Duration, SystemTime},
};

use criterion::{BenchmarkId, Criterion, Throughput};
use mcp_result::{
    build_result,
    content::BlockStyle,
    rmcp,
    rmcp::model::{CallToolResponse, CallToolResult, ContentBlock, TextContent},
    ToolResult,
};
use rmcp::handler::server::tool::IntoCallToolResult;
use support::{Ratio, Target};

const GROUP: &str = "result_line";
const GROUP_ONLY: &str = "result_only";

/// `T` behind a `'static` reference: rmcp's `Json<T>` takes its value by move and needs
/// `T: 'static`, and `&'static T` serializes exactly like `T`, so no clone is measured.
fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

/// One way to make the line; returns its length. Boxed so that the criterion run and the
/// instruction-count run (`BENCH_PROFILE`, see `support::profile`) execute the same code.
type Routine = Box<dyn FnMut() -> usize>;

/// The variants for one value, in the order they are measured.
fn variants<T: ToolResult + Sync>(
    value: &'static T,
    summary: fn(&T) -> String,
) -> Vec<(&'static str, Routine)> {
    vec![
        ("mcp-result", {
            let mut out = Vec::new();
            Box::new(move || support::write_line(&mut out, build_result(black_box(value))))
        }),
        ("rmcp-json", {
            let mut out = Vec::new();
            Box::new(move || {
                let response = rmcp::Json(black_box(value))
                    .into_call_tool_result()
                    .expect("rmcp builds the result");
                support::write_line(&mut out, response)
            })
        }),
        ("floor-rmcp-types", {
            let mut out = Vec::new();
            Box::new(move || {
                let structured = serde_json::to_value(black_box(value)).unwrap();
                let text = serde_json::to_string(&structured).unwrap();
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(structured);
                support::write_line(&mut out, result)
            })
        }),
        ("floor-same-content", {
            let mut out = Vec::new();
            Box::new(move || {
                let value = black_box(value);
                let summary = summary(value);
                let structured = serde_json::to_value(value).unwrap();
                let text = serde_json::to_string(&structured).unwrap();
                let block = |text: String, style: BlockStyle| {
                    ContentBlock::Text(TextContent::new(text).with_annotations(style.annotations()))
                };
                let mut result = CallToolResult::success(vec![
                    block(summary, BlockStyle::SUMMARY),
                    block(text, BlockStyle::JSON),
                ]);
                result.structured_content = Some(structured);
                support::write_line(&mut out, result)
            })
        }),
        ("floor", {
            let mut out = Vec::new();
            Box::new(move || {
                let structured = serde_json::to_value(black_box(value)).unwrap();
                let text = serde_json::to_string(&structured).unwrap();
                support::write_floor_line(&mut out, &text, &structured)
            })
        }),
        ("direct-line", {
            let mut out = Vec::new();
            Box::new(move || {
                let value = black_box(value);
                let text = serde_json::to_string(value).unwrap();
                support::write_floor_line(&mut out, &text, value)
            })
        }),
        (
            "true-floor",
            Box::new(move || serde_json::to_string(black_box(value)).unwrap().len()),
        ),
    ]
}

/// The result alone, without the line.
fn result_only<T: ToolResult + Sync>(value: &'static T) -> Vec<(&'static str, Routine)> {
    vec![
        (
            "mcp-result",
            Box::new(move || build_result(black_box(value)).content.len()),
        ),
        (
            "rmcp-json",
            Box::new(
                move || match rmcp::Json(black_box(value)).into_call_tool_result() {
                    Ok(CallToolResponse::Complete(result)) => result.content.len(),
                    _ => unreachable!("rmcp builds a complete result"),
                },
            ),
        ),
        (
            "floor",
            Box::new(move || {
                let structured = serde_json::to_value(black_box(value)).unwrap();
                let text = serde_json::to_string(&structured).unwrap();
                black_box(&structured);
                text.len()
            }),
        ),
    ]
}

/// The summaries mcp-result renders from the `Value`, formatted straight from the fields.
fn ticket_summary(ticket: &support::Ticket) -> String {
    format!(
        "Ticket {} is {}, priority {}, assigned to {}",
        ticket.id,
        ticket.status,
        ticket.priority,
        ticket.assignee.as_deref().unwrap_or("none")
    )
}

fn page_summary(page: &support::TicketPage) -> String {
    format!(
        "Found {} tickets; this page holds {}",
        page.total,
        page.rows.len()
    )
}

fn bench_size(
    c: &mut Criterion,
    group: &str,
    size: &str,
    bytes: usize,
    variants: &mut [(&'static str, Routine)],
) {
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Bytes(bytes as u64));
    if size == "large" {
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(3));
    }
    for (function, routine) in variants {
        group.bench_function(BenchmarkId::new(*function, size), |b| b.iter(&mut *routine));
    }
    group.finish();
}

/// The lines must carry the same `structuredContent` and compat text, or the comparison
/// means nothing.
fn check_same_payload<T: ToolResult>(value: &'static T) {
    let parse = |line: String| -> serde_json::Value { serde_json::from_str(&line).unwrap() };
    let ours = parse(support::jsonrpc_line(build_result(value)));
    let theirs = parse(support::jsonrpc_line(
        rmcp::Json(value).into_call_tool_result().unwrap(),
    ));
    let structured = serde_json::to_value(value).unwrap();
    assert_eq!(ours["result"]["structuredContent"], structured);
    assert_eq!(theirs["result"]["structuredContent"], structured);
    // Ours: [summary, compat]; rmcp's: [compat].
    let compat = |line: &serde_json::Value, index: usize| -> serde_json::Value {
        serde_json::from_str(line["result"]["content"][index]["text"].as_str().unwrap()).unwrap()
    };
    assert_eq!(compat(&ours, 1), structured);
    assert_eq!(compat(&theirs, 0), structured);
}

/// One criterion group at one size: its routines measured side by side.
struct Set {
    group: &'static str,
    size: &'static str,
    /// Bytes of `T` serialized (criterion's throughput).
    bytes: usize,
    routines: Vec<(&'static str, Routine)>,
}

impl Set {
    fn id(&self, function: &str) -> String {
        format!("{}/{function}/{}", self.group, self.size)
    }
}

fn main() {
    let since = SystemTime::now();
    let small = leak(support::ticket());
    let medium = leak(support::page(100));
    let large = leak(support::page(10_000));
    check_same_payload(small);
    check_same_payload(medium);

    let bytes = |json: String| json.len();
    let mut sets = vec![
        Set {
            group: GROUP,
            size: "small",
            bytes: bytes(serde_json::to_string(small).unwrap()),
            routines: variants(small, ticket_summary),
        },
        Set {
            group: GROUP,
            size: "medium",
            bytes: bytes(serde_json::to_string(medium).unwrap()),
            routines: variants(medium, page_summary),
        },
        Set {
            group: GROUP,
            size: "large",
            bytes: bytes(serde_json::to_string(large).unwrap()),
            routines: variants(large, page_summary),
        },
        Set {
            group: GROUP_ONLY,
            size: "small",
            bytes: bytes(serde_json::to_string(small).unwrap()),
            routines: result_only(small),
        },
        Set {
            group: GROUP_ONLY,
            size: "medium",
            bytes: bytes(serde_json::to_string(medium).unwrap()),
            routines: result_only(medium),
        },
        Set {
            group: GROUP_ONLY,
            size: "large",
            bytes: bytes(serde_json::to_string(large).unwrap()),
            routines: result_only(large),
        },
    ];

    let named = sets.iter_mut().flat_map(|set| {
        let ids: Vec<String> = set
            .routines
            .iter()
            .map(|(function, _)| set.id(function))
            .collect();
        ids.into_iter()
            .zip(set.routines.iter_mut())
            .map(|(id, (_, routine))| {
                (id, move || {
                    black_box(routine());
                })
            })
    });
    if support::profile(named) {
        return;
    }

    // How long each line is (the variants do not all carry the same content).
    let mut lengths = Vec::new();
    for set in sets.iter_mut().filter(|set| set.group == GROUP) {
        for (function, routine) in set.routines.iter_mut() {
            lengths.push((
                function.to_string(),
                set.size.to_string(),
                format!("{} B", routine()),
            ));
        }
    }

    let mut c = support::criterion();
    for set in &mut sets {
        bench_size(&mut c, set.group, set.size, set.bytes, &mut set.routines);
    }
    c.final_summary();

    // The same routines again, interleaved: the ratios to quote on a shared machine.
    let mut rounds = Vec::new();
    let mut runs = Vec::new();
    if support::interleave_wanted() {
        for set in &mut sets {
            let ids: Vec<String> = set
                .routines
                .iter()
                .map(|(function, _)| set.id(function))
                .collect();
            let mut routines: Vec<(String, Box<dyn FnMut() + '_>)> = ids
                .into_iter()
                .zip(set.routines.iter_mut())
                .map(|(id, (_, routine))| {
                    let run: Box<dyn FnMut() + '_> = Box::new(move || {
                        black_box(routine());
                    });
                    (id, run)
                })
                .collect();
            let budget = match (set.group, set.size) {
                (GROUP, "large") => 10,
                (GROUP_ONLY, "large") => 6,
                (GROUP, _) => 4,
                _ => 3,
            };
            let run = support::Interleaved::run(
                &mut routines,
                Duration::from_millis(20),
                Duration::from_secs(budget),
                15,
            );
            rounds.push(format!("{} {} {}", set.group, set.size, run.rounds()));
            runs.push(run);
        }
    }
    let interleaved = support::Interleaved::merge(runs);

    let line_rows: [(&str, &str, &str, Target); 10] = [
        (
            "mcp-result / floor",
            "mcp-result",
            "floor",
            Target::AtMost(1.2),
        ),
        (
            "rmcp Json<T> / mcp-result",
            "rmcp-json",
            "mcp-result",
            Target::AtLeast(1.5),
        ),
        (
            "mcp-result / floor with the same content",
            "mcp-result",
            "floor-same-content",
            Target::None,
        ),
        (
            "floor with the same content / floor",
            "floor-same-content",
            "floor",
            Target::None,
        ),
        ("rmcp Json<T> / floor", "rmcp-json", "floor", Target::None),
        (
            "rmcp Json<T> / floor in rmcp's types",
            "rmcp-json",
            "floor-rmcp-types",
            Target::None,
        ),
        (
            "mcp-result / floor in rmcp's types",
            "mcp-result",
            "floor-rmcp-types",
            Target::None,
        ),
        (
            "floor in rmcp's types / floor",
            "floor-rmcp-types",
            "floor",
            Target::None,
        ),
        (
            "floor / direct line (no Value)",
            "floor",
            "direct-line",
            Target::None,
        ),
        (
            "floor / true floor (T to a string)",
            "floor",
            "true-floor",
            Target::None,
        ),
    ];
    let only_rows: [(&str, &str, &str, Target); 3] = [
        (
            "result only: mcp-result / floor",
            "mcp-result",
            "floor",
            Target::None,
        ),
        (
            "result only: rmcp Json<T> / mcp-result",
            "rmcp-json",
            "mcp-result",
            Target::None,
        ),
        (
            "result only: rmcp Json<T> / floor",
            "rmcp-json",
            "floor",
            Target::None,
        ),
    ];
    let mut ratios = Vec::new();
    let mut medians = Vec::new();
    for set in &sets {
        let rows: &[(&str, &str, &str, Target)] = if set.group == GROUP {
            &line_rows
        } else {
            &only_rows
        };
        for &(label, numerator, denominator, target) in rows {
            ratios.push(Ratio {
                row: label.into(),
                column: set.size.into(),
                numerator: set.id(numerator),
                denominator: set.id(denominator),
                target,
            });
        }
        for (function, _) in &set.routines {
            let row = if set.group == GROUP {
                function.to_string()
            } else {
                format!("result only: {function}")
            };
            medians.push((row, set.size.to_string(), set.id(function)));
        }
    }
    interleaved.print_ratios(
        &format!(
            "Results, interleaved (rounds: {}): median of per-round ratios (interquartile range)",
            rounds.join(", ")
        ),
        &ratios,
    );
    support::print_ratios("Results, criterion: ratio of medians", since, &ratios);
    support::print_medians("Results, criterion medians", since, &medians);
    if support::median_ns(&sets[0].id("mcp-result"), since).is_some() {
        support::print_table("Line length", "bytes", &lengths);
    }
}
