"""The MCP client's lines on stdin, read in the event loop and each made answerable.

* **No blocking reader thread.** The SDK reads stdin in a worker thread that cannot be
  interrupted, so Ctrl-C on a terminal waited for a line that never came; :class:`ClientLines`
  waits for the descriptor in the event loop (``anyio.wait_readable``), so cancelling it —
  Ctrl-C — stops at once.
* **Every request gets an answer.** The SDK's JSON parser refuses a line holding an escaped
  lone surrogate (``"\\ud800"``, valid JSON), and the SDK answers no line it cannot parse:
  such a call was never answered. Such a line is rewritten with its strings made safe
  (:func:`baremobile.safetext.clean_data`: the one rule, U+FFFD); a ``tools/call`` is
  turned into a call of :data:`REFUSED`, which the server answers ``INVALID_ARGUMENT``
  naming where the surrogate was — as every other door refuses it — and anything else
  goes on cleaned (an id that held a surrogate is answered with the cleaned id: the
  client's own cannot be written).
* **The protocol's descriptor is the reader's alone**: while serving, fd 0 is the null
  device (as the SDK arranges for its own reader), so nothing else can consume the
  client's bytes.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from typing import Any

import anyio

from baremobile.safetext import clean_data, decode, problem

__all__ = ["REFUSED", "ClientLines", "claimed_stdin"]

#: the tool a ``tools/call`` holding a lone surrogate becomes (no real tool has a colon)
REFUSED = "baremobile:refused"
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


class ClientLines:
    """Lines of the MCP client from descriptor ``fd``, as ``str`` (see the module docs)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buf = b""

    def __aiter__(self) -> ClientLines:
        return self

    async def __anext__(self) -> str:
        while b"\n" not in self._buf:
            await anyio.wait_readable(self.fd)
            chunk = os.read(self.fd, 65536)
            if not chunk:
                if not self._buf:
                    raise StopAsyncIteration
                line, self._buf = self._buf, b""
                return answerable_line(line)
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return answerable_line(line) + "\n"


def answerable_line(line: bytes) -> str:
    """``line`` as text the SDK parses and answers (unchanged unless it holds an escaped
    lone surrogate)."""
    if _ESCAPED_SURROGATE.search(line) is None:
        return decode(line)
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return decode(line)  # not JSON: the SDK's to refuse
    why = problem(message, numbers=False)
    if why is None or not isinstance(message, dict):
        return decode(line)
    safe: dict[str, Any] = clean_data(message)
    if safe.get("method") == "tools/call" and "id" in safe:
        params = safe.get("params")
        tool = params.get("name") if isinstance(params, dict) else None
        safe["params"] = {"name": REFUSED, "arguments": {
            "why": why, "tool": tool if isinstance(tool, str) else None}}
    return json.dumps(safe, ensure_ascii=False)


@contextlib.contextmanager
def claimed_stdin() -> Iterator[int | None]:
    """A private descriptor of stdin for the protocol (None when there is no stdin); fd 0
    is the null device meanwhile, and stdin again afterwards."""
    try:
        private = os.dup(0)
    except OSError:
        yield None
        return
    os.set_inheritable(private, False)
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
    except OSError:
        try:
            yield private
        finally:
            os.close(private)
        return
    try:
        yield private
    finally:
        with contextlib.suppress(OSError):
            os.dup2(private, 0)
        os.close(private)
