//! Authorization server metadata (RFC 8414; OpenID Connect Discovery 1.0 as the fallback,
//! as MCP "Authorization" has clients try both): where the keys and the introspection
//! endpoint are.

use serde_json::Value;

use super::fetch::{default_client, get_json};
use crate::store::StoreError;

/// What a resource server needs of an authorization server's metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationServer {
    /// `issuer`: equal to the URL it was discovered from (RFC 8414 §3.3, checked).
    pub issuer: String,
    /// `jwks_uri`: the keys that sign its JWT access tokens.
    pub jwks_uri: Option<String>,
    /// `introspection_endpoint` (RFC 7662).
    pub introspection_endpoint: Option<String>,
    /// `scopes_supported`.
    pub scopes_supported: Vec<String>,
    /// `authorization_endpoint`: where the approvals page sends a person to sign in
    /// (authorization code with PKCE).
    pub authorization_endpoint: Option<String>,
    /// `token_endpoint`: where the approvals page exchanges the sign-in's code.
    pub token_endpoint: Option<String>,
}

impl AuthorizationServer {
    /// Fetches the metadata of `issuer`: `/.well-known/oauth-authorization-server` (RFC 8414
    /// §3.1: inserted before the issuer's path, if any), then
    /// `/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §4: appended to it).
    ///
    /// # Errors
    /// [`StoreError::Remote`] when neither document could be fetched, or
    /// [`StoreError::Invalid`] when the document's `issuer` is not `issuer` (RFC 8414 §3.3: a
    /// mismatch means the metadata may be impersonating another server).
    pub async fn discover(issuer: &str) -> Result<Self, StoreError> {
        Self::discover_with(&default_client(), issuer).await
    }

    /// [`Self::discover`] with `client`.
    ///
    /// # Errors
    /// As [`Self::discover`].
    pub async fn discover_with(client: &reqwest::Client, issuer: &str) -> Result<Self, StoreError> {
        let issuer = issuer.trim_end_matches('/');
        let mut last = None;
        for url in metadata_urls(issuer) {
            match get_json(client, &url).await {
                Ok((document, _)) => return Self::from_document(issuer, &document),
                Err(error) => last = Some(error),
            }
        }
        Err(last.unwrap_or_else(|| StoreError::Invalid(format!("no metadata URL for `{issuer}`"))))
    }

    fn from_document(issuer: &str, document: &Value) -> Result<Self, StoreError> {
        let text = |key: &str| document.get(key).and_then(Value::as_str).map(str::to_owned);
        let stated = text("issuer").unwrap_or_default();
        if stated.trim_end_matches('/') != issuer {
            return Err(StoreError::Invalid(format!(
                "authorization server metadata of `{issuer}` names the issuer `{stated}`: they \
                 must be equal (RFC 8414 §3.3); check the configured issuer URL"
            )));
        }
        Ok(Self {
            issuer: stated,
            jwks_uri: text("jwks_uri"),
            introspection_endpoint: text("introspection_endpoint"),
            authorization_endpoint: text("authorization_endpoint"),
            token_endpoint: text("token_endpoint"),
            scopes_supported: document
                .get("scopes_supported")
                .and_then(Value::as_array)
                .map(|scopes| {
                    scopes
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
        })
    }
}

/// The metadata URLs of `issuer`, in the order MCP "Authorization" tries them.
fn metadata_urls(issuer: &str) -> Vec<String> {
    let (origin, path) = match issuer.find("://") {
        Some(at) => match issuer[at + 3..].find('/') {
            Some(slash) => issuer.split_at(at + 3 + slash),
            None => (issuer, ""),
        },
        None => (issuer, ""),
    };
    vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{issuer}/.well-known/openid-configuration"),
    ]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn metadata_urls_follow_rfc_8414_then_openid_discovery() {
        assert_eq!(
            metadata_urls("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            metadata_urls("https://example.com/tenant1"),
            [
                "https://example.com/.well-known/oauth-authorization-server/tenant1",
                "https://example.com/tenant1/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn a_document_naming_another_issuer_is_refused() {
        let document =
            json!({"issuer": "https://evil.example", "jwks_uri": "https://evil.example/jwks"});
        assert_eq!(
            AuthorizationServer::from_document("https://auth.example.com", &document)
                .unwrap_err()
                .to_string(),
            "authorization server metadata of `https://auth.example.com` names the issuer \
             `https://evil.example`: they must be equal (RFC 8414 §3.3); check the configured \
             issuer URL"
        );
    }
}
