"""The device pool: every device the daemon can hand out, and who holds it.

A device is **idle** (free), **assigned** (a session holds it) or in **error** (the last
attempt to reach it failed: it is not handed out until a refresh or a call on it succeeds;
a session that holds it keeps it). Devices come from

* discovery (``baremobile.devices()``: the adb server, local emulator ports, USB), unless
  switched off;
* extra adb servers (``--adb-server tcp:HOST:PORT``): their devices are named
  ``adb:SERIAL@HOST:PORT`` — a rack of phones on other hosts joins the pool this way;
* specs given when the daemon started (``--device``);
* and any spec a session names (``open -d 127.0.0.1:40555``).

Keys are device specs as :class:`baremobile.tools.Session` files them (``virtual``, a
serial, ``host:port``, ``adb:SERIAL@HOST:PORT`` …). The pool never connects by itself:
:meth:`Pool.refresh` takes a ``probe`` callback from the hub for devices it cannot list.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from baremobile.daemon.errors import DeviceAssigned, NoFreeDevice
from baremobile.transport.specs import parse_spec, server_spec

__all__ = ["Pool", "PoolDevice", "server_spec", "split_server_spec"]


def split_server_spec(spec: str) -> tuple[str, str, int] | None:
    """``adb:SERIAL@HOST:PORT`` → (serial, host, port); None for any other spec."""
    parsed = parse_spec(spec)
    server = parsed.server
    return (parsed.serial, *server) if server is not None else None


@dataclass
class PoolDevice:
    """One device of the pool."""

    spec: str
    source: str  #: discovered | server | configured | named
    session: str | None = None
    error: dict[str, str] | None = None
    serial: str | None = None  #: the device's serial once connected
    kind: str = ""
    via: str = ""
    model: str = ""
    added_at: float = field(default_factory=time.time)
    #: when a session last took it or gave it back (0: never): the least recently used
    #: free device is handed out first (AutoMobile's pool)
    last_used: float = 0.0

    @property
    def state(self) -> str:
        if self.error is not None:
            return "error"
        return "assigned" if self.session is not None else "idle"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"device": self.spec, "state": self.state, "source": self.source}
        if self.session is not None:
            out["session"] = self.session
        for key in ("serial", "kind", "via", "model"):
            value = getattr(self, key)
            if value:
                out[key] = value
        if self.error is not None:
            out["error"] = self.error
        return out


Listing = list[dict[str, str]]


class Pool:
    """Devices and their assignment to sessions. Thread-safe; never does device I/O itself."""

    def __init__(
        self,
        *,
        configured: Iterable[str] = (),
        discover: Callable[[], Listing] | None = None,
        servers: Iterable[tuple[str, int]] = (),
        list_server: Callable[[str, int], Listing] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._devices: dict[str, PoolDevice] = {}
        #: the device a session gave back last (handed out first while it is free)
        self.last_released: str | None = None
        self._discover = discover
        self.servers = list(dict.fromkeys(servers))
        self._list_server = list_server
        for spec in configured:
            self._devices.setdefault(spec, PoolDevice(spec, "configured"))

    # -- reading ----------------------------------------------------------------------
    def get(self, spec: str) -> PoolDevice | None:
        with self._lock:
            return self._devices.get(spec)

    def of_session(self, session: str) -> list[str]:
        with self._lock:
            return [d.spec for d in self._devices.values() if d.session == session]

    def stats(self) -> dict[str, int]:
        with self._lock:
            states = [d.state for d in self._devices.values()]
        return {"total": len(states), "idle": states.count("idle"),
                "assigned": states.count("assigned"), "error": states.count("error")}

    def snapshot(self) -> list[dict[str, Any]]:
        with self._lock:
            return [d.to_dict() for d in self._devices.values()]

    # -- assignment -------------------------------------------------------------------
    def claim(self, session: str, spec: str) -> tuple[PoolDevice, bool]:
        """Give ``spec`` to ``session`` (adding it to the pool when new); returns the
        device and whether it was newly claimed. :class:`DeviceAssigned` when another
        session holds it."""
        with self._lock:
            dev = self._devices.get(spec)
            if dev is None:
                dev = self._devices[spec] = PoolDevice(spec, "named")
            if dev.session is not None and dev.session != session:
                raise DeviceAssigned(
                    f"{spec} is assigned to session {dev.session!r}",
                    hint="use that session, pick another device ({devices}), or release "
                         f"session {dev.session!r} ({{close_session}})")
            fresh = dev.session is None
            dev.session = session
            if fresh:
                dev.last_used = time.time()
            return dev, fresh

    def pick(self, free: list[str]) -> str:
        """The one of ``free`` (idle devices) to hand a session that named none, as
        AutoMobile's pool chooses: the device given back last, else the least recently
        used (then the first to join)."""
        with self._lock:
            if self.last_released in free:
                return self.last_released
            order = {spec: i for i, spec in enumerate(self._devices)}
            return min(free, key=lambda s: ((self._devices[s].last_used
                                             if s in self._devices else 0.0),
                                            order.get(s, len(order))))

    def candidates(self, *, server: tuple[str, int] | None = None) -> list[str]:
        """Idle devices, in the order they joined (of one adb server, when given)."""
        with self._lock:
            found = [d.spec for d in self._devices.values() if d.state == "idle"]
        if server is not None:
            found = [s for s in found if (split_server_spec(s) or ("",))[1:] == server]
        return found

    def no_free_device(self, *, server: tuple[str, int] | None = None) -> NoFreeDevice:
        """The error for an ``open`` that found nothing idle, saying where every device is."""
        with self._lock:
            devices = list(self._devices.values())
        if server is not None:
            devices = [d for d in devices if (split_server_spec(d.spec) or ("",))[1:] == server]
        if not devices:
            where = f" on the adb server {server[0]}:{server[1]}" if server else ""
            return NoFreeDevice(f"the pool has no devices{where}",
                                hint="connect a device (or start an emulator), then list "
                                     "the pool again ({devices}); or name one "
                                     "({pick_device}: a serial, host:port, or virtual:new "
                                     "for a fresh virtual phone)")
        held = [f"{d.spec} (session {d.session})" for d in devices if d.state == "assigned"]
        broken = [f"{d.spec} ({(d.error or {}).get('code', 'error')})" for d in devices
                  if d.state == "error"]
        parts = []
        if held:
            parts.append("assigned: " + ", ".join(held))
        if broken:
            parts.append("in error: " + ", ".join(broken))
        return NoFreeDevice(f"no free device: all {len(devices)} are taken ({'; '.join(parts)})")

    def release(self, session: str, spec: str | None = None) -> list[str]:
        """Take ``spec`` (every device, when None) back from ``session``."""
        with self._lock:
            freed = [d for d in self._devices.values() if d.session == session
                     and (spec is None or d.spec == spec)]
            now = time.time()
            for d in freed:
                d.session = None
                d.last_used = now
                self.last_released = d.spec
            return [d.spec for d in freed]

    def forget(self, spec: str) -> None:
        """Drop ``spec`` from the pool (a session's own virtual phone, stopped)."""
        with self._lock:
            self._devices.pop(spec, None)

    # -- health -----------------------------------------------------------------------
    def mark_error(self, spec: str, error: dict[str, str]) -> None:
        with self._lock:
            dev = self._devices.get(spec)
            if dev is not None:
                dev.error = {k: error[k] for k in ("code", "message") if k in error}

    def mark_ok(self, spec: str, serial: str | None = None) -> None:
        with self._lock:
            dev = self._devices.get(spec)
            if dev is not None:
                dev.error = None
                if serial:
                    dev.serial = serial

    def refresh(self, probe: Callable[[str], dict[str, str] | None]) -> dict[str, Any]:
        """Re-discover devices and re-check the rest.

        Listed devices (discovery, extra adb servers) join as idle, or take the state their
        source reports (``unauthorized``, ``offline`` … are errors); devices no source lists
        any more and every device in error are ``probe``-d (None: it answers; else the
        error). Returns how many joined and the counts.
        """
        listed: dict[str, tuple[str, dict[str, str]]] = {}
        notes: list[str] = []
        answered: set[Any] = set()  # "discovered", and (host, port) of each server that did
        if self._discover is not None:
            try:
                for d in self._discover():
                    listed[d["serial"]] = ("discovered", d)
                answered.add("discovered")
            except Exception as exc:  # discovery trouble is a note, not a failure
                notes.append(f"discovery: {exc}")
        for host, port in self.servers:
            if self._list_server is None:
                break
            try:
                for d in self._list_server(host, port):
                    listed[server_spec(d["serial"], host, port)] = ("server", d)
                answered.add((host, port))
            except Exception as exc:
                notes.append(f"adb server {host}:{port}: {getattr(exc, 'message', exc)}")
        added = 0
        with self._lock:
            for spec, (source, info) in listed.items():
                dev = self._devices.get(spec)
                if dev is None:
                    dev = self._devices[spec] = PoolDevice(spec, source)
                    added += 1
                dev.kind, dev.via = info.get("kind", ""), info.get("via", "")
                dev.model = info.get("model", "")
                state = info.get("state", "device")
                dev.error = None if state == "device" else {
                    "code": "DEVICE_UNAUTHORIZED" if state in ("unauthorized", "authorizing")
                    else "NO_DEVICES", "message": f"{spec} is {state}"}
            # a device its source no longer lists is gone (unplugged, its emulator or virtual
            # phone stopped); a session that held it finds out on its next call. A source
            # that did not answer says nothing: its devices stay (and are probed below)
            for spec in [d.spec for d in self._devices.values() if d.spec not in listed
                         and _source_of(d) in answered]:
                del self._devices[spec]
            # what no source vouched for: free devices, and any in error (held ones too,
            # so that a device that came back is usable again)
            unlisted = [d.spec for d in self._devices.values() if d.spec not in listed
                        and (d.session is None or d.error is not None)]
        for spec in unlisted:
            error = probe(spec)
            with self._lock:
                dev = self._devices.get(spec)
                if dev is not None:
                    dev.error = error
        out: dict[str, Any] = {"addedDevices": added, **self._counts()}
        if notes:
            out["notes"] = notes
        return out

    def _counts(self) -> dict[str, Any]:
        stats = self.stats()
        return {"totalDevices": stats["total"], "availableDevices": stats["idle"],
                "assignedDevices": stats["assigned"], "errorDevices": stats["error"],
                "stats": stats}

    def counts(self) -> dict[str, Any]:
        """AutoMobile's ``daemon/availableDevices`` numbers."""
        return self._counts()


def _source_of(dev: PoolDevice) -> Any:
    """What lists ``dev``: "discovered", an adb server's (host, port), or None (nothing:
    configured and named devices stay until the daemon stops)."""
    if dev.source == "discovered":
        return "discovered"
    if dev.source == "server":
        parsed = split_server_spec(dev.spec)
        return parsed[1:] if parsed else None
    return None
