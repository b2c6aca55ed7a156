//! What the benchmarks share: the result types and their data, the JSON-RPC line, a poll
//! helper for futures that complete without waiting, and the ratio table printed after
//! criterion has measured (ratios of criterion's medians from the same run).

#![allow(dead_code)]

use std::{
    future::Future,
    path::PathBuf,
    pin::pin,
    task::{Context, Poll, Waker},
    time::{Duration, SystemTime},
};

use criterion::Criterion;
use mcp_result::{
    rmcp::model::{RequestId, ServerJsonRpcMessage, ServerResult},
    ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------
// Result types
// ---------------------------------------------------------------------------------------

/// One ticket.
#[derive(Clone, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Ticket {id} is {status}, priority {priority}, assigned to {assignee}")]
pub struct Ticket {
    /// Ticket id.
    pub id: String,
    /// One-line title.
    pub title: String,
    /// `open`, `pending` or `closed`.
    pub status: String,
    /// 1 (highest) to 5.
    pub priority: u8,
    /// Who works on it.
    pub assignee: Option<String>,
}

/// One row of a ticket search.
#[derive(Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    pub id: u64,
    pub title: String,
    pub status: String,
    pub priority: u8,
    pub score: f64,
    pub tags: Vec<String>,
    pub assignee: Option<String>,
    pub updated_at: String,
}

/// A page of ticket search results.
#[derive(Clone, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Found {total} tickets; this page holds {rows}")]
pub struct TicketPage {
    /// How many tickets matched.
    pub total: u64,
    /// Cursor of the next page, if any.
    pub next_cursor: Option<String>,
    pub rows: Vec<Row>,
}

/// The small result: 5 fields.
pub fn ticket() -> Ticket {
    Ticket {
        id: "T-1042".into(),
        title: "Checkout page times out for \"EU\" customers".into(),
        status: "open".into(),
        priority: 2,
        assignee: Some("ana.lopez".into()),
    }
}

/// A page of `rows` rows (100: the medium result; 10,000: the large one).
pub fn page(rows: usize) -> TicketPage {
    const STATUS: [&str; 3] = ["open", "pending", "closed"];
    TicketPage {
        total: rows as u64 * 3,
        next_cursor: Some(format!("cursor-{rows}")),
        rows: (0..rows)
            .map(|i| Row {
                id: 10_000 + i as u64,
                title: format!("Invoice {i} shows the wrong VAT rate for \"reduced\" items"),
                status: STATUS[i % 3].into(),
                priority: (i % 5) as u8 + 1,
                score: 1.0 / (i as f64 + 1.5),
                tags: vec!["billing".into(), format!("region-{}", i % 7)],
                assignee: (i % 4 != 0).then(|| format!("agent-{}", i % 13)),
                updated_at: format!("2025-11-{:02}T10:{:02}:00Z", i % 28 + 1, i % 60),
            })
            .collect(),
    }
}

/// Arguments of the routed tool.
#[derive(Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to look for.
    pub query: String,
    /// At most this many results.
    pub limit: Option<u32>,
}

// ---------------------------------------------------------------------------------------
// The JSON-RPC line
// ---------------------------------------------------------------------------------------

/// `{"jsonrpc":"2.0","id":1,"result":<result>}` serialized with rmcp's own message type, as
/// a `String` (for checks).
pub fn jsonrpc_line(result: impl Into<ServerResult>) -> String {
    let message = ServerJsonRpcMessage::response(result.into(), RequestId::Number(1));
    serde_json::to_string(&message).expect("a JSON-RPC line serializes")
}

/// The same line as rmcp's transport writes it: `serde_json::to_writer` of rmcp's message
/// type into a buffer the transport keeps between messages (its codec's `BytesMut`), then
/// `\n`. Returns the line's length.
pub fn write_line(out: &mut Vec<u8>, result: impl Into<ServerResult>) -> usize {
    out.clear();
    let message = ServerJsonRpcMessage::response(result.into(), RequestId::Number(1));
    serde_json::to_writer(&mut *out, &message).expect("a JSON-RPC line serializes");
    out.push(b'\n');
    out.len()
}

