"""A WebSocket client over a :class:`ByteStream`, on websockets' sans-I/O protocol layer.

No ``Origin`` header is sent (Chromium refuses a WebSocket from an origin it does not
allow with 403) and the URI's host is ``localhost`` (its ``Host`` check); messages have no
size limit (``max_size=None``: a DOM snapshot of a real page is several MB). Control frames
(pings, the closing handshake) are answered by the protocol layer; fragmented messages are
assembled here.
"""

from __future__ import annotations

import time
from typing import Any

from baremobile.errors import DeviceDisconnected, WebError
from baremobile.safetext import decode
from baremobile.web.stream import ByteStream

__all__ = ["MAX_MESSAGE", "WebSocket"]

#: the largest message read from a page's WebSocket (bytes)
MAX_MESSAGE = 128 * 1024 * 1024


class WebSocket:
    """One client WebSocket on ``stream`` (``path`` such as ``/devtools/page/<id>``)."""

    def __init__(self, stream: ByteStream, path: str, *, timeout: float = 10.0) -> None:
        from websockets.client import ClientProtocol
        from websockets.uri import parse_uri

        self.stream = stream
        self._proto: Any = ClientProtocol(parse_uri(f"ws://localhost{path}"),
                                           max_size=MAX_MESSAGE)
        self._frames: list[Any] = []
        self._parts: list[bytes] = []
        self._proto.send_request(self._proto.connect())
        self._flush()
        deadline = time.monotonic() + timeout
        while self._proto.handshake_exc is None and not self._open():
            self._pump(deadline)
        if self._proto.handshake_exc is not None:
            exc = self._proto.handshake_exc
            raise WebError(f"the page's WebSocket was refused: {exc}") from None

    def _open(self) -> bool:
        from websockets.protocol import State

        return bool(self._proto.state is State.OPEN)

    def _flush(self) -> None:
        data = b"".join(self._proto.data_to_send())
        if data:
            self.stream.send(data)

    def _pump(self, deadline: float) -> None:
        """Read once from the stream and collect what it completed."""
        chunk = self.stream.recv(max(0.0, deadline - time.monotonic()))
        if chunk:
            self._proto.receive_data(chunk)
        else:
            self._proto.receive_eof()
        self._flush()  # pongs, the closing handshake
        broken = self._proto.parser_exc
        if broken is not None and not isinstance(broken, EOFError):
            raise WebError(f"the page's WebSocket sent what it may not: "
                           f"{type(broken).__name__}: {str(broken)[:120]}")
        for event in self._proto.events_received():
            if hasattr(event, "opcode"):
                self._frames.append(event)
        if not chunk and not self._frames:
            raise DeviceDisconnected("the page's WebSocket closed",
                                     hint="the page or its app may have gone; snapshot again")

    def send_text(self, text: str) -> None:
        self._proto.send_text(text.encode("utf-8"))
        self._flush()

    def recv_text(self, timeout: float) -> str:
        """The next complete text message."""
        from websockets.frames import Opcode

        deadline = time.monotonic() + timeout
        while True:
            while self._frames:
                f = self._frames.pop(0)
                if f.opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
                    self._parts.append(bytes(f.data))
                    if f.fin:
                        data = b"".join(self._parts)
                        self._parts = []
                        return decode(data)
                elif f.opcode is Opcode.CLOSE:
                    raise DeviceDisconnected("the page closed its WebSocket",
                                             hint="the page may have closed; snapshot again")
            self._pump(deadline)

    def close(self) -> None:
        """Start the closing handshake and close the stream."""
        try:
            self._proto.send_close()
            self._flush()
        except Exception:  # noqa: BLE001 - closing a broken connection
            pass
        self.stream.close()
