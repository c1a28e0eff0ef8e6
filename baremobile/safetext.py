"""Text from outside made safe once, where it enters: one rule for every string baremobile
did not write itself.

**The rule.** A lone UTF-16 surrogate (a code point U+D800–U+DFFF that is not one half of
a pair) is the only thing a Python ``str`` can hold that UTF-8 — and so JSON on a socket,
MCP, a terminal, a file — cannot carry. Wherever text enters from a device, a page or a
client, such a code point becomes U+FFFD REPLACEMENT CHARACTER (``�``), which is exactly
what decoding the device's invalid UTF-8 bytes already gives; a high and a low surrogate
that stand side by side as two code points are joined into their character. Nothing else
changes: NULs, controls and non-characters are valid text (the snapshot grammar escapes
what could break a line; :func:`escape_text`, :func:`escape_desc`).

Where it applies (each boundary calls this module, nothing else):

* bytes from the device become text with :func:`decode` (shell output, dumps' messages,
  logs, APK strings, file contents shown as text, DevTools' HTTP and WebSocket bodies);
* JSON from a device (DevTools) is read with :func:`loads`, which also refuses nesting
  deeper than :data:`MAX_DEPTH` and ``NaN``/``Infinity``, and cleans every string;
* what a client sends (tool arguments, daemon requests) is checked with :func:`problem`:
  a lone surrogate there is the caller's mistake and answers ``INVALID_ARGUMENT`` /
  ``INVALID_REQUEST`` naming where it is, before anything runs.

Every writer (MCP stdio and HTTP, the daemon's NDJSON lines, the CLI, the pytest plugin,
the framework adapters) still checks what it writes with :func:`problem` and answers a
typed error instead of dying, should a string ever slip past its boundary.

No I/O, standard library only (the CLI's fast path imports it).
"""

from __future__ import annotations

import json
import math
import re

TYPE_CHECKING = False  # no typing at run time: the CLI's fast path
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MAX_DEPTH", "REPLACEMENT", "UntrustedJSON", "clean", "clean_data", "decode",
           "escape_desc", "escape_text", "loads", "problem"]

#: what a lone surrogate becomes (also what a UTF-8 decoder puts for invalid bytes)
REPLACEMENT = "\ufffd"
#: how deep JSON from outside (a device's, a client's) may nest: MCP's serializer gives up
#: near 250 levels, and no tool argument or DevTools answer needs a tenth of this
MAX_DEPTH = 100

