"""A client written from AutoMobile's seed document alone works against our daemon unchanged
(issue 29).

``SeedClient`` below knows only what ``shared/reference/automobile-daemon-socket-api.md``
says — the socket path (``$AUTOMOBILE_DAEMON_SOCKET_PATH``, ``$AUTO_MOBILE_DAEMON_SOCKET_PATH``,
``/tmp/auto-mobile-daemon-<uid>.sock``), the envelope ``{id, type, method, params,
timeoutMs}`` → ``{id, type: "mcp_response", success, result | error}``, the methods and their
shapes — and AutoMobile's MCP tools as its clients call them (``tapOn {action, text,
platform, sessionUuid}`` …; ``notes/seed-clients.md`` §A.5). It runs the flow a user of that
system runs, against a daemon with its AutoMobile endpoint open, and each step checks what
the virtual phone saw. The MCP SDK's types referee the MCP shapes; ``jsonschema`` checks a
structured result against the output schema ``tools/list`` gave.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baremobile.daemon.errors import DaemonError
from baremobile.daemon.hub import Hub
from baremobile.daemon.pool import Pool
from baremobile.errors import MultipleDevices
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.daemon_helpers import RawClient, cli, cli_env, ok, running_daemon, wait_until

#: the referees, imported by :func:`referees` when a test of this file runs (``mcp`` costs
#: ~1 s to import: collecting the file does not pay it)
mcp_types: Any = None
jsonschema: Any = None


@pytest.fixture(autouse=True, scope="module")
def referees() -> None:
    """The MCP SDK's types and ``jsonschema``; the file's tests skip, saying why, where
    either is absent."""
    global mcp_types, jsonschema
    mcp_types = pytest.importorskip("mcp.types", reason="the MCP SDK's types referee the shapes")
    jsonschema = pytest.importorskip("jsonschema")

NOTES = "org.baremobile.notes"  # the demo's debuggable app
SETTINGS = "com.android.settings"


class SeedClient:
    """An AutoMobile socket client, from the seed document only."""

    def __init__(self, timeout: float = 120) -> None:
        path = (os.environ.get("AUTOMOBILE_DAEMON_SOCKET_PATH")
                or os.environ.get("AUTO_MOBILE_DAEMON_SOCKET_PATH")
                or f"/tmp/auto-mobile-daemon-{os.getuid()}.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""
        self.n = 0

    def send(self, method: str, params: dict[str, Any] | None = None, *,
             kind: str = "mcp_request", timeout_ms: int | None = None) -> str:
        self.n += 1
        rid = f"seed-{self.n}"
        message: dict[str, Any] = {"id": rid, "type": kind, "method": method,
                                   "params": params if params is not None else {}}
        if timeout_ms is not None:
            message["timeoutMs"] = timeout_ms
        self.sock.sendall(json.dumps(message).encode() + b"\n")
        return rid

    def read(self) -> dict[str, Any]:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(1 << 20)
            assert chunk, "the daemon hung up"
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        response = json.loads(line)
        assert response["type"] == "mcp_response" and isinstance(response["success"], bool)
        if response["success"]:
            assert "result" in response and "error" not in response
        else:
            assert isinstance(response["error"], str) and "result" not in response
        return response

    def request(self, method: str, params: dict[str, Any] | None = None, **kw: Any
                ) -> dict[str, Any]:
        rid = self.send(method, params, **kw)
        response = self.read()
        assert response["id"] == rid, response
        return response

    def ok(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> Any:
        response = self.request(method, params, **kw)
        assert response["success"], response
        return response["result"]

    def tool(self, name: str, arguments: dict[str, Any], **kw: Any) -> dict[str, Any]:
        """``tools/call``: the payload of its ``CallToolResult`` (structuredContent, else
        the JSON in content[0].text), as AutoMobile's clients read it."""
        result = mcp_types.CallToolResult.model_validate(
            self.ok("tools/call", {"name": name, "arguments": arguments}, **kw))
        payload = json.loads(result.content[0].text)
        if result.structured_content is not None:
            assert result.structured_content == payload
        return payload

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def seed_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """AutoMobile's socket and pid file for this test, named as AutoMobile's clients name
    them (its environment variables), in a private directory."""
    directory = Path(os.environ.get("TMPDIR", "/tmp")) / f"am{os.getpid()}-{time.monotonic_ns()}"
    directory.mkdir(mode=0o700)
    sock, pid = str(directory / "am.sock"), str(directory / "am.pid")
    monkeypatch.setenv("AUTOMOBILE_DAEMON_SOCKET_PATH", sock)
    monkeypatch.setenv("AUTOMOBILE_DAEMON_PID_FILE_PATH", pid)
    for name in ("AUTO_MOBILE_DAEMON_SOCKET_PATH", "AUTO_MOBILE_DAEMON_PID_FILE_PATH",
                 "AUTOMOBILE_OPEN_LINK_MCP_TIMEOUT_MS", "AUTO_MOBILE_OPEN_LINK_MCP_TIMEOUT_MS"):
        monkeypatch.delenv(name, raising=False)
    yield sock, pid
    for p in (sock, pid):
        with __import__("contextlib").suppress(FileNotFoundError):
            os.unlink(p)
    with __import__("contextlib").suppress(OSError):
        directory.rmdir()


