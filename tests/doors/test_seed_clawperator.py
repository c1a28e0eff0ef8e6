"""A clawperator MCP client, written from clawperator's MCP server document alone
(``shared/reference/clawperator-mcp-server.md``), run unchanged through the MCP SDK's stdio
client against ``baremobile mcp --vocabulary clawperator`` (issue 29).

It does what the document says a client does: lists the tools, finds its device with
``devices`` and names it with ``deviceId`` (or stores it with ``configure``), reads every
success as JSON in the text content (``structuredContent`` the same object), takes the
snapshot as XML, reads text, clicks, types, waits for an element, scrolls until one shows
up and runs ``execute`` payloads ``actions: [{id, type, params}]`` with the action types
and aliases the document points to; camelCase parameters throughout (``timeoutMs``,
``maxChars``, ``clickAfter``, ``deviceId``, ``validatorPattern``). What the phone saw is
checked beside each answer.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from baremobile import connect
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port

from .test_mcp_stdio import server_env

if TYPE_CHECKING:
    from mcp import ClientSession

pytestmark = pytest.mark.usefixtures("mcp_sdk")  # the MCP SDK, imported when a test runs

SETTINGS = "com.android.settings"
NOTES = "org.baremobile.notes"
EMAIL = f"{NOTES}:id/email"
OPERATOR = "com.clawperator.operator.dev"

#: the document's Tool Summary
TOOLS = {"devices", "snapshot", "execute", "configure", "open", "click", "type", "read",
         "press", "wait", "scroll_until"}


def run_clawperator(phones: list[VirtualPhone], body: Callable[[ClientSession],
                    Awaitable[None]], errlog: Path) -> None:
    """The server as an MCP desktop client starts it (command + args, an environment), with
    ``phones`` visible to adb discovery."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    env = server_env(BAREMOBILE_EMULATOR_PORTS=",".join(str(p.port) for p in phones))
    params = StdioServerParameters(command=sys.executable, env=env,
                                   args=["-m", "baremobile", "mcp", "--vocabulary",
                                         "clawperator"])

    async def main() -> None:
        with errlog.open("w") as err:
            async with stdio_client(params, errlog=err) as (read, write), \
                    ClientSession(read, write) as session:
                with anyio.fail_after(120):
                    await session.initialize()
                    await body(session)

    anyio.run(main)


def text(result: Any) -> str:
    return result.content[0].text


def payload(result: Any) -> Any:
    """"success responses serialize JSON in the text content and, for object payloads,
    also expose structuredContent"."""
    assert not result.is_error, text(result)
    data = json.loads(text(result))
    if isinstance(data, dict):
        assert result.structured_content == data
    return data


def failure(result: Any) -> dict[str, Any]:
    """"execution failures return isError: true", with a Clawperator error code."""
    assert result.is_error, text(result)
    data = json.loads(text(result))
    assert isinstance(data.get("code"), str) and data.get("message"), data
    return data


async def invalid_params(s: ClientSession, name: str, arguments: dict[str, Any]) -> str:
    """"the MCP boundary rejects them with InvalidParams"."""
    from mcp.shared.exceptions import MCPError

    with pytest.raises(MCPError) as caught:
        await s.call_tool(name, arguments)
    assert caught.value.error.code == -32602, caught.value.error
    return caught.value.error.message


def field_on_phone(phone: VirtualPhone, resource_id: str) -> str:
    xml = phone.model.screens.dump_xml().decode()
    node = re.search(rf'<node [^>]*resource-id="{re.escape(resource_id)}"[^>]*>', xml)
    assert node, f"no {resource_id} on the phone's screen"
    value = re.search(r' text="([^"]*)"', node.group(0)).group(1)
    hint = re.search(r' hint="([^"]*)"', node.group(0))
    return "" if hint and value == hint.group(1) else value


