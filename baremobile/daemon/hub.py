"""The daemon's state and methods, without sockets: pool, pages, sessions, tool calls.

:class:`Hub` is what the server's methods call (``daemon/openSession`` →
:meth:`Hub.open_session`, ``tools/call`` → :meth:`Hub.call_tool` …). It holds

* one :class:`baremobile.tools.Session` (``pages``) with the Page of every device in use and
  one lock per device — the per-device ``BUSY`` rule for every client of the daemon;
* the :class:`~baremobile.daemon.pool.Pool` (which session holds which device);
* the named :class:`~baremobile.daemon.sessions.SessionState`\\ s.

Tool calls go through :func:`baremobile.tools.call` — the same table and dispatcher as
``baremobile.tools`` and MCP; nothing here implements a tool.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
import math
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from baremobile.daemon.errors import DaemonError, SessionNotFound, SessionNotOpen
from baremobile.daemon.navigation import NavGraph, Watcher
from baremobile.daemon.pool import Pool
from baremobile.daemon.sessions import (
    Policy,
    SessionState,
    SharedPages,
    device_key,
    request,
    session_for_request,
)
from baremobile.errors import BaremobileError, Busy, InvalidArgument, MultipleDevices
from baremobile.timeouts import call_time
from baremobile.tools import render
from baremobile.tools.aliases import alias_for, resolve
from baremobile.tools.dispatch import call, error_data
from baremobile.tools.session import NotAllowed, Options, Session
from baremobile.tools.spec import TOOLS, get, select
from baremobile.tools.table import ALIASES
from baremobile.transport.specs import NEW_VIRTUAL

__all__ = ["DEFAULT_SESSION_TTL", "ENV_SESSION_TTL", "Hub", "session_ttl", "tool_list"]

log = logging.getLogger("baremobile.daemon")

#: the most virtual phones the daemon runs for sessions at once (``virtual:new``)
MAX_OWN_PHONES = 16
#: adb adopts listeners on these ports as emulators: a session's own phone never sits there
_EMULATOR_PORTS = range(5554, 5587)
#: the most sessions the daemon holds (their names come from clients)
MAX_SESSIONS = 4096
#: seconds a session may stay unused before it expires (its devices go back to the pool)
DEFAULT_SESSION_TTL = 3600.0
ENV_SESSION_TTL = "BAREMOBILE_DAEMON_SESSION_TTL"
#: codes that say the device itself cannot be reached: it goes to ``error`` in the pool
_DEVICE_FAULTS = frozenset({
    "NO_DEVICES", "DEVICE_UNAUTHORIZED", "DEVICE_BUSY", "PERMISSION_DENIED",
    "DEVICE_DISCONNECTED", "PROTOCOL_ERROR",
})


def tool_list(groups: Iterable[str] | str = ("all",), prefix: str = "", *,
              allow_eval: bool = False) -> list[dict[str, Any]]:
    """The tool table as ``tools/list`` answers it (the one renderer's menu); ``eval`` only
    when the daemon allows it."""
    return render.menu([t for t in select(groups) if t.group != "eval" or allow_eval], prefix)


def session_ttl(value: float | None = None) -> float | None:
    """Seconds an unused session lives: ``value``, else ``$BAREMOBILE_DAEMON_SESSION_TTL``,
    else an hour; 0 (or less): sessions never expire (None)."""
    if value is None:
        raw = os.environ.get(ENV_SESSION_TTL, "").strip()
        try:
            value = float(raw) if raw else DEFAULT_SESSION_TTL
        except ValueError:
            log.warning("$%s=%r is not a number of seconds: using %g", ENV_SESSION_TTL, raw,
                        DEFAULT_SESSION_TTL)
            value = DEFAULT_SESSION_TTL
    return value if math.isfinite(value) and value > 0 else None


def _list_server(host: str, port: int) -> list[dict[str, str]]:
    from baremobile.transport.server import AdbServerClient

    return [{"serial": d.serial, "state": d.state, "kind": d.kind, "via": "adb-server",
             "model": d.properties.get("model", "")}
            for d in AdbServerClient(host, port).devices()]


def _discover() -> list[dict[str, str]]:
    from baremobile.transport.discovery import devices

    return [{"serial": d.serial, "state": d.state, "kind": d.kind, "via": d.via,
             "model": d.model} for d in devices()]


class Hub:
    """Everything the daemon holds; thread-safe."""

    def __init__(
        self,
        *,
        devices: Iterable[str] = (),
        discover: bool = True,
        servers: Iterable[tuple[str, int]] = (),
        floors_ms: Mapping[str, int] | None = None,
        connect: Callable[..., Any] | None = None,
        discover_fn: Callable[[], list[dict[str, str]]] | None = None,
        allow_eval: bool = False,
        session_ttl_s: float | None = None,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        #: seconds an unused session lives (None: forever); ``daemon/sessionInfo``'s
        #: ``expiresAt``
        self.session_ttl = session_ttl(session_ttl_s)
        #: seconds since the epoch (sessions' times and expiry; tests move it)
        self.clock = wall_clock
        #: the defaults a new session starts with (``ide/setFeatureFlag`` changes them)
        self.defaults = Options()
        #: whether the ``eval`` tool may run JavaScript in pages (``--allow-eval``)
        self.allow_eval = bool(allow_eval)
        self.pages = Session(connect=connect, allow_scenarios=True,
                             allow_eval=self.allow_eval)
        self.pool = Pool(configured=[device_key(d) for d in devices if d.strip()],
                         discover=(discover_fn or _discover) if discover else None,
                         servers=servers, list_server=_list_server)
        #: the operator's floors over the tool table's (``ToolSpec.floor_ms``)
        self.floors_ms = dict(floors_ms or {})
        self.sessions: dict[str, SessionState] = {}
        #: session → (pool key, phone) of the fresh virtual phone it opened (virtual:new)
        self._own_phones: dict[str, tuple[str, Any]] = {}
        self._phone_numbers = itertools.count(2)
        self._phone_lock = threading.Lock()
        self._lock = threading.Lock()
        self.started = time.time()
        #: every session's screens and moves (``ide/getNavigationGraph`` without a session)
        self.graph = NavGraph(wall_clock)
        #: the pages whose steps feed a session's graph: page → (session, stop watching)
        self._watched: weakref.WeakKeyDictionary[Any, tuple[str, Callable[[], None]]] = \
            weakref.WeakKeyDictionary()

    # -- sessions ---------------------------------------------------------------------
    def session(self, name: str, *, create: bool = False) -> SessionState:
        _check_name(name)
        self.expire()
        with self._lock:
            state = self.sessions.get(name)
            if state is None:
                if not create:
                    raise SessionNotFound(_no_session(name, list(self.sessions)))
                if len(self.sessions) >= MAX_SESSIONS:  # names come from clients
                    raise DaemonError(f"the daemon already holds {len(self.sessions)} "
                                      "sessions", hint="release sessions you no longer use "
                                      "(baremobile close, daemon/releaseSession)")
                options = dataclasses.replace(self.defaults, device=None)
                state = self.sessions[name] = SessionState(name, options=options,
                                                           graph=NavGraph(self.clock))
                state.touch(self.clock)
                state.created_ms = state.last_used_ms
            return state

    def own_phone(self, state: SessionState) -> str:
        """The pool key of the session's own virtual phone (``virtual:new``), started in this
        process on first use and stopped when the session is released: each session that
        asks gets a phone of its own, with its own screens and events."""
        with self._phone_lock:  # one phone per session, however many calls ask at once
            with self._lock:
                held = self._own_phones.get(state.name)
                running = len(self._own_phones)
            if held is not None:
                return held[0]
            if running >= MAX_OWN_PHONES:
                raise NotAllowed(f"the daemon already runs {running} virtual phones for "
                                 "sessions (virtual:new), its limit",
                                 hint="close a session that is done ({close_session}), or "
                                      "share one phone: device 'virtual'")
            from baremobile.virtual import VirtualPhone

            while True:  # a free port, clear of the emulator ports an adb server adopts
                phone = VirtualPhone(serial=f"vphone-{next(self._phone_numbers):04d}").start()
                if phone.port not in _EMULATOR_PORTS:
                    break
                phone.stop()  # pragma: no cover - the OS rarely hands these out
            key = phone.address
            with self._lock:
                self._own_phones[state.name] = (key, phone)
        self.pool.claim(state.name, key)[0].kind = "virtual"
        log.info("session %s: a fresh virtual phone on %s", state.name, key)
        return key

    def _stop_own_phone(self, name: str) -> None:
        with self._lock:
            held = self._own_phones.pop(name, None)
        if held is not None:
            key, phone = held
            self.pool.forget(key)
            threading.Thread(target=phone.stop, name="baremobile-daemon-phone-stop",
                             daemon=True).start()

    def expire(self) -> list[str]:
        """Release every session unused for longer than the session TTL (none running a
        request); returns their names. Called on every hub operation, so an expired
        session's devices are free before anyone asks for one."""
        if self.session_ttl is None:
            return []
        now_ms = int(self.clock() * 1000)
        ttl_ms = int(self.session_ttl * 1000)
        with self._lock:
            gone = [n for n, s in self.sessions.items()
                    if s.in_flight == 0 and now_ms >= s.last_used_ms + ttl_ms]
        for name in gone:
            log.info("session %s expired (unused for %g s)", name, self.session_ttl)
            self.release_session(name, sweep=False)
        return gone

    def attach(self, state: SessionState, key: str, *, connect: bool = True) -> Any:
        """Claim device ``key`` for ``state``'s session and return its Page (connected on
        first use). A claim that fails to connect is given back; the device goes to error.
        ``key`` is a pool key: ``virtual:new`` was turned into the session's own phone
        (:meth:`own_phone`) where the spec was read."""
        _, fresh = self.pool.claim(state.name, key)
        if state.options.device is None:
            state.options.device = key  # the first device a session touches is its own
        if not connect:
            return None
        try:
            page = self.pages.page(key)
        except BaremobileError as exc:
            if exc.code in _DEVICE_FAULTS:
                self.pool.mark_error(key, error_data(exc))
            if fresh:
                self.pool.release(state.name, key)
                if state.options.device == key:
                    state.options.device = None
            raise
        self.pool.mark_ok(key, page.serial)
        self._watch(state, page)
        return page

    def _watch(self, state: SessionState, page: Any) -> None:
        """Feed ``state``'s navigation graph (and the daemon's) from ``page``'s steps."""
        with self._lock:
            held = self._watched.get(page)
            if held is not None and held[0] == state.name:
                return
            if held is not None:
                held[1]()  # another session had it: its graph stops here
            stop = page.observe(Watcher(state.graph, self.graph)) \
                if hasattr(page, "observe") else (lambda: None)
            self._watched[page] = (state.name, stop)

    def heartbeat(self, name: str) -> bool:
        """A client's sign of life for session ``name`` (AutoMobile's ``daemon/heartbeat``):
        it counts as a use, so the session does not expire. False when there is none."""
        _check_name(name)
        self.expire()
        with self._lock:
            state = self.sessions.get(name)
        if state is None:
            return False
        state.touch(self.clock)
        return True

    def adopt(self, state: SessionState, allowed: Callable[[str], bool] | None = None, *,
              choose: bool = False) -> str:
        """The device for a session that holds none and whose call names none: the pool's
        only free device that ``allowed`` accepts (claimed for it) — with ``choose``, the
        one the pool picks among several (:meth:`~baremobile.daemon.pool.Pool.pick`); else
        ``MULTIPLE_DEVICES…``, ``NOT_ALLOWED`` (free devices, none allowed) or
        ``SESSION_NOT_OPEN``. A device the caller may not use is never claimed."""
        free = self.pool.candidates()
        if not free:
            self.refresh_devices()
            free = self.pool.candidates()
        usable = [k for k in free if allowed is None or allowed(k)]
        if len(usable) > 1 and choose:
            usable = [self.pool.pick(usable)]
        if len(usable) > 1:
            raise MultipleDevices(usable)
        if not usable and free:
            raise NotAllowed(f"none of the {len(free)} free device(s) of the pool is on this "
                             f"session's allow-list ({', '.join(free)})",
                             hint="name an allowed device, or ask the operator to allow one")
        if not usable:
            raise SessionNotOpen(f"session {state.name!r} holds no device, and the pool has "
                                 "none free")
        self.attach(state, usable[0], connect=False)
        return usable[0]

    def gate(self, policy: Policy | None) -> Session:
        """The client's limits over the daemon's pages: a session whose
        :meth:`~baremobile.tools.Session.check_allowed` is the one authorization every way a
        client names a device passes (tool arguments, resource URIs, ``ide/*`` ``deviceId``,
        ``openSession``, a session's default), and whose pages are the hub's."""
        policy = policy or Policy()
        return Session(allow_devices=policy.allow_devices,
                       allow_scenarios=policy.allow_scenarios, allow_eval=self.allow_eval,
                       pages=SharedPages(self.pages), options=dataclasses.replace(self.defaults))

    def open_session(self, name: str, device: str | None = None,
                     server: tuple[str, int] | None = None,
                     policy: Policy | None = None) -> dict[str, Any]:
        """Give session ``name`` a device: ``device``, else a free one of the pool (of the
        adb server ``server``, when given) that ``policy`` allows."""
        gate = self.gate(policy)
        if device:
            gate.check_allowed(device)
        with self._lock:
            existed = name in self.sessions
        try:
            return self._open(name, device, server, gate)
        except BaseException:
            if not existed:  # a failed open leaves nothing behind: no session, no device
                self.release_session(name, sweep=False)
            raise

    def _open(self, name: str, device: str | None,
              server: tuple[str, int] | None, gate: Session) -> dict[str, Any]:
        if device and device_key(device) == "auto":
            raise InvalidArgument("open -d auto: name a device, or leave -d out to get "
                                  "a free one from the pool")
        state = self.session(name, create=True)
        if device:
            key = device_key(device)
            if key == NEW_VIRTUAL:
                key = self.own_phone(state)
            self.attach(state, key)
            state.options.device = key
            return self.session_info(name)
        if state.options.device is not None:
            return self.session_info(name)
        if server is not None and server not in self.pool.servers:
            self.pool.servers.append(server)
        candidates = self.pool.candidates(server=server)
        if not candidates:
            self.refresh_devices()
            candidates = self.pool.candidates(server=server)
        for key in candidates:
            if not gate.allows(key):
                continue
            try:
                self.attach(state, key)
            except BaremobileError as exc:
                log.info("open %s: %s is unusable (%s)", name, key, exc.code)
                continue
            state.options.device = key
            return self.session_info(name)
        raise self.pool.no_free_device(server=server)

    def release_session(self, name: str, *, sweep: bool = True) -> dict[str, Any]:
        """Give the session's devices back to the pool and forget its refs (idempotent)."""
        _check_name(name)
        if sweep:
            self.expire()
        with self._lock:
            state = self.sessions.pop(name, None)
        freed = self.pool.release(name)
        pages = self.pages.pages()
        for key in freed:
            page = pages.get(key)
            if page is not None:
                self.pages.forget(page)
                _close_soon(page)  # its refs go with it; the next session reconnects
        self._stop_own_phone(name)
        if state is None and not freed:
            return {"message": f"Session {name} already released or never existed",
                    "alreadyReleased": True}
        out: dict[str, Any] = {"message": f"Session {name} released", "alreadyReleased": False,
                               "devices": freed}
        if freed:
            out["device"] = freed[0]
        return out

    def spec_of(self, device: str) -> str:
        """How the pages name ``device`` (a serial, or any spec): the spec its page was
        connected by when one with that serial is open, else its pool key."""
        by_serial = {p.serial: spec for spec, p in self.pages.pages().items()}
        return by_serial.get(device) or device_key(device)

    def session_info(self, name: str) -> dict[str, Any]:
        state = self.session(name)
        devices = self.pool.of_session(name)
        pages = self.pages.pages()
        page = pages.get(state.options.device or "")
        snap = getattr(page, "last_snapshot", None)
        expires = (None if self.session_ttl is None
                   else state.last_used_ms + int(self.session_ttl * 1000))
        return {
            "sessionId": name, "assignedDevice": state.options.device, "devices": devices,
            "serial": getattr(page, "serial", None), "platform": "android",
            "createdAt": state.created_ms, "lastUsedAt": state.last_used_ms,
            "expiresAt": expires,
            "cacheSize": sum(cache_size(pages[d]) for d in devices if d in pages),
            "calls": state.calls, "inFlight": state.in_flight,
            "refs": len(snap.refs) if snap is not None else 0,
            "package": getattr(snap, "package", None), "settings": state.options.to_dict(),
        }

    def session_list(self) -> list[dict[str, Any]]:
        self.expire()
        with self._lock:
            states = list(self.sessions.values())
        return [{"sessionId": s.name, "assignedDevice": s.options.device,
                 "lastUsedAt": s.last_used_ms, "inFlight": s.in_flight} for s in states]

    # -- devices ----------------------------------------------------------------------
    def available_devices(self) -> dict[str, Any]:
        self.expire()
        return {**self.pool.counts(), "devices": self.pool.snapshot()}

    def refresh_devices(self) -> dict[str, Any]:
        return {**self.pool.refresh(self._probe), "devices": self.pool.snapshot()}

    def _probe(self, key: str) -> dict[str, str] | None:
        """None when ``key`` answers a trivial command, else its error."""
        try:
            page = self.pages.page(key)
            with self.pages.acting(page, 0):
                page.transport.shell("true", timeout=5)
            return None
        except Busy:
            return None  # a call is using it: it is alive
        except BaremobileError as exc:
            data = error_data(exc)
            return {"code": data["code"], "message": data["message"]}

    # -- tools ------------------------------------------------------------------------
    def floor_ms(self, name: Any, arguments: Any, session: str | None,
                 policy: Policy | None = None, vocabulary: str | None = None) -> int:
        """The least time ``tools/call`` of ``name`` gets (AutoMobile's "tool-specific
        timeout floors"): the call's time as :func:`baremobile.timeouts.call_time` resolves
        it — the row's floor (or the operator's ``--timeout-floor``), the wait it was given
        (or its default, the session's when the row says so) and a dump more, a dump and the
        settle time more for an acting tool in a session (or a client) that observes."""
        if not isinstance(name, str):
            return 0
        args = dict(arguments) if isinstance(arguments, Mapping) else {}
        # another system's name: its row's time with the arguments in our terms, and at
        # least its own floor (AutoMobile's launchApp, openLink …)
        alias = alias_for(name, args, _ROWS, ALIASES, vocabulary)
        theirs_ms = int(alias.floor_s() * 1000) if alias is not None else 0
        row_name = name
        if alias is not None:
            try:
                found = resolve(name, args, _ROWS, ALIASES, prefer=vocabulary)
            except BaremobileError:
                found = None  # the call will say what is wrong
            row_name, arguments = (found.name, found.args) if found is not None else ("", {})
        tool = get(row_name)
        if tool is None:
            return max(self.floors_ms.get(name, 0), theirs_ms)
        with self._lock:
            state = self.sessions.get(session or "")
        options = state.options if state is not None else Options()
        if policy is not None:
            options = options.overridden(observe=policy.observe, settle=policy.settle)
        facts = tool.time_facts
        operator = self.floors_ms.get(name, self.floors_ms.get(row_name))
        if operator is not None:
            facts = facts.replace(floor=operator / 1000)
        return max(theirs_ms, call_time(facts, arguments, session_timeout=options.timeout,
                                        observe=options.observe,
                                        settle=options.settle).floor_ms)

    def call_tool(self, session: str, name: Any, arguments: Any, policy: Policy,
                  *, create: bool = True, door: str = "tools", vocabulary: str | None = None,
                  keep: bool = False) -> dict[str, Any]:
        """Run one tool in ``session`` and answer with its result (``{"ok": …}``, never
        raising for the tool's failure; at a door speaking another system's ``vocabulary``,
        that system's result where an alias says it). The session is created on first use
        when ``create`` (else ``SESSION_NOT_FOUND``: a mistyped name claims nothing); a
        session this call created is released again when the call fails, so a failed first
        call holds no device — unless ``keep`` (AutoMobile's rule: a session exists once a
        device was assigned to it, whatever its first tool then did)."""
        with self._lock:
            existed = session in self.sessions
        state = self.session(session, create=create)
        try:
            result = self._call(state, name, arguments, policy, door, vocabulary)
        except BaseException:
            if not existed and not (keep and self.pool.of_session(session)):
                self.release_session(session, sweep=False)
            raise
        if not existed and result.get("ok") is False and \
                not (keep and self.pool.of_session(session)):
            self.release_session(session, sweep=False)
        return result

    def _call(self, state: SessionState, name: Any, arguments: Any,
              policy: Policy, door: str = "tools", vocabulary: str | None = None
              ) -> dict[str, Any]:
        view, pages = session_for_request(self, state, policy)
        shown = name if isinstance(name, str) else "?"
        with request(state, self.clock), state.graph.calling(shown), \
                self.graph.calling(shown):  # under the request's cancel token (calls.Call)
            result = call(view, name, arguments, groups=policy.groups, prefix=policy.prefix,
                          observe=policy.observe, settle=policy.settle,
                          max_chars=policy.max_chars, files_dir=policy.files_dir, door=door,
                          vocabulary=vocabulary)
        if pages.used is not None:
            error = result.get("error")
            if result.get("ok") is not False:
                self.pool.mark_ok(pages.used, result.get("device"))
            elif isinstance(error, dict) and error.get("code") in _DEVICE_FAULTS:
                self.pool.mark_error(pages.used, error)
        return result

    # -- lifecycle --------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        return {"sessions": self.session_list(), **self.available_devices()}

    def close(self, wait: float = 5.0) -> None:
        """Close every page (in the background: a stuck device cannot hold shutdown up
        longer than ``wait`` seconds)."""
        with self._lock:
            self.sessions.clear()
            own = list(self._own_phones)
        for name in own:
            self._stop_own_phone(name)
        done = threading.Thread(target=self.pages.close, name="baremobile-daemon-close",
                                daemon=True)
        done.start()
        done.join(wait)


_ROWS = {t.name: t for t in TOOLS}

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-@:")


def _check_name(name: Any) -> None:
    if not isinstance(name, str) or not 0 < len(name) <= 100 or not set(name) <= _NAME_CHARS:
        raise InvalidArgument(f"a session name is 1-100 letters, digits or _ . - @ :, not "
                              f"{name!r}", hint="e.g. --session agent1")


def _no_session(name: str, names: list[str]) -> str:
    """The message for a session that does not exist: the open ones, the closest first."""
    import difflib

    if not names:
        return f"there is no session {name!r} (none is open)"
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return (f"there is no session {name!r}" + (f"; did you mean {close[0]!r}?" if close else "")
            + f" (open: {', '.join(sorted(names))})")


def cache_size(page: Any) -> int:
    """Bytes the daemon keeps for ``page`` between calls: its last snapshot's text and the
    earlier snapshots a diff may be taken against."""
    snap = getattr(page, "last_snapshot", None)
    size = len(snap.full_text.encode("utf-8")) if snap is not None else 0
    seen = getattr(page, "_seen", None)  # the page's diff history (PageBase)
    texts = seen.texts() if seen is not None and hasattr(seen, "texts") else {}
    return size + sum(len(t.encode("utf-8")) for t in texts.values())


def _close_soon(page: Any) -> None:
    """Close ``page`` without waiting (closing waits for a command in flight)."""
    def close() -> None:
        with contextlib.suppress(Exception):
            page.close()

    threading.Thread(target=close, name="baremobile-daemon-close", daemon=True).start()
