//! The integration tests, one binary: each `tests/<area>.rs` is a module here, its header
//! saying what it covers, compiled when the features it needs are on (the README's test
//! command, `--all-features`, turns them all on; a plain `cargo test` runs the rest). One
//! binary links and monomorphizes the stack once, where fifty did it fifty times, and its
//! areas' tests run side by side (four at a time, `.cargo/config.toml`): one area's waits on
//! PostgreSQL or a child process overlap another's work. Run one area with
//! `cargo test --all-features --test suite -- <area>::` (README.md's tests are `README::`).
//!
//! `errors`, `long_tools`, `panics`, `schema_cache` and `client_view` are binaries of their
//! own (Cargo.toml says why). Each area's features are on its `cfg` below; what a feature
//! is for, Cargo.toml's `[features]` says.

mod common;

// README.md's quickstart and the migration guide, built as fresh crates: the longest tests
// (they compile), named so that they sort, and start, first.
#[allow(non_snake_case)]
#[path = "readme.rs"]
mod README;
// The defaults of a real server: a fresh crate too, started first beside README's builds.
#[allow(non_snake_case)]
#[cfg(feature = "sqlite")]
#[path = "defaults.rs"]
mod DEFAULTS;

mod approval;
#[cfg(all(feature = "approvals-page", feature = "elicitation"))]
mod approval_browser;
#[cfg(all(feature = "http", feature = "sqlite", feature = "postgres"))]
mod approval_http;
mod approval_inside;
#[cfg(all(feature = "oauth", feature = "approvals-page"))]
mod approval_oauth;
#[cfg(feature = "approvals-page")]
mod approval_page;
#[cfg(all(feature = "approvals-page", feature = "elicitation"))]
mod approval_url;
mod ask;
// Compares with committed snapshots or lists in declaration order, the order serde_json
// keeps only with `preserve_order`.
#[cfg(feature = "preserve-order")]
mod audit;
mod beside;
#[cfg(all(feature = "http", feature = "postgres"))]
mod cancel_http;
mod clients;
#[cfg(feature = "postgres")]
mod commits;
#[cfg(feature = "http")]
mod conformance;
#[cfg(feature = "docs")]
mod docs;
#[cfg(feature = "sqlite")]
mod guide_keyed;
#[cfg(all(feature = "http", feature = "sqlite", feature = "testing"))]
mod guide_tutorial;
#[cfg(feature = "testing")]
mod harness;
// Compares with committed snapshots or lists in declaration order, the order serde_json
// keeps only with `preserve_order`.
#[cfg(all(feature = "http", feature = "sqlite"))]
mod health;
#[cfg(feature = "preserve-order")]
mod helpdesk_stdio;
mod house;
#[cfg(feature = "http")]
mod http_edge;
#[cfg(feature = "http")]
mod identity;
mod lifecycle;
mod limits;
mod links;
#[cfg(all(
    feature = "approvals-page",
    feature = "elicitation",
    feature = "sqlite"
))]
mod local_page;
// The memory example against the reference memory server it ports, with the pinned
// TypeScript SDK client (the example needs elicitation, to have its deletes approved).
#[cfg(all(feature = "transport-io", feature = "elicitation"))]
mod memory_parity;
#[cfg(feature = "opentelemetry")]
mod metrics;
mod migration;
mod msrv;
#[cfg(feature = "oauth")]
mod oauth;
// The helpdesk's OTLP export (built with the feature) to a receiver in the test.
#[cfg(feature = "opentelemetry")]
mod otlp;
mod pagination;
// Compares with committed snapshots or lists in declaration order, the order serde_json
// keeps only with `preserve_order`.
#[cfg(feature = "preserve-order")]
mod portability;
mod promises;
mod result_surface;
mod round_trips;
#[cfg(all(feature = "http", feature = "postgres"))]
mod scale_out;
// Compares with committed snapshots or lists in declaration order, the order serde_json
// keeps only with `preserve_order`.
#[cfg(feature = "preserve-order")]
mod schema_corpus;
#[cfg(feature = "testing")]
mod scopes;
mod secrets;
#[cfg(all(feature = "http", feature = "testing"))]
mod shapes;
#[cfg(feature = "sqlite")]
mod sqlite_writer;
#[cfg(feature = "http")]
mod start;
#[cfg(feature = "testing")]
mod state;
mod stdio_input;
#[cfg(all(feature = "sqlite", feature = "postgres"))]
mod stores;
// The notes server (DEFAULTS, `sqlite`), the helpdesk and the conformance fixture (`http`),
// and the approvals page (`approvals-page`, Chromium's helpers need `elicitation`).
#[cfg(all(
    feature = "approvals-page",
    feature = "elicitation",
    feature = "sqlite"
))]
mod subscriptions;
#[cfg(all(feature = "http", feature = "postgres"))]
mod tasks;
#[cfg(feature = "opentelemetry")]
mod trace;
#[cfg(all(feature = "sqlite", feature = "postgres"))]
mod transactional;
mod writes;
