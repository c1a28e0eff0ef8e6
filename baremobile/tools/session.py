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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from baremobile.errors import (
    InvalidArgument,
)
from baremobile.tools.pages import Connecting, NotAllowed, Pages, SessionClosed
from baremobile.transport.base import check_text
from baremobile.transport.specs import NEW_VIRTUAL, parse_spec

__all__ = ["NotAllowed", "Options", "Session", "SessionClosed"]

log = logging.getLogger("baremobile.tools")


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
        """These options as a plain dict (JSON-ready)."""
        return dataclasses.asdict(self)

    def overridden(self, *, observe: bool | str | None = None, settle: float | None = None,
                   max_chars: int | None = None) -> Options:
        """These options with one call's overrides (None: not overridden, the session's)."""
        if observe is None and settle is None and max_chars is None:
            return self
        return dataclasses.replace(
            self, observe=self.observe if observe is None else observe,
            settle=self.settle if settle is None else settle,
            max_chars=self.max_chars if max_chars is None else max_chars)






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
        pages: Pages | None = None,
        options: Options | None = None,
        **defaults: Any,
    ) -> None:
        if device is not None and not isinstance(device, str):
            raise InvalidArgument(f"device must be a string spec, not {device!r}")
        self.options = options if options is not None else Options()
        self._files_dir = files_root(files_dir)
        if isinstance(allow_devices, str):
            allow_devices = [allow_devices]
        self.allow_devices: frozenset[str] | None = (
            None if allow_devices is None
            else frozenset(self._key(d) for d in allow_devices if d and d.strip()))
        self.allow_scenarios = bool(allow_scenarios)
        self._allow_eval = bool(allow_eval)
        #: where this session's pages come from (see :mod:`baremobile.tools.pages`)
        self._pages: Pages = pages if pages is not None else Connecting(
            connect, connect_options, max_virtual_phones=max_virtual_phones)
        self._operator_device = self._key(device) if device and device.strip() else None
        if device and device.strip():
            self.options.device = device.strip()
        if defaults:
            self.configure(**defaults)
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
        """Whether the ``eval`` tool may run JavaScript in pages: the operator's choice (or,
        for a Page its owner holds, the page's own ``allow_eval``)."""
        return self._allow_eval or self._pages.allows_eval()

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

    def allows(self, spec: str | None) -> bool:
        """Whether the operator allows ``spec`` here (:meth:`check_allowed` without raising)."""
        try:
            self.check_allowed(spec)
        except NotAllowed:
            return False
        return True

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
                    value = self._pages.claim(self, value)
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

    def allowed_spec(self, d: Any) -> str | None:
        """The allowed spec that reaches discovered device ``d`` (a
        :class:`~baremobile.transport.discovery.DeviceInfo`), or None."""
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

    def page(self, device: str | None = None) -> Any:
        """The Page for ``device`` (see :meth:`spec`), connecting on first use where the
        session's pages connect (only the first call for a spec connects; a spec naming a
        device already connected under another name shares its Page)."""
        if self._closed:
            raise SessionClosed("this session is closed")
        return self._pages.page(self, self.spec(device))

    def pages(self) -> dict[str, Any]:
        """The pages open now: ``{spec: Page}``."""
        return self._pages.pages()

    def acting(self, page: Any, wait: float | None = None
               ) -> contextlib.AbstractContextManager[None]:
        """Hold ``page``'s device for one call, or raise :class:`Busy` after ``wait``
        seconds (default: the session's ``busy_wait``)."""
        return self._pages.acting(page, self.options.busy_wait if wait is None else wait)

    def interrupt(self, thread_id: int) -> Any:
        """Cancel the call thread ``thread_id`` is making on a device: its device I/O is
        aborted at once and it answers ``CANCELLED``; the page stays (the next call
        reconnects). Never blocks. Returns that page, or None when the thread acts on none.

        Adapters that run a call in a :func:`~baremobile.transport.cancel.cancel_scope`
        cancel its token instead, which also covers connecting and waiting for the device.
        """
        return self._pages.interrupt(thread_id)

    def forget(self, page: Any) -> None:
        """Drop ``page`` from the session (after it was closed)."""
        self._pages.forget(page)

    def close(self) -> None:
        """Close the session: the pages it opened are closed (calls still running fail
        fast); a page its owner holds, or the daemon's, stays."""
        self._closed = True
        self._pages.close()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has run (a closed session refuses calls)."""
        return self._closed

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Session devices={list(self.pages())} options={self.options}>"