def test_clawperator_client_drives_the_phone(phone, tmp_path):
    async def body(s: ClientSession) -> None:
        names = {t.name for t in (await s.list_tools()).tools}
        assert names >= TOOLS, TOOLS - names

        listed = payload(await s.call_tool("devices", {}))
        device = next(d["serial"] for d in listed["devices"] if d["state"] == "device")
        stored = payload(await s.call_tool("configure", {"deviceId": device,
                                                         "timeoutMs": 15000}))
        assert stored == {"session": {"deviceId": device, "timeoutMs": 15000}}
        assert "timeoutMs" in await invalid_params(s, "configure", {"timeoutMs": 500})
        await invalid_params(s, "configure", {"deviceId": "  "})

        since = phone.events.last_seq
        payload(await s.call_tool("open", {"appId": SETTINGS, "deviceId": device,
                                           "operatorPackage": OPERATOR}))
        assert [e["package"] for e in phone.events.list("start", since=since)] == [SETTINGS]

        snap = payload(await s.call_tool("snapshot", {"deviceId": device, "maxChars": 2000,
                                                      "operatorPackage": OPERATOR}))
        assert snap["truncated"] is True and len(snap["snapshot"]) <= 2000
        assert "<node" in snap["snapshot"] and snap["deviceId"] == device
        assert "envelope" in snap and "terminalSource" in snap
        full = payload(await s.call_tool("snapshot", {}))
        assert "truncated" not in full
        assert 'text="Network &amp; internet"' in full["snapshot"]

        assert payload(await s.call_tool("read", {"selector": {"text": "Network & internet"},
                                                  "deviceId": device})) == \
            "Network & internet"
        every = payload(await s.call_tool("read", {"selector": {"textContains": "Wi"},
                                                   "all": True, "deviceId": device}))
        assert isinstance(every, list) and "Mobile, Wi-Fi, hotspot" in every
        assert payload(await s.call_tool("read", {
            "selector": {"textContains": "%"}, "validator": "regex",
            "validatorPattern": r"^\d+%$", "deviceId": device})) == "100%"

        since = phone.events.last_seq
        payload(await s.call_tool("click", {"selector": {"text": "Network & internet"},
                                            "deviceId": device}))
        tap = phone.events.list("tap", since=since)[-1]
        assert 640 <= tap["y"] <= 850  # the row of Network & internet
        payload(await s.call_tool("press", {"key": "back", "deviceId": device}))
        assert phone.events.list("key", since=since)[-1]["keycode"] == 4
        since = phone.events.last_seq
        payload(await s.call_tool("click", {"coordinate": {"x": 540, "y": 1180},
                                            "deviceId": device}))
        assert [(t["x"], t["y"]) for t in phone.events.list("tap", since=since)] == \
            [(540, 1180)]
        payload(await s.call_tool("press", {"key": "back"}))
        since = phone.events.last_seq
        payload(await s.call_tool("click", {"selector": {"text": "Apps"},
                                            "clickType": "long_click", "timeoutMs": 30000}))
        assert len(phone.events.list("long_press", since=since)) == 1
        for key, code in (("recents", 187), ("home", 3)):
            since = phone.events.last_seq
            payload(await s.call_tool("press", {"key": key, "timeoutMs": 10000}))
            assert [k["keycode"] for k in phone.events.list("key", since=since)] == [code]

        payload(await s.call_tool("open", {"appId": NOTES}))
        payload(await s.call_tool("type", {"selector": {"id": EMAIL}, "text": "ada@example.com",
                                           "clear": True, "deviceId": device}))
        assert field_on_phone(phone, EMAIL) == "ada@example.com"
        since = phone.events.last_seq
        payload(await s.call_tool("type", {"selector": {"id": EMAIL}, "text": "bob@example.com",
                                           "clear": True, "submit": True}))
        assert field_on_phone(phone, EMAIL) == "bob@example.com"
        assert phone.events.list("key", since=since)[-1]["keycode"] == 66

        payload(await s.call_tool("open", {"uri": "https://clawperator.com",
                                           "deviceId": device}))
        assert phone.events.list("start")[-1]["data"] == "https://clawperator.com"

        # scroll until "About phone" shows up in Settings (started afresh), then click it
        payload(await s.call_tool("execute", {"actions": [
            {"id": "quit", "type": "close_app", "params": {"applicationId": SETTINGS}}]}))
        payload(await s.call_tool("open", {"appId": SETTINGS}))
        assert payload(await s.call_tool("read", {"selector": {"text": "Settings"}})) == \
            "Settings"
        since = phone.events.last_seq
        payload(await s.call_tool("scroll_until", {"selector": {"text": "About phone"},
                                                   "direction": "down", "clickAfter": True,
                                                   "deviceId": device}))
        swipes = phone.events.list("swipe", since=since)
        assert swipes and all(sw["y2"] < sw["y1"] for sw in swipes)  # the finger goes up
        assert phone.events.list("tap", since=since)

    run_clawperator([phone], body, tmp_path / "mcp.log")


