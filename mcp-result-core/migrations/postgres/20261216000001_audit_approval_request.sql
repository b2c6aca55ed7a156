-- The approval request each audit record is about (the record's `approvalRequestId`: its
-- blocked answer, its decision, the attempts that came back with it), a column of its own
-- so that the approvals page finds a request's records by an index (`approval_records`)
-- without parsing any record. Records made before this migration name no request (the
-- field is as new): NULL. Partial: most records name no request.
-- Made here, the index is built inside the migration's transaction, which holds the
-- table's ACCESS EXCLUSIVE lock (taken by the ALTER TABLE): reads and writes of the audit
-- log wait until it is built. For a large log, run first, by hand, the ALTER TABLE below
-- (instant: no default, no rewrite), then `CREATE INDEX CONCURRENTLY IF NOT EXISTS` with the
-- index's definition below (outside a transaction), and check that it is valid
-- (`pg_index.indisvalid`; a failed concurrent build leaves an invalid index, to drop and
-- make again): the migration then finds both made.
ALTER TABLE mcp_result_audit ADD COLUMN IF NOT EXISTS approval_request_id TEXT;
CREATE INDEX IF NOT EXISTS mcp_result_audit_approval_request
    ON mcp_result_audit (approval_request_id)
    WHERE approval_request_id IS NOT NULL;
