//! The errors of a write's own path: its time limit, a rollback, a commit not confirmed,
//! a key in use or reused, an outcome not known, a human approval needed. Each says what
//! happened to the write and whether calling again is safe (README "Retries: a write never
//! runs twice").

use std::time::Duration;

use crate::wire::{
    envelope::{ErrorKind, ToolError, ToolErrorEnvelope},
    status::Status,
    text::escaped,
};

impl ToolError {
    /// A write that passed its time limit `limit` while its outcome is not known: status
    /// `unknown`, kind `upstream_timeout` (never `failed`: it may still take effect). With an
    /// idempotency key (`keyed`), a retry with the same key is safe: it returns the final
    /// outcome and never runs the write twice (`retrySafe: true`).
    pub fn write_timeout(limit: Duration, keyed: bool) -> Self {
        let message = if keyed {
            format!(
                "The write did not finish within {} ms and may still take effect. Call again \
                 with the same idempotency key to get its outcome; it will not run twice.",
                limit.as_millis()
            )
        } else {
            format!(
                "The write did not finish within {} ms and may still take effect. Check its \
                 outcome before calling again (an idempotency key makes retries safe).",
                limit.as_millis()
            )
        };
        ToolErrorEnvelope {
            status: Status::Unknown,
            ..Self::new(ErrorKind::UpstreamTimeout, keyed, message)
        }
        .boxed()
    }

    /// `upstream_timeout`, status `failed`: a transactional write (`sql::Tx`) that did not
    /// finish within `limit` (or whose client cancelled it, `limit` `None`) was rolled back:
    /// nothing of it happened, and running it again is safe (`retrySafe: true`).
    pub fn rolled_back(limit: Option<Duration>) -> Self {
        let message = match limit {
            Some(limit) => format!(
                "The write did not finish within {} ms and was rolled back: nothing happened. \
                 Safe to retry.",
                limit.as_millis()
            ),
            None => "The call was cancelled and the write rolled back: nothing happened. Safe \
                     to retry."
                .to_owned(),
        };
        ToolErrorEnvelope {
            retry_safe_said: true,
            ..Self::new(ErrorKind::UpstreamTimeout, true, message)
        }
        .boxed()
    }

    /// `upstream_unavailable`, status `unknown`: a transactional write's commit failed in a
    /// way that leaves open whether the database committed it (its answer was lost). With an
    /// idempotency key (`keyed`) the retry is safe: it gets the committed result, or runs
    /// fresh when nothing was committed.
    pub fn write_unconfirmed(keyed: bool) -> Self {
        let message = if keyed {
            "The database did not confirm the write's commit. Call again with the same \
             idempotency key: it is answered the committed result, or runs once if nothing \
             was committed."
        } else {
            "The database did not confirm the write's commit: it may have taken effect. \
             Check before calling again (an idempotency key makes retries safe)."
        };
        ToolErrorEnvelope {
            status: Status::Unknown,
            retry_safe_said: true,
            ..Self::new(ErrorKind::UpstreamUnavailable, keyed, message)
        }
        .boxed()
    }

    /// `in_progress`: a call under the same idempotency key is still running; retry with
    /// the same key after `retry_after`.
    pub fn in_progress(retry_after: Duration) -> Self {
        ToolErrorEnvelope {
            status: Status::Unknown,
            ..Self::new(
                ErrorKind::InProgress,
                true,
                "A call with this idempotency key is still running. Call again with the same \
                 key later to get its outcome.",
            )
        }
        .boxed()
        .with_retry_after(retry_after)
    }

    /// `outcome_unknown`: a write under this idempotency key started and was interrupted;
    /// it is never run again under this key.
    pub fn outcome_unknown() -> Self {
        ToolErrorEnvelope {
            status: Status::Unknown,
            ..Self::new(
                ErrorKind::OutcomeUnknown,
                false,
                "A write with this idempotency key started but its server stopped before it \
                 finished; whether it took effect is unknown. Check the upstream system before \
                 acting, and use a new key for a new attempt.",
            )
        }
        .boxed()
    }

    /// `conflict`: the idempotency key was used before with other arguments (IETF
    /// draft-ietf-httpapi-idempotency-key-header: a key names one request).
    pub fn idempotency_key_reused() -> Self {
        Self::conflict(
            "Idempotency key reused with different arguments. Use a new key for a different \
             call.",
        )
    }

    /// `policy_blocked`, status `blocked`, `requiresHumanReview: true`: the write `text`
    /// waits for a human; once approved, call again with `approvalRequestId` = `id`.
    pub fn approval_required(id: impl Into<String>, text: &str) -> Self {
        let id = id.into();
        ToolErrorEnvelope {
            status: Status::Blocked,
            message: format!(
                "This write needs a human approval: {}. Nothing ran. Once it is approved, \
                 call again with approvalRequestId `{id}`.",
                escaped(text)
            ),
            reason: Some("requires human approval".into()),
            requires_human_review: Some(true),
            approval_request_id: Some(id),
            ..Self::new(ErrorKind::PolicyBlocked, true, String::new())
        }
        .boxed()
    }

    /// [`Self::approval_required`], for a request its caller confirms on a page: the text
    /// names `url`, a one-time sign-in link to it (a stdio server's local approvals page).
    pub(crate) fn approval_required_at(id: String, text: &str, url: &str) -> Self {
        let mut error = Self::approval_required(id.clone(), text);
        error.message = format!(
            "This write needs a human approval: {}. Nothing ran. Approve or reject it at {url} \
             (a link for one sign-in, within 10 minutes); once it is approved, call again with \
             approvalRequestId `{id}`.",
            escaped(text)
        );
        error
    }

    /// A call its client cancelled (or left) before it ran: nothing ran; its attempt, for a
    /// write, is recorded with this as its outcome and its key, if any, is given back.
    /// Kind `conflict`; not delivered to a client that cancelled (MCP "Cancellation").
    pub(crate) fn cancelled_before_running() -> Self {
        Self::conflict("The call was cancelled before it ran; nothing ran.")
    }
}
