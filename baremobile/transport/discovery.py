"""Finding devices and turning a device spec into a :class:`Transport`.

Device specs are parsed by :mod:`baremobile.transport.specs` (the one parser every front
door uses; its table lists the forms). ``None`` / ``"auto"`` means ``$ANDROID_SERIAL`` if
set; else the adb server's devices if one answers; else local emulator adbd ports
(5555–5585, odd, or ``$BAREMOBILE_EMULATOR_PORTS``) that answer the ADB handshake; else USB
— plus the virtual phones ``baremobile virtual`` announced (:mod:`.registry`). Exactly one
ready device is required. A ``"host:port"`` that is a TLS-only wireless-debugging port is
reached through the adb server when it knows the serial.

Emulator ports are probed as adb probes them: a listener counts as a device only when it
answers our ``CNXN`` with an ADB message (``CNXN``, ``AUTH`` or ``STLS``) within a short
deadline; one that accepts the connection and says nothing (or garbage) is listed as
``offline`` and never picked.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import struct
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from baremobile.errors import (
    BaremobileError,
    DeviceDisconnected,
    DeviceNotFound,
    DevicePermissionDenied,
    DeviceUnauthorized,
    InvalidArgument,
    MultipleDevices,
)
from baremobile.transport.base import Transport, check_text
from baremobile.transport.direct import DirectTransport
from baremobile.transport.server import AdbServerClient, ServerTransport
from baremobile.transport.specs import parse_host_port, parse_spec
from baremobile.transport.wire import ready

if TYPE_CHECKING:
    from baremobile.transport.server import _Deadline

__all__ = [
    "DeviceInfo",
    "devices",
    "open_transport",
    "EMULATOR_PORTS",
    "emulator_ports",
    "parse_host_port",
    "probe_adbd",
]

#: adbd ports of local emulators (console port + 1): 5555, 5557, … 5585.
EMULATOR_PORTS = tuple(range(5555, 5586, 2))
#: Names other ports to probe instead (``"5555,5557"``, ``"5555-5585"``; ``""``: none).
PORTS_ENV = "BAREMOBILE_EMULATOR_PORTS"
#: Seconds a listener gets to answer the handshake before it is called ``offline``.
PROBE_TIMEOUT = 0.5

@dataclass(frozen=True)
class DeviceInfo:
    """A device baremobile can see."""

    serial: str  #: what to pass as ``connect(device=...)``
    state: str  #: ``device`` (ready), ``unauthorized``, ``offline``, ``authorizing`` …
    kind: str  #: ``emulator``, ``tcp``, ``usb``, ``virtual`` (``baremobile virtual``)
    via: str  #: ``adb-server``, ``direct`` (TCP), ``usb``
    model: str = ""
    product: str = ""

    @property
    def ready(self) -> bool:
        """Whether the device can be used now (state ``device``: not offline, unauthorized …)."""
        return self.state == "device"


def emulator_ports() -> tuple[int, ...]:
    """The local ports probed for emulators: ``$BAREMOBILE_EMULATOR_PORTS`` when set, else
    :data:`EMULATOR_PORTS`."""
    spec = os.environ.get(PORTS_ENV)
    if spec is None:
        return EMULATOR_PORTS
    ports: list[int] = []
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            first, last = int(lo), int(hi if sep else lo)
        except ValueError:
            raise InvalidArgument(
                f"${PORTS_ENV} must list ports or ranges (5555,5557 or 5555-5585), not {spec!r}"
            ) from None
        step = 2 if sep and first % 2 == last % 2 == 1 else 1
        ports.extend(p for p in range(first, last + 1, step) if 0 < p < 65536)
    return tuple(dict.fromkeys(ports))


_CNXN = int.from_bytes(b"CNXN", "little")
_ANSWERS = frozenset(int.from_bytes(c, "little") for c in (b"CNXN", b"AUTH", b"STLS"))
_HELLO_BANNER = b"host::baremobile-probe\0"
#: our CNXN: version 0x01000000, max payload 4 KiB, with its checksum (old adbd check it)
_HELLO = (
    struct.pack(
        "<6I",
        _CNXN,
        0x01000000,
        4096,
        len(_HELLO_BANNER),
        sum(_HELLO_BANNER),
        _CNXN ^ 0xFFFFFFFF,
    )
    + _HELLO_BANNER
)


def probe_adbd(ports: tuple[int, ...], host: str = "127.0.0.1",
               timeout: float = PROBE_TIMEOUT) -> dict[int, str]:
    """Which of ``ports`` have an adbd: port → ``"device"`` (it answered our ``CNXN``
    with an ADB message) or ``"offline"`` (it accepted the connection but did not answer
    in ``timeout`` seconds, or answered garbage). Closed ports are left out. All ports are
    probed at once."""
    end = time.monotonic() + timeout
    socks: dict[socket.socket, int] = {}
    got: dict[socket.socket, bytearray] = {}
    found: dict[int, str] = {}
    for port in ports:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        err = sock.connect_ex((host, port))
        if err in (0, errno.EINPROGRESS, errno.EWOULDBLOCK):
            socks[sock] = port
        else:
            sock.close()
    connecting = set(socks)
    try:
        while socks and time.monotonic() < end:
            readable, writable = ready([s for s in socks if s not in connecting], connecting,
                                       max(0.0, end - time.monotonic()))
            for sock in writable:
                connecting.discard(sock)
                if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    socks.pop(sock)
                    sock.close()  # nothing listens there
                    continue
                found[socks[sock]] = "offline"  # listening; an answer makes it a device
                with contextlib.suppress(OSError):
                    sock.send(_HELLO)
            for sock in readable:
                try:
                    data = sock.recv(24 - len(got.setdefault(sock, bytearray())))
                except OSError:
                    data = b""
                got[sock] += data
                if data and len(got[sock]) < 24:
                    continue
                port = socks.pop(sock)
                sock.close()
                if len(got[sock]) == 24:
                    cmd, *_, magic = struct.unpack("<6I", got[sock])
                    if cmd in _ANSWERS and magic == cmd ^ 0xFFFFFFFF:
                        found[port] = "device"
    finally:
        for sock in socks:
            sock.close()
    return found


def _server_devices(tried: list[str]) -> list[DeviceInfo] | None:
    client = AdbServerClient()
    try:
        listed = client.devices()
    except BaremobileError as exc:
        tried.append(f"adb server at {client.host}:{client.port}: {exc.message}")
        return None
    tried.append(f"adb server at {client.host}:{client.port}: {len(listed)} device(s)")
    return [
        DeviceInfo(
            d.serial,
            d.state,
            d.kind,
            "adb-server",
            d.properties.get("model", ""),
            d.properties.get("product", ""),
        )
        for d in listed
    ]


def _emulator_devices(tried: list[str], timeout: float) -> list[DeviceInfo]:
    ports = emulator_ports()
    if not ports:
        tried.append(f"local emulator ports: none (${PORTS_ENV} is empty)")
        return []
    states = probe_adbd(ports, timeout=timeout)
    found = [
        DeviceInfo(f"127.0.0.1:{p}", states[p], "emulator", "direct")
        for p in ports
        if p in states
    ]
    ready = sum(1 for d in found if d.ready)
    shown = f"{ports[0]}-{ports[-1]}" if len(ports) > 2 else ", ".join(map(str, ports))
    tried.append(
        f"local emulator ports {shown}: {ready} answering adbd"
        + (f", {len(found) - ready} not answering the ADB handshake" if len(found) > ready else "")
    )
    return found


def _usb_devices(tried: list[str]) -> list[DeviceInfo]:
    from baremobile.transport.usb import list_usb_serials, usb_available

    if not usb_available():
        tried.append("USB: not available (pip install 'baremobile[usb]')")
        return []
    serials = list_usb_serials()
    tried.append(f"USB: {len(serials)} device(s)")
    return [DeviceInfo(f"usb:{s}", "device", "usb", "usb") for s in serials]


def _announced_devices(tried: list[str], timeout: float) -> list[DeviceInfo]:
    """The virtual phones ``baremobile virtual`` runs (see :mod:`.registry`)."""
    from baremobile.transport.registry import announced

    found = [
        DeviceInfo(
            f"{r['host']}:{r['port']}",
            probe_adbd((r["port"],), r["host"], timeout).get(r["port"], "offline"),
            "virtual",
            "direct",
            str(r.get("model", "")),
        )
        for r in announced()
    ]
    tried.append(f"virtual phones announced by 'baremobile virtual': {len(found)}")
    return found


def _with(found: list[DeviceInfo], more: list[DeviceInfo]) -> list[DeviceInfo]:
    """``found`` plus the devices of ``more`` it does not list yet."""
    seen = {d.serial for d in found}
    return found + [d for d in more if d.serial not in seen]


def devices(*, probe_timeout: float = PROBE_TIMEOUT) -> list[DeviceInfo]:
    """Every device reachable now, ready or not (``state`` tells).

    With an adb server running, its list is the truth (it owns USB devices and
    emulators); without one, local emulator ports are probed (a listener that does not
    answer the ADB handshake within ``probe_timeout`` is ``offline``) and USB is
    enumerated.
    Either way the virtual phones ``baremobile virtual`` announced are added.
    """
    tried: list[str] = []
    listed = _server_devices(tried)
    if listed is None:
        listed = _emulator_devices(tried, probe_timeout) + _usb_devices(tried)
    return _with(listed, _announced_devices(tried, probe_timeout))


def _pick(candidates: list[DeviceInfo], tried: list[str]) -> DeviceInfo:
    ready = [d for d in candidates if d.ready]
    if len(ready) == 1:
        return ready[0]
    if len(ready) > 1:
        raise MultipleDevices([d.serial for d in ready])
    waiting = [d for d in candidates if d.state in ("unauthorized", "authorizing")]
    if waiting:
        raise DeviceUnauthorized(f"{waiting[0].serial} has not authorized this computer yet")
    denied = [d for d in candidates if d.state == "no permissions"]
    if denied:
        raise DevicePermissionDenied(
            f"{denied[0].serial}: the adb server has no permission to open it"
        )
    if candidates:
        states = ", ".join(f"{d.serial} ({d.state})" for d in candidates)
        raise DeviceNotFound(f"no device is ready: {states}", tried=tried)
    raise DeviceNotFound("no Android device found", tried=tried)


def open_transport(device: str | None = None, *, start_phone: Any = None,
                   **options: Any) -> Transport:
    """Resolve a device spec and return a connected :class:`Transport`.

    ``options`` go to the transport: ``timeout``, ``auth_timeout``, ``on_auth_prompt``,
    ``key_path``, ``connect_timeout``; for ``"virtual"`` also ``scenario``, ``api_level`` and
    ``profile`` (``"android6"``, ``"tablet"``, ``"protocol-a"``). A virtual phone is started
    by ``start_phone(scenario, api_level=, profile=)`` (an object with ``host``, ``port``
    and ``stop()``): the transports do not know the virtual phone;
    :func:`baremobile.connect` passes the built-in one's starter.
    """
    spec = parse_spec(device)  # the one parser of device specs (specs.py); a non-string is
    unknown = set(options) - _OPTIONS  # refused before the options are looked at
    if unknown:
        raise InvalidArgument(
            f"unknown connect option(s): {', '.join(sorted(unknown))}",
            hint=f"the options are: {', '.join(sorted(_OPTIONS))}",
        )
    check_text("the device spec", (device or "").strip())
    if spec.kind == "auto":
        env = os.environ.get("ANDROID_SERIAL", "").strip()
        spec = parse_spec(env) if env else spec
    if spec.kind == "auto":
        return _auto(**options)
    if spec.kind == "virtual":
        scenario = options.pop("scenario", None)
        if spec.scenario and scenario is not None and spec.scenario != str(scenario):
            raise InvalidArgument(
                f"two scenarios given: {spec.scenario!r} in the device spec and {scenario!r}"
            )
        # virtual:new: a fresh one too
        return _virtual(spec.scenario or scenario, start_phone, **options)
    if spec.kind == "usb":
        return _direct(usb_serial=spec.serial, **options)
    if spec.kind == "tcp":
        try:
            return _direct(host=spec.host, port=spec.port, **options)
        except DeviceDisconnected as exc:
            # A wireless-debugging (TLS) port, or a device only the server can reach
            if _server_knows(spec.text):
                return _server(spec.text, **options)
            raise exc from None
    if spec.server is not None:
        return _remote_server(spec.serial, *spec.server, **options)
    return _server(spec.serial, **options)


def _direct(**options: Any) -> DirectTransport:
    opts = {k: v for k, v in options.items() if k in _DIRECT_OPTIONS}
    t = DirectTransport(**opts)
    t.connect()
    return t


_DIRECT_OPTIONS = {
    "host",
    "port",
    "usb_serial",
    "keys",
    "key_path",
    "auth_timeout",
    "on_auth_prompt",
    "timeout",
    "connect_timeout",
}
#: What ``connect()`` accepts besides the device spec.
_OPTIONS = (_DIRECT_OPTIONS - {"host", "port", "usb_serial"}) | {"scenario", "api_level",
                                                                  "profile"}


def _server_knows(serial: str) -> bool:
    with contextlib.suppress(BaremobileError):
        return any(d.serial == serial for d in AdbServerClient().devices())
    return False


def _server(serial: str, **options: Any) -> ServerTransport:
    return server_transport(serial, **options)


def _remote_server(serial: str, host: str, port: int, **options: Any) -> ServerTransport:
    """``serial`` through the adb server at ``host:port`` (``adb:SERIAL@HOST:PORT``): the
    page's serial names the host too (two hosts' emulator-5554 are two devices), while the
    wire keeps the device's own serial."""
    transport = server_transport(serial, client=AdbServerClient(host, port), **options)
    transport.client = _HostClient(host, port, serial)
    transport.serial = f"{serial}@{host}:{port}"
    return transport


