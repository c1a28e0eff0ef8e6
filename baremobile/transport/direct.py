"""Direct adbd transport on adb-shell: TCP (``AdbDevice`` over our socket transport) and USB.

One persistent ADB connection per device; every verb is a stream on it. Calls are
serialised per device (one lock), so a Page can be shared between threads.

How we use adb-shell, and why:

* **Coalesced writes + TCP_NODELAY.** adb-shell writes a message's 24-byte header and its
  payload in two ``send()`` calls. With Nagle's algorithm on, the second waits for the
  peer's delayed ACK (~40 ms on Linux) — on *every* message. :class:`FastTcpTransport`
  holds a header until its payload arrives, writes both with one ``sendall``, and sets
  ``TCP_NODELAY``. ``benchmarks/transport.py`` measures the difference.
* **EOF is an error.** adb-shell's TCP transport returns ``b""`` on a closed socket and
  its reader spins until the read timeout; we raise at once, so a dropped connection is
  reported as :class:`DeviceDisconnected` immediately.
* **The device banner is kept.** adb-shell discards the device's ``CNXN`` banner; we read
  it off the wire during the handshake to learn the device's features (``shell_v2``).
* **shell v2 for exit codes.** ``shell,v2,raw:`` streams carry stdout, stderr and the
  exit status separately; devices without ``shell_v2`` get a ``$?`` sentinel instead.
* **Errors are typed; the next call reconnects.** Any transport error closes the
  connection; the next call opens a new one (and re-authenticates).
"""

from __future__ import annotations

import contextlib
import io
import logging
import select
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from adb_shell import exceptions as adb_exc
from adb_shell.adb_device import AdbDevice
from adb_shell.transport.tcp_transport import TcpTransport

from baremobile.errors import (
    BaremobileError,
    Busy,
    CommandFailed,
    CommandTimeout,
    DeviceDisconnected,
    DeviceUnauthorized,
    ProtocolError,
    ServiceRefused,
)
from baremobile.transport.base import DEFAULT_TIMEOUT, Sink, SinkRelay, Transport
from baremobile.transport.base import check_path as _check_path
from baremobile.transport.keys import AdbKey, load_signers

__all__ = ["DirectTransport", "FastTcpTransport", "parse_banner"]

log = logging.getLogger("baremobile.transport")

_HEADER = struct.Struct("<6I")
_A_CNXN = int.from_bytes(b"CNXN", "little")
_A_STLS = int.from_bytes(b"STLS", "little")
_A_OPEN = int.from_bytes(b"OPEN", "little")
_A_OKAY = int.from_bytes(b"OKAY", "little")
_A_CLSE = int.from_bytes(b"CLSE", "little")

#: Seconds a person gets to accept the "Allow USB debugging?" prompt.
DEFAULT_AUTH_TIMEOUT = 60.0


def parse_banner(banner: str) -> tuple[dict[str, str], frozenset[str]]:
    """``device::ro.product.name=x;…;features=a,b`` → (properties, features)."""
    _, _, rest = banner.partition("::")
    props: dict[str, str] = {}
    features: frozenset[str] = frozenset()
    for field in rest.split(";"):
        k, sep, v = field.partition("=")
        if not sep:
            continue
        if k == "features":
            features = frozenset(f for f in v.split(",") if f)
        else:
            props[k] = v
    return props, features


_KNOWN = frozenset(
    int.from_bytes(c, "little")
    for c in (b"SYNC", b"CNXN", b"AUTH", b"OPEN", b"OKAY", b"CLSE", b"WRTE", b"STLS")
)


