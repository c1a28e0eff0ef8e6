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


def _when(started: float | None) -> str:
    try:
        return datetime.datetime.fromtimestamp(started).strftime("%Y-%m-%d %H:%M:%S") \
            if started else "?"
    except (OverflowError, OSError, ValueError):  # a time no calendar holds
        return "?"


def summary(trace: Trace) -> str:
    """The trace as text (see the module's docs)."""
    m = trace.meta
    steps = trace.steps
    first = next((s["started"] for s in steps if s["started"] is not None), None)
    started = m.get("started") or first or 0.0
    last = steps[-1] if steps else None
    ended = m.get("ended") or ((last["started"] or started) + last["seconds"]
                               if last is not None else started)
    state = "complete" if trace.complete else \
        "INCOMPLETE: the recording was not stopped (a crash?); these are the steps written"
    out = [
        f"trace {trace.path.name}: {len(steps)} steps in {ended - started:.2f} s, "
        f"recorded {_when(started)} ({state})",
        f"device {m.get('serial') or '?'} via {m.get('transport') or '?'}, Android API "
        f"{m.get('api_level') or '?'}; door: {m.get('door') or '?'}"
        + (f"; {m['title']}" if m.get("title") else ""),
    ]
    outcome = m.get("outcome")
    if outcome:
        out.append(f"outcome: {outcome.get('test') or 'the run'} "
                   + ("FAILED" if outcome.get("failed") else "passed")
                   + (f": {outcome['error']}" if outcome.get("error") else ""))
        if outcome.get("file") and outcome.get("line") is not None:
            out.append(f"  at {outcome['file']}:{outcome['line']}")
        for number, line in outcome.get("source") or []:
            mark = ">" if number == outcome.get("line") else " "
            out.append(f"  {mark}{number:5d}  {line}")
    out.append("")
    for s in steps:
        at = (s["started"] - started) if s["started"] is not None else 0.0
        ms = s["seconds"] * 1000
        shot = " [screenshot]" if (s.get("screenshot") or {}).get("file") else ""
        out.append(f"{s['n']:>4}  +{at:7.2f}s {ms:7.0f} ms  {call_text(s)}  {_result(s)}"
                   f"{shot}")
    failed = failing_step(trace)
    if failed is not None:
        err = failed["error"]
        out += ["", f"failing step: #{failed['n']} {call_text(failed)}: "
                f"{err.get('code') or err.get('type')}: {err.get('message')}"
                + (f" (hint: {err['hint']})" if err.get("hint") else "")]
    elif outcome and outcome.get("failed"):
        out += ["", f"failing step: the test's own check after step "
                f"#{steps[-1]['n'] if steps else 0}: {outcome.get('error') or 'failed'}"]
    return "\n".join(out)
