-- The audit records about one approval request (`approvalRequestId`: its blocked answer,
-- its decision, the attempts that came back with it), found by an index on the record's
-- JSON: what the approvals page shows of a decided request (`approval_records`). Partial:
-- most records name no request.
CREATE INDEX IF NOT EXISTS mcp_result_audit_approval_request
    ON mcp_result_audit (json_extract(record, '$.approvalRequestId'))
    WHERE json_extract(record, '$.approvalRequestId') IS NOT NULL;
