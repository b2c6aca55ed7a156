//! An audit record as the bytes of its JSON line, without serde's writer: every write
//! attempt's records are written, and serde_json escapes a string byte by byte through its
//! formatter, a field name as much as a value. The bytes are serde_json's, tested so.

use super::record::{AuditRecord, Phase};

impl AuditRecord {
    /// The record as one JSON line with its `\n`: the bytes `serde_json::to_vec` writes for
    /// it (field order, the fields left out, every escape), without serde's writer. Every
    /// write attempt's records are written, and serde_json escapes a string byte by byte
    /// through its formatter, a field name as much as a value.
    pub(crate) fn json_line(&self) -> String {
        let mut out = String::with_capacity(512);
        text_field(&mut out, "{\"eventId\":\"", &self.event_id);
        out.push_str(",\"phase\":");
        out.push_str(self.phase.quoted());
        text_field(&mut out, ",\"time\":\"", &self.time);
        text_field(&mut out, ",\"instance\":\"", &self.instance);
        text_field(&mut out, ",\"tool\":\"", &self.tool);
        text_field(&mut out, ",\"caller\":\"", &self.caller);
        optional_text(&mut out, ",\"session\":\"", &self.session);
        optional_text(&mut out, ",\"idempotencyKey\":\"", &self.idempotency_key);
        text_field(&mut out, ",\"argumentDigest\":\"", &self.argument_digest);
        if let Some(status) = self.status {
            out.push_str(",\"status\":\"");
            out.push_str(status.as_str());
            out.push('"');
        }
        if let Some(kind) = self.error_kind {
            out.push_str(",\"errorKind\":");
            out.push_str(&serde_json::to_string(&kind).unwrap_or_default());
        }
        optional_text(&mut out, ",\"externalId\":\"", &self.external_id);
        optional_flag(
            &mut out,
            ",\"requiresHumanReview\":",
            self.requires_human_review,
        );
        optional_text(&mut out, ",\"approvalId\":\"", &self.approval_id);
        optional_text(&mut out, ",\"approver\":\"", &self.approver);
        optional_text(
            &mut out,
            ",\"approvalRequestId\":\"",
            &self.approval_request_id,
        );
        optional_flag(&mut out, ",\"redactionApplied\":", self.redaction_applied);
        optional_text(&mut out, ",\"correlationId\":\"", &self.correlation_id);
        if let Some(duration) = self.duration_ms {
            out.push_str(",\"durationMs\":");
            out.push_str(itoa::Buffer::new().format(duration));
        }
        optional_text(&mut out, ",\"replayOf\":\"", &self.replay_of);
        out.push_str("}\n");
        out
    }
}

/// `opening` (the field's name and the string's opening quote), then `text` as serde_json
/// writes a string: a string with no `"`, `\\` or control character (almost every string
/// of a record: ids, names, times, hex) is copied whole after a scan; any other is written
/// by serde_json.
fn text_field(out: &mut String, opening: &str, text: &str) {
    out.push_str(opening);
    if crate::wire::text::json_plain(text.as_bytes()) {
        out.push_str(text);
        out.push('"');
    } else {
        // Past its opening quote, which `opening` wrote.
        out.push_str(&serde_json::to_string(text).unwrap_or_default()[1..]);
    }
}

fn optional_text(out: &mut String, opening: &str, text: &Option<String>) {
    if let Some(text) = text {
        text_field(out, opening, text);
    }
}

fn optional_flag(out: &mut String, name: &str, flag: Option<bool>) {
    if let Some(flag) = flag {
        out.push_str(name);
        out.push_str(if flag { "true" } else { "false" });
    }
}

impl Phase {
    /// The serialized form, quoted: `"intent"`, `"outcome"`, …
    fn quoted(self) -> &'static str {
        match self {
            Phase::Intent => "\"intent\"",
            Phase::Outcome => "\"outcome\"",
            Phase::Replay => "\"replay\"",
            Phase::Approved => "\"approved\"",
            Phase::Rejected => "\"rejected\"",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{envelope::ErrorKind, status::Status};

    #[test]
    fn a_records_line_is_serde_jsons_bytes() {
        let mut full = AuditRecord::intent(
            "01a248e8-0000-7000-8000-000000000001".into(),
            "add_note",
            "tenant:al\"ice\\\n".into(),
            Some("key-\u{1}é".into()),
            "ab".repeat(32),
        );
        full.phase = Phase::Outcome;
        full.session = Some("s-1".into());
        full.status = Some(crate::wire::status::Status::Partial);
        full.error_kind = Some(ErrorKind::OutcomeUnknown);
        full.external_id = Some("ext\t1".into());
        full.requires_human_review = Some(false);
        full.approval_id = Some("ap-1".into());
        full.approver = Some("bob\u{7f}\u{2028}".into());
        full.approval_request_id = Some("req-1".into());
        full.redaction_applied = Some(true);
        full.correlation_id = Some("c-1".into());
        full.duration_ms = Some(u64::MAX);
        full.replay_of = Some("01a248e8-0000-7000-8000-000000000000".into());
        let mut records = vec![full.clone()];
        for phase in [
            Phase::Intent,
            Phase::Replay,
            Phase::Approved,
            Phase::Rejected,
        ] {
            records.push(AuditRecord {
                phase,
                ..AuditRecord::intent("e".into(), "t", String::new(), None, String::new())
            });
        }
        for status in [
            Status::Succeeded,
            Status::Partial,
            Status::Blocked,
            Status::Failed,
            Status::Unknown,
        ] {
            records.push(AuditRecord {
                status: Some(status),
                duration_ms: Some(0),
                ..full.clone()
            });
        }
        for record in records {
            let mut expected = serde_json::to_string(&record).unwrap();
            expected.push('\n');
            assert_eq!(record.json_line(), expected);
        }
    }
}
