//! The cursor: sealed and opened with the server key.
use std::sync::Arc;

use super::policy::*;

use std::time::Duration;

use base64::Engine as _;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::{
    store::{clock::now_ms, key::ServerKey},
    wire::{
        envelope::{FieldError, ToolError},
        keys::CURSOR_ARGUMENT,
    },
};

/// The cursor format's version byte.
pub(super) const VERSION: u8 = 1;
/// What the tag signs before the cursor's bytes, so that no other signature of the server
/// key passes for a cursor's.
pub(super) const DOMAIN: &[u8] = b"io.github.mcp-result/cursor\0";
/// version, expiry, shown, tool, caller, arguments.
pub(super) const HEADER: usize = 1 + 8 + 8 + 8 + 8 + 8;
/// HMAC-SHA256.
pub(super) const TAG: usize = 32;

pub(super) type Digest8 = [u8; 8];

/// What the call's cursors are bound to (under the signing key).
#[derive(Clone)]
pub(super) struct Seal {
    pub(super) key: Arc<ServerKey>,
    pub(super) tool: Digest8,
    pub(super) caller: Digest8,
    pub(super) arguments: Digest8,
}

/// What an opened cursor holds.
pub(super) struct Opened {
    pub(super) offset: u64,
    pub(super) position: Vec<u8>,
}

impl Seal {
    pub(super) fn new(key: &Arc<ServerKey>, tool: &str, caller: &str, binding: &[String]) -> Self {
        Self {
            key: key.clone(),
            tool: tool_digest(tool),
            caller: caller_digests(key, caller).next().unwrap_or_default(),
            arguments: binding
                .first()
                .map(|f| arguments_digest(f))
                .unwrap_or_default(),
        }
    }

    /// The cursor of `position` after `shown` items, and the position's JSON. It expires
    /// `lifetime` from now rounded up to a step of a 24th of it (at most 1 hour), so
    /// that within a step the same position, shown count and binding give the same cursor.
    pub(super) fn cursor<P: Serialize>(
        &self,
        position: &P,
        shown: u64,
        lifetime: Duration,
    ) -> (String, Vec<u8>) {
        let position = serde_json::to_vec(position).unwrap_or_default();
        let lifetime = u64::try_from(lifetime.as_millis()).unwrap_or(u64::MAX);
        let step = (lifetime / 24).clamp(1, 3_600_000);
        let expiry = now_ms()
            .saturating_add(lifetime)
            .div_ceil(step)
            .saturating_mul(step);
        let mut bytes = Vec::with_capacity(HEADER + position.len() + TAG);
        bytes.push(VERSION);
        bytes.extend(expiry.to_be_bytes());
        bytes.extend(shown.to_be_bytes());
        bytes.extend(self.tool);
        bytes.extend(self.caller);
        bytes.extend(self.arguments);
        bytes.extend(&position);
        let tag = self.key.sign(&signed(&bytes));
        bytes.extend(tag);
        (
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes),
            position,
        )
    }

    /// Opens `cursor`: checks its size, form, tag, binding and expiry, in that order.
    pub(super) fn open(
        &self,
        key: &ServerKey,
        cursor: &str,
        caller: &str,
        fingerprints: &[String],
        now_ms: u64,
    ) -> Result<Opened, Problem> {
        let chars = cursor.chars().count();
        if chars > MAX_CURSOR_CHARS {
            return Err(Problem::TooLong(chars));
        }
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(cursor)
            .map_err(|_| Problem::Malformed)?;
        if bytes.len() < HEADER + TAG || bytes[0] != VERSION {
            return Err(Problem::Malformed);
        }
        let (body, tag) = bytes.split_at(bytes.len() - TAG);
        if !key.verify(&signed(body), tag) {
            return Err(Problem::Altered);
        }
        let field = |at: usize| -> [u8; 8] {
            let mut out = [0; 8];
            out.copy_from_slice(&body[at..at + 8]);
            out
        };
        if field(17) != self.tool {
            return Err(Problem::OtherTool);
        }
        if !caller_digests(key, caller).any(|digest| digest == field(25)) {
            return Err(Problem::OtherCaller);
        }
        if !fingerprints
            .iter()
            .any(|f| arguments_digest(f) == field(33))
        {
            return Err(Problem::OtherArguments);
        }
        if u64::from_be_bytes(field(1)) < now_ms {
            return Err(Problem::Expired);
        }
        Ok(Opened {
            offset: u64::from_be_bytes(field(9)),
            position: body[HEADER..].to_vec(),
        })
    }
}

