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
from typing import TYPE_CHECKING, Any

import anyio
import pytest

if TYPE_CHECKING:
    from mcp import ClientSession

pytestmark = pytest.mark.usefixtures("mcp_sdk")  # the MCP SDK, imported when a test runs

SETTINGS = "com.android.settings"


def server_env(**extra: str) -> dict[str, str]:
    """The test process's isolated environment for the server subprocess."""
    env = {k: os.environ[k] for k in ("PATH", "ANDROID_USER_HOME", "ANDROID_ADB_SERVER_PORT",
                                      "BAREMOBILE_EMULATOR_PORTS", "SYSTEMROOT", "HOME",
                                      "PYTHONPATH") if k in os.environ}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def run_stdio(args: list[str], body: Callable[[ClientSession], Awaitable[None]],
              errlog: Path) -> None:
    """Start ``baremobile mcp ARGS`` and run ``body`` with an initialized client session."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

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

    r = ok(await s.call_tool("screenshot", {}))  # sized for a model: JPEG, 1024 px
    images = [c for c in r.content if c.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/jpeg"
    assert base64.b64decode(images[0].data).startswith(b"\xff\xd8\xff")
    assert r.structured_content["image"] == {"mime_type": "image/jpeg", "width": 461,
                                             "height": 1024}
    assert r.structured_content["screen"] == {"width": 1080, "height": 2400}
    r = ok(await s.call_tool("screenshot", {"format": "png", "max_side": 4000}))
    images = [c for c in r.content if c.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    png = base64.b64decode(images[0].data)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert r.structured_content["image"] == {"mime_type": "image/png", "width": 1080,
                                             "height": 2400}

    ok(await s.call_tool("snapshot", {}))
    r = await s.call_tool("tap", {"ref": 10_000})  # refs are never renumbered: never given
    assert error_code(r) == "REF_NOT_FOUND"
    assert "take a new snapshot" in text_of(r)
    r = await s.call_tool("tap", {"ref": "three"})
    assert error_code(r) == "INVALID_ARGUMENT" and "ref" in text_of(r)


@pytest.mark.fast
def test_stdio_no_device_start_then_a_device(phone, tmp_path):
    async def body(s: ClientSession) -> None:
        listed = (await s.list_tools()).tools
        names = {t.name for t in listed}
        assert {"snapshot", "tap", "type", "press", "scroll", "swipe", "long_press", "launch",
                "open_url", "back", "home", "screenshot", "find", "wait_for_text",
                "wait_stable", "devices", "configure", "wait_for", "scroll_until",
                "read", "wait"} == names
        for t in listed:
            assert t.input_schema["type"] == "object" and t.description
        # device: accepted by every device tool, shown where a model chooses it
        assert "device" in next(t for t in listed if t.name == "configure").input_schema[
            "properties"]
        assert "device=SERIAL to any tool" in next(t for t in listed
                                                   if t.name == "devices").description
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


def test_stdio_cancelled_call_frees_the_device(phone, tmp_path):
    """A client cancels a long wait_for_text: the server abandons it and closes the page it
    held, so the next call gets the device at once (instead of BUSY until the wait ends)."""
    import time

    async def body(s: ClientSession) -> None:
        ok(await s.call_tool("snapshot", {}))
        started = time.monotonic()
        with anyio.move_on_after(1.0) as scope:
            await s.call_tool("wait_for_text", {"text": "never shown", "timeout": 60})
        assert scope.cancelled_caught
        r = ok(await s.call_tool("snapshot", {}))  # reconnected: not BUSY
        assert r.structured_content["device"] == phone.address
        assert time.monotonic() - started < 10

    log_file = tmp_path / "mcp.log"
    run_stdio(["--device", phone.address, "--log-file", str(log_file)], body,
              tmp_path / "stderr.txt")
    assert "cancelled: aborted its device I/O" in log_file.read_text()


def test_stdio_shutdown_does_not_wait_for_a_long_call(phone):
    """stdin closes while wait_for_text (60 s) runs: the server exits within seconds."""
    import subprocess
    import time

    proc = subprocess.Popen([sys.executable, "-m", "baremobile", "mcp", "--device",
                             phone.address], env=server_env(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict) -> None:
        proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "0"}}})
        assert b'"id":1' in proc.stdout.readline()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "wait_for_text",
                         "arguments": {"text": "never shown", "timeout": 60}}})
        assert phone.events.wait_for("dump", timeout=20)  # the wait polls the screen
        time.sleep(0.5)
        started = time.monotonic()
        proc.stdin.close()
        proc.wait(15)
        assert time.monotonic() - started < 10
    finally:
        if proc.poll() is None:  # pragma: no cover - a hung server
            proc.kill()
            proc.wait(5)
        proc.stdout.close()


def test_stdio_text_payloads_are_plain_text_and_not_repeated(phone, tmp_path):
    """read_file / logcat: the content reaches the model as plain lines, once, and cut."""
    content = "".join(f"line {i}: {'x' * 60}\n" for i in range(4000))  # ~280 KB

    async def body(s: ClientSession) -> None:
        listed = {t.name: t for t in (await s.list_tools()).tools}
        for name in ("push_file", "pull_file", "install_app", "write_file", "clear_app_data"):
            assert listed[name].annotations.destructive_hint is True, name
        assert listed["open_url"].annotations.open_world_hint is True
        assert listed["tap"].annotations.open_world_hint is False
        logcat = listed["logcat"]
        assert logcat.annotations.read_only_hint is True
        assert "pattern" not in logcat.input_schema["properties"]["tag"]  # enforced, not shown
        r = await s.call_tool("logcat", {"tag": "-c"})
        assert error_code(r) == "INVALID_ARGUMENT" and "tag" in text_of(r)

        ok(await s.call_tool("write_file", {"path": "/sdcard/big.txt", "text": content}))
        r = ok(await s.call_tool("read_file", {"path": "/sdcard/big.txt"}))
        text = text_of(r)
        assert "text" not in r.structured_content and "base64" not in r.structured_content
        assert r.structured_content["size"] == len(content)
        assert r.structured_content["truncated"] is True
        assert "line 0: xxx" in text and "\\n" not in text and len(text) < 25_000
        assert "max_bytes" in r.structured_content["note"]
        r = ok(await s.call_tool("read_file", {"path": "/sdcard/big.txt",
                                               "max_bytes": 1_000_000}))
        assert text_of(r).endswith(content.rstrip("\n")) or content in text_of(r)
        assert len(json.dumps(r.structured_content)) < 1000  # facts only

        r = ok(await s.call_tool("logcat", {"lines": 50}))
        assert "log" not in r.structured_content and len(text_of(r).splitlines()) > 2

        r = await s.call_tool("pull_file", {"path": "/sdcard/big.txt",
                                            "local_path": "/etc/passwd"})
        assert error_code(r) == "NOT_ALLOWED"
        ok(await s.call_tool("pull_file", {"path": "/sdcard/big.txt", "local_path": "big.txt"}))
        assert (tmp_path / "files" / "big.txt").read_text() == content

    (tmp_path / "files").mkdir(exist_ok=True)
    run_stdio(["--device", phone.address, "--groups", "all", "--files-dir",
               str(tmp_path / "files")], body, tmp_path / "stderr.txt")


def test_stdio_operator_limits(phone, tmp_path):
    """--allow-device limits the specs calls may name; virtual:FILE needs --allow-scenarios;
    without --files-dir the host-file tools are refused."""
    async def body(s: ClientSession) -> None:
        r = await s.call_tool("snapshot", {"device": "127.0.0.1:1"})
        assert error_code(r) == "NOT_ALLOWED"
        assert r.structured_content["error"]["category"] == "INVALID_ARGUMENT"
        r = await s.call_tool("configure", {"device": "virtual:/etc/passwd"})
        assert error_code(r) == "NOT_ALLOWED" and "root:" not in text_of(r)
        ok(await s.call_tool("snapshot", {"device": phone.address}))
        r = await s.call_tool("push_file", {"local_path": "/etc/passwd", "path": "/sdcard/p"})
        assert error_code(r) == "NOT_ALLOWED" and "--files-dir" in text_of(r)

    run_stdio(["--allow-device", phone.address, "--groups", "files"], body,
              tmp_path / "stderr.txt")


def test_stdio_log_file_is_private_and_never_holds_typed_text(phone, tmp_path):
    """--log-file: created 0600 (an existing one made 0600); typed text (a password) is
    logged as its length only; --log-typed-text is the operator's explicit opt-in."""
    log_file = tmp_path / "mcp.log"
    log_file.write_text("an older run\n")
    os.chmod(log_file, 0o644)
    secret = "hunter2-Secret!"

    async def body(s: ClientSession) -> None:
        ok(await s.call_tool("launch", {"package": "com.google.android.apps.messaging"}))
        ok(await s.call_tool("tap", {"selector": {"text": "Alex Kim"}}))
        ok(await s.call_tool("type", {"selector": {"role": "TextInput"}, "text": secret}))

    run_stdio(["--device", phone.address, "--log-file", str(log_file)], body,
              tmp_path / "stderr.txt")
    logged = log_file.read_text()
    assert "call type" in logged and f"<{len(secret)} characters>" in logged
    assert secret not in logged and secret not in (tmp_path / "stderr.txt").read_text()
    assert logged.startswith("an older run\n")
    assert (log_file.stat().st_mode & 0o777) == 0o600
    fresh = tmp_path / "fresh.log"
    run_stdio(["--device", phone.address, "--log-file", str(fresh), "--log-typed-text"], body,
              tmp_path / "stderr2.txt")
    assert (fresh.stat().st_mode & 0o777) == 0o600 and secret in fresh.read_text()


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_stdio_on_a_terminal_says_it_waits_and_ctrl_c_stops_it(tmp_path):
    """issue 15 item 18: stdin is a terminal; the server says so on stderr, answers an
    initialize typed there, and SIGINT (Ctrl-C) ends it at once with status 0."""
    import pty
    import signal
    import subprocess
    import time

    master, slave = pty.openpty()
    err = (tmp_path / "stderr.txt").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "baremobile", "mcp"], env=server_env(),
                            stdin=slave, stdout=subprocess.PIPE, stderr=err,
                            start_new_session=True)
    os.close(slave)
    try:
        deadline = time.monotonic() + 30
        while b"waiting for an MCP client" not in (tmp_path / "stderr.txt").read_bytes():
            assert time.monotonic() < deadline and proc.poll() is None, "no notice"
            time.sleep(0.05)
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "tty", "version": "0"}}}
        os.write(master, (json.dumps(init) + "\n").encode())
        assert proc.stdout is not None
        reply = json.loads(proc.stdout.readline())
        assert reply["id"] == 1 and reply["result"]["serverInfo"]["name"] == "baremobile"
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(10) == 0
        assert time.monotonic() - t0 < 5
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
        err.close()
        assert proc.stdout is not None
        proc.stdout.close()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_ends_the_server_even_when_something_holds_the_exit_up():
    """On a terminal, Ctrl-C unwinds as usual, and a timer ends the process (status 0) if
    anything — here a worker thread in a minute-long blocking call — holds the exit up."""
    import signal
    import subprocess
    import time

    code = ("import threading, time; from baremobile.tools.mcp_server import _stop_within; "
            "_stop_within(0.5); threading.Thread(target=time.sleep, args=(60,)).start(); "
            "print('ready', flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code], env=server_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
        assert time.monotonic() - t0 < 20  # the blocked thread alone would hold it 60 s
    finally:
        proc.kill()
        proc.wait()
