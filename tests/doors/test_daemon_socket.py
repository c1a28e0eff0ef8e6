"""The daemon's NDJSON protocol driven by a raw socket client: every method, bad lines,
oversized lines, clients that vanish, many clients at once, timeouts and a stuck device.
Whatever arrives, the daemon answers every request exactly once and keeps running."""

from __future__ import annotations

import json
import os
import socket
import stat
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baremobile.daemon import paths
from baremobile.daemon import protocol as proto
from baremobile.daemon.errors import DaemonError
from baremobile.daemon.hub import Hub
from baremobile.daemon.methods import METHODS
from baremobile.daemon.server import DaemonServer
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.daemon_helpers import RawClient, running_daemon, wait_until


@pytest.fixture
def two_phones():
    with VirtualPhone(port=free_port()) as a, VirtualPhone(port=free_port()) as b:
        yield a, b


@pytest.mark.fast
def test_every_method_answers_in_the_envelope(phone: VirtualPhone, daemon_socket: str):
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        seen = set()

        def call(method, params=None, rid=None):
            rid = rid or f"r-{len(seen)}"
            seen.add(method)
            reply = c.call(method, params, rid=rid)
            assert reply["id"] == rid and reply["type"] == "mcp_response", reply
            assert reply["success"], reply
            return reply["result"]

        assert call("daemon/ping")["ok"] is True
        status = call("daemon/status")
        assert status["version"] and status["uptimeMs"] >= 0 and status["pid"] == os.getpid()
        assert {m["name"] for m in call("daemon/methods")["methods"]} == set(METHODS)
        pool = call("daemon/availableDevices")
        assert pool["stats"] == {"total": 1, "idle": 1, "assigned": 0, "error": 0}
        assert pool["availableDevices"] == 1 and pool["devices"][0]["state"] == "idle"
        assert call("daemon/refreshDevices")["addedDevices"] == 0  # discovery is off
        opened = call("daemon/openSession", {"sessionId": "s1"})
        assert opened["assignedDevice"] == phone.address
        tools = call("tools/list")["tools"]
        assert {"snapshot", "tap", "logcat", "configure"} <= {t["name"] for t in tools}
        assert all("inputSchema" in t and "annotations" in t for t in tools)
        assert [t["name"] for t in call("tools/list", {"groups": []})["tools"]][:2] == \
            ["snapshot", "tap"]
        snap = call("tools/call", {"name": "snapshot", "arguments": {}, "session": "s1"})
        assert snap["ok"] and "[ref=" in snap["snapshot"]
        info = call("daemon/sessionInfo", {"sessionId": "s1"})
        assert info["refs"] == snap["refs"] and info["calls"] == 1
        assert call("daemon/cancel", {"requestId": "nothing"}) == {"cancelled": 0}
        graph = c.call("ide/getNavigationGraph", {"sessionId": "s1"}, rid="graph")
        assert graph["success"]  # kept for every session, untraced too (AutoMobile's shape)
        assert json.loads(graph["result"]["content"][0]["text"])["nodeCount"] == 1
        seen.add("ide/getNavigationGraph")
        released = call("daemon/releaseSession", {"sessionId": "s1"})
        assert released["alreadyReleased"] is False and released["device"] == phone.address
        assert call("daemon/releaseSession", {"sessionId": "s1"})["alreadyReleased"] is True
        bad = c.call("daemon/sessionInfo", {"sessionId": "s1"}, rid="gone")
        assert not bad["success"] and bad["code"] == "SESSION_NOT_FOUND" and bad["hint"]
        assert call("daemon/shutdown")["ok"] is True
        seen.add("daemon/shutdown")
        # AutoMobile's other ide/* and resources/* methods: test_daemon_automobile.py runs them
        assert seen == {m for m in METHODS if not m.startswith(("ide/", "resources/"))} | \
            {"ide/getNavigationGraph"}


