//! [`ArtifactStore`] in SQL, bounded by [`ArtifactLimits`] like
//! [`MemoryStore`](crate::store::MemoryStore), with the same rule
//! ([`check_limits`]).
//!
//! A put is one transaction that holds the store's write lock from the check to the
//! commit — SQLite's (`BEGIN IMMEDIATE`), PostgreSQL's one-row `mcp_result_artifact_lock`
//! (`SELECT ... FOR UPDATE`) — so instances sharing the database put one at a time and two
//! of them cannot both pass a quota or the total cap: it deletes the expired artifacts,
//! sums what the owners and the store hold, and inserts all of the put or nothing. One
//! lock for the whole store, not one per owner, because the total cap is shared by every
//! owner; puts are short and rare next to reads, which take no lock.

use std::time::SystemTime;

use super::{column, failed, int, placeholders, Db, Dialect};
use crate::store::{
    artifact::{
        check_limits, ArtifactContent, ArtifactLimits, ArtifactRefusal, ArtifactStore,
        StoredArtifact,
    },
    clock::unix_ms,
    StoreError, StoreFuture,
};

/// Artifacts in the database (see [`super::SqlStores::artifacts`]): any instance serves
/// what another stored, until it expires.
#[derive(Debug, Clone)]
pub struct SqlArtifactStore {
    db: Db,
    limits: ArtifactLimits,
}

impl SqlArtifactStore {
    pub(super) fn new(db: Db, limits: ArtifactLimits) -> Self {
        Self { db, limits }
    }

    /// The bounds it enforces.
    pub fn limits(&self) -> &ArtifactLimits {
        &self.limits
    }

    async fn put_all(
        &self,
        artifacts: &[StoredArtifact],
    ) -> Result<Result<(), ArtifactRefusal>, StoreError> {
        let now = unix_ms(SystemTime::now()) / 1000;
        // SQLite: the writer's connection, leased (puts are rare, and long next to a write's
        // statements: they run alone, not in a group).
        let mut tx = self.db.begin(self.db.dialect.begin_write()).await?;
        if self.db.dialect == Dialect::Postgres {
            sqlx::query("SELECT id FROM mcp_result_artifact_lock WHERE id = 1 FOR UPDATE")
                .execute(&mut *tx)
                .await
                .map_err(failed("storing artifacts"))?;
        }
        sqlx::query("DELETE FROM mcp_result_artifacts WHERE expires_at <= $1")
            .bind(int(now))
            .execute(&mut *tx)
            .await
            .map_err(failed("deleting expired artifacts"))?;
        let mut owners: Vec<&str> = Vec::new();
        for artifact in artifacts {
            if !owners.contains(&artifact.owner.as_str()) {
                owners.push(&artifact.owner);
            }
        }
        let sql = format!(
            "SELECT 'owner' AS scope, owner, CAST(COALESCE(SUM(size), 0) AS BIGINT) AS bytes, \
                    COUNT(*) AS artifacts \
             FROM mcp_result_artifacts WHERE owner IN ({}) GROUP BY owner \
             UNION ALL \
             SELECT 'total' AS scope, '' AS owner, CAST(COALESCE(SUM(size), 0) AS BIGINT) AS bytes, \
                    COUNT(*) AS artifacts \
             FROM mcp_result_artifacts",
            placeholders(1, owners.len())
        );
        let mut query = sqlx::query(&sql);
        for owner in &owners {
            query = query.bind(*owner);
        }
        let rows = query
            .fetch_all(&mut *tx)
            .await
            .map_err(failed("reading artifact usage"))?;
        let mut total = 0;
        let mut usage: Vec<(String, u64, u64)> = Vec::new();
        for row in &rows {
            let scope: String = column(row, "scope")?;
            let bytes = column::<i64>(row, "bytes")? as u64;
            let count = column::<i64>(row, "artifacts")? as u64;
            if scope == "total" {
                total = bytes;
            } else {
                usage.push((column(row, "owner")?, bytes, count));
            }
        }
        let held = |owner: &str| {
            usage
                .iter()
                .find(|(o, ..)| o == owner)
                .map_or((0, 0), |(_, bytes, count)| (*bytes, *count))
        };
        if let Some(refusal) = check_limits(&self.limits, artifacts, total, held) {
            // Rolled back when `tx` drops: the purge of expired rows goes too, which is fine.
            return Ok(Err(refusal));
        }
        let expires_at = int(now + self.limits.ttl.as_secs());
        let values = (0..artifacts.len())
            .map(|i| {
                format!(
                    "({}, ${})",
                    placeholders(i * 7 + 1, 7),
                    artifacts.len() * 7 + 1
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "INSERT INTO mcp_result_artifacts \
                 (uri, name, mime_type, owner, kind, size, content, expires_at) VALUES {values}"
        );
        let mut query = sqlx::query(&sql);
        for artifact in artifacts {
            let (kind, bytes) = match &artifact.content {
                ArtifactContent::Text(text) => ("text", text.as_bytes().to_vec()),
                ArtifactContent::Blob(bytes) => ("blob", bytes.clone()),
            };
            query = query
                .bind(&artifact.uri)
                .bind(&artifact.name)
                .bind(&artifact.mime_type)
                .bind(&artifact.owner)
                .bind(kind)
                .bind(int(artifact.content.len() as u64))
                .bind(bytes);
        }
        query
            .bind(expires_at)
            .execute(&mut *tx)
            .await
            .map_err(failed("storing artifacts"))?;
        tx.commit().await.map_err(failed("storing artifacts"))?;
        Ok(Ok(()))
    }
}

impl ArtifactStore for SqlArtifactStore {
    fn put<'a>(
        &'a self,
        artifacts: &'a [StoredArtifact],
    ) -> StoreFuture<'a, Result<(), ArtifactRefusal>> {
        Box::pin(async move {
            if artifacts.is_empty() {
                return Ok(Ok(()));
            }
            self.put_all(artifacts).await
        })
    }

    fn get<'a>(&'a self, uri: &'a str) -> StoreFuture<'a, Option<StoredArtifact>> {
        Box::pin(async move {
            let Some(row) = sqlx::query(
                "SELECT uri, name, mime_type, owner, kind, content, expires_at \
                 FROM mcp_result_artifacts WHERE uri = $1 AND expires_at > $2",
            )
            .bind(uri)
            .bind(int(unix_ms(SystemTime::now()) / 1000))
            .fetch_optional(&self.db.pool)
            .await
            .map_err(failed("reading an artifact"))?
            else {
                return Ok(None);
            };
            let kind: String = column(&row, "kind")?;
            let bytes: Vec<u8> = column(&row, "content")?;
            let content = if kind == "text" {
                ArtifactContent::Text(String::from_utf8(bytes).map_err(|e| {
                    StoreError::Invalid(format!("SQL stores: a text artifact is not UTF-8: {e}"))
                })?)
            } else {
                ArtifactContent::Blob(bytes)
            };
            Ok(Some(StoredArtifact {
                uri: column(&row, "uri")?,
                name: column(&row, "name")?,
                mime_type: column(&row, "mime_type")?,
                owner: column(&row, "owner")?,
                content,
                expires_at: column::<i64>(&row, "expires_at")? as u64,
            }))
        })
    }
}
