"""A trace as one self-contained HTML page (``baremobile trace show TRACE``), laid out as
Playwright's trace viewer is.

* a **filmstrip** of the screenshots along the session's time, and an **action list** —
  each step's call, when it started and how long it took, failures in red;
* per step, **before and after**: the screenshot with the element it acted on outlined and
  the points it sent marked (a tap's point, a swipe's path, a pinch's centre, a gesture's
  fingers), and the snapshot text (before: the one its ref came from, the ref's line
  marked; after: the screen it led to), with the diff between them;
* per step, its **call** (arguments, the element, what it sent, door, tool, timings), its
  **error** and the **device log** lines logged while it ran;
* the **failing step** marked and shown first — a baremobile error, or the test's own
  assertion with its message and the test's source lines (what the pytest plugin records);
* **search** across steps (calls, results, errors, snapshot texts, log lines), and the
  **navigation graph**.

**A trace is data, and so is this page.** Python turns the trace (already checked by
:mod:`.fields`) into one JSON document; the page holds it in a non-executable
``<script type="application/json">`` block with every ``<``, ``>``, ``&`` and line separator
escaped, so no field — whatever its type or content — can end the block or become markup;
the page's own script builds the DOM from it with ``textContent`` and attributes only. The
script and the style sheet are inline (one file, opened from ``file://``, needing no
server) but the Content-Security-Policy allows exactly them by their SHA-256 hashes,
computed here: no other inline script runs, nothing is fetched (``default-src 'none'``),
images are ``data:`` URIs. Screenshots are decoded only when they scroll into view, so a
500-step trace opens in about a second (``benchmarks/trace_view.py``).
"""

from __future__ import annotations

import base64
import bisect
import hashlib
import json
import math
from importlib import resources
from typing import Any

from baremobile.snapshot.diff import diff
from baremobile.trace.format import Trace, call_text
from baremobile.trace.graph import navigation_graph
from baremobile.trace.summary import failing_step

__all__ = ["render_html", "view_data"]

#: the most log lines shown per step, and in all
_LOG_PER_STEP, _LOG_TOTAL = 400, 20_000


def _asset(name: str) -> str:
    return resources.files("baremobile.trace").joinpath("viewer").joinpath(name).read_text(
        "utf-8")


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()
                                         ).decode() + "'"


def _json_block(value: Any) -> str:
    """``value`` as JSON that cannot end its ``<script>`` block or open a comment."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


class _Table:
    """Values stored once, referred to by index (snapshot texts, screenshots)."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._index: dict[Any, int] = {}

    def add(self, key: Any, value: Any) -> int:
        if key not in self._index:
            self._index[key] = len(self.items)
            self.items.append(value)
        return self._index[key]


def _graph(trace: Trace) -> dict[str, Any]:
    """The navigation graph with each node's place (columns by distance from the start)."""
    graph = navigation_graph(trace)
    nodes = graph["nodes"]
    out_of: dict[str, list[str]] = {}
    for e in graph["edges"]:
        out_of.setdefault(e["from"], []).append(e["to"])
    start = graph["start"]
    depth = {start: 0} if start else {}
    queue = [start] if start else []
    while queue:
        n = queue.pop(0)
        for m in out_of.get(n, []):
            if m not in depth:
                depth[m] = depth[n] + 1
                queue.append(m)
    rows: dict[int, int] = {}
    for n in nodes:
        col = depth.setdefault(n["id"], max(depth.values(), default=-1) + 1)
        n["col"], n["row"] = col, rows.get(col, 0)
        rows[col] = n["row"] + 1
    return graph


