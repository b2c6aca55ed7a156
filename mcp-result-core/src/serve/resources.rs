//! `resources/read` of the framework's own resources: stored artifacts.

use base64::Engine as _;
use rmcp::{
    model::{
        ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
    },
    ErrorData,
};

use crate::{
    store::artifact::{ArtifactAccess, ArtifactContent},
    wire::identity::Identity,
};

/// The `resources/read` answer for an artifact URI, for `reader` (the caller's identity;
/// used by `#[mcp_handler]`).
///
/// # Errors
/// JSON-RPC resource-not-found (`-32002`; `-32602` on 2026-07-28 connections, as rmcp maps
/// it) with the message `resource not found: <uri>` (the URI escaped and cut at 300 characters), alike for an unknown or expired URI,
/// for a reader without an identity and for one [`ArtifactAccess::may_read`] denies, so a
/// denial does not reveal that an artifact exists. `-32603` with a correlation id (the
/// cause logged) when the store fails.
pub(crate) async fn read_artifact(
    access: &dyn ArtifactAccess,
    request: &ReadResourceRequestParams,
    reader: Option<Identity>,
) -> Result<ReadResourceResponse, ErrorData> {
    let not_found = || {
        ErrorData::resource_not_found(
            format!(
                "resource not found: {}",
                crate::wire::text::cap_message(&request.uri)
            ),
            None,
        )
    };
    let Some(reader) = reader else {
        tracing::warn!(uri = %request.uri, "resources/read without an identity: denied");
        return Err(not_found());
    };
    if request.uri.contains('\0') {
        // No artifact's URI holds U+0000, and some databases cannot even be asked.
        return Err(not_found());
    }
    let artifact = access
        .artifact_store()
        .get(&request.uri)
        .await
        .map_err(|error| store_error("artifact store", &error))?
        .ok_or_else(not_found)?;
    if !access.may_read(&artifact, &reader) {
        tracing::warn!(uri = %request.uri, reader = %reader, "resources/read denied by ArtifactAccess::may_read");
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

/// The JSON-RPC `-32603` of a store that failed while reading a resource: the cause logged
/// under a correlation id, only the id to the client (no driver text, no SQL).
pub(crate) fn store_error(store: &str, error: &dyn std::fmt::Display) -> ErrorData {
    let id = crate::wire::envelope::new_correlation_id();
    tracing::error!(correlation_id = %id, %error, "{store} failed while reading a resource");
    ErrorData::internal_error(format!("Internal error (correlation id {id})."), None)
}
