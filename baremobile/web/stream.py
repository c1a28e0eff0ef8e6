"""A byte stream to a DevTools socket: the interface the web layers speak over.

The device's side is an ADB stream (``localabstract:<socket>`` opened on the device's own
connection); anything with these three methods works, so the HTTP, WebSocket and CDP layers
are tested against Chromium's own TCP DevTools port too (:class:`TcpStream`, also what a
user with ``adb forward tcp:9222 localabstract:chrome_devtools_remote`` gets).
"""

from __future__ import annotations

import contextlib
import socket
from typing import Protocol

from baremobile.errors import CommandTimeout, DeviceDisconnected

__all__ = ["ByteStream", "TcpStream"]


class ByteStream(Protocol):
    """Bytes both ways to one socket on the device."""

    def send(self, data: bytes) -> None:
        """Write all of ``data``."""

    def recv(self, timeout: float) -> bytes:
        """The next bytes that arrive (``b""`` once the other side closed); raises
        :class:`~baremobile.errors.CommandTimeout` when nothing came within ``timeout``."""

    def close(self) -> None:
        """Close the stream (idempotent)."""


class TcpStream:
    """A :class:`ByteStream` over TCP (a DevTools port on this machine)."""

    def __init__(self, host: str, port: int, *, timeout: float = 10.0) -> None:
        try:
            self._sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise DeviceDisconnected(
                f"cannot reach the DevTools socket at {host}:{port}: {exc}",
                hint="check the port (adb forward --list) and that the page is open",
            ) from None
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.closed = False

    def send(self, data: bytes) -> None:
        try:
            self._sock.sendall(data)
        except OSError as exc:
            raise DeviceDisconnected(f"the DevTools socket closed: {exc}") from None

    def recv(self, timeout: float) -> bytes:
        self._sock.settimeout(max(timeout, 0.001))
        try:
            return self._sock.recv(256 * 1024)
        except TimeoutError:
            raise CommandTimeout(
                f"the DevTools socket sent nothing for {timeout:g} s",
                hint="the page may be busy (a long script); try again",
            ) from None
        except OSError as exc:
            raise DeviceDisconnected(f"the DevTools socket closed: {exc}") from None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self._sock.close()