/// The least a line holding a JSON text copy and `structuredContent` can be: the same
/// envelope with borrowed fields and nothing else (no summary, no annotations).
#[derive(Serialize)]
pub struct FloorLine<'a, S: Serialize> {
    pub jsonrpc: &'static str,
    pub id: u32,
    pub result: FloorResult<'a, S>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FloorResult<'a, S: Serialize> {
    pub content: [FloorText<'a>; 1],
    pub structured_content: &'a S,
    pub is_error: bool,
}

#[derive(Serialize)]
pub struct FloorText<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub text: &'a str,
}

/// The floor line for a JSON `text` and a `structured` value, written like
/// [`write_line`]. Returns the line's length.
pub fn write_floor_line<S: Serialize>(out: &mut Vec<u8>, text: &str, structured: &S) -> usize {
    out.clear();
    let line = FloorLine {
        jsonrpc: "2.0",
        id: 1,
        result: FloorResult {
            content: [FloorText { kind: "text", text }],
            structured_content: structured,
            is_error: false,
        },
    };
    serde_json::to_writer(&mut *out, &line).expect("the floor line serializes");
    out.push(b'\n');
    out.len()
}

// ---------------------------------------------------------------------------------------
// Futures and configuration
// ---------------------------------------------------------------------------------------

/// Polls `future` once: the benchmarked handlers never wait (no I/O, no time limit), so
/// they complete on the first poll. Panics otherwise, rather than measure a spin.
pub fn ready<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("a benchmarked future did not complete on its first poll"),
    }
}

/// Short measurements (see BENCHMARKS.md): 0.5 s warm-up, 2 s measured, fewer bootstrap
/// resamples (criterion runs its analysis single-threaded without its `rayon` feature).
pub fn criterion() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .nresamples(20_000)
        .configure_from_args()
}

