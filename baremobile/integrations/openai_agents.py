"""OpenAI Agents SDK: the tool table as ``agents.FunctionTool`` objects (``[openai-agents]``).

>>> from baremobile import connect
>>> from baremobile.integrations import openai_agents as bm
>>> from agents import Agent, Runner                                        # doctest: +SKIP
>>> page = connect("virtual")                                               # doctest: +SKIP
>>> agent = Agent(name="phone", tools=bm.tools(page))                       # doctest: +SKIP

Each ``FunctionTool`` carries the table's name, description and JSON schema as they are
(``strict_json_schema=False``: the schemas have optional parameters and ``anyOf``, which
OpenAI's strict mode does not allow; :func:`baremobile.tools.call` validates every call
instead). The tool is async (the device call runs on a worker thread; a cancelled run or a
tool timeout frees the device). What the model reads is :func:`baremobile.tools.to_text`'s
text — a failed call too (code, message and hint: the run goes on); a screenshot answers
``ToolOutputText`` plus ``ToolOutputImage`` (a PNG data URL).
"""

from __future__ import annotations

from typing import Any

try:
    from agents import FunctionTool, ToolOutputImage, ToolOutputText
except ImportError as _exc:  # pragma: no cover - depends on the environment
    raise ImportError("baremobile.integrations.openai_agents needs openai-agents: "
                      "pip install 'baremobile[openai-agents]'") from _exc

from baremobile.integrations.bridge import Bridge

__all__ = ["tools"]


def _tool(bridge: Bridge, name: str, description: str, schema: dict[str, Any]) -> FunctionTool:
    async def invoke(context: Any, arguments: str) -> Any:
        result = await bridge.acall(name, arguments)
        text = bridge.text(result)
        image = bridge.image(result)
        if image is None:
            return text
        mime, data = image
        return [ToolOutputText(text=text), ToolOutputImage(image_url=f"data:{mime};base64,{data}")]

    return FunctionTool(name=name, description=description, params_json_schema=schema,
                        on_invoke_tool=invoke, strict_json_schema=False)


def tools(target: Any, *, groups: Any = (), observe: Any = None,
          **options: Any) -> list[FunctionTool]:
    """The tools of ``core`` plus ``groups`` for ``target``, as Agents SDK ``FunctionTool`` objects.

    The arguments (``target``, ``groups``, ``observe``, ``settle``, ``max_chars``,
    ``files_dir``, ``prefix``, ``device``) are :class:`~baremobile.integrations.bridge.Bridge`'s.
    """
    return Bridge(target, groups=groups, observe=observe, **options).render(_tool)
