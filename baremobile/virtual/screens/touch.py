"""Where a touch lands: hit-testing the drawn windows and dispatching taps, long presses
and swipes.

A touch goes to the topmost window under the point, then (as Android dispatches touches)
to the deepest clickable node containing it; what that node does is :mod:`.reactions`'
business. A swipe scrolls the innermost scrollable under its start in its direction (by the
swipe's distance, within the content), dismisses a card in the overview, or else fires the
screen's ``swipe`` rule. A (near) zero-distance swipe held long enough is a long press.

New kinds of touch (multi-touch gestures, pinches, flings) belong here: they arrive as
pointer positions over time and end in the same hit-testing.
"""

from __future__ import annotations

from baremobile.virtual.uixml import Node

from .display import Display, area
from .keys import KEY_APP_SWITCH, KEY_BACK, KEY_HOME, KeyInput
from .reactions import Reactions
from .render import Renderer, extent, scroll_range
from .state import ScreenInstance, ScreenState
from .system_ui import recents_screen

__all__ = ["TouchInput", "TOUCH_SLOP", "LONG_PRESS_MS"]

TOUCH_SLOP = 20  # px: a swipe shorter than this is a tap (or a long press when held)
LONG_PRESS_MS = 500


def _horizontal(n: Node) -> bool:
    c = n.cls
    return "Horizontal" in c or "ViewPager" in c or c.endswith("RecentsView")


