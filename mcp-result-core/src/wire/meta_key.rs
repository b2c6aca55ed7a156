//! `_meta` key rules (MCP 2025-11-25 "General fields: `_meta`"; MCP 2026-07-28 reserves
//! `traceparent`, `tracestate` and `baggage`): one checker, a `const fn`, used at compile
//! time by `meta_key!` and at run time by [`MetaKey::new`].
//!
//! A key is an optional prefix (dot-separated labels, each starting with a letter and ending
//! with a letter or digit, with letters, digits and hyphens inside, followed by `/`) and a
//! name (starting and ending with a letter or digit, with letters, digits, `-`, `_` and `.`
//! inside). A prefix whose second label is `modelcontextprotocol` or `mcp` is reserved
//! (`io.modelcontextprotocol/`, `dev.mcp/`).

use std::{borrow::Cow, fmt};

/// Why a `_meta` key or value was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaError(pub(crate) String);

impl fmt::Display for MetaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MetaError {}

/// The rule a `_meta` key breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetaKeyRule {
    /// A prefix label does not start with a letter, end with a letter or digit, or hold only
    /// letters, digits and hyphens.
    PrefixLabel,
    /// The prefix's second label is `modelcontextprotocol` or `mcp`.
    ReservedPrefix,
    /// The name is empty, or does not start and end with a letter or digit, or holds other
    /// characters than letters, digits, `-`, `_` and `.`.
    Name,
    /// `traceparent`, `tracestate` or `baggage` (W3C; MCP 2026-07-28).
    ReservedW3c,
}

impl MetaKeyRule {
    /// What the rule says, and how to comply.
    pub const fn message(self) -> &'static str {
        match self {
            MetaKeyRule::PrefixLabel => "a `_meta` key prefix label must start with a letter, end with a letter or digit, and hold only letters, digits and hyphens",
            MetaKeyRule::ReservedPrefix => "a `_meta` key prefix whose second label is `modelcontextprotocol` or `mcp` is reserved for MCP itself; use your own reverse-DNS prefix, e.g. `com.example/`",
            MetaKeyRule::Name => "a `_meta` key name must start and end with a letter or digit and hold only letters, digits, `-`, `_` and `.`",
            MetaKeyRule::ReservedW3c => "`traceparent`, `tracestate` and `baggage` are reserved for W3C Trace Context and Baggage (MCP 2026-07-28): set them with `ResultMeta::traceparent` / `tracestate`",
        }
    }
}

const fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

