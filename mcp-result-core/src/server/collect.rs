//! Content blocks found while a result serializes.
//!
//! `structuredContent` is serialized once ([`crate::build_result`]); while it serializes, a
//! collector for the current thread is active, and every [`Image`](crate::content::Image),
//! [`Audio`](crate::content::Audio), [`Artifact`](crate::content::Artifact),
//! [`EmbeddedText`](crate::content::EmbeddedText) and [`Payload`](crate::store::Payload)
//! that serializes hands its content block to it. So a value at any depth (inside `Vec`,
//! `Option`, `Box`, maps, enums, nested structs) gets its block, in serialization order,
//! and nothing is found twice or lost.
//!
//! A `Payload` serializes a placeholder URI; after serialization each gets a fresh random
//! URI ([`new_artifact_uri`]), written into the value and its `resource_link`, and the
//! artifact is staged in the [`ResultScope`], which puts every staged artifact into the
//! server's [`ArtifactStore`](crate::server::store::ArtifactStore) at once before the result
//! is answered ([`ResultScope::commit`]).

use std::cell::RefCell;

use rmcp::model::ContentBlock;
use serde_json::Value;

use crate::server::{
    content::Artifact,
    result::ResultScope,
    store::{new_artifact_uri, StoredArtifact},
};

/// A placeholder URI: a NUL byte cannot be in any string a user's value serializes to
/// through a URI field, so placeholders never collide with data.
const PENDING: &str = "\u{0}mcp-result-pending-";

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
pub(crate) fn defer(artifact: StoredArtifact, title: Option<String>) -> Option<String> {
    ACTIVE.with(|active| {
        let mut active = active.borrow_mut();
        let collector = active.as_mut()?;
        let index = collector.pending.len();
        let block = collector.blocks.len();
        // A stand-in block, replaced once the store assigns the URI.
        collector
            .blocks
            .push(Artifact::new(String::new(), artifact.name.clone()).to_block());
        collector.pending.push((artifact, title, block));
        Some(format!("{PENDING}{index}"))
    })
}

/// What a result's serialization yielded besides its value.
pub(crate) struct Collected {
    pub(crate) blocks: Vec<ContentBlock>,
    pending: Vec<(StoredArtifact, Option<String>, usize)>,
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

impl Collected {
    /// Gives the pending payloads their URIs, writes them into `value` and the blocks, and
    /// stages the artifacts in `scope` (owned by its caller).
    ///
    /// # Errors
    /// When there are payloads to store and the server has no artifact store, or the call
    /// has no owner: the message names the payload and the fix.
    pub(crate) fn store_payloads(
        &mut self,
        value: &mut Value,
        scope: &ResultScope<'_>,
    ) -> Result<(), String> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let (Some(_), Some(owner)) = (scope.store, &scope.owner) else {
            return Err(format!(
                "payload `{}` cannot be stored: a result holding a `Payload` must come from a \
                 tool of a server declared with `#[mcp_tools(artifacts)]`",
                self.pending[0].0.name
            ));
        };
        let mut uris = Vec::with_capacity(self.pending.len());
        let mut staged = Vec::with_capacity(self.pending.len());
        for (mut artifact, title, block) in self.pending.drain(..) {
            artifact.uri = new_artifact_uri();
            artifact.owner = owner.clone();
            let mut link = Artifact::new(artifact.uri.clone(), artifact.name.clone())
                .with_mime_type(artifact.mime_type.clone())
                .with_size(artifact.content.len() as u64);
            if let Some(title) = title {
                link = link.with_title(title);
            }
            self.blocks[block] = link.to_block();
            uris.push(artifact.uri.clone());
            staged.push(artifact);
        }
        replace_placeholders(value, &uris);
        scope.stage(staged);
        Ok(())
    }
}

fn replace_placeholders(value: &mut Value, uris: &[String]) {
    match value {
        Value::String(text) => {
            if let Some(index) = text.strip_prefix(PENDING) {
                if let Some(uri) = index.parse::<usize>().ok().and_then(|i| uris.get(i)) {
                    *text = uri.clone();
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| replace_placeholders(v, uris)),
        Value::Object(map) => map.values_mut().for_each(|v| replace_placeholders(v, uris)),
        _ => {}
    }
}