@pytest.mark.fast
def test_bad_lines_each_get_one_error_and_the_daemon_goes_on(daemon_socket: str):
    with running_daemon(daemon_socket) as server:
        c = RawClient(daemon_socket)
        cases = [
            (b"this is not json", None, "PARSE_ERROR"),
            (b"\xff\xfe garbage", None, "PARSE_ERROR"),
            (b"[1, 2, 3]", None, "INVALID_REQUEST"),
            (b'{"id": "a"}', "a", "INVALID_REQUEST"),
            (b'{"id": {"x": 1}, "method": "daemon/ping"}', None, "INVALID_REQUEST"),
            (b'{"id": "b", "method": "daemon/ping", "type": "nope"}', "b", "INVALID_REQUEST"),
            (b'{"id": "c", "method": "daemon/ping", "params": [1]}', "c", "INVALID_REQUEST"),
            (b'{"id": "d", "method": "daemon/ping", "timeoutMs": -5}', "d", "INVALID_REQUEST"),
            (b'{"id": "e", "method": "no/such"}', "e", "UNKNOWN_METHOD"),
            (b'{"id": "f", "method": "tools/call", "params": {"name": 5}}', "f",
             "INVALID_ARGUMENT"),
            (b'{"id": "g", "method": "tools/call", "params": {"name": "nope", '
                 b'"format": "baremobile"}}', "g",
             "UNKNOWN_TOOL"),
            (b'{"id": "h", "method": "daemon/openSession", "params": {"sessionId": "a b"}}',
             "h", "INVALID_ARGUMENT"),
            # Python's JSON reads NaN and Infinity: the tool's validator refuses them (the
            # timeout floor choked on NaN: INTERNAL_ERROR)
            (b'{"id": "i", "method": "tools/call", "params": {"name": "wait_for_text", '
             b'"arguments": {"text": "x", "timeout": NaN}, "format": "baremobile"}}', "i",
                 "INVALID_ARGUMENT"),
            (b'{"id": "j", "method": "tools/call", "params": {"name": "wait_stable", '
             b'"arguments": {"timeout": -Infinity}, "format": "baremobile"}}', "j",
                 "INVALID_ARGUMENT"),
        ]
        c.send_raw(b"\n   \n")  # blank lines are no requests: no answers
        for line, rid, code in cases:
            c.send_raw(line + b"\n")
            reply = c.read()
            assert reply["success"] is False and reply["code"] == code, (line, reply)
            assert reply["id"] == rid and reply["type"] == "mcp_response"
            assert isinstance(reply["error"], str) and reply["error"]
            assert reply["category"] in ("INVALID_ARGUMENT",), reply
        # an oversized line: one LINE_TOO_LONG, its bytes skipped, the connection kept
        c.send_raw(b'{"id": "big", "method": "daemon/ping", "params": {"x": "')
        c.send_raw(b"x" * (proto.MAX_LINE + 10))
        c.send_raw(b'"}}\n{"id": "after", "method": "daemon/ping"}\n')
        big = c.read()
        assert big["code"] == "LINE_TOO_LONG" and big["id"] is None
        assert c.read()["id"] == "after"
        assert not server.stopping.is_set()


_line = st.one_of(
    st.binary(max_size=80).map(lambda b: b.replace(b"\n", b"")),
    st.builds(lambda rid, m: json.dumps({"id": rid, "method": m}).encode(),
              st.one_of(st.none(), st.integers(), st.text(max_size=20)),
              st.sampled_from(["daemon/ping", "daemon/methods", "no/such", ""])),
    st.sampled_from([b"", b" \t", b"\r", b"{", b"[]", b"null", b'{"id": true}',
                     '{"id": "é", "method": "daemon/ping"}'.encode("utf-16")]),
)


