"""The byte pipe under adb-shell: our TCP socket transport, and adb-shell's I/O manager
taught the protocol version it negotiates.

What adb-shell alone does not do, and this module adds:

* **Interruptible I/O** (:class:`Interruptible`). Every read and write waits in
  ``select`` on the socket; :meth:`Interruptible.abort` (from any thread) shuts the socket
  down, which wakes that ``select`` at once, and the blocked call raises
  :class:`~baremobile.errors.Cancelled`. Nothing here takes adb-shell's transport lock,
  which the reader holds while it waits — that lock is why closing used to wait for the
  whole command.
* **A whole-command deadline.** adb-shell gives every read its own timeout, so a slow link
  that delivers each message in time can stretch a command without bound. The direct
  transport sets :attr:`Interruptible.deadline` for the command, and every read and write
  waits at most until then.
* **Coalesced writes + TCP_NODELAY.** adb-shell writes a header and its payload in two
  ``send()`` calls; with Nagle on, the second waits for the peer's delayed ACK (~40 ms).
  :class:`FastTcpTransport` holds a header until its payload arrives and sends both at once.
* **Reads served from a buffer.** One ``recv`` brings a header, its payload and often the
  next header; adb-shell's 24-byte and payload-sized reads are served from it.
* **EOF is an error**, and every incoming header is validated (:class:`WireWatcher`), with
  the OPEN the device refuses recognised at once.
* **Protocol version 0x01000001** (:class:`AdbIO`). adb-shell announces 0x01000000, so
  every message on the connection is checksummed — byte sums in Python on our side. We
  announce 0x01000001, as adb does since 2017 (AOSP ``adb: disable checksum on new
  versions``): a device of Android 9 or later then skips checksums both ways. Like adb,
  we never verify incoming checksums (TCP and USB have their own); we still compute
  outgoing ones while the negotiated version is 0x01000000, because older adbd verify them.
"""

from __future__ import annotations

import contextlib
import errno
import math
import select
import socket
import struct
import time
from collections.abc import Iterable
from typing import Any

from adb_shell import constants as adb_const
from adb_shell import exceptions as adb_exc
from adb_shell.adb_device import _AdbIOManager
from adb_shell.transport.tcp_transport import TcpTransport

from baremobile.errors import Cancelled, DeviceDisconnected, ProtocolError, ServiceRefused
from baremobile.safetext import decode

__all__ = [
    "ready",
    "wait_ready",
    "A_VERSION",
    "A_VERSION_MIN",
    "A_VERSION_SKIP_CHECKSUM",
    "AdbIO",
    "DeadlineExpired",
    "FastTcpTransport",
    "Interruptible",
    "WireWatcher",
]

HEADER = struct.Struct("<6I")
_A_CNXN = int.from_bytes(b"CNXN", "little")
_A_STLS = int.from_bytes(b"STLS", "little")
_A_OPEN = int.from_bytes(b"OPEN", "little")
_A_OKAY = int.from_bytes(b"OKAY", "little")
_A_CLSE = int.from_bytes(b"CLSE", "little")

A_VERSION_MIN = 0x01000000
A_VERSION_SKIP_CHECKSUM = 0x01000001
#: What we announce in CNXN (AOSP adb.h ``A_VERSION``).
A_VERSION = A_VERSION_SKIP_CHECKSUM

#: How long one wait may last before an abort flag is looked at again, where no wake-up
#: exists (connecting a TCP socket; libusb transfers).
SLICE_S = 0.05

_KNOWN = frozenset(
    int.from_bytes(c, "little")
    for c in (b"SYNC", b"CNXN", b"AUTH", b"OPEN", b"OKAY", b"CLSE", b"WRTE", b"STLS")
)


_POLL = getattr(select, "poll", None)


