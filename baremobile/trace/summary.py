"""A trace as text, for terminals and coding agents (``baremobile trace summary TRACE``).

One header (device, door, steps, time, whether the recording was stopped or a crash left
it), the outcome a test runner put in it, then one line per step — its number, when it
started, how long it took, the call (with the element a ref resolved to) and what came of
it — and, last, the first failing step named again.
"""

from __future__ import annotations

import datetime
from typing import Any

from baremobile.trace.format import Trace, call_text

__all__ = ["summary", "failing_step"]


def failing_step(trace: Trace) -> dict[str, Any] | None:
    """The first step that raised (None when none did)."""
    return next((s for s in trace.steps if s.get("error")), None)


def _result(step: dict[str, Any]) -> str:
    err = step.get("error")
    if err:
        return f"FAILED {err.get('code') or err.get('type')}: {err.get('message')}"
    result = step.get("result")
    if isinstance(result, dict) and result.get("kind") == "snapshot":
        text = result.get("full_text") or result.get("text") or ""
        refs = text.count("[ref=")
        what = "diff" if result.get("is_diff") else "screen"
        lines = (result.get("text") or "").count("\n") + 1
        return f"{what} of {result.get('package') or '?'}: {lines} lines, {refs} refs"
    if result is None:
        return "ok"
    text = str(result)
    return "→ " + (text if len(text) <= 70 else text[:69] + "…")


def summary(trace: Trace) -> str:
    """The trace as text (see the module's docs)."""
    m = trace.meta
    started = m.get("started") or (trace.steps[0]["started"] if trace.steps else 0)
    ended = m.get("ended") or (trace.steps[-1]["started"] + trace.steps[-1]["seconds"]
                               if trace.steps else started)
    when = datetime.datetime.fromtimestamp(started).strftime("%Y-%m-%d %H:%M:%S") \
        if started else "?"
    state = "complete" if trace.complete else \
        "INCOMPLETE: the recording was not stopped (a crash?); these are the steps written"
    out = [
        f"trace {trace.path.name}: {len(trace.steps)} steps in {ended - started:.2f} s, "
        f"recorded {when} ({state})",
        f"device {m.get('serial', '?')} via {m.get('transport') or '?'}, Android API "
        f"{m.get('api_level') or '?'}; door: {m.get('door', '?')}"
        + (f"; {m['title']}" if m.get("title") else ""),
    ]
    outcome = m.get("outcome")
    if isinstance(outcome, dict) and outcome:
        out.append("outcome: " + "; ".join(f"{k}: {v}" for k, v in outcome.items()))
    out.append("")
    for s in trace.steps:
        at = s.get("started", started) - started
        ms = s.get("seconds", 0) * 1000
        shot = " [screenshot]" if (s.get("screenshot") or {}).get("file") else ""
        out.append(f"{s['n']:>4}  +{at:7.2f}s {ms:7.0f} ms  {call_text(s)}  {_result(s)}"
                   f"{shot}")
    failed = failing_step(trace)
    if failed is not None:
        err = failed["error"]
        out += ["", f"failing step: #{failed['n']} {call_text(failed)}: "
                f"{err.get('code') or err.get('type')}: {err.get('message')}"
                + (f" (hint: {err['hint']})" if err.get("hint") else "")]
    return "\n".join(out)
