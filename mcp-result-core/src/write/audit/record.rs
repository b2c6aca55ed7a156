//! One audit record, the sink trait and the sinks that keep no file (tracing, a list of
//! sinks). The argument digest is `canonical.rs`; the JSON Lines sink, `json_lines.rs`; a
//! record's line, `line.rs`.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{
    store::StoreFuture,
    wire::{envelope::ErrorKind, status::Status},
};

/// Which record of an event this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Before the tool runs.
    Intent,
    /// What happened (provisional with `status: unknown` at a time limit).
    Outcome,
    /// An answer given from the idempotency store; `replayOf` names the original event.
    Replay,
    /// An approver approved an approval request (recorded by the approvals page, or by an
    /// application with `ApprovalRequest::decision_record`): `approver` decided,
    /// `approvalRequestId` names the request and `approvalId` the approval a write may run
    /// under; `caller`, `tool` and `argumentDigest` are the request's.
    Approved,
    /// An approver rejected an approval request: as `approved`, without `approvalId`; no
    /// write runs under the request.
    Rejected,
}

/// One audit record. Published as a JSON Schema ([`record_schema`]) for SIEMs and
/// reviewers; one JSON object per line in a `JsonLinesSink` file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "mcp-result.AuditRecord")]
pub struct AuditRecord {
    /// The event's id (a UUIDv7: unique across instances, time-ordered); the
    /// `auditEventId` of the answer.
    pub event_id: String,
    /// Which record of the event this is.
    pub phase: Phase,
    /// When this record was made: RFC 3339, UTC.
    pub time: String,
    /// The server instance (`MCP_RESULT_INSTANCE`, else the process id).
    pub instance: String,
    /// The tool.
    pub tool: String,
    /// The caller's identity (from the transport).
    pub caller: String,
    /// The MCP session, where the protocol version has sessions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The idempotency key of the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// SHA-256 (hex) of the canonical arguments with every secret field removed.
    pub argument_digest: String,
    /// The outcome's `status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// The error kind of a failed, blocked or refused call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// The upstream system's id of what the write made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    /// The result waits for a human.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requires_human_review: Option<bool>,
    /// The human approval the write ran under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_id: Option<String>,
    /// Who approved it (on an `approved` or `rejected` record: who decided).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approver: Option<String>,
    /// The approval request the event is about: the one its `blocked` answer created, the
    /// caller's own one its call came back with (the write ran under it, or was refused),
    /// or the one an approver decided. The approvals page shows a request's records by it
    /// (`AuditSink::approval_records`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_request_id: Option<String>,
    /// The result withheld a secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redaction_applied: Option<bool>,
    /// The correlation id of an `internal` error (its cause is logged under it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correlation_id: Option<String>,
    /// How long the tool ran, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// For a replay: the event whose answer was given again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_of: Option<String>,
}

impl AuditRecord {
    /// The `intent` record of a new event: `event_id` (minted), the tool, the caller, the
    /// call's idempotency key and its argument digest; now, on this instance.
    pub fn intent(
        event_id: String,
        tool: &str,
        caller: String,
        idempotency_key: Option<String>,
        argument_digest: String,
    ) -> Self {
        let mut record = Self::unstamped(event_id, tool, caller, idempotency_key, argument_digest);
        record.time = now_rfc3339();
        record
    }

    /// [`Self::intent`] without its time: the base record of an attempt, each of whose
    /// records gets its own time when it is made (`Audit`).
    pub(crate) fn unstamped(
        event_id: String,
        tool: &str,
        caller: String,
        idempotency_key: Option<String>,
        argument_digest: String,
    ) -> Self {
        AuditRecord {
            event_id,
            phase: Phase::Intent,
            time: String::new(),
            instance: instance(),
            tool: tool.to_owned(),
            caller,
            session: None,
            idempotency_key,
            argument_digest,
            status: None,
            error_kind: None,
            external_id: None,
            requires_human_review: None,
            approval_id: None,
            approver: None,
            approval_request_id: None,
            redaction_applied: None,
            correlation_id: None,
            duration_ms: None,
            replay_of: None,
        }
    }

