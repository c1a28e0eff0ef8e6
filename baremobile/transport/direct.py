"""Direct adbd transport on adb-shell: TCP (``AdbDevice`` over our socket transport) and USB.

One persistent ADB connection per device; every verb is a stream on it. Calls are
serialised per device, so a Page can be shared between threads.

How we use adb-shell, and why (the byte-level parts live in :mod:`baremobile.transport.wire`):

* **Interruptible, and bounded as a whole.** Each call registers itself; :meth:`abort`
  or a cancelled :class:`~baremobile.transport.cancel.CancelToken` wakes its blocked read
  or write at once (never waiting for adb-shell's transport lock) and the call raises
  :class:`~baremobile.errors.Cancelled`. Its ``timeout`` is a deadline for the whole
  command — shell, stream, push and pull alike — not for each read.
* **Coalesced writes + TCP_NODELAY; EOF is an error; headers validated** (see ``wire``).
* **Protocol 0x01000001.** The device's ``CNXN`` tells its version, max payload and
  banner (features such as ``shell_v2``), over TCP and USB alike; from Android 9 on no
  message is checksummed.
* **shell v2 for exit codes.** ``shell,v2,raw:`` streams carry stdout, stderr and the
  exit status separately; devices without ``shell_v2`` get a ``$?`` sentinel instead.
* **Errors are typed; the next call reconnects.** Any transport error closes the
  connection; the next call opens a new one (and re-authenticates).
"""

from __future__ import annotations

import contextlib
import io
import logging
import struct
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any

from adb_shell import constants as adb_const
from adb_shell import exceptions as adb_exc
from adb_shell.adb_device import AdbDevice

