//! Where the framework's logs go when the application chose nowhere: every `serve*` function
//! installs a stderr subscriber when no global one is set, so that audit records
//! ([`TracingSink`](crate::audit::TracingSink)), the causes behind correlation ids and
//! startup warnings reach an operator out of the box. stdout is never written: on stdio it
//! is the MCP channel.

use std::io::{self, Write};

use tracing_subscriber::{
    filter::{filter_fn, Targets},
    fmt::MakeWriter,
    layer::SubscriberExt,
    Layer as _,
};

/// The level the default subscriber logs at without `RUST_LOG`: `info` (audit records are
/// `info` events of the target `mcp_result::audit`), rmcp's own targets at `warn` (its `info`
/// lines narrate every session's start and end).
pub const DEFAULT_LOG_LEVEL: tracing::Level = tracing::Level::INFO;

/// Installs the default subscriber when the process has no global one: plain text lines on
/// stderr, one per event (spans are not recorded: install your own subscriber for them, or
/// for OpenTelemetry), filtered by `RUST_LOG` (a level or a list of `target=level`, as
/// `tracing_subscriber`'s `Targets` reads it: `warn,mcp_result=debug`), at
/// [`DEFAULT_LOG_LEVEL`] (rmcp at `warn`) when it is unset. A `RUST_LOG` that does not parse is said once on
/// stderr, and the default level used. Does nothing when a global subscriber is set (yours
/// decides), and nothing the second time.
pub(crate) fn ensure_subscriber() {
    if tracing::dispatcher::has_been_set() {
        return;
    }
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => {
            directives.parse::<Targets>().unwrap_or_else(|error| {
                eprintln!(
                    "mcp-result: RUST_LOG `{directives}` does not parse ({error}); logging at {}",
                    DEFAULT_LOG_LEVEL
                );
                default_targets()
            })
        }
        _ => default_targets(),
    };
    // Events only: a span the default subscriber recorded would cost every call its
    // bookkeeping (the call span's fields formatted, entered and closed) for a prefix on the
    // few lines printed; each record and cause carries its own ids.
    // Not `is_event`: `tracing::enabled!` asks with a callsite of its own kind (a hint),
    // and `TracingSink` asks it before it records.
    let events =
        filter_fn(move |meta| !meta.is_span() && filter.would_enable(meta.target(), meta.level()));
    let subscriber = tracing_subscriber::registry().with(
        tracing_subscriber::fmt::layer()
            .with_writer(Stderr)
            .with_ansi(false)
            .with_filter(events),
    );
    // Another thread may have set one meanwhile: then that one stays.
    if tracing::subscriber::set_global_default(subscriber).is_ok() {
        crate::write::audit::audit_to_stderr();
    }
}

/// [`DEFAULT_LOG_LEVEL`], rmcp at `warn`.
fn default_targets() -> Targets {
    Targets::new()
        .with_default(DEFAULT_LOG_LEVEL)
        .with_target("rmcp", tracing::Level::WARN)
}

/// stderr through `eprint!`, so that a test harness capturing a test's output captures these
/// lines too (a direct `io::stderr()` bypasses it). One `write` per formatted event.
struct Stderr;

impl Write for Stderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // The formatter writes UTF-8; no copy for it.
        match std::str::from_utf8(buf) {
            Ok(text) => eprint!("{text}"),
            Err(_) => eprint!("{}", String::from_utf8_lossy(buf)),
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}

impl<'a> MakeWriter<'a> for Stderr {
    type Writer = Stderr;

    fn make_writer(&'a self) -> Self::Writer {
        Stderr
    }
}
