"""Driver: the Python MCP SDK (`mcp` on PyPI), 1.x or 2.x, whichever the venv running it has.

    .venv-mcp1/bin/python py_driver.py <job.json> <report.json>

- mcp 1.x: `ClientSession` over `stdio_client`, the `initialize` handshake. After
  `list_tools()` the session validates the `structuredContent` of every non-error result
  against the tool's outputSchema with `jsonschema`, and raises on a mismatch.
- mcp 2.x: `mcp.Client` over `StdioServerParameters`; `legacy` is the `initialize`
  handshake, `modern` is `mode="auto"` (a `server/discover` probe, then the 2026-07-28
  per-request envelope). Same `jsonschema` validation.

Like the JavaScript drivers it never judges: it records the result as the library handed it
to the application (dumped by alias, i.e. with the wire's field names) or the error it
raised. tests/clients.rs checks the report.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import anyio

MCP_VERSION = importlib.metadata.version("mcp")
MAJOR = int(MCP_VERSION.split(".")[0])


def error_record(error: BaseException) -> dict[str, Any]:
    code = getattr(error, "code", None)
    if not isinstance(code, int):
        code = getattr(getattr(error, "error", None), "code", None)
    message = getattr(getattr(error, "error", None), "message", None) or str(error)
    return {
        "kind": type(error).__name__,
        "code": code if isinstance(code, int) else None,
        "message": message,
    }


def dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


@dataclass
class Session:
    negotiated: str | None
    list_tools: Callable[[], Awaitable[list[Any]]]
    call_tool: Callable[[str, dict[str, Any], dict[str, Any] | None], Awaitable[Any]]


@asynccontextmanager
async def session1(run: dict[str, Any], timeout: float) -> AsyncIterator[Session]:
    """mcp 1.x: ClientSession over stdio_client."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    if run["connect"] != "legacy":
        raise RuntimeError(f"mcp {MCP_VERSION} has no connect mode {run['connect']}")
    params = StdioServerParameters(command=run["command"], args=run["args"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(
            read, write, read_timeout_seconds=timedelta(seconds=timeout), elicitation_callback=run["elicitation"]
        ) as session:
            init = await session.initialize()

            async def list_tools() -> list[Any]:
                return [dump(t) for t in (await session.list_tools()).tools]

            async def call_tool(name: str, arguments: dict[str, Any], meta: dict[str, Any] | None) -> Any:
                return dump(await session.call_tool(name, arguments, meta=meta))

            yield Session(init.protocolVersion, list_tools, call_tool)


class Elicitation:
    """The user of this client, for servers that ask (MCP elicitation): answers the next
    request as the plan's call says (`elicit`: accept, decline or cancel; `decline` when it
    says nothing) and notes that it was asked."""

    def __init__(self) -> None:
        self.answer: str | None = None
        self.asked = False

    async def __call__(self, context: Any, params: Any) -> Any:
        from mcp import types

        self.asked = True
        action = self.answer or "decline"
        content = {"approve": True} if action == "accept" else None
        return types.ElicitResult(action=action, content=content)


@asynccontextmanager
async def session2(run: dict[str, Any], timeout: float) -> AsyncIterator[Session]:
    """mcp 2.x: mcp.Client over StdioServerParameters."""
    from mcp import Client, StdioServerParameters

    mode = {"legacy": "legacy", "modern": "auto"}.get(run["connect"])
    if mode is None:
        raise RuntimeError(f"mcp {MCP_VERSION} has no connect mode {run['connect']}")
    params = StdioServerParameters(command=run["command"], args=run["args"])
    async with Client(
        params, mode=mode, read_timeout_seconds=timeout, elicitation_callback=run["elicitation"]
    ) as client:

        async def list_tools() -> list[Any]:
            return [dump(t) for t in (await client.list_tools()).tools]

        async def call_tool(name: str, arguments: dict[str, Any], meta: dict[str, Any] | None) -> Any:
            return dump(await client.call_tool(name, arguments, meta=meta))

        yield Session(client.protocol_version, list_tools, call_tool)


async def run_one(job: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "key": run.get("key"),
        "protocol": run["protocol"],
        "connect": run["connect"],
        "negotiated": None,
        "connectError": None,
        "listError": None,
        "tools": None,
        "calls": [],
    }
    timeout = job["timeoutMs"] / 1000
    open_session = session1 if MAJOR < 2 else session2
    elicitation = Elicitation()
    run = {**run, "elicitation": elicitation}
    connected = False
    try:
        # One deadline for the whole run: entering and leaving the session's task groups
        # must happen inside the same cancel scope.
        with anyio.fail_after(timeout * (len(run["calls"]) + 3)):
            async with open_session(run, timeout) as session:
                connected = True
                out["negotiated"] = session.negotiated
                try:
                    with anyio.fail_after(timeout):
                        out["tools"] = await session.list_tools()
                except Exception as error:  # noqa: BLE001 - recorded, judged by the harness
                    out["listError"] = error_record(unwrap(error))
                for call in run["calls"]:
                    elicitation.answer, elicitation.asked = call.get("elicit"), False
                    try:
                        arguments = with_cursor(call, out["calls"])
                    except LookupError as error:
                        out["calls"].append({"id": call["id"], "error": error_record(error)})
                        continue
                    try:
                        with anyio.fail_after(timeout):
                            result = await session.call_tool(call["tool"], arguments, call.get("meta"))
                        out["calls"].append({"id": call["id"], "result": result, "elicited": elicitation.asked})
                    except Exception as error:  # noqa: BLE001
                        out["calls"].append({"id": call["id"], "error": error_record(unwrap(error))})
    except Exception as error:  # noqa: BLE001
        if not connected:
            out["connectError"] = error_record(unwrap(error))
        else:
            # Closing the session is not under test, but say so if it failed.
            out["closeError"] = error_record(unwrap(error))
    return out


def with_cursor(call: dict[str, Any], records: list[dict[str, Any]]) -> dict[str, Any]:
    """The call's arguments; for a call with `cursorFrom` (the next page of a walk), with
    `cursor` set to the `structuredContent.nextCursor` of that earlier call's recorded
    result, as this client returned it."""
    earlier_id = call.get("cursorFrom")
    if not earlier_id:
        return call["arguments"]
    earlier = next((r for r in records if r["id"] == earlier_id), {})
    cursor = ((earlier.get("result") or {}).get("structuredContent") or {}).get("nextCursor")
    if not isinstance(cursor, str):
        raise LookupError(f"`{earlier_id}` returned no nextCursor")
    return {**call["arguments"], "cursor": cursor}


def unwrap(error: BaseException) -> BaseException:
    """The single leaf of an exception group (anyio task groups wrap what they raise)."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


async def main(job_path: str, report_path: str) -> None:
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    runs: list[dict[str, Any]] = [{}] * len(job["runs"])

    async def one(i: int, run: dict[str, Any]) -> None:
        runs[i] = await run_one(job, run)

    async with anyio.create_task_group() as tg:
        for i, run in enumerate(job["runs"]):
            tg.start_soon(one, i, run)
    with open(report_path, "w", encoding="utf-8") as f:
        json.dump({"client": f"mcp {MCP_VERSION} (Python)", "runs": runs}, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: py_driver.py <job.json> <report.json>")
    anyio.run(main, sys.argv[1], sys.argv[2])
