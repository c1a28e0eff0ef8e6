"""Where a :class:`~baremobile.tools.session.Session`'s pages come from.

There is one session type; what differs between the doors is only where its pages come from,
and that is a :class:`Pages` object the session is given:

* :class:`Connecting` — the default: each device connected on the first call that needs it,
  one lock per device (a second call on a busy device answers ``BUSY``), the pages closed
  with the session (``tools.Session()``, the MCP server, the daemon's one pool of pages);
* :class:`OnePage` — one Page its owner already holds (``tools.call(page, …)``, the framework
  adapters over a Page): held weakly, never closed by the session;
* the daemon's ``HubPages`` (:mod:`baremobile.daemon.sessions`): the devices the pool
  assigned to a daemon session, over the daemon's one :class:`Connecting`.

A :class:`Pages` answers for the pages (which one a call acts on, the device locks,
interrupting a call, forgetting a closed page, closing); the :class:`Session` keeps the
defaults and the operator's limits, and asks its pages.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from baremobile.errors import (
    BaremobileError,
    Busy,
    DeviceNotFound,
    InvalidArgument,
    InvalidScenario,
    MultipleDevices,
    PageClosed,
)
from baremobile.trace.record import trace_door
from baremobile.transport.specs import parse_host_port

if TYPE_CHECKING:
    from baremobile.tools.session import Session

__all__ = ["Connecting", "NotAllowed", "OnePage", "Pages", "SessionClosed"]

log = logging.getLogger("baremobile.tools")


class NotAllowed(InvalidArgument):
    """The operator has not allowed this (a host file outside the files directory, a
    scenario file, a device spec outside the allow-list)."""

    code = "NOT_ALLOWED"


class SessionClosed(BaremobileError):
    """The session (or MCP server) was closed; it drives no device any more."""

    code = "SESSION_CLOSED"
    default_hint = "start a new session (restart the MCP server)"


class Pages(Protocol):
    """What a :class:`~baremobile.tools.session.Session` asks of where its pages come from."""

    def page(self, session: Session, spec: str | None) -> Any:
        """The Page a call naming ``spec`` (None: the session's default) acts on."""

    def claim(self, session: Session, spec: str) -> str:
        """``configure(device=spec)``: check that ``spec`` may be the session's device
        (and claim it, where devices are shared); returns what the session stores."""

    def pages(self) -> dict[str, Any]:
        """The pages open now: ``{spec: Page}``."""

    def acting(self, page: Any, wait: float) -> contextlib.AbstractContextManager[None]:
        """Hold ``page``'s device for one call, or raise :class:`~baremobile.errors.Busy`."""

    def interrupt(self, thread_id: int) -> Any:
        """Cancel the call thread ``thread_id`` makes on a device (the page, or None)."""

    def forget(self, page: Any) -> None:
        """Drop ``page`` (it was closed after a failure)."""

    def allows_eval(self) -> bool:
        """Whether the pages' owner allowed ``eval`` beyond the session's operator."""

    def close(self) -> None:
        """The session is closed: release what it owns."""


def _default_connect(device: str | None, **options: Any) -> Any:
    from baremobile.page import connect

    return connect(device, **options)


def _discover() -> list[Any]:
    """The devices discovery sees now (listing only: nothing is claimed or connected)."""
    from baremobile.transport.discovery import devices

    return devices()


def is_virtual(key: str) -> bool:
    return key == "virtual" or key.startswith("virtual:")


class Connecting:
    """Pages connected on demand, one device lock each (see the module's docs).

    ``connect`` (a ``connect(spec, **options)``-like callable) and ``connect_options`` are
    for tests and special transports; ``max_virtual_phones`` bounds the in-process virtual
    phones it starts."""

    def __init__(self, connect: Callable[..., Any] | None = None,
                 connect_options: dict[str, Any] | None = None, *,
                 max_virtual_phones: int = 4) -> None:
        if isinstance(max_virtual_phones, bool) or not isinstance(max_virtual_phones, int) \
                or max_virtual_phones < 0:
            raise InvalidArgument(f"max_virtual_phones must be an integer ≥ 0, "
                                  f"not {max_virtual_phones!r}")
        self.max_virtual_phones = max_virtual_phones
        self._connect = connect or _default_connect
        self._connect_options = dict(connect_options or {})
        self._pages: dict[str, Any] = {}  # spec key → Page
        self._locks: dict[int, threading.Lock] = {}  # id(page) → its device lock
        self._acting: dict[int, Any] = {}  # thread id → the page that thread acts on
        self._connect_locks: dict[str, threading.Lock] = {}  # spec/serial → its connect lock
        self._virtual_connecting = 0
        self._mutex = threading.Lock()  # guards the dicts above; never held while acting
        self._closed = False

    # -- which page --------------------------------------------------------------------
    def page(self, session: Session, spec: str | None) -> Any:
        """The Page for ``spec``, connecting on first use.

        Only the first call for a spec connects (others for the same spec wait for it;
        other devices do not); a spec that turns out to name a device already connected
        under another name shares its Page.
        """
        if self._closed:
            raise SessionClosed("this session is closed")
        key = session.check_allowed(spec)
        if key == "auto" and session.allow_devices is not None:
            with self._mutex:
                page = self._pages.get(key)
            if page is None:  # discovery may only pick an allowed device
                page = self.page(session, self._allowed_auto(session))
                with self._mutex:
                    self._pages[key] = page
            return page
        with self._mutex:
            page = self._pages.get(key)
        if page is not None:
            return page
        serial = self._predict_serial(session, key)
        same = self._connected(serial)
        if same is not None:
            with self._mutex:
                self._pages[key] = same
            return same
        with self._mutex:
            lock = self._connect_locks.setdefault(serial or key, threading.Lock())
        with lock:
            with self._mutex:
                page = self._pages.get(key)
            page = page or self._connected(serial)
            if page is not None:
                with self._mutex:
                    self._pages[key] = page
                return page
            return self._open(key)

    def claim(self, session: Session, spec: str) -> str:
        session.check_allowed(spec)
        return spec

    def allows_eval(self) -> bool:
        return False

    def _predict_serial(self, session: Session, key: str) -> str | None:
        """The serial ``key`` will connect to, when that is known without connecting."""
        if is_virtual(key):
            return None  # every in-process phone has a serial of its own
        if key == "auto":
            env = os.environ.get("ANDROID_SERIAL", "").strip()
            if env:
                return self._predict_serial(session, session._key(env))
        if key in ("auto", "usb"):
            with self._mutex:
                if not self._pages:
                    return None  # nothing to share with: skip the discovery round
            try:
                ready = [d for d in _discover() if d.ready]
            except BaremobileError:
                return None
            if key == "usb":
                ready = [d for d in ready if d.via == "usb"]
            if len(ready) != 1:
                return None
            serial = ready[0].serial
            return serial.partition(":")[2] if ready[0].via == "usb" else serial
        if key.startswith(("adb:", "usb:")):
            return key[4:]
        hp = parse_host_port(key)
        if hp is not None:
            return f"{hp[0]}:{hp[1]}"
        return key

    @staticmethod
    def _allowed_auto(session: Session) -> str:
        """The spec ``auto`` stands for under an allow-list: ``$ANDROID_SERIAL`` if allowed,
        else the one ready device discovery lists among the allowed ones."""
        allowed_list = session.allow_devices
        assert allowed_list is not None
        env = os.environ.get("ANDROID_SERIAL", "").strip()
        if env:  # what connect() would use: only if the operator allowed it
            return session.check_allowed(env)
        ready = [d for d in _discover() if d.ready]
        allowed = [spec for spec in (session.allowed_spec(d) for d in ready)
                   if spec is not None]
        if len(allowed) == 1:
            return allowed[0]
        if len(allowed) > 1:
            raise MultipleDevices(allowed, hint="pick one: pass device, or set it once with "
                                                "configure")
        names = ", ".join(sorted(allowed_list | {"virtual"}))
        if ready:
            raise NotAllowed(f"none of the {len(ready)} ready device(s) is on this session's "
                             "allow-list", hint=f"name an allowed device: {names}")
        raise DeviceNotFound("no Android device found", hint=f"allowed devices: {names}")

    def _connected(self, serial: str | None) -> Any:
        if serial is None:
            return None
        with self._mutex:
            return next((p for p in self._pages.values() if p.serial == serial), None)

    def _open(self, key: str) -> Any:
        virtual = is_virtual(key)
        if virtual:
            with self._mutex:
                running = sum(1 for p in {id(p): p for p in self._pages.values()}.values()
                              if getattr(getattr(p, "transport", None), "kind", "") == "virtual")
                if running + self._virtual_connecting >= self.max_virtual_phones:
                    raise NotAllowed(
                        f"this session already runs {running} virtual phone(s), its limit",
                        hint="use one of the connected devices (see the devices tool)")
                self._virtual_connecting += 1
        log.info("connecting to %s", key)
        try:
            page = self._connect(None if key == "auto" else key, **self._connect_options)
        except InvalidScenario as exc:  # never echo the file's content to the model
            log.warning("cannot load the scenario of %s: %s", key, exc.message)
            raise InvalidArgument(
                f"the scenario of {key!r} cannot be loaded (missing, unreadable or not a "
                "valid scenario; details are in the server log)",
                hint="check the file, or use device 'virtual'") from None
        except OSError as exc:  # a network error the transport did not map
            raise DeviceNotFound(f"cannot reach {key!r}: {exc.strerror or type(exc).__name__}",
                                 hint="check the device spec and that the device is on") \
                from None
        finally:
            if virtual:
                with self._mutex:
                    self._virtual_connecting -= 1
        with self._mutex:
            if self._closed:
                page.close()
                raise SessionClosed("this session was closed while connecting")
            # the same device reached under another name shares one Page (and one lock)
            same = next((p for p in self._pages.values() if p.serial == page.serial), None)
            if same is not None:
                page.close()
                page = same
            self._pages[key] = page
            self._locks.setdefault(id(page), threading.Lock())
        if same is None:
            trace_door(page)  # $BAREMOBILE_TRACE: record this page's session
        log.info("connected to %s (%s)", page.serial, key)
        return page

    # -- the pages ---------------------------------------------------------------------
    def pages(self) -> dict[str, Any]:
        """The pages opened so far: ``{spec: Page}``."""
        with self._mutex:
            return dict(self._pages)

    @contextlib.contextmanager
    def acting(self, page: Any, wait: float) -> Iterator[None]:
        """Hold ``page``'s device lock for one call, or raise :class:`Busy`."""
        with self._mutex:
            lock = self._locks.setdefault(id(page), threading.Lock())
        got = lock.acquire(timeout=wait) if wait > 0 else lock.acquire(blocking=False)
        if not got:
            raise Busy(f"another call is acting on {getattr(page, 'serial', 'this device')}")
        me = threading.get_ident()
        with self._mutex:
            self._acting[me] = page
        try:
            yield
        finally:
            with self._mutex:
                self._acting.pop(me, None)
            lock.release()

    def interrupt(self, thread_id: int) -> Any:
        """Cancel the call thread ``thread_id`` is making on a device: its device I/O is
        aborted at once and it answers ``CANCELLED``; the page stays (the next call
        reconnects). Never blocks. Returns that page, or None when the thread acts on none.
        """
        with self._mutex:
            page = self._acting.get(thread_id)
        if page is None:
            return None
        log.info("interrupting the call on %s", getattr(page, "serial", page))
        with contextlib.suppress(Exception):
            page.cancel("interrupted")
        return page

    def forget(self, page: Any) -> None:
        """Drop ``page`` (after it was closed)."""
        with self._mutex:
            for key in [k for k, p in self._pages.items() if p is page]:
                del self._pages[key]
            if not any(p is page for p in self._acting.values()):
                self._locks.pop(id(page), None)

    def close(self) -> None:
        """Close every page opened here (calls still running fail fast)."""
        self._closed = True
        with self._mutex:
            pages = list({id(p): p for p in self._pages.values()}.values())
            self._pages.clear()
        for p in pages:
            with contextlib.suppress(Exception):
                p.close()


class OnePage:
    """One Page its owner holds (see the module's docs). Held weakly: a session is
    remembered per page and must not keep a page its owner dropped alive."""

    def __init__(self, page: Any) -> None:
        self._ref = weakref.ref(page)
        self._lock = threading.Lock()
        self._acting: dict[int, Any] = {}

    def _bound(self) -> Any:
        page = self._ref()
        if page is None:  # pragma: no cover - the caller holds the page while calling
            raise PageClosed("the page this tool set drove is gone")
        return page

    def page(self, session: Session, spec: str | None) -> Any:
        page = self._bound()
        if not spec or spec == page.serial:
            return page
        if spec in ("virtual", "virtual:") and \
                getattr(getattr(page, "transport", None), "kind", None) == "virtual":
            return page
        raise InvalidArgument(
            f"this tool set drives {page.serial}, not {spec!r}",
            hint="omit device, or use baremobile.tools.Session() to drive several devices",
        )

    def claim(self, session: Session, spec: str) -> str:
        return spec  # a call then acts on this page, or answers INVALID_ARGUMENT naming it

    def allows_eval(self) -> bool:
        """The page's own switch (``page.allow_eval``): its owner decides."""
        return bool(getattr(self._ref(), "allow_eval", False))

    def pages(self) -> dict[str, Any]:
        page = self._ref()
        return {"bound": page} if page is not None else {}

    @contextlib.contextmanager
    def acting(self, page: Any, wait: float) -> Iterator[None]:
        got = self._lock.acquire(timeout=wait) if wait > 0 else \
            self._lock.acquire(blocking=False)
        if not got:
            raise Busy(f"another call is acting on {getattr(page, 'serial', 'this device')}")
        me = threading.get_ident()
        self._acting[me] = page
        try:
            yield
        finally:
            self._acting.pop(me, None)
            self._lock.release()

    def interrupt(self, thread_id: int) -> Any:
        page = self._acting.get(thread_id)
        if page is not None:
            with contextlib.suppress(Exception):
                page.cancel("interrupted")
        return page

    def forget(self, page: Any) -> None:  # the caller owns the page
        pass

    def close(self) -> None:  # the caller owns the page
        pass
