"""Where a touch lands: hit-testing the drawn windows and dispatching taps, double taps, long
presses, swipes, drags and pinches.

A touch goes to the topmost window under the point, then (as Android dispatches touches)
to the deepest clickable node containing it; what that node does is :mod:`.reactions`'
business. A swipe scrolls the innermost scrollable under its start in its direction (by the
swipe's distance, within the content), dismisses a card in the overview, or else fires the
screen's ``swipe`` rule. A (near) zero-distance swipe held long enough is a long press.

Two taps in a row are a double tap as ``GestureDetector.isConsideredDoubleTap`` decides:
the second goes down 40–300 ms after the first went up (``DOUBLE_TAP_MIN_TIME``,
``DOUBLE_TAP_TIMEOUT``) within the double-tap slop (100 dp) of it; the node's
``double_tap`` rule then runs instead of a second click. A pinch over a zoomable screen's
zoom node scales it. Coordinates here are the layout's (see :mod:`.display`); the screen
model converts what the outside world sends.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from baremobile.virtual.scenario import Selector
from baremobile.virtual.uixml import Node, element_id

from .display import Display, area
from .gestures import LONG_PRESS_MS, TOUCH_SLOP
from .keys import KEY_APP_SWITCH, KEY_BACK, KEY_HOME, KeyInput
from .reactions import Reactions
from .render import Renderer, extent, scroll_range
from .state import ScreenInstance, ScreenState
from .system_ui import recents_screen

__all__ = ["TouchInput", "TOUCH_SLOP", "LONG_PRESS_MS", "DOUBLE_TAP_TIMEOUT_MS",
           "DOUBLE_TAP_MIN_MS", "drawn_ids"]

DOUBLE_TAP_TIMEOUT_MS = 300  # ViewConfiguration.DOUBLE_TAP_TIMEOUT
DOUBLE_TAP_MIN_MS = 40  # ViewConfiguration.DOUBLE_TAP_MIN_TIME
DOUBLE_TAP_SLOP_DP = 100  # ViewConfiguration.DOUBLE_TAP_SLOP


_SYSTEM_WINDOWS = ("status", "nav", "ime", "aod", "recents", "shade")


def drawn_ids(window: Node) -> Iterator[tuple[Node, str]]:
    """Each drawn node of ``window`` with the name of the element it shows: the model
    node's :func:`~baremobile.virtual.uixml.element_id`, or — for the system bars, the
    keyboard and other windows drawn afresh each time — the window kind and the node's
    place in it (``nav/0/2``)."""
    kind = str(window.meta.get("kind", "app"))
    stack: list[tuple[Node, str]] = [(window, kind)]
    while stack:
        n, path = stack.pop()
        src = n.src
        system = kind in _SYSTEM_WINDOWS or src is None or src is n
        yield n, (path if system or src is None else element_id(src))
        stack.extend((c, f"{path}/{i}") for i, c in enumerate(n.children))


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
        self._last_tap: tuple[float, float, float] | None = None  # (up ms, x, y)
        #: the real browser's room (:class:`~.web.WebRoom`): touches inside a web page's
        #: region become the page's own touch events
        self.web: Any = None

    def now_ms(self) -> float:
        return self.state.clock.now() * 1000

    def tap(self, x: float, y: float, down_ms: float | None = None,
            up_ms: float | None = None) -> tuple[str, float | None]:
        """A tap at (x, y): ``("double_tap", ms since the first tap went up)`` when it
        completes one, else ``("tap", ms since the last tap went up or None)``.

        ``down_ms``/``up_ms`` are when the finger went down and up (default: now, as
        ``input tap`` stamps both events with one time)."""
        now = self.now_ms()
        down = now if down_ms is None else down_ms
        up = down if up_ms is None else up_ms
        last, self._last_tap = self._last_tap, (up, x, y)
        since = round(down - last[0], 3) if last is not None else None
        if not self.state.screen_on:
            return "tap", since
        slop = DOUBLE_TAP_SLOP_DP * self.display.density / 160
        double = last is not None and (
            DOUBLE_TAP_MIN_MS <= down - last[0] <= DOUBLE_TAP_TIMEOUT_MS
            and math.hypot(x - last[1], y - last[2]) <= slop)
        if double:
            self._last_tap = None  # a third tap starts afresh
        self._touch(int(x), int(y), long=False, double=double)
        return ("double_tap" if double else "tap"), since

    def long_press(self, x: int, y: int, duration_ms: int = 1000) -> None:
        """A touch held at (x, y) (what ``input swipe x y x y 1000`` does)."""
        self._last_tap = None
        if not self.state.screen_on:
            return
        self._touch(x, y, long=duration_ms >= LONG_PRESS_MS, hold_ms=duration_ms)

    def hit(self, x: int, y: int, long: bool = False
            ) -> tuple[str, Node | None, Node | None, ScreenInstance | None]:
        """Where a touch at (x, y) lands: (window kind, drawn window, the drawn node that
        handles it, the screen instance that owns it). The topmost window under the point
        takes it (the smallest, as system windows and dialogs float over apps; the shade
        over all but the navigation bar); a dialog makes touches on the app behind it
        ``outside``."""
        windows = self.renderer.render()
        def frame(w: Node) -> tuple[int, int, int, int]:
            return w.meta.get("frame", w.bounds)

        order = sorted(enumerate(windows), key=lambda iw: (area(frame(iw[1])), -iw[0]))
        dialog_up = any(w.meta.get("kind") == "dialog" for w in windows)
        shade_up = any(w.meta.get("kind") == "shade" for w in windows)
        for _i, w in order:
            f = frame(w)
            if not (f[0] <= x < f[2] and f[1] <= y < f[3]):
                continue
            kind = w.meta.get("kind", "app")
            if shade_up and kind not in ("shade", "nav"):
                continue  # the shade is over every window but the navigation bar
            if dialog_up and kind == "app":
                return "outside", w, None, None
            found = self._dispatch(w, x, y, long, w.meta.get("inst"))
            if found is None:
                return kind, w, None, w.meta.get("inst")
            return kind, w, found[0], found[1]
        return "none", None, None, None

    def landed(self, x: float, y: float) -> dict[str, Any]:
        """Where a touch at (x, y) lands, for the event log (see :func:`drawn_ids`):
        ``window`` (its kind, or ``outside`` a dialog, ``none``), ``on`` (the element that
        handles it, as a tap is dispatched: the deepest clickable one; None when nothing
        does) and ``under`` (every element under the point, deepest first)."""
        xi, yi = int(x), int(y)
        kind, w, h, _inst = self.hit(xi, yi)
        if w is None:
            return {"window": kind, "on": None, "under": []}
        on = None
        under: list[tuple[int, str]] = []  # (depth, name) of every node under the point
        depth: dict[int, int] = {id(w): 0}
        for n, uid in drawn_ids(w):  # parents before their children
            d = depth[id(n)]
            for c in n.children:
                depth[id(c)] = d + 1
            if n is h:
                on = uid
            if n.contains(xi, yi):
                under.append((d, uid))
        under.sort(key=lambda du: -du[0])
        return {"window": kind, "on": on, "under": [uid for _, uid in under]}

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

    def _touch(self, x: int, y: int, long: bool, double: bool = False, hold_ms: int = 0
               ) -> None:
        kind, _w, h, inst = self.hit(int(x), int(y), long)
        if kind == "app" and self.web is not None:
            surface = self.web.claims(inst, int(x), int(y))
            if surface is not None:
                self.web.tap(surface, int(x), int(y), hold_ms if long else 0)
                return
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
        if kind == "shade":
            self._shade_tap(src)
            return
        if kind == "recents" or (inst is not None and inst.kind == "system"):
            self._recents_tap(src)
            return
        if inst is None:
            return
        if double:
            rule, matched = self.reactions.find_rule(inst, src, "double_tap")
            if rule is not None:
                self.state.changed()
                self.reactions.run(rule.actions, inst, src, matched or src)
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

    def _shade_tap(self, src: Node) -> None:
        """A tap in the shade: the settings button opens Settings; the empty space below
        the notifications (the scrim) closes it; tiles show fixed states."""
        rid = src.rid.rsplit("/", 1)[-1]
        if rid == "settings_button_container" and "com.android.settings" in self.state.apps:
            self.state.launch("com.android.settings", None)
        elif rid in ("scrim_behind", "notification_stack_scroller", "no_notifications"):
            self.state.set_shade(None)
        self.state.changed()

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

    def pinch(self, x: float, y: float, scale: float) -> bool:
        """Two fingers spreading (``scale`` > 1) or closing around (x, y): the zoomable
        node under the point scales by ``scale`` (over a web page, the page zooms as
        Chromium zooms it). True if something zoomed."""
        self._last_tap = None
        if not self.state.screen_on or not (scale > 0):
            return False
        kind, w, _h, inst = self.hit(int(x), int(y))
        if kind == "app" and self.web is not None:
            surface = self.web.claims(inst, int(x), int(y))
            if surface is not None:  # a web page zooms itself (Chromium's own pinch)
                return bool(self.web.pinch(surface, int(x), int(y), scale))
        if w is None or inst is None or kind not in ("app", "dialog"):
            return False
        owner = self.state.host(inst)
        z = owner.sd.zoom
        if z is None or not self._over(w, int(x), int(y), z.node):
            return False
        return self.reactions.zoom(owner, owner.scale * scale)

    @staticmethod
    def _over(w: Node, x: int, y: int, sel: Selector) -> bool:
        """Whether (x, y) lies on a drawn node matching ``sel`` in window ``w``."""
        return any(n.contains(x, y) and n.src is not None and sel.matches(n.src)
                   for n in w.iter())

    def drag(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        """Press, hold and move (``input draganddrop``; a long press that then moves): the
        screen treats it as the long press it starts with (there is no drop target in a
        scenario), then as a swipe if the content can scroll."""
        self._last_tap = None
        if not self.state.screen_on:
            return
        self._touch(int(x1), int(y1), long=True)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
        """A swipe; a (near) zero-distance swipe of >= 500 ms is a long press."""
        self._last_tap = None
        if not self.state.screen_on:
            return
        x1, y1, x2, y2 = int(x1), int(y1), int(x2), int(y2)
        dx, dy = x2 - x1, y2 - y1
        if dx * dx + dy * dy <= TOUCH_SLOP * TOUCH_SLOP:
            self._touch(x1, y1, long=duration_ms >= LONG_PRESS_MS, hold_ms=duration_ms)
            return
        kind, w, _h, inst = self.hit(x1, y1)
        if kind == "app" and self.web is not None:
            surface = self.web.claims(inst, x1, y1)
            if surface is not None:
                self.web.swipe(surface, x1, y1, x2, y2, duration_ms)
                return
        vertical = abs(dy) >= abs(dx)
        if vertical and kind in ("status", "shade"):  # the shade follows the finger
            if dy > 0:  # down from the status bar: notifications; again: quick settings
                self.state.set_shade("settings" if self.state.shade else "notifications")
            elif kind == "shade":
                self.state.set_shade("notifications" if self.state.shade == "settings"
                                     else None)
            return
        if w is None or kind in ("outside", "status", "nav", "ime", "aod", "shade"):
            return
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
