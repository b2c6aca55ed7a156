"""A small library server on the Python MCP SDK's FastMCP (mcp 1.30, the pinned
tests/clients/requirements-mcp1.txt of the workspace), with planted violations for
mcp-result-check (mcp-result-check/tests/check.rs runs it over stdio and asserts exactly
these findings).

Planted (the check that reports each in brackets):

- ``list_genres``: ``structured_output=False``, so no outputSchema [output-schema-missing];
- ``export_catalog``: a 100 KiB CSV inline, no resource_link [large-output];
- ``borrow_book``, a write tool: ``status`` and ``retrySafe`` but no ``auditEventId``
  [write-contract];
- ``get_reading_list``: the shelf only in ``_meta`` [meta-business-data];
- ``list_isbns``: an array outputSchema root, which protocol 2025-11-25 forbids; this server
  edits its tool list to say so, as hand-written lists do [output-object-root].

What FastMCP does by itself, reported as well:

- a call of an unknown tool is an ``isError`` result ("Unknown tool: ..."), not a JSON-RPC
  error [unknown-tool];
- bad arguments (``get_book`` with a number for ``isbn``) are an ``isError`` result with the
  pydantic message as its only content: no structured envelope, so no ``status``, no
  ``retrySafe`` and no field named in ``structuredContent`` [error-status,
  error-retry-safe, error-field-errors].

``count_books`` is the control: no findings.
"""

import json
from typing import Annotated

from mcp.server.fastmcp import FastMCP
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel

READ_ONLY = ToolAnnotations(readOnlyHint=True)


class Library(FastMCP):
    async def list_tools(self):
        tools = await super().list_tools()
        for tool in tools:
            if tool.name == "list_isbns":
                tool.outputSchema = {"type": "array", "items": {"type": "string"}}
        return tools


mcp = Library("library")


class Count(BaseModel):
    total: int
    available: int


class Book(BaseModel):
    isbn: str
    title: str


class Export(BaseModel):
    rows: int


class Loan(BaseModel):
    loanId: str
    status: str
    retrySafe: bool


class ReadingList(BaseModel):
    titles: list[str]


def structured(value: dict, summary: str, meta: dict | None = None) -> CallToolResult:
    """A result the way mcp-result builds one: summary, JSON-compat text, structuredContent."""
    return CallToolResult(
        content=[
            TextContent(type="text", text=summary),
            TextContent(type="text", text=json.dumps(value)),
        ],
        structuredContent=value,
        _meta=meta,
    )


@mcp.tool(annotations=READ_ONLY)
def count_books() -> Count:
    """Count the books in the catalog and those on the shelves."""
    return Count(total=3, available=2)


@mcp.tool(annotations=READ_ONLY)
def get_book(isbn: str) -> Book:
    """Read one book by its ISBN."""
    return Book(isbn=isbn, title="The Left Hand of Darkness")


@mcp.tool(annotations=READ_ONLY, structured_output=False)
def list_genres() -> str:
    """List the catalog's genres."""
    return "fiction, history, science"


@mcp.tool(annotations=READ_ONLY)
def export_catalog() -> Annotated[CallToolResult, Export]:
    """Export the whole catalog as CSV."""
    lines = ["isbn,title"]
    size = 0
    while size < 100 * 1024:
        line = f"978-{len(lines):09d},Book number {len(lines)}"
        lines.append(line)
        size += len(line) + 1
    csv = "\n".join(lines)
    value = {"rows": len(lines) - 1}
    return CallToolResult(
        content=[TextContent(type="text", text=csv), TextContent(type="text", text=json.dumps(value))],
        structuredContent=value,
    )


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False))
def borrow_book() -> Annotated[CallToolResult, Loan]:
    """Borrow the next book on the reading list."""
    value = {"loanId": "L-1", "status": "succeeded", "retrySafe": False}
    return structured(value, "Borrowed; loan L-1.")


@mcp.tool(annotations=READ_ONLY)
def get_reading_list() -> Annotated[CallToolResult, ReadingList]:
    """Read the reading list."""
    value = {"titles": ["Kindred", "Dune"]}
    return structured(value, "2 titles on the reading list.", {"com.example/shelf": "B-12"})


@mcp.tool(annotations=READ_ONLY)
def list_isbns() -> CallToolResult:
    """List every ISBN in the catalog."""
    isbns = ["978-0441478125", "978-0807083697"]
    # `structuredContent` is typed as an object in the SDK: construct past its validation,
    # as the array schema promises.
    return CallToolResult.model_construct(
        content=[TextContent(type="text", text=json.dumps(isbns))], structuredContent=isbns, isError=False
    )


if __name__ == "__main__":
    mcp.run()
