"""Framework adapters: the one tool table as each agent framework's own tool objects.

Each module renders :data:`baremobile.tools.TOOLS` for one framework and routes every call
to :func:`baremobile.tools.call` — there is no second tool definition anywhere:

* :mod:`baremobile.integrations.langchain` — ``langchain_core`` ``BaseTool`` objects (LangChain
  and LangGraph agents); ``pip install 'baremobile[langchain]'``;
* :mod:`baremobile.integrations.pydantic_ai` — a toolset for ``pydantic_ai.Agent``;
  ``pip install 'baremobile[pydantic-ai]'``;
* :mod:`baremobile.integrations.openai_agents` — ``agents.FunctionTool`` objects for the
  OpenAI Agents SDK; ``pip install 'baremobile[openai-agents]'``.

Every module has ``tools(page_or_session, groups=..., observe=...)``. Importing this package
imports no framework: each adapter module imports its framework when it is imported.
See ``docs/integrations.md``.
"""

from __future__ import annotations

__all__: list[str] = []
