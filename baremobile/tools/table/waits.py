"""Rows of the waiting verbs (``page/waits.py``): waiting for an element, a text, a still
screen or a time, and scrolling until something shows up. Each wait's length was resolved
once for the call (``ctx.time.wait``: the argument, else the session's default)."""

from __future__ import annotations

from typing import Any

from baremobile.errors import CommandTimeout
from baremobile.page import Page
from baremobile.timeouts import MAX_WAIT_S, SESSION
from baremobile.tools.params import PARAMS, SELECTOR, p, selector
from baremobile.tools.row import Args, Ctx, ToolSpec
from baremobile.tools.table.observing import snapshot_result
from baremobile.tools.targets import node_data, what

__all__ = ["ROWS"]


def _wait(ctx: Ctx) -> float:
    assert ctx.time.wait is not None  # every row here waits by a parameter with a default
    return ctx.time.wait


def _interval(timeout: float) -> float:
    return min(0.5, max(0.05, timeout / 10))


def _wait_for(ctx: Ctx, a: Args) -> dict[str, Any]:
    timeout = _wait(ctx)
    sel = dict(a["selector"])
    fail = a.get("error_on_timeout", True)
    if a.get("gone"):
        left = ctx.page.wait_for(sel, timeout=timeout, interval=_interval(timeout), gone=True,
                                 fail=fail)
        if left is not None:
            return {"found": True, "gone": False, "match": node_data(left),
                    "done": f"{what(sel)} is still on screen after {timeout:g} s"}
        return {"found": False, "gone": True, "done": f"{what(sel)} is gone"}
    node = ctx.page.wait_for(sel, timeout=timeout, interval=_interval(timeout), fail=fail)
    if node is None:
        return {"found": False, "done": f"{what(sel)} did not appear within {timeout:g} s"}
    return {"found": True, "done": f"{what(sel)} is on screen", "match": node_data(node)}


def _wait_for_text(ctx: Ctx, a: Args) -> dict[str, Any]:
    timeout = _wait(ctx)
    snap = ctx.page.wait_for_text(a["text"], timeout=timeout, interval=_interval(timeout),
                                  fail=a.get("error_on_timeout", True))
    if snap is None:
        return {"found": False, "done": f"{a['text']!r} did not appear within {timeout:g} s"}
    return {"found": True, "done": f"{a['text']!r} is on screen",
            **snapshot_result(ctx, snap, a.get("max_chars", ctx.options.max_chars))}


def _wait_stable(ctx: Ctx, a: Args) -> dict[str, Any]:
    timeout = max(1.0, _wait(ctx))  # two dumps need time
    limit = a.get("max_chars", ctx.options.max_chars)
    fail = a.get("error_on_timeout", True)
    if "match_percentage" not in a and fail:
        try:
            snap = ctx.page.wait_stable(timeout=timeout)
        except CommandTimeout:
            raise CommandTimeout(
                f"the screen could not be read within {timeout:g} s",
                hint="pass a longer timeout (reading the screen takes 1-3 s on a phone); the "
                     "device may also be busy") from None
        return {"done": "the screen is stable", "idle": True, "similarity": 100.0,
                **snapshot_result(ctx, snap, limit)}
    idle = ctx.page.wait_idle(timeout=timeout, match_percentage=a.get("match_percentage", 100),
                              fail=fail)
    done = ("the screen is stable" if idle.idle else
            f"the screen was still changing after {timeout:g} s")
    return {"done": done + f" (last two snapshots {idle.similarity:g}% alike)",
            "idle": idle.idle, "similarity": idle.similarity,
            "elapsed_ms": int(idle.elapsed * 1000), "attempts": idle.attempts,
            **snapshot_result(ctx, idle.snapshot, limit)}


def _sleep(ctx: Ctx, a: Args) -> dict[str, Any]:
    ctx.page.wait(_wait(ctx))
    return {"done": f"waited {a['seconds']:g} s"}


def _scroll_until(ctx: Ctx, a: Args) -> dict[str, Any]:
    sel = dict(a["selector"])
    container = dict(a["container"]) if "container" in a else a.get("container_ref")
    node = ctx.page.scroll_until(sel, container, direction=a.get("direction", "down"),
                                 max_scrolls=a.get("max_swipes", 10),
                                 click_after=a.get("click_after", False))
    tapped = " and tapped it" if a.get("click_after") else ""
    return {"done": f"found {what(sel)}{tapped}", "match": node_data(node)}


_SESSION_WAIT = p("timeout", "seconds, default the session's")

ROWS = (
    ToolSpec(
        "wait_for",
        "Wait until an element matching the selector is on screen, or with gone=true until "
        "none is.",
        {"selector": SELECTOR, "timeout": _SESSION_WAIT, "gone": {"type": "boolean"},
         "error_on_timeout": PARAMS["error_on_timeout"]},
        _wait_for, verbs=(Page.wait_for,), required=("selector",), read_only=True,
        returns="'found' and its 'match'; TIMEOUT if not (unless error_on_timeout=false).",
        waits_default=SESSION,
        cli="wait-for-element",
    ),
    ToolSpec(
        "scroll_until",
        "Scroll a list (container_ref, or container: a selector; none: the screen) until an "
        "element matching the selector shows up; click_after taps it.",
        {"selector": SELECTOR,
         "container": selector(), "container_ref": PARAMS["ref"],
         "direction": PARAMS["direction"],
         "max_swipes": {"type": "integer", "minimum": 0, "maximum": 200,
                        "description": "default 10"},
         "click_after": {"type": "boolean"}},
        _scroll_until, verbs=(Page.scroll_until,), required=("selector",),
        hidden=("container",),
        returns="its 'match'; REF_NOT_FOUND at the list's end.",
    ),
    ToolSpec(
        "wait_for_text",
        "Wait until a text shows on screen (any case).",
        {"text": p("text", minLength=1), "timeout": _SESSION_WAIT,
         "max_chars": PARAMS["max_chars"], "error_on_timeout": PARAMS["error_on_timeout"]},
        _wait_for_text, verbs=(Page.wait_for_text,), required=("text",), read_only=True,
        returns="'found' and the snapshot; TIMEOUT if not (unless error_on_timeout=false).",
        waits_default=SESSION,
        cli="wait-for", cli_args=("text",),
    ),
    ToolSpec(
        "wait_stable",
        "Wait until the screen stops changing, then look; match_percentage < 100 tolerates "
        "small changes.",
        {"timeout": p("timeout", "seconds (≥ 1), default the session's", minimum=1),
         "match_percentage": {"type": "number", "minimum": 0, "maximum": 100},
         "max_chars": PARAMS["max_chars"], "error_on_timeout": PARAMS["error_on_timeout"]},
        _wait_stable, verbs=(Page.wait_stable, Page.wait_idle), read_only=True,
        returns="the snapshot, 'idle', 'similarity'.",
        waits_default=SESSION,
    ),
    ToolSpec(
        "wait",
        "Wait a fixed time without looking; prefer wait_for or wait_for_text.",
        {"seconds": {"type": "number", "minimum": 0, "maximum": MAX_WAIT_S}},
        _sleep, verbs=(Page.wait,), required=("seconds",), read_only=True,
        waits_default=0.0,
    ),
)
