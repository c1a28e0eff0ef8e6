"""Progress of long transfers (push, pull), reported to whoever asked, from any layer above.

The transports report through a context variable, so no signature between the caller and
them has to carry a callback: the daemon (or any caller) runs a call under
:func:`reporting` and the sync code of whichever transport does the work calls
:func:`report` as bytes move. Nothing is reported outside such a block.

>>> from baremobile.transport.progress import reporting
>>> with reporting(lambda done, total: print(done, total)):   # doctest: +SKIP
...     page.push(big_apk, "/data/local/tmp/app.apk")
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator
from contextvars import ContextVar

__all__ = ["CountingReader", "CountingWriter", "report", "reporting"]

Callback = Callable[[int, "int | None"], None]

_CURRENT: ContextVar[Callback | None] = ContextVar("baremobile_progress", default=None)


@contextlib.contextmanager
def reporting(callback: Callback | None) -> Iterator[None]:
    """Report the transfers of this block to ``callback(done_bytes, total_bytes_or_None)``."""
    token = _CURRENT.set(callback)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def report(done: int, total: int | None) -> None:
    """Tell the current block's callback (if any) how far a transfer is; never raises."""
    callback = _CURRENT.get()
    if callback is not None:
        with contextlib.suppress(Exception):
            callback(done, total)


def active() -> bool:
    return _CURRENT.get() is not None


class CountingReader(io.BytesIO):
    """The bytes to push, reporting how many were read (sent) so far."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self._total = len(data)

    def read(self, size: int | None = -1) -> bytes:
        chunk = super().read(size)
        report(self.tell(), self._total)
        return chunk


class CountingWriter(io.BytesIO):
    """Where pulled bytes go, reporting how many arrived (``total``: once known)."""

    total: int | None = None

    def write(self, data: bytes) -> int:  # type: ignore[override]
        n = super().write(data)
        report(self.tell(), self.total)
        return n