def ready(readers: Iterable[socket.socket], writers: Iterable[socket.socket],
          timeout: float | None) -> tuple[list[socket.socket], list[socket.socket]]:
    """``select()``'s answer — (readable ``readers``, writable ``writers``) within
    ``timeout`` seconds (None: no bound) — for any descriptor number. An error or a hang-up
    counts as ready (the next ``recv``/``send`` reports it).

    ``poll()`` where the OS has it: ``select()`` cannot watch a descriptor numbered 1024 or
    more, which any process with many open files hands out (it raised "filedescriptor out
    of range"). Windows has no ``poll()``, and no such limit in its ``select()``.
    """
    readers, writers = list(readers), list(writers)
    if _POLL is None:  # pragma: no cover - Windows
        r, w, _ = select.select(readers, writers, [], timeout)
        return r, w
    poller = _POLL()
    by_fd: dict[int, tuple[socket.socket, bool]] = {}
    for sock in readers:
        by_fd[sock.fileno()] = (sock, False)
        poller.register(sock, select.POLLIN)
    for sock in writers:
        by_fd[sock.fileno()] = (sock, True)
        poller.register(sock, select.POLLOUT)
    ms = None if timeout is None else max(0, math.ceil(timeout * 1000))
    r, w = [], []
    for fd, _events in poller.poll(ms):
        sock, is_writer = by_fd[fd]
        (w if is_writer else r).append(sock)
    return r, w


def wait_ready(sock: socket.socket, *, write: bool = False, timeout: float | None) -> bool:
    """Whether ``sock`` became readable (writable, with ``write``) within ``timeout``."""
    r, w = ready(() if write else (sock,), (sock,) if write else (), timeout)
    return bool(r or w)


class DeadlineExpired(adb_exc.TcpTimeoutException):
    """The command's deadline passed while it waited for the device."""


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

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Follow ``data``, the next bytes the device sent (a view of the read buffer)."""
        pos, size = 0, len(data)
        while pos < size:
            if self._skip:
                n = min(self._skip, size - pos)
                if self._capture is not None:
                    self._capture += data[pos:pos + n]
                self._skip -= n
                pos += n
                if not self._skip and self._capture is not None:
                    self.banner = decode(bytes(self._capture).rstrip(b"\0"))
                    self._capture = None
                continue
            if not self._header and size - pos >= HEADER.size:  # a whole header here
                fields = HEADER.unpack_from(data, pos)
                pos += HEADER.size
            else:
                need = HEADER.size - len(self._header)
                self._header += data[pos:pos + need]
                pos += min(need, size - pos)
                if len(self._header) < HEADER.size:
                    return
                fields = HEADER.unpack(self._header)
                self._header.clear()
            self._check(*fields)

    def _check(self, cmd: int, a0: int, a1: int, length: int, _check: int, magic: int) -> None:
        """One header: valid, or :class:`ProtocolError`; what it says is noted."""
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


class Interruptible:
    """Abort and deadline for a byte pipe to adbd; mixed into the TCP and USB transports.

    :meth:`abort` may be called from any thread at any time; it never blocks. The pipe
    raises :class:`~baremobile.errors.Cancelled` from its current or next read or write
    and stays dead (a new connection gets a new pipe).
    """

    #: ``time.monotonic()`` by which the current command must be done (None: no bound)
    deadline: float | None = None
    _aborted: str | None = None

    def abort(self, reason: str = "aborted") -> None:
        """Abort the I/O in flight (and all later I/O on this pipe)."""
        if self._aborted is None:
            self._aborted = reason or "aborted"
        with contextlib.suppress(Exception):
            self._wake()

    @property
    def aborted(self) -> bool:
        return self._aborted is not None

    def _wake(self) -> None:
        """Wake a blocked wait, where the pipe can (the TCP socket: shutdown)."""

    def _check_abort(self) -> None:
        if self._aborted is not None:
            raise Cancelled(f"the call was cancelled ({self._aborted})")

    def _budget(self, timeout: float | None) -> float | None:
        """Seconds this wait may last: ``timeout``, cut to the command's deadline."""
        self._check_abort()
        if self.deadline is None:
            return timeout
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DeadlineExpired("the command's deadline passed")
        return left if timeout is None else min(timeout, left)


