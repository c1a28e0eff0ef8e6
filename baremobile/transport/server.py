"""Through a running adb server: the smart-socket protocol on 127.0.0.1:5037, from Python.

This is how to reach ``emulator-5554``, wireless-debugging devices paired with
``adb pair`` (their TLS is the server's business), and USB devices an adb server already
owns — still without running the ``adb`` binary.

The protocol: each request is ``<4 hex digits length><service>``; the server answers
``OKAY`` or ``FAIL<4 hex length><message>``. ``host:*`` services answer with a
length-prefixed string; ``host:transport:SERIAL`` turns the socket into a pipe to that
device, after which ``shell,v2,raw:``, ``exec:`` and ``sync:`` behave exactly as on a
direct adbd stream. One TCP connection per command, as adb itself does.

Every command's socket is registered while it runs: :meth:`ServerTransport.abort` (or a
cancelled :class:`~baremobile.transport.cancel.CancelToken`) shuts it down, which wakes
its blocked ``recv``/``send`` at once; the server then closes the device stream, which
stops the command on the device. ``timeout`` is a deadline for the whole command.
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import struct
import threading
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field

from baremobile.android.host_devices import parse_devices
from baremobile.errors import (
    BaremobileError,
    Cancelled,
    CommandFailed,
    CommandTimeout,
    DeviceDisconnected,
    DeviceNotFound,
    DevicePermissionDenied,
    DeviceUnauthorized,
    InvalidArgument,
    ProtocolError,
    ServiceRefused,
)
from baremobile.safetext import decode
from baremobile.transport import cancel, progress
from baremobile.transport.base import (
    DEFAULT_TIMEOUT,
    MAX_PAYLOAD_V1,
    AbortsCalls,
    Sink,
    SinkRelay,
    Transport,
)
from baremobile.transport.base import check_path as _check_path
from baremobile.transport.streams import SocketStream, check_stream_service

__all__ = ["AdbServerClient", "ServerTransport", "ServerDevice", "parse_server_socket",
           "server_address", "server_socket_spec"]

DEFAULT_PORT = 5037
_SYNC_DATA_MAX = 64 * 1024
#: A smart-socket request's length is 4 hex digits.
_MAX_REQUEST = 0xFFFF
#: adbd's max payload on Android 7–8 (256 KiB; 1 MiB since 9): what a device with
#: ``shell_v2`` accepts at least. Without it, an Android 6 or older adbd: 4 KiB.
_MAX_PAYLOAD_V2 = 256 * 1024


def parse_server_socket(spec: str) -> tuple[str, int]:
    """adb's server socket spec → (host, port): ``tcp:PORT`` (this computer),
    ``tcp:HOST:PORT``, ``tcp:[IPv6]:PORT``. adb's other socket kinds (``localabstract:``,
    ``localfilesystem:``) are not served by an adb server; they raise ``InvalidArgument``."""
    text = spec.strip() if isinstance(spec, str) else ""
    if not text.startswith("tcp:"):
        raise InvalidArgument(f"adb server socket {spec!r} is not tcp:HOST:PORT",
                              hint="e.g. tcp:5037, tcp:farm1.lan:5037 or tcp:[::1]:5037")
    rest = text[4:]
    host, sep, port_s = rest.rpartition(":")
    if not sep:
        host, port_s = "", rest
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not port_s.isdigit() or not 0 < int(port_s) < 65536 or any(c in host for c in "[] /"):
        raise InvalidArgument(f"adb server socket {spec!r} is not tcp:HOST:PORT (a port "
                              "1-65535)", hint="e.g. tcp:5037 or tcp:farm1.lan:5037")
    return host or "127.0.0.1", int(port_s)


def server_address() -> tuple[str, int]:
    """Where adb clients find the server, as adb decides it (AOSP
    ``packages/modules/adb/client/main.cpp``, ``adb_commandline``): ``$ADB_SERVER_SOCKET``
    (``tcp:HOST:PORT``) first, else ``$ANDROID_ADB_SERVER_ADDRESS`` and
    ``$ANDROID_ADB_SERVER_PORT`` (default 127.0.0.1:5037). The CLI's adb-style ``-H``,
    ``-P`` and ``-L`` set ``$ADB_SERVER_SOCKET`` for the command they precede. A malformed
    value raises ``InvalidArgument`` (adb refuses it too) instead of silently using 5037."""
    spec = os.environ.get("ADB_SERVER_SOCKET", "").strip()
    if spec:
        return parse_server_socket(spec)
    port_s = os.environ.get("ANDROID_ADB_SERVER_PORT", "").strip()
    if port_s and (not port_s.isdigit() or not 0 < int(port_s) < 65536):
        raise InvalidArgument(f"ANDROID_ADB_SERVER_PORT={port_s!r} is not a port (1-65535)",
                              hint="fix or unset it")
    host = os.environ.get("ANDROID_ADB_SERVER_ADDRESS", "").strip() or "127.0.0.1"
    return host, int(port_s) if port_s else DEFAULT_PORT


def server_socket_spec(host: str | None = None, port: int | None = None) -> str:
    """``tcp:HOST:PORT`` for adb's ``-H HOST -P PORT`` (each defaulting as adb does)."""
    host = host or os.environ.get("ANDROID_ADB_SERVER_ADDRESS", "").strip() or "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    return f"tcp:{shown}:{port or DEFAULT_PORT}"


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
        if not host or not port:
            dh, dp = server_address()
            host, port = host or dh, port or dp
        self.host = host
        self.port = port
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
        return decode(_recv_exact(sock, length, deadline))

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
        return [ServerDevice(d.serial, d.state, dict(d.props))
                for d in parse_devices(self.query("host:devices-l"))]

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


