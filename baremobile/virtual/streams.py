"""One OPENed adbd stream: its outbox and the sender thread that honours ADB flow control
(one WRTE in flight until the peer's OKAY), coalesces what is queued (so a command's last
output and its CLSE leave in one write) and fires armed faults."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, Protocol

from baremobile.virtual import protocol as P
from baremobile.virtual.faults import FaultRule

__all__ = ["Stream", "StreamLink", "END", "ABORT"]

log = logging.getLogger("baremobile.virtual.adbd")

END = object()  # sender sentinel: finish the stream (send CLSE)
ABORT = object()  # sender sentinel: stream already closed, just stop


class StreamLink(Protocol):
    """What a stream needs of its connection."""

    max_payload: int
    dead: threading.Event

    def pack(self, cmd: int, a0: int, a1: int, payload: bytes = b"") -> bytes: ...

    def send_raw(self, wire: bytes) -> None: ...

    def send(self, cmd: int, a0: int, a1: int, payload: bytes = b"") -> bool: ...

    def forget(self, stream: Stream) -> None: ...

    def kill(self, reason: str, *, abortive: bool = False) -> None: ...


class Stream:
    """One OPENed service: local (device) id ↔ remote (host) id."""

    def __init__(self, conn: StreamLink, local_id: int, remote_id: int, service: str) -> None:
        self.conn = conn
        self.local_id = local_id
        self.remote_id = remote_id
        self.service = service
        self.ready = threading.Event()
        self.ready.set()  # "an OPEN message also implies a READY message"
        self.closed = threading.Event()
        # unbounded: the connection's reader thread queues replies and must never block
        # (it is the thread that processes the OKAYs the sender waits for); producers of
        # command output get backpressure in put() instead
        self.outbox: queue.Queue[Any] = queue.Queue()
        self.on_data: Callable[[bytes], None] = lambda data: None
        self.on_close: Callable[[], None] = lambda: None
        self.fault: FaultRule | None = None
        self.sent_bytes = 0
        self.threads: list[threading.Thread] = []

    # -- called from any thread --------------------------------------------------------
    def put(self, item: Any, *, wait: bool = True) -> None:
        """Queue output (bytes) or END for the sender.

        With ``wait`` (command producers), block while 64 items are already queued, so a
        fast command cannot outrun a slow client; gives up once the stream closed.
        """
        while wait and self.outbox.qsize() >= 64 and not self.closed.is_set():
            self.closed.wait(0.01)
        if not self.closed.is_set():
            self.outbox.put(item)

    def close_from_host(self) -> None:
        """The host sent CLSE: stop the service and answer with our CLSE."""
        if self.closed.is_set():
            return
        self.closed.set()
        self.conn.forget(self)
        self.conn.send(P.A_CLSE, self.local_id, self.remote_id)
        self.outbox.put_nowait(ABORT)
        self.on_close()

    def close_quietly(self) -> None:
        """The connection is gone: stop without sending anything."""
        if self.closed.is_set():
            return
        self.closed.set()
        self.outbox.put_nowait(ABORT)
        self.on_close()

    # -- sender thread -----------------------------------------------------------------
    def run_sender(self) -> None:
        try:
            while not self.closed.is_set():
                try:
                    item = self.outbox.get(timeout=0.2)
                except queue.Empty:
                    continue
                if item is ABORT:
                    return
                parts = [item]
                while True:  # coalesce whatever else is already queued
                    try:
                        parts.append(self.outbox.get_nowait())
                    except queue.Empty:
                        break
                if ABORT in parts:
                    return
                final = END in parts
                data = b"".join(p for p in parts if isinstance(p, (bytes, bytearray)))
                self._write(data, final=final)
                if final:
                    return
        except OSError:
            self.conn.kill("write failed")

    def _wait_ready(self) -> bool:
        while not self.ready.wait(0.2):
            if self.closed.is_set() or self.conn.dead.is_set():
                return False
        return not self.closed.is_set()

    def _write(self, data: bytes, *, final: bool) -> None:
        """Send ``data`` as WRTEs (one in flight at a time); with ``final``, then CLSE."""
        pos = 0
        while True:
            rule = self.fault if self.fault and self.fault.kind in ("drop", "corrupt") else None
            if rule is not None and self.sent_bytes >= rule.after_bytes:
                self._fire(rule)
                return
            limit = self.conn.max_payload
            if rule is not None:
                limit = min(limit, rule.after_bytes - self.sent_bytes)
            piece = data[pos : pos + limit]
            pos += len(piece)
            done = pos >= len(data)
            wire = b""
            if piece:
                if not self._wait_ready():
                    return
                self.slow_link()
                self.ready.clear()
                wire = self.conn.pack(P.A_WRTE, self.local_id, self.remote_id, piece)
                self.sent_bytes += len(piece)
            fault_due = rule is not None and self.sent_bytes >= rule.after_bytes
            if final and done and not fault_due:
                if self.closed.is_set():
                    return
                self.closed.set()
                self.conn.forget(self)
                self.conn.send_raw(wire + self.conn.pack(P.A_CLSE, self.local_id, self.remote_id))
                return
            if wire:
                self.conn.send_raw(wire)
            if done and not final:
                return

    def slow_link(self) -> None:
        """Hold the next message back, under a ``slow`` fault (until the stream closes)."""
        if self.fault is not None and self.fault.kind == "slow":
            self.closed.wait(self.fault.delay_s)

    def _fire(self, rule: FaultRule) -> None:
        self.fault = None
        if rule.kind == "drop":
            log.info(
                "fault: dropping connection on %s after %d bytes", self.service, self.sent_bytes
            )
            self.conn.kill("fault: drop", abortive=True)
        else:
            log.info("fault: corrupt message on %s", self.service)
            bad = bytearray(self.conn.pack(P.A_WRTE, self.local_id, self.remote_id, b"garbage"))
            bad[20:24] = b"\0\0\0\0"  # break the magic
            self.conn.send_raw(bytes(bad))
