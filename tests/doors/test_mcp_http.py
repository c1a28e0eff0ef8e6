"""``baremobile mcp --http``: streamable HTTP with a bearer token, driven by the SDK's client."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio
import pytest

from .test_mcp_stdio import drive_device_flow, error_code, ok, server_env

if TYPE_CHECKING:
    from mcp import ClientSession

pytestmark = pytest.mark.usefixtures("mcp_sdk")  # the MCP SDK, imported when a test runs

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "0"}}}


@dataclass
class HttpServer:
    proc: subprocess.Popen[bytes]
    url: str
    token: str | None
    stderr: list[str] = field(default_factory=list)


def _start(args: list[str], env: dict[str, str]) -> Iterator[HttpServer]:
    proc = subprocess.Popen([sys.executable, "-m", "baremobile", "mcp", *args], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    lines: queue.Queue[str] = queue.Queue()
    seen: list[str] = []

    def drain() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            seen.append(line)
            lines.put(line)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        url = token = None
        deadline = time.monotonic() + 60
        while url is None:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"the server never said where it listens: {seen}") from None
            if "bearer token" in line:
                token = line.rsplit(": ", 1)[1].strip()
            if "MCP server: http://" in line:
                url = line.split("MCP server: ", 1)[1].strip()
        yield HttpServer(proc, url, token, seen)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:  # pragma: no cover - a hung server
            proc.kill()
            proc.wait(5)
        reader.join(5)
        assert proc.stdout is not None
        out = proc.stdout.read()
        proc.stdout.close()
        proc.stderr.close()  # type: ignore[union-attr]
        assert out == b"", f"the HTTP server wrote to stdout: {out[:200]!r}"


@pytest.fixture
def http_server(phone) -> Iterator[HttpServer]:
    env = server_env(BAREMOBILE_MCP_TOKEN="s3cret-token")
    gen = _start(["--http", "127.0.0.1:0", "--device", phone.address], env)
    server = next(gen)
    server.token = "s3cret-token"
    yield server
    gen.close()


def raw_post(url: str, headers: dict[str, str]) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=json.dumps(INIT).encode(), method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        **headers})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def run_http(url: str, token: str, body) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async def main() -> None:
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with client, streamable_http_client(url, http_client=client) as (read, write), \
                ClientSession(read, write) as session:
            with anyio.fail_after(60):
                await session.initialize()
                await body(session)

    anyio.run(main)


def test_http_refuses_requests_without_the_token(http_server):
    assert http_server.url.startswith("http://127.0.0.1:")
    status, body = raw_post(http_server.url, {})
    assert status == 401 and json.loads(body)["error"] == "unauthorized"
    status, _ = raw_post(http_server.url, {"Authorization": "Bearer wrong"})
    assert status == 401
    status, _ = raw_post(http_server.url, {"Authorization": "Basic s3cret-token"})
    assert status == 401
    status, _ = raw_post(http_server.url, {"Authorization": "Bearer s3cret-token"})
    assert status == 200


def test_http_drives_the_phone(http_server, phone):
    async def body(s: ClientSession) -> None:
        names = {t.name for t in (await s.list_tools()).tools}
        assert {"snapshot", "tap", "type", "screenshot", "configure", "devices"} <= names
        await drive_device_flow(s, phone)

    run_http(http_server.url, http_server.token, body)
    assert not any("Traceback" in line for line in http_server.stderr)


def test_http_generated_token_and_no_device(phone):
    gen = _start(["--http", "0"], server_env())  # no token in the environment, no device
    server = next(gen)
    try:
        assert server.token and len(server.token) >= 32
        assert server.url.startswith("http://127.0.0.1:")  # PORT alone binds loopback
        assert raw_post(server.url, {})[0] == 401

        async def body(s: ClientSession) -> None:
            r = await s.call_tool("snapshot", {})
            assert error_code(r) == "NO_DEVICES"
            ok(await s.call_tool("configure", {"device": phone.address}))
            r = ok(await s.call_tool("snapshot", {}))
            assert r.structured_content["device"] == phone.address

        run_http(server.url, server.token, body)
    finally:
        gen.close()


@pytest.mark.fast
def test_parse_http():
    from baremobile.errors import InvalidArgument
    from baremobile.tools.mcp_server import parse_http

    assert parse_http("8765") == ("127.0.0.1", 8765)
    assert parse_http(":8765") == ("127.0.0.1", 8765)
    assert parse_http("0.0.0.0:80") == ("0.0.0.0", 80)
    assert parse_http("[::1]:9000") == ("::1", 9000)
    assert parse_http("localhost:1") == ("localhost", 1)
    for bad in ("", "host:", "a:b", "1.2.3.4:70000"):
        with pytest.raises(InvalidArgument):
            parse_http(bad)


@pytest.mark.fast
def test_bearer_auth_unit():
    from baremobile.tools.mcp_server import BearerAuth

    calls: list[str] = []

    async def app(scope, receive, send):
        calls.append(scope["type"])

    sent: list[dict] = []

    async def send(msg):
        sent.append(msg)

    async def go() -> None:
        auth = BearerAuth(app, "tok")
        await auth({"type": "lifespan"}, None, send)
        await auth({"type": "http", "headers": [(b"authorization", b"Bearer tok")]}, None, send)
        await auth({"type": "http", "headers": [(b"authorization", b"Bearer tok2")]}, None, send)
        await auth({"type": "http", "headers": []}, None, send)

    anyio.run(go)
    assert calls == ["lifespan", "http"]
    assert [m["status"] for m in sent if m["type"] == "http.response.start"] == [401, 401]
    with pytest.raises(ValueError):
        BearerAuth(app, "")


def test_http_cancelled_call_aborts_and_never_stalls_another_session(http_server, phone):
    """issue 15 item 1: a client cancels a snapshot stuck in a 10 s dump; another session's
    tools/list answers at once, the dump stops on the device, and the device is free."""
    phone.model.faults.set(None, delay_s=10.0)
    timings: dict[str, float] = {}
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client


    async def main() -> None:
        def client():
            http = create_mcp_http_client(
                headers={"Authorization": f"Bearer {http_server.token}"})
            return http, streamable_http_client(http_server.url, http_client=http)

        http_a, conn_a = client()
        http_b, conn_b = client()
        async with http_a, conn_a as (ra, wa), ClientSession(ra, wa) as a, \
                http_b, conn_b as (rb, wb), ClientSession(rb, wb) as b:
            with anyio.fail_after(60):
                await a.initialize()
                await b.initialize()
                ok(await a.call_tool("devices", {}))
                with anyio.move_on_after(1.5) as scope:
                    await a.call_tool("snapshot", {})
                assert scope.cancelled_caught
                t0 = time.monotonic()
                tools = await b.list_tools()
                timings["list"] = time.monotonic() - t0
                assert tools.tools
                phone.model.faults.set(None, delay_s=0)
                t0 = time.monotonic()
                r = ok(await b.call_tool("snapshot", {}))
                timings["snapshot"] = time.monotonic() - t0
                assert "[ref=" in r.content[0].text

    anyio.run(main)
    assert timings["list"] < 2.0, timings
    assert timings["snapshot"] < 5.0, timings  # not BUSY behind the cancelled dump
    assert len(phone.events.list("dump")) == 1  # the cancelled one never finished


# -- the stateless mode (issue 29: clients that send single requests, e.g. ARC's) ------------


PING = {"jsonrpc": "2.0", "id": 7, "method": "ping"}


def post(url: str, body: dict, headers: dict[str, str]) -> tuple[int, bytes, str]:
    """One POST as a plain HTTP client sends it: no Accept unless given (urllib sends none)."""
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=20) as resp:
            return resp.status, resp.read(), resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("Content-Type", "")


def _stateless(phone, *more: str, host: str = "127.0.0.1") -> Iterator[HttpServer]:
    env = server_env(BAREMOBILE_MCP_TOKEN="s3cret-token")
    gen = _start(["--http", f"{host}:0", "--stateless", "--device", phone.address, *more], env)
    server = next(gen)
    server.token = "s3cret-token"
    server.url = server.url.replace("0.0.0.0", "127.0.0.1")  # reach a wildcard bind
    return gen, server


def test_stateless_answers_a_single_request_without_initialize(phone):
    """A lone tools/call (no initialize, no session id, no Accept) is answered with one
    JSON body; the stateful default answers it 400 'Missing session ID'."""
    gen, server = _stateless(phone)
    try:
        call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "press", "arguments": {"key": "home"}}}
        since = phone.events.last_seq
        status, body, kind = post(server.url, call, {"Authorization": "Bearer s3cret-token"})
        assert status == 200 and kind.startswith("application/json"), body
        reply = json.loads(body)
        assert reply["id"] == 3 and reply["result"]["isError"] is False
        assert [e["keycode"] for e in phone.events.list("key", since=since)] == [3]
        status, body, _ = post(server.url, PING, {"Authorization": "Bearer s3cret-token",
                                                  "Accept": "*/*"})  # curl's Accept
        assert status == 200 and json.loads(body) == {"jsonrpc": "2.0", "id": 7,
                                                      "result": {}}
        assert "stateless" in "\n".join(server.stderr)
    finally:
        gen.close()


def test_stateless_serves_the_sdk_client(phone):
    gen, server = _stateless(phone)
    try:
        async def body(s: ClientSession) -> None:
            await drive_device_flow(s, phone)

        run_http(server.url, server.token, body)
    finally:
        gen.close()


def _refusals(url: str, port: int, host: str = "127.0.0.1") -> dict[str, int]:
    token = {"Authorization": "Bearer s3cret-token"}
    return {
        "no token": post(url, PING, {})[0],
        "wrong token": post(url, PING, {"Authorization": "Bearer s3cret-tokem"})[0],
        "foreign Host": post(url, PING, {**token, "Host": f"evil.example:{port}"})[0],
        "foreign Origin": post(url, PING, {**token, "Origin": "http://evil.example"})[0],
        "rebound Origin": post(url, PING, {**token, "Host": f"evil.example:{port}",
                                           "Origin": f"http://evil.example:{port}"})[0],
        "own Host": post(url, PING, {**token, "Host": f"{host}:{port}"})[0],
        "own Origin": post(url, PING, {**token, "Origin": f"http://{host}:{port}"})[0],
    }


_REFUSED = {"no token": 401, "wrong token": 401, "foreign Host": 421, "foreign Origin": 403,
            "rebound Origin": 421, "own Host": 200, "own Origin": 200}


def test_stateless_refuses_a_wrong_token_and_a_foreign_host_on_loopback(phone):
    gen, server = _stateless(phone)
    try:
        port = int(server.url.rsplit(":", 1)[1].split("/")[0])
        assert _refusals(server.url, port) == _REFUSED
        assert phone.events.list("key") == []
    finally:
        gen.close()


def test_host_and_origin_checks_hold_off_loopback(phone):
    """Bound beyond loopback the SDK checks no Host or Origin: we do, on every bind — a
    loopback alias (127.0.0.2, which the SDK does not take for loopback) and every
    interface (0.0.0.0, where this computer's names and --allow-host's are accepted)."""
    import socket

    gen, server = _stateless(phone, host="127.0.0.2")
    try:
        port = int(server.url.rsplit(":", 1)[1].split("/")[0])
        assert _refusals(server.url, port, "127.0.0.2") == _REFUSED
    finally:
        gen.close()
    gen, server = _stateless(phone, "--allow-host", "bridge.example.org", host="0.0.0.0")
    try:
        port = int(server.url.rsplit(":", 1)[1].split("/")[0])
        assert _refusals(server.url, port) == _REFUSED
        token = {"Authorization": "Bearer s3cret-token"}
        for name in (socket.gethostname(), "bridge.example.org"):
            assert post(server.url, PING, {**token, "Host": f"{name}:{port}"})[0] == 200
        assert post(server.url, PING, {**token, "Host": "bridge.example.org",
                                       "Origin": "https://bridge.example.org"})[0] == 200
        assert any("Host is one of" in line and "bridge.example.org" in line
                   for line in server.stderr)
    finally:
        gen.close()
    # the stateful server too
    env = server_env(BAREMOBILE_MCP_TOKEN="s3cret-token")
    gen2 = _start(["--http", "0.0.0.0:0", "--device", phone.address], env)
    server = next(gen2)
    try:
        url = server.url.replace("0.0.0.0", "127.0.0.1")
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        assert raw_post(url, {"Authorization": "Bearer s3cret-token",
                              "Host": f"evil.example:{port}"})[0] == 421
        assert raw_post(url, {"Authorization": "Bearer s3cret-token"})[0] == 200
    finally:
        gen2.close()


def test_stateless_and_allow_host_need_http(phone, tmp_path):
    import subprocess

    for flag in (["--stateless"], ["--allow-host", "x.example"]):
        done = subprocess.run([sys.executable, "-m", "baremobile", "mcp", *flag],
                              env=server_env(), stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=60)
        assert done.returncode != 0 and done.stdout == b""
        assert b"is for the HTTP server" in done.stderr and b"--http" in done.stderr, \
            done.stderr
