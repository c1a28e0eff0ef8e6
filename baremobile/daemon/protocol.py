"""The daemon's wire format, sans I/O: newline-delimited JSON, one response per request.

The envelope is AutoMobile's (``shared/reference/automobile-daemon-socket-api.md``)::

    request   {"id": "r1", "type": "daemon_request", "method": "daemon/ping",
               "params": {}, "timeoutMs": 30000}
    response  {"id": "r1", "type": "mcp_response", "success": true, "result": {...}}
    error     {"id": "r1", "type": "mcp_response", "success": false,
               "error": "message", "code": "UNKNOWN_METHOD", "hint": "…",
               "category": "INVALID_ARGUMENT"}

``error`` stays a string as in AutoMobile's document; our ``code``, ``hint`` and
``category`` travel beside it. ``type`` and ``params`` may be omitted (``params`` then is
``{}``); ``id`` is a string or a number (a request without one still gets its answer, with
``id`` null). Between a request and its response the daemon may send progress lines
``{"id": "r1", "type": "progress", "progress": {"done": n, "total": m}}`` — only when the
request asked for them (``params.progress: true``); they are notifications, not responses.

Nothing here touches a socket: :class:`LineBuffer` turns received bytes into lines (and
says when one is too long), :func:`parse_request` checks one line, :func:`success` /
:func:`failure` build responses and :func:`encode` makes the bytes. The server and the
client both use it; it imports only :mod:`json` and :mod:`baremobile.safetext`.

What cannot be answered is refused: an id that is not a string of valid text (≤ 200
characters) or a number, and any request holding a lone surrogate or nesting deeper than
:data:`~baremobile.safetext.MAX_DEPTH` levels (``INVALID_REQUEST``, with the id when it
could be read) — so no request's answer can fail to encode.
"""

from __future__ import annotations

import json
import math

from baremobile.safetext import MAX_DEPTH, problem
from baremobile.timeouts import MAX_REQUEST_S

TYPE_CHECKING = False  # no typing, no dataclasses at run time: the CLI's fast path
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "DEFAULT_TIMEOUT_MS",
    "deadline",
    "MAX_LINE",
    "MAX_TIMEOUT_MS",
    "REQUEST_TYPES",
    "RESPONSE_TYPE",
    "PROGRESS_TYPE",
    "DEADLINE_TYPE",
    "LineBuffer",
    "Oversized",
    "ProtocolFault",
    "Request",
    "encode",
    "failure",
    "parse_request",
    "parse_response",
    "progress",
    "success",
]

#: the longest request line the daemon reads (bytes, newline excluded); longer ones are
#: answered LINE_TOO_LONG and skipped up to their newline
MAX_LINE = 4 * 1024 * 1024
#: a request without ``timeoutMs`` may run this long
DEFAULT_TIMEOUT_MS = 30_000
#: the longest ``timeoutMs`` accepted (one hour)
MAX_TIMEOUT_MS = int(MAX_REQUEST_S * 1000)  # baremobile.timeouts: the one bound
REQUEST_TYPES = ("mcp_request", "daemon_request")
RESPONSE_TYPE = "mcp_response"
PROGRESS_TYPE = "progress"
#: the deadline a request was given (its ``timeoutMs`` raised to the tool's floor), sent
#: first to a client that asked (``params.announceDeadline``): it waits that long, no more
DEADLINE_TYPE = "deadline"


