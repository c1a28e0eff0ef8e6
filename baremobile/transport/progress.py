"""Progress of long transfers (push, pull) and long waits, reported to whoever asked.

The transports report through a context variable, so no signature between the caller and
them has to carry a callback: the daemon (or any caller) runs a call under
:func:`reporting` and the sync code of whichever transport does the work calls
:func:`report` as bytes move. Nothing is reported outside such a block.

The Page's transfer and wait verbs take ``progress=`` (:data:`Progress`): a
:data:`ProgressCallback` — ``progress(done, total)``, called on the thread that runs the
verb, ``done`` bytes so far of ``total`` (None until the size is known) for a transfer,
seconds waited so far of the ``timeout`` for a wait — or ``True`` for a bar
(:func:`shown`: tqdm's, notebook-aware, where ``tqdm`` is installed — it is no dependency —
else one line redrawn on stderr)::

    page.push(big_apk, "/data/local/tmp/app.apk", progress=True)
    page.pull_into("/sdcard/big.mp4", fh, progress=lambda done, total: print(done, total))
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from baremobile.errors import InvalidArgument

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["CountingReader", "CountingWriter", "Progress", "ProgressCallback", "report",
           "reporting", "shown"]

#: ``progress(done, total)``: bytes moved (or seconds waited) so far, and of how many (None
#: while unknown). It is called on the thread running the verb; what it raises is ignored.
ProgressCallback = Callable[[float, "float | None"], None]
#: what a verb's ``progress=`` takes: a callback, ``True`` for a bar, or None / False
Progress = ProgressCallback | bool
#: what :func:`reporting` tells: ``callback(done, total)`` in bytes (a transfer's counts are
#: whole; a :data:`ProgressCallback` takes them too); what it returns is unused
Callback = Callable[[int, "int | None"], object]

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

    def write(self, data: ReadableBuffer, /) -> int:
        n = super().write(data)
        report(self.tell(), self.total)
        return n


# -- what a verb's progress= shows ------------------------------------------------------------


def _amount(value: float, unit: str) -> str:
    if unit != "B":
        return f"{value:.1f} {unit}"
    for size, name in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
        if value >= size:
            return f"{value / size:.1f} {name}"
    return f"{int(value)} B"


class _Line:
    """A progress line redrawn on stderr (at most ten times a second), ended by ``close``."""

    def __init__(self, label: str, unit: str) -> None:
        self.label, self.unit, self._shown, self._last = label, unit, 0.0, ""

    def __call__(self, done: float, total: float | None) -> None:
        now = time.monotonic()
        if now - self._shown < 0.1 and not (total and done >= total):
            return
        self._shown = now
        text = f"{self.label}: {_amount(done, self.unit)}"
        if total:
            text += f" / {_amount(total, self.unit)} ({min(100, int(100 * done / total))}%)"
        self._last = text
        sys.stderr.write("\r" + text)
        sys.stderr.flush()

    def close(self) -> None:
        if self._last:
            sys.stderr.write("\n")
            sys.stderr.flush()


class _Tqdm:
    """tqdm's bar (``tqdm.auto``: a widget in a notebook, text elsewhere)."""

    def __init__(self, tqdm: Any, label: str, unit: str) -> None:
        self.bar = tqdm(total=None, desc=label, unit=unit, unit_scale=unit == "B",
                        leave=True)

    def __call__(self, done: float, total: float | None) -> None:
        if total and self.bar.total != total:
            self.bar.total = total
        self.bar.n = done
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()


def bar(label: str, unit: str = "B") -> Any:
    """A progress bar to report to: tqdm's where it is installed, else a line on stderr.
    Call it as a :data:`ProgressCallback`; ``close()`` it when done."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _Line(label, unit)
    return _Tqdm(tqdm, label, unit)


@contextlib.contextmanager
def shown(progress: Progress | None, label: str, unit: str = "B"
          ) -> Iterator[ProgressCallback | None]:
    """Report the block's transfers (:func:`reporting`) to the caller's ``progress=``, and
    yield it: their callback, a bar (``True``: :func:`bar`, closed when the block ends), or
    None (None, False: nothing changes — a caller further out, the daemon, still hears)."""
    if progress is None or progress is False:
        yield None
        return
    if progress is True:
        shown_bar = bar(label, unit)
        try:
            with reporting(shown_bar):
                yield shown_bar
        finally:
            shown_bar.close()
        return
    if not callable(progress):
        raise InvalidArgument(f"progress must be a callable progress(done, total) or True, not "
                              f"{type(progress).__name__}")
    with reporting(progress):
        yield progress
