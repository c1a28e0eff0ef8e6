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

What the model may reach is the operator's choice, made when the session is created and
never changeable by a tool call:

* ``files_dir`` — the one directory of this computer that ``push_file``, ``pull_file`` and
  ``install_app`` may read or write (None, the default: those tools are refused);
* ``allow_devices`` — the only device specs a call or ``configure`` may name (None: any
  serial, ``host:port``, ``usb``, ``adb:`` spec); plain ``"virtual"`` is always allowed.
  It holds for every way a device is chosen: a call naming none (or ``"auto"``) reaches
  ``$ANDROID_SERIAL`` only if that is allowed, else the one ready device discovery lists
  *among the allowed ones* — never another;
* ``allow_scenarios`` — whether ``"virtual:FILE.yaml"`` may be named (it reads a file of
  this computer); off by default;
* ``max_virtual_phones`` — how many in-process virtual phones the session may start;
* ``allow_eval`` — whether the ``eval`` tool may run JavaScript in the app's page (with the
  page's cookies and origin); off by default, and the tool must be named in ``groups`` too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from baremobile.errors import (
    BaremobileError,
    Busy,
    DeviceNotFound,
    InvalidArgument,
    InvalidScenario,
    MultipleDevices,
)
from baremobile.trace.record import trace_door
from baremobile.transport.base import check_text
from baremobile.transport.specs import NEW_VIRTUAL, parse_host_port, parse_spec

__all__ = ["NotAllowed", "Options", "Session", "SessionClosed"]

log = logging.getLogger("baremobile.tools")


class NotAllowed(InvalidArgument):
    """The operator has not allowed this (a host file outside the files directory, a
    scenario file, a device spec outside the allow-list)."""

    code = "NOT_ALLOWED"


class SessionClosed(BaremobileError):
    """The session (or MCP server) was closed; it drives no device any more."""

    code = "SESSION_CLOSED"
    default_hint = "start a new session (restart the MCP server)"


@dataclass
class Options:
    """Session defaults every tool call reads (``configure`` changes them)."""

    device: str | None = None
    """device spec used when a call names none (None: discover the one ready device)"""
    timeout: float = 10.0
    """seconds ``wait_for_text`` / ``wait_stable`` wait when the call gives no ``timeout``"""
    max_chars: int | None = 20_000
    """text budget (snapshot, log) when the call gives no ``max_chars`` (None: no limit)"""
    observe: bool | str = False
    """action tools return a fresh snapshot (after ``settle``) instead of just "ok"; ``"diff"``:
    only what changed since the previous snapshot"""
    settle: float = 0.5
    """seconds to wait after an action before the observing snapshot"""
    busy_wait: float = 0.5
    """seconds a call waits for another call on the same device before answering BUSY"""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _default_connect(device: str | None, **options: Any) -> Any:
    from baremobile.page import connect

    return connect(device, **options)


def _discover() -> list[Any]:
    """The devices discovery sees now (listing only: nothing is claimed or connected)."""
    from baremobile.transport.discovery import devices

    return devices()


def files_root(value: str | os.PathLike[str] | None) -> str | None:
    """The real path of an operator's files directory (None stays None)."""
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise InvalidArgument(f"files_dir must be a directory path, not {value!r}")
    real = os.path.realpath(os.path.expanduser(os.fspath(value)))
    if not os.path.isdir(real):
        raise InvalidArgument(f"files_dir {os.fspath(value)!r} is not a directory",
                              hint="create it first, or pass another directory")
    return real


def _is_virtual(key: str) -> bool:
    return parse_spec(key).kind == "virtual"