/// Instruction-count mode, for profiles that do not depend on the machine's load. With
/// `BENCH_PROFILE=<bench id>` (e.g. `result_line/floor/small`; `list` prints the ids) the
/// bench binary skips criterion, runs that routine once to warm up, then `BENCH_ITERS`
/// times (default 1,000), and returns `true`. Under `valgrind --tool=callgrind`, the
/// difference between a run with `BENCH_ITERS=N` and one with `BENCH_ITERS=0`, divided by
/// N, is the routine's instruction count per call (BENCHMARKS.md).
pub fn profile<F: FnMut()>(routines: impl IntoIterator<Item = (String, F)>) -> bool {
    let Ok(wanted) = std::env::var("BENCH_PROFILE") else {
        return false;
    };
    let iterations: usize = std::env::var("BENCH_ITERS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000);
    let mut found = false;
    for (id, mut routine) in routines {
        if wanted == "list" {
            println!("{id}");
        } else if id == wanted {
            found = true;
            routine();
            for _ in 0..iterations {
                routine();
            }
        }
    }
    assert!(
        found || wanted == "list",
        "no benchmark `{wanted}` (BENCH_PROFILE=list lists them)"
    );
    true
}

// ---------------------------------------------------------------------------------------
// Interleaved, paired measurement
// ---------------------------------------------------------------------------------------

/// Whether to run the interleaved pass after criterion: not under `--test`, `--list` or
/// `--profile-time`, nor with `BENCH_INTERLEAVE=0`.
pub fn interleave_wanted() -> bool {
    let skip =
        std::env::args().any(|arg| matches!(arg.as_str(), "--test" | "--list" | "--profile-time"));
    !skip && std::env::var("BENCH_INTERLEAVE").map_or(true, |v| v != "0")
}

/// Per-call times of routines measured in alternation: round after round, each routine
/// runs one sample (enough calls to last about `sample`), starting each round at the next
/// routine. The load of a shared machine drifts over seconds; two routines measured in the
/// same round see nearly the same load, so per-round ratios are far steadier than ratios
/// of medians measured minutes apart.
pub struct Interleaved {
    ids: Vec<String>,
    /// `times[routine][round]`: ns per call.
    times: Vec<Vec<f64>>,
}

impl Interleaved {
    /// Runs `routines` for `budget` in total (at least `min_rounds` rounds).
    pub fn run(
        routines: &mut [(String, Box<dyn FnMut() + '_>)],
        sample: Duration,
        budget: Duration,
        min_rounds: usize,
    ) -> Self {
        // Calibrate: calls per sample (after one warm-up call).
        let calls: Vec<u64> = routines
            .iter_mut()
            .map(|(_, routine)| {
                routine();
                let start = std::time::Instant::now();
                let mut n = 0u64;
                while start.elapsed() < sample / 4 {
                    routine();
                    n += 1;
                }
                (n * 4).max(1)
            })
            .collect();
        let mut times = vec![Vec::new(); routines.len()];
        let started = std::time::Instant::now();
        let mut round = 0;
        while round < min_rounds || started.elapsed() < budget {
            for k in 0..routines.len() {
                let index = (round + k) % routines.len();
                let routine = &mut routines[index].1;
                let start = std::time::Instant::now();
                for _ in 0..calls[index] {
                    routine();
                }
                times[index].push(start.elapsed().as_nanos() as f64 / calls[index] as f64);
            }
            round += 1;
        }
        Self {
            ids: routines.iter().map(|(id, _)| id.clone()).collect(),
            times,
        }
    }

    fn of(&self, id: &str) -> Option<&[f64]> {
        let index = self.ids.iter().position(|known| known == id)?;
        Some(&self.times[index])
    }

    /// The median ns per call of `id`.
    pub fn median(&self, id: &str) -> Option<f64> {
        let mut times = self.of(id)?.to_vec();
        Some(quantile(&mut times, 0.5))
    }

    /// The per-round ratios `numerator / denominator`: (25th percentile, median, 75th).
    pub fn ratio(&self, numerator: &str, denominator: &str) -> Option<(f64, f64, f64)> {
        let mut ratios: Vec<f64> = self
            .of(numerator)?
            .iter()
            .zip(self.of(denominator)?)
            .map(|(n, d)| n / d)
            .collect();
        Some((
            quantile(&mut ratios, 0.25),
            quantile(&mut ratios, 0.5),
            quantile(&mut ratios, 0.75),
        ))
    }

    /// How many rounds ran.
    pub fn rounds(&self) -> usize {
        self.times.first().map_or(0, Vec::len)
    }

    /// How many rounds measured `id` (0: not measured).
    pub fn rounds_of(&self, id: &str) -> usize {
        self.of(id).map_or(0, <[f64]>::len)
    }

    /// Several runs as one (ratios are still taken within one run: ids are unique).
    pub fn merge(runs: Vec<Interleaved>) -> Self {
        let mut merged = Self {
            ids: Vec::new(),
            times: Vec::new(),
        };
        for run in runs {
            merged.ids.extend(run.ids);
            merged.times.extend(run.times);
        }
        merged
    }

    /// Prints the paired ratios as a markdown table: median ratio, its interquartile range
    /// over the rounds, and the verdict.
    pub fn print_ratios(&self, title: &str, ratios: &[Ratio]) {
        let cells: Vec<(String, String, String)> = ratios
            .iter()
            .filter_map(|ratio| {
                let (low, median, high) = self.ratio(&ratio.numerator, &ratio.denominator)?;
                let target = ratio.target.describe();
                let row = if target.is_empty() {
                    ratio.row.clone()
                } else {
                    format!("{} (target {target})", ratio.row)
                };
                Some((
                    row,
                    ratio.column.clone(),
                    format!(
                        "{median:.2}× ({low:.2}–{high:.2}){}",
                        ratio.target.verdict(median)
                    ),
                ))
            })
            .collect();
        print_table(title, "ratio", &cells);
    }
}

fn quantile(values: &mut [f64], q: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let position = q * (values.len() - 1) as f64;
    let (low, high) = (position.floor() as usize, position.ceil() as usize);
    values[low] + (values[high] - values[low]) * (position - low as f64)
}

// ---------------------------------------------------------------------------------------
// Ratio table
// ---------------------------------------------------------------------------------------

/// One cell of a ratio table: `numerator / denominator` of criterion's medians (bench ids
/// `group/function/value`), in row `row` and column `column`, with the target it must meet.
pub struct Ratio {
    pub row: String,
    pub column: String,
    pub numerator: String,
    pub denominator: String,
    pub target: Target,
}

/// The bound a ratio is held to.
#[derive(Clone, Copy)]
pub enum Target {
    /// Report only.
    None,
    /// The ratio must be at most this.
    AtMost(f64),
    /// The ratio must be at least this.
    AtLeast(f64),
}

impl Target {
    fn describe(self) -> String {
        match self {
            Target::None => String::new(),
            Target::AtMost(bound) => format!("≤ {bound}"),
            Target::AtLeast(bound) => format!("≥ {bound}"),
        }
    }

    fn verdict(self, value: f64) -> &'static str {
        match self {
            Target::None => "",
            Target::AtMost(bound) if value <= bound => " met",
            Target::AtLeast(bound) if value >= bound => " met",
            _ => " **missed**",
        }
    }
}

/// Where criterion writes its estimates (the rule criterion itself follows:
/// `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else beside the bench binary's
/// target directory).
fn criterion_home() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(home.into());
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return Some(PathBuf::from(target).join("criterion"));
    }
    // target/<profile>/deps/<bench binary>
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.parent()?.join("criterion"))
}

