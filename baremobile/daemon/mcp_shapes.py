"""MCP's result shapes for the daemon's ``tools/*`` answers, as plain JSON (no MCP SDK).

AutoMobile's socket document says ``tools/list`` answers a standard ``ListToolsResult`` and
``tools/call`` a standard ``CallToolResult``; a client written to it reads ``tools``,
``content``, ``structuredContent`` and ``isError``. These are those shapes, built from the
tool table and from :func:`baremobile.tools.call`'s dict:

* a tool: ``name``, ``title``, ``description``, ``inputSchema``, ``annotations``, and its
  group under ``_meta`` (``"baremobile/group"``), where MCP keeps what is not its own;
* a call: ``content`` — the text an LLM reads (:func:`~baremobile.tools.to_text`) and, for a
  screenshot, an ``image`` block — ``structuredContent`` — our whole result dict (``ok``,
  ``tool``, ``device``, … and for a failure ``error: {code, message, hint, category}``),
  the image's bytes left out since the image block carries them — and ``isError``, true
  when the tool failed. A failed tool is a result (MCP's rule), not a failed request.

Our own clients ask for our shape instead (``"format": "baremobile"``): the result dict
itself, and a tool's failure as the response's error with its ``code`` and ``hint``.
"""

from __future__ import annotations

from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.tools.dispatch import to_text

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
    """``ListToolsResult`` of :func:`baremobile.daemon.hub.tool_list`'s rows."""
    out = []
    for t in tools:
        row = {k: v for k, v in t.items() if k != "group"}
        row["title"] = t["annotations"]["title"]
        row["_meta"] = {"baremobile/group": t["group"]}
        out.append(row)
    return {"tools": out}


def call_tool_result(result: dict[str, Any]) -> dict[str, Any]:
    """``CallToolResult`` of one :func:`baremobile.tools.call` result."""
    content: list[dict[str, Any]] = [{"type": "text", "text": to_text(result)}]
    structured = dict(result)
    image = result.get("image") if result.get("ok") else None
    if isinstance(image, dict) and isinstance(image.get("data"), str):
        content.append({"type": "image", "data": image["data"],
                        "mimeType": image.get("mime_type", "image/png")})
        structured["image"] = {k: v for k, v in image.items() if k != "data"}
    return {"content": content, "structuredContent": structured,
            "isError": not result.get("ok")}
