//! Output schemas are generated once per type, then served as `Arc` clones: the cost of
//! `ToolResult::output_schema()` (cached) against a fresh schemars generation of the same
//! type, and against a bare `Arc` clone. (That the cache is hit at all is proven by the
//! generation counter in `tests/schema_cache.rs`; this measures what a hit saves.)
//!
//! The fresh generation is schemars alone (the settings mcp-result uses: 2020-12, serialize
//! side, then `to_value`), without mcp-result's portability pass and shape check, so it is
//! a lower bound on what generating again would cost.

mod support;

use std::{
    hint::black_box,
    sync::Arc,
    time::{Duration, SystemTime},
};

use criterion::BenchmarkId;
use mcp_result::{rmcp::model::JsonObject, schema, ToolResult};
use schemars::{generate::SchemaSettings, JsonSchema};
use support::{Ratio, Target, Ticket, TicketPage};

const GROUP: &str = "output_schema";

/// A schema generated from scratch, the way a cache miss makes one.
fn fresh<T: JsonSchema>() -> serde_json::Value {
    let schema = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    serde_json::to_value(schema).expect("a schema serializes")
}

type Routine = Box<dyn FnMut()>;

fn routines<T: ToolResult>(name: &str) -> Vec<(String, Routine)> {
    let held: Arc<JsonObject> = T::output_schema();
    vec![
        (
            format!("{GROUP}/cached/{name}"),
            Box::new(|| {
                black_box(T::output_schema());
            }),
        ),
        (
            format!("{GROUP}/fresh-schemars/{name}"),
            Box::new(|| {
                black_box(fresh::<T>());
            }),
        ),
        (
            format!("{GROUP}/arc-clone/{name}"),
            Box::new(move || {
                black_box(Arc::clone(black_box(&held)));
            }),
        ),
    ]
}

fn main() {
    let since = SystemTime::now();
    let mut all: Vec<(String, Routine)> = routines::<Ticket>("ticket");
    all.extend(routines::<TicketPage>("ticket-page"));
    // Every schema exists now; nothing below may generate one again.
    let generated = schema::generation_count();
    if support::profile(all.iter_mut().map(|(id, routine)| (id.clone(), routine))) {
        return;
    }

    let mut c = support::criterion();
    for (id, routine) in &mut all {
        let mut parts = id.splitn(3, '/').skip(1);
        let (function, value) = (parts.next().unwrap(), parts.next().unwrap());
        c.benchmark_group(GROUP)
            .bench_function(BenchmarkId::new(function, value), |b| b.iter(&mut *routine));
    }
    c.final_summary();
    assert_eq!(
        schema::generation_count(),
        generated,
        "output_schema() generated a schema again instead of cloning the cached one"
    );

    let interleaved = if support::interleave_wanted() {
        support::Interleaved::run(
            &mut all,
            Duration::from_millis(20),
            Duration::from_secs(5),
            15,
        )
    } else {
        support::Interleaved::merge(Vec::new())
    };
    let id = |function: &str, name: &str| format!("{GROUP}/{function}/{name}");
    let mut ratios = Vec::new();
    let mut medians = Vec::new();
    for name in ["ticket", "ticket-page"] {
        let column = match name {
            "ticket" => "Ticket (5 fields)",
            _ => "TicketPage (rows: $defs)",
        };
        for (row, numerator, denominator) in [
            (
                "fresh schemars generation / output_schema() (cached)",
                "fresh-schemars",
                "cached",
            ),
            (
                "fresh schemars generation / Arc clone",
                "fresh-schemars",
                "arc-clone",
            ),
            (
                "output_schema() (cached) / Arc clone",
                "cached",
                "arc-clone",
            ),
        ] {
            ratios.push(Ratio {
                row: row.into(),
                column: column.into(),
                numerator: id(numerator, name),
                denominator: id(denominator, name),
                target: Target::None,
            });
        }
        for function in ["cached", "fresh-schemars", "arc-clone"] {
            medians.push((function.to_string(), column.to_string(), id(function, name)));
        }
    }
    interleaved.print_ratios(
        &format!(
            "Output schemas, interleaved ({} rounds): median of per-round ratios \
             (interquartile range)",
            interleaved.rounds()
        ),
        &ratios,
    );
    support::print_ratios(
        "Output schemas, criterion: ratio of medians",
        since,
        &ratios,
    );
    support::print_medians("Output schemas, criterion medians", since, &medians);
}
