//! Large payloads spilled into an artifact store and served through `resources/read`.
//!
//! A [`Payload`] field (a long report, a log, a CSV, rows) is never inlined: when the tool's
//! result is built, the payload is stored in the server's [`ArtifactStore`] (a
//! [`MemoryStore`] by default) under a fresh URI, `structuredContent` carries that URI, and
//! `content` carries a `resource_link` to it. A client then fetches it with
//! `resources/read`, which checks access again through [`ArtifactAccess::may_read`] with the
//! reading request's context: a URI grants nothing. An unknown URI and a denied one get the
//! same error, so a denial does not reveal that an artifact exists.

use std::{
    borrow::Cow,
    collections::HashMap,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, RwLock,
    },
};

use base64::Engine as _;
use rmcp::{
    model::{
        ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
    },
    service::RequestContext,
    ErrorData, RoleServer,
};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};
use sha2::Digest as _;

use crate::server::collect;

/// The content of a stored artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArtifactContent {
    /// UTF-8 text (served as `text`).
    Text(String),
    /// Bytes (served base64-encoded as `blob`).
    Blob(Vec<u8>),
}

impl ArtifactContent {
    /// Size in bytes.
    pub fn len(&self) -> usize {
        match self {
            ArtifactContent::Text(text) => text.len(),
            ArtifactContent::Blob(bytes) => bytes.len(),
        }
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One artifact in a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredArtifact {
    /// Its URI (what `structuredContent` and the `resource_link` carry).
    pub uri: String,
    /// Programmatic name, e.g. `import-report.csv`.
    pub name: String,
    /// MIME type, e.g. `text/csv`.
    pub mime_type: String,
    /// Who created it (a tenant, a user), as [`ArtifactAccess::artifact_owner`] said when the
    /// tool ran; `None` when the server does not track owners.
    pub owner: Option<String>,
    /// The content.
    pub content: ArtifactContent,
}

/// Where spilled payloads live. Implement it for a database or an object store; the
/// default is [`MemoryStore`].
pub trait ArtifactStore: Send + Sync {
    /// Stores `artifact` (its `uri` is empty) and returns the URI it is reachable under.
    fn put(&self, artifact: StoredArtifact) -> String;
    /// The artifact at `uri`, if any.
    fn get(&self, uri: &str) -> Option<Arc<StoredArtifact>>;
}

/// An in-memory [`ArtifactStore`]: URIs `mcp-result://artifacts/<n>-<hash>`, kept for the
/// life of the process. Clones share the same store (a server is cloned for every call).
#[derive(Debug, Default, Clone)]
pub struct MemoryStore {
    inner: Arc<MemoryInner>,
}

#[derive(Debug, Default)]
struct MemoryInner {
    artifacts: RwLock<HashMap<String, Arc<StoredArtifact>>>,
    next: AtomicU64,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl ArtifactStore for MemoryStore {
    fn put(&self, mut artifact: StoredArtifact) -> String {
        let n = self.inner.next.fetch_add(1, Ordering::Relaxed) + 1;
        let digest = match &artifact.content {
            ArtifactContent::Text(text) => sha2::Sha256::digest(text.as_bytes()),
            ArtifactContent::Blob(bytes) => sha2::Sha256::digest(bytes),
        };
        let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
        artifact.uri = format!("mcp-result://artifacts/{n}-{hex}");
        let uri = artifact.uri.clone();
        self.inner
            .artifacts
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(uri.clone(), Arc::new(artifact));
        uri
    }

    fn get(&self, uri: &str) -> Option<Arc<StoredArtifact>> {
        self.inner
            .artifacts
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(uri)
            .cloned()
    }
}

/// A server that stores payloads and serves them back: declare its tools with
/// `#[mcp_tools(artifacts)]` and implement this trait; `#[mcp_handler]` then answers
/// `resources/read` for the store's URIs and declares the `resources` capability.
pub trait ArtifactAccess: Send + Sync {
    /// The store payloads are spilled into.
    fn artifact_store(&self) -> &dyn ArtifactStore;

    /// The owner recorded on artifacts a call creates (say, the tenant of the caller, from
    /// the request's `_meta` or an authenticated session). Default: none.
    fn artifact_owner(&self, context: &RequestContext<RoleServer>) -> Option<String> {
        let _ = context;
        None
    }

    /// Whether the request in `context` may read `artifact`. Default: its owner equals
    /// [`Self::artifact_owner`] of the reading request.
    fn may_read(&self, artifact: &StoredArtifact, context: &RequestContext<RoleServer>) -> bool {
        artifact.owner == self.artifact_owner(context)
    }
}

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
            owner: None,
            content: self.content.clone(),
        };
        match collect::defer(pending, self.title.clone()) {
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

/// The `resources/read` answer for an artifact URI (used by `#[mcp_handler]`).
///
/// # Errors
/// JSON-RPC resource-not-found (`-32002`; `-32602` on 2026-07-28 connections, as rmcp maps
/// it) with the message `resource not found: <uri>`, both for an unknown URI and for one
/// the reader may not read.
pub fn read_artifact(
    access: &dyn ArtifactAccess,
    request: &ReadResourceRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<ReadResourceResponse, ErrorData> {
    let not_found =
        || ErrorData::resource_not_found(format!("resource not found: {}", request.uri), None);
    let artifact = access
        .artifact_store()
        .get(&request.uri)
        .ok_or_else(not_found)?;
    if !access.may_read(&artifact, context) {
        tracing::warn!(uri = %request.uri, "resources/read denied by ArtifactAccess::may_read");
        return Err(not_found());
    }
    let contents = match &artifact.content {
        ArtifactContent::Text(text) => ResourceContents::TextResourceContents {
            uri: artifact.uri.clone(),
            mime_type: Some(artifact.mime_type.clone()),
            text: text.clone(),
            meta: None,
        },
        ArtifactContent::Blob(bytes) => ResourceContents::BlobResourceContents {
            uri: artifact.uri.clone(),
            mime_type: Some(artifact.mime_type.clone()),
            blob: base64::engine::general_purpose::STANDARD.encode(bytes),
            meta: None,
        },
    };
    Ok(ReadResourceResult::new(vec![contents]).into())
}
