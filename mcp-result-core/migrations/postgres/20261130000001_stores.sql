-- mcp-result's stores, PostgreSQL. Times are Unix milliseconds (`*_ms`) or seconds (`*_at`),
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
    seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id    TEXT NOT NULL,
    phase       TEXT NOT NULL,
    at_ms       BIGINT NOT NULL,
    recovery_of TEXT UNIQUE,
    record      TEXT NOT NULL
);
CREATE INDEX mcp_result_audit_event ON mcp_result_audit (event_id, phase);
CREATE INDEX mcp_result_audit_time ON mcp_result_audit (at_ms);

-- UPDATE, DELETE and TRUNCATE are refused, except the DELETE inside
-- mcp_result_audit_purge (which `archive_before` calls after archiving the rows). This
-- guards against mistakes; to enforce it against a hostile client, grant the application's
-- role only INSERT and SELECT on the table and EXECUTE on the purge function.
CREATE FUNCTION mcp_result_audit_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('mcp_result.audit_retention', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'mcp_result_audit is append-only: % refused (records leave only through archive_before)', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER mcp_result_audit_append_only BEFORE UPDATE OR DELETE ON mcp_result_audit
    FOR EACH ROW EXECUTE FUNCTION mcp_result_audit_refuse();
CREATE TRIGGER mcp_result_audit_no_truncate BEFORE TRUNCATE ON mcp_result_audit
    FOR EACH STATEMENT EXECUTE FUNCTION mcp_result_audit_refuse();
-- Deletes the records made before `cutoff_ms` that the calling transaction sees; returns
-- how many.
CREATE FUNCTION mcp_result_audit_purge(cutoff_ms BIGINT) RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    deleted BIGINT;
BEGIN
    PERFORM set_config('mcp_result.audit_retention', 'on', true);
    DELETE FROM mcp_result_audit WHERE at_ms < cutoff_ms;
    GET DIAGNOSTICS deleted = ROW_COUNT;
    PERFORM set_config('mcp_result.audit_retention', 'off', true);
    RETURN deleted;
END
$$;

-- Artifacts. `kind` says how `content` (bytes) is served: `text` (UTF-8) or `blob`.
CREATE TABLE mcp_result_artifacts (
    uri        TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    mime_type  TEXT NOT NULL,
    owner      TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('text', 'blob')),
    content    BYTEA NOT NULL,
    size       BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX mcp_result_artifacts_owner ON mcp_result_artifacts (owner, expires_at);
CREATE INDEX mcp_result_artifacts_expiry ON mcp_result_artifacts (expires_at);
-- One row: every put locks it (SELECT ... FOR UPDATE), so quotas and the total cap are
-- checked and charged by one put at a time across all instances.
CREATE TABLE mcp_result_artifact_lock (id BIGINT PRIMARY KEY);
INSERT INTO mcp_result_artifact_lock (id) VALUES (1);
