-- The audit records about one approval request (`approvalRequestId`: its blocked answer,
-- its decision, the attempts that came back with it), found by an index on the record's
-- JSON: what the approvals page shows of a decided request (`approval_records`). Partial:
-- most records name no request. Building it on a large log holds off writes to the table
-- until it is built; to avoid that, run this statement first as `CREATE INDEX CONCURRENTLY
-- IF NOT EXISTS ...` (outside a transaction), and the migration finds the index made.
CREATE INDEX IF NOT EXISTS mcp_result_audit_approval_request
    ON mcp_result_audit (((record::jsonb) ->> 'approvalRequestId'))
    WHERE ((record::jsonb) ->> 'approvalRequestId') IS NOT NULL;
