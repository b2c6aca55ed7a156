//! OAuth 2.0 Protected Resource Metadata (RFC 9728): what a host reads to find the
//! authorization server after a `401` (MCP "Authorization", Authorization Server Discovery).

use http::Uri;
use serde_json::{json, Value};

/// The protected resource an HTTP MCP server is: its resource identifier and the
/// authorization servers that issue tokens for it (RFC 9728 §2).
///
/// [`router`](super::router) serves its metadata document without a token, at
/// `/.well-known/oauth-protected-resource` and at the path-suffixed form RFC 9728 §3.1
/// defines for a resource with a path (`/.well-known/oauth-protected-resource/mcp`, which
/// hosts probe first), and names the latter in every challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedResource {
    /// The resource identifier: this MCP endpoint's canonical URL
    /// (`https://mcp.example.com/mcp`), the audience its tokens must carry (RFC 8707; MCP
    /// "Authorization", Token Audience Binding).
    pub resource: String,
    /// The issuer identifiers of the authorization servers (`https://auth.example.com`).
    pub authorization_servers: Vec<String>,
    /// Scopes to advertise besides those the tools declare (`#[mcp_tool(scopes = "...")]`,
    /// always advertised).
    pub scopes_supported: Vec<String>,
    /// The scopes a `401` asks a host to start with (`scope="..."`, MCP "Authorization",
    /// Scope Selection Strategy). `None`: every supported scope, so that one sign-in serves
    /// every tool; name fewer to start with least privilege and let `403
    /// insufficient_scope` step up.
    pub challenge_scopes: Option<Vec<String>>,
    /// A human-readable name (`resource_name`).
    pub resource_name: Option<String>,
    /// A page documenting the server (`resource_documentation`).
    pub resource_documentation: Option<String>,
}

impl ProtectedResource {
    /// `resource` served with tokens of `authorization_servers`.
    pub fn new<I: IntoIterator<Item = impl Into<String>>>(
        resource: impl Into<String>,
        authorization_servers: I,
    ) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers: authorization_servers.into_iter().map(Into::into).collect(),
            scopes_supported: Vec::new(),
            challenge_scopes: None,
            resource_name: None,
            resource_documentation: None,
        }
    }

    /// The URL of the metadata document (RFC 9728 §3.1): `/.well-known/oauth-protected-resource`
    /// inserted between the resource's authority and its path,
    /// `https://mcp.example.com/.well-known/oauth-protected-resource/mcp`.
    pub fn metadata_url(&self) -> String {
        match self.resource.parse::<Uri>() {
            Ok(uri) if uri.scheme().is_some() && uri.authority().is_some() => {
                let path = uri.path().trim_end_matches('/');
                format!(
                    "{}://{}{WELL_KNOWN}{path}",
                    uri.scheme_str().unwrap_or("https"),
                    uri.authority().map_or("", |a| a.as_str()),
                )
            }
            _ => format!("{}{WELL_KNOWN}", self.resource.trim_end_matches('/')),
        }
    }

    /// Every supported scope: the tools' (`declared`) and [`Self::scopes_supported`], sorted,
    /// each once.
    pub(crate) fn all_scopes(&self, declared: &[&str]) -> Vec<String> {
        let mut scopes: Vec<String> = declared
            .iter()
            .map(|s| (*s).to_owned())
            .chain(self.scopes_supported.iter().cloned())
            .collect();
        scopes.sort_unstable();
        scopes.dedup();
        scopes
    }

    /// The metadata document (RFC 9728 §2), with `declared` the tools' scopes.
    pub(crate) fn document(&self, declared: &[&str]) -> Value {
        let mut document = json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "scopes_supported": self.all_scopes(declared),
            "bearer_methods_supported": ["header"],
        });
        if let Some(name) = &self.resource_name {
            document["resource_name"] = json!(name);
        }
        if let Some(page) = &self.resource_documentation {
            document["resource_documentation"] = json!(page);
        }
        document
    }
}

/// The well-known path of the metadata (RFC 9728 §3).
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_inserts_the_well_known_path_before_the_resource_path() {
        let at = |resource: &str| ProtectedResource::new(resource, ["https://a"]).metadata_url();
        assert_eq!(
            at("https://mcp.example.com/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            at("http://127.0.0.1:8080/"),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            at("https://h/a/b/"),
            "https://h/.well-known/oauth-protected-resource/a/b"
        );
    }

    #[test]
    fn the_document_lists_the_tools_scopes_and_the_extra_ones_once() {
        let mut resource = ProtectedResource::new("https://h/mcp", ["https://a"]);
        resource.scopes_supported = vec!["openid".into(), "tickets:read".into()];
        assert_eq!(
            resource.document(&["tickets:write", "tickets:read"]),
            json!({
                "resource": "https://h/mcp",
                "authorization_servers": ["https://a"],
                "scopes_supported": ["openid", "tickets:read", "tickets:write"],
                "bearer_methods_supported": ["header"],
            })
        );
    }
}