/// The median (ns) criterion measured for `id` in this process (estimates older than
/// `since` belong to an earlier run, or to a bench filtered out of this one).
pub fn median_ns(id: &str, since: SystemTime) -> Option<f64> {
    let path = criterion_home()?
        .join(id)
        .join("new")
        .join("estimates.json");
    let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
    if modified < since {
        return None;
    }
    let estimates: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    estimates["median"]["point_estimate"].as_f64()
}

/// `ns` with a unit.
pub fn human(ns: f64) -> String {
    match ns {
        ns if ns < 1e3 => format!("{ns:.0} ns"),
        ns if ns < 1e6 => format!("{:.2} µs", ns / 1e3),
        ns if ns < 1e9 => format!("{:.2} ms", ns / 1e6),
        ns => format!("{:.2} s", ns / 1e9),
    }
}

/// Prints a markdown table, rows and columns in order of first appearance.
pub fn print_table(title: &str, corner: &str, cells: &[(String, String, String)]) {
    let mut rows: Vec<&str> = Vec::new();
    let mut columns: Vec<&str> = Vec::new();
    for (row, column, _) in cells {
        if !rows.contains(&row.as_str()) {
            rows.push(row);
        }
        if !columns.contains(&column.as_str()) {
            columns.push(column);
        }
    }
    if rows.is_empty() {
        return;
    }
    println!("\n{title}\n");
    println!("| {corner} | {} |", columns.join(" | "));
    println!("|---|{}", "---|".repeat(columns.len()));
    for row in rows {
        let line: Vec<&str> = columns
            .iter()
            .map(|column| {
                cells
                    .iter()
                    .find(|(r, c, _)| r == row && c == column)
                    .map_or("", |(_, _, text)| text.as_str())
            })
            .collect();
        println!("| {row} | {} |", line.join(" | "));
    }
    println!();
}

/// Prints this run's ratios as a markdown table (nothing under `--test` or `--list`, and
/// no cell whose two sides were not both measured by this run).
pub fn print_ratios(title: &str, since: SystemTime, ratios: &[Ratio]) {
    let cells: Vec<(String, String, String)> = ratios
        .iter()
        .filter_map(|ratio| {
            let value = median_ns(&ratio.numerator, since)? / median_ns(&ratio.denominator, since)?;
            let target = ratio.target.describe();
            let row = if target.is_empty() {
                ratio.row.clone()
            } else {
                format!("{} (target {target})", ratio.row)
            };
            Some((
                row,
                ratio.column.clone(),
                format!("{value:.2}×{}", ratio.target.verdict(value)),
            ))
        })
        .collect();
    print_table(title, "ratio", &cells);
}

/// Prints this run's medians, one row per `(row, column, bench id)`.
pub fn print_medians(title: &str, since: SystemTime, ids: &[(String, String, String)]) {
    let cells: Vec<(String, String, String)> = ids
        .iter()
        .filter_map(|(row, column, id)| {
            Some((row.clone(), column.clone(), human(median_ns(id, since)?)))
        })
        .collect();
    print_table(title, "median", &cells);
}