def view_data(trace: Trace) -> dict[str, Any]:
    """The JSON document the page is built from (see the module's docs)."""
    m = trace.meta
    steps = trace.steps
    t0 = m.get("started") or next((s["started"] for s in steps if s["started"]), 0.0) or 0.0
    shots, texts = _Table(), _Table()
    timeline: list[tuple[int, int, int]] = []  # (step index, 0 before / 1 after, shot)
    for i, s in enumerate(steps):
        shot = s.get("screenshot") or {}
        if shot.get("file"):
            png = trace.blob(shot["file"])
            if png is not None and png.startswith(b"\x89PNG"):
                k = shots.add(shot["file"], {
                    "uri": "data:image/png;base64," + base64.b64encode(png).decode(),
                    "size": shot.get("size") or [0, 0], "step": s["n"]})
                timeline.append((i, 0 if shot.get("when") == "before" else 1, k))
    log = trace.logcat()["lines"][-_LOG_TOTAL:]
    log_times = [t if t is not None else 0.0 for t, _ in log]
    starts = [s["started"] if s["started"] is not None else t0 for s in steps]
    out_steps: list[dict[str, Any]] = []
    shown: int | None = None  # the last whole screen the caller was shown (its text)
    keys = [(i, w) for i, w, _ in timeline]
    for i, s in enumerate(steps):
        result = s.get("result")
        snap = result if isinstance(result, dict) and result.get("kind") == "snapshot" else None
        k = bisect.bisect_right(keys, (i, 0))  # shots up to this step's "before"
        before = timeline[k - 1][2] if k else None
        j = bisect.bisect_left(keys, (i, 1))
        after = timeline[j][2] if j < len(timeline) else None
        text_before = shown
        text_after = None
        diff_text = None
        if snap is not None:
            full = snap.get("full_text") or snap.get("text") or ""
            text_after = texts.add(full, full)
            if text_before is not None and texts.items[text_before] != full:
                try:
                    diff_text = diff(texts.items[text_before], full)
                except Exception:  # a damaged text: no diff
                    diff_text = None
            shown = text_after
        lo = bisect.bisect_left(log_times, starts[i]) if i else 0
        hi = bisect.bisect_left(log_times, starts[i + 1]) if i + 1 < len(steps) else len(log)
        out_steps.append({
            "n": s["n"], "verb": s["verb"], "call": call_text(s, 120), "door": s["door"],
            "tool": s["tool"], "acts": s["acts"], "args": s["args"],
            "t": round(starts[i] - t0, 3) if math.isfinite(starts[i] - t0) else 0.0,
            "ms": round(s["seconds"] * 1000, 1), "error": s["error"], "target": s["target"],
            "sent": s["sent"], "result": None if snap is not None else result,
            "snapshot": {"package": snap.get("package"), "is_diff": snap.get("is_diff"),
                         "text": snap.get("text")} if snap is not None else None,
            "before": {"shot": before, "text": text_before},
            "after": {"shot": after, "text": text_after}, "diff": diff_text,
            "screenshot_note": (s.get("screenshot") or {}).get("skipped"),
            "log": [line for _, line in log[lo:hi][:_LOG_PER_STEP]],
        })
    later: int | None = None  # an acting step's "after" text: the next screen read
    for row in reversed(out_steps):
        if row["after"]["text"] is None:
            row["after"]["text"] = later
        else:
            later = row["after"]["text"]
    failed = failing_step(trace)
    outcome = m.get("outcome")
    return {
        "title": m.get("title") or trace.path.name, "meta": {
            k: m.get(k) for k in ("serial", "transport", "api_level", "door", "baremobile",
                                  "started", "ended")},
        "complete": trace.complete, "outcome": outcome,
        "failing": failed["n"] if failed is not None else None,
        "steps": out_steps, "shots": shots.items, "texts": texts.items,
        "graph": _graph(trace),
    }


def render_html(trace: Trace) -> str:
    """The page (see the module's docs)."""
    css, js = _asset("viewer.css"), _asset("viewer.js")
    policy = (f"default-src 'none'; img-src data:; style-src {_sha(css)}; "
              f"script-src {_sha(js)}; base-uri 'none'; form-action 'none'")
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            '<title>baremobile trace</title>'
            f"<style>{css}</style></head><body>"
            '<noscript>This trace viewer needs JavaScript (its data is in the page; '
            "baremobile trace summary prints it as text).</noscript>"
            f'<script type="application/json" id="trace-data">{_json_block(view_data(trace))}'
            f"</script><script>{js}</script></body></html>")
