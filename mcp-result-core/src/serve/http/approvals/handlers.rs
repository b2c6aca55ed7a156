//! The page's handlers: the list, one request (and its values) and its decision, and the
//! pages they answer with. Signing in and out is `session.rs`'s.

use super::*;

impl Page {
    /// A page of one message, with its exact status.
    pub(super) fn message(
        &self,
        status: StatusCode,
        who: Option<&Identity>,
        heading: &str,
        line: &str,
    ) -> Response {
        let page = Message {
            style: STYLE,
            base: &self.config.path,
            who: who.map(shown_identity),
            status: status.as_u16(),
            heading,
            line,
            back: who.is_some(),
            sign_in: None,
            next: None,
        };
        html(status, page.render())
    }

    pub(super) fn not_signed_in(&self) -> Response {
        #[cfg(feature = "oauth")]
        if self.oauth.is_some() {
            let page = Message {
                style: STYLE,
                base: &self.config.path,
                who: None,
                status: 401,
                heading: "Not signed in",
                line: "You are not signed in to the approvals page.",
                back: false,
                sign_in: Some(format!("{}/login", self.config.path)),
                next: None,
            };
            return html(StatusCode::UNAUTHORIZED, page.render());
        }
        self.message(
            StatusCode::UNAUTHORIZED,
            None,
            "Not signed in",
            "You are not signed in to the approvals page: open the sign-in link your \
             operator gave you.",
        )
    }

    /// `/login` and `/callback` of a page without OAuth sign-in (never routed).
    #[cfg(feature = "oauth")]
    pub(super) fn no_oauth(&self) -> Response {
        self.message(
            StatusCode::NOT_FOUND,
            None,
            "Not found",
            "This approvals page does not sign in through an authorization server.",
        )
    }

    pub(super) fn not_a_decider(&self, identity: &Identity) -> Response {
        self.message(
            StatusCode::FORBIDDEN,
            Some(identity),
            "Not an approver",
            &format!(
                "{} may not decide approval requests on this server.",
                shown_identity(identity)
            ),
        )
    }

    fn no_such_request(&self, identity: &Identity) -> Response {
        self.message(
            StatusCode::NOT_FOUND,
            Some(identity),
            "No such approval request",
            "No such approval request.",
        )
    }

    /// A form without its session's CSRF token, or from another site: `403`, nothing
    /// changed.
    pub(super) fn refused_form(&self, identity: &Identity) -> Response {
        self.message(
            StatusCode::FORBIDDEN,
            Some(identity),
            "Refused",
            "The form's CSRF token is missing or wrong (or it came from another site); \
             nothing was changed. Open the request again and decide from its page.",
        )
    }

    pub(super) fn store_failed(&self, identity: Option<&Identity>, error: &StoreError) -> Response {
        tracing::error!(%error, "approvals page: the approval store failed");
        self.message(
            StatusCode::SERVICE_UNAVAILABLE,
            identity,
            "The approval store failed",
            "The approval store could not be reached; nothing was changed. Try again.",
        )
    }

    /// Whether `session` would approve its own `request` as a decider, which the page
    /// refuses unless it allows it ([`ApprovalsPage::allow_self_approval`]): a caller's
    /// session of its one request ([`ApprovalsPage::callers_confirm`]) confirms its own
    /// call, and is not this.
    pub(super) fn approves_own(&self, session: &Session, request: &ApprovalRequest) -> bool {
        session.request.is_none()
            && !self.config.self_approval
            && request.caller == session.identity.key()
    }

    /// Request `id` as `headers`' session may open it: signed in, the request visible to
    /// its identity, and, for a caller's session, its own; else the page that says why.
    async fn opened(
        &self,
        headers: &HeaderMap,
        id: &str,
    ) -> Result<(Session, ApprovalRequest, Review), Response> {
        let session = self.session(headers).await?;
        let (request, review) = self.visible(id, &session.identity).await?;
        self.own(&session, &request)?;
        Ok((session, request, review))
    }

