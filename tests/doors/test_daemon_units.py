"""The daemon's pieces without a socket: the line framing and request checks (property-
tested), version ordering, the pool's bookkeeping, adb server socket specs, and the lazy
package facade that keeps the CLI's start fast."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baremobile.daemon import protocol as proto
from baremobile.daemon.errors import DeviceAssigned
from baremobile.daemon.pool import Pool, server_spec, split_server_spec
from baremobile.daemon.versions import compare
from baremobile.errors import InvalidArgument
from baremobile.transport.server import parse_server_socket, server_address

lines = st.lists(st.binary(max_size=60).map(lambda b: b.replace(b"\n", b"")), max_size=12)


@pytest.mark.fast
@given(lines, st.lists(st.integers(min_value=1, max_value=50), min_size=1, max_size=20))
def test_line_buffer_any_chunking_gives_the_same_lines(items, cuts):
    data = b"".join(x + b"\n" for x in items)
    buf = proto.LineBuffer(limit=1000)
    out, i, k = [], 0, 0
    while i < len(data):
        step = cuts[k % len(cuts)]
        out += buf.feed(data[i:i + step])
        i, k = i + step, k + 1
    expected = [x[:-1] if x.endswith(b"\r") else x for x in items]
    assert out == expected and buf.pending == 0


@pytest.mark.fast
@given(lines, st.integers(min_value=1, max_value=40))
def test_line_buffer_oversized_lines_are_one_marker_each(items, limit):
    data = b"".join(x + b"\n" for x in items)
    buf = proto.LineBuffer(limit=limit)
    out = []
    for j in range(0, len(data), 7):
        out += buf.feed(data[j:j + 7])
    assert len(out) == len(items)
    for got, item in zip(out, items, strict=True):
        if len(item) > limit:
            assert isinstance(got, proto.Oversized) and got.length == len(item)
        else:
            assert got == (item[:-1] if item.endswith(b"\r") else item)
    assert buf.pending <= limit


@pytest.mark.fast
@given(st.binary(max_size=300))
def test_parse_request_refuses_garbage_only_with_protocol_faults(raw):
    try:
        req = proto.parse_request(raw)
    except proto.ProtocolFault as fault:
        assert fault.code in ("PARSE_ERROR", "INVALID_REQUEST") and fault.message
    else:
        assert isinstance(req.method, str) and req.method and isinstance(req.params, dict)


@pytest.mark.fast
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
                    lambda kids: st.lists(kids, max_size=3) |
                    st.dictionaries(st.text(max_size=8), kids, max_size=3), max_leaves=10))
def test_parse_request_on_any_json(value):
    line = json.dumps({"id": "x", "method": "m", "params": value, "timeoutMs": value})
    try:
        req = proto.parse_request(line)
    except proto.ProtocolFault as fault:
        assert fault.request_id == "x" and fault.code == "INVALID_REQUEST"
    else:
        assert req.params == (value or {}) and req.id == "x"


@pytest.mark.fast
def test_parse_request_defaults_and_response_shapes():
    req = proto.parse_request(b'{"id": 7, "method": "daemon/ping"}')
    assert (req.id, req.type, req.params, req.timeout_ms) == (7, "daemon_request", {}, None)
    assert proto.failure("1", "X", "m", "h") == {
        "id": "1", "type": "mcp_response", "success": False, "error": "m", "code": "X",
        "hint": "h", "category": "X"}
    assert proto.parse_response(proto.encode(proto.progress("1", 5, 10)))["progress"] == \
        {"done": 5, "total": 10}
    with pytest.raises(proto.ProtocolFault):
        proto.parse_response(b'{"id": "1", "type": "mcp_response"}')


@pytest.mark.fast
def test_version_order():
    assert compare("0.1.0.dev0", "0.1.0") == -1
    assert compare("0.1.0", "0.1") == 0
    assert compare("1.0rc1", "1.0b2") == 1
    assert compare("1.0.post1", "1.0") == 1
    assert compare("2.0.dev3", "1.9.9") == 1
    assert compare("99.0", "0.1.0.dev0") == 1
    assert compare("unknown", "1.0") is None and compare("1.0", "1.0+local") is None


@pytest.mark.fast
@given(st.lists(st.integers(0, 20), min_size=1, max_size=4),
       st.sampled_from(["", "a1", "b2", "rc1", ".post1", ".dev2"]),
       st.lists(st.integers(0, 20), min_size=1, max_size=4),
       st.sampled_from(["", "a1", "b2", "rc1", ".post1", ".dev2"]))
def test_version_order_is_antisymmetric(r1, s1, r2, s2):
    a = ".".join(map(str, r1)) + s1
    b = ".".join(map(str, r2)) + s2
    assert compare(a, b) == -compare(b, a)  # type: ignore[operator]
    assert compare(a, a) == 0


@pytest.mark.fast
def test_pool_claims_and_explains():
    pool = Pool(configured=["a:1", "b:2"])
    assert pool.candidates() == ["a:1", "b:2"]
    dev, fresh = pool.claim("s1", "a:1")
    assert fresh and dev.state == "assigned"
    assert pool.claim("s1", "a:1")[1] is False  # already its own
    with pytest.raises(DeviceAssigned, match="session 's1'"):
        pool.claim("s2", "a:1")
    pool.claim("s2", "b:2")
    pool.mark_error("b:2", {"code": "DEVICE_DISCONNECTED", "message": "gone"})
    err = pool.no_free_device()
    assert "a:1 (session s1)" in err.message and "b:2 (DEVICE_DISCONNECTED)" in err.message
    assert pool.stats() == {"total": 2, "idle": 0, "assigned": 1, "error": 1}
    assert pool.release("s1") == ["a:1"] and pool.candidates() == ["a:1"]
    named, _ = pool.claim("s3", "virtual")
    assert named.source == "named"


@pytest.mark.fast
def test_pool_refresh_lists_sources_and_probes_the_rest():
    listed = [{"serial": "emulator-5554", "state": "device", "kind": "emulator"},
              {"serial": "R58", "state": "unauthorized"}]
    probed = []
    pool = Pool(configured=["10.0.0.2:5555"], discover=lambda: listed,
                servers=[("farm1", 5037)],
                list_server=lambda h, p: [{"serial": "X1", "state": "device"}])

    def probe(spec):
        probed.append(spec)
        return {"code": "NO_DEVICES", "message": "down"}

    out = pool.refresh(probe)
    assert out["addedDevices"] == 3 and probed == ["10.0.0.2:5555"]
    states = {d["device"]: d["state"] for d in pool.snapshot()}
    assert states == {"10.0.0.2:5555": "error", "emulator-5554": "idle", "R58": "error",
                      "adb:X1@farm1:5037": "idle"}
    assert pool.candidates(server=("farm1", 5037)) == ["adb:X1@farm1:5037"]


@pytest.mark.fast
def test_a_source_that_fails_to_answer_keeps_its_devices():
    """Discovery or an adb server that fails for a moment (a timeout under load, a server
    restarting) is a note, not "every device of it is gone": its devices stay, a session
    keeps the one it holds, and nobody else can claim it meanwhile. A source that answers
    without a device does remove it."""
    answers = {"discovery": [{"serial": "emulator-5554", "state": "device"}],
               "farm": [{"serial": "X1", "state": "device"}]}

    def discover():
        if answers["discovery"] is None:
            raise OSError("adb server timed out")
        return answers["discovery"]

    def list_server(host, port):
        if answers["farm"] is None:
            raise OSError("connection refused")
        return answers["farm"]

    pool = Pool(discover=discover, servers=[("farm1", 5037)], list_server=list_server)
    pool.refresh(lambda spec: None)
    pool.claim("s1", "emulator-5554")
    pool.claim("s1", "adb:X1@farm1:5037")
    answers["discovery"] = answers["farm"] = None
    out = pool.refresh(lambda spec: None)
    assert len(out["notes"]) == 2
    assert pool.of_session("s1") == ["emulator-5554", "adb:X1@farm1:5037"]
    with pytest.raises(DeviceAssigned):
        pool.claim("s2", "emulator-5554")
    answers["discovery"], answers["farm"] = [], []  # they answer: both devices are gone
    pool.refresh(lambda spec: None)
    assert pool.snapshot() == []


@pytest.mark.fast
@given(st.text(st.characters(blacklist_characters="\n@", blacklist_categories=("Cs",)),
               min_size=1, max_size=30),
       st.sampled_from(["farm1", "10.0.0.7", "::1", "host.lan"]),
       st.integers(1, 65535))
def test_server_specs_round_trip(serial, host, port):
    assert split_server_spec(server_spec(serial, host, port)) == (serial, host, port)


@pytest.mark.fast
def test_adb_server_socket_specs(monkeypatch):
    assert parse_server_socket("tcp:5038") == ("127.0.0.1", 5038)
    assert parse_server_socket("tcp:farm1:5037") == ("farm1", 5037)
    assert parse_server_socket("tcp:[::1]:5037") == ("::1", 5037)
    for bad in ("localfilesystem:/x", "tcp:", "tcp:host:0", "tcp:h:99999", "5037"):
        with pytest.raises(InvalidArgument, match="tcp:HOST:PORT"):
            parse_server_socket(bad)
    # adb's order: $ADB_SERVER_SOCKET, else $ANDROID_ADB_SERVER_ADDRESS / _PORT
    monkeypatch.setenv("ANDROID_ADB_SERVER_ADDRESS", "h2")
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "6000")
    assert server_address() == ("h2", 6000)
    monkeypatch.setenv("ADB_SERVER_SOCKET", "tcp:h3:7000")
    assert server_address() == ("h3", 7000)
    monkeypatch.setenv("ADB_SERVER_SOCKET", "garbage")
    with pytest.raises(InvalidArgument):
        server_address()


# -- the package facade ----------------------------------------------------------------------


def _fresh(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120).stdout.strip()


@pytest.mark.fast
def test_importing_the_cli_loads_no_device_stack():
    # Only what our imports add counts: an interpreter whose site-packages run a .pth that
    # imports typing at start-up (CI's does) has it loaded before any baremobile code runs.
    loaded = json.loads(_fresh(
        "import sys, json; before = set(sys.modules); "
        "import baremobile.cli, baremobile.cli.session, baremobile.cli.output, "
        "baremobile.daemon.client; print(json.dumps(sorted(set(sys.modules) - before)))"))
    assert "baremobile.cli.session" in loaded
    for heavy in ("adb_shell", "mcp", "typing", "dataclasses", "baremobile.page",
                  "baremobile.transport", "baremobile.tools", "baremobile.snapshot", "logging"):
        assert heavy not in loaded, f"{heavy} is on the CLI's fast path"


def test_the_public_surface_is_unchanged_and_lazy():
    import baremobile
    from baremobile import page, snapshot
    from baremobile.page import aio as async_page
    from baremobile.transport import discovery

    assert callable(baremobile.snapshot) and baremobile.snapshot is snapshot
    assert baremobile.snapshot.from_xml is not None
    expected = {"AsyncPage": async_page.AsyncPage, "connect_async": async_page.connect_async,
                "Page": page.Page, "Screenshot": page.Screenshot, "Selector": page.Selector,
                "connect": page.connect, "Snapshot": snapshot.Snapshot,
                "DeviceInfo": discovery.DeviceInfo, "devices": discovery.devices}
    for name, obj in expected.items():
        assert getattr(baremobile, name) is obj
    for name in baremobile.__all__:
        assert getattr(baremobile, name) is not None and name in dir(baremobile)
    with pytest.raises(AttributeError):
        baremobile.no_such_name  # noqa: B018
    # in a fresh interpreter: nothing heavy until asked, then every import order works
    assert _fresh("import sys, baremobile; print('baremobile.page' in sys.modules)") == "False"
    for code in ("import baremobile.snapshot, baremobile; print(callable(baremobile.snapshot))",
                 "from baremobile import snapshot; print(callable(snapshot))",
                 "import baremobile.page, baremobile; print(callable(baremobile.snapshot))",
                 "from baremobile import *; print(callable(snapshot) and bool(connect))"):
        assert _fresh(code) == "True", code


def test_the_client_waits_the_deadline_the_daemon_gave(monkeypatch, daemon_socket):
    """The client does not pad a call blindly: the daemon tells it the deadline it gave the
    request (timeoutMs raised to the tool's floor, baremobile.timeouts), and the client waits
    that long — a one-second wait asked with timeoutMs 100 is answered, not abandoned."""
    from baremobile.daemon import client as client_module
    from baremobile.daemon.client import Client
    from baremobile.virtual import VirtualPhone
    from tests.conftest import free_port
    from tests.daemon_helpers import running_daemon

    monkeypatch.setattr(client_module, "_GRACE", 0.2)  # without the deadline: 0.3 s
    with VirtualPhone(port=free_port()) as phone, \
            running_daemon(daemon_socket, devices=[phone.address]), \
            Client(daemon_socket, autostart=False) as client:
        t0 = time.monotonic()
        got = client.request("tools/call", {"name": "wait", "arguments": {"seconds": 1},
                                            "session": "s"}, timeout_ms=100)
        assert got["ok"] and time.monotonic() - t0 >= 1.0
