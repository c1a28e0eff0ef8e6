"""The one bridge between a blocking call and whoever waits for it: a thread, an event loop,
a deadline, a client that went away.

Every front door runs device work the same way: a :class:`Call` wraps a blocking function
with a :class:`~baremobile.transport.cancel.CancelToken` of its own, a :class:`Worker` (one
thread, calls in order — one per device or per tool set) or :func:`start` (a thread of its
own) runs it, and the caller either blocks (:meth:`Call.result`), awaits
(:meth:`Call.wait`, from any asyncio or AnyIO-on-asyncio event loop), or cancels it from
anywhere (:meth:`Call.cancel`):

* **not started yet** — the call is dropped: nothing is sent to the device;
* **running** — its token is cancelled, which aborts the device I/O it is blocked in at
  once (without waiting for any lock a stuck device holds); the call raises
  :class:`~baremobile.errors.Cancelled` and its page stays usable (the next call
  reconnects);
* **an awaiting task cancelled** — the call is cancelled as above, the task waits (shielded,
  a bounded moment) for the worker to let go, then the cancellation propagates: a cancelled
  snapshot never becomes a page's ``last_snapshot`` behind the caller's back.

Used by :class:`~baremobile.page.aio.AsyncPage`, the framework adapters
(:mod:`baremobile.integrations.bridge`), the MCP server, the daemon's requests and its MCP
proxy.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from baremobile.transport.cancel import CancelToken, cancel_scope

__all__ = ["Call", "Worker", "start"]

log = logging.getLogger("baremobile")

T = TypeVar("T")

#: Seconds an idle :class:`Worker` thread waits for work before it ends (the next call
#: starts one).
IDLE_S = 30.0
#: The most an awaiting task that was cancelled waits for the worker to let go of the call
#: (its device I/O was aborted; on TCP that takes well under 100 ms).
LET_GO_S = 5.0


def _ran() -> Any:  # pragma: no cover - a call runs once
    raise RuntimeError("this call has run already")


class Call(Generic[T]):
    """One blocking call, to be run once on some thread, cancellable from any other."""

    __slots__ = ("fn", "future", "token", "what", "cancelled")

    def __init__(self, fn: Callable[[], T], what: str = "call") -> None:
        self.fn = fn
        self.what = what
        self.future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self.token = CancelToken()
        self.cancelled = ""  #: why it was cancelled ("" while it is not)

    def run(self) -> None:
        """Run the call here (a worker's thread), unless it was cancelled before it began.
        Its outcome — value or exception — goes to :attr:`future`, never raised here."""
        if not self.future.set_running_or_notify_cancel():
            return  # cancelled while queued: nothing is sent
        fn, self.fn = self.fn, _ran  # what it holds (its caller's objects) is let go
        try:
            with cancel_scope(self.token):
                result = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits
            self.future.set_exception(exc)
        else:
            self.future.set_result(result)

    def __call__(self) -> T:
        """Run the call on this thread and return its value (or raise its error)."""
        self.run()
        return self.future.result()

    def cancel(self, reason: str = "cancelled") -> bool:
        """Drop the call if it has not started, else abort its device I/O. False when it
        had finished (or was cancelled already). Never blocks."""
        reason = reason or "cancelled"
        if self.future.cancel():
            self.cancelled = reason
            return True
        if self.future.done() or not self.token.cancel(reason):
            return False
        self.cancelled = reason
        log.info("%s: %s; its device work was aborted", self.what, reason)
        return True

    def result(self, timeout: float | None = None) -> T:
        """Block until the call has run; its value, or its error raised."""
        return self.future.result(timeout)

    async def wait(self, reason: str = "the awaiting task was cancelled") -> T:
        """Await the call's outcome; if the awaiting task is cancelled, cancel the call,
        wait (shielded, at most :data:`LET_GO_S`) for the worker to let go, and re-raise."""
        wrapped = asyncio.wrap_future(self.future)
        try:
            return await wrapped
        except asyncio.CancelledError:
            self.cancel(reason)
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(wrapped), LET_GO_S)
            raise


class Worker:
    """One thread running :class:`Call` s in the order they were submitted; started on
    demand, it ends after :data:`IDLE_S` without work (or after :meth:`stop`)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._calls: queue.SimpleQueue[Call[Any] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pending = 0

    def submit(self, fn: Callable[[], T], what: str = "call") -> Call[T]:
        """Queue ``fn``; the returned :class:`Call` waits, blocks or cancels."""
        call: Call[T] = Call(fn, what)
        with self._lock:
            self._pending += 1
            self._calls.put(call)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        return call

    def stop(self) -> threading.Thread | None:
        """Let the thread end after the calls already queued; returns it (or None)."""
        with self._lock:
            thread = self._thread
            if thread is not None:
                self._calls.put(None)
        return thread

    def _run(self) -> None:
        while True:
            try:
                call = self._calls.get(timeout=IDLE_S)
            except queue.Empty:
                call = None
            if call is None:
                with self._lock:
                    if self._pending == 0:
                        self._thread = None
                        return
                continue
            try:
                call.run()
            finally:
                call = None  # not kept alive while the thread waits for the next one
                with self._lock:
                    self._pending -= 1


def start(fn: Callable[[], T], what: str = "call", *, name: str = "baremobile-call") -> Call[T]:
    """Run ``fn`` on a thread of its own, now; the returned :class:`Call` waits, blocks or
    cancels."""
    call: Call[T] = Call(fn, what)
    threading.Thread(target=call.run, name=name, daemon=True).start()
    return call
