"""``baremobile mcp --daemon``: MCP servers as clients of the session daemon, driven by the
MCP SDK's own client, sharing one pool (and one BUSY rule) with each other and the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.daemon_helpers import cli, cli_env, ok

if TYPE_CHECKING:
    from mcp import ClientSession

pytestmark = pytest.mark.usefixtures("mcp_sdk")  # the MCP SDK, imported when a test runs


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


async def proxy(stack: AsyncExitStack, errlog: Path, *args: str) -> ClientSession:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "baremobile", "mcp", "--daemon", *args],
                                   env=cli_env())
    err = stack.enter_context(errlog.open("w"))
    read, write = await stack.enter_async_context(stdio_client(params, errlog=err))
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


def test_mcp_servers_and_the_cli_share_one_pool(tmp_path: Path, daemon_socket: str):
    with VirtualPhone(port=free_port()) as a, VirtualPhone(port=free_port()) as b:
        ok("daemon", "start", "--device", a.address, "--device", b.address)

        async def main() -> None:
            with anyio.fail_after(120):
                async with AsyncExitStack() as stack:
                    one = await proxy(stack, tmp_path / "one.log", "--device", a.address)
                    two = await proxy(stack, tmp_path / "two.log")  # takes a free device
                    names = {t.name for t in (await one.list_tools()).tools}
                    assert {"snapshot", "tap", "configure"} <= names
                    r1 = await one.call_tool("press", {"key": "back"})
                    assert not r1.is_error, text_of(r1)
                    assert r1.structured_content["device"] == a.address
                    r2 = await two.call_tool("snapshot", {})
                    assert not r2.is_error and "[ref=" in text_of(r2)
                    assert r2.structured_content["device"] == b.address
                    # both devices are held: the CLI gets a clear error, not a shared phone
                    r = cli("open", cwd=tmp_path)
                    assert r.returncode == 4 and "NO_FREE_DEVICE" in r.stderr
                    r = cli("open", "-d", a.address, cwd=tmp_path)
                    assert r.returncode == 4 and "DEVICE_ASSIGNED" in r.stderr
                    # a stale ref through MCP: the same error data as everywhere
                    r3 = await two.call_tool("tap", {"ref": 999})
                    assert r3.is_error and r3.structured_content["error"]["code"] == \
                        "REF_NOT_FOUND"

        anyio.run(main)
        assert [e["keycode"] for e in a.events.list("key")] == [4]
        assert b.events.list("dump")
        # the servers exited: their private sessions were released, the devices are free
        status = cli("daemon", "status", "--json")
        assert '"idle": 2' in status.stdout, status.stdout


def test_one_session_shared_by_mcp_and_the_cli_obeys_busy(phone: VirtualPhone, tmp_path: Path):
    ok("open", "-d", phone.address, "--session", "shared", cwd=tmp_path)
    ok("configure", "--busy-wait", "0", "--session", "shared", cwd=tmp_path)

    async def main() -> None:
        with anyio.fail_after(120):
            async with AsyncExitStack() as stack:
                s = await proxy(stack, tmp_path / "mcp.log", "--session", "shared")
                r = await s.call_tool("press", {"key": "home"})
                assert not r.is_error, text_of(r)
                phone.faults.add("stall", service="shell", count=1)  # the next command hangs
                held = subprocess.Popen(
                    [sys.executable, "-m", "baremobile", "press", "back", "--session",
                     "shared", "--timeout-ms", "4000"], cwd=tmp_path, env=cli_env(),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                try:
                    deadline = time.monotonic() + 30
                    while '"inFlight": 1' not in cli("session", "--session", "shared",
                                                     "--json").stdout:
                        assert time.monotonic() < deadline, "the CLI's call never started"
                        await anyio.sleep(0.05)
                    busy = await s.call_tool("press", {"key": "enter"})
                    assert busy.is_error, text_of(busy)
                    assert busy.structured_content["error"]["code"] == "BUSY"
                finally:
                    out, err = held.communicate(timeout=60)
                assert held.returncode == 5 and "TIMEOUT" in err, err

    anyio.run(main)
    assert [e["keycode"] for e in phone.events.list("key")][:1] == [3]


def test_a_cancelled_mcp_call_is_cancelled_in_the_daemon(phone: VirtualPhone, tmp_path: Path,
                                                        daemon_socket: str):
    ok("open", "-d", phone.address, "--session", "w", cwd=tmp_path)

    async def main() -> None:
        with anyio.fail_after(120):
            async with AsyncExitStack() as stack:
                s = await proxy(stack, tmp_path / "mcp.log", "--session", "w")
                with anyio.move_on_after(1.5) as scope:
                    await s.call_tool("wait_for_text", {"text": "never shown", "timeout": 60})
                assert scope.cancelled_caught
                deadline = time.monotonic() + 15
                running = None
                while time.monotonic() < deadline:
                    running = cli("daemon", "status", "--json").stdout
                    if '"requestsInFlight": 0' in running:
                        break
                    await anyio.sleep(0.1)
                assert '"requestsInFlight": 0' in (running or ""), running

    anyio.run(main)
    dumps = len(phone.events.list("dump"))
    time.sleep(1.0)
    assert len(phone.events.list("dump")) <= dumps + 1
    assert os.path.exists(daemon_socket)