const fn eq(bytes: &[u8], start: usize, end: usize, word: &[u8]) -> bool {
    if end - start != word.len() {
        return false;
    }
    let mut i = 0;
    while i < word.len() {
        if bytes[start + i] != word[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Checks a `_meta` key against the spec's rules. A `const fn`, so `meta_key!` checks a
/// literal key at compile time with the very same code.
///
/// # Errors
/// The [`MetaKeyRule`] the key breaks.
pub const fn check_meta_key(key: &str) -> Result<(), MetaKeyRule> {
    let bytes = key.as_bytes();
    // The prefix ends at the last `/`.
    let mut slash = None;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'/' {
            slash = Some(i);
        }
        i += 1;
    }
    let name_start = match slash {
        Some(end) => {
            let mut label_start = 0;
            let mut label_index = 0;
            let mut i = 0;
            while i <= end {
                if i == end || bytes[i] == b'.' {
                    if i == label_start
                        || !bytes[label_start].is_ascii_alphabetic()
                        || !alnum(bytes[i - 1])
                    {
                        return Err(MetaKeyRule::PrefixLabel);
                    }
                    if label_index == 1
                        && (eq(bytes, label_start, i, b"modelcontextprotocol")
                            || eq(bytes, label_start, i, b"mcp"))
                    {
                        return Err(MetaKeyRule::ReservedPrefix);
                    }
                    label_index += 1;
                    label_start = i + 1;
                } else if !(alnum(bytes[i]) || bytes[i] == b'-') {
                    return Err(MetaKeyRule::PrefixLabel);
                }
                i += 1;
            }
            end + 1
        }
        None => 0,
    };
    if name_start == bytes.len() || !alnum(bytes[name_start]) || !alnum(bytes[bytes.len() - 1]) {
        return Err(MetaKeyRule::Name);
    }
    let mut i = name_start;
    while i < bytes.len() {
        let b = bytes[i];
        if !(alnum(b) || b == b'-' || b == b'_' || b == b'.') {
            return Err(MetaKeyRule::Name);
        }
        i += 1;
    }
    if slash.is_none()
        && (eq(bytes, 0, bytes.len(), b"traceparent")
            || eq(bytes, 0, bytes.len(), b"tracestate")
            || eq(bytes, 0, bytes.len(), b"baggage"))
    {
        return Err(MetaKeyRule::ReservedW3c);
    }
    Ok(())
}

/// A checked `_meta` key. Make one at compile time with `mcp_result::meta_key!("...")`
/// (a bad literal is a compile error) or at run time with [`MetaKey::new`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MetaKey(pub(crate) Cow<'static, str>);

impl MetaKey {
    /// Checks `key` ([`check_meta_key`]).
    ///
    /// # Errors
    /// A [`MetaError`] for a malformed or reserved key.
    pub fn new(key: impl Into<Cow<'static, str>>) -> Result<Self, MetaError> {
        let key = key.into();
        match check_meta_key(&key) {
            Ok(()) => Ok(Self(key)),
            Err(rule) => Err(MetaError(format!(
                "`_meta` key `{key}`: {}",
                rule.message()
            ))),
        }
    }

    /// A key checked at compile time: use it in a `const` (that is what `meta_key!` does),
    /// where a key that breaks a rule stops compilation with the rule's message.
    ///
    /// # Panics
    /// When `key` breaks a rule (at compile time, in a `const`).
    pub const fn from_static(key: &'static str) -> Self {
        match check_meta_key(key) {
            Ok(()) => Self(Cow::Borrowed(key)),
            Err(rule) => panic!("{}", rule.message()),
        }
    }

    /// The key.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A `_meta` key checked at compile time: `meta_key!("com.example/cache")` is a
/// [`MetaKey`](crate::meta::MetaKey); a malformed or reserved literal (`dev.mcp/x`,
/// `traceparent`) stops compilation with the rule it breaks (MCP 2025-11-25 "General
/// fields: `_meta`").
///
/// ```
/// let key = mcp_result_core::meta_key!("com.example/cache-hint");
/// assert_eq!(key.as_str(), "com.example/cache-hint");
/// ```
#[macro_export]
macro_rules! meta_key {
    ($key:literal) => {{
        const KEY: $crate::meta::MetaKey = $crate::meta::MetaKey::from_static($key);
        KEY
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_spec() {
        for good in [
            "cache",
            "com.example/cache-key",
            "a/b",
            "x1.y-2/z_3.v",
            "trace",
            "mcp/x",
        ] {
            assert_eq!(check_meta_key(good), Ok(()), "{good}");
        }
        for (bad, rule) in [
            ("io.modelcontextprotocol/x", MetaKeyRule::ReservedPrefix),
            ("dev.mcp/x", MetaKeyRule::ReservedPrefix),
            ("", MetaKeyRule::Name),
            ("-x", MetaKeyRule::Name),
            ("x-", MetaKeyRule::Name),
            ("1com/x", MetaKeyRule::PrefixLabel),
            ("com./x", MetaKeyRule::PrefixLabel),
            ("com.ex ample/x", MetaKeyRule::PrefixLabel),
            ("com/", MetaKeyRule::Name),
            ("com/a b", MetaKeyRule::Name),
            ("traceparent", MetaKeyRule::ReservedW3c),
            ("baggage", MetaKeyRule::ReservedW3c),
        ] {
            assert_eq!(check_meta_key(bad), Err(rule), "{bad}");
        }
        let error = MetaKey::new("dev.mcp/x").unwrap_err().to_string();
        assert!(
            error.starts_with("`_meta` key `dev.mcp/x`: a `_meta` key prefix"),
            "{error}"
        );
        const KEY: MetaKey = MetaKey::from_static("com.example/cache");
        assert_eq!(KEY.as_str(), "com.example/cache");
    }
}