    /// A caller's session opens its own request only: any other is refused `403`, and so
    /// is a request whose caller is not the signed-in identity (identity equality:
    /// [`Identity::key`], tenant and subject).
    fn own(&self, session: &Session, request: &ApprovalRequest) -> Result<(), Response> {
        let Some(only) = &session.request else {
            return Ok(());
        };
        if *only == request.id && request.caller == session.identity.key() {
            return Ok(());
        }
        Err(self.message(
            StatusCode::FORBIDDEN,
            Some(&session.identity),
            "Not your request",
            "This approval request is not the one you were signed in to confirm; only its \
             caller may confirm it, and only from the link its client was sent.",
        ))
    }

    /// `request` when `identity` may see it: a request decided out of band (it has a
    /// review) of a caller of its tenant.
    async fn visible(
        &self,
        id: &str,
        identity: &Identity,
    ) -> Result<(ApprovalRequest, Review), Response> {
        match self.store.get(id).await {
            Ok(Some(mut request))
                if in_tenant(&request.caller, identity.tenant.as_deref())
                    && request.tool != SIGN_IN_TOOL
                    && request.tool != CALLER_SIGN_IN_TOOL =>
            {
                match request.review.take() {
                    Some(review) => Ok((request, review)),
                    None => Err(self.no_such_request(identity)),
                }
            }
            Ok(_) => Err(self.no_such_request(identity)),
            Err(error) => Err(self.store_failed(Some(identity), &error)),
        }
    }

    /// The page of a request that can no longer be decided: decided already (`409`) or
    /// expired (`410`).
    fn settled(&self, identity: &Identity, request: &ApprovalRequest) -> Option<Response> {
        if request.decision == Decision::Pending {
            return request.expired().then(|| self.expired(identity));
        }
        let line = format!(
            "This approval request was decided already. {}",
            shown_decision(request)
        );
        Some(self.message(
            StatusCode::CONFLICT,
            Some(identity),
            "Decided already",
            &line,
        ))
    }

    /// What the page of a decided `request` shows instead of its forms: the decision, and
    /// the audit trail read from the server's sink, in the records' time order (a decision
    /// is recorded after the store has it, and the write it lets run may record its intent
    /// first); `None` while it is pending.
    async fn decided(&self, request: &ApprovalRequest) -> Option<Decided> {
        if request.decision == Decision::Pending {
            return None;
        }
        // One more than is shown: whether the log holds more.
        let trail = match self
            .audit
            .approval_records(&request.id, TRAIL_ROWS + 1)
            .await
        {
            Ok(Some(mut records)) => {
                let more = records.len() > TRAIL_ROWS;
                records.truncate(TRAIL_ROWS);
                // RFC 3339 in UTC, to the millisecond: ordered as text; stable for ties.
                records.sort_by(|a, b| a.time.cmp(&b.time));
                Trail::Records(records.iter().map(Step::of).collect(), more)
            }
            Ok(None) => Trail::NotReadable,
            Err(error) => {
                tracing::error!(%error, "approvals page: the audit log could not be read");
                Trail::Failed
            }
        };
        Some(Decided {
            decision: shown_decision(request),
            trail,
        })
    }

    fn expired(&self, identity: &Identity) -> Response {
        self.message(
            StatusCode::GONE,
            Some(identity),
            "Expired",
            "This approval request expired; nothing was changed. The caller may ask again.",
        )
    }
}

/// `GET /approvals`: the pending requests of the decider's tenant.
pub(super) async fn list(Extract(page): Extract<Arc<Page>>, headers: HeaderMap) -> Response {
    let session = match page.session(&headers).await {
        Ok(session) => session,
        Err(refused) => return refused,
    };
    let identity = &session.identity;
    let pending = match page.store.pending(identity.tenant.as_deref(), LISTED).await {
        Ok(pending) => pending,
        Err(error) => return page.store_failed(Some(identity), &error),
    };
    let rows = pending
        .into_iter()
        .filter(|request| {
            session
                .request
                .as_ref()
                .is_none_or(|only| *only == request.id && request.caller == identity.key())
        })
        .map(|request| Row {
            title: page
                .titles
                .get(&request.tool)
                .cloned()
                .unwrap_or_else(|| request.tool.clone()),
            asked: request
                .review
                .as_ref()
                .map(|r| shown_time(r.asked_at))
                .unwrap_or_default(),
            expires: shown_expiry(request.expires_at),
            caller: shown_caller(&request.caller),
            text: request.text,
            id: request.id,
        })
        .collect();
    let list = List {
        style: STYLE,
        base: &page.config.path,
        who: Some(shown_identity(identity)),
        csrf: &session.csrf,
        rows,
    };
    page.keep(
        &headers,
        session.clone(),
        html(StatusCode::OK, list.render()),
    )
}