def test_any_bytes_in_any_pieces_get_one_answer_per_line(daemon_socket: str):
    """Whatever bytes a client sends, cut anywhere (CRLF or LF endings, invalid UTF-8,
    UTF-16, bare JSON values): one answer per non-blank line, in order, and the connection
    still works after. (One daemon for every example.)"""

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.tuples(_line, st.booleans()), max_size=15),
           st.lists(st.integers(1, 97), min_size=1, max_size=8))
    def check(lines, cuts):
        data = b"".join(line + (b"\r\n" if crlf else b"\n") for line, crlf in lines)
        wanted = sum(1 for line, _ in lines if line.strip())
        c = RawClient(daemon_socket, timeout=30)
        try:
            i = k = 0
            while i < len(data):
                step = cuts[k % len(cuts)]
                c.send_raw(data[i:i + step])
                i, k = i + step, k + 1
            replies = [c.read() for _ in range(wanted)]
            assert all(r["type"] == "mcp_response" for r in replies)
            assert c.call("daemon/ping", rid="last")["id"] == "last"  # nothing else first
        finally:
            c.close()

    with running_daemon(daemon_socket) as server:
        check()
        assert not server.stopping.is_set()


def test_a_client_that_hangs_up_has_its_request_cancelled(phone: VirtualPhone,
                                                         daemon_socket: str):
    with running_daemon(daemon_socket, devices=[phone.address]) as server:
        c = RawClient(daemon_socket)
        c.call("daemon/openSession", {"sessionId": "s"})
        c.send({"id": "w", "method": "tools/call", "params": {
            "name": "wait_for_text", "arguments": {"text": "never on screen", "timeout": 60},
            "session": "s"}})
        assert wait_until(lambda: len(phone.events.list("dump")) >= 1)
        c.close()  # gone mid-request
        assert wait_until(lambda: server.status()["requestsInFlight"] == 0), \
            "the request of a client that hung up was not cancelled"
        dumps = len(phone.events.list("dump"))
        time.sleep(1.0)
        assert len(phone.events.list("dump")) <= dumps + 1  # the polling stopped
        d = RawClient(daemon_socket)
        assert d.call("daemon/ping")["success"]
        assert d.call("tools/call", {"name": "press", "arguments": {"key": "back"},
                                     "session": "s"})["success"]


def test_a_half_closed_client_still_gets_its_answer(phone: VirtualPhone, daemon_socket: str):
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        c.call("daemon/openSession", {"sessionId": "s"})
        c.send({"id": "x", "method": "tools/call",
                "params": {"name": "snapshot", "arguments": {}, "session": "s"}})
        c.sock.shutdown(socket.SHUT_WR)  # as `nc -N` does after its last line
        reply = c.read()
        assert reply["id"] == "x" and reply["success"] and "[ref=" in reply["result"]["snapshot"]


def test_twenty_clients_at_once(phone: VirtualPhone, daemon_socket: str):
    with running_daemon(daemon_socket, devices=[phone.address]) as server:
        RawClient(daemon_socket).call("daemon/openSession", {"sessionId": "shared"})
        replies: dict[int, list[dict]] = {}
        errors: list[BaseException] = []

        def client(n: int) -> None:
            try:
                c = RawClient(daemon_socket)
                got = []
                requests = [("daemon/ping", {}), ("daemon/status", {}), ("tools/list", {}),
                            ("tools/call", {"name": "press", "arguments": {"key": "back"},
                                            "session": "shared"})]
                for i, (method, params) in enumerate(requests):  # pipelined
                    c.send({"id": f"{n}-{i}", "method": method, "params": params})
                for _ in requests:
                    got.append(c.read())
                replies[n] = got
                c.close()
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=client, args=(n,)) for n in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors
        assert len(replies) == 20
        presses = 0
        for n, got in replies.items():
            assert sorted(r["id"] for r in got) == [f"{n}-{i}" for i in range(4)]
            press = next(r for r in got if r["id"] == f"{n}-3")
            if press["success"]:
                presses += 1
            else:  # one device, one call at a time: the others waited or answer BUSY
                assert press["code"] == "BUSY", press
        assert presses == len(phone.events.list("key")) and presses >= 1
        assert not server.stopping.is_set()
        assert wait_until(lambda: server.status()["connections"] == 0)