def _endpoint() -> Any:
    """AutoMobile's endpoint, as ``daemon start --automobile`` opens it (imported here: on a
    daemon without it every test below fails on its own, not the module)."""
    from baremobile.daemon.automobile import Endpoint

    return Endpoint()


def _schemas(c: SeedClient) -> dict[str, dict[str, Any]]:
    listed = mcp_types.ListToolsResult.model_validate(c.ok("tools/list"))
    return {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools}


def _tapped_at(phone: VirtualPhone, since: int) -> list[list[str]]:
    return [c for c in phone.events.commands(since=since) if c[:2] == ["input", "tap"]]


# -- the endpoint ---------------------------------------------------------------------------


def test_the_seed_paths_are_honoured(monkeypatch: pytest.MonkeyPatch):
    from baremobile.daemon import automobile

    for name in (*automobile.ENV_SOCKET, *automobile.ENV_PID):
        monkeypatch.delenv(name, raising=False)
    uid = os.getuid()
    assert automobile.socket_path() == f"/tmp/auto-mobile-daemon-{uid}.sock"
    assert automobile.pid_path() == f"/tmp/auto-mobile-daemon-{uid}.pid"
    monkeypatch.setenv("AUTO_MOBILE_DAEMON_SOCKET_PATH", "/tmp/legacy.sock")
    assert automobile.socket_path() == "/tmp/legacy.sock"
    monkeypatch.setenv("AUTOMOBILE_DAEMON_SOCKET_PATH", "/tmp/first.sock")
    assert automobile.socket_path() == "/tmp/first.sock"  # the first variable wins
    monkeypatch.setenv("AUTO_MOBILE_DAEMON_PID_FILE_PATH", "/tmp/legacy.pid")
    assert automobile.pid_path() == "/tmp/legacy.pid"


def test_the_endpoint_listens_where_the_seed_client_connects(
        phone: VirtualPhone, daemon_socket: str, seed_env: tuple[str, str]):
    sock, pid = seed_env
    with running_daemon(daemon_socket, devices=[phone.address],
                        automobile=_endpoint()) as server:
        assert oct(os.stat(sock).st_mode & 0o777) == "0o600"
        meta = json.loads(Path(pid).read_text())  # the pid file AutoMobile's clients read
        assert meta["pid"] == os.getpid() and meta["socketPath"] == sock
        assert meta["version"] == server.version and isinstance(meta["startedAt"], int)
        c = SeedClient()
        ping = c.ok("ide/ping")
        assert ping["ok"] is True and abs(ping["timestamp"] - time.time() * 1000) < 60_000
        assert c.ok("daemon/availableDevices", kind="daemon_request")["totalDevices"] == 1
        # our own socket still speaks ours: its menu is our table's, not AutoMobile's
        ours = RawClient(daemon_socket).call("tools/list", {"format": "mcp"})["result"]
        assert "tap" in {t["name"] for t in ours["tools"]}
        assert not {"tapOn", "observe"} & {t["name"] for t in ours["tools"]}
        assert server.status()["automobile"] == {"socket": sock, "pidFile": pid}
        c.close()
    assert not os.path.exists(sock) and not os.path.exists(pid)


