"""A byte stream to a DevTools socket: the interface the web layers speak over.

The device's side is an ADB stream (``localabstract:<socket>`` opened on the device's own
connection, :meth:`~baremobile.transport.Transport.open_stream`); anything with the three
methods of :class:`~baremobile.transport.base.ByteStream` works, so the HTTP, WebSocket and
CDP layers also speak to a DevTools port over TCP (:class:`TcpStream`: Chromium's own port,
or what ``adb forward tcp:9222 localabstract:chrome_devtools_remote`` gives).
"""

from __future__ import annotations

import socket

from baremobile.errors import DeviceDisconnected
from baremobile.transport.base import ByteStream
from baremobile.transport.streams import SocketStream

__all__ = ["ByteStream", "TcpStream"]


class TcpStream(SocketStream):
    """A :class:`ByteStream` to a DevTools port over TCP (closed with the stream)."""

    def __init__(self, host: str, port: int, *, timeout: float = 10.0) -> None:
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise DeviceDisconnected(
                f"cannot reach the DevTools socket at {host}:{port}: {exc}",
                hint="check the port (adb forward --list) and that the page is open",
            ) from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().__init__(sock, f"tcp:{host}:{port}")

    def close(self) -> None:
        super().close()
        self._sock.close()
