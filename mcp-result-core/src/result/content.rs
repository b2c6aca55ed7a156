//! The result surface beyond the summary and the JSON text: artifacts behind
//! `resource_link`, embedded text resources, image and audio blocks, and block annotations
//! (MCP 2025-11-25 "Tools: Tool Result": content blocks and `annotations`).
//!
//! A field of one of these types (directly, or in an `Option`, `Vec` or `Box`) on a
//! `#[derive(ToolResult)]` struct becomes a content block of the result *and* stays in
//! `structuredContent` as metadata only: an [`Artifact`] or [`EmbeddedText`] as its URI, an
//! [`Image`] or [`Audio`] as `{mimeType, size, handle}` — the bytes never enter
//! `structuredContent` or the JSON-compat text.

use std::{borrow::Cow, time::SystemTime};

use base64::Engine as _;
use rmcp::model::{
    Annotations, AudioContent, ContentBlock, EmbeddedResource, ImageContent, MetaObject, Resource,
    ResourceContents,
};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{ser::SerializeStruct, Serialize, Serializer};
use sha2::Digest as _;

use crate::{
    result::collect,
    store::artifact::{ArtifactContent, StoredArtifact},
    wire::{audience::Audience, keys::HANDLE_META_KEY},
};

/// The annotations of the summary and JSON-compat text blocks: an audience and a priority
/// (0 to 1, 1 = effectively required). Set per type with
/// `#[tool_result(summary_audience = "...", summary_priority = 0.9, json_audience = "...",
/// json_priority = 0.3)]`; a priority literal outside 0..=1 is a compile error.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockStyle {
    /// Who the block is for.
    pub audience: Audience,
    /// 0 to 1; higher survives longer when a client runs out of space.
    pub priority: f32,
}

impl BlockStyle {
    /// The summary's default: for the user and the model, priority 1 (it is the explanation
    /// every reader needs).
    pub const SUMMARY: BlockStyle = BlockStyle {
        audience: Audience::BOTH,
        priority: 1.0,
    };
    /// The JSON-compat text's default: for the model (a client that ignores
    /// `structuredContent` still hands it the data), priority 0.5; users see the summary.
    pub const JSON: BlockStyle = BlockStyle {
        audience: Audience::ASSISTANT,
        priority: 0.5,
    };

    /// The MCP `annotations` object.
    pub fn annotations(self) -> Annotations {
        Annotations::default()
            .with_audience(self.audience.roles())
            .with_priority(self.priority)
    }
}

/// A priority outside 0..=1 (MCP `annotations.priority`).
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("priority {0} is outside 0..=1")]
pub struct InvalidPriority(pub f32);

/// Annotations for one block: `audience`, `priority` (checked: 0..=1) and `lastModified`
/// (RFC 3339 from a [`SystemTime`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BlockAnnotations(Annotations);

impl BlockAnnotations {
    /// No annotations.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `audience`.
    pub fn audience(mut self, audience: Audience) -> Self {
        self.0 = self.0.with_audience(audience.roles());
        self
    }

    /// Sets `priority`.
    ///
    /// # Errors
    /// [`InvalidPriority`] when `priority` is outside 0..=1 (or NaN).
    pub fn priority(mut self, priority: f32) -> Result<Self, InvalidPriority> {
        if !(0.0..=1.0).contains(&priority) {
            return Err(InvalidPriority(priority));
        }
        self.0 = self.0.with_priority(priority);
        Ok(self)
    }

    /// Sets `lastModified` (RFC 3339, UTC, second precision).
    pub fn last_modified(mut self, time: SystemTime) -> Self {
        let time: chrono::DateTime<chrono::Utc> = time.into();
        self.0.last_modified = Some(time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
        self
    }

    fn get(&self) -> Option<Annotations> {
        (self.0 != Annotations::default()).then(|| self.0.clone())
    }
}

/// An artifact behind a `resource_link`: a report, a log, an export the client fetches on
/// demand with `resources/read` (which must check access again: a URI grants nothing).
///
/// In `structuredContent` it is its URI (schema: a `uri`-format string), so a UI, an agent
/// and the audit log can all keep it; in `content` it is a `resource_link` block with the
/// name, title, description, mime type and size. Not guaranteed to be in `resources/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct Artifact {
    uri: String,
    name: String,
    title: Option<String>,
    description: Option<String>,
    mime_type: Option<String>,
    size: Option<u64>,
    annotations: BlockAnnotations,
}

