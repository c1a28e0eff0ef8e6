"""DevTools' HTTP endpoints (``/json/list``, ``/json/version``) over a :class:`ByteStream`,
spoken with h11 (sans-I/O HTTP/1.1).

One request per stream. The request carries ``Host: localhost``: Chromium answers 500 to a
``Host`` that is neither an IP address nor ``localhost`` (its DNS-rebinding guard).
"""

from __future__ import annotations

import time
from typing import Any

from baremobile.errors import WebError
from baremobile.safetext import decode, loads
from baremobile.web.stream import ByteStream

__all__ = ["get_json", "MAX_BODY"]

#: Largest response body accepted (``/json/protocol`` is the big one, ~1 MB).
MAX_BODY = 16 * 1024 * 1024


def get_json(stream: ByteStream, path: str, *, timeout: float = 10.0,
             max_body: int = MAX_BODY) -> Any:
    """``GET path`` on the stream; the decoded JSON body (non-200 raises :class:`WebError`)."""
    import h11

    conn = h11.Connection(h11.CLIENT, max_incomplete_event_size=64 * 1024)
    headers = [("Host", "localhost"), ("Accept", "application/json"), ("Connection", "close")]
    stream.send(conn.send(h11.Request(method="GET", target=path, headers=headers))
                + conn.send(h11.EndOfMessage()))
    deadline = time.monotonic() + timeout
    status = 0
    body = bytearray()
    while True:
        try:
            event = conn.next_event()
        except h11.RemoteProtocolError as exc:
            raise WebError(f"GET {path}: the DevTools socket spoke broken HTTP ({exc})") from None
        if event is h11.NEED_DATA:
            chunk = stream.recv(max(0.0, deadline - time.monotonic()))
            conn.receive_data(chunk)
            continue
        if isinstance(event, h11.Response):
            status = event.status_code
        elif isinstance(event, h11.Data):
            body += event.data
            if len(body) > max_body:
                raise WebError(f"GET {path}: the answer is over {max_body} bytes; refused")
        elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
            break
    text = decode(body)
    if status != 200:
        raise WebError(f"GET {path} answered {status}: {text.strip()[:200]}")
    try:
        return loads(text)
    except ValueError as exc:
        raise WebError(f"GET {path}: the answer is not JSON ({exc}): {text[:120]!r}") from None
