//! Who calls: an [`Identity`] established by the transport, never asserted by the client.
//!
//! Every piece of per-caller state is scoped to an identity: the owner of a stored
//! artifact, the scope of an idempotency key, the actor of an audit record, the caller of
//! an approval request and the holder of a page cursor. A value a client writes in `_meta`
//! or in its arguments is an assertion, not an identity (mcp-result rule 14).
//!
//! Where it comes from:
//! - **Streamable HTTP** (feature `http`): the request's bearer token, verified by a
//!   [`TokenVerifier`](crate::http::TokenVerifier); the verified identity rides in the
//!   HTTP request's extensions, which rmcp hands to the request context. A request
//!   without a valid token never reaches a tool (`401`).
//! - **stdio** (and any transport without HTTP request parts): one user per process, the
//!   [`Identity::process`] identity, configured with `MCP_RESULT_IDENTITY` (`subject` or
//!   `tenant:subject`) or [`Identity::install_process`]; `local` when nothing is
//!   configured, since the process serves the one user that launched it.
//!
//! No identity means no access: an HTTP request whose parts carry no verified identity is
//! refused, and an artifact is read only by the identity that made it (unless the server's
//! [`ArtifactAccess::may_read`](crate::store::ArtifactAccess::may_read) says otherwise).

use std::{borrow::Cow, sync::OnceLock};

use rmcp::{service::RequestContext, RoleServer};
use serde::{Deserialize, Serialize};

/// The environment variable naming the process identity (`subject` or `tenant:subject`).
pub const IDENTITY_ENV: &str = "MCP_RESULT_IDENTITY";

/// A verified caller: the subject (a user or client id), the tenant it acts for, and the
/// scopes it was granted (OAuth 2.1 `scope`, RFC 6749 §3.3).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Identity {
    /// The user or client, e.g. `alice` or an OAuth `sub` claim. Never empty.
    pub subject: String,
    /// The tenant the subject acts for, e.g. `acme`; `None` for a single-tenant server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// Granted scopes, e.g. `tickets:read`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

impl Identity {
    /// The identity of `subject`, no tenant, no scopes.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            tenant: None,
            scopes: Vec::new(),
        }
    }

    /// With `tenant`.
    #[must_use]
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = Some(tenant.into());
        self
    }

    /// With `scopes`.
    #[must_use]
    pub fn with_scopes<I: IntoIterator<Item = impl Into<String>>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Whether the identity was granted `scope`: it holds it, or it holds
    /// [`Self::ALL_SCOPES`].
    pub fn has_scope(&self, scope: &str) -> bool {
        if self.scopes.iter().any(|s| s == Self::ALL_SCOPES) {
            return true;
        }
        self.scopes.iter().any(|s| s == scope)
    }

    /// The string per-caller state is keyed by: `subject`, or `tenant:subject`, with `%` and
    /// `:` percent-encoded in both parts, so two different identities never share a key.
    pub fn key(&self) -> String {
        let encode = |part: &str| {
            if part.contains(['%', ':']) {
                part.replace('%', "%25").replace(':', "%3A")
            } else {
                part.to_owned()
            }
        };
        match &self.tenant {
            None => encode(&self.subject),
            Some(tenant) => format!("{}:{}", encode(tenant), encode(&self.subject)),
        }
    }

    /// Parses the `MCP_RESULT_IDENTITY` form: `subject` or `tenant:subject`.
    ///
    /// # Errors
    /// An empty subject or tenant.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (tenant, subject) = match text.split_once(':') {
            Some((tenant, subject)) => (Some(tenant), subject),
            None => (None, text),
        };
        if subject.trim().is_empty() || tenant.is_some_and(|t| t.trim().is_empty()) {
            return Err(format!(
                "`{IDENTITY_ENV}` must be `subject` or `tenant:subject`, got `{text}`"
            ));
        }
        let identity = Identity::new(subject.trim());
        Ok(match tenant {
            Some(tenant) => identity.with_tenant(tenant.trim()),
            None => identity,
        })
    }

    /// The scope that stands for every scope: what the process identity holds (the user
    /// who launched a stdio server may do whatever the server does; MCP "Authorization":
    /// stdio servers take credentials from the environment, not OAuth), and what a
    /// [`StaticTokens`](crate::http::StaticTokens) entry may grant explicitly. Never taken
    /// from an access token's claims.
    pub const ALL_SCOPES: &'static str = "*";

    /// The process's identity (stdio: one user per process): the one installed with
    /// [`Self::install_process`], else `MCP_RESULT_IDENTITY`, else `local`; the latter two
    /// hold [`Self::ALL_SCOPES`].
    ///
    /// An unparsable `MCP_RESULT_IDENTITY` is logged and falls back to no process identity
    /// at all, so every call is refused rather than run as someone else.
    pub fn process() -> Option<&'static Identity> {
        PROCESS
            .get_or_init(|| match std::env::var(IDENTITY_ENV) {
                Ok(text) => match Identity::parse(&text) {
                    Ok(identity) => Some(identity.with_scopes([Self::ALL_SCOPES])),
                    Err(error) => {
                        tracing::error!(%error, "no process identity: every call is refused");
                        None
                    }
                },
                Err(_) => Some(Identity::new("local").with_scopes([Self::ALL_SCOPES])),
            })
            .as_ref()
    }

    /// Sets the process identity, before anything is served.
    ///
    /// # Errors
    /// The identity, when one was installed or read already.
    pub fn install_process(identity: Identity) -> Result<(), Identity> {
        PROCESS
            .set(Some(identity))
            .map_err(|value| value.expect("installed Some"))
    }

    /// The identity of the request in `context`: the verified identity of an HTTP request
    /// (`None` when its parts carry none), the process identity on other transports.
    pub fn of(context: &RequestContext<RoleServer>) -> Option<Identity> {
        Self::of_call(context).map(Cow::into_owned)
    }

    /// [`Self::of`], the process identity borrowed (it lives as long as the process): what a
    /// call of a server with the default services holds.
    pub(crate) fn of_call(context: &RequestContext<RoleServer>) -> Option<Cow<'static, Identity>> {
        #[cfg(feature = "http")]
        if let Some(parts) = context.extensions.get::<http::request::Parts>() {
            return parts.extensions.get::<Identity>().cloned().map(Cow::Owned);
        }
        let _ = context;
        Self::process().map(Cow::Borrowed)
    }
}

static PROCESS: OnceLock<Option<Identity>> = OnceLock::new();

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_different_identities_differ() {
        let a = Identity::new("b").with_tenant("a");
        let b = Identity::new("a:b");
        assert_eq!(a.key(), "a:b");
        assert_ne!(
            Identity::new("x").with_tenant("a:b").key(),
            Identity::new("b:x").with_tenant("a").key()
        );
        assert_eq!(b.key(), "a%3Ab");
    }

    #[test]
    fn the_environment_form_parses() {
        assert_eq!(
            Identity::parse("acme:alice").unwrap(),
            Identity::new("alice").with_tenant("acme")
        );
        assert_eq!(Identity::parse("bob").unwrap(), Identity::new("bob"));
        assert_eq!(
            Identity::parse(":bob").unwrap_err(),
            "`MCP_RESULT_IDENTITY` must be `subject` or `tenant:subject`, got `:bob`"
        );
    }
}
