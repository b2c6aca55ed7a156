//! Secret-looking strings: the shapes of credentials people paste, and long random-looking
//! values next to a word that says they are one.

use std::sync::OnceLock;

use mcp_result::serde_json::Value;
use regex::Regex;

use crate::schema::escape;

/// The credential shapes, by name: a match of any is a finding wherever it stands.
const SHAPES: &[(&str, &str)] = &[
    (
        "a private key",
        r"-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----",
    ),
    (
        "an OpenAI/Anthropic-style API key (sk-...)",
        r"\bsk-[A-Za-z0-9_-]{20,}",
    ),
    (
        "a GitHub token",
        r"\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})",
    ),
    ("an AWS access key id", r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("a Slack token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
    (
        "a JSON Web Token",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    ),
    (
        "a bearer credential",
        r"\b[Bb]earer\s+[A-Za-z0-9._~+/-]{16,}=*",
    ),
];

/// A word that names a credential, then `:` or `=`, then the value (in prose or a config
/// line of a text block).
const NAMED: &str = r#"(?i)\b(api[_-]?key|apikey|secret|client[_-]?secret|token|access[_-]?token|auth[_-]?token|password|passwd|access[_-]?key|private[_-]?key)\b["']?\s*[:=]\s*["']?([A-Za-z0-9+/_.=-]{16,})"#;

/// An object key that names a credential (`apiKey`, `client_secret`, `accessToken`, ...).
const NAMED_KEY: &str = r"(?i)(api[_-]?key|secret|token|password|passwd|pwd|access[_-]?key|private[_-]?key|credential)s?$";

struct Patterns {
    shapes: Vec<(&'static str, Regex)>,
    named: Regex,
    named_key: Regex,
}

fn patterns() -> &'static Patterns {
    static PATTERNS: OnceLock<Patterns> = OnceLock::new();
    PATTERNS.get_or_init(|| Patterns {
        shapes: SHAPES
            .iter()
            .map(|(what, p)| (*what, Regex::new(p).expect("secret pattern")))
            .collect(),
        named: Regex::new(NAMED).expect("named secret pattern"),
        named_key: Regex::new(NAMED_KEY).expect("secret key pattern"),
    })
}

/// A secret-looking string in a result: where, and what it looks like (redacted).
pub struct Hit {
    pub pointer: String,
    pub what: String,
}

/// Every secret-looking string of `result` (a `CallToolResult` as JSON): text blocks,
/// `structuredContent`, `_meta`, embedded resources' text. Base64 `data`/`blob` payloads
/// are not read.
pub fn scan(result: &Value) -> Vec<Hit> {
    let mut hits = Vec::new();
    walk(result, String::new(), None, &mut hits);
    hits
}

fn walk(value: &Value, pointer: String, key: Option<&str>, hits: &mut Vec<Hit>) {
    match value {
        Value::String(text) => {
            if let Some(what) = looks_secret(text, key) {
                hits.push(Hit { pointer, what });
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, format!("{pointer}/{i}"), key, hits);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                if matches!(k.as_str(), "data" | "blob") && v.is_string() {
                    continue;
                }
                walk(v, format!("{pointer}/{}", escape(k)), Some(k), hits);
            }
        }
        _ => {}
    }
}

fn looks_secret(text: &str, key: Option<&str>) -> Option<String> {
    let p = patterns();
    for (what, regex) in &p.shapes {
        if let Some(m) = regex.find(text) {
            return Some(format!("{what} ({})", redact(m.as_str())));
        }
    }
    for captures in p.named.captures_iter(text) {
        let value = &captures[2];
        if random_looking(value) {
            return Some(format!(
                "a random-looking value after `{}` ({})",
                &captures[1],
                redact(value)
            ));
        }
    }
    if key.is_some_and(|k| p.named_key.is_match(k)) && random_looking(text) {
        return Some(format!(
            "a random-looking value under `{}` ({})",
            key.unwrap_or_default(),
            redact(text)
        ));
    }
    None
}

/// At least 16 characters of one token (no spaces) with letters and digits, and more than
/// 3 bits of entropy per character: a random hex or base64 value, not a word or an id
/// like `T-1001`.
fn random_looking(text: &str) -> bool {
    let len = text.chars().count();
    if len < 16 || text.chars().any(char::is_whitespace) {
        return false;
    }
    let letters = text.chars().any(|c| c.is_ascii_alphabetic());
    let digits = text.chars().any(|c| c.is_ascii_digit());
    letters && digits && entropy(text) > 3.0
}

fn entropy(text: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for c in text.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    let n = text.chars().count() as f64;
    counts
        .values()
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// The first four characters and the length: enough to find it, not enough to use it.
fn redact(secret: &str) -> String {
    let head: String = secret.chars().take(4).collect();
    format!("`{head}…`, {} characters", secret.chars().count())
}

#[cfg(test)]
mod tests {
    use mcp_result::serde_json::json;

    use super::*;

    #[test]
    fn credential_shapes_are_found_and_ids_are_not() {
        let result = json!({
            "content": [
                {"type": "text", "text": "Use sk-proj-abcdefghij0123456789XYZ to call it."},
                {"type": "text", "text": "Ticket T-1001, audit 01a22e3a-11c8-72e3-b13e-b25f1a76feee."},
                {"type": "image", "data": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk", "mimeType": "image/png"}
            ],
            "structuredContent": {
                "deployKey": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----",
                "apiKey": "9f86d081884c7d659a2feaa0c55ad015",
                "nextCursor": "c2VhbGVkLWN1cnNvci0xMjM0NTY3ODkw",
                "idempotencyKey": "note-7",
                "config": "password = hunter2hunter2hunter2x9",
                "aws": "AKIAIOSFODNN7EXAMPLE",
                "auth": "Authorization: Bearer abcdef0123456789abcdef"
            }
        });
        // In the order of the JSON maps: sorted, or as written with serde_json's
        // `preserve_order` (which another crate of the build may turn on).
        let mut hits: Vec<String> = scan(&result).into_iter().map(|h| h.pointer).collect();
        hits.sort();
        assert_eq!(
            hits,
            [
                "/content/0/text",
                "/structuredContent/apiKey",
                "/structuredContent/auth",
                "/structuredContent/aws",
                "/structuredContent/config",
                "/structuredContent/deployKey",
            ]
        );
        let what = &scan(&result)[0].what;
        assert!(what.contains("`sk-p…`, 31 characters"), "{what}");
    }
}