def test_timeout_answers_at_once_and_a_stuck_device_blocks_no_one_else(two_phones,
                                                                       daemon_socket):
    stuck, fine = two_phones
    with running_daemon(daemon_socket, devices=[stuck.address, fine.address]):
        c = RawClient(daemon_socket)
        c.call("daemon/openSession", {"sessionId": "a", "device": stuck.address})
        c.call("daemon/openSession", {"sessionId": "b", "device": fine.address})
        stuck.faults.add("stall", service="shell", count=-1)  # every command hangs
        started = time.monotonic()
        c.send({"id": "slow", "method": "tools/call", "timeoutMs": 500,
                "params": {"name": "press", "arguments": {"key": "back"}, "session": "a"}})
        other = RawClient(daemon_socket)  # meanwhile, another session on another phone
        for key in ("home", "back"):
            reply = other.call("tools/call", {"name": "press", "arguments": {"key": key},
                                              "session": "b"}, rid=key)
            assert reply["success"], reply
        assert other.call("daemon/status")["success"]
        slow = c.read()
        elapsed = time.monotonic() - started
        assert slow["id"] == "slow" and slow["code"] == "TIMEOUT" and slow["category"] == \
            "TIMEOUT" and slow["error"] == "MCP error -32001: Request timed out"
        assert slow["errorCode"] == -32001 and "timeoutMs" in slow["hint"]
        assert elapsed < 10  # answered at its deadline, not the device's 30 s command timeout
        assert [e["keycode"] for e in fine.events.list("key")] == [3, 4]
        assert not stuck.events.list("key")
        stuck.faults.clear()
        # the stuck work was aborted at once: the session reconnects and works again
        again = c.call("tools/call", {"name": "press", "arguments": {"key": "back"},
                                      "session": "a"}, rid="again")
        assert again["success"], again
        assert stuck.events.list("key")[-1]["keycode"] == 4
        assert time.monotonic() - started < 15


def test_timeout_floors_lift_short_timeouts(phone: VirtualPhone, daemon_socket: str):
    with running_daemon(daemon_socket, devices=[phone.address],
                        floors_ms={"press": 1234}) as server:
        hub = server.hub
        assert hub.floor_ms("snapshot", {}, None) == 10_000
        assert hub.floor_ms("press", {}, None) == 1234
        assert hub.floor_ms("wait_for_text", {"timeout": 3}, None) == 13_000
        # a tool acting on a ref may read the screen again first (a stale ref): a dump's
        assert hub.floor_ms("tap", {}, None) == 10_000
        assert hub.floor_ms("swipe", {}, None) == 0  # coordinates: nothing to read
        # every tool that waits by itself gets its own wait and a dump, from its row
        assert hub.floor_ms("wait_for", {"timeout": 40}, None) == 50_000
        assert hub.floor_ms("wait_for", {}, None) == 20_000  # the session's 10 s
        assert hub.floor_ms("eval", {"timeout": 40}, None) == 50_000
        assert hub.floor_ms("eval", {}, None) == 20_000  # its own default, 10 s
        assert hub.floor_ms("execute", {"timeout": 40}, None) == 50_000
        assert hub.floor_ms("execute", {}, None) == 0  # no limit of its own
        c = RawClient(daemon_socket)
        c.call("daemon/openSession", {"sessionId": "s"})
        # 1 ms would time any dump out; the snapshot floor gives it 10 s
        reply = c.call("tools/call", {"name": "snapshot", "arguments": {}, "session": "s"},
                       timeoutMs=1)
        assert reply["success"], reply
        # the session named as sessionId (as openSession names it) is the one whose
        # settings lift the floor: observing actions get a dump's worth
        c.call("tools/call", {"name": "configure", "arguments": {"observe": True},
                              "sessionId": "s"})
        assert hub.floor_ms("back", {}, "s") == 10_000 + 500  # a dump and the settle time
        reply = c.call("tools/call", {"name": "back", "arguments": {}, "sessionId": "s"},
                       timeoutMs=1)
        assert reply["success"] and "snapshot" in reply["result"], reply
        bad = c.call("tools/call", {"name": "press", "arguments": {"key": "back"},
                                    "session": {"not": "a name"}})
        assert bad["code"] == "INVALID_ARGUMENT", bad


