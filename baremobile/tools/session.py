"""Device sessions for agent adapters: which device a tool call acts on, and the defaults.

A :class:`Session` holds the :class:`~baremobile.page.Page` of every device a conversation
has touched (connected lazily, on the first tool call that needs it), the session defaults
a ``configure`` call stores (device, timeouts, snapshot size, observe-after-acting), and
one lock per device so that two calls never act on the same device at once: the second
one answers ``BUSY`` instead of interleaving its taps with the first one's.

It starts with no device. The device for a call is, in order: the call's ``device``
argument, the session default (``configure(device=...)`` or ``Session(device=...)``),
else discovery (``connect()``: exactly one ready device, or ``NO_DEVICES`` /
``MULTIPLE_DEVICES_DEVICE_ID_REQUIRED`` / ``DEVICE_UNAUTHORIZED``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from baremobile.errors import BaremobileError, Busy, InvalidArgument

__all__ = ["Options", "Session"]

log = logging.getLogger("baremobile.tools")


@dataclass
class Options:
    """Session defaults every tool call reads (``configure`` changes them)."""

    device: str | None = None
    """device spec used when a call names none (None: discover the one ready device)"""
    timeout: float = 10.0
    """seconds ``wait_for_text`` / ``wait_stable`` wait when the call gives no ``timeout``"""
    max_chars: int | None = 20_000
    """snapshot text budget when the call gives no ``max_chars`` (None: no limit)"""
    observe: bool = False
    """action tools return a fresh snapshot (after ``settle``) instead of just "ok\""""
    settle: float = 0.5
    """seconds to wait after an action before the observing snapshot"""
    busy_wait: float = 0.5
    """seconds a call waits for another call on the same device before answering BUSY"""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _default_connect(device: str | None, **options: Any) -> Any:
    from baremobile.page import connect

    return connect(device, **options)


class Session:
    """Pages, defaults and per-device locks for one agent conversation (or one MCP server).

    ``Session(device="virtual")`` pins a default device; ``Session()`` discovers one on the
    first call. ``connect`` (a ``connect(spec, **options)``-like callable) and
    ``connect_options`` are for tests and special transports. Close it when done (it is a
    context manager): every page it opened is closed.
    """

    def __init__(
        self,
        device: str | None = None,
        *,
        connect: Callable[..., Any] | None = None,
        connect_options: dict[str, Any] | None = None,
        **defaults: Any,
    ) -> None:
        self.options = Options(device=device)
        if defaults:
            self.configure(**defaults)
        self._connect = connect or _default_connect
        self._connect_options = dict(connect_options or {})
        self._pages: dict[str, Any] = {}  # spec as asked → Page
        self._locks: dict[int, threading.Lock] = {}  # id(page) → its lock
        self._mutex = threading.Lock()  # guards the two dicts; never held while acting
        self._connecting = threading.Lock()  # one connect() at a time
        self._closed = False

    # -- defaults -------------------------------------------------------------------------
    def configure(self, **changes: Any) -> dict[str, Any]:
        """Change session defaults (see :class:`Options`); returns all of them.

        ``device=""`` or ``device=None`` forgets the default device (discovery again).
        """
        names = {f.name for f in dataclasses.fields(Options)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise InvalidArgument(f"unknown setting(s): {', '.join(unknown)}",
                                  hint=f"settings are: {', '.join(sorted(names))}")
        for key, value in changes.items():
            if key == "device":
                if value is not None and not isinstance(value, str):
                    raise InvalidArgument(f"device must be a string, not {value!r}")
                value = (value or "").strip() or None
            elif key in ("timeout", "settle", "busy_wait"):
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    0 <= value <= 600
                ):
                    raise InvalidArgument(f"{key} must be a number of seconds in [0, 600], "
                                          f"not {value!r}")
                value = float(value)
            elif key == "max_chars":
                if value is not None and (
                    isinstance(value, bool) or not isinstance(value, int) or value < 200
                ):
                    raise InvalidArgument(
                        f"max_chars must be an integer ≥ 200 or None, not {value!r}")
            elif key == "observe" and not isinstance(value, bool):
                raise InvalidArgument(f"observe must be true or false, not {value!r}")
            setattr(self.options, key, value)
        return self.options.to_dict()

    # -- devices --------------------------------------------------------------------------
    def spec(self, device: str | None = None) -> str | None:
        """The device spec a call with ``device`` acts on (None: discovery)."""
        if device is not None and device.strip():
            return device.strip()
        return self.options.device

    def page(self, device: str | None = None) -> Any:
        """The Page for ``device`` (see :meth:`spec`), connecting on first use."""
        if self._closed:
            raise BaremobileError("this session is closed")
        key = self.spec(device) or "auto"
        with self._mutex:
            page = self._pages.get(key)
        if page is not None:
            return page
        with self._connecting:
            with self._mutex:
                page = self._pages.get(key)
            if page is not None:
                return page
            log.info("connecting to %s", key)
            page = self._connect(None if key == "auto" else key, **self._connect_options)
            with self._mutex:
                # the same device reached under another name shares one Page (and one lock)
                same = next((p for p in self._pages.values() if p.serial == page.serial), None)
                if same is not None:
                    page.close()
                    page = same
                self._pages[key] = page
                self._locks.setdefault(id(page), threading.Lock())
            log.info("connected to %s (%s)", page.serial, key)
            return page

    def pages(self) -> dict[str, Any]:
        """The pages opened so far: ``{spec: Page}``."""
        with self._mutex:
            return dict(self._pages)

    @contextlib.contextmanager
    def acting(self, page: Any, wait: float | None = None) -> Iterator[None]:
        """Hold ``page``'s device lock for one call, or raise :class:`Busy`."""
        with self._mutex:
            lock = self._locks.setdefault(id(page), threading.Lock())
        wait = self.options.busy_wait if wait is None else wait
        got = lock.acquire(timeout=wait) if wait > 0 else lock.acquire(blocking=False)
        if not got:
            raise Busy(f"another call is acting on {getattr(page, 'serial', 'this device')}")
        try:
            yield
        finally:
            lock.release()

    def forget(self, page: Any) -> None:
        """Drop ``page`` from the session (after it was closed)."""
        with self._mutex:
            for key in [k for k, p in self._pages.items() if p is page]:
                del self._pages[key]

    # -- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        """Close every page this session opened."""
        self._closed = True
        with self._mutex:
            pages = {id(p): p for p in self._pages.values()}.values()
            self._pages.clear()
        for p in pages:
            with contextlib.suppress(Exception):
                p.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Session devices={list(self._pages)} options={self.options}>"
