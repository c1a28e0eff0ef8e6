"""MCP's result shapes for the daemon's ``tools/*`` answers, as plain JSON (no MCP SDK).

AutoMobile's socket document says ``tools/list`` answers a standard ``ListToolsResult`` and
``tools/call`` a standard ``CallToolResult``; a client written to it reads ``tools``,
``content``, ``structuredContent`` and ``isError``. These are those shapes, built from the
tool table and from :func:`baremobile.tools.call`'s dict:

* a tool as the one renderer writes it for every door (:func:`baremobile.tools.render.menu`:
  ``name``, ``description``, ``inputSchema``, ``annotations``);
* a call as :func:`baremobile.tools.render.call_result` writes it: ``content`` (the text a
  model reads, and an image block for a screenshot), ``structuredContent`` (the facts:
  ``ok``, ``tool``, ``device``, … and for a failure ``error: {code, message, hint,
  category}``) and ``isError``, true when the tool failed.

Our own clients ask for our shape instead (``"format": "baremobile"``): the result dict
itself, and a tool's failure as the response's error with its ``code`` and ``hint``.
"""

from __future__ import annotations

from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.tools import render

__all__ = ["FORMATS", "call_tool_result", "list_tools_result", "wants_mcp"]

#: the shapes a client may ask ``tools/*`` for (``params.format``)
FORMATS = ("mcp", "baremobile")


def wants_mcp(params: dict[str, Any]) -> bool:
    """Whether the request wants MCP's shape (the default) or ours (``"baremobile"``)."""
    value = params.get("format", "mcp")
    if value not in FORMATS:
        raise InvalidArgument(f"params.format must be one of {', '.join(FORMATS)}, not "
                              f"{value!r}", hint="leave it out for MCP's result shapes")
    return value == "mcp"


def list_tools_result(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """``ListToolsResult`` of the one renderer's menu (:func:`baremobile.tools.render.menu`)."""
    return {"tools": tools}


def call_tool_result(result: dict[str, Any]) -> dict[str, Any]:
    """``CallToolResult`` of one :func:`baremobile.tools.call` result
    (:func:`baremobile.tools.render.call_result`)."""
    return render.call_result(result)
