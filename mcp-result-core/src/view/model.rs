//! The model context: what of a result goes into the model's context window.

use std::fmt;

use rmcp::model::{ContentBlock, ResourceContents};

use super::{
    block::{annotations, base64_len, human_size, Audience},
    BlockHandle, MediaKind, ResourceRef, ResultView,
};

/// Knobs of [`ResultView::model_context_with`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ModelOptions {
    /// An embedded text resource of at most this many characters is kept whole; a longer
    /// one is replaced by a one-line summary. Default 2000.
    pub embedded_text_max_chars: usize,
    /// When the result has `structuredContent` that no text block for the model carries
    /// (a server that sends no JSON-compat text), add it as compact JSON, so a host that
    /// reads only `content` still gives the model the data. Default `true`. Never for a
    /// value that failed its `outputSchema`.
    pub structured_fallback: bool,
}

impl Default for ModelOptions {
    fn default() -> Self {
        Self {
            embedded_text_max_chars: 2000,
            structured_fallback: true,
        }
    }
}

impl ModelOptions {
    /// Sets [`embedded_text_max_chars`](Self::embedded_text_max_chars).
    pub fn embedded_text_max_chars(mut self, chars: usize) -> Self {
        self.embedded_text_max_chars = chars;
        self
    }

    /// Sets [`structured_fallback`](Self::structured_fallback).
    pub fn structured_fallback(mut self, on: bool) -> Self {
        self.structured_fallback = on;
        self
    }
}

/// What of a result the model sees, in `content` order (MCP 2025-06-18 and later, "Tool
/// Result" and "Annotations"; the host practice in DESIGN.md "The client side"):
///
/// - text blocks for the assistant, whole;
/// - image and audio blocks as a [`BlockHandle`] and a one-line description (kind, MIME
///   type, decoded size), never their base64 data;
/// - resource links as references (uri, name, title, mimeType, size) to read on demand;
/// - embedded resources summarized: text kept when small, a blob never;
/// - blocks whose `audience` is only `["user"]` left out.
///
/// [`to_text`](Self::to_text) renders it as one string for a model API.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ModelContext {
    /// The result is a tool execution error (`isError: true`): hand it to the model as a
    /// failed tool call (most model APIs have an `is_error` flag on tool results).
    pub is_error: bool,
    /// The parts, in `content` order, then the structured fallback if any.
    pub parts: Vec<ModelPart>,
}

/// One piece of the [`ModelContext`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ModelPart {
    /// A text block, whole.
    Text {
        /// Where it sits in `content`.
        handle: BlockHandle,
        /// The block's text.
        text: String,
    },
    /// An image or audio block, by handle: the data stays in the result.
    Media {
        /// Where it sits in `content` ([`ResultView::block`] gives the data back).
        handle: BlockHandle,
        /// Image or audio.
        kind: MediaKind,
        /// The block's `mimeType`.
        mime_type: String,
        /// The decoded size of the data in bytes (computed from the base64 length).
        bytes: u64,
        /// `[image content[2]: image/png, 768.0 KB, data withheld]`.
        description: String,
    },
    /// A `resource_link`, as a reference.
    ResourceLink(ResourceRef),
    /// An embedded resource (`resource` block).
    Resource {
        /// Where it sits in `content`.
        handle: BlockHandle,
        /// The resource's URI.
        uri: String,
        /// Its MIME type, when given.
        mime_type: Option<String>,
        /// The size of its text (UTF-8 bytes) or of its decoded blob.
        bytes: u64,
        /// `true` for a blob (binary, base64) resource.
        binary: bool,
        /// The text, when it is a text resource within
        /// [`ModelOptions::embedded_text_max_chars`].
        text: Option<String>,
        /// One line naming the resource and what was left out.
        description: String,
    },
    /// `structuredContent` as compact JSON, because no text block for the model carries it
    /// (see [`ModelOptions::structured_fallback`]).
    Structured {
        /// The JSON text.
        json: String,
    },
    /// A content block of a kind this version does not know, described, not copied.
    Unsupported {
        /// Where it sits in `content`.
        handle: BlockHandle,
        /// One line saying so.
        description: String,
    },
}

