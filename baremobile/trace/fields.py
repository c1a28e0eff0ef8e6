"""A trace's records as its readers may trust them: every field of ``trace.json`` and of each
step checked for its type and bounded in size, whatever the file held.

A trace is data from outside — a file someone sent, a directory a crash left, something
crafted. :func:`meta` and :func:`step` turn what was read (any JSON) into records whose
fields have the types ``docs/traces.md`` gives them: a field of the wrong type is dropped
(``None``, ``""``, ``[]``, ``False``), strings are cut at a length, containers at a size and
nesting at :data:`MAX_DEPTH`, numbers must be finite, and a stored file's name must be one a
recording writes (:data:`BLOB_NAME`: ``dumps/<hex>.xml``, ``shots/<hex>.png``) — never a path
of this computer. The summary, the graph, the scenario and the viewer read only these
records, so no field can make them raise or reach outside the trace.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = ["BLOB_NAME", "MAX_DEPTH", "MOVES", "blob", "data", "meta", "number", "step", "text",
           "whole"]

#: the names a recording gives its stored files (nothing else is ever read from a trace)
BLOB_NAME = re.compile(r"(?:dumps/[0-9a-f]{8,64}\.xml|shots/[0-9a-f]{8,64}\.png)")
#: how deep a recorded value (arguments, results) is kept; deeper is ``"…"``
MAX_DEPTH = 16
#: the longest string kept (snapshot texts are the long ones)
MAX_TEXT = 400_000
#: the most items of a list or mapping kept
MAX_ITEMS = 2_000
#: what a step may have sent to the screen (``Step.sent``; ``docs/traces.md``)
MOVES = ("tap", "long_press", "double_tap", "swipe", "drag", "pinch", "gesture")
_BOUND = 1e9  # coordinates, sizes, refs and counts beyond this are not a phone's


def text(v: Any, limit: int = MAX_TEXT) -> str:
    """``v`` as a string: a string cut at ``limit``, a number or boolean written out,
    anything else ``""``."""
    if isinstance(v, str):
        return v if len(v) <= limit else v[:limit - 1] + "…"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v) if abs(v) < 10**18 else ""
    if isinstance(v, float) and math.isfinite(v):
        return repr(v)
    return ""


def opt_text(v: Any, limit: int = MAX_TEXT) -> str | None:
    """A string field that may be absent (None stays None)."""
    return None if v is None else text(v, limit)


def number(v: Any) -> float | None:
    """A finite number (not a boolean), else None."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) and abs(f) <= 1e15 else None


def whole(v: Any) -> int | None:
    """A whole number within a phone's range (an integral float counts), else None."""
    f = number(v)
    if f is None or f != int(f) or abs(f) > _BOUND:
        return None
    return int(f)


def blob(v: Any) -> str | None:
    """A stored file's name as a recording writes it, else None (``/etc/passwd``,
    ``../x``, a number …)."""
    return v if isinstance(v, str) and BLOB_NAME.fullmatch(v) else None


def _box(v: Any, n: int) -> list[int] | None:
    if not isinstance(v, list) or len(v) != n:
        return None
    out = [whole(x) for x in v]
    got = [x for x in out if x is not None]
    return got if len(got) == n else None


def data(v: Any, depth: int = 0) -> Any:
    """Any JSON value, bounded: strings cut, lists and mappings at :data:`MAX_ITEMS`,
    nesting at :data:`MAX_DEPTH` (deeper is ``"…"``), non-finite numbers None."""
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v if abs(v) < 2**63 else None
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, str):
        return text(v)
    if depth >= MAX_DEPTH:
        return "…"
    if isinstance(v, dict):
        return {text(k, 200): data(x, depth + 1)
                for k, x in list(v.items())[:MAX_ITEMS]}
    if isinstance(v, (list, tuple)):
        return [data(x, depth + 1) for x in list(v)[:MAX_ITEMS]]
    return text(v)