@pytest.mark.fast
def test_a_live_automobile_socket_is_never_replaced(daemon_socket: str,
                                                   seed_env: tuple[str, str]):
    sock, pid = seed_env
    real = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # "AutoMobile's own daemon"
    real.bind(sock)
    real.listen(1)
    inode = os.stat(sock).st_ino
    try:
        with pytest.raises(DaemonError, match="already answers"), \
                running_daemon(daemon_socket, automobile=_endpoint()):
            pass
        assert os.stat(sock).st_ino == inode and not os.path.exists(pid)
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.connect(sock)  # still AutoMobile's
        probe.close()
        # and our own socket was let go: a daemon starts there afterwards
        with running_daemon(daemon_socket):
            pass
    finally:
        real.close()
    # a dead daemon's socket file (nobody answers on it) is replaced
    assert os.path.exists(sock)
    with running_daemon(daemon_socket, automobile=_endpoint()):
        assert SeedClient().ok("ide/ping")["ok"] is True


def test_daemon_start_automobile_opens_the_endpoint(daemon_socket: str,
                                                    seed_env: tuple[str, str]):
    sock, pid = seed_env
    with VirtualPhone(port=free_port()) as phone:
        ok("daemon", "start", "--automobile", "--device", phone.address, "--no-discover")
        try:
            c = SeedClient()
            assert c.ok("ide/ping")["ok"] is True
            meta = json.loads(Path(pid).read_text())
            assert meta["socketPath"] == sock and meta["pid"] != os.getpid()
            shot = c.tool("observe", {"platform": "android", "sessionUuid": "cli-1"})
            assert shot["screenSize"] == {"width": 1080, "height": 2400}
            c.close()
        finally:
            r = cli("daemon", "stop", env=cli_env())
            assert r.returncode == 0, r.stderr
        assert wait_until(lambda: not os.path.exists(sock) and not os.path.exists(pid))


# -- the client's flow ----------------------------------------------------------------------


def _graph(c: SeedClient, params: dict[str, Any]) -> dict[str, Any]:
    result = mcp_types.CallToolResult.model_validate(c.ok("ide/getNavigationGraph", params))
    return json.loads(result.content[0].text)


