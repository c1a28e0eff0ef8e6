"""Two-way byte streams to a service on the device: ``localabstract:<socket>`` (a unix
socket, such as a WebView's DevTools socket), ``tcp:<port>`` — opened on the device's own
ADB connection, no ``adb forward``.

The wire (AOSP ``docs/dev/protocol.md``): ``OPEN(local-id, 0, "localabstract:NAME\\0")`` →
``OKAY(remote-id, local-id)`` (or ``CLSE(0, local-id)``: nothing listens there); then
``WRTE`` both ways, each acknowledged with ``OKAY`` before the writer sends the next one
("A WRITE message may not be sent until a READY message is received"); either side ends it
with ``CLSE``. adbd itself connects to the socket (``socket_spec_connect``), so nothing
HTTP-specific is involved: the stream is a plain byte pipe.

* :class:`AdbStream` speaks that on a direct connection (adb-shell's message I/O, under the
  transport's whole-command deadline and abort);
* :class:`SocketStream` is what the adb server gives after ``host:transport:SERIAL`` and
  the service (``docs/dev/services.md``): the socket itself is the stream.

Both are :class:`~baremobile.transport.base.ByteStream` s: ``send``, ``recv(timeout)``
(``b""`` once the device closed it), ``close``.
"""

from __future__ import annotations

import contextlib
import socket
import time
from typing import Any

from baremobile.errors import CommandTimeout, DeviceDisconnected

__all__ = ["AdbStream", "SocketStream", "check_stream_service"]

_OKAY, _WRTE, _CLSE = b"OKAY", b"WRTE", b"CLSE"


def check_stream_service(service: str) -> None:
    """Only socket services make two-way streams (``shell:`` and friends have verbs)."""
    from baremobile.errors import InvalidArgument

    head, sep, name = service.partition(":")
    if head not in ("localabstract", "localreserved", "localfilesystem", "tcp") or not name:
        raise InvalidArgument(
            f"{service!r} is not a socket service; a stream opens localabstract:<name>, "
            "localreserved:<name>, localfilesystem:<path> or tcp:<port>")
    if "\0" in service or not service.isprintable():
        raise InvalidArgument(f"{service!r}: a service name is printable text")


class AdbStream:
    """A stream on a direct ADB connection (adb-shell's device and transaction info)."""

    def __init__(self, device: Any, info: Any, max_payload: int, service: str) -> None:
        self._device = device
        self._info = info
        self._max = max(1, max_payload)
        self.service = service
        self._buffer: list[bytes] = []
        self._awaiting_okay = False
        self.closed = False  # the device closed its side (or we did)

    # -- the wire ----------------------------------------------------------------------
    def _read(self, timeout: float) -> tuple[bytes, bytes]:
        """One message of this stream (WRTE data acknowledged at once)."""
        from adb_shell import constants

        info = self._info
        info.read_timeout_s = max(timeout, 0.001)
        info.transport_timeout_s = max(timeout, 0.001)
        io = self._device._io_manager  # noqa: SLF001 — adb-shell's message I/O
        cmd, _a0, _a1, data = io.read([constants.OKAY, constants.WRTE, constants.CLSE], info,
                                      allow_zeros=True)
        if cmd == _WRTE:
            self._send_msg(constants.OKAY)
        return cmd, data

    def _send_msg(self, cmd: int, data: bytes = b"") -> None:
        from adb_shell.adb_message import AdbMessage

        msg = AdbMessage(cmd, self._info.local_id, self._info.remote_id, data)
        self._device._io_manager.send(msg, self._info)  # noqa: SLF001

    def _take(self, cmd: bytes, data: bytes) -> None:
        if cmd == _WRTE:
            if data:
                self._buffer.append(bytes(data))
        elif cmd == _OKAY:
            self._awaiting_okay = False
        elif cmd == _CLSE:
            self._closed_by_device()

    def _closed_by_device(self) -> None:
        if not self.closed:
            self.closed = True
            self._awaiting_okay = False
            from adb_shell import constants

            with contextlib.suppress(Exception):
                self._send_msg(constants.CLSE)

    # -- ByteStream ----------------------------------------------------------------------
    def send(self, data: bytes, timeout: float = 20.0) -> None:
        """Write ``data`` as WRTEs of at most the negotiated payload, each after the
        device's OKAY for the previous one."""
        from adb_shell import constants

        deadline = time.monotonic() + timeout
        view = memoryview(bytes(data))
        while view:
            while self._awaiting_okay and not self.closed:
                self._take(*self._read(self._left(deadline)))
            if self.closed:
                raise DeviceDisconnected(f"{self.service}: the device closed the stream")
            piece, view = view[: self._max], view[self._max :]
            self._send_msg(constants.WRTE, bytes(piece))
            self._awaiting_okay = True

    def recv(self, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        while not self._buffer and not self.closed:
            self._take(*self._read(self._left(deadline)))
        if self._buffer:
            return self._buffer.pop(0)
        return b""

    def _left(self, deadline: float) -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise CommandTimeout(f"{self.service}: nothing came from the device in time")
        return left

    def close(self) -> None:
        """Send our CLSE and wait (briefly) for the device's."""
        if self.closed:
            return
        from adb_shell import constants

        self.closed = True
        self._send_msg(constants.CLSE)
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            cmd, _ = self._read(deadline - time.monotonic())
            if cmd == _CLSE:
                return


class SocketStream:
    """A stream through the adb server: the socket after the service's ``OKAY``."""

    def __init__(self, sock: socket.socket, service: str) -> None:
        self._sock = sock
        self.service = service
        self.closed = False

    def send(self, data: bytes, timeout: float = 20.0) -> None:
        self._sock.settimeout(timeout)
        try:
            self._sock.sendall(data)
        except TimeoutError:
            raise CommandTimeout(f"{self.service}: the device did not take the data") from None
        except OSError as exc:
            raise DeviceDisconnected(f"{self.service}: the stream closed ({exc})") from None

    def recv(self, timeout: float) -> bytes:
        self._sock.settimeout(max(timeout, 0.001))
        try:
            data = self._sock.recv(256 * 1024)
        except TimeoutError:
            raise CommandTimeout(f"{self.service}: nothing came from the device in time") from None
        except OSError as exc:
            raise DeviceDisconnected(f"{self.service}: the stream closed ({exc})") from None
        if not data:
            self.closed = True
        return data

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
