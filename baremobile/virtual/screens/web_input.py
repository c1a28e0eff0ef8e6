"""Input into a web screen's page: what a finger and the keyboard do to it.

Touches arrive in device pixels inside the WebView's region and become the page's own touch
events (``Input.dispatchTouchEvent``: coordinates are CSS pixels relative to the visual
viewport, so device pixels are divided by the WebView's size over the visual viewport's —
pinch zoom included); typed text becomes ``Input.insertText`` and Android key codes DOM key
events; a tap that focuses an editable element brings the keyboard up.

:class:`PageInput` is the input half of :class:`~.web.WebRoom` (it reaches the page through
the room's ``_page`` and ``evaluate``).
"""

from __future__ import annotations

import time
from typing import Any

from baremobile.virtual.chromium import ChromiumError

from .state import ScreenState

__all__ = ["PageInput"]

# Android key codes → (DOM key, code, Windows virtual key code, text)
_KEYS: dict[int, tuple[str, str, int, str]] = {
    66: ("Enter", "Enter", 13, "\r"),
    160: ("Enter", "NumpadEnter", 13, "\r"),
    67: ("Backspace", "Backspace", 8, ""),
    112: ("Delete", "Delete", 46, ""),
    61: ("Tab", "Tab", 9, ""),
    122: ("Home", "Home", 36, ""),
    123: ("End", "End", 35, ""),
    21: ("ArrowLeft", "ArrowLeft", 37, ""),
    22: ("ArrowRight", "ArrowRight", 39, ""),
    19: ("ArrowUp", "ArrowUp", 38, ""),
    20: ("ArrowDown", "ArrowDown", 40, ""),
}
_CHAR_KEYS: dict[int, str] = {
    **{7 + i: str(i) for i in range(10)},
    **{29 + i: chr(ord("a") + i) for i in range(26)},
    55: ",", 56: ".", 62: " ", 68: "`", 69: "-", 70: "=", 71: "[", 72: "]", 73: "\\",
    74: ";", 75: "'", 76: "/", 77: "@", 81: "+", 17: "*", 18: "#",
}
_EDIT_COMMANDS = {29: "selectAll", 31: "copy", 52: "cut", 50: "paste"}  # CTRL + A/C/X/V
_EDITABLE_JS = ("(() => { let e = document.activeElement;"
                " while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot"
                ".activeElement; while (e && e.tagName === 'IFRAME') { try { e = "
                "e.contentDocument.activeElement } catch (x) { break } }"
                " return !!e && (e.isContentEditable || (e.tagName === 'TEXTAREA') ||"
                " (e.tagName === 'INPUT' && !/^(button|submit|reset|checkbox|radio|range|"
                "color|file|image|hidden)$/i.test(e.type))) })()")


