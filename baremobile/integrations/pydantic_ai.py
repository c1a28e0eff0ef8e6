"""Pydantic AI: the tool table as a toolset for ``pydantic_ai.Agent`` (``[pydantic-ai]``).

>>> from baremobile import connect
>>> from baremobile.integrations import pydantic_ai as bm
>>> from pydantic_ai import Agent                                           # doctest: +SKIP
>>> page = connect("virtual")                                               # doctest: +SKIP
>>> agent = Agent("openai:gpt-4.1", toolsets=[bm.toolset(page)])            # doctest: +SKIP

Each tool is built with ``Tool.from_schema`` from the table's name, description and JSON
schema, and is async (the device call runs on a worker thread; a cancelled run or a tool
timeout frees the device). A call returns a ``ToolReturn``:

* ``return_value`` — what the model reads (:func:`baremobile.tools.to_text`); a screenshot
  adds the PNG as ``BinaryContent``, which Pydantic AI sends as an image;
* ``metadata`` — the whole result dict for your code (not sent to the model);
* a failed call raises ``ToolFailed`` with the code, message and hint: Pydantic AI hands it
  to the model as a failed tool result and the run goes on (no retry budget is used).
"""

from __future__ import annotations

import base64
from typing import Any

try:
    from pydantic_ai import BinaryContent, ToolFailed, ToolReturn
    from pydantic_ai.tools import Tool
    from pydantic_ai.toolsets import FunctionToolset
except ImportError as _exc:  # pragma: no cover - depends on the environment
    raise ImportError("baremobile.integrations.pydantic_ai needs pydantic-ai-slim>=2.18: "
                      "pip install 'baremobile[pydantic-ai]'") from _exc

from baremobile.integrations.bridge import Bridge

__all__ = ["toolset", "tools"]


def _tool(bridge: Bridge, name: str, description: str, schema: dict[str, Any]) -> Tool[Any]:
    async def run(**arguments: Any) -> ToolReturn:
        result = await bridge.acall(name, arguments)
        text = bridge.text(result)
        if not result.get("ok"):
            raise ToolFailed(text)
        image = bridge.image(result)
        value: Any = text
        if image is not None:
            value = [text, BinaryContent(data=base64.b64decode(image[1]), media_type=image[0])]
        return ToolReturn(return_value=value, metadata=bridge.facts(result))

    run.__name__ = name
    return Tool.from_schema(run, name=name, description=description, json_schema=schema)


def tools(target: Any, *, groups: Any = (), observe: Any = None, **options: Any) -> list[Tool[Any]]:
    """The tools of ``core`` plus ``groups`` for ``target``, as Pydantic AI ``Tool`` objects
    (``Agent(tools=...)``); :func:`toolset` wraps them in a toolset.

    The arguments (``target``, ``groups``, ``observe``, ``settle``, ``max_chars``,
    ``files_dir``, ``prefix``, ``device``) are :class:`~baremobile.integrations.bridge.Bridge`'s.
    """
    return Bridge(target, groups=groups, observe=observe, **options).render(_tool)


def toolset(target: Any, *, groups: Any = (), observe: Any = None, id: str = "baremobile",
            **options: Any) -> FunctionToolset[Any]:
    """:func:`tools` as a ``FunctionToolset`` (``Agent(toolsets=[toolset(page)])``)."""
    return FunctionToolset(tools(target, groups=groups, observe=observe, **options), id=id)
