"""Rows of the gesture verbs (``page/gestures.py``): double tap, drag, pinch, any gesture."""

from __future__ import annotations

from typing import Any

from baremobile.page import Page
from baremobile.tools.params import PARAMS, POINT, SELECTOR, p
from baremobile.tools.row import Args, Ctx, ToolSpec
from baremobile.tools.targets import target, what

__all__ = ["ROWS"]


def _point(a: Args, prefix: str = "") -> Any:
    keys = {k: a[prefix + k] for k in ("ref", "selector", "x", "y") if prefix + k in a}
    t = target(keys, xy=True)
    return tuple(t) if isinstance(t, tuple) else t


def _double_tap(ctx: Ctx, a: Args) -> dict[str, Any]:
    t = _point(a)
    r = ctx.page.double_tap(t)
    return {"done": f"double-tapped {what(t)} (via {r['route']})", **r}


def _drag(ctx: Ctx, a: Args) -> dict[str, Any]:
    src, dst = _point(a, "from_"), _point(a, "to_")
    r = ctx.page.drag(src, dst, a.get("ms", 600))
    return {"done": f"dragged {what(src)} to {what(dst)} (via {r['route']})", **r}


def _pinch(ctx: Ctx, a: Args) -> dict[str, Any]:
    t = target({k: a[k] for k in ("ref", "selector", "x", "y") if k in a}, xy=True,
               optional=True)
    r = ctx.page.pinch(t, a["scale"], a.get("ms", 400))
    where = what(t) if t is not None else "the middle of the screen"
    way = "in" if a["scale"] > 1 else "out"
    return {"done": f"pinched {way} ×{a['scale']:g} on {where} (via {r['route']})", **r}


def _gesture(ctx: Ctx, a: Args) -> dict[str, Any]:
    r = ctx.page.gesture(a["paths"])
    return {"done": f"performed a {r['fingers']}-finger gesture of {r['duration_ms']:g} ms "
                    f"(via {r['route']})", **r}


ROWS = (
    ToolSpec(
        "double_tap",
        "Double-tap an element (ref, selector) or a point (x, y): zoom a map, like a post.",
        POINT, _double_tap, verbs=(Page.double_tap,), group="gestures",
        returns="the 'route' and 'interval_ms'.",
    ),
    ToolSpec(
        "drag",
        "Long-press what to drag (from_ref, from_selector, or from_x, from_y), move it and "
        "drop it (to_…): reorder a list, move an icon.",
        {"from_ref": PARAMS["ref"], "from_selector": SELECTOR,
         "from_x": PARAMS["x"], "from_y": PARAMS["y"],
         "to_ref": PARAMS["ref"], "to_selector": SELECTOR,
         "to_x": PARAMS["x"], "to_y": PARAMS["y"],
         "ms": p("ms", "default 600")},
        _drag, verbs=(Page.drag,), group="gestures",
    ),
    ToolSpec(
        "pinch",
        "Pinch two fingers on an element, a point or the screen's middle: scale > 1 zooms "
        "in, < 1 out. Needs Android 11+, 9 or older, or root.",
        {**POINT,
         "scale": {"type": "number", "exclusiveMinimum": 0, "maximum": 20},
         "ms": {"type": "integer", "minimum": 50, "maximum": 10_000,
                "description": "default 400"}},
        _pinch, verbs=(Page.pinch,), required=("scale",), group="gestures",
    ),
    ToolSpec(
        "gesture",
        "Any gesture: per finger a path of points {x, y, time} (ms from the start, "
        "increasing). Several fingers need what pinch needs.",
        {"paths": {"type": "array", "minItems": 1, "maxItems": 10,
                   "items": {"type": "array", "minItems": 2, "maxItems": 500,
                             "items": {"type": "object",
                                       "properties": {"x": PARAMS["x"], "y": PARAMS["y"],
                                                      "time": {"type": "number",
                                                               "minimum": 0,
                                                               "maximum": 60_000}},
                                       "required": ["x", "y", "time"],
                                       "additionalProperties": False}}}},
        _gesture, verbs=(Page.gesture,), required=("paths",), group="gestures",
        returns="the 'route', 'fingers', 'duration_ms'.",
    ),
)