class ProtocolFault(Exception):
    """A line that is not a valid request (or response): code, message, hint, and the
    request id when one could be read."""

    def __init__(self, code: str, message: str, hint: str = "", request_id: Any = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.hint = hint
        self.request_id = request_id


class Oversized:
    """Stands for a line longer than the limit (its bytes were dropped)."""

    __slots__ = ("length",)

    def __init__(self, length: int) -> None:
        self.length = length  #: bytes seen before giving up (at least the limit + 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Oversized) and other.length == self.length

    def __hash__(self) -> int:
        return hash(("Oversized", self.length))

    def __repr__(self) -> str:
        return f"Oversized({self.length})"


class LineBuffer:
    """Bytes in, complete lines out (without the ``\\n``; a ``\\r`` before it is dropped).

    A line longer than ``limit`` is not kept: :meth:`feed` yields one :class:`Oversized`
    for it and discards its bytes up to the next newline, so a client that sends garbage
    costs bounded memory and still gets one answer per line.
    """

    def __init__(self, limit: int = MAX_LINE) -> None:
        self.limit = limit
        self._buf = bytearray()
        self._skipping = 0  # >0: inside an oversized line, this many bytes seen so far

    def feed(self, data: bytes) -> list[bytes | Oversized]:
        out: list[bytes | Oversized] = []
        start = 0
        while start < len(data):
            nl = data.find(b"\n", start)
            end = len(data) if nl < 0 else nl
            piece = data[start:end]
            if self._skipping:
                self._skipping += len(piece)
            elif len(self._buf) + len(piece) > self.limit:
                self._skipping = len(self._buf) + len(piece)
                self._buf.clear()
            else:
                self._buf += piece
            if nl < 0:
                break
            if self._skipping:
                out.append(Oversized(self._skipping))
                self._skipping = 0
            else:
                line = bytes(self._buf)
                self._buf.clear()
                out.append(line[:-1] if line.endswith(b"\r") else line)
            start = nl + 1
        return out

    @property
    def pending(self) -> int:
        """Bytes of an unfinished line held (0 while skipping an oversized one)."""
        return len(self._buf)


class Request:
    """One checked request: ``id``, ``method``, ``params``, ``type``, ``timeout_ms``."""

    __slots__ = ("id", "method", "params", "type", "timeout_ms")

    def __init__(self, id: Any, method: str, params: dict[str, Any] | None = None,
                 type: str = "daemon_request", timeout_ms: float | None = None) -> None:
        self.id = id
        self.method = method
        self.params = params if params is not None else {}
        self.type = type
        self.timeout_ms = timeout_ms

    def __repr__(self) -> str:
        return f"Request(id={self.id!r}, method={self.method!r})"


def _valid_id(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, str):  # and one the answer can carry back: no lone surrogate
        return len(value) <= 200 and problem(value) is None
    if isinstance(value, int):
        return abs(value) < 2 ** 63
    return isinstance(value, float) and math.isfinite(value)


def _loads(line: bytes | str) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, bad UTF-8, too deep
        raise ProtocolFault("PARSE_ERROR", f"the line is not JSON ({_why(exc)})",
                            "send one JSON object per line, e.g. "
                            '{"id": "1", "method": "daemon/ping", "params": {}}') from None


def _why(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."


def parse_request(line: bytes | str) -> Request:
    """Check one line; raises :class:`ProtocolFault` (with the id when it could be read)."""
    msg = _loads(line)
    if not isinstance(msg, dict):
        raise ProtocolFault("INVALID_REQUEST",
                            f"a request is a JSON object, not {type(msg).__name__}",
                            'e.g. {"id": "1", "method": "daemon/ping", "params": {}}')
    rid = msg.get("id")
    if rid is not None and not _valid_id(rid):
        raise ProtocolFault("INVALID_REQUEST", "id must be a string (≤ 200 characters of "
                            "valid text) or a number (a 64-bit integer or a finite float)",
                            "use a string such as \"1\"")
    # every answer must be encodable: refuse text that could not be echoed back (NaN and
    # Infinity are each method's to refuse: a tool answers INVALID_ARGUMENT naming them)
    why = problem(msg, numbers=False)
    if why is not None:
        raise ProtocolFault("INVALID_REQUEST", f"the request cannot be served: {why}",
                            "send valid UTF-8 text (no lone surrogates) and data nested at "
                            f"most {MAX_DEPTH} levels", rid)
    method = msg.get("method")
    if not isinstance(method, str) or not method:
        raise ProtocolFault("INVALID_REQUEST", "the request has no method (a string)",
                            "e.g. \"method\": \"daemon/ping\"; daemon/methods lists them",
                            rid)
    kind = msg.get("type", "daemon_request")
    if kind not in REQUEST_TYPES:
        raise ProtocolFault("INVALID_REQUEST", f"type must be one of {', '.join(REQUEST_TYPES)}"
                            f", not {_short(kind)}", "or leave type out", rid)
    params = msg.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise ProtocolFault("INVALID_REQUEST", f"params must be an object, not {_short(params)}",
                            "pass {} when the method needs none", rid)
    timeout = msg.get("timeoutMs")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, (int, float))
        or not math.isfinite(timeout) or not 0 < timeout <= MAX_TIMEOUT_MS
    ):
        raise ProtocolFault("INVALID_REQUEST",
                            f"timeoutMs must be a number of milliseconds in (0, "
                            f"{MAX_TIMEOUT_MS}], not {_short(timeout)}",
                            f"or leave it out (default {DEFAULT_TIMEOUT_MS} ms)", rid)
    return Request(rid, method, params, kind, None if timeout is None else float(timeout))


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 60 else text[:57] + "..."


def success(request_id: Any, result: Any) -> dict[str, Any]:
    """The response to a request that succeeded."""
    return {"id": request_id, "type": RESPONSE_TYPE, "success": True, "result": result}


def failure(request_id: Any, code: str, message: str, hint: str = "",
            category: str | None = None, **extra: Any) -> dict[str, Any]:
    """The response to a request that failed."""
    out = {"id": request_id, "type": RESPONSE_TYPE, "success": False, "error": message,
           "code": code, "hint": hint, "category": category or code}
    out.update(extra)
    return out


def progress(request_id: Any, done: int, total: int | None) -> dict[str, Any]:
    """A progress notification for a request in flight (not a response)."""
    return {"id": request_id, "type": PROGRESS_TYPE, "progress": {"done": done, "total": total}}


def deadline(request_id: Any, ms: float) -> dict[str, Any]:
    """When a request in flight will be answered at the latest (not a response)."""
    return {"id": request_id, "type": DEADLINE_TYPE, "deadlineMs": ms}


def encode(message: dict[str, Any]) -> bytes:
    """One message as a line: compact JSON, non-ASCII kept as UTF-8, a final newline."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False).encode("utf-8") + b"\n"


def parse_response(line: bytes | str) -> dict[str, Any]:
    """Check a line the daemon sent (a response or a progress notification)."""
    msg = _loads(line)
    if not isinstance(msg, dict) or msg.get("type") not in (RESPONSE_TYPE, PROGRESS_TYPE,
                                                            DEADLINE_TYPE):
        raise ProtocolFault("PROTOCOL_ERROR", "the daemon sent a line that is not a response",
                            "stop the daemon (baremobile daemon stop); the next command "
                            "starts a fresh one")
    if msg["type"] == RESPONSE_TYPE and not isinstance(msg.get("success"), bool):
        raise ProtocolFault("PROTOCOL_ERROR", "the daemon's response has no success flag")
    return msg
