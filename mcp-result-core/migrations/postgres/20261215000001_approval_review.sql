-- What an approver is shown of a request decided out of band (`Review`, as JSON text: when
-- the call asked, its arguments without their secrets, the pointers withheld); NULL for an
-- input-required round's record and the other single-use records, which no approver lists.
ALTER TABLE mcp_result_approvals ADD COLUMN review TEXT;