from baremobile.errors import (
    BaremobileError,
    Busy,
    Cancelled,
    CommandFailed,
    CommandTimeout,
    DeviceDisconnected,
    DeviceUnauthorized,
    ProtocolError,
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
from baremobile.transport.keys import AdbKey, load_signers
from baremobile.transport.streams import AdbStream, check_stream_service
from baremobile.transport.wire import A_VERSION, AdbIO, FastTcpTransport, WireWatcher

__all__ = ["DirectTransport", "FastTcpTransport", "WireWatcher", "parse_banner"]

log = logging.getLogger("baremobile.transport")

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
            raw = decode(raw)
        msg = str(raw).removeprefix("Command failed: ")
        return CommandFailed(f"{what} failed on the device: {msg}", output=msg)
    if isinstance(exc, (ConnectionError, OSError, struct.error, ValueError)):
        return DeviceDisconnected(f"{what}: connection lost ({exc})")
    return DeviceDisconnected(f"{what}: unexpected transport failure ({exc!r})")


class _Call:
    """One command on the device: waiting for it, then holding it."""

    __slots__ = ("what", "thread", "deadline", "aborted")

    def __init__(self, what: str, timeout: float) -> None:
        self.what = what
        self.thread = threading.get_ident()
        self.deadline = time.monotonic() + timeout
        self.aborted: str | None = None  # why it was aborted

    def cancelled(self) -> Cancelled:
        return Cancelled(f"{self.what} was cancelled ({self.aborted})")


class DirectTransport(AbortsCalls, Transport):
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
        timeout: default per-call timeout in seconds (a deadline for the whole command).
        connect_timeout: seconds for TCP connect and handshake (excluding the prompt).
        version: the ADB protocol version to announce (0x01000001; 0x01000000 forces
            checksums, as adb-shell alone does — for comparison only).
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
        version: int = A_VERSION,
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
        self._version = version
        self._lock = threading.RLock()  # connection state: connecting, closing
        # calls: who waits, who holds the device; never held across I/O
        self._calls_cond = threading.Condition(threading.Lock())
        self._flight_lock = self._calls_cond
        self._flight: set[_Call] = set()
        self._active: _Call | None = None
        self._wire: Any = None  # the live (or connecting) byte pipe, for aborting
        self._device: AdbDevice | None = None
        self._io: AdbIO | None = None
        self._transport: Any = None
        self._features: frozenset[str] = frozenset()
        self._max_payload = MAX_PAYLOAD_V1
        #: the negotiated ADB protocol version (0 before the first connection)
        self.protocol_version = 0
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
        """Open the connection now (otherwise the first call does); cancellable."""
        with self._holding("connecting", self.connect_timeout + self.auth_timeout):
            self._ensure()

    def _ensure(self) -> AdbDevice:
        """The connected device, connecting first if needed."""
        with self._lock:
            if self._device is None:
                self._connect()
            assert self._device is not None
            return self._device

    def _ready(self) -> None:
        """Connect if needed (as a call of its own: it may wait, and may be cancelled)."""
        if self._device is None:
            self.connect()

    @property
    def features(self) -> frozenset[str]:
        """What the device's banner advertised (connects if needed)."""
        self._ready()
        return self._features

    @property
    def max_payload(self) -> int:
        """The device's max ADB payload from its ``CNXN`` (connects if needed)."""
        self._ready()
        return self._max_payload

    def _connect(self) -> None:
        transport = self._make_transport()
        with self._calls_cond:
            self._wire = transport
            active = self._active
            if active is not None and active.aborted:
                transport.abort(active.aborted)
        device = AdbDevice(transport, default_transport_timeout_s=self.connect_timeout)
        device._io_manager = io_manager = AdbIO(transport, version=self._version)  # noqa: SLF001
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
            with self._calls_cond:
                self._wire = None
            with contextlib.suppress(Exception):
                device.close()
            if isinstance(exc, Cancelled):
                raise
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
        self._io = io_manager
        self._transport = transport
        self.protocol_version = io_manager.version
        self._max_payload = min(
            io_manager.device_max_payload or MAX_PAYLOAD_V1, adb_const.MAX_ADB_DATA
        )
        self.banner = io_manager.device_banner or ""
        self.props, self._features = parse_banner(self.banner)

    def close(self) -> None:
        """Abort the calls in flight, then release the connection (the next call reconnects)."""
        self.abort("the connection was closed")
        self._drop()

    def _drop(self) -> None:
        """Release the connection (after a failure, or when closing)."""
        with self._lock:
            dev, self._device = self._device, None
            self._transport = self._io = None
            with self._calls_cond:
                self._wire = None
            if dev is not None:
                with contextlib.suppress(Exception):
                    dev.close()

    # -- calls: one holds the device; any can be aborted -----------------------------------
    def _abort_locked(self, call: _Call, reason: str) -> None:
        call.aborted = reason
        if self._active is call and self._wire is not None:
            self._wire.abort(reason)  # non-blocking: shuts the socket down
        self._calls_cond.notify_all()

    @contextlib.contextmanager
    def _holding(self, what: str, timeout: float) -> Iterator[_Call]:
        """Wait for the device (up to ``timeout``) and hold it for one command.

        The command runs under the caller's cancel token (if any) and the call's deadline.
        Failures come out typed; an aborted call raises ``Cancelled``; any failure, abort
        or abandonment drops the connection.
        """
        token = cancel.current()
        call = _Call(what, timeout)
        aborter = (
            token.abortable(lambda reason: self._abort_one(call, reason), what)
            if token is not None
            else contextlib.nullcontext()
        )
        with aborter:
            self._wait_for_device(call, timeout)
            clean = False
            try:
                yield call
                clean = call.aborted is None
            except GeneratorExit:
                raise
            except BaseException as exc:
                if call.aborted is not None:
                    raise call.cancelled() from None
                if isinstance(exc, (BaremobileError, KeyboardInterrupt, SystemExit)):
                    raise
                raise _map_error(exc, what, timeout) from None
            finally:
                if not clean:  # failed, aborted or abandoned mid-command: the connection is dirty
                    self._drop()
                self._release(call)

    def _wait_for_device(self, call: _Call, timeout: float) -> None:
        me = call.thread
        with self._calls_cond:
            active = self._active
            if active is not None and active.thread == me:
                raise Busy(
                    f"{call.what}: this thread still has an unfinished stream on {self.serial}",
                    hint="read the earlier stream to its end, or close() it, before the next call",
                )
            self._flight.add(call)
            try:
                while self._active is not None:
                    if call.aborted is not None:
                        raise call.cancelled()
                    left = call.deadline - time.monotonic()
                    if left <= 0 or not self._calls_cond.wait(left):
                        if self._active is None:
                            break
                        raise CommandTimeout(
                            f"{call.what}: {self.serial} stayed busy with another call "
                            f"for {timeout:g} s"
                        )
                if call.aborted is not None:
                    raise call.cancelled()
            except BaseException:
                self._flight.discard(call)
                raise
            self._active = call
            if self._wire is not None:
                self._wire.deadline = None

    def _release(self, call: _Call) -> None:
        with self._calls_cond:
            self._flight.discard(call)
            if self._active is call:
                self._active = None
                if self._wire is not None:
                    self._wire.deadline = None
            self._calls_cond.notify_all()

    def _start_command(self, call: _Call) -> AdbDevice:
        """Connect if needed, then arm the call's deadline on the wire (a connection made
        now adds its own time to the budget)."""
        started = time.monotonic()
        device = self._ensure()
        call.deadline += time.monotonic() - started
        with self._calls_cond:
            if call.aborted is not None:
                raise call.cancelled()
            if self._wire is not None:
                self._wire.deadline = call.deadline
        return device

    # -- verbs ---------------------------------------------------------------------------
    def open_service(self, service: str, command: str, *, timeout: float
                     ) -> Generator[bytes, None, None]:
        """Open ``service:command`` and yield its WRTE payloads as they arrive.

        The device is held for this stream until it ends or is closed (from any thread).
        ``timeout`` bounds the whole stream.
        """
        what = f"`{command}`" if command else service
        self._ready()
        self.check_size(service, command)  # before anything is sent
        with self._holding(what, timeout) as call:
            device = self._start_command(call)
            yield from device._streaming_command(  # noqa: SLF001 — streaming exec/shell v2
                service.encode(), command.encode("utf-8"), timeout, timeout, None
            )

    @contextlib.contextmanager
    def open_stream(self, service: str, *, timeout: float | None = None) -> Iterator[AdbStream]:
        """A two-way stream to ``service`` on this connection (see
        :meth:`Transport.open_stream`). An error of the caller's own (not of the stream's
        I/O) closes the stream cleanly and keeps the connection."""
        check_stream_service(service)
        t = self._timeout(timeout)
        self._ready()
        self.check_size(service, "")
        own: BaremobileError | None = None
        with self._holding(service, t) as call:
            device = self._start_command(call)
            info = device._open(service.encode(), t, t, None)  # noqa: SLF001
            stream = AdbStream(device, info, self._max_payload, service)
            try:
                yield stream
            except BaremobileError as exc:
                if isinstance(exc, (DeviceDisconnected, CommandTimeout, Cancelled)):
                    raise  # the stream's own I/O failed: the connection is dirty
                own = exc
            if not stream.closed:
                stream.close()
        if own is not None:
            raise own

    def _sync(self, what: str, timeout: float, op: Callable[[AdbDevice, float], Any]) -> Any:
        with self._holding(what, timeout) as call:
            return op(self._start_command(call), timeout)

    def push(
        self, data: bytes, path: str, *, mode: int = 0o644, timeout: float | None = None
    ) -> None:
        """Write ``data`` to ``path``; ``timeout`` bounds the whole transfer."""
        _check_path("push", path)

        def op(device: AdbDevice, t: float) -> None:
            device.push(
                progress.CountingReader(data),  # reports as it is read, when asked to
                path,
                st_mode=0o100000 | mode,
                mtime=int(time.time()),
                transport_timeout_s=t,
                read_timeout_s=t,
            )

        self._sync(f"push to {path}", self._timeout(timeout), op)

    def pull(self, path: str, *, timeout: float | None = None) -> bytes:
        buf = io.BytesIO()
        self.pull_into(path, buf, timeout=timeout)
        return buf.getvalue()

    def pull_into(self, path: str, sink: Sink, *, timeout: float | None = None) -> int:
        """Stream ``path`` into ``sink``; ``timeout`` bounds the whole transfer."""
        _check_path("pull", path)
        relay = SinkRelay(sink)

        def op(device: AdbDevice, t: float) -> int:
            # with a callback, adb-shell first stats the file: the total, for the report
            told = (lambda _path, _n, total: setattr(relay, "total", total)) \
                if progress.active() else None
            device.pull(path, relay, progress_callback=told, transport_timeout_s=t,
                        read_timeout_s=t)
            return relay.count

        try:
            return self._sync(f"pull of {path}", self._timeout(timeout), op)
        except BaremobileError:
            if relay.error is not None:  # the sink failed, not the device
                raise relay.error from None
            raise

    def __repr__(self) -> str:
        state = "connected" if self._device is not None else "idle"
        return f"<DirectTransport {self.kind} {self.serial} {state}>"