impl ModelPart {
    /// The part as text for the model.
    pub fn render(&self) -> String {
        match self {
            ModelPart::Text { text, .. } => text.clone(),
            ModelPart::Media { description, .. } | ModelPart::Unsupported { description, .. } => {
                description.clone()
            }
            ModelPart::ResourceLink(link) => {
                format!(
                    "[{}; read it with resources/read if needed]",
                    link.describe()
                )
            }
            ModelPart::Resource {
                description, text, ..
            } => match text {
                Some(text) => format!("{description}\n{text}"),
                None => description.clone(),
            },
            ModelPart::Structured { json } => json.clone(),
        }
    }
}

impl ModelContext {
    /// Every part rendered, separated by blank lines.
    pub fn to_text(&self) -> String {
        self.parts
            .iter()
            .map(ModelPart::render)
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// The text parts only (text blocks and the structured fallback), for hosts that pass
    /// plain strings.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|part| match part {
            ModelPart::Text { text, .. } => Some(text.as_str()),
            ModelPart::Structured { json } => Some(json.as_str()),
            _ => None,
        })
    }
}

impl fmt::Display for ModelContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

pub(crate) fn build(view: &ResultView, options: &ModelOptions) -> ModelContext {
    let for_model = |block: &ContentBlock| Audience::of(annotations(block)).assistant;
    let mut parts = Vec::new();
    for (index, block) in view.result().content.iter().enumerate() {
        if !for_model(block) {
            continue;
        }
        parts.push(part(BlockHandle(index), block, options));
    }
    if options.structured_fallback {
        if let Some(value) = view.uncopied_structured(for_model) {
            parts.push(ModelPart::Structured {
                json: serde_json::to_string(value).unwrap_or_default(),
            });
        }
    }
    ModelContext {
        is_error: view.is_error(),
        parts,
    }
}

fn part(handle: BlockHandle, block: &ContentBlock, options: &ModelOptions) -> ModelPart {
    match block {
        ContentBlock::Text(text) => ModelPart::Text {
            handle,
            text: text.text.clone(),
        },
        ContentBlock::Image(image) => {
            media(handle, MediaKind::Image, &image.data, &image.mime_type)
        }
        ContentBlock::Audio(audio) => {
            media(handle, MediaKind::Audio, &audio.data, &audio.mime_type)
        }
        ContentBlock::ResourceLink(link) => ModelPart::ResourceLink(ResourceRef::new(handle, link)),
        ContentBlock::Resource(embedded) => embedded_resource(handle, &embedded.resource, options),
        _ => ModelPart::Unsupported {
            handle,
            description: format!("[{handle}: a content block of an unknown kind, left out]"),
        },
    }
}

fn media(handle: BlockHandle, kind: MediaKind, data: &str, mime_type: &str) -> ModelPart {
    let bytes = base64_len(data);
    ModelPart::Media {
        handle,
        kind,
        mime_type: mime_type.to_owned(),
        bytes,
        description: format!(
            "[{} {handle}: {}, {}, data withheld]",
            kind.as_str(),
            super::block::one_line(mime_type, 80),
            human_size(bytes)
        ),
    }
}

fn embedded_resource(
    handle: BlockHandle,
    resource: &ResourceContents,
    options: &ModelOptions,
) -> ModelPart {
    let (uri, mime_type, bytes, binary, text) = match resource {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => {
            let small = text.chars().nth(options.embedded_text_max_chars).is_none();
            (
                uri,
                mime_type,
                text.len() as u64,
                false,
                small.then(|| text.clone()),
            )
        }
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => (uri, mime_type, base64_len(blob), true, None),
        _ => {
            return ModelPart::Unsupported {
                handle,
                description: format!("[{handle}: an embedded resource of an unknown kind]"),
            }
        }
    };
    let mime = super::block::one_line(mime_type.as_deref().unwrap_or("unknown type"), 80);
    let line = super::block::one_line(uri, 300);
    let description = match (&text, binary) {
        (Some(_), _) => format!("[resource {handle} <{line}> ({mime})]"),
        (None, false) => format!(
            "[resource {handle} <{line}> ({mime}, {} of text withheld; read it with \
             resources/read if needed)]",
            human_size(bytes)
        ),
        (None, true) => format!(
            "[resource {handle} <{line}> ({mime}, {} binary, data withheld)]",
            human_size(bytes)
        ),
    };
    ModelPart::Resource {
        handle,
        uri: uri.clone(),
        mime_type: mime_type.clone(),
        bytes,
        binary,
        text,
        description,
    }
}
