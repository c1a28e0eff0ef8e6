"""Through a running adb server: the smart-socket protocol on 127.0.0.1:5037, from Python.

This is how to reach ``emulator-5554``, wireless-debugging devices paired with
``adb pair`` (their TLS is the server's business), and USB devices an adb server already
owns — still without running the ``adb`` binary.

The protocol: each request is ``<4 hex digits length><service>``; the server answers
``OKAY`` or ``FAIL<4 hex length><message>``. ``host:*`` services answer with a
length-prefixed string; ``host:transport:SERIAL`` turns the socket into a pipe to that
device, after which ``shell,v2,raw:``, ``exec:`` and ``sync:`` behave exactly as on a
direct adbd stream. One TCP connection per command, as adb itself does.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import socket
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from baremobile.errors import (
    BaremobileError,
    CommandFailed,
    CommandTimeout,
    DeviceDisconnected,
    DeviceNotFound,
    DevicePermissionDenied,
    DeviceUnauthorized,
    ProtocolError,
    ServiceRefused,
)
from baremobile.transport.base import DEFAULT_TIMEOUT, Sink, SinkRelay, Transport
from baremobile.transport.base import check_path as _check_path

__all__ = ["AdbServerClient", "ServerTransport", "ServerDevice", "server_address"]

DEFAULT_PORT = 5037
_SYNC_DATA_MAX = 64 * 1024


def server_address() -> tuple[str, int]:
    """Where adb clients find the server: ``ADB_SERVER_SOCKET`` / ``ANDROID_ADB_SERVER_PORT``."""
    spec = os.environ.get("ADB_SERVER_SOCKET", "")
    if spec.startswith("tcp:"):
        rest = spec[4:]
        host, _, port = rest.rpartition(":")
        with contextlib.suppress(ValueError):
            return (host or "127.0.0.1", int(port))
    port_s = os.environ.get("ANDROID_ADB_SERVER_PORT", "")
    try:
        port = int(port_s) if port_s else DEFAULT_PORT
    except ValueError:
        port = DEFAULT_PORT
    host = os.environ.get("ANDROID_ADB_SERVER_ADDRESS", "127.0.0.1")
    return host, port


@dataclass(frozen=True)
class ServerDevice:
    """One line of ``adb devices -l``."""

    serial: str
    state: str  # device, unauthorized, offline, recovery, sideload, authorizing, …
    properties: dict[str, str] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        if self.serial.startswith("emulator-"):
            return "emulator"
        if "._adb-tls-connect._tcp" in self.serial or ":" in self.serial:
            return "tcp"
        return "usb"


_PROP = re.compile(r"^[A-Za-z_]+:\S")


class _ServerFail(BaremobileError):
    code = "ADB_SERVER_FAIL"


class _Deadline:
    """One command's time budget, applied to every blocking socket call."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.end = time.monotonic() + timeout

    def arm(self, sock: socket.socket) -> None:
        left = self.end - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)


@contextlib.contextmanager
def _typed(what: str, deadline: _Deadline | None = None) -> Iterator[None]:
    """Socket and parsing failures as baremobile errors."""
    try:
        yield
    except BaremobileError:
        raise
    except TimeoutError:
        budget = f"within {deadline.timeout:g} s" if deadline else "in time"
        raise CommandTimeout(f"{what} did not finish {budget}") from None
    except OSError as exc:
        raise DeviceDisconnected(f"{what}: connection to the adb server lost ({exc})") from None
    except (ValueError, struct.error) as exc:
        raise ProtocolError(f"{what}: the adb server sent something unexpected ({exc})") from None


def _recv_exact(sock: socket.socket, n: int, deadline: _Deadline | None = None) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        if deadline is not None:
            deadline.arm(sock)
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise DeviceDisconnected("the adb server closed the connection")
        buf += chunk
    return bytes(buf)


