-- Bounds per caller. A caller's live idempotency keys, counted by each claim for its quota
-- (`SqlIdempotencyStore::with_limits`).
CREATE INDEX mcp_result_idempotency_caller ON mcp_result_idempotency (caller, expires_ms);
-- A caller's pending approval requests, counted by each new request for the caller's bound
-- (`PENDING_PER_CALLER`).
CREATE INDEX mcp_result_approvals_caller ON mcp_result_approvals (caller, state, expires_at);