class TouchInput:
    """Touches on a :class:`~.state.ScreenState` as drawn by a :class:`~.render.Renderer`."""

    def __init__(self, state: ScreenState, renderer: Renderer, reactions: Reactions,
                 keys: KeyInput, display: Display) -> None:
        self.state = state
        self.renderer = renderer
        self.reactions = reactions
        self.keys = keys
        self.display = display

    def tap(self, x: int, y: int) -> None:
        """A tap at (x, y) in screen pixels."""
        if not self.state.screen_on:
            return
        self._touch(x, y, long=False)

    def long_press(self, x: int, y: int, duration_ms: int = 1000) -> None:
        """A touch held at (x, y) (what ``input swipe x y x y 1000`` does)."""
        if not self.state.screen_on:
            return
        self._touch(x, y, long=duration_ms >= LONG_PRESS_MS)

    def hit(self, x: int, y: int, long: bool = False
            ) -> tuple[str, Node | None, Node | None, ScreenInstance | None]:
        """Where a touch at (x, y) lands: (window kind, drawn window, the drawn node that
        handles it, the screen instance that owns it). The topmost window under the point
        takes it (the smallest, as system windows and dialogs float over apps); a dialog
        makes touches on the app behind it ``outside``."""
        windows = self.renderer.render()
        def frame(w: Node) -> tuple[int, int, int, int]:
            return w.meta.get("frame", w.bounds)

        order = sorted(enumerate(windows), key=lambda iw: (area(frame(iw[1])), -iw[0]))
        dialog_up = any(w.meta.get("kind") == "dialog" for w in windows)
        for _i, w in order:
            f = frame(w)
            if not (f[0] <= x < f[2] and f[1] <= y < f[3]):
                continue
            kind = w.meta.get("kind", "app")
            if dialog_up and kind == "app":
                return "outside", w, None, None
            found = self._dispatch(w, x, y, long, w.meta.get("inst"))
            if found is None:
                return kind, w, None, w.meta.get("inst")
            return kind, w, found[0], found[1]
        return "none", None, None, None

    def _dispatch(self, n: Node, x: int, y: int, long: bool, inst: ScreenInstance | None
                  ) -> tuple[Node, ScreenInstance | None] | None:
        """As Android dispatches touches: the deepest clickable node containing the point."""
        inst = n.meta.get("inst", inst)
        for c in reversed(n.children):
            if c.contains(x, y):
                r = self._dispatch(c, x, y, long, inst)
                if r is not None:
                    return r
        src = n.src
        if n.flag("clickable") or n.flag("long-clickable") or (
            src is not None and src.editable and n.flag("focusable")
        ):
            return n, inst
        return None

    def _touch(self, x: int, y: int, long: bool) -> None:
        kind, _w, h, inst = self.hit(int(x), int(y), long)
        if kind == "outside":
            top = self.state.top()
            if top is not None and top.dialogs and not long and top.dialogs[-1].sd.cancelable:
                top.dialogs.pop()
                self.state.changed()
            return
        if h is None or h.src is None or not h.flag("enabled"):
            return
        src = h.src
        if kind == "nav":
            rid = src.rid.rsplit("/", 1)[-1]
            code = {"back": KEY_BACK, "home": KEY_HOME, "recent_apps": KEY_APP_SWITCH}.get(rid)
            if code is not None:
                self.keys.key(code)
            return
        if kind in ("status", "ime", "aod"):
            return
        if kind == "recents" or (inst is not None and inst.kind == "system"):
            self._recents_tap(src)
            return
        if inst is None:
            return
        if long:
            rule, matched = self.reactions.find_rule(inst, src, "long_press")
            if rule is not None:
                self.state.changed()
                self.reactions.run(rule.actions, inst, src, matched or src)
                return
            if src.editable:
                inst.focus_on(src, show_ime=True)
                src.select_all = bool(src.value)
                self.state.changed()
                return
            if src.flag("long-clickable") and not src.flag("clickable"):
                return
            if not h.flag("clickable") or src.flag("long-clickable"):
                return
        self.reactions.click(inst, src)

    def _recents_tap(self, src: Node) -> None:
        if src.meta.get("clear_all"):
            self.state.clear_recents()
            self.state.changed()
            return
        rec = self.state.recents
        if rec is None:
            return
        for w in rec.windows:
            for card in w.iter():
                t = card.meta.get("task")
                if t is not None and (card is src or any(n is src for n in card.iter())):
                    self.state.resume(t)
                    return

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        """A swipe; a (near) zero-distance swipe of >= 500 ms is a long press."""
        if not self.state.screen_on:
            return
        x1, y1, x2, y2 = int(x1), int(y1), int(x2), int(y2)
        dx, dy = x2 - x1, y2 - y1
        if dx * dx + dy * dy <= TOUCH_SLOP * TOUCH_SLOP:
            self._touch(x1, y1, long=duration_ms >= LONG_PRESS_MS)
            return
        kind, w, _h, inst = self.hit(x1, y1)
        if w is None or kind in ("outside", "status", "nav", "ime", "aod"):
            return
        vertical = abs(dy) >= abs(dx)
        in_recents = kind == "recents" or (inst is not None and inst.kind == "system")
        if in_recents and vertical and dy < 0 and self._recents_dismiss(w, x1, y1):
            return
        target = self._scroll_target(w, x1, y1, vertical)
        if target is not None:
            src = target.src
            assert src is not None
            vp = target.bounds
            mnx, mxx, mny, mxy = scroll_range(src, vp)
            if vertical:
                new = min(max(src.scroll_y - dy, mny), mxy)
                if new != src.scroll_y:
                    src.scroll_y = new
                    self.state.changed()
            else:
                new = min(max(src.scroll_x - dx, mnx), mxx)
                if new != src.scroll_x:
                    src.scroll_x = new
                    self.state.changed()
            return
        if inst is None:
            return
        direction = ("up" if dy < 0 else "down") if vertical else ("left" if dx < 0
                                                                    else "right")
        self.reactions.swipe(inst, direction)

    def _scroll_target(self, w: Node, x: int, y: int, vertical: bool) -> Node | None:
        path: list[Node] = []
        n: Node | None = w
        while n is not None:
            path.append(n)
            n = next((c for c in reversed(n.children) if c.contains(x, y)), None)
        for n in reversed(path):
            if not n.flag("scrollable") or n.src is None:
                continue
            horiz = _horizontal(n)
            if horiz == (not vertical):
                return n
            if not horiz and not vertical:
                ext = extent(n.src)
                if ext is not None and ext[2] - ext[0] > n.bounds[2] - n.bounds[0]:
                    return n
        return None

    def _recents_dismiss(self, w: Node, x: int, y: int) -> bool:
        for n in w.iter():
            src = n.src
            t = src.meta.get("task") if src is not None else None
            if t is not None and n.contains(x, y):
                if t in self.state.tasks:
                    self.state.tasks.remove(t)
                self.state.recents = recents_screen(self.display, self.state)
                self.state.changed()
                return True
        return False
