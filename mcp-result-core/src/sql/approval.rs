//! [`ApprovalStore`] in SQL, with the rules of
//! [`MemoryApprovals`](crate::approval::MemoryApprovals): a decision lands only on a pending,
//! unexpired request; `consume` turns an approved, unexpired request whose fingerprints
//! match into `used` in one `UPDATE`, so of many concurrent uses exactly one runs.
//!
//! An expired request is invisible to [`ApprovalStore::get`]; `decide` and `consume` say
//! [`Refusal::Expired`] until the purge deletes it, [`Refusal::Unknown`] after.

use std::time::SystemTime;

use super::{column, failed, int, placeholders, Db};
use crate::{
    store::{
        clock::{unix_ms, unix_now},
        StoreError, StoreFuture,
    },
    write::approval::{ApprovalRequest, ApprovalStore, Decision, Refusal, PENDING_PER_CALLER},
};

/// Approval requests in the database (see [`super::SqlStores::approvals`]), shared by
/// every instance on it: a request made by one is decided and used on any.
#[derive(Debug, Clone)]
pub struct SqlApprovals {
    db: Db,
}

impl SqlApprovals {
    pub(super) fn new(db: Db) -> Self {
        Self { db }
    }

    /// `approver` approves request `id` (out of band: an admin API, a CLI); the new
    /// approval's id.
    ///
    /// # Errors
    /// The store failed; inside, why the request cannot be approved.
    pub async fn approve(
        &self,
        id: &str,
        approver: &str,
    ) -> Result<Result<String, Refusal>, StoreError> {
        let approval_id = uuid::Uuid::now_v7().to_string();
        let decision = Decision::Approved {
            approval_id: approval_id.clone(),
            approver: approver.to_owned(),
        };
        Ok(self.decide(id, decision).await?.map(|_| approval_id))
    }

    /// `approver` rejects request `id` for `reason`.
    ///
    /// # Errors
    /// The store failed; inside, why the request cannot be rejected.
    pub async fn reject(
        &self,
        id: &str,
        approver: &str,
        reason: &str,
    ) -> Result<Result<(), Refusal>, StoreError> {
        let decision = Decision::Rejected {
            approver: approver.to_owned(),
            reason: reason.to_owned(),
        };
        Ok(self.decide(id, decision).await?.map(|_| ()))
    }

    async fn purge(&self) {
        self.db
            .purge(
                &self.db.purges.approvals,
                unix_ms(SystemTime::now()),
                "DELETE FROM mcp_result_approvals WHERE expires_at <= $1",
                int(unix_now()),
            )
            .await;
    }

