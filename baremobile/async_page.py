"""``AsyncPage``: the same verbs as :class:`~baremobile.page.Page`, awaitable.

One core, two front doors: every coroutine hands the sync verb to the page's own worker
thread, so an event loop is never blocked by a device round trip and several devices are
driven at once::

    from baremobile import connect_async

    async with await connect_async("virtual") as page:
        await page.launch("com.android.settings")
        snap = await page.snapshot()
        await page.tap({"text": "Network & internet"})

**One queue per device.** Each AsyncPage has one worker thread that runs its calls in the
order they were made; a slow device only delays its own calls, never another device's
(asyncio's shared default executor is not used).

**Cancellation cancels.** Cancelling the task awaiting a call (``task.cancel()``,
``asyncio.wait_for`` running out, a TaskGroup failing):

* before the worker started it — the call is dropped from the queue: nothing is sent;
* while it runs — its device I/O is aborted at once (:meth:`Page.cancel`), the task waits
  for the worker to let go (well under 100 ms on TCP) and the result is discarded: a
  cancelled ``snapshot`` does not become ``last_snapshot``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import queue
import threading
from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import Any

from baremobile.page import Page, connect
from baremobile.transport.cancel import CancelToken, cancel_scope

__all__ = ["AsyncPage", "connect_async"]

#: Page methods that get an awaitable twin.
VERBS = (
    "snapshot",
    "find",
    "tap",
    "long_press",
    "tap_xy",
    "swipe",
    "scroll",
    "scroll_until",
    "type",
    "press",
    "back",
    "home",
    "recents",
    "launch",
    "open_url",
    "intent",
    "screenshot",
    "wait_for_text",
    "wait_for",
    "wait_stable",
    "device_info",
    "foreground",
    "apps",
    "logcat",
    "push",
    "pull",
    "pull_into",
    "focused_field",
    "shell",
    "double_tap",
    "drag",
    "pinch",
    "gesture",
    "eval_js",
)

#: Seconds an idle worker thread waits for work before it ends (the next call starts one).
IDLE_S = 30.0


class _Job:
    __slots__ = ("fn", "future", "token")

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.token = CancelToken()

    def run(self) -> None:
        if not self.future.set_running_or_notify_cancel():
            return  # cancelled while queued: nothing is sent
        try:
            with cancel_scope(self.token):
                result = self.fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            self.future.set_exception(exc)
        else:
            self.future.set_result(result)


class _Worker:
    """One thread running one device's calls in order (started on demand, ends when idle)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pending = 0

    def submit(self, fn: Callable[[], Any]) -> _Job:
        job = _Job(fn)
        with self._lock:
            self._pending += 1
            self._jobs.put(job)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        return job

    def stop(self) -> threading.Thread | None:
        """Let the thread end after the calls already queued."""
        with self._lock:
            thread = self._thread
            if thread is not None:
                self._jobs.put(None)
        return thread

    def _run(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=IDLE_S)
            except queue.Empty:
                with self._lock:
                    if self._pending == 0:
                        self._thread = None
                        return
                continue
            if job is None:
                with self._lock:
                    if self._pending == 0:
                        self._thread = None
                        return
                continue
            try:
                job.run()
            finally:
                with self._lock:
                    self._pending -= 1


async def _outcome(job: _Job) -> Any:
    """Await ``job``; if the awaiting task is cancelled, cancel the job (dropped from the
    queue, or its I/O aborted), wait for the worker to let go, and re-raise."""
    try:
        return await asyncio.wrap_future(job.future)
    except asyncio.CancelledError:
        if not job.future.cancel():  # already running: abort it
            job.token.cancel("the awaiting task was cancelled")
            with contextlib.suppress(BaseException):
                await asyncio.shield(asyncio.wrap_future(job.future))
        raise


def _awaitable(name: str) -> Callable[..., Coroutine[Any, Any, Any]]:
    sync = getattr(Page, name)

    @functools.wraps(sync)
    async def verb(self: AsyncPage, *args: Any, **kwargs: Any) -> Any:
        method = getattr(self.page, name)
        return await _outcome(self._worker.submit(lambda: method(*args, **kwargs)))

    return verb


class AsyncPage:
    """An awaitable :class:`Page` with a call queue of its own. Create it with
    :func:`connect_async`."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self._worker = _Worker(f"baremobile-{page.serial}")

    @property
    def serial(self) -> str:
        return self.page.serial

    @property
    def last_snapshot(self) -> Any:
        return self.page.last_snapshot

    @property
    def allow_eval(self) -> bool:
        """Whether :meth:`eval_js` may run JavaScript in pages (off by default)."""
        return self.page.allow_eval

    @allow_eval.setter
    def allow_eval(self, value: bool) -> None:
        self.page.allow_eval = bool(value)

    def cancel(self) -> bool:
        """Cancel the call running now (see :meth:`Page.cancel`); queued calls stay."""
        return self.page.cancel("AsyncPage.cancel()")

    async def close(self) -> None:
        """Close the page: a call still running is cancelled, queued ones then answer
        ``PAGE_CLOSED``; the worker thread ends."""
        # not queued behind the calls: page.close() aborts the one running at once
        closer = _Worker("baremobile-close")
        job = closer.submit(self.page.close)
        closer.stop()
        self._worker.stop()
        await asyncio.shield(asyncio.wrap_future(job.future))

    async def __aenter__(self) -> AsyncPage:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"<AsyncPage {self.serial} via {self.page.transport.kind}>"


for _name in VERBS:
    setattr(AsyncPage, _name, _awaitable(_name))


async def connect_async(device: str | None = None, **options: Any) -> AsyncPage:
    """Connect without blocking the event loop; see :func:`baremobile.connect`.

    Cancelling it aborts the connection attempt (even while the phone shows its
    "Allow USB debugging?" prompt)."""
    worker = _Worker("baremobile-connect")
    job = worker.submit(lambda: connect(device, **options))
    worker.stop()
    return AsyncPage(await _outcome(job))
