"""The tool table as function-calling definitions for each agent framework.

>>> from baremobile import tools
>>> tools.schemas("openai")[0]["function"]["name"]
'snapshot'
>>> tools.schemas("anthropic")[0]["name"]
'snapshot'

Styles:

``"openai"``            Chat Completions:
                        ``{"type": "function", "function": {name, description, parameters}}``
``"openai-responses"``  Responses API: ``{"type": "function", name, description, parameters}``
``"anthropic"``         Messages API: ``{name, description, input_schema}``
``"json"``              plain: ``{name, description, parameters}``, parameters carrying ``$schema``
                        (JSON Schema draft 2020-12) — for MCP, Gemini-style or your own loop
"""

from __future__ import annotations

import copy
import re
from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.tools import spec as _spec

__all__ = ["STYLES", "DRAFT_2020_12", "schemas"]

STYLES = ("openai", "openai-responses", "anthropic", "json")
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
_PREFIX = re.compile(r"^[A-Za-z0-9_]{0,40}\Z")


def check_prefix(prefix: str) -> str:
    """A tool-name prefix is letters, digits and underscores (``android_pixel7_``)."""
    if not isinstance(prefix, str) or not _PREFIX.match(prefix):
        raise InvalidArgument(f"{prefix!r} is not a tool-name prefix",
                              hint="use letters, digits and underscores, e.g. android_pixel7_")
    return prefix


def schemas(
    style: str = "openai",
    *,
    groups: Any = (),
    prefix: str = "",
    device: bool = True,
) -> list[dict[str, Any]]:
    """Tool definitions for ``style`` (see the module docstring).

    ``groups`` adds optional groups to ``core`` (``["apps", "vision"]``, ``"all"``);
    ``prefix`` goes before every name; ``device=False`` leaves out the ``device``
    parameter (one Page, one device). Every call returns fresh dicts you may change.
    """
    if style not in STYLES:
        raise InvalidArgument(f"unknown schema style {style!r}",
                              hint=f"styles are: {', '.join(STYLES)}")
    check_prefix(prefix)
    out = []
    for tool in _spec.select(groups):
        name = prefix + tool.name
        desc = tool.full_description()
        params = copy.deepcopy(tool.parameters(device=device))
        if style == "openai":
            out.append({"type": "function",
                        "function": {"name": name, "description": desc, "parameters": params}})
        elif style == "openai-responses":
            out.append({"type": "function", "name": name, "description": desc,
                        "parameters": params})
        elif style == "anthropic":
            out.append({"name": name, "description": desc, "input_schema": params})
        else:
            out.append({"name": name, "description": desc,
                        "parameters": {"$schema": DRAFT_2020_12, **params}})
    return out
