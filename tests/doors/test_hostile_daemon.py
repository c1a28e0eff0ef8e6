"""Hardening, round three (issue 21): the session daemon against clients that send what
cannot be answered, clients that stop reading, and another user's files beside its socket.

Each test failed on the code before the fix: a request id ``"\\ud800"`` (valid JSON) closed
the connection unanswered (``daemon/ping``) or left a ``tools/call`` in flight for ever (256
of them: ``DAEMON_BUSY`` for everyone until a restart); a surrogate in ``type`` or
``groups`` answered ``INTERNAL_ERROR``; one client that stopped reading made the shared
deadline thread wait on its socket, so another client's 1.5 s timeout came after many
seconds; symlinks at ``<sock>.log`` / ``<sock>.json.<pid>.tmp`` made the daemon append to,
chmod and overwrite another file; a malformed ``<sock>.json`` raised a raw ``TypeError`` /
``ValueError`` in the client.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from baremobile.daemon import paths
from baremobile.daemon import protocol as proto
from baremobile.daemon.client import Client
from baremobile.daemon.errors import DaemonError
from baremobile.daemon.hub import Hub
from baremobile.daemon.server import DaemonServer
from baremobile.errors import BaremobileError
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.daemon_helpers import RawClient, running_daemon


def raw(rid_json: str, method: str, params: str = "{}") -> bytes:
    """A request line whose id (and params) are given as JSON text, so that escapes such as
    ``"\\ud800"`` reach the daemon exactly as a client wrote them."""
    return (f'{{"id": {rid_json}, "method": "{method}", "params": {params}}}\n').encode()


# -- 2. request ids that cannot be answered -----------------------------------------------------


@pytest.mark.parametrize("rid", ['"\\ud800"', '"a\\udfffb"', '"\\udc00\\ud800"',
                                 str(2 ** 70), '"' + "x" * 201 + '"'])
def test_an_id_that_cannot_be_echoed_is_refused_with_id_null(phone, daemon_socket, rid):
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        for method in ("daemon/ping", "tools/call"):
            c.send_raw(raw(rid, method, '{"name": "press", "arguments": {"key": "back"}}'))
            got = c.read()
            assert got["id"] is None and got["code"] == "INVALID_REQUEST", got
            assert "id must be" in got["error"]
        assert c.call("daemon/ping")["success"]  # the connection held
        assert c.call("daemon/status")["result"]["requestsInFlight"] == 0
        assert not phone.events.list("key")  # nothing ran


def test_a_surrogate_pair_id_is_a_valid_id(daemon_socket):
    with running_daemon(daemon_socket):
        c = RawClient(daemon_socket)
        c.send_raw(raw('"\\ud83d\\ude00"', "daemon/ping"))
        got = c.read()
        assert got["success"] and got["id"] == "\U0001F600", got


def test_unanswerable_ids_never_fill_the_daemon(phone, daemon_socket):
    """Before: each ``tools/call`` with id ``"\\ud800"`` stayed in flight, 256 of them and
    every client got DAEMON_BUSY until a restart (and the idle stop never fired)."""
    with running_daemon(daemon_socket, devices=[phone.address]) as server:
        c = RawClient(daemon_socket)
        line = raw('"\\ud800"', "tools/call", '{"name": "press", "arguments": {"key": "back"}}')
        c.send_raw(line * 300)
        for _ in range(300):
            assert c.read()["code"] == "INVALID_REQUEST"
        other = RawClient(daemon_socket)
        got = other.call("tools/call", {"name": "press", "arguments": {"key": "back"},
                                        "session": "s"})
        assert got["success"], got
        assert server.status()["requestsInFlight"] == 0


# -- 10. surrogates in arguments and daemon parameters -------------------------------------------


@pytest.mark.parametrize("params", [
    '{"name": "type", "arguments": {"ref": 1, "text": "a\\ud800"}, "session": "s"}',
    '{"name": "snapshot", "arguments": {}, "groups": ["apps", "\\udfff"], "session": "s"}',
    '{"name": "snapshot", "arguments": {}, "session": "\\ud800"}',
    '{"name": "\\ud800", "arguments": {}}',
    '{"name": "find", "arguments": {"selector": {"text": "\\ud800"}}, "session": "s"}',
    '{"name": "snapshot", "arguments": {"\\ud800": 1}, "session": "s"}',
])
def test_a_surrogate_anywhere_in_a_request_is_refused_naming_it(phone, daemon_socket, params):
    with running_daemon(daemon_socket, devices=[phone.address]):
        c = RawClient(daemon_socket)
        c.send_raw(raw('"r"', "tools/call", params))
        got = c.read()
        assert got["id"] == "r" and not got["success"], got
        assert got["code"] == "INVALID_REQUEST" and got["category"] == "INVALID_ARGUMENT", got
        assert "lone surrogate" in got["error"]
        assert not phone.events.list("text") and not phone.events.list("key")
        assert c.call("daemon/ping")["success"]


#: any character, with the ones that break doors drawn often: lone surrogates (both
#: halves), NUL, line breaks and separators, quotes and backslashes
HOSTILE_CHAR = st.one_of(st.characters(exclude_categories=()),
                         st.sampled_from(["\ud800", "\udbff", "\udc00", "\udfff", "\x00",
                                          "\n", "\r", "\u2028", "\x1b", '"', "\\", ")"]))
HOSTILE_TEXT = st.text(HOSTILE_CHAR, max_size=12)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rid=st.one_of(HOSTILE_TEXT, st.integers(), st.floats(allow_nan=False,
                                                             allow_infinity=False)),
       text=HOSTILE_TEXT)
@example(rid="\ud800", text="")
@example(rid="r", text="a\udfff")
def test_any_id_and_any_text_from_a_client_get_exactly_one_answer(daemon_socket, rid, text):
    """Whatever string a client can carry — as the id, as a tool's text — the line gets one
    answer (its id echoed when it can be), and the connection keeps serving."""
    server = _SHARED.get(daemon_socket)
    if server is None:
        pytest.skip("the shared daemon is not running")  # pragma: no cover
    c = RawClient(daemon_socket, timeout=30)
    try:
        line = json.dumps({"id": rid, "method": "tools/call", "params": {
            "name": "wait_for_text", "arguments": {"text": text, "timeout": 0},
            "session": "h"}}) + "\n"
        c.send_raw(line.encode("ascii"))  # ensure_ascii: surrogates travel as \\uXXXX
        got = c.read()
        assert got["type"] == "mcp_response"
        if got["id"] is not None:
            assert got["id"] == rid
        assert c.call("daemon/ping", rid="after")["id"] == "after"
        with pytest.raises(socket.timeout):  # exactly one answer: nothing else arrives
            c.sock.settimeout(0.05)
            c.read()
    finally:
        c.close()


_SHARED: dict[str, DaemonServer] = {}


@pytest.fixture(autouse=True)
def _shared_daemon_for_properties(request, daemon_socket):
    """The property test runs its examples against one daemon (with one phone)."""
    if request.node.originalname != \
            "test_any_id_and_any_text_from_a_client_get_exactly_one_answer":
        yield
        return
    with VirtualPhone(port=free_port()) as phone, \
            running_daemon(daemon_socket, devices=[phone.address]) as server:
        _SHARED[daemon_socket] = server
        try:
            yield
        finally:
            _SHARED.pop(daemon_socket, None)


# -- 5. one client that stops reading delays nobody ---------------------------------------------


def test_a_client_that_stops_reading_does_not_delay_another_clients_timeout(daemon_socket):
    """Client A has a request timing out while its socket is full (it reads nothing); client
    B's request times out meanwhile. Before, the one deadline thread blocked on A's socket
    (for the send timeout) and B's 1.5 s timeout came many seconds late."""
    with VirtualPhone(port=free_port()) as one, VirtualPhone(port=free_port()) as two, \
            running_daemon(daemon_socket, devices=[one.address, two.address],
                           send_timeout=120):
        setup = RawClient(daemon_socket)
        for session, phone in (("a", one), ("b", two)):
            assert setup.call("daemon/openSession", {"sessionId": session,
                                                     "device": phone.address})["success"]
        one.faults.add("stall", service="shell", count=-1)
        two.faults.add("stall", service="shell", count=-1)
        a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        a.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        a.connect(daemon_socket)
        a.sendall(proto.encode({"id": "a", "method": "tools/call", "timeoutMs": 1000,
                                "params": {"name": "press", "arguments": {"key": "back"},
                                           "session": "a"}}))
        listing = proto.encode({"id": 1, "method": "tools/list", "params": {}})
        a.sendall(listing * 60)  # megabytes of answers, none read: A's socket is full
        time.sleep(0.3)
        b = RawClient(daemon_socket, timeout=60)
        started = time.monotonic()
        b.send({"id": "b", "method": "tools/call", "timeoutMs": 1500,
                "params": {"name": "press", "arguments": {"key": "back"}, "session": "b"}})
        got = b.read()
        elapsed = time.monotonic() - started
        assert got["id"] == "b" and got["code"] == "TIMEOUT", got
        assert elapsed < 15, elapsed  # its own 1.5 s, not A's 120 s send timeout
        assert b.call("daemon/ping")["success"]
        a.close()


