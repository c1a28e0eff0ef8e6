"""Every adapter renders the one tool table: every tool of every group becomes a framework
tool with the same name, description and schema (tools other engineers add included), the
options reach tools.call(), calls keep their order, a cancelled call frees the device, and
importing baremobile imports no framework."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest

from baremobile import connect, tools
from baremobile.errors import InvalidArgument
from baremobile.tools import render

FRAMEWORKS = {"langchain": "langchain_core", "pydantic_ai": "pydantic_ai",
              "openai_agents": "agents"}


def adapter(name: str):
    pytest.importorskip(FRAMEWORKS[name], reason=f"{FRAMEWORKS[name]} is in the [test] extra")
    import importlib

    return importlib.import_module(f"baremobile.integrations.{name}")


def rendered(name: str, objects) -> list[tuple[str, str, dict]]:
    """(name, description, JSON schema) as the framework holds them."""
    if name == "langchain":
        return [(t.name, t.description, t.args_schema) for t in objects]
    if name == "pydantic_ai":
        return [(t.tool_def.name, t.tool_def.description, t.tool_def.parameters_json_schema)
                for t in objects]
    return [(t.name, t.description, t.params_json_schema) for t in objects]


@pytest.fixture
def page(phone, adb_key):
    with connect(phone.address, keys=[adb_key]) as p:
        yield p


@pytest.mark.parametrize("name", FRAMEWORKS)
def test_every_tool_of_every_group_is_a_framework_tool(name, page):
    bm = adapter(name)
    with tools.Session(device=page.serial) as session:
        for target, device in ((page, False), (session, True)):
            got = rendered(name, bm.tools(target, groups=["all", "eval"]))
            want = [(d["name"], d["description"], d["parameters"])
                    for d in render.function_schemas(tools.TOOLS, "json", device=device)]
            for w in want:
                w[2].pop("$schema")
            assert got == want
            gated = rendered(name, bm.tools(target, groups="all"))  # eval must be named
            assert [n for n, _, _ in gated] == [n for n, _, _ in want if n != "eval"]
    core = rendered(name, bm.tools(page))
    assert [n for n, _, _ in core] == [t.name for t in tools.select()]


@pytest.mark.parametrize("name", FRAMEWORKS)
def test_bad_targets_and_groups_are_refused_when_the_tools_are_made(name, page):
    bm = adapter(name)
    with pytest.raises(InvalidArgument, match="unknown tool group"):
        bm.tools(page, groups=["aps"])
    with pytest.raises(InvalidArgument, match="needs a Page"):
        bm.tools("virtual")
    with pytest.raises(InvalidArgument, match="prefix"):
        bm.tools(page, prefix="android-")


def lc_call(lc_tools, name, args):
    (tool,) = [t for t in lc_tools if t.name == name]
    return tool.invoke({"type": "tool_call", "id": "c", "name": name, "args": args})


def test_options_reach_every_call(page, phone):
    bm = adapter("langchain")
    lc = bm.tools(page, observe=True, settle=0, prefix="android_", groups=["system"])
    msg = lc_call(lc, "android_tap", {"ref": 99})
    assert msg.status == "error" and "no snapshot yet" in msg.content
    lc_call(lc, "android_snapshot", {})
    msg = lc_call(lc, "android_tap", {"ref": 7})
    assert msg.artifact["tool"] == "tap"
    assert msg.artifact["package"] == "com.android.settings"  # observed after acting
    assert '"Network & internet"' in msg.content
    assert lc_call(lc, "android_device_info", {}).artifact["ok"]  # the system group
    assert [(e["x"], e["y"]) for e in phone.events.list("tap")] == [(660, 1970)]


def test_calls_made_together_run_one_at_a_time_in_order(page):
    """A model's parallel tool calls (frameworks run them concurrently) reach the device in
    the order they were made, none answering BUSY."""
    bm = adapter("langchain")
    by_name = {t.name: t for t in bm.tools(page)}

    async def together():
        return await asyncio.gather(
            by_name["snapshot"].ainvoke({}),
            by_name["tap"].ainvoke({"ref": 7}),
            by_name["wait_stable"].ainvoke({"timeout": 1}),
            by_name["find"].ainvoke({"selector": {"text": "Search Settings"}}),
        )

    first, tapped, settled, found = asyncio.run(together())
    assert '[ref=7] "Settings"' in first
    assert tapped.startswith("tapped ref 7")
    assert "- app com.android.settings" in settled
    assert '"count": 1' in found


def test_a_cancelled_call_frees_the_device_and_a_session_reconnects(phone, adb_key):
    bm = adapter("langchain")
    with tools.Session(device=phone.address, connect_options={"keys": [adb_key]}) as session:
        by_name = {t.name: t for t in bm.tools(session)}
        assert by_name["snapshot"].invoke({})
        first = session.page()

        async def give_up():
            wait = by_name["wait_for_text"].ainvoke({"text": "never shown", "timeout": 60})
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(wait, 0.5)

        started = time.monotonic()
        asyncio.run(give_up())
        again = by_name["snapshot"].invoke({})  # not BUSY: the waiting call was cancelled
        assert again.startswith("# 1080x2400 portrait")
        assert session.page() is first  # the same page, reconnected on its next call
        assert time.monotonic() - started < 30


def test_a_cancelled_call_leaves_a_bare_page_usable(page, phone):
    """Cancelling aborts the call's device I/O through its cancel token; the Page stays
    open and the next call reconnects."""
    bm = adapter("langchain")
    by_name = {t.name: t for t in bm.tools(page)}

    async def give_up():
        wait = by_name["wait_for_text"].ainvoke({"text": "never shown", "timeout": 60})
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(wait, 0.5)

    started = time.monotonic()
    asyncio.run(give_up())
    msg = by_name["snapshot"].invoke({"type": "tool_call", "id": "c", "name": "snapshot",
                                      "args": {}})
    assert msg.status == "success", msg.content
    assert msg.content.startswith("# 1080x2400 portrait")  # the screen: not BUSY
    assert time.monotonic() - started < 10  # the wait was aborted, not run to its 60 s


def test_importing_baremobile_imports_no_framework():
    code = (
        "import sys, baremobile, baremobile.tools, baremobile.integrations, "
        "baremobile.integrations.bridge, baremobile.pytest_plugin\n"
        "heavy = {'langchain', 'langchain_core', 'langgraph', 'pydantic_ai', 'agents', "
        "'openai', 'pydantic', 'xdist'}\n"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_a_dropped_tool_set_leaves_no_thread_behind(page):
    """Each tool set's worker thread ends when the tool set is garbage-collected."""
    import gc
    import threading

    bm = adapter("langchain")
    gc.collect()
    before = set(threading.enumerate())
    lc = bm.tools(page)
    assert lc[0].invoke({}).startswith("# 1080x2400 portrait")  # the snapshot tool ran
    (worker,) = [t for t in set(threading.enumerate()) - before
                 if t.name.startswith("baremobile-tools")]
    del lc
    gc.collect()
    worker.join(10)
    assert not worker.is_alive()