def test_clawperator_wait_waits_for_an_element(phone, tmp_path):
    """``wait`` "waits until a matching node appears": for ``timeoutMs`` milliseconds,
    looking again and again — not a sleep."""
    async def body(s: ClientSession) -> None:
        payload(await s.call_tool("press", {"key": "home"}))
        dumps = len(phone.events.list("dump"))

        def open_settings_later() -> None:
            time.sleep(1.5)
            with connect(phone.address) as other:
                other.launch(SETTINGS)

        opener = threading.Thread(target=open_settings_later)
        started = time.monotonic()
        opener.start()
        try:
            payload(await s.call_tool("wait", {"selector": {"text": "Network & internet"},
                                               "timeoutMs": 10000}))
        finally:
            opener.join(10)
        waited = time.monotonic() - started
        assert 1.5 <= waited < 10, waited
        assert len(phone.events.list("dump")) - dumps >= 2  # it looked, and looked again

        started, dumps = time.monotonic(), len(phone.events.list("dump"))
        missing = failure(await s.call_tool("wait", {"selector": {"text": "Nothing like it"},
                                                     "timeoutMs": 1500}))
        # it looked for the whole wait (its last look may start up to one poll before the
        # end: 0.15 s here), again and again
        assert 1.3 <= time.monotonic() - started < 30
        assert len(phone.events.list("dump")) - dumps >= 3
        assert missing["code"] == "TIMEOUT"

    run_clawperator([phone], body, tmp_path / "mcp.log")


def test_clawperator_execute_payloads(phone, tmp_path):
    async def body(s: ClientSession) -> None:
        device = payload(await s.call_tool("devices", {}))["devices"][0]["serial"]
        since = phone.events.last_seq
        done = payload(await s.call_tool("execute", {
            "deviceId": device, "operatorPackage": OPERATOR, "timeoutMs": 60000,
            "actions": [
                {"id": "open", "type": "open_app", "params": {"applicationId": SETTINGS}},
                {"id": "nap", "type": "sleep", "params": {"durationMs": 300}},
                {"id": "seen", "type": "wait_for", "params": {
                    "matcher": {"textEquals": "Battery"}, "timeoutMs": 5000}},
                {"id": "label", "type": "read", "params": {"matcher": {"textEquals": "100%"}}},
                {"id": "go", "type": "tap", "params": {"matcher": {"textContains": "battery"}}},
                {"id": "back", "type": "key_press", "params": {"key": "back"}},
                {"id": "look", "type": "snapshot"},
                {"id": "down", "type": "scroll", "params": {"direction": "down"}},
                {"id": "find", "type": "scroll_until", "params": {
                    "matcher": {"textEquals": "About phone"}, "direction": "down"}},
                {"id": "quit", "type": "close_app", "params": {"applicationId": SETTINGS}},
            ]}))
        assert done["deviceId"] == device and "envelope" in done
        assert [e["package"] for e in phone.events.list("start", since=since)] == [SETTINGS]
        assert phone.events.list("tap", since=since)
        assert [k["keycode"] for k in phone.events.list("key", since=since)] == [4]
        assert phone.events.list("swipe", since=since)
        assert ["am", "force-stop", SETTINGS] in phone.events.commands(since=since)

        typed = payload(await s.call_tool("execute", {"actions": [
            {"id": "o", "type": "open_app", "params": {"applicationId": NOTES}},
            {"id": "t", "type": "type_text", "params": {
                "matcher": {"resourceId": EMAIL}, "text": "eve@example.com"}},
            {"id": "k", "type": "press_key", "params": {"key": "home"}},
        ]}))
        assert "envelope" in typed
        assert phone.events.list("text")[-1]["text"] == "eve@example.com"

        bad = failure(await s.call_tool("execute", {"actions": [
            {"id": "x", "type": "teleport", "params": {}}]}))
        assert bad["code"] == "EXECUTION_VALIDATION_FAILED"
        shot = await s.call_tool("execute", {"actions": [
            {"id": "s", "type": "take_screenshot", "params": {"path": "/tmp/x.png"}}]})
        assert failure(shot)["code"] == "EXECUTION_VALIDATION_FAILED"
        await invalid_params(s, "execute", {"actions": [{"type": "sleep"}]})  # no id
        await invalid_params(s, "snapshot", {"operatorPackage": ""})

    run_clawperator([phone], body, tmp_path / "mcp.log")


