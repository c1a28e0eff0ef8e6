"""OpenAI Agents SDK: a full agent run on the virtual phone with the SDK's own ScriptedModel
(each step derived from the call it receives), tracing off and no network; what the phone
saw and what the model received, the failed call included."""

from __future__ import annotations

import asyncio
import time

import pytest

from baremobile import connect, tools
from tests.agent_script import CALLS, FINAL, TASK, check_phone, check_results, next_call


@pytest.fixture(autouse=True, scope="module")
def sdk():
    """The SDK, imported when a test of this file runs (it costs ~1.7 s: collecting the file
    does not pay it); the file's tests skip, saying why, where it is absent."""
    pytest.importorskip("agents", reason="openai-agents is in the [test] extra")


def bm_tools(target):
    from baremobile.integrations import openai_agents as bm

    return bm.tools(target)


def outputs(items) -> list:
    return [i["output"] for i in items
            if isinstance(i, dict) and i.get("type") == "function_call_output"]


def respond(call):
    """One model turn: read the tool outputs so far, answer with the next call."""
    from agents.testing import assistant_message, function_call

    step = next_call([str(o) for o in outputs(call.input)])
    if step is None:
        return [assistant_message(FINAL)]
    name, args = step
    return [function_call(name, args, call_id=f"call_{len(outputs(call.input))}")]


@pytest.fixture
def page(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as p:
        yield p


def run(agent, task):
    from agents import RunConfig, Runner

    return asyncio.run(Runner.run(agent, task, run_config=RunConfig(tracing_disabled=True)))


def test_agent_run_on_the_virtual_phone(page, phone):
    from agents import Agent
    from agents.testing import ModelStep, ScriptedModel

    model = ScriptedModel([ModelStep.respond(respond) for _ in range(len(CALLS) + 1)])
    agent = Agent(name="phone", instructions="Drive the phone.", model=model,
                  tools=bm_tools(page))
    result = run(agent, TASK)

    model.assert_complete()
    check_phone(phone)
    assert result.final_output == FINAL
    last = model.last_call
    got = [(t.name, t.description, t.params_json_schema) for t in last.tools]
    assert got == [(d["function"]["name"], d["function"]["description"],
                    d["function"]["parameters"]) for d in tools.schemas("openai", device=False)]
    check_results(outputs(last.input))


@pytest.mark.fast
def test_a_screenshot_is_text_and_an_image(page):
    from agents import Agent
    from agents.testing import ScriptedModel, assistant_message, function_call

    (shot,) = [t for t in bm_tools(page) if t.name == "screenshot"]
    model = ScriptedModel([[function_call("screenshot", {}, call_id="s")],
                           [assistant_message("seen")]])
    run(Agent(name="eyes", model=model, tools=[shot]), "look")
    (output,) = outputs(model.last_call.input)
    text, image = output
    assert text["type"] == "input_text" and text["text"].startswith("screenshot (461x1024 JPEG")
    assert image["type"] == "input_image"
    assert image["image_url"].startswith("data:image/jpeg;base64,/9j/")  # sized for a model


def test_arguments_that_are_not_json_are_an_error_the_model_reads(page):
    from agents import Agent
    from agents.testing import ScriptedModel, assistant_message, function_call

    (tap,) = [t for t in bm_tools(page) if t.name == "tap"]
    model = ScriptedModel([[function_call("tap", '{"ref": 3', call_id="t")],
                           [assistant_message("ok")]])
    run(Agent(name="clumsy", model=model, tools=[tap]), "tap")
    (output,) = outputs(model.last_call.input)
    assert output.startswith("error INVALID_ARGUMENT"), output


def test_parallel_calls_of_one_turn_reach_the_phone_in_order(page, phone):
    """The SDK runs a turn's tool calls concurrently; the phone gets them in their order."""
    from agents import Agent
    from agents.testing import ScriptedModel, assistant_message, function_call

    model = ScriptedModel([
        [function_call("snapshot", {}, call_id="a")],
        [function_call("tap", {"ref": 7}, call_id="b"), function_call("snapshot", {}, call_id="c"),
         function_call("find", {"selector": {"text": "Search Settings"}}, call_id="d")],
        [assistant_message("in Settings")],
    ])
    run(Agent(name="hasty", model=model, tools=bm_tools(page)), "open settings")
    _, tapped, seen, found = outputs(model.last_call.input)
    assert tapped.startswith("tapped ref 7")
    assert "- app com.android.settings" in seen  # the tap came first
    assert '"count": 1' in found
    assert len(phone.events.list("tap")) == 1


def test_a_tool_timeout_frees_the_device_for_the_next_call(phone, adb_key):
    """A tool the SDK times out (timeout_seconds) is cancelled at once (its cancel token):
    the run goes on, the wait stops polling, and the next call is not BUSY."""
    from agents import Agent
    from agents.testing import ScriptedModel, assistant_message, function_call

    with tools.Session(device=phone.address, connect_options={"keys": [adb_key]}) as session:
        by_name = {t.name: t for t in bm_tools(session)}
        by_name["wait_for_text"].timeout_seconds = 0.5
        model = ScriptedModel([
            [function_call("snapshot", {}, call_id="a")],
            [function_call("wait_for_text", {"text": "never shown", "timeout": 60},
                           call_id="b")],
            [function_call("snapshot", {}, call_id="c")],
            [assistant_message("gave up waiting")],
        ])
        agent = Agent(name="patient", model=model, tools=list(by_name.values()))
        started = time.monotonic()
        result = run(agent, "wait")
        assert time.monotonic() - started < 30  # the 60 s wait did not hold the device
        assert result.final_output == "gave up waiting"
        first, waited, again = outputs(model.last_call.input)
        assert "timed out" in waited.lower(), waited
        assert again.startswith("# 1080x2400 portrait")  # not BUSY: reconnected
        dumps = len(phone.events.list("dump"))
        time.sleep(1.5)  # the wait polls every 0.5 s: had it gone on, it would dump again
        assert len(phone.events.list("dump")) == dumps  # the waiting call was cancelled