    /// The record that stands for an event whose intent has no outcome: its server stopped
    /// in between, so whether the write happened is unknown.
    pub fn unknown_outcome_of(intent: &AuditRecord) -> Self {
        AuditRecord {
            phase: Phase::Outcome,
            time: now_rfc3339(),
            instance: instance(),
            status: Some(Status::Unknown),
            error_kind: Some(ErrorKind::OutcomeUnknown),
            ..intent.clone()
        }
    }
}

/// The JSON Schema of an [`AuditRecord`] (2020-12).
pub fn record_schema() -> Value {
    Value::Object((*crate::schema::serialized_schema::<AuditRecord>()).clone())
}

/// Where audit records go.
///
/// `record` returns once the record is as durable as the sink makes it: the framework
/// sends no answer carrying an `auditEventId` before the record behind it is recorded.
pub trait AuditSink: Send + Sync + 'static {
    /// Records `record`.
    fn record<'a>(&'a self, record: &'a AuditRecord) -> StoreFuture<'a, ()>;

    /// The sink as an `Any`, for a store that can write to it in its own transaction (the
    /// SQL stores: an idempotency store and an audit log on one database commit a write's
    /// claim and intent, and its outcome and result, together). `None`: the sink is written
    /// on its own.
    #[doc(hidden)]
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }

    /// The first `limit` records about approval request `approval_request_id`
    /// ([`AuditRecord::approval_request_id`]: the `blocked` answer that created it, its
    /// decision, and the attempts of its caller that came back with it), in the order they
    /// were recorded; what the approvals page shows of a decided request. `None`: this sink
    /// cannot be read back (the default, and [`TracingSink`]'s: its records are wherever
    /// its subscriber writes them).
    ///
    /// # Errors
    /// The sink could not be read.
    fn approval_records<'a>(
        &'a self,
        approval_request_id: &'a str,
        limit: usize,
    ) -> StoreFuture<'a, Option<Vec<AuditRecord>>> {
        let _ = (approval_request_id, limit);
        Box::pin(async { Ok(None) })
    }

    /// Whether the records outlive the process in a store this sink can name (a database, a
    /// file): `true` unless the sink says otherwise. [`TracingSink`] says `false` (its
    /// records are log lines). A server whose state mixes durable and in-memory stores
    /// starts only when the mix is explicit
    /// ([`State::allow_mixed_stores`](crate::State::allow_mixed_stores)).
    fn durable(&self) -> bool {
        true
    }
}

/// Records to the log: to your `tracing` subscriber (target `mcp_result::audit`, level INFO,
/// the record as JSON in the `record` field), else to stderr as JSON Lines. Durability is the
/// log's: a record is as safe as where the log goes. The default sink.
///
/// It drops nothing:
/// - with a subscriber of yours that takes `mcp_result::audit` at INFO, each record is an
///   event of it;
/// - with the `serve*` functions' own stderr subscriber (installed when the application
///   has none), or a subscriber that filters the target out, each record is one JSON line on
///   stderr, the record alone (an operator keeps the lines that start with `{`):
///
/// ```text
/// {"eventId":"01a248e8-…","phase":"intent","time":"2026-12-06T01:12:05.770Z",…}
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct TracingSink;

/// Whether the records go to stderr as JSON Lines whatever the subscriber says: set when the
/// `serve*` functions installed their own stderr subscriber (`serve::logs`), whose log lines
/// would only wrap the same JSON, at several times the cost of a record.
static JSON_LINES_ON_STDERR: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Sends [`TracingSink`]'s records to stderr as JSON Lines (the framework's own stderr
/// subscriber is the process's).
pub(crate) fn audit_to_stderr() {
    JSON_LINES_ON_STDERR.store(true, std::sync::atomic::Ordering::Relaxed);
}

impl AuditSink for TracingSink {
    fn record<'a>(&'a self, record: &'a AuditRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let line = record.json_line();
            let own = JSON_LINES_ON_STDERR.load(std::sync::atomic::Ordering::Relaxed);
            if !own && tracing::enabled!(target: "mcp_result::audit", tracing::Level::INFO) {
                let json = line.trim_end_matches('\n');
                tracing::info!(target: "mcp_result::audit", record = %json, "audit");
            } else {
                // Through `eprint!`, which a test harness captures; the line and its `\n` in
                // one write.
                eprint!("{line}");
            }
            Ok(())
        })
    }

    /// `false`: log lines, not a store.
    fn durable(&self) -> bool {
        false
    }
}

