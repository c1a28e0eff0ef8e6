"""Hardening, round four (issue 28), item 14: the daemon's connections under concurrency.

Two races, each reproduced here on ``main`` before the fix:

* a connection's writer took the first queued answer, sent it outside the lock, then
  popped it — but a drop (the daemon stopping, the client not reading, a failed send)
  could clear the queue meanwhile: ``IndexError: pop from an empty deque`` in the writer
  thread, and the queue's byte count went negative;
* stopping the daemon cancelled the requests in flight (queueing their ``CANCELLED``)
  and closed every connection at once, dropping what its writer had not sent yet — and a
  worker that had claimed the answer but not queued it yet lost it too: the client read
  EOF instead of its answer.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest

from baremobile.daemon import protocol as proto
from baremobile.daemon.hub import Hub
from baremobile.daemon.server import Connection, DaemonServer
from baremobile.virtual import VirtualPhone
from tests.conftest import free_port
from tests.daemon_helpers import RawClient, running_daemon, wait_until


class _GatedSocket(socket.socket):
    """A real socket whose ``sendall`` returns only when the test lets it (after sending):
    the writer thread is held between its send and its bookkeeping."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.sent = threading.Event()
        self.release = threading.Event()

    def sendall(self, data: Any, *args: Any) -> None:  # type: ignore[override]
        super().sendall(data, *args)
        self.sent.set()
        self.release.wait(10)


@pytest.fixture
def thread_errors():
    """Exceptions raised in any thread during the test."""
    seen: list[BaseException] = []
    old = threading.excepthook
    threading.excepthook = lambda args: seen.append(args.exc_value)
    yield seen
    threading.excepthook = old


def test_a_drop_while_the_writer_sends_leaves_the_queue_consistent(thread_errors, tmp_path):
    a, b = socket.socketpair()
    gated = _GatedSocket(fileno=a.detach())
    server = DaemonServer(Hub(discover=False), str(tmp_path / "unused.sock"))
    conn = Connection(server, gated, 1)
    try:
        assert conn.send({"id": 1, "type": "mcp_response", "success": True, "result": {}})
        assert gated.sent.wait(10)  # the writer is between its send and its pop
        conn.close()  # the daemon stops (or drops the client) meanwhile
        gated.release.set()
        conn._writer.join(10)
        assert not conn._writer.is_alive()
        assert thread_errors == []  # was: IndexError: pop from an empty deque
        assert conn._queued == 0 and not conn._out
        assert not conn.send({"id": 2})  # closed: nothing more is queued
    finally:
        gated.release.set()
        b.close()
        gated.close()


@pytest.fixture
def two_phones():
    with VirtualPhone(port=free_port()) as a, VirtualPhone(port=free_port()) as b:
        yield a, b


def _long_request(c: RawClient, rid: str, session: str) -> None:
    c.send({"id": rid, "method": "tools/call", "params": {
        "name": "wait_for_text", "arguments": {"text": "never on screen", "timeout": 60},
        "session": session}})


@pytest.mark.parametrize("round_", range(5))
def test_every_request_in_flight_at_shutdown_is_answered_cancelled(two_phones, daemon_socket,
                                                                   round_):
    a, b = two_phones
    with running_daemon(daemon_socket, devices=[a.address, b.address]) as server:
        c = RawClient(daemon_socket, timeout=30)
        for s in ("s1", "s2"):
            assert c.call("daemon/openSession", {"sessionId": s}, rid=s)["success"]
        _long_request(c, "w1", "s1")
        _long_request(c, "w2", "s2")
        assert wait_until(lambda: a.events.list("dump") and b.events.list("dump"))
        server.stop_soon("test")
        answers = {}
        for _ in range(2):
            reply = c.read()  # was: EOFError for one of them
            answers[reply["id"]] = reply
        assert {k: v["code"] for k, v in answers.items()} == {"w1": "CANCELLED",
                                                              "w2": "CANCELLED"}
        c.close()


def test_a_request_read_while_the_daemon_stops_is_answered(phone: VirtualPhone,
                                                          daemon_socket: str):
    """Requests that reach the daemon after it began to stop are answered too (CANCELLED,
    or their result), never left without an answer when the connection closes."""
    with running_daemon(daemon_socket, devices=[phone.address]) as server:
        c = RawClient(daemon_socket, timeout=30)
        assert c.call("daemon/openSession", {"sessionId": "s"})["success"]
        lines = b"".join(proto.encode({"id": f"p{i}", "type": "daemon_request",
                                       "method": "tools/call", "params": {
                                           "name": "press", "arguments": {"key": "back"},
                                           "session": "s", "format": "baremobile"}})
                         for i in range(20))
        stopper = threading.Thread(target=server.stop_soon, args=("test",))
        c.send_raw(lines)
        stopper.start()
        got: dict[str, Any] = {}
        try:
            while len(got) < 20:
                reply = c.read()
                got[reply["id"]] = reply
        except (EOFError, OSError):
            pass
        stopper.join(10)
        # every request the daemon read was answered: those it did not read were never
        # its requests (the client sees EOF before any answer of theirs)
        assert got, "no answer at all"
        read = set(got)
        assert read == {f"p{i}" for i in range(len(read))}, sorted(read)
        assert all(r["success"] or r["code"] in ("CANCELLED", "BUSY") for r in got.values())
        c.close()


def test_many_connections_stopping_at_once_raise_nothing(phone: VirtualPhone,
                                                         daemon_socket: str, thread_errors):
    """A stress run of the writer and the shutdown: twenty clients receiving while the
    daemon stops; no thread dies with an exception."""
    with running_daemon(daemon_socket, devices=[phone.address]) as server:
        clients = [RawClient(daemon_socket, timeout=30) for _ in range(20)]
        for c in clients:
            c.send_raw(proto.encode({"id": 1, "method": "tools/list", "params": {}}) * 20)
        time.sleep(0.05)
        server.stop_soon("test")
        assert wait_until(lambda: not server.status()["connections"], timeout=20)
        for c in clients:
            c.close()
    assert thread_errors == []
