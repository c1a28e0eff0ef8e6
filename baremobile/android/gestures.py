"""Gestures planned before anything is sent (no I/O here): finger paths with timing.

A :class:`GesturePlan` is a set of :class:`Stroke` s — one finger each, from touch-down to
lift-off, ``(t_ms, x, y)`` in screen pixels of the current orientation — built by
:func:`tap_plan`, :func:`double_tap_plan`, :func:`drag_plan`, :func:`pinch_plan` or
:func:`paths_plan` (custom fingers). Every builder keeps every point on the screen. How a
plan reaches a touch screen (its event device, the type-B encoders, the double tap's timing
model per route) is :mod:`baremobile.android.touch_events`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from baremobile.errors import InvalidArgument

__all__ = [
    "Stroke", "GesturePlan", "Frame", "tap_plan", "double_tap_plan", "drag_plan",
    "pinch_plan", "paths_plan", "plan_start", "clamp", "FRAME_MS", "LONG_PRESS_MS",
    "DOUBLE_TAP_TIMEOUT_MS", "DOUBLE_TAP_MIN_MS", "TAP_HOLD_MS", "DOUBLE_TAP_GAP_MS",
]

#: ms between frames of a moving finger (a 60 Hz panel)
FRAME_MS = 16
#: ``ViewConfiguration``: long-press timeout (400 ms on newer releases, 500 before), the
#: double-tap window and its lower bound
LONG_PRESS_MS = 500
DOUBLE_TAP_TIMEOUT_MS = 300
DOUBLE_TAP_MIN_MS = 40
#: how long a planned tap holds the finger down, and the pause between two taps of a
#: double tap (well inside 40–300 ms)
TAP_HOLD_MS = 40
DOUBLE_TAP_GAP_MS = 100


# ---------------------------------------------------------------------------------------
# plans
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stroke:
    """One finger: ``(t_ms, x, y)`` from touch-down to lift-off (``t`` from the gesture's
    start, increasing; screen pixels)."""

    points: tuple[tuple[float, float, float], ...]

    @property
    def start_ms(self) -> float:
        return self.points[0][0]

    @property
    def end_ms(self) -> float:
        return self.points[-1][0]

    def at(self, t: float) -> tuple[float, float]:
        """Where the finger is at ``t`` (linear between points)."""
        pts = self.points
        if t <= pts[0][0]:
            return pts[0][1], pts[0][2]
        for (t0, x0, y0), (t1, x1, y1) in zip(pts, pts[1:], strict=False):
            if t <= t1:
                f = 0.0 if t1 == t0 else (t - t0) / (t1 - t0)
                return x0 + (x1 - x0) * f, y0 + (y1 - y0) * f
        return pts[-1][1], pts[-1][2]


@dataclass(frozen=True)
class Frame:
    """The fingers down at one moment: stroke index → point; ``lifted`` left just now."""

    t_ms: float
    down: dict[int, tuple[float, float]]
    lifted: tuple[int, ...] = ()


@dataclass(frozen=True)
class GesturePlan:
    """Strokes on a screen of ``width`` x ``height`` (current orientation)."""

    strokes: tuple[Stroke, ...]
    width: int
    height: int

    @property
    def duration_ms(self) -> float:
        return max(s.end_ms for s in self.strokes) - min(s.start_ms for s in self.strokes)

    @property
    def fingers(self) -> int:
        """The most fingers down at once."""
        events = sorted([(s.start_ms, 1) for s in self.strokes]
                        + [(s.end_ms, -1) for s in self.strokes], key=lambda e: (e[0], -e[1]))
        most = cur = 0
        for _, d in events:
            cur += d
            most = max(most, cur)
        return most

    def frames(self, step_ms: float = FRAME_MS) -> list[Frame]:
        """What the panel reports, in order: a frame at every planned point and every
        ``step_ms`` while fingers move; a stroke's lift comes in a frame of its own at its
        end time."""
        times: set[float] = set()
        for s in self.strokes:
            times.update(t for t, _, _ in s.points)
            t = s.start_ms + step_ms
            while t < s.end_ms:
                times.add(round(t, 3))
                t += step_ms
        frames: list[Frame] = []
        for t in sorted(times):
            down = {i: s.at(t) for i, s in enumerate(self.strokes) if s.start_ms <= t <= s.end_ms}
            if down:
                frames.append(Frame(t, down))
            ending = tuple(i for i, s in enumerate(self.strokes) if s.end_ms == t)
            if ending:
                frames.append(Frame(t, {i: p for i, p in down.items() if i not in ending},
                                    ending))
        return frames


def clamp(x: float, y: float, width: int, height: int) -> tuple[float, float]:
    return min(max(x, 0.0), width - 1.0), min(max(y, 0.0), height - 1.0)


def _screen(width: int, height: int) -> None:
    for name, v in (("width", width), ("height", height)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InvalidArgument(f"screen {name} must be a positive integer, not {v!r}")


def _on_screen(x: float, y: float, width: int, height: int, what: str) -> tuple[float, float]:
    for name, v in (("x", x), ("y", y)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise InvalidArgument(f"{what} {name} must be a finite number, not {v!r}")
    if not (0 <= x < width and 0 <= y < height):
        raise InvalidArgument(f"{what} ({x:g}, {y:g}) is off the {width}x{height} screen",
                              hint="take a snapshot: its bounds are in screen pixels")
    return float(x), float(y)


def _line(x1: float, y1: float, x2: float, y2: float, t0: float, duration: float,
          step: float = FRAME_MS) -> list[tuple[float, float, float]]:
    n = max(1, math.ceil(duration / step))
    return [(round(t0 + duration * k / n, 3), x1 + (x2 - x1) * k / n, y1 + (y2 - y1) * k / n)
            for k in range(n + 1)]


def tap_plan(x: float, y: float, width: int, height: int, *, hold_ms: float = TAP_HOLD_MS
             ) -> GesturePlan:
    """One finger down and up at (x, y)."""
    _screen(width, height)
    x, y = _on_screen(x, y, width, height, "tap")
    return GesturePlan((Stroke(((0.0, x, y), (float(hold_ms), x, y))),), width, height)


def double_tap_plan(x: float, y: float, width: int, height: int, *,
                    gap_ms: float = DOUBLE_TAP_GAP_MS, hold_ms: float = TAP_HOLD_MS
                    ) -> GesturePlan:
    """Two taps at (x, y), the second going down ``gap_ms`` after the first went up —
    what ``GestureDetector.isConsideredDoubleTap`` measures (40–300 ms)."""
    if not DOUBLE_TAP_MIN_MS <= gap_ms <= DOUBLE_TAP_TIMEOUT_MS:
        raise InvalidArgument(f"a double tap's gap must be {DOUBLE_TAP_MIN_MS}–"
                              f"{DOUBLE_TAP_TIMEOUT_MS} ms, not {gap_ms!r}")
    first = tap_plan(x, y, width, height, hold_ms=hold_ms).strokes[0]
    t2 = hold_ms + gap_ms
    second = Stroke(tuple((t + t2, px, py) for t, px, py in first.points))
    return GesturePlan((first, second), width, height)


def drag_plan(x1: float, y1: float, x2: float, y2: float, width: int, height: int, *,
              duration_ms: float = 600, hold_ms: float = LONG_PRESS_MS + 100) -> GesturePlan:
    """Press (x1, y1), hold past the long-press timeout (drag and drop starts from a long
    press), move to (x2, y2) over ``duration_ms``, lift."""
    _screen(width, height)
    a = _on_screen(x1, y1, width, height, "drag start")
    b = _on_screen(x2, y2, width, height, "drag end")
    pts = [(0.0, *a)] + _line(*a, *b, float(hold_ms), float(duration_ms))
    return GesturePlan((Stroke(tuple(pts)),), width, height)


#: the closest two planned fingers get (px): panels merge contacts closer than about a
#: fingertip, and ScaleGestureDetector ignores spans under its minimum
MIN_SPAN = 120
#: how far planned fingers stay from the element's edges and from the screen's (px; the
#: screen's margin keeps them out of the system's edge-swipe zones)
EDGE = 8
SCREEN_EDGE = 48


def pinch_plan(cx: float, cy: float, scale: float, width: int, height: int, *,
               bounds: tuple[int, int, int, int] | None = None,
               duration_ms: float = 400) -> GesturePlan:
    """Two fingers moving apart (``scale`` > 1, zoom in) or together (< 1) around
    (cx, cy), along the longer side of ``bounds`` (the element; default the screen).

    The fingers start inside ``bounds`` (so the element gets the touch) and every point
    stays on the screen; the end span is ``scale`` times the start span, both at least
    :data:`MIN_SPAN` apart. A scale that does not fit raises ``INVALID_ARGUMENT``.
    """
    _screen(width, height)
    cx, cy = _on_screen(cx, cy, width, height, "pinch centre")
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not (
            math.isfinite(scale) and scale > 0) or scale == 1:
        raise InvalidArgument(f"scale must be a positive number other than 1, not {scale!r}",
                              hint="2 zooms in to twice the size, 0.5 zooms out to half")
    bx1, by1, bx2, by2 = bounds if bounds is not None else (0, 0, width, height)
    horizontal = (bx2 - bx1) >= (by2 - by1)
    # room from the centre: inside the element for the start, on the screen for all
    if horizontal:
        inner = min(cx - bx1, bx2 - cx) - EDGE
        outer = min(cx, width - 1 - cx) - SCREEN_EDGE
    else:
        inner = min(cy - by1, by2 - cy) - EDGE
        outer = min(cy, height - 1 - cy) - SCREEN_EDGE
    big = max(scale, 1 / scale)
    # the widest span the fingers reach: inside the screen; where they start: inside the
    # element. Zooming in starts narrow and ends wide, zooming out the other way round.
    if scale > 1:
        start = min(2 * inner, 2 * outer / scale)
        end = start * scale
        small = start
    else:
        start = min(2 * inner, 2 * outer)
        end = start * scale
        small = end
    if small < MIN_SPAN:
        room = max(0.0, 2 * min(inner, outer))
        raise InvalidArgument(
            f"a pinch of scale {scale:g} does not fit around ({cx:g}, {cy:g}): the fingers "
            f"need {MIN_SPAN * big:.0f} px and have {room:.0f} px",
            hint="pinch nearer the middle of the element or the screen, or pinch several "
                 "times with a scale nearer 1")

    def finger(sign: int) -> Stroke:
        if horizontal:
            a = (cx + sign * start / 2, cy)
            b = (cx + sign * end / 2, cy)
        else:
            a = (cx, cy + sign * start / 2)
            b = (cx, cy + sign * end / 2)
        return Stroke(tuple(_line(*a, *b, 0.0, float(duration_ms))))

    return GesturePlan((finger(-1), finger(1)), width, height)


def paths_plan(paths: Sequence[Sequence[Mapping[str, float] | Sequence[float]]], width: int,
               height: int, *, max_fingers: int = 10) -> GesturePlan:
    """Custom fingers: each path a list of points ``{"x", "y", "time"}`` (or ``(x, y,
    time)``), at least two, times in ms from the gesture's start and strictly increasing;
    every point on the screen."""
    _screen(width, height)
    if not isinstance(paths, (list, tuple)) or not paths:
        raise InvalidArgument("paths must be a non-empty list of finger paths")
    if len(paths) > max_fingers:
        raise InvalidArgument(f"at most {max_fingers} fingers, not {len(paths)}")
    strokes = []
    for i, path in enumerate(paths):
        if not isinstance(path, (list, tuple)) or len(path) < 2:
            raise InvalidArgument(f"path {i} needs at least two points")
        pts: list[tuple[float, float, float]] = []
        for j, p in enumerate(path):
            if isinstance(p, dict):
                unknown = set(p) - {"x", "y", "time"}
                if unknown or not {"x", "y", "time"} <= set(p):
                    raise InvalidArgument(f"path {i} point {j} needs exactly x, y and time")
                x, y, t = p["x"], p["y"], p["time"]
            elif isinstance(p, (list, tuple)) and len(p) == 3:
                x, y, t = p
            else:
                raise InvalidArgument(f"path {i} point {j} must be {{x, y, time}}")
            if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) \
                    or t < 0 or t > 60_000:
                raise InvalidArgument(f"path {i} point {j}: time must be 0–60000 ms, not {t!r}")
            if pts and t <= pts[-1][0]:
                raise InvalidArgument(f"path {i}: times must increase (point {j} at {t:g} ms)")
            pts.append((float(t), *_on_screen(x, y, width, height, f"path {i} point {j}")))
        strokes.append(Stroke(tuple(pts)))
    return GesturePlan(tuple(strokes), width, height)


def plan_start(plan: GesturePlan) -> float:
    """When the plan's first finger goes down (ms)."""
    return min(s.start_ms for s in plan.strokes)
