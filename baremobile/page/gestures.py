"""Gesture verbs of :class:`~baremobile.page.Page`: ``double_tap``, ``drag``, ``pinch`` and
``gesture`` (custom finger paths). Thin wrappers: the plans are
:mod:`baremobile.android.gestures`' (no I/O), the routes :mod:`baremobile.device.touch`'s.

A point is a ref or a selector (the element's tap point, as ``tap`` uses) or ``(x, y)``
in screen pixels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from baremobile.android.gestures import paths_plan, pinch_plan
from baremobile.android.shell_words import number
from baremobile.device.touch import Touch
from baremobile.errors import InvalidArgument
from baremobile.page.base import PageBase
from baremobile.page.steps import verb

__all__ = ["GestureVerbs", "Point"]

#: a ref, a selector, or (x, y) in screen pixels
Point = Any


class GestureVerbs(PageBase):
    """Double taps, drags, pinches and any finger paths (see the module's docs)."""

    def _touch_engine(self) -> Touch:
        return self._touch

    def _xy(self, point: Point, what: str, *, enabled: bool = True) -> tuple[int, int, int]:
        """(x, y, display) of a ref, a selector or an (x, y) pair (``enabled``: the element
        is acted on, so a disabled one is refused)."""
        if isinstance(point, (tuple, list)) and not isinstance(point, Mapping):
            if len(point) != 2:
                raise InvalidArgument(f"{what} as coordinates is (x, y), not {point!r}")
            return (number(f"{what} x", point[0], minimum=0, maximum=100_000),
                    number(f"{what} y", point[1], minimum=0, maximum=100_000), 0)
        x, y, display, _ = self._touch_point(point, enabled=enabled)
        return x, y, display

    @verb(acts=True)
    def double_tap(self, target: Point) -> dict[str, Any]:
        """Tap an element (or ``(x, y)``) twice, fast enough for Android's double-tap
        detection (second touch-down 40–300 ms after the first lift). Returns the route
        used and the interval range its timing model gives."""
        x, y, display = self._xy(target, "double_tap")
        self._sent("double_tap", [(x, y)])
        return self._touch_engine().double_tap(x, y, display=display)

    @verb(acts=True)
    def drag(self, source: Point, dest: Point, ms: int = 600) -> dict[str, Any]:
        """Press ``source``, hold it past the long-press timeout, move to ``dest`` over
        ``ms`` milliseconds and lift: drag and drop, reordering, moving icons."""
        ms = number("ms", ms, minimum=1, maximum=60_000)
        x1, y1, display = self._xy(source, "drag start")
        x2, y2, _ = self._xy(dest, "drag end", enabled=False)
        self._sent("drag", [(x1, y1), (x2, y2)], ms=ms)
        route = self._touch_engine().drag(x1, y1, x2, y2, ms, display=display)
        return {"route": route, "from": [x1, y1], "to": [x2, y2]}

    @verb(acts=True)
    def pinch(self, target: Point | None = None, scale: float = 2.0, ms: int = 400
              ) -> dict[str, Any]:
        """Two fingers spreading (``scale`` > 1: zoom in) or closing (< 1: zoom out) on an
        element (or ``(x, y)``, or the middle of the screen). Needs a touch screen the
        shell can drive (Android 11+, Android ≤ 9, or root): else ``UNSUPPORTED``."""
        ms = number("ms", ms, minimum=50, maximum=10_000)
        engine = self._touch_engine()
        screen = engine.screen()
        bounds = None
        if target is None:
            x, y = screen.width // 2, screen.height // 2
        elif isinstance(target, (tuple, list)) and not isinstance(target, Mapping):
            x, y, _ = self._xy(target, "pinch")
        else:
            (x, y), bounds, _node = self._target(target)
        plan = pinch_plan(x, y, scale, screen.width, screen.height, bounds=bounds,
                          duration_ms=ms)
        self._sent("pinch", [(x, y)], scale=scale, ms=ms)
        route = engine.play(plan, screen)
        a, b = plan.strokes
        return {"route": route, "center": [x, y], "scale": scale,
                "fingers": [[list(map(round, a.points[0][1:])),
                             list(map(round, a.points[-1][1:]))],
                            [list(map(round, b.points[0][1:])),
                             list(map(round, b.points[-1][1:]))]]}

    @verb(acts=True)
    def gesture(self, paths: Sequence[Sequence[Mapping[str, float] | Sequence[float]]]
                ) -> dict[str, Any]:
        """Any fingers along any paths: ``paths`` is one list of ``{x, y, time}`` points
        per finger (time in ms from the start, increasing). Needs the same as
        :meth:`pinch`, except a single finger on a straight two-point path: that is an
        ``input swipe``, which works everywhere."""
        engine = self._touch_engine()
        screen = engine.screen()
        plan = paths_plan(paths, screen.width, screen.height)  # validated first
        self._sent("gesture", [], paths=[[[round(t, 3), round(px, 2), round(py, 2)]
                                          for t, px, py in s.points] for s in plan.strokes])
        if len(plan.strokes) == 1 and len(plan.strokes[0].points) == 2:
            (t0, x1, y1), (t1, x2, y2) = plan.strokes[0].points
            self.device.swipe(round(x1), round(y1), round(x2), round(y2),
                              max(1, round(t1 - t0)))
            route = "input"
        else:
            route = engine.play(plan, screen)
        return {"route": route, "fingers": len(plan.strokes),
                "duration_ms": plan.duration_ms}