def _mapping(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def _list(v: Any, limit: int = MAX_ITEMS) -> list[Any]:
    return v[:limit] if isinstance(v, list) else []


def _target(v: Any) -> dict[str, Any] | None:
    if not isinstance(v, dict):
        return None
    ref = whole(v.get("ref"))
    return {"ref": ref if ref is not None and ref > 0 else None,
            **{k: text(v.get(k), 2_000) for k in ("role", "label", "text", "desc", "id", "cls",
                                                  "package")},
            "bounds": _box(v.get("bounds"), 4), "raw_bounds": _box(v.get("raw_bounds"), 4),
            "center": _box(v.get("center"), 2),
            **{k: v.get(k) is True for k in ("password", "editable", "focused")}}


def _path(v: Any) -> list[list[float]]:
    out: list[list[float]] = []
    for p in _list(v, 1_000):
        if isinstance(p, list) and len(p) == 3:
            t, x, y = (number(c) for c in p)
            if t is not None and x is not None and y is not None:
                out.append([t, x, y])
    return out


def move(v: Any) -> dict[str, Any] | None:
    """One thing a step sent to the screen (``{"kind", "points", "ms", "scale", "paths",
    "screen"}``), or None when ``v`` is not one."""
    if not isinstance(v, dict) or v.get("kind") not in MOVES:
        return None
    kind = v["kind"]
    points = [p for p in (_box(p, 2) for p in _list(v.get("points"), 4)) if p is not None]
    paths = [p for p in (_path(f) for f in _list(v.get("paths"), 10)) if p]
    need = {"swipe": 2, "drag": 2, "gesture": 0}.get(kind, 1)
    if len(points) < need or (kind == "gesture" and not paths):
        return None
    return {"kind": kind, "points": points[:max(need, 1)] if kind != "gesture" else [],
            "ms": number(v.get("ms")), "scale": number(v.get("scale")),
            "paths": paths if kind == "gesture" else None, "screen": blob(v.get("screen"))}


def _error(v: Any) -> dict[str, Any] | None:
    if not isinstance(v, dict):
        return None if v is None else {"type": "?", "code": None, "message": text(v, 4_000),
                                       "hint": None}
    return {"type": text(v.get("type"), 200) or "?", "code": opt_text(v.get("code"), 200),
            "message": text(v.get("message"), 8_000), "hint": opt_text(v.get("hint"), 4_000)}


def _result(v: Any) -> Any:
    if isinstance(v, dict) and v.get("kind") == "snapshot":
        return {"kind": "snapshot", "text": text(v.get("text")),
                "full_text": opt_text(v.get("full_text")), "is_diff": v.get("is_diff") is True,
                "number": whole(v.get("number")), "package": text(v.get("package"), 400),
                "size": _box(v.get("size"), 2)}
    return data(v)


def _screenshot(v: Any) -> dict[str, Any] | None:
    if not isinstance(v, dict):
        return None
    scaled = number(v.get("scaled"))
    return {"file": blob(v.get("file")), "when": text(v.get("when"), 20),
            "size": _box(v.get("size"), 2), "scaled": scaled if scaled and scaled > 0 else 1.0,
            "skipped": opt_text(v.get("skipped"), 1_000)}


def step(raw: Any, index: int) -> dict[str, Any]:
    """The step record ``raw`` (the ``index``-th read, from 1) with every field checked."""
    r = _mapping(raw)
    n = whole(r.get("n"))
    counts = _list(r.get("sent_before"))
    kept = [(name, max(0, whole(counts[i]) or 0) if i < len(counts) else 0)
            for i, name in enumerate(blob(x) for x in _list(r.get("dumps")))]
    dumps = [name for name, _ in kept if name is not None]
    sent_before = [c for name, c in kept if name is not None]
    args = r.get("args")
    tool = r.get("tool")
    seconds = number(r.get("seconds"))
    return {
        "n": n if n is not None and n >= 0 else index,
        "door": text(r.get("door"), 100), "verb": text(r.get("verb"), 100) or "?",
        "args": data(args) if isinstance(args, dict) else {},
        "tool": {"name": text(tool.get("name"), 200), "arguments": data(tool.get("arguments"))}
        if isinstance(tool, dict) else None,
        "acts": r.get("acts") is True, "started": number(r.get("started")),
        "seconds": seconds if seconds is not None and seconds >= 0 else 0.0,
        "target": _target(r.get("target")),
        "before": blob(r.get("before")), "on": blob(r.get("on")), "dumps": dumps,
        "sent_before": sent_before, "screen": blob(r.get("screen")),
        "sent": [m for m in (move(x) for x in _list(r.get("sent"))) if m is not None],
        "result": _result(r.get("result")), "error": _error(r.get("error")),
        "screenshot": _screenshot(r.get("screenshot")),
    }


def meta(raw: Any) -> dict[str, Any]:
    """``trace.json`` with every field checked."""
    m = _mapping(raw)
    outcome = m.get("outcome")
    return {
        "format": whole(m.get("format")) or 0, "baremobile": text(m.get("baremobile"), 100),
        "title": text(m.get("title"), 1_000), "door": text(m.get("door"), 100),
        "serial": text(m.get("serial"), 400), "transport": text(m.get("transport"), 100),
        "api_level": whole(m.get("api_level")), "started": number(m.get("started")),
        "ended": number(m.get("ended")), "steps": whole(m.get("steps")),
        "start_dump": blob(m.get("start_dump")), "end_dump": blob(m.get("end_dump")),
        "options": data(m.get("options")) if isinstance(m.get("options"), dict) else {},
        "outcome": _outcome(outcome) if isinstance(outcome, dict) else None,
        "logcat": m.get("logcat") is True,
    }


def _outcome(o: dict[str, Any]) -> dict[str, Any]:
    """What a test runner put in the trace: ``test``, ``failed``, ``error`` (the assertion's
    message), ``file``, ``line`` and ``source`` (the test's lines around the failure:
    ``[[number, text], …]``, the failing one ``line``); anything else kept as data."""
    source = []
    for item in _list(o.get("source"), 200):
        if isinstance(item, list) and len(item) == 2 and whole(item[0]) is not None:
            source.append([whole(item[0]), text(item[1], 2_000)])
    out = {str(k): data(v) for k, v in list(o.items())[:50]
           if k not in ("test", "failed", "error", "file", "line", "source")}
    return {**out, "test": text(o.get("test"), 2_000), "failed": o.get("failed") is True,
            "error": text(o.get("error"), 20_000), "file": text(o.get("file"), 2_000),
            "line": whole(o.get("line")), "source": source}