class AdbServerClient:
    """A small client for the adb server's host services."""

    def __init__(self, host: str | None = None, port: int | None = None, timeout: float = 2.0):
        dh, dp = server_address()
        self.host = host or dh
        self.port = port or dp
        self.timeout = timeout

    # -- plumbing ------------------------------------------------------------------------
    def _connect(self, timeout: float | None = None) -> socket.socket:
        try:
            sock = socket.create_connection((self.host, self.port), timeout=timeout or self.timeout)
        except OSError as exc:
            raise DeviceNotFound(
                f"no adb server answers at {self.host}:{self.port} ({exc.strerror or exc})",
                hint="start one with 'adb start-server', or connect to the device directly "
                "(device='host:port' or device='usb')",
            ) from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    @staticmethod
    def _send_request(sock: socket.socket, service: str) -> None:
        raw = service.encode("utf-8")
        sock.sendall(b"%04x" % len(raw) + raw)

    def _read_status(self, sock: socket.socket, service: str, deadline: _Deadline | None) -> None:
        status = _recv_exact(sock, 4, deadline)
        if status == b"OKAY":
            return
        if status == b"FAIL":
            msg = self._read_string(sock, deadline)
            raise _ServerFail(f"adb server refused '{service}': {msg}")
        raise ProtocolError(f"adb server sent {status!r} instead of OKAY/FAIL")

    @staticmethod
    def _read_string(sock: socket.socket, deadline: _Deadline | None) -> str:
        length = int(_recv_exact(sock, 4, deadline), 16)
        return _recv_exact(sock, length, deadline).decode("utf-8", "replace")

    def query(self, service: str) -> str:
        """A ``host:*`` request answered with one string (``host:version``, ``host:devices-l``)."""
        deadline = _Deadline(self.timeout)
        with self._connect() as sock, _typed(f"adb server request '{service}'", deadline):
            self._send_request(sock, service)
            self._read_status(sock, service, deadline)
            return self._read_string(sock, deadline)

    # -- host services -------------------------------------------------------------------
    def version(self) -> int:
        text = self.query("host:version")
        with _typed("host:version"):
            return int(text, 16)

    def devices(self) -> list[ServerDevice]:
        """``adb devices -l``."""
        out = []
        for line in self.query("host:devices-l").splitlines():
            serial, _, rest = line.partition("\t") if "\t" in line else line.partition(" ")
            rest = rest.strip()
            if not serial or not rest:
                continue
            if rest.startswith("no permissions"):  # "no permissions (missing udev rules? …)"
                state, rest = "no permissions", rest.partition(")")[2]
            else:
                state, _, rest = rest.partition(" ")
            props = dict(p.split(":", 1) for p in rest.split() if _PROP.match(p))
            out.append(ServerDevice(serial.strip(), state, props))
        return out

    def features(self, serial: str) -> frozenset[str] | None:
        """The device's features, or None when the server could not say (try again later)."""
        try:
            text = self.query(f"host-serial:{serial}:features")
        except (_ServerFail, CommandTimeout):
            return None
        return frozenset(f for f in text.strip().split(",") if f)

    def open(self, serial: str, service: str, deadline: _Deadline) -> socket.socket:
        """A socket connected to ``service`` on device ``serial`` (OKAY already read)."""
        sock = self._connect(timeout=min(deadline.timeout, 10.0))
        try:
            with _typed(f"{serial}: opening '{service}'", deadline):
                self._send_request(sock, f"host:transport:{serial}")
                self._read_status(sock, "host:transport", deadline)
                self._send_request(sock, service)
                self._read_status(sock, service, deadline)
            return sock
        except _ServerFail as exc:
            sock.close()
            raise _translate_fail(serial, exc) from None
        except BaseException:
            sock.close()
            raise


def _translate_fail(serial: str, exc: _ServerFail) -> BaremobileError:
    msg = exc.message
    low = msg.lower()
    if "unauthorized" in low:
        return DeviceUnauthorized(f"{serial} is unauthorized: {msg}")
    if "no permissions" in low:
        return DevicePermissionDenied(f"{serial}: {msg}")
    if "not found" in low or "offline" in low:
        return DeviceNotFound(f"{serial}: {msg}", hint="check 'adb devices' / {devices}")
    return ServiceRefused(msg)


