"""Freshness: whether a snapshot's refs still show the screen when a verb acts on them, and
what the page does to know (``docs/page.md``, "Other actors").

The screen changes without this page acting: the app itself (a row removed, a dialog), a
notification, a second client. A ref or selector resolved against a screen that changed
since can land on another element, so before an action on one the page checks, as set by
:attr:`Page.freshness <baremobile.page.base.PageBase.freshness>`:

``"frames"`` (the default)
    The device says whether it drew anything since the snapshot. Every dump the page
    takes reads, in the same round trip and just before ``uiautomator`` walks the screen,
    the display's frame count (SurfaceFlinger's page-flip count:
    ``service call SurfaceFlinger 1013``). Before acting, one command compares the count
    now with that one **on the device**: the same — nothing was drawn, the snapshot is the
    screen — it answers one line; otherwise it dumps the screen in the same round trip and
    the target is resolved against that (moved: acted on where it is now; gone, changed,
    covered, a guess among identical elements: refused, nothing sent). A device that
    answers no count is checked as ``"strict"``.
``"strict"``
    Every action on a ref or a selector reads the screen first (one dump), whatever the
    device says: for screens whose changes the count does not see (another display).
``"own"``
    Only this page's acting verbs make refs stale (what the page did before other actors
    were considered): no check while the page itself did nothing since the snapshot.

:attr:`~baremobile.page.base.PageBase.trust_refs` still acts on the snapshot as it is,
whatever the mode. A screen read to resolve targets is used for the rest of the verb (one
check per verb); the next verb checks again against it.

This module holds the shell text and the parsing (no I/O); :class:`~.base.PageBase` runs it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from baremobile.android.shell_words import quote
from baremobile.errors import DumpFailed, InvalidArgument
from baremobile.snapshot import Snapshot

__all__ = ["MODES", "FRAMES_COMMAND", "FrameTap", "Reading", "Unchanged", "check_mode",
           "unless_same", "valid_count", "with_frames"]

#: :attr:`PageBase.freshness` values (the first is the default)
MODES = ("frames", "strict", "own")
#: The display's composited frames so far (``SurfaceFlinger::onTransact`` code 1013:
#: ``DisplayDevice::getPageFlipCount``); the shell user may ask (``HARDWARE_TEST``).
FRAMES_COMMAND = "service call SurfaceFlinger 1013"
_MARK = b"--baremobile-frames--"
_SAME = b"--baremobile-unchanged--"
#: what a device may print before the dump at most (its frame count is one line)
_MAX_PREFIX = 64 * 1024
_COUNT = re.compile(r"Result: Parcel\(\s*[0-9a-fA-F]{8}\b[^\n]*\)")


def check_mode(mode: object) -> str:
    """``mode`` if it is one of :data:`MODES`, else :class:`InvalidArgument`."""
    if mode not in MODES:
        raise InvalidArgument(f"freshness is one of {', '.join(map(repr, MODES))}, "
                              f"not {mode!r}")
    return str(mode)


def valid_count(token: str | None) -> bool:
    """Whether ``token`` (what :data:`FRAMES_COMMAND` printed) is a frame count — not an
    error (a denied permission, a vendor that removed the code, no ``service``)."""
    return token is not None and _COUNT.fullmatch(token.strip()) is not None


def with_frames(dump: str) -> str:
    """``dump`` (the dump's command line) preceded by the frame count between two marks."""
    mark = _MARK.decode()
    return f"echo {mark}; {FRAMES_COMMAND} 2>&1; echo {mark}; {dump}"


def unless_same(token: str) -> Callable[[str], str]:
    """A wrapper for the dump's command line: on the device, compare the frame count now
    with ``token``; the same — one line, :class:`Unchanged` — else the count and the dump,
    as :func:`with_frames`. One round trip either way."""

    def wrap(dump: str) -> str:
        return (f'if [ "$({FRAMES_COMMAND} 2>&1)" = {quote(token)} ]; then echo '
                f"{_SAME.decode()}; else {with_frames(dump)}; fi")

    return wrap


class Unchanged(Exception):
    """The device drew nothing since the frame count compared (:func:`unless_same`): no
    dump was taken; the snapshot compared against still shows the screen."""


class FrameTap:
    """The output of a dump command made by :func:`with_frames` or :func:`unless_same`:
    iterating yields what ``uiautomator`` and ``cat`` printed (for the pruner), after
    :attr:`token` — the frame count printed before the dump — was taken off the front.
    Raises :class:`Unchanged` when the device answered that nothing was drawn. Output that
    does not begin with either mark (a shell that printed something first) is passed on
    whole, with no token."""

    def __init__(self, chunks: Iterable[bytes]) -> None:
        self._chunks = iter(chunks)
        #: what the device printed for its frame count (None: nothing usable)
        self.token: str | None = None

    def __iter__(self) -> Iterator[bytes]:
        held = b""
        need = max(len(_MARK), len(_SAME)) + 1
        for chunk in self._chunks:  # enough to see which mark (if any) begins the output
            held += chunk
            if len(held) >= need:
                break
        if held.startswith(_SAME + b"\n") or held.rstrip(b"\r\n") == _SAME:
            for _ in self._chunks:  # to its end: a stream closed early costs the connection
                pass  # on some adbd versions (the next command would reconnect)
            raise Unchanged
        if held.startswith(_MARK + b"\n"):
            while (end := held.find(b"\n" + _MARK + b"\n")) < 0:
                if len(held) > _MAX_PREFIX:
                    raise DumpFailed(
                        "the device printed more than 64 KiB before the screen's dump",
                        device_output=held[:300].decode("utf-8", "replace"))
                more = next(self._chunks, None)
                if more is None:  # the stream ended inside the frame count: no dump came
                    return
                held += more
            body = held[len(_MARK) + 1:end]
            self.token = body.decode("ascii", "replace").replace("\r", "").rstrip("\n")
            held = held[end + len(_MARK) + 2:]
        if held:
            yield held
        yield from self._chunks


@dataclass
class Reading:
    """A screen the page read to resolve targets (not shown to its caller)."""

    snap: Snapshot
    #: :attr:`PageBase.actions` when it was read
    actions: int
    #: the verb it was read in (its cancel token): within that verb it is not read again
    verb: object
    #: the frame count read just before it (None: unknown)
    token: str | None
