//! advertised
use super::store::DEFAULT_TTL;

use serde_json::Value;

use crate::wire::keys::{IDEMPOTENCY_KEY_META, IDEMPOTENCY_META};

/// What a write tool's `tools/list` entry advertises under `_meta`
/// `io.github.mcp-result/idempotency`: where the key goes and how long it is kept
/// (`{"keyIn": ["_meta/io.github.mcp-result/idempotencyKey", "arguments/requestId"],
/// "ttlSeconds": 86400}`). Written by the registry and read back by the docs through this
/// one type.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Advertised {
    /// Where the key may go: `_meta/<key>` or `arguments/<field>`.
    pub key_in: Vec<String>,
    /// How long a completed key is kept, in seconds.
    pub ttl_seconds: u64,
}

impl Advertised {
    /// The advertisement of a write tool whose key may also come from `key_field`.
    pub fn new(key_field: Option<&str>) -> Self {
        let mut key_in = vec![format!("_meta/{IDEMPOTENCY_KEY_META}")];
        if let Some(field) = key_field {
            key_in.push(format!("arguments/{field}"));
        }
        Self {
            key_in,
            ttl_seconds: DEFAULT_TTL.as_secs(),
        }
    }

    /// Writes it into `tool`'s `_meta`.
    pub fn write(&self, tool: &mut rmcp::model::Tool) {
        let mut meta = tool.meta.take().unwrap_or_default();
        meta.0.insert(
            IDEMPOTENCY_META.into(),
            serde_json::to_value(self).unwrap_or(Value::Null),
        );
        tool.meta = Some(meta);
    }

    /// Reads it from a listed tool (`None`: the tool advertises no idempotency support).
    pub fn read(tool: &rmcp::model::Tool) -> Option<Self> {
        let value = tool.meta.as_ref()?.0.get(IDEMPOTENCY_META)?;
        serde_json::from_value(value.clone()).ok()
    }
}