def test_the_seed_flow_with_one_idle_device(phone: VirtualPhone, daemon_socket: str,
                                            seed_env: tuple[str, str]):
    now = [1_700_000_000.0]
    with running_daemon(daemon_socket, devices=[phone.address], session_ttl_s=600,
                        wall_clock=lambda: now[0], automobile=_endpoint()) as server:
        c = SeedClient()
        status = c.ok("ide/status")
        assert status["version"] == status["releaseVersion"] == server.version
        # its service objects are there (nothing installed: their fields are null)
        assert status["android"]["accessibilityService"]["url"] is None
        assert "xcTestService" in status["ios"]
        flags = c.ok("ide/listFeatureFlags")["flags"]
        assert {"key", "enabled", "config"} <= set(flags[0]) and \
            "debug" in {f["key"] for f in flags}
        assert c.ok("ide/setFeatureFlag", {"key": "debug", "enabled": True})["enabled"]
        pool = c.ok("daemon/availableDevices", kind="daemon_request")
        assert pool["stats"] == {"total": 1, "idle": 1, "assigned": 0, "error": 0}
        assert {"addedDevices", "totalDevices", "availableDevices", "stats"} <= \
            set(c.ok("daemon/refreshDevices", kind="daemon_request"))

        tools = _schemas(c)
        assert {"observe", "tapOn", "inputText", "launchApp", "openLink", "executePlan",
                "startDevice", "swipeOn", "pressButton", "terminateApp",
                "getNavigationGraph"} <= set(tools)  # debug on: its debug-only tool too
        assert "tap" not in tools  # AutoMobile's names, not ours
        for name in ("observe", "tapOn", "inputText", "launchApp"):
            assert "sessionUuid" in tools[name]["inputSchema"]["properties"], name

        s = "7f1d7a52-3c1e-4c1b-9a53-0d7c4b1e2f10"
        seen = phone.events.last_seq
        screen = c.tool("observe", {"platform": "android", "sessionUuid": s})
        jsonschema.validate(screen, tools["observe"]["outputSchema"])
        assert screen["screenSize"] == {"width": 1080, "height": 2400}
        assert screen["activeWindow"]["appId"] == "com.google.android.apps.nexuslauncher"
        notes = next(e for e in screen["elements"]["clickable"] if e.get("text") == "Notes")
        assert any(cmd[:2] == ["uiautomator", "dump"]
                   for cmd in phone.events.commands(since=seen))  # read from the device

        seen = phone.events.last_seq
        tapped = c.tool("tapOn", {"action": "tap", "text": "Notes", "platform": "android",
                                  "sessionUuid": s})
        jsonschema.validate(tapped, tools["tapOn"]["outputSchema"])
        assert tapped["success"] is True and tapped["action"] == "tap"
        b = notes["bounds"]
        assert _tapped_at(phone, seen) == [["input", "tap", str(b["centerX"]),
                                            str(b["centerY"])]]
        # the field has a content description only: AutoMobile's text matches it too
        c.tool("tapOn", {"action": "tap", "text": "Email", "platform": "android",
                         "sessionUuid": s})
        typed = c.tool("inputText", {"text": "ada@example.com", "platform": "android",
                                     "sessionUuid": s})
        assert typed == {"message": "Input text", "success": True, "text": "ada@example.com"}
        after = c.tool("observe", {"platform": "android", "sessionUuid": s})
        assert after["activeWindow"]["appId"] == NOTES
        assert any(e.get("text") == "ada@example.com" for e in after["elements"]["text"])
        seen = phone.events.last_seq
        launched = c.tool("launchApp", {"appId": SETTINGS, "sessionUuid": s})
        assert launched["success"] is True and launched["packageName"] == SETTINGS
        assert any(SETTINGS in " ".join(cmd) for cmd in phone.events.commands(since=seen))
        assert c.tool("observe", {"sessionUuid": s})["activeWindow"]["appId"] == SETTINGS

        info = c.ok("daemon/sessionInfo", {"sessionId": s}, kind="daemon_request")
        assert info["sessionId"] == s and info["assignedDevice"] == phone.address
        assert info["platform"] == "android" and info["createdAt"] <= info["lastUsedAt"]
        assert info["expiresAt"] == info["lastUsedAt"] + 600_000 and info["cacheSize"] > 0

        resources = mcp_types.ListResourcesResult.model_validate(c.ok("resources/list"))
        uri = next(str(r.uri) for r in resources.resources if str(r.uri).endswith("/snapshot"))
        read = mcp_types.ReadResourceResult.model_validate(c.ok("resources/read", {"uri": uri}))
        assert "[ref=" in read.contents[0].text
        mcp_types.ListResourceTemplatesResult.model_validate(c.ok("resources/list-templates"))

        base = {"deviceId": phone.address, "appId": NOTES, "fileName": "seed"}
        assert c.ok("ide/setKeyValue", {**base, "key": "k", "value": "v",
                                        "type": "STRING"}) == {"success": True}
        assert c.ok("ide/setKeyValue", {**base, "key": "n", "value": "3",
                                        "type": "INT"}) == {"success": True}
        assert c.ok("ide/removeKeyValue", {**base, "key": "n"}) == {"success": True}
        fs = phone.model.fs
        home = f"/data/user/0/{NOTES}"
        with fs.acting_as_app(home):
            xml = fs.read(f"{home}/shared_prefs/seed.xml").decode()
        assert '<string name="k">v</string>' in xml and 'name="n"' not in xml
        assert c.ok("ide/clearKeyValueFile", base) == {"success": True}
        with fs.acting_as_app(home):
            assert 'name="k"' not in fs.read(f"{home}/shared_prefs/seed.xml").decode()

        # the navigation graph, every parameter left out: kept always, no --trace
        graph = _graph(c, {})
        assert graph["message"] == f"Navigation graph for app: {SETTINGS}"
        names = [x["name"] for x in graph["screens"]]
        assert graph["nodeCount"] == len(names) >= 3 and graph["currentScreen"] in names
        assert any(n.startswith(f"{NOTES}:") for n in names)
        moves = {(t["type"], t.get("tool")) for t in graph["transitions"]}
        assert ("tool", "launchApp") in moves and graph["edgeCount"] == len(moves)
        assert all(x["lastVisited"].endswith("Z") for x in graph["screens"])
        assert _graph(c, {"sessionUuid": s})["currentScreen"] == graph["currentScreen"]
        assert c.tool("getNavigationGraph", {"sessionUuid": s})["nodeCount"] == \
            _graph(c, {"platform": "android", "sessionUuid": s})["nodeCount"]

        # release twice: the second says it was already released
        first = c.ok("daemon/releaseSession", {"sessionId": s}, kind="daemon_request")
        assert first["message"] == f"Session {s} released" and first["alreadyReleased"] is False
        assert first["device"] == phone.address
        again = c.ok("daemon/releaseSession", {"sessionId": s}, kind="daemon_request")
        assert again == {"message": f"Session {s} already released or never existed",
                         "alreadyReleased": True}
        gone = c.request("daemon/sessionInfo", {"sessionId": s}, kind="daemon_request")
        assert not gone["success"] and gone["error"] == f"Session not found: {s}"

        # expiry: a session unused past its TTL is gone and its device free again; a
        # heartbeat counts as a use
        c.tool("observe", {"sessionUuid": "beating"})
        now[0] += 400
        assert c.ok("daemon/heartbeat", {"sessionId": "beating"}) == {"sessionId": "beating"}
        now[0] += 300  # 700 s since its call, 300 since its heartbeat
        assert c.ok("daemon/sessionInfo", {"sessionId": "beating"})["sessionId"] == "beating"
        now[0] += 601
        assert c.request("daemon/sessionInfo", {"sessionId": "beating"})["error"] == \
            "Session not found: beating"
        assert c.ok("daemon/availableDevices")["stats"]["idle"] == 1
        assert c.tool("observe", {"sessionUuid": "next"})["screenSize"]["width"] == 1080
        c.close()