class PageInput:
    """Touch, text and keys into a surface's page (mixed into the web room)."""

    state: ScreenState
    generation: int

    def _page(self, s: Any, method: str, params: dict[str, Any] | None = None
              ) -> dict[str, Any]:
        raise NotImplementedError

    def evaluate(self, s: Any, expression: str) -> Any:
        raise NotImplementedError

    def _to_css(self, s: Any, x: float, y: float) -> tuple[float, float]:
        """Device pixels → the page's input coordinates (CSS px, visual viewport)."""
        assert s.region is not None
        vv = self._page(s, "Page.getLayoutMetrics")["cssVisualViewport"]
        r = s.region
        return ((x - r[0]) * vv["clientWidth"] / (r[2] - r[0]),
                (y - r[1]) * vv["clientHeight"] / (r[3] - r[1]))

    def _touch(self, s: Any, kind: str, points: list[tuple[float, float]], t: float
               ) -> None:
        self._page(s, "Input.dispatchTouchEvent", {
            "type": kind, "timestamp": t,
            "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})

    def tap(self, s: Any, x: int, y: int, hold_ms: int = 0) -> None:
        """A touch at (x, y): a tap (touch events, so the page's click follows), or held
        ``hold_ms`` >= 500 a long press (Chromium's own touch gesture for it: the page sees
        the touch but no click, as on a phone; headless Chromium opens no context menu).
        The WebView takes input focus; the keyboard follows the page's focused element."""
        p = self._to_css(s, x, y)
        if hold_ms >= 500:
            self._page(s, "Input.synthesizeTapGesture", {
                "x": p[0], "y": p[1], "duration": hold_ms, "tapCount": 1,
                "gestureSourceType": "touch"})
        else:
            t = time.time()
            self._touch(s, "touchStart", [p], t)
            self._touch(s, "touchEnd", [], t + 0.05)
        self._focus(s)

    def swipe(self, s: Any, x1: int, y1: int, x2: int, y2: int, ms: int) -> None:
        """A finger drag (timestamps spread over ``ms``: a drag, no fling)."""
        a, b = self._to_css(s, x1, y1), self._to_css(s, x2, y2)
        t = time.time()
        steps = 12
        self._touch(s, "touchStart", [a], t)
        for i in range(1, steps + 1):
            f = i / steps
            self._touch(s, "touchMove", [(a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f)],
                        t + ms / 1000 * f)
        # the finger rests before it lifts: no fling, the page moves by the drag alone
        self._touch(s, "touchMove", [b], t + ms / 1000 + 0.1)
        self._touch(s, "touchEnd", [], t + ms / 1000 + 0.11)

    def _focus(self, s: Any) -> None:
        inst = s.inst
        node = inst.web_node
        assert node is not None
        try:
            editable = bool(self.evaluate(s, _EDITABLE_JS))
        except ChromiumError:
            editable = False
        inst.focus_on(node, show_ime=False)
        inst.web_editable = editable
        inst.ime = editable and inst.sd.keyboard
        self.state.changed()

    def type_text(self, s: Any, text: str) -> None:
        self._page(s, "Input.insertText", {"text": text})

    def key(self, s: Any, code: int, modifiers: int = 0) -> bool:
        """An Android key event as the page's key event; False for keys it does not take."""
        if modifiers & 2 and code in _EDIT_COMMANDS:
            self._key_event(s, chr(ord("a") + code - 29), modifiers,
                            commands=[_EDIT_COMMANDS[code]])
            return True
        if code in _KEYS:
            key, dom_code, vk, text = _KEYS[code]
            self._key_event(s, key, modifiers, dom_code=dom_code, vk=vk, text=text)
            if code in (66, 160) or text:
                self._focus(s)
            return True
        ch = _CHAR_KEYS.get(code)
        if ch is not None:
            self.type_text(s, ch.upper() if modifiers & 8 else ch)
            return True
        return False

    def _key_event(self, s: Any, key: str, modifiers: int, *, dom_code: str = "",
                   vk: int = 0, text: str = "", commands: list[str] | None = None) -> None:
        down: dict[str, Any] = {"type": "keyDown" if text else "rawKeyDown", "key": key,
                                "code": dom_code or key, "windowsVirtualKeyCode": vk,
                                "modifiers": modifiers}
        if text:
            down["text"] = down["unmodifiedText"] = text
        if commands:
            down["commands"] = commands
        self._page(s, "Input.dispatchKeyEvent", down)
        self._page(s, "Input.dispatchKeyEvent", {"type": "keyUp", "key": key,
                                                 "code": dom_code or key,
                                                 "windowsVirtualKeyCode": vk,
                                                 "modifiers": modifiers})

    # -- two fingers ------------------------------------------------------------------------
    def pinch(self, s: Any, x: int, y: int, scale: float) -> bool:
        """Two fingers around (x, y) (device px) ending ``scale`` times as far apart (one
        above the other, kept inside the page); True when the page's zoom changed."""
        vv = self._page(s, "Page.getLayoutMetrics")["cssVisualViewport"]
        before = vv["scale"]
        c = self._to_css(s, x, y)
        room = max(1.0, min(c[1], vv["clientHeight"] - c[1]) - 1)
        d0, d1 = 60.0, 60.0 * scale
        if max(d0, d1) > room:  # the farther pair must stay on the page
            d0, d1 = d0 * room / max(d0, d1), d1 * room / max(d0, d1)
        steps = 10
        t = time.time()
        self._touch(s, "touchStart", [(c[0], c[1] - d0), (c[0], c[1] + d0)], t)
        for i in range(1, steps + 1):
            d = d0 + (d1 - d0) * i / steps
            self._touch(s, "touchMove", [(c[0], c[1] - d), (c[0], c[1] + d)], t + 0.016 * i)
        self._touch(s, "touchEnd", [], t + 0.2)
        # the zoom lands a few frames later and may settle for a while: wait until the
        # viewport has changed and then held still (or, at a zoom limit, stayed as it was)
        started = time.monotonic()
        last, still = None, 0
        while time.monotonic() < started + 3.0:
            vv = self._page(s, "Page.getLayoutMetrics")["cssVisualViewport"]
            now = (vv["scale"], vv["pageX"], vv["pageY"])
            still = still + 1 if now == last else 0
            last = now
            if still >= 4 and (now[0] != before or time.monotonic() > started + 0.5):
                break
            time.sleep(0.025)
        self.generation += 1
        return last is not None and last[0] != before