class _HostClient(AdbServerClient):
    """An adb server client for one device of that server, whatever serial it is asked for."""

    def __init__(self, host: str, port: int, serial: str) -> None:
        super().__init__(host, port)
        self._serial = serial

    def open(self, serial: str, service: str, deadline: _Deadline) -> socket.socket:
        return super().open(self._serial, service, deadline)

    def features(self, serial: str) -> frozenset[str] | None:
        return super().features(self._serial)


def server_transport(serial: str, *, client: AdbServerClient | None = None,
                     **options: Any) -> ServerTransport:
    """``serial`` through the adb server ``client`` talks to (default: the usual one,
    ``$ADB_SERVER_SOCKET`` / ``$ANDROID_ADB_SERVER_PORT``), once the server lists it ready."""
    client = client or AdbServerClient()
    listed = client.devices()  # raises DeviceNotFound when no server answers
    match = next((d for d in listed if d.serial == serial), None)
    if match is None:
        known = ", ".join(d.serial for d in listed) or "none"
        raise DeviceNotFound(
            f"the adb server at {client.host}:{client.port} does not know {serial!r} "
            f"(it has: {known})",
            hint="check the serial with {devices}; for a network device "
            "pass 'host:port'",
        )
    if match.state in ("unauthorized", "authorizing"):
        raise DeviceUnauthorized(f"{serial} has not authorized this computer yet")
    if match.state == "no permissions":
        raise DevicePermissionDenied(f"{serial}: the adb server has no permission to open it")
    if match.state != "device":
        raise DeviceNotFound(
            f"{serial} is {match.state}", hint="reconnect it, or wait for it to boot"
        )
    timeout = options.get("timeout")
    return ServerTransport(serial, client=client, **({"timeout": timeout} if timeout else {}))