/// Records to every sink of the list, in order (say, the shared database and a JSON Lines
/// copy): `record` returns once all have it, and fails with the first failure, so no
/// answer names an event that a sink is missing.
impl AuditSink for Vec<Arc<dyn AuditSink>> {
    fn record<'a>(&'a self, record: &'a AuditRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            for sink in self {
                sink.record(record).await?;
            }
            Ok(())
        })
    }

    /// The records of the first sink of the list that can be read back; a sink that fails
    /// is passed over for the next, and its error returned only when no sink answers.
    fn approval_records<'a>(
        &'a self,
        approval_request_id: &'a str,
        limit: usize,
    ) -> StoreFuture<'a, Option<Vec<AuditRecord>>> {
        Box::pin(async move {
            let mut failed = None;
            for sink in self {
                match sink.approval_records(approval_request_id, limit).await {
                    Ok(Some(records)) => return Ok(Some(records)),
                    Ok(None) => {}
                    Err(error) => {
                        failed.get_or_insert(error);
                    }
                }
            }
            failed.map_or(Ok(None), Err)
        })
    }

    /// Durable when one sink of the list is.
    fn durable(&self) -> bool {
        self.iter().any(|sink| sink.durable())
    }
}

/// Now, RFC 3339 in UTC with millisecond precision.
pub fn now_rfc3339() -> String {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since
        .ok()
        .and_then(|since| rfc3339_millis(since.as_secs(), since.subsec_millis()))
        .unwrap_or_else(|| chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

/// `secs` (since the Unix epoch) and `millis` as chrono writes them with
/// `to_rfc3339_opts(SecondsFormat::Millis, true)` (`2026-12-04T17:10:57.123Z`), written
/// without chrono's formatting machinery (every audit record has a time); `None` past the
/// year 9999, which chrono writes otherwise.
fn rfc3339_millis(secs: u64, millis: u32) -> Option<String> {
    // Days to a civil date (proleptic Gregorian), H. Hinnant's `civil_from_days`.
    let days = secs / 86_400;
    let of_day = secs % 86_400;
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    if year > 9999 || millis > 999 {
        return None;
    }
    let mut text = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut value: u64| {
        for index in (at..at + width).rev() {
            text[index] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, year);
    put(5, 2, month);
    put(8, 2, day);
    put(11, 2, of_day / 3_600);
    put(14, 2, of_day / 60 % 60);
    put(17, 2, of_day % 60);
    put(20, 3, u64::from(millis));
    String::from_utf8(text.to_vec()).ok()
}

/// This server instance: `MCP_RESULT_INSTANCE`, else `pid-<process id>`.
pub fn instance() -> String {
    static INSTANCE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    INSTANCE
        .get_or_init(|| {
            std::env::var("MCP_RESULT_INSTANCE")
                .unwrap_or_else(|_| format!("pid-{}", std::process::id()))
        })
        .clone()
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_are_written_as_chrono_writes_them() {
        let mut secs: u64 = 0;
        // The epoch, leap days, ends of months and years, up to the year 9999.
        let mut samples = vec![
            (0, 0),
            (951_782_400, 1),     // 2000-02-29
            (4_107_542_399, 999), // 2100-02-28T23:59:59
            (1_798_761_599, 500), // 2026-12-31T23:59:59
            (253_402_300_799, 7), // 9999-12-31T23:59:59
        ];
        while secs < 253_402_300_799 {
            samples.push((secs, (secs % 1000) as u32));
            secs += 86_400 * 13 + 3_607;
        }
        for (secs, millis) in samples {
            let chrono = chrono::DateTime::from_timestamp(secs as i64, millis * 1_000_000 + 999)
                .unwrap()
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
            assert_eq!(
                super::rfc3339_millis(secs, millis).unwrap(),
                chrono,
                "{secs}"
            );
        }
        assert_eq!(super::rfc3339_millis(253_402_300_800, 0), None);
        assert_eq!(super::now_rfc3339().len(), 24);
    }
}
