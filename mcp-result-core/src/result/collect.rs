//! Content blocks found while a result serializes.
//!
//! `structuredContent` is serialized once ([`crate::build_result`]); while it serializes, a
//! collector for the current thread is active, and every [`Image`](crate::content::Image),
//! [`Audio`](crate::content::Audio), [`Artifact`](crate::content::Artifact),
//! [`EmbeddedText`](crate::content::EmbeddedText) and [`Payload`](crate::content::Payload)
//! that serializes hands its content block to it. So a value at any depth (inside `Vec`,
//! `Option`, `Box`, maps, enums, nested structs) gets its block, in serialization order,
//! and nothing is found twice or lost.
//!
//! A `Payload` serializes a placeholder URI ([`PENDING`]); the result builder
//! ([`crate::result::build`]) then gives each a fresh random URI and stages it in the call's
//! `ResultScope`. This module only collects: it knows nothing of stores or results.

use std::cell::RefCell;

use rmcp::model::ContentBlock;

use crate::store::artifact::StoredArtifact;

/// A placeholder URI: a NUL byte cannot be in any string a user's value serializes to
/// through a URI field, so placeholders never collide with data.
pub(crate) const PENDING: &str = "\u{0}mcp-result-pending-";

#[derive(Default)]
struct Collector {
    blocks: Vec<ContentBlock>,
    /// Payloads to store: the artifact (URI empty), and the index of its block.
    pending: Vec<(StoredArtifact, Option<String>, usize)>,
}

thread_local! {
    static ACTIVE: RefCell<Option<Collector>> = const { RefCell::new(None) };
}

/// Hands `block` to the active collector (does nothing when none is active).
pub(crate) fn push(block: impl FnOnce() -> ContentBlock) {
    ACTIVE.with(|active| {
        if let Some(collector) = active.borrow_mut().as_mut() {
            collector.blocks.push(block());
        }
    });
}

/// Registers a payload to store after serialization; returns the placeholder URI it
/// serializes as, or `None` when no collector is active.
pub(crate) fn defer(
    artifact: StoredArtifact,
    title: Option<String>,
    stand_in: ContentBlock,
) -> Option<String> {
    ACTIVE.with(|active| {
        let mut active = active.borrow_mut();
        let collector = active.as_mut()?;
        let index = collector.pending.len();
        let block = collector.blocks.len();
        // A stand-in block, replaced once the store assigns the URI.
        collector.blocks.push(stand_in);
        collector.pending.push((artifact, title, block));
        Some(format!("{PENDING}{index}"))
    })
}

/// What a result's serialization yielded besides its value.
pub(crate) struct Collected {
    pub(crate) blocks: Vec<ContentBlock>,
    pub(crate) pending: Vec<(StoredArtifact, Option<String>, usize)>,
}

/// Runs `serialize` with a collector active on this thread and returns its output with the
/// blocks collected.
pub(crate) fn collecting<R>(serialize: impl FnOnce() -> R) -> (R, Collected) {
    struct Reset(Option<Collector>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let previous = self.0.take();
            ACTIVE.with(|active| *active.borrow_mut() = previous);
        }
    }
    let previous = ACTIVE.with(|active| active.borrow_mut().replace(Collector::default()));
    let reset = Reset(previous);
    let output = serialize();
    let collector = ACTIVE
        .with(|active| active.borrow_mut().take())
        .unwrap_or_default();
    drop(reset);
    (
        output,
        Collected {
            blocks: collector.blocks,
            pending: collector.pending,
        },
    )
}