impl Artifact {
    /// An artifact at `uri` named `name` (the programmatic name, e.g. `report.csv`).
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: BlockAnnotations::default(),
        }
    }

    /// Sets the human-readable title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type, e.g. `text/csv`.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the size of the raw content, in bytes.
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// Sets the block's annotations.
    pub fn with_annotations(mut self, annotations: BlockAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// The URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The `resource_link` block.
    pub fn to_block(&self) -> ContentBlock {
        let mut resource = Resource::new(self.uri.clone(), self.name.clone());
        resource.title = self.title.clone();
        resource.description = self.description.clone();
        resource.mime_type = self.mime_type.clone();
        resource.size = self.size;
        resource.annotations = self.annotations.get();
        ContentBlock::resource_link(resource)
    }
}

impl Serialize for Artifact {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        collect::push(|| self.to_block());
        serializer.serialize_str(&self.uri)
    }
}

fn uri_schema(description: &str) -> Schema {
    json_schema!({"type": "string", "format": "uri", "description": description})
}

impl JsonSchema for Artifact {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Artifact".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        uri_schema("URI of an artifact, also sent as a `resource_link` content block; fetch it with `resources/read`.")
    }
}

/// A small text artifact embedded in the result as a `resource` block (the full text), and
/// in `structuredContent` as its URI.
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddedText {
    uri: String,
    mime_type: String,
    text: String,
    annotations: BlockAnnotations,
}

impl EmbeddedText {
    /// `text` of type `mime_type` (e.g. `text/markdown`), identified by `uri`.
    pub fn new(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            uri: uri.into(),
            mime_type: mime_type.into(),
            text: text.into(),
            annotations: BlockAnnotations::default(),
        }
    }

    /// Sets the block's annotations.
    pub fn with_annotations(mut self, annotations: BlockAnnotations) -> Self {
        self.annotations = annotations;
        self
    }
}

impl EmbeddedText {
    /// The `resource` content block (the text embedded).
    pub fn to_block(&self) -> ContentBlock {
        let mut resource = EmbeddedResource::new(ResourceContents::TextResourceContents {
            uri: self.uri.clone(),
            mime_type: Some(self.mime_type.clone()),
            text: self.text.clone(),
            meta: None,
        });
        resource.annotations = self.annotations.get();
        ContentBlock::Resource(resource)
    }
}

impl Serialize for EmbeddedText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        collect::push(|| self.to_block());
        serializer.serialize_str(&self.uri)
    }
}

impl JsonSchema for EmbeddedText {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "EmbeddedText".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        uri_schema("URI of a text resource embedded in the result's content as a `resource` block.")
    }
}

/// A small binary resource embedded in the result as a `resource` block (its bytes, base64,
/// MCP `BlobResourceContents`), and in `structuredContent` as its URI: binary content a
/// client should get inline, without a `resources/read`. At most [`EmbeddedBlob::MAX_BYTES`]
/// (1 MiB; base64 makes the block a third larger); past that a result holding it is
/// answered `internal` (the cause logged names the way out), and the way is
/// [`Payload::blob`], an artifact behind a `resource_link`. For images and audio the
/// client shows, [`Image`] and [`Audio`].
///
/// ```
/// use mcp_result_core::content::EmbeddedBlob;
///
/// let archive = EmbeddedBlob::new("file:///srv/report.zip", "application/zip", vec![0x50, 0x4b]);
/// assert_eq!(archive.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddedBlob {
    uri: String,
    mime_type: String,
    data: Vec<u8>,
    annotations: BlockAnnotations,
}

