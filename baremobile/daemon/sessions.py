"""Daemon sessions: a name, its devices from the pool, its defaults — seen by ``tools.call``.

A session is what one agent holds across commands: the devices the pool assigned to it,
its defaults (``configure``: observe, settle, max_chars, timeouts) and, through the pages
the hub keeps open, the last snapshot's refs. ``tools.call`` runs against a
:class:`baremobile.tools.Session` (the one session type) whose pages are :class:`HubPages`:
the hub's pages and per-device locks (one page and one lock per device for the whole daemon,
so two calls on one device answer ``BUSY`` whoever makes them) — and whose limits are the
caller's :class:`Policy` (the MCP proxy passes its operator's ``--groups``, ``--files-dir``,
``--allow-device``; the CLI passes the directory of the file it names).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from baremobile.daemon.navigation import NavGraph
from baremobile.errors import InvalidArgument
from baremobile.tools.session import Options, Session
from baremobile.tools.spec import GROUPS
from baremobile.transport.specs import NEW_VIRTUAL

__all__ = ["HubPages", "Policy", "SessionState", "SharedPages", "device_key", "policy_of",
           "request", "session_for_request"]


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
    #: the screens its calls saw and the moves between them (``ide/getNavigationGraph``)
    graph: NavGraph = field(default_factory=NavGraph)

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
    #: a session's first call that names no device, with several free: the pool hands one
    #: (the device given back last, else the least recently used — AutoMobile's pool)
    #: instead of ``MULTIPLE_DEVICES_DEVICE_ID_REQUIRED``
    choose_device: bool = False


def policy_of(params: dict[str, Any]) -> Policy:
    """The limits a request's client sends with it (``groups``, ``prefix``, ``filesDir``,
    ``allowDevices``, ``allowScenarios``, ``observe``): what that request may do."""
    groups = params.get("groups", list(GROUPS))
    if isinstance(groups, str):
        groups = [g.strip() for g in groups.split(",") if g.strip()]
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        raise InvalidArgument("params.groups must be a list of group names")
    allow = params.get("allowDevices")
    if allow is not None and (not isinstance(allow, list)
                              or not all(isinstance(a, str) for a in allow)):
        raise InvalidArgument("params.allowDevices must be a list of device specs")
    files_dir = _text(params, "filesDir")
    prefix = _text(params, "prefix") or ""
    observe = params.get("observe")
    if observe is not None and not isinstance(observe, bool):
        raise InvalidArgument("params.observe must be true or false")
    return Policy(groups=tuple(groups), prefix=prefix, files_dir=files_dir,
                  allow_devices=tuple(allow) if allow is not None else None,
                  allow_scenarios=bool(params.get("allowScenarios", True)), observe=observe)


def _text(params: dict[str, Any], key: str) -> str | None:
    value = params.get(key)
    if value is not None and not isinstance(value, str):
        raise InvalidArgument(f"params.{key} must be a string, not {type(value).__name__}")
    return value


class HubPages:
    """Where a daemon session's pages come from, for one request
    (:class:`baremobile.tools.pages.Pages`): the devices the pool assigned to the session,
    over the hub's one pool of pages and its per-device locks (one page and one lock per
    device for the whole daemon). A session's first call adopts the one free device it may
    use; ``virtual:new`` is a phone of its own."""

    def __init__(self, hub: Any, state: SessionState, *, choose: bool = False) -> None:
        self.hub = hub
        self.state = state
        self.choose = choose  #: with several free devices, the pool picks (Policy)
        self.used: str | None = None  #: the pool key this request acted on

    def page(self, session: Session, spec: str | None) -> Any:
        if spec is None or device_key(spec) == "auto":
            spec = session.options.device
        if spec is None:  # a session's first call: the one free device it may use, if any
            spec = self.hub.adopt(self.state, session.allows,
                                  choose=self.choose)
        key = session.check_allowed(spec)
        if key == NEW_VIRTUAL:  # the session's own virtual phone
            key = self.hub.own_phone(self.state)
        self.used = key
        return self.hub.attach(self.state, key)

    def claim(self, session: Session, spec: str) -> str:
        key = session.check_allowed(spec)
        if key == NEW_VIRTUAL:
            key = self.hub.own_phone(self.state)
        self.hub.attach(self.state, key, connect=False)  # claim it, or DEVICE_ASSIGNED
        return key

    def pages(self) -> dict[str, Any]:
        open_pages = self.hub.pages.pages()
        return {spec: open_pages[spec] for spec in self.hub.pool.of_session(self.state.name)
                if spec in open_pages}

    def acting(self, page: Any, wait: float) -> contextlib.AbstractContextManager[None]:
        return self.hub.pages.acting(page, wait)

    def interrupt(self, thread_id: int) -> Any:
        return self.hub.pages.interrupt(thread_id)

    def forget(self, page: Any) -> None:
        self.hub.pages.forget(page)

    def allows_eval(self) -> bool:
        return False  # the daemon's operator decides (Session(allow_eval=…))

    def close(self) -> None:  # the hub owns the pages
        pass


def session_for_request(hub: Any, state: SessionState, policy: Policy
                        ) -> tuple[Session, HubPages]:
    """The session ``tools.call`` runs one request against: the daemon session's defaults
    (shared by all its requests), the calling client's limits (``policy``), the hub's pages.
    Also returns the pages, which say which device the request used."""
    pages = HubPages(hub, state, choose=policy.choose_device)
    session = Session(files_dir=policy.files_dir, allow_devices=policy.allow_devices,
                      allow_scenarios=policy.allow_scenarios,
                      allow_eval=hub.allow_eval,  # the daemon's operator decides
                      pages=pages, options=state.options)
    return session, pages


@contextlib.contextmanager
def request(state: SessionState, clock: Any = None) -> Iterator[None]:
    """Count one request of ``state`` while it runs (``in_flight``, ``calls``, last use by
    ``clock``: the hub's wall clock, injectable)."""
    state.in_flight += 1
    try:
        yield
    finally:
        state.in_flight -= 1
        state.calls += 1
        state.touch(clock)


class SharedPages:
    """The hub's pages seen through a client's gate (:meth:`Hub.gate`): pages and locks
    are the hub's; the gate's session never closes them."""

    def __init__(self, hub_pages: Session) -> None:
        self._session = hub_pages
        self._pages = hub_pages._pages

    def page(self, session: Session, spec: str | None) -> Any:
        session.check_allowed(spec)  # the client's limits first
        return self._pages.page(self._session, spec)  # then the hub's own

    def claim(self, session: Session, spec: str) -> str:
        return session.check_allowed(spec)

    def pages(self) -> dict[str, Any]:
        return self._pages.pages()

    def acting(self, page: Any, wait: float) -> contextlib.AbstractContextManager[None]:
        return self._pages.acting(page, wait)

    def interrupt(self, thread_id: int) -> Any:
        return self._pages.interrupt(thread_id)

    def forget(self, page: Any) -> None:
        self._pages.forget(page)

    def allows_eval(self) -> bool:
        return False

    def close(self) -> None:  # the hub owns the pages
        pass
