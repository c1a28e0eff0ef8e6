"""LangChain / LangGraph: full agent runs on the virtual phone with LangChain's own fake chat
model (scripted tool calls), through langchain's create_agent and LangGraph's prebuilt
agent, sync and async; what the phone saw and what the model received."""

from __future__ import annotations

import asyncio
import warnings

import pytest

from baremobile import connect, tools
from tests.agent_script import CALLS, FINAL, TASK, check_phone, check_results


@pytest.fixture(autouse=True, scope="module")
def sdk():
    """LangChain and LangGraph, imported when a test of this file runs (they cost ~1.2 s:
    collecting the file does not pay it); the file's tests skip, saying why, where either is
    absent."""
    pytest.importorskip("langchain_core", reason="langchain-core is in the [test] extra")
    pytest.importorskip("langgraph", reason="langgraph is in the [test] extra")


def bm_tools(target):
    from baremobile.integrations import langchain as bm

    return bm.tools(target)


def scripted_chat_model_class():
    """LangChain's fake chat model, plus the ``bind_tools`` every agent builder calls:
    it keeps the tool definitions the model was given."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.utils.function_calling import convert_to_openai_tool

    class ScriptedChatModel(GenericFakeChatModel):
        bound: list = []

        def bind_tools(self, tools, **kwargs):  # noqa: ARG002 - the model ignores tool_choice
            self.bound = [convert_to_openai_tool(t) for t in tools]
            return self

    return ScriptedChatModel


def inputs_recorder():
    """A callback handler that records the messages the chat model received on every
    turn (in ``turns``)."""
    from langchain_core.callbacks import BaseCallbackHandler

    class Inputs(BaseCallbackHandler):
        def __init__(self) -> None:
            self.turns: list[list] = []

        def on_chat_model_start(self, serialized, messages, **kwargs):
            self.turns.append(list(messages[0]))

    return Inputs()


def scripted_model():
    from langchain_core.messages import AIMessage

    replies = [AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{i}"}])
               for i, (name, args) in enumerate(CALLS)]
    return scripted_chat_model_class()(messages=iter([*replies, AIMessage(content=FINAL)]))


@pytest.fixture
def page(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as p:
        yield p


def make_agent(kind: str, model, lc_tools):
    if kind == "create_agent":
        pytest.importorskip("langchain", reason="langchain is in the [test] extra")
        from langchain.agents import create_agent

        return create_agent(model, lc_tools)
    from langgraph.prebuilt import create_react_agent

    with warnings.catch_warnings():  # moved to langchain.agents in LangGraph 1.0; still there
        warnings.simplefilter("ignore")
        return create_react_agent(model, lc_tools)


@pytest.mark.parametrize("kind", ["create_agent", "langgraph_prebuilt"])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_agent_run_on_the_virtual_phone(page, phone, kind, mode):
    from langchain_core.messages import ToolMessage

    model, inputs = scripted_model(), inputs_recorder()
    agent = make_agent(kind, model, bm_tools(page))
    state = {"messages": [("user", TASK)]}
    config = {"callbacks": [inputs], "recursion_limit": 30}
    if mode == "sync":
        out = agent.invoke(state, config)
    else:
        out = asyncio.run(agent.ainvoke(state, config))

    check_phone(phone)
    assert out["messages"][-1].content == FINAL
    # what the model received: our tool definitions, and every result as a ToolMessage
    assert model.bound == tools.schemas("openai", device=False)
    assert len(inputs.turns) == len(CALLS) + 1
    replies = [m for m in inputs.turns[-1] if isinstance(m, ToolMessage)]
    check_results([m.content for m in replies])
    assert [m.status for m in replies] == ["success", "error", *["success"] * 4]
    assert replies[0].artifact["package"] == "com.google.android.apps.nexuslauncher"
    assert replies[1].artifact is None  # a failure is content only: code, message, hint


@pytest.mark.fast
def test_a_screenshot_is_an_image_block(page):
    (shot,) = [t for t in bm_tools(page) if t.name == "screenshot"]
    msg = shot.invoke({"type": "tool_call", "id": "c1", "name": "screenshot", "args": {}})
    text, image = msg.content
    # the tools' default: sized for a model (a JPEG, 1024 px on its longest side)
    assert text["type"] == "text" and text["text"].startswith(
        "screenshot (461x1024 JPEG of the 1080x2400 screen)")
    assert image["type"] == "image" and image["mime_type"] == "image/jpeg"
    import base64

    assert base64.b64decode(image["base64"]).startswith(b"\xff\xd8\xff")
    assert msg.artifact["image"] == {"mime_type": "image/jpeg", "width": 461, "height": 1024}
