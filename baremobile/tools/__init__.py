"""Agent adapters: one tool table for function calling and for MCP.

>>> from baremobile import connect, tools
>>> page = connect("virtual")                                   # doctest: +SKIP
>>> defs = tools.schemas("anthropic")          # hand these to the model
>>> result = tools.call(page, "snapshot", {})                   # doctest: +SKIP
>>> tools.to_text(result)                      # what the model reads back   # doctest: +SKIP

* :func:`schemas` — the table as OpenAI / Anthropic / JSON tool definitions;
* :func:`call` — validate arguments, run the tool, answer with data (errors too:
  ``{"ok": false, "error": {"code", "message", "hint", "category"}}``, never a traceback);
  pass it the same ``groups`` as :func:`schemas` (both default to ``core``);
* :class:`Session` — several devices, session defaults, one call at a time per device;
* :data:`TOOLS` — the table itself (:class:`ToolSpec` rows);
* ``baremobile mcp`` — the same tools over MCP (:mod:`baremobile.tools.mcp_server`).

See ``docs/agents.md`` and ``docs/mcp.md``.
"""

from __future__ import annotations

from baremobile.tools.dispatch import (
    ERROR_CODES,
    call,
    error_data,
    image_bytes,
    session_for,
    to_anthropic,
    to_text,
)
from baremobile.tools.schemas import STYLES, schemas
from baremobile.tools.session import NotAllowed, Options, Session, SessionClosed
from baremobile.tools.spec import GROUPS, OPTIONAL_GROUPS, TOOLS, ToolSpec, select
from baremobile.tools.validate import validate

__all__ = [
    "ERROR_CODES",
    "GROUPS",
    "NotAllowed",
    "OPTIONAL_GROUPS",
    "STYLES",
    "TOOLS",
    "Options",
    "Session",
    "SessionClosed",
    "ToolSpec",
    "call",
    "error_data",
    "image_bytes",
    "schemas",
    "select",
    "session_for",
    "to_anthropic",
    "to_text",
    "validate",
]