class FastTcpTransport(Interruptible, TcpTransport):
    """adb-shell's ``TcpTransport``, interruptible, with whole messages per ``send``,
    ``TCP_NODELAY``, buffered reads, EOF as an error and header validation."""

    def __init__(self, host: str, port: int = 5555, *, nodelay: bool = True, coalesce: bool = True):
        super().__init__(host, port)
        self.nodelay = nodelay
        self.coalesce = coalesce
        self._pending_header = b""
        self._open_id: int | None = None
        self._rbuf: bytes | memoryview = b""  # received, not yet taken (a view of _scratch)
        self._rpos = 0
        #: what each read lands in (a fresh 256 KiB buffer per read cost more than the read)
        self._scratch = bytearray(256 * 1024)
        self.sniffer = WireWatcher()
        self.writes = 0  # number of socket writes (tests check the coalescing)
        self._pollers: tuple[Any, Any] | None = None

    def _wake(self) -> None:
        conn = self._connection
        if conn is not None:
            # wakes a select() blocked on it in another thread (readable: EOF; writable:
            # EPIPE) and tells the device to drop the connection and its streams
            conn.shutdown(socket.SHUT_RDWR)

    def connect(self, transport_timeout_s: float | None) -> None:
        self.sniffer = WireWatcher()
        self._pending_header = b""
        self._open_id = None
        self._rbuf = b""
        self._rpos = 0
        self._check_abort()
        try:
            self._connection = self._open_socket(transport_timeout_s)
        except (OSError, DeadlineExpired) as exc:
            self._check_abort()
            reason = "timed out" if isinstance(exc, DeadlineExpired) else exc.strerror or exc
            raise DeviceDisconnected(
                f"cannot reach adbd at {self._host}:{self._port}: {reason}",
                hint="check the address, that the device is on the same network, and that "
                "wireless debugging / 'adb tcpip' is enabled",
            ) from None
        if self.nodelay:
            self._connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._pollers = None
        if _POLL is not None:  # one for reading, one for writing, made once per connection
            reader, writer = _POLL(), _POLL()
            reader.register(self._connection, select.POLLIN)
            writer.register(self._connection, select.POLLOUT)
            self._pollers = (reader, writer)
        if self._aborted is not None:  # aborted while connecting: nothing woke us
            self._wake()
            self._check_abort()

    def _open_socket(self, timeout: float | None) -> socket.socket:
        """A non-blocking connected socket; the wait is sliced so that an abort is seen."""
        end = None if timeout is None else time.monotonic() + timeout
        last: OSError | None = None
        for family, kind, proto, _, addr in socket.getaddrinfo(
            self._host, self._port, type=socket.SOCK_STREAM
        ):
            sock = socket.socket(family, kind, proto)
            try:
                sock.setblocking(False)
                err = sock.connect_ex(addr)
                while err in (errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EALREADY):
                    self._check_abort()
                    left = None if end is None else end - time.monotonic()
                    if left is not None and left <= 0:
                        raise DeadlineExpired("connect timed out")
                    wait = SLICE_S if left is None else min(SLICE_S, left)
                    if wait_ready(sock, write=True, timeout=wait):
                        err = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    raise OSError(err, errno.errorcode.get(err, str(err)))
                return sock
            except OSError as exc:
                sock.close()
                last = exc
            except BaseException:
                sock.close()
                raise
        raise last or OSError(errno.EHOSTUNREACH, "no address")

    def bulk_read(self, numbytes: int, transport_timeout_s: float | None) -> bytes:
        self._check_abort()
        if self._rpos < len(self._rbuf):
            return self._take(numbytes)
        conn = self._connection
        if conn is None:
            raise DeviceDisconnected("the connection to the device is closed")
        scratch = self._scratch
        if len(scratch) < numbytes:
            scratch = self._scratch = bytearray(numbytes)
        # the socket never blocks: what has arrived is taken at once, and only when nothing
        # has does the read wait (in poll(), which an abort's shutdown wakes)
        while True:
            try:
                got = conn.recv_into(scratch)
            except (BlockingIOError, InterruptedError):
                got = -1
            except OSError as exc:
                raise self._lost(exc) from None
            if got >= 0:
                break
            readable = self._ready(conn, False, self._budget(transport_timeout_s))
            self._check_abort()
            if not readable:
                if self.deadline is not None and time.monotonic() >= self.deadline:
                    raise DeadlineExpired("the command's deadline passed")
                raise adb_exc.TcpTimeoutException(
                    f"reading from {self._host}:{self._port} timed out ({transport_timeout_s} s)"
                )
        self._check_abort()
        data = memoryview(scratch)[:got]
        if not got:
            self._check_abort()
            raise DeviceDisconnected(f"{self._host}:{self._port} closed the connection")
        self.sniffer.feed(data)
        if got <= numbytes:
            return bytes(data)
        self._rbuf = data  # served from the buffer until taken whole (no read meanwhile)
        self._rpos = 0
        return self._take(numbytes)

    def _take(self, numbytes: int) -> bytes:
        end = min(self._rpos + numbytes, len(self._rbuf))
        out = bytes(self._rbuf[self._rpos : end])
        self._rpos = end
        if end == len(self._rbuf):
            self._rbuf = b""
            self._rpos = 0
        return out

    def bulk_write(self, data: bytes, transport_timeout_s: float | None) -> int:
        self._check_abort()
        header = None  # adb-shell writes each header on its own, then its payload
        if len(data) == HEADER.size and not self._pending_header:
            cmd, a0, _a1, length, _c, magic = HEADER.unpack(data)
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
            service = decode(bytes(data).rstrip(b"\0"))
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
        end = None if timeout is None else time.monotonic() + timeout
        while view:
            self._check_abort()
            try:  # the socket never blocks: a full send buffer is waited for in poll()
                sent = conn.send(view)
            except (BlockingIOError, InterruptedError):
                sent = 0
            except OSError as exc:
                raise self._lost(exc) from None
            view = view[sent:]
            if not view:
                break
            left = None if end is None else max(0.0, end - time.monotonic())
            writable = self._ready(conn, True, self._budget(left))
            self._check_abort()
            if not writable:
                raise adb_exc.TcpTimeoutException(
                    f"sending to {self._host}:{self._port} timed out ({timeout} s)"
                )

    def _ready(self, conn: socket.socket, write: bool, timeout: float | None) -> bool:
        """Whether ``conn`` became readable (writable) within ``timeout`` (None: no bound)."""
        if self._pollers is None:  # pragma: no cover - Windows
            return wait_ready(conn, write=write, timeout=timeout)
        ms = None if timeout is None else max(0, math.ceil(timeout * 1000))
        return bool(self._pollers[write].poll(ms))

    def _lost(self, exc: OSError) -> BaseException:
        """The error for a failed send/recv: Cancelled if we shut it down, else a drop."""
        self._check_abort()
        return DeviceDisconnected(f"connection to {self._host}:{self._port} lost: {exc}")