/// `GET /approvals/requests/{id}`: one request and the forms that decide it; decided, its
/// decision and audit trail instead (expired undecided: `410`). With OAuth
/// sign-in, opened without a session (or with a caller's session of another request): the
/// sign-in at the authorization server, coming back here ([`authorize::start`]).
pub(super) async fn request(
    Extract(page): Extract<Arc<Page>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let from = query_value(&uri, "from")
        .and_then(|from| from.parse().ok())
        .unwrap_or(0);
    #[cfg(feature = "oauth")]
    if page.signs_in_first(&headers, &id) {
        return authorize::start(&page, &headers, Some(&id)).await;
    }
    let (session, request, review) = match page.opened(&headers, &id).await {
        Ok(opened) => opened,
        Err(refused) => return refused,
    };
    let identity = &session.identity;
    if request.decision == Decision::Pending && request.expired() {
        return page.expired(identity);
    }
    let decided = page.decided(&request).await;
    let title = page
        .titles
        .get(&request.tool)
        .map_or(request.tool.as_str(), String::as_str);
    let detail = Detail {
        style: STYLE,
        base: &page.config.path,
        who: Some(shown_identity(identity)),
        id: &request.id,
        tool: &request.tool,
        title,
        text: &request.text,
        caller: shown_caller(&request.caller),
        asked: shown_time(review.asked_at),
        expires: shown_expiry(request.expires_at),
        own: page.approves_own(&session, &request),
        hidden: review
            .hidden
            .iter()
            .map(|p| marked(p, &[]).into_owned())
            .collect(),
        arguments: argument_rows(&review, from),
        csrf: &session.csrf,
        decided,
    };
    page.keep(
        &headers,
        session.clone(),
        html(StatusCode::OK, detail.render()),
    )
}

/// The value of query parameter `name` of `uri`, decoded.
fn query_value(uri: &Uri, name: &str) -> Option<String> {
    uri.query()
        .map(|q| form_urlencoded::parse(q.as_bytes()))
        .and_then(|mut pairs| pairs.find(|(found, _)| found == name))
        .map(|(_, value)| value.into_owned())
}

/// `GET /approvals/requests/{id}/value?at=POINTER[&from=N]`: one argument's value whole,
/// [`VALUE_CHARS`] characters a page from character `from` (a string as its text, other
/// values as JSON; characters that change what a reader sees as their code points), for a
/// person who may see the request. A pointer that names no argument value (or a withheld
/// secret, which the request does not hold) is `404`.
pub(super) async fn value(
    Extract(page): Extract<Arc<Page>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    uri: Uri,
) -> Response {
    let (session, request, review) = match page.opened(&headers, &id).await {
        Ok(opened) => opened,
        Err(refused) => return refused,
    };
    let identity = &session.identity;
    let pointer = query_value(&uri, "at").unwrap_or_default();
    let Some(value) = review
        .arguments
        .pointer(&pointer)
        .filter(|_| !pointer.is_empty())
    else {
        return page.message(
            StatusCode::NOT_FOUND,
            Some(identity),
            "No such argument",
            "This request has no argument value there.",
        );
    };
    let text = match value {
        Value::String(text) => text.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    };
    let total = text.chars().count();
    let from = query_value(&uri, "from")
        .and_then(|from| from.parse::<usize>().ok())
        .unwrap_or(0)
        .min(total);
    let to = (from + VALUE_CHARS).min(total);
    let shown: String = text.chars().skip(from).take(to - from).collect();
    let body = ValuePage {
        style: STYLE,
        base: &page.config.path,
        who: Some(shown_identity(identity)),
        csrf: &session.csrf,
        id: &request.id,
        query: form_urlencoded::byte_serialize(pointer.as_bytes()).collect(),
        pointer: marked(&pointer, &[]).into_owned(),
        text: marked(&shown, &['\n', '\t']).into_owned(),
        from,
        to,
        total,
        previous: (from > 0).then(|| from.saturating_sub(VALUE_CHARS)),
        next: (to < total).then_some(to),
    };
    page.keep(
        &headers,
        session.clone(),
        html(StatusCode::OK, body.render()),
    )
}