def test_two_idle_devices_each_new_session_is_handed_one(phone: VirtualPhone,
                                                         daemon_socket: str,
                                                         seed_env: tuple[str, str]):
    now = [1_700_000_000.0]
    with VirtualPhone(port=free_port()) as other, \
            running_daemon(daemon_socket, devices=[phone.address, other.address],
                           session_ttl_s=600, wall_clock=lambda: now[0],
                           automobile=_endpoint()):
        c = SeedClient()
        # no device named anywhere (the seed's tools/call has no device field): the pool
        # hands each new session a free device, never MULTIPLE_DEVICES_DEVICE_ID_REQUIRED
        for s in ("session-a", "session-b"):
            assert c.tool("observe", {"platform": "android", "sessionUuid": s})["screenSize"]
        held = {s: c.ok("daemon/sessionInfo", {"sessionId": s})["assignedDevice"]
                for s in ("session-a", "session-b")}
        assert set(held.values()) == {phone.address, other.address}
        phones = {phone.address: phone, other.address: other}
        seen = {a: p.events.last_seq for a, p in phones.items()}
        c.tool("tapOn", {"action": "tap", "text": "Notes", "platform": "android",
                         "sessionUuid": "session-b"})
        assert _tapped_at(phones[held["session-b"]], seen[held["session-b"]])
        assert not _tapped_at(phones[held["session-a"]], seen[held["session-a"]])
        assert c.ok("daemon/availableDevices")["stats"]["assigned"] == 2

        # a session's device is the pool's as soon as it is assigned: a failed first call
        # leaves the session (AutoMobile assigns before the tool runs), on the device given
        # back last
        freed = c.ok("daemon/releaseSession", {"sessionId": "session-a"})["device"]
        failed = c.request("tools/call", {"name": "tapOn", "arguments": {
            "action": "tap", "text": "Nothing like it", "platform": "android",
            "sessionUuid": "session-c"}})
        assert not failed["success"] and failed["error"].startswith("MCP error -32603: ")
        assert "Nothing like it" in failed["error"]
        info = c.ok("daemon/sessionInfo", {"sessionId": "session-c"})
        assert info["assignedDevice"] == freed
        # none free: AutoMobile's pool error, and no session is left for it
        none = c.request("tools/call", {"name": "observe", "arguments": {
            "sessionUuid": "session-d"}})
        assert not none["success"] and none["error"].startswith(
            "MCP error -32603: No devices in pool to assign to session session-d.")
        assert c.request("daemon/sessionInfo", {"sessionId": "session-d"})["error"] == \
            "Session not found: session-d"
        # a call that fails before a device is assigned leaves nothing either
        unknown = c.request("tools/call", {"name": "nope", "arguments": {
            "sessionUuid": "session-e"}})
        assert unknown["error"] == "MCP error -32603: Unknown tool: nope"
        assert not c.request("daemon/sessionInfo", {"sessionId": "session-e"})["success"]

        # expiry: both sessions end, both devices are free again
        now[0] += 601
        for s in ("session-b", "session-c"):
            assert c.request("daemon/sessionInfo", {"sessionId": s})["error"] == \
                f"Session not found: {s}"
        assert c.ok("daemon/availableDevices")["stats"] == {"total": 2, "idle": 2,
                                                            "assigned": 0, "error": 0}
        c.close()