    /// The request `id` as stored, expired or not.
    async fn read(&self, id: &str) -> Result<Option<ApprovalRequest>, StoreError> {
        let Some(row) = sqlx::query(
            "SELECT id, tool, approval_text, caller, expires_at, state, approval_id, approver, \
                    reason, review \
             FROM mcp_result_approvals WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.db.pool)
        .await
        .map_err(failed("reading an approval request"))?
        else {
            return Ok(None);
        };
        Ok(Some(self.request(&row).await?))
    }

    /// The request of `row` (its columns as [`Self::read`] selects them), with its
    /// fingerprints.
    async fn request(&self, row: &sqlx::any::AnyRow) -> Result<ApprovalRequest, StoreError> {
        let id: String = column(row, "id")?;
        let fingerprints = sqlx::query(
            "SELECT fingerprint FROM mcp_result_approval_fingerprints \
             WHERE request_id = $1 ORDER BY position",
        )
        .bind(&id)
        .fetch_all(&self.db.pool)
        .await
        .map_err(failed("reading an approval request"))?
        .iter()
        .map(|row| column(row, "fingerprint"))
        .collect::<Result<Vec<String>, _>>()?;
        let state: String = column(row, "state")?;
        let approval_id: Option<String> = column(row, "approval_id")?;
        let approver: Option<String> = column(row, "approver")?;
        let reason: Option<String> = column(row, "reason")?;
        let review: Option<String> = column(row, "review")?;
        let review = review.map(|json| serde_json::from_str(&json)).transpose()?;
        let decision = match state.as_str() {
            "pending" => Decision::Pending,
            "approved" => Decision::Approved {
                approval_id: approval_id.unwrap_or_default(),
                approver: approver.unwrap_or_default(),
            },
            "used" => Decision::Used {
                approval_id: approval_id.unwrap_or_default(),
                approver: approver.unwrap_or_default(),
            },
            _ => Decision::Rejected {
                approver: approver.unwrap_or_default(),
                reason: reason.unwrap_or_default(),
            },
        };
        Ok(ApprovalRequest {
            id,
            tool: column(row, "tool")?,
            text: column(row, "approval_text")?,
            caller: column(row, "caller")?,
            fingerprints,
            expires_at: column::<i64>(row, "expires_at")? as u64,
            decision,
            review,
        })
    }
}

/// Inserts `request` and its fingerprints through `tx`, refused past the caller's pending
/// requests.
async fn insert_request(
    tx: &mut sqlx::AnyConnection,
    request: &ApprovalRequest,
) -> Result<(), StoreError> {
    let (state, approval_id, approver, reason) = columns(&request.decision);
    let review = request
        .review
        .as_ref()
        .map(serde_json::to_string)
        .transpose()?;
    // The caller's pending requests are counted in the insert itself (index: caller,
    // state, expiry).
    let now = int(crate::store::clock::unix_now());
    let inserted = sqlx::query(
        "INSERT INTO mcp_result_approvals \
                 (id, tool, approval_text, caller, expires_at, state, approval_id, approver, \
                  reason, review) \
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $12 \
             WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM mcp_result_approvals \
                    WHERE caller = $4 AND state = 'pending' AND expires_at > $10 \
                    LIMIT $11) AS held) < $11",
    )
    .bind(&request.id)
    .bind(&request.tool)
    .bind(&request.text)
    .bind(&request.caller)
    .bind(int(request.expires_at))
    .bind(state)
    .bind(approval_id)
    .bind(approver)
    .bind(reason)
    .bind(now)
    .bind(int(PENDING_PER_CALLER as u64))
    .bind(review)
    .execute(&mut *tx)
    .await
    .map_err(failed("storing an approval request"))?;
    if inserted.rows_affected() == 0 {
        return Err(StoreError::Refused(format!(
            "this caller has {PENDING_PER_CALLER} pending approval requests, its limit"
        )));
    }
    if !request.fingerprints.is_empty() {
        let values = (0..request.fingerprints.len())
            .map(|i| format!("($1, {}, ${})", i, i + 2))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "INSERT INTO mcp_result_approval_fingerprints (request_id, position, \
                 fingerprint) VALUES {values}"
        );
        let mut query = sqlx::query(&sql).bind(&request.id);
        for fingerprint in &request.fingerprints {
            query = query.bind(fingerprint);
        }
        query
            .execute(&mut *tx)
            .await
            .map_err(failed("storing an approval request"))?;
    }
    Ok(())
}

/// A decision's columns: state, approval id, approver, reason.
fn columns(decision: &Decision) -> (&'static str, Option<&str>, Option<&str>, Option<&str>) {
    match decision {
        Decision::Pending => ("pending", None, None, None),
        Decision::Approved {
            approval_id,
            approver,
        } => ("approved", Some(approval_id), Some(approver), None),
        Decision::Rejected { approver, reason } => ("rejected", None, Some(approver), Some(reason)),
        Decision::Used {
            approval_id,
            approver,
        } => ("used", Some(approval_id), Some(approver), None),
    }
}

impl ApprovalStore for SqlApprovals {
    fn refuses_nul(&self) -> bool {
        self.db.dialect == super::Dialect::Postgres
    }

    fn create<'a>(&'a self, request: &'a ApprovalRequest) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.purge().await;
            let request = request.clone();
            // One transaction: the request and its fingerprints.
            self.db
                .write(true, move |tx| {
                    Box::pin(async move { insert_request(tx, &request).await })
                })
                .await
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<ApprovalRequest>> {
        Box::pin(async move {
            Ok(self
                .read(id)
                .await?
                .filter(|request| request.expires_at > unix_now()))
        })
    }