/// `POST /approvals/requests/{id}`: the decision, recorded once with the approver.
pub(super) async fn decide(
    Extract(page): Extract<Arc<Page>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let session = match page.session(&headers).await {
        Ok(session) => session,
        Err(refused) => return refused,
    };
    let identity = &session.identity;
    let form: HashMap<String, String> = form_urlencoded::parse(&body).into_owned().collect();
    let csrf_ok = form
        .get("csrf")
        .is_some_and(|token| same(token, &session.csrf));
    if !csrf_ok || !same_origin(&headers) {
        return page.refused_form(identity);
    }
    let (request, review) = match page.visible(&id, identity).await {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    if let Err(refused) = page.own(&session, &request) {
        return refused;
    }
    if let Some(settled) = page.settled(identity, &request) {
        return settled;
    }
    let approver = identity.key();
    let (decision, done) = match form.get("decision").map(String::as_str) {
        Some("approve") if page.approves_own(&session, &request) => {
            return page.message(
                StatusCode::FORBIDDEN,
                Some(identity),
                "Not yours to approve",
                "You made this request, and a write that needs a human approval is approved \
                 by another person: ask another approver. You may reject it to withdraw it.",
            );
        }
        Some("approve") => {
            let approval_id = uuid::Uuid::now_v7().to_string();
            let done = if session.request.is_some() {
                format!(
                    "Approved: go back to your client; the call that asked runs the write \
                     once, under approval {approval_id}."
                )
            } else {
                format!(
                    "Approved: the caller's next call with this request runs once, under \
                     approval {approval_id}."
                )
            };
            (
                Decision::Approved {
                    approval_id,
                    approver,
                },
                done,
            )
        }
        Some("reject") => {
            let reason = form
                .get("reason")
                .map(|r| r.trim())
                .unwrap_or_default()
                .chars()
                .take(500)
                .collect::<String>();
            if reason.is_empty() {
                return page.message(
                    StatusCode::BAD_REQUEST,
                    Some(identity),
                    "A reason is needed",
                    "A rejection needs a reason; nothing was changed.",
                );
            }
            let done = format!("Rejected: the write never runs under this request ({reason}).");
            (Decision::Rejected { approver, reason }, done)
        }
        _ => {
            return page.message(
                StatusCode::BAD_REQUEST,
                Some(identity),
                "No decision",
                "The form said neither approve nor reject; nothing was changed.",
            )
        }
    };
    // The decision and its audit record (made before the store has the decision: the write
    // it lets run records its attempt later, whichever record lands first).
    let request = ApprovalRequest {
        review: Some(review),
        ..request
    };
    let decided =
        crate::approval::decide(page.store.as_ref(), page.audit.as_ref(), &request, decision).await;
    match decided {
        Ok(Ok(_)) => {
            // A client following the request (`mcp-result://approvals/{id}`) reads it again.
            page.subscriptions.resource_updated(format!(
                "{}{}",
                crate::write::approval::APPROVAL_URI_PREFIX,
                request.id
            ));
            let heading = if done.starts_with("Approved") {
                "Approved"
            } else {
                "Rejected"
            };
            let done = page.message(StatusCode::OK, Some(identity), heading, &done);
            page.keep(&headers, session.clone(), done)
        }
        Ok(Err(Refusal::Expired)) => page.expired(identity),
        Ok(Err(Refusal::Unknown)) => page.no_such_request(identity),
        Ok(Err(_)) => match page.store.get(&request.id).await {
            Ok(Some(now)) => page.settled(identity, &now).unwrap_or_else(|| {
                page.message(
                    StatusCode::CONFLICT,
                    Some(identity),
                    "Decided already",
                    "This approval request was decided already.",
                )
            }),
            Ok(None) => page.no_such_request(identity),
            Err(error) => page.store_failed(Some(identity), &error),
        },
        Err(error) => page.store_failed(Some(identity), &error),
    }
}
