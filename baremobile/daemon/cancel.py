"""Stopping a request's device work when it times out, is cancelled, or its client goes away.

This is the daemon's one point of contact with the cancellation mechanism below it: each
request runs under a :class:`~baremobile.transport.cancel.CancelToken`
(:func:`~baremobile.transport.cancel.cancel_scope`), and cancelling it aborts the device I/O
in flight at once — connecting included — without waiting for any lock a stuck device
holds; the call raises ``CANCELLED`` and the page stays usable (its next call reconnects).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from baremobile.transport.cancel import CancelToken, cancel_scope

__all__ = ["Work"]

log = logging.getLogger("baremobile.daemon")

T = TypeVar("T")


class Work:
    """The device work of one request: :meth:`run` it in a worker thread, :meth:`cancel`
    it from any other thread (at most once; never blocks)."""

    def __init__(self, what: str = "request") -> None:
        self._what = what
        self.token = CancelToken()
        self.cancelled = ""  #: why it was cancelled ("" while it is not)

    def run(self, fn: Callable[[], T]) -> T:
        with cancel_scope(self.token):
            return fn()

    def cancel(self, reason: str) -> bool:
        """Stop the work (False when it had finished or was cancelled already)."""
        if not self.token.cancel(reason or "cancelled"):
            return False
        self.cancelled = reason or "cancelled"
        log.info("%s: %s; its device work was aborted", self._what, self.cancelled)
        return True