def test_the_pool_hands_the_last_released_else_the_least_recently_used():
    pool = Pool(configured=["a", "b", "c"])
    assert pool.pick(["a", "b", "c"]) == "a"  # none used yet: the first to join
    pool.claim("x", "a")
    pool.claim("y", "b")
    pool.release("x")
    pool.release("y")  # given back last
    assert pool.pick(["a", "b", "c"]) == "b"
    pool.claim("z", "b")
    assert pool.pick(["a", "c"]) == "c"  # never used: less recently than a
    pool.claim("w", "c")
    pool.release("w")
    pool.claim("v", "c")
    assert pool.pick(["a"]) == "a"
    hub = Hub(devices=["127.0.0.1:1", "127.0.0.1:2"], discover=False)
    with pytest.raises(MultipleDevices):
        hub.adopt(hub.session("ours", create=True))  # our own door: name one
    assert hub.adopt(hub.session("theirs", create=True), choose=True) == "127.0.0.1:1"


def test_a_timeout_answers_minus_32001_once(phone: VirtualPhone, daemon_socket: str,
                                            seed_env: tuple[str, str],
                                            caplog: pytest.LogCaptureFixture):
    with running_daemon(daemon_socket, devices=[phone.address],
                        automobile=_endpoint()):
        c = SeedClient()
        s = "timeout-session"
        c.tool("observe", {"platform": "android", "sessionUuid": s})
        phone.faults.add("stall", service="shell", count=1)  # the next command hangs
        with caplog.at_level(logging.WARNING, logger="baremobile.daemon"):
            late = c.request("tools/call", {"name": "pressButton", "arguments": {
                "button": "back", "platform": "android", "sessionUuid": s}}, timeout_ms=500)
            assert not late["success"] and late["error"] == \
                "MCP error -32001: Request timed out"
            assert wait_until(lambda: "already timed out" in caplog.text, 20)
        # no second answer for that id: the next line is the next request's answer
        assert c.ok("ide/ping")["ok"] is True
        c.sock.settimeout(1.0)
        with pytest.raises(TimeoutError):
            c.read()
        c.close()


def test_the_seeds_floors_apply_under_the_seeds_names(monkeypatch: pytest.MonkeyPatch,
                                                      phone: VirtualPhone,
                                                      daemon_socket: str,
                                                      seed_env: tuple[str, str]):
    hub = Hub(discover=False)

    def floor(name: str, args: dict[str, Any]) -> int:
        return hub.floor_ms(name, args, None, vocabulary="automobile")

    plan = "steps:\n  - tool: homeScreen\n"
    assert floor("launchApp", {"appId": SETTINGS}) == 90_000
    assert floor("launchApp", {"appId": SETTINGS, "clearAppData": True}) == 90_000
    assert floor("openLink", {"url": "https://example.com"}) == 90_000
    assert floor("executePlan", {"planContent": plan}) == 600_000
    assert floor("startDevice", {"device": {"name": "x", "platform": "android"}}) == 180_000
    assert floor("tapOn", {"text": "OK"}) == 10_000  # our row's: a dump first
    assert floor("tap", {"ref": 3}) == 10_000  # ours, unchanged
    for raw, expected in (("120000", 120_000), ("5000", 90_000), ("soon", 90_000)):
        monkeypatch.setenv("AUTOMOBILE_OPEN_LINK_MCP_TIMEOUT_MS", raw)
        assert floor("openLink", {"url": "https://example.com"}) == expected, raw
    monkeypatch.delenv("AUTOMOBILE_OPEN_LINK_MCP_TIMEOUT_MS")
    monkeypatch.setenv("AUTO_MOBILE_OPEN_LINK_MCP_TIMEOUT_MS", "150000")  # the legacy name
    assert floor("openLink", {"url": "https://example.com"}) == 150_000

    # over the socket: a launchApp asking for 1 s is given its 90 s (a stuck start is not
    # answered at 1 s)
    with running_daemon(daemon_socket, devices=[phone.address],
                        automobile=_endpoint()):
        c = SeedClient()
        c.tool("observe", {"sessionUuid": "slow"})
        phone.faults.add("stall", service="shell", count=1)
        c.send("tools/call", {"name": "launchApp", "arguments": {
            "appId": SETTINGS, "sessionUuid": "slow"}}, timeout_ms=1000)
        c.sock.settimeout(3.0)
        with pytest.raises(TimeoutError):
            c.read()
        c.close()  # hanging up cancels it


