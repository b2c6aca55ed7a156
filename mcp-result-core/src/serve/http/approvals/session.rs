//! Sessions of the page and the checks of its requests: signing in with a one-time link
//! (its page, then its `POST`), the sealed session cookie kept while used, signing out and
//! sessions ended in the store; the caller's sign-in link, loopback hosts, constant-time
//! comparison and the form's origin.

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

impl Page {
    /// Opens a session of `identity` (a caller's of `request` only, when given), signed in
    /// after `revoked` revocations of its identity's sessions: its sealed cookie set on
    /// `response`.
    pub(super) fn open_session(
        &self,
        headers: &HeaderMap,
        identity: Identity,
        request: Option<String>,
        revoked: u64,
        response: &mut Response,
    ) {
        let mut csrf = [0u8; 32];
        getrandom::fill(&mut csrf).expect("the operating system's random source");
        let mut sid = [0u8; 32];
        getrandom::fill(&mut sid).expect("the operating system's random source");
        let now = unix_now();
        let session = Session {
            purpose: SESSION_PURPOSE.to_owned(),
            identity,
            csrf: base64_url(&csrf),
            expires_at: now
                + if request.is_some() {
                    SIGN_IN_TTL.as_secs()
                } else {
                    self.config.max_session.as_secs()
                },
            sid: base64_url(&sid),
            seen_at: now,
            revoked,
            request,
        };
        self.set_cookie(headers, &session, response);
    }

    /// Sets `session`'s sealed cookie on `response`, living until the session's idle time
    /// or its maximum lifetime ends, whichever comes first.
    fn set_cookie(&self, headers: &HeaderMap, session: &Session, response: &mut Response) {
        let sealed = self
            .key
            .seal(&serde_json::to_value(session).unwrap_or_default());
        let now = unix_now();
        let lasts = session
            .expires_at
            .saturating_sub(now)
            .min(self.config.idle_session.as_secs());
        let cookie = format!(
            "{COOKIE}={sealed}; Path={}; Max-Age={lasts}; HttpOnly; SameSite=Strict{}",
            self.config.path,
            secure(headers)
        );
        if let Ok(cookie) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, cookie);
        }
    }

    /// `response` to a request of `session`, which was used now: its cookie set again, so
    /// its idle time starts over.
    pub(super) fn keep(
        &self,
        headers: &HeaderMap,
        mut session: Session,
        mut response: Response,
    ) -> Response {
        session.seen_at = unix_now();
        self.set_cookie(headers, &session, &mut response);
        response
    }

    /// The answer of a sign-in (a one-time link, or the authorization server's callback):
    /// a session of `identity` opened (a caller's of request `only`, when given), on a
    /// `200` page "Signed in as ..." that moves on by itself to request `then`'s page (else
    /// the list): a `Refresh` header, and a plain link for a browser that does not
    /// refresh.
    ///
    /// Not a redirect: the session cookie is `SameSite=Strict` (RFC 6265bis, "Same-site
    /// and Cross-site Requests"), and a link opened from a page of another site (a chat
    /// client's web page, a web mail) starts a cross-site navigation, whose redirects a
    /// browser sends without `Strict` cookies (Chromium counts the whole redirect chain as
    /// cross-site), so a `303` lands signed out. The refresh is a navigation the page's
    /// own document starts, same-site, which carries the cookie.
    pub(super) async fn signed_in(
        &self,
        headers: &HeaderMap,
        identity: Identity,
        only: Option<String>,
        then: Option<&str>,
    ) -> Response {
        let revoked = match crate::approval::revocations(self.store.as_ref(), &identity).await {
            Ok(revoked) => revoked,
            Err(error) => return self.store_failed(None, &error),
        };
        let next = match then {
            Some(id) => format!("{}/requests/{id}", self.config.path),
            None => self.config.path.clone(),
        };
        let line = format!("Signed in as {}.", shown_identity(&identity));
        let page = Message {
            style: STYLE,
            base: &self.config.path,
            who: Some(shown_identity(&identity)),
            status: 200,
            heading: "Signed in",
            line: &line,
            back: false,
            sign_in: None,
            next: Some(&next),
        };
        let mut response = html(StatusCode::OK, page.render());
        if let Ok(refresh) = HeaderValue::from_str(&format!("0; url={next}")) {
            response.headers_mut().insert("refresh", refresh);
        }
        self.open_session(headers, identity, only, revoked, &mut response);
        response
    }

    /// The session of `headers`' cookie, sealed by this server, within its lifetime and
    /// used within its idle time ([`ApprovalsPage::session_limits`]).
    pub(super) fn open(&self, headers: &HeaderMap) -> Option<Session> {
        let now = unix_now();
        cookie(headers)
            .and_then(|sealed| self.key.open(&sealed))
            .and_then(|body| serde_json::from_value::<Session>(body).ok())
            .filter(|s| {
                s.purpose == SESSION_PURPOSE
                    && s.expires_at > now
                    && now.saturating_sub(s.seen_at) < self.config.idle_session.as_secs()
            })
    }

    /// Whether opening request `id`'s page with `headers` starts a sign-in at the
    /// authorization server, coming back to it ([`ApprovalsPage::oauth_client`]): there is
    /// no session, or a caller's session of another request. The page a URL-mode
    /// elicitation sends a caller to carries no credential; the browser proves who opens
    /// it by signing in.
    #[cfg(feature = "oauth")]
    pub(super) fn signs_in_first(&self, headers: &HeaderMap, id: &str) -> bool {
        self.oauth.is_some()
            && authorize::returnable(id)
            && self
                .open(headers)
                .is_none_or(|s| s.request.as_ref().is_some_and(|only| only != id))
    }

    /// The signed-in decider of `headers`' session, or the page that says why not: a
    /// session signed out, or whose identity's sessions were revoked since it signed in
    /// (in the approval store, so on every instance), is not signed in.
    pub(super) async fn session(&self, headers: &HeaderMap) -> Result<Session, Response> {
        let Some(session) = self.open(headers) else {
            return Err(self.not_signed_in());
        };
        match crate::approval::sessions_ended(
            self.store.as_ref(),
            &session.identity,
            &session.sid,
            session.revoked,
        )
        .await
        {
            Ok(false) => {}
            Ok(true) => return Err(self.not_signed_in()),
            Err(error) => return Err(self.store_failed(Some(&session.identity), &error)),
        }
        let allowed = if session.request.is_some() {
            self.config.callers_confirm
        } else {
            self.config.may_decide(&session.identity)
        };
        if !allowed {
            return Err(self.not_a_decider(&session.identity));
        }
        Ok(session)
    }
}