def test_answers_still_arrive_in_order_and_whole_after_a_half_close(phone, daemon_socket):
    """Answers are queued per connection: a client that shuts its sending side still gets
    every answer, in order, before the connection closes."""
    with running_daemon(daemon_socket, devices=[phone.address]):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(daemon_socket)
        lines = [proto.encode({"id": i, "method": "tools/list", "params": {}})
                 for i in range(20)]
        lines.append(proto.encode({"id": "call", "method": "tools/call", "params": {
            "name": "press", "arguments": {"key": "back"}, "session": "s"}}))
        s.sendall(b"".join(lines))
        s.shutdown(socket.SHUT_WR)
        s.settimeout(60)
        data = b""
        while chunk := s.recv(1 << 20):
            data += chunk
        got = [json.loads(x) for x in data.splitlines()]
        assert [g["id"] for g in got] == [*range(20), "call"]
        assert all(g["success"] for g in got), got[-1]


# -- 6. files beside the socket are opened like the socket ---------------------------------------


@pytest.fixture
def shared_dir(tmp_path, monkeypatch):
    """A socket in a directory others can write (sticky, like /tmp), and a victim file."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    sock = str(shared / "d.sock")
    monkeypatch.setenv(paths.ENV_SOCKET, sock)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    victim.chmod(0o644)
    return sock, victim


def _intact(victim) -> None:
    assert victim.read_text() == "precious\n"
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644


def test_a_symlink_at_the_log_is_refused_not_followed(shared_dir):
    sock, victim = shared_dir
    os.symlink(victim, paths.log_path(sock))
    with pytest.raises(DaemonError, match="symlink"):
        Client(sock).connect()  # starts a daemon: its log would go beside the socket
    _intact(victim)


def test_a_symlink_at_the_metadata_temp_file_is_never_written(shared_dir):
    sock, victim = shared_dir
    # the name the temporary file had before (pid-based, predictable)
    os.symlink(victim, f"{paths.metadata_path(sock)}.{os.getpid()}.tmp")
    os.symlink(victim, paths.metadata_path(sock))
    with running_daemon(sock):
        meta = paths.read_metadata(sock)
        assert meta and meta["pid"] == os.getpid()
        assert not os.path.islink(paths.metadata_path(sock))  # replaced, not written through
    _intact(victim)


def test_a_symlink_or_a_strangers_file_at_the_lock_is_refused(shared_dir):
    sock, victim = shared_dir
    os.symlink(victim, paths.lock_path(sock))
    with pytest.raises(DaemonError, match="symlink"):
        DaemonServer(Hub(discover=False), sock).start()
    _intact(victim)
    os.unlink(paths.lock_path(sock))
    if os.getuid() != 0:
        pytest.skip("only root can give a file to another user here")
    with open(paths.lock_path(sock), "w"):
        pass
    os.chown(paths.lock_path(sock), 12345, 12345)
    with pytest.raises(DaemonError, match="uid 12345"):
        DaemonServer(Hub(discover=False), sock).start()


def test_a_strangers_log_or_a_hard_link_is_refused(shared_dir, tmp_path):
    sock, victim = shared_dir
    os.link(victim, paths.log_path(sock))  # another name of the victim
    with pytest.raises(DaemonError, match="names"):
        paths.open_log(sock)
    _intact(victim)


def test_the_log_is_private_and_appended(shared_dir):
    sock, _victim = shared_dir
    log = paths.log_path(sock)
    with open(log, "w") as fh:
        fh.write("old\n")
    os.chmod(log, 0o644)
    fd = paths.open_log(sock)
    os.write(fd, b"new\n")
    os.close(fd)
    with open(log) as fh:
        assert fh.read() == "old\nnew\n"
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600


# -- 11. a malformed metadata file is no metadata ------------------------------------------------


@pytest.mark.parametrize("meta", [
    {"pid": "me", "version": "0.0.1", "startedAt": "soon"},
    {"pid": None, "version": "9" * 100_000, "startedAt": 1},
    {"pid": 10 ** 30, "version": "0.0.1", "startedAt": 1e400},
    {"version": "0.0.1", "startedAt": [1]},
    ["not", "an", "object"],
    "\ud800",
])
def test_a_malformed_metadata_file_is_ignored(daemon_socket, meta):
    with running_daemon(daemon_socket):
        own = paths.read_metadata(daemon_socket)
        assert own is not None
        for m in (meta, {**own, "startedAt": "soon", "version": "0.0.1"}
                  if isinstance(meta, dict) else meta):
            text = json.dumps(m) if not isinstance(m, str) else '"\\ud800"'
            with open(paths.metadata_path(daemon_socket), "w") as fh:
                fh.write(text.replace("1e+400", "1e400"))
            with Client(daemon_socket) as client:
                assert client.request("daemon/ping")["ok"] is True


def test_metadata_checks_its_owner_and_size(daemon_socket):
    with running_daemon(daemon_socket):
        path = paths.metadata_path(daemon_socket)
        with open(path, "w") as fh:
            fh.write(json.dumps({"pid": os.getpid(), "version": "1"}) + " " * 70_000)
        assert paths.read_metadata(daemon_socket) is None
        with open(path, "w") as fh:
            json.dump({"pid": os.getpid(), "version": "1"}, fh)
        assert paths.read_metadata(daemon_socket) == {"pid": os.getpid(), "version": "1"}
        if os.getuid() == 0:
            os.chown(path, 12345, 12345)
            assert paths.read_metadata(daemon_socket) is None
        with Client(daemon_socket) as client:
            assert client.request("daemon/ping")["ok"] is True


def test_the_client_refuses_to_send_what_it_cannot_encode(daemon_socket):
    with running_daemon(daemon_socket), Client(daemon_socket) as client:
        with pytest.raises(BaremobileError) as err:
            client.request("tools/call", {"name": "type",
                                          "arguments": {"ref": 1, "text": "\udcff"}})
        assert err.value.code == "INVALID_ARGUMENT"
        assert "lone surrogate" in err.value.message
        assert client.request("daemon/ping")["ok"] is True


@pytest.mark.parametrize("route", [["--no-daemon", "-d", "virtual"], []])
def test_a_command_line_that_is_not_utf8_is_refused_not_a_traceback(daemon_socket, route,
                                                                    tmp_path):
    """Python holds bytes of the command line that are not UTF-8 as lone surrogates
    (surrogateescape): the CLI answers INVALID_ARGUMENT, through the daemon or not."""
    import subprocess
    import sys

    from tests.daemon_helpers import cli_env

    argv = [sys.executable.encode(), b"-m", b"baremobile", b"type", b"1", b"caf\xe9 \xff",
            *[a.encode() for a in route]]
    r = subprocess.run(argv, capture_output=True, env=cli_env(), cwd=tmp_path, timeout=120,
                       stdin=subprocess.DEVNULL)
    err = r.stderr.decode("utf-8", "replace")
    assert r.returncode == 2, (r.returncode, err)
    assert err.startswith("error [INVALID_ARGUMENT]:") and "surrogate" in err, err
    assert "Traceback" not in err


def test_sessions_are_bounded(daemon_socket, monkeypatch):
    """Session names come from clients: past the limit a new one is refused (typed), the
    existing ones go on, and releasing one makes room."""
    from baremobile.daemon import hub as hub_module

    monkeypatch.setattr(hub_module, "MAX_SESSIONS", 3)
    with running_daemon(daemon_socket):
        c = RawClient(daemon_socket)
        for name in ("a", "b", "c"):
            assert c.call("tools/call", {"name": "configure", "arguments": {},
                                         "session": name, "groups": ["session"]})["success"]
        got = c.call("tools/call", {"name": "configure", "arguments": {}, "session": "d",
                                    "groups": ["session"]})
        assert not got["success"] and got["code"] == "DAEMON_ERROR", got
        assert "release" in got["hint"]
        assert c.call("daemon/releaseSession", {"sessionId": "a"})["success"]
        assert c.call("tools/call", {"name": "configure", "arguments": {}, "session": "d",
                                     "groups": ["session"]})["success"]