impl EmbeddedBlob {
    /// The most bytes an embedded blob carries: 1 MiB.
    pub const MAX_BYTES: usize = 1024 * 1024;

    /// `data` (raw bytes, not base64) of type `mime_type`, identified by `uri`.
    pub fn new(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        data: impl Into<Vec<u8>>,
    ) -> Self {
        Self {
            uri: uri.into(),
            mime_type: mime_type.into(),
            data: data.into(),
            annotations: BlockAnnotations::default(),
        }
    }

    /// Sets the block's annotations.
    pub fn with_annotations(mut self, annotations: BlockAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// How many bytes it holds.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether it holds no byte.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The `resource` content block (the bytes embedded, base64).
    pub fn to_block(&self) -> ContentBlock {
        let mut resource = EmbeddedResource::new(ResourceContents::BlobResourceContents {
            uri: self.uri.clone(),
            mime_type: Some(self.mime_type.clone()),
            blob: base64::engine::general_purpose::STANDARD.encode(&self.data),
            meta: None,
        });
        resource.annotations = self.annotations.get();
        ContentBlock::Resource(resource)
    }
}

impl Serialize for EmbeddedBlob {
    /// # Errors
    /// More than [`EmbeddedBlob::MAX_BYTES`]: the result is answered `internal`, and the
    /// cause logged says to use [`Payload::blob`].
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.data.len() > Self::MAX_BYTES {
            return Err(serde::ser::Error::custom(format!(
                "an EmbeddedBlob of {} bytes ({}) is over EmbeddedBlob::MAX_BYTES ({}): send it \
                 as `mcp_result::content::Payload::blob`, an artifact behind a `resource_link`",
                self.data.len(),
                self.uri,
                Self::MAX_BYTES
            )));
        }
        collect::push(|| self.to_block());
        serializer.serialize_str(&self.uri)
    }
}

impl JsonSchema for EmbeddedBlob {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "EmbeddedBlob".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        uri_schema(
            "URI of a binary resource embedded in the result's content as a `resource` block.",
        )
    }
}

/// Binary media (an image or audio clip). Shared by [`Image`] and [`Audio`].
#[derive(Debug, Clone, PartialEq)]
struct Media {
    data: Vec<u8>,
    mime_type: String,
    handle: String,
    annotations: BlockAnnotations,
}

impl Media {
    fn new(data: Vec<u8>, mime_type: String) -> Self {
        let digest = sha2::Sha256::digest(&data);
        let hex = crate::wire::text::hex(&digest[..8]);
        Self {
            data,
            mime_type,
            handle: format!("sha256:{hex}"),
            annotations: BlockAnnotations::default(),
        }
    }

    fn serialize<S: Serializer>(
        &self,
        serializer: S,
        name: &'static str,
    ) -> Result<S::Ok, S::Error> {
        let mut state = serializer.serialize_struct(name, 3)?;
        state.serialize_field("mimeType", &self.mime_type)?;
        state.serialize_field("size", &(self.data.len() as u64))?;
        state.serialize_field("handle", &self.handle)?;
        state.end()
    }

    fn parts(&self) -> (String, String, Option<MetaObject>, Option<Annotations>) {
        let mut meta = MetaObject::default();
        meta.0
            .insert(HANDLE_META_KEY.into(), self.handle.clone().into());
        (
            base64::engine::general_purpose::STANDARD.encode(&self.data),
            self.mime_type.clone(),
            Some(meta),
            self.annotations.get(),
        )
    }
}

fn media_schema(kind: &str) -> Schema {
    json_schema!({
        "type": "object",
        "description": format!("Metadata of the {kind} sent as an `{kind}` content block; the bytes are only in that block."),
        "properties": {
            "mimeType": {"type": "string"},
            "size": {"type": "integer", "minimum": 0, "description": "Bytes."},
            "handle": {"type": "string", "description": "`sha256:` and the first 16 hex digits of the bytes' SHA-256; also in the block's `_meta`."}
        },
        "required": ["mimeType", "size", "handle"]
    })
}