/// `GET /approvals/sign-in?token=...` (and `HEAD`): the sign-in link opened, which spends
/// nothing: a page with one button, whose `POST` uses the link ([`sign_in`]). A chat or mail
/// client that fetches the link to preview it leaves it usable.
pub(super) async fn sign_in_page(Extract(page): Extract<Arc<Page>>, uri: Uri) -> Response {
    let token = uri
        .query()
        .map(|q| form_urlencoded::parse(q.as_bytes()))
        .and_then(|mut pairs| pairs.find(|(name, _)| name == "token"))
        .map(|(_, token)| token.into_owned())
        .unwrap_or_default();
    if token.is_empty() || token.len() > 100 {
        return page.message(
            StatusCode::FORBIDDEN,
            None,
            "Not a sign-in link",
            "This sign-in link is not valid: ask your operator for a new one.",
        );
    }
    let form = SignIn {
        style: STYLE,
        base: &page.config.path,
        who: None,
        token: &token,
    };
    html(StatusCode::OK, form.render())
}

/// `POST /approvals/sign-in` (`token=...`, from the page [`sign_in_page`] shows): uses the
/// link once and opens a session, on a page that moves on to the list or the caller's
/// request ([`Page::signed_in`]). A form of another site is refused `403`.
pub(super) async fn sign_in(
    Extract(page): Extract<Arc<Page>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let token = form_urlencoded::parse(&body)
        .find(|(name, _)| name == "token")
        .map(|(_, token)| token.into_owned())
        .unwrap_or_default();
    let invalid = || {
        page.message(
            StatusCode::FORBIDDEN,
            None,
            "Not a sign-in link",
            "This sign-in link is not valid: ask your operator for a new one.",
        )
    };
    if !same_origin(&headers) {
        return page.message(
            StatusCode::FORBIDDEN,
            None,
            "Refused",
            "This sign-in came from another site; nobody was signed in. Open the link \
             itself.",
        );
    }
    if token.is_empty() || token.len() > 100 {
        return invalid();
    }
    let used = Decision::Used {
        approval_id: String::new(),
        approver: String::new(),
    };
    let (identity, request) = match page.store.decide(&token_id(&token), used).await {
        Ok(Ok(record)) if record.tool == SIGN_IN_TOOL => {
            match serde_json::from_str::<Identity>(&record.text) {
                Ok(identity) => (identity, None),
                Err(_) => return invalid(),
            }
        }
        Ok(Ok(record)) if record.tool == CALLER_SIGN_IN_TOOL && page.config.callers_confirm => {
            match serde_json::from_str::<CallerLink>(&record.text) {
                // The record's caller is the identity's key: a link signs in as the one
                // identity it was minted for.
                Ok(link) if link.identity.key() == record.caller => {
                    (link.identity, Some(link.request))
                }
                _ => return invalid(),
            }
        }
        Ok(Ok(_) | Err(Refusal::Unknown)) => return invalid(),
        Ok(Err(Refusal::Expired)) => {
            return page.message(
                StatusCode::GONE,
                None,
                "Sign-in link expired",
                "This sign-in link expired: ask your operator for a new one.",
            )
        }
        Ok(Err(_)) => {
            return page.message(
                StatusCode::GONE,
                None,
                "Sign-in link used",
                "This sign-in link was used already; each link signs in once.",
            )
        }
        Err(error) => return page.store_failed(None, &error),
    };
    if request.is_none() && !page.config.may_decide(&identity) {
        return page.not_a_decider(&identity);
    }
    let then = request.clone();
    page.signed_in(&headers, identity, request, then.as_deref())
        .await
}

/// `POST /approvals/sign-out` (`csrf=...`): ends the session, here and on every instance
/// sharing the approval store ([`crate::approval::revoke_sessions`] ends them all); its
/// cookie cleared. Without a session `401`; without its CSRF token, or from another site,
/// `403` and the session stays.
pub(super) async fn sign_out(
    Extract(page): Extract<Arc<Page>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let session = match page.session(&headers).await {
        Ok(session) => session,
        Err(refused) => return refused,
    };
    let csrf_ok = form_urlencoded::parse(&body)
        .find(|(name, _)| name == "csrf")
        .is_some_and(|(_, token)| same(&token, &session.csrf));
    if !csrf_ok || !same_origin(&headers) {
        return page.refused_form(&session.identity);
    }
    if let Err(error) =
        crate::approval::end_session(page.store.as_ref(), &session.identity, &session.sid).await
    {
        return page.store_failed(Some(&session.identity), &error);
    }
    let mut response = page.message(
        StatusCode::OK,
        None,
        "Signed out",
        "You are signed out of the approvals page.",
    );
    let cookie = format!(
        "{COOKIE}=; Path={}; Max-Age=0; HttpOnly; SameSite=Strict{}",
        page.config.path,
        secure(&headers)
    );
    if let Ok(cookie) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}
