"""Pointer frames → gestures: what Android's gesture detectors make of the fingers a touch
panel reports.

:class:`GestureTracker` follows every contact from the frame it appears in to the frame it
is gone (one :class:`Track` per finger, screen pixels and milliseconds) and hands over a
:class:`Gesture` when the last finger lifts. :func:`recognize` names it the way the
framework's detectors would (``android.view.GestureDetector``,
``ScaleGestureDetector``, ``ViewConfiguration``'s thresholds):

* one finger that stayed within the touch slop: a tap, or a long press when held at least
  the long-press timeout;
* one finger that moved: a swipe (a fling or scroll), or a drag when it was held still for
  the long-press timeout first (drag and drop starts from a long press);
* two or more fingers: a pinch of the first two, ``scale`` = the last span between them
  over the first (ScaleGestureDetector's span ratio), around the first focus point.

Double taps are recognised one level up (:class:`~.touch.TouchInput`), from taps in a row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Track", "Gesture", "GestureTracker", "recognize", "TOUCH_SLOP", "LONG_PRESS_MS"]

#: px: a finger that moved less than this did not move (``ViewConfiguration`` touch slop,
#: 8 dp, at the density the demo runs: the virtual phone's screens use one value)
TOUCH_SLOP = 20
#: ms a still finger must be held to be a long press (``ViewConfiguration``'s 400–500 ms)
LONG_PRESS_MS = 500


@dataclass
class Track:
    """One finger: ``(time_ms, x, y)`` from touch-down to lift-off, in screen pixels."""

    pointer: int
    points: list[tuple[float, float, float]] = field(default_factory=list)

    @property
    def start(self) -> tuple[float, float, float]:
        return self.points[0]

    @property
    def end(self) -> tuple[float, float, float]:
        return self.points[-1]

    def moved(self) -> float:
        """The farthest the finger got from where it went down."""
        _, x0, y0 = self.start
        return max(math.hypot(x - x0, y - y0) for _, x, y in self.points)

    def still_for(self) -> float:
        """How long the finger stayed within the slop of where it went down (ms)."""
        t0, x0, y0 = self.start
        for t, x, y in self.points:
            if math.hypot(x - x0, y - y0) > TOUCH_SLOP:
                return t - t0
        return self.end[0] - t0


@dataclass
class Gesture:
    """Every finger of one touch, from the first down to the last up."""

    tracks: list[Track]

    @property
    def start_ms(self) -> float:
        return min(t.start[0] for t in self.tracks)

    @property
    def end_ms(self) -> float:
        return max(t.end[0] for t in self.tracks)

    @property
    def fingers(self) -> int:
        return len(self.tracks)

    def points(self) -> list[list[list[float]]]:
        """Each finger's ``[time_ms from the start, x, y]`` (for the event log)."""
        t0 = self.start_ms
        return [[[round(t - t0, 3), round(x, 2), round(y, 2)] for t, x, y in tr.points]
                for tr in self.tracks]


class GestureTracker:
    """Frames of contacts in, a :class:`Gesture` out when the last finger lifts."""

    def __init__(self) -> None:
        self._active: dict[int, Track] = {}
        self._done: list[Track] = []

    def frame(self, time_ms: float, pointers: dict[int, tuple[float, float]]) -> Gesture | None:
        """The contacts down after one ``SYN_REPORT`` (tracking id → screen point)."""
        for pid, (x, y) in pointers.items():
            track = self._active.get(pid)
            if track is None:
                track = self._active[pid] = Track(pid)
            track.points.append((time_ms, x, y))
        for pid in [p for p in self._active if p not in pointers]:
            track = self._active.pop(pid)
            track.points.append((time_ms, *track.end[1:]))  # lifted where it last was
            self._done.append(track)
        if self._active or not self._done:
            return None
        done = sorted(self._done, key=lambda t: t.start[0])
        self._done = []
        return Gesture(done)


def _span(a: Track, b: Track, at: str) -> tuple[float, float, float] | None:
    """(span, focus x, focus y) of two fingers at their first or last common moment."""
    times = sorted({t for t, _, _ in a.points} & {t for t, _, _ in b.points})
    if not times:
        return None
    when = times[0] if at == "first" else times[-1]
    pa = next(p for p in a.points if p[0] == when)
    pb = next(p for p in b.points if p[0] == when)
    return (math.hypot(pa[1] - pb[1], pa[2] - pb[2]), (pa[1] + pb[1]) / 2,
            (pa[2] + pb[2]) / 2)


def recognize(g: Gesture) -> dict[str, Any]:
    """What the framework makes of ``g``: ``{"kind": tap | long_press | swipe | drag |
    pinch, ...}`` with its points (screen pixels) and duration (ms)."""
    duration = g.end_ms - g.start_ms
    if g.fingers >= 2:
        a, b = g.tracks[0], g.tracks[1]
        first, last = _span(a, b, "first"), _span(a, b, "last")
        if first is not None and last is not None and first[0] > 0:
            return {"kind": "pinch", "x": round(first[1], 2), "y": round(first[2], 2),
                    "scale": round(last[0] / first[0], 4), "duration_ms": round(duration, 3)}
        return {"kind": "none", "duration_ms": round(duration, 3)}
    tr = g.tracks[0]
    (_, x1, y1), (_, x2, y2) = tr.start, tr.end
    if tr.moved() <= TOUCH_SLOP:
        kind = "long_press" if duration >= LONG_PRESS_MS else "tap"
        return {"kind": kind, "x": round(x1, 2), "y": round(y1, 2),
                "duration_ms": round(duration, 3)}
    kind = "drag" if tr.still_for() >= LONG_PRESS_MS else "swipe"
    return {"kind": kind, "x1": round(x1, 2), "y1": round(y1, 2), "x2": round(x2, 2),
            "y2": round(y2, 2), "duration_ms": round(duration, 3)}
