"""The daemon's requests in flight: each answered exactly once, timed out by one thread.

The deadline thread never waits for a client: answering only queues the answer on its
connection (the connection's writer thread sends it), so one client that stops reading
cannot delay another client's timeout.

A :class:`Pending` is one request that runs in a worker thread (it may touch a device): the
first of its result, its timeout (:class:`Deadlines`) or its cancellation (the client's
``daemon/cancel``, its hang-up, the daemon stopping) is sent; the others are dropped. Its
device work is stopped through its :class:`~baremobile.calls.Call`.
"""

from __future__ import annotations

import heapq
import itertools
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from baremobile.calls import Call
from baremobile.daemon import protocol as proto
from baremobile.errors import DOORS, BaremobileError
from baremobile.safetext import problem
from baremobile.tools.dispatch import error_data, hint_words

if TYPE_CHECKING:
    from baremobile.daemon.server import Connection

__all__ = ["REQUEST_TIMEOUT", "TIMED_OUT", "Deadlines", "Pending", "door_of", "encoded",
           "failure_for", "progress_sender", "short"]

log = logging.getLogger("baremobile.daemon")


class Pending:
    """One request: answered exactly once, however many parties try."""

    def __init__(self, conn: Connection, req: proto.Request, work: Call[Any] | None = None
                 ) -> None:
        self.conn = conn
        self.req = req
        self.work = work
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self.answered = False
        #: how it was answered when not by its result: ``TIMEOUT`` or ``CANCELLED``
        self.outcome: str | None = None

    def answer(self, message: dict[str, Any]) -> bool:
        """Queue ``message`` as the answer, if none was yet (never blocks on the client:
        :meth:`Connection.send` only queues)."""
        with self._lock:
            if self.answered:
                return False
            self.answered = True
        try:
            self.conn.send(message)
        finally:  # whatever happened to the answer, the request is over
            self.conn.server.finished(self)
        return True

    def fail(self, exc: BaseException) -> bool:
        return self.answer(failure_for(self.req.id, exc, self.req.params))

    def cancel(self, reason: str, code: str = "CANCELLED") -> None:
        """Answer with ``code`` (if still unanswered) and stop the device work."""
        if self.work is not None:
            self.work.cancel(reason)
        if self.answered:
            return
        self.outcome = self.outcome or code
        if code == "TIMEOUT":  # AutoMobile's answer, in MCP's words; our code and hint beside
            self.answer(proto.failure(self.req.id, code, TIMED_OUT,
                                      f"{self.req.method}: {reason}; {_CANCEL_HINTS[code]}",
                                      "TIMEOUT", errorCode=REQUEST_TIMEOUT))
            return
        self.answer(proto.failure(self.req.id, code, f"{self.req.method}: {reason}",
                                  _CANCEL_HINTS.get(code, ""), "CANCELLED"))


#: MCP's error code for a request that timed out (the TypeScript SDK's ``RequestTimeout``)
REQUEST_TIMEOUT = -32001
TIMED_OUT = "MCP error -32001: Request timed out"


_CANCEL_HINTS = {
    "TIMEOUT": "the device may be slow or stuck: its work was stopped; take a new snapshot "
               "before acting again, or pass a longer timeoutMs",
    "CANCELLED": "its device work was stopped; take a new snapshot before acting again",
}


def door_of(params: Any) -> str:
    """The front door a request speaks for (``params.door``: ``cli``, ``tools``, ``python``),
    whose words its errors' hints use; else the daemon protocol's own (method names)."""
    door = params.get("door") if isinstance(params, dict) else None
    return door if door in DOORS else "daemon"


def failure_for(request_id: Any, exc: BaseException, params: Any = None) -> dict[str, Any]:
    """The failure response for ``exc``: the protocol's own faults, typed errors with their
    code, hint (in the words of the request's door: :func:`door_of`) and category, anything
    else as an internal error (logged)."""
    if isinstance(exc, proto.ProtocolFault):
        return proto.failure(request_id, exc.code, exc.message, exc.hint, "INVALID_ARGUMENT")
    data = error_data(exc, hint_words(door_of(params)))
    category = getattr(exc, "category", None) or data["category"]
    if not isinstance(exc, BaremobileError):
        log.error("request %r failed", request_id, exc_info=exc)
    return proto.failure(request_id, data["code"], data["message"], data["hint"], category)


class Deadlines:
    """One thread that times requests out."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Pending]] = []
        self._cond = threading.Condition()
        self._seq = itertools.count()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="baremobile-daemon-deadlines",
                                        daemon=True)
        self._thread.start()

    def add(self, when: float, pending: Pending) -> None:
        with self._cond:
            heapq.heappush(self._heap, (when, next(self._seq), pending))
            self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopped:
                    now = time.monotonic()
                    while self._heap and self._heap[0][2].answered:
                        heapq.heappop(self._heap)
                    if self._heap and self._heap[0][0] <= now:
                        break
                    self._cond.wait(None if not self._heap else self._heap[0][0] - now)
                if self._stopped:
                    return
                _, _, due = heapq.heappop(self._heap)
            ms = int((time.monotonic() - due.started) * 1000)
            due.cancel(f"no answer within {ms} ms (timeoutMs)", "TIMEOUT")


def progress_sender(pending: Pending) -> Callable[[int, int | None], None]:
    """Progress notifications for ``pending`` (at most ten a second, and the last one)."""
    last = [0.0]

    def send(done: int, total: int | None) -> None:
        now = time.monotonic()
        if pending.answered or (now - last[0] < 0.1 and done != total):
            return
        last[0] = now
        pending.conn.send(proto.progress(pending.req.id, done, total))

    return send


def encoded(message: dict[str, Any]) -> bytes:
    """``message`` as a line; a message that cannot be encoded (a bug: every string from
    outside is made safe where it enters) becomes an ``INTERNAL_ERROR`` answer to the same
    request — or to no request, when even its id cannot be written."""
    try:
        return proto.encode(message)
    except (TypeError, ValueError, RecursionError) as exc:
        why = problem(message) or f"{type(exc).__name__}: {exc}"
        rid = message.get("id")
        log.error("unencodable answer to %s: %s", ascii(rid), why)
        if problem(rid) is not None or not isinstance(rid, (str, int, float, type(None))):
            rid = None
        return proto.encode(proto.failure(rid, "INTERNAL_ERROR",
                                          f"the answer could not be encoded: {why}",
                                          "this is a bug in baremobile; the daemon's log has "
                                          "the details", "INTERNAL_ERROR"))


def short(message: dict[str, Any]) -> str:
    """A late answer, for the log: what it said, in at most 300 characters."""
    text = json.dumps(message.get("result") if message.get("success") else
                      {"error": message.get("error"), "code": message.get("code")},
                      default=str)
    return text if len(text) <= 300 else text[:297] + "..."
