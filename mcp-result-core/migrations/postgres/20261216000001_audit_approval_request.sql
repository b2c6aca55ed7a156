-- The approval request each audit record is about (the record's `approvalRequestId`: its
-- blocked answer, its decision, the attempts that came back with it), a column of its own
-- so that the approvals page finds a request's records by an index (`approval_records`)
-- without parsing any record. Records made before this migration name no request (the
-- field is as new): NULL. Partial: most records name no request.
-- The index scans the table once as it is made, and holds off writes to it meanwhile; for a
-- large log, make it first with `CREATE INDEX CONCURRENTLY IF NOT EXISTS` and the same
-- definition (outside a transaction), check that it is valid (`pg_index.indisvalid`; a
-- failed concurrent build leaves an invalid one, to drop and make again), and the migration
-- finds it made.
ALTER TABLE mcp_result_audit ADD COLUMN approval_request_id TEXT;
CREATE INDEX IF NOT EXISTS mcp_result_audit_approval_request
    ON mcp_result_audit (approval_request_id)
    WHERE approval_request_id IS NOT NULL;