def test_a_wait_longer_than_the_request_timeout_gets_its_own_time(phone: VirtualPhone,
                                                                  daemon_socket: str):
    """``wait_for`` with ``timeout: 3`` under a request that asked for 1 s waits its 3 s (its
    floor comes from its row) and answers the tool's own TIMEOUT, not the daemon's."""
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        c.call("daemon/openSession", {"sessionId": "s"})
        started = time.monotonic()
        reply = c.call("tools/call", {"name": "wait_for", "arguments": {
            "selector": {"text": "never on screen"}, "timeout": 3}, "sessionId": "s"},
            timeoutMs=1000)
        waited = time.monotonic() - started
        assert waited > 2, waited  # not cut at the request's 1 s (the poll stops short of 3)
        assert not reply["success"] and "within 3 s" in str(reply), reply


def test_cancel_a_request_of_the_same_connection(phone: VirtualPhone, daemon_socket: str):
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        c.call("daemon/openSession", {"sessionId": "s"})
        c.send({"id": "w", "method": "tools/call", "params": {
            "name": "wait_for_text", "arguments": {"text": "never", "timeout": 60},
            "session": "s"}})
        assert wait_until(lambda: phone.events.list("dump"))
        # a cancel naming no request (or true, which equals 1) names none: refused
        for bad in ({}, {"requestId": None}, {"requestId": True}):
            reply = c.call("daemon/cancel", bad, rid="bad")
            assert reply["code"] == "INVALID_ARGUMENT", reply
        c.send({"id": "c", "method": "daemon/cancel", "params": {"requestId": "w"}})
        replies = {r["id"]: r for r in (c.read(), c.read())}
        assert replies["c"]["result"] == {"cancelled": 1}
        assert replies["w"]["code"] == "CANCELLED"


def test_busy_rule_between_two_clients_of_one_session(phone: VirtualPhone, daemon_socket: str):
    with running_daemon(daemon_socket, devices=[phone.address]):
        a, b = RawClient(daemon_socket), RawClient(daemon_socket)
        a.call("daemon/openSession", {"sessionId": "s"})
        b.call("tools/call", {"name": "configure", "arguments": {"busy_wait": 0},
                              "session": "s"})
        phone.faults.add("stall", service="shell", count=1)
        a.send({"id": "long", "method": "tools/call", "timeoutMs": 1500,
                "params": {"name": "press", "arguments": {"key": "back"}, "session": "s"}})
        time.sleep(0.3)
        busy = b.call("tools/call", {"name": "press", "arguments": {"key": "home"},
                                     "session": "s"}, rid="second")
        assert busy["code"] == "BUSY" and busy["category"] == "BUSY", busy
        assert a.read()["code"] == "TIMEOUT"


# -- the pool -------------------------------------------------------------------------------