class _Running:
    """One command's socket, while it runs (so that it can be shut down from elsewhere)."""

    __slots__ = ("what", "sock", "aborted")

    def __init__(self, what: str) -> None:
        self.what = what
        self.sock: socket.socket | None = None
        self.aborted: str | None = None


class ServerTransport(AbortsCalls, Transport):
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
        self._flight: set[_Running] = set()
        self._mutex = self._flight_lock = threading.Lock()

    @property
    def features(self) -> frozenset[str]:
        if self._features is None:
            found = self.client.features(self.serial)
            if found is None:
                return frozenset()  # not cached: ask again next time
            self._features = found
        return self._features

    @property
    def max_payload(self) -> int:
        """What the device accepts in one message, as far as the server route can tell:
        its features say whether it is Android 7+ (``shell_v2``: 256 KiB at least) or older
        (4 KiB); a smart-socket request holds at most 65535 bytes."""
        guess = _MAX_PAYLOAD_V2 if "shell_v2" in self.features else MAX_PAYLOAD_V1
        return min(guess, _MAX_REQUEST)

    # -- commands in flight ----------------------------------------------------------------
    @staticmethod
    def _abort_locked(running: _Running, reason: str) -> None:
        running.aborted = reason
        if running.sock is not None:
            with contextlib.suppress(OSError):
                running.sock.shutdown(socket.SHUT_RDWR)

    @contextlib.contextmanager
    def _command(self, what: str, service: str, deadline: _Deadline) -> Iterator[socket.socket]:
        """A socket to ``service`` on the device, registered (abortable) while the block runs,
        under the caller's cancel token; closed afterwards."""
        token = cancel.current()
        running = _Running(what)
        aborter = (
            token.abortable(lambda reason: self._abort_one(running, reason), what)
            if token is not None
            else contextlib.nullcontext()
        )
        with aborter:
            with self._mutex:
                self._flight.add(running)
            try:
                sock = self.client.open(self.serial, service, deadline)
                with self._mutex:
                    running.sock = sock
                    if running.aborted is not None:  # aborted while it was being opened
                        self._abort_locked(running, running.aborted)
                with sock, _typed(what, deadline):
                    yield sock
                if running.aborted is not None:  # the shutdown looked like a normal end
                    raise Cancelled(f"{what} was cancelled ({running.aborted})")
            except BaseException:
                if running.aborted is not None:
                    raise Cancelled(f"{what} was cancelled ({running.aborted})") from None
                raise
            finally:
                with self._mutex:
                    self._flight.discard(running)

    def open_service(self, service: str, command: str, *, timeout: float
                     ) -> Generator[bytes, None, None]:
        what = f"`{command}`" if command else service
        self.check_size(service, command)
        deadline = _Deadline(timeout)
        with self._command(what, f"{service}:{command}", deadline) as sock:
            while True:
                deadline.arm(sock)
                chunk = sock.recv(256 * 1024)
                if not chunk:
                    return
                yield chunk

    @contextlib.contextmanager
    def open_stream(self, service: str, *, timeout: float | None = None
                    ) -> Iterator[SocketStream]:
        """A two-way stream to ``service`` through the server (its own socket)."""
        check_stream_service(service)
        self.check_size(service, "")
        deadline = _Deadline(self._timeout(timeout))
        with self._command(service, service, deadline) as sock:
            stream = SocketStream(sock, service)
            try:
                yield stream
            finally:
                stream.close()

    # -- sync ----------------------------------------------------------------------------
    def push(
        self, data: bytes, path: str, *, mode: int = 0o644, timeout: float | None = None
    ) -> None:
        _check_path("push", path)
        what = f"push to {path}"
        deadline = _Deadline(self._timeout(timeout))
        with self._command(what, "sync:", deadline) as sock:
            spec = f"{path},{0o100000 | mode}".encode()
            wire = bytearray(b"SEND" + struct.pack("<I", len(spec)) + spec)
            for i in range(0, len(data), _SYNC_DATA_MAX):
                chunk = data[i : i + _SYNC_DATA_MAX]
                wire += b"DATA" + struct.pack("<I", len(chunk)) + chunk
                if len(wire) >= _SYNC_DATA_MAX:  # a chunk at a time: progress can be told
                    deadline.arm(sock)
                    sock.sendall(wire)
                    wire.clear()
                    progress.report(i + len(chunk), len(data))
            wire += b"DONE" + struct.pack("<I", int(time.time()))
            deadline.arm(sock)
            sock.sendall(wire)
            ident, length = struct.unpack("<4sI", _recv_exact(sock, 8, deadline))
            if ident == b"FAIL":
                msg = decode(_recv_exact(sock, length, deadline))
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
        with self._command(what, "sync:", deadline) as sock:
            raw = path.encode()
            sock.sendall(b"RECV" + struct.pack("<I", len(raw)) + raw)
            while True:
                ident, length = struct.unpack("<4sI", _recv_exact(sock, 8, deadline))
                if ident == b"DATA":
                    relay.write(_recv_exact(sock, length, deadline))
                elif ident == b"DONE":
                    break
                elif ident == b"FAIL":
                    msg = decode(_recv_exact(sock, length, deadline))
                    raise CommandFailed(f"{what} failed on the device: {msg}", output=msg)
                else:
                    raise ProtocolError(f"{what}: unexpected sync reply {ident!r}")
            sock.sendall(b"QUIT" + struct.pack("<I", 0))
            return relay.count

    def close(self) -> None:
        """Abort the commands in flight (nothing else persists: each has its own socket)."""
        self.abort("the connection was closed")

    def __repr__(self) -> str:
        return f"<ServerTransport {self.serial} via {self.client.host}:{self.client.port}>"
