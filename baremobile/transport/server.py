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
import os
import socket
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

from baremobile.errors import (
    BaremobileError,
    CommandFailed,
    CommandTimeout,
    DeviceDisconnected,
    DeviceNotFound,
    DeviceUnauthorized,
)
from baremobile.transport.base import DEFAULT_TIMEOUT, Transport

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


class _ServerFail(BaremobileError):
    code = "ADB_SERVER_FAIL"


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

    @staticmethod
    def _recv_exact(sock: socket.socket, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = sock.recv(n - len(buf))
            if not chunk:
                raise DeviceDisconnected("the adb server closed the connection")
            buf += chunk
        return bytes(buf)

    def _read_status(self, sock: socket.socket, service: str) -> None:
        status = self._recv_exact(sock, 4)
        if status == b"OKAY":
            return
        if status == b"FAIL":
            msg = self._read_string(sock)
            raise _ServerFail(f"adb server refused '{service}': {msg}")
        raise DeviceDisconnected(f"adb server sent {status!r} instead of OKAY/FAIL")

    def _read_string(self, sock: socket.socket) -> str:
        length = int(self._recv_exact(sock, 4), 16)
        return self._recv_exact(sock, length).decode("utf-8", "replace")

    def query(self, service: str) -> str:
        """A ``host:*`` request answered with one string (``host:version``, ``host:devices-l``)."""
        with self._connect() as sock:
            try:
                self._send_request(sock, service)
                self._read_status(sock, service)
                return self._read_string(sock)
            except TimeoutError:
                raise CommandTimeout(f"adb server did not answer '{service}'") from None

    # -- host services -------------------------------------------------------------------
    def version(self) -> int:
        return int(self.query("host:version"), 16)

    def devices(self) -> list[ServerDevice]:
        """``adb devices -l``."""
        out = []
        for line in self.query("host:devices-l").splitlines():
            parts = line.split()
            if len(parts) < 2:
                continue
            props = dict(p.split(":", 1) for p in parts[2:] if ":" in p)
            out.append(ServerDevice(parts[0], parts[1], props))
        return out

    def features(self, serial: str) -> frozenset[str]:
        try:
            return frozenset(
                f for f in self.query(f"host-serial:{serial}:features").strip().split(",") if f
            )
        except _ServerFail:
            return frozenset()

    def open(self, serial: str, service: str, timeout: float) -> socket.socket:
        """A socket connected to ``service`` on device ``serial`` (OKAY already read)."""
        sock = self._connect(timeout=min(timeout, 10.0))
        try:
            sock.settimeout(timeout)
            self._send_request(sock, f"host:transport:{serial}")
            self._read_status(sock, "host:transport")
            self._send_request(sock, service)
            self._read_status(sock, service)
            return sock
        except _ServerFail as exc:
            sock.close()
            raise _translate_fail(serial, exc) from None
        except TimeoutError:
            sock.close()
            raise CommandTimeout(
                f"{serial}: '{service}' was not accepted within {timeout:g} s"
            ) from None
        except BaseException:
            sock.close()
            raise


def _translate_fail(serial: str, exc: _ServerFail) -> BaremobileError:
    msg = exc.message
    low = msg.lower()
    if "unauthorized" in low:
        return DeviceUnauthorized(f"{serial} is unauthorized: {msg}")
    if "not found" in low or "offline" in low:
        return DeviceNotFound(f"{serial}: {msg}", hint="check 'adb devices' / baremobile.devices()")
    return CommandFailed(msg)


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
            self._features = self.client.features(self.serial)
        return self._features

    def _read_all(self, sock: socket.socket, what: str, timeout: float) -> Iterator[bytes]:
        try:
            while True:
                try:
                    chunk = sock.recv(256 * 1024)
                except TimeoutError:
                    raise CommandTimeout(f"{what} did not finish within {timeout:g} s") from None
                except OSError as exc:
                    raise DeviceDisconnected(f"{what}: connection lost ({exc})") from None
                if not chunk:
                    return
                yield chunk
        finally:
            sock.close()

    def open_service(self, service: str, command: str, *, timeout: float) -> Iterator[bytes]:
        sock = self.client.open(self.serial, f"{service}:{command}", timeout)
        return self._read_all(sock, f"`{command}`", timeout)

    # -- sync ----------------------------------------------------------------------------
    def _sync(self, timeout: float) -> socket.socket:
        return self.client.open(self.serial, "sync:", timeout)

    def push(
        self, data: bytes, path: str, *, mode: int = 0o644, timeout: float | None = None
    ) -> None:
        t = self._timeout(timeout)
        import time

        with self._sync(t) as sock:
            try:
                spec = f"{path},{0o100000 | mode}".encode()
                wire = bytearray(b"SEND" + struct.pack("<I", len(spec)) + spec)
                for i in range(0, len(data), _SYNC_DATA_MAX):
                    chunk = data[i : i + _SYNC_DATA_MAX]
                    wire += b"DATA" + struct.pack("<I", len(chunk)) + chunk
                wire += b"DONE" + struct.pack("<I", int(time.time()))
                sock.sendall(wire)
                ident, length = struct.unpack("<4sI", AdbServerClient._recv_exact(sock, 8))
                if ident == b"FAIL":
                    msg = AdbServerClient._recv_exact(sock, length).decode("utf-8", "replace")
                    raise CommandFailed(f"push to {path} failed on the device: {msg}", output=msg)
                if ident != b"OKAY":
                    raise DeviceDisconnected(f"push to {path}: unexpected sync reply {ident!r}")
                sock.sendall(b"QUIT" + struct.pack("<I", 0))
            except TimeoutError:
                raise CommandTimeout(f"push to {path} did not finish within {t:g} s") from None

    def pull(self, path: str, *, timeout: float | None = None) -> bytes:
        t = self._timeout(timeout)
        with self._sync(t) as sock:
            try:
                raw = path.encode()
                sock.sendall(b"RECV" + struct.pack("<I", len(raw)) + raw)
                out = bytearray()
                while True:
                    ident, length = struct.unpack("<4sI", AdbServerClient._recv_exact(sock, 8))
                    if ident == b"DATA":
                        out += AdbServerClient._recv_exact(sock, length)
                    elif ident == b"DONE":
                        break
                    elif ident == b"FAIL":
                        msg = AdbServerClient._recv_exact(sock, length).decode("utf-8", "replace")
                        raise CommandFailed(
                            f"pull of {path} failed on the device: {msg}", output=msg
                        )
                    else:
                        raise DeviceDisconnected(f"pull of {path}: unexpected sync reply {ident!r}")
                sock.sendall(b"QUIT" + struct.pack("<I", 0))
                return bytes(out)
            except TimeoutError:
                raise CommandTimeout(f"pull of {path} did not finish within {t:g} s") from None

    def close(self) -> None:
        """Nothing persistent to release (every command has its own socket)."""

    def __repr__(self) -> str:
        return f"<ServerTransport {self.serial} via {self.client.host}:{self.client.port}>"
