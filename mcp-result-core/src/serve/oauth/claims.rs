//! From a token's claims to an [`Identity`].

use serde_json::{Map, Value};

use crate::wire::identity::Identity;

/// Which claims of an access token (a JWT's payload or an introspection answer) make the
/// caller's [`Identity`].
///
/// The defaults match common authorization servers:
/// - subject: `sub` (RFC 9068 §2.2, RFC 7662 §2.2), else `client_id` (a client credentials
///   token of a server that leaves `sub` out);
/// - tenant: the first of `tenant`, `tid` (Microsoft Entra ID) and `org_id` (Auth0
///   Organizations) that the token has; none when it has none;
/// - scopes: `scope` (a space-separated string: RFC 9068 §2.2.3, RFC 7662, Keycloak, Auth0),
///   else `scp` (a string or an array: Entra ID, Okta).
///
/// ```
/// use mcp_result_core::oauth::ClaimMapping;
///
/// // Tenants are the `organization` claim; scopes are in `permissions`.
/// let claims = ClaimMapping::default()
///     .tenant(["organization"])
///     .scopes(["permissions"]);
/// # let _ = claims;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimMapping {
    /// The claims tried for the subject, in order.
    pub subject: Vec<String>,
    /// The claims tried for the tenant, in order; empty for none.
    pub tenant: Vec<String>,
    /// The claims tried for the scopes, in order (a space-separated string or an array of
    /// strings).
    pub scopes: Vec<String>,
}

impl Default for ClaimMapping {
    fn default() -> Self {
        let strings = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect();
        Self {
            subject: strings(&["sub", "client_id"]),
            tenant: strings(&["tenant", "tid", "org_id"]),
            scopes: strings(&["scope", "scp"]),
        }
    }
}

impl ClaimMapping {
    /// The tenant from `claims` (tried in order); none for none.
    #[must_use]
    pub fn tenant<I: IntoIterator<Item = impl Into<String>>>(mut self, claims: I) -> Self {
        self.tenant = claims.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes from `claims` (tried in order).
    #[must_use]
    pub fn scopes<I: IntoIterator<Item = impl Into<String>>>(mut self, claims: I) -> Self {
        self.scopes = claims.into_iter().map(Into::into).collect();
        self
    }

    /// The subject from `claims` (tried in order).
    #[must_use]
    pub fn subject<I: IntoIterator<Item = impl Into<String>>>(mut self, claims: I) -> Self {
        self.subject = claims.into_iter().map(Into::into).collect();
        self
    }

    /// The identity of a token with `claims`; `None` when no subject claim is a non-empty
    /// string.
    pub fn identity(&self, claims: &Map<String, Value>) -> Option<Identity> {
        let text = |names: &[String]| {
            names
                .iter()
                .find_map(|name| claims.get(name)?.as_str().filter(|s| !s.trim().is_empty()))
                .map(str::to_owned)
        };
        let mut identity = Identity::new(text(&self.subject)?);
        if let Some(tenant) = text(&self.tenant) {
            identity = identity.with_tenant(tenant);
        }
        let listed: Vec<&str> = self
            .scopes
            .iter()
            .find_map(|name| match claims.get(name)? {
                Value::String(list) => Some(list.split(' ').collect()),
                Value::Array(items) => Some(items.iter().filter_map(Value::as_str).collect()),
                _ => None,
            })
            .unwrap_or_default();
        let scopes: Vec<String> = listed
            .into_iter()
            // `*` would grant every scope (`Identity::ALL_SCOPES`): never from a token.
            .filter(|scope| !scope.is_empty() && *scope != Identity::ALL_SCOPES)
            .map(str::to_owned)
            .collect();
        Some(identity.with_scopes(scopes))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn identity(claims: Value) -> Option<Identity> {
        ClaimMapping::default().identity(claims.as_object().unwrap())
    }

    #[test]
    fn the_defaults_read_common_authorization_servers() {
        assert_eq!(
            identity(json!({"sub": "alice", "tenant": "acme", "scope": "a b"})),
            Some(
                Identity::new("alice")
                    .with_tenant("acme")
                    .with_scopes(["a", "b"])
            )
        );
        assert_eq!(
            identity(json!({"sub": "u1", "tid": "t1", "scp": ["x"]})),
            Some(Identity::new("u1").with_tenant("t1").with_scopes(["x"]))
        );
        assert_eq!(
            identity(json!({"client_id": "svc", "scope": ""})),
            Some(Identity::new("svc"))
        );
        assert_eq!(identity(json!({"sub": "", "scope": "a"})), None);
        assert_eq!(
            identity(json!({"sub": "eve", "scope": "* a"})),
            Some(Identity::new("eve").with_scopes(["a"])),
            "a token never grants every scope"
        );
    }
}
