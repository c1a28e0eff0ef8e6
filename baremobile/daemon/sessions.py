"""Daemon sessions: a name, its devices from the pool, its defaults — seen by ``tools.call``.

A session is what one agent holds across commands: the devices the pool assigned to it,
its defaults (``configure``: observe, settle, max_chars, timeouts) and, through the pages
the hub keeps open, the last snapshot's refs. ``tools.call`` runs against a
:class:`SessionView`: a :class:`baremobile.tools.Session` whose pages and per-device locks
are the hub's (one page and one lock per device for the whole daemon, so two calls on one
device answer ``BUSY`` whoever makes them) and whose limits are the caller's
:class:`Policy` (the MCP proxy passes its operator's ``--groups``, ``--files-dir``,
``--allow-device``; the CLI passes the directory of the file it names).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from baremobile.errors import BaremobileError
from baremobile.tools.session import NotAllowed, Options, Session
from baremobile.tools.spec import GROUPS

__all__ = ["Policy", "SessionState", "SessionView", "device_key"]


def device_key(spec: str) -> str:
    """How the pool names the device ``spec`` (``virtual``, a serial, ``host:port`` …)."""
    return Session._key(spec)


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class SessionState:
    """One named session (created by ``open`` or its first call)."""

    name: str
    options: Options = field(default_factory=Options)
    created_ms: int = field(default_factory=_now_ms)
    last_used_ms: int = field(default_factory=_now_ms)
    calls: int = 0
    in_flight: int = 0

    def touch(self, clock: Any = None) -> None:
        """Mark it used now (``clock()``: seconds since the epoch; the wall clock by
        default) — an unused session expires a TTL after this."""
        self.last_used_ms = int(clock() * 1000) if clock is not None else _now_ms()


@dataclass(frozen=True)
class Policy:
    """What one request may do: the limits its client (the operator's program) sets."""

    groups: tuple[str, ...] = GROUPS
    prefix: str = ""
    files_dir: str | None = None
    allow_devices: tuple[str, ...] | None = None
    allow_scenarios: bool = True
    observe: bool | None = None
    settle: float | None = None
    max_chars: int | None = None


class SessionView(Session):
    """A daemon session as ``tools.call`` sees it, for one request."""

    def __init__(self, hub: Any, state: SessionState, policy: Policy) -> None:
        super().__init__(connect=_no_connect, files_dir=policy.files_dir,
                         allow_devices=policy.allow_devices,
                         allow_scenarios=policy.allow_scenarios,
                         allow_eval=hub.allow_eval)  # the daemon's operator decides
        self.options = state.options  # shared by every request of the session
        self.hub = hub
        self.state = state
        self.used: str | None = None  #: the pool key this request acted on

    def page(self, device: str | None = None) -> Any:
        spec = self.spec(device)
        if spec is None or device_key(spec) == "auto":
            spec = self.options.device
        if spec is None:  # a session's first call: the one free device it may use, if any
            spec = self.hub.adopt(self.state, self._may_use)
        key = self.check_allowed(spec)
        self.used = key
        return self.hub.attach(self.state, key)

    def _may_use(self, key: str) -> bool:
        try:
            self.check_allowed(key)
        except NotAllowed:
            return False
        return True

    def acting(self, page: Any,
               wait: float | None = None) -> contextlib.AbstractContextManager[None]:
        return self.hub.pages.acting(page, self.options.busy_wait if wait is None else wait)

    def pages(self) -> dict[str, Any]:
        open_pages = self.hub.pages.pages()
        return {spec: open_pages[spec] for spec in self.hub.pool.of_session(self.state.name)
                if spec in open_pages}

    def configure(self, **changes: Any) -> dict[str, Any]:
        device = changes.get("device")
        if isinstance(device, str) and device.strip():
            key = self.check_allowed(device)
            self.hub.attach(self.state, key, connect=False)  # claim it, or DEVICE_ASSIGNED
            changes["device"] = key
        return super().configure(**changes)

    def forget(self, page: Any) -> None:
        self.hub.pages.forget(page)

    def interrupt(self, thread_id: int) -> Any:
        return self.hub.pages.interrupt(thread_id)

    def close(self) -> None:  # the hub owns the pages
        pass

    @contextlib.contextmanager
    def request(self) -> Iterator[None]:
        self.state.in_flight += 1
        try:
            yield
        finally:
            self.state.in_flight -= 1
            self.state.calls += 1
            self.state.touch(getattr(self.hub, "clock", None))


def _no_connect(spec: str | None, **_: Any) -> Any:  # pragma: no cover - never called
    raise BaremobileError("a session view connects through the hub")
