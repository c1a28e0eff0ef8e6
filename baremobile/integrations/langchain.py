"""LangChain and LangGraph: the tool table as ``langchain_core`` tools (``[langchain]``).

>>> from baremobile import connect
>>> from baremobile.integrations import langchain as bm
>>> from langchain.agents import create_agent                    # doctest: +SKIP
>>> page = connect("virtual")                                     # doctest: +SKIP
>>> agent = create_agent("openai:gpt-4.1", bm.tools(page))        # doctest: +SKIP

Each tool is a :class:`BaremobileTool` (a ``BaseTool`` whose ``args_schema`` is the
table's JSON schema), so LangChain's ``create_agent``, LangGraph's prebuilt agent and
``ToolNode``, and any chat model's ``bind_tools`` take them as they are. A call answers a
``ToolMessage``:

* ``content`` — what the model reads (:func:`baremobile.tools.to_text`); a screenshot adds
  a standard image content block (base64 PNG);
* ``artifact`` — the whole result dict (``ok``, ``done``, ``snapshot``, …) for your code;
* a failed call is ``status="error"`` with the code, message and hint as its content — the
  run goes on and the model reads what to do next.

Both ``invoke`` (sync) and ``ainvoke`` (async, cancellable) work.
"""

from __future__ import annotations

from typing import Any

try:
    from langchain_core.tools import BaseTool, ToolException
except ImportError as _exc:  # pragma: no cover - depends on the environment
    raise ImportError("baremobile.integrations.langchain needs langchain-core: "
                      "pip install 'baremobile[langchain]'") from _exc
from pydantic import ConfigDict, Field

from baremobile.integrations.bridge import Bridge

__all__ = ["BaremobileTool", "tools"]


class BaremobileTool(BaseTool):
    """One tool of the table, run through :func:`baremobile.tools.call`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    bridge: Bridge = Field(exclude=True, repr=False)
    response_format: str = "content_and_artifact"
    handle_tool_error: bool = True  # a failed call is a ToolMessage with status="error"

    def _run(self, **arguments: Any) -> tuple[Any, dict[str, Any]]:
        return self._answer(self.bridge.call(self.name, arguments))

    async def _arun(self, **arguments: Any) -> tuple[Any, dict[str, Any]]:
        return self._answer(await self.bridge.acall(self.name, arguments))

    def _answer(self, result: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        text = self.bridge.text(result)
        if not result.get("ok"):
            raise ToolException(text)
        image = self.bridge.image(result)
        if image is None:
            return text, self.bridge.facts(result)
        mime, data = image
        return ([{"type": "text", "text": text},
                 {"type": "image", "base64": data, "mime_type": mime}], self.bridge.facts(result))


def _tool(bridge: Bridge, name: str, description: str, schema: dict[str, Any]) -> BaseTool:
    return BaremobileTool(name=name, description=description, args_schema=schema, bridge=bridge)


def tools(target: Any, *, groups: Any = (), observe: Any = None, **options: Any) -> list[BaseTool]:
    """The tools of ``core`` plus ``groups`` for ``target``, as LangChain tools.

    The arguments (``target``, ``groups``, ``observe``, ``settle``, ``max_chars``,
    ``files_dir``, ``prefix``, ``device``) are :class:`~baremobile.integrations.bridge.Bridge`'s.
    """
    return Bridge(target, groups=groups, observe=observe, **options).render(_tool)
