//! The HTTP client of the verifiers: JSON documents with their cache lifetime, and form
//! posts with client credentials.

use std::time::Duration;

use base64::Engine as _;
use serde_json::Value;

use crate::store::StoreError;

/// How long a fetch may take, connection included.
pub(crate) const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// The client every verifier uses unless given one: reqwest's rustls (the process's default
/// crypto provider when one is installed, else aws-lc-rs) with the platform's roots, a time
/// limit, no redirects (a key set or an introspection answer comes from the URL configured,
/// RFC 8414 §3.3).
pub(crate) fn default_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(FETCH_TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_else(|_| reqwest::Client::new())
}

fn remote(
    what: impl Into<String>,
    source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
) -> StoreError {
    StoreError::Remote {
        what: what.into(),
        source: source.into(),
    }
}

/// `GET url` as JSON, and the `max-age` of its `Cache-Control`, if any.
///
/// # Errors
/// The request failed, the status is not 2xx, or the body is not JSON.
pub(crate) async fn get_json(
    client: &reqwest::Client,
    url: &str,
) -> Result<(Value, Option<Duration>), StoreError> {
    let what = || format!("GET {url}");
    let response = client
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| remote(what(), e))?;
    let max_age = response
        .headers()
        .get(reqwest::header::CACHE_CONTROL)
        .and_then(|value| value.to_str().ok())
        .and_then(max_age);
    Ok((json_of(response, what).await?, max_age))
}

/// The JSON body of a 2xx `response`.
///
/// # Errors
/// Another status, a body that could not be read, or one that is not JSON.
async fn json_of(
    response: reqwest::Response,
    what: impl Fn() -> String,
) -> Result<Value, StoreError> {
    let status = response.status();
    if !status.is_success() {
        return Err(remote(what(), format!("HTTP {status}")));
    }
    let bytes = response.bytes().await.map_err(|e| remote(what(), e))?;
    serde_json::from_slice(&bytes).map_err(|e| remote(what(), e))
}

/// `max-age=N` of a `Cache-Control` value; `no-store` and `no-cache` are `0` (RFC 9111
/// §5.2.2).
fn max_age(value: &str) -> Option<Duration> {
    let mut age = None;
    for directive in value.split(',').map(str::trim) {
        let lower = directive.to_ascii_lowercase();
        if lower == "no-store" || lower == "no-cache" {
            return Some(Duration::ZERO);
        }
        if let Some(seconds) = lower.strip_prefix("max-age=") {
            age = seconds
                .trim_matches('"')
                .parse()
                .ok()
                .map(Duration::from_secs);
        }
    }
    age
}

/// Client credentials for an authorization server's endpoints, sent as HTTP Basic (RFC
/// 6749 §2.3.1, `client_secret_basic`: both parts form-urlencoded, then base64).
#[derive(Clone)]
pub struct ClientCredentials {
    /// The `client_id`.
    pub client_id: String,
    /// The `client_secret`: never logged, never in a `Debug` output.
    pub client_secret: String,
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id)
            .field("client_secret", &"[redacted]")
            .finish()
    }
}

impl ClientCredentials {
    /// `client_id` with `client_secret`.
    pub fn new(client_id: impl Into<String>, client_secret: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: client_secret.into(),
        }
    }

    fn basic(&self) -> String {
        let encode =
            |part: &str| form_urlencoded::byte_serialize(part.as_bytes()).collect::<String>();
        let pair = format!(
            "{}:{}",
            encode(&self.client_id),
            encode(&self.client_secret)
        );
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        )
    }
}

/// `POST url` of a form (`application/x-www-form-urlencoded`) as `credentials`, the answer
/// as JSON.
///
/// # Errors
/// The request failed, the status is not 2xx, or the body is not JSON.
pub(crate) async fn post_form(
    client: &reqwest::Client,
    url: &str,
    credentials: &ClientCredentials,
    form: &[(&str, &str)],
) -> Result<Value, StoreError> {
    let what = || format!("POST {url}");
    let body = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let response = client
        .post(url)
        .header(reqwest::header::AUTHORIZATION, credentials.basic())
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(reqwest::header::ACCEPT, "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| remote(what(), e))?;
    json_of(response, what).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_lifetimes_come_from_cache_control() {
        assert_eq!(
            max_age("public, max-age=300"),
            Some(Duration::from_secs(300))
        );
        assert_eq!(max_age("no-store"), Some(Duration::ZERO));
        assert_eq!(max_age("max-age=60, no-cache"), Some(Duration::ZERO));
        assert_eq!(max_age("public"), None);
    }

    #[test]
    fn basic_credentials_are_form_encoded_then_base64() {
        let credentials = ClientCredentials::new("mcp server", "s:ecret");
        // "mcp+server:s%3Aecret"
        assert_eq!(credentials.basic(), "Basic bWNwK3NlcnZlcjpzJTNBZWNyZXQ=");
        assert!(!format!("{credentials:?}").contains("s:ecret"));
    }
}
