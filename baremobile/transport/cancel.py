"""Cancelling a call while it runs, from any thread, without waiting for the device.

A :class:`CancelToken` stands for one logical call — a Page verb, a daemon request, an
MCP tool call. Code runs *under* a token with :func:`cancel_scope`; the transports look the
token up (:func:`current`, a context variable, so it follows the thread or task running
the call) and

* check it before sending anything (a call cancelled before it started sends nothing);
* register an *aborter* for the I/O they have in flight — a ``socket.shutdown`` that wakes
  a blocked read or write at once, or a flag a USB read checks between short transfers.

:meth:`CancelToken.cancel` sets the token and runs the aborters. It takes no lock any I/O
holds, so it returns at once even while a read is blocked; the call then raises
:class:`~baremobile.errors.Cancelled` and its connection is dropped (the next call
reconnects).

>>> from baremobile.transport.cancel import CancelToken, cancel_scope
>>> token = CancelToken()
>>> with cancel_scope(token):               # doctest: +SKIP
...     page.snapshot()                      # another thread: token.cancel()
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar

from baremobile.errors import Cancelled

__all__ = ["CancelToken", "cancel_scope", "current"]

_CURRENT: ContextVar[CancelToken | None] = ContextVar("baremobile_cancel_token", default=None)


class CancelToken:
    """The cancellation of one call. Thread-safe; :meth:`cancel` never blocks on I/O."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        #: made when a wait needs one (most calls never wait on their token: every verb has
        #: a token, and an Event costs more than the rest of it)
        self._event: threading.Event | None = None
        self._aborters: dict[int, Callable[[str], object]] = {}  # what they return is unused
        self._keys = itertools.count()
        self._settled = False
        #: why it was cancelled ("" while it is not)
        self.reason = ""

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` took effect."""
        return self._cancelled

    def _waitable(self) -> threading.Event:
        with self._lock:
            if self._event is None:
                self._event = threading.Event()
                if self._cancelled:
                    self._event.set()
            return self._event

    def cancel(self, reason: str = "cancelled") -> bool:
        """Cancel the call: abort the I/O it has in flight; everything it does next raises
        :class:`~baremobile.errors.Cancelled`. False when it was already cancelled or had
        already settled (finished and kept its result)."""
        with self._lock:
            if self._cancelled or self._settled:
                return False
            self.reason = reason or "cancelled"
            self._cancelled = True
            if self._event is not None:
                self._event.set()
            aborters = list(self._aborters.values())
        for abort in aborters:
            with contextlib.suppress(Exception):  # an aborter must never stop the others
                abort(self.reason)
        return True

    def check(self, what: str = "the call") -> None:
        """Raise :class:`~baremobile.errors.Cancelled` if the token is cancelled."""
        if self._cancelled:
            raise Cancelled(f"{what} was cancelled ({self.reason})")

    def sleep(self, seconds: float, what: str = "the call") -> None:
        """Wait ``seconds``, or raise :class:`~baremobile.errors.Cancelled` as soon as the
        token is cancelled."""
        if self._waitable().wait(max(0.0, seconds)):
            self.check(what)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until cancelled (True) or ``timeout`` passes (False)."""
        return self._waitable().wait(timeout)

    @contextlib.contextmanager
    def abortable(self, abort: Callable[[str], object], what: str = "the call") -> Iterator[None]:
        """Run the block with ``abort(reason)`` registered: :meth:`cancel` calls it (from
        the cancelling thread). Raises :class:`~baremobile.errors.Cancelled` at once, before
        the block starts, when the token is already cancelled."""
        with self._lock:
            self.check(what)
            key = next(self._keys)
            self._aborters[key] = abort
        try:
            yield
        finally:
            with self._lock:
                self._aborters.pop(key, None)

    def settle(self, what: str = "the call") -> None:
        """Mark the call finished with its result kept: a later :meth:`cancel` is a no-op.
        Raises :class:`~baremobile.errors.Cancelled` instead when the cancel came first, so
        a result is either kept or cancelled, never both."""
        with self._lock:
            self.check(what)
            self._settled = True

    def __repr__(self) -> str:
        state = f"cancelled: {self.reason}" if self.cancelled else "live"
        return f"<CancelToken {state}>"


def current() -> CancelToken | None:
    """The token of the call running in this thread or task (None outside any scope)."""
    return _CURRENT.get()


@contextlib.contextmanager
def cancel_scope(token: CancelToken | None = None) -> Iterator[CancelToken]:
    """Run the block under ``token`` (a new one by default) and yield it.

    Scopes nest: cancelling an enclosing scope's token cancels this one too (a daemon
    request's deadline cancels the Page verb it runs). Entering a scope whose token — or
    an enclosing one — is already cancelled raises :class:`~baremobile.errors.Cancelled`.
    """
    token = token if token is not None else CancelToken()
    outer = _CURRENT.get()
    link: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if outer is not None and outer is not token:
        link = outer.abortable(token.cancel)
    with link:
        token.check()
        reset = _CURRENT.set(token)
        try:
            yield token
        finally:
            _CURRENT.reset(reset)
