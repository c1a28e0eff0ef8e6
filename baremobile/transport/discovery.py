"""Finding devices and turning a device spec into a :class:`Transport`.

Device specs (``connect(device=...)``):

============================  =============================================================
``None`` / ``"auto"``         ``$ANDROID_SERIAL`` if set; else the adb server's devices if
                              one answers; else local emulator adbd ports (5555–5585, odd);
                              else USB — plus the virtual phones ``baremobile virtual``
                              announced (:mod:`.registry`). Exactly one ready device is
                              required.
``"host:port"``               adbd directly over TCP (``adb tcpip``, emulators, the
                              virtual phone). A TLS-only wireless-debugging port is
                              reached through the adb server when it knows the serial.
``"usb"`` / ``"usb:SERIAL"``  adbd directly over USB (``[usb]`` extra).
``"virtual"``                 start the built-in virtual phone in this process.
``"virtual:FILE.yaml"``       … with your own scenario.
``"adb:SERIAL"``              force the adb-server route (e.g. ``adb:10.0.0.5:5555``).
any other string              a serial (``emulator-5554``, ``R58M…``) through the adb server.
============================  =============================================================
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
from dataclasses import dataclass
from typing import Any

from baremobile.errors import (
    BaremobileError,
    DeviceDisconnected,
    DeviceNotFound,
    DevicePermissionDenied,
    DeviceUnauthorized,
    InvalidArgument,
    InvalidScenario,
    MultipleDevices,
)
from baremobile.transport.base import Transport, check_text
from baremobile.transport.direct import DirectTransport
from baremobile.transport.server import AdbServerClient, ServerTransport

__all__ = ["DeviceInfo", "devices", "open_transport", "EMULATOR_PORTS", "parse_host_port"]

#: adbd ports of local emulators (console port + 1): 5555, 5557, … 5585.
EMULATOR_PORTS = tuple(range(5555, 5586, 2))

_HOST_PORT = re.compile(r"^(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[^:\s/]+)):(?P<port>\d{1,5})\Z")


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
        return self.state == "device"


def parse_host_port(spec: str) -> tuple[str, int] | None:
    """``"10.0.0.5:5555"`` / ``"[::1]:5555"`` → (host, port); None if not that shape."""
    m = _HOST_PORT.match(spec.strip())
    if not m:
        return None
    port = int(m.group("port"))
    if not 0 < port < 65536:
        return None
    return (m.group("v6") or m.group("host")), port


def _port_open(host: str, port: int, timeout: float) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


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
    found = [
        DeviceInfo(f"127.0.0.1:{p}", "device", "emulator", "direct")
        for p in EMULATOR_PORTS
        if _port_open("127.0.0.1", p, timeout)
    ]
    tried.append(
        f"local emulator ports {EMULATOR_PORTS[0]}-{EMULATOR_PORTS[-1]}: {len(found)} open"
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
            "device" if _port_open(r["host"], r["port"], timeout) else "offline",
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


def devices(*, probe_timeout: float = 0.2) -> list[DeviceInfo]:
    """Every device reachable now, ready or not (``state`` tells).

    With an adb server running, its list is the truth (it owns USB devices and
    emulators); without one, local emulator ports are probed and USB is enumerated.
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


def open_transport(device: str | None = None, **options: Any) -> Transport:
    """Resolve a device spec and return a connected :class:`Transport`.

    ``options`` go to the transport: ``timeout``, ``auth_timeout``, ``on_auth_prompt``,
    ``key_path``, ``connect_timeout``; for ``"virtual"`` also ``scenario`` and ``api_level``.
    """
    if device is not None and not isinstance(device, str):
        raise InvalidArgument(f"device must be a string spec, not {type(device).__name__}")
    unknown = set(options) - _OPTIONS
    if unknown:
        raise InvalidArgument(
            f"unknown connect option(s): {', '.join(sorted(unknown))}",
            hint=f"the options are: {', '.join(sorted(_OPTIONS))}",
        )
    spec = (device or "").strip()
    check_text("the device spec", spec)
    if not spec or spec == "auto":
        spec = os.environ.get("ANDROID_SERIAL", "").strip() or "auto"
    if spec == "auto":
        return _auto(**options)
    if spec == "virtual" or spec.startswith("virtual:"):
        in_spec = spec.partition(":")[2]
        scenario = options.pop("scenario", None)
        if in_spec and scenario is not None and in_spec != str(scenario):
            raise InvalidArgument(
                f"two scenarios given: {in_spec!r} in the device spec and {scenario!r}"
            )
        return _virtual(in_spec or scenario, **options)
    if spec.startswith("adb:"):
        return _server(spec[4:], **options)
    if spec == "usb" or spec.startswith("usb:"):
        serial = spec.partition(":")[2]
        return _direct(usb_serial=serial, **options)
    hp = parse_host_port(spec)
    if hp is not None:
        try:
            return _direct(host=hp[0], port=hp[1], **options)
        except DeviceDisconnected as exc:
            # A wireless-debugging (TLS) port, or a device only the server can reach
            if _server_knows(spec):
                return _server(spec, **options)
            raise exc from None
    return _server(spec, **options)


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
_OPTIONS = (_DIRECT_OPTIONS - {"host", "port", "usb_serial"}) | {"scenario", "api_level"}


def _server_knows(serial: str) -> bool:
    with contextlib.suppress(BaremobileError):
        return any(d.serial == serial for d in AdbServerClient().devices())
    return False


def _server(serial: str, **options: Any) -> ServerTransport:
    client = AdbServerClient()
    listed = client.devices()  # raises DeviceNotFound when no server answers
    match = next((d for d in listed if d.serial == serial), None)
    if match is None:
        known = ", ".join(d.serial for d in listed) or "none"
        raise DeviceNotFound(
            f"the adb server does not know {serial!r} (it has: {known})",
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
        listed = _emulator_devices(tried, 0.2) + _usb_devices(tried)
    chosen = _pick(_with(listed, _announced_devices(tried, 0.2)), tried)
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


def _virtual(scenario: str | None, **options: Any) -> VirtualTransport:
    from baremobile.virtual import VirtualPhone
    from baremobile.virtual.scenario import ScenarioError

    try:
        phone = VirtualPhone(
            scenario,
            auth="none",
            api_level=options.pop("api_level", 35),
        ).start()
    except ScenarioError as exc:  # the phone knows no baremobile errors: type it here
        raise InvalidScenario(str(exc)) from None
    try:
        t = VirtualTransport(phone, **options)
        t.connect()
    except BaseException:
        phone.stop()
        raise
    return t
