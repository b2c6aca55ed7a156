//! Sessions of the page and the checks of its requests: the sealed session cookie, the
//! caller's sign-in link, loopback hosts, constant-time comparison and the form's origin.

use super::*;

pub(super) const SESSION_PURPOSE: &str = "mcp-result/approvals-session";

/// A session of the page, sealed in its cookie.
#[derive(Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Session {
    pub(super) purpose: String,
    pub(super) identity: Identity,
    /// The CSRF token of this session's forms.
    pub(super) csrf: String,
    /// The end of its lifetime (seconds since the Unix epoch): [`ApprovalsPage::session_limits`]'s
    /// maximum after its sign-in.
    pub(super) expires_at: u64,
    /// Its random id: what its sign-out records in the approval store.
    #[serde(default)]
    pub(super) sid: String,
    /// When it was last used: past [`ApprovalsPage::session_limits`]'s idle time, it ended.
    #[serde(default)]
    pub(super) seen_at: u64,
    /// How many times its identity's sessions were revoked when it signed in
    /// ([`crate::approval::revoke_sessions`]): one more ends it.
    #[serde(default)]
    pub(super) revoked: u64,
    /// A caller's session (URL-mode elicitation): the one request, of this identity, it
    /// may see and decide. `None`: a decider's session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) request: Option<String>,
}

/// What a caller's sign-in link's record holds: who it signs in, to which request.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct CallerLink {
    pub(super) identity: Identity,
    pub(super) request: String,
}

/// The session cookie's value, if the request has one.
pub(super) fn cookie(headers: &HeaderMap) -> Option<String> {
    cookie_named(headers, COOKIE)
}

/// `; Secure` for a cookie, unless the request's `Host` is a loopback host (plain HTTP).
pub(super) fn secure(headers: &HeaderMap) -> &'static str {
    if on_loopback(headers) {
        ""
    } else {
        "; Secure"
    }
}

/// The value of the cookie `name`, if the request has one.
pub(super) fn cookie_named(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(found, _)| *found == name)
        .map(|(_, value)| value.to_owned())
}

/// Whether the request's `Host` is a loopback host (no `Secure` cookie there: plain HTTP).
pub(super) fn on_loopback(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Whether `a` and `b` are equal, in time independent of where they differ.
pub(super) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |diff, (x, y)| diff | (x ^ y))
            == 0
}

/// Whether a form comes from the page itself: its `Sec-Fetch-Site` (Fetch Metadata, sent
/// by every current browser), when sent, is `same-origin`, and its `Origin`, when sent, is
/// the page's own (the `Host` it was sent to). A browser sends `Origin: null` for a form of
/// a page whose `Referrer-Policy` is `no-referrer` (this page's), even to its own origin:
/// that stands only beside `Sec-Fetch-Site: same-origin`.
pub(super) fn same_origin(headers: &HeaderMap) -> bool {
    let site = headers.get("sec-fetch-site");
    if site.is_some_and(|site| site.as_bytes() != b"same-origin") {
        return false;
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    if origin.as_bytes() == b"null" {
        return site.is_some();
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let authority = origin
        .to_str()
        .ok()
        .and_then(|o| o.split_once("://"))
        .map(|(_, authority)| authority);
    matches!((authority, host), (Some(a), Some(h)) if a.eq_ignore_ascii_case(h))
}
