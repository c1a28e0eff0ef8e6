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

import re
from typing import Any

from baremobile.errors import InvalidArgument
from baremobile.tools import render
from baremobile.tools import spec as _spec
from baremobile.tools.render import DRAFT_2020_12, STYLES

__all__ = ["STYLES", "DRAFT_2020_12", "schemas"]

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
    """Tool definitions for ``style`` (see the module docstring), written by the one
    renderer (:func:`baremobile.tools.render.function_schemas`: the same names, words and
    parameters as every other door).

    ``groups`` adds optional groups to ``core`` (``["apps", "vision"]``, ``"all"``);
    ``prefix`` goes before every name; ``device=False`` leaves the ``device`` parameter
    out of the shown schemas (one Page, one device; it is accepted either way). Every call
    returns fresh dicts you may change.
    """
    if style not in STYLES:
        raise InvalidArgument(f"unknown schema style {style!r}",
                              hint=f"styles are: {', '.join(STYLES)}")
    check_prefix(prefix)
    return render.function_schemas(_spec.select(groups), style, prefix=prefix, device=device)
