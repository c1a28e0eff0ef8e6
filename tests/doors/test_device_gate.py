"""One gate for every door (issue 28, item 1): every way a client names a device — a tool's
``device`` argument, ``configure``'s default, a resource URI, an ``ide/*`` ``deviceId``,
``daemon/openSession`` — passes the same authorization (``Session.check_allowed``): a device
outside the operator's allow-list, or a scenario file the operator did not allow, is refused
as ``NOT_ALLOWED`` and its screen is never read."""

from __future__ import annotations

import sys
import urllib.parse
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest

from baremobile import tools
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.daemon_helpers import RawClient, ok, running_daemon

pytestmark = pytest.mark.usefixtures("mcp_sdk")  # the MCP SDK, imported when a test runs


@pytest.fixture
def two_phones() -> Any:
    with VirtualPhone(port=free_port()) as a, VirtualPhone(port=free_port()) as b:
        yield a, b


def _uri(device: str, kind: str = "snapshot") -> str:
    return f"baremobile://device/{urllib.parse.quote(device, safe='')}/{kind}"


def _scenario(tmp_path: Path) -> str:
    path = tmp_path / "host-secret.yaml"
    path.write_text("name: a host file\n")
    return f"virtual:{path}"


def test_the_standalone_server_asks_the_gate_at_every_door(two_phones, tmp_path):
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    from baremobile.tools.mcp_server import build_server

    a, b = two_phones
    scenario = _scenario(tmp_path)
    session = tools.Session(a.address, allow_devices=[a.address])

    async def main() -> None:
        async with Client(build_server(session, groups=["all"])) as client:
            for args in ({"device": b.address}, {"device": scenario}):
                r = await client.call_tool("snapshot", args)
                assert r.is_error and r.structured_content["error"]["code"] == "NOT_ALLOWED"
            r = await client.call_tool("configure", {"device": b.address})
            assert r.structured_content["error"]["code"] == "NOT_ALLOWED"
            for uri in (_uri(b.address), _uri(b.address, "screenshot"), _uri(b.address, "info"),
                        _uri(scenario)):
                with pytest.raises(MCPError, match="NOT_ALLOWED"):
                    await client.read_resource(uri)
            assert not (await client.call_tool("snapshot", {})).is_error  # its own device

    anyio.run(main)
    session.close()
    assert not b.events.list("dump"), "the other phone's screen was read"


def test_the_daemon_asks_the_gate_at_every_door(two_phones, tmp_path, daemon_socket):
    a, b = two_phones
    scenario = _scenario(tmp_path)
    limits = {"allowDevices": [a.address], "allowScenarios": False}
    with running_daemon(daemon_socket, devices=[a.address, b.address]):
        c = RawClient(daemon_socket)
        try:
            refused = []
            for name in (b.address, scenario):
                refused += [
                    c.call("tools/call", {"name": "snapshot", "arguments": {"device": name},
                                          "session": "s", **limits}),
                    c.call("tools/call", {"name": "configure", "arguments": {"device": name},
                                          "session": "s", "groups": ["session"], **limits}),
                    c.call("resources/read", {"uri": _uri(name), **limits}),
                    c.call("ide/setKeyValue", {"deviceId": name, "appId": "com.example.notes",
                                               "fileName": "prefs", "key": "k", "value": "v",
                                               "type": "STRING", **limits}),
                    c.call("daemon/openSession", {"sessionId": "t", "device": name, **limits}),
                ]
            for answer in refused:
                assert not answer["success"] and answer["code"] == "NOT_ALLOWED", answer
            listed = c.call("resources/list", limits)["result"]["resources"]
            assert not [r for r in listed if urllib.parse.quote(b.address, safe="") in r["uri"]]
            # the allowed phone still works at the same doors
            got = c.call("resources/read", {"uri": _uri(a.address), **limits})
            assert got["success"], got
            free = c.call("daemon/openSession", {"sessionId": "u", **limits})
            assert free["success"] and free["result"]["assignedDevice"] == a.address, free
        finally:
            c.close()
    assert not b.events.list("dump"), "the other phone's screen was read"


def test_mcp_daemon_passes_its_operators_limits_with_resources(two_phones, tmp_path,
                                                               daemon_socket):
    from mcp.shared.exceptions import MCPError

    from tests.doors.test_daemon_mcp import proxy

    a, b = two_phones
    ok("daemon", "start", "--device", a.address, "--device", b.address)
    scenario = _scenario(tmp_path)

    async def main() -> None:
        with anyio.fail_after(120):
            async with AsyncExitStack() as stack:
                client = await proxy(stack, tmp_path / "proxy.log", "--device", a.address,
                                     "--allow-device", a.address)
                for uri in (_uri(b.address), _uri(scenario)):
                    with pytest.raises(MCPError, match="NOT_ALLOWED"):
                        await client.read_resource(uri)
                listed = (await client.list_resources()).resources
                assert not [r for r in listed if b.address in r.name]

    anyio.run(main)
    assert not b.events.list("dump"), "the other phone's screen was read"
    assert sys.executable  # (the proxy runs this interpreter)
