"""Pydantic AI: a full agent run on the virtual phone with Pydantic AI's own FunctionModel
(a model that reads the tool results and scripts its next call from them); what the phone
saw and what the model received, the failed call included."""

from __future__ import annotations

import base64

import pytest

from baremobile import connect, tools
from tests.agent_script import FINAL, TASK, check_phone, check_results, next_call


@pytest.fixture(autouse=True, scope="module")
def sdk():
    """Pydantic AI, imported when a test of this file runs (it costs ~1 s: collecting the
    file does not pay it); the file's tests skip, saying why, where it is absent."""
    pytest.importorskip("pydantic_ai", reason="pydantic-ai-slim is in the [test] extra")


def bm_module():
    from baremobile.integrations import pydantic_ai as bm

    return bm


def returns(messages) -> list:
    from pydantic_ai.messages import ModelRequest, ToolReturnPart

    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, ToolReturnPart)]


def reader(tool_defs: list):
    """A FunctionModel body: reads the tool results by text, answers with the next call
    (and keeps the tool definitions it was given in ``tool_defs``)."""

    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart

    def read(messages, info):
        tool_defs[:] = info.function_tools
        step = next_call([str(p.content) for p in returns(messages)])
        if step is None:
            return ModelResponse(parts=[TextPart(FINAL)])
        name, args = step
        return ModelResponse(parts=[ToolCallPart(name, args)])

    return read


@pytest.fixture
def page(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as p:
        yield p


def test_agent_run_on_the_virtual_phone(page, phone):
    from pydantic_ai import Agent
    from pydantic_ai.models.function import FunctionModel

    tool_defs: list = []
    agent = Agent(FunctionModel(reader(tool_defs)), toolsets=[bm_module().toolset(page)])
    result = agent.run_sync(TASK)

    check_phone(phone)
    assert result.output == FINAL
    got = [(d.name, d.description, d.parameters_json_schema) for d in tool_defs]
    assert got == [(d["function"]["name"], d["function"]["description"],
                    d["function"]["parameters"]) for d in tools.schemas("openai", device=False)]
    parts = returns(result.all_messages())
    check_results([str(p.content) for p in parts])
    assert [p.outcome for p in parts] == ["success", "failed", *["success"] * 4]
    assert parts[0].metadata["refs"] == 14  # the whole result, for the program


@pytest.mark.fast
def test_a_screenshot_is_binary_content(page):
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    (shot,) = [t for t in bm_module().tools(page) if t.name == "screenshot"]
    calls = []

    def model(messages, info):
        done = returns(messages)
        if done:
            calls.append(done[0])
            return ModelResponse(parts=[TextPart("seen")])
        return ModelResponse(parts=[ToolCallPart("screenshot", {})])

    Agent(FunctionModel(model), tools=[shot]).run_sync("look")
    text, image = calls[0].content
    assert text.startswith("screenshot (461x1024 JPEG of the 1080x2400 screen)")
    assert image.media_type == "image/jpeg" and image.data.startswith(b"\xff\xd8\xff")
    assert image.data == base64.b64decode(tools.call(page, "screenshot")["image"]["data"])
