"""Stopping a request's device work when it times out or its client goes away.

This is the daemon's one point of contact with the cancellation mechanism below it, so that
switching mechanisms is local to this file. Today it is
:meth:`baremobile.tools.Session.interrupt`: it closes the page the worker thread acts on
(its verbs then fail fast) and forgets it, so the next call connects afresh. Closing a page
waits for the device command in flight to let go, so the interrupt runs in a thread of its
own: the daemon never waits for a stuck device, whatever the device does.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["Work"]

log = logging.getLogger("baremobile.daemon")

T = TypeVar("T")


class Work:
    """The device work of one request: :meth:`run` it in a worker thread, :meth:`cancel`
    it from any other thread (at most once; never blocks)."""

    def __init__(self, pages: Any, what: str = "request") -> None:
        self._pages = pages  # the tools.Session holding every page and its lock
        self._what = what
        self._thread: int | None = None
        self._lock = threading.Lock()
        self._done = False
        self.cancelled = ""  #: why it was cancelled ("" while it is not)

    def run(self, fn: Callable[[], T]) -> T:
        with self._lock:
            self._thread = threading.get_ident()
        try:
            return fn()
        finally:
            with self._lock:
                self._done = True

    def cancel(self, reason: str) -> bool:
        """Stop the work (False when it had finished or was cancelled already)."""
        with self._lock:
            if self._done or self.cancelled:
                return False
            self.cancelled = reason or "cancelled"
            thread = self._thread
        if thread is not None:
            threading.Thread(target=self._interrupt, args=(thread, reason),
                             name="baremobile-daemon-cancel", daemon=True).start()
        return True

    def _interrupt(self, thread: int, reason: str) -> None:
        try:
            page = self._pages.interrupt(thread)
        except Exception:  # pragma: no cover - interrupt suppresses the page's errors
            log.exception("cancelling %s failed", self._what)
            return
        if page is not None:
            log.info("%s %s: stopped its work on %s", self._what, reason,
                     getattr(page, "serial", page))
