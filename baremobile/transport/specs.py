"""Device specs: the one parser of the strings every front door accepts for a device.

``connect(device=...)``, the tools' ``device`` argument, the MCP server's ``--device``, the
daemon's pool and sessions, the CLI's ``-d`` and the pytest plugin's ``--device`` all read a
spec with :func:`parse_spec` (no I/O; what each form reaches is ``docs/transport.md``'s
table):

=============================  ==========================================================
``None``, ``""``, ``"auto"``   discovery (``$ANDROID_SERIAL`` first)
``"virtual"``                  the built-in virtual phone (the demo scenario)
``"virtual:new"``              a fresh virtual phone: in the daemon, one of its own per
                               session (``"virtual"`` is one phone every session shares);
                               in-process, the same as ``"virtual"``
``"virtual:FILE.yaml"``        a virtual phone with your scenario (``./new`` for a file
                               called ``new``)
``"usb"``, ``"usb:SERIAL"``    adbd directly over USB
``"HOST:PORT"``                adbd directly over TCP (IPv6: ``[::1]:5555``)
``"adb:SERIAL"``               through the adb server (``$ADB_SERVER_SOCKET`` …)
``"adb:SERIAL@HOST:PORT"``     through the adb server at HOST:PORT
any other word                 a serial, through the adb server
=============================  ==========================================================

A word that is no serial but a near miss of a keyword (``virtaul``, ``USB``, ``vritual:new``,
``abd:emulator-5554``) is refused with "did you mean 'virtual'?" (:mod:`baremobile.suggest`)
rather than sent to an adb server that knows no such device; a device whose serial really is
such a word is reached as ``adb:SERIAL``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baremobile.errors import InvalidArgument
from baremobile.suggest import closest

__all__ = ["NEW_VIRTUAL", "DeviceSpec", "parse_host_port", "parse_spec", "server_spec"]

#: The spec of a fresh virtual phone.
NEW_VIRTUAL = "virtual:new"


@dataclass(frozen=True)
class DeviceSpec:
    """A parsed device spec (see the module's table)."""

    kind: str  #: ``auto``, ``virtual``, ``usb``, ``tcp``, ``adb`` (through an adb server)
    text: str  #: the spec as given (stripped)
    serial: str = ""  #: ``usb:SERIAL``, ``adb:SERIAL``, a plain serial
    host: str = ""  #: ``tcp``: adbd's host; ``adb``: the adb server's (empty: the usual one)
    port: int = 0
    scenario: str = ""  #: ``virtual:FILE``
    fresh: bool = False  #: ``virtual:new``

    @property
    def server(self) -> tuple[str, int] | None:
        """The adb server a ``adb:SERIAL@HOST:PORT`` spec names (None: the usual one)."""
        return (self.host, self.port) if self.kind == "adb" and self.host else None


_HOST_PORT = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[^:\s/]+)):(?P<port>\d{1,5})\Z")


def parse_host_port(spec: str) -> tuple[str, int] | None:
    """``"10.0.0.5:5555"`` / ``"[::1]:5555"`` → (host, port); None if not that shape."""
    m = _HOST_PORT.match(spec.strip())
    if not m:
        return None
    port = int(m.group("port"))
    if not 0 < port < 65536:
        return None
    return (m.group("v6") or m.group("host")), port


def server_spec(serial: str, host: str, port: int) -> str:
    """The spec of ``serial`` on the adb server at ``host:port``."""
    shown = f"[{host}]" if ":" in host else host
    return f"adb:{serial}@{shown}:{port}"


def parse_spec(spec: str | None) -> DeviceSpec:
    """The device ``spec`` parsed (``InvalidArgument`` for one that cannot be a device)."""
    if spec is not None and not isinstance(spec, str):
        raise InvalidArgument(f"device must be a string spec, not {type(spec).__name__}")
    text = (spec or "").strip()
    if not text or text == "auto":
        return DeviceSpec("auto", "auto")
    if text == "virtual" or text.startswith("virtual:"):
        rest = text.partition(":")[2]
        if rest == "new":
            return DeviceSpec("virtual", text, fresh=True)
        return DeviceSpec("virtual", text, scenario=rest)
    if text == "usb" or text.startswith("usb:"):
        return DeviceSpec("usb", text, serial=text.partition(":")[2])
    if text.startswith("adb:"):
        serial = text[4:]
        if not serial:
            raise InvalidArgument("'adb:' needs a serial: adb:SERIAL or adb:SERIAL@HOST:PORT",
                                  hint="e.g. adb:emulator-5554@10.0.0.2:5037")
        name, at, where = serial.rpartition("@")
        server = parse_host_port(where) if at else None
        if name and server is not None:
            return DeviceSpec("adb", text, serial=name, host=server[0], port=server[1])
        return DeviceSpec("adb", text, serial=serial)
    hp = parse_host_port(text)
    if hp is not None:
        return DeviceSpec("tcp", text, host=hp[0], port=hp[1])
    _refuse_near_miss(text)
    return DeviceSpec("adb", text, serial=text)


#: the words a spec may be, and the words before a ``:``
_WORDS = ("auto", "virtual", "usb", NEW_VIRTUAL)
_PREFIXES = ("virtual", "usb", "adb")


def _refuse_near_miss(text: str) -> None:
    """Refuse a spec that is a keyword mistyped (letters only: serials that adb prints hold
    digits — ``emulator-5554``, ``R58M1234ABC``, ``6563c026`` — so a word of letters alone
    close to a keyword is a typo, not a device)."""
    head, colon, rest = text.partition(":")
    if colon:
        found = closest(head, _PREFIXES) if head.isalpha() else None
        meant = f"{found}:{rest}" if found is not None else None
    else:
        meant = closest(text, _WORDS) if text.replace("-", "").isalpha() else None
    if meant is not None:
        raise InvalidArgument(
            f"{text!r} is not a device spec; did you mean {meant!r}?",
            hint=f"a device whose serial really is {text!r} is reached as 'adb:{text}'; the "
                 "specs are auto, virtual, virtual:new, virtual:FILE.yaml, usb[:SERIAL], "
                 "HOST:PORT, adb:SERIAL[@HOST:PORT]")
