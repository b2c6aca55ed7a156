-- Durable tasks (MCP tasks extension, SEP-2663): one row per task, its record as JSON text
-- (`TaskRecord`), the columns the store looks up and compares beside it.
CREATE TABLE mcp_result_tasks (
    id TEXT PRIMARY KEY NOT NULL,
    caller TEXT NOT NULL,
    expires_ms BIGINT NOT NULL,
    version BIGINT NOT NULL,
    body TEXT NOT NULL
);
-- A caller's unexpired tasks, counted by each new task for the caller's bound.
CREATE INDEX mcp_result_tasks_caller ON mcp_result_tasks (caller, expires_ms);