class Session:
    """Pages, defaults and per-device locks for one agent conversation (or one MCP server).

    ``Session(device="virtual")`` pins a default device; ``Session()`` discovers one on the
    first call. ``files_dir``, ``allow_devices``, ``allow_scenarios``,
    ``max_virtual_phones`` and ``allow_eval`` are the operator's limits (see the module docstring);
    ``device`` given here is always allowed. ``connect`` (a ``connect(spec, **options)``-like
    callable) and ``connect_options`` are for tests and special transports. Close it when
    done (it is a context manager): every page it opened is closed.
    """

    def __init__(
        self,
        device: str | None = None,
        *,
        connect: Callable[..., Any] | None = None,
        connect_options: dict[str, Any] | None = None,
        files_dir: str | os.PathLike[str] | None = None,
        allow_devices: Iterable[str] | None = None,
        allow_scenarios: bool = False,
        max_virtual_phones: int = 4,
        allow_eval: bool = False,
        **defaults: Any,
    ) -> None:
        if device is not None and not isinstance(device, str):
            raise InvalidArgument(f"device must be a string spec, not {device!r}")
        self.options = Options()
        self._files_dir = files_root(files_dir)
        if isinstance(allow_devices, str):
            allow_devices = [allow_devices]
        self.allow_devices: frozenset[str] | None = (
            None if allow_devices is None
            else frozenset(self._key(d) for d in allow_devices if d and d.strip()))
        self.allow_scenarios = bool(allow_scenarios)
        self._allow_eval = bool(allow_eval)
        if isinstance(max_virtual_phones, bool) or not isinstance(max_virtual_phones, int) \
                or max_virtual_phones < 0:
            raise InvalidArgument(f"max_virtual_phones must be an integer ≥ 0, "
                                  f"not {max_virtual_phones!r}")
        self.max_virtual_phones = max_virtual_phones
        self._operator_device = self._key(device) if device and device.strip() else None
        self.options.device = device.strip() if device and device.strip() else None
        if defaults:
            self.configure(**defaults)
        self._connect = connect or _default_connect
        self._connect_options = dict(connect_options or {})
        self._pages: dict[str, Any] = {}  # spec key → Page
        self._locks: dict[int, threading.Lock] = {}  # id(page) → its device lock
        self._acting: dict[int, Any] = {}  # thread id → the page that thread acts on
        self._connect_locks: dict[str, threading.Lock] = {}  # spec/serial → its connect lock
        self._virtual_connecting = 0
        self._mutex = threading.Lock()  # guards the dicts above; never held while acting
        self._closed = False

    # -- the operator's limits ------------------------------------------------------------
    @property
    def files_dir(self) -> str | None:
        """The directory host-file tools may use (its real path), or None: they are off."""
        return self._files_dir

    @files_dir.setter
    def files_dir(self, value: str | os.PathLike[str] | None) -> None:
        self._files_dir = files_root(value)

    @property
    def allow_eval(self) -> bool:
        """Whether the ``eval`` tool may run JavaScript in pages (the operator's choice)."""
        return self._allow_eval

    @staticmethod
    def _key(spec: str | None) -> str:
        """The spec as the session files it: ``auto``, ``virtual``, ``virtual:new``,
        ``virtual:<real path>``, or the spec itself."""
        spec = (spec or "").strip()
        check_text("the device spec", spec)
        parsed = parse_spec(spec)
        if parsed.kind == "auto":
            return "auto"
        if parsed.kind == "virtual":
            if parsed.fresh:
                return NEW_VIRTUAL
            return "virtual:" + os.path.realpath(parsed.scenario) if parsed.scenario \
                else "virtual"
        return spec

    def check_allowed(self, spec: str | None) -> str:
        """The session key of ``spec``, or :class:`NotAllowed` if the operator forbade it."""
        key = self._key(spec)
        if key in ("auto", "virtual", NEW_VIRTUAL) or key == self._operator_device:
            return key
        if key.startswith("virtual:"):
            if self.allow_scenarios or (self.allow_devices is not None
                                        and key in self.allow_devices):
                return key
            raise NotAllowed(
                "a virtual phone with a scenario file ('virtual:PATH') is not allowed here: "
                "it would read a file of the computer running baremobile",
                hint="use device 'virtual' (the built-in demo phone), a serial or host:port; "
                     "the operator can allow scenario files (Session(allow_scenarios=True), "
                     "baremobile mcp --allow-scenarios)",
            )
        if self.allow_devices is not None and key not in self.allow_devices:
            allowed = ", ".join(sorted(self.allow_devices | {"virtual"}))
            raise NotAllowed(f"device {key!r} is not in this session's allow-list",
                             hint=f"allowed: {allowed} (or omit device)")
        return key

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
        checked: dict[str, Any] = {}
        for key, value in changes.items():
            if key == "device":
                if value is not None and not isinstance(value, str):
                    raise InvalidArgument(f"device must be a string, not {value!r}")
                value = (value or "").strip() or None
                if value is not None:
                    self.check_allowed(value)
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
            elif key == "observe" and not (isinstance(value, bool) or value == "diff"):
                raise InvalidArgument(f"observe must be true, false or 'diff', not {value!r}")
            checked[key] = value
        for key, value in checked.items():  # all or nothing
            setattr(self.options, key, value)
        return self.options.to_dict()

    # -- devices --------------------------------------------------------------------------
    def spec(self, device: str | None = None) -> str | None:
        """The device spec a call with ``device`` acts on (None: discovery)."""
        if device is not None and device.strip():
            return device.strip()
        return self.options.device

    def _predict_serial(self, key: str) -> str | None:
        """The serial ``key`` will connect to, when that is known without connecting."""
        if _is_virtual(key):
            return None  # every in-process phone has a serial of its own
        if key == "auto":
            env = os.environ.get("ANDROID_SERIAL", "").strip()
            if env:
                return self._predict_serial(self._key(env))
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

    def _allowed_auto(self) -> str:
        """The spec ``auto`` stands for under an allow-list: ``$ANDROID_SERIAL`` if allowed,
        else the one ready device discovery lists among the allowed ones."""
        assert self.allow_devices is not None
        env = os.environ.get("ANDROID_SERIAL", "").strip()
        if env:  # what connect() would use: only if the operator allowed it
            return self.check_allowed(env)
        ready = [d for d in _discover() if d.ready]
        allowed = [spec for spec in map(self._allowed_spec, ready) if spec is not None]
        if len(allowed) == 1:
            return allowed[0]
        if len(allowed) > 1:
            raise MultipleDevices(allowed, hint="pick one: pass device, or set it once with "
                                                "configure")
        names = ", ".join(sorted(self.allow_devices | {"virtual"}))
        if ready:
            raise NotAllowed(f"none of the {len(ready)} ready device(s) is on this session's "
                             "allow-list", hint=f"name an allowed device: {names}")
        raise DeviceNotFound("no Android device found", hint=f"allowed devices: {names}")

    def _allowed_spec(self, d: Any) -> str | None:
        """The allowed spec that reaches discovered device ``d``, or None."""
        assert self.allow_devices is not None
        names = [d.serial]
        if d.via == "adb-server":
            names.append("adb:" + d.serial)
        elif d.via == "usb":
            names.append("usb")
        for name in names:
            if name in self.allow_devices or name == self._operator_device:
                return name
        return None

    def _connected(self, serial: str | None) -> Any:
        if serial is None:
            return None
        with self._mutex:
            return next((p for p in self._pages.values() if p.serial == serial), None)

    def page(self, device: str | None = None) -> Any:
        """The Page for ``device`` (see :meth:`spec`), connecting on first use.

        Only the first call for a spec connects (others for the same spec wait for it;
        other devices do not); a spec that turns out to name a device already connected
        under another name shares its Page.
        """
        if self._closed:
            raise SessionClosed("this session is closed")
        key = self.check_allowed(self.spec(device))
        if key == "auto" and self.allow_devices is not None:
            with self._mutex:
                page = self._pages.get(key)
            if page is None:  # discovery may only pick an allowed device
                page = self.page(self._allowed_auto())
                with self._mutex:
                    self._pages[key] = page
            return page
        with self._mutex:
            page = self._pages.get(key)
        if page is not None:
            return page
        serial = self._predict_serial(key)
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

    def _open(self, key: str) -> Any:
        virtual = _is_virtual(key)
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

        Adapters that run a call in a :func:`~baremobile.transport.cancel.cancel_scope`
        cancel its token instead, which also covers connecting and waiting for the device.
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
        """Drop ``page`` from the session (after it was closed)."""
        with self._mutex:
            for key in [k for k, p in self._pages.items() if p is page]:
                del self._pages[key]
            if not any(p is page for p in self._acting.values()):
                self._locks.pop(id(page), None)

    # -- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        """Close every page this session opened (calls still running fail fast)."""
        self._closed = True
        with self._mutex:
            pages = list({id(p): p for p in self._pages.values()}.values())
            self._pages.clear()
        for p in pages:
            with contextlib.suppress(Exception):
                p.close()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Session devices={list(self._pages)} options={self.options}>"