def test_clawperator_with_two_devices_asks_which(phone, tmp_path):
    with VirtualPhone(port=free_port()) as other:
        async def body(s: ClientSession) -> None:
            listed = payload(await s.call_tool("devices", {}))["devices"]
            serials = sorted(d["serial"] for d in listed if d["state"] == "device")
            assert serials == sorted([phone.address, other.address])
            assert failure(await s.call_tool("snapshot", {}))["code"] == \
                "MULTIPLE_DEVICES_DEVICE_ID_REQUIRED"
            since = other.events.last_seq
            payload(await s.call_tool("press", {"key": "home", "deviceId": other.address}))
            assert [k["keycode"] for k in other.events.list("key", since=since)] == [3]
            assert phone.events.list("key") == []

        run_clawperator([phone, other], body, tmp_path / "mcp.log")


@pytest.mark.fast
def test_clawperator_words_at_every_door(phone):
    """Without its door, its tools and camelCase parameters are still taken (our answers):
    ``deviceId`` and ``timeoutMs`` on a tool that has no ``device``/``timeout`` property of
    its own were refused as unknown parameters."""
    from baremobile import tools

    with tools.Session() as s:
        def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
            r = tools.call(s, name, args, groups=["batch", "apps"])
            assert r["ok"], r
            return r

        since = phone.events.last_seq
        call("open", {"appId": SETTINGS, "deviceId": phone.address, "timeoutMs": 15000,
                      "operatorPackage": OPERATOR})
        assert [e["package"] for e in phone.events.list("start", since=since)] == [SETTINGS]
        call("click", {"selector": {"text": "Battery"}, "deviceId": phone.address,
                       "timeoutMs": 30000})
        assert phone.events.list("tap", since=since)
        call("press", {"key": "back", "deviceId": phone.address, "timeoutMs": 10000})
        waited = call("wait", {"selector": {"text": "Battery"}, "timeoutMs": 5000,
                               "deviceId": phone.address})
        assert waited["tool"] == "wait_for" and waited["found"] is True
        snap = call("snapshot", {"maxChars": 300, "deviceId": phone.address})
        assert snap["tool"] == "snapshot" and snap["truncated"] is True  # ours, cut
        batch = call("execute", {"deviceId": phone.address, "actions": [
            {"id": "k", "type": "key_press", "params": {"key": "home"}}]})
        assert batch["envelope"]["status"] == "success" and batch["completed"] == 1
        assert phone.events.list("key")[-1]["keycode"] == 3
        bad = tools.call(s, "click", {"selector": {"text": "Battery"}, "timeoutMs": 5})
        assert bad["error"]["code"] == "INVALID_ARGUMENT" and "timeoutMs" in \
            bad["error"]["message"]