    fn decide<'a>(
        &'a self,
        id: &'a str,
        decision: Decision,
    ) -> StoreFuture<'a, Result<ApprovalRequest, Refusal>> {
        Box::pin(async move {
            let owned = id.to_owned();
            let decided = self
                .db
                .write(false, move |connection| {
                    Box::pin(async move {
                        let (state, approval_id, approver, reason) = columns(&decision);
                        sqlx::query(
                            "UPDATE mcp_result_approvals \
                             SET state = $2, approval_id = $3, approver = $4, reason = $5 \
                             WHERE id = $1 AND state = 'pending' AND expires_at > $6",
                        )
                        .bind(owned)
                        .bind(state)
                        .bind(approval_id)
                        .bind(approver)
                        .bind(reason)
                        .bind(int(unix_now()))
                        .execute(connection)
                        .await
                        .map_err(failed("deciding an approval request"))
                        .map(|done| done.rows_affected())
                    })
                })
                .await?;
            let request = self.read(id).await?;
            Ok(match request {
                None => Err(Refusal::Unknown),
                Some(request) if decided == 1 => Ok(request),
                Some(request) if request.expires_at <= unix_now() => Err(Refusal::Expired),
                Some(_) => Err(Refusal::Used),
            })
        })
    }

    fn pending<'a>(
        &'a self,
        tenant: Option<&'a str>,
        limit: usize,
    ) -> StoreFuture<'a, Vec<ApprovalRequest>> {
        Box::pin(async move {
            // The tenant is the caller key's part before its first `:` (`Identity::key`
            // encodes `:` within each part); a caller of no tenant has no `:`.
            let (filter, prefix) = match tenant {
                Some(tenant) => (
                    "substr(caller, 1, length($3)) = $3",
                    format!("{}:", tenant.replace('%', "%25").replace(':', "%3A")),
                ),
                None => ("caller NOT LIKE '%:%' AND $3 = $3", String::new()),
            };
            let sql = format!(
                "SELECT id, tool, approval_text, caller, expires_at, state, approval_id, \
                        approver, reason, review \
                 FROM mcp_result_approvals \
                 WHERE state = 'pending' AND expires_at > $1 AND review IS NOT NULL AND {filter} \
                 ORDER BY id LIMIT $2"
            );
            let rows = sqlx::query(&sql)
                .bind(int(unix_now()))
                .bind(int(limit as u64))
                .bind(prefix)
                .fetch_all(&self.db.pool)
                .await
                .map_err(failed("listing pending approval requests"))?;
            let mut pending = Vec::with_capacity(rows.len());
            for row in &rows {
                pending.push(self.request(row).await?);
            }
            Ok(pending)
        })
    }

    fn consume<'a>(
        &'a self,
        id: &'a str,
        caller: &'a str,
        fingerprints: &'a [String],
    ) -> StoreFuture<'a, Result<(String, String), Refusal>> {
        Box::pin(async move {
            let sql = format!(
                "UPDATE mcp_result_approvals SET state = 'used' \
                 WHERE id = $1 AND state = 'approved' AND expires_at > $2 AND caller = $3 \
                   AND EXISTS (SELECT 1 FROM mcp_result_approval_fingerprints \
                               WHERE request_id = $1 AND fingerprint IN ({})) \
                 RETURNING approval_id, approver",
                placeholders(4, fingerprints.len().max(1))
            );
            let (owned, caller_owned, fingerprints_owned) =
                (id.to_owned(), caller.to_owned(), fingerprints.to_vec());
            let used = self
                .db
                .write(false, move |connection| {
                    Box::pin(async move {
                        let mut query = sqlx::query(&sql)
                            .bind(&owned)
                            .bind(int(unix_now()))
                            .bind(&caller_owned);
                        if fingerprints_owned.is_empty() {
                            // `IN (NULL)` matches nothing: no fingerprints, no match.
                            query = query.bind(None::<String>);
                        }
                        for fingerprint in &fingerprints_owned {
                            query = query.bind(fingerprint);
                        }
                        let Some(row) = query
                            .fetch_optional(connection)
                            .await
                            .map_err(failed("using an approval"))?
                        else {
                            return Ok(None);
                        };
                        let approval_id: Option<String> = column(&row, "approval_id")?;
                        let approver: Option<String> = column(&row, "approver")?;
                        Ok(Some((
                            approval_id.unwrap_or_default(),
                            approver.unwrap_or_default(),
                        )))
                    })
                })
                .await?;
            if let Some(used) = used {
                return Ok(Ok(used));
            }
            // Refused: say why, in the in-memory store's order.
            let Some(request) = self.read(id).await? else {
                return Ok(Err(Refusal::Unknown));
            };
            // Approved, unexpired, matching, yet not updated: another caller used it
            // between the two statements.
            Ok(Err(request
                .usable_by(caller, fingerprints)
                .err()
                .unwrap_or(Refusal::Used)))
        })
    }
}
