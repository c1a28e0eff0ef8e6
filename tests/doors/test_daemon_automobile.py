"""A client written from AutoMobile's socket document alone
(``shared/reference/automobile-daemon-socket-api.md``) runs every method it names against
our daemon and checks every field the document names; the MCP shapes are checked by the
MCP SDK's own types (the referee), and what reached the phone by the virtual phone.

The client below knows nothing of baremobile but the socket path: it sends
``{id, type, method, params, timeoutMs}`` lines and reads ``{id, type, success, result |
error}`` lines, as the document writes them."""

from __future__ import annotations

import base64
import json
import logging
import os
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from baremobile.daemon.client import Client
from baremobile.daemon.errors import VersionMismatch
from baremobile.virtual import VirtualPhone
from tests.conftest import stop_daemon
from tests.daemon_helpers import running_daemon


@pytest.fixture(autouse=True, scope="module")
def mcp_types():
    """The MCP SDK's types, imported when a test of this file runs (``mcp`` costs ~1 s to
    import: collecting the file does not pay it); the file's tests skip, saying why, where
    the SDK is absent."""
    return pytest.importorskip("mcp.types", reason="the MCP SDK's types referee the shapes")


NOTES = "org.baremobile.notes"  # the demo's debuggable app
WEATHER = "org.baremobile.weather"  # a release build


