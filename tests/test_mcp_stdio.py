"""``baremobile mcp`` as a subprocess, driven over stdio by the MCP SDK's own client.

The virtual phone runs in the test process; the server reaches it over TCP, and the
phone's event log shows what the device received.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

mcp = pytest.importorskip("mcp", reason="the MCP tests need the [mcp] extra")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

SETTINGS = "com.android.settings"


def server_env(**extra: str) -> dict[str, str]:
    """The test process's isolated environment for the server subprocess."""
    env = {k: os.environ[k] for k in ("PATH", "ANDROID_USER_HOME", "ANDROID_ADB_SERVER_PORT",
                                      "SYSTEMROOT", "HOME", "PYTHONPATH") if k in os.environ}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def run_stdio(args: list[str], body: Callable[[ClientSession], Awaitable[None]],
              errlog: Path) -> None:
    """Start ``baremobile mcp ARGS`` and run ``body`` with an initialized client session."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "baremobile", "mcp", *args], env=server_env())

    async def main() -> None:
        with errlog.open("w") as err:
            async with stdio_client(params, errlog=err) as (read, write), \
                    ClientSession(read, write) as session:
                with anyio.fail_after(60):
                    init = await session.initialize()
                    assert init.server_info.name == "baremobile"
                    await body(session)

    anyio.run(main)


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


def error_code(result: Any) -> str:
    assert result.is_error, text_of(result)
    code = result.structured_content["error"]["code"]
    assert text_of(result).startswith(f"error {code}: ")
    return code


def ok(result: Any) -> Any:
    assert not result.is_error, text_of(result)
    assert result.structured_content["ok"] is True
    return result


async def drive_device_flow(s: ClientSession, phone: Any) -> None:
    """snapshot, tap by ref and by selector, type, screenshot, a stale ref — checked against
    what the phone received."""
    r = ok(await s.call_tool("snapshot", {}))
    snap = text_of(r)
    assert "[ref=" in snap and '"Settings"' in snap
    assert r.structured_content["package"] == "com.google.android.apps.nexuslauncher"
    assert "snapshot" not in r.structured_content  # the text is not sent twice
    line = next(x for x in snap.splitlines() if '"Settings"' in x and "[ref=" in x)
    ref = int(line.split("[ref=")[1].split("]")[0])

    since = phone.events.last_seq
    r = ok(await s.call_tool("tap", {"ref": ref}))
    assert text_of(r).startswith(f"tapped ref {ref}")
    assert len(phone.events.list("tap", since=since)) == 1
    r = ok(await s.call_tool("snapshot", {}))
    assert r.structured_content["package"] == SETTINGS

    r = ok(await s.call_tool("tap", {"selector": {"text": "Search Settings"}}))
    r = ok(await s.call_tool("find", {"selector": {"role": "TextInput"}}))
    field = r.structured_content["matches"][0]["ref"]
    since = phone.events.last_seq
    ok(await s.call_tool("type", {"ref": field, "text": "wifi"}))
    assert [e["text"] for e in phone.events.list("text", since=since)] == ["wifi"]
    assert '"wifi"' in text_of(ok(await s.call_tool("snapshot", {})))

    r = ok(await s.call_tool("screenshot", {}))
    images = [c for c in r.content if c.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    png = base64.b64decode(images[0].data)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert r.structured_content["image"] == {"mime_type": "image/png", "width": 1080,
                                             "height": 2400}

    n = json.loads(text_of(ok(await s.call_tool("snapshot", {}))).splitlines()[0])["refs"]
    r = await s.call_tool("tap", {"ref": n + 10})
    assert error_code(r) == "REF_NOT_FOUND"
    assert "take a new snapshot" in text_of(r)
    r = await s.call_tool("tap", {"ref": "three"})
    assert error_code(r) == "INVALID_ARGUMENT" and "ref" in text_of(r)


def test_stdio_no_device_start_then_a_device(phone, tmp_path):
    async def body(s: ClientSession) -> None:
        listed = (await s.list_tools()).tools
        names = {t.name for t in listed}
        assert {"snapshot", "tap", "type", "press", "scroll", "swipe", "long_press", "launch",
                "open_url", "back", "home", "screenshot", "find", "wait_for_text",
                "wait_stable", "devices", "configure"} == names
        for t in listed:
            assert t.input_schema["type"] == "object" and t.description
            if t.name not in ("devices", "configure"):
                assert "device" in t.input_schema["properties"]
        snap_tool = next(t for t in listed if t.name == "snapshot")
        assert snap_tool.annotations.read_only_hint is True

        # no device yet: tools answer structured errors, the server stays up
        r = await s.call_tool("snapshot", {})
        assert error_code(r) == "NO_DEVICES"
        assert "hint:" in text_of(r)
        r = ok(await s.call_tool("devices", {}))
        assert r.structured_content["devices"] == []
        # a device per call …
        r = ok(await s.call_tool("snapshot", {"device": phone.address}))
        assert r.structured_content["device"] == phone.address
        # … or once for the session
        r = ok(await s.call_tool("configure", {"device": phone.address, "settle": 0}))
        assert r.structured_content["session"]["device"] == phone.address
        await drive_device_flow(s, phone)

    run_stdio([], body, tmp_path / "stderr.txt")


def test_stdio_options_prefix_groups_observe_and_log_file(phone, tmp_path):
    log_file = tmp_path / "mcp.log"

    async def body(s: ClientSession) -> None:
        names = {t.name for t in (await s.list_tools()).tools}
        assert "android_pixel_snapshot" in names and "android_pixel_logcat" in names
        assert "android_pixel_list_apps" not in names and "snapshot" not in names
        r = ok(await s.call_tool("android_pixel_launch", {"package": SETTINGS}))
        assert "Network & internet" in text_of(r)  # observed after acting
        assert r.structured_content["package"] == SETTINGS
        r = ok(await s.call_tool("android_pixel_logcat", {"lines": 5}))
        r = await s.call_tool("android_pixel_list_apps", {})
        assert error_code(r) == "UNKNOWN_TOOL"
        r = await s.call_tool("snapshot", {})
        assert error_code(r) == "UNKNOWN_TOOL"

    run_stdio(["--device", phone.address, "--slug", "pixel", "--groups", "logs", "--observe",
               "--settle", "0", "--log-file", str(log_file)], body, tmp_path / "stderr.txt")
    logged = log_file.read_text()
    assert "call android_pixel_launch" in logged and "connected to" in logged