pub(super) fn signed(body: &[u8]) -> Vec<u8> {
    let mut data = Vec::with_capacity(DOMAIN.len() + body.len());
    data.extend(DOMAIN);
    data.extend(body);
    data
}

pub(super) fn truncated(hash: &[u8]) -> Digest8 {
    let mut out = [0; 8];
    out.copy_from_slice(&hash[..8]);
    out
}

/// Tool names are public: a plain hash.
pub(super) fn tool_digest(tool: &str) -> Digest8 {
    truncated(&Sha256::digest([b"tool\0", tool.as_bytes()].concat()))
}

/// An identity is not for anyone holding the cursor to test guesses against: keyed, one
/// digest per server key (the signing key's first).
pub(super) fn caller_digests<'a>(
    key: &'a ServerKey,
    caller: &str,
) -> impl Iterator<Item = Digest8> + 'a {
    let data = [b"caller\0", caller.as_bytes()].concat();
    key.keyed_hashes(&data)
        .map(|hash| truncated(&hash))
        .collect::<Vec<_>>()
        .into_iter()
}

/// The fingerprint already hides secret arguments (keyed).
pub(super) fn arguments_digest(fingerprint: &str) -> Digest8 {
    truncated(&Sha256::digest(
        [b"arguments\0", fingerprint.as_bytes()].concat(),
    ))
}

/// Why a cursor is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Problem {
    TooLong(usize),
    Malformed,
    Altered,
    OtherTool,
    OtherCaller,
    OtherArguments,
    Expired,
    Position,
}

impl Problem {
    pub(super) fn reason(self, lifetime: Duration) -> String {
        match self {
            Problem::TooLong(chars) => format!(
                "the cursor has {chars} characters; a cursor has at most {MAX_CURSOR_CHARS}"
            ),
            Problem::Malformed => "the cursor is not one this server issued".into(),
            Problem::Altered => "the cursor was altered: its signature does not match".into(),
            Problem::OtherTool => "the cursor was issued by another tool".into(),
            Problem::OtherCaller => "the cursor was issued to another caller".into(),
            Problem::OtherArguments => "the cursor was issued for other arguments (only \
                                        `pageSize` may change between pages)"
                .into(),
            Problem::Expired => format!(
                "the cursor has expired (cursors are valid for {})",
                lifetime_words(lifetime)
            ),
            Problem::Position => "the cursor's position no longer reads (the tool changed \
                                  since it was issued)"
                .into(),
        }
    }

    /// The `validation_error`: one field error at `/cursor`, and what to do.
    pub(super) fn error(self, lifetime: Duration) -> ToolError {
        let reason = self.reason(lifetime);
        let mut error = ToolError::validation(vec![FieldError::new(
            format!("/{CURSOR_ARGUMENT}"),
            format!("{reason}; call again without `cursor` to start from the first page"),
        )]);
        error.message = format!(
            "Invalid argument `cursor`: {reason}. Call again without `cursor` to start from the \
             first page."
        );
        error
    }
}

/// `24 hours`, `1 hour`, `90 seconds`, `5 ms`.
pub(super) fn lifetime_words(lifetime: Duration) -> String {
    let plural = |n: u128, unit: &str| format!("{n} {unit}{}", if n == 1 { "" } else { "s" });
    let ms = lifetime.as_millis();
    match ms {
        ms if ms % 3_600_000 == 0 => plural(ms / 3_600_000, "hour"),
        ms if ms % 60_000 == 0 => plural(ms / 60_000, "minute"),
        ms if ms % 1000 == 0 => plural(ms / 1000, "second"),
        ms => format!("{ms} ms"),
    }
}