class ServerTransport(Transport):
    """A device reached through a running adb server (one socket per command)."""

    kind = "server"

    def __init__(
        self,
        serial: str,
        *,
        client: AdbServerClient | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.serial = serial
        self.client = client or AdbServerClient()
        self.timeout = float(timeout)
        self._features: frozenset[str] | None = None

    @property
    def features(self) -> frozenset[str]:  # type: ignore[override]
        if self._features is None:
            found = self.client.features(self.serial)
            if found is None:
                return frozenset()  # not cached: ask again next time
            self._features = found
        return self._features

    def open_service(self, service: str, command: str, *, timeout: float) -> Iterator[bytes]:
        what = f"`{command}`" if command else service
        deadline = _Deadline(timeout)
        sock = self.client.open(self.serial, f"{service}:{command}", deadline)
        try:
            with _typed(what, deadline):
                while True:
                    deadline.arm(sock)
                    chunk = sock.recv(256 * 1024)
                    if not chunk:
                        return
                    yield chunk
        finally:
            sock.close()

    # -- sync ----------------------------------------------------------------------------
    def push(
        self, data: bytes, path: str, *, mode: int = 0o644, timeout: float | None = None
    ) -> None:
        _check_path("push", path)
        what = f"push to {path}"
        deadline = _Deadline(self._timeout(timeout))
        with self.client.open(self.serial, "sync:", deadline) as sock, _typed(what, deadline):
            spec = f"{path},{0o100000 | mode}".encode()
            wire = bytearray(b"SEND" + struct.pack("<I", len(spec)) + spec)
            for i in range(0, len(data), _SYNC_DATA_MAX):
                chunk = data[i : i + _SYNC_DATA_MAX]
                wire += b"DATA" + struct.pack("<I", len(chunk)) + chunk
            wire += b"DONE" + struct.pack("<I", int(time.time()))
            deadline.arm(sock)
            sock.sendall(wire)
            ident, length = struct.unpack("<4sI", _recv_exact(sock, 8, deadline))
            if ident == b"FAIL":
                msg = _recv_exact(sock, length, deadline).decode("utf-8", "replace")
                raise CommandFailed(f"{what} failed on the device: {msg}", output=msg)
            if ident != b"OKAY":
                raise ProtocolError(f"{what}: unexpected sync reply {ident!r}")
            sock.sendall(b"QUIT" + struct.pack("<I", 0))

    def pull(self, path: str, *, timeout: float | None = None) -> bytes:
        buf = io.BytesIO()
        self.pull_into(path, buf, timeout=timeout)
        return buf.getvalue()

    def pull_into(self, path: str, sink: Sink, *, timeout: float | None = None) -> int:
        _check_path("pull", path)
        relay = SinkRelay(sink)
        try:
            return self._pull(path, relay, timeout)
        except BaremobileError:
            if relay.error is not None:  # the sink failed, not the device
                raise relay.error from None
            raise

    def _pull(self, path: str, relay: SinkRelay, timeout: float | None) -> int:
        what = f"pull of {path}"
        deadline = _Deadline(self._timeout(timeout))
        with self.client.open(self.serial, "sync:", deadline) as sock, _typed(what, deadline):
            raw = path.encode()
            sock.sendall(b"RECV" + struct.pack("<I", len(raw)) + raw)
            while True:
                ident, length = struct.unpack("<4sI", _recv_exact(sock, 8, deadline))
                if ident == b"DATA":
                    relay.write(_recv_exact(sock, length, deadline))
                elif ident == b"DONE":
                    break
                elif ident == b"FAIL":
                    msg = _recv_exact(sock, length, deadline).decode("utf-8", "replace")
                    raise CommandFailed(f"{what} failed on the device: {msg}", output=msg)
                else:
                    raise ProtocolError(f"{what}: unexpected sync reply {ident!r}")
            sock.sendall(b"QUIT" + struct.pack("<I", 0))
            return relay.count

    def close(self) -> None:
        """Nothing persistent to release (every command has its own socket)."""

    def __repr__(self) -> str:
        return f"<ServerTransport {self.serial} via {self.client.host}:{self.client.port}>"