class AutoMobileClient:
    """Newline-delimited JSON over the Unix socket, exactly as the document says."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(120)
        self.sock.connect(path)
        self.buf = b""
        self.n = 0

    def request(self, method: str, params: dict[str, Any] | None = None, *,
                kind: str = "mcp_request", timeout_ms: int | None = None) -> dict[str, Any]:
        self.n += 1
        rid = f"req-{self.n}"
        message: dict[str, Any] = {"id": rid, "type": kind, "method": method,
                                   "params": params or {}}
        if timeout_ms is not None:
            message["timeoutMs"] = timeout_ms
        self.sock.sendall(json.dumps(message).encode() + b"\n")
        while b"\n" not in self.buf:
            chunk = self.sock.recv(1 << 20)
            assert chunk, "the daemon hung up"
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        response = json.loads(line)
        # the envelope: id echoed, type mcp_response, success; result xor error (a string)
        assert response["id"] == rid and response["type"] == "mcp_response", response
        assert isinstance(response["success"], bool)
        if response["success"]:
            assert isinstance(response["result"], dict) and "error" not in response
        else:
            assert isinstance(response["error"], str) and "result" not in response
        return response

    def ok(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> Any:
        response = self.request(method, params, **kw)
        assert response["success"], response
        return response["result"]

    def close(self) -> None:
        self.sock.close()


def _prefs_on_phone(phone: VirtualPhone, package: str, name: str) -> str:
    """The SharedPreferences file as it lies on the phone (read as the app would)."""
    fs = phone.model.fs
    home = f"/data/user/0/{package}"
    with fs.acting_as_app(home):
        return fs.read(f"{home}/shared_prefs/{name}.xml").decode()


def test_ide_endpoints_as_the_document_writes_them(phone: VirtualPhone, daemon_socket: str):
    with running_daemon(daemon_socket, devices=[phone.address]) as server:
        c = AutoMobileClient(daemon_socket)
        ping = c.ok("ide/ping")
        assert ping["ok"] is True and isinstance(ping["timestamp"], int)
        assert abs(ping["timestamp"] - time.time() * 1000) < 60_000
        status = c.ok("ide/status")
        assert status["version"] == status["releaseVersion"] == server.version
        # no on-device service: its fields are null
        assert status["android"]["accessibilityService"] is None and status["ios"] is None

        flags = c.ok("ide/listFeatureFlags")["flags"]
        assert {f["key"] for f in flags} == {"observe", "settle", "busyWait", "waitTimeout",
                                             "maxChars"}
        for f in flags:
            assert isinstance(f["enabled"], bool) and (f["config"] is None or
                                                       isinstance(f["config"], dict))
        updated = c.ok("ide/setFeatureFlag", {"key": "observe", "enabled": True,
                                              "config": {"mode": "diff"}})
        assert updated == {**updated, "key": "observe", "enabled": True,
                           "config": {"mode": "diff"}}
        assert c.ok("ide/setFeatureFlag", {"key": "settle", "enabled": True,
                                           "config": {"seconds": 0.2}})["config"] == \
            {"seconds": 0.2}
        c.ok("ide/setFeatureFlag", {"key": "busyWait", "enabled": False})
        bad = c.request("ide/setFeatureFlag", {"key": "nope", "enabled": True})
        assert not bad["success"] and "nope" in bad["error"]
        # the flags are the defaults a new session starts with: its calls observe
        info = c.ok("daemon/openSession", {"sessionId": "flags"}, kind="daemon_request")
        assert info["settings"]["observe"] == "diff" and info["settings"]["settle"] == 0.2
        assert info["settings"]["busy_wait"] == 0
        acted = c.ok("tools/call", {"name": "press", "arguments": {"key": "back"},
                                    "sessionId": "flags"})
        # observed after acting: the screen in the text a model reads, the facts beside it
        assert "[ref=" in acted["content"][0]["text"] and acted["structuredContent"]["refs"]
        # per session too
        c.ok("ide/setFeatureFlag", {"key": "observe", "enabled": False, "sessionId": "flags"})
        mine = c.ok("ide/listFeatureFlags", {"sessionId": "flags"})["flags"]
        assert next(f for f in mine if f["key"] == "observe")["enabled"] is False

        refused = c.request("ide/updateService", {"deviceId": phone.address,
                                                  "platform": "android"})
        assert not refused["success"] and "no on-device service" in refused["error"]
        assert refused["code"] == "NO_ON_DEVICE_SERVICE"  # our extras ride along
        c.close()


def test_key_values_land_in_the_apps_shared_preferences(phone: VirtualPhone,
                                                        daemon_socket: str):
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = AutoMobileClient(daemon_socket)
        base = {"deviceId": phone.address, "appId": NOTES, "fileName": "settings"}
        assert c.ok("ide/setKeyValue", {**base, "key": "user", "value": "ada <&> co",
                                        "type": "STRING"}) == {"success": True}
        assert c.ok("ide/setKeyValue", {**base, "key": "launches", "value": "3",
                                        "type": "INT"}) == {"success": True}
        c.ok("ide/setKeyValue", {**base, "key": "dark", "value": "true", "type": "BOOLEAN"})
        c.ok("ide/setKeyValue", {**base, "key": "tags", "value": '["a", "b"]',
                                 "type": "STRING_SET"})
        xml = _prefs_on_phone(phone, NOTES, "settings")
        assert xml.startswith("<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>")
        assert '<string name="user">ada &lt;&amp;&gt; co</string>' in xml
        assert '<int name="launches" value="3" />' in xml
        assert '<boolean name="dark" value="true" />' in xml
        assert "<string>a</string>" in xml and '<set name="tags">' in xml
        # the app was stopped first, so it reads the new file when it starts again
        assert ["am", "force-stop", NOTES] in phone.events.commands()
        # null removes a key; removeKeyValue removes one; clearKeyValueFile empties the map
        c.ok("ide/setKeyValue", {**base, "key": "dark", "value": None, "type": "BOOLEAN"})
        assert c.ok("ide/removeKeyValue", {**base, "key": "launches"}) == {"success": True}
        xml = _prefs_on_phone(phone, NOTES, "settings")
        assert "dark" not in xml and "launches" not in xml and 'name="user"' in xml
        assert c.ok("ide/clearKeyValueFile", base) == {"success": True}
        assert _prefs_on_phone(phone, NOTES, "settings").split("\n")[1:3] == ["<map>", "</map>"]
        # a release build: run-as refuses it, as Android does
        no = c.request("ide/setKeyValue", {**base, "appId": WEATHER, "key": "k", "value": "v",
                                           "type": "STRING"})
        assert not no["success"] and no["code"] == "NOT_DEBUGGABLE"
        assert "not debuggable" in no["error"]
        bad = c.request("ide/setKeyValue", {**base, "key": "n", "value": "x", "type": "INT"})
        assert not bad["success"] and bad["code"] == "INVALID_ARGUMENT"
        assert 'name="n"' not in _prefs_on_phone(phone, NOTES, "settings")
        climb = c.request("ide/clearKeyValueFile", {**base, "fileName": "../../evil"})
        assert not climb["success"] and climb["code"] == "INVALID_ARGUMENT"
        c.close()


def test_tools_and_resources_answer_mcps_shapes(phone: VirtualPhone, daemon_socket: str,
                                                mcp_types):
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = AutoMobileClient(daemon_socket)
        listed = mcp_types.ListToolsResult.model_validate(c.ok("tools/list"))
        names = {t.name for t in listed.tools}
        assert {"snapshot", "tap", "screenshot", "wait"} <= names
        snap = c.ok("tools/call", {"name": "snapshot", "arguments": {}})
        result = mcp_types.CallToolResult.model_validate(snap)
        assert result.is_error is False and "[ref=" in result.content[0].text
        assert snap["structuredContent"]["ok"] is True and snap["structuredContent"]["refs"] > 0
        shot = c.ok("tools/call", {"name": "screenshot", "arguments": {"format": "png"}})
        image = mcp_types.CallToolResult.model_validate(shot).content[1]
        assert image.type == "image" and base64.b64decode(image.data)[:4] == b"\x89PNG"
        assert "data" not in shot["structuredContent"]["image"]
        failed = c.ok("tools/call", {"name": "tap", "arguments": {"ref": 999}})
        assert failed["isError"] is True  # a failed tool is a result, MCP's way
        assert failed["structuredContent"]["error"]["code"] == "REF_NOT_FOUND"
        assert failed["structuredContent"]["error"]["hint"]

        resources = mcp_types.ListResourcesResult.model_validate(c.ok("resources/list"))
        uris = {str(r.uri) for r in resources.resources}
        quoted = phone.address.replace(":", "%3A")
        assert {f"baremobile://device/{quoted}/{k}" for k in ("snapshot", "screenshot",
                                                              "info")} <= uris
        templates = mcp_types.ListResourceTemplatesResult.model_validate(
            c.ok("resources/list-templates"))
        assert {t.uri_template for t in templates.resource_templates} == {
            f"baremobile://device/{{serial}}/{k}" for k in ("snapshot", "screenshot", "info")}
        read = mcp_types.ReadResourceResult.model_validate(
            c.ok("resources/read", {"uri": f"baremobile://device/{quoted}/snapshot"}))
        assert "[ref=" in read.contents[0].text
        png = mcp_types.ReadResourceResult.model_validate(
            c.ok("resources/read", {"uri": f"baremobile://device/{quoted}/screenshot"}))
        assert base64.b64decode(png.contents[0].blob)[:4] == b"\x89PNG"
        info = c.ok("resources/read", {"uri": f"baremobile://device/{quoted}/info"})
        assert json.loads(info["contents"][0]["text"])["api_level"] > 0
        pool = json.loads(c.ok("resources/read", {"uri": "baremobile://devices"})
                          ["contents"][0]["text"])
        assert pool["totalDevices"] == 1
        missing = c.request("resources/read", {"uri": "automobile:devices/booted"})
        assert not missing["success"] and missing["code"] == "RESOURCE_NOT_FOUND"
        assert len(phone.events.list("screencap")) == 2  # each read went to the device
        c.close()


def test_pool_and_sessions_with_expiry(phone: VirtualPhone, daemon_socket: str):
    now = [1_000_000.0]
    with running_daemon(daemon_socket, devices=[phone.address], session_ttl_s=60,
                        wall_clock=lambda: now[0]):
        c = AutoMobileClient(daemon_socket)
        pool = c.ok("daemon/availableDevices", kind="daemon_request")
        for key in ("availableDevices", "totalDevices", "assignedDevices", "errorDevices"):
            assert isinstance(pool[key], int)
        assert pool["stats"] == {"total": 1, "idle": 1, "assigned": 0, "error": 0}
        refreshed = c.ok("daemon/refreshDevices", kind="daemon_request")
        assert {"addedDevices", "totalDevices", "availableDevices", "stats"} <= set(refreshed)
        snap = c.ok("tools/call", {"name": "snapshot", "arguments": {}, "sessionId": "abc-123"})
        text = snap["content"][0]["text"]
        info = c.ok("daemon/sessionInfo", {"sessionId": "abc-123"}, kind="daemon_request")
        assert info["sessionId"] == "abc-123" and info["assignedDevice"] == phone.address
        assert info["platform"] == "android"
        assert info["createdAt"] <= info["lastUsedAt"] < info["expiresAt"]
        assert info["expiresAt"] == info["lastUsedAt"] + 60_000
        # the snapshot the daemon keeps for the session's refs (and diffs)
        assert info["cacheSize"] >= len(text.encode()) > 100
        assert c.ok("daemon/availableDevices")["assignedDevices"] == 1
        now[0] += 61  # unused past its TTL: the session expires, its device is free again
        gone = c.request("daemon/sessionInfo", {"sessionId": "abc-123"})
        assert not gone["success"] and gone["code"] == "SESSION_NOT_FOUND"
        assert c.ok("daemon/availableDevices")["stats"]["idle"] == 1
        c.ok("daemon/openSession", {"sessionId": "abc-123"})
        released = c.ok("daemon/releaseSession", {"sessionId": "abc-123"})
        assert released == {**released, "message": "Session abc-123 released",
                            "device": phone.address, "alreadyReleased": False}
        again = c.ok("daemon/releaseSession", {"sessionId": "abc-123"})
        assert again["alreadyReleased"] is True and "already released" in again["message"]
        # a failed openSession leaves no session behind, and no device held
        dead = c.request("daemon/openSession", {"sessionId": "broken",
                                                "device": "127.0.0.1:1"}, timeout_ms=60_000)
        assert not dead["success"]
        assert c.request("daemon/sessionInfo", {"sessionId": "broken"})["code"] == \
            "SESSION_NOT_FOUND"
        assert c.ok("daemon/availableDevices")["assignedDevices"] == 0
        c.close()


def test_a_timeout_is_mcps_request_timed_out_and_the_late_result_is_logged(
        phone: VirtualPhone, daemon_socket: str, caplog: pytest.LogCaptureFixture):
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = AutoMobileClient(daemon_socket)
        c.ok("daemon/openSession", {"sessionId": "s"})
        c.ok("tools/call", {"name": "configure", "arguments": {"busy_wait": 0},
                            "sessionId": "s"})
        phone.faults.add("stall", service="shell", count=1)  # the command hangs
        with caplog.at_level(logging.WARNING, logger="baremobile.daemon"):
            late = c.request("tools/call", {"name": "press", "arguments": {"key": "back"},
                                            "sessionId": "s"}, timeout_ms=500)
            assert not late["success"] and late["error"] == \
                "MCP error -32001: Request timed out"
            assert late["errorCode"] == -32001 and late["code"] == "TIMEOUT"
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and "timed out" not in caplog.text:
                time.sleep(0.05)
        assert "completed after the caller's request already timed out" in caplog.text
        c.close()


def _meta(path: str, **fields: Any) -> None:
    Path(path + ".json").write_text(json.dumps(fields))


def test_version_rules_exactly_as_written(phone: VirtualPhone, daemon_socket: str,
                                          monkeypatch: pytest.MonkeyPatch):
    # a newer client with auto-start/restart disabled: fails, naming both versions
    with running_daemon(daemon_socket, version="1.2.0") as old:
        with pytest.raises(VersionMismatch) as info:
            Client(daemon_socket, version="1.3.0", autostart=False, cooldown=0).connect()
        assert "1.3.0" in info.value.message and "1.2.0" in info.value.message
        assert "disabled" in info.value.message and not old.stopping.is_set()
        monkeypatch.setenv("BAREMOBILE_DAEMON_AUTOSTART", "0")  # the same, from the env
        with pytest.raises(VersionMismatch):
            Client(daemon_socket, version="1.3.0", cooldown=0).connect()
        monkeypatch.delenv("BAREMOBILE_DAEMON_AUTOSTART")
        # a newer daemon: fails before connecting, naming both
        with pytest.raises(VersionMismatch) as info:
            Client(daemon_socket, version="1.1.9").connect()
        assert "the daemon is newer" in info.value.message
        # inside the restart cooldown: fails, asking to retry later
        with pytest.raises(VersionMismatch) as info:
            Client(daemon_socket, version="1.3.0", cooldown=3600).connect()
        assert "cooldown" in info.value.message and not old.stopping.is_set()
        # non-numeric versions (a pre-release tag, unknown) have no order: fail
        for tagged in ("1.3.0rc1", "unknown"):
            with pytest.raises(VersionMismatch) as info:
                Client(daemon_socket, version=tagged, cooldown=0).connect()
            assert "not plain release numbers" in info.value.message
        assert not old.stopping.is_set()
        # the same version: connects
        with Client(daemon_socket, version="1.2.0") as same:
            assert same.request("ide/ping")["ok"] is True
    # a newer client, restarts allowed, past the cooldown: it restarts the daemon
    with running_daemon(daemon_socket, version="1.2.0") as old:
        with pytest.raises(VersionMismatch):  # the new daemon is this checkout (a .dev)
            Client(daemon_socket, version="1.3.0", cooldown=0).connect()
        assert old.stopping.is_set() and "daemon/shutdown" in old.stop_reason
    stop_daemon(daemon_socket)  # the daemon the client started (this checkout's version)
    # missing version metadata: stale, restarted when restarts are allowed
    with running_daemon(daemon_socket, version="1.2.0") as old:
        _meta(daemon_socket, pid=os.getpid(), startedAt=0)
        with pytest.raises(VersionMismatch) as info:
            Client(daemon_socket, version="1.3.0", autostart=False).connect()
        assert "no version" in info.value.message and not old.stopping.is_set()
        with pytest.raises(VersionMismatch):
            Client(daemon_socket, version="1.3.0", cooldown=0).connect()
        assert old.stopping.is_set()
    stop_daemon(daemon_socket)


def test_an_mcp_sdk_client_reads_resources_through_mcp_daemon(tmp_path: Path,
                                                              daemon_socket: str):
    from contextlib import AsyncExitStack

    import anyio

    from tests.daemon_helpers import ok
    from tests.doors.test_daemon_mcp import proxy

    with VirtualPhone() as phone:
        ok("daemon", "start", "--device", phone.address, "--no-discover")
        quoted = phone.address.replace(":", "%3A")

        async def main() -> None:
            with anyio.fail_after(120):
                async with AsyncExitStack() as stack:
                    s = await proxy(stack, tmp_path / "mcp.log")
                    listed = await s.list_resources()
                    uris = {str(r.uri) for r in listed.resources}
                    assert "baremobile://devices" in uris
                    assert f"baremobile://device/{quoted}/snapshot" in uris
                    templates = await s.list_resource_templates()
                    assert "baremobile://device/{serial}/info" in {
                        t.uri_template for t in templates.resource_templates}
                    snap = await s.read_resource(f"baremobile://device/{quoted}/snapshot")
                    assert "[ref=" in snap.contents[0].text
                    shot = await s.read_resource(f"baremobile://device/{quoted}/screenshot")
                    assert base64.b64decode(shot.contents[0].blob)[:4] == b"\x89PNG"
                    assert shot.contents[0].mime_type == "image/png"
                    info = await s.read_resource(f"baremobile://device/{quoted}/info")
                    assert json.loads(info.contents[0].text)["model"]
                    with pytest.raises(Exception, match="RESOURCE_NOT_FOUND"):
                        await s.read_resource("baremobile://device/x/nothing")

        anyio.run(main)
        assert len(phone.events.list("screencap")) == 1 and phone.events.list("dump")