def test_execute_plan_runs_the_yaml_through_the_same_aliases(phone: VirtualPhone,
                                                            daemon_socket: str,
                                                            seed_env: tuple[str, str]):
    plan = (f"name: notes, then settings\n"
            f"steps:\n"
            f"  - tool: homeScreen\n"
            f"  - tool: tapOn\n"
            f"    params: {{action: tap, text: Notes, platform: android}}\n"
            f"  - tool: launchApp\n"
            f"    appId: {SETTINGS}\n"
            f"    clearAppData: true\n")
    with running_daemon(daemon_socket, devices=[phone.address],
                        automobile=_endpoint()):
        c = SeedClient()
        tools = _schemas(c)
        s = "plan-session"
        seen = phone.events.last_seq
        done = c.tool("executePlan", {"planContent": plan, "platform": "android",
                                      "sessionUuid": s})
        jsonschema.validate(done, tools["executePlan"]["outputSchema"])
        assert done["success"] is True and done["executedSteps"] == done["totalSteps"] == 3
        ran = [" ".join(cmd) for cmd in phone.events.commands(since=seen)]
        assert any("KEYCODE_HOME" in r or r.endswith("keyevent 3") for r in ran), ran
        assert _tapped_at(phone, seen) and any(f"pm clear {SETTINGS}" in r for r in ran)
        broken = plan + "  - tool: tapOn\n    text: Nothing like it\n  - tool: homeScreen\n"
        seen = phone.events.last_seq
        failed = c.tool("executePlan", {"planContent": broken, "sessionUuid": s})
        jsonschema.validate(failed, tools["executePlan"]["outputSchema"])
        assert failed["success"] is False and failed["totalSteps"] == 5
        assert failed["executedSteps"] == 3
        assert failed["failedStep"]["stepIndex"] == 3 and \
            failed["failedStep"]["tool"] == "tapOn"
        assert "Nothing like it" in failed["failedStep"]["error"]
        homes = [c_ for c_ in phone.events.commands(since=seen) if "3" in c_ and
                 c_[:2] == ["input", "keyevent"]]
        assert len(homes) == 1  # the last step never ran
        resumed = c.tool("executePlan", {"planContent": plan, "startStep": 2,
                                         "sessionUuid": s})
        assert resumed["executedSteps"] == 1 and resumed["totalSteps"] == 3
        c.close()


def test_what_adb_cannot_do_answers_as_automobile_does_without_it(
        phone: VirtualPhone, daemon_socket: str, seed_env: tuple[str, str]):
    with running_daemon(daemon_socket, devices=[phone.address],
                        automobile=_endpoint()):
        c = SeedClient()
        seen = phone.events.last_seq
        for name, args, words in (
                ("selectAllText", {"platform": "android"},
                 "Accessibility service selectAll failed: Failed to connect to "
                 "accessibility service"),
                ("observe", {"platform": "ios"}, "iOS simulator tools not available"),
                ("startDevice", {"device": {"name": "Pixel_8", "platform": "android"}},
                 "Failed to start android device"),
                ("postNotification", {"title": "t", "body": "b", "platform": "android"},
                 "postNotification requires the AutoMobile SDK")):
            r = c.request("tools/call", {"name": name, "arguments": {**args,
                                                                      "sessionUuid": name}})
            assert not r["success"] and r["error"].startswith(f"MCP error -32603: {words}"), r
            assert c.request("daemon/sessionInfo", {"sessionId": name})["error"] == \
                f"Session not found: {name}"
        assert phone.events.commands(since=seen) == []  # nothing reached the phone
        assert c.request("ide/nothing")["error"] == "Unsupported daemon method: ide/nothing"
        c.close()