_SURROGATE = re.compile("[\ud800-\udfff]")
#: a JSON text that may decode to a lone surrogate (an escaped one; raw ones cannot come
#: out of bytes decoded with :func:`decode`)
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def clean(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (pairs joined); the same
    object when there is none (the usual case costs one scan, none for ASCII)."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def decode(data: bytes | bytearray | memoryview, encoding: str = "utf-8") -> str:
    """Bytes from outside as text: invalid sequences (overlong forms, encoded surrogates,
    truncated characters) become U+FFFD; never raises."""
    try:
        text = bytes(data).decode(encoding, "replace")
    except LookupError:  # an encoding name from outside that Python does not know
        text = bytes(data).decode("utf-8", "replace")
    return text if encoding.replace("-", "").lower() in ("utf8", "ascii") else clean(text)


def clean_data(value: Any) -> Any:
    """JSON data with every string (keys too) :func:`clean` and every non-finite float
    ``None`` (JSON has none); iterative, so any depth is fine. Containers are copied."""
    if isinstance(value, str):
        return clean(value)
    if not isinstance(value, (dict, list, tuple)):
        return _leaf(value)
    root: list[Any] = [None]
    # (source container, the container its copy goes into, the key there)
    stack: list[tuple[Any, Any, Any]] = [(value, root, 0)]
    while stack:
        src, parent, key = stack.pop()
        if isinstance(src, dict):
            copy: Any = {}
            for k, v in src.items():
                k = clean(k) if isinstance(k, str) else k
                copy[k] = _leaf(v)
                if isinstance(v, (dict, list, tuple)):
                    stack.append((v, copy, k))
        else:
            copy = [_leaf(v) for v in src]
            for i, v in enumerate(src):
                if isinstance(v, (dict, list, tuple)):
                    stack.append((v, copy, i))
        parent[key] = copy
    return root[0]


def _leaf(v: Any) -> Any:
    if isinstance(v, str):
        return clean(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def problem(value: Any, *, max_depth: int = MAX_DEPTH, where: str = "",
            numbers: bool = True) -> str | None:
    """What keeps ``value`` (JSON-like data) from being encoded as JSON in UTF-8, or None:
    ``"text at 'steps[0].args.text' holds a lone surrogate (U+D800 at index 3)"``,
    ``"… nests deeper than 100 levels"``, ``"… is a non-finite number"`` (unless
    ``numbers=False``: a reader that checks numbers itself), ``"… is a Python set, not
    JSON"``. Walks iteratively, so any depth is answered."""
    stack: list[tuple[Any, str, int]] = [(value, where, 0)]
    while stack:
        v, at, depth = stack.pop()
        if isinstance(v, str):
            if not v.isascii():
                m = _SURROGATE.search(v)
                if m is not None:
                    return (f"the text {_at(at)}holds a lone surrogate (U+{ord(m.group()):04X} "
                            f"at index {m.start()}), which no UTF-8 text can carry")
        elif v is None or isinstance(v, (bool, int)):
            continue
        elif isinstance(v, float):
            if numbers and not math.isfinite(v):
                return f"the number {_at(at)}is {v!r}, which JSON cannot carry"
        elif isinstance(v, (dict, list, tuple)):
            if depth >= max_depth:
                return f"the data {_at(at)}nests deeper than {max_depth} levels"
            if isinstance(v, dict):
                for k, item in v.items():
                    if not isinstance(k, str):
                        return f"the key {k!r} {_at(at)}is not a string"
                    key_problem = problem(k, where=f"{at}.{k!r}" if at else repr(k))
                    if key_problem is not None:
                        return key_problem.replace("the text", "the name", 1)
                    stack.append((item, f"{at}.{k}" if at else k, depth + 1))
            else:
                stack.extend((item, f"{at}[{i}]", depth + 1) for i, item in enumerate(v))
        else:
            return f"the value {_at(at)}is a Python {type(v).__name__}, not JSON data"
    return None


def _at(where: str) -> str:
    if len(where) > 80:
        where = "…" + where[-79:]
    return f"at {where!r} " if where else ""


class UntrustedJSON(ValueError):
    """JSON from outside that cannot be read (not JSON, ``NaN``/``Infinity``, nested beyond
    what the decoder allows)."""


def _no_constant(name: str) -> Any:
    raise UntrustedJSON(f"{name} is not JSON")


def _finite(text: str) -> float | None:
    value = float(text)
    return value if math.isfinite(value) else None  # 1e999: beyond a float


def loads(text: str | bytes | bytearray) -> Any:
    """JSON from a device or a client, made safe: bytes decoded with :func:`decode`, every
    string :func:`clean` (a number beyond a float's range becomes ``None``); raises
    :class:`UntrustedJSON` (a ValueError) for what is not JSON, ``NaN``/``Infinity``, a
    number too long to read, or nesting too deep for the decoder (~1,000 levels).

    How deep the data may be is the reader's business (:func:`problem` says it for answers
    and arguments): the cleaning walk is iterative and runs only when the text holds an
    escaped surrogate."""
    text = clean(text) if isinstance(text, str) else decode(text)
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except RecursionError:
        raise UntrustedJSON("it nests too deeply") from None
    except UntrustedJSON:
        raise
    except ValueError as exc:
        why = str(exc) or type(exc).__name__
        raise UntrustedJSON(why if len(why) <= 120 else why[:117] + "...") from None
    if _ESCAPED_SURROGATE.search(text) is not None:
        value = clean_data(value)
    return value


# -- one line is one node: the snapshot grammar's escaping --------------------------------

# Characters that must not appear raw on a line: C0 controls, DEL and C1 controls, and the
# Unicode line/paragraph separators (str.splitlines() breaks on several of these).
_CTRL = "\x00-\x1f\x7f-\x9f\u2028\u2029"
_TEXT_SPECIAL = re.compile(f'[{_CTRL}"\\\\]')
_DESC_SPECIAL = re.compile(f"[{_CTRL})\\\\]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\", '"': '\\"', ")": "\\)"}


def _escape_char(m: re.Match[str]) -> str:
    c = m.group()
    named = _NAMED.get(c)
    if named is not None:
        return named
    code = ord(c)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_text(s: str) -> str:
    """Escape ``s`` for a double-quoted text slot (the snapshot grammar's ``"text"``)."""
    # str.isprintable() is False for every character class we escape (and a few more).
    if s.isprintable() and '"' not in s and "\\" not in s:
        return s
    return _TEXT_SPECIAL.sub(_escape_char, s)


def escape_desc(s: str) -> str:
    """Escape ``s`` for a parenthesized desc slot (the snapshot grammar's ``(desc)``)."""
    if s.isprintable() and ")" not in s and "\\" not in s:
        return s
    return _DESC_SPECIAL.sub(_escape_char, s)
