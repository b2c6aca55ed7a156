-- mcp-result's stores, SQLite. Times are Unix milliseconds (`*_ms`) or seconds (`*_at`),
-- as the application's clock gave them. Shipped in the crate and run by
-- `SqlStores::connect` / `SqlStores::migrate`; a shipped migration is never edited.

-- Idempotency keys: one row per (tool, caller, key); the primary key makes a claim atomic.
CREATE TABLE mcp_result_idempotency (
    tool        TEXT NOT NULL,
    caller      TEXT NOT NULL,
    idem_key    TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    token       BIGINT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('claimed', 'started', 'completed')),
    lease_ms    BIGINT NOT NULL,
    expires_ms  BIGINT NOT NULL,
    result      TEXT,
    PRIMARY KEY (tool, caller, idem_key)
);
CREATE INDEX mcp_result_idempotency_expiry ON mcp_result_idempotency (expires_ms);

-- Approval requests and the argument fingerprints each one is bound to.
CREATE TABLE mcp_result_approvals (
    id            TEXT PRIMARY KEY,
    tool          TEXT NOT NULL,
    approval_text TEXT NOT NULL,
    caller        TEXT NOT NULL,
    expires_at    BIGINT NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'rejected', 'used')),
    approval_id   TEXT,
    approver      TEXT,
    reason        TEXT
);
CREATE INDEX mcp_result_approvals_expiry ON mcp_result_approvals (expires_at);
CREATE TABLE mcp_result_approval_fingerprints (
    request_id  TEXT NOT NULL REFERENCES mcp_result_approvals (id) ON DELETE CASCADE,
    position    BIGINT NOT NULL,
    fingerprint TEXT NOT NULL,
    PRIMARY KEY (request_id, position)
);
CREATE INDEX mcp_result_approval_fingerprints_match
    ON mcp_result_approval_fingerprints (request_id, fingerprint);

-- The audit log: append-only. `record` is the AuditRecord as JSON; the other columns are
-- indexes into it. `recovery_of` is set only on the unknown outcome `recover_dangling`
-- writes, and unique, so two instances recovering at once write it once.
CREATE TABLE mcp_result_audit (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id    TEXT NOT NULL,
    phase       TEXT NOT NULL,
    at_ms       BIGINT NOT NULL,
    recovery_of TEXT UNIQUE,
    record      TEXT NOT NULL
);
CREATE INDEX mcp_result_audit_event ON mcp_result_audit (event_id, phase);
CREATE INDEX mcp_result_audit_time ON mcp_result_audit (at_ms);
-- A row here, inside `archive_before`'s write transaction only, lets that transaction delete
-- what it archived. SQLite has one writer at a time, so no other writer ever sees it.
CREATE TABLE mcp_result_audit_retention (active INTEGER NOT NULL);
CREATE TRIGGER mcp_result_audit_no_update BEFORE UPDATE ON mcp_result_audit
BEGIN
    SELECT RAISE(ABORT, 'mcp_result_audit is append-only: a record is never changed');
END;
CREATE TRIGGER mcp_result_audit_no_delete BEFORE DELETE ON mcp_result_audit
WHEN NOT EXISTS (SELECT 1 FROM mcp_result_audit_retention)
BEGIN
    SELECT RAISE(ABORT, 'mcp_result_audit is append-only: records leave only through archive_before');
END;

-- Artifacts. `kind` says how `content` (bytes) is served: `text` (UTF-8) or `blob`.
CREATE TABLE mcp_result_artifacts (
    uri        TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    mime_type  TEXT NOT NULL,
    owner      TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('text', 'blob')),
    content    BLOB NOT NULL,
    size       BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX mcp_result_artifacts_owner ON mcp_result_artifacts (owner, expires_at);
CREATE INDEX mcp_result_artifacts_expiry ON mcp_result_artifacts (expires_at);