def test_swipe_on_moves_the_finger_as_automobile_does(phone: VirtualPhone,
                                                      daemon_socket: str,
                                                      seed_env: tuple[str, str]):
    with running_daemon(daemon_socket, devices=[phone.address],
                        automobile=_endpoint()):
        c = SeedClient()
        c.tool("launchApp", {"appId": SETTINGS, "sessionUuid": "swipe"})
        c.tool("observe", {"sessionUuid": "swipe"})

        def swiped(args: dict[str, Any]) -> tuple[int, int]:
            seen = phone.events.last_seq
            out = c.tool("swipeOn", {**args, "platform": "android", "sessionUuid": "swipe"})
            assert out["success"] is True and out["targetType"] == "screen"
            move = [e.detail for e in phone.events.list("swipe", since=seen)]
            assert len(move) == 1
            return move[0]["y1"], move[0]["y2"]

        start, end = swiped({"direction": "up"})  # the finger goes up: what is below shows
        assert end < start
        start, end = swiped({"direction": "up", "gestureType": "scrollTowardsDirection"})
        assert end > start
        c.close()


def test_apps_installed_and_terminated_as_automobile_names_them(
        phone: VirtualPhone, daemon_socket: str, seed_env: tuple[str, str], tmp_path: Path):
    from baremobile.virtual.apk import build_apk

    apk = tmp_path / "tool.apk"  # AutoMobile's clients name the APK by its path
    apk.write_bytes(build_apk("com.example.tool", "Tool App", 1, "1.0", ".Main"))
    with running_daemon(daemon_socket, devices=[phone.address], automobile=_endpoint()):
        c = SeedClient()
        s = "apps"
        done = c.tool("installApp", {"apkPath": str(apk), "sessionUuid": s})
        assert done == {"message": f"Installed app from {apk}", "success": True,
                        "apkPath": str(apk)}
        assert [e["path"] for e in phone.events.list("push")] == \
            ["/data/local/tmp/baremobile_install.apk"]
        assert "com.example.tool" in c.tool("listApps", {"sessionUuid": s})["apps"]
        c.tool("launchApp", {"packageName": "com.example.tool", "sessionUuid": s})
        seen = phone.events.last_seq
        stopped = c.tool("terminateApp", {"appId": "com.example.tool", "sessionUuid": s})
        assert stopped["success"] is True and stopped["wasInstalled"] is True
        assert ["am", "force-stop", "com.example.tool"] in phone.events.commands(since=seen)
        # an app that is not installed: success, saying so (AutoMobile's TerminateApp)
        absent = c.tool("terminateApp", {"appId": "com.example.nothing", "sessionUuid": s})
        assert absent == {"message": "Terminated app com.example.nothing", "success": True,
                          "packageName": "com.example.nothing", "wasInstalled": False}
        c.close()


def test_a_session_that_observes_gets_the_screen_after_each_action(
        phone: VirtualPhone, daemon_socket: str, seed_env: tuple[str, str]):
    with running_daemon(daemon_socket, devices=[phone.address], automobile=_endpoint()):
        c = SeedClient()
        c.ok("ide/setFeatureFlag", {"key": "observe", "enabled": True})  # new sessions
        s = "observing"
        tapped = c.tool("tapOn", {"action": "tap", "text": "Notes", "sessionUuid": s})
        assert tapped["observation"]["activeWindow"]["appId"] == NOTES
        back = c.tool("pressButton", {"button": "back", "sessionUuid": s})
        assert back["keyCode"] == 4 and back["observation"]["screenSize"]["height"] == 2400
        # every screen seen, so every move is known: the graph has each, Back as back
        graph = _graph(c, {"sessionUuid": s})
        kinds = [(t["type"], t.get("tool")) for t in graph["transitions"]]
        assert ("tool", "tapOn") in kinds and ("back", "pressButton") in kinds
        assert graph["unknownEdges"] == 0
        c.close()