macro_rules! media_type {
    ($(#[$doc:meta])* $name:ident, $kind:literal, $block:ident, $content:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name(Media);

        impl $name {
            /// Raw bytes (not base64) of type `mime_type`.
            pub fn new(data: impl Into<Vec<u8>>, mime_type: impl Into<String>) -> Self {
                Self(Media::new(data.into(), mime_type.into()))
            }

            /// Sets the block's annotations.
            pub fn with_annotations(mut self, annotations: BlockAnnotations) -> Self {
                self.0.annotations = annotations;
                self
            }

            /// The handle: `sha256:` and 16 hex digits.
            pub fn handle(&self) -> &str {
                &self.0.handle
            }

            /// The content block (base64 data).
            pub fn to_block(&self) -> ContentBlock {
                let (data, mime_type, meta, annotations) = self.0.parts();
                let mut content = $content::new(data, mime_type);
                content.meta = meta;
                content.annotations = annotations;
                ContentBlock::$block(content)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                collect::push(|| self.to_block());
                self.0.serialize(serializer, stringify!($name))
            }
        }

        impl JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                media_schema($kind)
            }
        }
    };
}

media_type!(
    /// An image: an `image` content block (base64) in `content`, and `{mimeType, size,
    /// handle}` in `structuredContent`.
    Image, "image", Image, ImageContent
);
media_type!(
    /// An audio clip: an `audio` content block (base64) in `content`, and `{mimeType, size,
    /// handle}` in `structuredContent`.
    Audio, "audio", Audio, AudioContent
);

/// A large payload: stored as an artifact when the result is built, replaced in
/// `structuredContent` by its URI, linked from `content` with a `resource_link`.
///
/// It is stored wherever it sits in the result (any depth), while the result is built in a
/// tool call on a server declared `#[mcp_tools(artifacts)]`. Anywhere else (a server without
/// an artifact store, a plain `serde_json::to_value`) serializing it fails, and a tool's
/// result becomes an `internal` error naming the cause.
#[derive(Debug)]
pub struct Payload {
    name: String,
    title: Option<String>,
    mime_type: String,
    content: ArtifactContent,
}

impl Payload {
    /// A text payload (`text/plain`, `text/csv`, `application/json`, ...).
    pub fn text(
        name: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self::new(
            name.into(),
            mime_type.into(),
            ArtifactContent::Text(text.into()),
        )
    }

    /// A binary payload.
    pub fn blob(
        name: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
    ) -> Self {
        Self::new(
            name.into(),
            mime_type.into(),
            ArtifactContent::Blob(bytes.into()),
        )
    }

    fn new(name: String, mime_type: String, content: ArtifactContent) -> Self {
        Self {
            name,
            title: None,
            mime_type,
            content,
        }
    }

    /// Sets the human-readable title of its `resource_link`.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Size of the content in bytes.
    pub fn size(&self) -> usize {
        self.content.len()
    }
}

impl Serialize for Payload {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let pending = StoredArtifact {
            uri: String::new(),
            name: self.name.clone(),
            mime_type: self.mime_type.clone(),
            owner: String::new(),
            content: self.content.clone(),
            expires_at: 0,
        };
        let stand_in = Artifact::new(String::new(), self.name.clone()).to_block();
        match collect::defer(pending, self.title.clone(), stand_in) {
            Some(placeholder) => serializer.serialize_str(&placeholder),
            None => Err(serde::ser::Error::custom(format!(
                "payload `{}` was not stored: a `Payload` is stored while its tool's result is \
                 built, on a server declared with `#[mcp_tools(artifacts)]`",
                self.name
            ))),
        }
    }
}

impl JsonSchema for Payload {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Payload".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "format": "uri",
            "description": "URI of a large payload stored as an artifact, also sent as a `resource_link` content block; fetch it with `resources/read`."
        })
    }
}

crate::wire::secret::holds_no_secret!(Artifact, EmbeddedText, Image, Audio, Payload);