def _auto(**options: Any) -> Transport:
    tried: list[str] = []
    listed = _server_devices(tried)
    if not listed:
        listed = _emulator_devices(tried, PROBE_TIMEOUT) + _usb_devices(tried)
    chosen = _pick(_with(listed, _announced_devices(tried, PROBE_TIMEOUT)), tried)
    return _open_chosen(chosen, **options)


def _open_chosen(chosen: DeviceInfo, **options: Any) -> Transport:
    """A connected transport to a device :func:`devices` listed, by the route it was seen."""
    if chosen.via == "adb-server":
        return _server(chosen.serial, **options)
    if chosen.via == "usb":
        return _direct(usb_serial=chosen.serial.partition(":")[2], **options)
    hp = parse_host_port(chosen.serial)
    assert hp is not None
    return _direct(host=hp[0], port=hp[1], **options)


class VirtualTransport(DirectTransport):
    """A :class:`DirectTransport` to a virtual phone this process started (and stops)."""

    def __init__(self, phone: Any, **options: Any) -> None:
        opts = {k: v for k, v in options.items() if k in _DIRECT_OPTIONS}
        opts.setdefault("keys", [])  # the embedded phone needs no key: none is written
        super().__init__(phone.host, phone.port, **opts)
        self.kind = "virtual"
        self.phone = phone

    def shutdown(self) -> None:
        self.close()
        self.phone.stop()


def _virtual(scenario: str | None, start_phone: Any, **options: Any) -> VirtualTransport:
    if start_phone is None:
        raise InvalidArgument(
            "a virtual phone is started by the layer that knows it: "
            "baremobile.connect('virtual')",
            hint="use baremobile.connect('virtual'), or pass start_phone")
    phone = start_phone(scenario, api_level=options.pop("api_level", None),
                        profile=options.pop("profile", None))
    try:
        t = VirtualTransport(phone, **options)
        t.connect()
    except BaseException:
        phone.stop()
        raise
    return t