def test_pool_two_sessions_in_parallel_a_third_waits_for_a_release(two_phones, daemon_socket):
    a, b = two_phones
    with running_daemon(daemon_socket, devices=[a.address, b.address]):
        c = RawClient(daemon_socket)
        one = c.call("daemon/openSession", {"sessionId": "one"})["result"]["assignedDevice"]
        two = c.call("daemon/openSession", {"sessionId": "two"})["result"]["assignedDevice"]
        assert {one, two} == {a.address, b.address}
        results = {}

        def act(session: str) -> None:
            client = RawClient(daemon_socket)
            results[session] = [client.call("tools/call", {
                "name": "press", "arguments": {"key": "back"}, "session": session},
                rid=str(i))["success"] for i in range(5)]

        threads = [threading.Thread(target=act, args=(s,)) for s in ("one", "two")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert results == {"one": [True] * 5, "two": [True] * 5}
        assert len(a.events.list("key")) == 5 and len(b.events.list("key")) == 5
        third = c.call("daemon/openSession", {"sessionId": "three"})
        assert third["code"] == "NO_FREE_DEVICE" and third["category"] == "DEVICE_UNAVAILABLE"
        assert "session one" in third["error"] and "session two" in third["error"]
        assert third["hint"]
        pool = c.call("daemon/availableDevices")["result"]
        assert pool["stats"] == {"total": 2, "idle": 0, "assigned": 2, "error": 0}
        c.call("daemon/releaseSession", {"sessionId": "one"})
        got = c.call("daemon/openSession", {"sessionId": "three"})["result"]
        assert got["assignedDevice"] == one


def test_a_first_call_adopts_only_a_device_the_allow_list_names(two_phones, daemon_socket):
    """A session's first call naming no device adopts the pool's one free device — among
    those its client allows (the MCP proxy's --allow-device): a device outside the list is
    neither used nor claimed (it stayed assigned to the refused session before)."""
    a, b = two_phones
    press = {"name": "press", "arguments": {"key": "back"}}
    with running_daemon(daemon_socket, devices=[a.address, b.address]):
        c = RawClient(daemon_socket)
        got = c.call("tools/call", {**press, "session": "s", "allowDevices": [b.address]})
        assert got["success"] and got["result"]["device"] == b.address, got
        assert len(b.events.list("key")) == 1 and not a.events.list("key")
        pool = {d["device"]: d.get("session") for d in
                c.call("daemon/availableDevices")["result"]["devices"]}
        assert pool == {a.address: None, b.address: "s"}
    with running_daemon(daemon_socket, devices=[a.address]):
        c = RawClient(daemon_socket)
        got = c.call("tools/call", {**press, "session": "s", "allowDevices": [b.address]})
        assert not got["success"] and got["code"] == "NOT_ALLOWED", got
        assert not a.events.list("key")
        # the failed first call left no session behind (and so no claim on any device)
        assert c.call("daemon/sessionInfo", {"sessionId": "s"})["code"] == "SESSION_NOT_FOUND"
        other = c.call("tools/call", {**press, "session": "t"})  # no list: it may have it
        assert other["success"] and other["result"]["device"] == a.address, other


def test_a_client_that_never_reads_is_dropped(daemon_socket: str):
    """A client that sends requests but never reads the answers (a stuck program) fills the
    socket; after the send timeout it is dropped — its connection closed and no longer
    counted — instead of holding a reader thread and a connection slot until it exits."""
    with running_daemon(daemon_socket, send_timeout=0.3) as server:
        stuck = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stuck.connect(daemon_socket)
        line = proto.encode({"id": 1, "method": "tools/list", "params": {}})
        stuck.sendall(line * 100)  # megabytes of answers, none read
        probe = RawClient(daemon_socket)
        assert wait_until(lambda: probe.call("daemon/status")["result"]["connections"] == 1)
        stuck.settimeout(10)
        with pytest.raises(OSError):  # closed by the daemon: the send side is refused
            for _ in range(1000):
                stuck.sendall(line)
                time.sleep(0.001)
        stuck.close()
        assert server.status()["connections"] == 1


def _unread(sock: socket.socket) -> int:
    import fcntl
    import struct
    import termios

    return struct.unpack("i", fcntl.ioctl(sock, termios.FIONREAD, b"\0" * 4))[0]


def test_stopping_does_not_wait_for_a_client_that_never_reads(daemon_socket: str):
    """A send blocked on a full socket held the connection's write lock, and closing the
    connection took that lock first: stopping the daemon waited out the send timeout."""
    with running_daemon(daemon_socket, send_timeout=120) as server:
        stuck = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stuck.connect(daemon_socket)
        stuck.sendall(proto.encode({"id": 1, "method": "tools/list", "params": {}}) * 100)
        assert wait_until(lambda: _unread(stuck) > 0)  # the daemon is sending: it blocks
        t0 = time.monotonic()
        server.stop_soon("test")
        assert wait_until(lambda: not server.status()["connections"], timeout=20)
    assert time.monotonic() - t0 < 20  # not the 120 s send timeout
    stuck.close()


def test_a_device_that_disconnects_goes_to_error_and_comes_back(daemon_socket: str):
    port = free_port()
    phone = VirtualPhone(port=port).start()
    try:
        with running_daemon(daemon_socket, devices=[phone.address]):
            c = RawClient(daemon_socket)
            c.call("daemon/openSession", {"sessionId": "s"})
            phone.stop()
            reply = c.call("tools/call", {"name": "press", "arguments": {"key": "back"},
                                          "session": "s"})
            assert reply["category"] in ("DEVICE_DISCONNECTED", "DEVICE_UNAVAILABLE"), reply
            pool = c.call("daemon/availableDevices")["result"]
            (dev,) = pool["devices"]
            assert dev["state"] == "error" and dev["session"] == "s" and dev["error"]["code"]
            assert c.call("daemon/refreshDevices")["result"]["errorDevices"] == 1  # still gone
            phone = VirtualPhone(port=port).start()  # back, at the same address
            refreshed = c.call("daemon/refreshDevices")["result"]
            assert refreshed["errorDevices"] == 0 and refreshed["assignedDevices"] == 1
            ok = c.call("tools/call", {"name": "press", "arguments": {"key": "back"},
                                       "session": "s"})
            assert ok["success"], ok
            assert phone.events.list("key")[-1]["keycode"] == 4
    finally:
        phone.stop()


# -- the socket ------------------------------------------------------------------------------


def test_socket_is_private_and_a_second_daemon_is_refused(daemon_socket: str):
    with running_daemon(daemon_socket):
        assert stat.S_IMODE(os.stat(daemon_socket).st_mode) == 0o600
        with pytest.raises(DaemonError, match="another daemon"):
            DaemonServer(Hub(discover=False), daemon_socket).start()
        c = RawClient(daemon_socket)
        assert c.call("daemon/ping")["success"]  # the first one is untouched


def test_default_directory_is_0700_and_unsafe_ones_are_refused(monkeypatch, tmp_path):
    from baremobile.daemon import paths

    monkeypatch.delenv("BAREMOBILE_DAEMON_SOCKET")
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    base = tmp_path / "t"
    base.mkdir()
    monkeypatch.setenv("TMPDIR", str(base))
    sock = paths.socket_path()
    assert sock == str(base / f"baremobile-{os.getuid()}" / "daemon.sock")
    paths.ensure_directory(sock)
    assert stat.S_IMODE(os.stat(os.path.dirname(sock)).st_mode) == 0o700
    os.chmod(os.path.dirname(sock), 0o755)
    with pytest.raises(DaemonError, match="open to others"):
        paths.ensure_directory(sock)
    os.chmod(os.path.dirname(sock), 0o700)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert paths.socket_path() == str(runtime / "baremobile" / "daemon.sock")
    monkeypatch.setenv("BAREMOBILE_DAEMON_SOCKET", "/tmp/" + "x" * 200)
    with pytest.raises(DaemonError, match="shorter path"):
        paths.socket_path()


def test_peers_of_another_uid_are_refused(monkeypatch, daemon_socket: str):
    with running_daemon(daemon_socket):
        c = RawClient(daemon_socket)
        assert paths.peer_uid(c.sock) is None or c.call("daemon/ping")["success"]
        real = paths.peer_uid
        seen = []

        def other_uid(sock):
            seen.append(real(sock))
            return os.getuid() + 1

        monkeypatch.setattr(paths, "peer_uid", other_uid)
        d = RawClient(daemon_socket)
        reply = d.read()
        assert reply["code"] == "PEER_REFUSED" and reply["id"] is None
        with pytest.raises(EOFError):
            d.read()
        assert seen == [os.getuid()]  # the OS told the real uid (Linux SO_PEERCRED)


def test_the_client_refuses_a_daemon_of_another_uid(monkeypatch, daemon_socket: str):
    """The client checks who serves the socket before sending anything: an impostor that
    bound the path first (a socket in a shared directory) never reads a request."""
    from baremobile.daemon.client import Client

    with running_daemon(daemon_socket):
        assert Client(daemon_socket, handshake=False).request("daemon/ping")["ok"]
        monkeypatch.setattr(paths, "_uid", lambda: os.getuid() + 1)
        with pytest.raises(DaemonError, match=f"uid {os.getuid()}, not by you"):
            Client(daemon_socket, handshake=False).request("daemon/ping")


@pytest.mark.skipif(not hasattr(os, "fork") or os.geteuid() != 0,
                    reason="needs root to run a process as another user")
def test_an_impostor_of_another_user_reads_nothing(tmp_path):
    """A real process of uid 65534 listens where the client looks (as another user could
    on a socket path in /tmp): the client refuses it, and it receives no byte."""
    import tempfile

    from baremobile.daemon.client import Client

    folder = tempfile.mkdtemp(prefix="bmo", dir="/tmp")
    os.chmod(folder, 0o777)
    path = os.path.join(folder, "d.sock")
    ready_r, ready_w = os.pipe()
    got_r, got_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the impostor
        try:
            os.setgid(65534)
            os.setuid(65534)
            srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            srv.bind(path)
            srv.listen(1)
            os.write(ready_w, b"1")
            conn, _ = srv.accept()
            conn.settimeout(5)
            try:
                data = conn.recv(1000)
            except OSError:
                data = b""
            os.write(got_w, b"[" + data + b"]")
        finally:
            os._exit(0)
    try:
        assert os.read(ready_r, 1) == b"1"
        with pytest.raises(DaemonError, match="uid 65534"):
            Client(path, autostart=False, handshake=False).request(
                "tools/call", {"name": "type", "arguments": {"text": "secret"}})
        assert os.read(got_r, 1000) == b"[]"  # the connection closed with nothing sent
    finally:
        os.waitpid(pid, 0)
        for fd in (ready_r, ready_w, got_r, got_w):
            os.close(fd)
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


def test_idle_timeout_with_an_injected_clock(daemon_socket: str):
    now = [1000.0]
    with running_daemon(daemon_socket, idle_timeout=300, clock=lambda: now[0]) as server:
        c = RawClient(daemon_socket)
        assert c.call("daemon/ping")["success"]
        now[0] += 10_000  # a connected client keeps it alive, however long
        time.sleep(0.5)
        assert not server.stopping.is_set()
        c.close()
        assert wait_until(lambda: server.status()["connections"] == 0)
        now[0] += 299
        time.sleep(0.5)
        assert not server.stopping.is_set()
        now[0] += 2
        assert wait_until(server.stopping.is_set)
        assert "idle" in server.stop_reason


def test_stale_socket_file_is_replaced(daemon_socket: str):
    with open(daemon_socket, "w") as fh:  # what a SIGKILLed daemon leaves
        fh.write("stale")
    with running_daemon(daemon_socket):
        assert RawClient(daemon_socket).call("daemon/ping")["success"]


@pytest.mark.fast
def test_responses_are_single_json_lines():
    msg = proto.success("1", {"text": "a\nb", "emoji": "\u2713"})
    line = proto.encode(msg)
    assert line.count(b"\n") == 1 and line.endswith(b"\n")
    assert json.loads(line) == msg
