"""A small Chrome DevTools Protocol client over one page's :class:`WebSocket`.

:meth:`Cdp.call` sends a command and returns its result; events that arrive meanwhile are
kept (the last :data:`MAX_EVENTS`) in :attr:`Cdp.events`. Not thread-safe: a Page holds it
under its own lock.
"""

from __future__ import annotations

import itertools
import json
import time
from collections import deque
from typing import Any

from baremobile.errors import CommandTimeout, WebError
from baremobile.safetext import loads
from baremobile.web.ws import WebSocket

__all__ = ["Cdp", "CdpError", "MAX_EVENTS"]

MAX_EVENTS = 256


class CdpError(WebError):
    """The page answered a command with an error (``code``: the protocol's error code)."""

    def __init__(self, method: str, error: dict[str, Any]) -> None:
        self.cdp_code = error.get("code")
        super().__init__(f"{method}: {error.get('message', 'error')}"
                         + (f" ({error['data']})" if error.get("data") else ""))


class Cdp:
    """DevTools commands on one page."""

    def __init__(self, ws: WebSocket, *, timeout: float = 10.0) -> None:
        self.ws = ws
        self.timeout = timeout
        self._ids = itertools.count(1)
        self.events: deque[dict[str, Any]] = deque(maxlen=MAX_EVENTS)

    def call(self, method: str, params: dict[str, Any] | None = None, *,
             timeout: float | None = None) -> dict[str, Any]:
        """Run ``method``; its ``result`` (an error answer raises :class:`CdpError`)."""
        mid = next(self._ids)
        self.ws.send_text(json.dumps({"id": mid, "method": method, "params": params or {}}))
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CommandTimeout(f"{method}: the page did not answer within {limit:g} s",
                                     hint="the page may be busy; take a new snapshot")
            try:
                msg = loads(self.ws.recv_text(left))
            except ValueError as exc:
                raise WebError(f"{method}: the page sent something that is not JSON "
                               f"({exc})") from None
            if not isinstance(msg, dict):
                raise WebError(f"{method}: the page sent JSON that is not a message")
            if msg.get("id") == mid:
                if "error" in msg:
                    error = msg["error"]
                    raise CdpError(method, error if isinstance(error, dict) else {})
                result = msg.get("result", {})
                if not isinstance(result, dict):
                    raise WebError(f"{method}: the page answered something that is not a "
                                   "result")
                return result
            if "method" in msg:
                self.events.append(msg)

    def close(self) -> None:
        self.ws.close()