class AdbIO(_AdbIOManager):
    """adb-shell's I/O manager, speaking protocol version 0x01000001.

    It announces :data:`A_VERSION` in CNXN, keeps what the device's CNXN says (version,
    max payload, banner — for USB too), never verifies incoming checksums (as adb), and
    computes outgoing ones only while the negotiated version asks for them.
    """

    def __init__(self, transport: Any, *, version: int = A_VERSION) -> None:
        super().__init__(transport)
        self.host_version = version
        #: what the device's CNXN said (None until it came)
        self.device_version: int | None = None
        self.device_max_payload: int | None = None
        self.device_banner: str | None = None

    @property
    def version(self) -> int:
        """The negotiated protocol version (the lower of both sides')."""
        if self.device_version is None:
            return A_VERSION_MIN
        return min(self.host_version, self.device_version)

    @property
    def checksums(self) -> bool:
        """Whether outgoing messages carry a checksum (negotiated version below 0x01000001,
        or not negotiated yet: the handshake always carries them)."""
        return self.version < A_VERSION_SKIP_CHECKSUM

    def _read_packet_from_device(self, adb_info: Any) -> tuple[bytes, int, int, bytes]:
        header = self._read_bytes_from_device(adb_const.MESSAGE_SIZE, adb_info)
        cmd, arg0, arg1, length, _check, _magic = HEADER.unpack(header)
        command = adb_const.WIRE_TO_ID.get(cmd)
        if not command:
            raise adb_exc.InvalidCommandError(f"unknown command {cmd:#010x}")
        data = self._read_bytes_from_device(length, adb_info) if length else b""
        if command == adb_const.CNXN:
            self.device_version = arg0
            self.device_max_payload = arg1
            self.device_banner = decode(bytes(data).rstrip(b"\0"))
        return command, arg0, arg1, data

    def _send(self, msg: Any, adb_info: Any) -> None:
        arg0 = msg.arg0
        if msg.command == _A_CNXN:
            arg0 = self.host_version
            self.device_version = self.device_max_payload = self.device_banner = None
        data = msg.data or b""
        check = (sum(data) & 0xFFFFFFFF) if self.checksums and data else 0
        header = HEADER.pack(msg.command, arg0, msg.arg1, len(data), check, msg.magic)
        self._transport.bulk_write(header, adb_info.transport_timeout_s)
        if data:
            self._transport.bulk_write(data, adb_info.transport_timeout_s)