class WireWatcher:
    """Follows the device→host byte stream message by message.

    adb-shell trusts whatever header arrives (it never checks ``magic``); this watcher
    validates every header as it passes and raises :class:`ProtocolError` on garbage,
    and it keeps the device's ``CNXN`` banner, which adb-shell discards.
    """

    def __init__(self) -> None:
        self._header = bytearray()
        self._skip = 0  # payload bytes of the current message still to pass
        self._capture: bytearray | None = None
        self.banner: str | None = None
        self.tls_requested = False
        #: local id → service of OPENs the host sent that the device has not answered yet
        self.opening: dict[int, str] = {}

    def feed(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            if self._skip:
                n = min(self._skip, len(view))
                if self._capture is not None:
                    self._capture += view[:n]
                self._skip -= n
                view = view[n:]
                if not self._skip and self._capture is not None:
                    self.banner = bytes(self._capture).rstrip(b"\0").decode("utf-8", "replace")
                    self._capture = None
                continue
            need = _HEADER.size - len(self._header)
            self._header += view[:need]
            view = view[need:]
            if len(self._header) < _HEADER.size:
                return
            cmd, a0, a1, length, _check, magic = _HEADER.unpack(self._header)
            self._header.clear()
            if magic != cmd ^ 0xFFFFFFFF or cmd not in _KNOWN:
                raise ProtocolError(
                    f"the device sent a corrupt ADB message header (command {cmd:#010x}, "
                    f"magic {magic:#010x})"
                )
            if cmd == _A_STLS:
                self.tls_requested = True
            elif cmd == _A_OKAY:
                self.opening.pop(a1, None)
            elif cmd == _A_CLSE and a0 == 0 and a1 in self.opening:
                # adb-shell would wait for an OKAY that never comes (until its timeout)
                service = self.opening.pop(a1)
                raise ServiceRefused(f"the device refused to open the service '{service}'")
            self._skip = length
            self._capture = bytearray() if cmd == _A_CNXN and length else None
            if cmd == _A_CNXN and not length:
                self.banner = ""


class FastTcpTransport(TcpTransport):
    """adb-shell's TCP transport with one write per message, TCP_NODELAY and EOF detection."""

    def __init__(self, host: str, port: int = 5555, *, nodelay: bool = True, coalesce: bool = True):
        super().__init__(host, port)
        self.nodelay = nodelay
        self.coalesce = coalesce
        self._pending_header = b""
        self._open_id: int | None = None
        self.sniffer = WireWatcher()
        self.writes = 0  # number of socket writes (tests check the coalescing)

    def connect(self, transport_timeout_s: float | None) -> None:
        self.sniffer = WireWatcher()
        self._pending_header = b""
        self._open_id = None
        try:
            self._connection = socket.create_connection(
                (self._host, self._port), timeout=transport_timeout_s
            )
        except OSError as exc:
            raise DeviceDisconnected(
                f"cannot reach adbd at {self._host}:{self._port}: {exc.strerror or exc}",
                hint="check the address, that the device is on the same network, and that "
                "wireless debugging / 'adb tcpip' is enabled",
            ) from None
        if self.nodelay:
            self._connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._connection.setblocking(False)

    def bulk_read(self, numbytes: int, transport_timeout_s: float | None) -> bytes:
        conn = self._connection
        if conn is None:
            raise DeviceDisconnected("the connection to the device is closed")
        readable, _, _ = select.select([conn], [], [], transport_timeout_s)
        if not readable:
            raise adb_exc.TcpTimeoutException(
                f"reading from {self._host}:{self._port} timed out ({transport_timeout_s} s)"
            )
        try:
            data = conn.recv(numbytes)
        except (BlockingIOError, InterruptedError):
            return b""
        except OSError as exc:
            raise DeviceDisconnected(
                f"connection to {self._host}:{self._port} lost: {exc}"
            ) from None
        if not data:
            raise DeviceDisconnected(f"{self._host}:{self._port} closed the connection")
        self.sniffer.feed(data)
        return data

    def bulk_write(self, data: bytes, transport_timeout_s: float | None) -> int:
        header = None  # adb-shell writes each header on its own, then its payload
        if len(data) == _HEADER.size and not self._pending_header:
            cmd, a0, _a1, length, _c, magic = _HEADER.unpack(data)
            if magic == cmd ^ 0xFFFFFFFF:
                header = (cmd, a0, length)
        self._note_open(data, header)
        if self.coalesce:
            if header is not None and header[2] > 0:
                self._pending_header = bytes(data)  # wait for the payload
                return len(data)
            wire = self._pending_header + bytes(data)
            self._pending_header = b""
        else:
            wire = bytes(data)
        self._sendall(wire, transport_timeout_s)
        return len(data)

    def _note_open(self, data: bytes, header: tuple[int, int, int] | None) -> None:
        """Remember OPENs in flight, so a refusal (CLSE with local id 0) is recognised."""
        if self._open_id is not None:
            service = bytes(data).rstrip(b"\0").decode("utf-8", "replace")
            self.sniffer.opening[self._open_id] = service
            self._open_id = None
        elif header is not None and header[0] == _A_OPEN:
            self._open_id = header[1]

    def _sendall(self, wire: bytes, timeout: float | None) -> None:
        conn = self._connection
        if conn is None:
            raise DeviceDisconnected("the connection to the device is closed")
        self.writes += 1
        view = memoryview(wire)
        deadline = None if timeout is None else time.monotonic() + timeout
        while view:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            _, writable, _ = select.select([], [conn], [], left)
            if not writable:
                raise adb_exc.TcpTimeoutException(
                    f"sending to {self._host}:{self._port} timed out ({timeout} s)"
                )
            try:
                sent = conn.send(view)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError as exc:
                raise DeviceDisconnected(
                    f"connection to {self._host}:{self._port} lost: {exc}"
                ) from None
            view = view[sent:]


def _map_error(exc: BaseException, what: str, timeout: float) -> BaremobileError:
    """Translate adb-shell / socket errors into baremobile's typed errors."""
    if isinstance(exc, BaremobileError):
        return exc
    if isinstance(exc, (adb_exc.TcpTimeoutException, adb_exc.AdbTimeoutError, TimeoutError)):
        return CommandTimeout(f"{what} did not finish within {timeout:g} s")
    if isinstance(
        exc,
        (adb_exc.InvalidChecksumError, adb_exc.InvalidCommandError, adb_exc.InvalidResponseError),
    ):
        return ProtocolError(f"{what}: the device sent an invalid ADB message ({exc})")
    if isinstance(exc, adb_exc.DeviceAuthError):
        return DeviceUnauthorized(f"{what}: {exc}")
    if isinstance(exc, (adb_exc.AdbCommandFailureException, adb_exc.PushFailedError)):
        raw = exc.args[0] if exc.args else ""
        if isinstance(raw, (bytes, bytearray)):
            raw = bytes(raw).decode("utf-8", "replace")
        msg = str(raw).removeprefix("Command failed: ")
        return CommandFailed(f"{what} failed on the device: {msg}", output=msg)
    if isinstance(exc, (ConnectionError, OSError, struct.error, ValueError)):
        return DeviceDisconnected(f"{what}: connection lost ({exc})")
    return DeviceDisconnected(f"{what}: unexpected transport failure ({exc!r})")


class DirectTransport(Transport):
    """A persistent ADB connection straight to adbd (TCP, or USB with the ``[usb]`` extra).

    Args:
        host, port: adbd's address for TCP (``adb tcpip``, wireless debugging without
            TLS, an emulator's odd port, the virtual phone).
        usb_serial: use USB instead; ``""`` means the first ADB device found.
        keys: signers to authenticate with; default: ``~/.android/adbkey`` (created if
            missing) plus ``ADB_VENDOR_KEYS``.
        key_path: an explicit private key path instead of the default.
        auth_timeout: seconds to wait for the user to accept the phone's prompt.
        on_auth_prompt: called (with this transport) when the phone shows the prompt.
        timeout: default per-call timeout in seconds.
        connect_timeout: seconds for TCP connect and handshake (excluding the prompt).
    """

    def __init__(
        self,
        host: str | None = None,
        port: int = 5555,
        *,
        usb_serial: str | None = None,
        keys: Sequence[AdbKey] | None = None,
        key_path: str | None = None,
        auth_timeout: float = DEFAULT_AUTH_TIMEOUT,
        on_auth_prompt: Callable[[DirectTransport], None] | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = 10.0,
        nodelay: bool = True,
        coalesce: bool = True,
    ) -> None:
        if host is None and usb_serial is None:
            raise ValueError("DirectTransport needs a host (TCP) or usb_serial (USB)")
        self.host = host
        self.port = int(port)
        self.usb_serial = usb_serial
        self.kind = "usb" if usb_serial is not None else "tcp"
        self.serial = f"{host}:{self.port}" if host is not None else (usb_serial or "usb")
        self._keys = list(keys) if keys is not None else None
        self._key_path = key_path
        self.auth_timeout = float(auth_timeout)
        self.on_auth_prompt = on_auth_prompt
        self.timeout = float(timeout)
        self.connect_timeout = float(connect_timeout)
        self._nodelay = nodelay
        self._coalesce = coalesce
        self._lock = threading.RLock()  # connection state (brief)
        self._busy = threading.Semaphore(1)  # the connection, for a whole command
        self._busy_owner: int | None = None
        self._device: AdbDevice | None = None
        self._transport: Any = None
        self._features: frozenset[str] = frozenset()
        self.props: dict[str, str] = {}
        self.banner = ""

    # -- connection --------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self._device is not None

    def _signers(self) -> list[AdbKey]:
        if self._keys is None:
            self._keys = load_signers(self._key_path)
        return self._keys

    def _make_transport(self) -> Any:
        if self.usb_serial is None:
            assert self.host is not None
            return FastTcpTransport(
                self.host, self.port, nodelay=self._nodelay, coalesce=self._coalesce
            )
        from baremobile.transport.usb import open_usb_transport

        return open_usb_transport(self.usb_serial or None, timeout=self.connect_timeout)

    def connect(self) -> None:
        """Open the connection now (otherwise the first call does)."""
        self._ensure()

    def _ensure(self) -> AdbDevice:
        """The connected device, connecting first if needed (call with or without the lock)."""
        with self._lock:
            if self._device is None:
                self._connect()
            assert self._device is not None
            return self._device

    @property
    def features(self) -> frozenset[str]:
        """What the device's banner advertised (connects if needed)."""
        with self._lock:
            self._ensure()
            return self._features

    def _connect(self) -> None:
        transport = self._make_transport()
        device = AdbDevice(transport, default_transport_timeout_s=self.connect_timeout)
        prompted = threading.Event()

        def auth_callback(_dev: object) -> None:
            prompted.set()
            if self.on_auth_prompt is not None:
                self.on_auth_prompt(self)

        try:
            device.connect(
                rsa_keys=self._signers(),
                transport_timeout_s=self.connect_timeout,
                auth_timeout_s=self.auth_timeout,
                read_timeout_s=self.connect_timeout,
                auth_callback=auth_callback,
            )
        except BaseException as exc:
            with contextlib.suppress(Exception):
                device.close()
            sniffer = getattr(transport, "sniffer", None)
            if sniffer is not None and sniffer.tls_requested:
                raise DeviceDisconnected(
                    f"{self.serial} asks for TLS (an Android 11+ wireless-debugging port)",
                    hint="pair and connect it with 'adb pair' / 'adb connect', then pass its "
                    "serial ({pick_device}): that goes through the adb server",
                ) from None
            if prompted.is_set() and isinstance(
                exc, (adb_exc.TcpTimeoutException, adb_exc.AdbTimeoutError, TimeoutError)
            ):
                raise DeviceUnauthorized(
                    f"{self.serial} did not accept this computer's ADB key within "
                    f"{self.auth_timeout:g} s"
                ) from None
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            raise _map_error(exc, f"connecting to {self.serial}", self.connect_timeout) from None
        self._device = device
        self._transport = transport
        sniffer = getattr(transport, "sniffer", None)
        if sniffer is not None and sniffer.banner is not None:
            self.banner = sniffer.banner
            self.props, self._features = parse_banner(sniffer.banner)
        elif self.kind == "usb":
            self._features = frozenset({"shell_v2"}) if self._probe_v2() else frozenset()

    def _probe_v2(self) -> bool:
        try:
            out = self._device.shell("getprop ro.build.version.sdk", read_timeout_s=5)  # type: ignore[union-attr]
            return int(str(out).strip() or "0") >= 24
        except Exception:
            return False

    def close(self) -> None:
        with self._lock:
            dev, self._device = self._device, None
            self._transport = None
            if dev is not None:
                with contextlib.suppress(Exception):
                    dev.close()

    def _fail(self, exc: BaseException, what: str, timeout: float) -> BaremobileError:
        """Drop the (now unusable) connection and return the typed error."""
        self.close()
        return _map_error(exc, what, timeout)

    # -- one command at a time -----------------------------------------------------------
    # A semaphore, not the RLock: a stream holds it across yields, and whoever finishes or
    # abandons the stream (possibly another thread, or the garbage collector) releases it.
    def _acquire(self, timeout: float, what: str) -> None:
        me = threading.get_ident()
        if self._busy_owner == me:
            raise Busy(
                f"{what}: this thread still has an unfinished stream on {self.serial}",
                hint="read the earlier stream to its end, or close() it, before the next call",
            )
        if not self._busy.acquire(timeout=max(timeout, 0.0)):
            raise CommandTimeout(
                f"{what}: {self.serial} stayed busy with another call for {timeout:g} s"
            )
        self._busy_owner = me

    def _release(self) -> None:
        self._busy_owner = None
        self._busy.release()

    # -- verbs ---------------------------------------------------------------------------
    def open_service(self, service: str, command: str, *, timeout: float) -> Iterator[bytes]:
        """Open ``service:command`` and yield its WRTE payloads as they arrive.

        The device is held for this stream until it ends or is closed (from any thread).
        """
        what = f"`{command}`" if command else service
        self._acquire(timeout, what)
        finished = False
        try:
            device = self._ensure()
            gen = device._streaming_command(  # noqa: SLF001 — streaming exec/shell v2
                service.encode(), command.encode("utf-8"), timeout, timeout, timeout
            )
            yield from gen
            finished = True
        except GeneratorExit:
            raise
        except BaremobileError:
            raise
        except BaseException as exc:
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            raise _map_error(exc, what, timeout) from None
        finally:
            if not finished:  # failed or abandoned mid-stream: the connection is dirty
                self.close()
            self._release()

    def _sync(self, what: str, timeout: float, op: Callable[[AdbDevice], Any]) -> Any:
        self._acquire(timeout, what)
        try:
            return op(self._ensure())
        except BaremobileError:
            self.close()
            raise
        except BaseException as exc:
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                self.close()
                raise
            raise self._fail(exc, what, timeout) from None
        finally:
            self._release()

    def push(
        self, data: bytes, path: str, *, mode: int = 0o644, timeout: float | None = None
    ) -> None:
        t = self._timeout(timeout)
        _check_path("push", path)

        def op(device: AdbDevice) -> None:
            device.push(
                io.BytesIO(data),
                path,
                st_mode=0o100000 | mode,
                mtime=int(time.time()),
                transport_timeout_s=t,
                read_timeout_s=t,
            )

        self._sync(f"push to {path}", t, op)

    def pull(self, path: str, *, timeout: float | None = None) -> bytes:
        buf = io.BytesIO()
        self.pull_into(path, buf, timeout=timeout)
        return buf.getvalue()

    def pull_into(self, path: str, sink: Sink, *, timeout: float | None = None) -> int:
        t = self._timeout(timeout)
        _check_path("pull", path)
        relay = SinkRelay(sink)

        def op(device: AdbDevice) -> int:
            device.pull(path, relay, transport_timeout_s=t, read_timeout_s=t)
            return relay.count

        try:
            return self._sync(f"pull of {path}", t, op)
        except BaremobileError:
            if relay.error is not None:  # the sink failed, not the device
                raise relay.error from None
            raise

    def __repr__(self) -> str:
        state = "connected" if self._device is not None else "idle"
        return f"<DirectTransport {self.kind} {self.serial} {state}>"

