//! [`TaskStore`] in SQL: one row per task, the record as JSON text beside the columns the
//! store compares (caller, expiry, version). A change is one `UPDATE ... WHERE version =`,
//! so of two instances changing one task at once exactly one wins and the other reads it
//! again.

use std::time::SystemTime;

use super::{column, failed, int, Db};
use crate::{
    store::{clock::unix_ms, StoreError, StoreFuture},
    task::{TaskRecord, TaskStore},
};

/// Tasks in the database (see [`super::SqlStores::tasks`]), shared by every instance on
/// it: a task created by one is read, fed and cancelled on any, and taken over by another
/// when its instance stops.
#[derive(Debug, Clone)]
pub struct SqlTasks {
    db: Db,
}

impl SqlTasks {
    pub(super) fn new(db: Db) -> Self {
        Self { db }
    }

    async fn purge(&self, now: u64) {
        self.db
            .purge(
                &self.db.purges.tasks,
                now,
                "DELETE FROM mcp_result_tasks WHERE expires_ms <= $1",
                int(now),
            )
            .await;
    }
}

fn body(task: &TaskRecord) -> Result<String, StoreError> {
    serde_json::to_string(task)
        .map_err(|e| StoreError::Invalid(format!("SQL stores: a task record: {e}")))
}

impl TaskStore for SqlTasks {
    fn create<'a>(&'a self, task: &'a TaskRecord, per_caller: usize) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let now = unix_ms(SystemTime::now());
            self.purge(now).await;
            // The caller's unexpired tasks are counted in the insert itself (index: caller,
            // expiry).
            let (id, caller) = (task.id.clone(), task.caller.clone());
            let (expires_ms, version, body) = (task.expires_ms(), task.version, body(task)?);
            let inserted = self
                .db
                .write(false, move |connection| {
                    Box::pin(async move {
                        sqlx::query(
                            "INSERT INTO mcp_result_tasks (id, caller, expires_ms, version, body) \
                             SELECT $1, $2, $3, $4, $5 \
                             WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM mcp_result_tasks \
                                    WHERE caller = $2 AND expires_ms > $6 LIMIT $7) AS held) < $7",
                        )
                        .bind(id)
                        .bind(caller)
                        .bind(int(expires_ms))
                        .bind(int(version))
                        .bind(body)
                        .bind(int(now))
                        .bind(i64::try_from(per_caller).unwrap_or(i64::MAX))
                        .execute(connection)
                        .await
                        .map_err(failed("storing a task"))
                        .map(|done| done.rows_affected())
                    })
                })
                .await?;
            if inserted == 0 {
                return Err(StoreError::Refused(format!(
                    "this caller holds {per_caller} tasks, its limit"
                )));
            }
            Ok(())
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<TaskRecord>> {
        Box::pin(async move {
            let now = unix_ms(SystemTime::now());
            let Some(row) =
                sqlx::query("SELECT body FROM mcp_result_tasks WHERE id = $1 AND expires_ms > $2")
                    .bind(id)
                    .bind(int(now))
                    .fetch_optional(&self.db.pool)
                    .await
                    .map_err(failed("reading a task"))?
            else {
                return Ok(None);
            };
            let body: String = column(&row, "body")?;
            serde_json::from_str(&body)
                .map(Some)
                .map_err(|e| StoreError::Invalid(format!("SQL stores: task `{id}`: {e}")))
        })
    }

    fn replace<'a>(&'a self, task: &'a TaskRecord) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let now = unix_ms(SystemTime::now());
            let (id, version, body) = (task.id.clone(), task.version, body(task)?);
            let updated = self
                .db
                .write(false, move |connection| {
                    Box::pin(async move {
                        sqlx::query(
                            "UPDATE mcp_result_tasks SET version = $2, body = $3 \
                             WHERE id = $1 AND version = $4 AND expires_ms > $5",
                        )
                        .bind(id)
                        .bind(int(version))
                        .bind(body)
                        .bind(int(version.saturating_sub(1)))
                        .bind(int(now))
                        .execute(connection)
                        .await
                        .map_err(failed("changing a task"))
                        .map(|done| done.rows_affected())
                    })
                })
                .await?;
            Ok(updated == 1)
        })
    }
}
