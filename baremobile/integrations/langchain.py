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

from typing import Any, Literal

try:
    from langchain_core.tools import BaseTool, ToolException
except ImportError as _exc:  # pragma: no cover - depends on the environment
    raise ImportError("baremobile.integrations.langchain needs langchain-core: "
                      "pip install 'baremobile[langchain]'") from _exc
from pydantic import ConfigDict, Field

from baremobile.integrations.bridge import Bridge
from baremobile.safetext import problem
from baremobile.tools.validate import MAX_ARGUMENT_DEPTH

__all__ = ["BaremobileTool", "tools"]


class BaremobileTool(BaseTool):
    """One tool of the table, run through :func:`baremobile.tools.call`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    bridge: Bridge = Field(exclude=True, repr=False)
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: bool = True  # a failed call is a ToolMessage with status="error"

    def run(self, tool_input: Any, *args: Any, **kwargs: Any) -> Any:
        """LangChain's ``run``; an input nested too deeply for LangChain's own handling
        answers the tool's error instead of raising ``RecursionError``."""
        return super().run(_bounded(tool_input), *args, **kwargs)

    async def arun(self, tool_input: Any, *args: Any, **kwargs: Any) -> Any:
        """LangChain's ``arun``: :meth:`run`, awaited."""
        return await super().arun(_bounded(tool_input), *args, **kwargs)

    def _run(self, **arguments: Any) -> tuple[Any, dict[str, Any]]:
        return self._answer(self.bridge.call(self.name, _unbounded(arguments)))

    async def _arun(self, **arguments: Any) -> tuple[Any, dict[str, Any]]:
        return self._answer(await self.bridge.acall(self.name, _unbounded(arguments)))

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


#: what stands for arguments too deep for LangChain itself (it repr()s them before the call)
_TOO_DEEP = "__baremobile_too_deep__"


def _bounded(tool_input: Any) -> Any:
    """``tool_input``, or a stand-in when it nests too deeply for LangChain's own handling
    (``str()`` of a 5,000-deep dict raises ``RecursionError`` before any tool runs)."""
    if isinstance(tool_input, dict) and isinstance(tool_input.get("args"), dict) and \
            tool_input.get("type") == "tool_call":
        inner = _bounded(tool_input["args"])
        return tool_input if inner is tool_input["args"] else {**tool_input, "args": inner}
    if isinstance(tool_input, dict):
        why = problem(tool_input, max_depth=MAX_ARGUMENT_DEPTH, numbers=False)
        if why is not None and "nests deeper" in why:
            return {_TOO_DEEP: why}
    return tool_input


def _unbounded(arguments: dict[str, Any]) -> Any:
    """The arguments for the call: the stand-in comes back as what the validator refuses
    (nesting beyond its limit), so the answer is the usual ``INVALID_ARGUMENT``."""
    if set(arguments) == {_TOO_DEEP}:
        value: Any = None
        for _ in range(MAX_ARGUMENT_DEPTH + 1):
            value = [value]
        return {"arguments": value}
    return arguments


def _tool(bridge: Bridge, name: str, description: str, schema: dict[str, Any]) -> BaseTool:
    return BaremobileTool(name=name, description=description, args_schema=schema, bridge=bridge)


def tools(target: Any, *, groups: Any = (), observe: Any = None, **options: Any) -> list[BaseTool]:
    """The tools of ``core`` plus ``groups`` for ``target``, as LangChain tools.

    The arguments (``target``, ``groups``, ``observe``, ``settle``, ``max_chars``,
    ``files_dir``, ``prefix``, ``device``) are :class:`~baremobile.integrations.bridge.Bridge`'s.
    """
    return Bridge(target, groups=groups, observe=observe, **options).render(_tool)
